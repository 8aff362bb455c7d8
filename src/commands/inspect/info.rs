//! `info`: what a path is, where it really is, and what its bytes look like.

use crate::handler;
use crate::protocol::registry::{CommandSpec, field};
use crate::protocol::{CmdError, Output, code, error};
use crate::store::view;
use crate::text::lines;
use crate::workspace::{Ctx, paths};
use clap::Args;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Path to describe.
    #[arg(value_name = "PATH")]
    pub path: String,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "info",
    summary: "Describe a path: location, kind, size, lines, words, encoding, mode, hash, and digests.",
    description: "Path fields always; content fields for an existing file.",
    args: <InfoArgs as clap::Args>::augment_args,
    output_fields: &[
        field("absolute", "Lexical absolute path."),
        field("real", "Path with every symlink resolved."),
        field(
            "relative",
            "Path relative to the workspace root, or null outside it.",
        ),
        field(
            "exists",
            "Whether the path exists (a dangling symlink does not).",
        ),
        field("size", "Bytes."),
        field("hash", "SHA-256 of the file bytes."),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::BUSY,
        code::IO,
    ],
    writes: false,
    tx: true,
    workspace: true,
    run: handler!(InfoArgs, run),
};

#[derive(Serialize)]
struct InfoOut {
    absolute: String,
    real: String,
    relative: Option<String>,
    exists: bool,
    size: u64,
    hash: Option<String>,
}

pub fn run(ctx: &Ctx, args: &InfoArgs) -> Result<Output, CmdError> {
    let abs = ctx.path_arg(&args.path)?;
    let real = paths::real_path(&abs);
    if ctx.tx.is_some() {
        let st = view::stat(ctx, &abs, true)?;
        if st.kind == view::Kind::Missing {
            let e = std::io::Error::from(std::io::ErrorKind::NotFound);
            return Err(error::io_error("info", &args.path, &e));
        }
        view::record_read(ctx, &abs)?;
        let hash = match st.kind {
            view::Kind::File => Some(view::load(ctx, &abs)?.hash.clone()),
            _ => None,
        };
        return Ok(Output::ok(&InfoOut {
            absolute: paths::display(&abs),
            relative: paths::relative_to(&real, &ctx.root),
            real: paths::display(&real),
            exists: true,
            size: st.len,
            hash,
        }));
    }
    let meta = std::fs::metadata(&abs).map_err(|e| error::io_error("info", &args.path, &e))?;
    let hash = if meta.is_file() {
        let f = std::fs::File::open(&abs).map_err(|e| error::io_error("info", &args.path, &e))?;
        Some(
            lines::scan(f, &mut lines::Span { first: 0, last: 0 }, |_| {})
                .map_err(|e| error::io_error("info", &args.path, &e))?
                .hash,
        )
    } else {
        None
    };
    Ok(Output::ok(&InfoOut {
        absolute: paths::display(&abs),
        relative: paths::relative_to(&real, &ctx.root),
        real: paths::display(&real),
        exists: true,
        size: meta.len(),
        hash,
    }))
}

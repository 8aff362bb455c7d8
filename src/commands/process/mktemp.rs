//! `mktemp`: a new private scratch file or directory in the workspace's state
//! directory (`store::scratch`, outside the tree, never journaled), for `run
//! --stdout-to` and experiments; `gc` removes entries older than a day.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, code, time};
use crate::store::{scratch, state_dir};
use crate::text::lines::sha256_hex;
use crate::workspace::Ctx;
use clap::Args;

/// Longest prefix or suffix accepted, in bytes.
const MAX_AFFIX: usize = 64;

#[derive(Args, Debug)]
pub struct MktempArgs {
    /// Create a directory instead of a file.
    #[arg(long)]
    pub dir: bool,
    /// Name prefix.
    #[arg(long, default_value = "tmp.", value_name = "P")]
    pub prefix: String,
    /// Name suffix, such as .json.
    #[arg(long, default_value = "", value_name = "S")]
    pub suffix: String,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "mktemp",
    summary: "New private scratch file or directory outside the tree (mktemp).",
    description: "Created 0600 (a directory 0700) under the workspace's state directory (tmp/), never journaled nor undoable; run --stdout-to may write to it or below it. gc removes scratch entries not modified for a day.",
    args: <MktempArgs as clap::Args>::augment_args,
    output_fields: &[
        field("path", "Absolute path of the new entry."),
        field(
            "hash",
            "For a file: its content hash (the empty file's), as info reports it.",
        ),
    ],
    error_codes: &[code::ARGUMENT_INVALID, code::IO],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects {
        additive: true,
        ..Effects::SIDE
    },
    run: handler!(MktempArgs, run),
};

fn check_affix(ctx: &Ctx, flag: &str, s: &str) -> Result<(), CmdError> {
    if s.len() > MAX_AFFIX || s.contains(['/', '\0']) || s == "." || s == ".." {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("{flag} must be a name part: at most {MAX_AFFIX} bytes, no / and no NUL."),
        ));
    }
    Ok(())
}

/// The n-th candidate tag: from `AITOOLS_SEED` when set (reproducible), else
/// from the clock and the process id.
fn tag(ctx: &Ctx, n: u32) -> String {
    let material = match &ctx.session.settings.seed {
        Some(s) => format!("mktemp:{s}:{n}"),
        None => {
            let (secs, nanos) = time::now();
            format!("mktemp:{secs}:{nanos}:{}:{n}", std::process::id())
        }
    };
    sha256_hex(material.as_bytes())[..10].to_string()
}

pub fn run(ctx: &Ctx, a: &MktempArgs) -> Result<Output, CmdError> {
    check_affix(ctx, "--prefix", &a.prefix)?;
    check_affix(ctx, "--suffix", &a.suffix)?;
    let state = state_dir::ensure(&ctx.root, ctx.session.kept())
        .map_err(|e| crate::store::io_fault(ctx, "the state directory", &e))?;
    let path = scratch::create(&state, a.dir, &a.prefix, &a.suffix, |n| tag(ctx, n))
        .map_err(|e| crate::store::io_fault(ctx, "the scratch area", &e))?;
    let mut o = Json::obj();
    o.push("path", Json::str(path.to_string_lossy().to_string()));
    if !a.dir {
        o.push("hash", Json::str(sha256_hex(b"")));
    }
    Ok(Output::from_json(o, false))
}

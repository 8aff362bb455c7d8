//! `write`: create a file (or, with `--overwrite` and its hash, replace one) from
//! `--content`, `--content-file` or `--stdin`.

use crate::handler;
use crate::protocol::args::Guard;
use crate::protocol::redact::PLACEHOLDER;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::files::Kind;
use crate::store::guard;
use crate::store::stream::{self, STREAM_FROM, Scan};
use crate::store::write::{self, Change, WriteRequest};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use crate::workspace::input::{self, InputLimit};
use clap::Args;
use std::sync::Arc;

#[derive(Args, Debug)]
pub struct WriteArgs {
    /// The file to create or overwrite.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Inserted between concatenated inputs.
    #[arg(long, allow_hyphen_values = true)]
    pub separator: Option<String>,
    /// Replace an existing file (needs --expect-hash).
    #[arg(long)]
    pub overwrite: bool,
    /// Content text; repeat to concatenate.
    #[arg(long, allow_hyphen_values = true)]
    pub content: Vec<String>,
    /// Content bytes from this file; repeat to concatenate.
    #[arg(long, value_name = "FILE")]
    pub content_file: Vec<String>,
    /// Read the input from stdin (never read otherwise).
    #[arg(long)]
    pub stdin: bool,
    /// The --stdin input given inline (history records --stdin writes this way).
    #[arg(long, allow_hyphen_values = true)]
    pub stdin_data: Option<String>,
    #[command(flatten)]
    pub guard: Guard,
    #[command(flatten)]
    pub input_limit: InputLimit,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "write",
    summary: "Create or overwrite a file (echo >, tee).",
    description: "Missing parent directories are created; a PATH ending in '/' names a directory and is refused. An existing file is replaced only with --overwrite and --expect-hash (its current hash, from `aitools info`). Inputs holding the redaction mask are refused. A file is replaced by a new one renamed over it (atomic): another hard link to it keeps the old content.",
    args: <WriteArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field("bytes", "Bytes written."),
        write::FIELD_NEXT,
    ],
    error_codes: crate::write_error_codes![code::TOO_LARGE],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects {
        idempotent: true,
        ..Effects::NONE
    },
    run: handler!(WriteArgs, run),
};

/// The content of a write: bytes, with their SHA-256 when it was computed as
/// they were read, or one `--content-file` of `STREAM_FROM` bytes or more as
/// one pass read it (copied from its file at the commit, never held), with
/// the file it replaces as one pass read it when that is large too.
enum Input {
    Bytes(Vec<u8>, Option<String>),
    Stream(Arc<Scan>, Option<Arc<Scan>>),
}

impl Input {
    fn len(&self) -> u64 {
        match self {
            Input::Bytes(b, _) => b.len() as u64,
            Input::Stream(s, _) => s.len,
        }
    }
}

/// One large `--content-file` outside a tx, opened as `read_file` would read it
/// and read by one streaming pass (hashed, and looked at for the mask), while
/// the file it replaces (`target`), when large, is hashed by another: the two
/// passes run side by side. The plan checks the target is still the file read.
fn streamed(ctx: &Ctx, f: &str, limit: u64, target: &str) -> Result<Option<Input>, CmdError> {
    let p = ctx.path_arg(f)?;
    if ctx.tx.is_some() || !input::is_large(&p, STREAM_FROM) {
        return Ok(None);
    }
    let (file, _) = input::open_file(ctx, f, &p, limit)?;
    let (scan, base) = std::thread::scope(|s| {
        let content = s.spawn(move || stream::scan_masks(file));
        let base = match ctx.path_arg(target) {
            Ok(abs) => big_file(ctx, &abs, target),
            Err(_) => Ok(None),
        };
        let scan = content
            .join()
            .map_err(|_| CmdError::internal("write: the content's pass failed"));
        (scan, base)
    });
    let scan = scan?.map_err(|e| crate::protocol::error::io_error("write", f, &e))?;
    if scan.masked {
        guard::refuse_redacted("The content", Some(target), PLACEHOLDER.as_bytes())?;
    }
    Ok(Some(Input::Stream(Arc::new(scan), base?)))
}

/// The input, its parts concatenated in the order given by kind.
fn input(ctx: &Ctx, a: &WriteArgs) -> Result<Input, CmdError> {
    let limit = a.input_limit.bytes("write")?;
    if let ([], [f], None, false) = (&a.content[..], &a.content_file[..], &a.stdin_data, a.stdin) {
        if let Some(s) = streamed(ctx, f, limit, &a.path)? {
            return Ok(s);
        }
        let p = ctx.path_arg(f)?;
        let (bytes, hash) = input::read_file_hashed(ctx, f, &p, limit)?;
        return Ok(Input::Bytes(bytes, hash));
    }
    let mut parts: Vec<Vec<u8>> = a.content.iter().map(|c| c.as_bytes().to_vec()).collect();
    for f in &a.content_file {
        let p = ctx.path_arg(f)?;
        parts.push(input::read_file(ctx, f, &p, limit)?);
    }
    if let Some(d) = &a.stdin_data {
        parts.push(d.as_bytes().to_vec());
    } else if a.stdin {
        parts.push(input::read_stdin(ctx, limit)?);
    }

    if parts.is_empty() {
        return Err(CmdError::invalid_argument(
            "write",
            "write needs its content: --content TEXT, --content-file FILE or --stdin.",
        ));
    }
    let sep = a.separator.as_deref().unwrap_or("").as_bytes();
    // One part (the usual case) is the content as it is: not copied again.
    let all = match <[Vec<u8>; 1]>::try_from(parts) {
        Ok([one]) => one,
        Err(parts) => parts.join(sep),
    };
    // The limit bounds the whole content, not only each part of it.
    if all.len() as u64 > limit {
        let need = Some(all.len() as u64);
        return Err(input::too_large(ctx, "The concatenated content", limit, need).into());
    }
    Ok(Input::Bytes(all, None))
}

pub fn run(ctx: &Ctx, a: &WriteArgs) -> Result<Output, CmdError> {
    let expect = guard::parse_expect_hash("write", &a.guard.expect_hash)?;
    let content = input(ctx, a)?;
    if let Input::Bytes(bytes, _) = &content {
        // Only a file that is there has a secret's line to read and change by number.
        let there = ctx.files().exists(&ctx.resolve(&a.path)).unwrap_or(false);
        guard::refuse_redacted("The content", there.then_some(a.path.as_str()), bytes)?;
    }
    let abs = ctx.write_path_arg(&a.path, Final::Follow)?;
    let len = content.len();
    let req = WriteRequest::new(ctx).dry_run(a.guard.dry.dry_run);
    let done = write::submit(ctx, &req, || {
        super::common::refuse_dir_slash(ctx, "write", &a.path, false)?;
        let shown = ctx.display_path(&abs);
        let meta = ctx.files().stat(&abs, true)?;
        let exists = meta.kind != Kind::Missing;
        if exists && meta.kind != Kind::File {
            return Err(CmdError::new(
                code::NOT_A_FILE,
                format!("{shown} is a directory or special file, not a regular file."),
                Repair::new(
                    "info",
                    "Check what the path is.",
                    shell::aitools(["info", &shown]),
                ),
            ));
        }
        // A large file a streamed content replaces is hashed by one pass too.
        let base = match (&content, meta.kind == Kind::File) {
            (Input::Stream(_, base), true) => base.clone(),
            _ => None,
        };
        let now = match &base {
            Some(b) => Some(b.hash.clone()),
            None => ctx.files().current_hash(&abs)?,
        };
        if let (true, Some(hash)) = (exists, &now) {
            if !a.overwrite {
                let words = shell::rerun(
                    &ctx.argv,
                    &[],
                    &[],
                    &["--overwrite".into(), "--expect-hash".into(), hash.clone()],
                );
                return Err(CmdError::new(
                    code::EXISTS,
                    format!(
                        "{shown} already exists; write replaces a file only with --overwrite and its current hash."
                    ),
                    Repair::new(
                        "overwrite",
                        "Replace it, guarded by the hash it has now (read it first if you have not).",
                        shell::aitools(&words),
                    ),
                ));
            }
            match expect.for_target(&a.path, &shown, true) {
                Some(h) => guard::check_hash(&shown, h, now.as_deref())?,
                None => return Err(guard::missing_hash("write", &shown, "--overwrite").into()),
            }
        } else if let Some(h) = expect.for_target(&a.path, &shown, true) {
            guard::check_hash(&shown, h, now.as_deref())?;
        }
        Ok(vec![match content {
            Input::Bytes(bytes, Some(hash)) => Change::PutHashed {
                path: abs.clone(),
                bytes,
                hash,
            },
            Input::Bytes(bytes, None) => Change::Put {
                path: abs.clone(),
                bytes,
                mode: None,
            },
            Input::Stream(from, _) => {
                // The diff is of the one stretch the files differ in, when
                // small; else none (the whole files are never read for it).
                let window = match &base {
                    Some(b) => stream::window_between(b, &from).ok().flatten(),
                    None => None,
                };
                req.no_diffs.set(window.is_none());
                Change::PutStream {
                    path: abs.clone(),
                    base,
                    from,
                    mode: None,
                    window,
                }
            }
        }])
    })?;
    Ok(done.into_output(vec![("bytes", Json::UInt(len))]))
}

/// The file at `abs` as one streaming pass read it, when it is a regular file
/// of `STREAM_FROM` bytes or more (never through a symlink: the real path).
fn big_file(ctx: &Ctx, abs: &std::path::Path, shown: &str) -> Result<Option<Arc<Scan>>, CmdError> {
    let (real, lstat) = crate::workspace::paths::real_path_lstat(ctx.dirs(), abs);
    if !lstat.is_some_and(|m| m.file_type().is_file() && m.len() >= STREAM_FROM) {
        return Ok(None);
    }
    let scan = stream::scan(&real, b"")
        .map_err(|e| crate::protocol::error::io_error("write", shown, &e))?;
    Ok(Some(Arc::new(scan)))
}

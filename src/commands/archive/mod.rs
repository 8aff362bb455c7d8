//! The archive family: `archive list|read` look inside a zip, tar, tar.gz or gz
//! archive; `archive extract` writes its members under the root (validated
//! first, committed all or nothing through the store); `archive create` writes a
//! new archive of workspace files. Formats and the budgeted walk: `format`, `zip`.

use crate::protocol::registry::CommandSpec;
use crate::protocol::{CmdError, Repair, code, error, shell};
use crate::store::files::Found;
use crate::workspace::Ctx;
use crate::workspace::candidates::{self, Offer};
use crate::workspace::input;
use format::{Format, Limit, Stop};
use std::path::{Component, Path};

pub mod create;
pub mod extract;
pub mod format;
pub mod list;
pub mod read;
pub mod select;
pub mod zip;

pub const COMMANDS: &[CommandSpec] = &[list::SPEC, read::SPEC, extract::SPEC, create::SPEC];

/// Decompressed bytes `list` and `read` walk through at most.
pub const READ_BYTES: u64 = 256 * 1024 * 1024;
/// Decompressed bytes per compressed byte past `format::RATIO_FLOOR`: deflate's
/// own ceiling is about 1032, so only a stream of near-constant bytes (a bomb's
/// filler) passes 200.
pub const MAX_RATIO: u64 = 200;

/// An archive opened for reading: its file, its format, how output names it.
pub struct Opened {
    pub file: Box<dyn format::Source>,
    pub format: Format,
    pub shown: String,
}

/// Opens `arg` (through the tx's view when `--tx`), records the read, and
/// detects its format.
pub fn open(ctx: &Ctx, arg: &str) -> Result<Opened, CmdError> {
    let abs = ctx.path_arg(arg)?;
    let files = ctx.files();
    let src = match files.find(&abs)? {
        Found::At(c) => c,
        Found::Removed => return Err(files.removed_error(arg, &abs).into()),
        Found::NotFile { .. } => return Err(not_a_file(arg)),
    };
    let meta = match src.metadata() {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(candidates::not_found(ctx, arg, src.path(), Offer::Retry).into());
        }
        Err(e) => return Err(error::io_error(&ctx.command, arg, &e)),
    };
    if meta.is_dir() {
        return Err(not_a_file(arg));
    }
    if let Some(kind) = src.special_kind(&meta) {
        return Err(input::not_openable(arg, kind).into());
    }
    files.record_read(&abs)?;
    let shown = ctx.display_path(&abs);
    let mut file: Box<dyn format::Source> = Box::new(
        src.open()
            .map_err(|e| error::io_error(&ctx.command, arg, &e))?,
    );
    let format = format::detect(&mut *file).map_err(|s| stop_error(ctx, arg, s))?;
    Ok(Opened {
        file,
        format,
        shown,
    })
}

fn not_a_file(arg: &str) -> CmdError {
    CmdError::new(
        code::NOT_A_FILE,
        format!("{arg} is a directory, not an archive file."),
        Repair::new(
            "find",
            "List the directory's entries instead.",
            shell::aitools(["find", "*", arg, "--depth", "1"]),
        ),
    )
}

/// A walk's stop, worded: budgets are `refusal.too-large`, an unread format
/// `input.unsupported-format`, a broken one `input.syntax-error`.
pub fn stop_error(ctx: &Ctx, arg: &str, s: Stop) -> CmdError {
    let info = || {
        Repair::new(
            "info",
            "See the file's size and type.",
            shell::aitools(["info", arg]),
        )
    };
    match s {
        Stop::Limit(l) => {
            let msg = match l {
                Limit::Bytes(n) => format!(
                    "{arg}: decompressing it passed the budget of {n} bytes; stopped there, nothing written."
                ),
                Limit::Entries(n) => format!(
                    "{arg} has more than {n} members (the entry budget); stopped there, nothing written."
                ),
                Limit::Ratio(r) => format!(
                    "{arg} decompresses more than {r} times its compressed size (a decompression bomb?); stopped, nothing written."
                ),
            };
            let repair = match l {
                Limit::Bytes(_) if ctx.command == "archive extract" => Repair::new(
                    "raise",
                    "Allow more bytes, if the archive is trusted.",
                    shell::aitools(shell::rerun(
                        &ctx.argv,
                        &["--max-bytes"],
                        &[],
                        &["--max-bytes".into(), "4GiB".into()],
                    )),
                ),
                Limit::Entries(_) if ctx.command == "archive extract" => Repair::new(
                    "entries",
                    "Extract only the members needed (names from archive list).",
                    shell::aitools(["archive", "list", arg]),
                ),
                _ => info(),
            };
            CmdError::new(code::TOO_LARGE, msg, repair)
        }
        Stop::Unsupported(m) => {
            CmdError::new(code::UNSUPPORTED_FORMAT, format!("{arg}: {m}."), info())
        }
        Stop::Corrupt(m) => CmdError::new(
            code::SYNTAX_ERROR,
            format!("{arg} is damaged or not a valid archive: {m}."),
            info(),
        ),
        Stop::Io(e) => error::io_error(&ctx.command, arg, &e),
    }
}

/// Walks `ar`'s members: a zip from its central directory, the rest as a stream.
pub fn walk(
    ar: &mut Opened,
    budget: format::Budget,
    visit: &mut format::Visit,
) -> Result<u64, Stop> {
    match ar.format {
        Format::Zip => zip::walk(&mut *ar.file, budget, visit),
        f => {
            let gz = gz_name(&ar.shown);
            format::walk_stream(&mut *ar.file, f, budget, &gz, visit)
        }
    }
}

/// A gz member's name when its header has none: the archive's name less `.gz`.
pub fn gz_name(shown: &str) -> String {
    let base = shown.rsplit('/').next().unwrap_or(shown);
    base.strip_suffix(".gz").unwrap_or(base).to_string()
}

/// Whether a symlink at `at` (relative to the destination) with text `target`
/// stays inside the destination (the root, for `create`).
pub fn link_inside(at: &Path, target: &str) -> bool {
    if target.is_empty() || target.starts_with('/') {
        return false;
    }
    let mut depth: i64 = at.components().count() as i64 - 1;
    for c in Path::new(target).components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

//! The search family: navigation at ripgrep speed (`search`, `find`, `overview`,
//! `code outline`, `code defs`, `code refs`). The scan itself lives in the
//! workspace core, as do its filter arguments; this module holds what else the
//! commands share.

use crate::protocol::registry::CommandSpec;
use crate::protocol::{CmdError, shell};
use crate::workspace::Ctx;
use crate::workspace::candidates::{self, Offer};
use std::path::PathBuf;

/// The scan filters live in the workspace core (`replace` takes them too).
pub use crate::workspace::scan_args::{ScanArgs, scan_error};

pub mod code;
pub mod find;
pub mod lsp;
pub mod overview;
pub mod rename;
pub mod search;

#[rustfmt::skip]
pub const COMMANDS: &[CommandSpec] = &[
    search::SPEC,
    find::SPEC,
    overview::SPEC,
    code::OUTLINE,
    code::DEFS,
    code::REFS,
    rename::RENAME,
];

/// The default start: the working directory, or the root when the working
/// directory is outside the workspace.
pub fn default_start(ctx: &Ctx) -> PathBuf {
    crate::workspace::defs::default_start(ctx)
}

/// Path arguments as real paths (the walk reports paths below them), each checked
/// to exist.
pub fn starts(ctx: &Ctx, args: &[String]) -> Result<Vec<PathBuf>, CmdError> {
    if args.is_empty() {
        return Ok(vec![default_start(ctx)]);
    }
    let mut out = Vec::new();
    for a in args {
        out.push(start_path(ctx, a)?);
    }
    Ok(out)
}

/// A scan start: its real path; under `--tx` a path only the tx has counts too.
pub fn start_path(ctx: &Ctx, arg: &str) -> Result<PathBuf, CmdError> {
    let abs = ctx.path_arg(arg)?;
    match crate::workspace::scan::real_start(&abs) {
        Ok(real) if ctx.tx.is_none() => Ok(real),
        Err(e) if ctx.tx.is_none() => {
            Err(candidates::not_found_or_io(ctx, arg, &abs, &e, Offer::Retry).into())
        }
        _ => {
            let st = ctx.files().stat(&abs, true)?;
            if st.kind == crate::store::files::Kind::Missing {
                return Err(candidates::not_found(ctx, arg, &abs, Offer::Retry).into());
            }
            Ok(crate::workspace::paths::real_path(ctx.dirs(), &abs))
        }
    }
}

pub use crate::workspace::scan::skipped::{Skipped, show, skipped_list};

/// Once something was found, binary files passed over are only counted (rg
/// says nothing of them): their names say nothing the answer needs. A file
/// passed over for another reason (too large, unreadable) keeps its names, as
/// it may hold what was looked for.
pub fn count_binary_only(groups: &mut [Skipped]) {
    for g in groups.iter_mut().filter(|g| g.reason == "binary") {
        g.examples.clear();
    }
}

/// The call again with `--limit` set to `limit` (and `--stdin` replaced by the
/// pattern it read, which stdin cannot give twice).
pub fn with_limit(ctx: &Ctx, limit: u64, stdin_pattern: Option<&str>) -> String {
    let mut add = Vec::new();
    if let Some(p) = stdin_pattern {
        add.push("--pattern".to_string());
        add.push(p.to_string());
    }
    add.push("--limit".to_string());
    add.push(limit.to_string());
    let stdin: &[&str] = if stdin_pattern.is_some() {
        &["--stdin"]
    } else {
        &[]
    };
    shell::aitools(shell::rerun(&ctx.argv, &["--limit"], stdin, &add))
}

/// Characters of text, for approx_tokens.
pub fn chars(s: &str) -> usize {
    s.chars().count()
}

/// The call again from `offset` (same --limit), with `--stdin` replaced by the
/// pattern it read, which stdin cannot give twice.
pub fn with_offset(ctx: &Ctx, offset: u64, stdin_pattern: Option<&str>) -> String {
    let mut add = Vec::new();
    if let Some(p) = stdin_pattern {
        add.push("--pattern".to_string());
        add.push(p.to_string());
    }
    add.push("--offset".to_string());
    add.push(offset.to_string());
    let stdin: &[&str] = if stdin_pattern.is_some() {
        &["--stdin"]
    } else {
        &[]
    };
    shell::aitools(shell::rerun(&ctx.argv, &["--offset"], stdin, &add))
}

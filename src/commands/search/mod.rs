//! The search family: navigation at ripgrep speed (`search`, `find`, `overview`,
//! `code outline`, `code defs`, `code refs`). The scan itself lives in the
//! workspace core; this module holds the arguments and conversions the commands
//! share.

use crate::protocol::code as codes;
use crate::protocol::registry::CommandSpec;
use crate::protocol::{CmdError, Repair, error, shell, values};
use crate::workspace::Ctx;
use crate::workspace::scan::{ScanError, ScanOptions};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub mod code;
pub mod find;
pub mod overview;
pub mod search;

#[rustfmt::skip]
pub const COMMANDS: &[CommandSpec] = &[
    search::SPEC,
    find::SPEC,
    overview::SPEC,
    code::OUTLINE,
    code::DEFS,
    code::REFS,
];

/// The scan filters `search` and `find` share.
#[derive(Args, Debug, Clone)]
pub struct ScanArgs {
    /// Only paths matching this glob (wildmatch; `!` excludes; no `/` matches the base name, with `/` the workspace-relative path).
    #[arg(long, value_name = "GLOB", action = clap::ArgAction::Append)]
    pub glob: Vec<String>,
    /// Only files of this language (the `code` language table).
    #[arg(long, value_name = "LANG")]
    pub lang: Option<String>,
    /// Do not apply .gitignore or the builtin excludes. `.git` and `.aitools-*.tmp` are always skipped.
    #[arg(long)]
    pub no_ignore: bool,
    /// Skip files above this size (<n>, <n>KiB, <n>MiB, <n>GiB).
    #[arg(long, value_name = "SIZE")]
    pub skip_larger_than: Option<String>,
    /// Only entries modified after this path's mtime, or within this duration (<n>ms|s|m|h|d) of now.
    #[arg(long, value_name = "PATH|DURATION")]
    pub newer: Option<String>,
}

impl ScanArgs {
    /// The scan options these arguments select.
    pub fn options(&self, ctx: &Ctx) -> Result<ScanOptions, CmdError> {
        let skip_larger_than = match &self.skip_larger_than {
            Some(s) => Some(values::parse_size(s).map_err(|m| {
                CmdError::invalid_argument(&ctx.command, format!("--skip-larger-than: {m}"))
            })?),
            None => None,
        };
        let newer = match &self.newer {
            Some(v) => Some(newer_threshold(ctx, v)?),
            None => None,
        };
        Ok(ScanOptions {
            overlay: crate::store::view::overlay(ctx)?,
            no_ignore: self.no_ignore,
            globs: self.glob.clone(),
            lang: self.lang.clone(),
            skip_larger_than,
            newer,
            ..ScanOptions::default()
        })
    }
}

/// `--newer`: a duration back from now, else a path whose mtime is the threshold.
fn newer_threshold(ctx: &Ctx, value: &str) -> Result<SystemTime, CmdError> {
    if let Ok(d) = values::parse_duration(value) {
        let (secs, nanos) = crate::protocol::time::now();
        let now = UNIX_EPOCH + Duration::new(secs.max(0) as u64, nanos);
        return Ok(now.checked_sub(d).unwrap_or(UNIX_EPOCH));
    }
    let p = ctx.resolve(value);
    match std::fs::metadata(&p).and_then(|m| m.modified()) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CmdError::new(
            codes::ARGUMENT_INVALID,
            format!(
                "--newer {value:?} is neither a duration (<n>ms|s|m|h|d) nor an existing path."
            ),
            Repair::new(
                "newer",
                "Give a duration such as 1h, or a path whose mtime is the threshold.",
                shell::aitools([ctx.command.as_str(), "--newer", "1h"]),
            ),
        )),
        Err(e) => Err(error::io_error(&ctx.command, value, &e)),
    }
}

/// A scan filter error as the command's error.
pub fn scan_error(command: &str, e: &ScanError) -> CmdError {
    match e {
        ScanError::BadGlob { .. } => CmdError::new(
            codes::ARGUMENT_INVALID,
            e.message(),
            Repair::new(
                "glob",
                "Use wildmatch syntax: * within a name, ** across directories, [abc], ?, and a leading ! to exclude.",
                shell::aitools([command, "<pattern>", "--glob", "*.rs"]),
            ),
        ),
        ScanError::UnknownLang(_) => CmdError::new(
            codes::ARGUMENT_INVALID,
            e.message(),
            Repair::new(
                "lang",
                "Pick a language name from the message, or filter by extension with --glob.",
                shell::aitools([command, "<pattern>", "--glob", "*.py"]),
            ),
        ),
    }
}

/// The default start: the working directory, or the root when the working
/// directory is outside the workspace.
pub fn default_start(ctx: &Ctx) -> PathBuf {
    let cwd = std::fs::canonicalize(&ctx.cwd).unwrap_or_else(|_| ctx.cwd.clone());
    if cwd.starts_with(&ctx.root) {
        cwd
    } else {
        ctx.root.clone()
    }
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
    match std::fs::canonicalize(&abs) {
        Ok(real) if ctx.tx.is_none() => Ok(real),
        Err(e) if ctx.tx.is_none() => Err(error::io_error(&ctx.command, arg, &e)),
        _ => {
            let st = crate::store::view::stat(ctx, &abs, true)?;
            if st.kind == crate::store::view::Kind::Missing {
                let e = std::io::Error::from(std::io::ErrorKind::NotFound);
                return Err(error::io_error(&ctx.command, arg, &e));
            }
            Ok(crate::workspace::paths::real_path(&abs))
        }
    }
}

/// How a scanned path is shown: root-relative inside the workspace, else absolute.
pub fn show(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

/// The call again with `--limit` set to `limit` (and `--stdin` replaced by the
/// pattern it read, which stdin cannot give twice).
pub fn with_limit(ctx: &Ctx, limit: u64, stdin_pattern: Option<&str>) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut skip_next = false;
    for w in &ctx.argv {
        if skip_next {
            skip_next = false;
            continue;
        }
        if w == "--limit" {
            skip_next = true;
            continue;
        }
        if w.starts_with("--limit=") {
            continue;
        }
        if w == "--stdin" {
            if let Some(p) = stdin_pattern {
                words.push("--pattern".to_string());
                words.push(p.to_string());
            }
            continue;
        }
        words.push(w.clone());
    }
    words.push("--limit".to_string());
    words.push(limit.to_string());
    shell::aitools(&words)
}

/// Characters of text, for approx_tokens.
pub fn chars(s: &str) -> usize {
    s.chars().count()
}

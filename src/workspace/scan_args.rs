//! The scan filter arguments every scanning command takes (`--glob`, `--lang`,
//! `--no-ignore`, `--skip-larger-than`, `--newer`), their conversion into
//! `ScanOptions`, and the error a bad filter gives. Shared by the search family
//! and `replace`, which may not import each other. Also the scan budget options
//! of the read-only scans (`--max-files`, `--max-scan-bytes`, `--scan-timeout`)
//! and the continuation a cut scan hands back.

use super::Ctx;
use super::error::WorkspaceError;
use super::scan::{Budget, Cut, Overlay, ScanError, ScanOptions};
use crate::protocol::registry::{Field, field};
use crate::protocol::{shell, values};
use clap::Args;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The scan filters.
#[derive(Args, Debug, Clone, Default)]
pub struct ScanArgs {
    /// Only paths matching this glob (wildmatch; `!` excludes; no `/` matches the base name, with `/` the workspace-relative path).
    #[arg(long, value_name = "GLOB", action = clap::ArgAction::Append)]
    pub glob: Vec<String>,
    /// Only files of this language (the `code` language table).
    #[arg(long, value_name = "LANG")]
    pub lang: Option<String>,
    /// Apply no .gitignore or builtin excludes. `.git` and `.aitools-*.tmp` are always skipped.
    #[arg(long)]
    pub no_ignore: bool,
    /// Skip files above this size (<n>, <n>KiB, <n>MiB, <n>GiB).
    #[arg(long, value_name = "SIZE")]
    pub skip_larger_than: Option<String>,
    /// Only entries newer than this path or duration; a path compares its mtime, a duration (<n>ms|s|m|h|d) counts back from now.
    #[arg(long, value_name = "PATH|DURATION")]
    pub newer: Option<String>,
}

impl ScanArgs {
    /// The scan options these arguments select, seeing `overlay` (a tx's changes,
    /// from `store::view::overlay`) over the disk.
    pub fn options(
        &self,
        ctx: &Ctx,
        overlay: Option<Arc<Overlay>>,
    ) -> Result<ScanOptions, Box<WorkspaceError>> {
        let skip_larger_than = match &self.skip_larger_than {
            Some(s) => Some(values::parse_size(s).map_err(|why| {
                WorkspaceError::BadValue {
                    command: ctx.command.clone(),
                    flag: "--skip-larger-than",
                    why,
                }
                .boxed()
            })?),
            None => None,
        };
        let newer = match &self.newer {
            Some(v) => Some(newer_threshold(ctx, v)?),
            None => None,
        };
        Ok(ScanOptions {
            overlay,
            no_ignore: self.no_ignore,
            globs: self.glob.clone(),
            lang: self.lang.clone(),
            skip_larger_than,
            newer,
            ..ScanOptions::default()
        })
    }
}

/// `--newer`: a duration back from now (by the aitools clock), else a path whose
/// mtime is the threshold.
pub fn newer_threshold(ctx: &Ctx, value: &str) -> Result<SystemTime, Box<WorkspaceError>> {
    if let Ok(d) = values::parse_duration(value) {
        let (secs, nanos) = crate::protocol::time::now();
        let now = UNIX_EPOCH + Duration::new(secs.max(0) as u64, nanos);
        return Ok(now.checked_sub(d).unwrap_or(UNIX_EPOCH));
    }
    let p = ctx.resolve(value);
    match std::fs::metadata(&p).and_then(|m| m.modified()) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(WorkspaceError::Newer {
            value: value.to_string(),
            argv: ctx.argv.clone(),
        }
        .boxed()),
        Err(err) => Err(WorkspaceError::Io {
            command: ctx.command.clone(),
            path: value.to_string(),
            err,
        }
        .boxed()),
    }
}

/// A scan filter error as the command's error (`argv`: the call as written).
pub fn scan_error(command: &str, argv: &[String], e: &ScanError) -> Box<WorkspaceError> {
    let (command, message) = (command.to_string(), e.message());
    match e {
        ScanError::BadGlob { .. } => WorkspaceError::BadGlob { command, message },
        ScanError::UnknownLang(l) => WorkspaceError::UnknownLang {
            command,
            message,
            argv: argv.to_vec(),
            lang: crate::text::lang::of_file(&format!("x.{}", l.trim_start_matches('.')))
                .map(|x| x.name.to_string()),
        },
    }
    .boxed()
}

/// The scan budget of a read-only scan, declared once for every command that
/// has one. A scan that spends it stops, answers partial (exit 3) with `scan_cut`,
/// and `next_commands` holds the call again with the spent budget raised.
#[derive(Args, Debug, Clone, Default)]
pub struct BudgetArgs {
    /// Stop the scan after visiting this many files (default 200000); the answer is then partial.
    #[arg(long, value_name = "N")]
    pub max_files: Option<String>,
    /// Stop the scan before the files visited exceed this many bytes (default 16GiB); the answer is then partial.
    #[arg(long, value_name = "SIZE")]
    pub max_scan_bytes: Option<String>,
    /// Stop the scan after this long (default 10s); the answer is then partial.
    #[arg(long, value_name = "DURATION")]
    pub scan_timeout: Option<String>,
}

impl BudgetArgs {
    /// The budget these options select, over [`Budget::DEFAULT`].
    pub fn budget(&self, command: &str) -> Result<Budget, Box<WorkspaceError>> {
        let bad = |flag: &'static str, why: String| {
            WorkspaceError::BadValue {
                command: command.to_string(),
                flag,
                why,
            }
            .boxed()
        };
        let mut b = Budget::DEFAULT;
        if let Some(v) = &self.max_files {
            b.files = values::parse_count(v).map_err(|m| bad("--max-files", m))?;
        }
        if let Some(v) = &self.max_scan_bytes {
            b.bytes = values::parse_size(v).map_err(|m| bad("--max-scan-bytes", m))?;
        }
        if let Some(v) = &self.scan_timeout {
            b.time = values::parse_duration(v).map_err(|m| bad("--scan-timeout", m))?;
        }
        Ok(b)
    }
}

/// The call again with the budget `cut` spent raised fourfold (other options
/// kept): the continuation of a cut scan.
pub fn raise_budget(ctx: &Ctx, budget: &Budget, cut: &Cut) -> String {
    let (flag, value) = match cut.budget {
        // At least 1 (and 1 MiB): a zero budget raised fourfold would stay zero.
        "files" => (
            "--max-files",
            budget.files.saturating_mul(4).max(1).to_string(),
        ),
        "bytes" => (
            "--max-scan-bytes",
            format!(
                "{}MiB",
                budget.bytes.saturating_mul(4).div_ceil(1 << 20).max(1)
            ),
        ),
        _ => {
            let ms = budget.time.as_millis().saturating_mul(4).max(1);
            let v = if ms.is_multiple_of(1000) {
                format!("{}s", ms / 1000)
            } else {
                format!("{ms}ms")
            };
            ("--scan-timeout", v)
        }
    };
    shell::aitools(shell::rerun(
        &ctx.argv,
        &[flag],
        &[],
        &[flag.to_string(), value],
    ))
}

/// The output field of a scan with a budget.
pub const FIELD_SCAN_CUT: Field = field(
    "scan_cut",
    "Only when the scan stopped at its budget: {budget,files,bytes}, bytes only when --max-scan-bytes metered them; budget being files (--max-files), bytes (--max-scan-bytes) or time (--scan-timeout); the result then covers part of the path (status partial, exit 3, truncated true) and next_commands raises that budget.",
);

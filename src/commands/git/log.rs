//! `git log`: the newest commits (optionally only those touching paths), a page at
//! a time, with the total so a cut page says how much is left.

use super::git;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, code, shell, values};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;

#[derive(Args, Debug, Clone)]
pub struct LogArgs {
    /// Only commits touching these paths (relative to the working directory).
    pub path: Vec<String>,
    /// Maximum number of commits (default 20). A page cut by a limit given here is
    /// what was asked for: status ok, `more` continues.
    #[arg(long, value_name = "N", value_parser = values::parse_count)]
    pub limit: Option<u64>,
    /// Skip this many newest commits first (next_commands use it to continue).
    #[arg(long, value_name = "N", default_value = "0", value_parser = values::parse_count)]
    pub skip: u64,
    /// Start from this revision instead of HEAD (a branch, tag, sha, or A..B).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// List the paths each commit changed (files[] per item, at most 50 each).
    #[arg(long)]
    pub files: bool,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "git log",
    summary: "Newest commits, optionally those touching a path.",
    description: "Commits newest first from HEAD (or --rev), --limit at a time (default 20); total counts every matching commit. A page cut by the default limit is partial and next_commands continues with --skip; a page cut by an explicit --limit is ok and more holds that continuation. date is ISO 8601 in the author's offset (git's %aI). An unborn branch has no commits: items is empty.",
    args: <LogArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "items",
            "[{sha,author,date,subject,files?}], newest first; files with --files.",
        ),
        field("total", "Number of matching commits."),
        field(
            "truncated",
            "True when more commits follow this page (status partial, exit 3).",
        ),
        field(
            "next_commands",
            "The call for the next page, when cut by the default limit.",
        ),
        field(
            "more",
            "The call for the next page, when an explicit --limit left commits out (status ok).",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::UNAVAILABLE,
        code::TIMEOUT,
        code::TOO_LARGE,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(LogArgs, run),
};

#[derive(Serialize, Debug)]
pub struct Item {
    pub sha: String,
    pub author: String,
    pub date: String,
    pub subject: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
}

/// A record separator git never prints in a subject line.
const RS: char = '\u{1e}';
const MAX_FILES_PER_COMMIT: usize = 50;

fn unborn(e: &CmdError) -> bool {
    e.code == code::NOT_FOUND
        && (e.message.contains("does not have any commits")
            || e.message.contains("bad revision 'HEAD'")
            || e.message.contains("bad default revision"))
}

/// The default page size when --limit is not given.
const DEFAULT_LIMIT: u64 = 20;

pub fn run(ctx: &Ctx, a: &LogArgs) -> Result<Output, CmdError> {
    // git's spellings where a path stands: `-5` (a count), `v1.0` (a revision).
    let mut taken = a.clone();
    if let Some((i, n)) = super::take_count(ctx, &taken.path, a.limit.is_some()) {
        taken.path.remove(i);
        taken.limit = Some(n);
    }
    if let Some(i) = super::take_revision(ctx, &taken.path, a.rev.is_some(), "--rev") {
        taken.rev = Some(taken.path.remove(i));
    }
    let a = &taken;
    let limit = a.limit.unwrap_or(DEFAULT_LIMIT);
    let rev = a.rev.clone().unwrap_or_else(|| "HEAD".into());
    if rev.starts_with('-') {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("--rev {rev:?} is not a revision."),
        ));
    }
    let mut paths = Vec::new();
    for p in &a.path {
        paths.push(super::pathspec(ctx, p)?);
    }
    let mut count_args = vec![
        "rev-list".to_string(),
        "--count".into(),
        rev.clone(),
        "--".into(),
    ];
    count_args.extend(paths.iter().cloned());
    let total: u64 = match git(ctx, &count_args, "history") {
        Ok(o) => String::from_utf8_lossy(&o.stdout)
            .trim()
            .parse()
            .unwrap_or(0),
        Err(e) if a.rev.is_none() && unborn(&e) => 0,
        Err(e) if a.rev.is_none() && e.message.contains("unknown revision") => 0,
        Err(e) => return Err(e),
    };
    if total == 0 {
        super::unknown_path(ctx, &a.path, &paths)?;
    }
    let mut items = Vec::new();
    if total > a.skip && limit > 0 {
        let mut args = vec![
            "log".to_string(),
            format!("--format={RS}%H%x00%an%x00%aI%x00%s"),
            format!("--max-count={limit}"),
            format!("--skip={}", a.skip),
        ];
        if a.files {
            args.push("--name-only".into());
            args.push("-z".into());
        }
        args.push(rev.clone());
        args.push("--".into());
        args.extend(paths.iter().cloned());
        let out = git(ctx, &args, "history")?;
        let (text, _) = super::lossy(&out.stdout);
        for rec in text.split(RS).filter(|r| !r.is_empty()) {
            let (head, rest) = match rec.split_once('\n') {
                Some((h, r)) if !a.files => (h, r),
                _ => (rec, ""),
            };
            let _ = rest;
            let mut f = head.split('\0');
            let sha = f.next().unwrap_or("").to_string();
            let author = f.next().unwrap_or("").to_string();
            let date = f.next().unwrap_or("").to_string();
            let subject_and_files = f.next().unwrap_or("");
            let (subject, first_file) = match subject_and_files.split_once('\n') {
                Some((s, r)) => (s.to_string(), r.trim_start_matches('\n').to_string()),
                None => (subject_and_files.to_string(), String::new()),
            };
            let files = if a.files {
                let mut all: Vec<String> = std::iter::once(first_file)
                    .chain(f.map(|s| s.trim_matches('\n').to_string()))
                    .filter(|s| !s.is_empty())
                    .collect();
                all.truncate(MAX_FILES_PER_COMMIT);
                Some(all)
            } else {
                None
            };
            items.push(Item {
                sha,
                author,
                date,
                subject,
                files,
            });
        }
    }
    let left = a.skip + (items.len() as u64) < total;
    let continuation = left.then(|| {
        let words = shell::rerun(
            &ctx.argv,
            &["--skip"],
            &[],
            &["--skip".into(), (a.skip + items.len() as u64).to_string()],
        );
        shell::aitools(&words)
    });
    // A limit the caller chose is an answer, not a cut to chase.
    let chosen = a.limit.is_some();
    let cut = left && !chosen;
    #[derive(Serialize)]
    struct Out {
        items: Vec<Item>,
        total: u64,
        truncated: bool,
        next_commands: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        more: Option<String>,
    }
    let (next, more) = match continuation {
        Some(c) if chosen => (Vec::new(), Some(c)),
        Some(c) => (vec![c], None),
        None => (Vec::new(), None),
    };
    Ok(Output::cut(
        &Out {
            items,
            total,
            truncated: cut,
            next_commands: next,
            more,
        },
        cut,
    ))
}

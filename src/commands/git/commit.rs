//! `git show <commit>` (no `:path`): the commit itself: its facts and message, the
//! files it changed with line counts, and its patch as lines, bounded by
//! `--max-lines` and continued with `--range` like a blob.

use super::git;
use crate::protocol::{CmdError, Output, Repair, code, shell, values};
use crate::workspace::Ctx;
use serde::Serialize;

/// The most message lines shown (a commit message is rarely longer).
const MAX_MESSAGE_LINES: usize = 40;
/// The most changed files listed (total_files counts them all).
const MAX_FILES: usize = 100;

#[derive(Serialize, Debug)]
struct FileStat {
    path: String,
    /// None for a binary file (git counts no lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    added: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deleted: Option<u64>,
}

/// What `git show REV` says of the commit before its patch (all of `--stat`).
#[derive(Serialize, Debug)]
struct CommitHead {
    sha: String,
    author: String,
    date: String,
    message: String,
    files: Vec<FileStat>,
    /// Said only when `files` is short of it (more than MAX_FILES changed).
    #[serde(skip_serializing_if = "Option::is_none")]
    total_files: Option<usize>,
}

#[derive(Serialize, Debug)]
struct CommitOut {
    #[serde(flatten)]
    head: CommitHead,
    start_line: u64,
    diff: Vec<String>,
    total_lines: u64,
    truncated: bool,
    next_commands: Vec<String>,
}

/// The error for a word that is no commit: a work-tree file named alone is read at
/// HEAD (`HEAD:<path>`), anything else lists the commits there are.
fn not_a_commit(ctx: &Ctx, rev: &str) -> CmdError {
    let file = ctx
        .path_arg(rev)
        .ok()
        .is_some_and(|p| ctx.files().disk(&p).read().is_ok());
    let repair = if file {
        Repair::new(
            "show",
            "Read the file as HEAD stored it.",
            shell::aitools(["git", "show", &format!("HEAD:{rev}")]),
        )
    } else {
        Repair::new(
            "list",
            "See the commits there are.",
            shell::aitools(["git", "log", "--limit", "5"]),
        )
    };
    CmdError::new(
        code::NOT_FOUND,
        format!("{rev:?} names no commit (git show takes <commit> or <rev>:<path>)."),
        repair,
    )
}

/// The commit's sha, author, date and message (`None`: not a commit).
fn facts(ctx: &Ctx, rev: &str) -> Result<Option<[String; 4]>, CmdError> {
    let args = [
        "show".to_string(),
        "-s".into(),
        "--format=%H%x00%an%x00%aI%x00%B".into(),
        format!("{rev}^{{commit}}"),
        "--".into(),
    ];
    let out = match git(ctx, &args, "git log") {
        Ok(o) => o,
        Err(e) if e.code == code::NOT_FOUND || e.code == code::IO => return Ok(None),
        Err(e) => return Err(e),
    };
    let (text, _) = super::lossy(&out.stdout);
    let mut f = text.splitn(4, '\0');
    let mut next = || f.next().unwrap_or("").to_string();
    let (sha, author, date) = (next(), next(), next());
    let body = next();
    let lines: Vec<&str> = body.trim_end().lines().collect();
    let mut message = lines[..lines.len().min(MAX_MESSAGE_LINES)].join("\n");
    if lines.len() > MAX_MESSAGE_LINES {
        message.push_str(&format!(
            "\n[{} more lines]",
            lines.len() - MAX_MESSAGE_LINES
        ));
    }
    Ok(Some([sha, author, date, message]))
}

/// `git show --numstat`: each changed file and its line counts.
fn stat(ctx: &Ctx, sha: &str) -> Result<Vec<FileStat>, CmdError> {
    let args = [
        "show".to_string(),
        "--format=".into(),
        "--numstat".into(),
        "--no-renames".into(),
        sha.to_string(),
        "--".into(),
    ];
    let out = git(ctx, &args, "git log --files")?;
    let (text, _) = super::lossy(&out.stdout);
    Ok(text
        .lines()
        .filter_map(|l| {
            let mut w = l.splitn(3, '\t');
            let (a, d, p) = (w.next()?, w.next()?, w.next()?);
            Some(FileStat {
                path: p.to_string(),
                added: a.parse().ok(),
                deleted: d.parse().ok(),
            })
        })
        .collect())
}

/// The commit `rev` names: its sha, author, date and message, and the files it
/// changed (the first MAX_FILES) with how many there are.
fn commit(ctx: &Ctx, rev: &str) -> Result<CommitHead, CmdError> {
    if rev.starts_with('-') || rev.is_empty() {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("{rev:?} is not a revision."),
        ));
    }
    let Some(facts) = facts(ctx, rev)? else {
        return Err(not_a_commit(ctx, rev));
    };
    let mut files = stat(ctx, &facts[0])?;
    let total_files = (files.len() > MAX_FILES).then_some(files.len());
    files.truncate(MAX_FILES);
    let [sha, author, date, message] = facts;
    Ok(CommitHead {
        sha,
        author,
        date,
        message,
        files,
        total_files,
    })
}

/// `git show --stat`: the commit without its patch (git's per-file summary).
pub fn run_stat(ctx: &Ctx, rev: &str) -> Result<Output, CmdError> {
    Ok(Output::ok(&commit(ctx, rev)?))
}

/// `git show REV:PATH --stat`: a file has no per-file summary; the commit has.
pub fn stat_of_file(object: &str) -> CmdError {
    let rev = object.split(':').next().unwrap_or("HEAD");
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!("--stat lists a commit's files; {object:?} names a file: name the commit alone."),
        Repair::new(
            "retry",
            format!("The files {rev} changed."),
            shell::aitools(["git", "show", rev, "--stat"]),
        ),
    )
}

/// Shows the commit `rev` names.
pub fn run(ctx: &Ctx, rev: &str, range: Option<&str>, max_lines: u64) -> Result<Output, CmdError> {
    let range = match range {
        Some(r) => {
            Some(values::parse_range(r).map_err(|m| CmdError::invalid_argument(&ctx.command, m))?)
        }
        None => None,
    };
    let head = commit(ctx, rev)?;
    let args = [
        "show".to_string(),
        "--format=".into(),
        "--patch".into(),
        "--no-renames".into(),
        head.sha.clone(),
        "--".into(),
    ];
    let out = git(ctx, &args, "git diff")?;
    let (text, _) = super::lossy(&out.stdout);
    let patch: Vec<&str> = text.lines().collect();
    let total = patch.len() as u64;
    let start = range.map(|r| r.start).unwrap_or(1).max(1);
    let end = range.and_then(|r| r.end).unwrap_or(total).min(total);
    let max = max_lines;
    let last = end.min(start.saturating_add(max).saturating_sub(1));
    let mut diff: Vec<String> = (start..=last)
        .filter_map(|n| patch.get((n - 1) as usize).map(|l| l.to_string()))
        .collect();
    let premasked = mask_patch(&patch, start as usize, &mut diff);
    let cut = last < end;
    let mut next = Vec::new();
    if cut {
        let r = match range.and_then(|r| r.end) {
            Some(e) => format!("{}:{e}", last + 1),
            None => format!("{}:", last + 1),
        };
        let words = shell::rerun(&ctx.argv, &["--range"], &[], &["--range".into(), r]);
        next.push(shell::aitools(&words));
    }
    let out = CommitOut {
        head,
        start_line: start,
        diff,
        total_lines: total,
        truncated: cut,
        next_commands: next,
    };
    Ok(Output::cut(&out, cut).premasked(premasked))
}

/// Masks `shown`, the patch's lines from line `first` (1-based), where they are
/// inside a key's multi-line value (a YAML block scalar under `password: |`, a
/// private key) on the side they belong to: each line item starts with its diff
/// marker, so the envelope's line pass would not see the value's indentation.
/// Every line from the top is fed, so a range starting inside a value is masked
/// too. Returns how many values it masked (one open value counts once).
fn mask_patch(patch: &[&str], first: usize, shown: &mut [String]) -> usize {
    let mut sides = super::mask::Sides::new(Default::default(), Default::default());
    let mut masked = 0;
    let mut in_hunk = false;
    for (i, line) in patch.iter().enumerate() {
        if line.starts_with("diff ") || !in_hunk && !line.starts_with("@@") {
            in_hunk = false;
            continue;
        }
        if line.starts_with("@@") {
            masked += sides.masked;
            sides = super::mask::Sides::new(Default::default(), Default::default());
            in_hunk = true;
            continue;
        }
        let at = (i + 1).checked_sub(first).and_then(|k| shown.get_mut(k));
        sides.line(line, at);
    }
    masked + sides.masked
}

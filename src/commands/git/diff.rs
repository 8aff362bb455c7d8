//! `git diff`: changed files with line counts and, in hunks mode, their hunks, cut
//! to a line budget; a file the budget leaves out keeps its counts and gets its own
//! continuation command.

use super::git;
use super::mask;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, code, redact, shell, values};
use crate::workspace::Ctx;
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Hunks,
    Stat,
}

#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// Only these paths (relative to the working directory).
    pub path: Vec<String>,
    /// Compare the index with HEAD instead of the work tree with the index.
    #[arg(long)]
    pub staged: bool,
    /// A revision (the work tree against it, or the index with --staged) or a range A..B.
    #[arg(long, value_name = "REV")]
    pub r#ref: Option<String>,
    /// hunks adds each file's hunks; stat gives counts only.
    #[arg(long, value_enum, default_value = "hunks")]
    pub output: Mode,
    /// Hunk lines returned before later files become mode summary.
    #[arg(long, value_name = "N", default_value = "400", value_parser = values::parse_count)]
    pub max_lines: u64,
    /// Most files listed.
    #[arg(long, value_name = "N", default_value = "500", value_parser = values::parse_count)]
    pub limit: u64,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "git diff",
    summary: "Changed files with line counts and hunks.",
    description: "The work tree against the index (git diff), the index against HEAD (--staged), or --ref REV / A..B; renames are detected. Paths are relative to the repository's top level. In hunks mode each file carries its hunks (each a header line and its lines, 3 lines of context) until --max-lines hunk lines are used; every later file is mode summary (counts only), the result is partial and next_commands holds one call per summarized file (up to 10) that shows it whole. Binary files have binary:true and no hunks. Untracked files are not part of a diff (see git status).",
    args: <DiffArgs as clap::Args>::augment_args,
    output_fields: &[
        field("mode", "hunks or stat."),
        field(
            "files",
            "[{path,from?,mode?,added,deleted,binary?,hunks?}]; mode summary marks a file over --max-lines (counts only).",
        ),
        field(
            "total_files",
            "Files changed, when --limit stopped files short.",
        ),
        field(
            "truncated",
            "True when a file was summarized or the list cut (status partial, exit 3).",
        ),
        field(
            "next_commands",
            "Per summarized file, the call that shows it.",
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
    run: handler!(DiffArgs, run),
};

#[derive(Serialize, Debug)]
pub struct FileOut {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Said only when it is not the answer's mode: a summarized file.
    #[serde(skip_serializing_if = "answers_mode")]
    pub mode: &'static str,
    pub added: u64,
    pub deleted: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub binary: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hunks: Option<Vec<String>>,
}

/// A file's mode is the answer's (`hunks`, `stat`) unless it was summarized.
fn answers_mode(mode: &&'static str) -> bool {
    *mode != "summary"
}

/// `git diff --numstat -z` records.
fn numstat(text: &str) -> Vec<FileOut> {
    let mut out = Vec::new();
    let mut it = text.split('\0');
    while let Some(rec) = it.next() {
        if rec.is_empty() {
            continue;
        }
        let mut f = rec.splitn(3, '\t');
        let (a, d, p) = (
            f.next().unwrap_or(""),
            f.next().unwrap_or(""),
            f.next().unwrap_or(""),
        );
        let binary = a == "-" && d == "-";
        let (path, from) = if p.is_empty() {
            // A rename or copy: source and destination follow as their own records.
            let from = it.next().unwrap_or("").to_string();
            (it.next().unwrap_or("").to_string(), Some(from))
        } else {
            (p.to_string(), None)
        };
        out.push(FileOut {
            path,
            from,
            mode: "stat",
            added: a.parse().unwrap_or(0),
            deleted: d.parse().unwrap_or(0),
            binary,
            hunks: None,
        });
    }
    out
}

/// The hunks of each file section of a patch, in order.
fn patch_hunks(text: &str) -> Vec<Vec<String>> {
    let mut files: Vec<Vec<String>> = Vec::new();
    let mut cur: Option<String> = None;
    for line in text.split_inclusive('\n') {
        if line.starts_with("diff --git ") || line.starts_with("diff --cc ") {
            if let (Some(h), Some(f)) = (cur.take(), files.last_mut()) {
                f.push(h);
            }
            files.push(Vec::new());
            continue;
        }
        if line.starts_with("@@") {
            if let (Some(h), Some(f)) = (cur.take(), files.last_mut()) {
                f.push(h);
            }
            cur = Some(String::new());
        }
        if let Some(h) = cur.as_mut() {
            h.push_str(line);
        }
    }
    if let (Some(h), Some(f)) = (cur.take(), files.last_mut()) {
        f.push(h);
    }
    for f in &mut files {
        for h in f.iter_mut() {
            if h.ends_with('\n') {
                h.pop();
            }
        }
    }
    files
}

fn line_count(hunks: &[String]) -> u64 {
    hunks.iter().map(|h| h.split('\n').count() as u64).sum()
}

pub fn run(ctx: &Ctx, a: &DiffArgs) -> Result<Output, CmdError> {
    // `git diff HEAD~1 [HEAD] [paths]`: git's first words are the revisions.
    let mut taken = a.clone();
    if let Some((rev, used)) = super::take_revision(ctx, &a.path, a.r#ref.is_some(), "--ref") {
        taken.path.drain(..used);
        taken.r#ref = Some(rev);
    }
    let a = &taken;
    let mut base = vec!["diff".to_string(), "-M".into()];
    if a.staged {
        base.push("--cached".into());
    }
    if let Some(r) = &a.r#ref {
        if r.starts_with('-') || r.is_empty() {
            return Err(CmdError::invalid_argument(
                &ctx.command,
                format!("--ref {r:?} is not a revision or A..B range."),
            ));
        }
        base.push(r.clone());
    }
    let mut tail = vec!["--".to_string()];
    for p in &a.path {
        tail.push(super::pathspec(ctx, p)?);
    }
    let mut ns = base.clone();
    ns.extend(["--numstat".to_string(), "-z".into()]);
    ns.extend(tail.iter().cloned());
    let out = git(ctx, &ns, "history")?;
    let (text, _) = super::lossy(&out.stdout);
    let mut files = numstat(&text);
    if files.is_empty() {
        super::unknown_path(ctx, &a.path, &tail[1..])?;
    }
    let total_files = files.len() as u64;
    let limit = usize::try_from(a.limit).unwrap_or(usize::MAX);
    let mut cut = files.len() > limit;
    files.truncate(limit);
    let mut next = Vec::new();
    let mut premasked = 0;
    if a.output == Mode::Hunks && !files.is_empty() {
        let sections;
        (sections, premasked) = masked_hunks(ctx, &base, &tail)?;
        let (_, summarized) = fill(&mut files, sections, a.max_lines);
        if !summarized.is_empty() {
            cut = true;
            let top = toplevel(ctx);
            for (path, n) in summarized.iter().take(10) {
                next.push(file_command(ctx, a, top.as_deref(), path, *n));
            }
        }
    }
    if files.len() < total_files as usize && next.is_empty() {
        let words = shell::rerun(
            &ctx.argv,
            &["--limit"],
            &[],
            &["--limit".into(), (a.limit.saturating_mul(4)).to_string()],
        );
        next.push(shell::aitools(&words));
    }
    #[derive(Serialize)]
    struct Out {
        mode: &'static str,
        files: Vec<FileOut>,
        #[serde(skip_serializing_if = "Option::is_none")]
        total_files: Option<u64>,
        truncated: bool,
        next_commands: Vec<String>,
    }
    Ok(Output::cut(
        &Out {
            mode: match a.output {
                Mode::Hunks => "hunks",
                Mode::Stat => "stat",
            },
            // Said only when files is short of it (the listing counts the rest).
            total_files: (files.len() < total_files as usize).then_some(total_files),
            files,
            truncated: cut,
            next_commands: next,
        },
        cut,
    )
    .premasked(premasked))
}

/// Gives each file its hunks until `budget` hunk lines are used; every later
/// file is summary (counts only). Returns the lines used and each summarized
/// file with its hunk lines.
fn fill(
    files: &mut [FileOut],
    sections: Vec<Vec<String>>,
    budget: u64,
) -> (u64, Vec<(String, u64)>) {
    let mut used = 0u64;
    let mut over = false;
    let mut summarized = Vec::new();
    for (f, hunks) in files.iter_mut().zip(sections) {
        if f.binary {
            f.mode = "hunks";
            continue;
        }
        let n = line_count(&hunks);
        if !over && used + n <= budget {
            used += n;
            f.mode = "hunks";
            f.hunks = Some(hunks);
        } else {
            over = true;
            f.mode = "summary";
            summarized.push((f.path.clone(), n));
        }
    }
    (used, summarized)
}

/// One commit's patch as `git log -p` shows it (a merge's is empty, a root
/// commit's adds every file).
pub struct CommitPatch {
    /// Its files, each with its hunks until the budget ran out (then summary).
    pub files: Vec<FileOut>,
    /// Hunk lines used.
    pub used: u64,
    /// The files past the budget, by path as git names them, with their
    /// hunk lines.
    pub summarized: Vec<(String, u64)>,
    /// Values masked in its hunks.
    pub masked: usize,
}

/// The patch of commit `sha` limited to `pathspecs` (git's, already checked),
/// with hunks for at most `budget` lines (git diff's shape and masking).
pub fn commit_patch(
    ctx: &Ctx,
    sha: &str,
    pathspecs: &[String],
    budget: u64,
) -> Result<CommitPatch, CmdError> {
    let base: Vec<String> = ["diff-tree", "-r", "--root", "--no-commit-id", "-M", sha]
        .map(String::from)
        .to_vec();
    let mut tail = vec!["--".to_string()];
    tail.extend(pathspecs.iter().cloned());
    let mut ns = base.clone();
    ns.extend(["--numstat".to_string(), "-z".into()]);
    ns.extend(tail.iter().cloned());
    let out = git(ctx, &ns, "history")?;
    let mut files = numstat(&super::lossy(&out.stdout).0);
    if files.is_empty() {
        let files = Vec::new();
        return Ok(CommitPatch {
            files,
            used: 0,
            summarized: Vec::new(),
            masked: 0,
        });
    }
    let mut base = base;
    base.push("-p".into());
    let (sections, masked) = masked_hunks(ctx, &base, &tail)?;
    let (used, summarized) = fill(&mut files, sections, budget);
    Ok(CommitPatch {
        files,
        used,
        summarized,
        masked,
    })
}

/// Each file's hunks (3 lines of context), masked as the files they come from
/// would be (`mask`): the lines before each hunk come from the same diff with
/// `redact::LEAD_LINES` lines of context. Returns them and how many values were
/// masked.
fn masked_hunks(
    ctx: &Ctx,
    base: &[String],
    tail: &[String],
) -> Result<(Vec<Vec<String>>, usize), CmdError> {
    let patch = |context: usize| -> Result<Vec<Vec<String>>, CmdError> {
        let mut p = base.to_vec();
        p.push(format!("-U{context}"));
        p.extend(tail.iter().cloned());
        let out = git(ctx, &p, "history")?;
        Ok(patch_hunks(&super::lossy(&out.stdout).0))
    };
    let mut sections = patch(3)?;
    // Only a hunk past a file's first lines has lines before it to read.
    let later = |h: &String| !h.starts_with("@@ -1,") || !h.contains(" +1,");
    let wide = match sections.iter().flatten().any(later) {
        true => patch(redact::LEAD_LINES)?,
        false => Vec::new(),
    };
    let mut n = 0;
    for (i, hunks) in sections.iter_mut().enumerate() {
        let wide = wide.get(i).map_or(&[][..], Vec::as_slice);
        for h in hunks.iter_mut() {
            let (old, new) = mask::seed(wide, h);
            if let Some((masked, k)) = mask::mask_hunk(h, old, new) {
                *h = masked;
                n += k;
            }
        }
    }
    Ok((sections, n))
}

/// The repository's top level, for turning git's paths into arguments.
fn toplevel(ctx: &Ctx) -> Option<String> {
    let out = git(
        ctx,
        &["rev-parse".into(), "--show-toplevel".into()],
        "history",
    )
    .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The call that shows one file (`path` as git names it, from the top level)
/// of `rev`'s diff with `lines` hunk lines at least.
pub fn file_call(ctx: &Ctx, rev: &str, path: &str, lines: u64) -> String {
    let a = DiffArgs {
        path: Vec::new(),
        staged: false,
        r#ref: Some(rev.to_string()),
        output: Mode::Hunks,
        max_lines: DEFAULT_MAX_LINES,
        limit: 500,
    };
    file_command(ctx, &a, toplevel(ctx).as_deref(), path, lines)
}

/// git diff's default --max-lines, also git log -p's budget for a page.
pub const DEFAULT_MAX_LINES: u64 = 400;

/// The same diff narrowed to one file, with a budget that holds it.
fn file_command(ctx: &Ctx, a: &DiffArgs, top: Option<&str>, path: &str, lines: u64) -> String {
    let arg = match top {
        Some(t) => {
            let abs = Path::new(t).join(path);
            match abs.strip_prefix(&ctx.cwd) {
                Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
                _ => abs.to_string_lossy().into_owned(),
            }
        }
        None => path.to_string(),
    };
    let mut words = vec!["git".to_string(), "diff".into()];
    if a.staged {
        words.push("--staged".into());
    }
    if let Some(r) = &a.r#ref {
        words.push("--ref".into());
        words.push(r.clone());
    }
    words.push("--max-lines".into());
    words.push(lines.max(a.max_lines).to_string());
    words.extend(shell::global_options(&ctx.argv));
    words.push("--".into());
    words.push(arg);
    shell::aitools(&words)
}

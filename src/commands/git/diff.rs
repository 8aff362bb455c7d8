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
    description: "The work tree against the index (git diff), the index against HEAD (--staged), or --ref REV / A..B; renames are detected. Paths are relative to the repository's top level. In hunks mode each file carries its hunks (each a header line and its lines, 3 lines of context; its added/deleted counts are left out, the hunks hold the lines) until --max-lines hunk lines are used; every later file is mode summary (counts only), the result is partial and next_commands holds one call per summarized file (up to 10) that shows it whole. Binary files have binary:true and no hunks. Untracked files are not part of a diff (see git status).",
    args: <DiffArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "files",
            "[{path,from?,mode?,added?,deleted?,binary?,hunks?}]; added/deleted only without hunks (stat, binary, mode summary: a file over --max-lines, counts only).",
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
    /// Counts only where no hunks show the lines (stat, summary, binary):
    /// a file's hunks hold every added and deleted line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub added: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted: Option<u64>,
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
            added: Some(a.parse().unwrap_or(0)),
            deleted: Some(d.parse().unwrap_or(0)),
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
        files: Vec<FileOut>,
        #[serde(skip_serializing_if = "Option::is_none")]
        total_files: Option<u64>,
        truncated: bool,
        next_commands: Vec<String>,
    }
    Ok(Output::cut(
        &Out {
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
            (f.added, f.deleted) = (None, None);
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
    /// The files past the budget, by path as git names them, with their
    /// hunk lines.
    pub summarized: Vec<(String, u64)>,
    /// Values masked in its hunks.
    pub masked: usize,
}

/// The patches of `shas` (newest first) limited to `pathspecs` (git's, already
/// checked), in git diff's shape and masking, as a page of `git log -p` takes
/// them: each commit gets hunks within what `budget` has left after the ones
/// before it, and the list ends with the first commit the budget summarized.
/// A constant number of git processes whatever the page's length: one
/// `diff-tree --stdin` for the counts, one for the patches of the commits the
/// budget can reach, one with wider context when a hunk needs it for masking.
pub fn commit_patches(
    ctx: &Ctx,
    shas: &[&str],
    pathspecs: &[String],
    budget: u64,
) -> Result<Vec<CommitPatch>, CmdError> {
    if shas.is_empty() {
        return Ok(Vec::new());
    }
    let base: Vec<String> = ["diff-tree", "--stdin", "--always", "-r", "--root", "-M"]
        .map(String::from)
        .to_vec();
    let mut tail = vec!["--".to_string()];
    tail.extend(pathspecs.iter().cloned());
    let mut ns = base.clone();
    ns.extend(["--numstat".to_string(), "-z".into()]);
    ns.extend(tail.iter().cloned());
    let out = fed(ctx, &ns, shas)?;
    let counts = per_commit_numstat(&super::lossy(&out.stdout).0, shas);
    let patched = reachable(&counts, budget);
    let mut base = base;
    base.push("-p".into());
    let picked: Vec<&str> = patched.iter().map(|&i| shas[i]).collect();
    let mut sections = match picked.is_empty() {
        true => Vec::new(),
        false => masked_page(ctx, &base, &tail, &picked)?,
    };
    let mut out = Vec::new();
    let mut left = budget;
    for (i, mut files) in counts.into_iter().enumerate() {
        let (hunks, masked) = match patched.iter().position(|&k| k == i) {
            Some(k) => std::mem::take(&mut sections[k]),
            // Past the budget's reach: a commit before it was summarized.
            None if !files.is_empty() => break,
            None => (Vec::new(), 0),
        };
        let (used, summarized) = match files.is_empty() {
            true => (0, Vec::new()),
            false => fill(&mut files, hunks, left),
        };
        left = left.saturating_sub(used);
        let stop = !summarized.is_empty();
        out.push(CommitPatch {
            files,
            summarized,
            masked,
        });
        if stop {
            break;
        }
    }
    Ok(out)
}

/// `git <args>` with one sha a line on its stdin.
fn fed(ctx: &Ctx, args: &[String], shas: &[&str]) -> Result<super::GitOut, CmdError> {
    let mut input = String::new();
    for sha in shas {
        input.push_str(sha);
        input.push('\n');
    }
    super::git_fed(ctx, args, Some(input.as_bytes()), "history")
}

/// `diff-tree --stdin --always --numstat -z` records split by commit: each
/// commit's id is a record of its own, told from a path by where it stands (a
/// rename's two path records follow a record with an empty path).
fn per_commit_numstat(text: &str, shas: &[&str]) -> Vec<Vec<FileOut>> {
    let mut parts: Vec<String> = Vec::new();
    let mut it = text.split('\0').peekable();
    let mut next = 0;
    while let Some(rec) = it.next() {
        if next < shas.len() && names(rec, shas[next]) {
            next += 1;
            parts.push(String::new());
            continue;
        }
        let Some(cur) = parts.last_mut() else {
            continue;
        };
        cur.push_str(rec);
        cur.push('\0');
        if rec.splitn(3, '\t').nth(2) == Some("") {
            // A rename or copy: its source and destination are paths.
            for _ in 0..2 {
                if let Some(p) = it.next() {
                    cur.push_str(p);
                    cur.push('\0');
                }
            }
        }
    }
    parts.resize(shas.len(), String::new());
    parts.iter().map(|p| numstat(p)).collect()
}

/// The commits (by index) whose hunks the page's budget can reach: the first,
/// and each later one while the changed lines before it (a floor of the hunk
/// lines they use) fit; a commit with no file needs no patch.
fn reachable(counts: &[Vec<FileOut>], budget: u64) -> Vec<usize> {
    let mut floor = 0u64;
    let mut out = Vec::new();
    for (i, files) in counts.iter().enumerate() {
        if i > 0 && floor > budget {
            break;
        }
        if !files.is_empty() {
            out.push(i);
        }
        let text = files.iter().filter(|f| !f.binary);
        floor = floor.saturating_add(
            text.map(|f| f.added.unwrap_or(0) + f.deleted.unwrap_or(0))
                .sum::<u64>(),
        );
    }
    out
}

/// Each picked commit's hunks, masked (see [`masked_hunks`]), and how many
/// values were masked in it.
fn masked_page(
    ctx: &Ctx,
    base: &[String],
    tail: &[String],
    shas: &[&str],
) -> Result<Vec<(Vec<Vec<String>>, usize)>, CmdError> {
    let patch = |context: usize, shas: &[&str]| -> Result<Vec<Vec<Vec<String>>>, CmdError> {
        let mut p = base.to_vec();
        p.push(format!("-U{context}"));
        p.extend(tail.iter().cloned());
        let out = fed(ctx, &p, shas)?;
        Ok(split_commits(&super::lossy(&out.stdout).0, shas)
            .iter()
            .map(|t| patch_hunks(t))
            .collect())
    };
    let narrow = patch(3, shas)?;
    let wider: Vec<&str> = shas
        .iter()
        .zip(&narrow)
        .filter(|(_, s)| needs_lead(s))
        .map(|(sha, _)| *sha)
        .collect();
    let mut wide = match wider.is_empty() {
        true => Vec::new(),
        false => patch(redact::LEAD_LINES, &wider)?,
    }
    .into_iter();
    let mut out = Vec::new();
    for mut sections in narrow {
        let wide = match needs_lead(&sections) {
            true => wide.next().unwrap_or_default(),
            false => Vec::new(),
        };
        let n = mask_sections(&mut sections, &wide);
        out.push((sections, n));
    }
    Ok(out)
}

/// `diff-tree --stdin --always -p` output split by commit: each commit's id
/// is a line of its own (a patch's lines all start with a word or a sign).
fn split_commits<'t>(text: &'t str, shas: &[&str]) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut from: Option<usize> = None;
    let mut at = 0;
    let mut next = 0;
    for line in text.split_inclusive('\n') {
        if next < shas.len() && names(line.trim_end_matches('\n'), shas[next]) {
            if let Some(f) = from {
                out.push(&text[f..at]);
            }
            from = Some(at + line.len());
            next += 1;
        }
        at += line.len();
    }
    if let Some(f) = from {
        out.push(&text[f..]);
    }
    out.resize(shas.len(), "");
    out
}

/// Whether `id`, a line or record of git's, is the full id of commit `sha`
/// (which may be abbreviated): hex digits alone, and `sha` their start.
fn names(id: &str, sha: &str) -> bool {
    id.len() >= 40 && id.starts_with(sha) && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Only a hunk past a file's first lines has lines before it to read.
fn needs_lead(sections: &[Vec<String>]) -> bool {
    let later = |h: &String| !h.starts_with("@@ -1,") || !h.contains(" +1,");
    sections.iter().flatten().any(later)
}

/// Masks each hunk of `sections` as its file would be, the lines before it
/// taken from `wide` (the same sections with more context); returns how many
/// values were masked.
fn mask_sections(sections: &mut [Vec<String>], wide: &[Vec<String>]) -> usize {
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
    n
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
    let wide = match needs_lead(&sections) {
        true => patch(redact::LEAD_LINES)?,
        false => Vec::new(),
    };
    let n = mask_sections(&mut sections, &wide);
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

/// The call that shows each file (`path` as git names it, from the top level)
/// of `rev`'s diff with its `lines` hunk lines at least.
pub fn file_calls(ctx: &Ctx, rev: &str, files: &[(String, u64)]) -> Vec<String> {
    let a = DiffArgs {
        path: Vec::new(),
        staged: false,
        r#ref: Some(rev.to_string()),
        output: Mode::Hunks,
        max_lines: DEFAULT_MAX_LINES,
        limit: 500,
    };
    let top = toplevel(ctx);
    files
        .iter()
        .map(|(path, lines)| file_command(ctx, &a, top.as_deref(), path, *lines))
        .collect()
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

#[cfg(test)]
mod tests {
    use super::{per_commit_numstat, split_commits};

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const C: &str = "3333333333333333333333333333333333333333";

    #[test]
    fn numstat_records_are_split_by_commit_and_a_renamed_id_stays_a_path() {
        // A: a merge (nothing); B: a rename whose destination is spelled like C;
        // C: one file.
        let text = format!("{A}\0{B}\01\t0\t\0old\0{C}\0{C}\02\t3\tx.txt\0");
        let got = per_commit_numstat(&text, &[&A[..8], B, C]);
        assert_eq!(got.len(), 3);
        assert!(got[0].is_empty());
        assert_eq!(got[1].len(), 1);
        assert_eq!(got[1][0].path, C);
        assert_eq!(got[1][0].from.as_deref(), Some("old"));
        assert_eq!(
            (got[2][0].path.as_str(), got[2][0].added),
            ("x.txt", Some(2))
        );
    }

    #[test]
    fn patch_text_is_split_at_each_commit_id_line() {
        let text = format!("{A}\n{B}\ndiff --git a/x b/x\n+{C}\n{C}\ndiff --git a/y b/y\n");
        let got = split_commits(&text, &[A, B, C]);
        assert_eq!(got[0], "");
        assert_eq!(got[1], format!("diff --git a/x b/x\n+{C}\n"));
        assert_eq!(got[2], "diff --git a/y b/y\n");
        assert_eq!(split_commits("", &[A]), vec![""]);
    }
}

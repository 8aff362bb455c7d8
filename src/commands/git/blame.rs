//! `git blame`: who last changed each line of a line range of a work-tree file,
//! from `git blame --porcelain`.

use super::git;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, redact, shell, values};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;
use std::collections::HashMap;

#[derive(Args, Debug)]
pub struct BlameArgs {
    /// File to blame (relative to the working directory).
    pub path: String,
    /// Lines S:E, S: or N. Without it, the first --max-lines lines.
    #[arg(long, value_name = "RANGE")]
    pub range: Option<String>,
    /// Blame as of this revision instead of the work tree.
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// Maximum lines returned.
    #[arg(long, value_name = "N", default_value = "80", value_parser = values::parse_count)]
    pub max_lines: u64,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "git blame",
    summary: "Who last changed each line of a file range.",
    description: "Runs git blame --porcelain over --range (default: from line 1), at most --max-lines lines; a cut result's next_commands continues. Lines changed in the work tree and not committed have the all-zero sha and author \"Not Committed Yet\". date is ISO 8601 in the author's offset.",
    args: <BlameArgs as clap::Args>::augment_args,
    output_fields: &[
        field("path", "The file, relative to the workspace root."),
        field("start_line", "First returned line number."),
        field(
            "commits",
            "{key: {sha,author,date,summary}}: each commit the lines name, once; key is a short sha.",
        ),
        field("lines", "[{n,commit,text}]; commit is a key of commits."),
        field("total_lines", "Lines in the file (at --rev when given)."),
        field(
            "truncated",
            "True when --max-lines ended before the range did (status partial, exit 3).",
        ),
        field("next_commands", "The call that continues, when cut."),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::NO_MATCH,
        code::UNAVAILABLE,
        code::TIMEOUT,
        code::TOO_LARGE,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(BlameArgs, run),
};

#[derive(Serialize, Debug, Clone)]
pub struct Line {
    pub n: u64,
    /// The key of its commit in `commits`.
    pub commit: String,
    pub text: String,
}

/// One commit's facts, given once however many lines it holds.
#[derive(Serialize, Debug, Clone, Default)]
pub struct Commit {
    pub sha: String,
    pub author: String,
    pub date: String,
    pub summary: String,
}

/// Porcelain blame output: the lines in order, and each commit's facts by sha.
#[derive(Debug, Default)]
pub struct Blame {
    pub lines: Vec<Line>,
    pub commits: Vec<Commit>,
}

#[derive(Default)]
struct Facts {
    author: String,
    time: i64,
    tz: String,
    summary: String,
}

/// Parses porcelain blame output (lines name their commit by full sha here;
/// `short_keys` shortens them).
pub fn parse(text: &str) -> Blame {
    let mut lines = Vec::new();
    let mut order: Vec<String> = Vec::new();
    let mut known: HashMap<String, Facts> = HashMap::new();
    let mut sha = String::new();
    let mut n = 0u64;
    for raw in text.split('\n') {
        if let Some(t) = raw.strip_prefix('\t') {
            lines.push(Line {
                n,
                commit: sha.clone(),
                text: t.strip_suffix('\r').unwrap_or(t).to_string(),
            });
            continue;
        }
        let mut words = raw.split(' ');
        let first = words.next().unwrap_or("");
        if first.len() >= 40 && first.bytes().all(|b| b.is_ascii_hexdigit()) {
            sha = first.to_string();
            let _orig = words.next();
            n = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
            if !known.contains_key(&sha) {
                order.push(sha.clone());
                known.insert(sha.clone(), Facts::default());
            }
            continue;
        }
        let Some(entry) = known.get_mut(&sha) else {
            continue;
        };
        if let Some(a) = raw.strip_prefix("author ") {
            entry.author = a.to_string();
        } else if let Some(t) = raw.strip_prefix("author-time ") {
            entry.time = t.parse().unwrap_or(0);
        } else if let Some(z) = raw.strip_prefix("author-tz ") {
            entry.tz = z.to_string();
        } else if let Some(m) = raw.strip_prefix("summary ") {
            entry.summary = m.to_string();
        }
    }
    let commits = order
        .into_iter()
        .map(|sha| {
            let f = known.remove(&sha).unwrap_or_default();
            Commit {
                date: super::iso_in_offset(f.time, &f.tz),
                author: f.author,
                summary: f.summary,
                sha,
            }
        })
        .collect();
    Blame { lines, commits }
}

/// The shortest prefix (at least 8 hex digits) that tells these shas apart.
fn short_len(shas: &[&str]) -> usize {
    let mut len = 8;
    while len < 40 {
        let mut seen = std::collections::HashSet::new();
        if shas.iter().all(|s| seen.insert(&s[..len.min(s.len())])) {
            break;
        }
        len += 4;
    }
    len
}

/// Keeps only the commits the shown lines name, keyed by a short sha that the
/// lines refer to: each commit's facts once, not on every line.
fn short_keys(mut blame: Blame) -> (Vec<Line>, Json) {
    let used: std::collections::HashSet<&str> =
        blame.lines.iter().map(|l| l.commit.as_str()).collect();
    blame.commits.retain(|c| used.contains(c.sha.as_str()));
    let shas: Vec<&str> = blame.commits.iter().map(|c| c.sha.as_str()).collect();
    let len = short_len(&shas);
    let key = |s: &str| s[..len.min(s.len())].to_string();
    let mut map = Vec::new();
    for c in &blame.commits {
        map.push((key(&c.sha), Json::from_serialize(c)));
    }
    for l in &mut blame.lines {
        l.commit = key(&l.commit);
    }
    (blame.lines, Json::Obj(map))
}

/// The line count of `abs` at revision `rev` (its blob through `git cat-file`);
/// `None` when git cannot read it (blame already answered for the same blob).
fn lines_at(ctx: &Ctx, rev: &str, abs: &std::path::Path) -> Option<u64> {
    blob_at(ctx, rev, abs).map(|b| crate::text::lines::count_lines(&b))
}

/// The bytes of `abs` at revision `rev` (`git cat-file`); `None` when git cannot
/// read them.
fn blob_at(ctx: &Ctx, rev: &str, abs: &std::path::Path) -> Option<Vec<u8>> {
    // `REV:./path` is read from git's working directory; `../` climbs out of it.
    let mut up = String::from("./");
    let mut rel = None;
    for base in super::git_dir(ctx).ancestors() {
        if let Ok(r) = abs.strip_prefix(base) {
            rel = Some(r.to_string_lossy().into_owned());
            break;
        }
        up.push_str("../");
    }
    let object = format!("{rev}:{up}{}", rel?);
    let blob = git(ctx, &["cat-file".into(), "blob".into(), object], "read").ok()?;
    Some(blob.stdout)
}

/// Cuts `lines` to `max` and masks them as one pass over the whole file would:
/// a window starting inside a key's multi-line value (a YAML block scalar or
/// list, a private key) is masked from the up to `redact::LEAD_LINES` lines before
/// it (the work tree's file, or the revision's blob). Counted in the answer.
fn window(ctx: &Ctx, rev: Option<&str>, abs: &std::path::Path, max: usize, lines: &mut Vec<Line>) {
    lines.truncate(max);
    let Some(first) = lines.first().map(|l| l.n).filter(|&n| n > 1) else {
        return;
    };
    let bytes = match rev {
        None => ctx.files().disk(abs).read().ok(),
        Some(r) => blob_at(ctx, r, abs),
    };
    let Some(bytes) = bytes else {
        return;
    };
    let first = usize::try_from(first).unwrap_or(usize::MAX);
    let (text, _) = super::lossy(&bytes);
    let all = super::show::split_lines(&text);
    let lead: Vec<String> = all
        .get(first.saturating_sub(1 + redact::LEAD_LINES)..first - 1)
        .unwrap_or_default()
        .iter()
        .map(|l| l.to_string())
        .collect();
    let mut texts: Vec<String> = lines.iter().map(|l| l.text.clone()).collect();
    let n = redact::mask_after_lead(&lead, &mut texts);
    for (l, t) in lines.iter_mut().zip(texts) {
        l.text = t;
    }
    redact::tally_shown(n);
}

pub fn run(ctx: &Ctx, a: &BlameArgs) -> Result<Output, CmdError> {
    let abs = ctx.path_arg(&a.path)?;
    let shown = ctx.display_path(&abs);
    let range = match &a.range {
        Some(r) => {
            Some(values::parse_range(r).map_err(|m| CmdError::invalid_argument(&ctx.command, m))?)
        }
        None => None,
    };
    // The total comes from the file blamed: the work tree's, or the revision's blob.
    let total = match &a.rev {
        // git blames the work tree's file (blame takes no --tx).
        None => match ctx.files().disk(&abs).read() {
            Ok(b) => crate::text::lines::count_lines(&b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(CmdError::new(
                    code::NOT_FOUND,
                    format!("{shown} does not exist."),
                    Repair::new(
                        "find",
                        "Look for the file.",
                        shell::aitools(["find", "--name", &a.path]),
                    ),
                ));
            }
            Err(e) => return Err(crate::protocol::error::io_error("git blame", &shown, &e)),
        },
        Some(_) => 0,
    };
    let start = range.map(|r| r.start).unwrap_or(1);
    if a.rev.is_none() && start > total {
        return Err(CmdError::new(
            code::NO_MATCH,
            format!("--range starts at line {start}, past the end of {shown} ({total} lines)."),
            Repair::new(
                "blame",
                "Blame from the top.",
                shell::aitools(["git", "blame", &shown]),
            ),
        ));
    }
    let want_end = range.and_then(|r| r.end);
    // One line past the window tells whether there is more.
    let window_end = start.saturating_add(a.max_lines);
    let end = want_end.map_or(window_end, |e| e.min(window_end));
    let end = if a.rev.is_none() { end.min(total) } else { end };
    let mut args = vec![
        "blame".to_string(),
        "--porcelain".into(),
        "--no-textconv".into(),
        "-L".into(),
        format!("{start},{end}"),
    ];
    if let Some(r) = &a.rev {
        if r.starts_with('-') {
            return Err(CmdError::invalid_argument(
                &ctx.command,
                format!("--rev {r:?} is not a revision."),
            ));
        }
        args.push(r.clone());
    }
    args.push("--".into());
    args.push(abs.to_string_lossy().into_owned());
    let out = git(ctx, &args, &format!("read {}", shell::quote(&shown)))?;
    let (text, _) = super::lossy(&out.stdout);
    let total = match &a.rev {
        None => Some(total),
        Some(r) => lines_at(ctx, r, &abs),
    };
    let mut blame = parse(&text);
    let max = usize::try_from(a.max_lines).unwrap_or(usize::MAX);
    let cut = blame.lines.len() > max;
    window(ctx, a.rev.as_deref(), &abs, max, &mut blame.lines);
    let (lines, commits) = short_keys(blame);
    let mut next = Vec::new();
    if cut {
        let from = lines.last().map(|l| l.n + 1).unwrap_or(start);
        let r = match want_end {
            Some(e) => format!("{from}:{e}"),
            None => format!("{from}:"),
        };
        let words = shell::rerun(&ctx.argv, &["--range"], &[], &["--range".into(), r]);
        next.push(shell::aitools(&words));
    }
    #[derive(Serialize)]
    struct Out {
        path: String,
        start_line: u64,
        commits: Json,
        lines: Vec<Line>,
        #[serde(skip_serializing_if = "Option::is_none")]
        total_lines: Option<u64>,
        truncated: bool,
        next_commands: Vec<String>,
    }
    Ok(Output::cut(
        &Out {
            path: shown,
            start_line: start,
            commits,
            lines,
            total_lines: total,
            truncated: cut,
            next_commands: next,
        },
        cut,
    ))
}

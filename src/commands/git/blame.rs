//! `git blame`: who last changed each line of a line range of a work-tree file,
//! from `git blame --porcelain`.

use super::git;
use super::pick::{self, Pick, Picked};
use crate::handler;
use crate::protocol::args::LineArgs;
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
    #[command(flatten)]
    pub lines: LineArgs,
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
    description: "Runs git blame --porcelain over the lines a selector picks (read's, over the file blamed: the work tree's, or the --rev blob): --range (default: from line 1), --symbol (--kind), --between (--exclusive; the first START..END block), --match (--invert; --range bounds it; each run of matched lines is one -L), one per call; at most --max-lines lines; a cut result's next_commands continues (a whole --symbol definition offers nothing past it). Lines changed in the work tree and not committed have the all-zero sha and author \"Not Committed Yet\". date is ISO 8601 in the author's offset.",
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
        code::AMBIGUOUS,
        code::SYNTAX_ERROR,
        code::UNSUPPORTED_LANGUAGE,
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

/// The bytes of `abs` at revision `rev` (its blob through `git cat-file`);
/// `None` when git cannot read it.
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

/// The work tree's file (git blames it: blame takes no --tx).
fn work_tree(
    ctx: &Ctx,
    a: &BlameArgs,
    abs: &std::path::Path,
    shown: &str,
) -> Result<Vec<u8>, CmdError> {
    match ctx.files().disk(abs).read() {
        Ok(b) => Ok(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CmdError::new(
            code::NOT_FOUND,
            format!("{shown} does not exist."),
            Repair::new(
                "find",
                "Look for the file by its name.",
                shell::aitools([
                    "find",
                    crate::workspace::defs::base_name(std::path::Path::new(&a.path)).as_str(),
                ]),
            ),
        )),
        Err(e) => Err(crate::protocol::error::io_error("git blame", shown, &e)),
    }
}

/// The text's lines as blame numbers them (no BOM, no CR before LF).
fn text_lines(bytes: &[u8]) -> Vec<String> {
    let (text, _) = super::lossy(bytes);
    super::show::split_lines(&text)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The `-L` spans blamed: one `start,end` for a run, one per run of consecutive
/// matched lines.
fn spans(numbers: &[u64]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&s) = numbers.get(i) {
        let mut e = s;
        while numbers.get(i + 1) == Some(&(e + 1)) {
            e += 1;
            i += 1;
        }
        out.push(format!("{s},{e}"));
        i += 1;
    }
    out
}

/// The lines picked before git blames them: `-L` spans, the first line shown,
/// the line a window would end at (`None` for matched lines), and the
/// continuation's `--range` when the selection goes on past `--max-lines`.
struct Plan {
    spans: Vec<String>,
    start: u64,
    want_end: Option<u64>,
    matched: Option<(Vec<u64>, Option<String>)>,
}

fn plan(a: &BlameArgs, pick: &Pick, picked: Option<Picked>, total: Option<u64>) -> Plan {
    let (start, want_end) = match (pick, &picked) {
        (_, Some(Picked::Numbers { numbers, more })) => {
            let next = more.then(|| pick::match_next(numbers, pick));
            return Plan {
                spans: spans(numbers),
                start: numbers.first().copied().unwrap_or(1),
                want_end: None,
                matched: Some((numbers.clone(), next)),
            };
        }
        (_, Some(Picked::Run { first, last })) => (*first, Some(*last)),
        (Pick::Range(r), None) => (r.start, r.end),
        _ => (1, None),
    };
    // One line past the window tells whether there is more.
    let window_end = start.saturating_add(a.max_lines);
    let end = want_end.map_or(window_end, |e| e.min(window_end));
    let end = total.map_or(end, |t| end.min(t));
    Plan {
        spans: if end >= start {
            vec![format!("{start},{end}")]
        } else {
            Vec::new()
        },
        start,
        want_end,
        matched: None,
    }
}

pub fn run(ctx: &Ctx, a: &BlameArgs) -> Result<Output, CmdError> {
    let pick = pick::parse(&a.lines, &ctx.command)?;
    if let Some(r) = a.rev.as_deref().filter(|r| r.starts_with('-')) {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("--rev {r:?} is not a revision."),
        ));
    }
    let abs = ctx.path_arg(&a.path)?;
    let shown = ctx.display_path(&abs);
    // The file blamed: the work tree's, or (when a selector reads it) the revision's blob.
    let mut bytes = blamed_bytes(ctx, a, &pick, &abs, &shown)?;
    let total = a
        .rev
        .is_none()
        .then(|| bytes.as_deref().map(crate::text::lines::count_lines))
        .flatten();
    let picked = match &bytes {
        Some(b) if pick.needs_text() => {
            let (text, _) = super::lossy(b);
            let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
            Some(pick::resolve(&pick, text, &shown, a.max_lines, &ctx.argv)?)
        }
        _ => None,
    };
    let start = match &pick {
        Pick::Range(r) => r.start,
        _ => 1,
    };
    if let (Some(total), Pick::All | Pick::Range(_)) = (total, &pick)
        && start > total
    {
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
    let plan = plan(a, &pick, picked, total);
    let mut blame = blame_spans(ctx, a, &abs, &shown, &plan.spans)?;
    if bytes.is_none()
        && let Some(r) = &a.rev
    {
        bytes = blob_at(ctx, r, &abs);
    }
    let all = bytes.as_deref().map(text_lines).unwrap_or_default();
    let total = match &a.rev {
        None => total,
        Some(_) => bytes.as_deref().map(crate::text::lines::count_lines),
    };
    let max = usize::try_from(a.max_lines).unwrap_or(usize::MAX);
    let (cut, next) = match &plan.matched {
        Some((_, next)) => (next.is_some(), next.clone()),
        None => {
            let cut = blame.lines.len() > max;
            blame.lines.truncate(max);
            let from = blame.lines.last().map(|l| l.n + 1).unwrap_or(plan.start);
            let r = match plan.want_end {
                Some(e) => format!("{from}:{e}"),
                None => format!("{from}:"),
            };
            (cut, cut.then_some(r))
        }
    };
    let premasked = mask(&shown, &all, &mut blame.lines, plan.matched.is_none());
    let (lines, commits) = short_keys(blame);
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
    let out = Out {
        path: shown,
        start_line: lines.first().map_or(plan.start, |l| l.n),
        commits,
        lines,
        total_lines: total,
        truncated: cut,
        next_commands: next
            .map(|r| pick::continue_at(&ctx.argv, r))
            .into_iter()
            .collect(),
    };
    Ok(Output::cut(&out, cut).premasked(premasked))
}

/// The bytes of the file blamed, when they are read before the blame: the work
/// tree's, or the revision's blob when a selector reads its text.
fn blamed_bytes(
    ctx: &Ctx,
    a: &BlameArgs,
    pick: &Pick,
    abs: &std::path::Path,
    shown: &str,
) -> Result<Option<Vec<u8>>, CmdError> {
    Ok(match &a.rev {
        None => Some(work_tree(ctx, a, abs, shown)?),
        Some(r) if pick.needs_text() => Some(blob_at(ctx, r, abs).ok_or_else(|| {
            CmdError::new(
                code::NOT_FOUND,
                format!("{shown} is not a file at {r}."),
                Repair::new(
                    "list",
                    "See which commits touched it.",
                    shell::aitools(["git", "log", "--files", "--limit", "5"]),
                ),
            )
        })?),
        Some(_) => None,
    })
}

/// The blamed lines' texts masked as a read of the same lines would be (a file
/// named for its one value included: `path`).
fn mask(path: &str, all: &[String], lines: &mut [Line], run: bool) -> usize {
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let numbers: Vec<u64> = lines.iter().map(|l| l.n).collect();
    let mut texts: Vec<String> = lines.iter().map(|l| l.text.clone()).collect();
    let masked = redact::premask(Some(path), &all, &numbers, run, &mut texts);
    for (l, t) in lines.iter_mut().zip(texts) {
        l.text = t;
    }
    masked
}

/// `git blame --porcelain` over the `-L` spans (nothing to run for none).
fn blame_spans(
    ctx: &Ctx,
    a: &BlameArgs,
    abs: &std::path::Path,
    shown: &str,
    spans: &[String],
) -> Result<Blame, CmdError> {
    if spans.is_empty() {
        return Ok(Blame::default());
    }
    let mut args = vec!["blame".to_string(), "--porcelain".into()];
    for s in spans {
        args.push("-L".into());
        args.push(s.clone());
    }
    if let Some(r) = &a.rev {
        args.push(r.clone());
    }
    args.push("--".into());
    args.push(abs.to_string_lossy().into_owned());
    let out = git(ctx, &args, &format!("read {}", shell::quote(shown)))?;
    let (text, _) = super::lossy(&out.stdout);
    Ok(parse(&text))
}

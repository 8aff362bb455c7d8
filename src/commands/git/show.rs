//! `git show REV:PATH`: a file as a revision stored it, in `read`'s shape (numbered
//! window, hash, continuation), never the whole blob in one answer. A name without
//! `:` is a commit, shown by `commit`.

use super::git;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, Repair, code, redact, shell, values};
use crate::text::lines::sha256_hex;
use crate::workspace::Ctx;
use clap::Args;
use regex::Regex;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// <commit> (HEAD, a sha: its message, files and patch) or <rev>:<path>, such as HEAD:src/main.rs or HEAD~2:./here.rs (git's own syntax: the path is from the top level unless it starts with ./).
    pub object: String,
    /// Lines S:E, S: or N.
    #[arg(long, value_name = "RANGE")]
    pub range: Option<String>,
    /// Only lines matching this regex (line_numbers then lists each one's number).
    #[arg(long, value_name = "RE")]
    pub r#match: Option<String>,
    /// With --match: the lines that do not match.
    #[arg(long, requires = "match")]
    pub invert: bool,
    /// Maximum lines returned.
    #[arg(long, value_name = "N", default_value = "80", value_parser = values::parse_count)]
    pub max_lines: u64,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "git show",
    summary: "A commit (message, files, patch) or a file as stored at a revision.",
    description: "A <commit> (no colon) answers sha, author, date, message, files [{path,added,deleted}] and its patch as diff lines, --max-lines at a time (--range continues). <rev>:<path> reads the blob through git cat-file. --range picks lines, --match filters them (--range bounds a --match); --max-lines always applies and a cut result's next_commands continues it. A blob with a NUL in its first 8 KiB answers binary:true and its size instead of lines. hash is the SHA-256 of the blob bytes, comparable with read's hash of the work-tree file.",
    args: <ShowArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "rev",
            "Revision part of the object name (or the commit as given).",
        ),
        field("sha", "A commit's full sha (<commit> form)."),
        field("author", "A commit's author (<commit> form)."),
        field("date", "A commit's author date, ISO 8601 (<commit> form)."),
        field(
            "message",
            "A commit's message (<commit> form; 40 lines at most).",
        ),
        field(
            "files",
            "A commit's changed files [{path,added,deleted}] (<commit> form; 100 at most).",
        ),
        field("total_files", "Files the commit changed (<commit> form)."),
        field(
            "diff",
            "A commit's patch lines from start_line (<commit> form).",
        ),
        field("path", "Path part of the object name."),
        field("start_line", "First returned line number."),
        field("lines", "Line texts without terminators or BOM."),
        field(
            "line_numbers",
            "With --match, the number of each returned line.",
        ),
        field(
            "encoding_errors",
            "Malformed UTF-8 sequences replaced by U+FFFD.",
        ),
        field("total_lines", "Lines in the blob."),
        field("hash", "SHA-256 of the blob bytes."),
        field(
            "truncated",
            "True when --max-lines stopped before the requested end (status partial, exit 3).",
        ),
        field("approx_tokens", "ceil(characters of returned lines / 4)."),
        field("binary", "True for a blob with a NUL in its first 8 KiB."),
        field("size", "Blob size in bytes (binary blobs)."),
        field("next_commands", "The call that continues, when cut."),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::NO_MATCH,
        code::SYNTAX_ERROR,
        code::UNAVAILABLE,
        code::TIMEOUT,
        code::TOO_LARGE,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(ShowArgs, run),
};

#[derive(Serialize, Default)]
struct Out {
    rev: String,
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    binary: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line_numbers: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding_errors: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_lines: Option<u64>,
    hash: String,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    approx_tokens: Option<usize>,
    next_commands: Vec<String>,
}

/// Splits a blob's text into lines the way `read` does: no BOM, no CR before LF,
/// no empty line after a final newline.
pub fn split_lines(text: &str) -> Vec<&str> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

pub fn run(ctx: &Ctx, a: &ShowArgs) -> Result<Output, CmdError> {
    if !a.object.contains(':') {
        if a.r#match.is_some() {
            return Err(CmdError::invalid_argument(
                &ctx.command,
                "--match filters a file's lines: name it as <rev>:<path>.",
            ));
        }
        return super::commit::run(ctx, &a.object, a.range.as_deref(), a.max_lines);
    }
    let Some((rev, path)) = a.object.split_once(':').filter(|(_, p)| !p.is_empty()) else {
        return Err(CmdError::new(
            code::ARGUMENT_INVALID,
            format!("{:?} is not <rev>:<path>.", a.object),
            Repair::new(
                "commit",
                "Show the commit itself (or add a path after the colon).",
                shell::aitools(["git", "show", a.object.trim_end_matches(':')]),
            ),
        ));
    };
    if a.object.starts_with('-') {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("{:?} is not <rev>:<path>.", a.object),
        ));
    }
    let range = match &a.range {
        Some(r) => {
            Some(values::parse_range(r).map_err(|m| CmdError::invalid_argument(&ctx.command, m))?)
        }
        None => None,
    };
    let re = match &a.r#match {
        Some(p) => Some(Regex::new(p).map_err(|e| {
            CmdError::bad_pattern(
                "--match",
                p,
                &e,
                Repair::new(
                    "literal",
                    "Match the text literally (escaped).",
                    shell::aitools(["git", "show", &a.object, "--match", &regex::escape(p)]),
                ),
            )
        })?),
        None => None,
    };
    let blob = git(
        ctx,
        &["cat-file".into(), "blob".into(), a.object.clone()],
        &format!("read {}", shell::quote(path)),
    )
    .map_err(|e| {
        if e.code == code::IO {
            // cat-file says "bad file" for a tree or a missing path.
            CmdError::new(
                code::NOT_FOUND,
                format!("{} is not a file at {rev}.", path),
                Repair::new(
                    "list",
                    "See which commits touched it.",
                    shell::aitools(["git", "log", "--files", "--limit", "5"]),
                ),
            )
        } else {
            e
        }
    })?;
    let bytes = blob.stdout;
    let mut out = Out {
        rev: rev.to_string(),
        path: path.to_string(),
        hash: sha256_hex(&bytes),
        ..Out::default()
    };
    if bytes[..bytes.len().min(8192)].contains(&0) {
        out.binary = Some(true);
        out.size = Some(bytes.len() as u64);
        return Ok(Output::ok(&out));
    }
    let (text, errors) = super::lossy(&bytes);
    let all = split_lines(&text);
    let total = all.len() as u64;
    let start = range.map(|r| r.start).unwrap_or(1);
    let end = range.and_then(|r| r.end).unwrap_or(total).min(total);
    if start > total.max(1) || (total == 0 && range.is_some()) {
        return Err(CmdError::new(
            code::NO_MATCH,
            format!("--range starts at line {start}, past the end ({total} lines)."),
            Repair::new(
                "read",
                "Read from the top.",
                shell::aitools(["git", "show", &a.object]),
            ),
        ));
    }
    let max = usize::try_from(a.max_lines).unwrap_or(usize::MAX);
    let Window {
        lines,
        numbers,
        last_seen,
        cut,
        premasked,
    } = window(&all, start..=end, re.as_ref().map(|r| (r, a.invert)), max);
    if re.is_some() && lines.is_empty() {
        return Err(CmdError::new(
            code::NO_MATCH,
            format!("No line of {} matches --match.", a.object),
            Repair::new(
                "read",
                "Read the file's start instead.",
                shell::aitools(["git", "show", &a.object]),
            ),
        ));
    }
    if cut {
        let next_start = last_seen + 1;
        let r = match range.and_then(|r| r.end) {
            Some(e) => format!("{next_start}:{e}"),
            None => format!("{next_start}:"),
        };
        let words = shell::rerun(&ctx.argv, &["--range"], &[], &["--range".into(), r]);
        out.next_commands.push(shell::aitools(&words));
    }
    let chars: usize = lines.iter().map(|l| l.chars().count()).sum();
    out.start_line = Some(numbers.first().copied().unwrap_or(start));
    out.approx_tokens = Some(chars.div_ceil(4));
    out.lines = Some(lines);
    if re.is_some() {
        out.line_numbers = Some(numbers);
    }
    if errors > 0 {
        out.encoding_errors = Some(errors);
    }
    out.total_lines = Some(total);
    out.truncated = cut;
    Ok(Output::cut(&out, cut).premasked(premasked))
}

/// The lines `git show REV:file` shows, masked as one pass over the whole file
/// would mask them.
struct Window {
    lines: Vec<String>,
    numbers: Vec<u64>,
    last_seen: u64,
    cut: bool,
    /// Secrets masked here (`redact::mask_after_lead`, `redact::Apart::mask`).
    premasked: usize,
}

/// The lines of `span` (1-based) up to `max`, only those `pick` (a --match regex,
/// and --invert) selects. The mask's line machine goes over the up to
/// `redact::LEAD_LINES` lines before the window and every line in it: a range
/// or a matched line inside a key's multi-line value (a YAML block scalar or
/// list, a private key) is masked as in the file.
fn window(
    all: &[&str],
    span: std::ops::RangeInclusive<u64>,
    pick: Option<(&Regex, bool)>,
    max: usize,
) -> Window {
    let (start, end) = (*span.start(), *span.end());
    let first = usize::try_from(start).unwrap_or(usize::MAX).max(1);
    let lead_from = first.saturating_sub(1 + redact::LEAD_LINES);
    let lead = all.get(lead_from..first - 1).unwrap_or_default();
    let mut w = Window {
        lines: Vec::new(),
        numbers: Vec::new(),
        last_seen: start.saturating_sub(1),
        cut: false,
        premasked: 0,
    };
    let mut apart = redact::Apart::default();
    for (i, l) in lead.iter().enumerate() {
        apart.feed((lead_from + i + 1) as u64, l.as_bytes());
    }
    for n in start..=end {
        let Some(l) = all.get((n - 1) as usize) else {
            break;
        };
        // With --match the lines shown are not one run: each is masked with the
        // machine's state before it.
        let before = pick.and_then(|_| apart.feed(n, l.as_bytes()));
        if let Some((re, invert)) = pick
            && re.is_match(l) == invert
        {
            w.last_seen = n;
            continue;
        }
        if w.lines.len() == max {
            w.cut = true;
            break;
        }
        apart.keep(before, w.lines.len());
        w.lines.push(l.to_string());
        w.numbers.push(n);
        w.last_seen = n;
    }
    w.premasked = match pick {
        None => {
            let lead: Vec<String> = lead.iter().map(|l| l.to_string()).collect();
            redact::mask_after_lead(&lead, &mut w.lines)
        }
        Some(_) => {
            let numbers = &w.numbers;
            apart.mask(|n| numbers.binary_search(&n).is_ok(), &mut w.lines)
        }
    };
    w
}

//! `git show REV:PATH`: a file as a revision stored it, in `read`'s shape (numbered
//! window, hash, continuation), never the whole blob in one answer. A name without
//! `:` is a commit, shown by `commit`.

use super::git;
use super::pick::{self, Pick, Picked};
use crate::handler;
use crate::protocol::args::LineArgs;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, Repair, code, redact, shell, values};
use crate::text::lines::sha256_hex;
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// <commit> (HEAD, a sha: its message, files and patch) or <rev>:<path>, such as HEAD:src/main.rs or HEAD~2:./here.rs (git's own syntax: the path is from the top level unless it starts with ./).
    pub object: String,
    #[command(flatten)]
    pub lines: LineArgs,
    /// Maximum lines returned.
    #[arg(long, value_name = "N", default_value = "80", value_parser = values::parse_count)]
    pub max_lines: u64,
    /// A commit's files and line counts without its patch (git show --stat).
    #[arg(long)]
    pub stat: bool,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "git show",
    summary: "A commit (message, files, patch) or a file as stored at a revision.",
    description: "A <commit> (no colon) answers sha, author, date, message, files [{path,added,deleted}] and its patch as diff lines, --max-lines at a time (--range continues); with --stat, no patch. <rev>:<path> reads the blob through git cat-file. The selectors are read's, over the blob's text: --range, --symbol (--kind; the code outline languages), --between (--exclusive; the first START..END block), --match (--invert; --range bounds it), one per call; --max-lines always applies and a cut result's next_commands continues it (a whole --symbol definition offers nothing past it). A blob with a NUL in its first 8 KiB answers binary:true and its size instead of lines. hash is the SHA-256 of the blob bytes, comparable with read's hash of the work-tree file.",
    args: <ShowArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "rev",
            "Revision part of the object name (<rev>:<path> form).",
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
        field(
            "total_files",
            "Files the commit changed, when files is cut at 100 (<commit> form).",
        ),
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

/// `git show <commit>`: the commit, with its patch or (`--stat`) without.
fn commit_form(ctx: &Ctx, a: &ShowArgs) -> Result<Output, CmdError> {
    if let Some(flag) = a.lines.content_flags().first() {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("{flag} selects a file's lines: name it as <rev>:<path>."),
        ));
    }
    match (a.stat, a.lines.range.as_deref()) {
        (true, Some(_)) => Err(CmdError::invalid_argument(
            &ctx.command,
            "--stat answers the commit's files without its patch; --range pages the patch: give one.",
        )),
        (true, None) => super::commit::run_stat(ctx, &a.object),
        (false, range) => super::commit::run(ctx, &a.object, range, a.max_lines),
    }
}

pub fn run(ctx: &Ctx, a: &ShowArgs) -> Result<Output, CmdError> {
    let pick = pick::parse(&a.lines, &ctx.command)?;
    if !a.object.contains(':') {
        return commit_form(ctx, a);
    }
    if a.stat {
        return Err(super::commit::stat_of_file(&a.object));
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
    let bytes = blob_at(ctx, &a.object, rev, path)?;
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
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let all = split_lines(text);
    let total = all.len() as u64;
    let picked = picked(ctx, a, &pick, text, path, total)?;
    let (numbers, cut, next) = window(&picked, a.max_lines, &pick);
    let mut lines: Vec<String> = numbers
        .iter()
        .filter_map(|n| all.get((n - 1) as usize))
        .map(|l| l.to_string())
        .collect();
    if let Some(r) = next {
        out.next_commands.push(pick::continue_at(&ctx.argv, r));
    }
    let run = matches!(picked, Picked::Run { .. });
    let premasked = redact::premask(Some(path), &all, &numbers, run, &mut lines);
    let chars: usize = lines.iter().map(|l| l.chars().count()).sum();
    out.start_line = Some(match &picked {
        Picked::Run { first, .. } => *first,
        Picked::Numbers { numbers, .. } => numbers.first().copied().unwrap_or(1),
    });
    out.approx_tokens = Some(chars.div_ceil(4));
    out.lines = Some(lines);
    if !run {
        out.line_numbers = Some(numbers);
    }
    if errors > 0 {
        out.encoding_errors = Some(errors);
    }
    out.total_lines = Some(total);
    out.truncated = cut;
    Ok(Output::cut(&out, cut).premasked(premasked))
}

/// The bytes of the blob `object` (`rev:path`) names; a tree or a path not at
/// `rev` is not found.
fn blob_at(ctx: &Ctx, object: &str, rev: &str, path: &str) -> Result<Vec<u8>, CmdError> {
    git(
        ctx,
        &["cat-file".into(), "blob".into(), object.to_string()],
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
    })
    .map(|blob| blob.stdout)
}

/// The lines `pick` selects of the `total` lines of `text`: all, a range
/// (starting inside the file), or what a match or symbol selects.
fn picked(
    ctx: &Ctx,
    a: &ShowArgs,
    pick: &Pick,
    text: &str,
    path: &str,
    total: u64,
) -> Result<Picked, CmdError> {
    Ok(match pick {
        Pick::All => Picked::Run {
            first: 1,
            last: total,
        },
        Pick::Range(r) => {
            if r.start > total.max(1) || total == 0 {
                return Err(CmdError::new(
                    code::NO_MATCH,
                    format!(
                        "--range starts at line {}, past the end ({total} lines).",
                        r.start
                    ),
                    Repair::new(
                        "read",
                        "Read from the top.",
                        shell::aitools(["git", "show", &a.object]),
                    ),
                ));
            }
            Picked::Run {
                first: r.start,
                last: r.end.unwrap_or(total).min(total),
            }
        }
        _ => pick::resolve(pick, text, path, a.max_lines, &ctx.argv)?,
    })
}

/// The line numbers a selection shows under `max`, whether it was cut, and the
/// `--range` that continues it.
fn window(picked: &Picked, max: u64, pick: &Pick) -> (Vec<u64>, bool, Option<String>) {
    match picked {
        Picked::Run { first, last } => {
            let shown_last = (*last).min(first.saturating_add(max) - 1);
            let cut = shown_last < *last;
            let next = cut.then(|| format!("{}:{last}", shown_last + 1));
            ((*first..=shown_last).collect(), cut, next)
        }
        Picked::Numbers { numbers, more } => {
            let next = more.then(|| pick::match_next(numbers, pick));
            (numbers.clone(), *more, next)
        }
    }
}

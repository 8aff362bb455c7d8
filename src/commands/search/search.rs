//! `search`: file contents against a regular expression, ripgrep's engine and
//! counts, with results in path order.
//!
//! Memory stays flat whatever the tree: a parallel pass counts selected lines
//! (or matches) in every file, which gives the exact totals, and the listing
//! keeps only the blocks or matches of the first files in path order that fit
//! under --limit. For blocks, the worker that counts a file records its lines in
//! the same search (up to what any window can show of it, until enough are
//! recorded) and the listing orders and cuts them; a file no worker recorded, and
//! matches, are searched again by the listing.
//!
//! Regex syntax is Rust's `regex` crate (the reference uses cl-regex-kit): no
//! backreferences or look-around — such a pattern is refused with
//! input.syntax-error and a repair, rather than run on a slower engine.

use super::{ScanArgs, Skipped, scan_error, show, skipped_list, starts, with_offset};
use crate::handler;
use crate::protocol::json::Json;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, Repair, code, redact, shell};
use crate::text::MAX_LINE_BYTES;
use crate::workspace::Ctx;
use crate::workspace::scan;
use clap::{Args, ValueEnum};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use regex::bytes::{Regex, RegexBuilder};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

mod items;
mod listing;
mod notebook;
mod sinks;
mod visit;
use items::*;
use listing::Listing;
#[allow(unused_imports)]
use sinks::*;
use visit::Visit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Blocks,
    Matches,
    Count,
    Files,
    FilesWithoutMatch,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Blocks => "blocks",
            Mode::Matches => "matches",
            Mode::Count => "count",
            Mode::Files => "files",
            Mode::FilesWithoutMatch => "files-without-match",
        }
    }
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// The pattern. When --pattern or --stdin supplies the pattern, this positional is the first path instead.
    #[arg(value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Files or directories to search; default the working directory (or the root when it is outside the workspace).
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
    /// A pattern; repeat for lines matching any of them (`matches` items then carry pattern_index, 0-based).
    #[arg(long = "pattern", short = 'e', value_name = "PATTERN", action = clap::ArgAction::Append, allow_hyphen_values = true)]
    pub patterns: Vec<String>,
    /// Read the pattern from stdin, as raw UTF-8; one trailing newline is dropped.
    #[arg(long)]
    pub stdin: bool,
    #[command(flatten)]
    pub input_limit: crate::workspace::input::InputLimit,
    #[command(flatten)]
    pub matching: crate::protocol::args::Pattern,
    /// Match only whole lines.
    #[arg(long)]
    pub line_regexp: bool,
    /// Lines that do not match. Not with --output matches.
    #[arg(long, short = 'v')]
    pub invert: bool,
    /// Lines shown around each selected line (at most 10; read --range shows more).
    #[arg(long, short = 'C', value_name = "N", default_value = "0")]
    pub context: usize,
    /// Context lines before; overrides --context (at most 10).
    #[arg(long, short = 'B', value_name = "N")]
    pub before: Option<usize>,
    /// Context lines after; overrides --context (at most 10).
    #[arg(long, short = 'A', value_name = "N")]
    pub after: Option<usize>,
    /// The result shape; `mode` repeats it (absent for blocks).
    #[arg(long, value_enum, default_value = "blocks")]
    pub output: Mode,
    /// Same as --output count (rg -c).
    #[arg(long, short = 'c', conflicts_with_all = ["output", "files_with_matches"])]
    pub count: bool,
    /// Same as --output files (rg -l).
    #[arg(long, short = 'l', conflicts_with = "output")]
    pub files_with_matches: bool,
    /// Ignored (grep's -n). Lines always carry their numbers.
    #[arg(long, short = 'n')]
    pub line_number: bool,
    /// Selected lines (blocks), matches (matches), or entries (count, files, files-without-match) returned
    /// (default 15). A result cut by a limit given here is what was asked for: status ok, `more` continues.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Skip the first N results. N counts what --limit counts, in path order; a cut
    /// answer's next_commands continue with the same --limit from where it stopped.
    #[arg(long, value_name = "N", default_value = "0")]
    pub offset: u64,
    #[command(flatten)]
    pub scan: ScanArgs,
    #[command(flatten)]
    pub budget: crate::workspace::scan_args::BudgetArgs,
}

/// The most context lines a block shows on either side: past that, a match is
/// better read with `read --range`, and every block would grow by it.
pub const MAX_CONTEXT: usize = 10;

impl SearchArgs {
    /// --limit, or its default of 15.
    pub(crate) fn limit(&self) -> u64 {
        self.limit.unwrap_or(15)
    }
}

/// The most a named pipe given as a PATH may hold (it is read into memory once);
/// a pipe that holds more is listed in `skipped` as too-large.
const MAX_PIPE_BYTES: u64 = 256 << 20;

pub const SPEC: CommandSpec = CommandSpec {
    name: "search",
    summary: "Regex search in files, with context (grep, rg).",
    description: "Rust regex syntax (the regex crate; ripgrep's engine and match counts). Backreferences and look-around are not supported: such a pattern fails with input.syntax-error. ^ and $ match at line ends (before CR LF too). Without --multiline no match crosses a line end. --ignore-case uses Unicode simple case folding; \\w is Unicode. A file the scan finds is binary when a NUL byte appears (the search stops there, as ripgrep's does); a binary file with no selected line before the NUL is listed in skipped. A file named as a PATH is searched whole, its NUL bytes read as line ends (ripgrep does the same); a named pipe (<(cmd)) too. Files come in path order whatever the thread count. Hidden files are searched; .gitignore applies inside a git work tree, data/excludes.txt outside one.",
    args: <SearchArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "mode",
            "The --output value; absent for blocks, the default.",
        ),
        field(
            "blocks",
            "blocks: [{path?,lines[],cut_lines?}], one per file: each line numbered, N:text for a selected line, N-text for a context line (as grep -n shows them; a gap in the numbers is where a block ends). A line over 16384 bytes is shown as a 16384-byte window: cut_lines [{line,col}] gives the 1-based character column the window starts at (a match line's window holds its first match). In a .ipynb notebook there is one item per cell: cell (0-based index), id, path only on the file's first; in the cell's source the numbers count the source's lines (as nb read shows them); a hit in outputs or metadata has in:outputs|metadata and the file's line numbers.",
        ),
        field(
            "matches",
            "matches: [{path?,line,col,text,groups?,named?,pattern_index?}]; path is left out when it is the previous match's; col counts characters from 1; text is the matched text; groups (absent for a pattern without groups) lists captures in order, null for a group that did not participate; named maps capture names to text or null. In a .ipynb notebook: cell, id, and line/col within the cell's source (or in:outputs|metadata with the file's line).",
        ),
        field(
            "counts",
            "count: [{path,count}] selected lines per file (what rg -c prints), files with none omitted.",
        ),
        field(
            "paths",
            "files / files-without-match: paths of text files with at least one / no selected line.",
        ),
        field(
            "total_matches",
            "Exact number of selected lines (matches mode: matches) in every scanned file, also past --limit; absent when every one is shown (count mode: when no entry is cut).",
        ),
        field(
            "total",
            "count, files, files-without-match: number of entries before --limit.",
        ),
        field(
            "files_scanned",
            "Only when nothing was selected: the text files searched.",
        ),
        field(
            "skipped",
            "Only when a file was passed over: [{reason,count,examples?}], one per reason, examples the first 3 paths (left out for binary files once a file matched, as rg says nothing of them); reason is binary, too-large, unreadable, non-utf8-name (a path aitools cannot name), special (a procfs/sysfs directory, never scanned), or no-writer (a named pipe no process opened for writing within 1 s).",
        ),
        field(
            "ignore_source",
            "builtin (outside git), or none (--no-ignore); absent for gitignore (inside git, the default).",
        ),
        field(
            "truncated",
            "True when the default --limit (or the scan budget) cut the result (status partial, exit 3; next_commands continues it).",
        ),
        crate::workspace::scan_args::FIELD_SCAN_CUT,
        field(
            "next_commands",
            "The search again with the same --limit and the --offset where this answer stopped, or (scan_cut) with the spent scan budget raised.",
        ),
        field(
            "more",
            "When a --limit given in the call left results out (status ok): the flag that pages on, `--offset N`, to add to this call, before any --, in place of its own --offset.",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::SYNTAX_ERROR,
        code::NOT_FOUND,
        code::IO,
        code::TOO_LARGE,
        code::INTERNAL,
    ],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(SearchArgs, run),
};

/// What a worker hands over for one file: its count, a named pipe's bytes
/// (read once), in blocks mode the lines it recorded for the listing, and
/// while a stream notes its first files' secrets, the values its keyed lines
/// reveal (taken in the worker: a file held until the window is reached keeps
/// at most that many short strings, never its text).
type Visited = (
    Counted,
    Option<Vec<u8>>,
    Option<Vec<Recorded>>,
    Option<Vec<String>>,
);

/// `mode` at its default: left out.
fn is_blocks(s: &&'static str) -> bool {
    *s == "blocks"
}

/// `ignore_source` at its default, inside git: left out.
fn is_gitignore(s: &&'static str) -> bool {
    *s == "gitignore"
}

#[derive(Serialize)]
struct SearchOut {
    #[serde(skip_serializing_if = "is_blocks")]
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocks: Option<Vec<items::Shown>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    matches: Option<Vec<MatchItem>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counts: Option<Vec<CountItem>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    paths: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_matches: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    files_scanned: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<Skipped>,
    #[serde(skip_serializing_if = "is_gitignore")]
    ignore_source: &'static str,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    scan_cut: Option<scan::Cut>,
    next_commands: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    more: Option<String>,
    /// The blocks before masking and numbering (`items::shown_in`): masked with
    /// the answer's other strings, so a value masked anywhere is masked everywhere.
    #[serde(skip)]
    raw: Option<Vec<Block>>,
}

/// The compiled patterns: the searcher's matcher, and plain regexes for the
/// details of a selected line (captures, which pattern matched).
struct Patterns {
    matcher: RegexMatcher,
    combined: Regex,
    each: Vec<Regex>,
}

fn syntax_error(ctx: &Ctx, pattern: &str, message: &str) -> CmdError {
    let unsupported = message.contains("look-around") || message.contains("backreference");
    let detail = if unsupported {
        "Backreferences and look-around are not supported (Rust regex syntax). Rewrite the pattern without them, or search the text literally and narrow the result."
    } else if message.contains("is not allowed") {
        "A pattern that matches a line end needs --multiline."
    } else {
        "Fix the pattern (Rust regex syntax), or search its text literally with --fixed."
    };
    // The same call (paths, filters, output mode kept) with the flag that fixes it;
    // a pattern read from --stdin is passed inline, as stdin cannot give it twice.
    let flag = if message.contains("is not allowed") {
        "--multiline"
    } else {
        "--fixed"
    };
    let from_stdin = ctx
        .argv
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--stdin");
    let mut add = Vec::new();
    if from_stdin {
        add.extend(["--pattern".to_string(), pattern.to_string()]);
    }
    add.push(flag.to_string());
    let stdin: &[&str] = if from_stdin { &["--stdin"] } else { &[] };
    let repair = shell::aitools(shell::rerun(&ctx.argv, &[], stdin, &add));
    CmdError::bad_pattern(
        "The pattern",
        pattern,
        &message,
        Repair::new("pattern", detail, repair),
    )
    .with_repair(crate::protocol::error::schema_repair(&ctx.command))
}

fn compile(ctx: &Ctx, args: &SearchArgs, raw: &[String]) -> Result<Patterns, CmdError> {
    let mut wrapped = Vec::new();
    let mut each = Vec::new();
    for p in raw {
        let mut w = if args.matching.fixed {
            regex::escape(p)
        } else {
            p.clone()
        };
        if args.matching.word {
            w = format!(r"\b(?:{w})\b");
        }
        if args.line_regexp {
            w = format!("^(?:{w})$");
        }
        // One pattern is its combined regex (compiled below): compiled once.
        if raw.len() > 1 {
            let re = RegexBuilder::new(&w)
                .case_insensitive(args.matching.ignore_case)
                .multi_line(true)
                .crlf(true)
                .build()
                .map_err(|e| syntax_error(ctx, p, &e.to_string()))?;
            each.push(re);
        }
        wrapped.push(w);
    }
    let combined_text = if wrapped.len() == 1 {
        wrapped.first().cloned().unwrap_or_default()
    } else {
        wrapped
            .iter()
            .map(|w| format!("(?:{w})"))
            .collect::<Vec<_>>()
            .join("|")
    };
    let combined = RegexBuilder::new(&combined_text)
        .case_insensitive(args.matching.ignore_case)
        .multi_line(true)
        .crlf(true)
        .build()
        .map_err(|e| syntax_error(ctx, &raw.join("|"), &e.to_string()))?;
    if each.is_empty() {
        each.push(combined.clone());
    }
    let mut b = RegexMatcherBuilder::new();
    b.case_insensitive(args.matching.ignore_case)
        .multi_line(true)
        .crlf(true);
    // crlf() also sets a CRLF line terminator; the searcher works on LF lines,
    // and multiline matching must not have `\n` stripped from the pattern.
    if args.matching.multiline {
        b.line_terminator(None);
    } else {
        b.line_terminator(Some(b'\n'));
    }
    let matcher = b
        .build(&combined_text)
        .map_err(|e| syntax_error(ctx, &raw.join("|"), &e.to_string()))?;
    Ok(Patterns {
        matcher,
        combined,
        each,
    })
}

/// A file the scan found stops at its first NUL (binary); a file named on the
/// command line is searched whole, as ripgrep does, its NULs read as line ends.
fn searcher(args: &SearchArgs, before: usize, after: usize, named: bool) -> Searcher {
    let binary = if named {
        BinaryDetection::convert(b'\x00')
    } else {
        BinaryDetection::quit(b'\x00')
    };
    SearcherBuilder::new()
        .binary_detection(binary)
        .line_number(true)
        .multi_line(args.matching.multiline)
        .invert_match(args.invert)
        .before_context(before)
        .after_context(after)
        .build()
}

fn read_stdin_pattern(ctx: &Ctx, args: &SearchArgs) -> Result<String, CmdError> {
    let limit = args.input_limit.bytes("search")?;
    let buf = crate::workspace::input::read_stdin(ctx, limit)?;
    let mut text = String::from_utf8(buf).map_err(|_| {
        CmdError::new(
            code::ARGUMENT_INVALID,
            "The pattern on standard input is not valid UTF-8.",
            Repair::new(
                "pattern",
                "Send the pattern as UTF-8 text.",
                "aitools search --pattern '<pattern>'",
            ),
        )
    })?;
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    Ok(text)
}

/// `--context`, `--before` or `--after` over the cap: the same call at the cap.
fn check_context(ctx: &Ctx, args: &SearchArgs) -> Result<(), CmdError> {
    let wide = [
        ("--context", Some(args.context)),
        ("--before", args.before),
        ("--after", args.after),
    ];
    let Some((flag, Some(n))) = wide
        .iter()
        .find(|(_, n)| n.is_some_and(|n| n > MAX_CONTEXT))
    else {
        return Ok(());
    };
    let capped = MAX_CONTEXT.to_string();
    let fixed = shell::rerun(
        &ctx.argv,
        &["--context", "--before", "--after", "-C", "-A", "-B"],
        &[],
        &["--context".to_string(), capped],
    );
    Err(CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "{flag} {n} is over the cap of {MAX_CONTEXT} context lines; read a match's surroundings with read --range."
        ),
        Repair::new(
            "context",
            format!(
                "Search with {MAX_CONTEXT} lines of context, then read more around a match with `aitools read <path> --range S:E`."
            ),
            shell::aitools(fixed),
        ),
    ))
}

/// The call's patterns and paths: with `--pattern` or `--stdin`, a positional
/// PATTERN is the first path. Also the pattern read from standard input.
fn patterns_and_paths(
    ctx: &Ctx,
    args: &SearchArgs,
) -> Result<(Vec<String>, Vec<String>, Option<String>), CmdError> {
    let mut paths = args.paths.clone();
    let mut stdin_pattern = None;
    let raw: Vec<String> = if args.stdin || !args.patterns.is_empty() {
        if let Some(p) = &args.pattern {
            paths.insert(0, p.clone());
        }
        let mut v = args.patterns.clone();
        if args.stdin {
            let p = read_stdin_pattern(ctx, args)?;
            stdin_pattern = Some(p.clone());
            v.push(p);
        }
        v
    } else {
        match &args.pattern {
            Some(p) => vec![p.clone()],
            None => {
                return Err(CmdError::new(
                    code::ARGUMENT_INVALID,
                    "search needs a pattern: a positional PATTERN, --pattern, or --stdin.",
                    Repair::new(
                        "pattern",
                        "Give the pattern first.",
                        "aitools search '<pattern>' .",
                    ),
                ));
            }
        }
    };
    Ok((raw, paths, stdin_pattern))
}

pub fn run(ctx: &Ctx, args: &SearchArgs) -> Result<Output, CmdError> {
    check_context(ctx, args)?;
    let output = if args.count {
        Mode::Count
    } else if args.files_with_matches {
        Mode::Files
    } else {
        args.output
    };
    if args.invert && output == Mode::Matches {
        return Err(CmdError::invalid_argument(
            "search",
            "--invert selects lines that do not match, so they have no matches to list; use --output blocks.",
        ));
    }
    let (raw, paths, stdin_pattern) = patterns_and_paths(ctx, args)?;
    let pats = compile(ctx, args, &raw)?;
    let starts = starts(ctx, &paths)?;
    let budget = args.budget.budget("search")?;
    let mut opts = args.scan.options(ctx, ctx.files().overlay()?)?;
    opts.budget = budget;
    // The default bytes budget (16 GiB) would cost a stat per file (a path
    // lookup, a seventh of a large search's time) to guard what the default time
    // budget guards already; an explicit --max-scan-bytes still binds.
    if args.budget.max_scan_bytes.is_none() {
        opts.budget.bytes = u64::MAX;
    }
    // Matches are counted one by one in --output matches, and when a --multiline
    // pattern can match a line end: one match then spans lines and adjacent ones
    // share a region (ripgrep -U -c counts them so; a line-bound pattern counts lines).
    let spans_lines = searcher(args, 0, 0, false).multi_line_with_matcher(&pats.matcher);
    let count_matches =
        (output == Mode::Matches || (spans_lines && !args.invert)).then_some(&pats.combined);
    // A text file with nothing selected is only counted (files_scanned), not
    // handed over, sorted into path order and kept to the end, unless the mode
    // lists it; each path is visited once only when no start holds another
    // (nested starts meet again in the walk's merge) and no tx stages files.
    let mut distinct: Vec<&Path> = starts.iter().map(PathBuf::as_path).collect();
    distinct.sort();
    let nested = distinct.windows(2).any(|w| w[1].starts_with(w[0]));
    let visit = Visit {
        args,
        pats: &pats,
        starts: &starts,
        count_matches,
        // AITOOLS_PIPE_CAP may lower the cap, never raise it.
        pipe_cap: ctx
            .session
            .settings
            .pipe_cap
            .map_or(MAX_PIPE_BYTES, |n| n.min(MAX_PIPE_BYTES)),
        // Blocks: the worker that counts a file also records its lines for the
        // listing (one search, with context), until the listing is full.
        record: output == Mode::Blocks,
        // Listing blocks or matches as events (or matches at all) takes the ordered
        // walk: each file goes to the listing in path order while the scan goes on.
        // The envelope's blocks take the parallel walk, whose workers record the
        // lines; the counts and paths modes need every file first.
        ordered: ctx.events.streaming() || output == Mode::Matches,
        // Off the ordered walk nothing tells the workers the listing is full: they
        // record until `cap` lines are recorded in all (a file not recorded is
        // searched again by the listing, should it need it).
        cap: args.offset.saturating_add(args.limit()),
        before: args.before.unwrap_or(args.context),
        after: args.after.unwrap_or(args.context),
        drop_empty: output != Mode::FilesWithoutMatch && opts.overlay.is_none() && !nested,
        full: AtomicBool::new(false),
        noting: AtomicBool::new(ctx.events.streaming()),
        recorded: AtomicU64::new(0),
        empty: AtomicU64::new(0),
    };
    let found = scan_and_list(ctx, &visit, &opts, output)?;
    let asked = Asked {
        output,
        budget: &budget,
        stdin_pattern: stdin_pattern.as_deref(),
    };
    let empty = visit.empty.load(Ordering::Relaxed);
    Ok(answer(ctx, args, &asked, found, empty))
}

/// What the scan found: every file with what it selected, the files passed
/// over and why, and the listing of the window asked for.
struct Found<'a> {
    walked: scan::Walked<Visited>,
    files: Vec<(PathBuf, u64)>,
    passed: Vec<(PathBuf, &'static str)>,
    listing: Listing<'a>,
}

/// Pass 1 counts every file in parallel (the exact totals); pass 2 lists the
/// files of the --offset/--limit window in path order, taking each file as soon
/// as it and every earlier one are counted, so the first block goes out (as an
/// event) while the scan goes on.
fn scan_and_list<'a>(
    ctx: &'a Ctx,
    visit: &'a Visit<'a>,
    opts: &'a scan::ScanOptions,
    output: Mode,
) -> Result<Found<'a>, CmdError> {
    let (args, starts) = (visit.args, visit.starts);
    let overlay = opts.overlay.as_deref();
    let mut listing = Listing::new(ctx, args, visit.pats, overlay, starts, output);
    let mut files: Vec<(PathBuf, u64)> = Vec::new();
    let mut passed: Vec<(PathBuf, &'static str)> = Vec::new();
    // Returns whether the file had something to list (the ordered walk stops
    // visiting files on this thread once the first has).
    let mut take = |p: &Path, (c, piped, lines, _): Visited| -> bool {
        let mut pass = |why| {
            passed.push((p.to_path_buf(), why));
            false
        };
        let n = match c {
            Counted::Text(n) => n,
            Counted::Binary(0) => return pass("binary"),
            Counted::Binary(n) => n,
            Counted::Unreadable => return pass("unreadable"),
            Counted::TooLarge => return pass("too-large"),
            Counted::NoWriter => return pass("no-writer"),
        };
        listing.file(p, n, piped.as_deref(), lines);
        if listing.full() {
            visit.full.store(true, Ordering::Relaxed);
        }
        files.push((p.to_path_buf(), n));
        n > 0
    };
    let walked = visit
        .walk(ctx, opts, &mut take)
        .map_err(|e| scan_error("search", &ctx.argv, &e))?;
    Ok(Found {
        walked,
        files,
        passed,
        listing,
    })
}

/// What the answer restates of the call.
struct Asked<'a> {
    output: Mode,
    budget: &'a scan::Budget,
    stdin_pattern: Option<&'a str>,
}

/// The answer: the window of the mode's items, the totals, what was passed
/// over, and the call that pages on or raises a cut scan's budget. `empty`: the
/// files only counted.
fn answer(ctx: &Ctx, args: &SearchArgs, asked: &Asked, found: Found, empty: u64) -> Output {
    let Found {
        walked,
        files,
        mut passed,
        mut listing,
    } = found;
    let output = asked.output;
    let mut skipped: Vec<(PathBuf, &'static str)> = walked
        .skipped
        .iter()
        .map(|(p, r)| (p.clone(), r.name()))
        .collect();
    skipped.append(&mut passed);
    let total_matches: u64 = files.iter().map(|(_, n)| n).sum();
    let mut out = SearchOut {
        mode: output.name(),
        blocks: None,
        matches: None,
        counts: None,
        paths: None,
        total_matches: Some(total_matches),
        total: None,
        // Only when nothing was found: how much was looked at. Once a file
        // matched, the count says nothing the caller acts on (grep and rg say
        // nothing either).
        files_scanned: (total_matches == 0).then_some(files.len() as u64 + empty),
        skipped: Vec::new(),
        ignore_source: walked.ignore_source,
        truncated: false,
        scan_cut: walked.cut.clone(),
        next_commands: Vec::new(),
        more: None,
        raw: None,
    };
    let (shown, full_limit) = list(ctx, args, output, &files, &mut listing, &mut out);
    let full_limit = full_limit.unwrap_or(total_matches);
    out.skipped = skipped_list(&ctx.root, skipped);
    if total_matches > 0 {
        super::count_binary_only(&mut out.skipped);
    }
    let next = args.offset.saturating_add(shown);
    let left = next < full_limit;
    // Every selected line shown, nothing cut: total_matches says nothing new
    // (count mode: it is the sum of the counts shown).
    let whole = args.offset == 0 && !left && walked.cut.is_none();
    if whole && (shown == total_matches || output == Mode::Count) {
        out.total_matches = None;
    }
    // A cut scan's totals are partial: its continuation raises the budget.
    if let Some(cut) = &walked.cut {
        out.truncated = true;
        out.next_commands
            .push(crate::workspace::scan_args::raise_budget(
                ctx,
                asked.budget,
                cut,
            ));
    } else if left && args.limit.is_some() {
        // A limit the caller chose is an answer, not a cut to chase.
        // The flag to add to the caller's own call, not the call again.
        out.more = Some(format!("--offset {next}"));
    } else if left {
        out.truncated = true;
        out.next_commands
            .push(with_offset(ctx, next, asked.stdin_pattern));
    }
    let raw = out.raw.take();
    let hid: Vec<String> = (out.matches.iter().flatten())
        .flat_map(|m| m.hid.iter().cloned())
        .collect();
    let mut fields = Json::from_serialize(&out);
    // Every field masked in one pass (the values the matches hid wherever else
    // they stand; the blocks' lines before their numbers): the envelope's pass
    // leaves them, so no mask is judged again as if it were the text it hides.
    let Some(raw) = raw else {
        redact::tally_shown(redact::mask_tree_noted(&mut fields, &hid));
        return Output::from_json(fields, out.truncated).masked();
    };
    items::shown_in(raw, &mut fields);
    Output::from_json(fields, out.truncated).masked()
}

/// The mode's items of the --offset/--limit window into `out`: how many were
/// shown, and how many there are in all when that is not the total of matches.
fn list(
    ctx: &Ctx,
    args: &SearchArgs,
    output: Mode,
    files: &[(PathBuf, u64)],
    listing: &mut Listing,
    out: &mut SearchOut,
) -> (u64, Option<u64>) {
    let root = &ctx.root;
    let offset = usize::try_from(args.offset).unwrap_or(usize::MAX);
    match output {
        Mode::Count => {
            let all: Vec<_> = files.iter().filter(|(_, n)| *n > 0).collect();
            out.total = Some(all.len() as u64);
            let items: Vec<CountItem> = all
                .iter()
                .skip(offset)
                .take(args.limit() as usize)
                .map(|(p, n)| CountItem {
                    path: show(root, p),
                    count: *n,
                })
                .collect();
            let shown = items.len() as u64;
            out.counts = Some(items);
            (shown, Some(all.len() as u64))
        }
        Mode::Files | Mode::FilesWithoutMatch => {
            let want = output == Mode::Files;
            let all: Vec<_> = files.iter().filter(|(_, n)| (*n > 0) == want).collect();
            out.total = Some(all.len() as u64);
            let items: Vec<String> = all
                .iter()
                .skip(offset)
                .take(args.limit() as usize)
                .map(|(p, _)| show(root, p))
                .collect();
            let shown = items.len() as u64;
            out.paths = Some(items);
            (shown, Some(all.len() as u64))
        }
        Mode::Blocks => {
            let shown = listing.kept;
            let blocks = std::mem::take(&mut listing.blocks);
            let (before, after) = (
                args.before.unwrap_or(args.context),
                args.after.unwrap_or(args.context),
            );
            let blocks = notebook::blocks(
                ctx,
                root,
                blocks,
                before.min(MAX_CONTEXT),
                after.min(MAX_CONTEXT),
            );
            // Shown (masked, numbered) by `answer` once the rest is known.
            out.raw = Some(blocks);
            out.blocks = Some(Vec::new());
            (shown, None)
        }
        Mode::Matches => {
            let mut items = std::mem::take(&mut listing.matches);
            items::compact_matches(&mut items);
            let shown = items.len() as u64;
            out.matches = Some(items);
            (shown, None)
        }
    }
}

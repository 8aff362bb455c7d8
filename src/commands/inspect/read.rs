//! `read`: a bounded, numbered, hashed view of one file: its lines (by range, tail,
//! regular expression, START/END pair or definition), a hex dump of a byte span, or
//! its printable strings. The file is streamed, never held whole (except for
//! `--symbol`, whose outline needs the text), and a cut result names the exact
//! command that continues it.

use crate::handler;
use crate::protocol::registry::{CommandSpec, field};
use crate::protocol::values::{self, LineRange};
use crate::protocol::{CmdError, Json, Output, Repair, code, error, redact, shell};
use crate::store::view;
use crate::text::decode::{self, DecodeReader, Encoding};
use crate::text::{
    self, MAX_LINE_BYTES, MAX_MATCHED_LINE_BYTES, invisible, lines, outline, strings,
};
use crate::workspace::Ctx;
use crate::workspace::candidates::{self, Offer};
use crate::workspace::input;
use clap::Args;
use regex::bytes::{Regex, RegexBuilder};
use serde::Serialize;
use std::cell::Cell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

#[derive(Args, Debug)]
pub struct ReadArgs {
    /// File to read (relative to the working directory).
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Selector: lines S:E, S: (to the end), or N (1-based, inclusive); with --match, the lines it searches.
    #[arg(long)]
    pub range: Option<String>,
    /// The last N lines.
    #[arg(long, value_name = "N", value_parser = values::parse_count)]
    pub tail: Option<u64>,
    /// Selector: every line matching the regular expression (Rust regex syntax, per line).
    #[arg(
        long = "match",
        short = 'e',
        value_name = "RE",
        allow_hyphen_values = true
    )]
    pub pattern: Option<String>,
    /// With --match: the lines that do not match.
    #[arg(long, short = 'v')]
    pub invert: bool,
    /// Selector: START-RE END-RE; from a line matching START to the first later line matching END.
    #[arg(long, num_args = 2, value_names = ["START", "END"], allow_hyphen_values = true, action = clap::ArgAction::Set)]
    pub between: Option<Vec<String>>,
    /// With --between: leave out the two boundary lines.
    #[arg(long)]
    pub exclusive: bool,
    /// Selector: a definition's lines, found with the `code outline` language table; Outer.name picks a definition by the one around it.
    #[arg(long)]
    pub symbol: Option<String>,
    /// With --symbol: only definitions of this kind (function, struct, ...).
    #[arg(long)]
    pub kind: Option<String>,
    /// With --match or --between: start looking at this line (next_commands use it to continue a cut result).
    #[arg(long, value_name = "LINE", value_parser = values::parse_count)]
    pub from_line: Option<u64>,
    /// Output view; sets mode.
    #[arg(long = "as", value_name = "VIEW", default_value = "text", value_parser = ["text", "hex", "strings"])]
    pub view: String,
    /// With --as hex (default 0:256) or --as strings (default the whole file): byte span S:E or S: (0-based, E exclusive).
    #[arg(long)]
    pub bytes: Option<String>,
    /// With --as strings: shortest run reported, in characters.
    #[arg(long, value_name = "N", default_value = "4", value_parser = values::parse_count)]
    pub min_length: u64,
    /// Show control, zero-width, NBSP, ideographic-space, and line-end CR characters as \u{XXXX}.
    #[arg(long)]
    pub escape_invisible: bool,
    /// Decode from this encoding instead of UTF-8.
    #[arg(long, value_parser = ["utf-8", "shift_jis", "euc-jp", "iso-8859-1", "utf-16le", "utf-16be"])]
    pub encoding: Option<String>,
    /// Maximum lines (text), rows of 16 bytes (hex), or strings returned.
    #[arg(long, value_name = "N", default_value = "80", value_parser = values::parse_count)]
    pub max_lines: u64,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "read",
    summary: "Numbered lines of a file, bounded (cat, head, tail).",
    description: "At most one selector (--range, --tail, --match, --between, --symbol), except that --range bounds a --match (only the range's lines are matched; a cut result continues with the rest of the range). --max-lines always applies; when the output stops before the end of what was asked, next_commands holds the exact command that continues, with the same flags; a whole --symbol definition offers nothing past it. A binary file read as text returns {binary,size,mime} instead of lines. With --match, line_numbers lists each returned line's number; --match and --between match a whole line (its first 64 MiB), however long, even where its display is cut. A UTF-8 BOM is never part of line 1 and a CR before LF is never part of a line. A line longer than 16384 bytes (16384 characters under another --encoding) is cut there and listed in cut_lines; the result is partial, and next_commands names the --as hex --bytes dump of the bytes after the cut. --as hex shows 16 bytes a row with secrets overwritten by * (2a); --as strings lists printable runs, a run over 16384 characters cut and marked cut:true. FIFOs, sockets, devices, directories and procfs/sysfs files (they report size 0 and a read may block, as /proc/kmsg does) are refused without being opened.",
    args: <ReadArgs as clap::Args>::augment_args,
    output_fields: &[
        field("mode", "text, hex, or strings (the --as value)."),
        field(
            "path",
            "The file, relative to the workspace root when inside it, else its absolute real path.",
        ),
        field("size", "hex, strings, binary: the file's size in bytes."),
        field("start", "hex: offset of the first byte shown."),
        field("end", "hex: offset just past the last byte shown."),
        field("rows", "hex: [{offset,hex}] with 16 bytes per row."),
        field(
            "strings",
            "strings: [{offset,text}] printable runs; cut:true on a run cut at 16384 characters.",
        ),
        field("start_line", "text: number of the first returned line."),
        field("lines", "text: line texts without terminators or BOM."),
        field(
            "line_numbers",
            "text with --match: the number of each returned line.",
        ),
        field(
            "cut_lines",
            "text: numbers of the returned lines cut at 16384 bytes (status partial, exit 3).",
        ),
        field("total_lines", "text: lines in the file."),
        field(
            "hash",
            "text: the first 16 hex digits of the file's SHA-256 (--expect-hash takes them; info shows all 64).",
        ),
        field(
            "truncated",
            "true when --max-lines cut the output or a line or string was cut (status partial, exit 3); absent when nothing was.",
        ),
        field(
            "encoding_errors",
            "text: malformed sequences replaced by U+FFFD in the returned lines (absent when none).",
        ),
        field("encoding", "text with --encoding: the encoding decoded."),
        field(
            "binary",
            "text on a binary file: true, with size and mime instead of lines.",
        ),
        field("mime", "text on a binary file: its MIME type."),
        field("approx_tokens", "ceil(characters of returned text / 4)."),
        field(
            "next_commands",
            "The command reading the next part, when there is one.",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::UNSUPPORTED_LANGUAGE,
        code::NO_MATCH,
        code::AMBIGUOUS,
        code::NOT_A_FILE,
        code::TOO_LARGE,
        code::BUSY,
        code::IO,
    ],
    writes: false,
    tx: true,
    workspace: true,
    run: handler!(ReadArgs, run),
};

/// The most bytes one `--as hex` call dumps, whatever --max-lines says (more
/// would not fit one envelope).
const MAX_HEX_BYTES: u64 = 2 * 1024 * 1024;
/// Bytes read on each side of a hex window so the secret mask sees whole lines
/// (and the BEGIN of a private-key block the window starts inside).
const HEX_MARGIN: u64 = 16 * 1024;
/// The largest file `--symbol` reads whole for its outline.
const MAX_SYMBOL_FILE: u64 = 64 * 1024 * 1024;

#[derive(Serialize)]
struct TextOut {
    mode: &'static str,
    path: String,
    start_line: u64,
    lines: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line_numbers: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cut_lines: Option<Vec<u64>>,
    total_lines: u64,
    hash: String,
    truncated: bool,
    #[serde(skip_serializing_if = "is_zero")]
    encoding_errors: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'static str>,
    approx_tokens: usize,
    next_commands: Vec<String>,
}

#[derive(Serialize)]
struct BinaryOut {
    mode: &'static str,
    path: String,
    binary: bool,
    size: u64,
    mime: &'static str,
    hash: String,
    /// A UTF-16 file (by its BOM) looks binary to a UTF-8 reader: the read that decodes it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    next_commands: Vec<String>,
}

#[derive(Serialize)]
struct HexRow {
    offset: u64,
    hex: String,
}

#[derive(Serialize)]
struct HexOut {
    mode: &'static str,
    path: String,
    size: u64,
    start: u64,
    end: u64,
    rows: Vec<HexRow>,
    truncated: bool,
    approx_tokens: usize,
    next_commands: Vec<String>,
}

#[derive(Serialize)]
struct StringItem {
    offset: u64,
    text: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    cut: bool,
}

#[derive(Serialize)]
struct StringsOut {
    mode: &'static str,
    path: String,
    size: u64,
    strings: Vec<StringItem>,
    truncated: bool,
    approx_tokens: usize,
    next_commands: Vec<String>,
}

/// The one selector of a text read.
enum Selector {
    All,
    Range(LineRange),
    Tail(u64),
    Match {
        re: Regex,
        invert: bool,
        from: u64,
        /// With --range: the range, whose end bounds the match.
        within: Option<LineRange>,
    },
    Between {
        start: Regex,
        end: Regex,
        exclusive: bool,
        from: u64,
    },
    Symbol(String),
}

fn invalid(msg: impl Into<String>) -> CmdError {
    CmdError::invalid_argument("read", msg)
}

fn compile(flag: &str, pattern: &str) -> Result<Regex, CmdError> {
    RegexBuilder::new(pattern)
        .size_limit(32 * 1024 * 1024)
        .build()
        .map_err(|e| {
            let text = e.to_string();
            let last = text.lines().last().unwrap_or("invalid pattern").trim();
            invalid(format!(
                "{flag} {pattern:?} is not a valid regular expression: {last}"
            ))
        })
}

fn selector(args: &ReadArgs) -> Result<Selector, CmdError> {
    let given: Vec<&str> = [
        ("--range", args.range.is_some()),
        ("--tail", args.tail.is_some()),
        ("--match", args.pattern.is_some()),
        ("--between", args.between.is_some()),
        ("--symbol", args.symbol.is_some()),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(n, _)| *n)
    .collect();
    // --range bounds a --match: the one pair of selectors that combine.
    let bounded = given == ["--range", "--match"];
    if given.len() > 1 && !bounded {
        return Err(invalid(format!(
            "{} are separate selections; use one per call.",
            given.join(" and ")
        )));
    }
    if args.invert && args.pattern.is_none() {
        return Err(invalid("--invert applies to --match only."));
    }
    if args.exclusive && args.between.is_none() {
        return Err(invalid("--exclusive applies to --between only."));
    }
    if args.kind.is_some() && args.symbol.is_none() {
        return Err(invalid("--kind applies to --symbol only."));
    }
    if args.from_line.is_some() && args.pattern.is_none() && args.between.is_none() {
        return Err(invalid(
            "--from-line applies to --match and --between only.",
        ));
    }
    if args.from_line == Some(0) {
        return Err(invalid("--from-line: line numbers start at 1."));
    }
    if args.view != "text" && !given.is_empty() {
        return Err(invalid(format!(
            "{} selects lines; --as {} reads bytes (use --bytes).",
            given[0], args.view
        )));
    }
    let from = args.from_line.unwrap_or(1);
    Ok(
        if let (true, Some(r), Some(p)) = (bounded, &args.range, &args.pattern) {
            let within = values::parse_range(r).map_err(invalid)?;
            Selector::Match {
                re: compile("--match", p)?,
                invert: args.invert,
                from: from.max(within.start),
                within: Some(within),
            }
        } else if let Some(r) = &args.range {
            Selector::Range(values::parse_range(r).map_err(invalid)?)
        } else if let Some(n) = args.tail {
            if n == 0 {
                return Err(invalid("--tail must be at least 1."));
            }
            Selector::Tail(n)
        } else if let Some(p) = &args.pattern {
            Selector::Match {
                re: compile("--match", p)?,
                invert: args.invert,
                from,
                within: None,
            }
        } else if let Some(b) = &args.between {
            let (Some(s), Some(e)) = (b.first(), b.get(1)) else {
                return Err(invalid("--between takes two values: START-RE END-RE."));
            };
            Selector::Between {
                start: compile("--between", s)?,
                end: compile("--between", e)?,
                exclusive: args.exclusive,
                from,
            }
        } else if let Some(s) = &args.symbol {
            if s.is_empty() {
                return Err(invalid("--symbol needs a name."));
            }
            Selector::Symbol(s.clone())
        } else {
            Selector::All
        },
    )
}

pub fn run(ctx: &Ctx, args: &ReadArgs) -> Result<Output, CmdError> {
    if args.max_lines == 0 {
        return Err(invalid("--max-lines must be at least 1."));
    }
    let sel = selector(args)?;
    if args.view != "text" && (args.encoding.is_some() || args.escape_invisible) {
        return Err(invalid(
            "--encoding and --escape-invisible apply to --as text only.",
        ));
    }
    if args.view == "text" && args.bytes.is_some() {
        return Err(invalid(
            "--bytes applies to --as hex and --as strings; add --as hex to dump bytes.",
        ));
    }
    if args.view == "strings" && args.min_length == 0 {
        return Err(invalid("--min-length must be at least 1."));
    }
    let span = match &args.bytes {
        Some(b) => Some(values::parse_byte_span(b).map_err(invalid)?),
        None => None,
    };
    let shown_abs = ctx.path_arg(&args.path)?;
    // With --tx, a file the tx staged is read from its blob (the staged bytes);
    // the path shown, the read set and the language stay the path's.
    let abs = match view::source(ctx, &shown_abs)? {
        view::Source::Disk => shown_abs.clone(),
        view::Source::Staged(blob) => blob,
        view::Source::Missing => return Err(view::removed_error(ctx, &args.path, &shown_abs)?),
        view::Source::NotFile { dir } => return Err(not_a_file(&args.path, dir)),
    };
    let meta = match std::fs::metadata(&abs) {
        Ok(m) => m,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Err(candidates::not_found(ctx, &args.path, &abs, Offer::Retry));
        }
        Err(e) => return Err(error::io_error("read", &args.path, &e)),
    };
    // Decided on metadata alone: opening a FIFO for reading would block, and a
    // procfs file (size 0) such as /proc/kmsg blocks on its read.
    if meta.is_dir() {
        return Err(not_a_file(&args.path, true));
    }
    if let Some(kind) = input::special_kind(&abs, &meta) {
        return Err(input::not_openable(&args.path, kind));
    }
    view::record_read(ctx, &shown_abs)?;
    let shown = ctx.display_path(&shown_abs);
    let io = |e: std::io::Error| error::io_error("read", &args.path, &e);
    match args.view.as_str() {
        "hex" => hex_view(
            ctx,
            args,
            &abs,
            shown,
            meta.len(),
            span.unwrap_or((0, Some(256))),
        ),
        "strings" => strings_view(
            ctx,
            args,
            &abs,
            shown,
            meta.len(),
            span.unwrap_or((0, None)),
        ),
        _ => {
            let enc = match args.encoding.as_deref().and_then(Encoding::from_name) {
                Some(Encoding::Utf8) | None => None,
                Some(e) => Some(e),
            };
            text_view(ctx, args, &abs, shown, sel, enc).map_err(|e| match e {
                Fail::Io(e) => io(e),
                Fail::Cmd(c) => c,
            })
        }
    }
}

fn not_a_file(arg: &str, dir: bool) -> CmdError {
    if dir {
        CmdError::new(
            code::NOT_A_FILE,
            format!("{arg} is a directory, not a file."),
            Repair::new(
                "find",
                "List the directory's entries instead.",
                shell::aitools(["find", "*", arg, "--depth", "1"]),
            ),
        )
    } else {
        CmdError::new(
            code::NOT_A_FILE,
            format!("{arg} is not a regular file (a FIFO, socket or device); it was not opened."),
            Repair::new(
                "info",
                "See what kind of path it is.",
                shell::aitools(["info", arg]),
            ),
        )
    }
}

/// `aitools read <path> <words> <kept flags> <globals>`.
fn next_command(ctx: &Ctx, args: &ReadArgs, words: &[String], text_flags: bool) -> String {
    let mut all = vec!["read".to_string()];
    all.extend(words.iter().cloned());
    if text_flags {
        if args.escape_invisible {
            all.push("--escape-invisible".into());
        }
        if let Some(e) = &args.encoding {
            all.push("--encoding".into());
            all.push(e.clone());
        }
    }
    if args.max_lines != 80 {
        all.push("--max-lines".into());
        all.push(args.max_lines.to_string());
    }
    all.extend(shell::global_options(&ctx.argv));
    with_path(all, &args.path)
}

fn hex_dump_command(ctx: &Ctx, args: &ReadArgs, start: u64, end: u64) -> String {
    let mut all = vec![
        "read".to_string(),
        "--as".into(),
        "hex".into(),
        "--bytes".into(),
        format!("{start}:{end}"),
    ];
    all.extend(shell::global_options(&ctx.argv));
    with_path(all, &args.path)
}

/// `aitools read <path> <options>`; a path that starts with '-' goes last, after
/// `--`, where it cannot read as an option.
fn with_path(mut words: Vec<String>, path: &str) -> String {
    if path.starts_with('-') {
        words.push("--".into());
        words.push(path.to_string());
    } else {
        words.insert(1.min(words.len()), path.to_string());
    }
    shell::aitools(&words)
}

fn read_at(file: &mut File, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(offset))?;
    let mut buf = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut buf)?;
    Ok(buf)
}

fn hex_view(
    ctx: &Ctx,
    args: &ReadArgs,
    abs: &Path,
    shown: String,
    size: u64,
    (start, end): (u64, Option<u64>),
) -> Result<Output, CmdError> {
    let io = |e: std::io::Error| error::io_error("read", &args.path, &e);
    let start = start.min(size);
    let want_end = end.unwrap_or(size).min(size);
    let rows_bytes = args.max_lines.saturating_mul(16).min(MAX_HEX_BYTES);
    let shown_end = want_end.min(start.saturating_add(rows_bytes));
    let truncated = shown_end < want_end;
    let low = start.saturating_sub(HEX_MARGIN);
    let high = shown_end.saturating_add(HEX_MARGIN).min(size);
    let mut file = File::open(abs).map_err(io)?;
    let mut buf = read_at(&mut file, low, high - low).map_err(io)?;
    // The file may have shrunk since stat: show what is there.
    let shown_end = shown_end.min(low + buf.len() as u64);
    let (a, b) = ((start - low) as usize, (shown_end - low) as usize);
    if a < b {
        // Whole lines around the window, so a secret crossing its edge is seen whole.
        let ws = memchr::memrchr(b'\n', &buf[..a]).map_or(0, |i| i + 1);
        let we = memchr::memchr(b'\n', &buf[b..]).map_or(buf.len(), |i| b + i);
        // UTF-16 text (`41 00 4b 00 ...`) has its zero bytes, not its newlines,
        // between characters: it is masked over the whole margin.
        let wide = redact::secret_spans_wide(&buf);
        for span in wide {
            for byte in buf.get_mut(span).unwrap_or_default() {
                *byte = b'*';
            }
        }
        for span in redact::secret_spans_bytes(&buf[ws..we]) {
            for byte in &mut buf[ws + span.start..ws + span.end] {
                *byte = b'*';
            }
        }
    }
    let window = buf.get(a..b).unwrap_or(&[]);
    let rows: Vec<HexRow> = window
        .chunks(16)
        .enumerate()
        .map(|(i, row)| HexRow {
            offset: start + 16 * i as u64,
            hex: row
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect::<Vec<_>>()
                .join(" "),
        })
        .collect();
    let mut next_commands = Vec::new();
    if shown_end < size {
        let next_end = if truncated {
            end.map(|e| e.to_string()).unwrap_or_default()
        } else {
            (shown_end + 256).min(size).to_string()
        };
        let words = vec![
            "--as".to_string(),
            "hex".into(),
            "--bytes".into(),
            format!("{shown_end}:{next_end}"),
        ];
        next_commands.push(next_command(ctx, args, &words, false));
    }
    let n = window.len();
    let out = HexOut {
        mode: "hex",
        path: shown,
        size,
        start,
        end: shown_end,
        rows,
        truncated,
        approx_tokens: crate::protocol::approx_tokens_chars((3 * n).saturating_sub(1)),
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}

/// The runs cut by the window's edges (the first, the last) lose the context that
/// makes their text a secret (`password = "` before a window that starts in the
/// value): mask them by the whole lines around them, as `hex_view` does. Runs
/// inside the window are whole and the envelope mask sees them as they are.
fn mask_edge_runs(
    file: &mut File,
    items: &mut [StringItem],
    start: u64,
    stop_at: u64,
    size: u64,
) -> std::io::Result<()> {
    let n = items.len();
    for i in [0, n.saturating_sub(1)] {
        let Some(item) = items.get_mut(i) else {
            continue;
        };
        let len = item.text.len() as u64;
        let run_end = item.offset.saturating_add(len);
        let at_edge = (item.offset == start && start > 0) || (run_end >= stop_at && stop_at < size);
        if !at_edge || (i > 0 && n == 1) {
            continue;
        }
        let low = item.offset.saturating_sub(HEX_MARGIN);
        let high = run_end.saturating_add(HEX_MARGIN).min(size);
        let buf = read_at(file, low, high.saturating_sub(low))?;
        let (a, b) = ((item.offset - low) as usize, (run_end - low) as usize);
        // Only a run whose text is its bytes can be masked in place; others whole.
        if buf.get(a..b) != Some(item.text.as_bytes()) {
            continue;
        }
        let ws = memchr::memrchr(b'\n', &buf[..a]).map_or(0, |k| k + 1);
        let we = memchr::memchr(b'\n', &buf[b..]).map_or(buf.len(), |k| b + k);
        let spans: Vec<std::ops::Range<usize>> = redact::secret_spans_bytes(&buf[ws..we])
            .into_iter()
            .map(|r| r.start + ws..r.end + ws)
            .collect();
        if spans.iter().any(|r| r.start < b && a < r.end) {
            item.text = redact::mask_part(&buf, &spans, a..b);
        }
    }
    Ok(())
}

fn strings_view(
    ctx: &Ctx,
    args: &ReadArgs,
    abs: &Path,
    shown: String,
    size: u64,
    (start, end): (u64, Option<u64>),
) -> Result<Output, CmdError> {
    let io = |e: std::io::Error| error::io_error("read", &args.path, &e);
    let start = start.min(size);
    let stop_at = end.unwrap_or(size).min(size);
    let mut file = File::open(abs).map_err(io)?;
    file.seek(SeekFrom::Start(start)).map_err(io)?;
    let mut reader = file.take(stop_at - start);
    let mut scanner = strings::Scanner::new(args.min_length as usize, MAX_LINE_BYTES, start);
    let mut items: Vec<StringItem> = Vec::new();
    let mut resume: Option<u64> = None;
    let mut first_cut: Option<u64> = None;
    let mut last_end = start;
    let max = args.max_lines as usize;
    let mut buf = vec![0u8; lines::CHUNK];
    let mut emit = |r: strings::Run| {
        if items.len() >= max {
            resume = Some(last_end);
            return false;
        }
        if r.cut_at.is_some() && first_cut.is_none() {
            first_cut = r.cut_at;
        }
        last_end = r.end;
        items.push(StringItem {
            offset: r.offset,
            text: r.text,
            cut: r.cut_at.is_some(),
        });
        true
    };
    loop {
        let n = match reader.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        if !scanner.feed(&buf[..n], n == 0, &mut emit) || n == 0 {
            break;
        }
    }
    let mut file = reader.into_inner();
    mask_edge_runs(&mut file, &mut items, start, stop_at, size).map_err(io)?;
    let truncated = resume.is_some() || first_cut.is_some();
    let mut next_commands = Vec::new();
    if let Some(at) = resume {
        let mut words = vec![
            "--as".to_string(),
            "strings".into(),
            "--bytes".into(),
            format!("{at}:{}", end.map(|e| e.to_string()).unwrap_or_default()),
        ];
        if args.min_length != 4 {
            words.push("--min-length".into());
            words.push(args.min_length.to_string());
        }
        next_commands.push(next_command(ctx, args, &words, false));
    }
    if let Some(cut) = first_cut {
        next_commands.push(hex_dump_command(ctx, args, cut, (cut + 256).min(size)));
    }
    let chars: usize =
        items.iter().map(|i| i.text.chars().count()).sum::<usize>() + items.len().saturating_sub(1);
    let out = StringsOut {
        mode: "strings",
        path: shown,
        size,
        strings: items,
        truncated,
        approx_tokens: crate::protocol::approx_tokens_chars(chars),
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}

enum Fail {
    Io(std::io::Error),
    Cmd(CmdError),
}

impl From<std::io::Error> for Fail {
    fn from(e: std::io::Error) -> Fail {
        Fail::Io(e)
    }
}

impl From<CmdError> for Fail {
    fn from(e: CmdError) -> Fail {
        Fail::Cmd(e)
    }
}

/// A collected line, before decoding.
struct Got {
    number: u64,
    offset: u64,
    bytes: Vec<u8>,
    cut: bool,
    cr: bool,
}

impl Got {
    fn of(l: &lines::Line<'_>) -> Got {
        Got {
            number: l.number,
            offset: l.offset,
            bytes: l.bytes.to_vec(),
            cut: l.cut,
            cr: l.had_cr,
        }
    }
}

/// Lines from `from` on while `stop` is unset.
struct Until<'a> {
    from: u64,
    stop: &'a Cell<bool>,
}

impl lines::Want for Until<'_> {
    fn wants(&mut self, line: u64) -> bool {
        line >= self.from && !self.stop.get()
    }
    fn done_after(&self, _: u64) -> bool {
        self.stop.get()
    }
}

/// One pass over the file's text (decoded when `enc` is set): the scan facts
/// and the file's hash.
fn pass<W: lines::Want>(
    abs: &Path,
    enc: Option<Encoding>,
    want: &mut W,
    sink: impl FnMut(lines::Line<'_>),
) -> std::io::Result<lines::Scan> {
    pass_holding(abs, enc, 0, want, sink)
}

/// `pass` whose lines carry up to `hold` bytes in `Line::whole` (what a
/// selector's pattern is matched against; the display is still cut).
fn pass_holding<W: lines::Want>(
    abs: &Path,
    enc: Option<Encoding>,
    hold: usize,
    want: &mut W,
    sink: impl FnMut(lines::Line<'_>),
) -> std::io::Result<lines::Scan> {
    let file = File::open(abs)?;
    match enc {
        None => lines::scan_holding(file, want, MAX_LINE_BYTES, hold, sink),
        Some(e) => {
            let mut dec = DecodeReader::new(file, e);
            // Decoded lines are cut by characters: up to 4 bytes each.
            let mut scan = lines::scan_holding(&mut dec, want, 4 * MAX_LINE_BYTES, hold, sink)?;
            scan.hash = dec.hash();
            scan.size = dec.size();
            Ok(scan)
        }
    }
}

fn text_view(
    ctx: &Ctx,
    args: &ReadArgs,
    abs: &Path,
    shown: String,
    sel: Selector,
    enc: Option<Encoding>,
) -> Result<Output, Fail> {
    let max = args.max_lines;
    if enc.is_none() {
        let mut file = File::open(abs)?;
        let head = read_at(&mut file, 0, text::sniff::SNIFF_BYTES as u64)?;
        if text::sniff::is_binary(&head) {
            drop(file);
            let scan = lines::scan(
                File::open(abs)?,
                &mut lines::Span { first: 0, last: 0 },
                |_| {},
            )?;
            let utf16 = match head.get(..2) {
                Some([0xFF, 0xFE]) => Some("utf-16le"),
                Some([0xFE, 0xFF]) => Some("utf-16be"),
                _ => None,
            };
            let next_commands = utf16
                .map(|e| next_command(ctx, args, &["--encoding".into(), e.into()], false))
                .into_iter()
                .collect();
            return Ok(Output::ok(&BinaryOut {
                mode: "text",
                path: shown,
                binary: true,
                size: scan.size,
                mime: text::sniff::mime(&head, &args.path, true),
                hash: scan.hash,
                next_commands,
            }));
        }
    }
    let mut got: Vec<Got> = Vec::new();
    let mut line_numbers: Option<Vec<u64>> = None;
    let mut next_words: Option<Vec<String>> = None;
    let scan;
    let start_line;
    let mut truncated = false;
    match sel {
        Selector::All | Selector::Range(_) | Selector::Symbol(_) => {
            let (first, last) = match &sel {
                Selector::Range(r) => (r.start, r.end.unwrap_or(u64::MAX)),
                Selector::Symbol(name) => symbol_span(args, abs, enc, name)?,
                _ => (1, u64::MAX),
            };
            let cap_last = last.min(first.saturating_add(max - 1));
            scan = pass(
                abs,
                enc,
                &mut lines::Span {
                    first,
                    last: cap_last,
                },
                |l| got.push(Got::of(&l)),
            )?;
            if first > scan.total_lines && !(first == 1 && scan.total_lines == 0) {
                return Err(beyond_end(args, first, scan.total_lines).into());
            }
            start_line = first;
            let wanted_last = last.min(scan.total_lines);
            let returned_last = first + got.len() as u64 - 1;
            truncated = !got.is_empty() && returned_last < wanted_last;
            // A whole definition is the answer: nothing past it is offered.
            let whole_symbol = matches!(sel, Selector::Symbol(_)) && !truncated;
            if got.len() as u64 > 0 && returned_last < scan.total_lines && !whole_symbol {
                // A cut selection continues to its own end (the next call pages it
                // again, partial until done); a complete one offers the next page.
                let end = if truncated {
                    wanted_last
                } else {
                    scan.total_lines.min(returned_last + max)
                };
                next_words = Some(vec![
                    "--range".into(),
                    format!("{}:{end}", returned_last + 1),
                ]);
            }
        }
        Selector::Tail(n) if n <= max => {
            let mut ring: VecDeque<Got> = VecDeque::with_capacity(n as usize);
            scan = pass(abs, enc, &mut lines::All, |l| {
                if ring.len() as u64 == n
                    && let Some(mut slot) = ring.pop_front()
                {
                    slot.number = l.number;
                    slot.offset = l.offset;
                    slot.bytes.clear();
                    slot.bytes.extend_from_slice(l.bytes);
                    slot.cut = l.cut;
                    slot.cr = l.had_cr;
                    ring.push_back(slot);
                    return;
                }
                ring.push_back(Got::of(&l));
            })?;
            got = ring.into_iter().collect();
            start_line = got.first().map_or(1, |g| g.number);
        }
        Selector::Tail(n) => {
            let total = pass(abs, enc, &mut lines::Span { first: 0, last: 0 }, |_| {})?.total_lines;
            let first = total.saturating_sub(n) + 1;
            let cap_last = first.saturating_add(max - 1);
            scan = pass(
                abs,
                enc,
                &mut lines::Span {
                    first,
                    last: cap_last,
                },
                |l| got.push(Got::of(&l)),
            )?;
            start_line = first;
            let returned_last = first + got.len() as u64 - 1;
            truncated = !got.is_empty() && returned_last < scan.total_lines;
            if truncated {
                next_words = Some(vec![
                    "--range".into(),
                    format!("{}:{}", returned_last + 1, scan.total_lines),
                ]);
            }
        }
        Selector::Match {
            re,
            invert,
            from,
            within,
        } => {
            let stop = Cell::new(false);
            let mut more = false;
            let mut numbers = Vec::new();
            let last = within.and_then(|r| r.end).unwrap_or(u64::MAX);
            let want = &mut Until { from, stop: &stop };
            scan = pass_holding(abs, enc, MAX_MATCHED_LINE_BYTES, want, |l| {
                if l.number > last {
                    stop.set(true);
                    return;
                }
                // The whole line is matched; only its display is cut.
                if re.is_match(l.whole) == invert {
                    return;
                }
                if (got.len() as u64) < max {
                    numbers.push(l.number);
                    got.push(Got::of(&l));
                } else {
                    more = true;
                    stop.set(true);
                }
            })?;
            if got.is_empty() {
                return Err(no_match(
                    args,
                    format!(
                        "No line{} of {} {} /{}/.",
                        match (from > 1, last) {
                            (_, u64::MAX) if from > 1 => format!(" from {from} on"),
                            (_, u64::MAX) => String::new(),
                            _ => format!(" from {from} to {last}"),
                        },
                        args.path,
                        if invert { "fails to match" } else { "matches" },
                        args.pattern.as_deref().unwrap_or_default()
                    ),
                )
                .into());
            }
            start_line = numbers.first().copied().unwrap_or(1);
            truncated = more;
            if more {
                let mut words = vec![
                    "--match".to_string(),
                    args.pattern.clone().unwrap_or_default(),
                ];
                if invert {
                    words.push("--invert".into());
                }
                let next = numbers.last().copied().unwrap_or(0) + 1;
                if let Some(r) = within {
                    // The rest of the range, the same bound.
                    words.push("--range".into());
                    words.push(match r.end {
                        Some(e) => format!("{next}:{e}"),
                        None => format!("{next}:"),
                    });
                } else {
                    words.push("--from-line".into());
                    words.push(next.to_string());
                }
                next_words = Some(words);
            }
            line_numbers = Some(numbers);
        }
        Selector::Between {
            start,
            end,
            exclusive,
            from,
        } => {
            let stop = Cell::new(false);
            let mut begin: Option<u64> = None;
            let mut finish: Option<u64> = None;
            scan = pass_holding(
                abs,
                enc,
                MAX_MATCHED_LINE_BYTES,
                &mut Until { from, stop: &stop },
                |l| match begin {
                    None => {
                        if start.is_match(l.whole) {
                            begin = Some(l.number);
                            if !exclusive {
                                got.push(Got::of(&l));
                            }
                        }
                    }
                    Some(_) => {
                        if end.is_match(l.whole) {
                            finish = Some(l.number);
                            if !exclusive && (got.len() as u64) < max {
                                got.push(Got::of(&l));
                            }
                            stop.set(true);
                        } else if (got.len() as u64) < max {
                            got.push(Got::of(&l));
                        }
                    }
                },
            )?;
            let pats = args.between.clone().unwrap_or_default();
            let (Some(b), Some(e)) = (begin, finish) else {
                let msg = match begin {
                    None => format!(
                        "No line of {} matches START /{}/.",
                        args.path,
                        pats.first().cloned().unwrap_or_default()
                    ),
                    Some(b) => format!(
                        "Line {b} matches START, but no later line matches END /{}/.",
                        pats.get(1).cloned().unwrap_or_default()
                    ),
                };
                let mut err = no_match(args, msg);
                if let Some(b) = begin {
                    err = err.with_first_repair(Repair::new(
                        "read",
                        "Read from the START line to the end of the file.",
                        next_command(ctx, args, &["--range".into(), format!("{b}:")], true),
                    ));
                }
                return Err(err.into());
            };
            let (first, last) = if exclusive { (b + 1, e - 1) } else { (b, e) };
            start_line = first;
            let returned_last = first + got.len() as u64 - 1;
            truncated = first <= last && returned_last < last;
            if truncated {
                next_words = Some(vec![
                    "--range".into(),
                    format!("{}:{last}", returned_last + 1),
                ]);
            }
        }
    }

    // Decode, cut, escape.
    let mut encoding_errors = 0u64;
    let mut cut_lines = Vec::new();
    let mut first_cut_offset: Option<u64> = None;
    let mut out_lines = Vec::with_capacity(got.len());
    for g in &got {
        let mut text = if enc.is_some() {
            // Decoded text is UTF-8 already; its U+FFFD are the decoder's replacements.
            let t = String::from_utf8_lossy(&g.bytes).into_owned();
            encoding_errors += t.matches('\u{FFFD}').count() as u64;
            t
        } else {
            lossy(&g.bytes, &mut encoding_errors)
        };
        let mut cut = g.cut;
        if enc.is_some() {
            if let Some((i, _)) = text.char_indices().nth(MAX_LINE_BYTES) {
                text.truncate(i);
                cut = true;
            }
        } else if cut && first_cut_offset.is_none() {
            first_cut_offset = Some(g.offset + g.bytes.len() as u64);
        }
        if cut {
            cut_lines.push(g.number);
        }
        if args.escape_invisible {
            text = invisible::escape(&text, g.cr);
        }
        out_lines.push(text);
    }
    let mut next_commands = Vec::new();
    if let Some(words) = next_words {
        next_commands.push(next_command(ctx, args, &words, true));
    }
    if let Some(off) = first_cut_offset {
        next_commands.push(hex_dump_command(ctx, args, off, off + 256));
    }
    let truncated = truncated || !cut_lines.is_empty();
    let chars: usize = out_lines.iter().map(|l| l.chars().count()).sum::<usize>()
        + out_lines.len().saturating_sub(1);
    let out = TextOut {
        mode: "text",
        path: shown,
        start_line,
        lines: out_lines,
        line_numbers,
        cut_lines: (!cut_lines.is_empty()).then_some(cut_lines),
        total_lines: scan.total_lines,
        hash: crate::protocol::compact::shown_hash(scan.hash),
        truncated,
        encoding_errors,
        encoding: enc.map(Encoding::name),
        approx_tokens: crate::protocol::approx_tokens_chars(chars),
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}

/// Lossy UTF-8, counting each malformed sequence replaced.
fn lossy(bytes: &[u8], errors: &mut u64) -> String {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.to_string();
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            out.push('\u{FFFD}');
            *errors += 1;
        }
    }
    out
}

fn beyond_end(args: &ReadArgs, first: u64, total: u64) -> CmdError {
    CmdError::new(
        code::NO_MATCH,
        format!(
            "{} has {total} lines; line {first} does not exist.",
            args.path
        ),
        Repair::new(
            "read",
            "Read the end of the file.",
            shell::aitools(["read", &args.path, "--tail", "20"]),
        ),
    )
}

fn no_match(args: &ReadArgs, message: String) -> CmdError {
    CmdError::new(
        code::NO_MATCH,
        message,
        Repair::new(
            "read",
            "Read the file to choose another selection.",
            shell::aitools(["read", &args.path]),
        ),
    )
}

/// The lines of the one definition `--symbol` (and `--kind`) name.
fn symbol_span(
    args: &ReadArgs,
    abs: &Path,
    enc: Option<Encoding>,
    name: &str,
) -> Result<(u64, u64), Fail> {
    let size = std::fs::metadata(abs)?.len();
    if size > MAX_SYMBOL_FILE {
        return Err(CmdError::new(
            code::TOO_LARGE,
            format!(
                "{} is {size} bytes; --symbol reads at most {MAX_SYMBOL_FILE}.",
                args.path
            ),
            Repair::new(
                "read",
                "Find the definition's line with --match instead.",
                shell::aitools(["read", &args.path, "--match", name]),
            ),
        )
        .into());
    }
    let bytes = std::fs::read(abs)?;
    let text = match enc {
        Some(e) => decode::decode_all(&bytes, e).0,
        None => String::from_utf8_lossy(&bytes).into_owned(),
    };
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let defs = match outline::find_symbol(&args.path, text, name, args.kind.as_deref()) {
        Ok(d) => d,
        Err(outline::OutlineError::UnsupportedLanguage(_)) => {
            return Err(CmdError::new(
                code::UNSUPPORTED_LANGUAGE,
                format!(
                    "No language of the outline table covers {}, so --symbol cannot find definitions in it.",
                    args.path
                ),
                Repair::new(
                    "read",
                    "Find the definition's line with --match instead.",
                    shell::aitools(["read", &args.path, "--match", name]),
                ),
            )
            .into());
        }
    };
    match defs.as_slice() {
        [one] => Ok((one.start_line, one.end_line.max(one.start_line))),
        [] => Err(CmdError::new(
            code::NO_MATCH,
            format!(
                "{} has no definition named {name}{}.",
                args.path,
                args.kind
                    .as_deref()
                    .map(|k| format!(" of kind {k}"))
                    .unwrap_or_default()
            ),
            Repair::new(
                "outline",
                "List the file's definitions (name, kind, container) and pick one.",
                shell::aitools(["code", "outline", &args.path]),
            ),
        )
        .with_repair(Repair::new(
            "defs",
            "Look for the definition in the other files.",
            shell::aitools([
                "code",
                "defs",
                outline::qualified_parts(name)
                    .last()
                    .copied()
                    .unwrap_or(name),
            ]),
        ))
        .into()),
        [first, ..] => {
            let list: Vec<Json> = defs.iter().map(Json::from_serialize).collect();
            let mut kinds: Vec<&str> = defs.iter().map(|d| d.kind.as_str()).collect();
            kinds.sort();
            kinds.dedup();
            let mut err = CmdError::new(
                code::AMBIGUOUS,
                format!("{} has {} definitions named {name}.", args.path, defs.len()),
                Repair::new(
                    "read",
                    "Read the first one by its lines.",
                    shell::aitools([
                        "read",
                        &args.path,
                        "--range",
                        &format!("{}:{}", first.start_line, first.end_line),
                    ]),
                ),
            )
            .with_candidates(Json::Arr(list));
            // Same-named definitions inside different ones: the qualified names.
            let mut qualified = outline::qualified_names(&defs);
            qualified.dedup();
            if qualified.len() == defs.len() && qualified.iter().all(Option::is_some) {
                for q in qualified.into_iter().flatten() {
                    err = err.with_repair(Repair::new(
                        "qualify",
                        "Pick the definition by the one around it.",
                        shell::aitools(["read", &args.path, "--symbol", &q]),
                    ));
                }
            }
            if kinds.len() > 1 && args.kind.is_none() {
                err = err.with_repair(Repair::new(
                    "narrow",
                    "Name the kind of definition.",
                    shell::aitools(["read", &args.path, "--symbol", name, "--kind", kinds[0]]),
                ));
            }
            Err(err.into())
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

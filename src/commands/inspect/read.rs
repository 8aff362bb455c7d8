//! `read`: a bounded, numbered, hashed view of one file: its lines (by range, tail,
//! regular expression, START/END pair or definition), a hex dump of a byte span, or
//! its printable strings. The file is streamed, never held whole (except for
//! `--symbol`, whose outline needs the text), and a cut result names the exact
//! command that continues it.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::values::{self, LineRange};
use crate::protocol::{CmdError, Json, Output, Repair, code, error, redact, shell};
use crate::store::files::{Content, File, Found};
use crate::text::decode::{self, DecodeReader, Encoding};
use crate::text::{MAX_LINE_BYTES, lines, outline, select, strings};
use crate::workspace::Ctx;
use crate::workspace::candidates::{self, Offer};
use crate::workspace::defs;
use crate::workspace::input;
use crate::workspace::scan::Budget;
use clap::Args;
use regex::bytes::{Regex, RegexBuilder};
use serde::Serialize;
use std::io::{Read, Seek, SeekFrom};

mod bytes;
mod lines_view;
mod pick;
mod tail;
mod text_answer;
#[allow(unused_imports)]
use bytes::*;
#[allow(unused_imports)]
use lines_view::*;
use text_answer::text_view;

#[derive(Args, Debug, Clone)]
pub struct ReadArgs {
    /// File to read (relative to the working directory); with --symbol it may be left out: the working directory is searched for the definition.
    #[arg(value_name = "PATH", required_unless_present = "symbol")]
    pub path: Option<String>,
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
    /// A 3-character tag per line (anchors), for edit --at LINE:TAG.
    #[arg(long)]
    pub anchors: bool,
    /// Decode from this encoding instead of UTF-8.
    #[arg(long, value_parser = crate::protocol::values::encoding_names(), ignore_case = true)]
    pub encoding: Option<String>,
    /// Maximum lines (text), rows of 16 bytes (hex), or strings returned.
    #[arg(long, value_name = "N", default_value = "80", value_parser = values::parse_count)]
    pub max_lines: u64,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "read",
    summary: "Numbered lines of a file, bounded (cat, head, tail).",
    description: "At most one selector (--range, --tail, --match, --between, --symbol), except that --range bounds a --match (only the range's lines are matched; a cut result continues with the rest of the range). --max-lines always applies; when the output stops before the end of what was asked, next_commands holds the exact command that continues, with the same flags; a whole --symbol definition or --range S:E offers nothing past it. A binary file read as text returns {binary,size,mime} instead of lines. With --match, line_numbers lists each returned line's number; --match and --between match a whole line (its first 64 MiB), however long, even where its display is cut. A UTF-8 BOM is never part of line 1 and a CR before LF is never part of a line. A line longer than 16384 bytes (16384 characters under another --encoding) is cut there and listed in cut_lines; the result is partial, and next_commands names the --as hex --bytes dump of the bytes after the cut. --as hex shows 16 bytes a row with secrets overwritten by * (2a); --as strings lists printable runs, a run over 16384 characters cut and marked cut:true. FIFOs, sockets, devices, directories and procfs/sysfs files (they report size 0 and a read may block, as /proc/kmsg does) are refused without being opened.",
    args: <ReadArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "mode",
            "hex or strings (the --as value); absent for text, the default.",
        ),
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
        field(
            "start_line",
            "text: number of the first returned line; null on a --tail that did not count the file's lines (total_lines).",
        ),
        field("lines", "text: line texts without terminators or BOM."),
        field(
            "anchors",
            "text with --anchors: each returned line's tag (edit --at LINE:TAG checks it).",
        ),
        field(
            "line_numbers",
            "text with --match: the number of each returned line.",
        ),
        field(
            "cut_lines",
            "text: numbers of the returned lines cut at 16384 bytes (status partial, exit 3).",
        ),
        field(
            "total_lines",
            "text: lines in the file; null (not computed) on a --tail of a file over 16 MiB whose count is not cached yet: the tail is read backwards from the end, and next_commands names info, which counts, hashes and caches both.",
        ),
        field(
            "hash",
            "text: the first 12 hex digits of the file's SHA-256 (--expect-hash takes them; info shows all 64); null on a --tail of a file over 16 MiB whose hash is not cached yet (next_commands: info, which hashes it).",
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
        field(
            "next_commands",
            "The command reading the next part, when there is one.",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::SYNTAX_ERROR,
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
    effects: Effects::NONE,
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
    #[serde(skip_serializing_if = "is_text")]
    mode: &'static str,
    path: String,
    start_line: Option<u64>,
    lines: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    anchors: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line_numbers: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cut_lines: Option<Vec<u64>>,
    total_lines: Option<u64>,
    hash: Option<String>,
    truncated: bool,
    #[serde(skip_serializing_if = "is_zero")]
    encoding_errors: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'static str>,
    next_commands: Vec<String>,
}

#[derive(Serialize)]
struct BinaryOut {
    #[serde(skip_serializing_if = "is_text")]
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

impl ReadArgs {
    /// The file read (found by `--symbol` when PATH was left out).
    pub fn path(&self) -> &str {
        self.path.as_deref().unwrap_or("")
    }
}

fn invalid(msg: impl Into<String>) -> CmdError {
    CmdError::invalid_argument("read", msg)
}

/// `flag`'s regular expression; one that does not compile is `input.syntax-error`
/// (as in search), repaired by `--match` with the pattern escaped.
fn compile(path: &str, flag: &str, pattern: &str) -> Result<Regex, CmdError> {
    RegexBuilder::new(pattern)
        .size_limit(32 * 1024 * 1024)
        .build()
        .map_err(|e| {
            let repair = if flag == "--match" {
                Repair::new(
                    "literal",
                    "Match the text literally (escaped).",
                    shell::aitools(["read", path, "--match", &regex::escape(pattern)]),
                )
            } else {
                error::schema_repair("read")
            };
            CmdError::bad_pattern(flag, pattern, &e, repair)
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
                re: compile(args.path(), "--match", p)?,
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
                re: compile(args.path(), "--match", p)?,
                invert: args.invert,
                from,
                within: None,
            }
        } else if let Some(b) = &args.between {
            let (Some(s), Some(e)) = (b.first(), b.get(1)) else {
                return Err(invalid("--between takes two values: START-RE END-RE."));
            };
            Selector::Between {
                start: compile(args.path(), "--between", s)?,
                end: compile(args.path(), "--between", e)?,
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
    if args.path.is_some() {
        return read_path(ctx, args, None);
    }
    // No PATH: --symbol's definition is looked for first (the arguments checked
    // before the scan), and its file read.
    if args.max_lines == 0 {
        return Err(invalid("--max-lines must be at least 1."));
    }
    selector(args)?;
    let Some(name) = args.symbol.as_deref() else {
        return Err(invalid(
            "PATH is missing: name the file to read, or give --symbol NAME to find it.",
        ));
    };
    let (found, listed) = symbol_file(ctx, name, args.kind.as_deref())?;
    let mut resolved = args.clone();
    resolved.path = Some(found);
    read_path(ctx, &resolved, Some(&listed))
}

/// `listed`: the real path a walk found (`--symbol`), read as it is, a symlink
/// anywhere on it refused; else PATH, resolved to its real path once.
fn read_path(
    ctx: &Ctx,
    args: &ReadArgs,
    listed: Option<&std::path::Path>,
) -> Result<Output, CmdError> {
    let (sel, span) = view_options(args)?;
    let shown_abs = match listed {
        Some(p) => p.to_path_buf(),
        None => ctx.path_arg(args.path())?,
    };
    // With --tx, a file the tx staged is read from its blob (the staged bytes);
    // the path shown, the read set and the language stay the path's.
    let files = ctx.files();
    let src = match files.find(&shown_abs)? {
        Found::At(c) => c,
        Found::Removed => return Err(ctx.files().removed_error(args.path(), &shown_abs).into()),
        Found::NotFile { dir } => return Err(not_a_file(args.path(), dir)),
    };
    let meta = match src.metadata() {
        Ok(m) => m,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            let e = candidates::not_found(ctx, args.path(), src.path(), Offer::Retry);
            return Err(head_count_hint(e.into(), args.path()));
        }
        Err(e) => return Err(error::io_error("read", args.path(), &e)),
    };
    // Opened at its real path from here on, refusing a symlink anywhere on it:
    // the path shown is that real path's, so a file swapped for a link after this
    // never shows the link's content under the file's name.
    let src = if listed.is_some() {
        src.as_real()
    } else {
        src.at_real(ctx.dirs())
    };
    // Decided on metadata alone: opening a FIFO for reading would block, and a
    // procfs file (size 0) such as /proc/kmsg blocks on its read.
    if meta.is_dir() {
        return Err(not_a_file(args.path(), true));
    }
    if let Some(kind) = src.special_kind(&meta) {
        return Err(input::not_openable(args.path(), kind).into());
    }
    files.record_read(&shown_abs)?;
    let shown = if src.is_staged() {
        ctx.display_path(&shown_abs)
    } else {
        ctx.display_real(src.path())
    };
    let io = |e: std::io::Error| error::io_error("read", args.path(), &e);
    match args.view.as_str() {
        "hex" => hex_view(
            ctx,
            args,
            &src,
            shown,
            meta.len(),
            span.unwrap_or((0, Some(256))),
        ),
        "strings" => strings_view(
            ctx,
            args,
            &src,
            shown,
            meta.len(),
            span.unwrap_or((0, None)),
        ),
        _ => {
            let enc = match args.encoding.as_deref().and_then(Encoding::from_name) {
                Some(Encoding::Utf8) | None => None,
                Some(e) => Some(e),
            };
            text_view(ctx, args, &src, shown, sel, enc).map_err(|e| match e {
                Fail::Io(e) => io(e),
                Fail::Cmd(c) => c,
            })
        }
    }
}

/// The view's options checked against each other: the line selector, and
/// `--bytes`' span for the hex and strings views.
fn view_options(args: &ReadArgs) -> Result<(Selector, Option<(u64, Option<u64>)>), CmdError> {
    if args.max_lines == 0 {
        return Err(invalid("--max-lines must be at least 1."));
    }
    let sel = selector(args)?;
    if args.view != "text" && (args.encoding.is_some() || args.escape_invisible || args.anchors) {
        return Err(invalid(
            "--encoding, --escape-invisible and --anchors apply to --as text only.",
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
    Ok((sel, span))
}

/// The files listed by an ambiguous `read --symbol NAME` (no PATH), each with the
/// call that reads its definition.
const SYMBOL_FILES_SHOWN: usize = 5;

/// The one file under the working directory that defines `name` (with `kind`), as
/// a path argument (relative to the working directory when below it); several
/// files are ambiguous, none is no match.
fn symbol_file(
    ctx: &Ctx,
    name: &str,
    kind: Option<&str>,
) -> Result<(String, std::path::PathBuf), CmdError> {
    let start = defs::default_start(ctx);
    let defs::Mentions {
        items: found, cut, ..
    } = defs::find(
        ctx,
        "read",
        name,
        kind,
        false,
        std::slice::from_ref(&start),
        defs::seeing(ctx.files().overlay()?, Budget::DEFAULT),
    )?;
    // Below the working directory: relative to it; else (a working directory
    // outside the workspace searches the root) absolute.
    let in_cwd = crate::workspace::scan::real_start(&ctx.cwd).is_ok_and(|c| c == start);
    let arg = |p: &std::path::Path| match p.strip_prefix(&start) {
        Ok(rel) if in_cwd => rel.to_string_lossy().into_owned(),
        _ => p.to_string_lossy().into_owned(),
    };
    match found.as_slice() {
        [(path, _)] => Ok((arg(path), path.clone())),
        [] => Err(no_symbol_file(ctx, &start, name, kind, cut.is_some())),
        several => Err(ambiguous_symbol(several, name, kind, &arg)),
    }
}

/// No file defines the name: list the names that start so, or search for it.
fn no_symbol_file(
    ctx: &Ctx,
    start: &std::path::Path,
    name: &str,
    kind: Option<&str>,
    cut: bool,
) -> CmdError {
    let last = outline::qualified_parts(name)
        .last()
        .copied()
        .unwrap_or(name)
        .to_string();
    let stopped = if cut {
        " (the scan stopped at its budget; name the file to look in it)"
    } else {
        ""
    };
    CmdError::new(
        code::NO_MATCH,
        format!(
            "No file under {} defines {name}{}{stopped}.",
            ctx.display_path(start),
            kind.map(|k| format!(" as a {k}")).unwrap_or_default()
        ),
        Repair::new(
            "defs",
            "List the definitions whose names start so.",
            shell::aitools(["code", "defs", &last, "--prefix"]),
        ),
    )
    .with_repair(Repair::new(
        "search",
        "Find where the name occurs.",
        shell::aitools(["search", &last, "--fixed"]),
    ))
}

/// Several files define the name: each definition as a candidate, and a read of
/// the first few files (`code defs` past them).
fn ambiguous_symbol(
    several: &[(std::path::PathBuf, Vec<outline::Definition>)],
    name: &str,
    kind: Option<&str>,
    arg: &dyn Fn(&std::path::Path) -> String,
) -> CmdError {
    let read_in = |path: &std::path::Path| {
        let mut words = vec![
            "read".to_string(),
            arg(path),
            "--symbol".into(),
            name.into(),
        ];
        if let Some(k) = kind {
            words.push("--kind".into());
            words.push(k.to_string());
        }
        Repair::new(
            "read",
            "Read the definition in this file.",
            shell::aitools(words),
        )
    };
    let mut list = Vec::new();
    let mut err = CmdError::new(
        code::AMBIGUOUS,
        format!(
            "{} files define {name}: name the one to read.",
            several.len()
        ),
        read_in(&several[0].0),
    );
    for (i, (path, found)) in several.iter().enumerate() {
        for d in found {
            let mut o = vec![
                ("path".to_string(), Json::from(arg(path))),
                ("line".to_string(), Json::from(d.start_line)),
            ];
            if let Some(c) = &d.container {
                o.push(("container".to_string(), Json::from(c.clone())));
            }
            list.push(Json::Obj(o));
        }
        if i > 0 && i < SYMBOL_FILES_SHOWN {
            err = err.with_repair(read_in(path));
        }
    }
    if several.len() > SYMBOL_FILES_SHOWN {
        err = err.with_repair(Repair::new(
            "defs",
            "List every definition of the name.",
            shell::aitools(["code", "defs", name]),
        ));
    }
    err.with_candidates(Json::Arr(list))
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
        if args.anchors {
            all.push("--anchors".into());
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
    with_path(all, args.path())
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
    with_path(all, args.path())
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

/// `mode` at its default: left out.
fn is_text(mode: &&'static str) -> bool {
    *mode == "text"
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `read -20` with no file: head's count was taken for the path. When no file
/// has that name, the answer says how to ask for a file's first N lines.
fn head_count_hint(mut e: CmdError, path: &str) -> CmdError {
    let n = path
        .strip_prefix('-')
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse::<u64>().ok())
        .filter(|n| *n > 0);
    if let Some(n) = n {
        e.message.push_str(&format!(
            " {path} was read as a file name: for a file's first {n} lines, name the file: \
             aitools read FILE --range 1:{n} (or aitools read FILE {path})."
        ));
    }
    e
}

//! `archive read`: one member's lines in `read`'s shape (numbered window, hash,
//! the call that continues), or a hex dump; a binary member as text is
//! summarised ({binary,size,mime}), never shown. Secrets are masked as in
//! `read`: the window by the lines before it, the rest by the envelope's pass.

use super::format::{Budget, Flow, Stop};
use super::select::given;
use crate::handler;
use crate::protocol::args::LineArgs;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, Repair, code, redact, shell, values};
use crate::text::lines::sha256_hex;
use crate::text::{MAX_LINE_BYTES, sniff};
use crate::workspace::Ctx;
use clap::Args;
use regex::Regex;
use serde::Serialize;
use std::io::Read;

#[derive(Args, Debug)]
pub struct ReadArgs {
    /// Archive file.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Member path as archive list shows it (a gz archive's one member needs none).
    #[arg(value_name = "ENTRY")]
    pub entry: Option<String>,
    /// Output view; sets mode.
    #[arg(long = "as", value_name = "VIEW", default_value = "text", value_parser = ["text", "hex"])]
    pub view: String,
    /// Maximum lines (text) or 16-byte rows (hex).
    #[arg(long, value_name = "N", default_value = "80", value_parser = values::parse_count)]
    pub max_lines: u64,
    #[command(flatten)]
    pub sel: LineArgs,
}

/// The largest member read.
const MAX_MEMBER: u64 = 64 * 1024 * 1024;

pub const SPEC: CommandSpec = CommandSpec {
    name: "archive read",
    summary: "Read one archive member in read's shape, with selectors and a line limit.",
    description: "A gz archive has one member and takes no ENTRY (its name is answered as entry). Members over 64 MiB are refused. A binary member (a NUL in its first 8 KiB) read as text answers {binary,size,mime}; --as hex dumps it with secrets overwritten by *. Selectors as read's, one per call: --range, --symbol (--kind; the code outline language of the member's name), --between (--exclusive), --match (--invert; --range bounds it); with --as hex, --range counts 16-byte rows. A line over 16384 bytes is cut there and listed in cut_lines (partial). A cut result (status partial, exit 3) has next_commands continuing it.",
    args: <ReadArgs as clap::Args>::augment_args,
    output_fields: &[
        field("mode", "hex with --as hex; absent for text, the default."),
        field("entry", "A gz archive's member name (read without ENTRY)."),
        field("start_line", "text: number of the first returned line."),
        field("lines", "text: line texts without terminators or BOM."),
        field(
            "line_numbers",
            "text with --match: each returned line's number.",
        ),
        field(
            "cut_lines",
            "text: returned lines cut at 16384 bytes (status partial, exit 3).",
        ),
        field("total_lines", "text: lines in the member."),
        field("hash", "SHA-256 of the member bytes."),
        field(
            "truncated",
            "true when --max-lines cut the output or a line was cut (status partial, exit 3); absent when nothing was.",
        ),
        field("rows", "hex: [{offset,hex}], 16 bytes a row."),
        field(
            "binary",
            "text on a binary member: true, with size and mime.",
        ),
        field("size", "Member size in bytes (binary and hex)."),
        field("mime", "text on a binary member: its MIME type."),
        field(
            "encoding_errors",
            "Malformed UTF-8 sequences replaced by U+FFFD.",
        ),
        field("approx_tokens", "ceil(characters of returned text / 4)."),
        field(
            "next_commands",
            "The call reading the next part, when there is one.",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::UNSUPPORTED_FORMAT,
        code::SYNTAX_ERROR,
        code::NO_MATCH,
        code::AMBIGUOUS,
        code::UNSUPPORTED_LANGUAGE,
        code::TOO_LARGE,
        code::NOT_A_FILE,
    ],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(ReadArgs, run),
};

#[derive(Serialize, Default)]
struct Out {
    /// hex with --as hex; absent for text, the default (as read's).
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'static str>,
    /// Only when the caller named no member (a gz archive's one).
    #[serde(skip_serializing_if = "Option::is_none")]
    entry: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    binary: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line_numbers: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cut_lines: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_lines: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<Vec<Row>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding_errors: Option<u64>,
    hash: String,
    /// true when the answer is cut (status partial), as read's.
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    approx_tokens: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    next_commands: Vec<String>,
}

#[derive(Serialize)]
struct Row {
    offset: u64,
    hex: String,
}

fn invalid(ctx: &Ctx, m: impl Into<String>) -> CmdError {
    CmdError::invalid_argument(&ctx.command, m)
}

/// The member's bytes (and the name it was found by).
fn member_bytes(ctx: &Ctx, a: &ReadArgs) -> Result<(String, String, Vec<u8>), CmdError> {
    let mut ar = super::open(ctx, &a.path)?;
    let gz = ar.format == super::format::Format::Gz;
    let want = match (&a.entry, gz) {
        (Some(e), _) => e.trim_start_matches("./").trim_end_matches('/').to_string(),
        (None, true) => String::new(),
        (None, false) => {
            return Err(CmdError::new(
                code::ARGUMENT_INVALID,
                format!("{} holds several members: name the ENTRY to read.", a.path),
                Repair::new(
                    "list",
                    "List the members.",
                    shell::aitools(["archive", "list", &a.path]),
                ),
            ));
        }
    };
    let budget = Budget {
        max_bytes: super::READ_BYTES,
        max_entries: u64::MAX,
        max_ratio: super::MAX_RATIO,
    };
    let mut found: Option<(String, Vec<u8>)> = None;
    let mut other_kind = None;
    super::walk(&mut ar, budget, &mut |m, r| {
        let name = m.path.trim_start_matches("./").trim_end_matches('/');
        if !gz && name != want {
            return Ok(Flow::Next);
        }
        if m.kind != super::format::Kind::File {
            other_kind = Some(m.kind.name());
            return Ok(Flow::Done);
        }
        let mut bytes = Vec::new();
        r.take(MAX_MEMBER + 1)
            .read_to_end(&mut bytes)
            .map_err(Stop::Io)?;
        found = Some((m.path.clone(), bytes));
        Ok(Flow::Done)
    })
    .map_err(|s| super::stop_error(ctx, &a.path, s))?;
    if let Some(k) = other_kind {
        return Err(CmdError::new(
            code::NOT_A_FILE,
            format!("{want} in {} is a {k}, not a file.", a.path),
            Repair::new(
                "list",
                "List the members.",
                shell::aitools(["archive", "list", &a.path]),
            ),
        ));
    }
    let Some((name, bytes)) = found else {
        return Err(CmdError::new(
            code::NOT_FOUND,
            format!("{} has no member {want}.", a.path),
            Repair::new(
                "list",
                "List the members (paths as they are stored).",
                shell::aitools(["archive", "list", &a.path]),
            ),
        ));
    };
    if bytes.len() as u64 > MAX_MEMBER {
        return Err(CmdError::new(
            code::TOO_LARGE,
            format!("{name} in {} is over 64 MiB; it is not read.", a.path),
            Repair::new(
                "extract",
                "Extract it and read the file in parts.",
                shell::aitools([
                    "archive",
                    "extract",
                    &a.path,
                    "--entry",
                    &name,
                    "--to",
                    "extracted",
                ]),
            ),
        ));
    }
    Ok((ar.shown, name, bytes))
}

pub fn run(ctx: &Ctx, a: &ReadArgs) -> Result<Output, CmdError> {
    if a.max_lines == 0 {
        return Err(invalid(ctx, "--max-lines must be at least 1."));
    }
    a.sel.check_modifiers(&ctx.command)?;
    if let Some(flag) = given(&a.sel) {
        let other = [
            ("--range", a.sel.range.is_some()),
            ("--match", a.sel.r#match.is_some()),
            ("--as hex", a.view == "hex"),
            ("--between", flag == "--symbol" && a.sel.between.is_some()),
        ]
        .into_iter()
        .find(|(_, on)| *on);
        if let Some((o, _)) = other {
            return Err(invalid(
                ctx,
                format!("{flag} and {o} are separate selections; use one per call."),
            ));
        }
    }
    if a.view == "hex" && a.sel.r#match.is_some() {
        return Err(invalid(ctx, "--match selects lines; --as hex shows rows."));
    }
    let range = match &a.sel.range {
        Some(r) => Some(values::parse_range(r).map_err(|m| invalid(ctx, m))?),
        None => None,
    };
    let re = match &a.sel.r#match {
        Some(p) => Some(Regex::new(p).map_err(|e| {
            CmdError::bad_pattern(
                "--match",
                p,
                &e,
                Repair::new(
                    "literal",
                    "Match the text literally (escaped).",
                    shell::aitools(shell::rerun(
                        &ctx.argv,
                        &["--match"],
                        &[],
                        &["--match".into(), regex::escape(p)],
                    )),
                ),
            )
        })?),
        None => None,
    };
    let (_, entry, bytes) = member_bytes(ctx, a)?;
    let mut out = Out {
        entry: a.entry.is_none().then(|| entry.clone()),
        hash: sha256_hex(&bytes),
        ..Out::default()
    };
    if a.view == "hex" {
        return Ok(hex(ctx, a, (range, &entry), &bytes, out));
    }
    let head = &bytes[..bytes.len().min(8192)];
    if sniff::is_binary(head) {
        out.binary = Some(true);
        out.size = Some(bytes.len() as u64);
        out.mime = Some(sniff::mime(head, &entry, true));
        return Ok(Output::ok(&out));
    }
    text(ctx, a, (range, re), &entry, &bytes, out)
}

fn hex(
    ctx: &Ctx,
    a: &ReadArgs,
    (range, entry): (Option<values::LineRange>, &str),
    bytes: &[u8],
    mut out: Out,
) -> Output {
    // A member named for its one value (`secrets/db_password`) shows the mask
    // for it, as `read` does.
    let masked = match redact::value_named_by_path(entry, bytes) {
        Some(r) => {
            let mut m = bytes.get(..r.start).unwrap_or_default().to_vec();
            m.extend_from_slice(redact::PLACEHOLDER.as_bytes());
            m.extend_from_slice(bytes.get(r.end..).unwrap_or_default());
            redact::tally_shown(1);
            m
        }
        None => redact::mask_bytes(bytes),
    };
    let total_rows = (masked.len() as u64).div_ceil(16);
    let first = range.map(|r| r.start).unwrap_or(1).max(1);
    let last = range
        .and_then(|r| r.end)
        .unwrap_or(total_rows)
        .min(total_rows)
        .min(first + a.max_lines - 1);
    let rows: Vec<Row> = (first..=last)
        .filter_map(|r| {
            let s = usize::try_from((r - 1) * 16).ok()?;
            let chunk = masked.get(s..(s + 16).min(masked.len()))?;
            Some(Row {
                offset: s as u64,
                hex: chunk.iter().map(|b| format!("{b:02x}")).collect(),
            })
        })
        .collect();
    let want_end = range
        .and_then(|r| r.end)
        .unwrap_or(total_rows)
        .min(total_rows);
    let cut = last < want_end;
    if cut {
        let r = format!(
            "{}:{}",
            last + 1,
            range
                .and_then(|r| r.end)
                .map(|e| e.to_string())
                .unwrap_or_default()
        );
        let words = shell::rerun(&ctx.argv, &["--range"], &[], &["--range".into(), r]);
        out.next_commands.push(shell::aitools(&words));
    }
    out.mode = Some("hex");
    out.size = Some(bytes.len() as u64);
    out.rows = Some(rows);
    out.truncated = cut.then_some(true);
    Output::cut(&out, cut)
}

fn text(
    ctx: &Ctx,
    a: &ReadArgs,
    (range, re): (Option<values::LineRange>, Option<Regex>),
    entry: &str,
    bytes: &[u8],
    mut out: Out,
) -> Result<Output, CmdError> {
    let text = String::from_utf8_lossy(bytes);
    let errors = match std::str::from_utf8(bytes) {
        Ok(_) => 0,
        Err(_) => text.matches('\u{FFFD}').count() as u64,
    };
    let all = split_lines(&text);
    let total = all.len() as u64;
    let body = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let range = match super::select::lines(&ctx.command, &a.sel, entry, body, &ctx.argv)? {
        Some(r) => Some(r),
        None => range,
    };
    let start = range.map(|r| r.start).unwrap_or(1);
    let end = range.and_then(|r| r.end).unwrap_or(total).min(total);
    if start > total.max(1) || (total == 0 && range.is_some()) {
        return Err(CmdError::new(
            code::NO_MATCH,
            format!("--range starts at line {start}, past the end ({total} lines)."),
            Repair::new(
                "read",
                "Read from the top.",
                shell::aitools(shell::rerun(&ctx.argv, &["--range"], &[], &[])),
            ),
        ));
    }
    let (max, inv) = (
        usize::try_from(a.max_lines).unwrap_or(usize::MAX),
        a.sel.invert,
    );
    let Window {
        mut lines,
        numbers,
        cut_lines,
        last_seen,
        cut,
    } = window(&all, start, end, re.as_ref().map(|r| (r, inv)), max);
    if re.is_some() && lines.is_empty() {
        return Err(CmdError::new(
            code::NO_MATCH,
            format!("No line of {entry} matches --match."),
            Repair::new(
                "read",
                "Read the member's start instead.",
                shell::aitools(shell::rerun(&ctx.argv, &["--match"], &["--invert"], &[])),
            ),
        ));
    }
    if cut {
        let r = match range.and_then(|r| r.end) {
            Some(e) => format!("{}:{e}", last_seen + 1),
            None => format!("{}:", last_seen + 1),
        };
        out.next_commands.push(if given(&a.sel).is_some() {
            super::select::rerun(&ctx.argv, &["--range".into(), r])
        } else {
            shell::aitools(shell::rerun(
                &ctx.argv,
                &["--range"],
                &[],
                &["--range".into(), r],
            ))
        });
    }
    let premasked = redact::premask(Some(entry), &all, &numbers, re.is_none(), &mut lines);
    let chars: usize = lines.iter().map(|l| l.chars().count()).sum();
    let partial = cut || !cut_lines.is_empty();
    out.start_line = Some(numbers.first().copied().unwrap_or(start));
    out.approx_tokens = Some(chars.div_ceil(4));
    out.lines = Some(lines);
    if re.is_some() {
        out.line_numbers = Some(numbers);
    }
    if !cut_lines.is_empty() {
        out.cut_lines = Some(cut_lines);
    }
    if errors > 0 {
        out.encoding_errors = Some(errors);
    }
    out.total_lines = Some(total);
    out.truncated = partial.then_some(true);
    Ok(Output::cut(&out, partial).premasked(premasked))
}

/// A member's text as lines the way `read` splits a file: no BOM, no CR before
/// LF, no empty line after a final newline.
fn split_lines(text: &str) -> Vec<&str> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// The lines a window shows: their numbers, which were cut at 16384 bytes, the
/// last line looked at, and whether --max-lines stopped it.
struct Window {
    lines: Vec<String>,
    numbers: Vec<u64>,
    cut_lines: Vec<u64>,
    last_seen: u64,
    cut: bool,
}

fn window(all: &[&str], start: u64, end: u64, re: Option<(&Regex, bool)>, max: usize) -> Window {
    let (mut lines, mut numbers, mut cut_lines) = (Vec::new(), Vec::new(), Vec::new());
    let mut last_seen = start.saturating_sub(1);
    let mut cut = false;
    for n in start..=end {
        let Some(l) = all.get((n - 1) as usize) else {
            break;
        };
        if let Some((re, invert)) = re
            && re.is_match(l) == invert
        {
            last_seen = n;
            continue;
        }
        if lines.len() == max {
            cut = true;
            break;
        }
        let mut l = l.to_string();
        if l.len() > MAX_LINE_BYTES {
            let mut at = MAX_LINE_BYTES;
            while !l.is_char_boundary(at) {
                at -= 1;
            }
            l.truncate(at);
            cut_lines.push(n);
        }
        lines.push(l);
        numbers.push(n);
        last_seen = n;
    }
    Window {
        lines,
        numbers,
        cut_lines,
        last_seen,
        cut,
    }
}

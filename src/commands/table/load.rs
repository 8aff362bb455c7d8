//! Loading a CSV or TSV file for the table family: the shared format flags,
//! the file read through the store's view (a tx's staged bytes under `--tx`),
//! the header, columns by name or 1-based number, and `--where` filters.

use super::parse::{self, Record};
use super::shapes;
use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::text::decode::{self, Encoding};
use crate::text::json_doc;
use crate::workspace::Ctx;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Csv,
    Tsv,
    Jsonl,
    Json,
    Ws,
    Sep,
    Lines,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::Jsonl => "jsonl",
            Format::Json => "json",
            Format::Ws => "ws",
            Format::Sep => "sep",
            Format::Lines => "lines",
        }
    }
    /// The RFC 4180 delimiter; None for the other formats.
    pub fn delim(self) -> Option<u8> {
        match self {
            Format::Csv => Some(b','),
            Format::Tsv => Some(b'\t'),
            _ => None,
        }
    }
}

/// The flags every table command shares.
#[derive(Args, Debug)]
pub struct Source {
    /// Table format; default from the extension (.csv .tsv .tab .jsonl .ndjson .json), then the content (ws, sep, lines are never guessed).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Treat the first row as data; columns are named 1, 2, ...
    #[arg(long)]
    pub no_header: bool,
}

/// The reads' flags for the formats beyond CSV and TSV.
#[derive(Args, Debug, Default)]
pub struct Shape {
    /// With --format sep (implied): the fixed separator string (cut -d).
    #[arg(long, value_name = "SEP", allow_hyphen_values = true)]
    pub delimiter: Option<String>,
    /// With --format json (implied): RFC 6901 pointer to the array of rows.
    #[arg(long, value_name = "PTR", allow_hyphen_values = true)]
    pub pointer: Option<String>,
    /// With --format ws (implied): at most N columns, the last keeping the rest of the line (awk's $N).
    #[arg(long, value_name = "N")]
    pub ws_columns: Option<usize>,
    /// Decode from this encoding instead of UTF-8.
    #[arg(long, value_name = "ENC", value_parser = crate::protocol::values::encoding_names(), ignore_case = true)]
    pub encoding: Option<String>,
}

#[derive(Args, Debug)]
pub struct Filter {
    /// <column><op><value>, op one of = != < <= > >= ~ (regex); repeat for AND. Columns by name or 1-based number.
    #[arg(long = "where", value_name = "COND", allow_hyphen_values = true)]
    pub r#where: Vec<String>,
}

/// A table as loaded: its text, the header (when it has one) and the data rows.
pub struct Table {
    pub abs: PathBuf,
    pub display: String,
    pub hash: String,
    pub bom: bool,
    pub text: String,
    pub format: Format,
    pub names: Vec<String>,
    pub rows: Vec<Record>,
}

impl Table {
    /// The index of column `c` (a header name, else a 1-based number).
    pub fn column(&self, _ctx: &Ctx, c: &str) -> Result<usize, CmdError> {
        if let Some(i) = self.names.iter().position(|n| n == c) {
            return Ok(i);
        }
        if let Ok(n) = c.parse::<usize>()
            && n >= 1
            && n <= self.names.len()
        {
            return Ok(n - 1);
        }
        let listed: Vec<&str> = self.names.iter().take(30).map(String::as_str).collect();
        Err(CmdError::new(
            code::ARGUMENT_INVALID,
            format!(
                "{} has no column {c:?}; its columns are {}.",
                self.display,
                listed.join(", ")
            ),
            Repair::new(
                "columns",
                "See the header and the first rows.",
                shell::aitools(["table", "read", &self.display, "--limit", "3"]),
            ),
        )
        .with_candidates(Json::Arr(listed.iter().map(|s| Json::str(*s)).collect())))
    }

    /// Cell `i` of `r` ("" past the row's end).
    pub fn cell(r: &Record, i: usize) -> &str {
        r.cells.get(i).map_or("", |c| c.value.as_str())
    }

    /// The type of column `i` over `rows`.
    pub fn column_type(&self, rows: &[&Record], i: usize) -> &'static str {
        if matches!(self.format, Format::Json | Format::Jsonl) {
            shapes::json_column_type(
                rows.iter()
                    .map(|r| r.cells.get(i).and_then(|c| c.json.as_ref())),
            )
        } else {
            parse::column_type(rows.iter().map(|r| Table::cell(r, i)))
        }
    }

    /// The file's bytes with `text` as its body (the BOM kept).
    pub fn bytes_of(&self, text: &str) -> Vec<u8> {
        let mut b = Vec::with_capacity(text.len() + 3);
        if self.bom {
            b.extend_from_slice(b"\xEF\xBB\xBF");
        }
        b.extend_from_slice(text.as_bytes());
        b
    }
}

/// Reads `arg` as a table (for a write, inside its closure under the lock).
pub fn load(
    ctx: &Ctx,
    arg: &str,
    abs: PathBuf,
    src: &Source,
    shape: &Shape,
) -> Result<Table, CmdError> {
    let display = ctx.files().whole_regular(arg, &abs)?;
    // At its real path, never through a symlink swapped in on the way
    // (`Files::load_target`): the table rewritten is the file it replaces.
    let snap = ctx.files().load_target(&abs)?;
    let hash = snap.hash.clone();
    let (bom, text) = decode_text(ctx, &display, &snap.bytes, shape)?;
    let format = resolve_format(ctx, &abs, &text, src, shape)?;
    let (names, mut rows) = rows_of(ctx, &display, &text, format, shape)?;
    let header = names.is_none()
        && format != Format::Lines
        && !src.no_header
        && rows.first().is_some_and(parse::looks_like_header);
    let width = rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
    let mut names = names.unwrap_or_default();
    names.extend((names.len() + 1..=width).map(|n| n.to_string()));
    if header {
        let h = rows.remove(0);
        for (i, c) in h.cells.into_iter().enumerate() {
            names[i] = c.value;
        }
    }
    Ok(Table {
        abs,
        display,
        hash,
        bom,
        text,
        format,
        names,
        rows,
    })
}

/// The file's text: UTF-8 (a BOM set aside), or decoded from `--encoding`.
fn decode_text(
    ctx: &Ctx,
    display: &str,
    bytes: &[u8],
    shape: &Shape,
) -> Result<(bool, String), CmdError> {
    let enc = match shape.encoding.as_deref() {
        None => Encoding::Utf8,
        Some(e) => Encoding::from_name(e).ok_or_else(|| {
            CmdError::invalid_argument(
                &ctx.command,
                format!(
                    "--encoding {e:?} is not one of {}.",
                    decode::NAMES.join(", ")
                ),
            )
        })?,
    };
    if enc != Encoding::Utf8 {
        let (text, errors) = decode::decode_all(bytes, enc);
        if errors > 0 {
            return Err(CmdError::new(
                code::NOT_UTF8,
                format!(
                    "{display} is not valid {}: {errors} byte sequence(s) do not decode.",
                    enc.name()
                ),
                Repair::new(
                    "info",
                    "See the encoding info guesses for it.",
                    shell::aitools(["info", display]),
                ),
            ));
        }
        return Ok((false, text));
    }
    let (bom, body) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let text = String::from_utf8(body.to_vec()).map_err(|e| {
        let mut g = decode::Guesser::new();
        g.update(bytes);
        g.finish();
        let guess = match g.guess() {
            "unknown" | "utf-8" => "shift_jis",
            other => other,
        };
        let argv = shell::rerun(
            &ctx.argv,
            &["--encoding"],
            &[],
            &["--encoding".into(), guess.into()],
        );
        // `table set` writes UTF-8 only (it has no --encoding): transcode first.
        let repair = if ctx.command == "table set" {
            Repair::new(
                "transcode",
                "table set writes UTF-8: transcode the file first, then set the cell.",
                shell::aitools(["transcode", display, "--from", guess, "--to", "utf-8"]),
            )
        } else {
            Repair::new(
                "encoding",
                "Decode it with --encoding.",
                shell::aitools(argv),
            )
        };
        CmdError::new(
            code::NOT_UTF8,
            format!(
                "{display} is not valid UTF-8 (byte {}); it reads as {guess}.",
                e.utf8_error().valid_up_to()
            ),
            repair,
        )
    })?;
    Ok((bom, text))
}

/// The format: `--format`, else implied by a format's own flag, else the
/// extension, else the content (a JSON array or JSON Lines, then tab or comma).
fn resolve_format(
    ctx: &Ctx,
    abs: &Path,
    text: &str,
    src: &Source,
    shape: &Shape,
) -> Result<Format, CmdError> {
    let implied = [
        (shape.delimiter.is_some(), Format::Sep, "--delimiter"),
        (shape.pointer.is_some(), Format::Json, "--pointer"),
        (shape.ws_columns.is_some(), Format::Ws, "--ws-columns"),
    ];
    let mut given = implied.iter().filter(|(on, _, _)| *on);
    let flag = given.next();
    if let Some(((_, f1, n1), (_, _, n2))) = flag.zip(given.next()) {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!(
                "{n1} and {n2} belong to different formats ({}); give one.",
                f1.name()
            ),
        ));
    }
    let format = match (src.format, flag) {
        (Some(f), Some((_, want, name))) if f != *want => {
            return Err(CmdError::invalid_argument(
                &ctx.command,
                format!(
                    "{name} goes with --format {}, not {}.",
                    want.name(),
                    f.name()
                ),
            ));
        }
        (Some(f), _) => f,
        (None, Some((_, want, _))) => *want,
        (None, None) => by_extension(abs).unwrap_or_else(|| by_content(text)),
    };
    if format == Format::Sep && shape.delimiter.as_deref().is_none_or(str::is_empty) {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--format sep needs --delimiter SEP (a non-empty string).",
        ));
    }
    if shape.ws_columns == Some(0) {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--ws-columns must be at least 1.",
        ));
    }
    Ok(format)
}

fn by_content(text: &str) -> Format {
    let t = text.trim_start();
    if t.starts_with('[') {
        return Format::Json;
    }
    if t.starts_with('{') {
        let first = t.lines().next().unwrap_or("");
        return if json_doc::parse(first).is_ok() {
            Format::Jsonl
        } else {
            Format::Json
        };
    }
    if parse::guess_delimiter(text) == b'\t' {
        Format::Tsv
    } else {
        Format::Csv
    }
}

/// The rows in `format`, with the column names when the format names them.
fn rows_of(
    ctx: &Ctx,
    display: &str,
    text: &str,
    format: Format,
    shape: &Shape,
) -> Result<(Option<Vec<String>>, Vec<Record>), CmdError> {
    let got = match format {
        Format::Csv | Format::Tsv => {
            let d = format.delim().unwrap_or(b',');
            parse::records(text, d)
                .map(|r| (None, r))
                .map_err(|b| shapes::Bad::Syntax {
                    line: b.line,
                    why: b.why,
                })
        }
        Format::Ws => Ok((None, shapes::ws(text, shape.ws_columns))),
        Format::Sep => Ok((
            None,
            shapes::sep(text, shape.delimiter.as_deref().unwrap_or(",")),
        )),
        Format::Lines => Ok((None, shapes::whole_lines(text))),
        Format::Jsonl => shapes::jsonl(text),
        Format::Json => shapes::json(text, shape.pointer.as_deref().unwrap_or("")),
    };
    got.map_err(|bad| match bad {
        shapes::Bad::Syntax { line, why } => CmdError::new(
            code::SYNTAX_ERROR,
            format!(
                "{display} is not valid {}: line {line}: {why}.",
                format.name()
            ),
            Repair::new(
                "read",
                "Read the lines around it.",
                shell::aitools([
                    "read",
                    display,
                    "--range",
                    &format!("{}:{}", line.saturating_sub(2).max(1), line + 2),
                ]),
            ),
        ),
        shapes::Bad::Shape(why, pointer) => {
            let repair = match pointer {
                // `table set` has no --pointer: it edits a document's own rows.
                Some(p) if ctx.command == "table set" => Repair::new(
                    "pointer",
                    "Read the array inside it; `json set` changes one of its cells by pointer.",
                    shell::aitools(["table", "read", display, "--pointer", &p]),
                ),
                Some(p) => {
                    let argv =
                        shell::rerun(&ctx.argv, &["--pointer"], &[], &["--pointer".into(), p]);
                    Repair::new("pointer", "Read the array inside it.", shell::aitools(argv))
                }
                None if format == Format::Json => Repair::new(
                    "json",
                    "See the document's shape.",
                    shell::aitools(["json", "get", display, "", "--keys"]),
                ),
                None => Repair::new(
                    "read",
                    "Read the first rows as text.",
                    shell::aitools(["read", display, "--max-lines", "5"]),
                ),
            };
            CmdError::new(
                code::UNSUPPORTED_FORMAT,
                format!("{display} is not a table of {} rows: {why}.", format.name()),
                repair,
            )
        }
    })
}

/// Reads `arg` for a read (`table read`, `agg`), recorded in a tx's read set.
pub fn load_read(ctx: &Ctx, arg: &str, src: &Source, shape: &Shape) -> Result<Table, CmdError> {
    let abs = ctx.path_arg(arg)?;
    let t = load(ctx, arg, abs, src, shape)?;
    ctx.files().record_read(&t.abs)?;
    Ok(t)
}

fn by_extension(p: &Path) -> Option<Format> {
    let ext = p.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "csv" => Some(Format::Csv),
        "tsv" | "tab" => Some(Format::Tsv),
        "jsonl" | "ndjson" => Some(Format::Jsonl),
        "json" => Some(Format::Json),
        _ => None,
    }
}

/// One `--where` condition.
pub struct Cond {
    col: usize,
    op: &'static str,
    value: String,
    re: Option<regex::Regex>,
}

const OPS: &[&str] = &["!=", "<=", ">=", "=", "<", ">", "~"];

/// Parses the `--where` conditions against `t`'s columns.
pub fn conditions(ctx: &Ctx, t: &Table, f: &Filter) -> Result<Vec<Cond>, CmdError> {
    f.r#where.iter().map(|w| condition(ctx, t, w)).collect()
}

fn condition(ctx: &Ctx, t: &Table, w: &str) -> Result<Cond, CmdError> {
    let found = w.char_indices().find_map(|(i, _)| {
        OPS.iter()
            .find(|op| w[i..].starts_with(**op))
            .map(|op| (i, *op))
    });
    let Some((at, op)) = found.filter(|(i, _)| *i > 0) else {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("--where {w:?} is not <column><op><value> (op one of = != < <= > >= ~)."),
        ));
    };
    let col = t.column(ctx, &w[..at])?;
    let value = w[at + op.len()..].to_string();
    let re = if op == "~" {
        Some(regex::Regex::new(&value).map_err(|e| {
            CmdError::invalid_argument(
                &ctx.command,
                // The regex crate's last line only: the lines above it quote the
                // pattern without its column's name.
                format!(
                    "--where {w:?}: the regex does not parse: {}",
                    e.to_string().lines().last().unwrap_or_default().trim()
                ),
            )
            .masking_pattern(&value)
        })?)
    } else {
        None
    };
    Ok(Cond { col, op, value, re })
}

/// Whether row `r` meets every condition: numbers compare as numbers when both
/// sides are numbers, else as strings.
pub fn keep(r: &Record, conds: &[Cond]) -> bool {
    conds.iter().all(|c| {
        let v = Table::cell(r, c.col);
        if let Some(re) = &c.re {
            return re.is_match(v);
        }
        let ord = match (parse::number(v), parse::number(&c.value)) {
            (Some(a), Some(b)) => a.partial_cmp(&b),
            _ => Some(v.cmp(c.value.as_str())),
        };
        let Some(o) = ord else { return false };
        match c.op {
            "=" => o.is_eq(),
            "!=" => o.is_ne(),
            "<" => o.is_lt(),
            "<=" => o.is_le(),
            ">" => o.is_gt(),
            _ => o.is_ge(),
        }
    })
}

/// A JSON string, or null for an empty cell.
pub fn cell_json(c: &parse::Cell) -> Json {
    c.json.clone().unwrap_or_else(|| Json::str(c.value.clone()))
}

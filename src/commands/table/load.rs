//! Loading a CSV or TSV file for the table family: the shared format flags,
//! the file read through the store's view (a tx's staged bytes under `--tx`),
//! the header, columns by name or 1-based number, and `--where` filters.

use super::parse::{self, Record};
use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::workspace::Ctx;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Csv,
    Tsv,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Tsv => "tsv",
        }
    }
    pub fn delim(self) -> u8 {
        match self {
            Format::Csv => b',',
            Format::Tsv => b'\t',
        }
    }
}

/// The flags every table command shares.
#[derive(Args, Debug)]
pub struct Source {
    /// Table format; default from the extension (.csv, .tsv, .tab), then the first line (a tab: tsv).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Treat the first row as data; columns are named 1, 2, ...
    #[arg(long)]
    pub no_header: bool,
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
pub fn load(ctx: &Ctx, arg: &str, abs: PathBuf, src: &Source) -> Result<Table, CmdError> {
    let display = ctx.files().whole_regular(arg, &abs)?;
    let snap = ctx.files().load_follow(&abs)?;
    let (bom, body) = match snap.bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (true, rest),
        None => (false, &snap.bytes[..]),
    };
    let hash = snap.hash.clone();
    let text = String::from_utf8(body.to_vec()).map_err(|e| {
        CmdError::new(
            code::NOT_UTF8,
            format!(
                "{display} is not valid UTF-8 (byte {}); table reads UTF-8 text.",
                e.utf8_error().valid_up_to()
            ),
            Repair::new(
                "transcode",
                "Convert it to UTF-8 first (shift_jis shown; see `aitools info` for its encoding).",
                shell::aitools([
                    "transcode",
                    &display,
                    "--from",
                    "shift_jis",
                    "--to",
                    "utf-8",
                ]),
            ),
        )
    })?;
    let format = src.format.unwrap_or_else(|| {
        by_extension(&abs).unwrap_or_else(|| {
            if parse::guess_delimiter(&text) == b'\t' {
                Format::Tsv
            } else {
                Format::Csv
            }
        })
    });
    let mut rows = parse::records(&text, format.delim()).map_err(|b| {
        CmdError::new(
            code::SYNTAX_ERROR,
            format!(
                "{display} is not valid {}: line {}: {}.",
                format.name(),
                b.line,
                b.why
            ),
            Repair::new(
                "read",
                "Read the lines around it.",
                shell::aitools([
                    "read",
                    &display,
                    "--range",
                    &format!("{}:{}", b.line.saturating_sub(2).max(1), b.line + 2),
                ]),
            ),
        )
    })?;
    let header = !src.no_header && rows.first().is_some_and(parse::looks_like_header);
    let width = rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
    let mut names: Vec<String> = (1..=width).map(|n| n.to_string()).collect();
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

/// Reads `arg` for a read (`table read`, `agg`), recorded in a tx's read set.
pub fn load_read(ctx: &Ctx, arg: &str, src: &Source) -> Result<Table, CmdError> {
    let abs = ctx.path_arg(arg)?;
    let t = load(ctx, arg, abs, src)?;
    ctx.files().record_read(&t.abs)?;
    Ok(t)
}

fn by_extension(p: &Path) -> Option<Format> {
    let ext = p.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "csv" => Some(Format::Csv),
        "tsv" | "tab" => Some(Format::Tsv),
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
                format!("--where {w:?}: the regex does not parse: {e}"),
            )
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
pub fn cell_json(s: &str) -> Json {
    Json::str(s.to_string())
}

//! `table read`: the rows of a CSV or TSV file, typed columns, `--where`
//! filters, a row range and a row limit whose continuation is `next_commands`.

use super::load::{self, Filter, Shape, Source};
use super::parse;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, code, shell};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;

/// What the table reads answer besides `argument.invalid` and io.
pub const READ_CODES: &[&str] = &[
    code::NOT_FOUND,
    code::SYNTAX_ERROR,
    code::NOT_UTF8,
    code::NOT_A_FILE,
    code::UNSUPPORTED_FORMAT,
    code::TOO_LARGE,
    code::BUSY,
];

#[derive(Args, Debug)]
pub struct ReadArgs {
    /// The table file.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Comma-separated column names or 1-based numbers.
    #[arg(long, value_name = "COLS")]
    pub columns: Option<String>,
    /// Rows S:E, S:, or N (1-based, after --where).
    #[arg(long, value_name = "S:E")]
    pub range: Option<String>,
    /// Maximum rows returned.
    #[arg(long, default_value_t = 50, value_name = "N")]
    pub limit: usize,
    #[command(flatten)]
    pub source: Source,
    #[command(flatten)]
    pub shape: Shape,
    #[command(flatten)]
    pub filter: Filter,
}

pub const READ: CommandSpec = CommandSpec {
    name: "table read",
    summary: "Read rows of a CSV, TSV, JSONL, JSON, whitespace, separator or line table, typed and bounded.",
    description: "CSV/TSV are RFC 4180: quoted cells may hold the delimiter, doubled quotes and newlines; CR LF or LF ends a row; blank lines hold no row. jsonl and json rows are objects (keys name the columns) or arrays; cells keep their JSON values and a column whose values differ in type is mixed. ws splits lines on whitespace runs (awk); sep on the --delimiter string; lines makes each line one cell. Otherwise a first row of unique, non-empty, non-numeric cells is the header unless --no-header. Columns get a type (integer, number, boolean, string, or null when every cell is empty); text cells come back as strings, a cell past a short row's end as null. More rows than --limit make the answer partial (exit 3); next_commands reads the next ones.",
    args: <ReadArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "format",
            "The format read: csv tsv jsonl json ws sep lines.",
        ),
        field("columns", "[{name,type}] of the returned columns."),
        field(
            "start_row",
            "Number of the first returned row (1-based, after --where).",
        ),
        field("rows", "Arrays of cell values in column order."),
        field("total_rows", "Data rows after --where."),
        field(
            "truncated",
            "True when --limit stopped before the range end (status partial, exit 3).",
        ),
        field("next_commands", "The command reading the next rows."),
    ],
    error_codes: READ_CODES,
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(ReadArgs, read),
};

#[derive(Serialize)]
struct ReadOut {
    format: &'static str,
    columns: Vec<Json>,
    start_row: usize,
    rows: Vec<Json>,
    total_rows: usize,
    truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    next_commands: Vec<String>,
}

/// `S:E`, `S:` or `N`: 1-based, inclusive; ASCII digits only.
fn parse_range(ctx: &Ctx, r: &str) -> Result<(usize, Option<usize>), CmdError> {
    let num = |s: &str| -> Option<usize> {
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok().filter(|n| *n >= 1)
    };
    let parsed = match r.split_once(':') {
        Some((s, "")) => num(s).map(|s| (s, None)),
        Some((s, e)) => num(s)
            .zip(num(e))
            .filter(|(s, e)| s <= e)
            .map(|(s, e)| (s, Some(e))),
        None => num(r).map(|n| (n, Some(n))),
    };
    parsed.ok_or_else(|| {
        CmdError::invalid_argument(
            &ctx.command,
            format!("--range {r:?} is not S:E, S: or N (1-based rows, S <= E)."),
        )
    })
}

pub fn read(ctx: &Ctx, a: &ReadArgs) -> Result<Output, CmdError> {
    if a.limit == 0 {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--limit must be at least 1.",
        ));
    }
    let range = a
        .range
        .as_deref()
        .map(|r| parse_range(ctx, r))
        .transpose()?;
    let t = load::load_read(ctx, &a.path, &a.source, &a.shape)?;
    let conds = load::conditions(ctx, &t, &a.filter)?;
    let cols: Vec<usize> = match &a.columns {
        Some(c) => c
            .split(',')
            .map(|c| t.column(ctx, c.trim()))
            .collect::<Result<_, _>>()?,
        None => (0..t.names.len()).collect(),
    };
    let kept: Vec<&parse::Record> = t.rows.iter().filter(|r| load::keep(r, &conds)).collect();
    let total = kept.len();
    let (start, end) = range.unwrap_or((1, None));
    let end = end.unwrap_or(total).min(total);
    let stop = end.min((start + a.limit).saturating_sub(1));
    let picked: &[&parse::Record] = if start <= stop {
        &kept[start - 1..stop]
    } else {
        &[]
    };
    let columns = cols
        .iter()
        .map(|&i| {
            let mut o = Json::obj();
            o.push("name", Json::str(t.names[i].clone()));
            let ty = t.column_type(&kept, i);
            o.push("type", Json::str(ty));
            o
        })
        .collect();
    let rows = picked
        .iter()
        .map(|r| {
            Json::Arr(
                cols.iter()
                    .map(|&i| r.cells.get(i).map_or(Json::Null, load::cell_json))
                    .collect(),
            )
        })
        .collect();
    let truncated = stop < end;
    let next_commands = if truncated {
        let next = format!(
            "{}:{}",
            stop + 1,
            if range.and_then(|r| r.1).is_some() {
                end.to_string()
            } else {
                String::new()
            }
        );
        vec![shell::aitools(shell::rerun(
            &ctx.argv,
            &["--range"],
            &[],
            &["--range".into(), next],
        ))]
    } else {
        Vec::new()
    };
    let out = ReadOut {
        format: t.format.name(),
        columns,
        start_row: start,
        rows,
        total_rows: total,
        truncated,
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}

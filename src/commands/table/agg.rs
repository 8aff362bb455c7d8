//! `table agg`: group a CSV or TSV file's rows by columns and count, sum,
//! average, take the min or max of a numeric column, or count distinct values.

use super::load::{self, Filter, Source, Table};
use super::parse::{self, Record};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Args, Debug)]
pub struct AggArgs {
    /// The table file.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Grouping column (repeatable).
    #[arg(long, value_name = "COL")]
    pub group_by: Vec<String>,
    /// Rows per group.
    #[arg(long)]
    pub count: bool,
    /// Column to sum.
    #[arg(long, value_name = "COL")]
    pub sum: Option<String>,
    /// Column to average.
    #[arg(long, value_name = "COL")]
    pub avg: Option<String>,
    /// Column to take the minimum of.
    #[arg(long, value_name = "COL")]
    pub min: Option<String>,
    /// Column to take the maximum of.
    #[arg(long, value_name = "COL")]
    pub max: Option<String>,
    /// Column whose distinct values are counted.
    #[arg(long, value_name = "COL")]
    pub distinct: Option<String>,
    /// Only groups with at least this many rows.
    #[arg(long, value_name = "N")]
    pub min_count: Option<usize>,
    /// Output column to order by: count, sum, avg, min, max, distinct, or a --group-by column.
    #[arg(long, value_name = "NAME")]
    pub sort: Option<String>,
    /// Descending order.
    #[arg(long)]
    pub desc: bool,
    /// Maximum groups returned.
    #[arg(long, default_value_t = 50, value_name = "N")]
    pub limit: usize,
    #[command(flatten)]
    pub source: Source,
    #[command(flatten)]
    pub shape: load::Shape,
    #[command(flatten)]
    pub filter: Filter,
}

pub const AGG: CommandSpec = CommandSpec {
    name: "table agg",
    summary: "Group table rows: count, sum, avg, min, max, distinct.",
    description: "Without --group-by all rows form one group. --sum, --avg, --min, --max need a numeric column: empty cells are skipped, any other value fails with the offending rows in diagnostics. A sum of integers is exact (past i128: argument.invalid). count is reported with --count or when no other aggregate is asked for. Groups are in key order unless --sort; more than --limit make the answer partial (exit 3).",
    args: <AggArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "format",
            "The format read: csv tsv jsonl json ws sep lines.",
        ),
        field(
            "groups",
            "[{key:{column:value},count?,sum?,avg?,min?,max?,distinct?}].",
        ),
        field("total_groups", "Groups after --min-count."),
        field(
            "truncated",
            "True when --limit cut groups (status partial, exit 3).",
        ),
        field("next_commands", "The command listing every group."),
    ],
    error_codes: super::read::READ_CODES,
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(AggArgs, agg),
};

#[derive(Serialize)]
struct AggOut {
    format: &'static str,
    groups: Vec<Json>,
    total_groups: usize,
    truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    next_commands: Vec<String>,
}

/// One numeric column's running figures within a group.
#[derive(Default, Clone)]
struct Num {
    n: usize,
    int_sum: Option<i128>,
    float_sum: f64,
    all_int: bool,
    min: Option<(f64, String)>,
    max: Option<(f64, String)>,
}

#[derive(Default)]
struct Acc {
    count: usize,
    num: Num,
    distinct: BTreeSet<String>,
}

/// A number's JSON: an integer's exact digits, else the float.
fn num_json(text: &str, v: f64) -> Json {
    match text.parse::<i128>() {
        Ok(i) => match i64::try_from(i) {
            Ok(i) => Json::Int(i),
            Err(_) => Json::Number(i.to_string()),
        },
        Err(_) => Json::Float(v),
    }
}

impl Num {
    fn add(&mut self, s: &str, v: f64) {
        if self.n == 0 {
            self.all_int = true;
            self.int_sum = Some(0);
        }
        self.n += 1;
        self.float_sum += v;
        if parse::is_integer(s) {
            let i = s.trim_start_matches('+').parse::<i128>().ok();
            self.int_sum = self.int_sum.zip(i).and_then(|(a, b)| a.checked_add(b));
        } else {
            self.all_int = false;
        }
        if self.min.as_ref().is_none_or(|(m, _)| v < *m) {
            self.min = Some((v, s.to_string()));
        }
        if self.max.as_ref().is_none_or(|(m, _)| v > *m) {
            self.max = Some((v, s.to_string()));
        }
    }
    fn sum(&self) -> Option<Json> {
        if self.n == 0 {
            return Some(Json::Null);
        }
        if self.all_int {
            return self.int_sum.map(|i| num_json(&i.to_string(), i as f64));
        }
        Some(Json::Float(self.float_sum))
    }
}

/// The column a flag names, with its flag for the messages.
fn col(ctx: &Ctx, t: &Table, c: &Option<String>) -> Result<Option<usize>, CmdError> {
    c.as_deref().map(|c| t.column(ctx, c)).transpose()
}

/// The value column's non-numeric cells: the error naming them.
fn not_numeric(ctx: &Ctx, t: &Table, name: &str, bad: &[(usize, String)]) -> CmdError {
    let diags = bad
        .iter()
        .take(20)
        .map(|(line, v)| {
            let mut o = Json::obj();
            o.push("line", Json::UInt(*line as u64));
            o.push("value", Json::str(v.clone()));
            o
        })
        .collect();
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "Column {name:?} of {} is not numeric: {} cell(s) are neither empty nor a number (first on line {}).",
            t.display,
            bad.len(),
            bad.first().map_or(0, |b| b.0)
        ),
        Repair::new(
            "count",
            "Count its distinct values instead.",
            shell::aitools(["table", "agg", &t.display, "--distinct", name]),
        ),
    )
    .with_diagnostics(Json::Arr(diags))
    .with_first_repair(Repair::new(
        "where",
        "Look at the rows.",
        shell::aitools(["table", "read", &t.display, "--columns", name]),
    ))
    .with_repair(crate::protocol::error::schema_repair(&ctx.command))
}

pub fn agg(ctx: &Ctx, a: &AggArgs) -> Result<Output, CmdError> {
    let t = load::load_read(ctx, &a.path, &a.source, &a.shape)?;
    let conds = load::conditions(ctx, &t, &a.filter)?;
    let keys: Vec<usize> = a
        .group_by
        .iter()
        .map(|c| t.column(ctx, c))
        .collect::<Result<_, _>>()?;
    let numeric = [&a.sum, &a.avg, &a.min, &a.max];
    let named: Vec<usize> = numeric
        .iter()
        .map(|c| col(ctx, &t, c))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    if named.iter().any(|c| *c != named[0]) {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--sum, --avg, --min and --max take the same column in one call; run one call per column.",
        ));
    }
    let value_col = named.first().copied();
    let distinct_col = col(ctx, &t, &a.distinct)?;
    let mut groups: BTreeMap<Vec<String>, Acc> = BTreeMap::new();
    let mut bad: Vec<(usize, String)> = Vec::new();
    for r in t.rows.iter().filter(|r| load::keep(r, &conds)) {
        let key: Vec<String> = keys
            .iter()
            .map(|&k| Table::cell(r, k).to_string())
            .collect();
        let acc = groups.entry(key).or_default();
        acc.count += 1;
        if let Some(v) = value_col {
            add_value(acc, r, v, &mut bad);
        }
        if let Some(d) = distinct_col {
            acc.distinct.insert(Table::cell(r, d).to_string());
        }
    }
    if !bad.is_empty() {
        let name = t.names[value_col.unwrap_or(0)].clone();
        return Err(not_numeric(ctx, &t, &name, &bad));
    }
    let min_count = a.min_count.unwrap_or(0);
    let mut out: Vec<Json> = Vec::new();
    for (key, acc) in groups.into_iter().filter(|(_, g)| g.count >= min_count) {
        out.push(group_json(ctx, a, &t, &keys, key, &acc)?);
    }
    if let Some(s) = &a.sort {
        sort_groups(ctx, &t, &keys, s, &mut out)?;
    }
    if a.desc {
        out.reverse();
    }
    let total = out.len();
    let truncated = total > a.limit;
    out.truncate(a.limit);
    let next_commands = if truncated {
        vec![shell::aitools(shell::rerun(
            &ctx.argv,
            &["--limit"],
            &[],
            &["--limit".into(), total.to_string()],
        ))]
    } else {
        Vec::new()
    };
    let answer = AggOut {
        format: t.format.name(),
        groups: out,
        total_groups: total,
        truncated,
        next_commands,
    };
    Ok(Output::cut(&answer, truncated))
}

fn add_value(acc: &mut Acc, r: &Record, v: usize, bad: &mut Vec<(usize, String)>) {
    let s = Table::cell(r, v);
    if s.is_empty() {
        return;
    }
    match parse::number(s) {
        Some(x) => acc.num.add(s, x),
        None => bad.push((r.line, s.to_string())),
    }
}

fn group_json(
    ctx: &Ctx,
    a: &AggArgs,
    t: &Table,
    keys: &[usize],
    key: Vec<String>,
    acc: &Acc,
) -> Result<Json, CmdError> {
    let mut k = Json::obj();
    for (i, v) in keys.iter().zip(key) {
        k.push(&t.names[*i], Json::str(v));
    }
    let mut g = Json::obj();
    g.push("key", k);
    let numeric = a.sum.is_some() || a.avg.is_some() || a.min.is_some() || a.max.is_some();
    if a.count || (!numeric && a.distinct.is_none()) {
        g.push("count", Json::UInt(acc.count as u64));
    }
    if a.sum.is_some() {
        let sum = acc.num.sum().ok_or_else(|| {
            CmdError::invalid_argument(
                &ctx.command,
                "The sum is past the exact integer range (i128); nothing was summed.",
            )
        })?;
        g.push("sum", sum);
    }
    if a.avg.is_some() {
        let avg = if acc.num.n == 0 {
            Json::Null
        } else {
            Json::Float(acc.num.float_sum / acc.num.n as f64)
        };
        g.push("avg", avg);
    }
    let ext = |m: &Option<(f64, String)>| {
        m.as_ref()
            .map_or(Json::Null, |(v, s)| num_json(s.trim_start_matches('+'), *v))
    };
    if a.min.is_some() {
        g.push("min", ext(&acc.num.min));
    }
    if a.max.is_some() {
        g.push("max", ext(&acc.num.max));
    }
    if a.distinct.is_some() {
        g.push("distinct", Json::UInt(acc.distinct.len() as u64));
    }
    Ok(g)
}

/// Orders groups by an output figure (numbers first, nulls last) or a key column.
fn sort_groups(
    ctx: &Ctx,
    t: &Table,
    keys: &[usize],
    by: &str,
    out: &mut [Json],
) -> Result<(), CmdError> {
    let figure = ["count", "sum", "avg", "min", "max", "distinct"].contains(&by);
    let key_name = if figure {
        None
    } else {
        Some(t.names[t.column(ctx, by)?].clone())
    };
    if let Some(k) = &key_name
        && !keys.iter().any(|i| &t.names[*i] == k)
    {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!(
                "--sort {by:?} is neither an output figure (count, sum, avg, min, max, distinct) nor a --group-by column."
            ),
        ));
    }
    let val = |g: &Json| -> (Option<f64>, String) {
        let v = match &key_name {
            Some(k) => g.get("key").and_then(|o| o.get(k)),
            None => g.get(by),
        };
        match v {
            Some(Json::Int(i)) => (Some(*i as f64), String::new()),
            Some(Json::UInt(i)) => (Some(*i as f64), String::new()),
            Some(Json::Float(f)) => (Some(*f), String::new()),
            Some(Json::Number(n)) => (n.parse().ok(), String::new()),
            Some(Json::Str(s)) => (parse::number(s), s.clone()),
            _ => (None, String::new()),
        }
    };
    out.sort_by(|x, y| {
        let (a, b) = (val(x), val(y));
        match (a.0, b.0) {
            (Some(p), Some(q)) => p.total_cmp(&q),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.1.cmp(&b.1),
        }
    });
    Ok(())
}

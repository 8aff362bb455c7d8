//! `history`: journaled ops, newest first, optionally only those touching a path.
//! Reads the journal backwards from its end and takes no lock.

use crate::handler;
use crate::protocol::compact::short_op_id;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, code, shell};
use crate::store::journal::{self, Entry, ReverseLines, ReverseMatches};
use crate::store::state_dir;
use crate::workspace::{Ctx, paths};
use clap::Args;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// Only ops touching this path (absolute or relative to the working directory).
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// Ops returned.
    #[arg(long, value_name = "N", default_value = "50")]
    pub limit: u64,
    /// With a path, also count every matching op (a read of the whole journal)
    /// when more follow the page.
    #[arg(long)]
    pub total: bool,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "history",
    summary: "Journaled writes, newest first.",
    description: "Every committed write and undo is one op. With a path, only ops that touched it or anything under it (a move's source counts). More ops than --limit make the result partial (exit 3) with the command that lists them all in next_commands. With a path, total is absent when more follow and --total was not given (counting them reads the whole journal). Reads take no lock.",
    args: <HistoryArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "items",
            "[{op_id, command, paths, time, undoes?}], newest first; op ids as answers show them (`op-<8 hex>`); undoes names the op an undo reverted.",
        ),
        field(
            "total",
            "Ops matching, before --limit; with a path, absent when more follow and --total was not given.",
        ),
        field("truncated", "True when --limit cut the list."),
        field(
            "next_commands",
            "The command listing every matching op, when cut.",
        ),
    ],
    error_codes: &[code::ARGUMENT_INVALID, code::IO],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(HistoryArgs, run),
};

#[derive(Serialize)]
struct Item {
    op_id: String,
    command: String,
    paths: Vec<String>,
    time: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    undoes: Option<String>,
}

#[derive(Serialize)]
struct HistoryOut {
    items: Vec<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<u64>,
    truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    next_commands: Vec<String>,
}

fn touches(e: &Entry, rel: &str) -> bool {
    rel == "."
        || e.paths()
            .iter()
            .any(|p| p == rel || (p.starts_with(rel) && p.as_bytes().get(rel.len()) == Some(&b'/')))
}

/// The bytes a journal line that names `rel` must hold: paths are JSON
/// strings in it, so a path written without escapes appears as it is. `None`
/// when every line must be parsed (`.`, or a path JSON escapes).
fn needle(rel: &str) -> Option<&[u8]> {
    let plain = !rel.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\');
    (rel != "." && plain).then_some(rel.as_bytes())
}

/// The journal's lines from its end: all, or those holding a path's bytes.
enum Lines<'n> {
    All(ReverseLines),
    Matching(Box<ReverseMatches<'n>>),
}

impl Lines<'_> {
    fn next_line(&mut self) -> std::io::Result<Option<String>> {
        match self {
            Lines::All(l) => l.next_line(),
            Lines::Matching(m) => m.next_line(),
        }
    }
}

fn item(e: Entry) -> Item {
    Item {
        paths: e.paths(),
        // Shown as write answers show them (both forms are taken).
        op_id: short_op_id(&e.op_id),
        command: e.command,
        time: e.time,
        undoes: e.undoes.as_deref().map(short_op_id),
    }
}

/// The page, newest first, and how many ops match (`None` when more follow and
/// counting them was not asked for). With a path the journal is read until the
/// page and one more match are found; without, the count is the newest seq + 1.
fn page(
    lines: ReverseLines,
    rel: Option<&str>,
    a: &HistoryArgs,
) -> std::io::Result<(Vec<Item>, Option<u64>)> {
    let mut items = Vec::new();
    let mut count = 0u64;
    // Lines without the path's bytes are passed over by one search per chunk.
    let mut lines = match rel.and_then(needle) {
        Some(n) => Lines::Matching(Box::new(ReverseMatches::new(lines, n))),
        None => Lines::All(lines),
    };
    while let Some(line) = lines.next_line()? {
        let Ok(e) = serde_json::from_str::<Entry>(&line) else {
            continue;
        };
        if let Some(r) = rel {
            if !touches(&e, r) {
                continue;
            }
        } else if items.len() as u64 >= a.limit {
            // Without a filter the count is the newest seq + 1: no need to read on.
            return Ok((items, Some(e.seq + 1 + a.limit)));
        }
        count += 1;
        if (items.len() as u64) < a.limit {
            items.push(item(e));
        } else if !a.total {
            return Ok((items, None));
        }
    }
    Ok((items, Some(count)))
}

pub fn run(ctx: &Ctx, a: &HistoryArgs) -> Result<Output, CmdError> {
    let state = state_dir::for_root(&ctx.root);
    let rel = match &a.path {
        Some(p) => {
            let abs = ctx.path_arg(p)?;
            let real = paths::real_path(ctx.dirs(), &abs);
            Some(paths::relative_to(&real, &ctx.root).unwrap_or_else(|| paths::display(&real)))
        }
        None => None,
    };
    let io = |e: std::io::Error| crate::store::io_fault(ctx, "the journal", &e);
    let (items, mut total) = match ReverseLines::open(&state).map_err(io)? {
        Some(lines) => page(lines, rel.as_deref(), a).map_err(io)?,
        None => (Vec::new(), Some(0)),
    };
    if rel.is_none() {
        let next_seq = journal::next_seq(&state).map_err(io)?;
        total = total.map(|t| t.max(next_seq));
    }
    let truncated = total.is_none_or(|t| t > items.len() as u64);
    let mut next_commands = Vec::new();
    if truncated {
        let mut words = vec!["history".to_string()];
        if let Some(p) = &a.path {
            words.push(p.clone());
        }
        // Uncounted, every op in the journal is a limit that lists them all.
        words.push("--limit".into());
        let all = match total {
            Some(t) => t,
            None => journal::next_seq(&state).map_err(io)?,
        };
        words.push(all.to_string());
        next_commands.push(shell::aitools(&words));
    }
    Ok(Output::cut(
        &HistoryOut {
            items,
            total,
            truncated,
            next_commands,
        },
        truncated,
    ))
}

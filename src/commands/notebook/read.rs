//! `nb read`: a notebook as cells (index, id, type, source lines, execution
//! count, outputs cut to a line budget and rich payloads named by size), a page
//! at a time.

use super::file::{self, NbFile};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, shell, values};
use crate::text::notebook::{CellType, shown};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;

/// Cells per page without --limit.
const DEFAULT_LIMIT: u64 = 25;
/// Source and output characters a page holds before it stops (after its first
/// cell, which is always shown).
const PAGE_CHARS: usize = 24 * 1024;

#[derive(Args, Debug)]
pub struct ReadArgs {
    /// The notebook (.ipynb).
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Only this cell: its id, or its 0-based index.
    #[arg(long, value_name = "CELL")]
    pub cell: Option<String>,
    /// The first cell shown (0-based index); next_commands and more continue with it.
    #[arg(long, value_name = "INDEX", default_value = "0", value_parser = values::parse_count)]
    pub from: u64,
    /// Cells shown (default 25; a page also stops near 24 KB of text).
    #[arg(long, value_name = "N", value_parser = values::parse_count)]
    pub limit: Option<u64>,
    /// Output lines shown per cell (0: none, only their count).
    #[arg(long, value_name = "N", default_value = "8", value_parser = values::parse_count)]
    pub max_output_lines: u64,
}

pub const READ: CommandSpec = CommandSpec {
    name: "nb read",
    summary: "Read a Jupyter notebook (.ipynb) as cells.",
    description: "Each cell: index (0-based), id (nbformat 4.5+), type (code, markdown, raw), source (lines without their ends; `search` numbers them the same way), and for a code cell execution_count and outputs: stream text, a result's text/plain, an error's name, value and traceback (colours removed), within --max-output-lines per cell (outputs_cut counts the lines left out); images and other rich payloads are named with their size (\"image/png 12 KB\"), never shown. A page holds --limit cells and stops near 24 KB: past the default, status partial with next_commands; past a --limit given, status ok with more. A file that is not an nbformat 4 notebook fails with the member that is wrong and the json set call that repairs it.",
    args: <ReadArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "path",
            "The notebook, relative to the workspace root when inside it.",
        ),
        field(
            "hash",
            "The first 12 hex digits of the file's SHA-256 (the nb writes' --expect-hash).",
        ),
        field("nbformat", "The format version, \"4.5\"."),
        field(
            "language",
            "The kernel's language, when the notebook names it.",
        ),
        field("total_cells", "Cells in the notebook."),
        field(
            "cells",
            "[{index,id?,type,source[],execution_count?,outputs?,outputs_cut?}]; outputs items are {type,name?,text?,data?,error?,traceback?}.",
        ),
        field(
            "truncated",
            "True when the default --limit or the page budget cut the list (status partial, exit 3).",
        ),
        field("next_commands", "The call that reads the next page."),
        field(
            "more",
            "When a --limit given in the call left cells out (status ok): the flag that pages on, `--from N`, to add to this call in place of its own --from.",
        ),
    ],
    error_codes: file::READ_CODES,
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(ReadArgs, read),
};

#[derive(Serialize)]
struct ReadOut {
    path: String,
    hash: String,
    nbformat: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<String>,
    total_cells: usize,
    cells: Vec<Json>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    next_commands: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    more: Option<String>,
}

/// Loads a notebook for reading (its read recorded in a tx's read set).
pub fn load_read(ctx: &Ctx, arg: &str) -> Result<NbFile, CmdError> {
    let abs = ctx.path_arg(arg)?;
    let f = file::load(ctx, arg, abs)?;
    ctx.files().record_read(&f.abs)?;
    Ok(f)
}

pub fn read(ctx: &Ctx, a: &ReadArgs) -> Result<Output, CmdError> {
    let f = load_read(ctx, &a.path)?;
    let max_out = a.max_output_lines as usize;
    let mut out = ReadOut {
        path: f.display.clone(),
        hash: f.hash.chars().take(12).collect(),
        nbformat: format!("{}.{}", f.nb.major, f.nb.minor),
        language: f.nb.language.clone(),
        total_cells: f.nb.cells.len(),
        cells: Vec::new(),
        truncated: false,
        next_commands: Vec::new(),
        more: None,
    };
    if let Some(arg) = &a.cell {
        let c = f.cell(arg)?;
        out.cells.push(cell_json(c, &f.text, max_out).0);
        return Ok(Output::ok(&out));
    }
    let limit = a.limit.unwrap_or(DEFAULT_LIMIT) as usize;
    let mut spent = 0usize;
    let mut next = None;
    for c in f.nb.cells.iter().skip(a.from as usize) {
        if out.cells.len() >= limit || (!out.cells.is_empty() && spent >= PAGE_CHARS) {
            next = Some(c.index);
            break;
        }
        let (j, chars) = cell_json(c, &f.text, max_out);
        spent += chars;
        out.cells.push(j);
    }
    let Some(next) = next else {
        return Ok(Output::ok(&out));
    };
    let mut argv: Vec<String> = vec!["nb".into(), "read".into(), f.display.clone()];
    argv.extend(["--from".into(), next.to_string()]);
    if let Some(l) = a.limit {
        argv.extend(["--limit".into(), l.to_string()]);
    }
    if a.max_output_lines != 8 {
        argv.extend(["--max-output-lines".into(), a.max_output_lines.to_string()]);
    }
    let call = shell::aitools(&argv);
    // A --limit asked for is what was asked for; the default or the page
    // budget cutting the list is partial.
    let asked = a.limit.is_some() && out.cells.len() >= limit;
    if asked {
        // The flag to add to the caller's own call, not the call again.
        out.more = Some(format!("--from {next}"));
        Ok(Output::ok(&out))
    } else {
        out.truncated = true;
        out.next_commands = vec![call];
        Ok(Output::cut(&out, true))
    }
}

/// One cell as the reader sees it, and the characters it costs.
fn cell_json(c: &crate::text::notebook::Cell, text: &str, max_out: usize) -> (Json, usize) {
    let mut j = Json::obj();
    j.push("index", Json::UInt(c.index as u64));
    if let Some(id) = &c.id {
        j.push("id", Json::str(id.clone()));
    }
    j.push("type", Json::str(c.cell_type.name()));
    let lines = shown::source_lines(c);
    let mut chars: usize = lines.iter().map(|l| l.len() + 4).sum();
    j.push(
        "source",
        Json::Arr(lines.into_iter().map(Json::Str).collect()),
    );
    if c.cell_type == CellType::Code {
        if let Some(n) = c.count(text) {
            j.push("execution_count", Json::Int(n));
        }
        let (outs, cut) = shown::outputs(c, max_out);
        if !outs.is_empty() {
            let o = Json::Arr(outs);
            chars += o.to_string_compact().len();
            j.push("outputs", o);
        }
        if cut > 0 {
            j.push("outputs_cut", Json::UInt(cut as u64));
        }
    }
    (j, chars)
}

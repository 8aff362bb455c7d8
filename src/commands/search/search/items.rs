//! The items a search answer lists (blocks, matches, counts); a notebook's
//! carry the cell they fall in (`notebook`).

use crate::protocol::json::Json;
use crate::protocol::redact;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// Where in a notebook a hit falls: the cell (index, id) and, when the hit is
/// not in the cell's source, the part (outputs, metadata).
#[derive(Serialize, Clone)]
pub(super) struct CellAt {
    pub(super) cell: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) id: Option<String>,
    #[serde(rename = "in", skip_serializing_if = "Option::is_none")]
    pub(super) part: Option<&'static str>,
}

/// A block or match whose file is the previous item's leaves `path` empty (not
/// shown): the answer names each file once, at its first item.
#[derive(Serialize)]
pub(super) struct Block {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(super) path: String,
    #[serde(flatten)]
    pub(super) cell: Option<CellAt>,
    pub(super) start_line: u64,
    pub(super) lines: Vec<String>,
    /// Empty (not shown) when every line of the block is a selected line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) match_lines: Vec<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) cut_lines: Vec<CutLine>,
}

/// A line longer than the line cap: `lines` shows a window of it starting at
/// character column `col` (1-based), around the first match of a match line.
#[derive(Serialize)]
pub(super) struct CutLine {
    pub(super) line: u64,
    pub(super) col: u64,
}

#[derive(Serialize)]
pub(super) struct MatchItem {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(super) path: String,
    #[serde(flatten)]
    pub(super) cell: Option<CellAt>,
    pub(super) line: u64,
    pub(super) col: u64,
    pub(super) text: String,
    /// Not shown when the pattern has no capture group.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) groups: Vec<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) named: Option<BTreeMap<String, Option<String>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) pattern_index: Option<usize>,
    /// The secrets masked in `text` and the groups, masked in the rest of the
    /// answer too (`redact::mask_tree_noted`).
    #[serde(skip)]
    pub(super) hid: Vec<String>,
}

#[derive(Serialize)]
pub(super) struct CountItem {
    pub(super) path: String,
    pub(super) count: u64,
}

/// A file's (a notebook cell's) blocks as the envelope shows them: every line
/// numbered, `N:text` for a selected line and `N-text` for a context line (a gap
/// in the numbers is where one block ends and the next starts), and the path
/// said once. The AOI stream keeps one `Block` per block.
#[derive(Serialize)]
pub(super) struct Shown {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(super) path: String,
    #[serde(flatten)]
    pub(super) cell: Option<CellAt>,
    pub(super) lines: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) cut_lines: Vec<CutLine>,
}

fn same_cell(a: &Option<CellAt>, b: &Option<CellAt>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.cell == b.cell && a.id == b.id && a.part == b.part,
        _ => false,
    }
}

/// The blocks as the answer shows them, put in `fields`' `blocks` member: their
/// lines and paths masked with `fields`' other strings in one pass (a value
/// masked in a line is masked in `more`, in a path, and the other way round),
/// then numbered. Every field is masked then (`Output::masked`): the envelope's
/// pass leaves them, so a numbered line (`12:` before it no longer starts where
/// the line machine looks) is never judged again.
pub(super) fn shown_in(mut blocks: Vec<Block>, fields: &mut Json) {
    let paths = mask_with(&mut blocks, fields);
    let shown = shown_blocks(blocks, paths);
    if let Some(v) = fields.get_mut("blocks") {
        *v = Json::from_serialize(&shown);
    }
}

/// The blocks (in file order) merged per file and cell, numbered line by line;
/// an item in the previous item's file (a notebook's next cell) leaves out its
/// path. `paths`: each block's path as shown (masked; empty in the previous
/// block's file).
fn shown_blocks(blocks: Vec<Block>, paths: Vec<String>) -> Vec<Shown> {
    let mut out: Vec<Shown> = Vec::new();
    let mut last: Option<String> = None;
    for (b, path) in blocks.into_iter().zip(paths) {
        // A set: with `-C 0` every line of a whole file's block is selected.
        let selected: HashSet<u64> = b.match_lines.iter().copied().collect();
        let lines = b.lines.into_iter().enumerate().map(|(i, text)| {
            let n = b.start_line + i as u64;
            let sep = if selected.contains(&n) { ':' } else { '-' };
            format!("{n}{sep}{text}")
        });
        let same_file = last.as_ref() == Some(&b.path);
        match out.last_mut() {
            Some(item) if same_file && same_cell(&item.cell, &b.cell) => {
                item.lines.extend(lines);
                item.cut_lines.extend(b.cut_lines);
            }
            _ => out.push(Shown {
                path,
                cell: b.cell,
                lines: lines.collect(),
                cut_lines: b.cut_lines,
            }),
        }
        last = Some(b.path);
    }
    out
}

/// Each block's lines, path (said once per file) and cell id masked as the
/// envelope's pass masks a block object (one line machine per block), together
/// with `fields` in one tree: a value masked anywhere is masked everywhere.
/// Done before the numbers that would hide where a line starts. Returns each
/// block's path as shown: masked, empty when the previous block's file.
fn mask_with(blocks: &mut [Block], fields: &mut Json) -> Vec<String> {
    let named: Vec<bool> = (0..blocks.len())
        .map(|i| i == 0 || blocks[i - 1].path != blocks[i].path)
        .collect();
    let mut objects: Vec<Json> = Vec::with_capacity(blocks.len());
    for (b, named) in blocks.iter_mut().zip(named) {
        let mut o = Json::obj();
        if named {
            o.push("path", Json::str(b.path.as_str()));
        }
        if let Some(id) = b.cell.as_ref().and_then(|c| c.id.as_deref()) {
            o.push("id", Json::str(id));
        }
        let lines = std::mem::take(&mut b.lines);
        o.push(
            "lines",
            Json::Arr(lines.into_iter().map(Json::Str).collect()),
        );
        objects.push(o);
    }
    let rest = std::mem::replace(fields, Json::Null);
    let mut tree = Json::Arr(vec![Json::Arr(objects), rest]);
    redact::tally_shown(redact::mask_tree(&mut tree));
    let Json::Arr(mut parts) = tree else {
        return Vec::new();
    };
    *fields = parts.pop().unwrap_or(Json::Null);
    let Some(Json::Arr(objects)) = parts.pop() else {
        return Vec::new();
    };
    let text = |v: Option<Json>| match v {
        Some(Json::Str(s)) => s,
        _ => String::new(),
    };
    let mut paths = Vec::with_capacity(blocks.len());
    for (b, mut o) in blocks.iter_mut().zip(objects) {
        paths.push(text(o.remove("path")));
        if let Some(c) = b.cell.as_mut().filter(|c| c.id.is_some()) {
            c.id = Some(text(o.remove("id")));
        }
        if let Some(Json::Arr(lines)) = o.remove("lines") {
            b.lines = lines.into_iter().map(|l| text(Some(l))).collect();
        }
    }
    paths
}

/// A match in the previous match's file leaves its path out.
pub(super) fn compact_matches(matches: &mut [MatchItem]) {
    let mut last = String::new();
    for m in matches {
        if m.path == last {
            m.path.clear();
        } else {
            last.clone_from(&m.path);
        }
    }
}

//! The items a search answer lists (blocks, matches, counts); a notebook's
//! carry the cell they fall in (`notebook`).

use serde::Serialize;
use std::collections::BTreeMap;

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

#[derive(Serialize)]
pub(super) struct Block {
    pub(super) path: String,
    #[serde(flatten)]
    pub(super) cell: Option<CellAt>,
    pub(super) start_line: u64,
    pub(super) lines: Vec<String>,
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
    pub(super) path: String,
    #[serde(flatten)]
    pub(super) cell: Option<CellAt>,
    pub(super) line: u64,
    pub(super) col: u64,
    pub(super) text: String,
    pub(super) groups: Vec<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) named: Option<BTreeMap<String, Option<String>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) pattern_index: Option<usize>,
}

#[derive(Serialize)]
pub(super) struct CountItem {
    pub(super) path: String,
    pub(super) count: u64,
}

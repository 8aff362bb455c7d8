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
}

#[derive(Serialize)]
pub(super) struct CountItem {
    pub(super) path: String,
    pub(super) count: u64,
}

/// What the envelope leaves out of blocks (once streamed whole): a path the
/// previous block named, `match_lines` when every line is one.
pub(super) fn compact_blocks(blocks: &mut [Block]) {
    let mut last = String::new();
    for b in blocks {
        if b.match_lines.len() == b.lines.len() {
            b.match_lines.clear();
        }
        if b.path == last {
            b.path.clear();
        } else {
            last.clone_from(&b.path);
        }
    }
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

//! The items a search answer lists (blocks, matches, counts); a notebook's
//! carry the cell they fall in (`notebook`).

use crate::protocol::json::Json;
use crate::protocol::redact;
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

/// The blocks (in file order) merged per file and cell, numbered line by line;
/// an item in the previous item's file (a notebook's next cell) leaves out its
/// path.
pub(super) fn shown_blocks(mut blocks: Vec<Block>) -> Vec<Shown> {
    mask_as_blocks(&mut blocks);
    let mut out: Vec<Shown> = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    for b in blocks {
        let lines = b.lines.into_iter().enumerate().map(|(i, text)| {
            let n = b.start_line + i as u64;
            let sep = if b.match_lines.contains(&n) { ':' } else { '-' };
            format!("{n}{sep}{text}")
        });
        match out.last_mut() {
            Some(last) if paths.last() == Some(&b.path) && same_cell(&last.cell, &b.cell) => {
                last.lines.extend(lines);
                last.cut_lines.extend(b.cut_lines);
            }
            _ => {
                let path = if paths.last() == Some(&b.path) {
                    String::new()
                } else {
                    b.path.clone()
                };
                paths.push(b.path);
                out.push(Shown {
                    path,
                    cell: b.cell,
                    lines: lines.collect(),
                    cut_lines: b.cut_lines,
                });
            }
        }
    }
    out
}

/// The numbered lines the envelope's pass would mask again (`shown_blocks`
/// masked them unnumbered): with `12:` before it, a line no longer starts where
/// the line machine looks (a public key's BEGIN line), so a clean line after it
/// could be taken for a secret. The answer names them as its own (the pass
/// leaves them); each round hides what the last found, as the pass will.
pub(super) fn masked_already(items: &[Shown]) -> Vec<String> {
    let mut own: Vec<String> = Vec::new();
    for _ in 0..4 {
        let arrays = items.iter().map(|it| {
            let hid = it.lines.iter().map(|l| match own.contains(l) {
                true => Json::str("\u{1}own\u{1}"),
                false => Json::str(l.as_str()),
            });
            Json::Arr(hid.collect())
        });
        let mut tree = Json::Arr(arrays.collect());
        if redact::mask_tree(&mut tree) == 0 {
            break;
        }
        let Json::Arr(arrays) = tree else { break };
        let before = own.len();
        for (it, a) in items.iter().zip(arrays) {
            let Json::Arr(lines) = a else { continue };
            for (l, m) in it.lines.iter().zip(lines) {
                if !matches!(&m, Json::Str(s) if s == l || s == "\u{1}own\u{1}") && !own.contains(l)
                {
                    own.push(l.clone());
                }
            }
        }
        if own.len() == before {
            break;
        }
    }
    own
}

/// Each block's lines masked as the envelope's pass masks an array of a file's
/// lines (one line machine per block, a value masked anywhere masked everywhere),
/// before the numbers that would hide where a line starts.
fn mask_as_blocks(blocks: &mut [Block]) {
    let arrays = blocks.iter_mut().map(|b| {
        let lines = std::mem::take(&mut b.lines);
        Json::Arr(lines.into_iter().map(Json::Str).collect())
    });
    let mut tree = Json::Arr(arrays.collect());
    redact::tally_shown(redact::mask_tree(&mut tree));
    let Json::Arr(arrays) = tree else { return };
    for (b, a) in blocks.iter_mut().zip(arrays) {
        let Json::Arr(lines) = a else { continue };
        b.lines = lines
            .into_iter()
            .map(|l| match l {
                Json::Str(s) => s,
                _ => String::new(),
            })
            .collect();
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

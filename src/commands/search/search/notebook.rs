//! Notebook hits by cell: a block or match in a `.ipynb` file is told by the
//! cell it falls in (index, id) and, in the cell's source, by the line within
//! that source (as `nb read` numbers it) with the source's own text around it,
//! instead of the JSON text's lines. A hit in a cell's outputs or metadata
//! names the cell and the part (`in`), and keeps the file's line numbers.

use super::items::{Block, CellAt, MatchItem};
use crate::protocol::redact;
use crate::text::notebook::{Cell, Notebook, Part, shown};
use crate::workspace::Ctx;
use std::path::Path;

fn is_notebook(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
}

/// The notebook at `p` (through the tx's view), or None when it is not one.
fn load(ctx: &Ctx, p: &Path) -> Option<(String, Notebook)> {
    if !is_notebook(p) {
        return None;
    }
    let snap = ctx.files().load_follow(p).ok()?;
    let body = snap
        .bytes
        .strip_prefix(crate::text::BOM)
        .unwrap_or(&snap.bytes);
    let text = String::from_utf8(body.to_vec()).ok()?;
    let nb = Notebook::parse(&text).ok()?;
    Some((text, nb))
}

fn at(c: &Cell, part: Option<&'static str>) -> CellAt {
    CellAt {
        cell: c.index as u64,
        id: c.id.clone(),
        part,
    }
}

fn part_name(p: Part) -> Option<&'static str> {
    match p {
        Part::Source(_) => None,
        Part::Outputs => Some("outputs"),
        Part::Other => Some("metadata"),
    }
}

/// A JSON line that is one string element shown as its text.
fn decoded(line: &str) -> String {
    let t = line.trim().trim_end_matches(',');
    serde_json::from_str::<String>(t)
        .map(|s| s.trim_end_matches(['\n', '\r']).to_string())
        .unwrap_or_else(|_| line.trim().to_string())
}

/// The blocks of file `p`, told by cell when it is a notebook.
pub(super) fn blocks(
    ctx: &Ctx,
    p: &Path,
    blocks: Vec<Block>,
    before: usize,
    after: usize,
) -> Vec<Block> {
    if blocks.is_empty() {
        return blocks;
    }
    let Some((text, nb)) = load(ctx, p) else {
        return blocks;
    };
    let (text, nb) = (&text, &nb);
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        // Runs of match lines in the same cell and part, in order.
        let mut runs: Vec<(Option<usize>, Option<&'static str>, Vec<u64>)> = Vec::new();
        for &l in &b.match_lines {
            let (cell, part, n) = match nb.locate(text, l) {
                Some((c, Part::Source(k))) => (Some(c.index), None, k),
                Some((c, p)) => (Some(c.index), part_name(p), l),
                None => (None, Some("metadata"), l),
            };
            match runs.last_mut() {
                Some((c, p, ns)) if *c == cell && *p == part => ns.push(n),
                _ => runs.push((cell, part, vec![n])),
            }
        }
        for (cell, part, ns) in runs {
            let c = cell.and_then(|i| nb.cells.get(i));
            if let (Some(c), None) = (c, part) {
                let lines = shown::source_lines(c);
                // Split where the context around two matches would not touch.
                let mut groups: Vec<Vec<u64>> = Vec::new();
                for n in ns {
                    match groups.last_mut() {
                        Some(g)
                            if g.last()
                                .is_some_and(|p| n <= p + (before + after + 1) as u64) =>
                        {
                            g.push(n)
                        }
                        _ => groups.push(vec![n]),
                    }
                }
                for g in groups {
                    let first = g.first().copied().unwrap_or(1);
                    let last = g.last().copied().unwrap_or(first);
                    let lo = first.saturating_sub(before as u64).max(1);
                    let hi = (last + after as u64).min(lines.len() as u64).max(lo);
                    let shown = lines
                        .get(lo as usize - 1..(hi as usize).min(lines.len()))
                        .map(<[String]>::to_vec)
                        .unwrap_or_default();
                    out.push(Block {
                        path: b.path.clone(),
                        cell: Some(at(c, None)),
                        start_line: lo,
                        lines: shown,
                        match_lines: g,
                        cut_lines: Vec::new(),
                    });
                }
                continue;
            }
            // Outputs or metadata: the matched lines themselves, by the file's numbers.
            let lines = ns
                .iter()
                .map(|l| {
                    let i = l.saturating_sub(b.start_line) as usize;
                    b.lines.get(i).map(|t| decoded(t)).unwrap_or_default()
                })
                .collect();
            out.push(Block {
                path: b.path.clone(),
                cell: c.map(|c| at(c, part)),
                start_line: ns.first().copied().unwrap_or(b.start_line),
                lines,
                match_lines: ns,
                cut_lines: Vec::new(),
            });
        }
    }
    out
}

/// The matches of file `p`, told by cell when it is a notebook (a source
/// match by its line and column within the cell's source).
pub(super) fn matches(ctx: &Ctx, p: &Path, mut items: Vec<MatchItem>) -> Vec<MatchItem> {
    if items.is_empty() {
        return items;
    }
    let Some((text, nb)) = load(ctx, p) else {
        return items;
    };
    let text = &text;
    for m in items.iter_mut() {
        match nb.locate(text, m.line) {
            Some((c, Part::Source(k))) => {
                let json_line = text.lines().nth(m.line as usize - 1).unwrap_or("");
                m.col = source_col(json_line, m.col);
                mask_in_source(m, &decoded(json_line));
                m.line = k;
                m.cell = Some(at(c, None));
            }
            Some((c, p)) => m.cell = Some(at(c, part_name(p))),
            None => {}
        }
    }
    items
}

/// A source match masked by the secrets of its line as the cell's source says
/// it (the JSON line's escapes hide a quoted value from the mask): the line's
/// secret values noted, so its groups and the rest of the answer are masked
/// (`MatchItem::hid`), and its text masked by position when the JSON line's
/// mask left it whole.
fn mask_in_source(m: &mut MatchItem, line: &str) {
    let spans = redact::secret_spans(line);
    m.hid.extend(
        spans
            .iter()
            .filter_map(|s| line.get(s.clone()))
            .map(str::to_string),
    );
    if spans.is_empty() || m.text.is_empty() || m.text.contains(redact::PLACEHOLDER) {
        return;
    }
    let col = usize::try_from(m.col.saturating_sub(1)).unwrap_or(usize::MAX);
    let Some((start, _)) = line.char_indices().nth(col) else {
        return;
    };
    let end = start + m.text.len();
    if line.get(start..end) == Some(m.text.as_str()) {
        m.text = redact::mask_part(line.as_bytes(), &spans, start..end);
    }
}

/// A column of a JSON string element's line as a column of the string's text.
fn source_col(json_line: &str, col: u64) -> u64 {
    let Some(q) = json_line.find('"') else {
        return col;
    };
    let skip = json_line[..=q].chars().count() as u64;
    let prefix: String = json_line[q + 1..]
        .chars()
        .take(col.saturating_sub(skip + 1) as usize)
        .collect();
    match serde_json::from_str::<String>(&format!("\"{prefix}\"")) {
        Ok(s) => s.chars().count() as u64 + 1,
        Err(_) => col.saturating_sub(skip).max(1),
    }
}

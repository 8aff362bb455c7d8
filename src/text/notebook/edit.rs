//! Notebook edits as text splices: a cell's source replaced (its outputs and
//! execution count cleared for a code cell), a cell inserted, deleted or moved.
//! What is written new follows nbformat's own layout (keys in sorted order, the
//! file's indent step, one source line per string); every cell the edit does not
//! name keeps its bytes, and so does the text around the cells array.

use super::{Cell, CellType, Notebook, split_lines};
use crate::text::json_doc::{self, Style};

/// The JSON text of a string, escaped as Python's `json.dumps(...,
/// ensure_ascii=False)` (which nbformat uses) escapes it.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

/// A source value in nbformat's layout: `[]`, or one string per line, each on
/// its own line one indent step in from `ind` (the line holding `"source"`).
/// `as_list` false writes one string (a cell that had its source that way).
pub fn source_value(src: &str, as_list: bool, st: &Style, ind: &str) -> String {
    if !as_list {
        return quote(src);
    }
    let lines = split_lines(src);
    if lines.is_empty() {
        return "[]".to_string();
    }
    let quoted: Vec<String> = lines.iter().map(|l| quote(l)).collect();
    match &st.unit {
        Some(u) => {
            let inner = format!("{}{ind}{u}", st.nl);
            format!(
                "[{inner}{}{}{ind}]",
                quoted.join(&format!(",{inner}")),
                st.nl
            )
        }
        None => format!("[{}]", quoted.join(&st.inline_sep)),
    }
}

/// Sorted splices applied from the end, so earlier offsets stay right.
fn apply_all(text: &str, mut splices: Vec<json_doc::Splice>) -> String {
    splices.sort_by_key(|s| std::cmp::Reverse(s.at));
    let mut out = text.to_string();
    for s in &splices {
        out = json_doc::apply(&out, s);
    }
    out
}

/// The text with `cell`'s source set to `src`; a code cell's outputs become `[]`
/// and its execution_count `null` when `clear`.
pub fn set_source(text: &str, nb: &Notebook, cell: &Cell, src: &str, clear: bool) -> String {
    let st = Style::of(text, &nb.root);
    let n = &cell.source_node;
    let as_list = !matches!(n.kind, json_doc::Kind::Str(_));
    let ind = json_doc::indent_at(text, n.start);
    let mut splices = vec![json_doc::Splice {
        at: n.start,
        end: n.end,
        with: source_value(src, as_list, &st, ind),
    }];
    if clear && cell.cell_type == CellType::Code {
        if let Some(o) = &cell.outputs {
            splices.push(json_doc::Splice {
                at: o.start,
                end: o.end,
                with: "[]".to_string(),
            });
        }
        if let Some(e) = &cell.execution_count {
            splices.push(json_doc::Splice {
                at: e.start,
                end: e.end,
                with: "null".to_string(),
            });
        }
    }
    apply_all(text, splices)
}

/// A new cell's text as nbformat writes one (keys sorted), its closing brace
/// at indent `ind`.
pub fn new_cell(st: &Style, ind: &str, ty: CellType, id: Option<&str>, src: &str) -> String {
    let unit = st.unit.clone().unwrap_or_default();
    let inner = format!("{ind}{unit}");
    let mut members: Vec<(&str, String)> = vec![("cell_type", quote(ty.name()))];
    if ty == CellType::Code {
        members.push(("execution_count", "null".into()));
    }
    if let Some(id) = id {
        members.push(("id", quote(id)));
    }
    members.push(("metadata", "{}".into()));
    if ty == CellType::Code {
        members.push(("outputs", "[]".into()));
    }
    members.push(("source", source_value(src, true, st, &inner)));
    let body: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("{}{}{v}", quote(k), st.kv))
        .collect();
    match &st.unit {
        Some(_) => {
            let lead = format!("{}{inner}", st.nl);
            format!("{{{lead}{}{}{ind}}}", body.join(&format!(",{lead}")), st.nl)
        }
        None => format!("{{{}}}", body.join(&st.inline_sep)),
    }
}

/// The indent a cell object starts at (the first cell's, else one step in from
/// the cells array's line).
pub fn cell_indent(text: &str, nb: &Notebook) -> String {
    match nb.cells.first() {
        Some(c) => json_doc::indent_at(text, c.node.start).to_string(),
        None => {
            let st = Style::of(text, &nb.root);
            format!(
                "{}{}",
                json_doc::indent_at(text, nb.cells_node.start),
                st.unit.unwrap_or_default()
            )
        }
    }
}

/// One item of a rebuilt cells array: an existing cell's bytes, or new text.
pub enum Item<'a> {
    Keep(&'a Cell),
    New(String),
}

/// The text with the cells array holding `items` in order; an existing cell is
/// copied byte for byte, and the separators are the file's own.
pub fn rebuild(text: &str, nb: &Notebook, items: &[Item]) -> String {
    let arr = &nb.cells_node;
    let st = Style::of(text, &nb.root);
    let spans: Vec<(usize, usize)> = nb
        .cells
        .iter()
        .map(|c| (c.node.start, c.node.end))
        .collect();
    let body = if items.is_empty() {
        String::new()
    } else {
        let (lead, trail, seps): (String, String, Vec<&str>) = match (spans.first(), spans.last()) {
            (Some(f), Some(l)) => (
                text[arr.start + 1..f.0].to_string(),
                text[l.1..arr.end - 1].to_string(),
                spans.windows(2).map(|w| &text[w[0].1..w[1].0]).collect(),
            ),
            _ => match &st.unit {
                Some(_) => (
                    format!("{}{}", st.nl, cell_indent(text, nb)),
                    format!("{}{}", st.nl, json_doc::indent_at(text, arr.start)),
                    Vec::new(),
                ),
                None => (String::new(), String::new(), Vec::new()),
            },
        };
        let fallback = match &st.unit {
            Some(_) => format!(",{}{}", st.nl, cell_indent(text, nb)),
            None => st.inline_sep.clone(),
        };
        let mut out = lead;
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(
                    seps.get(i - 1)
                        .or(seps.last())
                        .copied()
                        .unwrap_or(&fallback),
                );
            }
            match it {
                Item::Keep(c) => out.push_str(&text[c.node.start..c.node.end]),
                Item::New(t) => out.push_str(t),
            }
        }
        out.push_str(&trail);
        out
    };
    let mut out = String::with_capacity(text.len() + body.len());
    out.push_str(&text[..arr.start + 1]);
    out.push_str(&body);
    out.push_str(&text[arr.end - 1..]);
    out
}

/// A fresh cell id (8 hex digits, as nbformat's own) that no cell has: drawn
/// from `salt` (the seed under `AITOOLS_SEED`, else the clock and process).
pub fn new_id(nb: &Notebook, salt: &str) -> String {
    (0u32..)
        .map(|k| crate::text::lines::sha256_hex(format!("{salt}:{k}").as_bytes())[..8].to_string())
        .find(|id| nb.cells.iter().all(|c| c.id.as_deref() != Some(id)))
        .unwrap_or_else(|| "cell".to_string())
}

/// The text with `cell` turned into a cell of type `ty` whose source is `src`
/// (None: its source's bytes kept). Its other members keep their order and
/// bytes; `cell_type` is set; a cell that becomes markdown or raw loses
/// `outputs` and `execution_count`, one that becomes code gets them (`[]`,
/// `null`, at their sorted place) and loses `attachments`, which nbformat allows
/// only on markdown and raw cells. Also the members dropped that held something
/// (outputs not empty, a count not null, attachments).
pub fn retype(
    text: &str,
    nb: &Notebook,
    cell: &Cell,
    ty: CellType,
    src: Option<&str>,
) -> (String, Vec<&'static str>) {
    let st = Style::of(text, &nb.root);
    let json_doc::Kind::Obj(members) = &cell.node.kind else {
        return (text.to_string(), Vec::new());
    };
    let inner = members.first().map_or_else(
        || {
            format!(
                "{}{}",
                json_doc::indent_at(text, cell.node.start),
                st.unit.clone().unwrap_or_default()
            )
        },
        |m| json_doc::indent_at(text, m.key_start).to_string(),
    );
    let mut dropped = Vec::new();
    let mut out: Vec<(String, String)> = Vec::new();
    for m in members {
        let v = &m.value;
        let held = !matches!(&v.kind, json_doc::Kind::Null)
            && !matches!(&v.kind, json_doc::Kind::Arr(a) if a.is_empty())
            && !matches!(&v.kind, json_doc::Kind::Obj(o) if o.is_empty());
        let value = match m.key.as_str() {
            "cell_type" => quote(ty.name()),
            k @ ("outputs" | "execution_count") if ty != CellType::Code => {
                if held {
                    dropped.push(if k == "outputs" {
                        "outputs"
                    } else {
                        "execution_count"
                    });
                }
                continue;
            }
            "attachments" if ty == CellType::Code => {
                if held {
                    dropped.push("attachments");
                }
                continue;
            }
            "source" if src.is_some() => {
                let as_list = !matches!(v.kind, json_doc::Kind::Str(_));
                source_value(src.unwrap_or_default(), as_list, &st, &inner)
            }
            _ => text[v.start..v.end].to_string(),
        };
        out.push((m.key.clone(), value));
    }
    if ty == CellType::Code {
        for (k, v) in [("execution_count", "null"), ("outputs", "[]")] {
            if out.iter().all(|(key, _)| key != k) {
                let at = out
                    .iter()
                    .position(|(key, _)| key.as_str() > k)
                    .unwrap_or(out.len());
                out.insert(at, (k.to_string(), v.to_string()));
            }
        }
    }
    let body: Vec<String> = out
        .iter()
        .map(|(k, v)| format!("{}{}{v}", quote(k), st.kv))
        .collect();
    let new = match &st.unit {
        Some(_) => {
            let ind = json_doc::indent_at(text, cell.node.start);
            let lead = format!("{}{inner}", st.nl);
            format!("{{{lead}{}{}{ind}}}", body.join(&format!(",{lead}")), st.nl)
        }
        None => format!("{{{}}}", body.join(&st.inline_sep)),
    };
    let splice = json_doc::Splice {
        at: cell.node.start,
        end: cell.node.end,
        with: new,
    };
    (apply_all(text, vec![splice]), dropped)
}

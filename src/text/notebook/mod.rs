//! Jupyter notebooks (nbformat 4) over `json_doc`'s spans: the check that a JSON
//! text is a notebook (the parts of the nbformat 4 schema a reader and an editor
//! rely on), the cells with where each sits in the text, and the map from a JSON
//! line to the cell and cell line it shows (`search`). Edits are splices of the
//! text (`edit`), so the cells a change does not name keep their bytes.

use super::json_doc::{self, Kind, Member, Node};

pub mod edit;
pub mod shown;

/// A cell's kind (nbformat's `cell_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellType {
    Code,
    Markdown,
    Raw,
}

impl CellType {
    pub fn name(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
            CellType::Raw => "raw",
        }
    }

    pub fn parse(s: &str) -> Option<CellType> {
        match s {
            "code" => Some(CellType::Code),
            "markdown" => Some(CellType::Markdown),
            "raw" => Some(CellType::Raw),
            _ => None,
        }
    }
}

/// One cell: what it holds and where its parts sit in the text.
#[derive(Debug, Clone)]
pub struct Cell {
    pub index: usize,
    pub id: Option<String>,
    pub cell_type: CellType,
    /// The whole cell object.
    pub node: Node,
    /// The `source` value, and its text joined.
    pub source_node: Node,
    pub source: String,
    /// Code cells: the `outputs` and `execution_count` values.
    pub outputs: Option<Node>,
    pub execution_count: Option<Node>,
}

impl Cell {
    /// `execution_count` as a number, when it is one.
    pub fn count(&self, text: &str) -> Option<i64> {
        self.execution_count
            .as_ref()
            .and_then(|n| text[n.start..n.end].parse().ok())
    }

    /// Whether the cell holds outputs or an execution count a code edit clears.
    pub fn has_run_state(&self) -> bool {
        let outs = self
            .outputs
            .as_ref()
            .is_some_and(|n| matches!(&n.kind, Kind::Arr(a) if !a.is_empty()));
        let count = self
            .execution_count
            .as_ref()
            .is_some_and(|n| !matches!(n.kind, Kind::Null));
        outs || count
    }
}

/// A parsed notebook: the document, its version and its cells.
#[derive(Debug, Clone)]
pub struct Notebook {
    pub root: Node,
    pub major: u64,
    pub minor: u64,
    /// The `cells` array.
    pub cells_node: Node,
    pub cells: Vec<Cell>,
    /// The kernel's language (`metadata.kernelspec.language`, else
    /// `metadata.language_info.name`).
    pub language: Option<String>,
}

/// Why a text is not a notebook this module reads.
#[derive(Debug, Clone)]
pub enum NbError {
    /// Not JSON at all.
    Json(json_doc::SyntaxError),
    /// JSON, but an nbformat other than 4 (`found` as written).
    Version { found: String },
    /// nbformat 4 with a part missing or of the wrong type: where (an RFC 6901
    /// pointer and the line), why, and the value that would repair it when one
    /// is obvious (JSON text for `json set --create`).
    Invalid {
        pointer: String,
        line: usize,
        why: String,
        fix: Option<String>,
    },
}

impl Notebook {
    /// Parses and checks `text` (no BOM).
    pub fn parse(text: &str) -> Result<Notebook, NbError> {
        let root = json_doc::parse(text).map_err(NbError::Json)?;
        let bad = |n: &Node, pointer: &str, why: String, fix: Option<&str>| NbError::Invalid {
            pointer: pointer.to_string(),
            line: json_doc::line_col(text, n.start).0,
            why,
            fix: fix.map(str::to_string),
        };
        let Kind::Obj(_) = &root.kind else {
            return Err(bad(&root, "", "the document is not an object".into(), None));
        };
        let minor = version(text, &root, &bad)?;
        require_metadata(&root, &bad)?;
        let cells_node = match root.member("cells") {
            Some(n) if matches!(n.kind, Kind::Arr(_)) => n.clone(),
            Some(n) => return Err(bad(n, "/cells", "cells is not an array".into(), None)),
            None => {
                return Err(bad(
                    &root,
                    "/cells",
                    "it has no cells member".into(),
                    Some("[]"),
                ));
            }
        };
        let cells = cells_of(text, &cells_node, minor, &bad)?;
        let language = str_at(&root, &["metadata", "kernelspec", "language"])
            .or_else(|| str_at(&root, &["metadata", "language_info", "name"]));
        Ok(Notebook {
            root,
            major: 4,
            minor,
            cells_node,
            cells,
            language,
        })
    }

    /// Cells carry ids from nbformat 4.5 on (and must not before).
    pub fn wants_ids(&self) -> bool {
        self.minor >= 5
    }

    /// The cell a CELL argument names: an id, else a 0-based index. Err holds
    /// the cells it could have meant (both, when digits are an index of one
    /// cell and the id of another).
    pub fn find(&self, arg: &str) -> Result<&Cell, Vec<&Cell>> {
        let by_id = self.cells.iter().find(|c| c.id.as_deref() == Some(arg));
        let by_index = if !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_digit()) {
            arg.parse::<usize>().ok().and_then(|i| self.cells.get(i))
        } else {
            None
        };
        match (by_id, by_index) {
            (Some(a), Some(b)) if a.index != b.index => Err(vec![a, b]),
            (Some(a), _) => Ok(a),
            (None, Some(b)) => Ok(b),
            (None, None) => Err(Vec::new()),
        }
    }

    /// The cell and the 1-based line within its source that JSON line `line`
    /// (1-based) of `text` shows; the line is None when the JSON line is not
    /// one line of the cell's source (outputs, metadata, a one-string source).
    pub fn locate(&self, text: &str, line: u64) -> Option<(&Cell, Part)> {
        let starts = line_starts(text);
        let at = *starts.get((line as usize).checked_sub(1)?)?;
        let end = starts.get(line as usize).copied().unwrap_or(text.len());
        let cell = self
            .cells
            .iter()
            .find(|c| c.node.start < end && at < c.node.end)?;
        let in_span = |n: &Node| n.start < end && at < n.end;
        if let Kind::Arr(items) = &cell.source_node.kind {
            if let Some(k) = items.iter().position(in_span) {
                // Elements before k can hold more than one line each only when
                // they break nbformat's one-line-per-element habit; count them.
                let before: usize = items[..k]
                    .iter()
                    .map(|n| match &n.kind {
                        Kind::Str(s) => split_lines(s).len().max(1),
                        _ => 1,
                    })
                    .sum();
                return Some((cell, Part::Source(before as u64 + 1)));
            }
        } else if in_span(&cell.source_node) {
            return Some((cell, Part::Source(1)));
        }
        if cell.outputs.as_ref().is_some_and(in_span) {
            return Some((cell, Part::Outputs));
        }
        Some((cell, Part::Other))
    }
}

/// Where in a cell a JSON line falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A line of the source (1-based).
    Source(u64),
    Outputs,
    /// The cell's other members (metadata, id, type).
    Other,
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|p| p + 1));
    v
}

fn str_at(root: &Node, path: &[&str]) -> Option<String> {
    let mut n = root;
    for k in path {
        n = n.member(k)?;
    }
    match &n.kind {
        Kind::Str(s) => Some(s.clone()),
        _ => None,
    }
}

/// A multiline string (a string, or an array of strings) joined.
pub fn joined(n: &Node) -> Option<String> {
    match &n.kind {
        Kind::Str(s) => Some(s.clone()),
        Kind::Arr(items) => {
            let mut out = String::new();
            for i in items {
                let Kind::Str(s) = &i.kind else {
                    return None;
                };
                out.push_str(s);
            }
            Some(out)
        }
        _ => None,
    }
}

/// Python's `str.splitlines(True)`, which nbformat uses to store a source as
/// lines: each piece keeps its line end.
pub fn split_lines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let end = match c {
            '\r' => match it.peek() {
                Some((_, '\n')) => {
                    it.next();
                    i + 2
                }
                _ => i + 1,
            },
            '\n' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        out.push(&s[start..end]);
        start = end;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// The nbformat version of `root`: 4 or an error; the minor version.
fn version(text: &str, root: &Node, bad: &Bad) -> Result<u64, NbError> {
    let major = match root.member("nbformat") {
        Some(n) if matches!(n.kind, Kind::Num) => text[n.start..n.end].to_string(),
        Some(n) => {
            return Err(bad(n, "/nbformat", "nbformat is not a number".into(), None));
        }
        None => {
            return Err(bad(
                root,
                "/nbformat",
                "it has no nbformat member".into(),
                Some("4"),
            ));
        }
    };
    if major != "4" {
        return Err(NbError::Version { found: major });
    }
    match root.member("nbformat_minor") {
        Some(n) => text[n.start..n.end].parse::<u64>().map_err(|_| {
            bad(
                n,
                "/nbformat_minor",
                "nbformat_minor is not a whole number".into(),
                None,
            )
        }),
        None => Err(bad(
            root,
            "/nbformat_minor",
            "it has no nbformat_minor member".into(),
            Some("5"),
        )),
    }
}

/// The top-level `metadata` must be an object.
fn require_metadata(root: &Node, bad: &Bad) -> Result<(), NbError> {
    match root.member("metadata") {
        Some(n) if matches!(n.kind, Kind::Obj(_)) => Ok(()),
        Some(n) => Err(bad(
            n,
            "/metadata",
            "metadata is not an object".into(),
            None,
        )),
        None => Err(bad(
            root,
            "/metadata",
            "it has no metadata member".into(),
            Some("{}"),
        )),
    }
}

/// The cells of the `cells` array, each checked, their ids unique.
fn cells_of(text: &str, cells_node: &Node, minor: u64, bad: &Bad) -> Result<Vec<Cell>, NbError> {
    let Kind::Arr(items) = &cells_node.kind else {
        return Err(bad(
            cells_node,
            "/cells",
            "cells is not an array".into(),
            None,
        ));
    };
    let mut cells = Vec::with_capacity(items.len());
    let mut ids: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (index, n) in items.iter().enumerate() {
        let cell = cell_of(text, index, n, minor, bad)?;
        if let Some(id) = &cell.id
            && !ids.insert(id.clone())
        {
            return Err(bad(
                n,
                &format!("/cells/{index}/id"),
                format!("cell id {id:?} is used by an earlier cell too"),
                None,
            ));
        }
        cells.push(cell);
    }
    Ok(cells)
}

type Bad<'f> = dyn Fn(&Node, &str, String, Option<&str>) -> NbError + 'f;

fn cell_of(text: &str, index: usize, n: &Node, minor: u64, bad: &Bad) -> Result<Cell, NbError> {
    let at = |k: &str| format!("/cells/{index}/{k}");
    let Kind::Obj(members) = &n.kind else {
        return Err(bad(
            n,
            &format!("/cells/{index}"),
            format!("cell {index} is not an object"),
            None,
        ));
    };
    let member = |k: &str| members.iter().rev().find(|m: &&Member| m.key == k);
    let cell_type = cell_type_of(index, n, member("cell_type"), bad)?;
    match member("metadata").map(|m| &m.value.kind) {
        Some(Kind::Obj(_)) => {}
        _ => {
            return Err(bad(
                n,
                &at("metadata"),
                format!("cell {index} has no metadata object"),
                Some("{}"),
            ));
        }
    }
    let source_node = member("source").map(|m| m.value.clone()).ok_or_else(|| {
        bad(
            n,
            &at("source"),
            format!("cell {index} has no source"),
            Some("[]"),
        )
    })?;
    let source = joined(&source_node).ok_or_else(|| {
        bad(
            &source_node,
            &at("source"),
            format!("cell {index}'s source is not a string or an array of strings"),
            None,
        )
    })?;
    let id = id_of(index, n, member("id"), minor, bad)?;
    let (outputs, execution_count) = if cell_type == CellType::Code {
        let (o, e) = (member("outputs"), member("execution_count"));
        run_state(text, index, n, o, e, bad)?
    } else if member("outputs").is_some() || member("execution_count").is_some() {
        return Err(bad(
            n,
            &at("outputs"),
            format!(
                "{} cell {index} has outputs or an execution_count (only code cells do)",
                cell_type.name()
            ),
            None,
        ));
    } else {
        (None, None)
    };
    Ok(Cell {
        index,
        id,
        cell_type,
        node: n.clone(),
        source_node,
        source,
        outputs,
        execution_count,
    })
}

/// Cell `index`'s `cell_type` (its member `m`): code, markdown or raw.
fn cell_type_of(
    index: usize,
    n: &Node,
    m: Option<&Member>,
    bad: &Bad,
) -> Result<CellType, NbError> {
    let at = format!("/cells/{index}/cell_type");
    match m.map(|m| &m.value) {
        Some(Node {
            kind: Kind::Str(s), ..
        }) => CellType::parse(s).ok_or_else(|| {
            bad(
                n,
                &at,
                format!("cell {index} has cell_type {s:?} (code, markdown or raw)"),
                None,
            )
        }),
        _ => Err(bad(
            n,
            &at,
            format!("cell {index} has no cell_type string"),
            Some("\"code\""),
        )),
    }
}

/// Cell `index`'s id (its member `m`): valid when present, required from 4.5 on.
fn id_of(
    index: usize,
    n: &Node,
    m: Option<&Member>,
    minor: u64,
    bad: &Bad,
) -> Result<Option<String>, NbError> {
    let at = format!("/cells/{index}/id");
    match m.map(|m| &m.value) {
        Some(Node {
            kind: Kind::Str(s), ..
        }) if valid_id(s) => Ok(Some(s.clone())),
        Some(v) => Err(bad(
            v,
            &at,
            format!("cell {index}'s id is not 1-64 letters, digits, - or _"),
            None,
        )),
        None if minor >= 5 => Err(bad(
            n,
            &at,
            format!("cell {index} has no id (nbformat 4.5 and later need one)"),
            Some(&format!("\"cell-{index}\"")),
        )),
        None => Ok(None),
    }
}

/// Code cell `index`'s `outputs` (each output checked) and `execution_count`
/// (null or a whole number), from their members `o` and `e`.
fn run_state(
    text: &str,
    index: usize,
    n: &Node,
    o: Option<&Member>,
    e: Option<&Member>,
    bad: &Bad,
) -> Result<(Option<Node>, Option<Node>), NbError> {
    let at = |k: &str| format!("/cells/{index}/{k}");
    let Some(
        o @ Node {
            kind: Kind::Arr(outs),
            ..
        },
    ) = o.map(|m| &m.value)
    else {
        return Err(bad(
            n,
            &at("outputs"),
            format!("code cell {index} has no outputs array"),
            Some("[]"),
        ));
    };
    for (k, out) in outs.iter().enumerate() {
        check_output(text, index, k, out, bad)?;
    }
    let e = e.map(|m| &m.value);
    match e {
        Some(e) if matches!(e.kind, Kind::Null) => {}
        Some(e) if matches!(e.kind, Kind::Num) && text[e.start..e.end].parse::<u64>().is_ok() => {}
        _ => {
            return Err(bad(
                n,
                &at("execution_count"),
                format!("code cell {index} has no execution_count (null or a whole number)"),
                Some("null"),
            ));
        }
    }
    Ok((Some(o.clone()), e.cloned()))
}

fn check_output(text: &str, cell: usize, k: usize, out: &Node, bad: &Bad) -> Result<(), NbError> {
    let _ = text;
    let at = format!("/cells/{cell}/outputs/{k}");
    let ty = match out.member("output_type").map(|n| &n.kind) {
        Some(Kind::Str(s)) => s.as_str(),
        _ => {
            return Err(bad(
                out,
                &at,
                format!("output {k} of cell {cell} has no output_type"),
                None,
            ));
        }
    };
    let needs: &[&str] = match ty {
        "stream" => &["name", "text"],
        "display_data" => &["data", "metadata"],
        "execute_result" => &["data", "metadata", "execution_count"],
        "error" => &["ename", "evalue", "traceback"],
        _ => {
            return Err(bad(
                out,
                &at,
                format!(
                    "output {k} of cell {cell} has output_type {ty:?} (stream, display_data, execute_result or error)"
                ),
                None,
            ));
        }
    };
    match needs.iter().find(|m| out.member(m).is_none()) {
        Some(m) => Err(bad(
            out,
            &format!("{at}/{m}"),
            format!("{ty} output {k} of cell {cell} has no {m}"),
            None,
        )),
        None => Ok(()),
    }
}

/// nbformat's cell id rule: 1 to 64 of `[a-zA-Z0-9-_]`.
pub fn valid_id(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests;

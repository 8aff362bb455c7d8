//! The table formats that are not RFC 4180: JSON Lines and a JSON array of
//! rows (cells keep their JSON values), whitespace-separated columns (awk's
//! fields, `--ws-columns` keeping the rest of the line in the last one), a
//! fixed separator string (cut -d), and one line per row.

use super::parse::{Cell, Record};
use crate::protocol::Json;
use crate::text::json_doc::{self, Kind, Node};

/// Why the text is not a table of this format.
pub enum Bad {
    /// Not valid text of the format: the line and what was found.
    Syntax { line: usize, why: String },
    /// Valid, but not rows: what was found instead, and the pointer of an
    /// array of rows inside it when there is one.
    Shape(String, Option<String>),
}

fn cell(value: &str, start: usize) -> Cell {
    Cell {
        value: value.to_string(),
        start,
        end: start + value.len(),
        quoted: false,
        json: None,
    }
}

/// The non-blank lines of `text`: (1-based line number, byte offset, line
/// without its LF or CR LF).
fn lines(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n')
        .enumerate()
        .filter_map(move |(n, raw)| {
            let start = at;
            at += raw.len();
            let l = raw.strip_suffix('\n').unwrap_or(raw);
            let l = l.strip_suffix('\r').unwrap_or(l);
            (!l.trim().is_empty()).then_some((n + 1, start, l))
        })
}

/// Whitespace runs split each line (leading and trailing runs ignored); with
/// `max` the line splits into at most that many fields, the last keeping the
/// rest of the line from its first non-blank character (Python's
/// `str.split(None, max - 1)`).
pub fn ws(text: &str, max: Option<usize>) -> Vec<Record> {
    lines(text)
        .map(|(line, start, l)| {
            let mut cells = Vec::new();
            let mut rest = l;
            let mut off = start;
            loop {
                let trimmed = rest.trim_start();
                off += rest.len() - trimmed.len();
                rest = trimmed;
                if rest.is_empty() {
                    break;
                }
                if max.is_some_and(|m| cells.len() + 1 >= m) {
                    cells.push(cell(rest, off));
                    break;
                }
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                cells.push(cell(&rest[..end], off));
                off += end;
                rest = &rest[end..];
            }
            Record { cells, line }
        })
        .collect()
}

/// Each line split on every occurrence of `sep` (no quoting).
pub fn sep(text: &str, sep: &str) -> Vec<Record> {
    lines(text)
        .map(|(line, start, l)| {
            let mut off = start;
            let cells = l
                .split(sep)
                .map(|v| {
                    let c = cell(v, off);
                    off += v.len() + sep.len();
                    c
                })
                .collect();
            Record { cells, line }
        })
        .collect()
}

/// One row per non-blank line, the line its only cell.
pub fn whole_lines(text: &str) -> Vec<Record> {
    lines(text)
        .map(|(line, start, l)| Record {
            cells: vec![cell(l, start)],
            line,
        })
        .collect()
}

/// A JSON value's text as a cell compares and groups: a string's own text,
/// "" for null, a number as written, nested values as compact JSON.
fn text_of(j: &Json) -> String {
    match j {
        Json::Null => String::new(),
        Json::Str(s) => s.clone(),
        Json::Bool(b) => b.to_string(),
        Json::Int(i) => i.to_string(),
        Json::UInt(u) => u.to_string(),
        Json::Number(n) => n.clone(),
        other => other.to_string_compact(),
    }
}

fn json_cell(j: Json, line: usize) -> Cell {
    Cell {
        value: text_of(&j),
        start: line,
        end: line,
        quoted: false,
        json: Some(j),
    }
}

/// One element as a row: an object's members by name (`names` grows with
/// keys first seen here), an array's elements by position, a scalar alone.
fn row_of(n: &Node, src: &str, line: usize, names: &mut Option<Vec<String>>) -> Record {
    let cells = match (&n.kind, names.as_mut()) {
        (Kind::Obj(members), Some(names)) => {
            let mut cells: Vec<Cell> = names.iter().map(|_| json_cell(Json::Null, line)).collect();
            for m in members {
                let i = match names.iter().position(|k| *k == m.key) {
                    Some(i) => i,
                    None => {
                        names.push(m.key.clone());
                        cells.push(json_cell(Json::Null, line));
                        names.len() - 1
                    }
                };
                cells[i] = json_cell(m.value.to_json(src), line);
            }
            cells
        }
        (Kind::Arr(items), _) => items
            .iter()
            .map(|x| json_cell(x.to_json(src), line))
            .collect(),
        _ => vec![json_cell(n.to_json(src), line)],
    };
    Record { cells, line }
}

/// Rows of JSON elements: a table of objects when the first is an object
/// (every element must be one; `Some` names its columns), else of arrays or
/// scalars by position (`None`: the header is guessed as for CSV).
fn table_of(elems: &[(usize, &Node, &str)]) -> Result<(Option<Vec<String>>, Vec<Record>), Bad> {
    let objects = elems
        .first()
        .is_some_and(|(_, n, _)| matches!(n.kind, Kind::Obj(_)));
    let mut names = objects.then(Vec::new);
    let mut rows = Vec::with_capacity(elems.len());
    for (i, (line, n, src)) in elems.iter().enumerate() {
        if objects != matches!(n.kind, Kind::Obj(_)) {
            return Err(Bad::Shape(
                format!(
                    "row {} (line {line}) is {} where row 1 is {}: every row must be of one kind",
                    i + 1,
                    json_doc::with_article(n.type_name()),
                    json_doc::with_article(elems[0].1.type_name()),
                ),
                None,
            ));
        }
        rows.push(row_of(n, src, *line, &mut names));
    }
    Ok((names, rows))
}

fn syntax(e: &json_doc::SyntaxError, first_line: usize) -> Bad {
    Bad::Syntax {
        line: first_line + e.line - 1,
        why: format!("column {}: {}", e.column, e.message),
    }
}

/// JSON Lines: one JSON value per non-blank line.
pub fn jsonl(text: &str) -> Result<(Option<Vec<String>>, Vec<Record>), Bad> {
    let mut parsed = Vec::new();
    for (line, _, l) in lines(text) {
        let n = json_doc::parse(l).map_err(|e| syntax(&e, line))?;
        parsed.push((line, n, l));
    }
    let elems: Vec<(usize, &Node, &str)> = parsed.iter().map(|(l, n, s)| (*l, n, *s)).collect();
    table_of(&elems)
}

/// A JSON document whose array of rows sits at `pointer` (default: the root).
pub fn json(text: &str, pointer: &str) -> Result<(Option<Vec<String>>, Vec<Record>), Bad> {
    let root = json_doc::parse(text).map_err(|e| syntax(&e, 1))?;
    let tokens = json_doc::parse_pointer(pointer).map_err(|e| Bad::Shape(e, None))?;
    let n = json_doc::lookup(&root, &tokens).map_err(|k| {
        Bad::Shape(
            format!(
                "--pointer {pointer:?} leads nowhere: {} has no {:?}",
                if k == 0 {
                    "the document".to_string()
                } else {
                    json_doc::pointer_of(&tokens[..k])
                },
                tokens[k]
            ),
            None,
        )
    })?;
    let Kind::Arr(items) = &n.kind else {
        let arrays = array_pointers(n, &tokens);
        let hint = if arrays.is_empty() {
            String::new()
        } else {
            format!("; arrays inside it: {}", arrays.join(", "))
        };
        return Err(Bad::Shape(
            format!(
                "{} is {}, not an array of rows{hint}",
                if tokens.is_empty() {
                    "the document".to_string()
                } else {
                    json_doc::pointer_of(&tokens)
                },
                json_doc::with_article(n.type_name())
            ),
            arrays.into_iter().next(),
        ));
    };
    let elems: Vec<(usize, &Node, &str)> = items
        .iter()
        .map(|x| (json_doc::line_col(text, x.start).0, x, text))
        .collect();
    table_of(&elems)
}

/// The pointers of the arrays among an object's members (at most 10).
fn array_pointers(n: &Node, base: &[String]) -> Vec<String> {
    let Kind::Obj(members) = &n.kind else {
        return Vec::new();
    };
    members
        .iter()
        .filter(|m| matches!(m.value.kind, Kind::Arr(_)))
        .take(10)
        .map(|m| {
            let mut t = base.to_vec();
            t.push(m.key.clone());
            json_doc::pointer_of(&t)
        })
        .collect()
}

/// A JSON value's type as a column reports it.
pub fn json_type(j: &Json) -> &'static str {
    match j {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Int(_) | Json::UInt(_) => "integer",
        Json::Number(t) if super::parse::is_integer(t) => "integer",
        Json::Number(_) | Json::Float(_) => "number",
        Json::Str(_) => "string",
        Json::Arr(_) | Json::Obj(_) => "mixed",
    }
}

/// The type of a column of JSON cells: their one type (integers within
/// numbers count as numbers), mixed when they differ, null when all are null.
pub fn json_column_type<'a>(cells: impl Iterator<Item = Option<&'a Json>>) -> &'static str {
    let mut t = "null";
    for c in cells.flatten() {
        t = match (t, json_type(c)) {
            (_, "null") => t,
            ("null", x) => x,
            (a, b) if a == b => a,
            ("integer", "number") | ("number", "integer") => "number",
            _ => "mixed",
        };
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(r: &[Record]) -> Vec<Vec<&str>> {
        r.iter()
            .map(|r| r.cells.iter().map(|c| c.value.as_str()).collect())
            .collect()
    }

    #[test]
    fn ws_splits_like_python() {
        let t = "  a  b   c d \n\nx\ty\r\n";
        assert_eq!(
            vals(&ws(t, None)),
            vec![vec!["a", "b", "c", "d"], vec!["x", "y"]]
        );
        assert_eq!(
            vals(&ws(t, Some(2))),
            vec![vec!["a", "b   c d "], vec!["x", "y"]]
        );
        let r = ws(t, Some(2));
        assert_eq!(&t[r[0].cells[1].start..r[0].cells[1].end], "b   c d ");
    }

    #[test]
    fn sep_and_lines() {
        assert_eq!(
            vals(&sep("a::b::\nc\n", "::")),
            vec![vec!["a", "b", ""], vec!["c"]]
        );
        assert_eq!(
            vals(&whole_lines("a b\n\n c\n")),
            vec![vec!["a b"], vec![" c"]]
        );
    }
}

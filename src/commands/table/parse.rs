//! An RFC 4180 reader for CSV and TSV: records with the byte span of every
//! cell (so `table set` splices one cell and leaves every other byte as it
//! was), quoted cells with doubled quotes, CR LF or LF row ends; the delimiter
//! and header guesses and the column types `table read` reports.

/// One cell: its text (quotes undone) and where its bytes sit.
#[derive(Debug, Clone)]
pub struct Cell {
    pub value: String,
    pub start: usize,
    pub end: usize,
    pub quoted: bool,
    /// A JSON source's value (the cell's text is `value`); None for text formats.
    pub json: Option<crate::protocol::Json>,
}

/// One record: its cells and the line it starts on (1-based).
#[derive(Debug, Clone)]
pub struct Record {
    pub cells: Vec<Cell>,
    pub line: usize,
}

/// Why the text is not a table: the line and what was found.
#[derive(Debug)]
pub struct Broken {
    pub line: usize,
    pub why: String,
}

/// Every record of `text` split on `delim`. Blank lines hold no record.
pub fn records(text: &str, delim: u8) -> Result<Vec<Record>, Broken> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < b.len() {
        if b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) == Some(&b'\n')) {
            i += if b[i] == b'\r' { 2 } else { 1 };
            line += 1;
            continue;
        }
        let first = line;
        let mut cells = Vec::new();
        loop {
            let (cell, next, lines) = cell_at(text, i, delim, line)?;
            line += lines;
            cells.push(cell);
            i = next;
            match b.get(i) {
                Some(&c) if c == delim => i += 1,
                Some(b'\r') if b.get(i + 1) == Some(&b'\n') => {
                    i += 2;
                    line += 1;
                    break;
                }
                Some(b'\n') => {
                    i += 1;
                    line += 1;
                    break;
                }
                None => break,
                Some(_) => {
                    return Err(Broken {
                        line,
                        why: "text follows a closing quote (a quote inside a quoted cell is written twice)".into(),
                    });
                }
            }
            if i == b.len() {
                // A delimiter ends the text: the last cell is empty.
                cells.push(Cell {
                    value: String::new(),
                    start: i,
                    end: i,
                    quoted: false,
                    json: None,
                });
                break;
            }
        }
        out.push(Record { cells, line: first });
    }
    Ok(out)
}

/// The cell starting at byte `i`: it, the byte after it, and the newlines it holds.
fn cell_at(text: &str, i: usize, delim: u8, line: usize) -> Result<(Cell, usize, usize), Broken> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'"') {
        let mut j = i;
        while j < b.len()
            && b[j] != delim
            && b[j] != b'\n'
            && !(b[j] == b'\r' && b.get(j + 1) == Some(&b'\n'))
        {
            j += 1;
        }
        let cell = Cell {
            value: text[i..j].to_string(),
            start: i,
            end: j,
            quoted: false,
            json: None,
        };
        return Ok((cell, j, 0));
    }
    let mut value = String::new();
    let mut j = i + 1;
    let mut lines = 0;
    loop {
        let Some(k) = text[j..].find('"').map(|k| j + k) else {
            return Err(Broken {
                line,
                why: "a quoted cell is never closed".into(),
            });
        };
        lines += text[j..k].matches('\n').count();
        value.push_str(&text[j..k]);
        if b.get(k + 1) == Some(&b'"') {
            value.push('"');
            j = k + 2;
            continue;
        }
        let cell = Cell {
            value,
            start: i,
            end: k + 1,
            quoted: true,
            json: None,
        };
        return Ok((cell, k + 1, lines));
    }
}

/// The delimiter a file's first line suggests: a tab when it has one and no
/// comma outside quotes outnumbers its tabs, else a comma.
pub fn guess_delimiter(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or("");
    let tabs = first.matches('\t').count();
    let commas = first.matches(',').count();
    if tabs > 0 && tabs >= commas {
        b'\t'
    } else {
        b','
    }
}

/// The type a cell's text reads as.
pub fn cell_type(s: &str) -> &'static str {
    if s.is_empty() {
        "null"
    } else if is_integer(s) {
        "integer"
    } else if number(s).is_some() {
        "number"
    } else if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false") {
        "boolean"
    } else {
        "string"
    }
}

/// Optional sign, then ASCII digits.
pub fn is_integer(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())
}

/// A decimal number: sign, digits, an optional fraction and exponent (no inf, nan).
pub fn number(s: &str) -> Option<f64> {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    let ok = d
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == b'.')
        && d.bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'-' | b'+'));
    if !ok {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A column's type over its cells: the one type every non-empty cell has
/// (integers within numbers count as numbers), else string; null when all are empty.
pub fn column_type<'a>(cells: impl Iterator<Item = &'a str>) -> &'static str {
    let mut t = "null";
    for c in cells {
        let ct = cell_type(c);
        t = match (t, ct) {
            (_, "null") => t,
            ("null", x) => x,
            (a, b) if a == b => a,
            ("integer", "number") | ("number", "integer") => "number",
            _ => "string",
        };
        if t == "string" {
            break;
        }
    }
    t
}

/// Whether the first record reads as a header: unique, non-empty, non-numeric cells.
pub fn looks_like_header(first: &Record) -> bool {
    let mut seen: Vec<&str> = Vec::new();
    for c in &first.cells {
        let v = c.value.as_str();
        if v.is_empty() || number(v).is_some() || seen.contains(&v) {
            return false;
        }
        seen.push(v);
    }
    !seen.is_empty()
}

/// A cell's text as written back into a file with `delim`: quoted when it holds
/// the delimiter, a quote, CR or LF (or when the cell it replaces was quoted).
pub fn render_cell(value: &str, delim: u8, quoted: bool) -> String {
    let needs = quoted
        || value
            .bytes()
            .any(|c| c == delim || c == b'"' || c == b'\n' || c == b'\r');
    if needs {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(text: &str, d: u8) -> Vec<Vec<String>> {
        records(text, d)
            .map(|r| {
                r.into_iter()
                    .map(|r| r.cells.into_iter().map(|c| c.value).collect())
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn quotes_newlines_and_row_ends() {
        let t = "a,b\r\n\"x,1\",\"say \"\"hi\"\"\"\n\"two\nlines\",\n";
        assert_eq!(
            vals(t, b','),
            vec![
                vec!["a", "b"],
                vec!["x,1", "say \"hi\""],
                vec!["two\nlines", ""]
            ]
        );
        let r = records(t, b',').unwrap_or_default();
        assert_eq!(r[2].line, 3);
        assert_eq!(&t[r[1].cells[0].start..r[1].cells[0].end], "\"x,1\"");
    }

    #[test]
    fn broken_quotes_are_syntax_errors() {
        assert!(records("a,\"b\n", b',').is_err());
        assert!(records("\"a\"b,c\n", b',').is_err());
    }

    #[test]
    fn guesses() {
        assert_eq!(guess_delimiter("a\tb\tc\n"), b'\t');
        assert_eq!(guess_delimiter("a,b\n"), b',');
        assert_eq!(column_type(["1", "2.5", ""].into_iter()), "number");
        assert_eq!(column_type(["1", "x"].into_iter()), "string");
        assert_eq!(render_cell("a,b", b',', false), "\"a,b\"");
        assert_eq!(render_cell("a,b", b'\t', false), "a,b");
    }
}

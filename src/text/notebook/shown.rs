//! What a reader is shown of a cell's outputs: stream text, a result's
//! `text/plain`, an error's name, value and traceback (terminal colours
//! removed), each cut to a line budget; rich payloads (images, HTML) are named
//! with their size instead of shown ("image/png 12 KB").

use super::{Cell, joined};
use crate::protocol::Json;
use crate::text::json_doc::{Kind, Node};

/// The longest output line shown, in characters.
const MAX_LINE_CHARS: usize = 400;

/// The outputs of `cell` in at most `max_lines` lines of text; the second value
/// is how many lines were left out.
pub fn outputs(cell: &Cell, max_lines: usize) -> (Vec<Json>, usize) {
    let Some(Node {
        kind: Kind::Arr(outs),
        ..
    }) = &cell.outputs
    else {
        return (Vec::new(), 0);
    };
    let mut left = max_lines;
    let mut cut = 0usize;
    let mut shown = Vec::new();
    for o in outs {
        let ty = match o.member("output_type").map(|n| &n.kind) {
            Some(Kind::Str(s)) => s.as_str(),
            _ => continue,
        };
        let mut j = Json::obj();
        j.push("type", Json::str(ty));
        let mut take = |j: &mut Json, key: &str, text: &str| {
            let lines: Vec<&str> = text.lines().collect();
            let n = lines.len().min(left);
            left -= n;
            cut += lines.len() - n;
            j.push(
                key,
                Json::Arr(lines[..n].iter().map(|l| Json::str(line(l))).collect()),
            );
        };
        match ty {
            "stream" => {
                if let Some(Kind::Str(name)) = o.member("name").map(|n| &n.kind) {
                    j.push("name", Json::str(name.clone()));
                }
                let text = o.member("text").and_then(joined).unwrap_or_default();
                take(&mut j, "text", &text);
            }
            "execute_result" | "display_data" => {
                let mut others = Vec::new();
                if let Some(Node {
                    kind: Kind::Obj(data),
                    ..
                }) = o.member("data")
                {
                    for m in data {
                        if m.key == "text/plain" {
                            let text = joined(&m.value).unwrap_or_default();
                            take(&mut j, "text", &text);
                        } else {
                            others.push(Json::str(format!(
                                "{} {}",
                                m.key,
                                size_of(&m.key, &m.value)
                            )));
                        }
                    }
                }
                if !others.is_empty() {
                    j.push("data", Json::Arr(others));
                }
            }
            "error" => {
                let s = |k: &str| match o.member(k).map(|n| &n.kind) {
                    Some(Kind::Str(s)) => s.clone(),
                    _ => String::new(),
                };
                j.push(
                    "error",
                    Json::str(format!("{}: {}", s("ename"), s("evalue"))),
                );
                let tb = o
                    .member("traceback")
                    .map(|n| match &n.kind {
                        Kind::Arr(a) => a
                            .iter()
                            .filter_map(|x| match &x.kind {
                                Kind::Str(s) => Some(strip_ansi(s)),
                                _ => None,
                            })
                            .collect::<Vec<_>>()
                            .join("\n"),
                        _ => String::new(),
                    })
                    .unwrap_or_default();
                take(&mut j, "traceback", &tb);
            }
            _ => {}
        }
        shown.push(j);
    }
    (shown, cut)
}

/// A line cut to `MAX_LINE_CHARS`.
fn line(l: &str) -> String {
    match l.char_indices().nth(MAX_LINE_CHARS) {
        Some((i, _)) => format!("{}…", &l[..i]),
        None => l.to_string(),
    }
}

/// A payload's size as a reader would say it: base64 images by their decoded
/// bytes.
fn size_of(mime: &str, v: &Node) -> String {
    let text = joined(v).unwrap_or_default();
    let binary = mime.starts_with("image/") && mime != "image/svg+xml" || mime == "application/pdf";
    let n = if binary {
        let b64 = text.bytes().filter(|b| !b.is_ascii_whitespace()).count();
        b64 / 4 * 3
    } else if text.is_empty() {
        // A JSON payload (application/json, widget state).
        v.end - v.start
    } else {
        text.len()
    };
    human(n)
}

/// 512 B, 12 KB, 3.4 MB.
pub fn human(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{} KB", (n + 512) / 1024)
    } else {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    }
}

/// Text without terminal escape sequences (IPython colours its tracebacks).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\u{1b}' {
            if it.peek() == Some(&'[') {
                it.next();
                for d in it.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// A cell's source as lines without their ends (what a reader numbers).
pub fn source_lines(cell: &Cell) -> Vec<String> {
    super::split_lines(&cell.source)
        .iter()
        .map(|l| l.trim_end_matches(['\n', '\r']).to_string())
        .collect()
}

//! V4A patches (the `*** Begin Patch` format Codex's apply_patch reads): parsing
//! into file operations, and placing an update's chunks in a document. A chunk has
//! no line numbers: its `@@` anchors (several nest: `@@ class A` then `@@ def f`)
//! are found in order from where the previous chunk ended, then its context and
//! removed lines after the last anchor — exactly, then ignoring trailing
//! whitespace, then ignoring leading and trailing whitespace (edit --old's
//! tolerance), then also reading typographic quotes, dashes and spaces as ASCII. `*** End of File` looks at the file's end first. A chunk placed
//! becomes an ordinary hunk whose old lines are the file's own, so applying it
//! is the unified diff path (line endings, BOM) with no fuzz.

use super::patch::{Hunk, HunkLine, Kind};
use crate::text::doc::Doc;

/// One `*** ... File:` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Add {
        path: String,
        lines: Vec<String>,
    },
    Delete {
        path: String,
    },
    Update {
        path: String,
        move_to: Option<String>,
        chunks: Vec<Chunk>,
    },
}

/// An update's change: anchors, then ` `/`-`/`+` lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chunk {
    pub anchors: Vec<String>,
    pub lines: Vec<(Kind, String)>,
    /// `*** End of File` followed it: the old lines end the file.
    pub eof: bool,
}

/// Whether `input` is a V4A patch (its first non-blank line, past an optional
/// heredoc opener, is `*** Begin Patch`).
pub fn looks_like(input: &str) -> bool {
    let mut it = input.lines().map(str::trim).filter(|l| !l.is_empty());
    match it.next() {
        Some(l) if l.starts_with("<<") => it.next() == Some("*** Begin Patch"),
        Some(l) => l == "*** Begin Patch",
        None => false,
    }
}

/// Parses a patch; the error names the patch line (1-based) that is wrong.
pub fn parse(input: &str) -> Result<Vec<Op>, String> {
    let all: Vec<&str> = input
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let (first, last) = envelope(&all)?;
    let mut ops: Vec<Op> = Vec::new();
    let mut i = first + 1;
    while i < last {
        let raw = all.get(i).copied().unwrap_or("");
        let line = raw.trim();
        if line.is_empty() {
            i += 1;
            continue;
        }
        let at = i + 1;
        if let Some(p) = line.strip_prefix("*** Add File:") {
            let path = header_path(p, at)?;
            let (lines, next) = added_lines(&all, i + 1, last)?;
            i = next;
            ops.push(Op::Add { path, lines });
        } else if let Some(p) = line.strip_prefix("*** Delete File:") {
            ops.push(Op::Delete {
                path: header_path(p, at)?,
            });
            i += 1;
        } else if let Some(p) = line.strip_prefix("*** Update File:") {
            let path = header_path(p, at)?;
            i += 1;
            let mut move_to = None;
            if let Some(q) = all
                .get(i)
                .and_then(|l| l.trim().strip_prefix("*** Move to:"))
            {
                move_to = Some(header_path(q, i + 1)?);
                i += 1;
            }
            let (chunks, used) = parse_chunks(&all, i, last)?;
            i += used;
            if chunks.is_empty() && move_to.is_none() {
                return Err(format!(
                    "line {at}: *** Update File: {path} changes nothing."
                ));
            }
            ops.push(Op::Update {
                path,
                move_to,
                chunks,
            });
        } else {
            return Err(format!(
                "line {at}: {line:?} is not a file header (*** Add File:, *** Update File:, *** Delete File:)."
            ));
        }
    }
    if ops.is_empty() {
        return Err("the patch names no file.".into());
    }
    Ok(ops)
}

/// The lines of the patch between its `*** Begin Patch` and `*** End Patch`
/// (those two lines' indexes), a shell heredoc's `<<'EOF'` ... `EOF` around it
/// set aside.
fn envelope(all: &[&str]) -> Result<(usize, usize), String> {
    // Line numbers of the non-blank first and last lines.
    let first = all.iter().position(|l| !l.trim().is_empty());
    let last = all.iter().rposition(|l| !l.trim().is_empty());
    let (Some(mut first), Some(mut last)) = (first, last) else {
        return Err("the patch is empty.".into());
    };
    // `<<'EOF'` ... `EOF` around the patch (a shell heredoc copied whole).
    if all.get(first).is_some_and(|l| l.trim().starts_with("<<")) && last > first {
        first += 1;
        last -= 1;
        while first < last && all.get(first).is_some_and(|l| l.trim().is_empty()) {
            first += 1;
        }
    }
    if all.get(first).map(|l| l.trim()) != Some("*** Begin Patch") {
        return Err(format!(
            "line {}: the patch must start with *** Begin Patch.",
            first + 1
        ));
    }
    if last <= first || all.get(last).map(|l| l.trim()) != Some("*** End Patch") {
        return Err(format!(
            "line {}: the patch must end with *** End Patch (is it cut short?).",
            last + 1
        ));
    }
    Ok((first, last))
}

/// An added file's `+` lines from line `i` up to the next header; blank lines
/// just before a header are dropped. Returns them and the line after them.
fn added_lines(all: &[&str], mut i: usize, last: usize) -> Result<(Vec<String>, usize), String> {
    let mut lines = Vec::new();
    while i < last {
        let l = all.get(i).copied().unwrap_or("");
        if l.starts_with("***") {
            break;
        }
        match l.strip_prefix('+') {
            Some(t) => lines.push(t.to_string()),
            None if l.trim().is_empty() && next_is_header(all, i, last) => {}
            None => {
                return Err(format!(
                    "line {}: {l:?}: every line of an added file starts with '+'.",
                    i + 1
                ));
            }
        }
        i += 1;
    }
    Ok((lines, i))
}

/// Whether only blank lines stand between line `i` and the next `***` line.
fn next_is_header(all: &[&str], i: usize, last: usize) -> bool {
    all.get(i..last)
        .unwrap_or(&[])
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_none_or(|l| l.starts_with("***"))
}

fn header_path(p: &str, at: usize) -> Result<String, String> {
    let p = p.trim();
    if p.is_empty() {
        return Err(format!("line {at}: the file header names no path."));
    }
    Ok(p.to_string())
}

/// An update's chunks from line `i` up to the next file header; returns them and
/// the lines used.
fn parse_chunks(all: &[&str], start: usize, last: usize) -> Result<(Vec<Chunk>, usize), String> {
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut cur = Chunk::default();
    let mut i = start;
    while i < last {
        let l = all.get(i).copied().unwrap_or("");
        let t = l.trim();
        if t == "*** End of File" {
            cur.eof = true;
            i += 1;
            continue;
        }
        if l.starts_with("***") {
            break;
        }
        if t == "@@" || l.starts_with("@@ ") {
            // A new chunk unless this one has no lines yet (nested anchors).
            if !cur.lines.is_empty() || cur.eof {
                chunks.push(std::mem::take(&mut cur));
            }
            let a = l.get(2..).unwrap_or("").trim();
            if !a.is_empty() {
                cur.anchors.push(a.to_string());
            }
            i += 1;
            continue;
        }
        let entry = match l.as_bytes().first() {
            Some(b' ') => (Kind::Context, l.get(1..).unwrap_or("")),
            Some(b'-') => (Kind::Remove, l.get(1..).unwrap_or("")),
            Some(b'+') => (Kind::Add, l.get(1..).unwrap_or("")),
            None => (Kind::Context, ""),
            _ => {
                return Err(format!(
                    "line {}: {l:?} is not a chunk line (' ', '-', '+', '@@' or '*** End of File').",
                    i + 1
                ));
            }
        };
        if cur.eof {
            return Err(format!(
                "line {}: lines after *** End of File need their own @@.",
                i + 1
            ));
        }
        cur.lines.push((entry.0, entry.1.to_string()));
        i += 1;
    }
    if !cur.lines.is_empty() {
        chunks.push(cur);
    } else if !cur.anchors.is_empty() {
        return Err(format!("line {i}: an @@ anchor with no lines after it."));
    }
    // Blank lines closing a chunk before the next header are separators, not
    // context (a blank context line in the middle stays).
    for c in &mut chunks {
        while c
            .lines
            .last()
            .is_some_and(|(k, t)| *k == Kind::Context && t.is_empty())
            && c.lines.iter().any(|(k, _)| *k != Kind::Context)
            && c.lines.len() > 1
        {
            c.lines.pop();
        }
    }
    Ok((chunks, i - start))
}

/// The chunks of an update placed in `doc`.
pub struct Placed {
    pub hunks: Vec<Hunk>,
    /// A chunk's lines matched only with whitespace ignored.
    pub whitespace: bool,
}

/// Why a chunk could not be placed.
#[derive(Debug)]
pub struct Miss {
    /// 0-based chunk index.
    pub chunk: usize,
    /// 0-based line the search started from.
    pub from: usize,
    /// The anchor not found, or `None` when it was the chunk's lines.
    pub anchor: Option<String>,
    /// What was looked for (the anchor or the old lines).
    pub needle: String,
}

/// Places each chunk after the previous one.
pub fn place(doc: &Doc, chunks: &[Chunk]) -> Result<Placed, Miss> {
    let n = doc.line_count();
    let mut cursor = 0usize;
    let mut hunks = Vec::new();
    let mut whitespace = false;
    for (ci, c) in chunks.iter().enumerate() {
        let from = cursor;
        let mut after_anchor = None;
        for a in &c.anchors {
            match seek_anchor(doc, a, cursor) {
                Some(at) => {
                    cursor = at + 1;
                    after_anchor = Some(at + 1);
                }
                None => {
                    return Err(Miss {
                        chunk: ci,
                        from,
                        anchor: Some(a.clone()),
                        needle: a.clone(),
                    });
                }
            }
        }
        let mut lines: Vec<&(Kind, String)> = c.lines.iter().collect();
        let old = |ls: &[&(Kind, String)]| -> Vec<String> {
            ls.iter()
                .filter(|(k, _)| *k != Kind::Add)
                .map(|(_, t)| t.clone())
                .collect()
        };
        let mut want = old(&lines);
        let at = if want.is_empty() {
            // Pure addition: after the anchors, else at the end of the file.
            Some(after_anchor.unwrap_or(n))
        } else {
            let refs: Vec<&str> = want.iter().map(String::as_str).collect();
            let mut found = seek(doc, &refs, cursor, c.eof);
            // A closing blank context line the file lacks (its last line) is dropped.
            if found.is_none()
                && lines
                    .last()
                    .is_some_and(|(k, t)| *k == Kind::Context && t.is_empty())
            {
                lines.pop();
                want = old(&lines);
                let refs: Vec<&str> = want.iter().map(String::as_str).collect();
                found = seek(doc, &refs, cursor, c.eof);
            }
            found.map(|(at, lvl)| {
                whitespace |= lvl > 0;
                at
            })
        };
        let Some(at) = at else {
            return Err(Miss {
                chunk: ci,
                from,
                anchor: None,
                needle: want.join("\n"),
            });
        };
        let mut k = at;
        let mut hl = Vec::with_capacity(lines.len());
        for (kind, text) in lines {
            let text = if *kind == Kind::Add {
                text.clone()
            } else {
                k += 1;
                doc.content(k - 1).to_string()
            };
            hl.push(HunkLine {
                kind: *kind,
                text,
                cr: false,
                no_eol: false,
            });
        }
        let old_len = want.len();
        let new_len = hl.iter().filter(|l| l.kind != Kind::Remove).count();
        let old_start = if old_len == 0 { at } else { at + 1 };
        hunks.push(Hunk {
            old_start,
            old_len,
            new_start: old_start,
            new_len,
            lines: hl,
            header: format!("@@ -{old_start},{old_len} +{old_start},{new_len} @@"),
        });
        cursor = at + old_len;
    }
    Ok(Placed { hunks, whitespace })
}

/// The first line at or after `from` that is the anchor (both trimmed: an
/// anchor names a line, its indentation is not the point), else the first that
/// starts with it (`@@ def f` for `def f(self):`).
fn seek_anchor(doc: &Doc, anchor: &str, from: usize) -> Option<usize> {
    let a = anchor.trim();
    let n = doc.line_count();
    (from..n)
        .find(|&i| doc.content(i).trim() == a)
        .or_else(|| (from..n).find(|&i| doc.content(i).trim_start().starts_with(a)))
}

/// The first place at or after `from` where `pat` matches `doc`'s lines, and
/// how: 0 exactly, 1 trailing whitespace ignored, 2 leading and trailing
/// whitespace ignored. `eof` tries the file's last lines first.
fn seek(doc: &Doc, pat: &[&str], from: usize, eof: bool) -> Option<(usize, u8)> {
    let n = doc.line_count();
    if pat.len() > n {
        return None;
    }
    let fits = |at: usize, lvl: u8| {
        pat.iter().enumerate().all(|(k, p)| {
            let l = doc.content(at + k);
            match lvl {
                0 => l == *p,
                1 => l.trim_end() == p.trim_end(),
                2 => l.trim() == p.trim(),
                _ => plain(l.trim()).eq(plain(p.trim())),
            }
        })
    };
    for lvl in 0..4u8 {
        if eof && n - pat.len() >= from && fits(n - pat.len(), lvl) {
            return Some((n - pat.len(), lvl));
        }
        if let Some(at) = (from..=n - pat.len()).find(|&at| fits(at, lvl)) {
            return Some((at, lvl));
        }
    }
    None
}

/// Typographic punctuation read as its ASCII form (curly quotes, dashes, a
/// non-breaking space), as a model retyping code may write them.
fn plain(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().map(|c| match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{3000}' => ' ',
        c => c,
    })
}

/// An added file's hunk (every line added to an empty file).
pub fn add_hunk(lines: &[String]) -> Hunk {
    Hunk {
        old_start: 0,
        old_len: 0,
        new_start: 1,
        new_len: lines.len(),
        lines: lines
            .iter()
            .map(|t| HunkLine {
                kind: Kind::Add,
                text: t.clone(),
                cr: false,
                no_eol: false,
            })
            .collect(),
        header: format!("@@ -0,0 +1,{} @@", lines.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::edit::patch;

    fn doc(s: &str) -> Doc {
        Doc::from_text(false, s.to_string())
    }

    fn update(p: &str, d: &str) -> Result<String, Miss> {
        let ops = parse(p).unwrap();
        let Some(Op::Update { chunks, .. }) = ops.first() else {
            panic!("not an update")
        };
        let placed = place(&doc(d), chunks)?;
        Ok(patch::apply(&doc(d), &placed.hunks, 0).unwrap().text)
    }

    #[test]
    fn nested_anchors_pick_the_right_place() {
        let d = "class A:\n    def f(self):\n        return 1\nclass B:\n    def f(self):\n        return 1\n";
        let p = "*** Begin Patch\n*** Update File: x.py\n@@ class B:\n@@     def f(self):\n-        return 1\n+        return 2\n*** End Patch\n";
        assert_eq!(
            update(p, d).unwrap(),
            "class A:\n    def f(self):\n        return 1\nclass B:\n    def f(self):\n        return 2\n"
        );
    }

    #[test]
    fn whitespace_drift_and_eof() {
        let p = "*** Begin Patch\n*** Update File: f\n@@\n  a  \n-b\n+B\n*** End Patch";
        assert_eq!(update(p, "a\nb\nc\n").unwrap(), "a\nB\nc\n");
        let p = "*** Begin Patch\n*** Update File: f\n@@\n-x\n+y\n*** End of File\n*** End Patch\n";
        assert_eq!(update(p, "x\nm\nx\n").unwrap(), "x\nm\ny\n");
        let p = "*** Begin Patch\n*** Update File: f\n@@\n-nope\n+y\n*** End Patch\n";
        let m = update(p, "x\n").unwrap_err();
        assert_eq!((m.chunk, m.anchor), (0, None));
    }

    #[test]
    fn typographic_punctuation_matches_ascii() {
        let p = "*** Begin Patch\n*** Update File: f\n@@\n-say(\u{201C}hi\u{201D}) \u{2014} 1\n+say(\"bye\")\n*** End Patch\n";
        assert_eq!(update(p, "say(\"hi\") - 1\n").unwrap(), "say(\"bye\")\n");
    }

    #[test]
    fn headers() {
        let p = "<<'EOF'\n*** Begin Patch\n*** Add File: n.txt\n+hi\n*** Delete File: old.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-1\n+2\n*** End Patch\nEOF\n";
        let ops = parse(p).unwrap();
        assert_eq!(ops.len(), 3);
        assert!(looks_like(p));
        assert!(parse("*** Begin Patch\n*** Update File: a\n-x\n").is_err());
        assert!(parse("*** Begin Patch\n*** Frob File: a\n*** End Patch\n").is_err());
    }
}

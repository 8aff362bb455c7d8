//! Finding `--old` in a file: exact first (also with the file's line ending put into
//! `--old`), then line by line ignoring leading and trailing whitespace, where the
//! replacement is re-indented from `--old`'s indentation to the file's. An exact
//! match that begins after only blanks on its line re-indents `--new`'s later
//! lines to that line (`Strategy::Reindent`), unless they already carry it. One
//! place or an error: several places are ambiguous, never "the first".

use crate::text::doc::{Doc, indent_of, split_plain, with_eol};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strategy {
    Exact,
    /// Exact, but `--new`'s later lines were moved to the matched line's indentation.
    Reindent,
    Whitespace,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Exact => "exact",
            Strategy::Reindent => "reindent",
            Strategy::Whitespace => "whitespace",
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum Miss {
    /// Nothing matches, either way.
    NoMatch,
    /// These 0-based lines each start a match.
    Ambiguous(Vec<usize>),
}

/// Replaces the one place `old` matches with `new`.
pub fn edit_old(doc: &Doc, old: &str, new: &str) -> Result<(Doc, Strategy), Miss> {
    match exact(doc, old)? {
        Some(range) => {
            let line = doc.line_of(range.start);
            let (range, new, strategy) = match fit_exact(&doc.text, range.clone(), old, new) {
                Some((range, new)) => (range, new, Strategy::Reindent),
                None => (range, new.to_string(), Strategy::Exact),
            };
            let new = with_eol(&new, doc.eol_at(line));
            Ok((doc.splice(range, &new), strategy))
        }
        None => {
            let (start, len) = whitespace(doc, old)?;
            let body = reindent(doc, start, old, new);
            Ok((
                doc.replace_block(start, start + len, &body),
                Strategy::Whitespace,
            ))
        }
    }
}

/// What replaces the exact match `range` of `old` in `text` when `new` needs
/// re-indenting (`None`: `new` as given over `range`). Two cases: the match starts
/// after blanks on its line (see `after_indent`); or it is a whole line at column
/// 0 that opens a block (ends with `:`, `{`, `(`, `[`) and `new`'s next line is at
/// column 0 too (not a closer) while the file's next non-blank line is indented:
/// `new`'s later lines were quoted at the header's depth, and take that line's
/// indentation (a body at its header's depth is an error in Python and YAML, and
/// misformatted elsewhere).
pub fn fit_exact(
    text: &str,
    range: std::ops::Range<usize>,
    old: &str,
    new: &str,
) -> Option<(std::ops::Range<usize>, String)> {
    let before = text.get(..range.start)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let head = text.get(line_start..range.start)?;
    match after_indent(head, old, new) {
        Some(Fit::FromLineStart) => return Some((line_start..range.end, new.to_string())),
        Some(Fit::Shifted(s)) => return Some((range, s)),
        None => {}
    }
    if !head.is_empty() || split_plain(old).len() > 1 {
        return None;
    }
    // The match runs to its line's end; the file's lines after it.
    let after = text.get(range.end..)?;
    let after = if old.ends_with('\n') {
        after
    } else {
        let (rest, tail) = after.split_once('\n')?;
        if !rest.trim_end_matches('\r').is_empty() {
            return None;
        }
        tail
    };
    let body = indent_of(after.split('\n').find(|l| !l.trim().is_empty())?);
    let lines = split_plain(new);
    let (first, rest) = lines.split_first()?;
    let next = rest.iter().find(|l| !l.trim().is_empty())?;
    let opens = first.trim_end().ends_with([':', '{', '(', '[']);
    if body.is_empty()
        || !indent_of(first).is_empty()
        || !opens
        || !indent_of(next).is_empty()
        || next.starts_with([')', ']', '}'])
    {
        return None;
    }
    Some((range, prefix_later(new, body)))
}

/// How a multi-line `--new` fits an exact match that begins after `head`, the
/// blanks before it on its line.
#[derive(Debug, PartialEq, Eq)]
pub enum Fit {
    /// `--new`'s first line carries the indentation itself: it replaces from the
    /// start of the line.
    FromLineStart,
    /// `--new` with `head` put before each of its later non-blank lines.
    Shifted(String),
}

/// `None` when `--new` lands as given: `head` is not only blanks (or empty),
/// `--new` is one line, `--old` spans lines (its later lines matched at their
/// full indentation, so `--new`'s are read the same way), or `--new`'s later
/// lines already carry `head` (see `absolute`).
pub fn after_indent(head: &str, old: &str, new: &str) -> Option<Fit> {
    if head.is_empty() || !head.trim().is_empty() || split_plain(old).len() > 1 {
        return None;
    }
    let lines = split_plain(new);
    let (first, rest) = lines.split_first()?;
    if rest.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let lead = indent_of(first);
    if lead == head {
        return Some(Fit::FromLineStart);
    }
    if !lead.is_empty() || absolute(head, first, rest) {
        return None;
    }
    Some(Fit::Shifted(prefix_later(new, head)))
}

/// Whether `--new`'s later lines (`rest`) are written at their full indentation
/// in the file, its first line's having been left out because the match starts
/// after it: every non-blank one starts with `head`, unless the first line opens
/// a block (ends with `:`, `{`, `(`, `[`) and the next non-blank line is no
/// deeper than `head`, which read as full indentation would leave the block empty
/// (`if x:` then `    y` under `    if x:` is `y` nested one level more).
fn absolute(head: &str, first: &str, rest: &[&str]) -> bool {
    let mut body = rest.iter().filter(|l| !l.trim().is_empty());
    if !body.clone().all(|l| indent_of(l).starts_with(head)) {
        return false;
    }
    let opens = first.trim_end().ends_with([':', '{', '(', '[']);
    let next = body.next().map(|l| indent_of(l).len()).unwrap_or(0);
    !(opens && next <= head.len())
}

/// `new` with `to` put before each non-blank line after the first.
fn prefix_later(new: &str, to: &str) -> String {
    let lines = split_plain(new);
    let mut out = String::with_capacity(new.len() + to.len() * lines.len());
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            if !l.trim().is_empty() {
                out.push_str(to);
            }
        }
        out.push_str(l);
    }
    if new.ends_with('\n') && !lines.is_empty() {
        out.push('\n');
    }
    out
}

/// The byte range of the one exact occurrence of `old` (or of `old` with its line
/// endings turned into the file's), `None` when there is none.
fn exact(doc: &Doc, old: &str) -> Result<Option<std::ops::Range<usize>>, Miss> {
    for v in variants(old) {
        let at = occurrences(&doc.text, &v);
        match at.len() {
            0 => continue,
            1 => return Ok(at.first().map(|&s| s..s + v.len())),
            _ => {
                let mut lines: Vec<usize> = at.iter().map(|&s| doc.line_of(s)).collect();
                lines.dedup();
                return Err(Miss::Ambiguous(lines));
            }
        }
    }
    Ok(None)
}

/// `old` as given, then with its line endings as CR LF, then as LF.
pub(super) fn variants(old: &str) -> Vec<String> {
    let mut variants = vec![old.to_string()];
    if old.contains('\n') {
        let crlf = with_eol(old, "\r\n");
        if crlf != old {
            variants.push(crlf);
        }
        let lf = old.replace("\r\n", "\n");
        if lf != old {
            variants.push(lf);
        }
    }
    variants
}

/// The byte range of `old` in `text` when `exact` would pick it: the first
/// variant that occurs does so once. `None` for anything else (no match, several),
/// which the caller leaves to the document path and its errors.
pub fn unique_exact(text: &str, old: &str) -> Option<std::ops::Range<usize>> {
    for v in variants(old) {
        let at = occurrences(text, &v);
        match at.as_slice() {
            [] => continue,
            [s] => return Some(*s..*s + v.len()),
            _ => return None,
        }
    }
    None
}

/// Every start offset of `needle` in `hay`, overlapping ones included (two
/// overlapping places are still two places).
fn occurrences(hay: &str, needle: &str) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = finder.find(hay.as_bytes().get(from..).unwrap_or(b"")) {
        out.push(from + i);
        // Step one character, not one byte, to stay on char boundaries.
        let step = hay
            .get(from + i..)
            .and_then(|s| s.chars().next())
            .map(char::len_utf8)
            .unwrap_or(1);
        from += i + step;
        if out.len() > 1000 {
            break;
        }
    }
    out
}

/// The one window of lines equal to `old`'s lines, each compared without leading
/// and trailing whitespace: `(first line, number of lines)`.
fn whitespace(doc: &Doc, old: &str) -> Result<(usize, usize), Miss> {
    let want: Vec<&str> = split_plain(old).into_iter().map(str::trim).collect();
    if want.iter().all(|l| l.is_empty()) || want.len() > doc.line_count() {
        return Err(Miss::NoMatch);
    }
    let have: Vec<&str> = (0..doc.line_count())
        .map(|i| doc.content(i).trim())
        .collect();
    let found: Vec<usize> = have
        .windows(want.len())
        .enumerate()
        .filter(|(_, w)| *w == want.as_slice())
        .map(|(i, _)| i)
        .collect();
    match found.len() {
        0 => Err(Miss::NoMatch),
        1 => Ok((found[0], want.len())),
        _ => Err(Miss::Ambiguous(found)),
    }
}

/// `new` moved to the file's indentation, its own nesting kept: `old`'s least
/// indented line (the first of them) is found in the file, and `new`'s least
/// indented lines take that file line's indentation; every other line keeps its
/// depth relative to them. `--old` and `--new` may thus be written at any base
/// indentation, independently. Nothing else in `new` changes.
pub fn reindent(doc: &Doc, start: usize, old: &str, new: &str) -> String {
    let old_lines = split_plain(old);
    let Some(k) = base_line(&old_lines) else {
        return new.to_string();
    };
    // --old's first line quoted without indentation, its later ones (if any) at
    // the file's: --new's later lines are read the same way when they carry it.
    let head = indent_of(doc.content(start));
    let lines = split_plain(new);
    let later_absolute =
        old_lines.iter().skip(1).enumerate().all(|(i, l)| {
            l.trim().is_empty() || indent_of(l) == indent_of(doc.content(start + 1 + i))
        });
    if let (Some((first, rest)), true) = (lines.split_first(), later_absolute)
        && indent_of(old_lines[0]).is_empty()
        && !head.is_empty()
        && !first.trim().is_empty()
        && indent_of(first).is_empty()
        && rest.iter().any(|l| !l.trim().is_empty())
        && absolute(head, first, rest)
    {
        return format!("{head}{new}");
    }
    if let Some(out) = line_by_line(doc, start, &old_lines, &lines, new) {
        return out;
    }
    shift_to(new, indent_of(doc.content(start + k)))
}

/// `--new` re-indented line by line when `--old` was quoted with its nesting
/// changed (two of its lines at one depth sit at two in the file, or deeper at
/// no deeper: a body quoted at its header's depth) and `--new` has as many lines: line i takes the
/// file's indentation of the line `--old`'s line i matched, plus what `--new`'s
/// line i has beyond `--old`'s. `None` when the shift is uniform, the counts
/// differ, or a line of `--new` is shallower than its `--old` line.
fn line_by_line(
    doc: &Doc,
    start: usize,
    old_lines: &[&str],
    lines: &[&str],
    new: &str,
) -> Option<String> {
    if old_lines.len() != lines.len() || old_lines.len() < 2 {
        return None;
    }
    let file = |i: usize| indent_of(doc.content(start + i));
    let pairs: Vec<(&str, &str)> = old_lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (indent_of(l), file(i)))
        .collect();
    // Kept when --old's depths map to the file's in order: one depth to one,
    // deeper to deeper (tabs for spaces included).
    let depth = |(o, f): &(&str, &str)| (o.len(), f.len());
    let uniform = pairs.iter().map(depth).all(|(o1, f1)| {
        pairs
            .iter()
            .map(depth)
            .all(|(o2, f2)| o1.cmp(&o2) == f1.cmp(&f2))
    });
    if uniform {
        return None;
    }
    let mut out = String::with_capacity(new.len() + 16);
    for (i, (o, n)) in old_lines.iter().zip(lines).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if n.trim().is_empty() {
            out.push_str(n);
            continue;
        }
        if o.trim().is_empty() {
            return None;
        }
        let extra = indent_of(n).strip_prefix(indent_of(o))?;
        out.push_str(file(i));
        out.push_str(extra);
        out.push_str(n.trim_start_matches([' ', '\t']));
    }
    if new.ends_with('\n') {
        out.push('\n');
    }
    Some(out)
}

/// The first of the least indented non-blank lines.
fn base_line(lines: &[&str]) -> Option<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .min_by_key(|(i, l)| (indent_of(l).len(), *i))
        .map(|(i, _)| i)
}

/// `new` with its base indentation (the leading blanks all its non-blank lines
/// share) replaced by `to`.
pub fn shift_to(new: &str, to: &str) -> String {
    let lines = split_plain(new);
    let mut base: Option<&str> = None;
    for l in lines.iter().filter(|l| !l.trim().is_empty()) {
        let ind = indent_of(l);
        base = Some(match base {
            None => ind,
            Some(b) => {
                let n = b
                    .bytes()
                    .zip(ind.bytes())
                    .take_while(|(x, y)| x == y)
                    .count();
                b.get(..n).unwrap_or("")
            }
        });
    }
    let Some(base) = base else {
        return new.to_string();
    };
    if base == to {
        return new.to_string();
    }
    let mut out = String::with_capacity(new.len() + 16);
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if l.trim().is_empty() {
            out.push_str(l);
            continue;
        }
        out.push_str(to);
        out.push_str(l.get(base.len()..).unwrap_or(l));
    }
    // split_plain drops one final newline; `new` keeps it.
    if new.ends_with('\n') && !lines.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(s: &str) -> Doc {
        Doc::from_text(false, s.to_string())
    }

    #[test]
    fn exact_first() {
        let d = doc("let a = 1;\nlet b = 2;\n");
        let (out, s) = edit_old(&d, "b = 2", "b = 3").unwrap();
        assert_eq!(
            (out.text.as_str(), s),
            ("let a = 1;\nlet b = 3;\n", Strategy::Exact)
        );
    }

    #[test]
    fn ambiguous_never_picks_the_first() {
        let d = doc("x\ny\nx\n");
        assert_eq!(
            edit_old(&d, "x", "z").unwrap_err(),
            Miss::Ambiguous(vec![0, 2])
        );
        // Overlapping occurrences are two places too.
        assert!(matches!(
            edit_old(&doc("aaa"), "aa", "b"),
            Err(Miss::Ambiguous(_))
        ));
    }

    #[test]
    fn crlf_file_takes_lf_old_and_gets_crlf_new() {
        let d = doc("a\r\nb\r\nc\r\n");
        let (out, s) = edit_old(&d, "a\nb\n", "x\ny\nz\n").unwrap();
        assert_eq!(s, Strategy::Exact);
        assert_eq!(out.text, "x\r\ny\r\nz\r\nc\r\n");
    }

    #[test]
    fn whitespace_fallback_reindents() {
        let d = doc("fn f() {\n\tif x {\n\t\ty();\n\t}\n}\n");
        let (out, s) =
            edit_old(&d, "if x {\n    y();\n}", "if x {\n    z();\n    w();\n}").unwrap();
        assert_eq!(s, Strategy::Whitespace);
        assert_eq!(
            out.text,
            "fn f() {\n\tif x {\n\t    z();\n\t    w();\n\t}\n}\n"
        );
    }

    #[test]
    fn whitespace_fallback_keeps_inner_whitespace_of_new() {
        let d = doc("    a  =  1\nb\n");
        let (out, _) = edit_old(&d, "a  =  1 ", "a  =\t2   ").unwrap();
        assert_eq!(out.text, "    a  =\t2   \nb\n");
    }

    #[test]
    fn reindent_keeps_the_nesting_of_new() {
        let d = doc("class A:\n    def bar(self):\n        x = 1\n        return x\n");
        let want =
            "class A:\n    def bar(self):\n        x = 1\n        if x:\n            return x\n";
        for old in [
            "    x = 1\n    return x",
            "x = 1\nreturn x",
            "  x = 1\n  return x",
        ] {
            let (out, s) = edit_old(&d, old, "x = 1\nif x:\n    return x").unwrap();
            assert_eq!(
                (out.text.as_str(), s),
                (want, Strategy::Whitespace),
                "{old:?}"
            );
        }
        let (out, _) = edit_old(
            &d,
            "  x = 1\n  return x",
            "        x = 1\n        if x:\n            return x",
        )
        .unwrap();
        assert_eq!(out.text, want);
        // --old's least indented line anchors, not its first.
        let d = doc("            body\n        end\n");
        let (out, _) = edit_old(&d, "        body\n    end", "        body2\n    end").unwrap();
        assert_eq!(out.text, "            body2\n        end\n");
    }

    #[test]
    fn no_match() {
        assert_eq!(edit_old(&doc("a\n"), "b", "c").unwrap_err(), Miss::NoMatch);
        assert_eq!(edit_old(&doc("a\n"), "  ", "c").unwrap_err(), Miss::NoMatch);
    }
}

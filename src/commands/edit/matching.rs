//! Finding `--old` in a file: exact first (also with the file's line ending put into
//! `--old`), then line by line ignoring leading and trailing whitespace, where the
//! replacement is re-indented from `--old`'s indentation to the file's. One place
//! or an error: several places are ambiguous, never "the first".

use crate::text::doc::{Doc, indent_of, split_plain, with_eol};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Exact,
    Whitespace,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Exact => "exact",
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
            let new = with_eol(new, doc.eol_at(line));
            Ok((doc.splice(range, &new), Strategy::Exact))
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
fn variants(old: &str) -> Vec<String> {
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
    shift_to(new, indent_of(doc.content(start + k)))
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

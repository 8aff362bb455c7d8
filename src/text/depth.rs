//! Nesting budgets checked before a recursive parser sees the text: one linear
//! pass counts the open brackets (`[`, `{`) outside strings and comments, so a
//! file nested deeper than the budget is refused instead of overflowing the
//! stack of a third-party parser (TOML's arrays and inline tables).

/// Nesting deeper than this is refused by the checks that parse recursively.
pub const MAX_DEPTH: usize = 512;

/// The byte offset of the first TOML bracket that opens past `max` levels, when
/// one does. Strings (basic, literal, multi-line) and comments are skipped.
pub fn toml_too_deep(text: &str, max: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => i = skip_to(b, i, b"\n"),
            q @ (b'"' | b'\'') => i = skip_string(b, i, q),
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(i);
                }
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// The offset just past the first `end` at or after `from + 1` (or the end).
fn skip_to(b: &[u8], from: usize, end: &[u8]) -> usize {
    let mut i = from + 1;
    while i < b.len() {
        if b[i..].starts_with(end) {
            return i + end.len();
        }
        i += 1;
    }
    b.len()
}

/// The offset past the string opening at `from` with quote `q` (triple-quoted
/// when the quote appears three times); `\` escapes only in `"` strings.
fn skip_string(b: &[u8], from: usize, q: u8) -> usize {
    let triple = [q, q, q];
    let (mut i, close): (usize, &[u8]) = if b[from..].starts_with(&triple) {
        (from + 3, &triple)
    } else {
        (from + 1, std::slice::from_ref(&b[from]))
    };
    while i < b.len() {
        if q == b'"' && b[i] == b'\\' {
            i += 2;
            continue;
        }
        if close.len() == 1 && b[i] == b'\n' {
            return i;
        }
        if b[i..].starts_with(close) {
            return i + close.len();
        }
        i += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_brackets_outside_strings_and_comments() {
        assert_eq!(toml_too_deep("a = [[1]]", 2), None);
        assert_eq!(toml_too_deep("a = [[[1]]]", 2), Some(6));
        assert_eq!(toml_too_deep("a = \"[[[[\" # [[[[\nb = '{{{'", 1), None);
        assert_eq!(
            toml_too_deep("a = \"\"\"\n[[[\"\"\"\nb = [[1]]", 1),
            Some(20)
        );
        assert_eq!(toml_too_deep("a = \"\\\"[[[\"", 1), None);
    }
}

//! `--escape-invisible`: the characters a reader cannot see (controls, zero-width
//! and bidirectional format characters, NBSP, soft hyphen, the BOM, the ideographic
//! space) spelled out as `\u{XXXX}`, the way `cat -A` makes them visible.

/// Whether `c` is shown escaped.
pub fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00..=0x1F | 0x7F..=0x9F | 0xA0 | 0xAD | 0x200B..=0x200F | 0x202A..=0x202E
        | 0x2060..=0x2064 | 0x2066..=0x2069 | 0xFEFF | 0x3000)
}

/// `line` with every invisible character escaped; `cr` appends the line-end CR
/// (the CR of a CR LF terminator) escaped too.
pub fn escape(line: &str, cr: bool) -> String {
    let mut out = String::with_capacity(line.len() + if cr { 8 } else { 0 });
    for c in line.chars() {
        if is_invisible(c) {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    if cr {
        out.push_str("\\u{000D}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn escapes() {
        assert_eq!(
            escape("a\tb\u{200B}c\u{A0}\u{3000}", true),
            "a\\u{0009}b\\u{200B}c\\u{00A0}\\u{3000}\\u{000D}"
        );
        assert_eq!(escape("plain é", false), "plain é");
    }
}

//! The mask over raw bytes: a hex dump's window, a strings view, UTF-16 text, and a
//! piece cut from a line (a search match) masked by what its whole line shows.

use super::{PLACEHOLDER, secret_spans};
use crate::text::json_string::{self, Piece};
use std::ops::Range;

/// The secret spans of raw bytes: bytes outside ASCII stand for themselves as an inert
/// ASCII byte, so offsets are byte offsets and the ASCII-only formats match exactly as
/// they would in text.
pub fn secret_spans_bytes(bytes: &[u8]) -> Vec<Range<usize>> {
    let ascii: Vec<u8> = bytes
        .iter()
        .map(|&b| if b < 0x80 { b } else { 0x01 })
        .collect();
    match std::str::from_utf8(&ascii) {
        Ok(s) => secret_spans(s),
        Err(_) => Vec::new(),
    }
}

/// The secret spans of raw bytes read as UTF-16 (either byte order, either
/// alignment): a code unit whose other byte is zero stands for its ASCII byte.
/// Offsets are byte offsets of `bytes`; empty when there is no zero byte.
pub fn secret_spans_wide(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    if memchr::memchr(0, bytes).is_none() {
        return out;
    }
    for first in 0..2 {
        for low in 0..2 {
            let narrow: Vec<u8> = bytes
                .get(first..)
                .unwrap_or_default()
                .chunks_exact(2)
                .map(|u| {
                    let (c, z) = (u[low], u[1 - low]);
                    if z == 0 && c != 0 && c < 0x80 {
                        c
                    } else {
                        0x01
                    }
                })
                .collect();
            if let Ok(text) = std::str::from_utf8(&narrow) {
                for r in secret_spans(text) {
                    out.push(first + 2 * r.start..first + 2 * r.end);
                }
            }
        }
    }
    out
}

/// The text of `part` of `whole` with the secret `spans` of `whole` (its
/// `secret_spans_bytes`) masked where they overlap it.
pub fn mask_part(whole: &[u8], spans: &[Range<usize>], part: Range<usize>) -> String {
    let text = |r: Range<usize>| String::from_utf8_lossy(whole.get(r).unwrap_or_default());
    let mut out = String::new();
    let mut last = part.start;
    for span in spans {
        if span.end <= part.start || span.start >= part.end {
            continue;
        }
        if span.start > last {
            out.push_str(&text(last..span.start));
        }
        out.push_str(PLACEHOLDER);
        super::tally(1);
        last = span.end;
    }
    if last < part.end {
        out.push_str(&text(last..part.end));
    }
    out
}

/// `bytes` with every secret (as `secret_spans_bytes` finds them: the ASCII
/// formats, non-ASCII bytes inert) replaced by the placeholder, counted for the
/// answer's `redactions`: for an answer that shows bytes in an encoding the
/// text mask cannot read (hex, base64).
pub fn mask_bytes(bytes: &[u8]) -> Vec<u8> {
    let (out, n) = mask_bytes_untallied(bytes);
    super::tally(n);
    out
}

/// `mask_bytes` not tallied, and how many secrets it masked.
pub fn mask_bytes_untallied(bytes: &[u8]) -> (Vec<u8>, usize) {
    let mut n = 0;
    let spans = secret_spans_bytes(bytes);
    let mut out = Vec::with_capacity(bytes.len());
    let mut last = 0;
    for span in &spans {
        if span.start < last {
            continue;
        }
        out.extend_from_slice(bytes.get(last..span.start).unwrap_or_default());
        out.extend_from_slice(PLACEHOLDER.as_bytes());
        n += 1;
        last = span.end;
    }
    out.extend_from_slice(bytes.get(last..).unwrap_or_default());
    (out, n)
}

/// The secrets of each line of `bytes` that is one JSON string with an escape in
/// it (a notebook's source line: `"x = \"Tr0ub4dor3xyzQ\"\n",`), judged on the
/// text the string stands for, as spans of `bytes`: a span covers every escape a
/// character of the secret is written with. A line without a backslash reads as
/// its text already (`secret_spans_bytes` finds its secrets).
pub fn secret_spans_json_lines(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    if memchr::memchr(b'\\', bytes).is_none() {
        return out;
    }
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())) {
        let line = &bytes[start..end];
        let quote = line.iter().position(|b| !b.is_ascii_whitespace());
        if let Some(q) = quote.filter(|&q| line[q] == b'"')
            && memchr::memchr(b'\\', line).is_some()
            && let Some((text, from)) = json_string(line, q)
        {
            for r in secret_spans(&text) {
                if let (Some(a), Some(z)) = (from.get(r.start), from.get(r.end.wrapping_sub(1))) {
                    out.push(start + a.0..start + z.1);
                }
            }
        }
        start = end + 1;
    }
    out
}

/// The JSON string opening at `b[q]` as the text it stands for, with the range of
/// `b` each of the text's bytes is written with (`text::json_string`); `None` for
/// a broken string, a surrogate escape that names no character included. A
/// control character written raw is kept.
fn json_string(b: &[u8], q: usize) -> Option<(String, Vec<(usize, usize)>)> {
    let (mut text, mut from) = (Vec::new(), Vec::new());
    let mut named = true;
    let read = json_string::read(b, q, |p| match p {
        Piece::Plain(r) => {
            text.extend_from_slice(&b[r.clone()]);
            from.extend(r.map(|i| (i, i + 1)));
        }
        Piece::Control(i) => {
            text.push(b[i]);
            from.push((i, i + 1));
        }
        Piece::Escape(Some(ch), r) => {
            let mut buf = [0; 4];
            for &x in ch.encode_utf8(&mut buf).as_bytes() {
                text.push(x);
                from.push((r.start, r.end));
            }
        }
        Piece::Escape(None, _) => named = false,
    });
    if read.is_err() || !named {
        return None;
    }
    String::from_utf8(text).ok().map(|t| (t, from))
}

/// `a` and `b` (each sorted) as one sorted list of spans, overlapping ones joined.
pub fn union_spans(a: Vec<Range<usize>>, b: Vec<Range<usize>>) -> Vec<Range<usize>> {
    if b.is_empty() {
        return a;
    }
    let mut all = a;
    all.extend(b);
    all.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(all.len());
    for r in all {
        match out.last_mut() {
            Some(last) if r.start < last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::json_string;
    use crate::text::json_doc::{self, Kind};

    /// The document parser's reading of a string literal: its text, or the
    /// fault and where it is.
    fn parsed(lit: &str) -> Result<String, (usize, String)> {
        match json_doc::parse(lit) {
            Ok(n) => match n.kind {
                Kind::Str(s) => Ok(s),
                k => Err((0, format!("not a string: {k:?}"))),
            },
            Err(e) => Err((e.offset, e.message)),
        }
    }

    /// The mask's reading of the same literal (`None`: it judges no text).
    fn masked(lit: &str) -> Option<String> {
        json_string(lit.as_bytes(), 0).map(|(t, _)| t)
    }

    /// Both users of the one decoder read escapes alike where the string names a
    /// text, and each keeps its own answer where it does not: the parser reads a
    /// surrogate naming no character as U+FFFD and refuses a raw control
    /// character, the mask judges no text for the first and keeps the second.
    #[test]
    fn the_parser_and_the_mask_read_escapes_alike() {
        let same = [
            (r#""a\/b""#, "a/b"),
            (r#""\uD83D\uDE00!""#, "😀!"),
            (r#""\"\\\b\f\n\r\t""#, "\"\\\u{8}\u{c}\n\r\t"),
            (r#""\u00e9é\u0041""#, "ééA"),
            (r#""""#, ""),
        ];
        for (lit, text) in same {
            assert_eq!(parsed(lit).as_deref(), Ok(text), "{lit}");
            assert_eq!(masked(lit).as_deref(), Some(text), "{lit}");
        }
        let surrogates = [
            (r#""\uD83Dx""#, "\u{FFFD}x"),
            (r#""\uDE00""#, "\u{FFFD}"),
            (r#""\uD83D\u0041""#, "\u{FFFD}"),
            (r#""\uDE00\uD83D""#, "\u{FFFD}\u{FFFD}"),
        ];
        for (lit, text) in surrogates {
            assert_eq!(parsed(lit).as_deref(), Ok(text), "{lit}");
            assert_eq!(masked(lit), None, "{lit}");
        }
        let broken = [
            (r#""\q""#, 2, "invalid escape in a string"),
            (r#""\u12G4""#, 3, "expected four hex digits after \\u"),
            (r#""\uD83D\uZZZZ""#, 9, "expected four hex digits after \\u"),
            (r#""ab"#, 3, "unterminated string"),
            (r#""a\"#, 3, "unterminated string"),
        ];
        for (lit, at, msg) in broken {
            assert_eq!(parsed(lit), Err((at, msg.to_string())), "{lit}");
            assert_eq!(masked(lit), None, "{lit}");
        }
        let raw = "\"a\tb\\q\"";
        assert_eq!(
            parsed(raw),
            Err((2, "control character in a string (escape it)".to_string()))
        );
        assert_eq!(masked("\"a\tb\""), Some("a\tb".to_string()));
    }

    /// Each byte of the text the mask reads says where it is written: a pair's
    /// four bytes its twelve, an escape's its two, a raw byte itself.
    #[test]
    fn the_mask_knows_where_each_byte_is_written() {
        let (text, from) = json_string(r#"x "a\/\uD83D\uDE00é" y"#.as_bytes(), 2).expect("reads");
        assert_eq!(text, "a/😀é");
        assert_eq!(
            from,
            [
                (3, 4),
                (4, 6),
                (6, 18),
                (6, 18),
                (6, 18),
                (6, 18),
                (18, 19),
                (19, 20)
            ]
        );
    }
}

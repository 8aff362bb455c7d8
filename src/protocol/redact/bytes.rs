//! The mask over raw bytes: a hex dump's window, a strings view, UTF-16 text, and a
//! piece cut from a line (a search match) masked by what its whole line shows.

use super::{PLACEHOLDER, secret_spans};
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
/// `b` each of the text's bytes is written with; `None` for a broken string.
fn json_string(b: &[u8], q: usize) -> Option<(String, Vec<(usize, usize)>)> {
    let hex4 = |i: usize| {
        let h = std::str::from_utf8(b.get(i..i + 4)?).ok()?;
        u16::from_str_radix(h, 16).ok()
    };
    let (mut text, mut from) = (Vec::new(), Vec::new());
    let mut i = q + 1;
    while i < b.len() {
        let (ch, len) = match b[i] {
            b'"' => return String::from_utf8(text).ok().map(|t| (t, from)),
            b'\\' => match *b.get(i + 1)? {
                b'n' => ('\n', 2),
                b't' => ('\t', 2),
                b'r' => ('\r', 2),
                b'b' => ('\u{8}', 2),
                b'f' => ('\u{c}', 2),
                e @ (b'"' | b'\\' | b'/') => (char::from(e), 2),
                b'u' => {
                    let hi = hex4(i + 2)?;
                    let lo = (b.get(i + 6..i + 8) == Some(b"\\u"))
                        .then(|| hex4(i + 8))
                        .flatten()
                        .filter(|_| (0xD800..0xDC00).contains(&hi));
                    match lo {
                        Some(lo) => (char::decode_utf16([hi, lo]).next()?.ok()?, 12),
                        None => (char::from_u32(u32::from(hi))?, 6),
                    }
                }
                _ => return None,
            },
            c => {
                text.push(c);
                from.push((i, i + 1));
                i += 1;
                continue;
            }
        };
        let mut buf = [0; 4];
        for &x in ch.encode_utf8(&mut buf).as_bytes() {
            text.push(x);
            from.push((i, i + len));
        }
        i += len;
    }
    None
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

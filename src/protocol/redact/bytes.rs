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

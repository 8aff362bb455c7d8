//! The secret mask: finds known secret formats in text and replaces each with
//! `[REDACTED_SECRET]`. It runs over every string and key of every envelope.
//!
//! Per string (`mask_str`, `secret_spans`): one Aho-Corasick pass over the trigger
//! words (case-insensitive) finds candidate positions, and only those are checked
//! against the full formats. Per envelope (`write_masked`) the mask runs while the
//! JSON text is written: each few KiB of text is scanned with SIMD for byte triples
//! every format needs (no copy, no lowercasing), and only strings holding one go
//! through `mask_str`. `mask_tree` is the plain tree pass, and the reference the
//! envelope writer is tested against. The format lists are in `data/redaction.txt`.

use super::json::Json;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use std::ops::Range;
use std::sync::OnceLock;

pub const PLACEHOLDER: &str = "[REDACTED_SECRET]";

const TABLE: &str = include_str!("../../data/redaction.txt");

struct TokenPrefix {
    prefix: String,
    min_body: usize,
    needs_digit: bool,
}

struct Formats {
    prefixes: Vec<TokenPrefix>,
    keys: Vec<String>,
    pem_labels: Vec<String>,
    /// Triggers, in this order: prefixes, keys, "-----BEGIN ", "bearer", "akia", "asia",
    /// "://".
    finder: AhoCorasick,
}

#[derive(Clone, Copy)]
enum Trigger {
    Prefix(usize),
    Key,
    Pem,
    Bearer,
    Aws,
    Url,
}

fn formats() -> &'static Formats {
    static FORMATS: OnceLock<Formats> = OnceLock::new();
    FORMATS.get_or_init(|| {
        let mut section = "";
        let mut prefixes = Vec::new();
        let mut keys = Vec::new();
        let mut pem_labels = Vec::new();
        for line in TABLE.lines() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if line.starts_with('[') {
                section = line;
                continue;
            }
            match section {
                "[token-prefixes]" => {
                    let mut cols = line.split_whitespace();
                    if let (Some(p), Some(n), Some(d)) = (cols.next(), cols.next(), cols.next()) {
                        prefixes.push(TokenPrefix {
                            prefix: p.to_string(),
                            min_body: n.parse().unwrap_or(8),
                            needs_digit: d == "yes",
                        });
                    }
                }
                "[key-names]" => keys.push(line.to_ascii_lowercase()),
                "[pem-labels]" => pem_labels.push(line.to_string()),
                _ => {}
            }
        }
        let mut words: Vec<String> = prefixes.iter().map(|p| p.prefix.clone()).collect();
        words.extend(keys.iter().cloned());
        words.push("-----BEGIN ".to_string());
        words.push("bearer".to_string());
        words.push("akia".to_string());
        words.push("asia".to_string());
        words.push("://".to_string());
        // Lowercase words searched in lowercased text: without ascii_case_insensitive
        // the automaton can use its SIMD (Teddy) prefilter.
        let words: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
        // A contiguous NFA: the default DFA costs more to build than a typical
        // call's whole envelope takes to scan, and every call builds it once.
        let finder = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(&words)
            .unwrap_or_else(|_| {
                AhoCorasick::new(["-----begin "]).expect("a one-word automaton always builds")
            });
        Formats {
            prefixes,
            keys,
            pem_labels,
            finder,
        }
    })
}

impl Formats {
    fn trigger(&self, pattern: usize) -> Trigger {
        let np = self.prefixes.len();
        let nk = self.keys.len();
        if pattern < np {
            Trigger::Prefix(pattern)
        } else if pattern < np + nk {
            Trigger::Key
        } else {
            match pattern - np - nk {
                0 => Trigger::Pem,
                1 => Trigger::Bearer,
                2 | 3 => Trigger::Aws,
                _ => Trigger::Url,
            }
        }
    }
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Where a PEM private-key block starts in `s` at or after `from`: (start, label end).
fn pem_begin(s: &str, at: usize) -> Option<usize> {
    let f = formats();
    let rest = &s[at..];
    let after = rest.strip_prefix("-----BEGIN ")?;
    let close = after.find("-----")?;
    let label = &after[..close];
    if label.contains('\n') {
        return None;
    }
    if f.pem_labels.iter().any(|l| label.ends_with(l.as_str())) {
        Some(at + "-----BEGIN ".len() + close + 5)
    } else {
        None
    }
}

/// End of the `-----END ...PRIVATE KEY-----` line after `from`, if present.
fn pem_end(s: &str, from: usize) -> Option<usize> {
    static END: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    let end = END.get_or_init(|| memchr::memmem::Finder::new(b"-----END "));
    let rest = &s[from..];
    let i = end.find(rest.as_bytes())?;
    let after = &rest[i + 9..];
    let close = after.find("-----")?;
    Some(from + i + 9 + close + 5)
}

/// The spans of `s` that are secrets, sorted and non-overlapping. A PEM block whose
/// END is not in `s` runs to the end of `s`.
pub fn secret_spans(s: &str) -> Vec<Range<usize>> {
    spans_of(s, true)
}

/// `secret_spans`, without the key body lines when `bodies` is false.
fn spans_of(s: &str, bodies: bool) -> Vec<Range<usize>> {
    // The finder runs over an ASCII-lowercased copy (same offsets) so it can use its
    // SIMD prefilter; case-sensitive formats are verified on the original.
    thread_local! {
        static FOLDED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    FOLDED.with(|cell| {
        let mut folded = cell.borrow_mut();
        folded.clear();
        folded.extend(s.bytes().map(|b| b.to_ascii_lowercase()));
        let mut spans = spans_in(s, &folded);
        if bodies && has_key_body_line(s) {
            let mut lines = Vec::new();
            key_body_lines(s, &mut lines);
            lines.retain(|l| !spans.iter().any(|x| x.start < l.end && l.start < x.end));
            if !lines.is_empty() {
                spans.extend(lines);
                spans.sort_by_key(|r| r.start);
            }
        }
        spans
    })
}

/// Shortest and longest base64 run a key body line is taken for (PEM wraps at 64,
/// MIME at 76; a block's shorter last line is not matched).
const BODY_MIN: usize = 40;
const BODY_MAX: usize = 76;

/// The base64 part of `line` when the whole line is one run of 40 to 76 base64
/// characters (`=` padding at its end) holding at least 6 upper-case letters, 6
/// lower-case letters and 3 digits (a random 64-character line has about 26, 26
/// and 10), maybe after a diff's one-character `+`, `-` or ` ` prefix: a private
/// key's body line seen without its BEGIN line. Lower-case hex (hashes, commit
/// ids), words without digits and paths (`libs/p3d/Jamfile`: few capitals) are
/// never one.
fn key_body(line: &[u8]) -> Option<Range<usize>> {
    let from = match line.first() {
        Some(b'+' | b'-' | b' ') if line.len() > BODY_MIN => 1,
        _ => 0,
    };
    let body = &line[from..];
    if body.len() < BODY_MIN || body.len() > BODY_MAX {
        return None;
    }
    let run = body.len() - body.iter().rev().take_while(|&&b| b == b'=').count();
    if body.len() - run > 2 {
        return None;
    }
    let (mut upper, mut lower, mut digit) = (0, 0, 0);
    for &b in &body[..run] {
        match b {
            b'A'..=b'Z' => upper += 1,
            b'a'..=b'z' => lower += 1,
            b'0'..=b'9' => digit += 1,
            b'+' | b'/' => {}
            _ => return None,
        }
    }
    (upper >= 6 && lower >= 6 && digit >= 3).then_some(from..line.len())
}

/// Whether some line of `s` is a key body line (`key_body`): cheap for strings with
/// no line near the right length.
fn has_key_body_line(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < BODY_MIN {
        return false;
    }
    if b.len() <= BODY_MAX + 2 {
        // A run of 40 in a string this short covers every byte from len - 40
        // to 39: one blank or sign there (most code lines) rules it out.
        let core = b.get(b.len() - BODY_MIN..BODY_MIN).unwrap_or_default();
        if !core
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
        {
            return false;
        }
    }
    if b.len() <= BODY_MAX + 2 && memchr::memchr(b'\n', b).is_none() {
        return key_body(b.strip_suffix(b"\r").unwrap_or(b)).is_some();
    }
    let mut found = false;
    for_lines(b, |_, line| {
        found = found || key_body(line).is_some();
    });
    found
}

/// Calls `f(offset, line)` for each line of `b` (without its LF or CR LF) whose
/// length could hold a key body line.
fn for_lines(b: &[u8], mut f: impl FnMut(usize, &[u8])) {
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', b).chain(std::iter::once(b.len()));
    for end in ends {
        let line = &b[start..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() >= BODY_MIN && line.len() <= BODY_MAX + 1 {
            f(start, line);
        }
        start = end + 1;
    }
}

/// The spans of `s`'s key body lines (`key_body`), except those of a public
/// block (`-----BEGIN CERTIFICATE-----` and the body lines right after it).
fn key_body_lines(s: &str, out: &mut Vec<Range<usize>>) {
    let b = s.as_bytes();
    let mut public = false;
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', b).chain(std::iter::once(b.len()));
    for end in ends {
        let line = &b[start..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match key_body(line) {
            Some(r) if !public => out.push(start + r.start..start + r.end),
            Some(_) => {}
            None => public = public_begin(line),
        }
        start = end + 1;
    }
}

/// Whether `line` (maybe after a diff's one-character prefix) begins a PEM block
/// that is not a secret (a certificate, a public key): its body lines stay shown.
fn public_begin(line: &[u8]) -> bool {
    let at = match line {
        [b'-', b'-', b'-', b'-', b'-', ..] => 0,
        [_, rest @ ..] if rest.starts_with(b"-----") => 1,
        _ => return false,
    };
    let Some(after) = line[at..].strip_prefix(b"-----BEGIN ".as_slice()) else {
        return false;
    };
    let Some(close) = memchr::memmem::find(after, b"-----") else {
        return false;
    };
    let label = &after[..close];
    !formats()
        .pem_labels
        .iter()
        .any(|l| label.ends_with(l.as_bytes()))
}

/// Whether item `j` of an array is a key body line shown right after a public
/// BEGIN line (past other body lines): the array's lines are one file's lines.
fn in_public_block(items: &[Json], j: usize) -> bool {
    let mut k = j;
    while k > 0 && j - k < 512 {
        k -= 1;
        let Some(t) = items.get(k).and_then(line_text_ref) else {
            return false;
        };
        let line = t.as_bytes();
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if key_body(line).is_none() {
            return public_begin(line);
        }
    }
    false
}

fn spans_in(s: &str, folded: &[u8]) -> Vec<Range<usize>> {
    let f = formats();
    let bytes = s.as_bytes();
    let mut spans: Vec<Range<usize>> = Vec::new();
    let mut pos = 0usize;
    while pos < folded.len() {
        let input = aho_corasick::Input::new(folded).span(pos..folded.len());
        let Some(m) = f.finder.find(input) else { break };
        let (start, end) = (m.start(), m.end());
        let span = match f.trigger(m.pattern().as_usize()) {
            Trigger::Pem => {
                pem_begin(s, start).map(|body| start..pem_end(s, body).unwrap_or(s.len()))
            }
            Trigger::Bearer => bearer(s, start, end),
            Trigger::Aws => aws(bytes, start, end),
            Trigger::Prefix(i) => token(bytes, start, end, &f.prefixes[i]),
            Trigger::Key => key_value(s, end),
            Trigger::Url => url_password(bytes, start, end),
        };
        // Leftmost-longest finds `access_token` before the `token` inside it; when
        // the longest trigger at a start fails, a shorter one at the same start
        // cannot succeed (its next byte is the longer one's), so try one byte on.
        match span {
            Some(span) if span.start >= pos && span.end > span.start => {
                pos = span.end.max(start + 1);
                spans.push(span);
            }
            _ => pos = start + 1,
        }
    }
    spans
}

fn bearer(s: &str, start: usize, end: usize) -> Option<Range<usize>> {
    // Case-sensitive word "Bearer" as sent in headers, followed by blanks and a token.
    if &s[start..end] != "Bearer" {
        return None;
    }
    let bytes = s.as_bytes();
    if start > 0 && bytes[start - 1].is_ascii_alphanumeric() {
        return None;
    }
    let mut i = end;
    while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
        i += 1;
    }
    if i == end {
        return None;
    }
    let tok_start = i;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || b"-._~+/".contains(&bytes[i])) {
        i += 1;
    }
    while i < bytes.len() && bytes[i] == b'=' {
        i += 1;
    }
    if i - tok_start < 8 {
        return None;
    }
    Some(tok_start..i)
}

fn aws(bytes: &[u8], start: usize, end: usize) -> Option<Range<usize>> {
    let word = &bytes[start..end];
    if word != b"AKIA" && word != b"ASIA" {
        return None;
    }
    if start > 0 && bytes[start - 1].is_ascii_alphanumeric() {
        return None;
    }
    let body_end = end + 16;
    if body_end > bytes.len() {
        return None;
    }
    if !bytes[end..body_end]
        .iter()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    {
        return None;
    }
    if body_end < bytes.len() && bytes[body_end].is_ascii_alphanumeric() {
        return None;
    }
    Some(start..body_end)
}

/// `scheme://user:password@host`: the password, as URLs carry it in configs and
/// connection strings; the scheme, user and host stay readable.
fn url_password(bytes: &[u8], start: usize, end: usize) -> Option<Range<usize>> {
    let scheme = bytes[..start]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
        .count();
    if scheme == 0 {
        return None;
    }
    let auth_len = bytes[end..]
        .iter()
        .take_while(|b| !b.is_ascii_whitespace() && !b"/?#@\"'`<>".contains(b))
        .count();
    let at = end + auth_len;
    if bytes.get(at) != Some(&b'@') {
        return None;
    }
    let colon = end + bytes[end..at].iter().position(|&b| b == b':')?;
    let pw = colon + 1..at;
    if pw.is_empty() || &bytes[pw.clone()] == PLACEHOLDER.as_bytes() {
        return None;
    }
    Some(pw)
}

fn token(bytes: &[u8], start: usize, end: usize, p: &TokenPrefix) -> Option<Range<usize>> {
    // Prefixes are case-sensitive in practice (ghp_, sk-): the finder is not.
    if &bytes[start..end] != p.prefix.as_bytes() {
        return None;
    }
    if start > 0 && is_token_byte(bytes[start - 1]) {
        return None;
    }
    let mut i = end;
    while i < bytes.len() && is_token_byte(bytes[i]) {
        i += 1;
    }
    let body = &bytes[end..i];
    if body.len() < p.min_body || (p.needs_digit && !body.iter().any(u8::is_ascii_digit)) {
        return None;
    }
    Some(start..i)
}

fn key_value(s: &str, end: usize) -> Option<Range<usize>> {
    let bytes = s.as_bytes();
    // The key name must end the identifier: `tokens=` is not `token=` (the sign
    // or a blank/quote must follow it directly).
    let mut i = end;
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'"' | b'\'' | b'`') {
        i += 1;
    }
    if i >= bytes.len() || !(bytes[i] == b'=' || bytes[i] == b':') {
        return None;
    }
    let sign = bytes[i];
    i += 1;
    // `==`, `:=`-free comparisons and `::` paths are code, not assignments.
    if i < bytes.len() && (bytes[i] == b'=' || (sign == b':' && bytes[i] == b':')) {
        return None;
    }
    while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
        i += 1;
    }
    let quote = if i < bytes.len() && matches!(bytes[i], b'"' | b'\'' | b'`') {
        Some(bytes[i])
    } else {
        None
    };
    let value_start = if quote.is_some() { i + 1 } else { i };
    let mut j = value_start;
    match quote {
        Some(q) => {
            while j < bytes.len() && bytes[j] != q && bytes[j] != b'\n' {
                if bytes[j] == b'\\' && j + 1 < bytes.len() {
                    j += 1;
                }
                j += 1;
            }
            j = j.min(bytes.len());
        }
        None => {
            while j < bytes.len()
                && !bytes[j].is_ascii_whitespace()
                && !b"\"'`,;&)]}<>".contains(&bytes[j])
            {
                j += 1;
            }
        }
    }
    if j <= value_start {
        return None;
    }
    // An already-masked value stays as it is: the unquoted scan stops at its `]`,
    // so compare the prefix, or re-masking output would grow `]]` and count again.
    if s.get(value_start..)
        .is_some_and(|v| v.starts_with(PLACEHOLDER))
    {
        return None;
    }
    // `auth_token: Bearer abc...`: the scheme word is not the secret, the token is.
    if quote.is_none() {
        let word = &bytes[value_start..j];
        if word.eq_ignore_ascii_case(b"bearer") || word.eq_ignore_ascii_case(b"basic") {
            let mut k = j;
            while k < bytes.len() && (bytes[k] == b' ' || bytes[k] == b'\t') {
                k += 1;
            }
            let tok = k;
            while k < bytes.len()
                && !bytes[k].is_ascii_whitespace()
                && !b"\"'`,;&)]}<>".contains(&bytes[k])
            {
                k += 1;
            }
            if k > tok && s.is_char_boundary(k) {
                j = k;
            }
        }
    }
    // Byte positions at ASCII delimiters are char boundaries; guard anyway.
    if !s.is_char_boundary(value_start) || !s.is_char_boundary(j) {
        return None;
    }
    Some(value_start..j)
}

/// The secret spans of raw bytes (a hex dump's window): bytes outside ASCII stand
/// for themselves as an inert ASCII byte, so offsets are byte offsets and the
/// ASCII-only formats match exactly as they would in text.
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
        // Units starting at `first`, `first + 2`, ...; each byte of a unit is
        // tried as the character (little- then big-endian).
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
/// `secret_spans_bytes`) masked where they overlap it: a piece cut from a line
/// (a search match or group) masked by what the whole line shows.
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
        last = span.end;
    }
    if last < part.end {
        out.push_str(&text(last..part.end));
    }
    out
}

/// Replaces the secrets of `s`; `None` when there are none.
pub fn mask_str(s: &str) -> Option<(String, usize)> {
    mask_with(s, true)
}

/// `mask_str`; key body lines are masked only when `bodies`.
fn mask_with(s: &str, bodies: bool) -> Option<(String, usize)> {
    let spans = spans_of(s, bodies);
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for span in &spans {
        record(&s[span.clone()]);
        out.push_str(&s[last..span.start]);
        out.push_str(PLACEHOLDER);
        last = span.end;
    }
    out.push_str(&s[last..]);
    Some((out, spans.len()))
}

/// Masks every string and key of the tree in place; returns the number of regions masked.
///
/// One finder pass runs over all the tree's strings at once (folded to lowercase
/// and joined by LF, which no trigger contains), so a large envelope costs one SIMD
/// scan rather than a search call per string; only the strings it hits are checked
/// against the full formats.
///
/// Then every other occurrence of a value it masked is masked (`write_masked`).
pub fn mask_tree(value: &mut Json) -> usize {
    // Nested in `write_masked` (its fallback, or an item of `across`): keep what
    // the outer pass recorded, and give it this pass's values too.
    let outer = RECORDED.with(|r| r.borrow_mut().replace(Vec::new()));
    let n = mask_tree_once(value);
    let values = RECORDED.with(|r| r.borrow_mut().take()).unwrap_or_default();
    let mut m = 0;
    if !values.is_empty() {
        if let Some(finder) = recorded_finder(&values, false) {
            m = mask_recorded_tree(value, &finder);
        }
    }
    if let Some(mut outer) = outer {
        outer.extend(values);
        RECORDED.with(|r| *r.borrow_mut() = Some(outer));
    }
    n + m
}

fn mask_recorded_tree(value: &mut Json, finder: &AhoCorasick) -> usize {
    let one = |s: &mut String| match replace_recorded(s, finder, false) {
        Some((masked, n)) => {
            *s = masked;
            n
        }
        None => 0,
    };
    match value {
        Json::Str(s) => one(s),
        Json::Arr(items) => items
            .iter_mut()
            .map(|i| mask_recorded_tree(i, finder))
            .sum(),
        Json::Obj(members) => members
            .iter_mut()
            .map(|(k, v)| one(k) + mask_recorded_tree(v, finder))
            .sum(),
        _ => 0,
    }
}

fn mask_tree_once(value: &mut Json) -> usize {
    let mut c = Collected::default();
    c.collect(value);
    c.flush();
    if !c.any {
        return 0;
    }
    let mut state = Walk {
        hit: &c.hit,
        next: 0,
        arrays: &c.arrays,
        next_array: 0,
        pem_hits: &c.pem_hits,
        public: &c.public,
    };
    state.mask(value)
}

/// The compact JSON text of `value` with every secret masked, and how many were.
/// Prints exactly what `mask_tree` then serializing prints; the tree is not changed.
///
/// The fast path for the whole envelope masks while it serializes: the text is
/// written in windows of a few KiB, each scanned while still in cache for the pairs
/// of bytes every format needs (`scan`), and only the strings holding a candidate
/// are checked against the full formats and re-written within the window. A
/// private-key block left open at the end of a string may continue in the next
/// strings of its array; that rare case takes the tree pass (`mask_tree`).
///
/// A second pass masks every other occurrence (ignoring ASCII case) of a secret
/// value the first one masked: a value shown without its key (a search group, the
/// `+` line of a diff that moved or lower-cased it) is still the secret.
pub fn write_masked(value: &mut Json) -> (String, usize) {
    RECORDED.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let (text, n) = write_masked_once(value);
    let values = RECORDED.with(|r| r.borrow_mut().take()).unwrap_or_default();
    if values.is_empty() {
        return (text, n);
    }
    let (text, m) = mask_recorded(text, values);
    (text, n + m)
}

fn write_masked_once(value: &mut Json) -> (String, usize) {
    let mut w = MaskWriter::default();
    w.write(value);
    w.flush();
    #[cfg(test)]
    TOOK_TREE_PASS.with(|t| t.set(w.bail || w.unwind));
    if w.bail || w.unwind {
        let n = mask_tree(value);
        return (value.to_string_compact(), n);
    }
    // Every piece written is valid UTF-8 (serde_json's escaper, digits, punctuation).
    let text = String::from_utf8(w.out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (text, w.count)
}

thread_local! {
    /// The secret values masked while an envelope is written (`write_masked`).
    static RECORDED: std::cell::RefCell<Option<Vec<String>>> =
        const { std::cell::RefCell::new(None) };
}

/// Shortest value searched for again: shorter ones are words, not secrets.
const RECORD_MIN: usize = 8;

/// Notes a masked value for `write_masked`'s second pass. Only a value that
/// looks like a secret is searched again: one word (no blank) holding a digit, so
/// a plain word a key name caught (`token = "password"`, `secret: none`) is not
/// masked all over the envelope.
fn record(v: &str) {
    if v.len() < RECORD_MIN
        || v.len() > 512
        || !v.bytes().any(|b| b.is_ascii_digit())
        || v.bytes().any(|b| b.is_ascii_whitespace())
    {
        return;
    }
    RECORDED.with(|r| {
        if let Some(list) = r.borrow_mut().as_mut() {
            if list.len() < 1024 {
                list.push(v.to_string());
            }
        }
    });
}

/// The envelope text with every occurrence of a recorded value masked.
fn mask_recorded(text: String, values: Vec<String>) -> (String, usize) {
    match recorded_finder(&values, true).and_then(|f| replace_recorded(&text, &f, true)) {
        Some((masked, n)) => (masked, n),
        None => (text, 0),
    }
}

/// A case-insensitive search (in lowercased text) for the recorded values, as JSON-escaped (`json`) or
/// raw. A value made only of the characters JSON writes outside strings (digits,
/// `true`, `,`...) is left out, so a match in JSON text is always inside a string
/// and the text stays valid JSON; so are values inside the placeholder.
fn recorded_finder(values: &[String], json: bool) -> Option<AhoCorasick> {
    let placeholder = PLACEHOLDER.to_ascii_lowercase();
    let mut words: Vec<String> = values
        .iter()
        .filter(|v| {
            let low = v.to_ascii_lowercase();
            !placeholder.contains(&low)
                && !low.contains(&placeholder)
                && low
                    .bytes()
                    .any(|b| !b"0123456789.-+e,:[]{}truefalsn \t".contains(&b))
        })
        .map(|v| {
            if !json {
                return v.clone();
            }
            let quoted = serde_json::to_string(v).unwrap_or_default();
            quoted
                .get(1..quoted.len().saturating_sub(1))
                .unwrap_or_default()
                .to_string()
        })
        .filter(|v| !v.is_empty())
        // The value as masked and as a template would re-case it (lower, upper,
        // capitalized): the text is searched as it is, with no lowercased copy.
        .flat_map(|v| {
            let lower = v.to_ascii_lowercase();
            let mut cap = lower.clone();
            if let Some(first) = cap.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            [v.to_ascii_uppercase(), cap, lower, v]
        })
        .collect();
    if words.is_empty() {
        return None;
    }
    words.sort();
    words.dedup();
    AhoCorasickBuilder::new()
        .match_kind(MatchKind::LeftmostLongest)
        .build(&words)
        .ok()
}

/// `text` with every match of `finder` masked; in JSON text (`json`) a match must
/// start a character of a string, not follow an escaping backslash.
fn replace_recorded(text: &str, finder: &AhoCorasick, json: bool) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut last = 0;
    let mut n = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        let input = aho_corasick::Input::new(bytes).span(pos..bytes.len());
        let Some(m) = finder.find(input) else { break };
        let escaped = json
            && bytes[..m.start()]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count()
                % 2
                == 1;
        if escaped || !text.is_char_boundary(m.start()) || !text.is_char_boundary(m.end()) {
            pos = m.start() + 1;
            continue;
        }
        out.push_str(&text[last..m.start()]);
        out.push_str(PLACEHOLDER);
        last = m.end();
        pos = m.end();
        n += 1;
    }
    if n == 0 {
        return None;
    }
    out.push_str(&text[last..]);
    Some((out, n))
}

#[cfg(test)]
thread_local! {
    /// Whether the last `write_masked` fell back to the tree pass.
    static TOOK_TREE_PASS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Scanned and re-written as one piece: small enough to stay in cache.
const WINDOW: usize = 8 * 1024;

/// Where a line text that opens a private-key block sits: its array's depth in
/// `frames`, the item's index, and where the item starts in `out`.
#[derive(Clone, Copy)]
struct Tag {
    depth: usize,
    item: usize,
    start: usize,
}

/// A string token written in the current window: its bytes in `out`, and its text.
struct Pending<'a> {
    start: usize,
    end: usize,
    text: &'a str,
    /// An array item in a public block (`in_public_block`): its body lines stay.
    public: bool,
    /// The array and item being written when the string was (for `public`).
    item: Option<(&'a [Json], usize)>,
}

/// Whether `t` (serialized JSON text) holds a run of `BODY_MIN` bytes a key body
/// line is made of (base64 and `=`; a JSON escape's letter counts, so this only
/// over-approximates). Without AVX2, always true: every string gets the test.
fn may_hold_body_line(t: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static AVX2: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if *AVX2.get_or_init(|| std::arch::is_x86_feature_detected!("avx2")) {
            // SAFETY: the CPU has AVX2 (checked above).
            return unsafe { base64_run_avx2(t) };
        }
    }
    true
}

/// `may_hold_body_line` 32 bytes at a time: a byte class mask per block, and the
/// run of set bits carried from block to block.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn base64_run_avx2(t: &[u8]) -> bool {
    use std::arch::x86_64::*;
    let in_range = |v: __m256i, lo: u8, hi: u8| {
        // Signed compares: bytes >= 0x80 are negative, so never in an ASCII range.
        _mm256_and_si256(
            _mm256_cmpgt_epi8(v, _mm256_set1_epi8(lo as i8 - 1)),
            _mm256_cmpgt_epi8(_mm256_set1_epi8(hi as i8 + 1), v),
        )
    };
    let mut run = 0u32;
    let mut i = 0;
    while i + 32 <= t.len() {
        // SAFETY: i + 32 <= t.len(); loadu reads unaligned.
        let v = unsafe { _mm256_loadu_si256(t.as_ptr().add(i).cast::<__m256i>()) };
        let letters = _mm256_or_si256(in_range(v, b'A', b'Z'), in_range(v, b'a', b'z'));
        let digits = in_range(v, b'0', b'9');
        let signs = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'+' as i8)),
                _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'/' as i8)),
            ),
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'=' as i8)),
        );
        let all = _mm256_or_si256(_mm256_or_si256(letters, digits), signs);
        let bits = _mm256_movemask_epi8(all) as u32;
        if bits == u32::MAX {
            run += 32;
        } else {
            // Bit 0 is the block's first byte: the run goes on through its low ones.
            // A run inside one block is under 32 bytes, too short to matter.
            if run + bits.trailing_ones() >= BODY_MIN as u32 {
                return true;
            }
            run = bits.leading_ones();
        }
        if run >= BODY_MIN as u32 {
            return true;
        }
        i += 32;
    }
    for &c in t.get(i..).unwrap_or_default() {
        run = if BASE64_BYTE[c as usize] { run + 1 } else { 0 };
        if run >= BODY_MIN as u32 {
            return true;
        }
    }
    false
}

/// The bytes of a key body line: base64 and its `=` padding.
static BASE64_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=';
        c += 1;
    }
    t
};

/// An array being written.
struct Frame<'a> {
    items: &'a [Json],
    /// The item being written, and where it starts in `out`.
    item: usize,
    start: usize,
    /// A private-key block opens at this item: write it again from there.
    restart: Option<usize>,
    /// (item, start) of the object items begun in the current window.
    objects: Vec<(usize, usize)>,
}

#[derive(Default)]
struct MaskWriter<'a> {
    out: Vec<u8>,
    count: usize,
    /// Start of the window not yet scanned (always a token boundary).
    window: usize,
    pending: Vec<Pending<'a>>,
    candidates: Vec<Candidate>,
    /// Strings of the window that hold a key body line (`has_key_body_line`).
    forced: Vec<Candidate>,
    blocks: Vec<(usize, u64)>,
    scratch: Vec<u8>,
    frames: Vec<Frame<'a>>,
    /// Set by a window that cut the text back to an item: return up to its array.
    unwind: bool,
    /// Something the streaming path cannot place: take the tree pass.
    bail: bool,
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    // Writing to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

impl<'a> MaskWriter<'a> {
    fn string(&mut self, s: &'a str) {
        let start = self.out.len();
        write_str(&mut self.out, s);
        // Whether it is a key body line is decided per window (`flush`): most
        // windows hold no run of 40 base64 bytes, and then no string needs the test.
        self.pending.push(Pending {
            start,
            end: self.out.len(),
            text: s,
            public: false,
            item: self.frames.last().map(|f| (f.items, f.item)),
        });
        if self.out.len() - self.window >= WINDOW {
            self.flush();
        }
    }

    fn stop(&self) -> bool {
        self.unwind || self.bail
    }

    fn write(&mut self, value: &'a Json) {
        match value {
            Json::Str(s) => self.string(s),
            Json::Arr(items) => self.array(items),
            Json::Obj(members) => self.object(members),
            scalar => super::json::write_scalar(&mut self.out, scalar),
        }
    }

    fn array(&mut self, items: &'a [Json]) {
        self.out.push(b'[');
        let depth = self.frames.len();
        self.frames.push(Frame {
            items,
            item: 0,
            start: self.out.len(),
            restart: None,
            objects: Vec::new(),
        });
        let mut j = 0;
        let mut comma = false;
        loop {
            if j == items.len() {
                // A block opening in this array must be found while it is open:
                // scan now if a line text of it is still in the window.
                if !items.is_empty() && self.frames[depth].start >= self.window {
                    self.flush();
                }
                if !self.unwind {
                    break;
                }
            } else {
                if comma {
                    self.out.push(b',');
                }
                let f = &mut self.frames[depth];
                f.item = j;
                f.start = self.out.len();
                if matches!(items[j], Json::Obj(_)) {
                    f.objects.push((j, f.start));
                }
                self.write(&items[j]);
                comma = true;
                j += 1;
            }
            if self.bail {
                return;
            }
            if self.unwind {
                match self.frames[depth].restart.take() {
                    Some(k) => {
                        self.unwind = false;
                        j = self.across(items, k);
                        if self.bail {
                            return;
                        }
                    }
                    None => {
                        self.frames.pop();
                        return;
                    }
                }
            }
        }
        self.out.push(b']');
        self.frames.pop();
    }

    /// Items `k..` of an array, from the item that opens a private-key block to the
    /// one that closes it, as the tree pass writes them (`mask_pem_across`, then
    /// each item masked); returns the item after them. Only these items are cloned.
    fn across(&mut self, items: &[Json], k: usize) -> usize {
        let mut i = k;
        while let Some(item) = items.get(i) {
            let Some(text) = line_text_ref(item) else {
                break;
            };
            if i > k {
                self.out.push(b',');
            }
            // The line text as the block pass leaves it; None: the placeholder alone.
            let mut done = false;
            let line = if i == k {
                let Some(start) = open_block_start(text) else {
                    self.bail = true;
                    return i;
                };
                self.count += 1;
                Some(format!("{}{PLACEHOLDER}", &text[..start]))
            } else {
                pem_end(text, 0).map(|end| {
                    done = true;
                    format!("{PLACEHOLDER}{}", &text[end..])
                })
            };
            match item {
                // Most lines of a block: no copy of the item, and nothing left to mask.
                Json::Str(_) => match line {
                    // The placeholder masks to itself (`idempotent_and_bearer_after_key`).
                    None => write_str(&mut self.out, PLACEHOLDER),
                    Some(line) => match mask_str(&line) {
                        Some((masked, n)) => {
                            self.count += n;
                            write_str(&mut self.out, &masked);
                        }
                        None => write_str(&mut self.out, &line),
                    },
                },
                _ => {
                    let mut item = item.clone();
                    if let Some(s) = line_text(&mut item) {
                        *s = line.unwrap_or_else(|| PLACEHOLDER.to_string());
                    }
                    self.count += mask_tree(&mut item);
                    let mut w = super::json::Writer::default();
                    w.out = std::mem::take(&mut self.out);
                    w.write(&item);
                    self.out = w.out;
                }
            }
            self.window = self.out.len();
            i += 1;
            if done {
                break;
            }
        }
        i
    }

    fn object(&mut self, members: &'a [(String, Json)]) {
        self.out.push(b'{');
        for (i, (k, v)) in members.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            // `{"password": "hunter2"}`: the key=value format, serialized. The tree
            // pass decides on the masked key, so this does too.
            if let Json::Str(s) = v {
                if !s.is_empty() && s != PLACEHOLDER && is_secret_key(k) {
                    let (key, n) = mask_str(k).unwrap_or_else(|| (k.clone(), 0));
                    if is_secret_key(&key) {
                        record(s);
                        write_str(&mut self.out, &key);
                        self.out.push(b':');
                        write_str(&mut self.out, PLACEHOLDER);
                        self.count += n + 1;
                        continue;
                    }
                }
            }
            self.string(k);
            if self.stop() {
                return;
            }
            self.out.push(b':');
            self.write(v);
            if self.stop() {
                return;
            }
        }
        self.out.push(b'}');
    }

    /// The array item whose line text is `p` (a string of the window), if any.
    fn item_of(&self, p: &Pending<'a>) -> Option<Tag> {
        // At most this many items fit in the window (a digit and a comma each).
        let span = (self.out.len() - self.window) / 2 + 2;
        for (depth, f) in self.frames.iter().enumerate().rev() {
            let lo = f.item.saturating_sub(span);
            for k in (lo..=f.item).rev() {
                let Some(item) = f.items.get(k) else { continue };
                if line_text_ref(item).is_some_and(|s| std::ptr::eq(s, p.text)) {
                    let start = match item {
                        Json::Str(_) => p.start,
                        _ if k == f.item => f.start,
                        // An object item begun before the window cannot be cut to.
                        _ => f
                            .objects
                            .iter()
                            .rev()
                            .find(|o| o.0 == k)
                            .map_or(usize::MAX, |o| o.1),
                    };
                    return Some(Tag {
                        depth,
                        item: k,
                        start,
                    });
                }
            }
        }
        None
    }

    /// Scans the window, masks the strings with a candidate and re-writes the window
    /// from the first one changed. A line text that opens a private-key block cuts
    /// the window back to its item, for its array to write again (`across`).
    fn flush(&mut self) {
        let end = self.out.len();
        let window = self.window;
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        scan(
            &self.out[window..end],
            window,
            &mut candidates,
            &mut self.blocks,
        );
        // A key body line has no trigger bytes: such a string is a candidate as a
        // whole, unless it is a line of a public block (a certificate's body).
        if may_hold_body_line(&self.out[window..end]) {
            for p in &mut self.pending {
                if !has_key_body_line(p.text) {
                    continue;
                }
                p.public = p.item.is_some_and(|(items, i)| {
                    items
                        .get(i)
                        .and_then(line_text_ref)
                        .is_some_and(|t| std::ptr::eq(t, p.text))
                        && in_public_block(items, i)
                });
                if !p.public {
                    self.forced.push(Candidate {
                        at: p.start + 1,
                        pem: false,
                    });
                }
            }
        }
        if !self.forced.is_empty() {
            candidates.append(&mut self.forced);
            candidates.sort_by_key(|c| c.at);
        }
        let pending = std::mem::take(&mut self.pending);
        let at = |c: &Candidate| {
            let i = pending.partition_point(|p| p.end <= c.at);
            pending.get(i).filter(|p| p.start <= c.at).map(|p| (i, p))
        };
        let mut cut: Option<Tag> = None;
        for c in candidates.iter().filter(|c| c.pem) {
            let Some((_, p)) = at(c) else { continue };
            if open_block_start(p.text).is_none() {
                continue;
            }
            if let Some(tag) = self.item_of(p) {
                if tag.start < window || tag.start > end {
                    self.bail = true;
                }
                cut = Some(tag);
                break;
            }
        }
        let stop = cut.map_or(end, |t| t.start.min(end));
        let mut replaced: Vec<(usize, usize, String)> = Vec::new();
        let mut last_hit = usize::MAX;
        for c in candidates.iter().take_while(|c| c.at < stop) {
            let Some((i, p)) = at(c) else { continue };
            if i == last_hit {
                continue;
            }
            last_hit = i;
            if let Some((masked, n)) = mask_with(p.text, !p.public) {
                self.count += n;
                replaced.push((p.start, p.end, masked));
            }
        }
        self.candidates = candidates;
        self.pending = pending;
        self.pending.clear();
        if self.bail {
            return;
        }
        // From the last, so the earlier offsets stay put: each moves only the
        // window's tail, which is in cache.
        self.out.truncate(stop);
        for (a, b, masked) in replaced.iter().rev() {
            self.scratch.clear();
            write_str(&mut self.scratch, masked);
            self.out.splice(*a..*b, self.scratch.iter().copied());
        }
        self.window = self.out.len();
        for f in &mut self.frames {
            f.objects.clear();
        }
        if let Some(tag) = cut {
            if let Some(f) = self.frames.get_mut(tag.depth) {
                f.restart = Some(tag.item);
                self.unwind = true;
            }
        }
    }
}

/// `line_text` without changing anything.
fn line_text_ref(item: &Json) -> Option<&str> {
    match item {
        Json::Str(s) => Some(s),
        Json::Obj(_) => item.get("text").and_then(Json::as_str),
        _ => None,
    }
}

/// A place in the JSON text where a secret may start: inside the string token that
/// may hold it. `pem`: a `-----BEGIN ` line.
struct Candidate {
    at: usize,
    pem: bool,
}

/// Byte triples, as nibble classes: bit b of `LO[x & 15] & HI[x >> 4]` of the table
/// for a position says byte x may be at that position of pattern b, and a triple
/// (t[i-1], t[i], t[i+1]) is a candidate when some bit is set at all three. Every
/// secret format has one of these triples, in the serialized (escaped) text too:
/// 0: g h/i o/p/t (ghp_, gho_, github_pat_); 1: s/x/r k/o -/x/_ (sk-, xox, sk_live_,
/// rk_live_); 3: -/: -// -// (-----BEGIN, ://); 4: A/B K/S/e I/a (AKIA, ASIA, Bearer);
/// then a key name, blanks or quotes (`\t` and `\"` escaped), `=` or `:`:
/// 5: the key's last two letters (r w e, or the `\` of `\t`, then d t n y), the sign;
/// 6: its last letter, a blank or quote, the sign; 7: two blanks or quotes, the sign;
/// 2: the `\` of `\"`, the quote, the sign.
/// Nibble products admit a few more bytes than listed (harmless: `verify` decides);
/// `tests::triples_cover_the_table` keeps this in step with `data/redaction.txt`.
struct Triples {
    lo: [[u8; 16]; 3],
    hi: [[u8; 16]; 3],
}

const fn triples() -> Triples {
    const fn set(table: &mut [u8; 16], nibbles: &[u8], bit: u8) {
        let mut i = 0;
        while i < nibbles.len() {
            table[nibbles[i] as usize] |= 1 << bit;
            i += 1;
        }
    }
    let mut t = Triples {
        lo: [[0; 16]; 3],
        hi: [[0; 16]; 3],
    };
    const LETTERS: &[u8] = &[0x4, 0x5, 0x6, 0x7];
    const SIGN: (&[u8], &[u8]) = (&[0xa, 0xd], &[0x3]);
    const KEY_END: (&[u8], &[u8]) = (&[0x4, 0x9, 0xe], LETTERS);
    const BLANK: (&[u8], &[u8]) = (&[0x0, 0x2, 0x7], &[0x2, 0x6]);
    // (bit, [(lo nibbles, hi nibbles) at i-1, i, i+1])
    let rows: [(u8, [(&[u8], &[u8]); 3]); 8] = [
        (
            0,
            [
                (&[0x7], &[0x6]),
                (&[0x8, 0x9], &[0x6]),
                (&[0x0, 0x4, 0xf], &[0x6, 0x7]),
            ],
        ),
        (
            1,
            [
                (&[0x2, 0x3, 0x8], &[0x7]),
                (&[0xb, 0xf], &[0x6]),
                (&[0x8, 0xd, 0xf], &[0x2, 0x5, 0x7]),
            ],
        ),
        (2, [(&[0xc], &[0x5]), BLANK, SIGN]),
        (
            3,
            [
                (&[0xa, 0xd], &[0x2, 0x3]),
                (&[0xd, 0xf], &[0x2]),
                (&[0xd, 0xf], &[0x2]),
            ],
        ),
        (
            4,
            [
                (&[0x1, 0x2], &[0x4]),
                (&[0x3, 0x5, 0xb], &[0x4, 0x5, 0x6]),
                (&[0x1, 0x9], &[0x4, 0x6]),
            ],
        ),
        (5, [(&[0x2, 0x5, 0x7, 0xc], LETTERS), KEY_END, SIGN]),
        (6, [KEY_END, BLANK, SIGN]),
        (7, [BLANK, BLANK, SIGN]),
    ];
    let mut r = 0;
    while r < rows.len() {
        let (bit, cols) = rows[r];
        let mut c = 0;
        while c < 3 {
            set(&mut t.lo[c], cols[c].0, bit);
            set(&mut t.hi[c], cols[c].1, bit);
            c += 1;
        }
        r += 1;
    }
    t
}

static TRIPLES: Triples = triples();

/// Candidates of `t` (the window of text at offset `base`), in order. `hits` is
/// scratch space for the SIMD paths.
fn scan(t: &[u8], base: usize, out: &mut Vec<Candidate>, hits: &mut Vec<(usize, u64)>) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: AVX-512BW is present (checked just above).
            unsafe { scan_avx512(t, base, out, hits) };
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present (checked just above).
            unsafe { scan_avx2(t, base, out, hits) };
            return;
        }
    }
    scan_scalar(t, base, out);
}

fn triple_class(t: &[u8], i: usize) -> u8 {
    let x = &TRIPLES;
    let mut c = 0xff;
    for (k, &b) in t[i - 1..=i + 1].iter().enumerate() {
        c &= x.lo[k][usize::from(b & 15)] & x.hi[k][usize::from(b >> 4)];
    }
    c
}

/// The triples checked one at a time: where no SIMD is available.
fn scan_scalar(t: &[u8], base: usize, out: &mut Vec<Candidate>) {
    for i in 1..t.len().saturating_sub(1) {
        if triple_class(t, i) != 0 {
            verify(t, i, base, out);
        }
    }
}

/// Runs `$block` (a SIMD block of `$w` triples centred at `p + 1 ..`, reading
/// `p .. p + $w + 2`) over all of `t`: in place while blocks fit, then over a
/// zero-padded copy of the tail (a zero byte is in no triple). Verifies the bits
/// found after the blocks, so the loop keeps its registers.
macro_rules! scan_blocks {
    ($t:expr, $base:expr, $out:expr, $hits:expr, $w:expr, $block:expr) => {{
        let t: &[u8] = $t;
        // One slot per block, written every time and kept when it has bits: no
        // branch on what the text holds.
        let hits: &mut Vec<(usize, u64)> = $hits;
        hits.clear();
        hits.resize(t.len() / $w + 4, (0, 0));
        let mut n = 0usize;
        let mut i = 1usize;
        while i + $w + 1 <= t.len() {
            // SAFETY: t[i - 1 .. i + $w + 1] is in bounds.
            let bits: u64 = unsafe { $block(t.as_ptr().add(i - 1)) };
            if let Some(slot) = hits.get_mut(n) {
                *slot = (i, bits);
            }
            n += usize::from(bits != 0);
            i += $w;
        }
        hits.truncate(n);
        if i + 1 < t.len() {
            let mut pad = [0u8; 2 * $w + 2];
            let rest = &t[i - 1..];
            pad[..rest.len()].copy_from_slice(rest);
            let mut j = 0;
            while j + 2 < rest.len() {
                // SAFETY: pad[j .. j + $w + 2] is in bounds (rest.len() <= $w + 1).
                let bits: u64 = unsafe { $block(pad.as_ptr().add(j)) };
                if bits != 0 {
                    hits.push((i + j, bits));
                }
                j += $w;
            }
        }
        for &(at, mut bits) in hits.iter() {
            while bits != 0 {
                let c = at + bits.trailing_zeros() as usize;
                if c + 1 < t.len() {
                    verify(t, c, $base, $out);
                }
                bits &= bits - 1;
            }
        }
    }};
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_avx2(t: &[u8], base: usize, out: &mut Vec<Candidate>, hits: &mut Vec<(usize, u64)>) {
    use std::arch::x86_64::*;
    let x = &TRIPLES;
    // Macros, not closures: the intrinsics must inline into this AVX2 function.
    macro_rules! table {
        ($x:expr) => {
            // SAFETY: a 16-byte table.
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128($x.as_ptr().cast()) })
        };
    }
    let lo = [table!(x.lo[0]), table!(x.lo[1]), table!(x.lo[2])];
    let hi = [table!(x.hi[0]), table!(x.hi[1]), table!(x.hi[2])];
    let nib = _mm256_set1_epi8(0x0f);
    let zero = _mm256_setzero_si256();
    let block = |p: *const u8| {
        let class = |k: usize| {
            // SAFETY: the caller makes p[k .. k + 32] readable.
            let v = unsafe { _mm256_loadu_si256(p.add(k).cast()) };
            let l = _mm256_shuffle_epi8(lo[k], _mm256_and_si256(v, nib));
            let h = _mm256_shuffle_epi8(hi[k], _mm256_and_si256(_mm256_srli_epi16(v, 4), nib));
            _mm256_and_si256(l, h)
        };
        let c = _mm256_and_si256(_mm256_and_si256(class(0), class(1)), class(2));
        u64::from(!(_mm256_movemask_epi8(_mm256_cmpeq_epi8(c, zero)) as u32))
    };
    scan_blocks!(t, base, out, hits, 32, block);
}

/// `scan_avx2` 64 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
unsafe fn scan_avx512(
    t: &[u8],
    base: usize,
    out: &mut Vec<Candidate>,
    hits: &mut Vec<(usize, u64)>,
) {
    use std::arch::x86_64::*;
    let x = &TRIPLES;
    macro_rules! table {
        ($x:expr) => {
            // SAFETY: a 16-byte table.
            _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128($x.as_ptr().cast()) })
        };
    }
    let lo = [table!(x.lo[0]), table!(x.lo[1]), table!(x.lo[2])];
    let hi = [table!(x.hi[0]), table!(x.hi[1]), table!(x.hi[2])];
    let nib = _mm512_set1_epi8(0x0f);
    let block = |p: *const u8| {
        let nibbles = |k: usize| {
            // SAFETY: the caller makes p[k .. k + 64] readable.
            let v = unsafe { _mm512_loadu_si512(p.add(k).cast()) };
            (
                _mm512_and_si512(v, nib),
                _mm512_and_si512(_mm512_srli_epi16(v, 4), nib),
            )
        };
        let (l0, h0) = nibbles(0);
        let (l1, h1) = nibbles(1);
        let (l2, h2) = nibbles(2);
        // 0x80: a AND b AND c.
        let a = _mm512_ternarylogic_epi32::<0x80>(
            _mm512_shuffle_epi8(lo[0], l0),
            _mm512_shuffle_epi8(hi[0], h0),
            _mm512_shuffle_epi8(lo[1], l1),
        );
        let b = _mm512_ternarylogic_epi32::<0x80>(
            _mm512_shuffle_epi8(hi[1], h1),
            _mm512_shuffle_epi8(lo[2], l2),
            _mm512_shuffle_epi8(hi[2], h2),
        );
        _mm512_test_epi8_mask(a, b)
    };
    scan_blocks!(t, base, out, hits, 64, block);
}

/// Checks the triple centred at `i` of `t` (the text at `base`): a format's literal
/// starting at `i - 1`, or a key name before blanks/quotes (maybe escaped) and a
/// single `=` or `:` at `i + 1`.
fn verify(t: &[u8], i: usize, base: usize, out: &mut Vec<Candidate>) {
    let Some(&sign) = t.get(i + 1) else { return };
    if sign != b'=' && sign != b':' {
        const LITERALS: [&[u8]; 11] = [
            b"ghp_",
            b"gho_",
            b"github_pat_",
            b"sk-",
            b"sk_live_",
            b"rk_live_",
            b"://",
            b"xox",
            b"Bearer",
            b"AKIA",
            b"ASIA",
        ];
        let Some(rest) = i.checked_sub(1).and_then(|s| t.get(s..)) else {
            return;
        };
        if rest.starts_with(b"-----BEGIN ") {
            out.push(Candidate {
                at: base + i - 1,
                pem: true,
            });
        } else if LITERALS.iter().any(|l| rest.starts_with(l)) {
            out.push(Candidate {
                at: base + i - 1,
                pem: false,
            });
        }
        return;
    }
    // `==` and `::` are code, never an assignment.
    if let Some(&next) = t.get(i + 2) {
        if next == b'=' || (sign == b':' && next == b':') {
            return;
        }
    }
    // Back from the sign over what `key_value` allows between key and sign, as
    // escaped in JSON (`\t`, `\"`); a key name may end at any of these stops.
    let mut k = i + 1;
    loop {
        if let Some(len) = key_name_before(&t[..k]) {
            out.push(Candidate {
                at: base + k - len,
                pem: false,
            });
            return;
        }
        match k.checked_sub(1).map(|j| t[j]) {
            Some(b' ' | b'"' | b'\'' | b'`' | b'\\') => k -= 1,
            Some(b't') if k >= 2 && t[k - 2] == b'\\' => k -= 2,
            _ => return,
        }
    }
}

/// The length of the key name `t` ends with, ignoring case.
fn key_name_before(t: &[u8]) -> Option<usize> {
    // Every key name ends in one of r/w/e then d/t/n/y: most stops fail here.
    let [.., before, last] = t else { return None };
    if !matches!(last | 0x20, b'd' | b't' | b'n' | b'y')
        || !matches!(before | 0x20, b'r' | b'w' | b'e')
    {
        return None;
    }
    formats()
        .keys
        .iter()
        .find(|k| t.len() >= k.len() && t[t.len() - k.len()..].eq_ignore_ascii_case(k.as_bytes()))
        .map(String::len)
}

/// A batch this large is searched at once: big enough that the per-search cost
/// vanishes, small enough to stay in cache.
const BATCH: usize = 64 * 1024;

/// The strings of a tree in walk order, searched in batches (folded to lowercase,
/// joined by LF); which of them the finder hit, and the string-index range of every
/// array (in pre-order).
#[derive(Default)]
struct Collected {
    joined: Vec<u8>,
    /// Start of each string of the batch in `joined`.
    starts: Vec<usize>,
    /// Index of the batch's first string.
    base: usize,
    hit: Vec<bool>,
    pem_hits: Vec<usize>,
    /// Strings holding a key body line, which the finder cannot see.
    forced: Vec<usize>,
    /// Array items in a public block (`in_public_block`), ascending; `gate`: the
    /// next one, to be added.
    public: Vec<usize>,
    gate: Option<*const u8>,
    any: bool,
    arrays: Vec<(usize, usize)>,
}

impl Collected {
    fn count(&self) -> usize {
        self.base + self.starts.len()
    }

    fn add(&mut self, s: &str) {
        if self.gate.is_some_and(|g| std::ptr::eq(g, s.as_ptr())) {
            self.gate = None;
            self.public.push(self.count());
        } else if has_key_body_line(s) {
            self.forced.push(self.count());
        }
        self.starts.push(self.joined.len());
        let from = self.joined.len();
        self.joined.extend_from_slice(s.as_bytes());
        self.joined[from..].make_ascii_lowercase();
        self.joined.push(b'\n');
        if self.joined.len() >= BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let f = formats();
        self.hit.resize(self.count(), false);
        for i in self.forced.drain(..) {
            if let Some(h) = self.hit.get_mut(i) {
                *h = true;
                self.any = true;
            }
        }
        let mut idx = 0usize;
        for m in f.finder.find_iter(&self.joined) {
            while idx + 1 < self.starts.len() && self.starts[idx + 1] <= m.start() {
                idx += 1;
            }
            if let Some(h) = self.hit.get_mut(self.base + idx) {
                *h = true;
                self.any = true;
            }
            if matches!(f.trigger(m.pattern().as_usize()), Trigger::Pem) {
                self.pem_hits.push(self.base + idx);
            }
        }
        self.base += self.starts.len();
        self.starts.clear();
        self.joined.clear();
    }

    fn collect(&mut self, value: &Json) {
        match value {
            Json::Str(s) => self.add(s),
            Json::Arr(items) => {
                let slot = self.arrays.len();
                self.arrays.push((self.count(), 0));
                for (j, item) in items.iter().enumerate() {
                    if let Some(t) = line_text_ref(item) {
                        if has_key_body_line(t) && in_public_block(items, j) {
                            self.gate = Some(t.as_ptr());
                        }
                    }
                    self.collect(item);
                }
                self.arrays[slot].1 = self.count();
            }
            Json::Obj(members) => {
                for (k, v) in members {
                    self.add(k);
                    self.collect(v);
                }
            }
            _ => {}
        }
    }
}

/// The masking walk: visits strings in `collect`'s order, touching only those hit.
struct Walk<'a> {
    hit: &'a [bool],
    next: usize,
    arrays: &'a [(usize, usize)],
    next_array: usize,
    pem_hits: &'a [usize],
    public: &'a [usize],
}

impl Walk<'_> {
    fn take(&mut self) -> bool {
        let h = self.hit.get(self.next).copied().unwrap_or(false);
        self.next += 1;
        h
    }

    fn mask(&mut self, value: &mut Json) -> usize {
        match value {
            Json::Str(s) => {
                let public = self.public.binary_search(&self.next).is_ok();
                if self.take() {
                    match mask_with(s, !public) {
                        Some((masked, n)) => {
                            *s = masked;
                            n
                        }
                        None => 0,
                    }
                } else {
                    0
                }
            }
            Json::Arr(items) => {
                let (lo, hi) = self.arrays.get(self.next_array).copied().unwrap_or((0, 0));
                self.next_array += 1;
                // Only an array holding a BEGIN trigger can hold a block split across it.
                let a = self.pem_hits.partition_point(|&p| p < lo);
                let b = self.pem_hits.partition_point(|&p| p < hi);
                let mut n = 0;
                if a < b {
                    // In an array of strings, item j is string lo + j.
                    let plain = items.iter().all(|i| matches!(i, Json::Str(_)));
                    let opens: Vec<usize> = self.pem_hits[a..b].iter().map(|p| p - lo).collect();
                    n = mask_pem_across(items, plain.then_some(opens.as_slice()));
                }
                for item in items.iter_mut() {
                    n += self.mask(item);
                }
                n
            }
            Json::Obj(members) => {
                let mut n = 0;
                for (k, v) in members.iter_mut() {
                    let key_hit = self.take();
                    if key_hit {
                        n += mask_in_place(k);
                        // `{"password": "hunter2"}` is the key=value format, serialized.
                        if let Json::Str(s) = v {
                            if !s.is_empty() && s != PLACEHOLDER && is_secret_key(k) {
                                record(s);
                                *s = PLACEHOLDER.to_string();
                                n += 1;
                                // Keep the walk in step with `collect`.
                                self.next += 1;
                                continue;
                            }
                        }
                    }
                    n += self.mask(v);
                }
                n
            }
            _ => 0,
        }
    }
}

fn mask_in_place(s: &mut String) -> usize {
    match mask_str(s) {
        Some((masked, n)) => {
            *s = masked;
            n
        }
        None => 0,
    }
}

/// The text of an array element as the line-based pass sees it: a string, or the
/// `text` member of an object (`read --as strings` items, search matches).
fn line_text(item: &mut Json) -> Option<&mut String> {
    match item {
        Json::Str(s) => Some(s),
        Json::Obj(_) => match item.get_mut("text") {
            Some(Json::Str(s)) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// The line-based pass: a private-key block whose BEGIN line is in one string of an
/// array and whose END line is in a later one (or missing: then to the array's end)
/// is masked across them.
/// `opens`, when known, lists (ascending) the only items that can hold a BEGIN.
fn mask_pem_across(items: &mut [Json], opens: Option<&[usize]>) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < items.len() {
        if let Some(o) = opens {
            match o.get(o.partition_point(|&x| x < i)) {
                Some(&next) => i = next,
                None => break,
            }
        }
        let Some(s) = items.get_mut(i).and_then(line_text) else {
            i += 1;
            continue;
        };
        let Some(start) = open_block_start(s) else {
            i += 1;
            continue;
        };
        s.truncate(start);
        s.push_str(PLACEHOLDER);
        count += 1;
        i += 1;
        while i < items.len() {
            let Some(s) = line_text(&mut items[i]) else {
                break;
            };
            i += 1;
            match pem_end(s, 0) {
                Some(end) => {
                    let rest = s[end..].to_string();
                    *s = format!("{PLACEHOLDER}{rest}");
                    break;
                }
                None => *s = PLACEHOLDER.to_string(),
            }
        }
    }
    count
}

/// Whether an object key names a secret (it ends with a key name of the table,
/// case-insensitively): its string value is masked whole.
fn is_secret_key(key: &str) -> bool {
    key_name_before(key.as_bytes()).is_some()
}

/// The start of a private-key block in `s` that has no END after it in `s`.
fn open_block_start(s: &str) -> Option<usize> {
    let mut from = 0;
    let mut open = None;
    static BEGIN: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    let begin = BEGIN.get_or_init(|| memchr::memmem::Finder::new(b"-----BEGIN "));
    while let Some(rel) = begin.find(&s.as_bytes()[from..]) {
        let at = from + rel;
        match pem_begin(s, at) {
            Some(body) => match pem_end(s, body) {
                Some(end) => {
                    from = end;
                    open = None;
                }
                None => {
                    open = Some(at);
                    break;
                }
            },
            None => from = at + 1,
        }
    }
    open
}

/// True when an input to a write holds the placeholder (writing it would destroy a secret).
pub fn contains_placeholder(s: &[u8]) -> bool {
    memchr::memmem::find(s, PLACEHOLDER.as_bytes()).is_some()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_window_prefilter_finds_every_run_of_40_base64_bytes() {
        // Reference: the longest run of body-line bytes, byte by byte.
        let longest = |t: &[u8]| {
            let (mut run, mut best) = (0usize, 0usize);
            for &c in t {
                run = if BASE64_BYTE[c as usize] { run + 1 } else { 0 };
                best = best.max(run);
            }
            best
        };
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..4000 {
            let len = next() % 300;
            let mut t: Vec<u8> = (0..len).map(|_| b" \",:\\{}[]-"[next() % 10]).collect();
            // A few runs of base64 bytes of lengths around the threshold, anywhere.
            for _ in 0..next() % 4 {
                let run = 30 + next() % 20;
                let at = next() % (t.len() + 1);
                let piece: Vec<u8> = (0..run).map(|k| b"aZ09+/=Q"[(k + at) % 8]).collect();
                t.splice(at..at, piece);
            }
            let has_run = longest(&t) >= BODY_MIN;
            let said = may_hold_body_line(&t);
            // Never a run missed; without AVX2 the prefilter passes everything.
            assert!(said || !has_run, "{:?}", String::from_utf8_lossy(&t));
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                assert_eq!(said, has_run, "{:?}", String::from_utf8_lossy(&t));
            }
        }
    }

    use super::*;
    fn m(s: &str) -> String {
        mask_str(s).map(|(o, _)| o).unwrap_or_else(|| s.to_string())
    }
    #[test]
    fn formats() {
        assert_eq!(m("api_key=abc123"), "api_key=[REDACTED_SECRET]");
        assert_eq!(
            m("DB_PASSWORD = 'hunter2'"),
            "DB_PASSWORD = '[REDACTED_SECRET]'"
        );
        assert_eq!(m(r#""token": "abc""#), r#""token": "[REDACTED_SECRET]""#);
        assert_eq!(m("tokens: 5"), "tokens: 5");
        assert_eq!(m("if password == x"), "if password == x");
        assert_eq!(
            m("Authorization: Bearer abcdefghijk.lmn"),
            "Authorization: Bearer [REDACTED_SECRET]"
        );
        assert_eq!(m("id AKIAIOSFODNN7EXAMPLE end"), "id [REDACTED_SECRET] end");
        assert_eq!(
            m("ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
            "[REDACTED_SECRET]"
        );
        assert_eq!(
            m("the risk-assessment-framework-document"),
            "the risk-assessment-framework-document"
        );
        assert_eq!(
            m("key sk-abcdefghij0123456789abcd"),
            "key [REDACTED_SECRET]"
        );
        assert_eq!(m("xoxb-1234-5678-abcdef"), "[REDACTED_SECRET]");
        let pem = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nb";
        assert_eq!(m(pem), "a\n[REDACTED_SECRET]\nb");
        let cert = "-----BEGIN CERTIFICATE-----\nMIIE\n-----END CERTIFICATE-----";
        assert_eq!(m(cert), cert);
    }
    #[test]
    fn key_body_lines_and_their_look_alikes() {
        let body = "MIIERIgP/58waM+Dx3A5idNoDCDBwb2Dc4/dsdc6lC1MXlPq2Ymk/yE9fz1WuvL4";
        assert_eq!(m(body), PLACEHOLDER);
        assert_eq!(
            m(&format!("a\n+{body}\r\nb")),
            format!("a\n+{PLACEHOLDER}\r\nb")
        );
        let sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        for keep in [
            sha,
            "ThisIsAVeryLongIdentifierWithoutAnyDigitsInItAtAll",
            "libs/geometry/index/test/rtree/generated/p3d/Jamfile",
            &body[..39],
            &format!("{body}QUJDRAQUJDRAQ"),
            &format!("  {body}"),
        ] {
            assert_eq!(m(keep), keep);
        }
        let cert = format!(
            "-----BEGIN CERTIFICATE-----\n{body}\n{body}\n-----END CERTIFICATE-----\n{body}"
        );
        assert_eq!(
            m(&cert),
            format!(
                "-----BEGIN CERTIFICATE-----\n{body}\n{body}\n-----END CERTIFICATE-----\n{PLACEHOLDER}"
            )
        );
        // Lines of an array: the same, in both passes.
        let pub_ = "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa";
        let lines = Json::Arr(vec![
            Json::str("-----BEGIN CERTIFICATE-----"),
            Json::str(pub_),
            Json::str(pub_),
            Json::str("-----END CERTIFICATE-----"),
            Json::str(body),
        ]);
        let mut a = lines.clone();
        assert_eq!(mask_tree(&mut a), 1);
        let mut b = lines.clone();
        let (text, n) = write_masked(&mut b);
        assert_eq!((text.as_str(), n), (a.to_string_compact().as_str(), 1));
        assert!(text.ends_with(&format!(r#""-----END CERTIFICATE-----","{PLACEHOLDER}"]"#)));
    }
    #[test]
    fn a_masked_value_is_masked_elsewhere_in_the_envelope() {
        let mut j = Json::obj();
        j.push("text", Json::str("password = \"hunter2hunter2\""));
        j.push(
            "groups",
            Json::Arr(vec![
                Json::str("HUNTER2HUNTER2"),
                Json::str("x\\hunter2hunter2"),
            ]),
        );
        j.push("short", Json::str("pw: abc then abc"));
        j.push("n", Json::UInt(12345678));
        let mut a = j.clone();
        let (text, n) = write_masked(&mut a);
        assert_eq!(
            text,
            r#"{"text":"password = \"[REDACTED_SECRET]\"","groups":["[REDACTED_SECRET]","x\\[REDACTED_SECRET]"],"short":"pw: abc then abc","n":12345678}"#
        );
        assert_eq!(n, 3);
        let mut b = j.clone();
        assert_eq!(mask_tree(&mut b), 3);
        assert_eq!(b.to_string_compact(), text);
    }
    #[test]
    fn url_passwords_and_stripe_keys() {
        assert_eq!(
            m("postgres://admin:Sup3rS3cret@db.example/x"),
            format!("postgres://admin:{PLACEHOLDER}@db.example/x")
        );
        for keep in [
            "https://user@example.com/a",
            "http://example.com:8080/b",
            "a://b",
        ] {
            assert_eq!(m(keep), keep);
        }
        assert_eq!(
            m("k sk_live_51H8abcdefGHIJKLmnop"),
            format!("k {PLACEHOLDER}")
        );
        assert_eq!(
            m("k rk_live_51H8abcdefGHIJKLmnop"),
            format!("k {PLACEHOLDER}")
        );
    }
    #[test]
    fn masked_text_masks_to_itself() {
        for s in [
            "password=[REDACTED_SECRET]",
            "password=[REDACTED_SECRET] and more",
            "api_key: [REDACTED_SECRET]",
            "postgres://admin:[REDACTED_SECRET]@db",
        ] {
            assert_eq!(mask_str(s), None, "{s}");
        }
    }
    #[test]
    fn idempotent_and_bearer_after_key() {
        assert_eq!(
            m("password=[REDACTED_SECRET]"),
            "password=[REDACTED_SECRET]"
        );
        assert_eq!(
            m("password = '[REDACTED_SECRET]'"),
            "password = '[REDACTED_SECRET]'"
        );
        assert_eq!(
            m("auth_token: Bearer abcdefghijkl123"),
            "auth_token: [REDACTED_SECRET]"
        );
        assert!(mask_str("[REDACTED_SECRET]").is_none());
    }
    #[test]
    fn keys_and_secret_named_members() {
        let mut j = Json::obj();
        j.push("password=hunter2", Json::str("x"));
        j.push("DB_PASSWORD", Json::str("hunter3"));
        j.push("approx_tokens", Json::UInt(3));
        j.push("name", Json::str("token"));
        assert_eq!(mask_tree(&mut j), 2);
        assert_eq!(
            j.to_string_compact(),
            r#"{"password=[REDACTED_SECRET]":"x","DB_PASSWORD":"[REDACTED_SECRET]","approx_tokens":3,"name":"token"}"#
        );
    }
    #[test]
    fn pem_across_objects_with_text() {
        let mut j = Json::Arr(vec![
            Json::Obj(vec![
                ("offset".into(), Json::UInt(0)),
                ("text".into(), Json::str("-----BEGIN PRIVATE KEY-----")),
            ]),
            Json::Obj(vec![
                ("offset".into(), Json::UInt(28)),
                ("text".into(), Json::str("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")),
            ]),
        ]);
        assert_eq!(mask_tree(&mut j), 1);
        assert!(!j.to_string_compact().contains("MIIE"));
    }
    #[test]
    fn bytes_spans_keep_offsets() {
        let b = b"\xff\xfe password=abc\n";
        let spans = secret_spans_bytes(b);
        assert_eq!(spans, vec![12..15]);
    }
    #[test]
    fn fused_writer_masks_after_a_block_end() {
        let mut j = Json::obj();
        j.push(
            "lines",
            Json::Arr(vec![
                Json::str("password=abc -----BEGIN RSA PRIVATE KEY-----"),
                Json::str("x"),
                Json::str("-----END RSA PRIVATE KEY----- token: zz9"),
            ]),
        );
        let (text, n) = write_masked(&mut j);
        assert_eq!(n, 3, "{text}");
        assert_eq!(
            text,
            r#"{"lines":["password=[REDACTED_SECRET] [REDACTED_SECRET]","[REDACTED_SECRET]","[REDACTED_SECRET] token: [REDACTED_SECRET]"]}"#
        );
    }
    #[test]
    fn pem_across_array() {
        let mut j = Json::Arr(vec![
            Json::str("x"),
            Json::str("-----BEGIN OPENSSH PRIVATE KEY-----"),
            Json::str("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"),
            Json::str("-----END OPENSSH PRIVATE KEY-----"),
            Json::str("y"),
        ]);
        assert_eq!(mask_tree(&mut j), 1);
        assert_eq!(
            j.to_string_compact(),
            r#"["x","[REDACTED_SECRET]","[REDACTED_SECRET]","[REDACTED_SECRET]","y"]"#
        );
    }

    /// The scanner's byte triples are written for the table's current formats: a
    /// key name, prefix or label added to `data/redaction.txt` that they do not
    /// cover fails here, not silently in the field.
    #[test]
    fn triples_cover_the_table() {
        let f = super::formats();
        let found = |text: &str| {
            let mut c = Vec::new();
            scan_scalar(text.as_bytes(), 0, &mut c);
            c
        };
        for k in &f.keys {
            let b = k.as_bytes();
            assert!(
                b.len() >= 2 && matches!(b[b.len() - 2], b'r' | b'w' | b'e'),
                "{k}"
            );
            let upper = k.to_ascii_uppercase();
            for key in [k.clone(), upper] {
                // As escaped in JSON text: `\t` and `\"` between key and sign.
                for gap in [
                    "", " ", "  ", "'", "`", "\\\"", "\\t", " \\t", "\\t ", "' ", "\\\" ",
                ] {
                    for sign in ["=", ":"] {
                        let text = format!("[\"{key}{gap}{sign}v\"]");
                        assert!(
                            found(&text)
                                .iter()
                                .any(|c| (2..2 + key.len()).contains(&c.at)),
                            "{text}: no candidate in the key"
                        );
                    }
                }
            }
        }
        for p in &f.prefixes {
            let text = format!("[\"x {}abc\"]", p.prefix);
            assert!(found(&text).iter().any(|c| c.at == 4), "{text}");
        }
        for word in ["Bearer", "AKIA", "ASIA", "://"] {
            let text = format!("[\"x {word}\"]");
            assert!(found(&text).iter().any(|c| c.at == 4), "{text}");
        }
        for l in &f.pem_labels {
            let text = format!("[\"-----BEGIN {l}-----\"]");
            assert!(found(&text).iter().any(|c| c.at == 2 && c.pem), "{text}");
        }
    }

    /// The SIMD scans find exactly what the one-at-a-time scan finds, at every
    /// length and alignment (the padded tail included).
    #[test]
    fn simd_scan_equals_scalar_scan() {
        let alphabet: &[u8] = b"ab tdnyeErRwWgGhisk-xoAKSIBea=:\\\"'`_ \n-----BEGIN token Password";
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..400 {
            let len = (next() % 700) as usize + round % 3;
            let text: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let mut want = Vec::new();
            scan_scalar(&text, 7, &mut want);
            let mut got = Vec::new();
            scan(&text, 7, &mut got, &mut Vec::new());
            let key = |c: &Vec<Candidate>| c.iter().map(|c| (c.at, c.pem)).collect::<Vec<_>>();
            assert_eq!(key(&got), key(&want), "{}", String::from_utf8_lossy(&text));
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                let mut avx2 = Vec::new();
                // SAFETY: AVX2 is present (checked just above).
                unsafe { scan_avx2(&text, 7, &mut avx2, &mut Vec::new()) };
                assert_eq!(key(&avx2), key(&want));
            }
        }
    }

    /// A window boundary, a block across many windows, and an object item whose
    /// `text` opens a block: the streaming writer still prints what the tree pass
    /// prints.
    #[test]
    fn fused_writer_across_windows() {
        let mut lines = Vec::new();
        for i in 0..3000 {
            lines.push(Json::str(match i % 700 {
                // Built, so a `read` of this file does not open a block here.
                5 => format!("x -----{} RSA PRIVATE KEY-----", "BEGIN"),
                6..=400 => format!("MIIE{i}abcdefghij token=zz{i}"),
                401 => "-----END RSA PRIVATE KEY----- Api_Key\t= 'k1'".to_string(),
                402 if i < 700 => format!("PASSWORD\"  :\"p\" -----{} PRIVATE KEY-----", "BEGIN"),
                _ => format!("line {i} secret_key = v{i} tokens=1 x == y a::b"),
            }));
        }
        let items: Vec<Json> = (0..400)
            .map(|i| {
                let mut o = Json::obj();
                o.push("offset", Json::UInt(i));
                o.push(
                    "text",
                    Json::str(if i % 97 == 3 {
                        format!("-----{} OPENSSH PRIVATE KEY-----", "BEGIN")
                    } else {
                        format!("text {i} auth_token: abc{i}")
                    }),
                );
                o
            })
            .collect();
        let mut tree = Json::obj();
        tree.push("lines", Json::Arr(lines));
        tree.push("strings", Json::Arr(items));
        tree.push("DB_PASSWORD", Json::str("hunter2"));
        let mut a = tree.clone();
        let n = mask_tree(&mut a);
        let mut b = tree.clone();
        let (text, m) = write_masked(&mut b);
        assert_eq!(text, a.to_string_compact());
        assert_eq!(n, m);
        assert!(n > 800, "{n}");
        assert!(
            !TOOK_TREE_PASS.with(|t| t.get()),
            "the streaming path gave up"
        );
    }
}

//! The secret mask: finds known secret formats in text and replaces each with
//! `[REDACTED_SECRET]`. It runs over every string and key of every envelope.
//!
//! Speed matters because it runs on everything: one Aho-Corasick pass over the
//! trigger words (case-insensitive) finds candidate positions, and only those are
//! checked against the full format. The format lists are in `data/redaction.txt`.

use super::json::Json;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
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
    /// Triggers, in this order: prefixes, keys, "-----BEGIN ", "bearer", "akia", "asia".
    finder: AhoCorasick,
}

#[derive(Clone, Copy)]
enum Trigger {
    Prefix(usize),
    Key,
    Pem,
    Bearer,
    Aws,
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
        // Overlapping search is not needed: at most one secret starts at a position,
        // and key names that are suffixes of others ("token" in "access_token") are
        // tried at every start the standard search reports.
        let finder = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&words)
            .unwrap_or_else(|_| {
                AhoCorasick::new(["-----BEGIN "]).expect("a one-word automaton always builds")
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
                _ => Trigger::Aws,
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
    let rest = &s[from..];
    let i = rest.find("-----END ")?;
    let after = &rest[i + 9..];
    let close = after.find("-----")?;
    Some(from + i + 9 + close + 5)
}

/// The spans of `s` that are secrets, sorted and non-overlapping. A PEM block whose
/// END is not in `s` runs to the end of `s`.
pub fn secret_spans(s: &str) -> Vec<Range<usize>> {
    let f = formats();
    let bytes = s.as_bytes();
    let mut spans: Vec<Range<usize>> = Vec::new();
    let mut covered = 0usize;
    for m in f.finder.find_overlapping_iter_safe(s) {
        let (pattern, start, end) = m;
        if start < covered {
            continue;
        }
        let span = match f.trigger(pattern) {
            Trigger::Pem => {
                pem_begin(s, start).map(|body| start..pem_end(s, body).unwrap_or(s.len()))
            }
            Trigger::Bearer => bearer(s, start, end),
            Trigger::Aws => aws(bytes, start, end),
            Trigger::Prefix(i) => token(bytes, start, end, &f.prefixes[i]),
            Trigger::Key => key_value(s, start, end),
        };
        if let Some(span) = span {
            if span.start >= covered && span.end > span.start {
                covered = span.end;
                spans.push(span);
            }
        }
    }
    spans
}

trait SafeIter {
    fn find_overlapping_iter_safe<'a>(&'a self, s: &'a str) -> Vec<(usize, usize, usize)>;
}

impl SafeIter for AhoCorasick {
    fn find_overlapping_iter_safe<'a>(&'a self, s: &'a str) -> Vec<(usize, usize, usize)> {
        // Overlapping matches let "token" inside "access_token" and a prefix inside a
        // key both be tried; results come sorted by end, so sort by start.
        let mut out: Vec<(usize, usize, usize)> = match self.try_find_overlapping_iter(s) {
            Ok(it) => it
                .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
                .collect(),
            Err(_) => self
                .find_iter(s)
                .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
                .collect(),
        };
        out.sort_by_key(|&(p, s, _)| (s, p));
        out
    }
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

fn key_value(s: &str, start: usize, end: usize) -> Option<Range<usize>> {
    let bytes = s.as_bytes();
    // The key name must end the identifier: `tokens=` is not `token=`.
    let _ = start;
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
    // Byte positions at ASCII delimiters are char boundaries; guard anyway.
    if !s.is_char_boundary(value_start) || !s.is_char_boundary(j) {
        return None;
    }
    Some(value_start..j)
}

/// Replaces the secrets of `s`; `None` when there are none.
pub fn mask_str(s: &str) -> Option<(String, usize)> {
    let spans = secret_spans(s);
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for span in &spans {
        out.push_str(&s[last..span.start]);
        out.push_str(PLACEHOLDER);
        last = span.end;
    }
    out.push_str(&s[last..]);
    Some((out, spans.len()))
}

/// Masks every string and key of the tree in place; returns the number of regions masked.
pub fn mask_tree(value: &mut Json) -> usize {
    match value {
        Json::Str(s) => mask_in_place(s),
        Json::Arr(items) => {
            let mut n = mask_pem_across(items);
            for item in items.iter_mut() {
                n += mask_tree(item);
            }
            n
        }
        Json::Obj(members) => {
            let mut n = 0;
            for (k, v) in members.iter_mut() {
                n += mask_in_place(k);
                n += mask_tree(v);
            }
            n
        }
        _ => 0,
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

/// The line-based pass: a private-key block whose BEGIN line is in one string of an
/// array and whose END line is in a later one (or missing) is masked across them.
fn mask_pem_across(items: &mut [Json]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < items.len() {
        let open_at = match &items[i] {
            Json::Str(s) => open_block_start(s),
            _ => None,
        };
        let Some(start) = open_at else {
            i += 1;
            continue;
        };
        if let Json::Str(s) = &mut items[i] {
            s.truncate(start);
            s.push_str(PLACEHOLDER);
        }
        count += 1;
        i += 1;
        while i < items.len() {
            let Json::Str(s) = &mut items[i] else { break };
            match pem_end(s, 0) {
                Some(end) => {
                    let rest = s[end..].to_string();
                    *s = format!("{PLACEHOLDER}{rest}");
                    i += 1;
                    break;
                }
                None => {
                    *s = PLACEHOLDER.to_string();
                    i += 1;
                }
            }
        }
    }
    count
}

/// The start of a private-key block in `s` that has no END after it in `s`.
fn open_block_start(s: &str) -> Option<usize> {
    let mut from = 0;
    let mut open = None;
    while let Some(rel) = s[from..].find("-----BEGIN ") {
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
    fn masked_text_masks_to_itself() {
        for s in [
            "password=[REDACTED_SECRET]",
            "password=[REDACTED_SECRET] and more",
            "api_key: [REDACTED_SECRET]",
        ] {
            assert_eq!(mask_str(s), None, "{s}");
        }
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
}

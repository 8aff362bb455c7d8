//! The secret mask: finds known secret formats in text and replaces each with
//! `[REDACTED_SECRET]`. It runs over every string and key of every envelope.
//!
//! Speed matters because it runs on everything: one Aho-Corasick pass over the
//! trigger words (case-insensitive) finds candidate positions, and only those are
//! checked against the full format. The format lists are in `data/redaction.txt`.

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
    // The finder runs over an ASCII-lowercased copy (same offsets) so it can use its
    // SIMD prefilter; case-sensitive formats are verified on the original.
    thread_local! {
        static FOLDED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    FOLDED.with(|cell| {
        let mut folded = cell.borrow_mut();
        folded.clear();
        folded.extend(s.bytes().map(|b| b.to_ascii_lowercase()));
        spans_in(s, &folded)
    })
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
            Trigger::Key => key_value(s, start, end),
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
///
/// One finder pass runs over all the tree's strings at once (folded to lowercase
/// and joined by LF, which no trigger contains), so a large envelope costs one SIMD
/// scan rather than a search call per string; only the strings it hits are checked
/// against the full formats.
pub fn mask_tree(value: &mut Json) -> usize {
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
        changed: Vec::new(),
        across: false,
    };
    state.mask(value)
}

/// The compact JSON text of `value` with every secret masked, and how many were.
///
/// The fast path for the whole envelope: serialize once while recording where each
/// string's token lies, scan that text (contiguous, folded in cache-sized batches),
/// and only when the scan hits walk the tree to verify and mask the strings it hit,
/// splicing their new tokens into the text instead of serializing again.
pub fn write_masked(value: &mut Json) -> (String, usize) {
    let mut rec = super::json::Writer::recording();
    rec.write(value);
    let spans = std::mem::take(&mut rec.spans);
    let arrays = std::mem::take(&mut rec.arrays);
    let text = rec.into_string();
    let f = formats();
    let spans = &spans;
    let mut hit = vec![false; spans.len()];
    let mut pem_hits: Vec<usize> = Vec::new();
    let mut any = false;
    // Triggers are at most this long; batches overlap by it so none is split.
    const OVERLAP: usize = 16;
    let bytes = text.as_bytes();
    let mut folded: Vec<u8> = Vec::with_capacity(BATCH + OVERLAP);
    let mut from = 0usize;
    while from < bytes.len() {
        let to = (from + BATCH + OVERLAP).min(bytes.len());
        folded.clear();
        folded.extend_from_slice(&bytes[from..to]);
        folded.make_ascii_lowercase();
        for m in f.finder.find_iter(&folded) {
            if m.start() >= BATCH {
                break;
            }
            let at = from + m.start();
            let i = spans.partition_point(|sp| sp.0 <= at);
            let Some(i) = i.checked_sub(1) else { continue };
            if at >= spans[i].1 {
                continue;
            }
            hit[i] = true;
            any = true;
            if matches!(f.trigger(m.pattern().as_usize()), Trigger::Pem) {
                pem_hits.push(i);
            }
        }
        from += BATCH;
    }
    if !any {
        return (text, 0);
    }
    pem_hits.dedup();
    let mut walk = Walk {
        hit: &hit,
        next: 0,
        arrays: &arrays,
        next_array: 0,
        pem_hits: &pem_hits,
        changed: Vec::new(),
        across: false,
    };
    let n = walk.mask(value);
    if n == 0 {
        return (text, 0);
    }
    if walk.across {
        return (value.to_string_compact(), n);
    }
    let mut changed = walk.changed;
    // Stable: a string changed twice (block pass, then its own formats) keeps its last token.
    changed.sort_by_key(|c| c.0);
    let mut last_of: Vec<(usize, String)> = Vec::with_capacity(changed.len());
    for c in changed {
        match last_of.last_mut() {
            Some(prev) if prev.0 == c.0 => *prev = c,
            _ => last_of.push(c),
        }
    }
    let changed = last_of;
    let mut out = String::with_capacity(text.len() + 64);
    let mut last = 0usize;
    for (i, tok) in &changed {
        let Some(&(a, b)) = spans.get(*i) else {
            continue;
        };
        if a < last {
            continue;
        }
        out.push_str(&text[last..a]);
        out.push_str(tok);
        last = b;
    }
    out.push_str(&text[last..]);
    (out, n)
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
    any: bool,
    arrays: Vec<(usize, usize)>,
}

impl Collected {
    fn count(&self) -> usize {
        self.base + self.starts.len()
    }

    fn add(&mut self, s: &str) {
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
                for item in items {
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
    /// Strings the walk changed: (index, new JSON token), for splicing into text.
    changed: Vec<(usize, String)>,
    /// A block masked across an array changed strings not listed in `changed`.
    across: bool,
}

fn json_token(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
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
                let at = self.next;
                if self.take() {
                    let n = mask_in_place(s);
                    if n > 0 {
                        self.changed.push((at, json_token(s)));
                    }
                    n
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
                    let mut touched = Vec::new();
                    n = mask_pem_across_noting(
                        items,
                        plain.then_some(opens.as_slice()),
                        &mut touched,
                    );
                    if plain {
                        for j in touched {
                            if let Some(Json::Str(s)) = items.get(j) {
                                self.changed.push((lo + j, json_token(s)));
                            }
                        }
                    } else {
                        self.across |= n > 0;
                    }
                }
                for item in items.iter_mut() {
                    n += self.mask(item);
                }
                n
            }
            Json::Obj(members) => {
                let mut n = 0;
                for (k, v) in members.iter_mut() {
                    let at = self.next;
                    let key_hit = self.take();
                    if key_hit {
                        let masked = mask_in_place(k);
                        if masked > 0 {
                            self.changed.push((at, json_token(k)));
                        }
                        n += masked;
                        // `{"password": "hunter2"}` is the key=value format, serialized.
                        if let Json::Str(s) = v {
                            if !s.is_empty() && s != PLACEHOLDER && is_secret_key(k) {
                                *s = PLACEHOLDER.to_string();
                                n += 1;
                                self.changed.push((self.next, json_token(s)));
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
/// `touched` receives the indices of the items it changed.
fn mask_pem_across_noting(
    items: &mut [Json],
    opens: Option<&[usize]>,
    touched: &mut Vec<usize>,
) -> usize {
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
        touched.push(i);
        count += 1;
        i += 1;
        while i < items.len() {
            let Some(s) = line_text(&mut items[i]) else {
                break;
            };
            touched.push(i);
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
    let key = key.as_bytes();
    formats().keys.iter().any(|k| {
        key.len() >= k.len() && key[key.len() - k.len()..].eq_ignore_ascii_case(k.as_bytes())
    })
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
}

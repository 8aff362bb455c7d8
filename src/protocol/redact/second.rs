//! The second pass: a value masked once is masked wherever else it appears in the same
//! envelope (a search group, a diff line that moved or re-cased it). The values are an
//! explicit `Recorded` list carried by the masking pass, not process state.

use super::PLACEHOLDER;
use super::json::Json;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// Shortest value searched for again: shorter ones are words, not secrets.
const RECORD_MIN: usize = 8;
/// At most this many values are searched for again.
const RECORD_MAX: usize = 1024;

/// The secret values the first pass masked.
#[derive(Default, Debug)]
pub struct Recorded {
    values: Vec<String>,
}

impl Recorded {
    /// Notes a masked value. Only one that looks like a secret is searched again: one
    /// word (no blank) holding a digit, so a plain word a key name caught is not masked
    /// all over the envelope.
    pub fn note(&mut self, v: &str) {
        if v.len() < RECORD_MIN
            || v.len() > 512
            || self.values.len() >= RECORD_MAX
            || !v.bytes().any(|b| b.is_ascii_digit())
            || v.bytes().any(|b| b.is_ascii_whitespace())
        {
            return;
        }
        self.values.push(v.to_string());
    }

    /// A search for the values as JSON-escaped (`json`) or raw, in their own, lower,
    /// upper and capitalized case. A value made only of what JSON writes outside
    /// strings (digits, `true`, `,`...) is left out, so a match in JSON text is always
    /// inside a string; so are values inside the mask.
    fn finder(&self, json: bool) -> Option<AhoCorasick> {
        let placeholder = PLACEHOLDER.to_ascii_lowercase();
        let mut words: Vec<String> = self
            .values
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

    /// The envelope text with every other occurrence of a value masked, and how many.
    pub fn mask_text(&self, text: String) -> (String, usize) {
        if self.values.is_empty() {
            return (text, 0);
        }
        match self.finder(true).and_then(|f| replace(&text, &f, true)) {
            Some(r) => r,
            None => (text, 0),
        }
    }

    /// `mask_text` over a tree's strings and keys.
    pub fn mask_tree(&self, value: &mut Json) -> usize {
        if self.values.is_empty() {
            return 0;
        }
        match self.finder(false) {
            Some(f) => tree(value, &f),
            None => 0,
        }
    }
}

fn tree(value: &mut Json, finder: &AhoCorasick) -> usize {
    let one = |s: &mut String| match replace(s, finder, false) {
        Some((masked, n)) => {
            *s = masked;
            n
        }
        None => 0,
    };
    match value {
        Json::Str(s) => one(s),
        Json::Arr(items) => items.iter_mut().map(|i| tree(i, finder)).sum(),
        Json::Obj(members) => members
            .iter_mut()
            .map(|(k, v)| one(k) + tree(v, finder))
            .sum(),
        _ => 0,
    }
}

/// `text` with every match of `finder` masked; in JSON text (`json`) a match must
/// start a character of a string, not follow an escaping backslash.
fn replace(text: &str, finder: &AhoCorasick, json: bool) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let (mut last, mut n, mut pos) = (0, 0, 0);
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

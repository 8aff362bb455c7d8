//! The second pass: a value masked once is masked wherever else it appears in the same
//! envelope (a search group, a diff line that moved or re-cased it). The values are an
//! explicit `Recorded` list carried by the masking pass, not process state.

use super::PLACEHOLDER;
use super::json::Json;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use std::cell::OnceCell;

/// Shortest value searched for again: shorter ones are words, not secrets.
const RECORD_MIN: usize = 8;
/// At most this many values are searched for again.
const RECORD_MAX: usize = 1024;

/// The secret values the first pass masked.
#[derive(Default, Debug)]
pub struct Recorded {
    values: Vec<String>,
    /// Values noted, a value noted again counted again (`RECORD_MAX`).
    noted: usize,
    /// The searches over `values`, each over a run of them, oldest first. An
    /// answer masked once has one run; a stream (masking event after event while
    /// values are added) adds a run for the new values and merges two runs when
    /// the newer one is as long as the one before it, so each value is built into
    /// a search about log2(n) times, not once per event.
    runs: Vec<Run>,
}

/// A run of `values` and its searches (raw, JSON-escaped), built when first used.
#[derive(Debug)]
struct Run {
    values: std::ops::Range<usize>,
    built: [OnceCell<Option<AhoCorasick>>; 2],
}

impl Run {
    fn new(values: std::ops::Range<usize>) -> Run {
        Run {
            values,
            built: Default::default(),
        }
    }
}

impl Recorded {
    /// Notes a masked value. Only one that looks like a secret is searched again: one
    /// word (no blank) holding a digit, so a plain word a key name caught is not masked
    /// all over the envelope.
    pub fn note(&mut self, v: &str) {
        if v.len() < RECORD_MIN
            || v.len() > 512
            || self.noted >= RECORD_MAX
            || !v.bytes().any(|b| b.is_ascii_digit())
            || v.bytes().any(|b| b.is_ascii_whitespace())
        {
            return;
        }
        self.noted += 1;
        if !self.values.iter().any(|w| w == v) {
            self.values.push(v.to_string());
        }
    }

    /// The values noted so far (each once).
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// The runs covering every value noted so far (see `runs`).
    fn runs(&mut self) {
        let covered = self.runs.last().map_or(0, |r| r.values.end);
        if covered < self.values.len() {
            self.runs.push(Run::new(covered..self.values.len()));
        }
        while let [.., a, b] = self.runs.as_slice() {
            if b.values.len() < a.values.len() {
                break;
            }
            let merged = a.values.start..b.values.end;
            self.runs.truncate(self.runs.len() - 2);
            self.runs.push(Run::new(merged));
        }
    }

    /// `run`'s search, built once.
    fn finder<'a>(&'a self, run: &'a Run, json: bool) -> Option<&'a AhoCorasick> {
        run.built[usize::from(json)]
            .get_or_init(|| build(&self.values[run.values.clone()], json))
            .as_ref()
    }

    /// The envelope text with every other occurrence of a value masked, and how many.
    pub fn mask_text(&mut self, text: String) -> (String, usize) {
        let (mut text, mut n) = (text, 0);
        if self.values.is_empty() {
            return (text, 0);
        }
        self.runs();
        for run in &self.runs {
            if let Some((masked, k)) = self.finder(run, true).and_then(|f| replace(&text, f, true))
            {
                text = masked;
                n += k;
            }
        }
        (text, n)
    }

    /// `mask_text` over a tree's strings and keys.
    pub fn mask_tree(&mut self, value: &mut Json) -> usize {
        if self.values.is_empty() {
            return 0;
        }
        self.runs();
        let finders = self.runs.iter().filter_map(|run| self.finder(run, false));
        finders.map(|f| tree(value, f)).sum()
    }
}

/// A search for `values` as JSON-escaped (`json`) or raw, in their own, lower,
/// upper and capitalized case. A value made only of what JSON writes outside
/// strings (digits, `true`, `,`...) is left out, so a match in JSON text is always
/// inside a string; so are values inside the mask.
fn build(values: &[String], json: bool) -> Option<AhoCorasick> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream notes values between its events: every value noted so far is
    /// masked in the next event, as one pass over them all would, while the values
    /// are built into at most log2(n) + 1 searches.
    #[test]
    fn values_noted_between_events_are_all_masked() {
        let mut r = Recorded::default();
        let values: Vec<String> = (0..300).map(|i| format!("Zq8v2LmP{i:04}xA1Wk")).collect();
        for (i, v) in values.iter().enumerate() {
            r.note(v);
            r.note(v);
            let mut event = Json::str(format!("a {} b {}", values[i / 2], v));
            assert_eq!(r.mask_tree(&mut event), 2, "{i}");
            assert_eq!(event, Json::str("a [REDACTED_SECRET] b [REDACTED_SECRET]"));
            assert!(r.runs.len() <= 10, "{} runs", r.runs.len());
        }
        let mut all = Json::str(values.join(" "));
        assert_eq!(r.mask_tree(&mut all), 300);
        let (text, n) = r.mask_text(values.join(","));
        assert_eq!(n, 300);
        assert!(!text.contains("Zq8v"), "{text}");
    }
}

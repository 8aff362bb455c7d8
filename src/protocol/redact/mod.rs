//! The secret mask: finds secrets in text and replaces each with `[REDACTED_SECRET]`.
//! It runs over every string and key of every envelope.
//!
//! - `policy`: what is masked and the mask text; key words and value judgement
//!   (`data/redaction.txt`).
//! - detectors: `formats` (provider tokens by prefix, alphabet, length and checksum,
//!   `data/secret-formats.tsv`; JWTs and other structured tokens), `keyed` (values
//!   after secret-named keys in every common syntax, headers, URL userinfo;
//!   `flags`, command-line options; `below`, a value on the line after its key's),
//!   `pem` (private keys, lone key body lines).
//! - `lines`: the line machine running every detector over a line and carrying a
//!   key block from line to line.
//! - `tree`: the reference pass over a JSON tree; `writer`: the streaming pass that
//!   masks while it writes (property-tested against `tree`); `prefilter`: the SIMD
//!   check that lets the writer skip strings (the only unsafe code); `second`: a
//!   masked value masked wherever else it appears, as an explicit value.
//! - `bytes`: byte, UTF-16 and part-of-a-line variants. `named`: a file whose
//!   name is its value's key (`secrets/db_password` holding one value).

use super::json;
use std::ops::Range;

mod below;
mod bytes;
mod echo;
mod flags;
mod formats;
mod keyed;
mod lines;
mod named;
mod paths;
mod pem;
mod policy;
mod prefilter;
mod second;
mod tree;
mod writer;

pub use bytes::{
    mask_bytes, mask_bytes_untallied, mask_part, secret_spans_bytes, secret_spans_json_lines,
    secret_spans_wide, union_spans,
};
pub use policy::PLACEHOLDER;

/// Whether a member key (or a pointer's token) names a secret or a list of them:
/// a value shown apart from that key (a bare item of `json select`) loses what
/// the mask judges it by, so the answer keeps the key beside it.
pub fn names_secret(key: &str) -> bool {
    policy::key_strength(key.as_bytes()).is_some()
        || policy::list_key_strength(key.as_bytes()).is_some()
}

/// The spans of `s` that are secrets, sorted and non-overlapping.
pub fn secret_spans(s: &str) -> Vec<Range<usize>> {
    // A string the prefilter rules out has no secret (as in the writer).
    if !prefilter::may_hold_secret(s.as_bytes()) {
        return Vec::new();
    }
    lines::spans_in(s, &mut lines::Lines::default())
        .into_iter()
        .map(|sp| sp.range)
        .collect()
}

/// Replaces the secrets of `s`; `None` when there are none. The count is of secrets
/// (a key's block counts once). Tallied for the answer's `redactions`.
pub fn mask_str(s: &str) -> Option<(String, usize)> {
    let (masked, n) = mask_untallied(s)?;
    tally(n);
    Some((masked, n))
}

/// `mask_str` for text that is no answer's (a journal line): not tallied, and
/// what the command tallied before stays.
pub fn mask_str_quiet(s: &str) -> Option<String> {
    mask_untallied(s).map(|(m, _)| m)
}

/// How many secrets the envelope's pass finds in `s` (not tallied).
pub fn count_in(s: &str) -> usize {
    mask_untallied(s).map_or(0, |(_, n)| n)
}

/// `mask_str` not tallied: for a command that decides what its answer counts
/// (`tally_shown`).
pub fn mask_untallied(s: &str) -> Option<(String, usize)> {
    // A string the prefilter rules out has no secret (as in the writer).
    if !prefilter::may_hold_secret(s.as_bytes()) {
        return None;
    }
    let mut m = tree::Masker::default();
    let masked = m.standalone(s)?;
    Some((masked, m.count.max(1)))
}

thread_local! {
    /// Secrets masked on this thread by a command itself, before its envelope
    /// (`run`'s output, a feedback entry, a search line cut from its masked line).
    static TALLY: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn tally(n: usize) {
    TALLY.with(|t| t.set(t.get().saturating_add(n)));
}

/// The secrets masked on this thread since the last take: the envelope adds them to
/// its `redactions`, so an answer that masked says how many, whoever masked it.
pub fn take_tally() -> usize {
    TALLY.with(|t| t.replace(0))
}

/// The secret values a whole file's keyed lines reveal (`api_key = "K"`, a YAML
/// block under `password: |`), by `Recorded::note`'s rules: a stream notes them
/// before it shows any file, so a bare twin (`v = "K"`) in a file streamed before
/// the one that names it is masked as in one envelope. Not tallied.
pub fn keyed_values(text: &[u8]) -> Vec<String> {
    let mut m = tree::Masker::default();
    let mut machine = lines::Lines::default();
    for line in text.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if machine.state == lines::State::Normal && !prefilter::may_hold_secret(line) {
            continue;
        }
        m.string(&String::from_utf8_lossy(line), &mut machine);
    }
    m.recorded.values().to_vec()
}

/// The longest file a command reads whole to ask `value_named_by_path`.
pub const NAMED_MAX_BYTES: usize = named::MAX_BYTES;

/// Whether the name of the file at `path` names a secret (`secrets/db_password`,
/// `api_key.txt`, `github_token`; not `token.py`): only then may its whole text
/// be one value the name is the key of (`value_named_by_path`).
pub fn path_names_secret(path: &str) -> bool {
    named::key_of(path).is_some()
}

/// A file named for a secret whose whole `text` is one value (one line, one word,
/// quoted or not) that is a secret after that key: the value's range in `text`.
pub fn value_named_by_path(path: &str, text: &[u8]) -> Option<Range<usize>> {
    named::value(path, text)
}

/// Masks `line`, the only line of the file at `path` (its whole text less the line
/// end), when `value_named_by_path` finds its value: how many (0 or 1), not tallied.
pub fn mask_named_by_path(path: &str, line: &mut String) -> usize {
    match named::value(path, line.as_bytes()) {
        Some(r) => {
            line.replace_range(r, PLACEHOLDER);
            1
        }
        None => 0,
    }
}

/// How many lines before a range `mask_after_lead` is given: enough for a key's
/// multi-line value (a YAML block scalar, a 4096-bit private key) that the range
/// starts inside.
pub const LEAD_LINES: usize = 100;

/// Masks `shown`, the lines of a file that follow `lead` (a read range and up to
/// `LEAD_LINES` lines before it), as one line machine over both would: a range
/// starting inside a key's multi-line value (a YAML block scalar under
/// `password: |`, a private key) masks the lines of the value it shows. Lines after
/// the value closes are left to the envelope's pass. Returns how many were masked.
pub fn mask_after_lead(lead: &[String], shown: &mut [String]) -> usize {
    let mut machine = lines::Lines::default();
    for l in lead {
        lines::spans_in(l, &mut machine);
    }
    let mut m = tree::Masker::default();
    let mut changed = false;
    for s in shown.iter_mut() {
        if machine.state == lines::State::Normal {
            break;
        }
        if let Some(masked) = m.string(s, &mut machine) {
            *s = masked;
            changed = true;
        }
    }
    // The value was counted where it opened, in the lead: the answer shows it once.
    m.count.max(usize::from(changed))
}

/// Masks `shown` (the lines `numbers` of `all`, 1-based, read apart from the
/// rest: `git show`, `git blame`, `archive read`) as one line machine over the
/// file would: a `run` (consecutive lines) primed with the `LEAD_LINES` lines
/// before it, each picked line (`--match`) with the state the lines before it
/// leave. A one-line file at `path` whose name is its value's key
/// (`secrets/db_password`) is masked whole. Returns how many.
pub fn premask(
    path: Option<&str>,
    all: &[&str],
    numbers: &[u64],
    run: bool,
    shown: &mut [String],
) -> usize {
    if let (Some(p), [_], [only]) = (path, all, &mut *shown)
        && path_names_secret(p)
        && mask_named_by_path(p, only) == 1
    {
        return 1;
    }
    let Some(&first) = numbers.first() else {
        return 0;
    };
    let from = first.saturating_sub(LEAD_LINES as u64).max(1);
    if run {
        let lead: Vec<String> = (from..first)
            .filter_map(|n| all.get((n - 1) as usize))
            .map(|l| l.to_string())
            .collect();
        return mask_after_lead(&lead, shown);
    }
    let mut primer = Primer::default();
    let mut masked = 0;
    let mut next = numbers.iter().zip(shown.iter_mut()).peekable();
    let last = numbers.last().copied().unwrap_or(first);
    for n in from..=last {
        if let Some((_, line)) = next.next_if(|(k, _)| **k == n) {
            masked += primer.mask_next(line);
        }
        if let Some(l) = all.get((n - 1) as usize) {
            primer.feed(l.as_bytes());
        }
    }
    masked
}

/// The line machine's state as a file's lines go by, for lines shown apart from
/// the lines before them (`read --match`, a `search` block, `wait`'s line): fed
/// every line in order (`feed`, cheap on a line that cannot open a multi-line
/// value), it masks a shown line as one pass over the whole file would
/// (`mask_next`), a YAML block scalar's or a private key's line included.
#[derive(Clone, Debug, Default)]
pub struct Primer(lines::Lines);

impl Primer {
    /// Carries the state over `line` (no line end).
    pub fn feed(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        self.0.advance(line);
    }

    /// Inside a multi-line value: the next line may be part of it.
    pub fn inside(&self) -> bool {
        self.0.state != lines::State::Normal
    }

    /// Inside a list under a secret key: each element shown is a secret of its own.
    pub fn in_list(&self) -> bool {
        matches!(self.0.state, lines::State::Seq(_) | lines::State::Array)
    }

    /// Masks `shown`, the line after those fed (a clone of the primer taken before
    /// feeding it); returns how many secrets it masked (a value that opened
    /// before the line counts once where it is shown).
    pub fn mask_next(&self, shown: &mut String) -> usize {
        self.mask_lines(std::slice::from_mut(shown))
    }

    /// `mask_next`, counting only the secrets that start on `shown` (a list's
    /// element, a block scalar's first line), not a value's later lines: `None`
    /// when nothing was masked. For a caller that counts a value once across lines.
    pub fn mask_next_raw(&self, shown: &mut String) -> Option<usize> {
        if !self.inside() {
            return None;
        }
        let mut machine = self.0.clone();
        let mut m = tree::Masker::default();
        let masked = m.string(shown, &mut machine)?;
        *shown = masked;
        Some(m.count)
    }

    /// Masks `shown`, the lines after those fed (a `search` block), while they are
    /// inside the value that was open; lines after it closes are left to the
    /// envelope's pass. Returns how many secrets (the open value counts once).
    pub fn mask_lines(&self, shown: &mut [String]) -> usize {
        if !self.inside() {
            return 0;
        }
        let mut machine = self.0.clone();
        let mut m = tree::Masker::default();
        let mut changed = false;
        for s in shown.iter_mut() {
            if machine.state == lines::State::Normal {
                break;
            }
            if let Some(masked) = m.string(s, &mut machine) {
                *s = masked;
                changed = true;
            }
        }
        m.count.max(usize::from(changed))
    }
}

/// A line shown apart from the lines before it (`read --match`, `git show --match`):
/// where it is in the answer's lines, the primer's state before it, and the number of
/// the line that opened the value the primer is inside (`Primer::inside`).
pub struct ShownApart {
    index: usize,
    primer: Primer,
    opened: u64,
}

/// A file's lines going by (every line from up to `LEAD_LINES` before the first
/// one shown), some of them shown apart from the lines before them (`read
/// --match`, `git show --match`): the machine's state before each shown line that
/// is inside a multi-line value, to mask it as one pass over the file would.
#[derive(Default)]
pub struct Apart {
    primer: Primer,
    opened: u64,
    kept: Vec<ShownApart>,
}

impl Apart {
    /// Carries the state over line `number`; the state before it when that was
    /// inside a value (for `keep`).
    pub fn feed(&mut self, number: u64, line: &[u8]) -> Option<ShownApart> {
        let before = self.primer.inside().then(|| self.primer.clone());
        self.primer.feed(line);
        if before.is_none() && self.primer.inside() {
            self.opened = number;
        }
        before.map(|primer| ShownApart {
            index: 0,
            primer,
            opened: self.opened,
        })
    }

    /// The line `feed` answered `before` for is shown, at `index` of the lines.
    pub fn keep(&mut self, before: Option<ShownApart>, index: usize) {
        if let Some(mut b) = before {
            b.index = index;
            self.kept.push(b);
        }
    }

    /// Masks the kept lines of `shown` (`mask_shown_apart`); how many secrets.
    pub fn mask(&self, is_shown: impl Fn(u64) -> bool, shown: &mut [String]) -> usize {
        mask_shown_apart(&self.kept, is_shown, shown)
    }
}

/// Masks the lines of `shown` that `apart` names, each as one pass over the whole
/// file would, and counts each secret once: the lines of one multi-line value (a
/// YAML block scalar, a private key) count once together, and not at all when the
/// line that opened it is shown too and is masked there (a private key's BEGIN
/// line, `is_shown`); a list's elements count one each.
fn mask_shown_apart(
    apart: &[ShownApart],
    is_shown: impl Fn(u64) -> bool,
    shown: &mut [String],
) -> usize {
    let mut last = None;
    let mut n = 0;
    for a in apart {
        let Some(line) = shown.get_mut(a.index) else {
            continue;
        };
        let state = a.primer.0.state;
        let mut machine = a.primer.0.clone();
        let mut m = tree::Masker::default();
        let Some(masked) = m.string(line, &mut machine) else {
            continue;
        };
        *line = masked;
        if matches!(state, lines::State::Seq(_) | lines::State::Array) {
            n += m.count;
            continue;
        }
        if last == Some(a.opened) {
            continue;
        }
        last = Some(a.opened);
        let opener_masked = matches!(
            state,
            lines::State::Private | lines::State::Body | lines::State::Tail
        );
        n += usize::from(!(opener_masked && is_shown(a.opened)));
    }
    n
}

/// `text` (an error's message or repair) with each word of `pattern`, a regex the
/// caller sent that does not compile, masked where the file rules would mask it as
/// a value with no key (`echo::pattern_values`), as written, regex-escaped or
/// shell-quoted; `None` when none is there. Tallied for the answer's `redactions`.
pub fn mask_pattern_echo(pattern: &str, text: &str) -> Option<String> {
    let mut spellings: Vec<String> = Vec::new();
    for word in echo::pattern_values(pattern) {
        for s in [word.to_string(), regex::escape(word)] {
            spellings.push(s.replace('\'', "'\\''"));
            spellings.push(s);
        }
    }
    spellings.sort();
    spellings.dedup();
    // The longest first: an escaped spelling holds the plain one's pieces.
    spellings.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_string();
    let mut n = 0;
    for s in &spellings {
        let found = out.matches(s.as_str()).count();
        if found > 0 {
            out = out.replace(s.as_str(), PLACEHOLDER);
            n += found;
        }
    }
    tally(n);
    (n > 0).then_some(out)
}

/// Counts `n` secrets a command masked itself (with a `Primer`, a `LineMask`) in
/// what its answer shows: added to the answer's `redactions`.
pub fn tally_shown(n: usize) {
    tally(n);
}

/// Masks every string and key of the tree in place; returns the number of regions masked.
pub fn mask_tree(value: &mut json::Json) -> usize {
    tree::mask_tree(value)
}

/// `mask_tree` of an envelope whose top-level members `trusted` (by index) the
/// command masked itself (`Output::masked`): they are left as they are, but for
/// a value the rest masks (the second pass runs over the whole tree).
pub fn mask_tree_trusting(value: &mut json::Json, trusted: Range<usize>) -> usize {
    tree::mask_tree_trusting(value, trusted)
}

/// `mask_tree` with every string run through the detectors (no prefilter):
/// the reference the prefiltered passes are tested against.
pub fn mask_tree_reference(value: &mut json::Json) -> usize {
    tree::mask_tree_reference(value)
}

/// `mask_tree`, with `values` a command masked itself (a match's text cut from
/// its line) masked wherever else the tree shows them, as the pass does with
/// the values it masks.
pub fn mask_tree_noted(value: &mut json::Json, values: &[String]) -> usize {
    tree::mask_tree_noted(value, values)
}

/// Masks values written one after another (the AOI event stream): each as
/// `mask_tree` does, and a value masked in one is masked in every later one.
#[derive(Default)]
pub struct StreamMask(tree::Masker);

impl StreamMask {
    pub fn mask(&mut self, value: &mut json::Json) -> usize {
        tree::mask_with(&mut self.0, value)
    }

    /// Values masked before they reached the stream (`Recorded::note`'s rules):
    /// masked in every later value.
    pub fn note(&mut self, values: &[String]) {
        values.iter().for_each(|v| self.0.recorded.note(v));
    }
}

/// Masks a text one line at a time (a program's output as it comes), carrying the
/// line machine's state from line to line, so a key block split over lines is
/// masked as within one string; counts the secrets masked.
#[derive(Default)]
pub struct LineMask {
    masker: tree::Masker,
    lines: lines::Lines,
}

impl LineMask {
    /// `line` (no newline) masked; `None` when nothing in it is a secret.
    pub fn line(&mut self, line: &str) -> Option<String> {
        if self.lines.state == lines::State::Normal && !prefilter::may_hold_secret(line.as_bytes())
        {
            return None;
        }
        self.masker.string(line, &mut self.lines)
    }

    /// Secrets masked so far.
    pub fn count(&self) -> usize {
        self.masker.count
    }
}

/// The compact JSON text of `value` with every secret masked, and how many were.
/// Prints exactly what `mask_tree` then serializing prints.
pub fn write_masked(value: &mut json::Json) -> (String, usize) {
    writer::write_masked(value, 0..0)
}

/// `write_masked` of an envelope whose top-level members `trusted` (by index)
/// the command masked itself (`Output::masked`): written as they are, but for a
/// value the rest masks (the second pass runs over the whole text).
pub fn write_masked_trusting(value: &json::Json, trusted: Range<usize>) -> (String, usize) {
    writer::write_masked(value, trusted)
}

/// True when an input to a write holds the mask in any spelling (any case, JSON or
/// URL escapes): writing it would destroy a secret.
pub fn contains_placeholder(s: &[u8]) -> bool {
    policy::contains_mask_spelling(s)
}

/// How many times `s` holds the mask in any spelling (`contains_placeholder`): a
/// write whose result holds more than its input built the mask from parts.
pub fn mask_spellings(s: &[u8]) -> usize {
    policy::mask_spellings(s)
}

/// The provider format names of the table (for tests and documentation).
pub fn format_names() -> Vec<&'static str> {
    formats::table().formats.iter().map(|f| f.name).collect()
}

#[cfg(test)]
mod tests {
    use super::{mask_str, mask_str_quiet, take_tally};

    /// A journal line masked quietly after the answer masked something leaves the
    /// answer's count as it was (it used to empty the whole tally).
    #[test]
    fn a_quiet_mask_keeps_what_the_command_tallied() {
        take_tally();
        let token = "ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5";
        assert!(mask_str(&format!("TOKEN={token}")).is_some());
        let quiet = mask_str_quiet(&format!("--content={token}")).expect("masked");
        assert!(!quiet.contains(token));
        assert_eq!(take_tally(), 1);
    }
}

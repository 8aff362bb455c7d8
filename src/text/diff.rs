//! Line diffs: unified text for write output, `diff`, and the journal's `diff --op`.
//!
//! The common prefix and suffix are skipped with byte comparisons before any line
//! is split, so a one-line change to a large file costs a memcmp, not a line diff
//! of the whole file. The middle is diffed with `similar` (Myers, with a deadline);
//! hunks and their headers are built here from the ops' lengths alone, since
//! `similar` misreports some op indices.

use similar::{Algorithm, DiffOp};
use std::ops::Range;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// Unchanged lines around each hunk.
    pub context: usize,
    /// Compare lines with all whitespace removed.
    pub ignore_whitespace: bool,
    /// Ignore a CR before LF and a missing final newline.
    pub ignore_eol: bool,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            context: 3,
            ignore_whitespace: false,
            ignore_eol: false,
        }
    }
}

/// A unified diff and its counts.
#[derive(Debug, Clone, Default)]
pub struct Unified {
    /// `---`/`+++` headers and hunks; empty when identical.
    pub text: String,
    pub added: u64,
    pub deleted: u64,
    pub hunks: usize,
    pub identical: bool,
    /// Lines of the hunks (`@@` headers, body lines and no-newline markers), counted
    /// whether or not `text` holds them.
    pub lines: usize,
    /// `unified_within` went past its limit: `text` holds no line after the one
    /// that crossed it.
    pub cut: bool,
}

/// How much of the diff text `unified_within` builds. The counts (`added`,
/// `deleted`, `lines`) always cover the whole diff.
#[derive(Debug, Clone, Copy)]
pub struct TextLimit {
    /// Hunk lines kept in `text`; the line that goes past it is kept too, so a
    /// caller measuring the text against this budget sees that it does not fit.
    pub lines: usize,
    /// Bytes of hunk lines kept, the same way (the line that crosses it is kept).
    pub bytes: usize,
}

impl TextLimit {
    pub const NONE: TextLimit = TextLimit {
        lines: usize::MAX,
        bytes: usize::MAX,
    };
}

/// Where the text of a diff goes, within its limit.
struct Sink<'a> {
    out: &'a mut Unified,
    limit: TextLimit,
    bytes: usize,
}

impl Sink<'_> {
    fn full(&self) -> bool {
        self.out.cut
    }
    /// Counts one line and keeps it while the limit has room.
    fn push(&mut self, line: &str) {
        self.out.lines += 1;
        if self.out.cut {
            return;
        }
        self.out.text.push_str(line);
        self.bytes += line.len();
        if self.out.lines > self.limit.lines || self.bytes > self.limit.bytes {
            self.out.cut = true;
        }
    }
    fn line(&mut self, mark: char, line: &[u8]) {
        let missing_eol = !line.ends_with(b"\n");
        if self.full() {
            self.out.lines += 1 + usize::from(missing_eol);
            return;
        }
        let mut s = String::with_capacity(line.len() + 2);
        push_line(&mut s, mark, line);
        match s.find('\n') {
            // The body line and its no-newline marker are counted (and cut) one by one.
            Some(i) if missing_eol => {
                let (body, marker) = s.split_at(i + 1);
                self.push(body);
                self.push(marker);
            }
            _ => self.push(&s),
        }
    }
}

/// Length of the common prefix: equal 4 KiB blocks are compared as slices (a
/// vectorised memcmp), then the first unequal block byte by byte.
pub fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= n && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    at + a[at..n]
        .iter()
        .zip(&b[at..n])
        .position(|(x, y)| x != y)
        .unwrap_or(n - at)
}

/// Length of the common suffix, the same way from the end.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let (la, lb) = (a.len(), b.len());
    let mut k = 0;
    while k + BLOCK <= n && a[la - k - BLOCK..la - k] == b[lb - k - BLOCK..lb - k] {
        k += BLOCK;
    }
    k + a[..la - k]
        .iter()
        .rev()
        .zip(b[..lb - k].iter().rev())
        .position(|(x, y)| x != y)
        .unwrap_or(n - k)
}

fn line_start_after_prefix(old: &[u8], new: &[u8]) -> usize {
    let p = common_prefix(old, new);
    if p == old.len() && p == new.len() {
        return p;
    }
    // Back to the start of the line the first difference is on.
    match memchr::memrchr(b'\n', &old[..p]) {
        Some(i) => i + 1,
        None => 0,
    }
}

fn suffix_len(old: &[u8], new: &[u8], p: usize) -> usize {
    let (a, b) = (&old[p..], &new[p..]);
    let s = common_suffix(a, b);
    // The suffix must start at a line start in both: skip to just after its first LF,
    // unless it already starts right after a LF (or at p) on both sides.
    let starts_line = |buf: &[u8], len: usize| {
        let at = buf.len() - len;
        at == 0 || buf[at - 1] == b'\n'
    };
    if starts_line(a, s) && starts_line(b, s) {
        return s;
    }
    let region = &a[a.len() - s..];
    match memchr::memchr(b'\n', region) {
        Some(i) => s - (i + 1),
        None => 0,
    }
}

/// Splits into lines keeping terminators.
pub fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in memchr::memchr_iter(b'\n', bytes) {
        out.push(&bytes[start..=i]);
        start = i + 1;
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}

fn key<'l>(line: &'l [u8], o: &DiffOptions) -> std::borrow::Cow<'l, [u8]> {
    if !o.ignore_eol && !o.ignore_whitespace {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut l = line;
    if o.ignore_eol || o.ignore_whitespace {
        if let Some(x) = l.strip_suffix(b"\n") {
            l = x;
        }
        if let Some(x) = l.strip_suffix(b"\r") {
            l = x;
        }
    }
    if o.ignore_whitespace {
        l.iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect::<Vec<u8>>()
            .into()
    } else {
        l.into()
    }
}

/// Moves `at` back over up to `n` lines (to a line start).
fn back_lines(buf: &[u8], mut at: usize, n: usize) -> usize {
    for _ in 0..n {
        if at == 0 {
            break;
        }
        at = match memchr::memrchr(b'\n', &buf[..at - 1]) {
            Some(i) => i + 1,
            None => 0,
        };
    }
    at
}

/// Moves `at` forward over up to `n` lines.
fn forward_lines(buf: &[u8], mut at: usize, n: usize) -> usize {
    for _ in 0..n {
        if at >= buf.len() {
            break;
        }
        at = match memchr::memchr(b'\n', &buf[at..]) {
            Some(i) => at + i + 1,
            None => buf.len(),
        };
    }
    at
}

fn range_header(start: usize, len: usize) -> String {
    let first = if len == 0 { start } else { start + 1 };
    if len == 1 {
        format!("{first}")
    } else {
        format!("{first},{len}")
    }
}

fn push_line(out: &mut String, mark: char, line: &[u8]) {
    out.push(mark);
    let body = line.strip_suffix(b"\n");
    out.push_str(&String::from_utf8_lossy(body.unwrap_or(line)));
    out.push('\n');
    if body.is_none() {
        out.push_str("\\ No newline at end of file\n");
    }
}

/// The unified diff of `old` → `new`, with `---`/`+++` headers `a_name`, `b_name`.
pub fn unified(old: &[u8], new: &[u8], a_name: &str, b_name: &str, o: &DiffOptions) -> Unified {
    unified_within(old, new, a_name, b_name, o, TextLimit::NONE)
}

/// `unified` with its text built only to `limit` (the counts cover the whole
/// diff): a write's answer shows a few lines of a diff that may have millions.
pub fn unified_within(
    old: &[u8],
    new: &[u8],
    a_name: &str,
    b_name: &str,
    o: &DiffOptions,
    limit: TextLimit,
) -> Unified {
    unified_within_from(old, new, a_name, b_name, o, limit, 0)
}

/// `unified_within` of windows of two files that both start at line `first_line`
/// (0-based; whole lines, alike up to there): the hunk headers count from there.
pub fn unified_within_from(
    old: &[u8],
    new: &[u8],
    a_name: &str,
    b_name: &str,
    o: &DiffOptions,
    limit: TextLimit,
    first_line: usize,
) -> Unified {
    if old == new {
        return Unified {
            identical: true,
            ..Unified::default()
        };
    }
    let p = line_start_after_prefix(old, new);
    let s = suffix_len(old, new, p);
    let p0 = back_lines(old, p, o.context);
    let old_end = forward_lines(old, old.len() - s, o.context);
    let new_end = forward_lines(new, new.len() - s, o.context);
    let offset = first_line + memchr::memchr_iter(b'\n', &old[..p0]).count();
    let (ow, nw) = (&old[p0..old_end], &new[p0..new_end]);
    if ow.is_empty() != nw.is_empty() {
        return one_sided(ow, nw, a_name, b_name, limit, offset);
    }
    general(ow, nw, a_name, b_name, o, limit, offset)
}

/// Lines of `buf`, a last one without LF included.
fn count_lines(buf: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', buf).count() + usize::from(!buf.is_empty() && !buf.ends_with(b"\n"))
}

/// The diff of windows one of which is empty (a created file, or all of a
/// window removed): one hunk, nothing to align. Its lines are counted, and
/// only those within `limit` are split and built: a created file of 187k lines
/// costs a newline count, not a line vector (the same text and counts as `general`).
fn one_sided(
    old: &[u8],
    new: &[u8],
    a_name: &str,
    b_name: &str,
    limit: TextLimit,
    offset: usize,
) -> Unified {
    let (ol, nl) = (count_lines(old), count_lines(new));
    let mut out = Unified {
        text: format!("--- {a_name}\n+++ {b_name}\n"),
        hunks: 1,
        deleted: ol as u64,
        added: nl as u64,
        ..Unified::default()
    };
    let mut sink = Sink {
        out: &mut out,
        limit,
        bytes: 0,
    };
    sink.push(&format!(
        "@@ -{} +{} @@\n",
        range_header(offset, ol),
        range_header(offset, nl)
    ));
    for (mark, buf, n) in [('-', old, ol), ('+', new, nl)] {
        let (mut at, mut built) = (0, 0);
        while at < buf.len() && !sink.full() {
            let end = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |i| at + i + 1);
            sink.line(mark, &buf[at..end]);
            (at, built) = (end, built + 1);
        }
        // The lines past the limit, counted as `Sink::line` counts them: one
        // each, and the no-newline marker after a last line without LF.
        if at < buf.len() {
            sink.out.lines += n - built + usize::from(!buf.ends_with(b"\n"));
        }
    }
    out
}

/// `unified_within_from` of the windows `old`, `new` (the first starting at line
/// `offset` of its file), aligned line by line.
fn general(
    old: &[u8],
    new: &[u8],
    a_name: &str,
    b_name: &str,
    o: &DiffOptions,
    limit: TextLimit,
    offset: usize,
) -> Unified {
    let old_lines = split_lines(old);
    let new_lines = split_lines(new);
    let runs = aligned_runs(&old_lines, &new_lines, o);
    let changed = runs.iter().any(|r| !r.equal);
    let mut out = Unified {
        identical: !changed,
        ..Unified::default()
    };
    if !changed {
        return out;
    }
    out.text = format!("--- {a_name}\n+++ {b_name}\n");
    let mut sink = Sink {
        out: &mut out,
        limit,
        bytes: 0,
    };
    for h in hunks(&runs, o.context) {
        let (Some(first), Some(last)) = (runs.get(h.start), runs.get(h.end - 1)) else {
            continue;
        };
        let (os, oe, ns, ne) = hunk_bounds(first, last, o.context);
        sink.out.hunks += 1;
        sink.push(&format!(
            "@@ -{} +{} @@\n",
            range_header(offset + os, oe - os),
            range_header(offset + ns, ne - ns)
        ));
        for r in &runs[h.clone()] {
            if r.equal {
                let from = r.old.start.max(os);
                let to = r.old.end.min(oe);
                for l in old_lines.get(from..to).unwrap_or_default() {
                    sink.line(' ', l);
                }
            } else {
                for l in old_lines.get(r.old.clone()).unwrap_or_default() {
                    sink.line('-', l);
                }
                for l in new_lines.get(r.new.clone()).unwrap_or_default() {
                    sink.line('+', l);
                }
                sink.out.deleted += r.old_len() as u64;
                sink.out.added += r.new_len() as u64;
            }
        }
    }
    out
}

/// The windows' lines as runs of equal and changed lines (Myers, 5 s at most).
fn aligned_runs(old_lines: &[&[u8]], new_lines: &[&[u8]], o: &DiffOptions) -> Vec<Run> {
    if old_lines.is_empty() || new_lines.is_empty() {
        // All added or all removed: nothing to align.
        return vec![Run {
            equal: false,
            old: 0..old_lines.len(),
            new: 0..new_lines.len(),
        }];
    }
    let old_keys: Vec<_> = old_lines.iter().map(|l| key(l, o)).collect();
    let new_keys: Vec<_> = new_lines.iter().map(|l| key(l, o)).collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &old_keys,
        &new_keys,
        Some(deadline),
    );
    runs(&ops, &old_keys, &new_keys)
}

/// A hunk's old and new line ranges (`os..oe`, `ns..ne`): its runs, with the
/// equal runs at either end cut to `context` lines.
fn hunk_bounds(first: &Run, last: &Run, context: usize) -> (usize, usize, usize, usize) {
    // An equal run has as many old lines as new.
    let lead = first.old_len().min(context);
    let trail = last.old_len().min(context);
    let start = |r: &Range<usize>| if first.equal { r.end - lead } else { r.start };
    let end = |r: &Range<usize>| if last.equal { r.start + trail } else { r.end };
    (
        start(&first.old),
        end(&last.old),
        start(&first.new),
        end(&last.new),
    )
}

/// A run of equal lines, or of changed lines (the old ones replaced by the new).
#[derive(Debug, Clone, PartialEq)]
struct Run {
    equal: bool,
    old: std::ops::Range<usize>,
    new: std::ops::Range<usize>,
}

impl Run {
    fn old_len(&self) -> usize {
        self.old.len()
    }
    fn new_len(&self) -> usize {
        self.new.len()
    }
}

/// The diff as alternating equal and changed runs, positions counted from the
/// ops' lengths. `similar`'s own indices are not used: it reports some of them
/// wrong (a `Delete` at the start of a slice says `new_index: 1`, which made its
/// and our hunk headers wrong). When the ops do not add up to both sides, or an
/// equal run is not equal, the whole span is one change — still a correct diff.
fn runs<T: PartialEq>(ops: &[DiffOp], old: &[T], new: &[T]) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    let (mut o, mut n) = (0usize, 0usize);
    let mut sound = true;
    for op in ops {
        let (equal, ol, nl) = match *op {
            DiffOp::Equal { len, .. } => (true, len, len),
            DiffOp::Delete { old_len, .. } => (false, old_len, 0),
            DiffOp::Insert { new_len, .. } => (false, 0, new_len),
            DiffOp::Replace {
                old_len, new_len, ..
            } => (false, old_len, new_len),
        };
        if ol == 0 && nl == 0 {
            continue;
        }
        if equal && old.get(o..o + ol) != new.get(n..n + nl) {
            sound = false;
            break;
        }
        match out.last_mut() {
            Some(last) if last.equal == equal => {
                last.old.end = o + ol;
                last.new.end = n + nl;
            }
            _ => out.push(Run {
                equal,
                old: o..o + ol,
                new: n..n + nl,
            }),
        }
        o += ol;
        n += nl;
    }
    if !sound || o != old.len() || n != new.len() {
        return vec![Run {
            equal: false,
            old: 0..old.len(),
            new: 0..new.len(),
        }];
    }
    out
}

/// The runs each hunk spans: changed runs joined when the equal run between them
/// is at most twice the context, with the equal runs on either side included.
fn hunks(runs: &[Run], context: usize) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        if r.equal {
            continue;
        }
        let start = if i > 0 { i - 1 } else { i };
        let end = if i + 1 < runs.len() { i + 2 } else { i + 1 };
        match out.last_mut() {
            // The equal run between two changes is shared: join when it is short.
            Some(h)
                if h.end == i
                    && i.checked_sub(1)
                        .and_then(|k| runs.get(k))
                        .is_some_and(|e| e.old_len() <= 2 * context) =>
            {
                h.end = end;
            }
            _ => out.push(start..end),
        }
    }
    out
}

/// The first `max` lines of `text`, and whether it was cut.
pub fn cut_lines(text: &str, max: usize) -> (String, bool) {
    match text.match_indices('\n').nth(max.saturating_sub(1)) {
        Some((i, _)) if i + 1 < text.len() => (text[..=i].to_string(), true),
        _ => (text.to_string(), false),
    }
}

/// The longest prefix of `text` made of whole lines and at most `max` bytes, and
/// whether anything was left out. A write's answer is built after its commit
/// point, so its diff is cut to fit rather than let the envelope cap refuse it.
pub fn cut_bytes(text: &str, max: usize) -> (String, bool) {
    if text.len() <= max {
        return (text.to_string(), false);
    }
    let end = text.as_bytes()[..max]
        .iter()
        .rposition(|b| *b == b'\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    (text[..end].to_string(), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_bytes_keeps_whole_lines() {
        assert_eq!(cut_bytes("ab\ncd\n", 10), ("ab\ncd\n".to_string(), false));
        assert_eq!(cut_bytes("ab\ncd\n", 5), ("ab\n".to_string(), true));
        assert_eq!(cut_bytes("abcdef\n", 3), (String::new(), true));
    }

    #[test]
    fn one_line_change_in_the_middle() {
        let old = b"a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = b"a\nb\nc\nd\nE\nf\ng\nh\n";
        let d = unified(old, new, "a/x", "b/x", &DiffOptions::default());
        assert_eq!(
            d.text,
            "--- a/x\n+++ b/x\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        assert_eq!((d.added, d.deleted), (1, 1));
    }

    #[test]
    fn created_and_no_final_newline() {
        let d = unified(b"", b"x\ny", "/dev/null", "b/n", &DiffOptions::default());
        assert_eq!(
            d.text,
            "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n"
        );
        let d = unified(b"x\n", b"x", "a", "b", &DiffOptions::default());
        assert_eq!(
            d.text,
            "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n"
        );
        let d = unified(
            b"x\n",
            b"x",
            "a",
            "b",
            &DiffOptions {
                ignore_eol: true,
                ..DiffOptions::default()
            },
        );
        assert!(d.identical);
    }

    #[test]
    fn suffix_alignment() {
        let d = unified(b"ab\ncd\n", b"xb\ncd\n", "a", "b", &DiffOptions::default());
        assert_eq!(d.text, "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-ab\n+xb\n cd\n");
        let d = unified(b"a\nb\n", b"a\nb\nc\n", "a", "b", &DiffOptions::default());
        assert_eq!(d.text, "--- a\n+++ b\n@@ -1,2 +1,3 @@\n a\n b\n+c\n");
        let d = unified(b"k\n", b"k\nk\n", "a", "b", &DiffOptions::default());
        assert_eq!((d.added, d.deleted), (1, 0));
    }

    #[test]
    fn headers_count_from_the_ops_lengths() {
        // similar 2.7 reports the leading Delete here with new_index 1.
        let old = b"c\na\nc\nee\nbb\nc\nee\naa\ncc\ndd\n";
        let new = b"a\na\nee\nbb\nc\nee\nx\naa\ncc\ndd\n";
        let o = DiffOptions {
            context: 2,
            ..DiffOptions::default()
        };
        let d = unified(old, new, "a", "b", &o);
        assert!(d.text.contains("@@ -1,9 +1,9 @@\n"), "{}", d.text);
        let d = unified(
            b"a\nb\nc\n",
            b"b\nc\n",
            "a",
            "b",
            &DiffOptions {
                context: 0,
                ..o.clone()
            },
        );
        assert_eq!(d.text, "--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n");
        let d = unified(
            b"a\nb\n",
            b"x\na\nb\n",
            "a",
            "b",
            &DiffOptions { context: 0, ..o },
        );
        assert_eq!(d.text, "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n");
    }

    #[test]
    fn prefix_and_suffix_across_blocks() {
        let a: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        for at in [0, 1, 4095, 4096, 4097, 8191, 9999] {
            let mut b = a.clone();
            b[at] ^= 0xff;
            assert_eq!(common_prefix(&a, &b), at);
            assert_eq!(common_suffix(&a, &b), a.len() - at - 1);
        }
        assert_eq!(common_prefix(&a, &a[..5000]), 5000);
        assert_eq!(common_suffix(&a, &a[5000..]), 5000);
        assert_eq!(common_prefix(b"", b"x"), 0);
        assert_eq!(common_suffix(b"", b""), 0);
    }

    /// The one-sided path (a created file, all of a window removed) gives the
    /// text and counts the line-by-line path gives, at every limit.
    #[test]
    fn one_sided_matches_the_general_diff() {
        let body: Vec<u8> = (0..40)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let mut no_eol = body.clone();
        no_eol.extend_from_slice(b"last");
        let windows: [(&[u8], &[u8]); 6] = [
            (b"", &body),
            (b"", &no_eol),
            (&body, b""),
            (&no_eol, b""),
            (b"", b"x"),
            (b"only\n", b""),
        ];
        let limits = [
            TextLimit::NONE,
            TextLimit {
                lines: 0,
                bytes: usize::MAX,
            },
            TextLimit {
                lines: 1,
                bytes: usize::MAX,
            },
            TextLimit {
                lines: 5,
                bytes: usize::MAX,
            },
            TextLimit {
                lines: 40,
                bytes: usize::MAX,
            },
            TextLimit {
                lines: 41,
                bytes: usize::MAX,
            },
            TextLimit {
                lines: usize::MAX,
                bytes: 30,
            },
        ];
        for (old, new) in windows {
            for lim in limits {
                for offset in [0, 7] {
                    let o = DiffOptions::default();
                    let fast = one_sided(old, new, "a", "b", lim, offset);
                    let slow = general(old, new, "a", "b", &o, lim, offset);
                    let f = (&fast.text, fast.added, fast.deleted, fast.hunks, fast.lines);
                    let s = (&slow.text, slow.added, slow.deleted, slow.hunks, slow.lines);
                    assert_eq!(f, s);
                    assert_eq!((fast.cut, fast.identical), (slow.cut, slow.identical));
                }
            }
        }
    }

    #[test]
    fn cutting() {
        assert_eq!(cut_lines("a\nb\nc\n", 2), ("a\nb\n".to_string(), true));
        assert_eq!(cut_lines("a\nb\n", 2), ("a\nb\n".to_string(), false));
    }

    #[test]
    fn within_a_limit_the_counts_are_whole_and_the_text_a_prefix() {
        let old: Vec<u8> = (0..200)
            .flat_map(|i| format!("l{i}\n").into_bytes())
            .collect();
        let mut new = old.clone();
        new.extend_from_slice(b"tail without newline");
        new.splice(0..0, b"head\n".iter().copied());
        let cases = [
            (&old[..0], &new[..]),
            (&old[..], &new[..]),
            (&old[..], &old[..50]),
        ];
        for (a, b) in cases {
            let full = unified(a, b, "a", "b", &DiffOptions::default());
            let hunk_lines = full.text.lines().count() - 2;
            assert_eq!(full.lines, hunk_lines);
            assert!(!full.cut);
            for (lines, bytes) in [(0, usize::MAX), (3, usize::MAX), (usize::MAX, 40), (5, 10)] {
                let lim = TextLimit { lines, bytes };
                let d = unified_within(a, b, "a", "b", &DiffOptions::default(), lim);
                assert_eq!(
                    (d.added, d.deleted, d.hunks, d.lines),
                    (full.added, full.deleted, full.hunks, full.lines)
                );
                assert!(full.text.starts_with(&d.text));
                let kept = d.text.lines().count() - 2;
                let kept_bytes = d.text.len() - "--- a\n+++ b\n".len();
                // Cut only past the limit, and then with the line that crossed it kept.
                assert_eq!(
                    d.cut,
                    kept < full.lines || kept > lines || kept_bytes > bytes
                );
                if kept < full.lines {
                    assert!(kept > lines || kept_bytes > bytes);
                }
            }
        }
    }
}

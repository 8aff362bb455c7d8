//! Line diffs: unified text for write output, `diff`, and the journal's `diff --op`.
//!
//! The common prefix and suffix are skipped with byte comparisons before any line
//! is split, so a one-line change to a large file costs a memcmp, not a line diff
//! of the whole file. The middle is diffed with `similar` (Myers, with a deadline).

use similar::{Algorithm, DiffOp, DiffTag};
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
}

fn line_start_after_prefix(old: &[u8], new: &[u8]) -> usize {
    let n = old.len().min(new.len());
    let p = old
        .iter()
        .zip(new.iter())
        .take(n)
        .position(|(a, b)| a != b)
        .unwrap_or(n);
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
    let n = a.len().min(b.len());
    let s = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(n)
        .position(|(x, y)| x != y)
        .unwrap_or(n);
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

fn key(line: &[u8], o: &DiffOptions) -> Vec<u8> {
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
            .collect()
    } else {
        l.to_vec()
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
    let offset = memchr::memchr_iter(b'\n', &old[..p0]).count();
    let old_lines = split_lines(&old[p0..old_end]);
    let new_lines = split_lines(&new[p0..new_end]);
    let old_keys: Vec<Vec<u8>> = old_lines.iter().map(|l| key(l, o)).collect();
    let new_keys: Vec<Vec<u8>> = new_lines.iter().map(|l| key(l, o)).collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &old_keys,
        &new_keys,
        Some(deadline),
    );
    let changed = ops.iter().any(|op| !matches!(op, DiffOp::Equal { .. }));
    let mut out = Unified {
        identical: !changed,
        ..Unified::default()
    };
    if !changed {
        return out;
    }
    out.text = format!("--- {a_name}\n+++ {b_name}\n");
    for group in similar::group_diff_ops(ops, o.context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (os, ns) = (first.old_range().start, first.new_range().start);
        let (oe, ne) = (last.old_range().end, last.new_range().end);
        out.hunks += 1;
        out.text.push_str(&format!(
            "@@ -{} +{} @@\n",
            range_header(offset + os, oe - os),
            range_header(offset + ns, ne - ns)
        ));
        for op in &group {
            let (tag, or, nr) = op.as_tag_tuple();
            match tag {
                DiffTag::Equal => {
                    for l in &old_lines[or] {
                        push_line(&mut out.text, ' ', l);
                    }
                }
                DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                    for l in &old_lines[or.clone()] {
                        push_line(&mut out.text, '-', l);
                    }
                    for l in &new_lines[nr.clone()] {
                        push_line(&mut out.text, '+', l);
                    }
                    out.deleted += or.len() as u64;
                    out.added += nr.len() as u64;
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn cutting() {
        assert_eq!(cut_lines("a\nb\nc\n", 2), ("a\nb\n".to_string(), true));
        assert_eq!(cut_lines("a\nb\n", 2), ("a\nb\n".to_string(), false));
    }
}

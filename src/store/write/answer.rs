//! Each change's report, with diffs cut to the op's budget.

use super::*;

/// A report whose diff is computed once the plan is done.
pub(super) struct PendingReport {
    pub(super) report: ChangeReport,
    pub(super) diff_of: Option<(Option<Content>, Option<Content>)>,
    /// The line `diff_of` starts at in the file (a splice's diff is of its window).
    pub(super) diff_line: usize,
}

impl PendingReport {
    pub(super) fn finish(mut self, budget: &mut DiffBudget) -> (ChangeReport, bool) {
        let mut cut = false;
        if let Some((before, after)) = self.diff_of.take() {
            let empty: &[u8] = b"";
            let (old, new) = (
                before.as_ref().map(|c| c.whole()),
                after.as_ref().map(|c| c.whole()),
            );
            let (old, new) = (
                old.as_deref().unwrap_or(empty),
                new.as_deref().unwrap_or(empty),
            );
            let binary = crate::text::sniff::is_binary(old) || crate::text::sniff::is_binary(new);
            if !binary {
                let opts = DiffOptions {
                    context: 0,
                    ..DiffOptions::default()
                };
                // Only the lines the budget can still show are built; the counts
                // cover the whole diff.
                let (limit, line) = (budget.limit(), self.diff_line);
                let d = diff::unified_within_from(old, new, "a", "b", &opts, limit, line);
                budget.needed += d.lines;
                self.report.added = Some(d.added);
                self.report.deleted = Some(d.deleted);
                // The path is the change's own field; the headers would repeat it.
                let hunks = d.text.find("\n@@").map_or("", |i| &d.text[i + 1..]);
                if !hunks.is_empty() {
                    let (text, was_cut) = budget.take(hunks);
                    cut = was_cut;
                    if !text.is_empty() {
                        self.report.diff = Some(text);
                    }
                    if was_cut {
                        self.report.diff_truncated = Some(true);
                    }
                }
            }
        }
        (self.report, cut)
    }
}

/// What is left of the diff an answer may show, spent change by change in order.
pub(super) struct DiffBudget {
    lines: usize,
    bytes: usize,
    /// The default budget shows whole hunks only; `--max-diff-lines N` cuts at a line.
    whole_hunks: bool,
    /// `--max-diff-lines 0`: no diff was asked for, so nothing is reported cut.
    none: bool,
    /// Diff lines of every change, shown or not.
    needed: usize,
}

impl DiffBudget {
    pub(super) fn of(ctx: &Ctx, req: &WriteRequest) -> DiffBudget {
        match ctx.max_diff_lines.or(req.max_diff_lines) {
            Some(n) => DiffBudget {
                lines: n,
                bytes: MAX_DIFF_BYTES,
                whole_hunks: false,
                none: n == 0,
                needed: 0,
            },
            None => DiffBudget {
                lines: DEFAULT_DIFF_LINES,
                bytes: DEFAULT_DIFF_BYTES,
                whole_hunks: true,
                none: false,
                needed: 0,
            },
        }
    }

    /// A dry run has no op to show the rest: the same call with a budget that
    /// holds every line.
    pub(super) fn rerun(&self, ctx: &Ctx) -> String {
        let add = ["--max-diff-lines".to_string(), self.needed.to_string()];
        shell::aitools(shell::rerun(&ctx.argv, &["--max-diff-lines"], &[], &add))
    }

    /// What `take` can still accept, for `diff::unified_within`: text past it
    /// would be cut anyway.
    pub(super) fn limit(&self) -> diff::TextLimit {
        diff::TextLimit {
            lines: if self.none { 0 } else { self.lines },
            bytes: self.bytes,
        }
    }

    /// The part of `hunks` that fits, and whether any was left out. `hunks` may
    /// stop early (`limit`) only past what fits, so the cut is still reported.
    pub(super) fn take(&mut self, hunks: &str) -> (String, bool) {
        if self.none {
            return (String::new(), false);
        }
        let mut out = String::new();
        let mut hunk = String::new();
        let (mut hunk_lines, mut hunk_bytes) = (0usize, 0usize);
        let mut lines = hunks.split_inclusive('\n').peekable();
        while let Some(line) = lines.next() {
            let cost = escaped_len(line);
            if !self.whole_hunks {
                // A hunk header is worth nothing without a line after it.
                let need = if line.starts_with("@@") { 2 } else { 1 };
                // The bytes too: the answer is built after the commit point, where
                // an envelope over its cap would misreport a done write.
                if self.lines < need || cost > self.bytes {
                    return (out, true);
                }
                self.lines -= 1;
                self.bytes -= cost;
                out.push_str(line);
                continue;
            }
            hunk.push_str(line);
            hunk_lines += 1;
            hunk_bytes += cost;
            if lines.peek().is_none_or(|l| l.starts_with("@@")) {
                if hunk_lines > self.lines || hunk_bytes > self.bytes {
                    return (out, true);
                }
                self.lines -= hunk_lines;
                self.bytes -= hunk_bytes;
                out.push_str(&hunk);
                hunk.clear();
                hunk_lines = 0;
                hunk_bytes = 0;
            }
        }
        (out, false)
    }
}

/// The bytes `s` takes inside a JSON string.
pub(super) fn escaped_len(s: &str) -> usize {
    s.bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

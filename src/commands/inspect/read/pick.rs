//! Which lines each `read` selector picks (the whole file, a range, a definition,
//! the tail, the lines a pattern matches, the span between two patterns), with
//! what the answer says of them: where they start, whether they were cut short,
//! the call that pages on. `lines_view` decodes and shows them.

use super::lines_view::{
    Fail, Got, Opened, beyond_end, lossy, no_match, pass, pass_holding, symbol_span,
};
use super::{ReadArgs, Selector, next_command, tail};
use crate::protocol::values::LineRange;
use crate::protocol::{Repair, redact};
use crate::text::decode::Encoding;
use crate::text::{MAX_MATCHED_LINE_BYTES, lines};
use crate::workspace::Ctx;
use regex::bytes::Regex;
use std::cell::Cell;
use std::collections::VecDeque;

/// The lines a selector picked and what the answer says about them.
pub(super) struct Picked {
    pub(super) got: Vec<Got>,
    pub(super) scan: lines::Scan,
    pub(super) start_line: u64,
    /// Each shown line's number (`--match`: they are not consecutive).
    pub(super) line_numbers: Option<Vec<u64>>,
    /// The words of the call that pages on, when there is more.
    pub(super) next_words: Option<Vec<String>>,
    /// Set by the short --tail path: the cached hash, or null when not known yet.
    pub(super) fast_hash: Option<Option<String>>,
    /// False when the short --tail path did not count the file's lines.
    pub(super) counted: bool,
    pub(super) truncated: bool,
    /// The lines just before a range, for the mask (`redact::mask_after_lead`).
    pub(super) lead: Vec<String>,
    /// Shown lines (by index) that start inside a multi-line value, and the mask's
    /// state before each (`read --match`).
    pub(super) apart: redact::Apart,
}

impl Picked {
    fn new(got: Vec<Got>, scan: lines::Scan, start_line: u64) -> Picked {
        Picked {
            got,
            scan,
            start_line,
            line_numbers: None,
            next_words: None,
            fast_hash: None,
            counted: true,
            truncated: false,
            lead: Vec::new(),
            apart: redact::Apart::default(),
        }
    }
}

/// Lines from `from` on while `stop` is unset.
struct Until<'a> {
    from: u64,
    stop: &'a Cell<bool>,
}

impl lines::Want for Until<'_> {
    fn wants(&mut self, line: u64) -> bool {
        line >= self.from && !self.stop.get()
    }
    fn done_after(&self, _: u64) -> bool {
        self.stop.get()
    }
}

/// The first `before` lines taken off `got`, as text (the mask's lead).
fn take_lead(got: &mut Vec<Got>, before: usize) -> Vec<String> {
    let mut errors = 0;
    got.drain(..before)
        .map(|g| lossy(&g.bytes, &mut errors))
        .collect()
}

/// What the pickers read: the call, the file and its encoding.
pub(super) struct Source<'a> {
    pub(super) ctx: &'a Ctx,
    pub(super) args: &'a ReadArgs,
    pub(super) src: &'a Opened<'a>,
    pub(super) enc: Option<Encoding>,
}

impl Source<'_> {
    /// The lines `sel` picks.
    pub(super) fn pick(&self, sel: Selector) -> Result<Picked, Fail> {
        match sel {
            Selector::All => self.span(1, u64::MAX, false, false),
            Selector::Range(r) => {
                let chosen = r.end.is_some();
                self.span(r.start, r.end.unwrap_or(u64::MAX), true, chosen)
            }
            Selector::Symbol(name) => {
                let (first, last) = symbol_span(self.args, self.src, self.enc, &name)?;
                self.span(first, last, false, true)
            }
            Selector::Tail(n) if n <= self.args.max_lines => self.short_tail(n),
            Selector::Tail(n) => self.long_tail(n),
            Selector::Match {
                re,
                invert,
                from,
                within,
            } => self.matched(&re, invert, from, within),
            Selector::Between {
                start,
                end,
                exclusive,
                from,
            } => self.between(&start, &end, exclusive, from),
        }
    }

    /// Lines `first..=last` (the whole file, a range, a definition), at most
    /// `--max-lines` of them; a range (`lead`) also takes the lines before it for
    /// the mask. What the caller bounded (`chosen`: a definition, a range with
    /// an end), read whole, offers nothing past it: the caller chose where to stop.
    fn span(&self, first: u64, last: u64, lead: bool, chosen: bool) -> Result<Picked, Fail> {
        let max = self.args.max_lines;
        let cap_last = last.min(first.saturating_add(max - 1));
        let from = match lead {
            true => first.saturating_sub(redact::LEAD_LINES as u64).max(1),
            false => first,
        };
        let mut got = Vec::new();
        let span = &mut lines::Span {
            first: from,
            last: cap_last,
        };
        let scan = pass(self.src, self.enc, span, |l| got.push(Got::of(&l)))?;
        let before = got.iter().take_while(|g| g.number < first).count();
        let lead = take_lead(&mut got, before);
        if first > scan.total_lines && !(first == 1 && scan.total_lines == 0) {
            return Err(beyond_end(self.args, first, scan.total_lines).into());
        }
        let wanted_last = last.min(scan.total_lines);
        let returned_last = first + got.len() as u64 - 1;
        let truncated = !got.is_empty() && returned_last < wanted_last;
        // A whole definition or range is the answer: nothing past it is offered.
        let whole_symbol = chosen && !truncated;
        let mut next_words = None;
        if got.len() as u64 > 0 && returned_last < scan.total_lines && !whole_symbol {
            // A cut selection continues to its own end (the next call pages it
            // again, partial until done); a complete one offers the next page.
            let end = if truncated {
                wanted_last
            } else {
                scan.total_lines.min(returned_last + max)
            };
            next_words = Some(vec![
                "--range".into(),
                format!("{}:{end}", returned_last + 1),
            ]);
        }
        Ok(Picked {
            lead,
            truncated,
            next_words,
            ..Picked::new(got, scan, first)
        })
    }

    /// `--tail N` within `--max-lines`: from the hash cache's line index when it
    /// can (a short read of the end), else one forward pass keeping the last lines.
    fn short_tail(&self, n: u64) -> Result<Picked, Fail> {
        let short = match self.enc {
            Some(_) => tail::Tail::Forward(None),
            None => tail::fast(self.ctx, self.src, n)?,
        };
        let f = match short {
            tail::Tail::Done(f) => f,
            tail::Tail::Forward(pending) => return self.forward_tail(n, pending),
        };
        let mut errors = 0;
        let lead = f
            .lead
            .iter()
            .map(|g| lossy(&g.bytes, &mut errors))
            .collect();
        let start_line = f.got.first().map_or(1, |g| g.number);
        let scan = lines::Scan {
            total_lines: f.total_lines.unwrap_or_default(),
            ..Default::default()
        };
        Ok(Picked {
            lead,
            fast_hash: Some(f.hash),
            counted: f.total_lines.is_some(),
            ..Picked::new(f.got, scan, start_line)
        })
    }

    /// The last `n` lines by one forward pass holding them (and the lines before
    /// them, for the mask) in a ring; `pending` is the hash cache's entry to fill.
    fn forward_tail(&self, n: u64, pending: Option<tail::Pending>) -> Result<Picked, Fail> {
        let keep = n.saturating_add(redact::LEAD_LINES as u64);
        let mut ring: VecDeque<Got> = VecDeque::with_capacity(keep as usize);
        let scan = pass(self.src, self.enc, &mut lines::All, |l| {
            if ring.len() as u64 == keep
                && let Some(mut slot) = ring.pop_front()
            {
                slot.number = l.number;
                slot.offset = l.offset;
                slot.bytes.clear();
                slot.bytes.extend_from_slice(l.bytes);
                slot.cut = l.cut;
                slot.cr = l.had_cr;
                ring.push_back(slot);
                return;
            }
            ring.push_back(Got::of(&l));
        })?;
        let mut got: Vec<Got> = ring.into_iter().collect();
        let before = got.len().saturating_sub(n as usize);
        let lead = take_lead(&mut got, before);
        let start_line = got.first().map_or(1, |g| g.number);
        if let Some(p) = pending {
            tail::remember(p, self.src, &scan);
        }
        Ok(Picked {
            lead,
            ..Picked::new(got, scan, start_line)
        })
    }

    /// `--tail N` over `--max-lines`: the first page of the last `n` lines, and
    /// the range that pages on.
    fn long_tail(&self, n: u64) -> Result<Picked, Fail> {
        let (src, enc) = (self.src, self.enc);
        let total = pass(src, enc, &mut lines::Span { first: 0, last: 0 }, |_| {})?.total_lines;
        let first = total.saturating_sub(n) + 1;
        let cap_last = first.saturating_add(self.args.max_lines - 1);
        let mut got = Vec::new();
        let span = &mut lines::Span {
            first: first.saturating_sub(redact::LEAD_LINES as u64).max(1),
            last: cap_last,
        };
        let scan = pass(src, enc, span, |l| got.push(Got::of(&l)))?;
        let before = got.iter().take_while(|g| g.number < first).count();
        let lead = take_lead(&mut got, before);
        let returned_last = first + got.len() as u64 - 1;
        let truncated = !got.is_empty() && returned_last < scan.total_lines;
        let next_words = truncated.then(|| {
            vec![
                "--range".into(),
                format!("{}:{}", returned_last + 1, scan.total_lines),
            ]
        });
        Ok(Picked {
            lead,
            truncated,
            next_words,
            ..Picked::new(got, scan, first)
        })
    }

    /// `--match RE` (`--invert`, from `from`, within a range): the matching
    /// lines, each with its number.
    fn matched(
        &self,
        re: &Regex,
        invert: bool,
        from: u64,
        within: Option<LineRange>,
    ) -> Result<Picked, Fail> {
        let (args, max) = (self.args, self.args.max_lines);
        let stop = Cell::new(false);
        let mut more = false;
        let mut numbers = Vec::new();
        let mut got = Vec::new();
        let mut apart = redact::Apart::default();
        let last = within.and_then(|r| r.end).unwrap_or(u64::MAX);
        // The mask's line machine goes over every line from up to
        // `LEAD_LINES` before `from`: a matched line inside a key's multi-line
        // value (a YAML block scalar, a private key) is masked as in the file.
        let want = &mut Until {
            from: from.saturating_sub(redact::LEAD_LINES as u64).max(1),
            stop: &stop,
        };
        let scan = pass_holding(self.src, self.enc, MAX_MATCHED_LINE_BYTES, want, |l| {
            if l.number > last {
                stop.set(true);
                return;
            }
            let before = apart.feed(l.number, l.whole);
            // The whole line is matched; only its display is cut.
            if l.number < from || re.is_match(l.whole) == invert {
                return;
            }
            if (got.len() as u64) < max {
                numbers.push(l.number);
                apart.keep(before, got.len());
                got.push(Got::of(&l));
            } else {
                more = true;
                stop.set(true);
            }
        })?;
        if got.is_empty() {
            return Err(no_match(
                args,
                format!(
                    "No line{} of {} {} /{}/.",
                    match (from > 1, last) {
                        (_, u64::MAX) if from > 1 => format!(" from {from} on"),
                        (_, u64::MAX) => String::new(),
                        _ => format!(" from {from} to {last}"),
                    },
                    args.path(),
                    if invert { "fails to match" } else { "matches" },
                    args.pattern.as_deref().unwrap_or_default()
                ),
            )
            .into());
        }
        let next = numbers.last().copied().unwrap_or(0) + 1;
        Ok(Picked {
            truncated: more,
            next_words: more.then(|| match_more(args, invert, within, next)),
            apart,
            start_line: numbers.first().copied().unwrap_or(1),
            line_numbers: Some(numbers),
            ..Picked::new(got, scan, 1)
        })
    }

    /// `--between START END` (`--exclusive`, from `from`): the lines from the
    /// first START match to the next END match.
    fn between(
        &self,
        start: &Regex,
        end: &Regex,
        exclusive: bool,
        from: u64,
    ) -> Result<Picked, Fail> {
        let max = self.args.max_lines;
        let stop = Cell::new(false);
        let mut begin: Option<u64> = None;
        let mut finish: Option<u64> = None;
        let mut got = Vec::new();
        let want = &mut Until { from, stop: &stop };
        let scan = pass_holding(
            self.src,
            self.enc,
            MAX_MATCHED_LINE_BYTES,
            want,
            |l| match begin {
                None => {
                    if start.is_match(l.whole) {
                        begin = Some(l.number);
                        if !exclusive {
                            got.push(Got::of(&l));
                        }
                    }
                }
                Some(_) => {
                    if end.is_match(l.whole) {
                        finish = Some(l.number);
                        if !exclusive && (got.len() as u64) < max {
                            got.push(Got::of(&l));
                        }
                        stop.set(true);
                    } else if (got.len() as u64) < max {
                        got.push(Got::of(&l));
                    }
                }
            },
        )?;
        let (Some(b), Some(e)) = (begin, finish) else {
            return Err(self.unclosed(begin).into());
        };
        let (first, last) = if exclusive { (b + 1, e - 1) } else { (b, e) };
        let returned_last = first + got.len() as u64 - 1;
        let truncated = first <= last && returned_last < last;
        let next_words =
            truncated.then(|| vec!["--range".into(), format!("{}:{last}", returned_last + 1)]);
        Ok(Picked {
            truncated,
            next_words,
            ..Picked::new(got, scan, first)
        })
    }

    /// `--between` with no START match, or (`begin`) no END match after it.
    fn unclosed(&self, begin: Option<u64>) -> crate::protocol::CmdError {
        let args = self.args;
        let pats = args.between.clone().unwrap_or_default();
        let msg = match begin {
            None => format!(
                "No line of {} matches START /{}/.",
                args.path(),
                pats.first().cloned().unwrap_or_default()
            ),
            Some(b) => format!(
                "Line {b} matches START, but no later line matches END /{}/.",
                pats.get(1).cloned().unwrap_or_default()
            ),
        };
        let mut err = no_match(args, msg);
        if let Some(b) = begin {
            err = err.with_first_repair(Repair::new(
                "read",
                "Read from the START line to the end of the file.",
                next_command(self.ctx, args, &["--range".into(), format!("{b}:")], true),
            ));
        }
        err
    }
}

/// The call that pages on through `--match` lines from line `next`: the same
/// pattern, and the rest of the range (the same bound) or `--from-line`.
fn match_more(args: &ReadArgs, invert: bool, within: Option<LineRange>, next: u64) -> Vec<String> {
    let mut words = vec![
        "--match".to_string(),
        args.pattern.clone().unwrap_or_default(),
    ];
    if invert {
        words.push("--invert".into());
    }
    if let Some(r) = within {
        // The rest of the range, the same bound.
        words.push("--range".into());
        words.push(match r.end {
            Some(e) => format!("{next}:{e}"),
            None => format!("{next}:"),
        });
    } else {
        words.push("--from-line".into());
        words.push(next.to_string());
    }
    words
}

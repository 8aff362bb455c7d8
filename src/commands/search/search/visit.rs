//! What a scan worker does with each file `search` meets: read a named pipe once,
//! count what the patterns select and, while the listing wants them, record the
//! lines it will show (one search of the file, with its context).

use super::sinks::{Counted, Counter, Recorder, search_disk};
use super::{Patterns, SearchArgs, Visited, searcher};
use crate::protocol::redact;
use crate::workspace::Ctx;
use crate::workspace::scan::{self, Entry};
use grep_regex::RegexMatcher;
use grep_searcher::Searcher;
use regex::bytes::Regex;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What every worker of one search shares: the call, the patterns, the starts,
/// and the listing's progress.
pub(super) struct Visit<'a> {
    pub(super) args: &'a SearchArgs,
    pub(super) pats: &'a Patterns,
    pub(super) starts: &'a [PathBuf],
    /// Matches are counted one by one (else selected lines are).
    pub(super) count_matches: Option<&'a Regex>,
    /// The most bytes a named pipe is read to.
    pub(super) pipe_cap: u64,
    /// Blocks: the worker that counts a file also records its lines.
    pub(super) record: bool,
    /// The ordered walk (the listing says when it is full).
    pub(super) ordered: bool,
    /// Off the ordered walk, the lines recorded in all before workers stop.
    pub(super) cap: u64,
    /// Context lines recorded before and after a selected one.
    pub(super) before: usize,
    pub(super) after: usize,
    /// A text file with nothing selected is only counted, not handed over.
    pub(super) drop_empty: bool,
    /// Set once the listing is full.
    pub(super) full: AtomicBool,
    pub(super) recorded: AtomicU64,
    /// The files only counted (`drop_empty`).
    pub(super) empty: AtomicU64,
}

/// A worker's searchers, each holding a zeroed 64 KiB buffer: each is made when
/// first needed (the ones for named files never, in a directory's scan).
#[derive(Default)]
struct Searchers {
    scanned: Option<Searcher>,
    whole: Option<Searcher>,
    scanned_ctx: Option<Searcher>,
    whole_ctx: Option<Searcher>,
}

impl Visit<'_> {
    /// One worker's visitor.
    pub(super) fn visitor(&self) -> impl FnMut(&Entry) -> Option<Visited> + Send + '_ {
        let mut searchers = Searchers::default();
        let matcher = self.pats.matcher.clone();
        move |e: &Entry| self.visit(e, &mut searchers, &matcher)
    }

    /// Whether `p` is a start (a path named on the command line). Starts are
    /// real paths and the walk's paths are a start joined with names: byte
    /// equality is `Path` equality on them, without its component walk.
    fn named(&self, p: &Path) -> bool {
        self.starts.iter().any(|s| s.as_os_str() == p.as_os_str())
    }

    fn visit(&self, e: &Entry, s: &mut Searchers, matcher: &RegexMatcher) -> Option<Visited> {
        let (args, cap) = (self.args, self.cap);
        // A named pipe can be read once: its bytes are kept for the listing pass.
        let piped = if e.is_pipe() {
            match e.read_pipe(self.pipe_cap) {
                Ok(Some(b)) => Some(b),
                Ok(None) => return Some((Counted::TooLarge, None, None)),
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                    return Some((Counted::NoWriter, None, None));
                }
                Err(_) => return Some((Counted::Unreadable, None, None)),
            }
        } else {
            None
        };
        let counter = Counter {
            count_matches: self.count_matches,
            selected: 0,
            binary: false,
        };
        let is_named = self.named(e.path);
        let recording = self.record
            && !self.full.load(Ordering::Relaxed)
            && (self.ordered || self.recorded.load(Ordering::Relaxed) < cap);
        let (before, after) = (self.before, self.after);
        let s = match (is_named, recording) {
            (false, false) => s.scanned.get_or_insert_with(|| searcher(args, 0, 0, false)),
            (true, false) => s.whole.get_or_insert_with(|| searcher(args, 0, 0, true)),
            (false, true) => s
                .scanned_ctx
                .get_or_insert_with(|| searcher(args, before, after, false)),
            (true, true) => s
                .whole_ctx
                .get_or_insert_with(|| searcher(args, before, after, true)),
        };
        let bytes = e.content().or(piped.as_deref());
        let (res, counter, lines) = if recording {
            let mut sink = Recorder {
                counter,
                find: &self.pats.combined,
                cap,
                after: after as u64,
                seen: 0,
                last: None,
                done: false,
                lines: Vec::new(),
            };
            let res = match bytes {
                Some(b) => s.search_slice(matcher, b, &mut sink),
                None => search_disk(s, matcher, e.path, &mut sink),
            };
            self.recorded.fetch_add(sink.seen, Ordering::Relaxed);
            (res, sink.counter, Some(sink.lines))
        } else {
            let mut sink = counter;
            let res = match bytes {
                Some(b) => s.search_slice(matcher, b, &mut sink),
                None => search_disk(s, matcher, e.path, &mut sink),
            };
            (res, sink, None)
        };
        let counted = match res {
            Err(_) => Counted::Unreadable,
            Ok(()) if counter.binary => Counted::Binary(counter.selected),
            Ok(()) => Counted::Text(counter.selected),
        };
        if self.drop_empty && !is_named && matches!(counted, Counted::Text(0)) {
            self.empty.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        // A file with nothing selected has no lines to list.
        let lines = lines.filter(|_| counter.selected > 0);
        Some((counted, piped, lines))
    }
}

/// The most values the stream's first pass notes (of `redact`'s 1,024).
const TWIN_MAX_VALUES: usize = 512;

/// The largest file the stream's first pass reads for its keyed values.
const TWIN_MAX_BYTES: u64 = 16 << 20;

/// The searcher's first buffer (grep-searcher's default capacity): a binary
/// file whose first NUL is in it lists no line.
const FIRST_BUFFER: usize = 64 << 10;

impl Visit<'_> {
    /// Streaming only: a first pass over the files the stream will show (those
    /// the scan visits, with the same options and budgets, whose selected lines
    /// reach into the --offset/--limit window, in path order) that notes the
    /// secret values their keyed lines reveal (`redact::keyed_values`), so a bare
    /// twin of one (`v = "K"`) in a file streamed before the file naming it is
    /// masked, as in the envelope. The ordered walk stops once the window is
    /// reached: each file is read once, and the files past the window not at all.
    /// A named pipe is read once, by the scan: this pass leaves it.
    pub(super) fn note_twins(&self, ctx: &Ctx, opts: &scan::ScanOptions) {
        if !ctx.events.streaming() {
            return;
        }
        let halt = Arc::new(AtomicBool::new(false));
        let opts = scan::ScanOptions {
            halt: Some(Arc::clone(&halt)),
            ..opts.clone()
        };
        let visitor = || {
            |e: &Entry| -> Option<(u64, Vec<u8>)> {
                if halt.load(Ordering::Relaxed) || e.is_pipe() || e.kind != scan::Kind::File {
                    return None;
                }
                let (n, shown) = match e.content() {
                    // A tx's staged file is only in memory.
                    Some(b) => self.shown_part(b.to_vec()),
                    None => {
                        let len = e.metadata().ok()?.len();
                        (len <= TWIN_MAX_BYTES).then_some(())?;
                        self.shown_part(e.read().ok()?)
                    }
                };
                (!shown.is_empty()).then_some((n, shown))
            }
        };
        let window = self.args.offset.saturating_add(self.args.limit());
        // A set: a value noted twice takes one place of the cap.
        let (mut seen, mut values) = (0u64, std::collections::BTreeSet::new());
        let take = |_: &Path, (n, shown): (u64, Vec<u8>)| -> bool {
            if seen < window && values.len() < TWIN_MAX_VALUES {
                seen = seen.saturating_add(n);
                values.extend(redact::keyed_values(&shown));
            }
            if seen >= window || values.len() >= TWIN_MAX_VALUES {
                halt.store(true, Ordering::Relaxed);
            }
            false
        };
        if scan::walk_ordered(&ctx.root, self.starts, &opts, visitor, take).is_err() {
            return;
        }
        // Half the stream's record budget: the values it hides itself still fit.
        let values: Vec<String> = values.into_iter().take(TWIN_MAX_VALUES).collect();
        ctx.events.note_secrets(&values);
    }

    /// What the stream may show of a file's `bytes`, and the lines the patterns
    /// select in it (none: nothing to note). A binary file (a NUL byte) shows
    /// its lines before the NUL when the searcher met them first, past its first
    /// buffer (a NUL in that buffer: no line at all).
    fn shown_part(&self, mut bytes: Vec<u8>) -> (u64, Vec<u8>) {
        match memchr::memchr(0, &bytes) {
            Some(at) if at < FIRST_BUFFER => return (0, Vec::new()),
            Some(at) => bytes.truncate(at),
            None => {}
        }
        let n = self.selected_lines(&bytes);
        if n == 0 {
            return (0, Vec::new());
        }
        (n, bytes)
    }

    /// The lines of `bytes` the patterns select, at most (a line with a match; a
    /// multi-line match counts once, so a window is reached no sooner than the
    /// listing reaches it); with --invert the lines without one.
    fn selected_lines(&self, bytes: &[u8]) -> u64 {
        if self.args.invert {
            let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
            if body.is_empty() {
                return 0;
            }
            let unmatched = body
                .split(|&b| b == b'\n')
                .filter(|line| !self.pats.combined.is_match(line))
                .count();
            return unmatched as u64;
        }
        let (mut n, mut at) = (0u64, 0);
        while let Some(m) = self.pats.combined.find_at(bytes, at) {
            n += 1;
            let rest = bytes.get(m.end()..).unwrap_or_default();
            match rest.iter().position(|&b| b == b'\n') {
                Some(i) => at = m.end() + i + 1,
                None => break,
            }
            if at >= bytes.len() {
                break;
            }
        }
        n
    }
}

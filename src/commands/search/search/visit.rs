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
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
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
    /// While a stream notes its first files' secrets (`Noting`): each file is
    /// read once, whole, to search it and to note its keyed values.
    pub(super) noting: AtomicBool,
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
                Ok(None) => return Some((Counted::TooLarge, None, None, None)),
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                    return Some((Counted::NoWriter, None, None, None));
                }
                Err(_) => return Some((Counted::Unreadable, None, None, None)),
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
        let (whole, text) = self.read_for_noting(e);
        let bytes = e.content().or(piped.as_deref()).or(whole.as_deref());
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
        // The text to note: its keyed values are taken in path order (`Noting`).
        let noted = (counter.selected > 0 && self.noting.load(Ordering::Relaxed))
            .then(|| (whole.or(text)).or_else(|| e.content().map(<[u8]>::to_vec)))
            .flatten()
            .map(|t| {
                redact::keyed_values(&t)
                    .into_iter()
                    .take(TWIN_MAX_VALUES)
                    .collect()
            });
        Some((counted, piped, lines, noted))
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
    /// While the stream notes (`noting`): a file on disk read once, whole, up to
    /// `TWIN_MAX_BYTES`: (its bytes to search and note, none for a binary file;
    /// a binary file's text before its first NUL, to note only, when the NUL is
    /// past the searcher's first buffer, so the stream shows the lines before it).
    fn read_for_noting(&self, e: &Entry) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        use std::io::Read;
        if !self.noting.load(Ordering::Relaxed)
            || e.is_pipe()
            || e.kind != scan::Kind::File
            || e.content().is_some()
        {
            return (None, None);
        }
        let mut bytes = Vec::new();
        let read = scan::open_listed(e.path)
            .and_then(|f| f.take(TWIN_MAX_BYTES + 1).read_to_end(&mut bytes));
        if read.is_err() || bytes.len() as u64 > TWIN_MAX_BYTES {
            return (None, None);
        }
        match memchr::memchr(0, &bytes) {
            None => (Some(bytes), None),
            Some(at) if at < FIRST_BUFFER => (None, None),
            Some(at) => {
                bytes.truncate(at);
                (None, Some(bytes))
            }
        }
    }
}

impl Visit<'_> {
    /// The scan, each file handed to `take` in path order (on the ordered walk as
    /// soon as it and every earlier one are visited). A stream holds its first
    /// files until their secrets are noted (`Noting`); a named pipe among the
    /// starts would hold them until it is written (`note_apart`).
    pub(super) fn walk(
        &self,
        ctx: &Ctx,
        opts: &scan::ScanOptions,
        take: &mut impl FnMut(&Path, Visited) -> bool,
    ) -> Result<scan::Walked<Visited>, scan::ScanError> {
        if self.noting.load(Ordering::Relaxed) && self.starts.iter().any(|s| scan::is_fifo_at(s)) {
            self.note_apart(ctx, opts);
        }
        let mut noting = Noting::new(ctx, self);
        let mut take_noted = |p: &Path, v: Visited| -> bool {
            if !self.noting.load(Ordering::Relaxed) {
                return take(p, v);
            }
            let mut shown = false;
            for (p, v) in noting.take(p, v) {
                shown |= take(&p, v);
            }
            shown
        };
        let visitor = || self.visitor();
        let walked = if self.ordered {
            scan::walk_ordered(&ctx.root, self.starts, opts, visitor, &mut take_noted)
        } else {
            scan::walk(&ctx.root, self.starts, opts, visitor).map(|mut w| {
                for (p, c) in std::mem::take(&mut w.items) {
                    let _ = take_noted(&p, c);
                }
                w
            })
        }?;
        for (p, v) in noting.finish() {
            take(&p, v);
        }
        Ok(walked)
    }

    /// With a named pipe among the starts the stream cannot hold its first files
    /// (the pipe blocks until it is written): a walk over the other starts notes
    /// their values first, and the stream holds nothing (their files are read
    /// twice). The walk's counts are the stream's to make: they are put back.
    pub(super) fn note_apart(&self, ctx: &Ctx, opts: &scan::ScanOptions) {
        let others: Vec<PathBuf> = self
            .starts
            .iter()
            .filter(|s| !scan::is_fifo_at(s))
            .cloned()
            .collect();
        let (empty, recorded) = (
            self.empty.load(Ordering::Relaxed),
            self.recorded.load(Ordering::Relaxed),
        );
        let mut noting = Noting::new(ctx, self);
        if !others.is_empty() {
            let take = |p: &Path, v: Visited| -> bool {
                drop(noting.take(p, v));
                false
            };
            let _ = scan::walk_ordered(&ctx.root, &others, opts, || self.visitor(), take);
        }
        drop(noting.finish());
        self.empty.store(empty, Ordering::Relaxed);
        self.recorded.store(recorded, Ordering::Relaxed);
    }
}

/// A stream's first files, held back until the secrets their keyed lines reveal
/// (`redact::keyed_values`, at most `TWIN_MAX_VALUES`) are noted: those whose
/// selected lines reach into the --offset/--limit window, in path order. So a
/// bare twin of a value (`v = "K"`) in a file streamed before the file naming it
/// is masked, as in the envelope. The scan reads each file once for both.
pub(super) struct Noting<'a> {
    ctx: &'a Ctx,
    visit: &'a Visit<'a>,
    window: u64,
    seen: u64,
    /// A set: a value noted twice takes one place of the cap.
    values: BTreeSet<String>,
    held: Vec<(PathBuf, Visited)>,
}

impl<'a> Noting<'a> {
    pub(super) fn new(ctx: &'a Ctx, visit: &'a Visit<'a>) -> Noting<'a> {
        let args = visit.args;
        Noting {
            ctx,
            visit,
            window: args.offset.saturating_add(args.limit()),
            seen: 0,
            values: BTreeSet::new(),
            held: Vec::new(),
        }
    }

    /// Takes the next file in path order: the files to hand on now (none while
    /// the window is not reached).
    pub(super) fn take(&mut self, p: &Path, mut v: Visited) -> Vec<(PathBuf, Visited)> {
        if !self.visit.noting.load(Ordering::Relaxed) {
            return vec![(p.to_path_buf(), v)];
        }
        if let Counted::Text(n) | Counted::Binary(n) = v.0 {
            self.seen = self.seen.saturating_add(n);
        }
        if let Some(values) = v.3.take() {
            self.values.extend(values);
        }
        self.held.push((p.to_path_buf(), v));
        if self.seen >= self.window || self.values.len() >= TWIN_MAX_VALUES {
            return self.finish();
        }
        Vec::new()
    }

    /// Notes the values (half the stream's record budget: the values it hides
    /// itself still fit) and hands on the files held.
    pub(super) fn finish(&mut self) -> Vec<(PathBuf, Visited)> {
        if self.visit.noting.swap(false, Ordering::Relaxed) {
            let values = std::mem::take(&mut self.values);
            let values: Vec<String> = values.into_iter().take(TWIN_MAX_VALUES).collect();
            self.ctx.events.note_secrets(&values);
        }
        std::mem::take(&mut self.held)
    }
}

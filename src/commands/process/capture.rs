//! One stream of a running program, read line by line as it comes into bounded
//! memory: the head and tail windows, the `--grep` matches, the first lines that
//! show a failure, and the counters. Each line is cleaned and masked on arrival
//! (the mask's line state carries across lines), so `yes` for a minute costs the
//! windows, not its output. Once a window drops a line, every line (cleaned,
//! masked) also goes to a private log file (`Spill`, up to [`LOG_CAP`]), so
//! the middle a window cut can be read back without running the program again.

use super::output::{self, Match, Window};
use crate::protocol::redact::LineMask;
use crate::workspace::process::Sink;
use regex::Regex;
use std::collections::VecDeque;
use std::io::Write;
use std::sync::OnceLock;

/// Bytes of an unfinished line kept: a line is cut at 4096 characters anyway.
const MAX_PENDING: usize = 64 * 1024;
/// Bytes kept per window (head, tail, matches) whatever the line counts asked.
const WINDOW_BYTES: usize = 4 * 1024 * 1024;
/// Bytes of a stream its log keeps; past them the log is cut (`log_cut`).
pub const LOG_CAP: u64 = 64 * 1024 * 1024;

/// Opens a stream's log: its path and where to write (`None`: no log).
pub type Opener = Box<dyn FnOnce() -> Option<(String, Box<dyn Write + Send>)> + Send>;

/// A stream's log: opened when a window first drops a line.
#[derive(Default)]
struct Spill {
    open: Option<Opener>,
    out: Option<Box<dyn Write + Send>>,
    path: Option<String>,
    written: u64,
    /// [`LOG_CAP`] (smaller in the unit tests).
    cap: u64,
    cut: bool,
}

impl Spill {
    /// Opens the log with `held` (every line seen so far, in order).
    fn start<'a>(&mut self, held: impl Iterator<Item = &'a String>) {
        let Some((path, out)) = self.open.take().and_then(|o| o()) else {
            return;
        };
        self.out = Some(out);
        self.path = Some(path);
        for l in held {
            self.write(l);
        }
    }

    fn write(&mut self, line: &str) {
        let Some(out) = self.out.as_mut() else {
            return;
        };
        let n = line.len() as u64 + 1;
        if self.written + n > self.cap {
            self.cut = true;
            self.out = None;
            return;
        }
        self.written += n;
        if out
            .write_all(line.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
            .is_err()
        {
            // A log that cannot be written whole is not offered.
            self.out = None;
            self.path = None;
        }
    }

    /// The log's path, once flushed (`None` when none was kept).
    fn finish(&mut self) -> Option<String> {
        if let Some(mut out) = self.out.take()
            && out.flush().is_err()
        {
            self.path = None;
        }
        self.path.take()
    }
}

/// Lines that show a failure kept per stream: the first few (the first error
/// often causes the rest) and the last few (a summary, or a panic printed before
/// a long cleanup that pushed it out of the tail window).
pub const FIRST_FAILURES: usize = 4;
pub const LAST_FAILURES: usize = 4;

/// The lines that show why a program failed: an assertion, an error, a panic, a
/// traceback, a failed test's summary line.
fn failure_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)(\b(error|errors|failed|failure|failures|fail|assert\w*|exception|traceback|panicked|fatal)\b|^E {2,}\S)",
        )
        .ok()
    })
    .as_ref()
}

/// A backtrace frame (`  3: core::panicking::assert_failed`, `at src/x.rs:1`)
/// names a function, not the failure, even when the name says assert.
fn is_frame(line: &str) -> bool {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    t.len() < line.len() && ((digits > 0 && t[digits..].starts_with(": ")) || t.starts_with("at "))
}

/// A section header (`failures:`, `=== FAILURES ===`, `ERRORS`) announces the
/// lines that follow; it does not show a failure itself.
fn is_header(line: &str) -> bool {
    let t = line
        .trim_matches(|c: char| c == '=' || c == '-' || c == '_' || c == ':' || c.is_whitespace());
    t.eq_ignore_ascii_case("failures") || t.eq_ignore_ascii_case("errors")
}

/// Rust prints a panic's message on the line after `panicked at FILE:L:C:`.
fn opens_panic_message(line: &str) -> bool {
    line.contains("panicked at ") && line.trim_end().ends_with(':')
}

/// How a stream is read.
#[derive(Default, Clone)]
pub struct Shape {
    pub head: usize,
    pub tail: usize,
    pub strip: bool,
    pub grep: Option<(Regex, usize)>,
    /// Bytes kept per head or tail window (at least one line each); `None`: [`WINDOW_BYTES`].
    pub window_bytes: Option<usize>,
}

/// The sink.
#[derive(Default)]
pub struct Capture {
    shape: Shape,
    head: Vec<String>,
    head_bytes: usize,
    head_done: bool,
    tail: VecDeque<String>,
    tail_bytes: usize,
    dropped: bool,
    total: u64,
    matches: Vec<Match>,
    match_bytes: usize,
    total_matches: u64,
    failures: Vec<String>,
    last_failures: VecDeque<String>,
    panic_message_next: bool,
    cut: bool,
    pending: Vec<u8>,
    pending_over: bool,
    mask: LineMask,
    spill: Spill,
}

impl Capture {
    pub fn new(shape: Shape) -> Capture {
        Capture {
            shape,
            ..Capture::default()
        }
    }

    /// A capture that keeps a cut stream whole in the log `open` makes.
    pub fn with_log(shape: Shape, open: Opener) -> Capture {
        let mut c = Capture::new(shape);
        c.spill.open = Some(open);
        c.spill.cap = LOG_CAP;
        c
    }

    /// A window drops its first line: the log starts with every line held
    /// (the head, then the tail with the line just read).
    fn dropping(&mut self) {
        if !self.dropped {
            self.spill.start(self.head.iter().chain(self.tail.iter()));
        }
        self.dropped = true;
    }

    fn line(&mut self, raw: &[u8]) {
        self.total += 1;
        let (text, cut) = output::clean_line(raw, self.shape.strip);
        self.cut |= cut;
        let text = self.mask.line(&text).unwrap_or(text);
        if self.dropped {
            self.spill.write(&text);
        }
        if let Some((re, limit)) = &self.shape.grep
            && re.is_match(&text)
        {
            self.total_matches += 1;
            if self.matches.len() < *limit && self.match_bytes < WINDOW_BYTES {
                self.match_bytes += text.len();
                self.matches.push(Match {
                    n: self.total,
                    text: text.clone(),
                });
            }
        }
        self.note_failure(&text);
        let cap = self.shape.window_bytes.unwrap_or(WINDOW_BYTES);
        let fits = self.head.is_empty() || self.head_bytes + text.len() <= cap;
        if !self.head_done && self.head.len() < self.shape.head && fits {
            self.head_bytes += text.len();
            self.head.push(text);
            return;
        }
        // The head stays the program's first lines: once one misses it, it is closed.
        self.head_done = true;
        if self.shape.tail == 0 {
            if !self.dropped {
                self.spill
                    .start(self.head.iter().chain(std::iter::once(&text)));
            }
            self.dropped = true;
            return;
        }
        self.tail_bytes += text.len();
        self.tail.push_back(text);
        while self.tail.len() > self.shape.tail || (self.tail_bytes > cap && self.tail.len() > 1) {
            self.dropping();
            let Some(gone) = self.tail.pop_front() else {
                break;
            };
            self.tail_bytes -= gone.len();
        }
    }

    /// The window, the secrets masked, and the lines that show a failure.
    pub fn finish(mut self) -> (Window, usize, Vec<String>) {
        let shown_matches = self.matches.len() as u64;
        let log = self.spill.finish();
        let w = Window {
            head: self.head,
            tail: self.tail.into_iter().collect(),
            total_lines: self.total,
            truncated: self.dropped,
            matches: self.shape.grep.as_ref().map(|_| self.matches),
            // Every match shown: the total says nothing new.
            total_matches: self
                .shape
                .grep
                .as_ref()
                .map(|_| self.total_matches)
                .filter(|&t| t > shown_matches),
            cut_lines: self.cut,
            log_cut: log.is_some() && self.spill.cut,
            log,
        };
        debug_assert!(shown_matches <= self.total_matches);
        let mut failures = self.failures;
        failures.extend(self.last_failures);
        (w, self.mask.count(), failures)
    }

    /// Keeps a line that shows a failure: among the first [`FIRST_FAILURES`]
    /// or, past them, the last [`LAST_FAILURES`].
    fn note_failure(&mut self, text: &str) {
        let message = std::mem::replace(&mut self.panic_message_next, opens_panic_message(text));
        let shows = message
            || (!is_frame(text)
                && !is_header(text)
                && failure_re().is_some_and(|re| re.is_match(text)));
        if !shows {
            return;
        }
        if self.failures.len() < FIRST_FAILURES {
            self.failures.push(text.to_string());
            return;
        }
        self.last_failures.push_back(text.to_string());
        if self.last_failures.len() > LAST_FAILURES {
            self.last_failures.pop_front();
        }
    }
}

impl Sink for Capture {
    fn feed(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            if self.pending.is_empty() {
                self.line(&rest[..i]);
            } else {
                self.keep(&rest[..i]);
                let raw = std::mem::take(&mut self.pending);
                self.line(&raw);
                self.pending_over = false;
            }
            rest = &rest[i + 1..];
        }
        self.keep(rest);
    }

    fn end(&mut self) {
        if !self.pending.is_empty() {
            let raw = std::mem::take(&mut self.pending);
            self.line(&raw);
        }
    }
}

impl Capture {
    /// Adds to the unfinished line, within [`MAX_PENDING`]: a redrawn line keeps
    /// its last state, a longer one its start (it is cut when shown anyway).
    fn keep(&mut self, part: &[u8]) {
        if self.pending_over && !(self.shape.strip && part.contains(&b'\r')) {
            return;
        }
        self.pending.extend_from_slice(part);
        if self.pending.len() > MAX_PENDING {
            if self.shape.strip
                && let Some(r) = memchr::memrchr(b'\r', &self.pending)
            {
                self.pending.drain(..r);
            }
            if self.pending.len() > MAX_PENDING {
                self.pending.truncate(MAX_PENDING);
                self.pending_over = true;
                self.cut = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_come_from_a_stream_in_any_chunks() {
        let mut c = Capture::new(Shape {
            head: 2,
            tail: 3,
            strip: true,
            ..Shape::default()
        });
        let text: String = (1..=10).map(|i| format!("{i}\n")).collect();
        for chunk in text.as_bytes().chunks(3) {
            c.feed(chunk);
        }
        c.feed(b"last");
        c.end();
        let (w, masked, _) = c.finish();
        assert_eq!(w.head, ["1", "2"]);
        assert_eq!(w.tail, ["9", "10", "last"]);
        assert_eq!(w.total_lines, 11);
        assert!(w.truncated && masked == 0);
    }

    #[test]
    fn frames_and_headers_do_not_show_a_failure_a_panic_message_does() {
        assert!(is_frame("   2: core::panicking::assert_failed_inner"));
        assert!(is_frame("             at ./src/lib.rs:66:30"));
        assert!(!is_frame("E       assert 1 == 2") && !is_frame("12: error here"));
        assert!(is_header("failures:") && is_header("=== FAILURES ===") && is_header("ERRORS"));
        assert!(!is_header("FAILED tests/a.py::t - assert 1 == 2"));
        let mut c = Capture::new(Shape::default());
        c.feed(b"thread 'main' panicked at src/a.rs:1:2:\nthe message\nok\n");
        c.end();
        let (_, _, failures) = c.finish();
        assert_eq!(
            failures,
            ["thread 'main' panicked at src/a.rs:1:2:", "the message"]
        );
    }

    /// A writer the test reads back.
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| std::io::ErrorKind::Other)?
                .extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_cut_stream_is_logged_whole_up_to_the_cap() {
        let run = |lines: u64, cap: u64| {
            let log = Shared::default();
            let w = log.clone();
            let mut c = Capture::with_log(
                Shape {
                    head: 2,
                    tail: 3,
                    ..Shape::default()
                },
                Box::new(move || Some(("log".to_string(), Box::new(w) as Box<dyn Write + Send>))),
            );
            c.spill.cap = cap;
            let text: String = (1..=lines).map(|i| format!("{i}\n")).collect();
            c.feed(text.as_bytes());
            c.end();
            let (win, _, _) = c.finish();
            let bytes = log.0.lock().map(|v| v.clone()).unwrap_or_default();
            (win, String::from_utf8(bytes).unwrap_or_default())
        };
        // Fits the windows: no log.
        let (w, text) = run(5, 1000);
        assert!(w.log.is_none() && text.is_empty());
        // Cut: every line, in order.
        let (w, text) = run(10, 1000);
        assert_eq!(w.log.as_deref(), Some("log"));
        let want: String = (1..=10).map(|i| format!("{i}\n")).collect();
        assert_eq!(text, want);
        assert!(!w.log_cut);
        // Past the cap: the first lines that fit, and said.
        let (w, text) = run(10, 8);
        assert_eq!(text, "1\n2\n3\n4\n");
        assert!(w.log_cut);
    }

    #[test]
    fn a_byte_cap_closes_the_head_and_keeps_one_tail_line_at_least() {
        let mut c = Capture::new(Shape {
            head: 10,
            tail: 10,
            window_bytes: Some(5),
            ..Shape::default()
        });
        c.feed(b"aaa\nbb\nc\ndddddd\nee\n");
        c.end();
        let (w, _, _) = c.finish();
        assert_eq!(w.head, ["aaa", "bb"]);
        assert_eq!(w.tail, ["ee"]);
        assert!(w.truncated && w.total_lines == 5);
    }
}

//! `search`'s ripgrep sinks: the counting pass, the block and match collectors
//! of the listing pass, and the cut of an over-long line around its match.

#[allow(unused_imports)]
use super::*;

/// A match line's text, and for a line over the cap the 1-based column its shown
/// window starts at: the window holds the line's first match (a long minified line
/// would otherwise show only its start).
pub(super) fn match_window(bytes: &[u8], find: &Regex) -> (String, Option<u64>) {
    let b = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let b = b.strip_suffix(b"\r").unwrap_or(b);
    if b.len() <= MAX_LINE_BYTES {
        return (String::from_utf8_lossy(b).into_owned(), None);
    }
    let at = find.find(b).map_or(0, |m| m.start());
    let mut start = at.saturating_sub(MAX_LINE_BYTES / 4);
    // Start on a character, not inside one.
    while start > 0 && b.get(start).is_some_and(|c| (c & 0xC0) == 0x80) {
        start -= 1;
    }
    let end = (start + MAX_LINE_BYTES).min(b.len());
    let col = String::from_utf8_lossy(&b[..start]).chars().count() as u64 + 1;
    (
        String::from_utf8_lossy(&b[start..end]).into_owned(),
        Some(col),
    )
}

/// Column 1 for a context line over the cap (its shown text is its start).
pub(super) fn over_cap(bytes: &[u8]) -> Option<u64> {
    let b = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let b = b.strip_suffix(b"\r").unwrap_or(b);
    (b.len() > MAX_LINE_BYTES).then_some(1)
}

/// A line's text without its terminator, cut at MAX_LINE_BYTES.
pub(super) fn line_text(bytes: &[u8]) -> String {
    let b = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let b = b.strip_suffix(b"\r").unwrap_or(b);
    let b = b.get(..MAX_LINE_BYTES).unwrap_or(b);
    String::from_utf8_lossy(b).into_owned()
}

/// Pass 1: selected lines (or matches) of one file.
pub(super) struct Counter<'a> {
    pub(super) count_matches: Option<&'a Regex>,
    pub(super) selected: u64,
    pub(super) binary: bool,
}

impl Sink for Counter<'_> {
    type Error = std::io::Error;
    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        match self.count_matches {
            Some(re) => {
                for line in region_lines(mat.bytes()) {
                    self.selected += re.find_iter(line).count() as u64;
                }
            }
            None => self.selected += mat.lines().count() as u64,
        }
        Ok(true)
    }
    fn binary_data(&mut self, s: &Searcher, _: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        // A named file is searched to its end (convert mode); a scanned one stops.
        Ok(s.binary_detection().convert_byte().is_some())
    }
}

/// The lines of a match region; in multiline mode the region is one piece.
pub(super) fn region_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::once(bytes)
}

#[derive(Debug)]
pub(super) enum Counted {
    Text(u64),
    Binary(u64),
    Unreadable,
    /// A named pipe over the cap.
    TooLarge,
    /// A named pipe no process opened for writing in time (`read_fifo`).
    NoWriter,
}

/// Pass 2 (blocks): selected and context lines up to the limit plus the last
/// selected line's after-context.
pub(super) struct Collector<'a> {
    pub(super) find: &'a Regex,
    /// Selected lines an earlier page showed: passed over, shown only as context.
    pub(super) skip: u64,
    pub(super) remaining: u64,
    pub(super) after: u64,
    pub(super) kept: u64,
    pub(super) last_kept: Option<u64>,
    pub(super) first_kept: Option<u64>,
    /// (line, is a match line, text, window column of a cut line)
    pub(super) events: Vec<(u64, bool, String, Option<u64>)>,
}

impl Collector<'_> {
    pub(super) fn past_window(&self, n: u64) -> bool {
        self.kept >= self.remaining && self.last_kept.is_none_or(|l| n > l + self.after)
    }
}

impl Collector<'_> {
    /// A selected line `n` (its text as a match line's window and as a context
    /// line's, `plain`, which differs only for a line over the cap); false once
    /// the window is past.
    pub(super) fn selected(&mut self, n: u64, line: &[u8]) -> bool {
        let find = self.find;
        self.selected_with(n, |window| {
            if window {
                match_window(line, find)
            } else {
                (line_text(line), over_cap(line))
            }
        })
    }

    /// `text(true)` is the line as a kept match line shows it, `text(false)` as
    /// a context line (a selected line an earlier page showed, or one past the
    /// window's last).
    fn selected_with(&mut self, n: u64, text: impl FnOnce(bool) -> (String, Option<u64>)) -> bool {
        if self.skip > 0 {
            self.skip -= 1;
            let (text, col) = text(false);
            self.events.push((n, false, text, col));
        } else if self.kept < self.remaining {
            self.kept += 1;
            self.last_kept = Some(n);
            self.first_kept.get_or_insert(n);
            let (text, col) = text(true);
            self.events.push((n, true, text, col));
        } else if self.past_window(n) {
            return false;
        } else {
            let (text, col) = text(false);
            self.events.push((n, false, text, col));
        }
        true
    }

    /// A context line `n`; false once the window is past.
    pub(super) fn context_line(&mut self, n: u64, text: String, col: Option<u64>) -> bool {
        if self.past_window(n) {
            return false;
        }
        self.events.push((n, false, text, col));
        true
    }

    /// Replays a file's lines as a worker recorded them (`Recorder`), as the
    /// searcher would have handed them to this sink.
    pub(super) fn replay(&mut self, lines: Vec<Recorded>) {
        for r in lines {
            let go = if r.selected {
                let Recorded {
                    line,
                    text,
                    col,
                    plain,
                    ..
                } = r;
                // Within the cap the two texts are one.
                self.selected_with(line, |window| match plain {
                    Some(p) if !window => p,
                    _ => (text, col),
                })
            } else {
                self.context_line(r.line, r.text, r.col)
            };
            if !go {
                break;
            }
        }
    }
}

impl Sink for Collector<'_> {
    type Error = std::io::Error;
    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let first = mat.line_number().unwrap_or(0);
        for (i, line) in mat.lines().enumerate() {
            if !self.selected(first + i as u64, line) {
                return Ok(false);
            }
        }
        Ok(true)
    }
    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        let n = ctx.line_number().unwrap_or(0);
        Ok(self.context_line(n, line_text(ctx.bytes()), over_cap(ctx.bytes())))
    }
    fn binary_data(&mut self, s: &Searcher, _: u64) -> Result<bool, Self::Error> {
        Ok(s.binary_detection().convert_byte().is_some())
    }
}

/// One line of a file's blocks as the worker that counted it recorded it.
pub(super) struct Recorded {
    pub(super) line: u64,
    pub(super) selected: bool,
    /// A selected line's window (`match_window`), else the line's text.
    pub(super) text: String,
    pub(super) col: Option<u64>,
    /// A selected line over the cap: its text as a context line shows it.
    pub(super) plain: Option<(String, Option<u64>)>,
}

/// Blocks mode, on the worker: counts a file as `Counter` does and, in the same
/// search (with context), records its selected and context lines up to what any
/// window can show of one file: `cap` selected lines (--offset + --limit) and the
/// last one's after-context. The listing then orders and cuts them without
/// searching the file again.
pub(super) struct Recorder<'a> {
    pub(super) counter: Counter<'a>,
    pub(super) find: &'a Regex,
    pub(super) cap: u64,
    pub(super) after: u64,
    pub(super) seen: u64,
    pub(super) last: Option<u64>,
    pub(super) done: bool,
    pub(super) lines: Vec<Recorded>,
}

impl Recorder<'_> {
    /// Whether line `n` is past what any window shows (recording stops there).
    fn past(&mut self, n: u64) -> bool {
        if !self.done && self.seen >= self.cap && self.last.is_none_or(|l| n > l + self.after) {
            self.done = true;
        }
        self.done
    }
}

impl Sink for Recorder<'_> {
    type Error = std::io::Error;
    fn matched(&mut self, s: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let go = self.counter.matched(s, mat)?;
        let first = mat.line_number().unwrap_or(0);
        for (i, line) in mat.lines().enumerate() {
            let n = first + i as u64;
            if self.past(n) {
                break;
            }
            if self.seen < self.cap {
                self.seen += 1;
                self.last = Some(n);
            }
            let (text, col) = match_window(line, self.find);
            let plain = col.map(|_| (line_text(line), over_cap(line)));
            self.lines.push(Recorded {
                line: n,
                selected: true,
                text,
                col,
                plain,
            });
        }
        Ok(go)
    }
    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        let n = ctx.line_number().unwrap_or(0);
        if !self.past(n) {
            self.lines.push(Recorded {
                line: n,
                selected: false,
                text: line_text(ctx.bytes()),
                col: over_cap(ctx.bytes()),
                plain: None,
            });
        }
        Ok(true)
    }
    fn binary_data(&mut self, s: &Searcher, at: u64) -> Result<bool, Self::Error> {
        self.counter.binary_data(s, at)
    }
}

/// Pass 2 (matches): the matches of the selected lines, up to the limit.
pub(super) struct MatchCollector<'a> {
    pub(super) pats: &'a Patterns,
    pub(super) multi: bool,
    pub(super) path: String,
    /// A `.ipynb` file: its lines are JSON strings.
    pub(super) notebook: bool,
    /// Matches an earlier page showed.
    pub(super) skip: u64,
    pub(super) remaining: u64,
    pub(super) out: Vec<MatchItem>,
}

impl Sink for MatchCollector<'_> {
    type Error = std::io::Error;
    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let first = mat.line_number().unwrap_or(0);
        let region = mat.bytes();
        let region = if self.multi {
            region
        } else {
            let r = region.strip_suffix(b"\n").unwrap_or(region);
            r.strip_suffix(b"\r").unwrap_or(r)
        };
        // A match or group cut from a line loses the key name that marks its secret:
        // mask the pieces by the whole region's secrets.
        let mut spans: Option<Vec<std::ops::Range<usize>>> = None;
        for caps in self.pats.combined.captures_iter(region) {
            if self.out.len() as u64 >= self.remaining {
                return Ok(false);
            }
            let Some(m0) = caps.get(0) else { continue };
            if self.skip > 0 {
                self.skip -= 1;
                continue;
            }
            let (pattern_index, caps) = if self.pats.each.len() > 1 {
                let found = self.pats.each.iter().enumerate().find_map(|(i, re)| {
                    re.captures_at(region, m0.start())
                        .filter(|c| c.get(0).is_some_and(|m| m.start() == m0.start()))
                        .map(|c| (i, c))
                });
                match found {
                    Some((i, c)) => (Some(i), c),
                    None => (Some(0), caps),
                }
            } else {
                (None, caps)
            };
            let re = match pattern_index {
                Some(i) => self.pats.each.get(i).unwrap_or(&self.pats.combined),
                None => &self.pats.combined,
            };
            let before = region.get(..m0.start()).unwrap_or_default();
            let line = first + memchr::memchr_iter(b'\n', before).count() as u64;
            let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
            let col_text = String::from_utf8_lossy(before.get(line_start..).unwrap_or_default());
            let spans = spans.get_or_insert_with(|| {
                let raw = redact::secret_spans_bytes(region);
                if !self.notebook {
                    return raw;
                }
                // A notebook's lines are JSON strings: a secret is judged on the
                // text a line stands for, its escapes (`\"`) masked with it.
                redact::union_spans(raw, redact::secret_spans_json_lines(region))
            });
            let text = |m: regex::bytes::Match| redact::mask_part(region, spans, m.range());
            let groups: Vec<Option<String>> = caps.iter().skip(1).map(|g| g.map(text)).collect();
            let names: BTreeMap<String, Option<String>> = re
                .capture_names()
                .flatten()
                .map(|n| (n.to_string(), caps.name(n).map(text)))
                .collect();
            self.out.push(MatchItem {
                path: self.path.clone(),
                cell: None,
                line,
                col: col_text.chars().count() as u64 + 1,
                text: text(m0),
                groups,
                named: if names.is_empty() { None } else { Some(names) },
                pattern_index,
                hid: spans
                    .iter()
                    .filter(|s| s.start < m0.end() && m0.start() < s.end)
                    .filter_map(|s| region.get(s.clone()))
                    .map(|v| String::from_utf8_lossy(v).into_owned())
                    .collect(),
            });
        }
        Ok(true)
    }
    fn binary_data(&mut self, s: &Searcher, _: u64) -> Result<bool, Self::Error> {
        Ok(s.binary_detection().convert_byte().is_some())
    }
}

/// Searches a named pipe's kept bytes, a file's staged bytes when a tx changed
/// it, else the file on disk.
pub(super) fn search_in<S: Sink>(
    s: &mut Searcher,
    m: &RegexMatcher,
    p: &Path,
    (overlay, piped): (Option<&scan::Overlay>, Option<&[u8]>),
    sink: S,
) -> Result<(), S::Error> {
    if let Some(b) = piped {
        return s.search_slice(m, b, sink);
    }
    match overlay.and_then(|o| o.nodes.get(p)) {
        Some(scan::OverlayNode::File { bytes, .. }) => s.search_slice(m, bytes, sink),
        _ => search_disk(s, m, p, sink),
    }
}

/// The mask's state before each of `starts` (block or match lines, ascending):
/// the up to `redact::LEAD_LINES` lines before each start fed to a `redact::Primer`
/// (as `read --range` primes its mask), so a block
/// that starts inside a key's multi-line value (a YAML block scalar, a private
/// key) is masked as a read of the whole file masks it. With each state inside
/// such a value, the start line itself (for a match cut from it). A line is fed
/// at most its first `LEAD_CAP` bytes.
pub(super) fn lead_primers(
    p: &Path,
    (overlay, piped): (Option<&scan::Overlay>, Option<&[u8]>),
    starts: &[u64],
) -> Vec<(redact::Primer, Option<Vec<u8>>)> {
    const LEAD_CAP: usize = 16 * 1024;
    let mut out: Vec<(redact::Primer, Option<Vec<u8>>)> = Vec::with_capacity(starts.len());
    let fresh = || (redact::Primer::default(), None);
    if starts.iter().all(|&s| s <= 1) {
        out.resize_with(starts.len(), fresh);
        return out;
    }
    let mut reader: Box<dyn std::io::Read> = match piped {
        Some(b) => Box::new(b),
        None => match overlay.and_then(|o| o.nodes.get(p)) {
            Some(scan::OverlayNode::File { bytes, .. }) => Box::new(&bytes[..]),
            _ => match scan::open_listed(p) {
                Ok(f) => Box::new(f),
                Err(_) => {
                    out.resize_with(starts.len(), fresh);
                    return out;
                }
            },
        },
    };
    let mut primer = redact::Primer::default();
    let mut line: Vec<u8> = Vec::new();
    let mut number = 1u64;
    let mut buf = vec![0u8; 64 * 1024];
    // The starts given a state, and those of them whose line is still to be read.
    let mut next = 0;
    let mut waiting: Vec<usize> = Vec::new();
    'read: loop {
        while next < starts.len() && starts[next] <= number {
            if primer.inside() {
                waiting.push(out.len());
            }
            out.push((primer.clone(), None));
            next += 1;
        }
        if next == starts.len() && waiting.is_empty() {
            break;
        }
        let n = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut chunk = &buf[..n];
        while let Some(i) = memchr::memchr(b'\n', chunk) {
            // Bounded as `read --range` is: only the `LEAD_LINES` lines before a
            // start are fed (from a fresh state); the others are counted.
            let far = waiting.is_empty()
                && starts
                    .get(next)
                    .is_some_and(|&s| number + (redact::LEAD_LINES as u64) < s);
            if far {
                primer = redact::Primer::default();
                line.clear();
                number += 1;
                chunk = &chunk[i + 1..];
                continue;
            }
            let room = LEAD_CAP.saturating_sub(line.len());
            line.extend_from_slice(&chunk[..i.min(room)]);
            for w in waiting.drain(..) {
                out[w].1 = Some(line.clone());
            }
            primer.feed(&line);
            line.clear();
            number += 1;
            chunk = &chunk[i + 1..];
            while next < starts.len() && starts[next] <= number {
                if primer.inside() {
                    waiting.push(out.len());
                }
                out.push((primer.clone(), None));
                next += 1;
            }
            if next == starts.len() && waiting.is_empty() {
                break 'read;
            }
        }
        let room = LEAD_CAP.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
    }
    for w in waiting {
        out[w].1 = Some(line.clone());
    }
    out.resize_with(starts.len(), || (primer.clone(), None));
    out
}

/// Searches the file at `p` on disk, opened without waiting on a FIFO (a file
/// swapped for one after the listing reads as what it is, or is unreadable,
/// never blocking; see `scan::Listed`).
pub(super) fn search_disk<S: Sink>(
    s: &mut Searcher,
    m: &RegexMatcher,
    p: &Path,
    sink: S,
) -> Result<(), S::Error> {
    use grep_searcher::SinkError;
    match scan::open_listed(p) {
        Ok(f) => s.search_reader(m, f, sink),
        Err(e) => Err(S::Error::error_io(e)),
    }
}

/// The whole text of the file at `p` when its name names a secret and it is
/// short enough to be one value (`redact::value_named_by_path` decides); `None`
/// for every other file, unread.
pub(super) fn named_text(
    p: &Path,
    (overlay, piped): (Option<&scan::Overlay>, Option<&[u8]>),
) -> Option<Vec<u8>> {
    use std::io::Read;
    if piped.is_some() || !redact::path_names_secret(&p.to_string_lossy()) {
        return None;
    }
    let cap = redact::NAMED_MAX_BYTES as u64 + 1;
    let mut text = Vec::new();
    match overlay.and_then(|o| o.nodes.get(p)) {
        Some(scan::OverlayNode::File { bytes, .. }) => text.extend_from_slice(bytes),
        _ => {
            scan::open_listed(p)
                .ok()?
                .take(cap)
                .read_to_end(&mut text)
                .ok()?;
        }
    }
    redact::value_named_by_path(&p.to_string_lossy(), &text).map(|_| text)
}

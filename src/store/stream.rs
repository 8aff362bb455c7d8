//! Large files edited without being held whole. One streaming pass over a file
//! (`scan`) finds a needle, hashing the file, counting its lines and line
//! endings and checking it is UTF-8 as it goes, and keeps only the text around
//! the first place it occurs (`Scan::excerpt`). The write then writes the new
//! file as the unchanged head copied from the file read, the new text, and the
//! unchanged tail copied (`write_spliced`); the new file's hash resumes from the
//! hash state kept at the block before the change (`Scan::successor_hash`).

use super::snapshot::Stamp;
use crate::text::lines::hex;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;
use std::sync::Arc;

/// Files of this size or more are edited by a streaming pass, not loaded whole.
pub const STREAM_FROM: u64 = 32 << 20;
/// The read (and copy) block.
const BLOCK: usize = 1 << 20;
/// The text kept before and after the first occurrence.
pub const CONTEXT: usize = 1 << 16;

/// What one streaming pass over a file found of a needle.
#[derive(Debug)]
pub struct Scan {
    /// The file read (the inode the write copies from).
    pub file: Arc<File>,
    /// Its metadata before the read; `len` is what the read found.
    pub stamp: Stamp,
    pub len: u64,
    pub mode: u32,
    pub mtime: i64,
    /// The SHA-256 (hex) of the `len` bytes read; empty when the pass stopped early.
    pub hash: String,
    /// Occurrences of the needle (overlapping ones too), counted up to 2: at 2
    /// the pass stops (the caller leaves such a file alone).
    pub count: usize,
    /// The first occurrence's offset.
    pub at: u64,
    /// The file from the start of the first occurrence's line (when that is at
    /// most `CONTEXT` bytes before it) up to `CONTEXT` bytes past its end.
    pub excerpt: Vec<u8>,
    /// The offset of `excerpt[0]`; `None` when the line starts further back.
    pub excerpt_at: Option<u64>,
    /// The lines (`\n`) before `excerpt_at`.
    pub lines_before: u64,
    /// The excerpt runs to the end of the file.
    pub to_eof: bool,
    /// `\n` and `\r\n` in the whole file.
    pub lf: u64,
    pub crlf: u64,
    /// The file's first bytes (what a binary sniff looks at).
    pub head: Vec<u8>,
    /// The whole file is UTF-8.
    pub utf8: bool,
    /// The file holds the redaction mask in a spelling a write refuses
    /// (`redact::contains_placeholder`); looked for only by `scan_masks`.
    pub masked: bool,
    /// The hash state at the start of each block, and the `\n` before it.
    midstates: Vec<(u64, u64, Sha256)>,
}

/// Reads until `buf` is full or the file ends, from `off`.
fn read_full(f: &File, buf: &mut [u8], off: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read_at(&mut buf[n..], off + n as u64) {
            Ok(0) => break,
            Ok(m) => n += m,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A streaming UTF-8 check: the bytes of a character split by a block end wait
/// for the next block.
#[derive(Default)]
struct Utf8 {
    pending: Vec<u8>,
    bad: bool,
}

impl Utf8 {
    fn feed(&mut self, block: &[u8]) {
        if self.bad {
            return;
        }
        let mut start = 0;
        if !self.pending.is_empty() {
            let mut done = false;
            while start < block.len() && self.pending.len() < 4 {
                self.pending.push(block[start]);
                start += 1;
                match std::str::from_utf8(&self.pending) {
                    Ok(_) => {
                        done = true;
                        break;
                    }
                    Err(e) if e.error_len().is_some() => {
                        self.bad = true;
                        return;
                    }
                    Err(_) => {}
                }
            }
            if !done {
                self.bad = self.pending.len() >= 4;
                return;
            }
            self.pending.clear();
        }
        let rest = block.get(start..).unwrap_or_default();
        if let Err(e) = std::str::from_utf8(rest) {
            match e.error_len() {
                Some(_) => self.bad = true,
                None => self.pending = rest.get(e.valid_up_to()..).unwrap_or_default().to_vec(),
            }
        }
    }

    fn ok_at_end(&self) -> bool {
        !self.bad && self.pending.is_empty()
    }
}

/// Opens `path` (a real path: a regular file, never through a symlink anywhere
/// on it, `fsx::open_no_symlinks`) and scans it for `needle` in one pass (an
/// empty needle: only hashed, counted and checked). A parent directory swapped
/// for a symlink since the path was resolved is `ELOOP`, never followed to a
/// file outside the workspace whose bytes the edit would copy in or show.
pub fn scan(path: &Path, needle: &[u8]) -> io::Result<Scan> {
    let file = super::fsx::open_no_symlinks(path)?;
    scan_open(file, needle)
}

/// `scan` of a file already open (a regular file).
pub fn scan_open(file: File, needle: &[u8]) -> io::Result<Scan> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    scan_file(Arc::new(file), &meta, needle, false)
}

/// `scan_open` with no needle that also looks for the redaction mask
/// (`Scan::masked`): the content of a write, which must not carry it back.
/// Only hashed and looked at: its lines and UTF-8 are not counted or checked
/// (`lf`, `crlf` 0, `utf8` false).
pub fn scan_masks(file: File) -> io::Result<Scan> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    scan_file(Arc::new(file), &meta, b"", true)
}

/// The bytes kept from the end of one block to find a mask spelling that
/// straddles the next (the longest, every character `\uXXXX`, is 102).
const MASK_SEAM: usize = 128;

/// Whether the mask is in `block`, or across the seam of `seam` (the end of the
/// block before) and it; `seam` then becomes this block's end.
fn masked_in(block: &[u8], seam: &mut Vec<u8>) -> bool {
    use crate::protocol::redact::contains_placeholder;
    seam.extend_from_slice(block.get(..block.len().min(MASK_SEAM)).unwrap_or_default());
    let hit = contains_placeholder(seam) || contains_placeholder(block);
    seam.clear();
    seam.extend_from_slice(
        block
            .get(block.len().saturating_sub(MASK_SEAM)..)
            .unwrap_or_default(),
    );
    hit
}

/// The pass itself: a window of the last `CONTEXT + needle` bytes and one block
/// is searched; what leaves the window was hashed, counted and checked.
fn scan_file(
    file: Arc<File>,
    meta: &std::fs::Metadata,
    needle: &[u8],
    masks: bool,
) -> io::Result<Scan> {
    let k = needle.len().max(1);
    let finder = memchr::memmem::Finder::new(needle);
    let mut s = Scan::empty(file, meta);
    let mut seam: Vec<u8> = Vec::new();
    let mut h = Sha256::new();
    let mut utf8 = Utf8::default();
    let mut buf = vec![0u8; BLOCK];
    let mut win: Vec<u8> = Vec::with_capacity(BLOCK + CONTEXT + k);
    // The offset of `win[0]`, the '\n' before it, the first start not searched.
    let (mut win_at, mut nl_before_win, mut next_start) = (0u64, 0u64, 0u64);
    // The excerpt's length once complete (set when the needle is found).
    let mut excerpt_want: Option<usize> = None;
    let mut last = 0u8;
    loop {
        let n = read_full(&s.file, &mut buf, s.len)?;
        let block = buf.get(..n).unwrap_or_default();
        s.tally(block, &mut h, &mut utf8, &mut last, !masks);
        if masks && !s.masked {
            s.masked = masked_in(block, &mut seam);
        }
        if needle.is_empty() {
            // Nothing to find: no window kept (it cost a copy of every block).
            s.len += n as u64;
            if n < BLOCK {
                break;
            }
            continue;
        }
        if let Some(want) = excerpt_want
            && s.excerpt.len() < want
        {
            let more = (want - s.excerpt.len()).min(n);
            s.excerpt.extend_from_slice(&block[..more]);
        }
        win.extend_from_slice(block);
        s.len += n as u64;
        let eof = n < BLOCK;
        // Every start from `next_start` whose needle ends inside the window.
        let mut i = (next_start - win_at) as usize;
        while s.count < 2 && !needle.is_empty() {
            let Some(j) = win.get(i..).and_then(|w| finder.find(w)) else {
                break;
            };
            let q = i + j;
            s.count += 1;
            if s.count == 1 {
                s.at = win_at + q as u64;
                let from = q.saturating_sub(CONTEXT);
                s.excerpt = win[from..].to_vec();
                s.excerpt_at = Some(win_at + from as u64);
                s.lines_before =
                    nl_before_win + memchr::memchr_iter(b'\n', &win[..from]).count() as u64;
                let want = (q - from) + needle.len() + CONTEXT;
                s.excerpt.truncate(want);
                excerpt_want = Some(want);
            }
            i = q + 1;
        }
        if s.count >= 2 {
            return Ok(s);
        }
        next_start = next_start.max((s.len + 1).saturating_sub(k as u64));
        if eof {
            break;
        }
        let keep = CONTEXT + k;
        if win.len() > keep {
            let cut = win.len() - keep;
            nl_before_win += memchr::memchr_iter(b'\n', &win[..cut]).count() as u64;
            win.drain(..cut);
            win_at += cut as u64;
        }
    }
    s.utf8 = !masks && utf8.ok_at_end();
    s.hash = hex(&h.finalize());
    if let (1, Some(at)) = (s.count, s.excerpt_at) {
        s.to_eof = at + s.excerpt.len() as u64 == s.len;
        // The excerpt starts at the line's start, or the line starts too far back.
        let before = (s.at - at) as usize;
        match memchr::memrchr(b'\n', &s.excerpt[..before]) {
            Some(p) => {
                s.lines_before += memchr::memchr_iter(b'\n', &s.excerpt[..=p]).count() as u64;
                s.excerpt.drain(..=p);
                s.excerpt_at = Some(at + p as u64 + 1);
            }
            None if at == 0 => {}
            None => s.excerpt_at = None,
        }
    }
    Ok(s)
}

impl Scan {
    /// Nothing read yet of `file` (whose metadata is `meta`).
    fn empty(file: Arc<File>, meta: &std::fs::Metadata) -> Scan {
        Scan {
            file,
            stamp: Stamp::of(meta),
            len: 0,
            mode: meta.mode() & 0o7777,
            mtime: meta.mtime(),
            hash: String::new(),
            count: 0,
            at: 0,
            excerpt: Vec::new(),
            excerpt_at: None,
            lines_before: 0,
            to_eof: false,
            lf: 0,
            crlf: 0,
            head: Vec::new(),
            utf8: false,
            masked: false,
            midstates: Vec::new(),
        }
    }

    /// What every block read adds: the hash (and its state before the block),
    /// the UTF-8 check, the line endings, the head.
    /// A pass that only hashes (`text` false: `scan_masks`) leaves the line
    /// endings uncounted and `utf8` false.
    fn tally(&mut self, block: &[u8], h: &mut Sha256, utf8: &mut Utf8, last: &mut u8, text: bool) {
        self.midstates.push((self.len, self.lf, h.clone()));
        h.update(block);
        if self.head.len() < crate::text::sniff::SNIFF_BYTES {
            let room = crate::text::sniff::SNIFF_BYTES - self.head.len();
            self.head
                .extend_from_slice(block.get(..block.len().min(room)).unwrap_or_default());
        }
        if !text {
            return;
        }
        utf8.feed(block);
        self.lf += memchr::memchr_iter(b'\n', block).count() as u64;
        self.crlf += memchr::memmem::find_iter(block, b"\r\n").count() as u64;
        if *last == b'\r' && block.first() == Some(&b'\n') {
            self.crlf += 1;
        }
        *last = block.last().copied().unwrap_or(*last);
    }

    /// The SHA-256 (hex) of the file as read with `range` replaced by `with`:
    /// from the hash state of the block the range starts in, reading the rest
    /// of the file (not the head) again.
    pub fn successor_hash(&self, range: &Range<u64>, with: &[u8]) -> io::Result<String> {
        let (from, mut h) = self
            .midstates
            .iter()
            .rev()
            .find(|(at, _, _)| *at <= range.start)
            .map_or((0, Sha256::new()), |(at, _, st)| (*at, st.clone()));
        let mut buf = vec![0u8; BLOCK];
        self.feed(&mut h, &mut buf, from..range.start)?;
        h.update(with);
        self.feed(&mut h, &mut buf, range.end..self.len)?;
        Ok(hex(&h.finalize()))
    }

    fn feed(&self, h: &mut Sha256, buf: &mut [u8], range: Range<u64>) -> io::Result<()> {
        let mut at = range.start;
        while at < range.end {
            let want = ((range.end - at) as usize).min(buf.len());
            let n = read_full(&self.file, &mut buf[..want], at)?;
            if n < want {
                return Err(io::Error::other("the file shrank while it was read"));
            }
            h.update(&buf[..n]);
            at += n as u64;
        }
        Ok(())
    }

    /// The bytes of `range` of the file read.
    pub fn read(&self, range: Range<u64>) -> io::Result<Vec<u8>> {
        let mut v = vec![0u8; (range.end.saturating_sub(range.start)) as usize];
        let n = read_full(&self.file, &mut v, range.start)?;
        v.truncate(n);
        Ok(v)
    }

    /// Makes the excerpt (as a found needle's) the text around offset `at`:
    /// from the start of its line to `CONTEXT` bytes past it. Only near the
    /// file's start or end (within `CONTEXT`), where the lines before it are
    /// known; `false` (nothing set) elsewhere, or when the line starts further back.
    pub fn excerpt_around(&mut self, at: u64) -> io::Result<bool> {
        let (from, to) = (
            at.saturating_sub(CONTEXT as u64),
            (at + CONTEXT as u64).min(self.len),
        );
        if at > self.len || (from > 0 && to < self.len) {
            return Ok(false);
        }
        let bytes = self.read(from..to)?;
        if (bytes.len() as u64) < to - from {
            return Err(io::Error::other("the file shrank while it was read"));
        }
        let local = (at - from) as usize;
        let start = match memchr::memrchr(b'\n', &bytes[..local]) {
            Some(p) => p + 1,
            None if from == 0 => 0,
            None => return Ok(false),
        };
        let excerpt = bytes[start..].to_vec();
        self.lines_before = if from == 0 {
            memchr::memchr_iter(b'\n', &bytes[..start]).count() as u64
        } else {
            self.lf - memchr::memchr_iter(b'\n', &excerpt).count() as u64
        };
        self.excerpt = excerpt;
        self.excerpt_at = Some(from + start as u64);
        self.to_eof = to == self.len;
        self.at = at;
        Ok(true)
    }

    /// Whether `f` (the inode read, reopened) still starts with the `len`
    /// bytes read: their hash again.
    pub fn prefix_holds(&self, f: &File) -> bool {
        let mut h = Sha256::new();
        let mut buf = vec![0u8; BLOCK];
        let mut at = 0u64;
        while at < self.len {
            let want = ((self.len - at) as usize).min(BLOCK);
            match read_full(f, &mut buf[..want], at) {
                Ok(n) if n == want => h.update(&buf[..n]),
                _ => return false,
            }
            at += want as u64;
        }
        hex(&h.finalize()) == self.hash
    }
}

/// Writes `base`'s bytes with `range` replaced by `with` to `out` (a new
/// file, at its start): the head and tail copied in the kernel from the file
/// read (`copy_file_range`; read and written in blocks where it is refused).
pub fn write_spliced(
    out: &mut File,
    base: &Scan,
    range: &Range<u64>,
    with: &[u8],
) -> io::Result<()> {
    use std::io::Write;
    let mut off_out = 0u64;
    copy_at(&base.file, 0..range.start, out, &mut off_out)?;
    out.write_all_at(with, off_out)?;
    off_out += with.len() as u64;
    copy_at(&base.file, range.end..base.len, out, &mut off_out)?;
    out.flush()
}

/// Writes all of `from`'s bytes to `out` (a new file, at its start), as
/// `write_spliced` copies them, and fails when `from` was written to while it
/// was copied (its size or mtime moved): the copy may then hold bytes its hash
/// does not. (A spliced target needs no such check: the commit's watch of the
/// file it replaces sees any change to it.)
pub fn write_copy(out: &mut File, from: &Scan) -> io::Result<()> {
    write_spliced(out, from, &(0..0), b"")?;
    let now = Stamp::of(&from.file.metadata()?);
    if (now.size, now.mtime_ns) != (from.stamp.size, from.stamp.mtime_ns) {
        return Err(io::Error::other("the file changed while it was copied"));
    }
    Ok(())
}

fn copy_at(from: &File, range: Range<u64>, to: &File, off_out: &mut u64) -> io::Result<()> {
    let mut off_in = range.start;
    while off_in < range.end {
        let want = ((range.end - off_in) as usize).min(1 << 30);
        let (mut i, mut o) = (off_in as libc::loff_t, *off_out as libc::loff_t);
        // SAFETY: both descriptors are open; the offsets are locals the kernel updates.
        let n = unsafe {
            libc::copy_file_range(from.as_raw_fd(), &mut i, to.as_raw_fd(), &mut o, want, 0)
        };
        let n = match n {
            n if n > 0 => n as u64,
            0 => return Err(io::Error::other("the file shrank while it was copied")),
            _ => {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EXDEV | libc::ENOSYS | libc::EINVAL | libc::EOPNOTSUPP) => {
                        return copy_blocks(from, off_in..range.end, to, off_out);
                    }
                    _ => return Err(e),
                }
            }
        };
        off_in += n;
        *off_out += n;
    }
    Ok(())
}

fn copy_blocks(from: &File, range: Range<u64>, to: &File, off_out: &mut u64) -> io::Result<()> {
    let mut buf = vec![0u8; BLOCK];
    let mut at = range.start;
    while at < range.end {
        let want = ((range.end - at) as usize).min(BLOCK);
        let n = read_full(from, &mut buf[..want], at)?;
        if n < want {
            return Err(io::Error::other("the file shrank while it was copied"));
        }
        to.write_all_at(&buf[..n], *off_out)?;
        at += n as u64;
        *off_out += n as u64;
    }
    Ok(())
}

/// A diff window larger than this is not looked for: the pieces are joined for
/// the diff instead (only where the text around the range repeats itself).
pub const WINDOW_MAX: usize = 1 << 16;

/// The diff window (`write`'s `Spliced::window`) of the bytes `b` with `range`
/// replaced by `with`: old and new lines, and the 0-based line they start at.
pub fn window_of(b: &[u8], range: Range<usize>, with: &[u8]) -> Option<(Vec<u8>, Vec<u8>, usize)> {
    let (at, to) = (range.start, range.end);
    let start = memchr::memrchr(b'\n', b.get(..at)?).map_or(0, |i| i + 1);
    let mut end = to;
    // Lines the window reaches past `end` at each widening.
    let mut lines = 1usize;
    loop {
        for _ in 0..lines {
            end = memchr::memchr(b'\n', b.get(end..)?).map_or(b.len(), |i| end + i + 1);
        }
        lines *= 2;
        if end - start > WINDOW_MAX {
            return None;
        }
        let old = b.get(start..end)?;
        let new = [b.get(start..at)?, with, b.get(to..end)?].concat();
        let head = crate::text::diff::common_prefix(old, &new);
        if head < old.len().min(new.len()) || end == b.len() {
            let line = memchr::memchr_iter(b'\n', b.get(..start)?).count();
            return Some((old.to_vec(), new, line));
        }
    }
}

impl Scan {
    /// `window_of` the excerpt with `local` (a range of the excerpt) replaced by
    /// `with`, when the excerpt holds all of the window (the line it starts on
    /// from its start, and the window ends before the excerpt does unless that
    /// is the file's end). Its line is the file's.
    pub fn window(&self, local: Range<usize>, with: &[u8]) -> Option<(Vec<u8>, Vec<u8>, usize)> {
        self.excerpt_at?;
        let (old, new, line) = window_of(&self.excerpt, local, with)?;
        (self.to_eof || old.len() < self.excerpt.len()).then_some((
            old,
            new,
            line + self.lines_before as usize,
        ))
    }
}

/// The diff window of two files on disk (`a` before, `b` after) that differ
/// in one small stretch: their common head and tail are found block by block
/// (never holding either file), and `window_of` is taken of the text of `a`
/// around the stretch. `None` when the stretch, or the window, passes
/// `WINDOW_MAX` bytes.
pub fn window_between(a: &Scan, b: &Scan) -> io::Result<Option<(Vec<u8>, Vec<u8>, usize)>> {
    // A stretch past `WINDOW_MAX` in either file has no window: sizes that far
    // apart say so without a read.
    if a.len.abs_diff(b.len) > WINDOW_MAX as u64 {
        return Ok(None);
    }
    let shorter = a.len.min(b.len);
    let (from, lines) = a.same_blocks(b);
    let (head, lines) = common_head(&a.file, &b.file, from, shorter, lines)?;
    let tail = common_tail(&a.file, a.len, &b.file, b.len, shorter - head)?;
    let (a_end, b_end) = (a.len - tail, b.len - tail);
    if a_end - head > WINDOW_MAX as u64 || b_end - head > WINDOW_MAX as u64 {
        return Ok(None);
    }
    // The text of `a` from up to `WINDOW_MAX` before the stretch to as far past it.
    let from = head.saturating_sub(WINDOW_MAX as u64);
    let to = (a_end + WINDOW_MAX as u64).min(a.len);
    let text = a.read(from..to)?;
    let with = b.read(head..b_end)?;
    let local = (head - from) as usize..(a_end - from) as usize;
    // The window must start at a line's start inside the text.
    let start = memchr::memrchr(b'\n', text.get(..local.start).unwrap_or_default());
    let Some(cut) = start.map(|i| i + 1).or((from == 0).then_some(0)) else {
        return Ok(None);
    };
    let before = lines - memchr::memchr_iter(b'\n', &text[cut..local.start]).count() as u64;
    let text = &text[cut..];
    let local = local.start - cut..local.end - cut;
    let Some((old, new, line)) = window_of(text, local, &with) else {
        return Ok(None);
    };
    let whole = old.len() < text.len() || to == a.len;
    Ok(whole.then_some((old, new, line + before as usize)))
}

impl Scan {
    /// The longest run of whole blocks both passes read alike from the start
    /// (their hashes of it equal: the hash states the passes kept, finished),
    /// as its length and the `\n` in it; found without reading either file.
    fn same_blocks(&self, b: &Scan) -> (u64, u64) {
        let digest = |s: &Scan, k: usize| {
            s.midstates
                .get(k)
                .map(|(at, lf, h)| (*at, *lf, h.clone().finalize()))
        };
        let same = |k: usize| match (digest(self, k), digest(b, k)) {
            (Some((x, lf, p)), Some((y, _, q))) if x == y && p == q => Some((x, lf)),
            _ => None,
        };
        // Equal prefixes up to block k are equal up to every block before it.
        let (mut lo, mut hi) = (0usize, self.midstates.len().min(b.midstates.len()));
        let mut best = (0u64, 0u64);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match same(mid) {
                Some(found) => {
                    best = found;
                    lo = mid + 1;
                }
                None => hi = mid,
            }
        }
        best
    }
}

/// The bytes two files agree on from their starts (up to `len`), and the
/// `\n` in them, given that they agree on the first `from` bytes, which hold
/// `lines` of them.
fn common_head(a: &File, b: &File, from: u64, len: u64, lines: u64) -> io::Result<(u64, u64)> {
    let (mut x, mut y) = (vec![0u8; BLOCK], vec![0u8; BLOCK]);
    let (mut at, mut lines) = (from.min(len), lines);
    while at < len {
        let want = ((len - at) as usize).min(BLOCK);
        let n = read_full(a, &mut x[..want], at)?.min(read_full(b, &mut y[..want], at)?);
        let same = crate::text::diff::common_prefix(&x[..n], &y[..n]);
        lines += memchr::memchr_iter(b'\n', &x[..same]).count() as u64;
        at += same as u64;
        if same < want {
            break;
        }
    }
    Ok((at, lines))
}

/// The bytes two files (of lengths `a_len`, `b_len`) agree on at their ends,
/// at most `max`.
fn common_tail(a: &File, a_len: u64, b: &File, b_len: u64, max: u64) -> io::Result<u64> {
    let (mut x, mut y) = (vec![0u8; BLOCK], vec![0u8; BLOCK]);
    let mut done = 0u64;
    while done < max {
        let want = ((max - done) as usize).min(BLOCK);
        let na = read_full(a, &mut x[..want], a_len - done - want as u64)?;
        let nb = read_full(b, &mut y[..want], b_len - done - want as u64)?;
        if na < want || nb < want {
            return Err(io::Error::other("the file shrank while it was read"));
        }
        let same = if x[..want] == y[..want] {
            want
        } else {
            let pairs = x[..want].iter().rev().zip(y[..want].iter().rev());
            pairs.take_while(|(p, q)| p == q).count()
        };
        done += same as u64;
        if same < want {
            break;
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(bytes: &[u8], needle: &[u8]) -> Scan {
        let dir = std::env::temp_dir().join(format!("aitools-stream-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let p = dir.join(format!("f{}", bytes.len()));
        std::fs::write(&p, bytes).unwrap();
        let s = scan(&p, needle).unwrap();
        let _ = std::fs::remove_file(&p);
        s
    }

    #[test]
    fn a_scan_never_reads_through_a_parent_directory_swapped_for_a_symlink() {
        // The path was resolved while `d` was a directory of the workspace; by
        // the scan `d` is a link to a directory outside holding the same name.
        let (_t, ws, _out) =
            super::super::swapped_parent::parent_linked_out("f", "OUTSIDE SECRET\n");
        let read = scan(&ws.join("d/f"), b"SECRET");
        assert!(
            read.is_err(),
            "the scan read an outside file through a symlinked parent"
        );
        // The real path of a file scans as before.
        std::fs::create_dir_all(ws.join("e")).unwrap();
        std::fs::write(ws.join("e/f"), b"inside SECRET\n").unwrap();
        assert_eq!(scan(&ws.join("e/f"), b"SECRET").unwrap().count, 1);
    }

    /// Hash, counts, excerpt and the successor's hash agree with the whole
    /// bytes, for needles across block ends.
    #[test]
    fn a_scan_agrees_with_the_whole_file() {
        let mut f: Vec<u8> = (0..300_000u32)
            .flat_map(|i| format!("row {i:07} é\r\n").into_bytes())
            .collect();
        f.extend_from_slice(b"tail without newline");
        for (needle, count) in [
            (&b"row 0123456 "[..], 1),
            (b"row 0000000", 1),
            (b"out newline", 1),
            (b"row 01", 2),
            (b"nothing", 0),
        ] {
            let s = scanned(&f, needle);
            assert_eq!(s.count, count, "{needle:?}");
            if count != 1 {
                continue;
            }
            assert_eq!(s.hash, crate::text::lines::sha256_hex(&f));
            assert!(s.utf8);
            let at = memchr::memmem::find(&f, needle).unwrap();
            assert_eq!(s.at, at as u64);
            let ex = s.excerpt_at.unwrap() as usize;
            assert_eq!(&f[ex..ex + s.excerpt.len()], &s.excerpt[..]);
            assert!(ex == 0 || f[ex - 1] == b'\n');
            assert_eq!(
                s.lines_before,
                f[..ex].iter().filter(|b| **b == b'\n').count() as u64
            );
            assert_eq!(s.lf, f.iter().filter(|b| **b == b'\n').count() as u64);
            assert_eq!(s.crlf, s.lf);
            let r = at as u64..(at + needle.len()) as u64;
            let joined = [&f[..at], b"NEW", &f[at + needle.len()..]].concat();
            assert_eq!(
                s.successor_hash(&r, b"NEW").unwrap(),
                crate::text::lines::sha256_hex(&joined)
            );
        }
        // A needle across the first block's end.
        let at = BLOCK - 3;
        let needle = f[at..at + 16].to_vec();
        let s = scanned(&f, &needle);
        assert_eq!((s.count, s.at), (1, at as u64));
        // Not UTF-8 past the first block.
        let mut g = f.clone();
        g[BLOCK + 10] = 0xff;
        assert!(!scanned(&g, b"row 0123456 ").utf8);
    }

    /// The window of two files on disk is `window_of` the first with the
    /// stretch they differ in replaced by the second's, wherever it is.
    #[test]
    fn a_window_between_files_is_the_window_of_their_bytes() {
        let dir = std::env::temp_dir().join(format!("aitools-win-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let scan_of = |name: &str, b: &[u8]| {
            let p = dir.join(name);
            std::fs::write(&p, b).unwrap();
            scan(&p, b"").unwrap()
        };
        let a: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("row {:07}\n", i % 50_000).into_bytes())
            .collect();
        for (at, len, with) in [
            (0, 3, &b"X"[..]),
            (BLOCK - 2, 4, b"new\nlines\n"),
            (a.len() / 2, 12, b""),
            (a.len() - 5, 5, b"end"),
            (a.len(), 0, b"appended\n"),
        ] {
            let b = [&a[..at], with, &a[at + len..]].concat();
            let (sa, sb) = (scan_of("a", &a), scan_of("b", &b));
            let got = window_between(&sa, &sb).unwrap();
            // The stretch as the common head and tail leave it.
            let head = crate::text::diff::common_prefix(&a, &b);
            let tail = a[head..]
                .iter()
                .rev()
                .zip(b[head..].iter().rev())
                .take_while(|(x, y)| x == y)
                .count();
            let want = window_of(&a, head..a.len() - tail, &b[head..b.len() - tail]);
            assert_eq!(got, want, "{at} {len} {with:?}");
            assert!(got.is_some());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

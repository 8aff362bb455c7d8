//! One streaming pass over a file that hashes every byte, counts lines, and hands
//! back only the lines asked for, so a read of the middle of a 150 MB file holds a
//! chunk and the wanted lines in memory, never the file.
//!
//! Line rules: LF ends a line; a CR right before LF is not part of the line; a final
//! line without LF counts; a UTF-8 BOM is never part of line 1.

use super::{BOM, MAX_LINE_BYTES};
use sha2::{Digest, Sha256};
use std::io::{self, Read};

/// What the pass learned about the whole file.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    pub total_lines: u64,
    pub size: u64,
    pub hash: String,
    pub bom: bool,
    pub trailing_newline: bool,
}

/// A line handed to the sink: its number, the byte offset where it starts, its
/// bytes (at most the cap, without CR LF), whether it was cut, and whether a CR
/// before its LF was dropped (`--escape-invisible` shows it).
pub struct Line<'a> {
    pub number: u64,
    pub offset: u64,
    pub bytes: &'a [u8],
    /// The line up to the pass's hold (without CR LF): what a pattern is matched
    /// against, so a match past the display cap is still found. Equal to `bytes`
    /// when the hold is the cap.
    pub whole: &'a [u8],
    pub cut: bool,
    pub had_cr: bool,
}

/// Which lines the sink wants.
pub trait Want {
    fn wants(&mut self, line: u64) -> bool;
    /// True when no line at or after `line` is wanted (collection can stop; hashing goes on).
    fn done_after(&self, line: u64) -> bool;
}

/// Lines `first..=last`.
pub struct Span {
    pub first: u64,
    pub last: u64,
}

impl Want for Span {
    fn wants(&mut self, line: u64) -> bool {
        line >= self.first && line <= self.last
    }
    fn done_after(&self, line: u64) -> bool {
        line > self.last
    }
}

/// Every line (the sink filters).
pub struct All;
impl Want for All {
    fn wants(&mut self, _: u64) -> bool {
        true
    }
    fn done_after(&self, _: u64) -> bool {
        false
    }
}

pub const CHUNK: usize = 1 << 20;
/// The first read's buffer (`scan_holding`): what most source files fit in. A small
/// file is read whole by it; zeroing a whole CHUNK for one cost more than its scan
/// (a server's every small read). A read that fills it grows it to CHUNK.
const FIRST_CHUNK: usize = 64 << 10;

/// Hex of a SHA-256 digest.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// SHA-256 hex of a byte slice.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The SHA-256 of everything `reader` yields, read in chunks (memory stays
/// flat however large the file).
pub fn sha256_reader(mut reader: impl Read) -> io::Result<String> {
    let mut sha = Sha256::new();
    io::copy(&mut reader, &mut sha)?;
    Ok(hex(&sha.finalize()))
}

/// Streams `reader`, hashing everything and calling `sink` for each wanted line.
pub fn scan<R: Read, W: Want>(
    reader: R,
    want: &mut W,
    sink: impl FnMut(Line<'_>),
) -> io::Result<Scan> {
    scan_capped(reader, want, MAX_LINE_BYTES, sink)
}

/// `scan` with another cap on the bytes of one line handed to the sink (decoded
/// text is cut by characters, so its caller asks for up to 4 bytes a character).
pub fn scan_capped<R: Read, W: Want>(
    reader: R,
    want: &mut W,
    cap: usize,
    sink: impl FnMut(Line<'_>),
) -> io::Result<Scan> {
    scan_holding(reader, want, cap, cap, sink)
}

/// `scan_capped` that also holds each wanted line up to `hold` bytes (at least
/// the cap) and hands it over as `Line::whole`: a selector matches the line,
/// while only its display is cut at the cap.
pub fn scan_holding<R: Read, W: Want>(
    mut reader: R,
    want: &mut W,
    cap: usize,
    hold: usize,
    mut sink: impl FnMut(Line<'_>),
) -> io::Result<Scan> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; FIRST_CHUNK];
    let mut size: u64 = 0;
    let mut lines = Lines {
        line_no: 1,
        line_start: 0,
        current: Vec::new(),
        current_len: 0,
        wanted: want.wants(1),
        collecting: true,
        cap,
        hold: hold.max(cap),
    };
    let mut first_chunk = true;
    let mut bom = false;
    let mut last_byte: Option<u8> = None;
    loop {
        let n = read_growing(&mut reader, &mut buf)?;
        if n == 0 {
            break;
        }
        let mut chunk = &buf[..n];
        hasher.update(chunk);
        let chunk_offset = size;
        size += n as u64;
        last_byte = chunk.last().copied();
        let mut skip = 0usize;
        if first_chunk {
            first_chunk = false;
            // A BOM split across reads is vanishingly rare from a file; treat a short
            // first read as having none.
            if chunk.starts_with(BOM) {
                bom = true;
                skip = 3;
                lines.line_start = 3;
            }
        }
        chunk = &chunk[skip..];
        lines.feed(chunk, chunk_offset + skip as u64, want, &mut sink);
    }
    let content_len = size - if bom { 3 } else { 0 };
    let trailing_newline = last_byte == Some(b'\n');
    // A final line without LF counts; an empty file (or BOM only) has 0 lines.
    let total_lines = if content_len == 0 {
        0
    } else if trailing_newline {
        lines.line_no - 1
    } else {
        if lines.collecting && lines.wanted && size > lines.line_start {
            lines.emit_current(&mut sink, false);
        }
        lines.line_no
    };
    Ok(Scan {
        total_lines,
        size,
        hash: hex(&hasher.finalize()),
        bom,
        trailing_newline,
    })
}

/// `scan_holding`'s position in the file: the line in progress, and whether it
/// is wanted (held up to `hold` bytes) or the wanted lines are all past.
struct Lines {
    /// The number of the line in progress.
    line_no: u64,
    /// Its file offset.
    line_start: u64,
    /// Its bytes so far when it is wanted (at most `hold`), and its true length.
    current: Vec<u8>,
    current_len: u64,
    wanted: bool,
    collecting: bool,
    cap: usize,
    hold: usize,
}

impl Lines {
    /// One chunk read at file offset `base`: each wanted line it ends goes to the sink.
    fn feed<W: Want>(
        &mut self,
        chunk: &[u8],
        base: u64,
        want: &mut W,
        sink: &mut impl FnMut(Line<'_>),
    ) {
        if !self.collecting {
            self.line_no += memchr::memchr_iter(b'\n', chunk).count() as u64;
            return;
        }
        let mut pos = 0usize;
        for nl in memchr::memchr_iter(b'\n', chunk) {
            if self.wanted {
                append_capped(&mut self.current, &chunk[pos..nl], self.hold);
                self.current_len += (nl - pos) as u64;
                self.emit_current(sink, true);
            }
            self.current.clear();
            self.current_len = 0;
            self.line_no += 1;
            self.line_start = base + nl as u64 + 1;
            pos = nl + 1;
            if want.done_after(self.line_no) {
                self.collecting = false;
                self.wanted = false;
                self.line_no += memchr::memchr_iter(b'\n', &chunk[pos..]).count() as u64;
                return;
            }
            self.wanted = want.wants(self.line_no);
        }
        if self.wanted {
            append_capped(&mut self.current, &chunk[pos..], self.hold);
            self.current_len += (chunk.len() - pos) as u64;
        }
    }

    fn emit_current(&mut self, sink: &mut impl FnMut(Line<'_>), had_lf: bool) {
        emit(
            sink,
            self.line_no,
            self.line_start,
            &mut self.current,
            self.current_len,
            had_lf,
            self.cap,
        );
    }
}

/// One read into `buf` (retrying an interrupted one); a read that filled it grows
/// it to CHUNK for the next.
fn read_growing<R: Read>(reader: &mut R, buf: &mut Vec<u8>) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Ok(n) => {
                if n == buf.len() && n < CHUNK {
                    buf.resize(CHUNK, 0);
                }
                return Ok(n);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

fn append_capped(current: &mut Vec<u8>, bytes: &[u8], cap: usize) {
    // Keep one byte past the cap so a CR at the cap can still be told from a cut.
    let room = (cap + 1).saturating_sub(current.len());
    current.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

fn emit(
    sink: &mut impl FnMut(Line<'_>),
    number: u64,
    offset: u64,
    current: &mut [u8],
    true_len: u64,
    had_lf: bool,
    cap: usize,
) {
    let mut len = true_len;
    let mut had_cr = false;
    if had_lf && len > 0 && (len as usize) <= current.len() && current.last() == Some(&b'\r') {
        len -= 1;
        had_cr = true;
    }
    let whole = &current[..(len as usize).min(current.len())];
    let cut = len > cap as u64;
    let keep = (len as usize).min(cap).min(current.len());
    // Never cut inside a UTF-8 sequence: back off to a character boundary.
    let mut end = keep;
    if cut {
        while end > 0 && (current[end] & 0xC0) == 0x80 {
            end -= 1;
        }
    }
    sink(Line {
        number,
        offset,
        bytes: &current[..end],
        whole,
        cut,
        had_cr,
    });
}

/// Counts of an in-memory text: lines as `scan` counts them.
pub fn count_lines(bytes: &[u8]) -> u64 {
    let body = bytes.strip_prefix(BOM).unwrap_or(bytes);
    if body.is_empty() {
        return 0;
    }
    let n = memchr::memchr_iter(b'\n', body).count() as u64;
    if body.ends_with(b"\n") { n } else { n + 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn lines_of(data: &[u8], first: u64, last: u64) -> (Vec<String>, Scan) {
        let mut out = Vec::new();
        let s = scan(data, &mut Span { first, last }, |l| {
            out.push(String::from_utf8_lossy(l.bytes).to_string())
        })
        .unwrap();
        (out, s)
    }
    #[test]
    fn rules() {
        let (l, s) = lines_of(b"\xEF\xBB\xBFa\r\nb\nc", 1, 10);
        assert_eq!(l, vec!["a", "b", "c"]);
        assert_eq!(s.total_lines, 3);
        assert!(s.bom);
        let (l, s) = lines_of(b"a\nb\n", 2, 2);
        assert_eq!(l, vec!["b"]);
        assert_eq!(s.total_lines, 2);
        let (l, s) = lines_of(b"", 1, 10);
        assert!(l.is_empty());
        assert_eq!(s.total_lines, 0);
        let (l, _) = lines_of(b"x\r\ry\n", 1, 1);
        assert_eq!(l, vec!["x\r\ry"]);
        assert_eq!(count_lines(b"a\nb"), 2);
    }
    #[test]
    fn a_held_line_is_whole_while_its_display_is_cut() {
        let mut data = vec![b'a'; 100];
        data.extend_from_slice(b"XY\r\nnext\n");
        let mut seen = Vec::new();
        scan_holding(&data[..], &mut All, 10, 1000, |l| {
            seen.push((l.bytes.len(), l.whole.len(), l.cut))
        })
        .unwrap();
        assert_eq!(seen, vec![(10, 102, true), (4, 4, false)]);
    }
}

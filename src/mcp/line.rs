//! The server's input framing: one message per line, read with a length cap so
//! a line with no end (100 MB, or endless) costs at most [`MAX_LINE`] bytes of
//! memory; the rest of an over-long line is read and dropped, and the line is
//! answered as an error while the server goes on. Also `percent_decode`
//! (a `file://` root, the HTTP server's query values).

use std::io::{self, BufRead};

/// The longest message line the server holds (32 MiB).
pub const MAX_LINE: usize = 32 * 1024 * 1024;

/// What one read gave.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// End of input.
    End,
    /// A whole line (its bytes are in the buffer).
    Whole,
    /// A line over `cap` bytes: what was kept is cleared, the rest skipped.
    TooLong,
}

/// Reads one line (through its `\n`) into `buf`, holding at most `cap` bytes.
pub fn read(input: &mut dyn BufRead, buf: &mut Vec<u8>, cap: usize) -> io::Result<Line> {
    buf.clear();
    let mut over = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (over, buf.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Whole,
            });
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !over {
            if buf.len() + take > cap {
                over = true;
                buf.clear();
                buf.shrink_to(0);
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        input.consume(take);
        if done {
            return Ok(if over { Line::TooLong } else { Line::Whole });
        }
    }
}

/// `%XX` escapes decoded (a `file://` root, a query value); invalid ones kept.
pub(crate) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_over_the_cap_is_skipped_and_the_next_one_read() {
        let mut input: &[u8] = b"0123456789\nok\nlast";
        let mut buf = Vec::new();
        assert_eq!(read(&mut input, &mut buf, 5).ok(), Some(Line::TooLong));
        assert!(buf.is_empty());
        assert_eq!(read(&mut input, &mut buf, 5).ok(), Some(Line::Whole));
        assert_eq!(buf, b"ok\n");
        assert_eq!(read(&mut input, &mut buf, 5).ok(), Some(Line::Whole));
        assert_eq!(buf, b"last");
        assert_eq!(read(&mut input, &mut buf, 5).ok(), Some(Line::End));
    }
}

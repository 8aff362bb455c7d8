//! The journal lines that hold a path's bytes, from the end backwards, without
//! taking the others one by one (`history PATH`).

use super::ReverseLines;
use std::io;

/// The lines of a [`ReverseLines`] that hold a needle's bytes, from the end
/// backwards: each chunk read is searched once, forward (the fast direction),
/// and lines without them are never taken one by one.
pub struct ReverseMatches<'n> {
    lines: ReverseLines,
    needle: memchr::memmem::Finder<'n>,
    /// Where the needle starts in `lines.buf`, ascending, not yet returned.
    hits: Vec<usize>,
}

impl<'n> ReverseMatches<'n> {
    pub fn new(lines: ReverseLines, needle: &'n [u8]) -> ReverseMatches<'n> {
        ReverseMatches {
            lines,
            needle: memchr::memmem::Finder::new(needle),
            hits: Vec::new(),
        }
    }

    /// The previous line holding the needle (without its LF), or `None` at
    /// the start.
    pub fn next_line(&mut self) -> io::Result<Option<String>> {
        loop {
            let buf = &self.lines.buf;
            let body_end = buf.len().saturating_sub(1);
            if let Some(&k) = self.hits.last() {
                let start = memchr::memrchr(b'\n', &buf[..k]).map(|i| i + 1);
                // Else the line begins before what was read: read on.
                if start.is_some() || self.lines.pos == 0 {
                    let start = start.unwrap_or(0);
                    let end = memchr::memchr(b'\n', &buf[k..]).map_or(body_end, |i| k + i);
                    let line = String::from_utf8_lossy(&buf[start..end]).into_owned();
                    self.lines.buf.truncate(start);
                    self.hits.retain(|&h| h < start);
                    return Ok(Some(line));
                }
            } else if self.lines.pos == 0 {
                self.lines.buf.clear();
                return Ok(None);
            } else if let Some(i) = memchr::memchr(b'\n', &buf[..body_end]) {
                // No later line holds it: keep only the first, which may
                // begin before what was read.
                self.lines.buf.truncate(i + 1);
            }
            self.read_back()?;
        }
    }

    /// Reads the chunk before what was read and searches it (and the needle's
    /// length less one past it, for a match across the seam).
    fn read_back(&mut self) -> io::Result<()> {
        let added = self.lines.read_back(256 * 1024)?;
        let r = &self.lines;
        let reach = (added + self.needle.needle().len().saturating_sub(1)).min(r.buf.len());
        let mut found: Vec<usize> = self
            .needle
            .find_iter(&r.buf[..reach])
            .take_while(|&h| h < added)
            .collect();
        found.extend(self.hits.iter().map(|h| h + added));
        self.hits = found;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{ReverseLines, ReverseMatches};
    use std::fs::File;

    /// The lines holding a needle, read backwards in chunks, are those a
    /// line-by-line filter finds: across chunk seams, in a line longer than a
    /// chunk, in the first line, and never a torn last line.
    #[test]
    fn reverse_matches_are_the_lines_that_hold_the_needle() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("j");
        let mut text = String::new();
        for i in 0..9_000u32 {
            let pad = "x".repeat((i as usize * 37) % 113);
            let hit = if i % 7 == 0 || i % 1_000 == 3 {
                "a/b.txt"
            } else {
                "a/b.tx"
            };
            text.push_str(&format!("{{\"seq\":{i},{pad}\"{hit}\"}}\n"));
        }
        // The last line, longer than a chunk: the first chunk read (256 KiB
        // from the end) begins 3 bytes into its needle.
        let tail = 256 * 1024 - 4 - 1;
        text.push_str(&format!(
            "{}a/b.txt{}\n",
            "y".repeat(1_000),
            "z".repeat(tail)
        ));
        text.insert_str(0, "a/b.txt first\n");
        let want: Vec<String> = text
            .lines()
            .filter(|l| l.contains("a/b.txt"))
            .rev()
            .map(String::from)
            .collect();
        text.push_str("a/b.txt torn");
        std::fs::write(&path, &text).expect("write");
        let lines = ReverseLines::new(File::open(&path).expect("open")).expect("lines");
        let mut m = ReverseMatches::new(lines, b"a/b.txt");
        let mut got = Vec::new();
        while let Some(l) = m.next_line().expect("read") {
            got.push(l);
        }
        assert_eq!(got, want);
    }
}

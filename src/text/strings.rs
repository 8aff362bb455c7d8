//! `read --as strings`: runs of printable characters (ASCII or well-formed UTF-8,
//! tab included) in arbitrary bytes, found in one streaming pass, the `strings`
//! replacement. A run longer than the cap keeps its first characters and says where
//! it was cut.

use super::invisible::is_invisible;

/// One run: where it starts, its text (at most the cap in characters), and the
/// byte offset where the kept text stops when it was cut.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub offset: u64,
    pub end: u64,
    pub text: String,
    pub cut_at: Option<u64>,
}

/// A scan carried across chunks of one file.
pub struct Scanner {
    min_chars: usize,
    cap_chars: usize,
    start: Option<u64>,
    text: String,
    chars: usize,
    cut_at: Option<u64>,
    carry: Vec<u8>,
    pos: u64,
}

fn printable(c: char) -> bool {
    c == '\t' || (!is_invisible(c) && !c.is_control())
}

/// The width of a well-formed UTF-8 sequence at the start of `b`: Some(0) when
/// it may be completed by more bytes, None when it is malformed.
fn sequence(b: &[u8]) -> Option<(char, usize)> {
    let lead = *b.first()?;
    let width = match lead {
        0x00..=0x7F => return Some((lead as char, 1)),
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let s = std::str::from_utf8(b.get(..width)?).ok()?;
    s.chars().next().map(|c| (c, width))
}

impl Scanner {
    /// Starts at file offset `base`.
    pub fn new(min_chars: usize, cap_chars: usize, base: u64) -> Scanner {
        Scanner {
            min_chars,
            cap_chars,
            start: None,
            text: String::new(),
            chars: 0,
            cut_at: None,
            carry: Vec::new(),
            pos: base,
        }
    }

    /// Feeds the next bytes; `emit` gets each finished run and returns false to stop.
    /// Returns false once `emit` has.
    pub fn feed(&mut self, chunk: &[u8], last: bool, emit: &mut impl FnMut(Run) -> bool) -> bool {
        let owned;
        let data: &[u8] = if self.carry.is_empty() {
            chunk
        } else {
            let mut v = std::mem::take(&mut self.carry);
            v.extend_from_slice(chunk);
            owned = v;
            &owned
        };
        let mut i = 0;
        while i < data.len() {
            // A sequence cut by the chunk's end waits for the next chunk.
            if !last && data.len() - i < 4 && data[i] >= 0xC2 {
                let width = match data[i] {
                    0xC2..=0xDF => 2,
                    0xE0..=0xEF => 3,
                    _ => 4,
                };
                if data.len() - i < width {
                    self.carry = data[i..].to_vec();
                    return true;
                }
            }
            match sequence(&data[i..]) {
                Some((c, w)) if printable(c) => {
                    let at = self.pos;
                    if self.start.is_none() {
                        self.start = Some(at);
                    }
                    if self.chars < self.cap_chars {
                        self.text.push(c);
                    } else if self.cut_at.is_none() {
                        self.cut_at = Some(at);
                    }
                    self.chars += 1;
                    self.pos += w as u64;
                    i += w;
                }
                _ => {
                    let end = self.pos;
                    self.pos += 1;
                    i += 1;
                    if !self.flush(end, emit) {
                        return false;
                    }
                }
            }
        }
        if last {
            let end = self.pos;
            return self.flush(end, emit);
        }
        true
    }

    fn flush(&mut self, end: u64, emit: &mut impl FnMut(Run) -> bool) -> bool {
        let Some(offset) = self.start.take() else {
            return true;
        };
        let chars = std::mem::take(&mut self.chars);
        let text = std::mem::take(&mut self.text);
        let cut_at = self.cut_at.take();
        if chars < self.min_chars {
            return true;
        }
        emit(Run {
            offset,
            end,
            text,
            cut_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn runs(chunks: &[&[u8]], min: usize, cap: usize) -> Vec<Run> {
        let mut out = Vec::new();
        let mut s = Scanner::new(min, cap, 0);
        let n = chunks.len();
        for (k, c) in chunks.iter().enumerate() {
            s.feed(c, k + 1 == n, &mut |r| {
                out.push(r);
                true
            });
        }
        out
    }
    #[test]
    fn finds_runs() {
        let r = runs(
            &[
                b"\x00abc\x00hello\xffwor",
                "ldé".as_bytes()[..3].as_ref(),
                "é".as_bytes()[1..].as_ref(),
            ],
            4,
            100,
        );
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].offset, r[0].text.as_str()), (5, "hello"));
        assert_eq!((r[1].offset, r[1].text.as_str()), (11, "worldé"));
        let c = runs(&[b"abcdefgh"], 2, 3);
        assert_eq!(c[0].text, "abc");
        assert_eq!(c[0].cut_at, Some(3));
        assert_eq!(c[0].end, 8);
    }
}

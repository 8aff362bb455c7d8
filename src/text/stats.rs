//! The content facts `info` reports (the `wc`, `file` and `sha256sum` replacements),
//! gathered in one streaming pass over the bytes: lines, words as `wc -w` counts
//! them, characters, the longest line, line endings, BOM, UTF-8 validity and the
//! encoding guess, the SHA-256 hash, and an optional standard digest.

use super::decode::Guesser;
use super::{BOM, sniff};
use sha2::Digest as _;
use std::io::{self, Read};

/// A standard digest `info --digest` adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Sha256,
    Sha1,
    Md5,
}

impl Algorithm {
    pub fn from_name(name: &str) -> Option<Algorithm> {
        match name {
            "sha256" => Some(Algorithm::Sha256),
            "sha1" => Some(Algorithm::Sha1),
            "md5" => Some(Algorithm::Md5),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha1 => "sha1",
            Algorithm::Md5 => "md5",
        }
    }
}

/// What one pass learned.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub size: u64,
    pub lines: u64,
    pub words: u64,
    pub chars: u64,
    pub max_line_chars: u64,
    pub lf: u64,
    pub crlf: u64,
    pub bom: bool,
    pub trailing_newline: bool,
    pub binary: bool,
    pub utf8_valid: bool,
    pub encoding_guess: &'static str,
    pub head: Vec<u8>,
    pub hash: String,
    pub digest: Option<String>,
}

impl Stats {
    /// lf, crlf, mixed, or none.
    pub fn line_ending(&self) -> &'static str {
        match (self.lf > 0, self.crlf > 0) {
            (true, true) => "mixed",
            (false, true) => "crlf",
            (true, false) => "lf",
            (false, false) => "none",
        }
    }
}

/// Byte classes: 1 = ASCII whitespace (as `wc -w` splits), 0 = other.
const fn ws_table() -> [bool; 256] {
    let mut t = [false; 256];
    t[b' ' as usize] = true;
    let mut b = 0x09;
    while b <= 0x0D {
        t[b] = true;
        b += 1;
    }
    t
}
const WS: [bool; 256] = ws_table();

struct Counter {
    lines: u64,
    words: u64,
    chars: u64,
    max_line_chars: u64,
    line_chars: u64,
    lf: u64,
    crlf: u64,
    in_word: bool,
    prev_cr: bool,
    // U+3000 (E3 80 80) separates words too: 0 none, 1 after E3, 2 after E3 80.
    stage: u8,
    e3_started_word: bool,
    any: bool,
}

impl Counter {
    fn new() -> Counter {
        Counter {
            lines: 0,
            words: 0,
            chars: 0,
            max_line_chars: 0,
            line_chars: 0,
            lf: 0,
            crlf: 0,
            in_word: false,
            prev_cr: false,
            stage: 0,
            e3_started_word: false,
            any: false,
        }
    }

    fn feed(&mut self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        self.any = true;
        for &b in data {
            if b == b'\n' {
                let chars = self.line_chars - u64::from(self.prev_cr);
                if self.prev_cr {
                    self.crlf += 1;
                } else {
                    self.lf += 1;
                }
                self.max_line_chars = self.max_line_chars.max(chars);
                self.chars += chars;
                self.lines += 1;
                self.line_chars = 0;
                self.prev_cr = false;
                self.in_word = false;
                self.stage = 0;
                continue;
            }
            self.prev_cr = b == b'\r';
            if b & 0xC0 != 0x80 {
                self.line_chars += 1;
            }
            match (self.stage, b) {
                (1, 0x80) => {
                    self.stage = 2;
                    continue;
                }
                (2, 0x80) => {
                    if self.e3_started_word {
                        self.words -= 1;
                    }
                    self.in_word = false;
                    self.stage = 0;
                    continue;
                }
                _ => self.stage = 0,
            }
            if WS[b as usize] {
                self.in_word = false;
            } else {
                if b == 0xE3 {
                    self.stage = 1;
                    self.e3_started_word = !self.in_word;
                }
                if !self.in_word {
                    self.words += 1;
                    self.in_word = true;
                }
            }
        }
    }

    fn finish(&mut self) {
        if self.line_chars > 0 || (self.any && !self.ended_with_lf()) {
            self.max_line_chars = self.max_line_chars.max(self.line_chars);
            self.chars += self.line_chars;
            self.lines += 1;
        }
        // Characters of the text with lines joined by one LF (the approx_tokens basis).
        self.chars += self.lines.saturating_sub(1);
    }

    fn ended_with_lf(&self) -> bool {
        self.line_chars == 0 && !self.prev_cr
    }
}

enum DigestState {
    None,
    Sha1(sha1::Sha1),
    Md5(md5::Md5),
    Sha256,
}

/// Reads `reader` to the end once and gathers every fact.
pub fn gather<R: Read>(mut reader: R, digest: Option<Algorithm>) -> io::Result<Stats> {
    let mut hasher = sha2::Sha256::new();
    let mut extra = match digest {
        None => DigestState::None,
        Some(Algorithm::Sha1) => DigestState::Sha1(sha1::Sha1::new()),
        Some(Algorithm::Md5) => DigestState::Md5(md5::Md5::new()),
        Some(Algorithm::Sha256) => DigestState::Sha256,
    };
    let mut guesser = Guesser::new();
    let mut counter = Counter::new();
    let mut buf = vec![0u8; super::lines::CHUNK];
    let mut size = 0u64;
    let mut first = true;
    let mut bom = false;
    let mut last_byte = None;
    let mut head: Vec<u8> = Vec::new();
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = &buf[..n];
        hasher.update(chunk);
        match &mut extra {
            DigestState::Sha1(h) => h.update(chunk),
            DigestState::Md5(h) => h.update(chunk),
            _ => {}
        }
        guesser.update(chunk);
        if head.len() < sniff::SNIFF_BYTES {
            let room = sniff::SNIFF_BYTES - head.len();
            head.extend_from_slice(&chunk[..n.min(room)]);
        }
        size += n as u64;
        last_byte = chunk.last().copied();
        let mut body = chunk;
        if first {
            first = false;
            if let Some(rest) = body.strip_prefix(BOM) {
                bom = true;
                body = rest;
            }
        }
        counter.feed(body);
    }
    guesser.finish();
    counter.finish();
    let hash = super::lines::hex(&hasher.finalize());
    let digest = match extra {
        DigestState::None => None,
        DigestState::Sha256 => Some(hash.clone()),
        DigestState::Sha1(h) => Some(super::lines::hex(&h.finalize())),
        DigestState::Md5(h) => Some(super::lines::hex(&h.finalize())),
    };
    Ok(Stats {
        size,
        lines: counter.lines,
        words: counter.words,
        chars: counter.chars,
        max_line_chars: counter.max_line_chars,
        lf: counter.lf,
        crlf: counter.crlf,
        bom,
        trailing_newline: last_byte == Some(b'\n'),
        binary: sniff::is_binary(&head),
        utf8_valid: guesser.utf8_valid(),
        encoding_guess: guesser.guess(),
        head,
        hash,
        digest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    fn st(b: &[u8]) -> Stats {
        gather(b, None).unwrap()
    }
    #[test]
    fn counts_like_wc() {
        let s = st(b"one two\r\nthree\n\nfour  five");
        assert_eq!((s.lines, s.words, s.max_line_chars), (4, 5, 10));
        assert_eq!(s.line_ending(), "mixed");
        assert!(!s.trailing_newline);
        assert_eq!(s.chars, (7 + 5) + 10 + 3);
        let s = st("\u{FEFF}a\u{3000}b\u{3042}\n".as_bytes());
        assert_eq!((s.lines, s.words, s.max_line_chars), (1, 2, 4));
        assert!(s.bom);
        let s = st(b"");
        assert_eq!((s.lines, s.words, s.chars), (0, 0, 0));
        assert_eq!(s.line_ending(), "none");
        let s = st(b"x\n");
        assert_eq!((s.lines, s.chars), (1, 1));
        let s = st(b"\r");
        assert_eq!(s.lines, 1);
    }
}

//! Text in encodings other than UTF-8: the encodings `--encoding` accepts, a reader
//! that decodes a byte stream to UTF-8 as it goes (hashing the raw bytes on the
//! way, so the file is still read once), and the streaming guess `info` reports.
//!
//! ISO-8859-1 is decoded as true Latin-1 (every byte is the code point of the same
//! number); encoding_rs maps that label to windows-1252, which differs in 0x80-0x9F.

use sha2::{Digest, Sha256};
use std::io::{self, Read};

/// An encoding `--encoding` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    ShiftJis,
    EucJp,
    Latin1,
    Utf16Le,
    Utf16Be,
}

/// Each name of [`NAMES`] with the other spellings taken for it (`sjis`,
/// `latin1`): `--encoding` accepts them, schema lists the names.
pub const ALIASES: &[(&str, &[&str])] = &[
    ("utf-8", &["utf8"]),
    ("shift_jis", &["shift-jis", "sjis"]),
    ("euc-jp", &["eucjp"]),
    ("iso-8859-1", &["latin1", "latin-1"]),
    ("utf-16le", &[]),
    ("utf-16be", &[]),
];

/// The names, as typed and as reported.
pub const NAMES: &[&str] = &[
    "utf-8",
    "shift_jis",
    "euc-jp",
    "iso-8859-1",
    "utf-16le",
    "utf-16be",
];

impl Encoding {
    /// The encoding a name or one of its other spellings ([`ALIASES`]) names,
    /// in any case.
    pub fn from_name(name: &str) -> Option<Encoding> {
        let name = name.to_ascii_lowercase();
        let (named, _) = ALIASES
            .iter()
            .find(|(main, other)| *main == name || other.contains(&name.as_str()))?;
        Some(match *named {
            "utf-8" => Encoding::Utf8,
            "shift_jis" => Encoding::ShiftJis,
            "euc-jp" => Encoding::EucJp,
            "iso-8859-1" => Encoding::Latin1,
            "utf-16le" => Encoding::Utf16Le,
            "utf-16be" => Encoding::Utf16Be,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::ShiftJis => "shift_jis",
            Encoding::EucJp => "euc-jp",
            Encoding::Latin1 => "iso-8859-1",
            Encoding::Utf16Le => "utf-16le",
            Encoding::Utf16Be => "utf-16be",
        }
    }

    fn rs(self) -> Option<&'static encoding_rs::Encoding> {
        match self {
            Encoding::Utf8 => Some(encoding_rs::UTF_8),
            Encoding::ShiftJis => Some(encoding_rs::SHIFT_JIS),
            Encoding::EucJp => Some(encoding_rs::EUC_JP),
            Encoding::Utf16Le => Some(encoding_rs::UTF_16LE),
            Encoding::Utf16Be => Some(encoding_rs::UTF_16BE),
            Encoding::Latin1 => None,
        }
    }
}

/// Decodes a whole byte slice (the BOM of the encoding itself is dropped);
/// returns the text and the number of malformed sequences replaced by U+FFFD.
pub fn decode_all(bytes: &[u8], enc: Encoding) -> (String, u64) {
    let mut r = DecodeReader::new(bytes, enc);
    let mut out = Vec::new();
    // Reading from a slice cannot fail.
    let _ = r.read_to_end(&mut out);
    let errors = r.errors();
    (String::from_utf8(out).unwrap_or_default(), errors)
}

/// The BOM `enc` writes at the start of a file, when `bytes` starts with it (the
/// decoder drops it, so a re-encoded file needs it back).
pub fn bom_of(bytes: &[u8], enc: Encoding) -> &'static [u8] {
    let bom: &'static [u8] = match enc {
        Encoding::Utf16Le => &[0xFF, 0xFE],
        Encoding::Utf16Be => &[0xFE, 0xFF],
        Encoding::Utf8 => &[0xEF, 0xBB, 0xBF],
        _ => &[],
    };
    if bytes.starts_with(bom) { bom } else { &[] }
}

/// Encodes `text` in `enc`; `Err` holds the first character `enc` has no bytes for.
pub fn encode_all(text: &str, enc: Encoding) -> Result<Vec<u8>, char> {
    match enc {
        Encoding::Utf8 => Ok(text.as_bytes().to_vec()),
        Encoding::Latin1 => text
            .chars()
            .map(|c| u8::try_from(u32::from(c)).map_err(|_| c))
            .collect(),
        // encoding_rs encodes UTF-16 as UTF-8 (the WHATWG rule), so by hand.
        Encoding::Utf16Le => Ok(text.encode_utf16().flat_map(u16::to_le_bytes).collect()),
        Encoding::Utf16Be => Ok(text.encode_utf16().flat_map(u16::to_be_bytes).collect()),
        Encoding::ShiftJis | Encoding::EucJp => {
            let rs = enc.rs().unwrap_or(encoding_rs::UTF_8);
            let (bytes, _, unmappable) = rs.encode(text);
            if !unmappable {
                return Ok(bytes.into_owned());
            }
            // Which character: the first one that does not encode on its own.
            let bad = text
                .chars()
                .find(|c| rs.encode(c.encode_utf8(&mut [0; 4])).2)
                .unwrap_or('\u{FFFD}');
            Err(bad)
        }
    }
}

/// A reader that yields the UTF-8 text of `inner` decoded from `enc`. It hashes the
/// raw bytes it reads so the caller gets the file's SHA-256 from the same pass.
pub struct DecodeReader<R: Read> {
    inner: R,
    decoder: Option<encoding_rs::Decoder>,
    raw: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    hasher: Sha256,
    size: u64,
    errors: u64,
    eof: bool,
}

const RAW_CHUNK: usize = 256 * 1024;

impl<R: Read> DecodeReader<R> {
    pub fn new(inner: R, enc: Encoding) -> DecodeReader<R> {
        DecodeReader {
            inner,
            decoder: enc.rs().map(|e| e.new_decoder_with_bom_removal()),
            raw: vec![0; RAW_CHUNK],
            out: Vec::new(),
            out_pos: 0,
            hasher: Sha256::new(),
            size: 0,
            errors: 0,
            eof: false,
        }
    }

    /// Malformed input sequences replaced so far.
    pub fn errors(&self) -> u64 {
        self.errors
    }

    /// Bytes read from the inner reader so far.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// SHA-256 hex of every raw byte read (call after reading to the end).
    pub fn hash(&self) -> String {
        super::lines::hex(&self.hasher.clone().finalize())
    }

    fn fill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.out_pos = 0;
        while self.out.is_empty() && !self.eof {
            let n = loop {
                match self.inner.read(&mut self.raw) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            };
            let last = n == 0;
            self.eof = last;
            let chunk = &self.raw[..n];
            self.hasher.update(chunk);
            self.size += n as u64;
            match &mut self.decoder {
                None => {
                    // Latin-1: byte b is U+00bb.
                    for &b in chunk {
                        if b < 0x80 {
                            self.out.push(b);
                        } else {
                            self.out.push(0xC0 | (b >> 6));
                            self.out.push(0x80 | (b & 0x3F));
                        }
                    }
                }
                Some(dec) => {
                    let mut src = chunk;
                    loop {
                        let need = dec
                            .max_utf8_buffer_length_without_replacement(src.len())
                            .unwrap_or(src.len() * 3 + 16)
                            .max(16);
                        let start = self.out.len();
                        self.out.resize(start + need, 0);
                        let (res, read, written) = dec.decode_to_utf8_without_replacement(
                            src,
                            &mut self.out[start..],
                            last,
                        );
                        self.out.truncate(start + written);
                        src = &src[read..];
                        match res {
                            encoding_rs::DecoderResult::InputEmpty => break,
                            encoding_rs::DecoderResult::OutputFull => {}
                            encoding_rs::DecoderResult::Malformed(_, _) => {
                                self.errors += 1;
                                self.out.extend_from_slice("\u{FFFD}".as_bytes());
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for DecodeReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.out_pos >= self.out.len() {
            self.fill()?;
        }
        let avail = &self.out[self.out_pos..];
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.out_pos += n;
        Ok(n)
    }
}

/// The streaming guess behind `info`'s `encoding_guess`: fed every chunk of a file
/// once, it tracks whether the bytes are valid UTF-8, Shift_JIS and EUC-JP.
pub struct Guesser {
    utf8_valid: bool,
    utf8_carry: Vec<u8>,
    sjis: Option<encoding_rs::Decoder>,
    euc: Option<encoding_rs::Decoder>,
    scratch: Vec<u8>,
    head: Vec<u8>,
}

impl Default for Guesser {
    fn default() -> Self {
        Guesser::new()
    }
}

impl Guesser {
    pub fn new() -> Guesser {
        Guesser {
            utf8_valid: true,
            utf8_carry: Vec::new(),
            sjis: Some(encoding_rs::SHIFT_JIS.new_decoder_without_bom_handling()),
            euc: Some(encoding_rs::EUC_JP.new_decoder_without_bom_handling()),
            scratch: vec![0; 64 * 1024],
            head: Vec::new(),
        }
    }

    pub fn update(&mut self, chunk: &[u8]) {
        if self.head.len() < super::sniff::SNIFF_BYTES {
            let room = super::sniff::SNIFF_BYTES - self.head.len();
            self.head.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        if self.utf8_valid {
            self.utf8(chunk);
        }
        // Only a file that is not UTF-8 needs the legacy guesses, but whether it is
        // is known only at the end; the decoders drop out at their first error.
        for slot in [&mut self.sjis, &mut self.euc] {
            if let Some(dec) = slot
                && !feed(dec, chunk, &mut self.scratch, false)
            {
                *slot = None;
            }
        }
    }

    fn utf8(&mut self, chunk: &[u8]) {
        let mut data = chunk;
        if let Some(&lead) = self.utf8_carry.first() {
            let width = match lead {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            let need = width - self.utf8_carry.len();
            if chunk.len() < need {
                self.utf8_carry.extend_from_slice(chunk);
                return;
            }
            let mut seq = std::mem::take(&mut self.utf8_carry);
            seq.extend_from_slice(&chunk[..need]);
            if std::str::from_utf8(&seq).is_err() {
                self.utf8_valid = false;
                return;
            }
            data = &chunk[need..];
        }
        match std::str::from_utf8(data) {
            Ok(_) => {}
            Err(e) if e.error_len().is_none() => {
                self.utf8_carry = data[e.valid_up_to()..].to_vec();
            }
            Err(_) => self.utf8_valid = false,
        }
    }

    /// Call once after the last chunk.
    pub fn finish(&mut self) {
        if !self.utf8_carry.is_empty() {
            self.utf8_valid = false;
        }
        for slot in [&mut self.sjis, &mut self.euc] {
            if let Some(dec) = slot
                && !feed(dec, &[], &mut self.scratch, true)
            {
                *slot = None;
            }
        }
    }

    pub fn utf8_valid(&self) -> bool {
        self.utf8_valid
    }

    /// utf-8, shift_jis, euc-jp, utf-16le, utf-16be, or unknown.
    pub fn guess(&self) -> &'static str {
        let h = &self.head;
        if h.starts_with(b"\xFF\xFE") {
            return "utf-16le";
        }
        if h.starts_with(b"\xFE\xFF") {
            return "utf-16be";
        }
        if self.utf8_valid && memchr::memchr(0, h).is_none() {
            return "utf-8";
        }
        if let Some(g) = utf16_pattern(h) {
            return g;
        }
        if memchr::memchr(0, h).is_some() {
            return "unknown";
        }
        // EUC-JP text is usually also valid Shift_JIS (as half-width kana); Shift_JIS
        // hiragana (lead 0x82) is not valid EUC-JP. So EUC-JP first.
        if self.euc.is_some() {
            return "euc-jp";
        }
        if self.sjis.is_some() {
            return "shift_jis";
        }
        "unknown"
    }
}

/// Zeros at odd positions only (ASCII in UTF-16LE) or even only (UTF-16BE).
fn utf16_pattern(h: &[u8]) -> Option<&'static str> {
    let pairs = h.len() / 2;
    if pairs < 2 {
        return None;
    }
    let (mut even, mut odd) = (0usize, 0usize);
    for p in h.chunks_exact(2) {
        even += usize::from(p[0] == 0);
        odd += usize::from(p[1] == 0);
    }
    if odd * 10 >= pairs * 3 && even * 20 <= pairs {
        Some("utf-16le")
    } else if even * 10 >= pairs * 3 && odd * 20 <= pairs {
        Some("utf-16be")
    } else {
        None
    }
}

/// Feeds `src` to a decoder; false at the first malformed sequence.
fn feed(dec: &mut encoding_rs::Decoder, mut src: &[u8], scratch: &mut [u8], last: bool) -> bool {
    loop {
        let (res, read, _) = dec.decode_to_utf8_without_replacement(src, scratch, last);
        src = &src[read..];
        match res {
            encoding_rs::DecoderResult::InputEmpty => return true,
            encoding_rs::DecoderResult::OutputFull => {}
            encoding_rs::DecoderResult::Malformed(_, _) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn latin1_is_not_windows_1252() {
        let (t, e) = decode_all(b"\x80\xE9\xFF", Encoding::Latin1);
        assert_eq!(t, "\u{80}\u{E9}\u{FF}");
        assert_eq!(e, 0);
    }
    #[test]
    fn decodes_and_counts_errors() {
        let (t, e) = decode_all(b"\x82\xA0\x82\xA2", Encoding::ShiftJis);
        assert_eq!(t, "あい");
        assert_eq!(e, 0);
        let (t, e) = decode_all(b"\xFF\xFEa\x00\n\x00", Encoding::Utf16Le);
        assert_eq!(t, "a\n");
        assert_eq!(e, 0);
        let (_, e) = decode_all(b"\xA4", Encoding::EucJp);
        assert_eq!(e, 1);
    }
    fn guess_of(chunks: &[&[u8]]) -> (&'static str, bool) {
        let mut g = Guesser::new();
        for c in chunks {
            g.update(c);
        }
        g.finish();
        (g.guess(), g.utf8_valid())
    }
    #[test]
    fn guesses() {
        assert_eq!(guess_of(&[b"plain"]), ("utf-8", true));
        // A UTF-8 sequence split across chunks stays valid.
        assert_eq!(
            guess_of(&["あ".as_bytes()[..1].as_ref(), "あ".as_bytes()[1..].as_ref()]),
            ("utf-8", true)
        );
        assert!(!guess_of(&[b"\xE3", b"\x81"]).1);
        assert_eq!(guess_of(&[b"\x82\xA0\x82\xA2"]).0, "shift_jis");
        assert_eq!(guess_of(&[b"\xA4\xA2\xA4\xA4"]).0, "euc-jp");
        assert_eq!(guess_of(&[b"a\x00b\x00c\x00"]).0, "utf-16le");
        assert_eq!(guess_of(&[b"\xFF\xFEa\x00"]).0, "utf-16le");
    }
}

#[cfg(test)]
mod names_tests {
    use super::{ALIASES, Encoding, NAMES};

    #[test]
    fn every_name_and_spelling_names_the_encoding_it_reports() {
        let listed: Vec<&str> = ALIASES.iter().map(|(n, _)| *n).collect();
        assert_eq!(listed, NAMES);
        for (name, other) in ALIASES {
            let enc = Encoding::from_name(name).map(Encoding::name);
            assert_eq!(enc, Some(*name));
            for o in *other {
                assert_eq!(
                    Encoding::from_name(&o.to_uppercase()).map(Encoding::name),
                    Some(*name)
                );
            }
        }
        assert_eq!(Encoding::from_name("utf-7"), None);
    }
}

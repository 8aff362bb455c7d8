//! Provider token formats (`data/secret-formats.tsv`): a prefix, the body's alphabet
//! and length, and GitHub's CRC32 checksum. A token is recognized at any word start,
//! with or without a key name before it. Also the structured tokens no prefix table
//! can describe: JWTs, Telegram bot tokens, Azure AD client secrets.

use std::ops::Range;

/// A text at least this long may be a line cut at its length limit (16,384 bytes):
/// a token at its very end may be cut short.
pub(super) const CUT_MIN: usize = 4096;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Alphabet {
    B62,
    B62u,
    B64url,
    B64,
    Hex,
    Hexi,
    HexiDash,
    Upnum,
    Lownum,
    Alnumi,
    Alpha,
    Dotted,
    Path,
    Any,
}

impl Alphabet {
    #[cfg(test)]
    fn parse(s: &str) -> Option<Alphabet> {
        Some(match s {
            "b62" => Alphabet::B62,
            "b62u" => Alphabet::B62u,
            "b64url" => Alphabet::B64url,
            "b64" => Alphabet::B64,
            "hex" => Alphabet::Hex,
            "hexi" => Alphabet::Hexi,
            "hexi-" => Alphabet::HexiDash,
            "upnum" => Alphabet::Upnum,
            "lownum" => Alphabet::Lownum,
            "alnumi" => Alphabet::Alnumi,
            "alpha" => Alphabet::Alpha,
            "dotted" => Alphabet::Dotted,
            "path" => Alphabet::Path,
            "any" => Alphabet::Any,
            _ => return None,
        })
    }

    fn has(self, b: u8) -> bool {
        match self {
            Alphabet::B62 | Alphabet::Alnumi => b.is_ascii_alphanumeric(),
            Alphabet::B62u => b.is_ascii_alphanumeric() || b == b'_',
            Alphabet::B64url => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Alphabet::B64 => b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='),
            Alphabet::Hex => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
            Alphabet::Hexi => b.is_ascii_hexdigit(),
            Alphabet::HexiDash => b.is_ascii_hexdigit() || b == b'-',
            Alphabet::Upnum => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Alphabet::Lownum => b.is_ascii_lowercase() || b.is_ascii_digit(),
            Alphabet::Alpha => b.is_ascii_alphabetic(),
            Alphabet::Dotted => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'=' | b'-'),
            Alphabet::Path => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'/' | b'-'),
            Alphabet::Any => {
                b.is_ascii_alphanumeric()
                    || matches!(b, b'_' | b'.' | b'~' | b'+' | b'/' | b'=' | b'-' | b'@')
            }
        }
    }
}

#[derive(Debug)]
pub(super) struct Format {
    pub name: &'static str,
    pub prefix: &'static [u8],
    alphabet: Alphabet,
    min: usize,
    max: usize,
    crc32: bool,
    show: bool,
}

pub(super) struct Table {
    /// Sorted by prefix, longest first among equal first two bytes.
    pub formats: &'static [Format],
    /// Bit `a * 256 + b` set when some prefix starts with bytes `a`, `b`.
    first2: [u64; 1024],
}

// `const FORMATS`: data/secret-formats.tsv, sorted, written by build/secret_tables.rs.
include!(concat!(env!("OUT_DIR"), "/secret_formats.rs"));

/// The formats and their first-two-byte bitmap, both built at compile time: a
/// process pays nothing to set them up.
static TABLE: Table = Table {
    formats: FORMATS,
    first2: first2(FORMATS),
};

const fn first2(formats: &[Format]) -> [u64; 1024] {
    let mut bits = [0u64; 1024];
    let mut i = 0;
    while i < formats.len() {
        let p = formats[i].prefix;
        let k = (p[0] as usize) << 8 | p[1] as usize;
        bits[k / 64] |= 1 << (k % 64);
        i += 1;
    }
    bits
}

pub(super) fn table() -> &'static Table {
    &TABLE
}

/// The bytes a word is made of (a token's left edge is a byte outside this set).
pub(super) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Table {
    #[inline]
    pub fn may_start(&self, a: u8, b: u8) -> bool {
        let k = usize::from(a) << 8 | usize::from(b);
        self.first2[k / 64] >> (k % 64) & 1 == 1
    }

    /// The token of a format starting at `i` of `b` (a word start), as the range to mask.
    pub fn at(&self, b: &[u8], i: usize) -> Option<Range<usize>> {
        let (a, c) = (*b.get(i)?, *b.get(i + 1)?);
        let lo = self.formats.partition_point(|f| f.prefix[..2] < [a, c][..]);
        for f in &self.formats[lo..] {
            if f.prefix[..2] != [a, c] {
                break;
            }
            if let Some(r) = f.matches(b, i) {
                return Some(r);
            }
        }
        None
    }
}

impl Format {
    fn matches(&self, b: &[u8], i: usize) -> Option<Range<usize>> {
        let rest = b.get(i..)?;
        if !rest.starts_with(self.prefix) {
            return None;
        }
        let from = i + self.prefix.len();
        let mut end = from;
        while end < b.len() && self.alphabet.has(b[end]) {
            end += 1;
        }
        // A token in a sentence ends before its full stop.
        while end > from
            && matches!(b[end - 1], b'.' | b'-' | b'/')
            && self.alphabet != Alphabet::B64
        {
            end -= 1;
        }
        let body = &b[from..end];
        // A token cut short (a line cut at its length limit, an error message quoting
        // part of it) is still a secret: half of the minimum is enough.
        // At the end of the text (a line cut at its length limit) any 4 characters
        // after the prefix are the start of a token.
        let least = if end == b.len() && b.len() >= CUT_MIN {
            // At least the prefilter's run (`prefilter::RUN`) in all.
            8usize
                .saturating_sub(self.prefix.len())
                .max(4)
                .min(self.min)
        } else {
            (self.min / 2).max(8).min(self.min)
        };
        if body.len() < least || (body.len() > self.max && !self.near_miss(body)) {
            return None;
        }
        // A longer word is another thing (`AKIA...` with a 17th letter).
        if b.get(end).is_some_and(|&n| is_word(n)) {
            return None;
        }
        // Cut at the end of a long line: too little is left to judge; the prefix says it.
        let cut = end == b.len() && b.len() >= CUT_MIN;
        if !cut && !(self.crc32 && crc32_ok(body)) && !self.token_body(body) {
            return None;
        }
        if self.show {
            return Some(from..end);
        }
        // `<14 chars>.atlasv1.<...>`, `<tenant>.webhook.office.com/...`: a label
        // before the prefix belongs to the token.
        let mut start = i;
        if i > 0 && b[i - 1] == b'.' {
            let label = b[..i - 1]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
                .count();
            if label >= 8 {
                start = i - 1 - label;
            }
        }
        Some(start..end)
    }
}

/// How many characters past a format's longest body a near miss may run.
const NEAR: usize = 4;

impl Format {
    /// A body a few characters longer than the format allows, after a prefix that
    /// ends with its separator (`ghp_`, `xoxb-`, `glpat-`; not `AKIA`, which can
    /// start a longer word of another kind), looking machine-made: the token with a
    /// character more (mistyped in an edit's `--old`, echoed by its error), which
    /// shows the token itself.
    fn near_miss(&self, body: &[u8]) -> bool {
        body.len() <= self.max + NEAR
            && self.prefix.len() >= 4
            && matches!(self.prefix.last(), Some(b'_' | b'-'))
            && random_body(body, self.alphabet)
    }

    /// Whether `body`, after the prefix, is a token. A body of the documented length
    /// is one whatever its letters look like (`AKIA` + 16 capitals, an all-lowercase
    /// `sk-` token), unless it stands for one: one repeated character, AWS's
    /// documented examples (`...EXAMPLE`), or words joined by separators (a CSS
    /// class `sk-fading-circle`, a variable `live_update_interval`). A shorter body
    /// (a token cut short) must also look machine-made.
    fn token_body(&self, body: &[u8]) -> bool {
        if distinct(body) < 4.min(body.len()) || contains_example(body) || word_chain(body) {
            return false;
        }
        body.len() >= self.min || random_body(body, self.alphabet)
    }
}

/// How many different bytes `body` holds.
fn distinct(body: &[u8]) -> usize {
    let mut seen = [false; 256];
    body.iter()
        .filter(|&&c| !std::mem::replace(&mut seen[usize::from(c)], true))
        .count()
}

/// A documented example (`AKIAIOSFODNN7EXAMPLE`): never masked, as a key's value
/// holding `example` is not (`policy::is_placeholder`).
fn contains_example(body: &[u8]) -> bool {
    body.windows(7).any(|w| w.eq_ignore_ascii_case(b"example"))
}

/// Words joined by `-`, `_` or `.`: every part empty or a lower-case word of at most
/// 16 characters (digits after its first letter allowed), and at least two parts.
fn word_chain(body: &[u8]) -> bool {
    let mut parts = 0;
    for part in body.split(|&c| matches!(c, b'-' | b'_' | b'.')) {
        parts += 1;
        let word = part.len() <= 16
            && part.first().is_none_or(u8::is_ascii_lowercase)
            && part
                .iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        if !word {
            return false;
        }
    }
    parts >= 2
}

/// Whether a token body is machine-made rather than a word or a name: it mixes
/// character classes and is not one character repeated.
fn random_body(body: &[u8], alphabet: Alphabet) -> bool {
    let (mut lower, mut upper, mut digit) = (false, false, false);
    let mut distinct = [false; 128];
    let mut n = 0;
    for &c in body {
        match c {
            b'a'..=b'z' => lower = true,
            b'A'..=b'Z' => upper = true,
            b'0'..=b'9' => digit = true,
            _ => {}
        }
        if c < 128 && !distinct[usize::from(c)] {
            distinct[usize::from(c)] = true;
            n += 1;
        }
    }
    if n < 4.min(body.len()) {
        return false;
    }
    match alphabet {
        Alphabet::Alpha => (lower && upper) || n >= 12,
        Alphabet::Hex
        | Alphabet::Hexi
        | Alphabet::HexiDash
        | Alphabet::Upnum
        | Alphabet::Lownum => digit || body.len() < 12,
        _ => usize::from(lower) + usize::from(upper) + usize::from(digit) >= 2,
    }
}

/// GitHub's token checksum: the last six characters are the CRC32 of the others,
/// in base62 (`0-9A-Za-z`), zero-padded.
fn crc32_ok(body: &[u8]) -> bool {
    if body.len() < 7 {
        return false;
    }
    let (data, sum) = body.split_at(body.len() - 6);
    let mut crc = 0xffff_ffffu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    let mut v = u64::from(!crc);
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut enc = [b'0'; 6];
    for slot in enc.iter_mut().rev() {
        *slot = DIGITS[(v % 62) as usize];
        v /= 62;
    }
    enc == sum
}

/// A JWT at `i` (`eyJ` header, `.`, payload, `.`, optional signature): its range.
pub(super) fn jwt(b: &[u8], i: usize) -> Option<Range<usize>> {
    if !b.get(i..)?.starts_with(b"eyJ") {
        return None;
    }
    let seg = |from: usize| {
        let mut e = from;
        while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_' || b[e] == b'-') {
            e += 1;
        }
        e
    };
    let h = seg(i);
    // A header running to the end of the text: a token cut at a line's limit.
    if h == b.len() && b.len() >= CUT_MIN && h - i >= 16 {
        return Some(i..h);
    }
    if h - i < 10 || b.get(h) != Some(&b'.') {
        return None;
    }
    let p = seg(h + 1);
    if p - h - 1 < 10 {
        return None;
    }
    let mut end = p;
    if b.get(p) == Some(&b'.') {
        end = seg(p + 1);
    }
    while end < b.len() && b[end] == b'=' {
        end += 1;
    }
    Some(i..end)
}

/// A Telegram bot token at `i`: 8-10 digits, `:`, `AA` and 33 URL-safe characters.
pub(super) fn telegram(b: &[u8], i: usize) -> Option<Range<usize>> {
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if !(8..=10).contains(&digits) {
        return None;
    }
    let c = i + digits;
    if b.get(c..c + 3)? != b":AA" {
        return None;
    }
    let mut e = c + 1;
    while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_' || b[e] == b'-') {
        e += 1;
    }
    (e - c - 1 == 35 && !b.get(e).is_some_and(|&n| is_word(n))).then_some(i..e)
}

/// An Azure AD client secret at `i`: three word characters, a digit, `Q~`, and 31-34
/// more of `[A-Za-z0-9_.~-]`.
pub(super) fn azure_secret(b: &[u8], i: usize) -> Option<Range<usize>> {
    let w = b.get(i..i + 6)?;
    if !(w[..3].iter().all(|&c| is_word(c)) && w[3].is_ascii_digit() && &w[4..6] == b"Q~") {
        return None;
    }
    let mut e = i + 6;
    while e < b.len() && (b[e].is_ascii_alphanumeric() || matches!(b[e], b'_' | b'.' | b'~' | b'-'))
    {
        e += 1;
    }
    ((31..=34).contains(&(e - i - 6)) && !b.get(e).is_some_and(|&n| is_word(n))).then_some(i..e)
}

/// A Facebook app access token at `i`: the 15-16 digit app id, `|` or `%`, and 27-40
/// of `[0-9a-z_-]`.
pub(super) fn app_token(b: &[u8], i: usize) -> Option<Range<usize>> {
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if !(15..=16).contains(&digits) || !matches!(b.get(i + digits), Some(b'|' | b'%')) {
        return None;
    }
    let from = i + digits + 1;
    let n = b[from..]
        .iter()
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'_' | b'-'))
        .count();
    ((27..=40).contains(&n) && !b.get(from + n).is_some_and(|&c| is_word(c))).then_some(i..from + n)
}

/// A MaxMind license key at `i`: 6 characters, `_`, 29 characters, `_mmk`.
pub(super) fn suffixed(b: &[u8], i: usize) -> Option<Range<usize>> {
    let w = b.get(i..i + 40)?;
    if w[6] != b'_' || &w[36..] != b"_mmk" || b.get(i + 40).is_some_and(|&c| is_word(c)) {
        return None;
    }
    (w[..6]
        .iter()
        .chain(&w[7..36])
        .all(u8::is_ascii_alphanumeric)
        && random_body(&w[7..36], Alphabet::B62))
    .then_some(i..i + 40)
}

#[cfg(test)]
mod tests {
    use super::{Alphabet, Format};

    /// data/secret-formats.tsv parsed here, apart from the build script, and sorted as
    /// the table says: the compiled `FORMATS` is exactly this, row for row.
    #[test]
    fn the_compiled_table_is_the_data() {
        let text = include_str!("../../../data/secret-formats.tsv");
        let mut want = Vec::new();
        for line in text.lines() {
            if line.starts_with('#') || line.starts_with("name\t") || line.trim().is_empty() {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            let [name, prefix, alphabet, min, max, flags] = cols[..] else {
                panic!("not 6 columns: {line}");
            };
            want.push(Format {
                name,
                prefix: prefix.as_bytes(),
                alphabet: Alphabet::parse(alphabet).expect(line),
                min: min.parse().expect(line),
                max: max.parse().expect(line),
                crc32: flags.contains("crc32"),
                show: flags.contains("show"),
            });
        }
        want.sort_by(|a, b| {
            a.prefix[..2]
                .cmp(&b.prefix[..2])
                .then(b.prefix.len().cmp(&a.prefix.len()))
        });
        let got = super::table().formats;
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(format!("{g:?}"), format!("{w:?}"));
        }
        let starts: std::collections::HashSet<&[u8]> =
            want.iter().map(|f| &f.prefix[..2]).collect();
        let t = super::table();
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(t.may_start(a, b), starts.contains(&[a, b][..]), "{a} {b}");
            }
        }
    }

    #[test]
    fn github_checksum() {
        // Its checksum computed apart, by Python's zlib.crc32 in base62, so the test
        // does not check the code against a copy of itself.
        let mut body = b"aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE12QM6Ej".to_vec();
        assert!(super::crc32_ok(&body));
        body[0] = b'x';
        assert!(!super::crc32_ok(&body));
    }
}

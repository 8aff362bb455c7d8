//! The echo sub-passes: a secret an answer repeats inside another shape than a
//! file's line. A path component (`d/password=x/password=x.json`), a word cut by
//! brackets or quotes (a regex echoed in an error: `"password=x("`), a shell-quoted
//! argument (`'password='\''x'\'''`), and each side of a unified diff (a YAML block
//! under its `+`/`-`/` ` prefixes) are masked as the text they stand for. They run
//! only on strings that are not a file's lines (paths, messages, commands, diffs),
//! and only when a cheap check says the string can hold such a shape.

use super::secret_spans;
use std::ops::Range;

/// Brackets and regex signs cut off a word's ends before it is judged.
const TRIM: &[u8] = b"()[]{}<>^$|*+?,;!";

/// Whether `b` can hold an echo the whole-string pass misses: each sub-pass needs
/// a sign byte (a key's `=`/`:`) or a diff hunk.
pub fn may_echo(b: &[u8]) -> bool {
    memchr::memchr2(b'=', b':', b).is_some()
}

/// The secret spans the sub-passes find in `s` (they may overlap each other and the
/// whole-string spans; every one is at character boundaries).
pub fn spans(s: &str) -> Vec<Range<usize>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    words(s, &mut out);
    if memchr::memmem::find(b, b"'\\''").is_some() {
        through(s, &unquote(b), &mut out);
    }
    if is_diff(b) {
        for side in [b'-', b'+'] {
            through(s, &diff_side(b, side), &mut out);
        }
    } else if let Some(view) = regex_view(b) {
        through(s, &view, &mut out);
        if let Ok(text) = std::str::from_utf8(&view.text) {
            let mut found = Vec::new();
            words(text, &mut found);
            for r in found {
                if let (Some(&a), Some(&z)) =
                    (view.from.get(r.start), view.from.get(r.end.wrapping_sub(1)))
                {
                    out.push(a..(z + 1).min(s.len()));
                }
            }
        }
    }
    out.retain(|r| r.start < r.end && s.is_char_boundary(r.start) && s.is_char_boundary(r.end));
    out
}

/// Text made from some bytes of a string, each byte with the offset it came from.
#[derive(Default)]
struct View {
    text: Vec<u8>,
    from: Vec<usize>,
}

impl View {
    fn push(&mut self, b: u8, at: usize) {
        self.text.push(b);
        self.from.push(at);
    }
}

/// The secrets of `view`, as spans of the string it was made from.
fn through(s: &str, view: &View, out: &mut Vec<Range<usize>>) {
    let Ok(text) = std::str::from_utf8(&view.text) else {
        return;
    };
    for r in secret_spans(text) {
        if let (Some(&a), Some(&z)) = (view.from.get(r.start), view.from.get(r.end.wrapping_sub(1)))
        {
            out.push(a..(z + 1).min(s.len()));
        }
    }
}

/// Every word (between blanks and quotes) holding a sign, cut into path components,
/// its brackets and a last file extension taken off: judged alone when that cut
/// something.
fn words(s: &str, out: &mut Vec<Range<usize>>) {
    let b = s.as_bytes();
    let sep = |c: u8| c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'`');
    let mut i = 0;
    while i < b.len() {
        if sep(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && !sep(b[i]) {
            i += 1;
        }
        if memchr::memchr2(b'=', b':', &b[start..i]).is_none() {
            continue;
        }
        let mut p = start;
        for piece in b[start..i].split(|&c| c == b'/' || c == b'\\') {
            let (lo, hi) = (p, p + piece.len());
            p = hi + 1;
            let (a, z) = cut(b, lo, hi);
            if (a, z) == (start, i) || a >= z || memchr::memchr2(b'=', b':', &b[a..z]).is_none() {
                continue;
            }
            if let Some(text) = s.get(a..z) {
                out.extend(
                    secret_spans(text)
                        .into_iter()
                        .map(|r| a + r.start..a + r.end),
                );
            }
        }
    }
}

/// `b[lo..hi]` without the brackets at its ends and a last `.ext` (1 to 8 letters
/// or digits).
fn cut(b: &[u8], mut lo: usize, mut hi: usize) -> (usize, usize) {
    while lo < hi && TRIM.contains(&b[lo]) {
        lo += 1;
    }
    while hi > lo && TRIM.contains(&b[hi - 1]) {
        hi -= 1;
    }
    if let Some(dot) = b[lo..hi].iter().rposition(|&c| c == b'.') {
        let ext = &b[lo + dot + 1..hi];
        if dot > 0 && (1..=8).contains(&ext.len()) && ext.iter().all(u8::is_ascii_alphanumeric) {
            hi = lo + dot;
        }
    }
    (lo, hi)
}

/// A pattern's echo (`search 'password: x('`, `--where '/password~x('`) as the
/// text it stands for: regex signs, class escapes (`\w`) and `.*` dropped, an
/// escaped sign kept as itself, `~` after a name read as `=` (a `--where` match),
/// the mask left whole. Only in a string quoting it (`".."`, `'..'`, ` /../`: a
/// message, a command): `None`
/// for one with no quote or no such sign (a file's regex shown by `json get`), a
/// line break (not one echo), a JSON object (`{"`: a document, whose brackets are
/// its own), or over 4 KiB.
fn regex_view(b: &[u8]) -> Option<View> {
    const SIGNS: &[u8] = b"()[]*+?|^$\\~";
    if b.len() > 4096
        || b.contains(&b'\n')
        || memchr::memmem::find(b, b"{\"").is_some()
        || (memchr::memchr2(b'"', b'\'', b).is_none() && memchr::memmem::find(b, b" /").is_none())
        || !b.iter().any(|c| SIGNS.contains(c))
    {
        return None;
    }
    let mask = super::PLACEHOLDER.as_bytes();
    let mut v = View::default();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'[' if b[i..].starts_with(mask) => {
                for (k, &c) in b.iter().enumerate().skip(i).take(mask.len()) {
                    v.push(c, k);
                }
                i += mask.len();
                continue;
            }
            b'\\' if i + 1 < b.len() => {
                if !b[i + 1].is_ascii_alphanumeric() {
                    v.push(b[i + 1], i + 1);
                }
                i += 2;
                continue;
            }
            b'.' if matches!(b.get(i + 1), Some(b'*' | b'+' | b'?')) => {
                i += 2;
                continue;
            }
            b'~' if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') => {
                v.push(b'=', i)
            }
            c if SIGNS.contains(&c) => {}
            c => v.push(c, i),
        }
        i += 1;
    }
    Some(v)
}

/// The words of a pattern the caller sent (a regex that does not compile) that the
/// file rules would mask as a value with no key before it: a word judged as a weak
/// key's value (`looks_random`: `Tr0ub4dor&3xyzQ` in `Tr0ub4dor&3xyzQ(`), but for a
/// lowercase code-like word (`code_like`). Words are cut at blanks, quotes, regex
/// signs, class escapes (`\s`) and a key's sign.
pub fn pattern_values(p: &str) -> Vec<&str> {
    const CUT: &[u8] = b"()[]{}<>^$|*+?,;!\\\"'`=:";
    let b = p.as_bytes();
    let mut out: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() || CUT.contains(&b[i]) {
            // `\s`, `\d`: the escape's letter is the sign's, not the word's.
            i += if b[i] == b'\\' && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
                2
            } else {
                1
            };
            continue;
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !CUT.contains(&b[i]) {
            i += 1;
        }
        let word = p.get(start..i).unwrap_or_default();
        let judged = !code_like(word)
            && super::policy::is_secret_value(
                word.as_bytes(),
                false,
                super::policy::Strength::Weak,
            );
        if judged && !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

/// A word with no sign but `_`, `-`, `.` that has no capital, or that changes
/// between lowercase, capitals and digits less than once in every two or three
/// characters (`Base64Encoder`, `toUTF8String`, `React18App`; random text changes
/// at about three pairs in five: `Zq8v2LmP0xA1`): a pattern's bare word of this
/// shape is echoed. Its shape cannot tell a lowercase password (`hunter2hunter2`)
/// from a code word (`utf8string`) or a hash prefix (`9fe58be2c0`), and the file
/// rules leave it bare too; after a key (`password=hunter2hunter2`) the keyed
/// rules mask it.
fn code_like(word: &str) -> bool {
    let b = word.as_bytes();
    if !b
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
    {
        return false;
    }
    let class = |c: &u8| match c {
        b'a'..=b'z' => 1u8,
        b'A'..=b'Z' => 2,
        b'0'..=b'9' => 3,
        _ => 0,
    };
    let classes: Vec<u8> = b.iter().map(class).filter(|&k| k != 0).collect();
    let changes = classes.windows(2).filter(|w| w[0] != w[1]).count();
    !classes.contains(&2) || changes * 100 < 45 * classes.len().saturating_sub(1)
}

/// `b` as a POSIX shell reads its quoting: `'...'` literal, `\x` outside quotes `x`.
fn unquote(b: &[u8]) -> View {
    let mut v = View::default();
    let (mut single, mut i) = (false, 0);
    while i < b.len() {
        match b[i] {
            b'\'' => single = !single,
            b'\\' if !single && i + 1 < b.len() => {
                i += 1;
                v.push(b[i], i);
            }
            c => v.push(c, i),
        }
        i += 1;
    }
    v
}

/// Whether `b` is a unified diff (its header or a hunk).
fn is_diff(b: &[u8]) -> bool {
    b.starts_with(b"--- ") || b.starts_with(b"@@ ") || memchr::memmem::find(b, b"\n@@ -").is_some()
}

/// One side of a unified diff: the hunks' context lines and the lines marked `side`
/// (`-` the old file, `+` the new), each without its mark.
fn diff_side(b: &[u8], side: u8) -> View {
    let mut v = View::default();
    let mut hunk = false;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', b).chain(std::iter::once(b.len())) {
        let line = &b[start..end];
        if line.starts_with(b"@@ ") {
            hunk = true;
        } else if hunk && matches!(line.first(), Some(&c) if c == b' ' || c == side) {
            for (k, &c) in line.iter().enumerate().skip(1) {
                v.push(c, start + k);
            }
            v.push(b'\n', end.min(b.len().saturating_sub(1)));
        } else if !matches!(line.first(), Some(b'-' | b'+' | b'\\')) {
            hunk = false;
        }
        start = end + 1;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::{pattern_values, spans};

    #[test]
    fn pattern_words_judged_as_bare_values() {
        assert_eq!(pattern_values("Tr0ub4dor&3xyzQ("), ["Tr0ub4dor&3xyzQ"]);
        assert_eq!(pattern_values("Zq8v2LmP0xA1Wk3n("), ["Zq8v2LmP0xA1Wk3n"]);
        assert_eq!(pattern_values("\\sTr0ub4dor3xyzQ\\d+"), ["Tr0ub4dor3xyzQ"]);
        assert_eq!(
            pattern_values("token=Zq8v2LmP0xA1Wk3n[a"),
            ["Zq8v2LmP0xA1Wk3n"]
        );
        for plain in [
            "fn main(",
            "parse_config(value_2",
            "v1.2.3(",
            "[0-9a-f]{40}(",
            "utf8string(",
            "base64encode(x",
            "hunter2hunter2(",
            "9fe58be2c0d4a1(",
            "Base64Encoder(",
            "sha256Digest(",
            "toUTF8String(",
            "React18App(",
        ] {
            assert!(pattern_values(plain).is_empty(), "{plain}");
        }
    }

    fn masked(s: &str) -> String {
        let mut out = String::new();
        let mut last = 0;
        let mut r = spans(s);
        r.sort_by_key(|r| r.start);
        for x in r {
            if x.start < last {
                last = last.max(x.end);
                continue;
            }
            out.push_str(&s[last..x.start]);
            out.push('#');
            last = x.end;
        }
        out.push_str(&s[last..]);
        out
    }

    #[test]
    fn paths_words_quotes_diffs() {
        assert_eq!(
            masked("d/password=Tr0ub4dor3xyzQ/x.json"),
            "d/password=#/x.json"
        );
        assert_eq!(
            masked("api_key=hunter2-very-secret-value.txt"),
            "api_key=#.txt"
        );
        assert_eq!(
            masked("The pattern \"password=Tr0ub4dor3xyzQ(\" does"),
            "The pattern \"password=#(\" does"
        );
        assert!(
            !masked("aitools edit f --old 'password='\\''Tr0ub4dor3xyzQ'\\''' --new x")
                .contains("Tr0ub")
        );
        let diff =
            "--- a\n+++ b\n@@ -1,3 +1,3 @@\n password: |\n-  Tr0ub4dor3xyzQw\n+  Tr0ub4dor3xyzQx\n";
        assert!(!masked(diff).contains("Tr0ub"));
        assert_eq!(masked("src/main.rs:12 and x=1"), "src/main.rs:12 and x=1");
        for echo in [
            "The pattern \"password: Hunter2SecretValue(\" does not parse",
            "aitools search 'password = Hunter2SecretValue(' . --fixed",
            "The pattern \"password=Hunter2SecretValue.*\" does not parse",
            "--where \"/password~Hunter2SecretValue(\" does not parse",
            "--match \"token:\\s*Hunter2SecretValue[\" does not parse",
        ] {
            assert!(
                !masked(echo).contains("Hunter2"),
                "{echo}: {}",
                masked(echo)
            );
        }
        assert_eq!(masked("x=[REDACTED_SECRET] (1)"), "x=[REDACTED_SECRET] (1)");
        let doc = "{\"credentials\": {\"primary\": [\"a\"]}, \"f\": \"g(x)\"}";
        assert_eq!(masked(doc), doc);
        assert_eq!(masked("--match \"fn main\\(\""), "--match \"fn main\\(\"");
    }
}

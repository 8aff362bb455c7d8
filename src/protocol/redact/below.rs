//! Values below their key's line: the line after a secret-named key that ended its
//! own line (`token:` then a deeper YAML scalar; `password = \`, HCL's `token =`,
//! JSON's `"api_key":` wrapped by a formatter). Bounded: one line, read only after a
//! key line ending with its sign or a continuation `\`.

use super::policy;
use std::ops::Range;

/// What a line under a secret-named key opens: its value goes on over the next lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Open {
    /// A YAML block scalar (`password: |`): the lines indented deeper than this.
    Block(usize),
    /// A YAML block sequence (`tokens:` then `- a` lines): the key's column, and
    /// whether the key names a secret strongly (`credentials:`, not a provider's
    /// name such as `publish-pypi:`): only then does it cover the keys nested in it.
    Seq(usize, bool),
    /// A list whose `]` is on a later line (`"api_keys": [`, `TOKENS = [`).
    Array,
    /// A key line ending with its assignment or a continuation `\`: the next line
    /// may be the value (`next_line_value`), judged as after a key of this strength.
    Next(policy::Strength),
    /// A schema's key inside a secret key's scope (`policy::schema_word`): the
    /// scope describes a secret, it ends.
    Plain,
}

/// What a secret-named key whose value is not on its line (`head`: the line before
/// the key, `col`: the key's column) opens. `tokens:` first on its line: a YAML
/// sequence (or the value deeper on the next line). A key line ending with its
/// assignment (`token =` in HCL, `"api_key":` in JSON a formatter wrapped, after a
/// quoted key) or with a continuation `\` (`password = \`): the next line, and only
/// it, may be the value (`Open::Next`).
pub(super) fn value_below(
    head: &[u8],
    col: usize,
    (sign, quoted_key, continued): (u8, bool, bool),
    named: Option<policy::Strength>,
    plural: Option<policy::Strength>,
) -> Option<Open> {
    let blank_head = head
        .iter()
        .all(|c| matches!(c, b' ' | b'\t' | b'-' | b'"' | b'\''));
    if sign == b':' && blank_head && !continued {
        let strong = named.or(plural) == Some(policy::Strength::Strong);
        return Some(Open::Seq(col, strong));
    }
    let strength = named?;
    (continued || sign == b'=' || (sign == b':' && quoted_key)).then_some(Open::Next(strength))
}

/// The value on the line after its key's (`Open::Next`): a quoted string (then
/// only closing brackets, `,`, `;` or a `\`), or one word that is not a key of its
/// own (no `=` or `:` inside it), a path, an option or a bracket, judged as after
/// the key.
pub(super) fn next_line_value(
    b: &[u8],
    lo: usize,
    hi: usize,
    strength: policy::Strength,
) -> Option<Range<usize>> {
    let line = b.get(lo..hi)?;
    let from = lo
        + line
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .count();
    let t = b.get(from..hi)?.trim_ascii_end();
    let &q = t.first()?;
    if matches!(q, b'"' | b'\'' | b'`') {
        let close = closing_quote(t, q)?;
        let after = t[close + 1..].trim_ascii_start();
        if after != b"\\" && !after.iter().all(|c| b",;)]} \t".contains(c)) {
            return None;
        }
        let value = &t[1..close];
        return policy::is_secret_value(value, true, strength).then_some(from + 1..from + close);
    }
    let mut value = t.strip_suffix(b"\\").unwrap_or(t).trim_ascii_end();
    while let [rest @ .., b',' | b';'] = value {
        value = rest;
    }
    if value.iter().any(u8::is_ascii_whitespace) {
        // Only an indented line continues its key's (INI's rule); words at the
        // margin are text of their own.
        return (from > lo && passphrase(value, strength)).then_some(from..from + value.len());
    }
    // Base64's `=` padding at the end is the value's own.
    let mut inner = value;
    while let [rest @ .., b'='] = inner {
        inner = rest;
    }
    // `GITHUB_TOKEN=` after `STRIPE_KEY=` (an `.env` template): a key of its own.
    let key_shape = inner.len() < value.len()
        && inner
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        && (inner.contains(&b'_') || !inner.iter().any(u8::is_ascii_lowercase));
    if value.is_empty()
        || key_shape
        || inner.iter().any(|c| matches!(c, b'=' | b':'))
        || matches!(
            q,
            b'{' | b'[' | b']' | b'}' | b'(' | b')' | b'#' | b'/' | b'~' | b'-' | b'<'
        )
    {
        return None;
    }
    policy::is_secret_value(value, false, strength).then_some(from..from + value.len())
}

/// Where the string `t` opens with the quote `q` closes. In double quotes and
/// backticks a `\` escapes the next byte (`"ab\"cd"` is one string: its tail is the
/// value's too); a single-quoted string (YAML's `'C:\dir\'`) ends at its next quote.
pub(super) fn closing_quote(t: &[u8], q: u8) -> Option<usize> {
    if q == b'\'' {
        return Some(1 + memchr::memchr(q, t.get(1..)?)?);
    }
    let mut i = 1;
    while let Some(&c) = t.get(i) {
        match c {
            b'\\' => i += 2,
            _ if c == q => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Words alone on the (indented) line after a key that strongly names a secret
/// (`password =` then `correct horse battery staple`): a passphrase when it is 2
/// to 6 words, each starting with a letter or digit, none holding code's
/// punctuation, fewer than two of them prose's small words (`PROSE`: "set it in
/// the admin panel" is an instruction), judged as a quoted value after the key.
fn passphrase(value: &[u8], strength: policy::Strength) -> bool {
    let words: Vec<&[u8]> = value
        .split(u8::is_ascii_whitespace)
        .filter(|w| !w.is_empty())
        .collect();
    let prose = words
        .iter()
        .filter(|w| PROSE.iter().any(|p| w.eq_ignore_ascii_case(p.as_bytes())))
        .count();
    strength == policy::Strength::Strong
        && prose < 2
        && (2..=6).contains(&words.len())
        && (12..=100).contains(&value.len())
        && words.iter().all(|w| {
            w.first().is_some_and(u8::is_ascii_alphanumeric)
                && !w.iter().any(|c| b"()[]{}=:;,.<>#/\\$`\"'".contains(c))
        })
        && policy::is_secret_value(value, true, strength)
}

/// English's small words: two of them make a line of words prose, not a passphrase.
const PROSE: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "here", "if", "in", "is", "it",
    "not", "of", "on", "or", "see", "set", "some", "that", "the", "there", "this", "to", "use",
    "we", "with", "you", "your",
];

/// A line deeper than a secret-named key that ended its own line (`token:`): the
/// key's value when the line is a scalar (plain, or a quoted string with an
/// optional `,` after it), judged as a list's element is. A line that is a key of
/// its own (`name: x`, `nested:`), a collection, an anchor or a comment is not.
pub(super) fn continued_value(b: &[u8], from: usize, hi: usize) -> Option<Range<usize>> {
    let line = b.get(from..hi)?;
    let t = line.trim_ascii_end();
    let &q = t.first()?;
    if matches!(q, b'"' | b'\'') {
        let close = closing_quote(t, q)?;
        let after = &t[close + 1..];
        if !(after.is_empty() || after == b",") {
            return None;
        }
        let value = &t[1..close];
        return policy::is_secret_element(value, true).then_some(from + 1..from + close);
    }
    if matches!(
        q,
        b'{' | b'[' | b']' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'#' | b'-'
    ) {
        return None;
    }
    let e = memchr::memmem::find(t, b" #").unwrap_or(t.len());
    let value = t[..e].trim_ascii_end();
    if value.ends_with(b":") || memchr::memmem::find(value, b": ").is_some() {
        return None;
    }
    policy::is_secret_element(value, false).then_some(from..from + value.len())
}

//! A secret named only by its file's path (`secrets/db_password`, `api_key.txt`,
//! `github_token`): no key stands beside the value, the file's name is its key.
//! Narrow on purpose: the base name (less a leading `.` and a `.txt` or `.json`
//! extension) holds a key word, or its other extension does (`.env.secret`,
//! `master.key`; `token.py` is code), and the file's whole text is one value on
//! one line (a final line end allowed, quoted or not, no blank inside), judged as
//! after that key.

use super::policy;
use std::ops::Range;

/// The longest file text read as one value (a token or a password is far shorter).
pub const MAX_BYTES: usize = 4096;

/// How strongly the name of the file at `path` names a secret, if it may hold one.
pub(super) fn key_of(path: &str) -> Option<policy::Strength> {
    let base = path.rsplit(['/', '\\']).next()?;
    let base = base.strip_prefix('.').unwrap_or(base);
    let key = match base.rsplit_once('.') {
        None => base,
        Some((stem, ext))
            if ext.eq_ignore_ascii_case("txt") || ext.eq_ignore_ascii_case("json") =>
        {
            stem
        }
        // `.env.secret`, `master.key`: the extension names the value; `token.py`
        // is code.
        Some((_, ext)) => ext,
    };
    policy::key_strength(key.as_bytes())
}

/// The value's range in `text`, the whole text of the file at `path`, when the
/// file's name names it and the text is that one value.
pub(super) fn value(path: &str, text: &[u8]) -> Option<Range<usize>> {
    if text.len() > MAX_BYTES {
        return None;
    }
    let strength = key_of(path)?;
    // The line end is blank too: trimming takes it.
    let s = text.len() - text.trim_ascii_start().len();
    let e = s + text[s..].trim_ascii_end().len();
    let v = &text[s..e];
    let quoted = v.len() >= 2 && matches!(v[0], b'"' | b'\'') && v[v.len() - 1] == v[0];
    let (s, e) = if quoted { (s + 1, e - 1) } else { (s, e) };
    let v = &text[s..e];
    if v.is_empty() || v.iter().any(u8::is_ascii_whitespace) {
        return None;
    }
    policy::is_secret_value(v, quoted, strength).then_some(s..e)
}

#[cfg(test)]
mod tests {
    use super::value;

    #[test]
    fn the_name_is_the_key_and_the_whole_text_the_value() {
        let v = b"Tr0ub4dor&3xyzQ\n";
        for p in [
            "secrets/db_password",
            "api_key.txt",
            "x/.github_token",
            "API_KEY.json",
        ] {
            assert_eq!(value(p, v), Some(0..15), "{p}");
        }
        assert_eq!(value("token", b"\"q8ZfT3kLm9Xp2Rw7Vb\"\n"), Some(1..19));
        // Another kind of file, another name, more than one line or word, code.
        for (p, t) in [
            ("token.py", &v[..]),
            ("id_rsa.pub", v),
            ("notes.txt", v),
            ("secrets/db", v),
            ("db_password", b"Tr0ub4dor&3xyzQ\nother\n"),
            ("db_password", b"see the vault\n"),
            ("db_password", b"${DB_PASSWORD}\n"),
            ("password", b"/run/secrets/db\n"),
            ("token", b"hunter\n"),
        ] {
            assert_eq!(value(p, t), None, "{p}");
        }
    }
}

//! Private keys: PEM blocks (`-----BEGIN ... PRIVATE KEY-----`, PKCS#1/#8, OpenSSH,
//! encrypted, PGP), PuTTY key files, and a key's body lines seen without their BEGIN
//! line (a read range inside a key, a diff hunk). Public blocks (certificates, public
//! keys) and base64 images stay shown.

use super::policy::policy;
use std::sync::OnceLock;

/// Shortest and longest base64 run a lone key body line is taken for (PEM wraps at 64,
/// MIME at 76).
pub(super) const BODY_MIN: usize = 40;
pub(super) const BODY_MAX: usize = 76;

fn finder(which: &'static str) -> &'static memchr::memmem::Finder<'static> {
    static BEGIN: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    static END: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    if which == "begin" {
        BEGIN.get_or_init(|| memchr::memmem::Finder::new(b"-----BEGIN "))
    } else {
        END.get_or_init(|| memchr::memmem::Finder::new(b"-----END "))
    }
}

/// Whether `b` holds five dashes (every BEGIN and END marker does).
pub(super) fn has_dashes(b: &[u8]) -> bool {
    static DASHES: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    DASHES
        .get_or_init(|| memchr::memmem::Finder::new(b"-----"))
        .find(b)
        .is_some()
}

/// A `-----BEGIN <label>-----` in `b`: (its start, the end of its marker, private?).
pub(super) fn begin(b: &[u8]) -> Option<(usize, usize, bool)> {
    let at = finder("begin").find(b)?;
    let after = &b[at + 11..];
    let close = memchr::memmem::find(after, b"-----")?;
    let label = &after[..close];
    if label.len() > 100 || label.contains(&b'\n') {
        return None;
    }
    let private = policy()
        .pem_labels
        .iter()
        .any(|l| label.ends_with(l.as_bytes()));
    Some((at, at + 11 + close + 5, private))
}

/// The first `-----END <label>-----` marker in `b`: (its start, its end, private?).
pub(super) fn end_marker(b: &[u8]) -> Option<(usize, usize, bool)> {
    let at = finder("end").find(b)?;
    let after = &b[at + 9..];
    let close = memchr::memmem::find(after, b"-----")?;
    if close > 100 {
        return None;
    }
    let label = &after[..close];
    let private = policy()
        .pem_labels
        .iter()
        .any(|l| label.ends_with(l.as_bytes()));
    Some((at, at + 9 + close + 5, private))
}

/// The end of the first `-----END <label>-----` marker in `b`.
pub(super) fn end(b: &[u8]) -> Option<usize> {
    let at = finder("end").find(b)?;
    let after = &b[at + 9..];
    let close = memchr::memmem::find(after, b"-----")?;
    (close <= 100).then_some(at + 9 + close + 5)
}

/// The part of a line inside a key block that is the key's text: the line without
/// its indentation, a diff's one-character prefix, quotes and the string-literal
/// punctuation around it (`"MIIE...\n" +`). `None` when what is left is not base64
/// or a PEM header line (`Proc-Type:`, `DEK-Info:`, `Comment:`).
pub(super) fn body_core(line: &[u8]) -> Option<(usize, usize)> {
    let mut a = 0;
    let mut e = line.len();
    if matches!(line.first(), Some(b'+' | b'-')) && !line.starts_with(b"-----") {
        a = 1;
    }
    while a < e && matches!(line[a], b' ' | b'\t' | b'"' | b'\'' | b'`' | b'+') {
        a += 1;
    }
    loop {
        let before = e;
        while e > a
            && matches!(
                line[e - 1],
                b' ' | b'\t' | b'\r' | b'"' | b'\'' | b'`' | b'+' | b',' | b';' | b')' | b'\\'
            )
        {
            e -= 1;
        }
        if e >= a + 2 && &line[e - 2..e] == b"\\n" {
            e -= 2;
        }
        if e == before {
            break;
        }
    }
    let core = &line[a..e];
    if core.is_empty() {
        return None;
    }
    for h in [&b"Proc-Type:"[..], b"DEK-Info:", b"Comment:", b"Version:"] {
        if core.starts_with(h) {
            return Some((a, e));
        }
    }
    let run = core
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
        .count();
    // The whole line, or a long run with something after it (`...ZTI.` ending a
    // sentence that quotes the key).
    (run == core.len() || run >= 16).then_some((a, a + run))
}

/// Whether a body-ish core is base64 data a key could end with (not a plain word).
pub(super) fn key_tail(core: &[u8]) -> bool {
    core.len() >= 4
        && core.len() <= BODY_MAX
        && core.iter().any(|c| {
            c.is_ascii_digit() || c.is_ascii_uppercase() || matches!(c, b'=' | b'+' | b'/')
        })
        && core
            .iter()
            .any(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// The masked part of `line` when the whole line is a key body line seen alone: one
/// run of 40-76 base64 characters (`=` padding at its end) holding at least 6 upper-case
/// and 6 lower-case letters and 3 digits, maybe after a diff's `+`/`-`/` ` prefix.
/// Lower-case hex (hashes, commit ids), words and paths are never one.
pub(super) fn key_body(line: &[u8]) -> Option<(usize, usize)> {
    let from = match line.first() {
        Some(b'+' | b'-' | b' ') if line.len() > BODY_MIN => 1,
        _ => 0,
    };
    let body = &line[from..];
    if body.len() < BODY_MIN || body.len() > BODY_MAX {
        return None;
    }
    let run = body.len() - body.iter().rev().take_while(|&&b| b == b'=').count();
    if body.len() - run > 2 {
        return None;
    }
    let (mut upper, mut lower, mut digit) = (0, 0, 0);
    for &b in &body[..run] {
        match b {
            b'A'..=b'Z' => upper += 1,
            b'a'..=b'z' => lower += 1,
            b'0'..=b'9' => digit += 1,
            b'+' | b'/' => {}
            _ => return None,
        }
    }
    (upper >= 6 && lower >= 6 && digit >= 3 && !path_shaped(&body[..run]))
        .then_some((from, line.len()))
}

/// Whether a base64-looking run is a path without extensions
/// (`tests/fixtures/nonsecret/hashes/SHA256SUMS`): it holds `/`, no `+`, and
/// every name between slashes is one word: lower-case, upper-case or capitalised,
/// digits anywhere. A run of random base64 has names that mix cases at random.
fn path_shaped(run: &[u8]) -> bool {
    run.contains(&b'/')
        && !run.contains(&b'+')
        && run.split(|&b| b == b'/').all(|name| {
            let rest = name.get(1..).unwrap_or_default();
            !rest.iter().any(u8::is_ascii_uppercase) || !name.iter().any(u8::is_ascii_lowercase)
        })
}

/// Whether a body line is a full line of base64 wrapped at MIME's width (76: e-mail,
/// the `base64` tool, Python's `encodebytes`): embedded data, never a key's body,
/// which PEM wraps at 64 and OpenSSH at 70.
pub(super) fn mime_wrapped(body: &[u8]) -> bool {
    body.len() == BODY_MAX
}

/// Whether a body line starts base64 image data (PNG, JPEG, GIF, WebP, PDF, SVG):
/// an embedded file, not a key.
pub(super) fn image_start(core: &[u8]) -> bool {
    [
        &b"iVBORw0KGgo"[..],
        b"/9j/",
        b"R0lGOD",
        b"UklGR",
        b"JVBERi0",
        b"PHN2Zy",
        b"PD94bWwg",
    ]
    .iter()
    .any(|m| core.starts_with(m))
}

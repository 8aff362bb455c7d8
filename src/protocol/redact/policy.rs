//! What the mask hides and what it prints instead: the mask text, the key words that
//! name a secret (`data/redaction.txt`), and the judgement of a value found after such
//! a key (code, placeholder, or secret). Also every spelling of the mask a write must
//! refuse.

use std::sync::OnceLock;

pub const PLACEHOLDER: &str = "[REDACTED_SECRET]";

/// How strongly a key name says its value is a secret.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Strength {
    /// `password`, `token`...: any value that is not code or a placeholder.
    Strong,
    /// `key`, `api`...: only a value that looks random.
    Weak,
}

pub(super) struct Policy {
    strong_by_letter: &'static [&'static [&'static str]],
    weak_by_letter: &'static [&'static [&'static str]],
    placeholders: &'static [&'static str],
    types: &'static [&'static str],
    pub pem_labels: &'static [&'static str],
}

// `static POLICY`: data/redaction.txt by section, the key words by first character
// (`a`-`z`, `0`-`9`), written by build/secret_tables.rs: built at compile time.
include!(concat!(env!("OUT_DIR"), "/secret_policy.rs"));

pub(super) fn policy() -> &'static Policy {
    &POLICY
}

fn contains_ci(hay: &[u8], needle: &str) -> bool {
    let n = needle.as_bytes();
    n.len() <= hay.len() && hay.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// The list a key word starting with byte `c` is in (a letter in any case, a digit).
fn slot(c: u8) -> Option<usize> {
    match c.to_ascii_lowercase() {
        c @ b'a'..=b'z' => Some(usize::from(c - b'a')),
        c @ b'0'..=b'9' => Some(26 + usize::from(c - b'0')),
        _ => None,
    }
}

/// How strongly the key name `key` names a secret, if at all.
pub fn key_strength(key: &[u8]) -> Option<Strength> {
    // Longer runs are data (a base64 line before its `=` padding), not key names.
    if key.len() < 2 || key.len() > 48 {
        return None;
    }
    // The shell's working directories (`PWD=/home/u` in an environment listing),
    // not a password abbreviated (`pwd`, `DB_PWD` still are).
    if key == b"PWD" || key == b"OLDPWD" {
        return None;
    }
    let p = policy();
    let mut strong = false;
    let mut weak = false;
    for i in 0..key.len() {
        let Some(slot) = slot(key[i]) else {
            continue;
        };
        let rest = &key[i..];
        let hit =
            |w: &&str| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w.as_bytes());
        if p.strong_by_letter[slot].iter().any(hit) {
            strong = true;
            break;
        }
        // A weak word must be a whole part of the name: `api_key`, `apiKey`, not
        // `monkey`, `path`, `keyboard`.
        let starts = i == 0 || !key[i - 1].is_ascii_alphabetic() || key[i].is_ascii_uppercase();
        let whole = |w: &&str| hit(w) && !key.get(i + w.len()).is_some_and(u8::is_ascii_lowercase);
        if !weak && starts && p.weak_by_letter[slot].iter().any(whole) {
            weak = true;
        }
    }
    // `pw`, `db_pw`, `smtpPw`: the shortest spelling of a password, named only as
    // a whole word of the key (not `upward`, `UPWARD`, `pwm`).
    strong = strong || has_word(key, b"pw");
    if strong {
        // `tokens`, `tokenizer`, `token_count`, `password_hash`: words about secrets,
        // not secrets; their values are judged as for a weak key.
        let low = key.to_ascii_lowercase();
        let about = [
            "tokens",
            "tokeniz",
            "token_count",
            "token_type",
            "tokentype",
            "_len",
            "length",
            "hash",
            "_url",
            "_uri",
            "_path",
            "_file",
            "name",
            "_id",
            "expir",
            "policy",
            "_min",
            "_max",
            "salt",
            "hint",
            "existingsecret",
            "existing_secret",
            "passwordkey",
            "field",
            "prompt",
            "label",
            "header",
            "_env",
            "_count",
            "count_",
            "counter",
            "_ttl",
            "timeout",
            "_type",
            "validator",
            "input",
            "_regex",
            "pattern",
        ];
        if about
            .iter()
            .any(|a| low.windows(a.len()).any(|w| w == a.as_bytes()))
        {
            return Some(Strength::Weak);
        }
        return Some(Strength::Strong);
    }
    weak.then_some(Strength::Weak)
}

/// Whether `word` is a whole word of `key`: its words are split at every byte
/// that is not a letter or digit and where a lower-case letter meets a capital.
fn has_word(key: &[u8], word: &[u8]) -> bool {
    let mut start = 0;
    for i in 0..=key.len() {
        let cut = i == key.len()
            || !key[i].is_ascii_alphanumeric()
            || (i > start && key[i].is_ascii_uppercase() && key[i - 1].is_ascii_lowercase());
        if cut {
            if key[start..i].eq_ignore_ascii_case(word) {
                return true;
            }
            start = if i < key.len() && key[i].is_ascii_alphanumeric() {
                i
            } else {
                i + 1
            };
        }
    }
    false
}

/// How strongly `key` names a list of secrets: as `key_strength`, or its singular
/// (`keys`, `api_keys`, `secretKeys`: a list of keys).
pub fn list_key_strength(key: &[u8]) -> Option<Strength> {
    key_strength(key).or_else(|| plural_key_strength(key))
}

/// How strongly `key`'s singular names a secret (`api_keys`: `api_key`); `None`
/// for a key without a plural `s`. For a caller that looked `key` up already
/// (`keyed::line`: only the singular is left to try).
pub fn plural_key_strength(key: &[u8]) -> Option<Strength> {
    key.strip_suffix(b"s")
        .or_else(|| key.strip_suffix(b"S"))
        .and_then(key_strength)
}

/// Whether `v`, an element of a list under a secret-named key, is a secret: as
/// after a weak key name, and not a dotted name of code (`PASSWORD_HASHERS =
/// ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]`).
pub fn is_secret_element(v: &[u8], quoted: bool) -> bool {
    !dotted_name(v) && is_secret_value(v, quoted, Strength::Weak)
}

/// `package.module.Class`: two or more identifiers joined by dots, the first
/// lower-case (a module path, not a token's segments).
fn dotted_name(v: &[u8]) -> bool {
    let mut parts = v.split(|&b| b == b'.');
    // `package.module`, or `AccessKey.SecretAccessKey` (a model's member path).
    let first_lower = parts.next().is_some_and(|p| {
        !p.is_empty()
            && (p.iter().all(|b| b.is_ascii_lowercase() || *b == b'_')
                || (p[0].is_ascii_uppercase() && p.iter().all(u8::is_ascii_alphabetic)))
    });
    let mut n = 1;
    for p in parts {
        n += 1;
        let ident = p
            .first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && p.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_');
        if !ident {
            return false;
        }
    }
    first_lower && n >= 2
}

/// A key only a schema or an API model has (JSON Schema, Smithy, OpenAPI; not
/// `type` or `description`, which data has too): an object holding one describes
/// a secret (`"Credentials": {"properties": ...}`), it does not hold one, so a
/// secret key's scope in a JSON document ends at it.
pub fn schema_word(key: &[u8]) -> bool {
    const WORDS: [&str; 17] = [
        "$ref",
        "properties",
        "format",
        "pattern",
        "shape",
        "enum",
        "items",
        "required",
        "anyOf",
        "oneOf",
        "allOf",
        "additionalProperties",
        "documentation",
        "members",
        "$schema",
        "definitions",
        "$id",
    ];

    WORDS.iter().any(|w| w.as_bytes() == key)
}

/// Whether `v` stands for a secret without being one: empty, a template or variable
/// reference (`${X}`, `{{ x }}`, `%(x)s`, `<your-key>`), one repeated character
/// (`****`, `xxxxxxxx`), the mask itself, or a word of the table.
pub fn is_placeholder(v: &[u8]) -> bool {
    let Some(&first) = v.first() else { return true };
    if matches!(first, b'$' | b'%' | b'{' | b'<') || v.starts_with(b"#{") {
        return true;
    }
    if v.iter().all(|&b| b == first) || v.len() < 2 {
        return true;
    }
    if contains_ci(v, PLACEHOLDER) || contains_ci(v, "REDACTED") {
        return true;
    }
    if v.windows(3).any(|w| w == b"...") {
        return true;
    }
    for w in [
        "replace",
        "changeme",
        "change_me",
        "change-me",
        "example",
        "dummy",
        "placeholder",
    ] {
        if contains_ci(v, w) {
            return true;
        }
    }
    let p = policy();
    p.placeholders
        .iter()
        .any(|w| v.eq_ignore_ascii_case(w.as_bytes()))
        || (contains_ci(v, "your")
            && (contains_ci(v, "key")
                || contains_ci(v, "token")
                || contains_ci(v, "pass")
                || contains_ci(v, "secret")))
}

/// Whether an unquoted value is code rather than data: a call or index
/// (`get_password(u)`, `os.environ["X"]`), a type (`String`, `Optional[str]`,
/// `&str`, `Option<String>`), or a variable or attribute path without digits
/// (`user.password`, `self::TOKEN`, `secretValue`).
pub fn is_code(v: &[u8]) -> bool {
    is_code_in(v, false)
}

/// `is_code`; `tight`: written `KEY=value` with no blank (`.env`, shell), where one
/// mixed-case word is a value, not a variable.
pub fn is_code_in(v: &[u8], tight: bool) -> bool {
    // `&str`, `*const u8`: a reference or pointer type.
    if matches!(v.first(), Some(b'&' | b'*')) && v.get(1).is_some_and(|b| b.is_ascii_alphabetic()) {
        return true;
    }
    // `get_password(u)`, `os.environ["X"]`, `Optional[str]`, `Option<String>`: a call,
    // an index or a generic type after a name.
    if let Some(open) = v.iter().position(|b| matches!(b, b'(' | b'[' | b'<')) {
        let name = &v[..open];
        if name.is_empty()
            || name
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'$'))
        {
            return true;
        }
    }
    // `e.target.value}(w)`: minified code, an attribute path closed by a bracket.
    if let Some(stop) = v
        .iter()
        .position(|b| matches!(b, b'}' | b')' | b']' | b','))
        && attribute_path(&v[..stop])
    {
        return true;
    }
    // `str = ""`, `String = String::new()`: an annotation, then the assignment;
    // `passwd + '@'`, `x or ''`: an expression (each operator between blanks).
    let blank = memchr::memchr(b' ', v).is_some();
    for op in [
        &b" = "[..],
        b" + ",
        b" or ",
        b" and ",
        b" if ",
        b" || ",
        b" && ",
        b" ?? ",
    ] {
        if blank && memchr::memmem::find(v, op).is_some() {
            return true;
        }
    }
    // `load()?`, `string?`: Rust's and TypeScript's trailing `?`.
    if v.ends_with(b"?")
        && v.len() > 1
        && v[..v.len() - 1]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b')'))
    {
        return true;
    }
    let core: &[u8] = {
        let mut c = v;
        while let [rest @ .., b',' | b';' | b'|'] = c {
            c = rest;
        }
        c
    };
    let p = policy();
    // `password: String!`: GraphQL's non-null type.
    let typ = core.strip_suffix(b"!").unwrap_or(core);
    if p.types
        .iter()
        .any(|t| typ.eq_ignore_ascii_case(t.as_bytes()))
    {
        return true;
    }
    let ident = |b: &u8| b.is_ascii_alphabetic() || *b == b'_' || *b == b'.' || *b == b':';
    if !core.is_empty()
        && core.iter().all(ident)
        && core.first().is_some_and(u8::is_ascii_alphabetic)
    {
        // A path or a multi-word identifier is a name; one plain word may be a password.
        let path = core.contains(&b'.') || core.contains(&b':') || core.contains(&b'_');
        // `userPassword`, `secretValue`: lower-case start, a few capitals.
        let uppers = core.iter().filter(|b| b.is_ascii_uppercase()).count();
        let camel =
            !tight && core[0].is_ascii_lowercase() && uppers > 0 && uppers * 4 <= core.len();
        // In code (not `KEY=value`), a bare word is a variable: `password = user`.
        return path || camel || !tight;
    }
    false
}

/// Whether `v` looks like a machine-made secret: at least 10 characters, with both
/// letters and digits (or all hex and 16+ long), and not one word.
pub fn looks_random(v: &[u8]) -> bool {
    if v.len() < 10 {
        return false;
    }
    let (mut lower, mut upper, mut digit, mut other) = (0usize, 0usize, 0usize, 0usize);
    // Switches between letters and digits: `sidekiq-secret:23` has one, a machine-made
    // `biff7qxggbrg5ic7q5up` several.
    let mut switches = 0usize;
    let mut last: Option<bool> = None;
    for &b in v {
        match b {
            b'a'..=b'z' => lower += 1,
            b'A'..=b'Z' => upper += 1,
            b'0'..=b'9' => digit += 1,
            b' ' => return false,
            _ => other += 1,
        }
        if b.is_ascii_alphanumeric() {
            let is_digit = b.is_ascii_digit();
            if last.is_some_and(|l| l != is_digit) {
                switches += 1;
            }
            last = Some(is_digit);
        }
    }
    let letters = lower + upper;
    // An id or key of 12+ digits (client ids, account numbers paired with a key name).
    (letters == 0 && other == 0 && digit >= 12)
        || (letters > 0 && digit > 0 && switches >= 2)
        // Letters only: random case (`Proxy-Authorization` has two capitals in 19).
        || (lower * 5 >= v.len() && upper * 5 >= v.len() && v.len() >= 16 && other <= v.len() / 3)
}

/// Whether `v`, found after a key of `strength`, is a secret (`quoted`: written in quotes).
pub fn is_secret_value(v: &[u8], quoted: bool, strength: Strength) -> bool {
    is_secret_value_in(v, quoted, false, strength)
}

/// `is_secret_value`; `tight` as for `is_code_in`.
pub fn is_secret_value_in(v: &[u8], quoted: bool, tight: bool, strength: Strength) -> bool {
    if is_placeholder(v) {
        return false;
    }
    if !quoted && is_code_in(v, tight) {
        return false;
    }
    // A number short enough to be a count, a port or a flag.
    if v.len() < 6 && v.iter().all(u8::is_ascii_digit) {
        return false;
    }
    // A directory (`pwd: /home/u/src`, `PW_DIR=~/x`) is no password, whatever the key.
    if is_color(v) || is_system_path(v) || is_home_path(v) {
        return false;
    }
    match strength {
        Strength::Strong => {
            if quoted {
                return true;
            }
            // One plain word unquoted (`token: refresh`, `password = hunter`) is taken
            // for a secret only when it holds a digit or a capital.
            v.len() >= 4 || v.iter().any(|b| b.is_ascii_digit())
        }
        Strength::Weak => looks_random(v) && !is_uuid_like_identifier(v) && !is_plain_url(v),
    }
}

/// A web address with no userinfo (`.. _pypi: https://pypi.org/search/?c=A+%3A`):
/// a link, not a key; a password in it (`https://u:p@host`) and a `key=` in its
/// query are found by their own detectors.
fn is_plain_url(v: &[u8]) -> bool {
    let rest = v
        .strip_prefix(b"https://")
        .or_else(|| v.strip_prefix(b"http://"));
    rest.is_some_and(|r| {
        let host = r.split(|&c| c == b'/').next().unwrap_or(r);
        !host.contains(&b'@')
    })
}

/// `e.target.value`, `this.state.token`: names without digits joined by dots.
fn attribute_path(v: &[u8]) -> bool {
    v.contains(&b'.')
        && v.split(|&b| b == b'.').all(|part| {
            part.first()
                .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$'))
                && part
                    .iter()
                    .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$'))
        })
}

/// A CSS colour (`--token-bg: #0f172a;`): `#` and 3, 4, 6 or 8 hex digits.
fn is_color(v: &[u8]) -> bool {
    let v = v.strip_suffix(b";").unwrap_or(v);
    v.first() == Some(&b'#')
        && matches!(v.len(), 4 | 5 | 7 | 9)
        && v[1..].iter().all(u8::is_ascii_hexdigit)
}

/// A path under a system directory (`SSH_AUTH_SOCK=/tmp/ssh-k3Jd9Q/agent.1234`):
/// segments of name characters, no base64 sign (`+`, `=`).
fn is_system_path(v: &[u8]) -> bool {
    const ROOTS: [&[u8]; 9] = [
        b"/tmp/",
        b"/run/",
        b"/var/",
        b"/home/",
        b"/Users/",
        b"/usr/",
        b"/etc/",
        b"/opt/",
        b"/private/",
    ];
    ROOTS.iter().any(|r| v.starts_with(r))
        && v.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'.' | b'_' | b'-'))
}

/// A path under the home directory (`~/.ssh/id_ed25519`, `~/secrets/db.txt`): no
/// name below `~/` is a random token (`password: ~/Xq8f3Lk9Zp2Rv7Wm` is a secret that
/// starts with `~/`). A name is judged without its leading `.` and its extension.
fn is_home_path(v: &[u8]) -> bool {
    let Some(rest) = v.strip_prefix(b"~/") else {
        return false;
    };
    rest.split(|&c| c == b'/').all(|name| {
        let name = name.strip_prefix(b".").unwrap_or(name);
        let stem = match memchr::memrchr(b'.', name) {
            Some(d) if name.len() - d <= 6 => &name[..d],
            _ => name,
        };
        !looks_random(stem)
    })
}

fn is_uuid_like_identifier(v: &[u8]) -> bool {
    // `some-package-name-2` and `v1.2.3`: version strings, not keys.
    v.iter().filter(|&&b| b == b'.').count() >= 2
        && v.iter()
            .all(|b| b.is_ascii_digit() || *b == b'.' || *b == b'v')
}

/// Whether `s` holds the mask in any spelling a write could carry back into a file:
/// any ASCII case, JSON `\uXXXX` escapes for any of its characters, or HTML/URL escapes
/// of its brackets.
pub fn contains_mask_spelling(s: &[u8]) -> bool {
    mask_spellings(s) > 0
}

/// How many times `s` holds the mask, in any of `contains_mask_spelling`'s spellings.
pub fn mask_spellings(s: &[u8]) -> usize {
    static WORD: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    let finder = WORD.get_or_init(|| memchr::memmem::Finder::new(PLACEHOLDER.as_bytes()));
    // Most inputs hold no escape and no bracket: search them as they are.
    let plain = memchr::memchr3(b'\\', b'%', b'&', s).is_none();
    if plain && memchr::memchr(b'[', s).is_none() {
        return 0;
    }
    let folded: Vec<u8> = if plain {
        s.to_ascii_uppercase()
    } else {
        decode_escapes(s)
            .iter()
            .map(u8::to_ascii_uppercase)
            .collect()
    };
    finder.find_iter(&folded).count()
}

/// `s` with `\uXXXX`, `\xXX`, `&#NN;`, `&#xNN;` and `%XX` escapes of ASCII decoded.
fn decode_escapes(s: &[u8]) -> Vec<u8> {
    let hex = |d: &[u8]| -> Option<u8> {
        let t = std::str::from_utf8(d).ok()?;
        u32::from_str_radix(t, 16)
            .ok()
            .filter(|v| *v < 0x80)
            .map(|v| v as u8)
    };
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let decoded = match rest {
            [b'\\', b'u' | b'U', ..] if rest.len() >= 6 => hex(&rest[2..6]).map(|c| (c, 6)),
            [b'\\', b'x', ..] if rest.len() >= 4 => hex(&rest[2..4]).map(|c| (c, 4)),
            [b'%', ..] if rest.len() >= 3 => hex(&rest[1..3]).map(|c| (c, 3)),
            [b'&', b'#', b'x' | b'X', ..] => rest
                .iter()
                .position(|&b| b == b';')
                .and_then(|e| hex(&rest[3..e]).map(|c| (c, e + 1))),
            [b'&', b'#', ..] => rest.iter().position(|&b| b == b';').and_then(|e| {
                std::str::from_utf8(&rest[2..e])
                    .ok()
                    .and_then(|t| t.parse::<u32>().ok())
                    .filter(|v| *v < 0x80)
                    .map(|v| (v as u8, e + 1))
            }),
            _ => None,
        };
        match decoded {
            Some((c, n)) => {
                out.push(c);
                i += n;
            }
            None => {
                out.push(s[i]);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    /// data/redaction.txt read here, apart from the build script: the compiled
    /// `POLICY` holds every entry of every section, in the file's order, each key
    /// word under its first character.
    #[test]
    fn the_compiled_policy_is_the_data() {
        let text = include_str!("../../../data/redaction.txt");
        let mut sections: Vec<(&str, Vec<&str>)> = Vec::new();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                Some(name) => sections.push((name, Vec::new())),
                None => sections
                    .last_mut()
                    .expect("an entry before any section")
                    .1
                    .push(line),
            }
        }
        let section = |name: &str| -> Vec<&str> {
            sections
                .iter()
                .filter(|(n, _)| *n == name)
                .flat_map(|(_, v)| v.iter().copied())
                .collect()
        };
        let p = super::policy();
        let flat = |lists: &[&[&str]]| -> Vec<String> {
            let mut all: Vec<String> = lists
                .iter()
                .flat_map(|l| l.iter())
                .map(|w| w.to_string())
                .collect();
            all.sort();
            all
        };
        for (i, list) in p
            .strong_by_letter
            .iter()
            .chain(p.weak_by_letter)
            .enumerate()
        {
            let c = b"abcdefghijklmnopqrstuvwxyz0123456789"[i % 36];
            assert!(
                list.iter()
                    .all(|w| w.as_bytes()[0].to_ascii_lowercase() == c),
                "{list:?}"
            );
        }
        let mut strong = section("strong-key-words");
        strong.sort();
        assert_eq!(flat(p.strong_by_letter), strong);
        let mut weak = section("weak-key-words");
        weak.extend(section("provider-words"));
        weak.sort();
        assert_eq!(flat(p.weak_by_letter), weak);
        assert_eq!(p.placeholders, section("placeholder-values"));
        assert_eq!(p.types, section("type-words"));
        assert_eq!(p.pem_labels, section("pem-labels"));
        let names: Vec<&str> = sections.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "strong-key-words",
                "weak-key-words",
                "provider-words",
                "placeholder-values",
                "type-words",
                "pem-labels"
            ]
        );
    }
}

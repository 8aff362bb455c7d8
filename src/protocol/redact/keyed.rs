//! Key-named values: a value after a key that names a secret, in the syntaxes code and
//! configuration write it (`.env`, `export`, YAML with block scalars, TOML, INI, JSON,
//! XML attributes and elements, assignments and struct literals of Python, JS, Go,
//! Rust, Java), HTTP `Authorization` headers, connection-string members
//! (`AccountKey=...;`), `curl -u user:password`, and URL userinfo passwords.
//! The value is judged by `policy` (code, placeholder, random enough).

use super::below::{self, Open};
use super::{flags, policy};
use std::ops::Range;
use std::sync::OnceLock;

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'$' | b'@')
}

/// Spans of `b[lo..hi]` (one line) that are key-named values, appended to `out`.
/// Returns what the line opens under a secret key (`Open`): a YAML block scalar or
/// sequence, a list closed on a later line. `scoped`: the line is inside a secret
/// key's YAML sequence, where every `key: value` is read as after a weak key name
/// (a random-looking value is masked).
pub(super) fn line(
    b: &[u8],
    lo: usize,
    hi: usize,
    scoped: bool,
    out: &mut Vec<Range<usize>>,
) -> Option<Open> {
    let mut scan = LineScan {
        b,
        lo,
        hi,
        scoped,
        out,
        block: None,
        i: lo,
        scope_end: lo,
    };
    while scan.i < hi {
        let Some(rel) = memchr::memchr3(b'=', b':', b'>', &b[scan.i..hi]) else {
            break;
        };
        let p = scan.i + rel;
        scan.i = p + 1;
        scan.at_sign(p);
    }
    let block = scan.block;
    flags::user_flags(b, lo, hi, out);
    flags::secret_flags(b, lo, hi, out);
    url_passwords(b, lo, hi, out);
    netrc(b, lo, hi, out);
    block
}

/// `line`'s walk over one line's signs (`=`, `:`, `>`).
struct LineScan<'a, 'o> {
    b: &'a [u8],
    lo: usize,
    hi: usize,
    scoped: bool,
    out: &'o mut Vec<Range<usize>>,
    /// What the line opens under a secret key so far.
    block: Option<Open>,
    /// Where the search for the next sign resumes.
    i: usize,
    /// Inside an object or list a strongly secret-named key opened on this line
    /// (`{"credentials": {"primary": {"value": "..."}}}`): read as `scoped`.
    scope_end: usize,
}

/// The key before a sign: `b[k..ke]` (a closing quote after it when `quoted`),
/// its name (an XML element's `key`/`name` attribute for `value=`), and the byte
/// before it when it is not quoted.
struct Key<'a> {
    k: usize,
    ke: usize,
    quoted: bool,
    name: &'a [u8],
    opener: Option<u8>,
}

impl<'a> LineScan<'a, '_> {
    /// One sign at `p`: the value after the key before it, when the key names a secret.
    fn at_sign(&mut self, p: usize) {
        let Some(after) = self.value_start(p) else {
            return;
        };
        let Some(key) = self.key_before(p) else {
            return;
        };
        let (b, lo, hi, sign) = (self.b, self.lo, self.hi, self.b[p]);
        if [&b"authorization"[..], b"proxy-authorization"]
            .iter()
            .any(|a| key.name.eq_ignore_ascii_case(a))
        {
            self.out.extend(authorization(b, after, hi));
            return;
        }
        let in_scope = (self.scoped || p < self.scope_end) && sign == b':';
        if in_scope && key.quoted && policy::schema_word(key.name) {
            self.scope_end = lo;
            self.block = self.scoped.then_some(Open::Plain).or(self.block);
            return;
        }
        let own = policy::key_strength(key.name);
        let named = own.or_else(|| in_scope.then_some(policy::Strength::Weak));
        let plural = named
            .is_none()
            .then(|| policy::plural_key_strength(key.name))
            .flatten();
        if named.is_none() && plural.is_none() {
            return;
        }
        // The value.
        let mut v = after;
        while v < hi && matches!(b[v], b' ' | b'\t') {
            v += 1;
        }
        let col = (key.k - lo).saturating_sub(usize::from(key.quoted));
        if v >= hi || b[v..hi].trim_ascii_end() == b"\\" {
            let continued = v < hi;
            let head = &b[lo..key.k];
            self.block =
                below::value_below(head, col, (sign, key.quoted, continued), named, plural)
                    .or(self.block);
            return;
        }
        let q = b[v];
        if matches!(q, b'{' | b'[')
            && sign == b':'
            && named.or(plural) == Some(policy::Strength::Strong)
        {
            self.block = scope(b, (lo, key.k, v, hi), col, &mut self.scope_end).or(self.block);
        }
        if q == b'{' {
            return;
        }
        // `api_keys: ["...", "..."]`, `tokens = [a, b]`: a list on the key's line.
        if q == b'[' {
            match list_elements(b, v + 1, hi, self.out) {
                ListEnd::Closed(e) | ListEnd::Stop(e) => self.i = e.max(self.i),
                ListEnd::Open => self.block = Some(Open::Array),
            }
            return;
        }
        let Some(strength) = named else {
            return;
        };
        if matches!(q, b'"' | b'\'' | b'`') {
            if key.opener != Some(q) {
                self.quoted_value(v, q, own.is_some(), strength);
            }
            return;
        }
        if matches!(q, b'|' | b'>') && sign == b':' {
            let rest = &b[v + 1..hi];
            if rest
                .iter()
                .all(|c| matches!(c, b'-' | b'+' | b'0'..=b'9' | b' ' | b'\t' | b'\r'))
            {
                self.block = Some(Open::Block(
                    b[lo..hi]
                        .iter()
                        .take_while(|c| matches!(c, b' ' | b'\t'))
                        .count(),
                ));
                return;
            }
        }
        self.bare_value(p, after, v, &key, strength);
    }

    /// Where a value after the sign at `p` starts, or `None` for a sign that
    /// is not an assignment (`==`, `::`, `://`, an XML element's `>`).
    fn value_start(&mut self, p: usize) -> Option<usize> {
        let (b, lo, hi) = (self.b, self.lo, self.hi);
        let next = b.get(p + 1).copied().filter(|_| p + 1 < hi);
        let prev = if p > lo { Some(b[p - 1]) } else { None };
        match b[p] {
            b'=' => {
                if matches!(next, Some(b'=' | b'~')) || prev.is_some_and(operator) {
                    if next == Some(b'=') {
                        self.i = p + 2;
                    }
                    return None;
                }
                Some(if next == Some(b'>') { p + 2 } else { p + 1 })
            }
            b':' => {
                if next == Some(b':') || prev == Some(b':') {
                    self.i = p + 2;
                    return None;
                }
                // `scheme://`: a URL, handled by `url_password`.
                match next {
                    Some(b'/') => None,
                    Some(b'=') => Some(p + 2),
                    _ => Some(p + 1),
                }
            }
            _ => {
                // `<password>value</password>`: an XML element.
                if let Some(r) = xml_element(b, lo, p, hi) {
                    self.out.push(r);
                }
                None
            }
        }
    }

    /// The key before the sign at `p`: back over blanks and a closing quote,
    /// then the identifier.
    fn key_before(&self, p: usize) -> Option<Key<'a>> {
        let (b, lo) = (self.b, self.lo);
        let mut k = p;
        while k > lo && matches!(b[k - 1], b' ' | b'\t') {
            k -= 1;
        }
        let quoted = k > lo && matches!(b[k - 1], b'"' | b'\'' | b'`');
        if quoted {
            k -= 1;
        }
        let ke = k;
        while k > lo && is_key_byte(b[k - 1]) {
            k -= 1;
        }
        if k == ke {
            return None;
        }
        let mut name = &b[k..ke];
        // `<add key="ClearTextPassword" value="..." />`: the value's name is the
        // `key`/`name` attribute before it.
        if name.eq_ignore_ascii_case(b"value")
            && let Some(named) = attribute_name(&b[lo..k])
        {
            name = named;
        }
        // `read -p "Password: " PASSWORD`: the key and sign are inside a string (a
        // prompt, a message); the quote after them closes it.
        let opener = if k > lo && !quoted {
            Some(b[k - 1])
        } else {
            None
        };
        Some(Key {
            k,
            ke,
            quoted,
            name,
            opener,
        })
    }

    /// A value in quotes from `v`; `own`: its key names a secret itself (not only
    /// by the scope it is in).
    fn quoted_value(&mut self, v: usize, q: u8, own: bool, strength: policy::Strength) {
        let (b, hi) = (self.b, self.hi);
        let start = v + 1;
        let mut e = start;
        while e < hi && b[e] != q {
            if b[e] == b'\\' {
                e += 1;
            }
            e += 1;
        }
        let e = e.min(hi);
        let value = &b[start..e];
        // `"password": "` then `+ x`: a string built at run time.
        let secret = if own {
            policy::is_secret_value(value, true, strength)
        } else {
            policy::is_secret_element(value, true)
        };
        if secret && !value.contains(&b'\n') {
            self.out.push(start..e);
        }
        self.i = (e + 1).max(self.i);
    }

    /// A value without quotes from `v`, after the sign at `p` (the value may start
    /// at `after`, right past it).
    fn bare_value(
        &mut self,
        p: usize,
        after: usize,
        v: usize,
        key: &Key,
        strength: policy::Strength,
    ) {
        let (b, hi, sign) = (self.b, self.hi, self.b[p]);
        let start = v;
        let e = bare_end(b, (self.lo, key.k, v, hi), sign);
        // Keep a trailing `(` call or `[` index in view for `is_code`.
        let value = &b[start..e];
        let follows = b.get(e).copied().filter(|_| e < hi);
        let called = matches!(follows, Some(b'(' | b'[' | b'<'))
            || value
                .windows(2)
                .any(|w| w == b"()" || w == b"(\"" || w == b"('");
        // `process.env.API_KEY`, `settings.secret`, `mytoken`: a name holding the key
        // word, not a value (a random value may hold the letters too: it has capitals
        // or digits and no `.`/`_`).
        let names_itself = names_itself(value);
        if !called && !names_itself && !value.is_empty() {
            let (s, e2) = scheme_token(b, start, e, hi);
            let tight = sign == b'=' && after == p + 1 && key.ke == p && start == after;
            if policy::is_secret_value_in(&b[s..e2], false, tight, strength) {
                self.out.push(s..e2);
                self.i = e2.max(self.i);
            }
        }
    }
}

/// Where a value without quotes starting at `v` ends (`lo`: the line's start, `k`:
/// its key's). A key first on its line (`.env`, YAML, INI, `export`) has the rest
/// of the line (less a ` #` comment); a connection-string member (`;Password=...;`)
/// runs to the next `;`; elsewhere the value is one word.
fn bare_end(b: &[u8], (lo, k, v, hi): (usize, usize, usize, usize), sign: u8) -> usize {
    let head = &b[lo..k];
    let line_start = head.iter().all(|c| matches!(c, b' ' | b'\t' | b'-'))
        || head.trim_ascii_start() == b"export "
        || head.trim_ascii_start() == b"set ";
    let member = k > lo && b[k - 1] == b';';
    let mut e = v;
    if line_start {
        e = hi;
        if let Some(c) = memchr::memmem::find(&b[v..hi], b" #") {
            e = v + c;
        }
        while e > v && b[e - 1].is_ascii_whitespace() {
            e -= 1;
        }
    } else if member || (sign == b'=' && b[v..hi].contains(&b';') && !b[v..hi].contains(&b' ')) {
        while e < hi && b[e] != b';' {
            e += 1;
        }
    } else {
        while e < hi
            && !b[e].is_ascii_whitespace()
            && !matches!(
                b[e],
                b',' | b';' | b')' | b']' | b'}' | b'"' | b'\'' | b'`' | b'<' | b'>'
            )
            && !(b[e] == b'&' && query_next(&b[e + 1..hi]))
        {
            e += 1;
        }
    }
    e
}

/// A byte before `=` that makes it an operator (`==`, `!=`, `+=`, `<=`...).
fn operator(c: u8) -> bool {
    b"=!<>+-*/%&|^".contains(&c)
}

/// `process.env.API_KEY`, `settings.secret`, `mytoken`: a name holding a key word.
fn names_itself(value: &[u8]) -> bool {
    (value.contains(&b'.') || value.contains(&b'_') || value.iter().all(u8::is_ascii_lowercase))
        && ["pass", "secret", "token", "key", "cred"].iter().any(|w| {
            value.len() >= w.len()
                && value
                    .windows(w.len())
                    .any(|x| x.eq_ignore_ascii_case(w.as_bytes()))
        })
}

/// `"credentials": {` (or `[`) at `v`, after a key strongly naming a secret at
/// `k` (column `col`) on the line `lo..hi`: every key nested in it is read as
/// naming a secret, to its closing bracket (`scope_end`) or, open at the line's
/// end, over the lines indented deeper (as YAML's `credentials:`; the `Open` then).
fn scope(
    b: &[u8],
    (lo, k, v, hi): (usize, usize, usize, usize),
    col: usize,
    scope_end: &mut usize,
) -> Option<Open> {
    if let Some(c) = closing(b, v, hi) {
        *scope_end = (*scope_end).max(c);
        return None;
    }
    *scope_end = hi;
    let head = &b[lo..k];
    (b[v] == b'{' && head.iter().all(|c| matches!(c, b' ' | b'\t' | b'"')))
        .then_some(Open::Seq(col, true))
}

/// Where the bracket at `b[at]` (`{` or `[`) closes within `b[..hi]` (brackets
/// inside `"..."` strings skipped); `None` when not on this line.
fn closing(b: &[u8], at: usize, hi: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quoted = false;
    let mut i = at;
    while i < hi {
        match (quoted, b[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') | (false, b'"') => quoted = !quoted,
            (false, b'{' | b'[') => depth += 1,
            (false, b'}' | b']') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether `rest`, after a `&` in a value, is the next member of a query string
/// (`user=bob`, `amp;user=bob`) or a shell's `&&`/`&`: the `&` ends the value. A
/// `&` inside a password (`Tr0ub4dor&3xyz`) does not.
fn query_next(rest: &[u8]) -> bool {
    let rest = rest.strip_prefix(b"amp;").unwrap_or(rest);
    let name = rest
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'[' | b']'))
        .count();
    (name > 0 && rest.get(name) == Some(&b'='))
        || rest
            .first()
            .is_none_or(|c| c.is_ascii_whitespace() || *c == b'&')
}

/// A `.netrc` line (`machine h login u password p`, or one `password p` line of
/// an entry): every word pair's name is a netrc keyword; the values after
/// `password` and `account` are masked. Prose (`password is required`) has other
/// words where a keyword must be.
fn netrc(b: &[u8], lo: usize, hi: usize, out: &mut Vec<Range<usize>>) {
    const KEYS: [&[u8]; 6] = [
        b"machine",
        b"login",
        b"password",
        b"account",
        b"port",
        b"default",
    ];
    // A diff's added or removed line: its marker first.
    let lo = lo + usize::from(lo < hi && matches!(b[lo], b'+' | b'-'));
    let line = &b[lo..hi];
    let first = line.trim_ascii_start();
    if !KEYS.iter().any(|k| first.starts_with(k)) || memchr::memchr(b'p', line).is_none() {
        return;
    }
    let mut words = Vec::new();
    let mut i = lo;
    while i < hi {
        while i < hi && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let s = i;
        while i < hi && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        if s < i {
            words.push(s..i);
        }
    }
    let mut found = Vec::new();
    let mut w = 0;
    while w < words.len() {
        let key = &b[words[w].clone()];
        if !KEYS.contains(&key) {
            return;
        }
        if key == b"default" {
            w += 1;
            continue;
        }
        let Some(value) = words.get(w + 1) else {
            return;
        };
        if matches!(key, b"password" | b"account")
            && policy::is_secret_value(&b[value.clone()], false, policy::Strength::Strong)
        {
            found.push(value.clone());
        }
        w += 2;
    }
    out.extend(found);
}

/// Where the elements of a list on one line stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ListEnd {
    /// At its `]`: the list ends before this.
    Closed(usize),
    /// At the line's end, the list still open (its `]` on a later line).
    Open,
    /// At a nested list or object, or text no list holds: left to the rest of the pass.
    Stop(usize),
}

/// The elements of a flat list from `from` (after its `[`, or a line inside a list
/// opened above) to its `]` or the line's end, after a secret-named key: each
/// judged as a list's element is (`tree::Masker::element`), as after a weak key
/// name (a list of names, `secrets: [db-password]`, stays shown). A nested list or
/// object is left to the rest of the pass.
pub(super) fn list_elements(
    b: &[u8],
    from: usize,
    hi: usize,
    out: &mut Vec<Range<usize>>,
) -> ListEnd {
    let blanks = |mut j: usize| {
        while j < hi && matches!(b[j], b' ' | b'\t') {
            j += 1;
        }
        j
    };
    let mut j = from;
    loop {
        j = blanks(j);
        let Some(&c) = b.get(j).filter(|_| j < hi) else {
            return ListEnd::Open;
        };
        match c {
            b']' => return ListEnd::Closed(j + 1),
            b'[' | b'{' => return ListEnd::Stop(j),
            b'"' | b'\'' => {
                let start = j + 1;
                let mut e = start;
                while e < hi && b[e] != c {
                    if b[e] == b'\\' {
                        e += 1;
                    }
                    e += 1;
                }
                let e = e.min(hi);
                if policy::is_secret_element(&b[start..e], true) {
                    out.push(start..e);
                }
                j = e + 1;
            }
            _ => {
                let start = j;
                while j < hi && !matches!(b[j], b',' | b']') {
                    j += 1;
                }
                let mut e = j;
                while e > start && b[e - 1].is_ascii_whitespace() {
                    e -= 1;
                }
                if policy::is_secret_element(&b[start..e], false) {
                    out.push(start..e);
                }
            }
        }
        j = blanks(j);
        match b.get(j).filter(|_| j < hi) {
            Some(b',') => j += 1,
            Some(b']') => return ListEnd::Closed(j + 1),
            None => return ListEnd::Open,
            _ => return ListEnd::Stop(j.min(hi)),
        }
    }
}

/// The element of a YAML sequence's `- x` line (`from` just after the dash), under a
/// secret-named key: a plain or quoted scalar judged as a list's element is. An
/// item that is a mapping (`- name: x`), a flow collection, an anchor or a block
/// scalar is left to the rest of the pass.
pub(super) fn seq_element(b: &[u8], from: usize, hi: usize) -> Option<Range<usize>> {
    let mut v = from;
    while v < hi && matches!(b[v], b' ' | b'\t') {
        v += 1;
    }
    // `- - x`: an item of a sequence nested in the item.
    while v + 1 < hi && b[v] == b'-' && matches!(b[v + 1], b' ' | b'\t') {
        v += 2;
        while v < hi && matches!(b[v], b' ' | b'\t') {
            v += 1;
        }
    }
    let q = *b.get(v).filter(|_| v < hi)?;
    if matches!(q, b'"' | b'\'') {
        let e = v + below::closing_quote(&b[v..hi], q)?;
        return policy::is_secret_element(&b[v + 1..e], true).then_some(v + 1..e);
    }
    if matches!(q, b'{' | b'[' | b'&' | b'*' | b'!' | b'|' | b'>' | b'#') {
        return None;
    }
    let mut e = memchr::memmem::find(&b[v..hi], b" #").map_or(hi, |c| v + c);
    while e > v && b[e - 1].is_ascii_whitespace() {
        e -= 1;
    }
    let value = &b[v..e];
    if value.ends_with(b":") || memchr::memmem::find(value, b": ").is_some() {
        return None;
    }
    policy::is_secret_element(value, false).then_some(v..e)
}

/// `auth_token: Bearer abc...`: the scheme word is not the secret, the token after it is.
fn scheme_token(b: &[u8], s: usize, e: usize, hi: usize) -> (usize, usize) {
    let word = &b[s..e];
    if ["bearer", "basic", "token"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w.as_bytes()))
    {
        let mut k = e;
        while k < hi && matches!(b[k], b' ' | b'\t') {
            k += 1;
        }
        let t = k;
        while k < hi
            && !b[k].is_ascii_whitespace()
            && !matches!(b[k], b'"' | b'\'' | b'`' | b',' | b';')
        {
            k += 1;
        }
        if k > t {
            return (t, k);
        }
    }
    (s, e)
}

/// The credential of an `Authorization:` header value starting at `v`: after the
/// scheme word (`Basic`, `Bearer`, `Token`, ...) when there is one.
fn authorization(b: &[u8], v: usize, hi: usize) -> Option<Range<usize>> {
    let mut i = v;
    while i < hi && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    // A quoted header value ends at its quote; a bare one (an HTTP message, a curl
    // `-H` argument's rest) at the line's end.
    let quote = b
        .get(i)
        .copied()
        .filter(|q| matches!(q, b'"' | b'\'' | b'`'));
    if quote.is_some() {
        i += 1;
    }
    let end = match quote {
        Some(q) => i + memchr::memchr(q, &b[i..hi]).unwrap_or(hi - i),
        None => {
            let mut e = i + b[i..hi]
                .iter()
                .position(|c| matches!(c, b'"' | b'\'' | b'`'))
                .unwrap_or(hi - i);
            while e > i && b[e - 1].is_ascii_whitespace() {
                e -= 1;
            }
            e
        }
    };
    let w = i;
    while i < end && b[i].is_ascii_alphanumeric() {
        i += 1;
    }
    let mut t = w;
    if i < end && b[i] == b' ' && i - w <= 12 {
        t = i;
        while t < end && b[t] == b' ' {
            t += 1;
        }
    }
    let value = &b[t..end];
    (end > t && value.len() >= 6 && !policy::is_placeholder(value) && !policy::is_code(value))
        .then_some(t..end)
}

/// `<password>value</password>`: the value of an element whose tag names a secret.
fn xml_element(b: &[u8], lo: usize, p: usize, hi: usize) -> Option<Range<usize>> {
    let mut k = p;
    while k > lo && (b[k - 1].is_ascii_alphanumeric() || matches!(b[k - 1], b'_' | b'-' | b':')) {
        k -= 1;
    }
    if k == p || k == lo || b[k - 1] != b'<' {
        return None;
    }
    policy::key_strength(&b[k..p])?;
    let start = p + 1;
    let e = start + memchr::memchr(b'<', &b[start..hi])?;
    let value = &b[start..e];
    (policy::is_secret_value(value, true, policy::key_strength(&b[k..p])?)).then_some(start..e)
}

/// `scheme://user:password@host`: the password (any characters up to the last `@`
/// of the authority), as URLs carry it in configs and connection strings.
fn url_passwords(b: &[u8], lo: usize, hi: usize, out: &mut Vec<Range<usize>>) {
    let mut from = lo;
    static SCHEME: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    let scheme_end = SCHEME.get_or_init(|| memchr::memmem::Finder::new(b"://"));
    while let Some(rel) = scheme_end.find(&b[from..hi]) {
        let at = from + rel;
        from = at + 3;
        let scheme = b[lo..at]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
            .count();
        if scheme == 0 {
            continue;
        }
        let start = at + 3;
        let end = start
            + b[start..hi]
                .iter()
                .take_while(|c| {
                    !c.is_ascii_whitespace() && !matches!(c, b'"' | b'\'' | b'`' | b'<' | b'>')
                })
                .count();
        let auth = &b[start..end];
        let Some(colon) = memchr::memchr(b':', auth) else {
            continue;
        };
        if auth[..colon].contains(&b'/') || auth[..colon].contains(&b'@') {
            continue;
        }
        let Some(last_at) = memchr::memrchr(b'@', auth) else {
            continue;
        };
        if last_at <= colon {
            continue;
        }
        let pass = &auth[colon + 1..last_at];
        // `host:8080/path@x`: a port, not a password.
        let digits = pass.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && pass.get(digits) == Some(&b'/') {
            continue;
        }
        if pass.is_empty() || policy::is_placeholder(pass) {
            continue;
        }
        // A machine-made user (`8275a52c:...`, a token id) is half the credential.
        let user = &auth[..colon];
        let mask_from = if user.len() >= 6
            && user.iter().any(u8::is_ascii_digit)
            && user.iter().all(u8::is_ascii_alphanumeric)
        {
            start
        } else {
            start + colon + 1
        };
        out.push(mask_from..start + last_at);
        from = start + last_at;
    }
}

/// The name in a `key="..."` or `name="..."` attribute of `b` (the text before a
/// `value=` attribute).
fn attribute_name(b: &[u8]) -> Option<&[u8]> {
    for attr in [&b"key="[..], b"name=", b"Key=", b"Name="] {
        if let Some(at) = memchr::memmem::rfind(b, attr) {
            let q = *b.get(at + attr.len())?;
            if !matches!(q, b'"' | b'\'') {
                continue;
            }
            let from = at + attr.len() + 1;
            let len = memchr::memchr(q, &b[from..])?;
            return Some(&b[from..from + len]);
        }
    }
    None
}

//! The line pass: every detector run over one line, and the state a line leaves for
//! the next (inside a private key, a public block, a YAML block scalar, a PuTTY key's
//! private lines). The same machine runs over the lines of one string and across the
//! line items of an array (a file's lines, a diff's lines), so a key split across
//! strings is masked as it is within one.

use super::{below, formats, keyed, pem, prefilter};
use std::ops::Range;

/// A masked region; `counted`: it is a secret of its own (the `redactions` count),
/// not the continuation of one already counted (a key's later lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub range: Range<usize>,
    pub counted: bool,
    /// A value found by its context (a key name): searched again wherever else it
    /// appears in the envelope (`second`). A format is found anywhere by itself.
    pub again: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum State {
    #[default]
    Normal,
    /// After the BEGIN line of a private key, before its END.
    Private,
    /// Inside a certificate, a public key or base64 image data.
    Public,
    /// After a lone key body line: the key's further lines (its short last line).
    Body,
    /// After a key's short last line: only an armor checksum (`=AbCd`) or the END.
    Tail,
    /// A YAML block scalar under a secret key, indented deeper than the key.
    Block { indent: usize, counted: bool },
    /// PuTTY `Private-Lines: N`: this many lines are the private key.
    Putty(usize),
    /// A YAML sequence under a secret key at this column: its `- x` lines.
    Seq(usize),
    /// A list under a secret key whose `]` is on a later line.
    Array,
    /// After a key line ending with its assignment or a `\` (`password = \`): the
    /// next line may be the value, judged as after a key of this strength.
    Next(super::policy::Strength),
}

/// The line machine.
#[derive(Clone, Debug, Default)]
pub struct Lines {
    pub state: State,
    /// Set by a line holding a private key's END with no BEGIN before it in this
    /// machine (a read range starting inside a key): the key lines just before it
    /// are to be masked too (`retro`).
    pub closed_unopened: bool,
    /// The column of a secret-named key whose YAML sequence holds the value a
    /// nested key opened (`State::Block`, `Array`): the sequence the machine returns
    /// to when that value ends, so the outer key still covers the lines after it.
    pub scope: Option<usize>,
    /// The sequence (`State::Seq`) was opened by a key that names a secret
    /// strongly: its items' keys are read as naming one too (`keyed::line`).
    pub carry: bool,
}

/// The key lines (`retro`) at the end of the lines of `s[from..to]` (the lines
/// before a lone END line), as uncounted spans.
fn retro_lines(s: &str, from: usize, to: usize, out: &mut Vec<Span>) {
    let mut end = to.saturating_sub(1);
    while end > from {
        let start = s.as_bytes()[from..end]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(from, |p| from + p + 1);
        match s.get(start..end).and_then(retro) {
            Some(r) => out.push(Span {
                range: start + r.start..start + r.end,
                counted: false,
                again: false,
            }),
            None => break,
        }
        end = start.saturating_sub(1);
    }
}

/// Whether a line (a string) can be one of a key's lines, masked after the fact when
/// the key's END line follows it: the range its key text takes.
pub fn retro(line: &str) -> Option<Range<usize>> {
    let b = line.as_bytes();
    let b = b.strip_suffix(b"\r").unwrap_or(b);
    if b.contains(&b'\n') {
        return None;
    }
    let (x, y) = pem::body_core(b)?;
    (pem::key_tail(&b[x..y]) || pem::key_body(b).is_some()).then_some(x..y)
}

/// A span masked once (not again where its text recurs).
fn plain_span(range: Range<usize>, counted: bool) -> Span {
    Span {
        range,
        counted,
        again: false,
    }
}

impl Lines {
    /// Spans of `s[a..e]` (one line, without its line end), appended to `out`.
    pub fn line(&mut self, s: &[u8], a: usize, e: usize, out: &mut Vec<Span>) {
        let line = &s[a..e];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let e = a + line.len();
        // Each state says where the normal pass takes the line up, if it does.
        let from = match self.state {
            State::Normal => Some(a),
            State::Private => self.in_private_key(line, a, out),
            State::Public => self.in_public_key(line, a),
            State::Body => self.in_key_body(line, a, out),
            State::Tail => self.in_key_tail(line, a, out),
            State::Block { .. } | State::Seq(_) | State::Array | State::Next(_) => {
                (!self.keyed_line(s, a, e, out)).then_some(a)
            }
            State::Putty(n) => {
                out.push(plain_span(a..e, false));
                self.state = if n > 1 {
                    State::Putty(n - 1)
                } else {
                    State::Normal
                };
                None
            }
        };
        if let Some(from) = from {
            self.normal(s, from, e, out);
        }
    }

    /// A line inside a PEM private key: its body masked, its END line ends it.
    fn in_private_key(&mut self, line: &[u8], a: usize, out: &mut Vec<Span>) -> Option<usize> {
        if let Some(end) = pem::end(line) {
            out.push(plain_span(a..a + end, false));
            self.state = State::Normal;
            return Some(a + end);
        }
        if let Some((x, y)) = pem::body_core(line) {
            out.push(plain_span(a + x..a + y, false));
            return None;
        }
        if line.iter().all(|c| c.is_ascii_whitespace()) {
            return None;
        }
        // An unterminated BEGIN: the block ends where its lines stop.
        self.state = State::Normal;
        Some(a)
    }

    /// A line inside a PEM public key or certificate: shown; its END line ends it.
    fn in_public_key(&mut self, line: &[u8], a: usize) -> Option<usize> {
        if pem::end(line).is_some() {
            self.state = State::Normal;
            return None;
        }
        if pem::body_core(line).is_some() {
            return None;
        }
        self.state = State::Normal;
        Some(a)
    }

    /// A line inside a key's body without a BEGIN line (its lines were seen).
    fn in_key_body(&mut self, line: &[u8], a: usize, out: &mut Vec<Span>) -> Option<usize> {
        if let Some(end) = pem::end(line) {
            out.push(plain_span(a..a + end, true));
            self.state = State::Normal;
            return Some(a + end);
        }
        if pem::key_body(line).is_none() {
            // A key's shorter last line (hashes and ids of full length are not).
            if let Some((x, y)) = pem::body_core(line)
                && y - x < pem::BODY_MIN
                && pem::key_tail(&line[x..y])
            {
                out.push(plain_span(a + x..a + y, true));
                self.state = State::Tail;
                return None;
            }
            self.state = State::Normal;
        }
        Some(a)
    }

    /// The line after a key's shorter last line: its END line, or `=` padding.
    fn in_key_tail(&mut self, line: &[u8], a: usize, out: &mut Vec<Span>) -> Option<usize> {
        self.state = State::Normal;
        if let Some(end) = pem::end(line) {
            out.push(plain_span(a..a + end, true));
            return Some(a + end);
        }
        if let Some((x, y)) = pem::body_core(line)
            && line[x] == b'='
            && y - x <= 8
        {
            out.push(plain_span(a + x..a + y, false));
            return None;
        }
        Some(a)
    }

    /// A line inside a value a key opened above (`State::Block`, `Seq`, `Array`):
    /// true when the line is done with, false when the normal pass is to read it
    /// (the value ended, or a mapping inside a sequence's item).
    fn keyed_line(&mut self, s: &[u8], a: usize, e: usize, out: &mut Vec<Span>) -> bool {
        let line = &s[a..e];
        let depth = line
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .count();
        if depth == line.len() && !matches!(self.state, State::Array | State::Next(_)) {
            return true;
        }
        let span = |range: Range<usize>, counted: bool| Span {
            range,
            counted,
            again: true,
        };
        match self.state {
            State::Block { indent, counted } if depth > indent => {
                out.push(span(a + depth..e, !counted));
                self.state = State::Block {
                    indent,
                    counted: true,
                };
                return true;
            }
            State::Seq(indent) => {
                let rest = &line[depth..];
                let item = rest == b"-" || rest.starts_with(b"- ");
                if item && depth >= indent {
                    if let Some(r) = keyed::seq_element(s, a + depth + 1, e) {
                        out.push(span(r, true));
                        return true;
                    }
                    return false;
                }
                if depth > indent {
                    // `token:` then the value on the next line, deeper (a YAML plain
                    // scalar, a JSON string after its key's line).
                    if let Some(r) = below::continued_value(s, a + depth, e) {
                        out.push(span(r, true));
                        return true;
                    }
                    return false;
                }
            }
            State::Next(strength) => {
                // One line only: then back where the key's line was.
                self.state = self.scope.take().map_or(State::Normal, State::Seq);
                if let Some(r) = below::next_line_value(s, a, e, strength) {
                    out.push(span(r, true));
                    return true;
                }
                return false;
            }
            State::Array => {
                let mut ranges = Vec::new();
                let end = keyed::list_elements(s, a, e, &mut ranges);
                out.extend(ranges.into_iter().map(|r| span(r, true)));
                match end {
                    keyed::ListEnd::Open => return true,
                    keyed::ListEnd::Closed(at) => {
                        self.state = self.scope.take().map_or(State::Normal, State::Seq);
                        self.normal(s, at, e, out);
                        return true;
                    }
                    keyed::ListEnd::Stop(_) => {}
                }
            }
            _ => {}
        }
        // A value nested in a secret key's sequence ended: back in that sequence.
        if let Some(outer) = self.scope.take() {
            self.state = State::Seq(outer);
            return self.keyed_line(s, a, e, out);
        }
        self.state = State::Normal;
        false
    }

    /// Carries the state over `line` (one line, no line end) without keeping what it
    /// masks: the state the next line starts in. A line that cannot change the
    /// state from `Normal` (no five dashes, no key body's length, no PuTTY count,
    /// no YAML block opener) is passed over unread, so priming on every line of a
    /// big file costs little more than the scan.
    pub fn advance(&mut self, line: &[u8]) {
        if self.state == State::Normal && !may_open(line) {
            return;
        }
        let mut scratch = Vec::new();
        self.line(line, 0, line.len(), &mut scratch);
    }

    fn normal(&mut self, s: &[u8], a: usize, e: usize, out: &mut Vec<Span>) {
        let line = &s[a..e];
        // BEGIN and END markers both hold five dashes: one search rules both out.
        let dashes = pem::has_dashes(line);
        if let Some((at, marker_end, private)) = dashes.then(|| pem::begin(line)).flatten() {
            self.detect(s, a, a + at, out);
            if private {
                match pem::end(&line[marker_end..]) {
                    Some(end) => {
                        out.push(plain_span(a + at..a + marker_end + end, true));
                        self.detect(s, a + marker_end + end, e, out);
                    }
                    None => {
                        out.push(plain_span(a + at..e, true));
                        self.state = State::Private;
                    }
                }
            } else {
                let closed = pem::end(&line[marker_end..]).is_some();
                if !closed {
                    self.state = State::Public;
                }
                self.detect(s, a + marker_end, e, out);
            }
            return;
        }
        if let Some((at, end, true)) = dashes.then(|| pem::end_marker(line)).flatten() {
            out.push(plain_span(a + at..a + end, true));
            self.closed_unopened = true;
            return self.detect(s, a + end, e, out);
        }
        if line.len() >= pem::BODY_MIN
            && line.len() <= pem::BODY_MAX + 1
            && let Some((x, y)) = pem::key_body(line)
        {
            if pem::image_start(&line[x..])
                || pem::mime_wrapped(&line[x..y])
                || line
                    .get(x..)
                    .is_some_and(|l| pem::image_start(&l[usize::from(l.first() == Some(&b' '))..]))
            {
                self.state = State::Public;
                return;
            }
            out.push(plain_span(a + x..a + y, true));
            self.state = State::Body;
            return;
        }
        if self.putty(s, a, e, out) {
            return;
        }
        self.detect(s, a, e, out);
    }

    /// A PuTTY key file's lines: its private lines (counted on `Private-Lines:`)
    /// and MAC masked; true when the line was one of its lines.
    fn putty(&mut self, s: &[u8], a: usize, e: usize, out: &mut Vec<Span>) -> bool {
        let line = &s[a..e];
        if line.starts_with(b"PuTTY-User-Key-File-") {
            return true;
        }
        if let Some(rest) = line.strip_prefix(b"Private-Lines:") {
            let n: usize = std::str::from_utf8(rest)
                .ok()
                .and_then(|t| t.trim().parse().ok())
                .unwrap_or(0);
            if n > 0 {
                self.state = State::Putty(n.min(4096));
            }
            return true;
        }
        // A PuTTY key file inside one line (a JSON string with `\n` escapes): from
        // its private lines to the end of the line.
        if let Some(at) = private_lines().find(line)
            && at > 0
        {
            self.detect(s, a, a + at, out);
            out.push(plain_span(a + at..e, true));
            return true;
        }
        if let Some(rest) = line.strip_prefix(b"Private-MAC:") {
            let v = rest.iter().take_while(|c| **c == b' ').count();
            if v < rest.len() {
                out.push(plain_span(e - rest.len() + v..e, true));
            }
            return true;
        }
        false
    }

    /// Token formats and key-named values in `s[a..e]`.
    fn detect(&mut self, s: &[u8], a: usize, e: usize, out: &mut Vec<Span>) {
        let start = out.len();
        tokens(s, a, e, out);
        let mut ranges = Vec::new();
        // Inside a secret key's sequence every key nested under it is read as
        // naming a secret (`credentials:` then `- name: x` then `values:`).
        let outer = match self.state {
            State::Seq(o) => Some(o),
            _ => None,
        };
        match keyed::line(s, a, e, outer.is_some() && self.carry, &mut ranges) {
            Some(below::Open::Block(indent)) => {
                self.scope = outer;
                self.state = State::Block {
                    indent,
                    counted: false,
                }
            }
            // A sequence nested in the outer one: the outer key's column still rules.
            Some(below::Open::Seq(indent, strong)) if outer.is_none_or(|o| indent < o) => {
                self.state = State::Seq(indent);
                self.carry = strong;
            }
            Some(below::Open::Array) => {
                self.scope = outer;
                self.state = State::Array;
            }
            Some(below::Open::Next(strength)) => {
                self.scope = outer;
                self.state = State::Next(strength);
            }
            Some(below::Open::Plain) => {
                self.state = State::Normal;
                self.scope = None;
                self.carry = false;
            }
            Some(below::Open::Seq(..)) | None => {}
        }
        out.extend(ranges.into_iter().map(|range| Span {
            range,
            counted: true,
            again: true,
        }));
        if out.len() - start > 1 {
            let mine = &mut out[start..];
            mine.sort_by(|x, y| {
                x.range
                    .start
                    .cmp(&y.range.start)
                    .then(y.range.end.cmp(&x.range.end))
            });
            let mut kept: Vec<Span> = Vec::with_capacity(mine.len());
            for sp in mine.iter() {
                match kept.last_mut() {
                    Some(last) if sp.range.start < last.range.end => {
                        last.range.end = last.range.end.max(sp.range.end);
                        last.again |= sp.again;
                    }
                    _ => kept.push(sp.clone()),
                }
            }
            out.truncate(start);
            out.extend(kept);
        }
    }
}

/// Whether a line seen in the `Normal` state may leave another state: a BEGIN/END
/// marker, a key body line, PuTTY's `Private-Lines:`, a YAML block scalar opener
/// (`key: |`, `key: >-`), or a line that may open a list (`key:`, `key = [`).
fn may_open(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let t = line.trim_ascii_end();
    let Some(&last) = t.last() else {
        return false;
    };
    // `tokens:`, `"api_keys": [`: a list under a key may follow (`keyed::line` says).
    // `token =`, `password = \`: the value may be on the next line.
    if matches!(last, b':' | b'[' | b'=' | b'\\') {
        return true;
    }
    // `"credentials": {`: a JSON object under a key, over the next lines.
    if last == b'{' && memchr::memchr(b':', t).is_some() {
        return true;
    }
    if matches!(last, b'|' | b'>' | b'-' | b'+' | b'0'..=b'9') {
        let mut t = t;
        while let [rest @ .., b'-' | b'+' | b'0'..=b'9'] = t {
            t = rest;
        }
        if matches!(t.last(), Some(b'|' | b'>')) && memchr::memchr(b':', t).is_some() {
            return true;
        }
    }
    (line.len() >= pem::BODY_MIN
        && line.len() <= pem::BODY_MAX + 1
        && pem::key_body(line).is_some())
        || line.starts_with(b"Private-Lines:")
        || (memchr::memchr(b'-', line).is_some() && pem::has_dashes(line))
}

/// The search for `Private-Lines:`, built once (not per line).
fn private_lines() -> &'static memchr::memmem::Finder<'static> {
    static F: std::sync::OnceLock<memchr::memmem::Finder<'static>> = std::sync::OnceLock::new();
    F.get_or_init(|| memchr::memmem::Finder::new(b"Private-Lines:"))
}

/// Provider tokens, JWTs, Bearer/Basic credentials and the other structured tokens at
/// the word starts of `s[a..e]`.
fn tokens(s: &[u8], a: usize, e: usize, out: &mut Vec<Span>) {
    let before = out.len();
    format_tokens(s, a, e, out);
    // The end of a long text may be a line cut at its length limit: a machine-made
    // word cut there is the start of a token whatever its format.
    if e == s.len() && s.len() >= formats::CUT_MIN {
        let run = s[a..e]
            .iter()
            .rev()
            .take_while(|&&c| c.is_ascii_alphanumeric() || b"_.~+/=%-".contains(&c))
            .count();
        let from = e - run;
        let covered = out[before..].iter().any(|sp| sp.range.end == e);
        let word = &s[from..e];
        let mixed = word.len() >= 10
            && word.iter().any(u8::is_ascii_digit)
            && word.iter().any(u8::is_ascii_alphabetic);
        if !covered && (mixed || super::policy::looks_random(word)) {
            out.push(Span {
                range: from..e,
                counted: true,
                again: false,
            });
        }
    }
}

/// Word bytes (`formats::is_word`) as a table: the loop below visits every byte.
static WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_';
        c += 1;
    }
    t
};

fn format_tokens(s: &[u8], a: usize, e: usize, out: &mut Vec<Span>) {
    let t = formats::table();
    let b = &s[..e];
    let mut i = a;
    loop {
        while i < e && !WORD[usize::from(b[i])] {
            i += 1;
        }
        if i + 1 >= e {
            break;
        }
        let c = b[i];
        let found = if t.may_start(c, b[i + 1]) {
            t.at(b, i)
        } else {
            None
        }
        .or_else(|| match c {
            b'e' => formats::jwt(b, i),
            b'0'..=b'9' => formats::telegram(b, i).or_else(|| formats::app_token(b, i)),
            b'B' => bearer(b, i, e),
            _ => None,
        })
        .or_else(|| formats::azure_secret(b, i))
        .or_else(|| formats::suffixed(b, i));
        match found {
            Some(r) => {
                i = r.end.max(i + 1);
                // A token re-cased elsewhere (`${1:lower}`) no longer has its format.
                out.push(Span {
                    range: r,
                    counted: true,
                    again: true,
                });
                // Past the rest of a word the token ended inside.
                while i < e && i > 0 && WORD[usize::from(b[i - 1])] && WORD[usize::from(b[i])] {
                    i += 1;
                }
            }
            None => {
                // On to the next word start.
                i += 1;
                while i < e && WORD[usize::from(b[i])] {
                    i += 1;
                }
            }
        }
    }
}

/// `Bearer <token>` / `Basic <base64>` (case-sensitive scheme words as sent in headers).
fn bearer(b: &[u8], i: usize, e: usize) -> Option<Range<usize>> {
    let rest = &b[i..e];
    let word = if rest.starts_with(b"Bearer ") {
        7
    } else if rest.starts_with(b"Basic ") {
        6
    } else {
        return None;
    };
    let mut t = i + word;
    while t < e && b[t] == b' ' {
        t += 1;
    }
    let mut k = t;
    while k < e && (b[k].is_ascii_alphanumeric() || b"-._~+/".contains(&b[k])) {
        k += 1;
    }
    while k < e && b[k] == b'=' {
        k += 1;
    }
    let tok = &b[t..k];
    (tok.len() >= prefilter::RUN as usize && scheme_credential(tok, word == 7)).then_some(t..k)
}

/// Whether `tok`, after `Bearer ` (`bearer`) or `Basic `, is the credential: one with
/// a digit or a capital; after `Bearer ` also a lower-case token of 16+ characters or
/// dotted segments (`abc.def.ghi`, a JWT's shape), never an English word of prose
/// (`Bearer authentication`).
fn scheme_credential(tok: &[u8], bearer: bool) -> bool {
    if super::policy::is_placeholder(tok) {
        return false;
    }
    // `Basic Configuration`, `Bearer Authentication`: a heading's capitalised word.
    if tok.len() > 1 && tok[0].is_ascii_uppercase() && tok[1..].iter().all(u8::is_ascii_lowercase) {
        return false;
    }
    if tok
        .iter()
        .any(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
    {
        return true;
    }
    let segments = tok.split(|&c| c == b'.').filter(|p| !p.is_empty()).count();
    bearer && (tok.len() >= 16 || (segments >= 3 && !tok.ends_with(b".")))
}

/// Runs the machine over the lines of `s`, from `lines`'s state.
pub fn spans_in(s: &str, lines: &mut Lines) -> Vec<Span> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    // Where the run of lines with nothing masked began, right before the current
    // line: a lone END line masks the key lines at its end (`retro`).
    let mut quiet: Option<usize> = None;
    for end in memchr::memchr_iter(b'\n', b).chain(std::iter::once(b.len())) {
        let before = out.len();
        lines.closed_unopened = false;
        lines.line(b, start, end, &mut out);
        if lines.closed_unopened {
            if let Some(q) = quiet {
                retro_lines(s, q, start, &mut out);
            }
            quiet = None;
        } else if out.len() == before {
            quiet.get_or_insert(start);
        } else {
            quiet = None;
        }
        start = end + 1;
    }
    out.sort_by_key(|sp| sp.range.start);
    // Spans must cut at character boundaries (every detector stops at ASCII).
    out.retain(|sp| {
        sp.range.start < sp.range.end
            && s.is_char_boundary(sp.range.start)
            && s.is_char_boundary(sp.range.end)
    });
    merge_blocks(b, &mut out);
    out
}

/// A counted span followed by uncounted ones on the next lines (a key's lines, a
/// block scalar's lines), separated only by line ends, becomes one span.
fn merge_blocks(b: &[u8], out: &mut Vec<Span>) {
    if out.len() < 2 {
        return;
    }
    let mut merged: Vec<Span> = Vec::with_capacity(out.len());
    for sp in out.drain(..) {
        if let Some(last) = merged.last_mut() {
            let gap = b.get(last.range.end..sp.range.start).unwrap_or(b"x");
            if !sp.counted
                && last.range.end <= sp.range.start
                && gap.iter().all(|c| matches!(c, b'\n' | b'\r'))
                && !gap.is_empty()
            {
                last.range.end = sp.range.end;
                continue;
            }
        }
        merged.push(sp);
    }
    *out = merged;
}

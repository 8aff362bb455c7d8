//! Streaming reads of a JSON text: where a pointer's value sits, found in one
//! pass that checks the whole text as `parse` would but builds no tree (values
//! off the pointer's path are skipped byte-wise), and an array's elements parsed
//! one at a time. `json get` and `json select` parse only what they answer, so
//! their memory follows the answer, not the file.
//!
//! The scan is conservative: whatever it cannot vouch for (a syntax error,
//! nesting past the depth budget, a pointer that does not resolve) is `None`,
//! and the caller parses the whole text, whose errors are the canonical ones.

use super::{MAX_DEPTH, Node, Parser, SyntaxError, index_of};

/// The byte span of the value at `tokens`, when the whole text is JSON within
/// the depth budget and the pointer resolves (the last of duplicate keys wins,
/// as in `lookup`); `None` otherwise.
pub fn locate(text: &str, tokens: &[String]) -> Option<(usize, usize)> {
    if tokens.len() > MAX_DEPTH {
        return None;
    }
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
        nodes: 0,
    };
    p.ws();
    let found = p.find(tokens, 0).ok()?;
    p.ws();
    if p.i < p.s.len() {
        return None;
    }
    found
}

/// The name of the type of the value starting at `at`.
pub fn type_at(text: &str, at: usize) -> &'static str {
    match text.as_bytes().get(at) {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}

/// An array's elements (the array at `start..end`, as `locate` found it):
/// `keep` sees each one's index and span, and only the kept ones are parsed
/// (their index and tree, spans into `text`); the kept trees share the
/// parser's value budget.
pub fn elements(
    text: &str,
    start: usize,
    end: usize,
    mut keep: impl FnMut(usize, usize, usize) -> Result<bool, SyntaxError>,
) -> Result<Vec<(usize, Node)>, SyntaxError> {
    let mut p = Parser {
        s: &text.as_bytes()[..end],
        text,
        i: start + 1,
        nodes: 0,
    };
    let mut out = Vec::new();
    let mut index = 0;
    loop {
        p.ws();
        match p.peek() {
            Some(b']') | None => return Ok(out),
            Some(b',') => {
                p.i += 1;
                p.ws();
            }
            _ => {}
        }
        let at = p.i;
        if p.skip(1).is_err() {
            return Err(p.err("expected a value"));
        }
        if keep(index, at, p.i)? {
            let next = p.i;
            p.i = at;
            out.push((index, p.value(1)?));
            p.i = next;
        }
        index += 1;
    }
}

/// The span of the value at `tokens` inside the value at `start..end` (a
/// span `locate` found, so the text there is checked).
pub fn locate_in(
    text: &str,
    start: usize,
    end: usize,
    tokens: &[String],
) -> Option<(usize, usize)> {
    let mut p = Parser {
        s: &text.as_bytes()[..end],
        text,
        i: start,
        nodes: 0,
    };
    p.find(tokens, 1).ok().flatten()
}

/// The value at `start..end` (a span `locate` found) as a tree.
pub fn parse_span(text: &str, start: usize, end: usize) -> Result<Node, SyntaxError> {
    let mut p = Parser {
        s: &text.as_bytes()[..end],
        text,
        i: start,
        nodes: 0,
    };
    p.value(0)
}

/// What a value is, told without its tree: an object's first keys, an
/// array's length, another type's name.
pub enum Shape {
    Obj(Vec<String>),
    Arr(usize),
    Other(&'static str),
}

impl Shape {
    pub fn type_name(&self) -> &'static str {
        match self {
            Shape::Obj(_) => "object",
            Shape::Arr(_) => "array",
            Shape::Other(t) => t,
        }
    }
}

/// The shape of the value at `start..end` (a span `locate` found): up to
/// `max_keys` of an object's keys, in order.
pub fn shape(text: &str, start: usize, end: usize, max_keys: usize) -> Shape {
    let mut p = Parser {
        s: &text.as_bytes()[..end],
        text,
        i: start + 1,
        nodes: 0,
    };
    let mut keys = Vec::new();
    let mut len = 0;
    let close = match text.as_bytes().get(start) {
        Some(b'{') => b'}',
        Some(b'[') => b']',
        _ => return Shape::Other(type_at(text, start)),
    };
    loop {
        p.ws();
        match p.peek() {
            Some(b',') => {
                p.i += 1;
                p.ws();
            }
            Some(c) if c == close => break,
            None => break,
            _ => {}
        }
        if close == b'}' {
            match p.string() {
                Ok(k) if keys.len() < max_keys => keys.push(k),
                Ok(_) => {}
                Err(_) => break,
            }
            p.ws();
            p.i += 1; // the colon (the text was checked)
            p.ws();
        }
        if p.skip(1).is_err() {
            break;
        }
        len += 1;
    }
    if close == b'}' {
        Shape::Obj(keys)
    } else {
        Shape::Arr(len)
    }
}

/// Why a scan stopped: the caller falls back to the whole parse.
struct Stop;

impl Parser<'_> {
    /// Scans the value at `self.i` (nested `depth` deep), following `tokens`
    /// into it: the span of the value they lead to, if it is there.
    fn find(&mut self, tokens: &[String], depth: usize) -> Result<Option<(usize, usize)>, Stop> {
        let start = self.i;
        let Some((first, rest)) = tokens.split_first() else {
            self.skip(depth)?;
            return Ok(Some((start, self.i)));
        };
        if depth + 1 > MAX_DEPTH {
            return Err(Stop);
        }
        let mut found = None;
        match self.peek() {
            Some(b'{') => {
                self.i += 1;
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Ok(None);
                }
                loop {
                    self.ws();
                    let hit = self.key_is(first)?;
                    self.ws();
                    if self.peek() != Some(b':') {
                        return Err(Stop);
                    }
                    self.i += 1;
                    self.ws();
                    if hit {
                        // A later duplicate replaces what an earlier one found.
                        found = self.find(rest, depth + 1)?;
                    } else {
                        self.skip(depth + 1)?;
                    }
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(found);
                        }
                        _ => return Err(Stop),
                    }
                }
            }
            Some(b'[') => {
                let want = index_of(first);
                self.i += 1;
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok(None);
                }
                let mut at = 0;
                loop {
                    self.ws();
                    if want == Some(at) {
                        found = self.find(rest, depth + 1)?;
                    } else {
                        self.skip(depth + 1)?;
                    }
                    at += 1;
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(found);
                        }
                        _ => return Err(Stop),
                    }
                }
            }
            _ => {
                self.skip(depth)?;
                Ok(None)
            }
        }
    }

    /// Reads a member's key at `self.i`: whether it is `want`.
    fn key_is(&mut self, want: &str) -> Result<bool, Stop> {
        if self.peek() != Some(b'"') {
            return Err(Stop);
        }
        let start = self.i;
        let body = &self.s[start + 1..];
        if let Some(q) = memchr::memchr2(b'"', b'\\', body)
            && body[q] == b'"'
            && !body[..q].iter().any(|&b| b < 0x20)
        {
            self.i = start + 1 + q + 1;
            return Ok(&body[..q] == want.as_bytes());
        }
        // Escapes: decoded as the parser decodes them.
        let key = self.string().map_err(|_| Stop)?;
        Ok(key == want)
    }

    /// Skips a string at `self.i`, checking it as `string` would.
    fn skip_string(&mut self) -> Result<(), Stop> {
        self.i += 1;
        loop {
            let body = &self.s[self.i..];
            let q = memchr::memchr2(b'"', b'\\', body).ok_or(Stop)?;
            if body[..q].iter().any(|&b| b < 0x20) {
                return Err(Stop);
            }
            self.i += q + 1;
            if body[q] == b'"' {
                return Ok(());
            }
            match self.peek() {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                Some(b'u') => {
                    self.i += 1;
                    self.hex4().map_err(|_| Stop)?;
                }
                _ => return Err(Stop),
            }
        }
    }

    /// Skips the value at `self.i` (nested `depth` deep), checking it as `value`
    /// would; no recursion, so any nesting is walked on the heap.
    fn skip(&mut self, depth: usize) -> Result<(), Stop> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            // A value is expected here.
            if depth + open.len() > MAX_DEPTH {
                return Err(Stop);
            }
            let mut opened = false;
            match self.peek() {
                Some(b'{') => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                    } else {
                        self.member_head()?;
                        open.push(b'}');
                        opened = true;
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                    } else {
                        open.push(b']');
                        opened = true;
                    }
                }
                Some(b'"') => self.skip_string()?,
                Some(b't') => self
                    .word("true", super::Kind::Null)
                    .map(drop)
                    .map_err(|_| Stop)?,
                Some(b'f') => self
                    .word("false", super::Kind::Null)
                    .map(drop)
                    .map_err(|_| Stop)?,
                Some(b'n') => self
                    .word("null", super::Kind::Null)
                    .map(drop)
                    .map_err(|_| Stop)?,
                Some(b'-' | b'0'..=b'9') => self.num().map(drop).map_err(|_| Stop)?,
                _ => return Err(Stop),
            }
            if opened {
                continue;
            }
            // A value ended: close what it ends, up to the next value.
            loop {
                let Some(&close) = open.last() else {
                    return Ok(());
                };
                self.ws();
                match self.peek() {
                    Some(b',') => {
                        self.i += 1;
                        self.ws();
                        if close == b'}' {
                            self.member_head()?;
                        }
                        break;
                    }
                    Some(c) if c == close => {
                        self.i += 1;
                        open.pop();
                    }
                    _ => return Err(Stop),
                }
            }
        }
    }

    /// A key and its colon, up to the member's value.
    fn member_head(&mut self) -> Result<(), Stop> {
        if self.peek() != Some(b'"') {
            return Err(Stop);
        }
        self.skip_string()?;
        self.ws();
        if self.peek() != Some(b':') {
            return Err(Stop);
        }
        self.i += 1;
        self.ws();
        Ok(())
    }
}

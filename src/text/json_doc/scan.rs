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
    let found = p.find(tokens, 0, &mut |p, d| p.skip(d)).ok()?;
    p.ws();
    if p.i < p.s.len() {
        return None;
    }
    found
}

/// What `select` found at a pointer: an array's kept elements (each one's
/// index and tree, spans into the text; or the first error keeping them), or
/// another value's type.
pub enum Selected {
    Arr(Result<Vec<(usize, Node)>, SyntaxError>),
    Other(&'static str),
}

/// An array's elements, in the walk that checks the text: the pointer is
/// followed as `locate` does, and `keep` sees each element of the array found
/// there (its index and span) as the walk reaches it; only the kept ones are
/// parsed. Where duplicate keys lead to the pointer more than once, the last
/// value there is the answer (as in `lookup`): `fresh` is called before each
/// one is walked. `None` where `locate` is `None`; `keep` may have been called
/// then.
pub fn select(
    text: &str,
    tokens: &[String],
    mut fresh: impl FnMut(),
    mut keep: impl FnMut(usize, usize, usize) -> Result<bool, SyntaxError>,
) -> Option<Selected> {
    if tokens.len() > MAX_DEPTH {
        return None;
    }
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
        nodes: 0,
    };
    let mut out = None;
    p.ws();
    let found = p
        .find(tokens, 0, &mut |p, d| {
            fresh();
            out = Some(if p.peek() == Some(b'[') {
                Selected::Arr(p.kept(d, &mut keep)?)
            } else {
                let t = type_at(p.text, p.i);
                p.skip(d)?;
                Selected::Other(t)
            });
            Ok(())
        })
        .ok()?;
    p.ws();
    if p.i < p.s.len() {
        return None;
    }
    found?;
    out
}

/// Arrays as `arrays` finds them: each one's pointer tokens and span.
pub type Found = Vec<(Vec<String>, usize, usize)>;

/// Every array reached through objects from the top (an array's elements are
/// not looked into), in document order: its pointer's tokens and its span. One
/// walk that checks the text as `locate` does and builds no tree; `None` where
/// `locate` would be (the caller parses the whole text).
pub fn arrays(text: &str) -> Option<Found> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
        nodes: 0,
    };
    let mut out = Vec::new();
    p.ws();
    p.arrays_in(&mut Vec::new(), &mut out).ok()?;
    p.ws();
    (p.i == p.s.len()).then_some(out)
}

/// The spans of the first `most` elements of the array at `start..end` (a
/// span `arrays` or `locate` found).
pub fn elements_of(text: &str, start: usize, end: usize, most: usize) -> Vec<(usize, usize)> {
    let mut p = Parser {
        s: &text.as_bytes()[..end],
        text,
        i: start,
        nodes: 0,
    };
    let mut out = Vec::new();
    // Stopping at `most` ends the walk early: what was found is the answer.
    let _ = p.elements(&mut |p, _| {
        if out.len() >= most {
            return Err(Stop);
        }
        let at = p.i;
        p.skip(1)?;
        out.push((at, p.i));
        Ok(())
    });
    out
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
    p.find(tokens, 1, &mut |p, d| p.skip(d)).ok().flatten()
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

/// What a scan does with the value a pointer leads to (nested so deep): it
/// moves past that value, checking it.
type AtTarget<'t, 'a> = &'t mut dyn FnMut(&mut Parser<'a>, usize) -> Result<(), Stop>;

impl<'a> Parser<'a> {
    /// Scans the value at `self.i` (nested `depth` deep), following `tokens`
    /// into it: the span of the value they lead to, if it is there (`target`
    /// moves past that value).
    fn find(
        &mut self,
        tokens: &[String],
        depth: usize,
        target: AtTarget<'_, 'a>,
    ) -> Result<Option<(usize, usize)>, Stop> {
        let start = self.i;
        let Some((first, rest)) = tokens.split_first() else {
            target(self, depth)?;
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
                        found = self.find(rest, depth + 1, target)?;
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
                self.elements(&mut |p, at| {
                    if want == Some(at) {
                        found = p.find(rest, depth + 1, &mut *target)?;
                    } else {
                        p.skip(depth + 1)?;
                    }
                    Ok(())
                })?;
                Ok(found)
            }
            _ => {
                self.skip(depth)?;
                Ok(None)
            }
        }
    }

    /// Walks the value at `self.i` (nested as deep as `at` is long), noting
    /// each array reached through objects with its pointer's tokens.
    fn arrays_in(&mut self, at: &mut Vec<String>, out: &mut Found) -> Result<(), Stop> {
        let depth = at.len();
        if depth > MAX_DEPTH {
            return Err(Stop);
        }
        if self.peek() == Some(b'[') {
            let start = self.i;
            self.skip(depth)?;
            out.push((at.clone(), start, self.i));
            return Ok(());
        }
        if self.peek() != Some(b'{') {
            return self.skip(depth);
        }
        self.i += 1;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(Stop);
            }
            let key = self.string().map_err(|_| Stop)?;
            self.ws();
            if self.peek() != Some(b':') {
                return Err(Stop);
            }
            self.i += 1;
            self.ws();
            at.push(key);
            self.arrays_in(at, out)?;
            at.pop();
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(Stop),
            }
        }
    }

    /// Walks the array at `self.i`, up to its closing bracket: `each` moves
    /// past each element (given its index), whitespace skipped around it.
    fn elements(
        &mut self,
        each: &mut dyn FnMut(&mut Parser<'a>, usize) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        self.i += 1;
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(());
        }
        let mut index = 0;
        loop {
            self.ws();
            each(self, index)?;
            index += 1;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(Stop),
            }
        }
    }

    /// Walks the array at `self.i` (nested `depth` deep), checking each
    /// element and showing it to `keep`; the kept ones are parsed, sharing the
    /// value budget. After the first error keeping one, the rest are only
    /// checked.
    fn kept(
        &mut self,
        depth: usize,
        keep: &mut impl FnMut(usize, usize, usize) -> Result<bool, SyntaxError>,
    ) -> Result<Result<Vec<(usize, Node)>, SyntaxError>, Stop> {
        let mut out = Ok(Vec::new());
        self.elements(&mut |p, index| {
            let at = p.i;
            p.skip(depth + 1)?;
            let Ok(els) = &mut out else {
                return Ok(());
            };
            let end = p.i;
            let step = match keep(index, at, end) {
                Ok(true) => {
                    p.i = at;
                    let v = p.value(1);
                    p.i = end;
                    v.map(|n| els.push((index, n)))
                }
                Ok(false) => Ok(()),
                Err(e) => Err(e),
            };
            if let Err(e) = step {
                out = Err(e);
            }
            Ok(())
        })?;
        Ok(out)
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

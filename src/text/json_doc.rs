//! JSON text with spans: a strict RFC 8259 parser that records where every value,
//! key and member sits, RFC 6901 pointers over it, and span edits (replace, add,
//! remove) that leave every byte outside the edited value as it was — key order,
//! indentation, newline style and the final newline included. Rendering of new
//! values follows the file's own layout (`Style`).

use super::json_string::{self, Broken, Piece};
use crate::protocol::Json;

/// Nesting deeper than this is refused rather than recursed into.
const MAX_DEPTH: usize = 512;
/// A document with more values than this is refused (`over_budget`): each costs
/// a node of about 50 bytes, so the tree stays near 50 MiB whatever the text.
pub const MAX_NODES: usize = 1_000_000;

#[derive(Debug, Clone)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Null,
    Bool(bool),
    Num,
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<Member>),
}

#[derive(Debug, Clone)]
pub struct Member {
    pub key: String,
    pub key_start: usize,
    pub value: Node,
}

/// Where and why the text is not JSON (line and column are 1-based; the column
/// counts characters).
#[derive(Debug, Clone)]
pub struct SyntaxError {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// Refused for aitools' own budgets (depth, values), not the JSON grammar.
    pub over_budget: bool,
}

impl Node {
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Null => "null",
            Kind::Bool(_) => "boolean",
            Kind::Num => "number",
            Kind::Str(_) => "string",
            Kind::Arr(_) => "array",
            Kind::Obj(_) => "object",
        }
    }

    /// Elements, members or characters; None for scalars.
    pub fn length(&self) -> Option<usize> {
        match &self.kind {
            Kind::Arr(a) => Some(a.len()),
            Kind::Obj(m) => Some(m.len()),
            Kind::Str(s) => Some(s.chars().count()),
            _ => None,
        }
    }

    pub fn member(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            // The last duplicate wins, as in most JSON readers.
            Kind::Obj(m) => m.iter().rev().find(|x| x.key == key).map(|x| &x.value),
            _ => None,
        }
    }

    /// The value as the ordered output tree.
    pub fn to_json(&self, src: &str) -> Json {
        match &self.kind {
            Kind::Null => Json::Null,
            Kind::Bool(b) => Json::Bool(*b),
            Kind::Num => number(&src[self.start..self.end]),
            Kind::Str(s) => Json::Str(s.clone()),
            Kind::Arr(a) => Json::Arr(a.iter().map(|n| n.to_json(src)).collect()),
            Kind::Obj(m) => Json::Obj(
                m.iter()
                    .map(|x| (x.key.clone(), x.value.to_json(src)))
                    .collect(),
            ),
        }
    }
}

/// "an object", "a string": a type name for a message.
pub fn with_article(t: &str) -> String {
    let an = t.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {t}", if an { "an" } else { "a" })
}

/// A JSON number's text in the output tree, as written (never through a float).
pub fn number(t: &str) -> Json {
    match t.parse::<i64>() {
        Ok(i) if i.to_string() == t => Json::Int(i),
        _ => Json::Number(t.to_string()),
    }
}

/// Equality as JSON values: member order ignored, numbers by value.
pub fn equal(a: &Node, asrc: &str, b: &Node, bsrc: &str) -> bool {
    match (&a.kind, &b.kind) {
        (Kind::Null, Kind::Null) => true,
        (Kind::Bool(x), Kind::Bool(y)) => x == y,
        (Kind::Num, Kind::Num) => {
            let (x, y) = (&asrc[a.start..a.end], &bsrc[b.start..b.end]);
            x == y || x.parse::<f64>().ok() == y.parse::<f64>().ok()
        }
        (Kind::Str(x), Kind::Str(y)) => x == y,
        (Kind::Arr(x), Kind::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| equal(p, asrc, q, bsrc))
        }
        (Kind::Obj(x), Kind::Obj(y)) => {
            x.len() == y.len()
                && x.iter().all(|m| {
                    b.member(&m.key)
                        .is_some_and(|v| equal(&m.value, asrc, v, bsrc))
                })
        }
        _ => false,
    }
}

/// Line and character column (1-based) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let ls = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map(|p| p + 1)
        .unwrap_or(0);
    let col = String::from_utf8_lossy(&before[ls..]).chars().count() + 1;
    (line, col)
}

/// Parses a whole document (a leading BOM must be stripped by the caller).
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
        nodes: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i < p.s.len() {
        return Err(p.err("unexpected text after the JSON value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    nodes: usize,
}

impl Parser<'_> {
    fn err(&self, msg: &str) -> SyntaxError {
        let (line, column) = line_col(self.text, self.i);
        SyntaxError {
            offset: self.i,
            line,
            column,
            message: msg.to_string(),
            over_budget: false,
        }
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        self.nodes += 1;
        if depth > MAX_DEPTH || self.nodes > MAX_NODES {
            let what = if depth > MAX_DEPTH {
                format!("nesting deeper than {MAX_DEPTH} levels")
            } else {
                format!("more than {MAX_NODES} values")
            };
            return Err(SyntaxError {
                over_budget: true,
                ..self.err(&what)
            });
        }
        let start = self.i;
        let kind = match self.peek() {
            None => return Err(self.err("unexpected end of input; a value was expected")),
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Kind::Str(self.string()?),
            Some(b't') => self.word("true", Kind::Bool(true))?,
            Some(b'f') => self.word("false", Kind::Bool(false))?,
            Some(b'n') => self.word("null", Kind::Null)?,
            Some(b'-' | b'0'..=b'9') => self.num()?,
            Some(_) => return Err(self.err("expected a value")),
        };
        Ok(Node {
            start,
            end: self.i,
            kind,
        })
    }

    fn word(&mut self, w: &str, k: Kind) -> Result<Kind, SyntaxError> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(k)
        } else {
            Err(self.err("expected a value"))
        }
    }

    fn digits(&mut self) -> usize {
        let s = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - s
    }

    fn num(&mut self) -> Result<Kind, SyntaxError> {
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.i += 1;
                if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    return Err(self.err("a number may not have a leading zero"));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.err("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.err("expected a digit after the decimal point"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.err("expected a digit in the exponent"));
            }
        }
        Ok(Kind::Num)
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let h = json_string::hex4(self.s, self.i)
            .map_err(|_| self.err("expected four hex digits after \\u"))?;
        self.i += 4;
        Ok(h)
    }

    /// The string at `self.i` (its opening quote), decoded (`json_string`): a
    /// surrogate escape that names no character reads as U+FFFD.
    fn string(&mut self) -> Result<String, SyntaxError> {
        let mut out = String::new();
        let mut control = None;
        let read = json_string::read(self.s, self.i, |p| match p {
            Piece::Plain(r) => out.push_str(&self.text[r]),
            Piece::Escape(ch, _) => out.push(ch.unwrap_or('\u{FFFD}')),
            Piece::Control(at) => {
                control.get_or_insert(at);
            }
        });
        // The first fault is the one told: a control character comes before any
        // fault that stopped the reading after it.
        let (at, msg) = match (control, read) {
            (Some(at), _) => (at, "control character in a string (escape it)"),
            (None, Ok(end)) => {
                self.i = end;
                return Ok(out);
            }
            (None, Err(Broken::Unterminated(at))) => (at, "unterminated string"),
            (None, Err(Broken::Hex(at))) => (at, "expected four hex digits after \\u"),
            (None, Err(Broken::Escape(at))) => (at, "invalid escape in a string"),
        };
        self.i = at;
        Err(self.err(msg))
    }

    fn array(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Kind::Arr(items));
        }
        loop {
            self.ws();
            if self.peek() == Some(b']') {
                return Err(self.err("trailing comma before ']'"));
            }
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Kind::Arr(items));
                }
                None => return Err(self.err("unexpected end of input; ',' or ']' expected")),
                Some(_) => return Err(self.err("expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        self.i += 1;
        let mut members = Vec::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Kind::Obj(members));
        }
        loop {
            self.ws();
            match self.peek() {
                Some(b'"') => {}
                Some(b'}') => return Err(self.err("trailing comma before '}'")),
                None => return Err(self.err("unexpected end of input; a key was expected")),
                Some(_) => return Err(self.err("expected a string key")),
            }
            let key_start = self.i;
            let key = self.string()?;
            self.ws();
            if self.peek() != Some(b':') {
                return Err(self.err("expected ':' after the key"));
            }
            self.i += 1;
            self.ws();
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                key_start,
                value,
            });
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Kind::Obj(members));
                }
                None => return Err(self.err("unexpected end of input; ',' or '}' expected")),
                Some(_) => return Err(self.err("expected ',' or '}'")),
            }
        }
    }
}

/// An RFC 6901 pointer's reference tokens; Err names what is wrong with it.
pub fn parse_pointer(p: &str) -> Result<Vec<String>, String> {
    if p.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = p.strip_prefix('/') else {
        return Err(format!(
            "{p:?} is not a JSON pointer: it must be empty (the whole document) or start with '/'."
        ));
    };
    rest.split('/')
        .map(|t| {
            let mut out = String::new();
            let mut it = t.chars();
            while let Some(c) = it.next() {
                if c == '~' {
                    match it.next() {
                        Some('0') => out.push('~'),
                        Some('1') => out.push('/'),
                        _ => return Err(format!("{p:?}: '~' must be followed by 0 or 1.")),
                    }
                } else {
                    out.push(c);
                }
            }
            Ok(out)
        })
        .collect()
}

/// The pointer text of tokens.
pub fn pointer_of(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// An array index token: digits without a leading zero.
pub fn index_of(t: &str) -> Option<usize> {
    if t.is_empty() || (t.len() > 1 && t.starts_with('0')) || !t.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    t.parse().ok()
}

/// The node the tokens lead to, or how many tokens resolved before one did not.
pub fn lookup<'a>(root: &'a Node, tokens: &[String]) -> Result<&'a Node, usize> {
    let mut n = root;
    for (k, t) in tokens.iter().enumerate() {
        n = match &n.kind {
            Kind::Obj(_) => n.member(t).ok_or(k)?,
            Kind::Arr(a) => index_of(t).and_then(|i| a.get(i)).ok_or(k)?,
            _ => return Err(k),
        };
    }
    Ok(n)
}

/// How the file lays itself out, so new values look like the old ones.
#[derive(Debug, Clone)]
pub struct Style {
    pub nl: &'static str,
    /// One indent step; None for a one-line document.
    pub unit: Option<String>,
    /// Between a key and its value (`": "` or `":"`).
    pub kv: String,
    /// Between items on one line (`", "` or `","`).
    pub inline_sep: String,
}

impl Style {
    pub fn of(text: &str, root: &Node) -> Style {
        let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let mut unit = None;
        let mut kv = None;
        find_style(text, root, &mut unit, &mut kv);
        let inline_sep = if text.contains(", ") || !text.contains(',') {
            ", "
        } else {
            ","
        };
        Style {
            nl,
            unit: if text.trim_end().contains('\n') {
                Some(unit.unwrap_or_else(|| "  ".to_string()))
            } else {
                None
            },
            kv: kv.unwrap_or_else(|| ": ".to_string()),
            inline_sep: inline_sep.to_string(),
        }
    }

    /// A re-indenting style: `unit` None writes everything on one line.
    pub fn pretty(nl: &'static str, unit: Option<String>) -> Style {
        let minify = unit.is_none();
        Style {
            nl,
            unit,
            kv: if minify { ":" } else { ": " }.to_string(),
            inline_sep: ",".to_string(),
        }
    }
}

fn find_style(text: &str, n: &Node, unit: &mut Option<String>, kv: &mut Option<String>) {
    let children: Vec<(usize, &Node)> = match &n.kind {
        Kind::Obj(m) => m.iter().map(|x| (x.key_start, &x.value)).collect(),
        Kind::Arr(a) => a.iter().map(|x| (x.start, x)).collect(),
        _ => return,
    };
    if let (Kind::Obj(m), None) = (&n.kind, &kv)
        && let Some(first) = m.first()
    {
        let gap = &text[key_end(text, first)..first.value.start];
        // Whitespace, ':' and whitespace: the file's own spelling after the colon.
        if let Some(after) = gap.trim_start().strip_prefix(':')
            && !after.contains('\n')
        {
            *kv = Some(format!(":{after}"));
        }
    }
    if unit.is_none()
        && let Some((first_start, _)) = children.first()
    {
        let gap = &text[n.start + 1..*first_start];
        if let Some(p) = gap.rfind('\n') {
            let child_ind = &gap[p + 1..];
            let own = indent_at(text, n.start);
            if let Some(step) = child_ind.strip_prefix(own)
                && !step.is_empty()
            {
                *unit = Some(step.to_string());
            }
        }
    }
    if unit.is_some() && kv.is_some() {
        return;
    }
    for (_, c) in children {
        find_style(text, c, unit, kv);
        if unit.is_some() && kv.is_some() {
            return;
        }
    }
}

/// The leading whitespace of the line holding byte `at`.
pub fn indent_at(text: &str, at: usize) -> &str {
    let ls = text[..at].rfind('\n').map(|p| p + 1).unwrap_or(0);
    let line = &text[ls..];
    let n = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..n]
}

/// Writes `n` (from `src`) in `style`, its closing lines indented by `ind`.
/// Scalars keep their source text (number spelling, string escapes).
pub fn render(n: &Node, src: &str, style: &Style, ind: &str, sort_keys: bool) -> String {
    let mut out = String::new();
    render_into(&mut out, n, src, style, ind, sort_keys);
    out
}

fn render_into(out: &mut String, n: &Node, src: &str, st: &Style, ind: &str, sort: bool) {
    let items: Vec<(Option<&str>, &Node)> = match &n.kind {
        Kind::Obj(m) => {
            let mut v: Vec<&Member> = m.iter().collect();
            if sort {
                v.sort_by(|a, b| a.key.cmp(&b.key));
            }
            v.into_iter()
                .map(|x| (Some(&src[x.key_start..key_end(src, x)]), &x.value))
                .collect()
        }
        Kind::Arr(a) => a.iter().map(|x| (None, x)).collect(),
        _ => {
            out.push_str(&src[n.start..n.end]);
            return;
        }
    };
    let (open, close) = if matches!(n.kind, Kind::Obj(_)) {
        ('{', '}')
    } else {
        ('[', ']')
    };
    out.push(open);
    if items.is_empty() {
        out.push(close);
        return;
    }
    let inner = st.unit.as_ref().map(|u| format!("{ind}{u}"));
    for (i, (k, v)) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(if inner.is_some() { "," } else { &st.inline_sep });
        }
        if let Some(inner) = &inner {
            out.push_str(st.nl);
            out.push_str(inner);
        }
        if let Some(k) = k {
            out.push_str(k);
            out.push_str(&st.kv);
        }
        render_into(out, v, src, st, inner.as_deref().unwrap_or(ind), sort);
    }
    if inner.is_some() {
        out.push_str(st.nl);
        out.push_str(ind);
    }
    out.push(close);
}

/// End of a member's key string (the closing quote included).
fn key_end(src: &str, m: &Member) -> usize {
    let b = src.as_bytes();
    let mut i = m.key_start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// A text edit: bytes `range` of the document become `with`.
pub struct Splice {
    pub at: usize,
    pub end: usize,
    pub with: String,
}

pub fn apply(text: &str, s: &Splice) -> String {
    let mut out = String::with_capacity(text.len() + s.with.len());
    out.push_str(&text[..s.at]);
    out.push_str(&s.with);
    out.push_str(&text[s.end..]);
    out
}

/// Replaces node `n` of `text` with `v` (from `vsrc`) laid out like the file.
pub fn replace(text: &str, st: &Style, n: &Node, v: &Node, vsrc: &str) -> Splice {
    let ind = indent_at(text, n.start);
    Splice {
        at: n.start,
        end: n.end,
        with: render(v, vsrc, st, ind, false),
    }
}

/// The separator between consecutive items of container `c` (`",\n    "`, `", "`).
fn item_sep(text: &str, st: &Style, c: &Node, starts: &[(usize, usize)]) -> String {
    if starts.len() >= 2 {
        return text[starts[0].1..starts[1].0].to_string();
    }
    let first = starts.first().map(|s| s.0).unwrap_or(c.end - 1);
    let gap = &text[c.start + 1..first];
    match gap.rfind('\n') {
        Some(p) => format!(",{}{}", st.nl, &gap[p + 1..]),
        None => st.inline_sep.clone(),
    }
}

/// (start, end) of each item of a container: member key start to value end.
fn item_spans(c: &Node) -> Vec<(usize, usize)> {
    match &c.kind {
        Kind::Obj(m) => m.iter().map(|x| (x.key_start, x.value.end)).collect(),
        Kind::Arr(a) => a.iter().map(|x| (x.start, x.end)).collect(),
        _ => Vec::new(),
    }
}

/// Inserts an item (`"key": value` or a value) into container `c` before item
/// `at` (`at` == length appends).
pub fn insert(
    text: &str,
    st: &Style,
    c: &Node,
    at: usize,
    key: Option<&str>,
    v: &Node,
    vsrc: &str,
) -> Splice {
    let spans = item_spans(c);
    let key_text = key.map(|k| {
        let mut s = serde_json::to_string(k).unwrap_or_else(|_| format!("{k:?}"));
        s.push_str(&st.kv);
        s
    });
    if spans.is_empty() {
        let own = indent_at(text, c.start);
        let (open, close) = (&text[c.start..c.start + 1], &text[c.end - 1..c.end]);
        let with = match &st.unit {
            Some(u) => {
                let inner = format!("{own}{u}");
                format!(
                    "{open}{nl}{inner}{k}{v}{nl}{own}{close}",
                    nl = st.nl,
                    k = key_text.unwrap_or_default(),
                    v = render(v, vsrc, st, &inner, false)
                )
            }
            None => format!(
                "{open}{}{}{close}",
                key_text.unwrap_or_default(),
                render(v, vsrc, st, own, false)
            ),
        };
        return Splice {
            at: c.start,
            end: c.end,
            with,
        };
    }
    let sep = item_sep(text, st, c, &spans);
    let anchor = spans[at.min(spans.len() - 1)].0;
    let ind = indent_at(text, anchor);
    // A new item on its own line takes that line's indent; inline it takes the
    // indent of the line it lands on.
    let item = format!(
        "{}{}",
        key_text.unwrap_or_default(),
        render(v, vsrc, st, ind, false)
    );
    if at >= spans.len() {
        let end = spans[spans.len() - 1].1;
        Splice {
            at: end,
            end,
            with: format!("{sep}{item}"),
        }
    } else {
        Splice {
            at: spans[at].0,
            end: spans[at].0,
            with: format!("{item}{sep}"),
        }
    }
}

/// Removes item `at` of container `c` with the separator that belongs to it.
pub fn remove(text: &str, c: &Node, at: usize) -> Splice {
    let spans = item_spans(c);
    if spans.len() == 1 {
        let (open, close) = (&text[c.start..c.start + 1], &text[c.end - 1..c.end]);
        return Splice {
            at: c.start,
            end: c.end,
            with: format!("{open}{close}"),
        };
    }
    if at + 1 < spans.len() {
        Splice {
            at: spans[at].0,
            end: spans[at + 1].0,
            with: String::new(),
        }
    } else {
        Splice {
            at: spans[at - 1].1,
            end: spans[at].1,
            with: String::new(),
        }
    }
}

pub mod jq;
pub mod scan;
#[cfg(test)]
mod tests;

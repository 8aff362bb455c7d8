//! Syntax checks that need no project build: JSON (our own strict parser), TOML
//! (the toml_parser crate's grammar plus scalar decoding, and `toml_model`'s
//! table model and date ranges),
//! YAML (saphyr-parser's YAML 1.2 event parser, positions of its first error), and
//! delimiter balance of source files that skips their strings and comments.
//! Each problem is a `Diag` with a 1-based line and character column.
//! The grammars of source files (tree-sitter) are `grammar`; `defs` reads
//! definitions off their trees.

pub mod defs;
pub mod grammar;
pub mod ident;
pub mod imports;
pub mod refs;
mod scopes;

use super::json_doc::{self, line_col};

#[derive(Debug, Clone, PartialEq)]
pub struct Diag {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn at(text: &str, offset: usize, message: impl Into<String>) -> Diag {
    let (line, column) = line_col(text, offset);
    Diag {
        line,
        column,
        message: message.into(),
    }
}

/// At most this many problems are reported per file.
const MAX_DIAGS: usize = 20;

pub fn json(text: &str) -> Vec<Diag> {
    match json_doc::parse(text) {
        Ok(_) => Vec::new(),
        Err(e) => vec![Diag {
            line: e.line,
            column: e.column,
            message: e.message,
        }],
    }
}

pub fn toml(text: &str) -> Vec<Diag> {
    use toml_parser::parser::{EventKind, parse_document};
    // The grammar recurses per nesting level: a deeper file is refused before it.
    if let Some(off) = super::depth::toml_too_deep(text, super::depth::MAX_DEPTH) {
        let max = super::depth::MAX_DEPTH;
        return vec![at(text, off, format!("nesting deeper than {max} levels"))];
    }
    let src = toml_parser::Source::new(text);
    let tokens = src.lex().into_vec();
    let mut events: Vec<toml_parser::parser::Event> = Vec::new();
    let mut errors: Vec<toml_parser::ParseError> = Vec::new();
    parse_document(&tokens, &mut events, &mut errors);
    let mut diags: Vec<Diag> = Vec::new();
    for ev in &events {
        let control = |c: char| (c.is_control() && c != '\t') || c == '\u{7f}';
        if ev.kind() == EventKind::Comment
            && let Some(raw) = src.get(ev)
            && raw
                .as_str()
                .trim_end_matches(['\r', '\n'])
                .chars()
                .any(control)
        {
            diags.push(at(
                text,
                ev.span().start(),
                "control character in a comment",
            ));
        }
        if ev.kind() == EventKind::Scalar
            && let Some(raw) = src.get(ev)
        {
            let mut out = String::new();
            let _ = raw.decode_scalar(&mut out, &mut errors);
            if let Some(why) = super::toml_model::bad_scalar(raw.as_str()) {
                diags.push(at(text, ev.span().start(), why));
            }
        }
    }
    diags.extend(errors.iter().map(|e| {
        let off = e
            .unexpected()
            .or(e.context())
            .map(|s| s.start())
            .unwrap_or(0);
        at(text, off, e.description().to_string())
    }));
    if diags.is_empty() {
        let name = |ev: &toml_parser::parser::Event| {
            let mut s = String::new();
            if let Some(r) = src.get(ev) {
                r.decode_key(&mut s, &mut ());
            }
            s
        };
        let found = super::toml_model::problems(&events, name);
        diags.extend(found.into_iter().map(|(off, m)| at(text, off, m)));
    }
    diags.sort_by_key(|d| (d.line, d.column));
    diags.dedup();
    diags.truncate(MAX_DIAGS);
    diags
}

/// YAML 1.2 syntax through saphyr-parser's event stream (no document is built,
/// so aliases are never expanded). The parser stops at its first error, so a
/// broken file gets one diagnostic, at the parser's 1-based line and 0-based
/// character column (made 1-based here).
pub fn yaml(text: &str) -> Vec<Diag> {
    use saphyr_parser::{Event, Parser};
    // The parser is third-party code fed with arbitrary input: a panic inside it
    // becomes a diagnostic instead of ending the process.
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut parser = Parser::new_from_str(text);
        let mut keys = YamlKeys::default();
        while let Some(ev) = parser.next_event() {
            match ev {
                Ok((Event::StreamEnd, _)) => return None,
                Ok((ev, span)) => {
                    if let Some(key) = keys.duplicate(&ev) {
                        return Some(Diag {
                            line: span.start.line().max(1),
                            column: span.start.col() + 1,
                            message: format!("key {key:?} defined twice in one mapping"),
                        });
                    }
                }
                Err(e) => {
                    let m = e.marker();
                    return Some(Diag {
                        line: m.line().max(1),
                        column: m.col() + 1,
                        message: e.info().to_string(),
                    });
                }
            }
        }
        None
    }));
    match outcome {
        Ok(None) => Vec::new(),
        Ok(Some(d)) => vec![d],
        Err(_) => vec![Diag {
            line: 1,
            column: 1,
            message: "the YAML parser failed on this file".into(),
        }],
    }
}

/// The open mappings' keys, to find one defined twice (YAML 1.2 forbids it).
/// A frame is `Some((keys, next_is_key))` for a mapping, `None` for a sequence.
#[derive(Default)]
struct YamlKeys {
    frames: Vec<Option<(std::collections::HashSet<String>, bool)>>,
}

impl YamlKeys {
    /// The key `ev` repeats in its mapping, if it does.
    fn duplicate(&mut self, ev: &saphyr_parser::Event) -> Option<String> {
        use saphyr_parser::Event as E;
        let node = matches!(
            ev,
            E::Scalar(..) | E::Alias(_) | E::MappingStart(..) | E::SequenceStart(..)
        );
        let mut dup = None;
        if node && let Some(Some((keys, next_is_key))) = self.frames.last_mut() {
            if *next_is_key
                && let E::Scalar(k, style, _, tag) = ev
                && k.as_ref() != "<<"
                && !keys.insert(yaml_key(k, *style, tag.as_deref()))
            {
                dup = Some(k.to_string());
            }
            *next_is_key = !*next_is_key;
        }
        match ev {
            E::MappingStart(..) => self.frames.push(Some((Default::default(), true))),
            E::SequenceStart(..) => self.frames.push(None),
            E::MappingEnd | E::SequenceEnd => {
                self.frames.pop();
            }
            E::DocumentStart(_) => self.frames.clear(),
            _ => {}
        }
        dup
    }
}

/// A mapping key as YAML 1.2's core schema reads it, so keys equal as values
/// are one key (`1` and `0x1`, `true` and `True`, `~` and `null`) and keys of
/// different types are two (`1` and `"1"`): `<type>:<canonical form>`.
fn yaml_key(
    v: &str,
    style: saphyr_parser::ScalarStyle,
    tag: Option<&saphyr_parser::Tag>,
) -> String {
    let plain = style == saphyr_parser::ScalarStyle::Plain;
    match tag {
        Some(t) if t.is_yaml_core_schema() && t.suffix != "str" => {
            return format!(
                "{}:{}",
                t.suffix,
                core_value(v).map_or(v.to_string(), |(_, c)| c)
            );
        }
        Some(t) if !(t.is_yaml_core_schema() || t.handle == "!" && t.suffix.is_empty()) => {
            return format!("{}{}:{v}", t.handle, t.suffix);
        }
        Some(_) => return format!("str:{v}"),
        None => {}
    }
    match core_value(v).filter(|_| plain) {
        Some((kind, canon)) => format!("{kind}:{canon}"),
        None => format!("str:{v}"),
    }
}

/// A plain scalar's core-schema type and canonical form (`None`: a string).
fn core_value(v: &str) -> Option<(&'static str, String)> {
    match v {
        "" | "~" | "null" | "Null" | "NULL" => return Some(("null", String::new())),
        "true" | "True" | "TRUE" => return Some(("bool", "true".into())),
        "false" | "False" | "FALSE" => return Some(("bool", "false".into())),
        ".nan" | ".NaN" | ".NAN" => return Some(("float", "nan".into())),
        _ => {}
    }
    let (neg, body) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    let int = |digits: &str, radix: u32| {
        let n = u128::from_str_radix(digits, radix).ok()?;
        Some((
            "int",
            format!("{}{n}", if neg && n != 0 { "-" } else { "" }),
        ))
    };
    if let Some(h) = v
        .strip_prefix("0x")
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return int(h, 16);
    }
    if let Some(o) = v
        .strip_prefix("0o")
        .filter(|o| !o.is_empty() && o.bytes().all(|b| (b'0'..=b'7').contains(&b)))
    {
        return int(o, 8);
    }
    if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        // Past u128: the digits without leading zeros are the canonical form.
        let trimmed = body.trim_start_matches('0');
        return int(body, 10)
            .or_else(|| Some(("int", format!("{}{trimmed}", if neg { "-" } else { "" }))));
    }
    if matches!(body, ".inf" | ".Inf" | ".INF") {
        return Some(("float", if neg { "-inf" } else { "inf" }.into()));
    }
    let float_like = body.bytes().any(|b| b.is_ascii_digit())
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
        && !body.starts_with(['e', 'E']);
    let f: f64 = v.parse().ok().filter(|_| float_like)?;
    Some(("float", format!("{f:?}")))
}

/// How a language spells comments and strings, for the balance scan.
#[derive(Clone, Copy)]
pub struct Lexis {
    pub line_comments: &'static [&'static str],
    pub block: Option<(&'static str, &'static str)>,
    pub nested_block: bool,
    /// Quote characters that open a string closed by the same character.
    pub quotes: &'static str,
    /// `'` opens a character literal only when it closes within 2 characters
    /// (Rust lifetimes, Lisp quote).
    pub tick_is_char: bool,
    pub triple_quotes: bool,
    /// Lisp character literals: `#\(` (Common Lisp, Scheme), `\(` (Clojure), `?(` (Emacs Lisp).
    pub char_prefix: &'static [&'static str],
}

pub fn lexis_of(lang: &str) -> Option<Lexis> {
    let c_like = Lexis {
        line_comments: &["//"],
        block: Some(("/*", "*/")),
        nested_block: false,
        quotes: "\"'`",
        tick_is_char: false,
        triple_quotes: false,
        char_prefix: &[],
    };
    let hash = Lexis {
        line_comments: &["#"],
        block: None,
        nested_block: false,
        quotes: "\"'",
        tick_is_char: false,
        triple_quotes: false,
        char_prefix: &[],
    };
    let lisp = |prefix: &'static [&'static str], block| Lexis {
        line_comments: &[";"],
        block,
        nested_block: true,
        quotes: "\"",
        tick_is_char: false,
        triple_quotes: false,
        char_prefix: prefix,
    };
    Some(match lang {
        "rust" => Lexis {
            nested_block: true,
            quotes: "\"",
            tick_is_char: true,
            ..c_like
        },
        "javascript" | "typescript" | "go" | "c" | "cpp" | "java" | "kotlin" | "csharp"
        | "swift" | "php" | "css" => c_like,
        "python" => Lexis {
            triple_quotes: true,
            ..hash
        },
        "ruby" | "perl" | "nix" | "cmake" => hash,
        // A shell ' inside a word ("don't" in a comment is skipped anyway) is rare
        // enough; `case x in a)` is not, so shell is not checked.
        "common-lisp" | "scheme" => lisp(&["#\\"], Some(("#|", "|#"))),
        "clojure" => lisp(&["\\"], None),
        "emacs-lisp" => lisp(&["?\\", "?"], None),
        "lua" => Lexis {
            line_comments: &["--"],
            block: None,
            quotes: "\"'",
            ..c_like
        },
        _ => return None,
    })
}

/// Unbalanced (), [], {} outside strings and comments.
pub fn balance(text: &str, lx: &Lexis) -> Vec<Diag> {
    let mut i = 0;
    let mut stack: Vec<(u8, usize)> = Vec::new();
    while i < text.len() {
        let step = match skip_literal(text, lx, i) {
            Some(step) => step,
            None => bracket(text, &mut stack, i).map(|()| i + 1),
        };
        match step {
            Ok(next) => i = next,
            Err(d) => return vec![d],
        }
    }
    stack
        .into_iter()
        .rev()
        .take(MAX_DIAGS)
        .map(|(o, p)| at(text, p, format!("'{}' is never closed", o as char)))
        .collect()
}

/// Where the literal or comment starting at `i` ends (a Lisp character, a line
/// or block comment, a character, a string), or what is wrong when it never
/// ends; None when code starts at `i`.
fn skip_literal(text: &str, lx: &Lexis, i: usize) -> Option<Result<usize, Diag>> {
    let b = text.as_bytes();
    let starts = |s: &str| b[i..].starts_with(s.as_bytes());
    for p in lx.char_prefix {
        if starts(p) && i + p.len() < b.len() {
            // The prefix and the one character after it.
            let ch_len = text[i + p.len()..].chars().next().map_or(1, char::len_utf8);
            return Some(Ok(i + p.len() + ch_len));
        }
    }
    if lx.line_comments.iter().any(|c| starts(c)) {
        let mut end = i;
        while end < b.len() && b[end] != b'\n' {
            end += 1;
        }
        return Some(Ok(end));
    }
    if let Some((open, close)) = lx.block
        && starts(open)
    {
        return Some(skip_block(text, lx.nested_block, i, (open, close)));
    }
    let c = b[i];
    if lx.tick_is_char && c == b'\'' {
        return Some(Ok(skip_tick(text, i)));
    }
    if lx.quotes.as_bytes().contains(&c) {
        return Some(skip_string(text, lx, i));
    }
    None
}

/// The end of the block comment opening at `from` (nested when `nested`).
fn skip_block(
    text: &str,
    nested: bool,
    from: usize,
    (open, close): (&str, &str),
) -> Result<usize, Diag> {
    let b = text.as_bytes();
    let starts = |i: usize, s: &str| b[i..].starts_with(s.as_bytes());
    let mut depth = 1;
    let mut i = from + open.len();
    while i < b.len() && depth > 0 {
        if starts(i, close) {
            depth -= 1;
            i += close.len();
        } else if nested && starts(i, open) {
            depth += 1;
            i += open.len();
        } else {
            i += 1;
        }
    }
    if depth > 0 {
        return Err(at(text, from, format!("unterminated comment {open}")));
    }
    Ok(i)
}

/// Past the `'` at `i`: past a whole character literal ('x', '\n', '\u{..}'),
/// past the tick alone when it starts no character ('a, a lifetime).
fn skip_tick(text: &str, i: usize) -> usize {
    let rest = &text[i + 1..];
    let mut it = rest.char_indices();
    match it.next() {
        Some((_, '\\')) => {
            if let Some(end) = rest[1..].find('\'') {
                return i + 1 + 1 + end + 1;
            }
        }
        Some((_, ch)) if rest[ch.len_utf8()..].starts_with('\'') => {
            return i + 1 + ch.len_utf8() + 1;
        }
        _ => {}
    }
    i + 1
}

/// The end of the string whose quote is at `from` (a triple quote where the
/// language has them).
fn skip_string(text: &str, lx: &Lexis, from: usize) -> Result<usize, Diag> {
    let b = text.as_bytes();
    let c = b[from];
    let triple = lx.triple_quotes && b[from..].starts_with(&[c, c, c]);
    let mut i = from + if triple { 3 } else { 1 };
    loop {
        if i >= b.len() {
            return Err(at(text, from, "unterminated string"));
        }
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if triple {
            if b[i..].starts_with(&[c, c, c]) {
                return Ok(i + 3);
            }
        } else if b[i] == c {
            return Ok(i + 1);
        } else if b[i] == b'\n' && c != b'`' && lx.quotes != "\"" {
            // Only Lisp, Rust and template strings span lines.
            return Err(at(text, from, "unterminated string"));
        }
        i += 1;
    }
}

/// An opening bracket at `i` goes on `stack`; a closing one takes its opener
/// off, or is the error when it closes another bracket or nothing.
fn bracket(text: &str, stack: &mut Vec<(u8, usize)>, i: usize) -> Result<(), Diag> {
    let c = text.as_bytes()[i];
    let want = match c {
        b'(' | b'[' | b'{' => {
            stack.push((c, i));
            return Ok(());
        }
        b')' => b'(',
        b']' => b'[',
        b'}' => b'{',
        _ => return Ok(()),
    };
    match stack.pop() {
        Some((o, _)) if o == want => Ok(()),
        Some((o, p)) => {
            let (l, col) = line_col(text, p);
            Err(at(
                text,
                i,
                format!(
                    "'{}' does not close the '{}' opened at line {l}, column {col}",
                    c as char, o as char
                ),
            ))
        }
        None => Err(at(text, i, format!("'{}' closes nothing", c as char))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balance_skips_strings_comments_and_lifetimes() {
        let rs = lexis_of("rust").unwrap();
        assert!(balance("fn f<'a>(x: &'a str) { let c = '}'; /* ) */ \"(\" }", &rs).is_empty());
        let d = balance("fn f() {\n  let x = (1;\n}\n", &rs);
        assert_eq!((d[0].line, d[0].column), (3, 1));
        let lisp = lexis_of("common-lisp").unwrap();
        assert!(balance("(a #\\( \"(\" ; (\n b)", &lisp).is_empty());
        assert_eq!(balance("(a (b)", &lisp)[0].column, 1);
    }

    #[test]
    fn toml_and_yaml_errors_have_positions() {
        assert!(toml("a = 1\n[t]\nb = \"x\"\n").is_empty());
        assert_eq!(toml("a = 1\nb = \n").first().map(|d| d.line), Some(2));
        assert_eq!(toml("a = 1\na = 2\n").first().map(|d| d.line), Some(2));
        assert_eq!(toml("s = \"\\q\"\n").len(), 1);
        assert!(yaml("a: [1, 2]\nb: |\n  text: [\nc: 'it''s'\n").is_empty());
        assert_eq!(yaml("a: [1, 2\n").first().map(|d| d.line), Some(2));
        assert_eq!(
            yaml("k: v: w\n").first().map(|d| (d.line, d.column)),
            Some((1, 5))
        );
        assert_eq!(yaml("a:\n\tb: 1\n").first().map(|d| d.line), Some(2));
        assert_eq!(yaml("a: \"open\n").len(), 1);
    }
}

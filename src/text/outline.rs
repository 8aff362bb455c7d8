//! Definitions in source files, found with the language table: what `code outline`
//! lists and what `read --symbol` / `edit --symbol` select.
//!
//! A definition starts on a line that a rule of `data/definitions.tsv` matches;
//! its end line is estimated by the rule's (or the language's) end rule: balanced
//! braces, indentation, balanced parentheses, or the next heading of the same or a
//! higher level. This is a heuristic scanner, not a parser: strings and comments
//! are skipped well enough for ordinary code, not for every corner of every
//! grammar. `outline_parsed` reads the definitions off the file's tree-sitter
//! tree instead where a grammar is compiled in (`syntax::defs`), and falls back
//! to these rules for the other languages.

use super::lang::{self, EndRule, Language};
use super::syntax::defs as syntax_defs;
use super::syntax::grammar::{self, Grammar};
use regex::Regex;
use std::sync::OnceLock;

const RULES: &str = include_str!("../../data/definitions.tsv");

/// One definition: its name, kind (function, method, struct, class, heading, ...),
/// lines, and container: the type a Go method's receiver or a C++ `Type::name`
/// names, else the nearest definition whose lines enclose it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Definition {
    pub name: String,
    pub kind: String,
    pub start_line: u64,
    pub end_line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// The name with its enclosing definitions' (`m::Type::method`,
    /// `Class.method`), from a grammar's tree (`outline_parsed`); `None` from
    /// the regex rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualified: Option<String>,
}

/// Why a file has no outline.
#[derive(Debug, Clone)]
pub enum OutlineError {
    /// No language of the table with definition rules covers this file name.
    UnsupportedLanguage(String),
}

struct Rule {
    kind: &'static str,
    end: Option<EndRule>,
    re: Regex,
}

/// The rules of `text` (every language's, or only `only`'s).
fn parse_rules(text: &'static str, only: Option<&str>) -> Result<Vec<Rule>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.splitn(4, '\t').collect();
        if only.is_some_and(|l| cols.first() != Some(&l)) {
            continue;
        }
        let [lang_name, kind, end, re] = cols.as_slice() else {
            return Err(format!(
                "definitions.tsv line {}: expected 4 columns",
                i + 1
            ));
        };
        if lang::named(lang_name).is_none() {
            return Err(format!(
                "definitions.tsv line {}: unknown language {lang_name}",
                i + 1
            ));
        }
        let end = match *end {
            "-" => None,
            e => Some(
                EndRule::parse(e)
                    .ok_or_else(|| format!("definitions.tsv line {}: end {e:?}", i + 1))?,
            ),
        };
        let re = Regex::new(re).map_err(|e| format!("definitions.tsv line {}: {e}", i + 1))?;
        if !re.capture_names().any(|n| n == Some("name")) {
            return Err(format!("definitions.tsv line {}: no `name` capture", i + 1));
        }
        out.push(Rule { kind, end, re });
    }
    Ok(out)
}

/// The languages with rules, each with its rules compiled the first time a file of
/// it is outlined: compiling the whole table took ~25 ms, and a call needs one
/// language's rules or none (`code defs` asks `supports` of every file name).
fn table() -> &'static [(&'static str, OnceLock<Vec<Rule>>)] {
    static T: OnceLock<Vec<(&'static str, OnceLock<Vec<Rule>>)>> = OnceLock::new();
    T.get_or_init(|| {
        let mut names: Vec<&'static str> = Vec::new();
        for line in RULES.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if let Some(name) = line.split('\t').next()
                && !names.contains(&name)
            {
                names.push(name);
            }
        }
        names.into_iter().map(|n| (n, OnceLock::new())).collect()
    })
}

/// A language's rules. Compiled in and parsed by a unit test; none is the
/// no-panic fallback.
fn rules_of(language: &str) -> &'static [Rule] {
    match table().iter().find(|(n, _)| *n == language) {
        Some((_, rules)) => {
            rules.get_or_init(|| parse_rules(RULES, Some(language)).unwrap_or_default())
        }
        None => &[],
    }
}

/// Whether the language has definition rules (`code outline` supports it).
pub fn supports(language: &Language) -> bool {
    table().iter().any(|(n, _)| *n == language.name)
}

/// The language `code outline` would use for this file name.
pub fn language_of(file_name: &str) -> Option<&'static Language> {
    let base = file_name.rsplit('/').next().unwrap_or(file_name);
    lang::of_file(base).filter(|l| supports(l))
}

/// Names a loose rule can catch that are statements, not definitions.
const NOT_NAMES: &[&str] = &[
    "if", "for", "while", "switch", "catch", "return", "else", "elif", "do", "try", "function",
    "sizeof", "typeof", "match", "loop", "with", "when", "unless", "until", "case", "delete",
    "throw", "await", "yield", "super", "this", "foreach", "using", "lock",
];

/// The definitions of `text`, the file being named `file_name` (for its language).
pub fn outline(file_name: &str, text: &str) -> Result<Vec<Definition>, OutlineError> {
    let language = language_of(file_name)
        .ok_or_else(|| OutlineError::UnsupportedLanguage(file_name.to_string()))?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    let my_rules: Vec<&Rule> = rules_of(language.name).iter().collect();
    let markdown = language.end == EndRule::Heading;
    // Decorators and triple-quoted strings are Python's (Ruby's `@x = 1` is no decorator).
    let python = language.name == "python";
    let mut fence: Option<&str> = None;
    // Inside a triple-quoted string (Python): its lines define nothing.
    let mut in_triple: Option<&str> = None;
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if python {
            if let Some(q) = in_triple {
                if line.matches(q).count() % 2 == 1 {
                    in_triple = None;
                }
                continue;
            }
            let opens = ["\"\"\"", "'''"].into_iter().find(|q| line.contains(q));
            if let Some(q) = opens
                && line.matches(q).count() % 2 == 1
            {
                in_triple = Some(q);
            }
        }
        if markdown {
            let t = line.trim_start();
            if let Some(f) = fence {
                if t.starts_with(f) {
                    fence = None;
                }
                continue;
            }
            if t.starts_with("```") || t.starts_with("~~~") {
                fence = Some(if t.starts_with("```") { "```" } else { "~~~" });
                continue;
            }
        }
        for rule in &my_rules {
            let Some(caps) = rule.re.captures(line) else {
                continue;
            };
            let Some(name) = caps.name("name").map(|m| m.as_str().trim()) else {
                continue;
            };
            if name.is_empty() || NOT_NAMES.contains(&name) {
                continue;
            }
            let end_rule = rule.end.unwrap_or(language.end);
            let end = match end_rule {
                EndRule::Braces => end_braces(&lines, i),
                EndRule::Indent => end_indent(&lines, i),
                EndRule::Parens => end_parens(&lines, i),
                EndRule::Heading => {
                    let level = caps.name("level").map_or(1, |m| m.len());
                    end_heading(&lines, i, level)
                }
                EndRule::None => end_continued(&lines, i),
            };
            // Decorators directly above (`@app.route(...)`) belong to the definition.
            let mut start = i;
            if python {
                let indent = indent_of(line);
                while start > 0
                    && lines
                        .get(start - 1)
                        .is_some_and(|l| l.trim_start().starts_with('@') && indent_of(l) == indent)
                {
                    start -= 1;
                }
            }
            // `void Foo::bar()` (C++) defines bar in Foo.
            let explicit = caps.name("container").map(|m| m.as_str().to_string());
            let (container, name) = match (explicit, name.rsplit_once("::")) {
                (Some(c), _) => (Some(c), name),
                (None, Some((c, n))) if !c.is_empty() && !n.is_empty() => (Some(c.to_string()), n),
                (None, _) => (None, name),
            };
            out.push(Definition {
                name: name.to_string(),
                kind: rule.kind.to_string(),
                start_line: start as u64 + 1,
                end_line: end as u64 + 1,
                container,
                qualified: None,
            });
            break;
        }
    }
    set_containers(&mut out, python);
    Ok(out)
}

/// The definitions of `text` by its compiled-in grammar when one covers the
/// file (kinds, containers and qualified names from the tree), else by the
/// regex rules (`outline`); a parse over the budget falls back too.
pub fn outline_parsed(file_name: &str, text: &str) -> Result<Vec<Definition>, OutlineError> {
    let base = file_name.rsplit('/').next().unwrap_or(file_name);
    if let Some(g) = Grammar::of_file(base) {
        let body = text.strip_prefix('\u{FEFF}').unwrap_or(text).as_bytes();
        if let Ok(tree) = grammar::parse(g, body) {
            return Ok(syntax_defs::definitions(g, &tree, body)
                .into_iter()
                .map(|d| Definition {
                    name: d.name,
                    kind: d.kind.to_string(),
                    start_line: d.start_line,
                    end_line: d.end_line,
                    container: d.container,
                    qualified: Some(d.qualified),
                })
                .collect());
        }
    }
    outline(file_name, text)
}

/// Whether `outer`'s lines enclose `inner`'s (and are not the same lines).
fn encloses(outer: &Definition, inner: &Definition) -> bool {
    outer.start_line <= inner.start_line
        && inner.end_line <= outer.end_line
        && (outer.start_line, outer.end_line) != (inner.start_line, inner.end_line)
}

/// Gives each definition without one the nearest enclosing definition as its
/// container; a Python function directly in a class is a method.
fn set_containers(defs: &mut [Definition], python: bool) {
    // Definitions come in start order, so the open ones form a stack.
    let mut open: Vec<usize> = Vec::new();
    for i in 0..defs.len() {
        while let Some(&top) = open.last() {
            if encloses(&defs[top], &defs[i]) {
                break;
            }
            open.pop();
        }
        if let Some(&top) = open.last() {
            if defs[i].container.is_none() {
                defs[i].container = Some(defs[top].name.clone());
            }
            if python && defs[i].kind == "function" && defs[top].kind == "class" {
                defs[i].kind = "method".to_string();
            }
        }
        open.push(i);
    }
}

/// The names around `d`, innermost first: its container's parts (`a::B` gives B,
/// a), then, while a definition of that name encloses the scope, that one's.
fn scope_names<'a>(all: &'a [Definition], d: &'a Definition) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    let mut scope = d;
    for _ in 0..all.len() {
        let Some(c) = scope.container.as_deref() else {
            break;
        };
        out.extend(qualified_parts(c).into_iter().rev());
        let last = c.rsplit("::").next().unwrap_or(c);
        let last = last.rsplit('.').next().unwrap_or(last);
        match all
            .iter()
            .filter(|x| x.name == last && encloses(x, scope))
            .min_by_key(|x| x.end_line - x.start_line)
        {
            Some(x) => scope = x,
            None => break,
        }
    }
    out
}

/// The definitions of `all` that `symbol` names (optionally of `kind`): the ones
/// named exactly `symbol` (or starting with it, with `prefix`); when none is, a
/// qualified `Outer.name` / `Outer::name` picks the `name`s whose scope names
/// hold the qualifiers, innermost first, in order (`Detector.DetectFiles` is the Go
/// method with a `Detector` receiver, `Greeter.run` the `run` inside `Greeter`).
pub fn pick(all: &[Definition], symbol: &str, kind: Option<&str>, prefix: bool) -> Vec<Definition> {
    let named = |d: &Definition, want: &str| {
        if prefix {
            d.name.starts_with(want)
        } else {
            d.name == want
        }
    };
    let of_kind = |d: &Definition| kind.is_none_or(|k| d.kind == k);
    let exact: Vec<Definition> = all
        .iter()
        .filter(|d| named(d, symbol) && of_kind(d))
        .cloned()
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    let parts: Vec<&str> = qualified_parts(symbol);
    let Some((last, outer)) = parts.split_last() else {
        return Vec::new();
    };
    if outer.is_empty() {
        return Vec::new();
    }
    all.iter()
        .filter(|d| named(d, last) && of_kind(d))
        .filter(|d| {
            let scope: Vec<&str> = match d.qualified.as_deref() {
                Some(q) => {
                    let mut p = qualified_parts(q);
                    p.pop();
                    p.reverse();
                    p
                }
                None => scope_names(all, d),
            };
            let mut at = scope.iter();
            outer.iter().rev().all(|q| at.any(|s| s == q))
        })
        .cloned()
        .collect()
}

/// `a::B.c` → [a, B, c].
pub fn qualified_parts(symbol: &str) -> Vec<&str> {
    symbol
        .split("::")
        .flat_map(|p| p.split('.'))
        .filter(|p| !p.is_empty())
        .collect()
}

/// The definitions named `symbol` (optionally of `kind`) in a file: see `pick`.
pub fn find_symbol(
    file_name: &str,
    text: &str,
    symbol: &str,
    kind: Option<&str>,
) -> Result<Vec<Definition>, OutlineError> {
    Ok(pick(&outline(file_name, text)?, symbol, kind, false))
}

/// For each of `defs`, `Container.name` when it has a container: the qualified
/// name `--symbol` accepts to pick it among same-named ones.
pub fn qualified_names(defs: &[Definition]) -> Vec<Option<String>> {
    defs.iter()
        .map(|d| {
            let c = d.container.as_deref()?;
            let last = c.rsplit("::").next().unwrap_or(c);
            Some(format!(
                "{}.{}",
                last.rsplit('.').next().unwrap_or(last),
                d.name
            ))
        })
        .collect()
}

/// A line ending in `\` continues on the next (C macros, shell).
fn end_continued(lines: &[&str], i: usize) -> usize {
    let mut j = i;
    while lines.get(j).is_some_and(|l| l.trim_end().ends_with('\\')) && j + 1 < lines.len() {
        j += 1;
    }
    j
}

/// How far a body's opening brace may be from the definition line.
const MAX_HEADER_LINES: usize = 12;

fn end_braces(lines: &[&str], i: usize) -> usize {
    let mut depth = 0i64;
    let mut opened = false;
    let mut in_block = false;
    let mut in_str: Option<char> = None;
    for (j, line) in lines.iter().enumerate().skip(i) {
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if in_block {
                if c == '*' && chars.peek() == Some(&'/') {
                    chars.next();
                    in_block = false;
                }
                continue;
            }
            if let Some(q) = in_str {
                if c == '\\' {
                    chars.next();
                } else if c == q {
                    in_str = None;
                }
                continue;
            }
            match c {
                '/' if chars.peek() == Some(&'/') => break,
                '/' if chars.peek() == Some(&'*') => {
                    chars.next();
                    in_block = true;
                }
                '#' if j != i && line.trim_start().starts_with('#') && !opened => break,
                '"' | '`' => in_str = Some(c),
                '\'' => {
                    // A char literal ('x', '\n'); a lone quote (a Rust lifetime) is skipped.
                    let mut look = chars.clone();
                    match look.next() {
                        Some('\\') => {
                            look.next();
                            while let Some(x) = look.next() {
                                if x == '\'' {
                                    chars = look;
                                    break;
                                }
                            }
                        }
                        Some(_) if look.next() == Some('\'') => {
                            chars.next();
                            chars.next();
                        }
                        _ => {}
                    }
                }
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => {
                    depth -= 1;
                    if opened && depth <= 0 {
                        return j;
                    }
                }
                ';' if !opened && depth == 0 => return j,
                _ => {}
            }
        }
        // Strings in most brace languages end at the line end unless raw/template.
        if in_str == Some('"') && !line.ends_with('\\') {
            in_str = None;
        }
        if !opened && j >= i + MAX_HEADER_LINES {
            return i;
        }
    }
    if opened {
        lines.len().saturating_sub(1)
    } else {
        i
    }
}

fn indent_of(line: &str) -> usize {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .map(|c| if c == '\t' { 8 } else { 1 })
        .sum()
}

fn bracket_balance(line: &str) -> i64 {
    line.chars()
        .map(|c| match c {
            '(' | '[' | '{' => 1,
            ')' | ']' | '}' => -1,
            _ => 0,
        })
        .sum()
}

fn end_indent(lines: &[&str], i: usize) -> usize {
    let Some(first) = lines.get(i) else { return i };
    let base = indent_of(first);
    let mut last = i;
    let mut j = i + 1;
    let mut depth = bracket_balance(first);
    while depth > 0 && j < lines.len() {
        depth += lines.get(j).map_or(0, |l| bracket_balance(l));
        last = j;
        j += 1;
    }
    let mut in_triple: Option<&str> = None;
    while let Some(line) = lines.get(j) {
        let t = line.trim();
        let triple = ["\"\"\"", "'''"].into_iter().find(|q| line.contains(q));
        if let Some(q) = in_triple {
            if line.matches(q).count() % 2 == 1 {
                in_triple = None;
            }
            last = j;
            j += 1;
            continue;
        }
        // Blank lines and comments (at any indentation) neither end nor extend a body.
        if t.is_empty() || t.starts_with('#') {
            j += 1;
            continue;
        }
        if indent_of(line) <= base {
            let closer = t == "end" || t.starts_with("end ") || t.starts_with('}');
            if closer && indent_of(line) == base {
                last = j;
            }
            break;
        }
        if let Some(q) = triple
            && line.matches(q).count() % 2 == 1
        {
            in_triple = Some(q);
        }
        last = j;
        j += 1;
    }
    last
}

fn end_parens(lines: &[&str], i: usize) -> usize {
    let mut depth = 0i64;
    let mut opened = false;
    let mut in_str = false;
    let mut in_block = false;
    for (j, line) in lines.iter().enumerate().skip(i) {
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if in_block {
                if c == '|' && chars.peek() == Some(&'#') {
                    chars.next();
                    in_block = false;
                }
                continue;
            }
            if in_str {
                if c == '\\' {
                    chars.next();
                } else if c == '"' {
                    in_str = false;
                }
                continue;
            }
            match c {
                ';' => break,
                '"' => in_str = true,
                '#' if chars.peek() == Some(&'|') => {
                    chars.next();
                    in_block = true;
                }
                '#' if chars.peek() == Some(&'\\') => {
                    chars.next();
                    chars.next();
                }
                '\\' => {
                    chars.next();
                }
                '(' | '[' => {
                    depth += 1;
                    opened = true;
                }
                ')' | ']' => {
                    depth -= 1;
                    if opened && depth <= 0 {
                        return j;
                    }
                }
                _ => {}
            }
        }
    }
    if opened {
        lines.len().saturating_sub(1)
    } else {
        i
    }
}

fn end_heading(lines: &[&str], i: usize, level: usize) -> usize {
    let mut fence: Option<&str> = None;
    let mut last_text = i;
    for (j, line) in lines.iter().enumerate().skip(i + 1) {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            last_text = j;
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(if t.starts_with("```") { "```" } else { "~~~" });
            last_text = j;
            continue;
        }
        let hashes = t.chars().take_while(|c| *c == '#').count();
        let is_heading = (1..=6).contains(&hashes)
            && indent_of(line) < 4
            && t[hashes..]
                .chars()
                .next()
                .is_none_or(|c| c == ' ' || c == '\t');
        if is_heading && hashes <= level {
            return last_text;
        }
        if !t.is_empty() {
            last_text = j;
        }
    }
    last_text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(file: &str, text: &str) -> Vec<(String, String, u64, u64)> {
        outline(file, text)
            .unwrap_or_default()
            .into_iter()
            .map(|d| (d.kind, d.name, d.start_line, d.end_line))
            .collect()
    }

    #[test]
    fn every_rule_parses() {
        let rules = parse_rules(RULES, None).expect("definitions.tsv parses");
        let rows = RULES
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count();
        assert_eq!(rules.len(), rows);
    }

    #[test]
    fn rust_braces() {
        let src = "pub struct A;\n\nimpl A {\n    pub fn new() -> A {\n        let s = \"}\";\n        A\n    }\n}\n\nfn tail<'a>(x: &'a str) -> char {\n    '}'\n}\n";
        assert_eq!(
            names("x.rs", src),
            vec![
                ("struct".into(), "A".into(), 1, 1),
                ("impl".into(), "A".into(), 3, 8),
                ("function".into(), "new".into(), 4, 7),
                ("function".into(), "tail".into(), 10, 12),
            ]
        );
    }

    #[test]
    fn python_indent() {
        let src = "class C:\n    def m(\n        self,\n    ):\n        \"\"\"Doc\n\nstill doc\n\"\"\"\n        return 1\n\n    x = 2\n\ndef f():\n    pass\n";
        assert_eq!(
            names("m.py", src),
            vec![
                ("class".into(), "C".into(), 1, 11),
                ("method".into(), "m".into(), 2, 9),
                ("function".into(), "f".into(), 13, 14),
            ]
        );
    }

    #[test]
    fn python_decorators_strings_and_column_0_comments() {
        let src = "@decorator\ndef decorated(x):\n    s = \"\"\"\ndef fake():\n    pass\n\"\"\"\n    return s\n\nclass A:\n    def m(self):\n        pass\n# comment at col 0\n    def n(self):\n        pass\n";
        assert_eq!(
            names("e.py", src),
            vec![
                ("function".into(), "decorated".into(), 1, 7),
                ("class".into(), "A".into(), 9, 14),
                ("method".into(), "m".into(), 10, 11),
                ("method".into(), "n".into(), 13, 14),
            ]
        );
        // Ruby's `@x = 1` above a def is an assignment, not a decorator.
        let rb = "class K\n  @x = 1\n  def run\n    1\n  end\nend\n";
        assert_eq!(names("k.rb", rb)[1], ("method".into(), "run".into(), 3, 5));
    }

    #[test]
    fn lisp_parens_and_markdown_headings() {
        let src = "(defun foo (x)\n  \"a ) doc\"\n  (bar x)) ; )\n(defmacro m () `(q))\n";
        assert_eq!(
            names("a.lisp", src),
            vec![
                ("function".into(), "foo".into(), 1, 3),
                ("macro".into(), "m".into(), 4, 4),
            ]
        );
        let md = "# Top\ntext\n## Sub\n```\n# not a heading\n```\nmore\n\n# Next\n";
        assert_eq!(
            names("r.md", md),
            vec![
                ("heading".into(), "Top".into(), 1, 7),
                ("heading".into(), "Sub".into(), 3, 7),
                ("heading".into(), "Next".into(), 9, 9),
            ]
        );
    }

    #[test]
    fn unsupported() {
        assert!(outline("data.json", "{}").is_err());
        assert!(outline("noext", "x").is_err());
        assert_eq!(
            find_symbol("a.go", "func F() {\n}\n", "F", None)
                .map(|v| v.len())
                .unwrap_or(0),
            1
        );
    }

    #[test]
    fn containers_and_qualified_picks() {
        let go = "type Detector struct {\n}\n\nfunc (d *Detector) DetectFiles(p []string) error {\n\treturn nil\n}\n\nfunc (Set[T]) Add() {}\n\nfunc DetectFiles() {}\n";
        let all = outline("d.go", go).unwrap();
        let c: Vec<(&str, Option<&str>)> = all
            .iter()
            .map(|d| (d.name.as_str(), d.container.as_deref()))
            .collect();
        assert_eq!(
            c,
            [
                ("Detector", None),
                ("DetectFiles", Some("Detector")),
                ("Add", Some("Set")),
                ("DetectFiles", None)
            ]
        );
        let picked = pick(&all, "Detector.DetectFiles", None, false);
        assert_eq!(picked.len(), 1);
        assert_eq!(picked[0].start_line, 4);
        assert_eq!(pick(&all, "DetectFiles", None, false).len(), 2);
        assert!(pick(&all, "Nope.DetectFiles", None, false).is_empty());
        let rs = "mod m {\n    impl A {\n        fn new() {}\n    }\n}\nfn new() {}\n";
        let all = outline("x.rs", rs).unwrap();
        assert_eq!(pick(&all, "A::new", None, false).len(), 1);
        assert_eq!(pick(&all, "m::A::new", None, false).len(), 1);
        assert_eq!(pick(&all, "m::new", None, false).len(), 1);
        assert!(pick(&all, "A::m::new", None, false).is_empty());
        let cpp = "void ns::Foo::bar(int x) {\n}\n";
        let all = outline("a.cpp", cpp).unwrap();
        assert_eq!(all[0].name, "bar");
        assert_eq!(all[0].container.as_deref(), Some("ns::Foo"));
        assert_eq!(pick(&all, "Foo::bar", None, false).len(), 1);
        assert_eq!(pick(&all, "ns::Foo::bar", None, false).len(), 1);
        assert_eq!(qualified_names(&all), [Some("Foo.bar".to_string())]);
    }
}

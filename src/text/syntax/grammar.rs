//! The compiled-in tree-sitter grammars (Rust, Python, Go, JavaScript,
//! TypeScript/TSX, Java, C, C++, Ruby): which grammar a file name gets, a parse
//! within a byte and time budget, and the first syntax error of a tree (line,
//! character column, what is wrong, the token a repair inserts when the grammar
//! says one is missing). Nothing here runs until a command asks for a parse, so
//! the grammars cost other commands nothing at start-up.

use super::super::lang;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
pub use tree_sitter::{Node, Tree};

/// A grammar compiled into the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    Rust,
    Python,
    Go,
    JavaScript,
    TypeScript,
    Tsx,
    Java,
    C,
    Cpp,
    Ruby,
}

/// Every grammar, for listings and tests.
pub const ALL: &[Grammar] = &[
    Grammar::Rust,
    Grammar::Python,
    Grammar::Go,
    Grammar::JavaScript,
    Grammar::TypeScript,
    Grammar::Tsx,
    Grammar::Java,
    Grammar::C,
    Grammar::Cpp,
    Grammar::Ruby,
];

impl Grammar {
    /// The grammar of a language of the table (`lang::Language::name`).
    pub fn of_language(name: &str) -> Option<Grammar> {
        Some(match name {
            "rust" => Grammar::Rust,
            "python" => Grammar::Python,
            "go" => Grammar::Go,
            "javascript" => Grammar::JavaScript,
            "typescript" => Grammar::TypeScript,
            "java" => Grammar::Java,
            "c" => Grammar::C,
            "cpp" => Grammar::Cpp,
            "ruby" => Grammar::Ruby,
            _ => return None,
        })
    }

    /// The grammar of a file, from its base name (a `.tsx` file gets TSX).
    pub fn of_file(base_name: &str) -> Option<Grammar> {
        let base = base_name.rsplit('/').next().unwrap_or(base_name);
        let g = Grammar::of_language(lang::of_file(base)?.name)?;
        let tsx = base
            .rsplit_once('.')
            .is_some_and(|(_, e)| e.eq_ignore_ascii_case("tsx"));
        Some(if g == Grammar::TypeScript && tsx {
            Grammar::Tsx
        } else {
            g
        })
    }

    /// The grammar's name as the language table spells it (`tsx` for TSX).
    pub fn name(self) -> &'static str {
        match self {
            Grammar::Rust => "rust",
            Grammar::Python => "python",
            Grammar::Go => "go",
            Grammar::JavaScript => "javascript",
            Grammar::TypeScript => "typescript",
            Grammar::Tsx => "tsx",
            Grammar::Java => "java",
            Grammar::C => "c",
            Grammar::Cpp => "cpp",
            Grammar::Ruby => "ruby",
        }
    }

    /// A second grammar worth trying when this one fails: a `.h` file may be C++.
    pub fn fallback(self, base_name: &str) -> Option<Grammar> {
        let header = base_name
            .rsplit_once('.')
            .is_some_and(|(_, e)| e.eq_ignore_ascii_case("h"));
        (self == Grammar::C && header).then_some(Grammar::Cpp)
    }

    fn language(self) -> tree_sitter::Language {
        match self {
            Grammar::Rust => tree_sitter_rust::LANGUAGE.into(),
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::Go => tree_sitter_go::LANGUAGE.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Grammar::Java => tree_sitter_java::LANGUAGE.into(),
            Grammar::C => tree_sitter_c::LANGUAGE.into(),
            Grammar::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Grammar::Ruby => tree_sitter_ruby::LANGUAGE.into(),
        }
    }
}

/// How much one parse may take.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub max_bytes: usize,
    pub max_time: Duration,
}

impl Default for Budget {
    /// 8 MiB and 2 s: far above ordinary source files, well below a stuck call.
    fn default() -> Self {
        Budget {
            max_bytes: 8 << 20,
            max_time: Duration::from_secs(2),
        }
    }
}

/// Why a parse gave no tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The text is over the byte budget.
    TooLarge { len: usize, max: usize },
    /// The parse ran past the time budget.
    TimedOut { ms: u128 },
    /// The grammar could not be loaded (an ABI the library does not read).
    Grammar(String),
}

/// Parses `bytes` with grammar `g` within `budget`.
pub fn parse_within(g: Grammar, bytes: &[u8], budget: Budget) -> Result<Tree, Box<ParseError>> {
    if bytes.len() > budget.max_bytes {
        return Err(Box::new(ParseError::TooLarge {
            len: bytes.len(),
            max: budget.max_bytes,
        }));
    }
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&g.language())
        .map_err(|e| Box::new(ParseError::Grammar(e.to_string())))?;
    let started = Instant::now();
    let mut over = false;
    let mut progress = |_: &tree_sitter::ParseState| {
        if started.elapsed() > budget.max_time {
            over = true;
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let len = bytes.len();
    let tree = parser.parse_with_options(
        &mut |i, _| bytes.get(i..len).unwrap_or_default(),
        None,
        Some(tree_sitter::ParseOptions::new().progress_callback(&mut progress)),
    );
    match tree {
        Some(t) => Ok(t),
        None if over => Err(Box::new(ParseError::TimedOut {
            ms: budget.max_time.as_millis(),
        })),
        None => Err(Box::new(ParseError::Grammar(format!(
            "the {} grammar gave no tree",
            g.name()
        )))),
    }
}

/// Parses `bytes` with grammar `g` within the default budget.
pub fn parse(g: Grammar, bytes: &[u8]) -> Result<Tree, Box<ParseError>> {
    parse_within(g, bytes, Budget::default())
}

/// The first syntax error of a parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters.
    pub column: usize,
    /// What is wrong: "missing `}`" or "unexpected `...`".
    pub message: String,
    /// The token the grammar expected here, when it says one is missing: the
    /// smallest repair inserts it.
    pub missing: Option<String>,
}

/// The 1-based line and character column of byte `offset` of `text`.
fn line_col(text: &[u8], offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or_default();
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let ls = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(before.get(ls..).unwrap_or_default())
        .chars()
        .count()
        + 1;
    (line, col)
}

/// At most this many characters of a token are quoted in a message.
const QUOTE_CHARS: usize = 24;

fn quote(text: &[u8], node: Node) -> String {
    let raw = text.get(node.byte_range()).unwrap_or_default();
    let s = String::from_utf8_lossy(raw);
    let first_line = s.lines().next().unwrap_or("").trim();
    let mut q: String = first_line.chars().take(QUOTE_CHARS).collect();
    if first_line.chars().count() > QUOTE_CHARS {
        q.push('…');
    }
    q
}

/// The first leaf under `node` (itself when it has no children).
fn first_leaf(node: Node) -> Node {
    let mut n = node;
    while let Some(c) = n.child(0) {
        n = c;
    }
    n
}

/// An error node that runs to the end of the text is often a bracket never
/// closed: the delimiter balance (strings and comments skipped) names the
/// opener, and the repair is its closing token at the end.
fn unclosed_at_end(g: Grammar, node: Node, text: &[u8]) -> Option<SyntaxError> {
    let body = std::str::from_utf8(text).ok()?;
    if node.end_byte() < body.trim_end().len() {
        return None;
    }
    let lang = match g {
        Grammar::Tsx => "typescript",
        g => g.name(),
    };
    let lx = super::lexis_of(lang)?;
    let diags = super::balance(body, &lx);
    let first = diags.first()?;
    let open = first
        .message
        .strip_prefix("'")?
        .split('\'')
        .next()?
        .chars()
        .next()?;
    if !first.message.ends_with("is never closed") {
        return None;
    }
    let close = match open {
        '(' => ")",
        '[' => "]",
        _ => "}",
    };
    let (line, column) = line_col(text, text.len());
    Some(SyntaxError {
        line,
        column,
        message: format!(
            "missing `{close}`: the `{open}` at line {}, column {} is never closed",
            first.line, first.column
        ),
        missing: Some(close.to_string()),
    })
}

/// The first error of `tree` (parsed from `text`) in document order; `None`
/// when the text parsed cleanly.
pub fn first_error(tree: &Tree, text: &[u8]) -> Option<SyntaxError> {
    first_error_in(None, tree, text)
}

/// `first_error` of a tree parsed with `g`: an error that runs to the end of
/// the text and leaves a bracket open is answered as that bracket missing.
pub fn diagnose(g: Grammar, tree: &Tree, text: &[u8]) -> Option<SyntaxError> {
    first_error_in(Some(g), tree, text)
}

fn first_error_in(g: Option<Grammar>, tree: &Tree, text: &[u8]) -> Option<SyntaxError> {
    let root = tree.root_node();
    if !root.has_error() {
        return None;
    }
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_missing() {
            let token = node.kind().to_string();
            let (line, column) = line_col(text, node.start_byte());
            return Some(SyntaxError {
                line,
                column,
                message: format!("missing `{token}`"),
                missing: Some(token),
            });
        }
        if node.is_error() {
            if let Some(e) = g.and_then(|g| unclosed_at_end(g, node, text)) {
                return Some(e);
            }
            let leaf = first_leaf(node);
            let (line, column) = line_col(text, leaf.start_byte());
            let q = quote(text, leaf);
            let message = if q.is_empty() {
                "unexpected end of input".to_string()
            } else {
                format!("unexpected `{q}`")
            };
            return Some(SyntaxError {
                line,
                column,
                message,
                missing: None,
            });
        }
        // Down into a child that holds an error, else on to the next sibling
        // (up until one exists).
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                if cursor.node().has_error() || cursor.node().is_missing() {
                    break;
                }
                continue;
            }
            if !cursor.goto_parent() {
                // The root says it has an error but none was found: report its start.
                return Some(SyntaxError {
                    line: 1,
                    column: 1,
                    message: "the grammar reports an error".into(),
                    missing: None,
                });
            }
        }
    }
}

/// The grammar and tree of a file, when a compiled-in grammar covers its name
/// and parses it within the default budget (else the caller falls back to regex).
/// A `.h` file that C parses with more errors than C++ is C++ (a class, a
/// namespace, a template; a macro such as `class EXPORT A` may leave errors in
/// both): read as C its members would be missed.
pub fn parse_file(base_name: &str, src: &[u8]) -> Option<(Grammar, Tree)> {
    let g = Grammar::of_file(base_name)?;
    let tree = parse(g, src).ok()?;
    if tree.root_node().has_error()
        && let Some(other) = g.fallback(base_name)
        && let Ok(t) = parse(other, src)
        && errors(&t) < errors(&tree)
    {
        return Some((other, t));
    }
    Some((g, tree))
}

/// How many error and missing nodes a tree holds.
fn errors(tree: &Tree) -> usize {
    let mut n = 0;
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            n += 1;
        }
        if node.has_error() {
            let mut c = node.walk();
            stack.extend(node.children(&mut c));
        }
    }
    n
}

/// Parses `text` as the file `base_name` and answers its first error: `Ok(None)`
/// for a clean parse, `Err` when no grammar covers the file or the parse gave up.
/// A `.h` file that fails as C is tried as C++ and fails only if both do.
pub fn check_file(base_name: &str, text: &[u8]) -> Result<Option<SyntaxError>, Box<CheckError>> {
    let g = Grammar::of_file(base_name).ok_or(Box::new(CheckError::NoGrammar))?;
    let text = text.strip_prefix(super::super::BOM).unwrap_or(text);
    let first = check_with(g, text)?;
    match (first, g.fallback(base_name)) {
        (Some(e), Some(other)) => match check_with(other, text) {
            Ok(None) => Ok(None),
            _ => Ok(Some(e)),
        },
        (first, _) => Ok(first),
    }
}

fn check_with(g: Grammar, text: &[u8]) -> Result<Option<SyntaxError>, Box<CheckError>> {
    let tree = parse(g, text).map_err(|e| Box::new(CheckError::Parse(*e)))?;
    Ok(diagnose(g, &tree, text))
}

/// Why `check_file` has no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckError {
    /// No compiled-in grammar covers the file name.
    NoGrammar,
    /// The parse gave up (budget or grammar).
    Parse(ParseError),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(name: &str, src: &str) -> Option<SyntaxError> {
        check_file(name, src.as_bytes()).expect("grammar")
    }

    #[test]
    fn every_grammar_loads_and_parses_empty_text() {
        for g in ALL {
            let t = parse(*g, b"").expect("parses");
            assert!(first_error(&t, b"").is_none(), "{}", g.name());
        }
    }

    #[test]
    fn file_names_pick_grammars() {
        assert_eq!(Grammar::of_file("a/b/main.rs"), Some(Grammar::Rust));
        assert_eq!(Grammar::of_file("x.tsx"), Some(Grammar::Tsx));
        assert_eq!(Grammar::of_file("x.ts"), Some(Grammar::TypeScript));
        assert_eq!(Grammar::of_file("x.hpp"), Some(Grammar::Cpp));
        assert_eq!(Grammar::of_file("Gemfile"), Some(Grammar::Ruby));
        assert_eq!(Grammar::of_file("x.lua"), None);
        assert_eq!(Grammar::of_file("README"), None);
    }

    #[test]
    fn clean_sources_have_no_error() {
        let cases = [
            ("a.rs", "fn main() { let x = 1; }\n"),
            ("a.py", "def f(x):\n    return x\n"),
            ("a.go", "package m\nfunc F() int { return 1 }\n"),
            ("a.js", "function f() { return 1; }\n"),
            ("a.ts", "function f(x: number): number { return x; }\n"),
            ("a.tsx", "const A = () => <div>hi</div>;\n"),
            ("A.java", "class A { void f() {} }\n"),
            ("a.c", "int f(void) { return 0; }\n"),
            ("a.cpp", "namespace n { int f() { return 0; } }\n"),
            ("a.rb", "def f(x)\n  x\nend\n"),
            ("a.h", "class A { public: int x; };\n"),
        ];
        for (name, src) in cases {
            assert_eq!(err(name, src), None, "{name}");
        }
    }

    #[test]
    fn errors_have_line_column_and_missing_token() {
        let e = err("a.rs", "fn main() {\n    let x = 1;\n").expect("error");
        assert_eq!(e.missing.as_deref(), Some("}"));
        assert_eq!(e.line, 3);
        let e = err("a.py", "def f(x):\n    return (x\n").expect("error");
        assert!(e.line >= 1, "{e:?}");
        let e = err("a.go", "package m\nfunc F() int { return 1 \n").expect("error");
        assert_eq!(e.missing.as_deref(), Some("}"));
        let e = err("a.js", "let x = ;\n").expect("error");
        assert_eq!((e.line, e.column), (1, 7), "{e:?}");
    }

    #[test]
    fn budget_refuses_large_text() {
        let b = Budget {
            max_bytes: 4,
            max_time: Duration::from_secs(1),
        };
        assert_eq!(
            parse_within(Grammar::Rust, b"fn main() {}", b).map(|_| ()),
            Err(Box::new(ParseError::TooLarge { len: 12, max: 4 }))
        );
    }
}

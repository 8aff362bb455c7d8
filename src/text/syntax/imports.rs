//! Where a file's imported names come from: each name a Python or
//! JavaScript/TypeScript import binds, with the top-level module it is read
//! from when the import is absolute (`import requests` binds `requests` from
//! `requests`; `from a.b import c as d` binds `d` from `a`; `import x from
//! 'lodash/fp'` and `const x = require('lodash')` (or `const {x} = ...`) bind
//! `x` from `lodash`). A
//! relative import (`from . import x`, `'./x'`) names the repository itself and
//! is not listed. Go: `import "net/http"` binds `http` (or its alias) from
//! `http`, the package's directory (a `/v2` or `.v2` suffix dropped); Java:
//! `import java.util.List;` binds `List` from `List` (the class, told apart by
//! its file's stem; static and `*` imports are not listed). Whether a module is
//! the repository's own is the caller's matter ([`own_modules`], its files'
//! names); the other grammars are not read (C's includes bind no name).

use super::grammar::{Grammar, Node, Tree};

fn text(n: Node, src: &[u8]) -> String {
    String::from_utf8_lossy(src.get(n.byte_range()).unwrap_or_default()).into_owned()
}

/// The first identifier of a dotted name (`a` of `a.b.c`).
fn top(n: Node, src: &[u8]) -> Option<String> {
    let t = text(n, src);
    t.split('.')
        .next()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The module a JS/TS specifier string names: None when relative or absolute.
fn js_module(spec: Node, src: &[u8]) -> Option<String> {
    let s = text(spec, src);
    let s = s.trim_matches(['"', '\'', '`']);
    if s.is_empty() || s.starts_with('.') || s.starts_with('/') {
        return None;
    }
    s.split('/').next().map(str::to_string)
}

/// What a file's absolute imports bring in.
#[derive(Debug, Default)]
pub struct Imports {
    /// (bound name, top-level module) of every absolute import.
    pub bound: Vec<(String, String)>,
    /// (start, end, top-level module): the bytes of each absolute import's
    /// names (a Python import's dotted name, a whole `from m import ...` or JS
    /// `import`/`export ... from`, a `require` pattern). An identifier inside
    /// one names the module's member, not the repository's own symbol, even
    /// when the import binds another name (`get` of `get as g`).
    pub spans: Vec<(usize, usize, String)>,
}

impl Imports {
    /// The module of the absolute import whose names hold byte `at`.
    pub fn span_module(&self, at: usize) -> Option<&String> {
        self.spans
            .iter()
            .find(|(a, b, _)| at >= *a && at < *b)
            .map(|s| &s.2)
    }
}

/// (bound name, top-level module) of every absolute import in the file.
pub fn absolute_imports(g: Grammar, tree: &Tree, src: &[u8]) -> Vec<(String, String)> {
    read(g, tree, src).bound
}

/// The names and spans of every absolute import in the file.
pub fn read(g: Grammar, tree: &Tree, src: &[u8]) -> Imports {
    let mut out = Imports::default();
    let mut stack = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(n) = stack.pop() {
        match (g, n.kind()) {
            (Grammar::Python, "import_statement") => python_import(n, src, &mut out),
            (Grammar::Python, "import_from_statement") => python_from(n, src, &mut out),
            (Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx, "import_statement") => {
                js_import(n, src, &mut out)
            }
            (Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx, "export_statement")
                if n.child_by_field_name("source").is_some() =>
            {
                js_reexport(n, src, &mut out)
            }
            (Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx, "variable_declarator") => {
                js_require(n, src, &mut out);
                stack.extend(n.named_children(&mut cursor));
            }
            (Grammar::Go, "import_spec") => go_import(n, src, &mut out),
            (Grammar::Java, "import_declaration") => java_import(n, src, &mut out),
            (
                Grammar::Python
                | Grammar::JavaScript
                | Grammar::TypeScript
                | Grammar::Tsx
                | Grammar::Go
                | Grammar::Java,
                _,
            ) => stack.extend(n.named_children(&mut cursor)),
            _ => {}
        }
    }
    out
}

impl Imports {
    fn bind(&mut self, name: String, module: &str) {
        self.bound.push((name, module.to_string()));
    }
    fn span(&mut self, n: Node, module: &str) {
        self.spans
            .push((n.start_byte(), n.end_byte(), module.to_string()));
    }
}

fn python_import(n: Node, src: &[u8], out: &mut Imports) {
    let mut c = n.walk();
    for name in n.children_by_field_name("name", &mut c) {
        let (module, bound) = match name.kind() {
            "aliased_import" => (
                name.child_by_field_name("name"),
                name.child_by_field_name("alias").map(|a| text(a, src)),
            ),
            _ => (Some(name), top(name, src)),
        };
        if let Some(m) = module
            && let Some(t) = top(m, src)
        {
            out.span(m, &t);
            if let Some(b) = bound {
                out.bind(b, &t);
            }
        }
    }
}

fn python_from(n: Node, src: &[u8], out: &mut Imports) {
    let Some(module) = n.child_by_field_name("module_name") else {
        return;
    };
    if module.kind() == "relative_import" {
        return;
    }
    let Some(m) = top(module, src) else { return };
    out.span(n, &m);
    let mut c = n.walk();
    for name in n.children_by_field_name("name", &mut c) {
        let bound = match name.kind() {
            "aliased_import" => name.child_by_field_name("alias").map(|a| text(a, src)),
            _ => text(name, src).rsplit('.').next().map(str::to_string),
        };
        if let Some(b) = bound {
            out.bind(b, &m);
        }
    }
}

fn js_import(n: Node, src: &[u8], out: &mut Imports) {
    let Some(m) = n
        .child_by_field_name("source")
        .and_then(|s| js_module(s, src))
    else {
        return;
    };
    out.span(n, &m);
    let mut stack: Vec<Node> = Vec::new();
    let mut c = n.walk();
    stack.extend(
        n.named_children(&mut c)
            .filter(|x| x.kind() == "import_clause"),
    );
    while let Some(x) = stack.pop() {
        match x.kind() {
            "identifier" => out.bind(text(x, src), &m),
            "import_specifier" => {
                if let Some(b) = x
                    .child_by_field_name("alias")
                    .or_else(|| x.child_by_field_name("name"))
                {
                    out.bind(text(b, src), &m);
                }
            }
            _ => {
                let mut c2 = x.walk();
                stack.extend(x.named_children(&mut c2));
            }
        }
    }
}

/// `export { a as b } from 'mod'`: binds nothing here, names mod's members.
fn js_reexport(n: Node, src: &[u8], out: &mut Imports) {
    if let Some(m) = n
        .child_by_field_name("source")
        .and_then(|s| js_module(s, src))
    {
        out.span(n, &m);
    }
}

/// `const x = require('mod')`.
fn js_require(n: Node, src: &[u8], out: &mut Imports) {
    let (Some(name), Some(value)) = (
        n.child_by_field_name("name"),
        n.child_by_field_name("value"),
    ) else {
        return;
    };
    if !matches!(name.kind(), "identifier" | "object_pattern") || value.kind() != "call_expression"
    {
        return;
    }
    let callee = value.child_by_field_name("function");
    if !callee.is_some_and(|f| text(f, src) == "require") {
        return;
    }
    let spec = value
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
        .filter(|s| s.kind() == "string");
    let Some(m) = spec.and_then(|s| js_module(s, src)) else {
        return;
    };
    out.span(name, &m);
    if name.kind() == "identifier" {
        out.bind(text(name, src), &m);
        return;
    }
    // `const {a, b: c} = require('mod')` binds a and c.
    let mut c = name.walk();
    for p in name.named_children(&mut c) {
        let bound = match p.kind() {
            "shorthand_property_identifier_pattern" => Some(p),
            "pair_pattern" => p.child_by_field_name("value"),
            _ => None,
        };
        if let Some(b) = bound.filter(|b| b.kind() == "identifier" || p == *b) {
            out.bind(text(b, src), &m);
        }
    }
}

/// `import "a/b/http"` or `import h "a/b/http"`: the bound name and the
/// package's directory name.
fn go_import(n: Node, src: &[u8], out: &mut Imports) {
    let Some(path) = n.child_by_field_name("path") else {
        return;
    };
    let p = text(path, src);
    let mut parts = p.trim_matches(['"', '`']).rsplit('/');
    let mut dir = parts.next().unwrap_or_default();
    let versioned =
        |d: &str| d.len() > 1 && d.starts_with('v') && d[1..].bytes().all(|b| b.is_ascii_digit());
    if versioned(dir) {
        dir = parts.next().unwrap_or_default();
    }
    let dir = match dir.rsplit_once('.') {
        Some((head, v)) if versioned(v) => head,
        _ => dir,
    };
    if dir.is_empty() {
        return;
    }
    let bound = match n.child_by_field_name("name") {
        Some(a) if a.kind() == "package_identifier" => text(a, src),
        Some(_) => return,
        None => dir.to_string(),
    };
    out.span(n, dir);
    out.bind(bound, dir);
}

/// `import a.b.C;`: binds `C` from `C` (its file's stem when it is ours).
fn java_import(n: Node, src: &[u8], out: &mut Imports) {
    let mut c = n.walk();
    if n.children(&mut c)
        .any(|x| matches!(x.kind(), "static" | "asterisk"))
    {
        return;
    }
    let mut c = n.walk();
    let Some(name) = n
        .named_children(&mut c)
        .find(|x| matches!(x.kind(), "scoped_identifier" | "identifier"))
    else {
        return;
    };
    let last = name.child_by_field_name("name").unwrap_or(name);
    let class = text(last, src);
    out.span(n, &class);
    out.bind(class.clone(), &class);
}

/// The names a module of the repository may go by: every component of the
/// paths (relative to `root`) of `files`, up to its first dot. An import from
/// a module not among them reads an external library.
pub fn own_modules<'a>(
    root: &std::path::Path,
    files: impl IntoIterator<Item = &'a std::path::Path>,
) -> std::collections::HashSet<String> {
    let mut own = std::collections::HashSet::new();
    for p in files {
        let rel = p.strip_prefix(root).unwrap_or(p);
        for c in rel.components() {
            let s = c.as_os_str().to_string_lossy();
            own.insert(s.split('.').next().unwrap_or(&s).to_string());
        }
    }
    own
}

#[cfg(test)]
mod tests {
    use super::super::grammar::parse;
    use super::*;

    fn imports(g: Grammar, src: &str) -> Vec<(String, String)> {
        let t = parse(g, src.as_bytes()).expect("parse");
        let mut v = absolute_imports(g, &t, src.as_bytes());
        v.sort();
        v
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = v
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn python_absolute_imports_and_not_relative_ones() {
        let src = "import requests\nimport os.path as p, json\nfrom a.b import c, d as e\nfrom . import mine\nfrom .x import y\n";
        assert_eq!(
            imports(Grammar::Python, src),
            pairs(&[
                ("requests", "requests"),
                ("p", "os"),
                ("json", "json"),
                ("c", "a"),
                ("e", "a"),
            ])
        );
    }

    #[test]
    fn js_bare_specifiers_and_require_but_not_relative_paths() {
        let src = "import axios from 'axios';\nimport * as fp from \"lodash/fp\";\nimport { get as g, put } from 'http';\nimport local from './local';\nconst r = require('request');\nconst m = require('./m');\nconst { get, post: p } = require('got');\n";
        assert_eq!(
            imports(Grammar::JavaScript, src),
            pairs(&[
                ("get", "got"),
                ("p", "got"),
                ("axios", "axios"),
                ("fp", "lodash"),
                ("put", "http"),
                ("g", "http"),
                ("r", "request"),
            ])
        );
    }

    #[test]
    fn go_packages_and_java_classes() {
        let src = "package m\nimport (\n\t\"fmt\"\n\tyaml \"gopkg.in/yaml.v3\"\n\t\"github.com/x/mux/v2\"\n\t_ \"embed\"\n)\n";
        assert_eq!(
            imports(Grammar::Go, src),
            pairs(&[("fmt", "fmt"), ("yaml", "yaml"), ("mux", "mux")])
        );
        let src = "import java.util.List;\nimport static org.junit.Assert.assertEquals;\nimport java.io.*;\nclass A {}\n";
        assert_eq!(imports(Grammar::Java, src), pairs(&[("List", "List")]));
    }
}

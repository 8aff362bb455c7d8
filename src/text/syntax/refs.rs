//! Occurrences of one name in a tree-sitter tree: each identifier spelled NAME,
//! classified (definition, import, call, type, other) from its place in the
//! tree, plus the whole-word mentions inside strings and comments; and which of
//! them a function-local binding captures (a parameter or local `foo` is not the
//! module-level `foo`). Scopes are resolved for Python (parameters, assignment
//! targets, `for`/`with`/`except` names, local imports and defs, minus
//! `global`/`nonlocal`), JavaScript/TypeScript (parameters, `var`/`let`/`const`,
//! local function declarations, `catch` names) and Rust (parameters, closure
//! parameters, `let` from the end of its statement, `for` patterns), and Go,
//! Java, C, C++ and Ruby through `scopes`. A C++ `::name` and a Ruby `name(args)`
//! are never a local.
//! The walk is iterative.

use super::grammar::{Grammar, Node, Tree};
use super::scopes::{self, Scope, capturing, enclosing};

/// What an occurrence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RefKind {
    Definition,
    Import,
    Call,
    Type,
    Other,
    String,
    Comment,
}

impl RefKind {
    pub fn name(self) -> &'static str {
        match self {
            RefKind::Definition => "definition",
            RefKind::Import => "import",
            RefKind::Call => "call",
            RefKind::Type => "type",
            RefKind::Other => "other",
            RefKind::String => "string",
            RefKind::Comment => "comment",
        }
    }
}

/// One occurrence of the name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// Byte range of the name in the source.
    pub start: usize,
    pub end: usize,
    /// 1-based line.
    pub line: u64,
    pub kind: RefKind,
    /// Bound by a parameter or local of an enclosing function: another symbol.
    pub local: bool,
    /// The byte range where the local binding that captures it holds (the
    /// innermost one), when `local`: occurrences with one scope are one symbol.
    pub scope: Option<(usize, usize)>,
    /// A member access (`x.name`, `x->name`): the object's name, when it is a
    /// plain identifier, else empty.
    pub member_of: Option<Option<String>>,
    /// Inside a class/struct/impl body (a method or field definition).
    pub in_type: bool,
}

impl Occurrence {
    /// A bare name that an import of the same name in its file binds: not a
    /// member, and no definition of its own (a Python `def` may shadow an
    /// import; a method or field is the class's; a JS `const {x} = require()`
    /// is the import).
    pub fn bound_by_import(&self, g: Grammar) -> bool {
        self.member_of.is_none()
            && !(self.kind == RefKind::Definition && (g == Grammar::Python || self.in_type))
    }
}

const IDENT_KINDS: &[&str] = &[
    "identifier",
    "type_identifier",
    "field_identifier",
    "property_identifier",
    "shorthand_property_identifier",
    "shorthand_property_identifier_pattern",
    "private_property_identifier",
    "constant",
    "namespace_identifier",
    "package_identifier",
];

const STRING_KINDS: &[&str] = &[
    "string",
    "string_literal",
    "raw_string_literal",
    "template_string",
    "interpreted_string_literal",
    "char_literal",
    "concatenated_string",
];

const INTERPOLATION_KINDS: &[&str] = &["interpolation", "template_substitution"];

const IMPORT_KINDS: &[&str] = &[
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "use_declaration",
    "import_declaration",
    "import_spec",
    "extern_crate_declaration",
    "export_clause",
];

const FUNCTION_KINDS: &[&str] = &[
    "function_definition",
    "lambda",
    "function_declaration",
    "function_expression",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
    "generator_function",
    "function_item",
    "closure_expression",
    "method_declaration",
    "constructor_declaration",
    "func_literal",
    "lambda_expression",
    "method",
    "singleton_method",
];

const TYPE_BODY_KINDS: &[&str] = &[
    "class_definition",
    "class_declaration",
    "class_body",
    "impl_item",
    "trait_item",
    "struct_item",
    "enum_item",
    "interface_declaration",
];

const DEFINING_KINDS: &[&str] = &[
    "function_definition",
    "class_definition",
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "method_definition",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "abstract_class_declaration",
    "variable_declarator",
    "function_item",
    "function_signature_item",
    "struct_item",
    "enum_item",
    "union_item",
    "trait_item",
    "type_item",
    "const_item",
    "static_item",
    "mod_item",
    "macro_definition",
    "enum_variant",
    "field_declaration",
    "public_field_definition",
    "type_spec",
    "method_declaration",
    "method_spec",
    "const_spec",
    "var_spec",
    "class",
    "module",
    "method",
];

fn text<'a>(n: Node, src: &'a [u8]) -> &'a [u8] {
    src.get(n.byte_range()).unwrap_or_default()
}

fn is_field(parent: Node, field: &str, n: Node) -> bool {
    parent
        .child_by_field_name(field)
        .is_some_and(|c| c.id() == n.id())
}

fn has_ancestor(n: Node, kinds: &[&str], stop: &[&str]) -> bool {
    let mut cur = n.parent();
    while let Some(p) = cur {
        if kinds.contains(&p.kind()) {
            return true;
        }
        if stop.contains(&p.kind()) {
            return false;
        }
        cur = p.parent();
    }
    false
}

/// Whole-word positions of `name` in `hay` (no identifier character touches it).
pub fn word_hits(hay: &[u8], name: &[u8]) -> Vec<usize> {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut out = Vec::new();
    if name.is_empty() || hay.len() < name.len() {
        return out;
    }
    let mut i = 0;
    while i + name.len() <= hay.len() {
        if &hay[i..i + name.len()] == name
            && (i == 0 || !ident(hay[i - 1]))
            && hay.get(i + name.len()).is_none_or(|&b| !ident(b))
        {
            out.push(i);
            i += name.len();
        } else {
            i += 1;
        }
    }
    out
}

fn line_of(src: &[u8], at: usize) -> u64 {
    src.get(..at)
        .map_or(0, |s| s.iter().filter(|&&b| b == b'\n').count()) as u64
        + 1
}

/// The member-access parent of `n`, when `n` is the accessed name.
fn member_object(n: Node, src: &[u8]) -> Option<Option<String>> {
    let p = n.parent()?;
    let obj = match p.kind() {
        "attribute" if is_field(p, "attribute", n) => p.child_by_field_name("object"),
        "member_expression" if is_field(p, "property", n) => p.child_by_field_name("object"),
        "field_expression" if is_field(p, "field", n) => p
            .child_by_field_name("value")
            .or_else(|| p.child_by_field_name("argument")),
        "selector_expression" if is_field(p, "field", n) => p.child_by_field_name("operand"),
        "method_invocation" if is_field(p, "name", n) => p.child_by_field_name("object"),
        "field_access" if is_field(p, "field", n) => p.child_by_field_name("object"),
        // Ruby: `foo(1)` with no receiver calls a method of self, like a bare `foo`.
        "call" if is_field(p, "method", n) => Some(p.child_by_field_name("receiver")?),
        // Keyword arguments and object keys name no variable.
        "keyword_argument" if is_field(p, "name", n) => None,
        "pair" if is_field(p, "key", n) => None,
        "field_initializer" if is_field(p, "field", n) => None,
        _ => return None,
    };
    // Java's `this.x.NAME`: the receiver is the field x.
    let obj = obj.map(|o| match o.kind() {
        "field_access"
            if o.child_by_field_name("object")
                .is_some_and(|t| t.kind() == "this") =>
        {
            o.child_by_field_name("field").unwrap_or(o)
        }
        _ => o,
    });
    Some(obj.and_then(|o| {
        matches!(
            o.kind(),
            "identifier" | "self" | "this" | "package_identifier"
        )
        .then(|| String::from_utf8_lossy(text(o, src)).into_owned())
    }))
}

fn classify(g: Grammar, n: Node) -> RefKind {
    let Some(p) = n.parent() else {
        return RefKind::Other;
    };
    if has_ancestor(n, IMPORT_KINDS, &["block", "statement_block"]) {
        return RefKind::Import;
    }
    if DEFINING_KINDS.contains(&p.kind()) && is_field(p, "name", n) {
        return RefKind::Definition;
    }
    if g == Grammar::Ruby && scopes::ruby_defining_assignment(n).is_some() {
        return RefKind::Definition;
    }
    if is_binding(g, n) || (matches!(g, Grammar::C | Grammar::Cpp) && scopes::c_file_scope(n)) {
        return RefKind::Definition;
    }
    if matches!(g, Grammar::C | Grammar::Cpp) && declares_function(n) {
        return RefKind::Definition;
    }
    // A call: the callee itself, or the accessed name of a callee `a.b`.
    let callee = match p.kind() {
        "attribute"
        | "member_expression"
        | "field_expression"
        | "selector_expression"
        | "scoped_identifier" => p,
        _ => n,
    };
    if let Some(c) = callee.parent() {
        let called = match c.kind() {
            "call" | "call_expression" | "new_expression" => {
                is_field(c, "function", callee) || is_field(c, "constructor", callee)
            }
            "macro_invocation" => is_field(c, "macro", callee),
            "method_invocation" => is_field(c, "name", n),
            _ => false,
        };
        if called {
            return RefKind::Call;
        }
    }
    if p.kind() == "decorator" || (p.kind() == "call" && is_field(p, "method", n)) {
        return RefKind::Call;
    }
    if n.kind() == "type_identifier"
        || has_ancestor(
            n,
            &[
                "type",
                "type_annotation",
                "generic_type",
                "type_arguments",
                "return_type",
            ],
            &[
                "block",
                "statement_block",
                "expression_statement",
                "call",
                "call_expression",
            ],
        )
    {
        return RefKind::Type;
    }
    RefKind::Other
}

/// Whether `n` is the name a C/C++ function declarator declares: `f` of
/// `int f(int);`, a member's `int f();` in its class, `int A::f() {}`.
fn declares_function(n: Node) -> bool {
    let Some(mut p) = n.parent() else {
        return false;
    };
    let mut name = n;
    if p.kind() == "qualified_identifier" && is_field(p, "name", n) {
        name = p;
        match p.parent() {
            Some(q) => p = q,
            None => return false,
        }
    }
    p.kind() == "function_declarator" && is_field(p, "declarator", name)
}

/// Whether `n` is a name a statement or pattern binds (assignment target,
/// parameter, loop variable, declarator), in the grammars with scopes.
fn is_binding(g: Grammar, n: Node) -> bool {
    let Some(p) = n.parent() else { return false };
    match g {
        Grammar::Python => {
            let mut top = n;
            // Through tuple/list patterns to the assignment.
            while let Some(q) = top.parent() {
                if matches!(
                    q.kind(),
                    "pattern_list" | "tuple_pattern" | "list_pattern" | "list_splat_pattern"
                ) {
                    top = q;
                } else {
                    break;
                }
            }
            let Some(q) = top.parent() else { return false };
            match q.kind() {
                "assignment" | "augmented_assignment" => is_field(q, "left", top),
                "for_statement" | "for_in_clause" => is_field(q, "left", top),
                "named_expression" => is_field(q, "name", top),
                "as_pattern_target" => true,
                "parameters" | "lambda_parameters" => true,
                "default_parameter" | "typed_default_parameter" => is_field(q, "name", top),
                "typed_parameter" => true,
                "list_splat_pattern" | "dictionary_splat_pattern" => true,
                "global_statement" | "nonlocal_statement" => false,
                _ => false,
            }
        }
        Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx => match p.kind() {
            "formal_parameters" => true,
            "required_parameter" | "optional_parameter" => is_field(p, "pattern", n),
            "assignment_pattern" => is_field(p, "left", n),
            "arrow_function" => is_field(p, "parameter", n),
            "catch_clause" => is_field(p, "parameter", n),
            "shorthand_property_identifier_pattern" => true,
            "array_pattern" | "object_pattern" | "rest_pattern" => true,
            "pair_pattern" => is_field(p, "value", n),
            _ => false,
        },
        Grammar::Rust => {
            let mut top = n;
            while let Some(q) = top.parent() {
                if matches!(
                    q.kind(),
                    "tuple_pattern"
                        | "slice_pattern"
                        | "ref_pattern"
                        | "mut_pattern"
                        | "reference_pattern"
                        | "tuple_struct_pattern"
                        | "struct_pattern"
                        | "field_pattern"
                ) {
                    top = q;
                } else {
                    break;
                }
            }
            let Some(q) = top.parent() else { return false };
            match q.kind() {
                "let_declaration" | "for_expression" | "parameter" | "let_condition" => {
                    is_field(q, "pattern", top)
                }
                "closure_parameters" => true,
                _ => false,
            }
        }
        _ => scopes::binding(g, n).is_some(),
    }
}

/// Where a local binding of the name holds: a byte range.
fn local_scope(g: Grammar, n: Node) -> Option<(usize, usize)> {
    if matches!(
        g,
        Grammar::Go | Grammar::Java | Grammar::C | Grammar::Cpp | Grammar::Ruby
    ) {
        return scopes::binding(g, n);
    }
    let func = enclosing(n, FUNCTION_KINDS)?;
    match g {
        Grammar::Python => Some((func.start_byte(), func.end_byte())),
        Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx => {
            let p = n.parent()?;
            let decl = if n.kind() == "variable_declarator" {
                Some(n)
            } else {
                enclosing(n, &["variable_declarator"])
            };
            let lexical = decl
                .and_then(|d| d.parent())
                .is_some_and(|d| d.kind() == "lexical_declaration");
            if lexical || p.kind() == "function_declaration" || p.kind() == "class_declaration" {
                let block = enclosing(
                    n,
                    &[
                        "statement_block",
                        "for_statement",
                        "for_in_statement",
                        "program",
                    ],
                )?;
                // A named declaration's own block is its body: its scope is the
                // block around it.
                let block = if p.kind() == "function_declaration" {
                    enclosing(p, &["statement_block", "program"])?
                } else {
                    block
                };
                if block.start_byte() < func.start_byte() {
                    return None;
                }
                return Some((block.start_byte(), block.end_byte()));
            }
            Some((func.start_byte(), func.end_byte()))
        }
        Grammar::Rust => {
            let p = enclosing(
                n,
                &[
                    "let_declaration",
                    "parameter",
                    "closure_parameters",
                    "for_expression",
                    "let_condition",
                ],
            )?;
            match p.kind() {
                "let_declaration" => {
                    let block = enclosing(p, &["block"])?;
                    Some((p.end_byte(), block.end_byte()))
                }
                "parameter" => Some((func.start_byte(), func.end_byte())),
                "closure_parameters" => {
                    let c = p.parent()?;
                    Some((c.start_byte(), c.end_byte()))
                }
                "for_expression" => {
                    let body = p.child_by_field_name("body")?;
                    Some((body.start_byte(), body.end_byte()))
                }
                _ => {
                    let c = p.parent()?;
                    Some((p.end_byte(), c.end_byte()))
                }
            }
        }
        _ => None,
    }
}

/// Whether `node` is a member of a class/struct/impl body (a method or field
/// name), not the type's own name nor a name inside a function.
fn in_type_body(node: Node) -> bool {
    // The name of a type or of a function names it from the scope around it.
    let from = match node.parent() {
        Some(p) if DEFINING_KINDS.contains(&p.kind()) && is_field(p, "name", node) => p,
        _ => node,
    };
    let Some(body) = enclosing(from, TYPE_BODY_KINDS) else {
        return false;
    };
    // Inside a function (a method's body) it is a local matter, not a member.
    enclosing(from, FUNCTION_KINDS).is_none_or(|f| f.start_byte() < body.start_byte())
}

/// Whether a Python function declares the name `global` or `nonlocal`.
fn declared_global(func: Node, src: &[u8], name: &[u8]) -> bool {
    let mut stack = vec![func];
    let mut cursor = func.walk();
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "global_statement" | "nonlocal_statement") {
            let mut c2 = n.walk();
            if n.named_children(&mut c2).any(|c| text(c, src) == name) {
                return true;
            }
            continue;
        }
        if n.id() != func.id() && FUNCTION_KINDS.contains(&n.kind()) {
            continue;
        }
        stack.extend(n.named_children(&mut cursor));
    }
    false
}

/// The whole-word hits of `needle` in `node`'s text (but in `holes`) as
/// occurrences of kind `k`.
fn word_occurrences(
    node: Node,
    src: &[u8],
    needle: &[u8],
    k: RefKind,
    holes: &[(usize, usize)],
    out: &mut Vec<Occurrence>,
) {
    for at in word_hits(text(node, src), needle) {
        let start = node.start_byte() + at;
        if holes.iter().any(|&(a, b)| start >= a && start < b) {
            continue;
        }
        out.push(Occurrence {
            start,
            end: start + needle.len(),
            line: line_of(src, start),
            kind: k,
            local: false,
            scope: None,
            member_of: None,
            in_type: false,
        });
    }
}

/// Records the scope `node` (an identifier of kind `k`, no member access) binds,
/// if it binds one: a parameter or local, a def/let inside a function (Python,
/// JS), an import inside a Python function.
fn note_binding(g: Grammar, node: Node, k: RefKind, src: &[u8], scopes: &mut Vec<Scope>) {
    let needle = text(node, src);
    if k == RefKind::Definition
        && is_binding(g, node)
        && let Some(scope) = local_scope(g, node)
    {
        let global = g == Grammar::Python
            && enclosing(node, FUNCTION_KINDS).is_some_and(|f| declared_global(f, src, needle));
        if !global {
            scopes.push((scope, Some(node.start_byte())));
        }
        return;
    }
    // A def/let inside a function binds a local too (Python, JS).
    if k == RefKind::Definition
        && matches!(
            g,
            Grammar::Python | Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx
        )
        && !is_binding(g, node)
        && let Some(def_node) = node.parent()
        && enclosing(def_node, FUNCTION_KINDS).is_some()
        && !has_ancestor(def_node, TYPE_BODY_KINDS, FUNCTION_KINDS)
        && let Some(scope) = local_scope(g, def_node)
    {
        scopes.push((scope, Some(node.start_byte())));
    }
    if k == RefKind::Import
        && g == Grammar::Python
        && enclosing(node, FUNCTION_KINDS).is_some()
        && let Some(scope) = local_scope(g, node)
    {
        scopes.push((scope, None));
    }
}

/// Whether no local can capture `n`: the name of a C++ qualified name
/// (`::foo`, `S::foo`), a Ruby method called with arguments (`foo(1)`).
fn never_local(n: Node) -> bool {
    n.parent().is_some_and(|p| {
        (p.kind() == "qualified_identifier" && is_field(p, "name", n))
            || (p.kind() == "call" && is_field(p, "method", n))
    })
}

pub use super::grammar::parse_file;

/// At most this many occurrences are read off one tree.
const MAX_OCCURRENCES: usize = 100_000;

/// Every occurrence of `name` in `tree` (parsed from `src` with `g`), in source order.
pub fn occurrences(g: Grammar, tree: &Tree, src: &[u8], name: &str) -> Vec<Occurrence> {
    let needle = name.as_bytes();
    let mut out: Vec<Occurrence> = Vec::new();
    // Where each local binding holds, and where its binder is (a `let foo`'s
    // scope starts after it: local all the same).
    let mut scopes: Vec<Scope> = Vec::new();
    // Names no local can capture (C++ `::foo`, Ruby `foo(1)`).
    let mut pinned: Vec<usize> = Vec::new();
    let mut stack: Vec<Node> = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(node) = stack.pop() {
        if out.len() >= MAX_OCCURRENCES {
            break;
        }
        let kind = node.kind();
        // A C/C++ macro body is unparsed tokens: a whole-word NAME in it is a use.
        if kind == "preproc_arg" {
            word_occurrences(node, src, needle, RefKind::Other, &[], &mut out);
            continue;
        }
        if kind.contains("comment") || STRING_KINDS.contains(&kind) {
            let is_comment = kind.contains("comment");
            let mut holes: Vec<(usize, usize)> = Vec::new();
            if !is_comment {
                let mut c2 = node.walk();
                let mut inner = vec![node];
                while let Some(x) = inner.pop() {
                    for ch in x.named_children(&mut c2).collect::<Vec<_>>() {
                        if INTERPOLATION_KINDS.contains(&ch.kind()) {
                            holes.push((ch.start_byte(), ch.end_byte()));
                            stack.push(ch);
                        } else {
                            inner.push(ch);
                        }
                    }
                }
            }
            let k = if is_comment {
                RefKind::Comment
            } else {
                RefKind::String
            };
            word_occurrences(node, src, needle, k, &holes, &mut out);
            continue;
        }
        if node.child_count() == 0 {
            if IDENT_KINDS.contains(&kind) && text(node, src) == needle {
                let member_of = member_object(node, src);
                let k = classify(g, node);
                if member_of.is_none() {
                    note_binding(g, node, k, src, &mut scopes);
                }
                if never_local(node) {
                    pinned.push(node.start_byte());
                }
                out.push(Occurrence {
                    start: node.start_byte(),
                    end: node.end_byte(),
                    line: node.start_position().row as u64 + 1,
                    kind: k,
                    local: false,
                    scope: None,
                    member_of,
                    in_type: in_type_body(node),
                });
            }
            continue;
        }
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    for o in &mut out {
        if o.member_of.is_none()
            && !matches!(o.kind, RefKind::String | RefKind::Comment)
            && !pinned.contains(&o.start)
        {
            o.scope = capturing(&scopes, o.start);
            o.local = o.scope.is_some();
        }
    }
    out.sort_by_key(|o| o.start);
    out
}

/// The names `src` binds by an import (the last name of each import), for
/// member accesses through an imported module (`flask.url_for`).
pub fn imported_names(tree: &Tree, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(n) = stack.pop() {
        if IMPORT_KINDS.contains(&n.kind()) {
            let mut inner = vec![n];
            let mut c2 = n.walk();
            while let Some(x) = inner.pop() {
                if x.child_count() == 0 && x.kind() == "identifier" {
                    out.push(String::from_utf8_lossy(text(x, src)).into_owned());
                }
                inner.extend(x.children(&mut c2).collect::<Vec<_>>());
            }
            continue;
        }
        stack.extend(n.named_children(&mut cursor));
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::super::grammar::parse;
    use super::*;

    fn occ(g: Grammar, src: &str, name: &str) -> Vec<(u64, &'static str, bool)> {
        let t = parse(g, src.as_bytes()).expect("parse");
        occurrences(g, &t, src.as_bytes(), name)
            .into_iter()
            .map(|o| (o.line, o.kind.name(), o.local))
            .collect()
    }

    #[test]
    fn python_kinds_and_locals() {
        let src = "from m import foo\n# foo here\ndef foo(x: foo) -> int:\n    return foo(x)\ndef g(foo):\n    return foo\ns = \"foo\"\n";
        assert_eq!(
            occ(Grammar::Python, src, "foo"),
            vec![
                (1, "import", false),
                (2, "comment", false),
                (3, "definition", false),
                (3, "type", false),
                (4, "call", false),
                (5, "definition", true),
                (6, "other", true),
                (7, "string", false),
            ]
        );
    }

    #[test]
    fn rust_and_js_locals() {
        let src = "fn foo() {}\nfn g() { foo(); let foo = 1; foo + 1; }\n";
        assert_eq!(
            occ(Grammar::Rust, src, "foo"),
            vec![
                (1, "definition", false),
                (2, "call", false),
                (2, "definition", true),
                (2, "other", true),
            ]
        );
        let src = "function foo() {}\nfunction g(foo) { return foo; }\nfoo();\n";
        assert_eq!(
            occ(Grammar::JavaScript, src, "foo"),
            vec![
                (1, "definition", false),
                (2, "definition", true),
                (2, "other", true),
                (3, "call", false),
            ]
        );
    }
}

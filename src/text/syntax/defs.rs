//! Definitions read off a tree-sitter tree: each with its kind, its lines, the
//! name of the definition around it (`container`) and its qualified name
//! (`mod::Type::method` in Rust and C++, `Class.method` elsewhere, `impl Type`'s
//! functions as `Type::method`, a Go method by its receiver). One table of node
//! kinds per grammar; the walk is iterative, so deep trees cost no stack.

use super::grammar::{Grammar, Node, Tree};

/// One definition found in a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeDef {
    pub name: String,
    pub kind: &'static str,
    /// 1-based, inclusive.
    pub start_line: u64,
    pub end_line: u64,
    /// The enclosing definition's name (a Go receiver's or a C++ `Type::`'s type).
    pub container: Option<String>,
    /// The name with every enclosing definition's, outermost first.
    pub qualified: String,
}

/// What a node defines: kind, name, whether definitions inside it are its
/// members, and a container the node names itself (Go receiver, C++ `A::f`).
struct Found {
    kind: &'static str,
    name: String,
    opens: bool,
    container: Option<String>,
}

/// One open scope: its qualified name, its own name, its kind.
struct Frame {
    qualified: String,
    name: String,
    kind: &'static str,
}

fn text_of(node: Node, src: &[u8]) -> String {
    String::from_utf8_lossy(src.get(node.byte_range()).unwrap_or_default()).into_owned()
}

fn field_text(node: Node, field: &str, src: &[u8]) -> Option<String> {
    node.child_by_field_name(field).map(|n| text_of(n, src))
}

/// The separator between a scope and a member of `kind`.
fn separator(g: Grammar, member_kind: &str) -> &'static str {
    match g {
        Grammar::Rust | Grammar::Cpp => "::",
        Grammar::Ruby if member_kind != "method" => "::",
        _ => ".",
    }
}

/// A type's plain name: `Foo` of `Foo<T>`, `&Foo`, `*Foo`, `a::Foo`.
fn type_name(node: Node, src: &[u8]) -> String {
    let mut n = node;
    for _ in 0..16 {
        let next = match n.kind() {
            "generic_type" | "reference_type" | "pointer_type" | "parenthesized_type" => {
                n.child_by_field_name("type").or_else(|| n.named_child(0))
            }
            "scoped_type_identifier" | "qualified_type" => n.child_by_field_name("name"),
            _ => None,
        };
        match next {
            Some(x) => n = x,
            None => break,
        }
    }
    let t = text_of(n, src);
    let t = t.split('<').next().unwrap_or(&t);
    t.trim_start_matches(['&', '*']).trim().to_string()
}

/// The name a C/C++ declarator declares (through pointers, references,
/// parentheses and function declarators).
fn declarator_name(node: Node) -> Option<Node> {
    let mut n = node;
    for _ in 0..32 {
        match n.kind() {
            "identifier"
            | "field_identifier"
            | "type_identifier"
            | "destructor_name"
            | "operator_name"
            | "qualified_identifier"
            | "primitive_type" => return Some(n),
            _ => {
                n = n
                    .child_by_field_name("declarator")
                    .or_else(|| n.named_child(0))?;
            }
        }
    }
    None
}

/// What `node` defines in grammar `g`, if anything; `scope` is the innermost
/// open definition's kind.
fn classify(g: Grammar, node: Node, src: &[u8], scope: Option<&str>) -> Option<Found> {
    let in_type = matches!(
        scope,
        Some("class" | "impl" | "trait" | "interface" | "struct" | "enum" | "record" | "module")
    );
    match g {
        Grammar::Rust => classify_rust(node, src, scope),
        Grammar::Python => classify_python(node, src, scope),
        Grammar::Go => classify_go(node, src),
        Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx => classify_js(node, src, in_type),
        Grammar::Java => classify_java(node, src),
        Grammar::C | Grammar::Cpp => classify_c(g, node, src, in_type),
        Grammar::Ruby => classify_ruby(node, src),
    }
}

/// A definition named by the node's `name` field.
fn named(node: Node, src: &[u8], kind: &'static str, opens: bool) -> Option<Found> {
    Some(Found {
        kind,
        name: field_text(node, "name", src)?,
        opens,
        container: None,
    })
}

/// What a Rust node defines: items, methods inside impls and traits, impls.
fn classify_rust(node: Node, src: &[u8], scope: Option<&str>) -> Option<Found> {
    let named = |kind, opens| named(node, src, kind, opens);
    match node.kind() {
        "function_item" | "function_signature_item" => {
            let inside = matches!(scope, Some("impl" | "trait"));
            named(if inside { "method" } else { "function" }, true)
        }
        "struct_item" => named("struct", false),
        "enum_item" => named("enum", false),
        "union_item" => named("union", false),
        "trait_item" => named("trait", true),
        "type_item" => named("type", false),
        "mod_item" => named("module", true),
        "const_item" => named("const", false),
        "static_item" => named("static", false),
        "macro_definition" => named("macro", false),
        "impl_item" => Some(Found {
            kind: "impl",
            name: type_name(node.child_by_field_name("type")?, src),
            opens: true,
            container: None,
        }),
        _ => None,
    }
}

/// What a Python node defines: functions (methods inside classes), classes.
fn classify_python(node: Node, src: &[u8], scope: Option<&str>) -> Option<Found> {
    match node.kind() {
        "function_definition" => named(
            node,
            src,
            if scope == Some("class") {
                "method"
            } else {
                "function"
            },
            true,
        ),
        "class_definition" => named(node, src, "class", true),
        _ => None,
    }
}

/// What a Go node defines: functions, methods with their receiver type,
/// types, package-level variables and constants.
fn classify_go(node: Node, src: &[u8]) -> Option<Found> {
    let k = node.kind();
    match k {
        "function_declaration" => named(node, src, "function", true),
        "method_declaration" => {
            let recv = node
                .child_by_field_name("receiver")
                .and_then(|r| r.named_child(0))
                .and_then(|p| p.child_by_field_name("type"))
                .map(|t| type_name(t, src));
            Some(Found {
                kind: "method",
                name: field_text(node, "name", src)?,
                opens: true,
                container: recv,
            })
        }
        "type_spec" | "type_alias" => {
            let kind = match node.child_by_field_name("type").map(|t| t.kind()) {
                Some("struct_type") => "struct",
                Some("interface_type") => "interface",
                _ => "type",
            };
            named(node, src, kind, false)
        }
        "var_spec" | "const_spec" if super::scopes::go_package_level(node) => {
            let kind = if k == "var_spec" { "variable" } else { "const" };
            named(node, src, kind, false)
        }
        _ => None,
    }
}

/// What a JavaScript/TypeScript node defines, function-valued variables included.
fn classify_js(node: Node, src: &[u8], in_type: bool) -> Option<Found> {
    let named = |kind, opens| named(node, src, kind, opens);
    match node.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            named("function", true)
        }
        "class_declaration" | "abstract_class_declaration" | "class" => named("class", true),
        "method_definition" | "method_signature" | "abstract_method_signature" => {
            named("method", true)
        }
        "interface_declaration" => named("interface", true),
        "enum_declaration" => named("enum", false),
        "type_alias_declaration" => named("type", false),
        "internal_module" | "module" => named("namespace", true),
        "variable_declarator" => {
            let value = node.child_by_field_name("value")?;
            let fun = matches!(
                value.kind(),
                "arrow_function" | "function_expression" | "function" | "generator_function"
            );
            let name = node.child_by_field_name("name")?;
            (fun && name.kind() == "identifier").then(|| Found {
                kind: if in_type { "method" } else { "function" },
                name: text_of(name, src),
                opens: true,
                container: None,
            })
        }
        _ => None,
    }
}

/// What a Java node defines: types, methods, constructors, fields.
fn classify_java(node: Node, src: &[u8]) -> Option<Found> {
    let named = |kind, opens| named(node, src, kind, opens);
    match node.kind() {
        "class_declaration" => named("class", true),
        "interface_declaration" => named("interface", true),
        "enum_declaration" => named("enum", true),
        "record_declaration" => named("record", true),
        "annotation_type_declaration" => named("annotation", true),
        "method_declaration" => named("method", true),
        "constructor_declaration" => named("constructor", true),
        "field_declaration" | "constant_declaration" => Some(Found {
            kind: "field",
            name: field_text(node.child_by_field_name("declarator")?, "name", src)?,
            opens: false,
            container: None,
        }),
        _ => None,
    }
}

/// What a Ruby node defines: methods, classes, modules, defining assignments.
fn classify_ruby(node: Node, src: &[u8]) -> Option<Found> {
    match node.kind() {
        "method" | "singleton_method" => named(node, src, "method", true),
        "class" => named(node, src, "class", true),
        "module" => named(node, src, "module", true),
        "assignment" => {
            let left = node.child_by_field_name("left")?;
            Some(Found {
                kind: super::scopes::ruby_defining_assignment(left)?,
                name: text_of(left, src),
                opens: false,
                container: None,
            })
        }
        _ => None,
    }
}

/// What a C/C++ node defines: functions and methods (`A::f` in A), structs,
/// unions, enums, classes, typedefs, macros, namespaces, file-scope variables.
fn classify_c(g: Grammar, node: Node, src: &[u8], in_type: bool) -> Option<Found> {
    let k = node.kind();
    let named = |kind, opens| named(node, src, kind, opens);
    match k {
        "function_definition" => {
            let d = declarator_name(node.child_by_field_name("declarator")?)?;
            let full = text_of(d, src);
            let (container, name) = match full.rsplit_once("::") {
                Some((c, n)) if !c.is_empty() => (Some(c.to_string()), n.to_string()),
                _ => (None, full),
            };
            let method = container.is_some() || in_type;
            Some(Found {
                kind: if method { "method" } else { "function" },
                name,
                opens: true,
                container,
            })
        }
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
            node.child_by_field_name("body")?;
            let kind = match k {
                "struct_specifier" => "struct",
                "union_specifier" => "union",
                "enum_specifier" => "enum",
                _ => "class",
            };
            Some(Found {
                kind,
                name: type_name(node.child_by_field_name("name")?, src),
                opens: g == Grammar::Cpp,
                container: None,
            })
        }
        "type_definition" => {
            let d = declarator_name(node.child_by_field_name("declarator")?)?;
            Some(Found {
                kind: "type",
                name: text_of(d, src),
                opens: false,
                container: None,
            })
        }
        "preproc_def" | "preproc_function_def" => named("macro", false),
        "declaration" => Some(Found {
            kind: "variable",
            name: text_of(super::scopes::c_file_variable(node)?, src),
            opens: false,
            container: None,
        }),
        "namespace_definition" => named("namespace", true),
        _ => None,
    }
}

/// The node's first line, a Python decorator's when decorated.
fn start_line(g: Grammar, node: Node) -> u64 {
    let from = match node.parent() {
        Some(p) if g == Grammar::Python && p.kind() == "decorated_definition" => p,
        _ => node,
    };
    from.start_position().row as u64 + 1
}

/// The node's last line (a node ending at a line's start ends on the line before).
fn end_line(node: Node) -> u64 {
    let end = node.end_position();
    let row = if end.column == 0 && end.row > node.start_position().row {
        end.row - 1
    } else {
        end.row
    };
    row as u64 + 1
}

/// At most this many definitions are read off one tree.
const MAX_DEFS: usize = 100_000;

/// The definitions of `tree` (parsed from `src` with grammar `g`) in start order.
pub fn definitions(g: Grammar, tree: &Tree, src: &[u8]) -> Vec<TreeDef> {
    let mut out: Vec<TreeDef> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    // (node, how many frames were open when it was reached)
    let mut stack: Vec<(Node, usize)> = vec![(tree.root_node(), 0)];
    let mut cursor = tree.walk();
    while let Some((node, depth)) = stack.pop() {
        frames.truncate(depth);
        let mut inner = depth;
        if let Some(f) = classify(g, node, src, frames.last().map(|f| f.kind))
            && !f.name.is_empty()
        {
            let sep = separator(g, f.kind);
            let prefix = match (&f.container, frames.last()) {
                (Some(c), Some(p)) => format!("{}{}{c}", p.qualified, separator(g, "class")),
                (Some(c), None) => c.clone(),
                (None, Some(p)) => p.qualified.clone(),
                (None, None) => String::new(),
            };
            let qualified = if prefix.is_empty() {
                f.name.clone()
            } else {
                format!("{prefix}{sep}{}", f.name)
            };
            let container = f
                .container
                .clone()
                .or_else(|| frames.last().map(|p| p.name.clone()));
            if out.len() < MAX_DEFS {
                out.push(TreeDef {
                    name: f.name.clone(),
                    kind: f.kind,
                    start_line: start_line(g, node),
                    end_line: end_line(node),
                    container,
                    qualified: qualified.clone(),
                });
            }
            if f.opens {
                frames.push(Frame {
                    qualified,
                    name: f.name,
                    kind: f.kind,
                });
                inner += 1;
            }
        }
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, inner)));
    }
    out.sort_by_key(|d| d.start_line);
    out
}

#[cfg(test)]
mod tests {
    use super::super::grammar::parse;
    use super::*;

    fn defs(g: Grammar, src: &str) -> Vec<(String, &'static str)> {
        let t = parse(g, src.as_bytes()).expect("parse");
        definitions(g, &t, src.as_bytes())
            .into_iter()
            .map(|d| (d.qualified, d.kind))
            .collect()
    }

    #[test]
    fn rust_modules_impls_and_methods() {
        let src = "mod m {\n    pub struct A;\n    impl<T> Show for A<T> {\n        fn show(&self) {}\n    }\n    pub fn free() {}\n}\n";
        assert_eq!(
            defs(Grammar::Rust, src),
            vec![
                ("m".into(), "module"),
                ("m::A".into(), "struct"),
                ("m::A".into(), "impl"),
                ("m::A::show".into(), "method"),
                ("m::free".into(), "function"),
            ]
        );
    }

    #[test]
    fn python_classes_go_receivers_cpp_scopes() {
        let py = "class A:\n    @staticmethod\n    def f():\n        def g():\n            pass\n";
        assert_eq!(
            defs(Grammar::Python, py),
            vec![
                ("A".into(), "class"),
                ("A.f".into(), "method"),
                ("A.f.g".into(), "function"),
            ]
        );
        let go = "package p\ntype T struct{}\nfunc (t *T) Run() {}\n";
        assert_eq!(
            defs(Grammar::Go, go),
            vec![("T".into(), "struct"), ("T.Run".into(), "method")]
        );
        let cpp = "namespace n {\nclass C { void f() {} };\nvoid C::g() {}\n}\n";
        assert_eq!(
            defs(Grammar::Cpp, cpp),
            vec![
                ("n".into(), "namespace"),
                ("n::C".into(), "class"),
                ("n::C::f".into(), "method"),
                ("n::C::g".into(), "method"),
            ]
        );
    }
}

//! Local bindings of Go, Java, C, C++ and Ruby: whether an identifier is a
//! name a parameter, local declaration, loop or pattern binds, and the byte
//! range where that binding holds (so a use there is the local, not a global
//! or method of the same name). Go: parameters, receivers and named results,
//! `:=` (from the end of its statement; in `if`/`for`/`switch` headers the
//! statement), `var`/`const` inside a function, `range` with `:=`, type-switch
//! aliases. Java: parameters (not a record's components), locals to the end of
//! their block, `for`, enhanced `for`, `catch`, try resources, lambda
//! parameters, `instanceof` patterns (to the end of the block: flow scoping is
//! wider than the grammar can tell). C/C++: parameters (a prototype's to its
//! own declarator), declarators through pointers, arrays, references and
//! function pointers (not `extern`, not a nested function prototype), `for`
//! and condition declarations, range-`for`, structured bindings; a C++ data
//! member holds in its class body (a method defined outside it, `A::f`, is not
//! resolved). Ruby: method,
//! block and lambda parameters, and assignments, `for` and `rescue =>` names
//! inside a method, block or lambda from the assignment on (a top-level or
//! class-body assignment is not resolved).

use super::grammar::{Grammar, Node};

fn is_field(parent: Node, field: &str, n: Node) -> bool {
    let mut c = parent.walk();
    parent
        .children_by_field_name(field, &mut c)
        .any(|x| x.id() == n.id())
}

/// The nearest ancestor of `n` of one of `kinds`.
pub(super) fn enclosing<'t>(n: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cur = n.parent();
    while let Some(p) = cur {
        if kinds.contains(&p.kind()) {
            return Some(p);
        }
        cur = p.parent();
    }
    None
}

fn span(from: Node, to: Node) -> Option<(usize, usize)> {
    Some((from.start_byte(), to.end_byte()))
}

/// The scope of the binding `n` (an identifier) in grammar `g`, when `n` is one.
pub(super) fn binding(g: Grammar, n: Node) -> Option<(usize, usize)> {
    match g {
        Grammar::Go => go(n),
        Grammar::Java => java(n),
        Grammar::C | Grammar::Cpp => c(g, n),
        Grammar::Ruby => ruby(n),
        _ => None,
    }
}

/// A local binding's scope (a byte range) and its binder's start.
pub(super) type Scope = ((usize, usize), Option<usize>);

/// The scope of the binding that captures byte `at`: the one `at` binds, else
/// the innermost holding it.
pub(super) fn capturing(scopes: &[Scope], at: usize) -> Option<(usize, usize)> {
    if let Some((s, _)) = scopes.iter().find(|(_, b)| *b == Some(at)) {
        return Some(*s);
    }
    scopes
        .iter()
        .map(|(s, _)| *s)
        .filter(|&(a, b)| at >= a && at < b)
        .min_by_key(|&(a, b)| b - a)
}

fn go(n: Node) -> Option<(usize, usize)> {
    let p = n.parent()?;
    match p.kind() {
        "parameter_declaration" | "variadic_parameter_declaration" if is_field(p, "name", n) => {
            let list = p.parent()?;
            let owner = list.parent()?;
            span(p, owner)
        }
        "var_spec" | "const_spec" if is_field(p, "name", n) => {
            enclosing(
                p,
                &["function_declaration", "method_declaration", "func_literal"],
            )?;
            let block = enclosing(p, GO_BLOCKS)?;
            Some((p.end_byte(), block.end_byte()))
        }
        "expression_list" => {
            let q = p.parent()?;
            match q.kind() {
                "short_var_declaration" if is_field(q, "left", p) => {
                    let holder = q.parent()?;
                    match holder.kind() {
                        "for_clause" => span(q, holder.parent()?),
                        "if_statement"
                        | "expression_switch_statement"
                        | "type_switch_statement" => span(q, holder),
                        _ => Some((q.end_byte(), enclosing(q, GO_BLOCKS)?.end_byte())),
                    }
                }
                "range_clause" | "receive_statement" if is_field(q, "left", p) => {
                    let mut c = q.walk();
                    if !q.children(&mut c).any(|x| x.kind() == ":=") {
                        return None;
                    }
                    let holder = q.parent()?;
                    let body = holder.child_by_field_name("body").unwrap_or(holder);
                    span(body, holder)
                }
                "type_switch_statement" if is_field(q, "alias", p) => span(q, q),
                _ => None,
            }
        }
        _ => None,
    }
}

const GO_BLOCKS: &[&str] = &[
    "block",
    "expression_case",
    "type_case",
    "default_case",
    "communication_case",
];

fn java(n: Node) -> Option<(usize, usize)> {
    let p = n.parent()?;
    match p.kind() {
        "formal_parameter" if is_field(p, "name", n) => {
            let owner = p.parent()?.parent()?;
            (owner.kind() != "record_declaration").then_some(())?;
            span(p, owner)
        }
        "variable_declarator" if is_field(p, "name", n) => {
            let decl = p.parent()?;
            match decl.kind() {
                "spread_parameter" => span(decl, decl.parent()?.parent()?),
                "local_variable_declaration" => {
                    let holder = decl.parent()?;
                    if holder.kind() == "for_statement" {
                        return span(p, holder);
                    }
                    span(p, enclosing(decl, JAVA_BLOCKS)?)
                }
                _ => None,
            }
        }
        "catch_formal_parameter" if is_field(p, "name", n) => span(p, p.parent()?),
        "enhanced_for_statement" if is_field(p, "name", n) => span(p, p),
        "resource" if is_field(p, "name", n) => {
            span(p, enclosing(p, &["try_with_resources_statement"])?)
        }
        "inferred_parameters" => span(p, p.parent()?),
        "lambda_expression" if is_field(p, "parameters", n) => span(p, p),
        "instanceof_expression" if is_field(p, "name", n) => span(n, enclosing(p, JAVA_BLOCKS)?),
        _ => None,
    }
}

const JAVA_BLOCKS: &[&str] = &[
    "block",
    "switch_block",
    "constructor_body",
    "lambda_expression",
];

/// The declarator `n` names, walked up through pointer, array, reference and
/// function-pointer declarators: (its owner, the outermost declarator).
fn c_owner(n: Node) -> Option<(Node, Node)> {
    let mut top = n;
    let mut through_paren = false;
    loop {
        let q = top.parent()?;
        let pass = match q.kind() {
            "pointer_declarator" | "array_declarator" | "init_declarator" => {
                is_field(q, "declarator", top)
            }
            "reference_declarator" | "structured_binding_declarator" => true,
            "parenthesized_declarator" => {
                through_paren = true;
                true
            }
            // `int (*foo)(int)` declares a pointer; `int foo(int)` a function.
            "function_declarator" => through_paren && is_field(q, "declarator", top),
            _ => return Some((q, top)),
        };
        if !pass {
            return None;
        }
        top = q;
    }
}

fn c(g: Grammar, n: Node) -> Option<(usize, usize)> {
    if g == Grammar::Cpp && n.kind() == "field_identifier" {
        // A data member: in its class body a bare NAME is the member.
        let (owner, decl) = c_owner(n)?;
        let body = owner.parent()?;
        let member = owner.kind() == "field_declaration"
            && body.kind() == "field_declaration_list"
            && is_field(owner, "declarator", decl);
        return member.then(|| span(body, body))?;
    }
    if n.kind() != "identifier" {
        return None;
    }
    let (owner, decl) = c_owner(n)?;
    match owner.kind() {
        "parameter_declaration" | "optional_parameter_declaration"
            if is_field(owner, "declarator", decl) =>
        {
            let mut f = owner.parent()?.parent()?;
            // The function a parameter list belongs to: its definition or lambda,
            // else (a prototype) the declarator itself.
            let mut cur = f;
            while let Some(up) = cur.parent() {
                match up.kind() {
                    "function_definition" | "lambda_expression" => {
                        f = up;
                        break;
                    }
                    "pointer_declarator" | "reference_declarator" | "parenthesized_declarator" => {
                        cur = up
                    }
                    _ => break,
                }
            }
            span(owner, f)
        }
        "declaration" if is_field(owner, "declarator", decl) => {
            let mut c = owner.walk();
            let external = owner.children(&mut c).any(|x| {
                x.kind() == "storage_class_specifier"
                    && x.child(0).is_some_and(|t| t.kind() == "extern")
            });
            if external {
                return None;
            }
            enclosing(owner, &["function_definition", "lambda_expression"])?;
            let holder = owner.parent()?;
            match holder.kind() {
                "for_statement" => span(decl, holder),
                "condition_clause" => span(decl, holder.parent()?),
                _ => span(decl, enclosing(owner, &["compound_statement"])?),
            }
        }
        "for_range_loop" if is_field(owner, "declarator", decl) => span(decl, owner),
        _ => None,
    }
}

/// The first name a file-scope C/C++ declaration defines as a variable (not
/// a function prototype, not an `extern` declaration).
pub(super) fn c_file_variable(decl: Node) -> Option<Node> {
    let holder = decl.parent()?;
    if !matches!(holder.kind(), "translation_unit" | "declaration_list") || is_extern(decl) {
        return None;
    }
    let mut d = decl.child_by_field_name("declarator")?;
    for _ in 0..32 {
        match d.kind() {
            "identifier" => return Some(d),
            "pointer_declarator" | "array_declarator" | "init_declarator" => {
                d = d.child_by_field_name("declarator")?
            }
            "reference_declarator" => d = d.named_child(0)?,
            _ => return None,
        }
    }
    None
}

/// Whether a C/C++ identifier names a variable a file-scope declaration defines.
pub(super) fn c_file_scope(n: Node) -> bool {
    c_owner(n).is_some_and(|(owner, _)| {
        owner.kind() == "declaration" && c_file_variable(owner).is_some_and(|d| d.id() == n.id())
    })
}

/// Whether a Go `var`/`const` spec is at package level.
pub(super) fn go_package_level(spec: Node) -> bool {
    let mut cur = spec.parent();
    while let Some(p) = cur {
        match p.kind() {
            "var_declaration" | "const_declaration" | "var_spec_list" => cur = p.parent(),
            "source_file" => return true,
            _ => return false,
        }
    }
    false
}

fn is_extern(decl: Node) -> bool {
    let mut c = decl.walk();
    decl.children(&mut c).any(|x| {
        x.kind() == "storage_class_specifier" && x.child(0).is_some_and(|t| t.kind() == "extern")
    })
}

/// Ruby: what the left side `left` of an assignment defines: a constant
/// (`X = 1` at file level or in a class or module body) or a variable (`x =
/// foo` at file level, visible to that level and its blocks, not to methods).
pub(super) fn ruby_defining_assignment(left: Node) -> Option<&'static str> {
    let a = left.parent().filter(|a| a.kind() == "assignment")?;
    if !is_field(a, "left", left) {
        return None;
    }
    let at = a.parent()?;
    let file_level = at.kind() == "program";
    let type_body = at.kind() == "body_statement"
        && at
            .parent()
            .is_some_and(|t| matches!(t.kind(), "class" | "module"));
    match left.kind() {
        "constant" if file_level || type_body => Some("constant"),
        "identifier" if file_level => Some("variable"),
        _ => None,
    }
}

const RUBY_SCOPES: &[&str] = &["method", "singleton_method", "block", "do_block", "lambda"];

fn ruby(n: Node) -> Option<(usize, usize)> {
    let mut top = n;
    while let Some(q) = top.parent() {
        if matches!(
            q.kind(),
            "destructured_parameter"
                | "left_assignment_list"
                | "destructured_left_assignment"
                | "rest_assignment"
        ) {
            top = q;
        } else {
            break;
        }
    }
    let p = top.parent()?;
    let params = match p.kind() {
        "method_parameters" | "lambda_parameters" | "block_parameters" | "parameters" => Some(p),
        "optional_parameter"
        | "keyword_parameter"
        | "splat_parameter"
        | "hash_splat_parameter"
        | "block_parameter"
            if is_field(p, "name", top) =>
        {
            p.parent()
        }
        _ => None,
    };
    if let Some(list) = params {
        return span(top, list.parent()?);
    }
    let from = match p.kind() {
        "assignment" | "operator_assignment" if is_field(p, "left", top) => p,
        "for" if is_field(p, "pattern", top) => p,
        "exception_variable" => p,
        _ => return None,
    };
    span(from, enclosing(from, RUBY_SCOPES)?)
}

#[cfg(test)]
mod tests {
    use super::super::grammar::{Grammar, parse};
    use super::super::refs::occurrences;

    /// (line, kind, local) of every occurrence of `foo` but strings and comments.
    fn occ(g: Grammar, src: &str) -> Vec<(u64, &'static str, bool)> {
        let t = parse(g, src.as_bytes()).expect("parse");
        occurrences(g, &t, src.as_bytes(), "foo")
            .into_iter()
            .map(|o| (o.line, o.kind.name(), o.local))
            .collect()
    }

    /// The lines of the occurrences that are not locals.
    fn global_lines(g: Grammar, src: &str) -> Vec<u64> {
        occ(g, src)
            .into_iter()
            .filter(|o| !o.2)
            .map(|o| o.0)
            .collect()
    }

    #[test]
    fn go_parameters_short_vars_loops_and_headers() {
        let src = "package m\n\
var foo = 1\n\
func f(foo int) int { return foo }\n\
func g() int {\n\
\tx := foo\n\
\tfoo := foo + 1\n\
\t_ = foo\n\
\treturn x\n\
}\n\
func h(xs []int) {\n\
\tfor _, foo := range xs { _ = foo }\n\
\tif foo := 2; foo > 0 { _ = foo }\n\
\tvar a, foo = 1, 2\n\
\t_ = a + foo\n\
}\n\
func k() { foo = 3; for foo = 0; foo < 1; foo++ {} }\n\
func (foo *T) m() { go func(foo int) { _ = foo }(1) }\n";
        assert_eq!(
            global_lines(Grammar::Go, src),
            vec![2, 5, 6, 16, 16, 16, 16]
        );
        // The short declaration itself is local.
        assert!(occ(Grammar::Go, src).contains(&(6, "definition", true)));
    }

    #[test]
    fn java_parameters_locals_loops_lambdas_and_fields() {
        let src = "class A {\n\
  int foo;\n\
  void f(int foo) { this.foo = foo; }\n\
  int g() { int x = foo; int foo = 2; return foo + x; }\n\
  void h() { for (int foo = 0; foo < 1; foo++) {} for (String foo : xs) {} }\n\
  void k() { try {} catch (Exception foo) { foo.printStackTrace(); } }\n\
  void l() { Runnable r = foo -> foo; F q = (int foo) -> foo; foo(); }\n\
  void m() { foo = 1; }\n\
}\n";
        assert_eq!(global_lines(Grammar::Java, src), vec![2, 3, 4, 7, 8]);
    }

    #[test]
    fn c_declarators_blocks_and_extern() {
        let src = "int foo = 1;\n\
int f(int foo) { return foo; }\n\
int g(void) {\n\
  int x = foo;\n\
  { int *foo = &x; x = *foo; }\n\
  for (int foo = 0; foo < 1; foo++) {}\n\
  int (*foo)(int) = 0;\n\
  return foo != 0;\n\
}\n\
int h(void) { extern int foo; return foo; }\n\
int proto(int foo);\n\
int k(void) { return foo; }\n";
        assert_eq!(global_lines(Grammar::C, src), vec![1, 4, 10, 10, 12]);
    }

    #[test]
    fn c_macro_bodies_use_the_name() {
        let src =
            "int foo[4];\n#define N (sizeof(foo)/sizeof(foo[0]))\nint f(void) { return N; }\n";
        assert_eq!(
            occ(Grammar::C, src),
            vec![
                (1, "definition", false),
                (2, "other", false),
                (2, "other", false)
            ]
        );
    }

    #[test]
    fn cpp_lambdas_range_for_conditions_and_qualified_names() {
        let src = "int foo = 1;\n\
int f(int& foo) { return foo + ::foo; }\n\
int g() {\n\
  for (auto& foo : v) { use(foo); }\n\
  auto l = [](int foo) { return foo; };\n\
  if (int foo = 1) { return foo; }\n\
  auto [a, foo] = pair();\n\
  return foo + a;\n\
}\n\
int k() { return foo; }\n";
        assert_eq!(global_lines(Grammar::Cpp, src), vec![1, 2, 10]);
    }

    #[test]
    fn ruby_parameters_blocks_and_assignments() {
        let src = "def foo; 1; end\n\
def f(foo, *bar, baz: foo)\n\
  foo\n\
end\n\
def g\n\
  x = foo\n\
  foo = 2\n\
  foo + x\n\
end\n\
def h(xs)\n\
  xs.each { |foo| foo }\n\
  xs.each do |(a, foo)| foo end\n\
  l = ->(foo) { foo }\n\
  foo\n\
end\n\
foo\n";
        assert_eq!(global_lines(Grammar::Ruby, src), vec![1, 6, 14, 16]);
    }
}

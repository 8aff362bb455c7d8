//! `code rename` and `code refs` with the scopes of Go, Java, C, C++ and Ruby:
//! parameters, locals, loop and block variables that share a global's (or a
//! field's, a method's) name are left alone. Oracles: gcc, javac and g++ build
//! the renamed program and it prints what the original printed.

use crate::support::TestEnv;
use std::path::Path;

/// Renames NAME to NEW in the one file `file` and returns the answer and the new text.
fn rename(
    env: &TestEnv,
    file: &str,
    src: &str,
    name: &str,
    new: &str,
) -> (serde_json::Value, String) {
    env.write(file, src);
    env.git(&["add", "-A"]);
    let r = env.run(&["code", "rename", name, new]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let text = String::from_utf8(env.read(file)).expect("utf8");
    (r.json, text)
}

/// Builds and runs a program with `build` (compiler and its arguments, then
/// `run`): its output, or None when the compiler is not installed.
fn build_and_run(dir: &Path, build: &[&str], run: &[&str]) -> Option<String> {
    let b = std::process::Command::new(build[0])
        .args(&build[1..])
        .current_dir(dir)
        .output()
        .ok()?;
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let r = std::process::Command::new(run[0])
        .args(&run[1..])
        .current_dir(dir)
        .output()
        .expect("run");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    Some(String::from_utf8_lossy(&r.stdout).into_owned())
}

const C_SRC: &str = r#"#include <stdio.h>
int count = 10;
static int bump(int count) { return count + 1; }
int total(void) {
  int sum = count;
  for (int count = 0; count < 3; count++) sum += count;
  { int count = 100; sum += count; }
  return sum + bump(count);
}
int main(void) {
  int *count_p = &count;
  printf("%d %d\n", total(), *count_p);
  return 0;
}
"#;

#[test]
fn c_rename_of_a_global_leaves_parameters_and_block_locals_and_still_builds() {
    let env = TestEnv::new();
    let (r, text) = rename(&env, "main.c", C_SRC, "count", "limit");
    assert_eq!(r["renamed"]["definition"], 1, "{r}");
    assert_eq!(r["left"]["local"], 8, "{r}");
    let want = C_SRC
        .replace("int count = 10;", "int limit = 10;")
        .replace("int sum = count;", "int sum = limit;")
        .replace("bump(count)", "bump(limit)")
        .replace("&count;", "&limit;");
    assert_eq!(text, want);
    if let Some(out) = build_and_run(env.root(), &["gcc", "-o", "prog", "main.c"], &["./prog"]) {
        assert_eq!(out, "124 10\n");
    }
}

const JAVA_SRC: &str = r#"import java.util.List;
import java.util.function.IntUnaryOperator;

public class Counter {
    private int step = 2;

    Counter(int step) { this.step = step + 1; }

    int advance(int from) {
        int total = from + step;
        for (int step = 0; step < 3; step++) { total += step; }
        for (Integer step : List.of(5, 6)) { total += step; }
        IntUnaryOperator f = step -> step * 10;
        IntUnaryOperator g = (int step) -> step + this.step;
        try { throw new RuntimeException("x"); } catch (RuntimeException step) { total += step.getMessage().length(); }
        { int step = 1000; total += step; }
        return total + f.applyAsInt(1) + g.applyAsInt(step);
    }

    public static void main(String[] args) {
        Counter c = new Counter(4);
        System.out.println(c.advance(1) + " " + c.step);
    }
}
"#;

#[test]
fn java_rename_of_a_field_leaves_parameters_locals_lambdas_and_catch_names() {
    let env = TestEnv::new();
    let (r, text) = rename(&env, "Counter.java", JAVA_SRC, "step", "stride");
    assert_eq!(r["symbol"]["kind"], "field", "{r}");
    assert_eq!(r["left"]["local"], 16, "{r}");
    let want = JAVA_SRC
        .replace("int step = 2;", "int stride = 2;")
        .replace("this.step", "this.stride")
        .replace("from + step;", "from + stride;")
        .replace("applyAsInt(step)", "applyAsInt(stride)")
        .replace("c.step", "c.stride");
    assert_eq!(text, want);
    let out = build_and_run(env.root(), &["javac", "Counter.java"], &["java", "Counter"]);
    if let Some(out) = out {
        assert_eq!(out, "1041 5\n");
    }
}

const CPP_SRC: &str = r#"#include <cstdio>
#include <vector>
#include <utility>
int level = 7;
struct Box {
  int level;
  explicit Box(int level) : level(level) {}
  int get() const { return level; }
};
int compute(int level) {
  int out = level + ::level;
  for (auto& level : std::vector<int>{1, 2}) out += level;
  auto f = [](int level) { return level * 2; };
  if (int level = 40) out += level;
  auto [a, level2] = std::make_pair(1, 2);
  { int level = 500; out += level; }
  return out + f(3) + a + level2;
}
int main() {
  Box b(level);
  std::printf("%d %d %d\n", compute(level), b.get(), level);
  return 0;
}
"#;

#[test]
fn cpp_rename_of_a_global_leaves_members_lambdas_range_for_and_conditions() {
    let env = TestEnv::new();
    let (r, text) = rename(&env, "main.cpp", CPP_SRC, "level", "depth");
    assert_eq!(r["left"]["local"], 15, "{r}");
    let want = CPP_SRC
        .replace("int level = 7;", "int depth = 7;")
        .replace("::level", "::depth")
        .replace("b(level)", "b(depth)")
        .replace(
            "compute(level), b.get(), level)",
            "compute(depth), b.get(), depth)",
        );
    assert_eq!(text, want);
    let build = ["g++", "-std=c++17", "-o", "prog", "main.cpp"];
    if let Some(out) = build_and_run(env.root(), &build, &["./prog"]) {
        assert_eq!(out, "566 7 7\n");
    }
}

const GO_SRC: &str = "package main\n\nvar limit = 3\n\nfunc clamp(limit int) int { return limit }\n\nfunc run() int {\n\tx := limit\n\tlimit := x + 1\n\tfor _, limit := range []int{1} {\n\t\tx += limit\n\t}\n\tif limit := 2; limit > 0 {\n\t\tx += limit\n\t}\n\treturn limit + clamp(x)\n}\n";

#[test]
fn go_rename_of_a_package_var_leaves_parameters_short_vars_and_range_vars() {
    let env = TestEnv::new();
    let (r, text) = rename(&env, "g.go", GO_SRC, "limit", "bound");
    assert_eq!(r["symbol"]["kind"], "variable", "{r}");
    let want = GO_SRC
        .replace("var limit = 3", "var bound = 3")
        .replace("x := limit", "x := bound");
    assert_eq!(text, want);
    let refs = env.run(&["code", "refs", "bound"]);
    assert_eq!(refs.json["total"], 2, "{}", refs.stdout);
}

const RUBY_SRC: &str = "def total(xs)\n  xs.sum\nend\n\ndef report(xs)\n  n = total(xs)\n  total = n * 2\n  xs.each { |total| puts total }\n  total + total(xs)\nend\n";

#[test]
fn ruby_rename_of_a_method_leaves_assigned_locals_and_block_params() {
    let env = TestEnv::new();
    let (r, text) = rename(&env, "lib.rb", RUBY_SRC, "total", "sum_all");
    assert_eq!(r["renamed"]["call"], 2, "{r}");
    let want = RUBY_SRC
        .replace("def total", "def sum_all")
        .replace("total(xs)\n  total =", "sum_all(xs)\n  total =")
        .replace("total + total(xs)", "total + sum_all(xs)");
    assert_eq!(text, want);
}

#[test]
fn python_rename_of_a_method_leaves_members_of_an_external_library() {
    let env = TestEnv::new();
    env.write(
        "app/store.py",
        "class Cache:\n    def get(self, key):\n        return key\n\n\ndef fetch(c: Cache, url):\n    import requests\n    return c.get(url), requests.get(url)\n",
    );
    let (r, text) = rename(
        &env,
        "app/use.py",
        "import requests\nfrom app import store\n\nc = store.Cache()\nprint(c.get(\"k\"), requests.get(\"http://x\"))\n",
        "get",
        "lookup",
    );
    assert_eq!(r["left"]["external"], 2, "{r}");
    assert_eq!(
        text,
        "import requests\nfrom app import store\n\nc = store.Cache()\nprint(c.lookup(\"k\"), requests.get(\"http://x\"))\n"
    );
    let store = String::from_utf8(env.read("app/store.py")).expect("utf8");
    assert!(
        store.contains("return c.lookup(url), requests.get(url)"),
        "{store}"
    );
}

#[test]
fn go_and_java_renames_of_a_method_leave_members_of_imported_packages() {
    let env = TestEnv::new();
    let (r, text) = rename(
        &env,
        "main.go",
        "package main\n\nimport \"net/http\"\n\ntype Client struct{}\n\nfunc (c *Client) Get(u string) string { return u }\n\nfunc main() {\n\tc := &Client{}\n\tc.Get(\"a\")\n\thttp.Get(\"b\")\n}\n",
        "Get",
        "Fetch",
    );
    assert_eq!(r["left"]["external"], 1, "{r}");
    assert!(text.contains("func (c *Client) Fetch(u string)"), "{text}");
    assert!(
        text.contains("\tc.Fetch(\"a\")\n\thttp.Get(\"b\")\n"),
        "{text}"
    );
    let (r, text) = rename(
        &env,
        "Box.java",
        "import java.util.List;\n\nclass Box {\n    static List<Integer> of(int x) { return List.of(x); }\n    int size() { return Box.of(1).size(); }\n}\n",
        "of",
        "make",
    );
    assert_eq!(r["left"]["external"], 1, "{r}");
    assert_eq!(
        text,
        "import java.util.List;\n\nclass Box {\n    static List<Integer> make(int x) { return List.of(x); }\n    int size() { return Box.make(1).size(); }\n}\n"
    );
}

#[test]
fn java_case_labels_name_enum_constants_not_a_field_of_another_type() {
    let env = TestEnv::new();
    let src = "import javax.lang.model.type.TypeKind;\n\nclass T {\n    static final T BOOLEAN = new T();\n    static final int MAX = 3;\n\n    static int f(TypeKind k, int n) {\n        switch (k) {\n            case BOOLEAN: return 1;\n            default: break;\n        }\n        switch (n) {\n            case MAX: return 2;\n            default: return 0;\n        }\n    }\n\n    static Object g() { return BOOLEAN; }\n}\n";
    let (r, text) = rename(&env, "T.java", src, "BOOLEAN", "FLAG");
    assert_eq!(r["left"]["member"], 1, "{r}");
    let want = src
        .replace("T BOOLEAN =", "T FLAG =")
        .replace("return BOOLEAN;", "return FLAG;");
    assert_eq!(text, want);
    let (_, text) = rename(&env, "T.java", &want, "MAX", "TOP");
    assert_eq!(text, want.replace("MAX", "TOP"));
}

const CPP_MEMBER: &str = r#"#include <cstdio>
struct A {
  int n = 1;
  int f(int x);
  int g() { return f(n); }
};

int A::f(int x) { return x + n; }

int f(int x) { return x * 10; }

int main() {
  A a;
  std::printf("%d %d\n", a.f(2) + a.g(), f(3));
  return 0;
}
"#;

#[test]
fn cpp_rename_of_a_method_changes_its_out_of_class_definition_and_bare_calls() {
    let env = TestEnv::new();
    env.write("main.cpp", CPP_MEMBER);
    env.git(&["add", "-A"]);
    let r = env.run(&["code", "rename", "f", "h", "--kind", "method"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["symbol"]["name"], "A::f", "{}", r.stdout);
    let text = String::from_utf8(env.read("main.cpp")).expect("utf8");
    let want = CPP_MEMBER
        .replace("int f(int x);", "int h(int x);")
        .replace("return f(n);", "return h(n);")
        .replace("int A::f(", "int A::h(")
        .replace("a.f(2)", "a.h(2)");
    assert_eq!(text, want);
    let build = ["g++", "-std=c++17", "-o", "prog", "main.cpp"];
    if let Some(out) = build_and_run(env.root(), &build, &["./prog"]) {
        assert_eq!(out, "5 30\n");
    }
}

const JAVA_NESTED: &str = r#"import java.util.Set;

class Writer {
    final Set<String> qualify;
    private final Tally tally = new Tally();

    Writer(Set<String> qualify) {
        this.qualify = qualify;
    }

    Writer qualify(String name) {
        return this;
    }

    int tally() { return tally.n + Other.LIMIT + LIMIT; }

    static final int LIMIT = 1;

    private static final class Tally {
        int n;
        Tally() { n = 2; }
    }
}
"#;

#[test]
fn java_rename_of_nested_classes_methods_and_fields_found_by_javac() {
    let env = TestEnv::new();
    // A nested class: its definition and its constructor go with it.
    let (_, text) = rename(&env, "Writer.java", JAVA_NESTED, "Tally", "Count");
    assert_eq!(text, JAVA_NESTED.replace("Tally", "Count"));
    // A method: `this.qualify` is the field of the same name.
    env.write("Writer.java", JAVA_NESTED);
    let r = env.run(&["code", "rename", "qualify", "only", "--kind", "method"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let text = String::from_utf8(env.read("Writer.java")).expect("utf8");
    assert_eq!(text, JAVA_NESTED.replace("Writer qualify(", "Writer only("));
    // A field: `Other.LIMIT` is another class's.
    env.write("Writer.java", JAVA_NESTED);
    env.write(
        "Other.java",
        "class Other {\n    static final int LIMIT = 10;\n}\n",
    );
    let r = env.run(&["code", "rename", "LIMIT", "MAX", "--in", "Writer.java"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let text = String::from_utf8(env.read("Writer.java")).expect("utf8");
    let want = JAVA_NESTED
        .replace("+ LIMIT;", "+ MAX;")
        .replace("static final int LIMIT = 1;", "static final int MAX = 1;");
    assert_eq!(text, want);
    let build = ["javac", "Writer.java", "Other.java"];
    if let Some(out) = build_and_run(env.root(), &build, &["true"]) {
        assert_eq!(out, "");
    }
}

#[test]
fn java_rename_follows_static_imports_and_leaves_another_class_this_field() {
    let env = TestEnv::new();
    env.write(
        "p/Util.java",
        "package p;\n\nclass Util {\n    static int level;\n\n    static void check(boolean b) {\n        if (!b) throw new IllegalStateException();\n    }\n}\n",
    );
    env.write(
        "p/Wrap.java",
        "package p;\n\nimport static p.Util.check;\n\nclass Wrap {\n    private int level;\n\n    void set(int level) {\n        check(level > 0);\n        this.level = level + Util.level;\n    }\n}\n",
    );
    env.git(&["add", "-A"]);
    let r = env.run(&["code", "rename", "check", "verify"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let wrap = String::from_utf8(env.read("p/Wrap.java")).expect("utf8");
    assert!(wrap.contains("import static p.Util.verify;"), "{wrap}");
    assert!(wrap.contains("        verify(level > 0);"), "{wrap}");
    let r = env.run(&["code", "rename", "level", "depth", "--in", "p/Util.java"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let wrap = String::from_utf8(env.read("p/Wrap.java")).expect("utf8");
    assert!(wrap.contains("this.level = level + Util.depth;"), "{wrap}");
    let build = ["javac", "-d", "out", "p/Util.java", "p/Wrap.java"];
    if let Some(out) = build_and_run(env.root(), &build, &["true"]) {
        assert_eq!(out, "");
    }
}

#[test]
fn java_rename_of_a_method_leaves_calls_on_library_typed_variables() {
    let env = TestEnv::new();
    let src = "import java.util.ArrayList;\nimport java.util.List;\n\nclass Bag {\n    private final List<String> names = new ArrayList<>();\n\n    void remove(int at) {\n        names.remove(at);\n        this.names.remove(at);\n    }\n\n    void clear(Bag other) {\n        other.remove(0);\n    }\n}\n";
    let (r, text) = rename(&env, "Bag.java", src, "remove", "drop");
    assert_eq!(r["left"]["external"], 2, "{r}");
    assert_eq!(
        text,
        src.replace("void remove(", "void drop(")
            .replace("other.remove(0)", "other.drop(0)")
    );
}

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

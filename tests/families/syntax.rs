//! The syntax layer (tree-sitter grammars): the write guard (`--syntax-guard`,
//! `syntax_guard = true` in `.aitools.toml`) refuses a change that breaks a file
//! that parsed, in each language, and lets a valid one through; `check` reports a
//! source file's first syntax error by its grammar; `code outline` / `code defs`
//! give kinds and qualified names from the tree; languages without a grammar
//! fall back to the regex rules and are never judged by the guard. Where a
//! compiler or parser other than aitools is on the machine (python3's `ast`,
//! gcc, node), it confirms that what the guard refused is broken and what it let
//! through is not.

use crate::support::TestEnv;
use std::process::Command;

/// (file, before, old, broken new, valid new)
const CASES: &[(&str, &str, &str, &str, &str)] = &[
    (
        "src/m.rs",
        "fn main() {\n    let x = 1;\n}\n",
        "let x = 1;",
        "let x = (1;",
        "let x = 2;",
    ),
    (
        "m.py",
        "def f(x):\n    return x\n",
        "return x",
        "return (x",
        "return x + 1",
    ),
    (
        "m.go",
        "package m\n\nfunc F() int {\n\treturn 1\n}\n",
        "return 1",
        "return 1 +",
        "return 2",
    ),
    (
        "m.js",
        "function f() {\n  return 1;\n}\n",
        "return 1;",
        "return 1 +;",
        "return 2;",
    ),
    (
        "m.ts",
        "function f(x: number): number {\n  return x;\n}\n",
        "return x;",
        "return x *;",
        "return x * 2;",
    ),
    (
        "A.java",
        "class A {\n  int f() { return 1; }\n}\n",
        "return 1;",
        "return 1 +;",
        "return 2;",
    ),
    (
        "m.c",
        "int f(void) {\n  return 0;\n}\n",
        "return 0;",
        "return 0 +;",
        "return 1;",
    ),
    ("m.rb", "def f(x)\n  x\nend\n", "end", "", "# done\nend"),
];

/// What a parser that is not aitools says about `file` (Some(true): parses),
/// when one is on the machine for its language.
fn oracle(env: &TestEnv, file: &str) -> Option<bool> {
    let path = env.path(file);
    let p = path.to_str()?;
    let mut c = match file.rsplit_once('.')?.1 {
        "py" => {
            let mut c = Command::new("python3");
            c.args([
                "-c",
                "import ast,sys; ast.parse(open(sys.argv[1]).read())",
                p,
            ]);
            c
        }
        "c" => {
            let mut c = Command::new("gcc");
            c.args(["-fsyntax-only", "-x", "c", p]);
            c
        }
        "js" => {
            let mut c = Command::new("node");
            c.args(["--check", p]);
            c
        }
        _ => return None,
    };
    let out = c.output().ok()?;
    Some(out.status.success())
}

#[test]
fn the_guard_refuses_a_breaking_edit_in_each_language_and_lets_a_valid_one_through() {
    for (file, before, old, broken, valid) in CASES {
        let env = TestEnv::new();
        env.write(file, before);
        let r = env.run(&[
            "edit",
            file,
            "--old",
            old,
            "--new",
            broken,
            "--syntax-guard",
        ]);
        assert_eq!(
            r.error_code(),
            "refusal.syntax-broken",
            "{file}: {}",
            r.stdout
        );
        assert_eq!(r.code, 1, "{file}");
        assert_eq!(env.read(file), before.as_bytes(), "{file}: nothing written");
        let msg = r.json["error"]["message"].as_str().unwrap_or("");
        assert!(msg.contains("line ") && msg.contains("column "), "{msg}");
        let d = &r.json["error"]["diagnostics"][0];
        assert_eq!(d["path"], *file, "{file}");
        assert!(d["line"].as_u64().is_some_and(|l| l >= 1), "{file}: {d}");
        let repairs = r.json["error"]["repairs"].as_array().expect("repairs");
        let cmds: Vec<&str> = repairs
            .iter()
            .filter_map(|x| x["command"].as_str())
            .collect();
        assert!(
            cmds.iter()
                .any(|c| c.contains("read") && c.contains("--range")),
            "{cmds:?}"
        );
        // The write-anyway repair is the same call without the guard, and it works.
        let anyway = cmds
            .iter()
            .find(|c| c.contains("edit") && !c.contains("--syntax-guard"))
            .expect("a repair without the guard");
        let done = env.run_line(anyway);
        assert_eq!(done.code, 0, "{file}: {}", done.stdout);
        if let Some(parses) = oracle(&env, file) {
            assert!(!parses, "{file}: the oracle parses what the guard refused");
        }
        // A valid change goes through with the guard on.
        env.write(file, before);
        let ok = env.run(&["edit", file, "--old", old, "--new", valid, "--syntax-guard"]);
        assert_eq!(ok.code, 0, "{file}: {}", ok.stdout);
        assert_ne!(env.read(file), before.as_bytes(), "{file}");
        if let Some(parses) = oracle(&env, file) {
            assert!(
                parses,
                "{file}: the oracle refuses what the guard let through"
            );
        }
    }
}

#[test]
fn the_guard_names_the_missing_token_and_its_place() {
    let env = TestEnv::new();
    env.write("src/m.rs", "fn main() {\n    let x = 1;\n}\n");
    let r = env.run(&[
        "edit",
        "src/m.rs",
        "--old",
        "}\n",
        "--new",
        "",
        "--syntax-guard",
    ]);
    assert_eq!(r.error_code(), "refusal.syntax-broken", "{}", r.stdout);
    let d = &r.json["error"]["diagnostics"][0];
    assert_eq!(d["insert"], "}", "{d}");
    assert_eq!(d["line"], 3, "{d}");
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("insert `}` at line 3"), "{msg}");
}

#[test]
fn the_guard_refuses_a_write_that_breaks_a_json_yaml_or_toml_file() {
    let env = TestEnv::new();
    // (file, content, old, breaking new, line and column of the first error)
    let cases = [
        (
            "c.json",
            "{\n  \"a\": 1,\n  \"b\": 2\n}\n",
            "1,",
            "1",
            (3, 3),
        ),
        ("c.yaml", "a: 1\nb:\n  - x\n", "- x", "- [x", (4, 1)),
        ("c.toml", "[a]\nb = 1\n", "b = 1", "b = ", (2, 5)),
    ];
    for (file, content, old, new, (line, column)) in cases {
        env.write(file, content);
        let r = env.run(&["edit", file, "--old", old, "--new", new, "--syntax-guard"]);
        assert_eq!(
            r.error_code(),
            "refusal.syntax-broken",
            "{file}: {}",
            r.stdout
        );
        assert_eq!(env.read(file), content.as_bytes(), "{file}");
        let d = &r.json["error"]["diagnostics"][0];
        assert_eq!(
            (d["line"].clone(), d["column"].clone()),
            (line.into(), column.into()),
            "{file}: {d}"
        );
        let msg = r.json["error"]["message"].as_str().unwrap_or("");
        assert!(
            msg.contains(&format!("line {line}, column {column}")),
            "{msg}"
        );
        let repairs: Vec<&str> = r.json["error"]["repairs"]
            .as_array()
            .expect("repairs")
            .iter()
            .filter_map(|x| x["command"].as_str())
            .collect();
        assert!(
            repairs
                .iter()
                .any(|c| c.starts_with(&format!("aitools read {file} --range"))),
            "{repairs:?}"
        );
        assert!(
            repairs
                .iter()
                .any(|c| c.contains("edit") && !c.contains("--syntax-guard")),
            "{repairs:?}"
        );
        // A write that keeps it parsing goes through.
        let ok = env.run(&["edit", file, "--old", old, "--new", old, "--syntax-guard"]);
        assert_eq!(ok.code, 0, "{file}: {}", ok.stdout);
    }
    // A new JSON file that does not parse is refused too; JSON with comments
    // (`*.jsonc`) is left alone.
    let w = env.run(&[
        "write",
        "n.json",
        "--content",
        "{\"a\": }\n",
        "--syntax-guard",
    ]);
    assert_eq!(w.error_code(), "refusal.syntax-broken", "{}", w.stdout);
    assert!(!env.path("n.json").exists());
    let w = env.run(&[
        "write",
        "n.jsonc",
        "--content",
        "{ // x\n}\n",
        "--syntax-guard",
    ]);
    assert_eq!(w.code, 0, "{}", w.stdout);
}

#[test]
fn the_workspace_config_turns_the_guard_on_and_the_flag_turns_it_off() {
    let env = TestEnv::new();
    env.write(
        ".aitools.toml",
        "# workspace defaults\nsyntax_guard = true\n",
    );
    env.write("m.py", "def f(x):\n    return x\n");
    let r = env.run(&["edit", "m.py", "--old", "return x", "--new", "return (x"]);
    assert_eq!(r.error_code(), "refusal.syntax-broken", "{}", r.stdout);
    assert_eq!(env.read("m.py"), b"def f(x):\n    return x\n");
    let anyway = r.json["error"]["repairs"]
        .as_array()
        .expect("repairs")
        .iter()
        .filter_map(|x| x["command"].as_str())
        .find(|c| c.contains("--syntax-guard=off"))
        .expect("a repair that turns the config's guard off")
        .to_string();
    assert_eq!(env.run_line(&anyway).code, 0);
    assert_eq!(env.read("m.py"), b"def f(x):\n    return (x\n");
    // Writes of new files and whole files are guarded too (`write`).
    let w = env.run(&["write", "n.py", "--content", "def g(:\n"]);
    assert_eq!(w.error_code(), "refusal.syntax-broken", "{}", w.stdout);
    assert!(!env.path("n.py").exists());
}

#[test]
fn a_file_that_did_not_parse_and_a_language_without_grammar_are_not_judged() {
    let env = TestEnv::new();
    env.write("bad.py", "def f(:\n    return 1\n");
    let r = env.run(&[
        "edit",
        "bad.py",
        "--old",
        "return 1",
        "--new",
        "return 2",
        "--syntax-guard",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    env.write("m.lua", "function f()\n  return 1\nend\n");
    let r = env.run(&[
        "edit",
        "m.lua",
        "--old",
        "end",
        "--new",
        "",
        "--syntax-guard",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // Without the guard a breaking edit is written as before.
    env.write("m.rs", "fn main() {}\n");
    let r = env.run(&["edit", "m.rs", "--old", "{}", "--new", "{"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn the_guard_holds_in_batch_and_tx() {
    let env = TestEnv::new();
    env.write("m.go", "package m\n\nfunc F() int {\n\treturn 1\n}\n");
    let r = env.run_stdin(
        &["batch", "--stdin", "--syntax-guard"],
        br#"[["edit","m.go","--old","return 1","--new","return 1 +"]]"#,
    );
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.error_code(), "refusal.syntax-broken", "{}", r.json);
    assert_eq!(
        r.json["error"]["diagnostics"][0]["error"]["code"],
        "refusal.syntax-broken"
    );
    assert_eq!(
        env.read("m.go"),
        b"package m\n\nfunc F() int {\n\treturn 1\n}\n"
    );
    let tx = env.tx_begin();
    let r = env.run(&[
        "edit",
        "m.go",
        "--old",
        "return 1",
        "--new",
        "return 1 +",
        "--tx",
        &tx,
        "--syntax-guard",
    ]);
    assert_eq!(r.error_code(), "refusal.syntax-broken", "{}", r.stdout);
}

#[test]
fn check_reports_a_source_syntax_error_with_line_and_column() {
    let env = TestEnv::new();
    // Balanced brackets, broken grammar: a missing colon, a missing operand.
    env.write("a.py", "def f(x)\n    return x\n");
    env.write("b.rs", "fn main() {\n    let x = ;\n}\n");
    env.write("ok.go", "package m\n\nfunc F() int { return 1 }\n");
    let r = env.run(&["check", "a.py"]);
    assert_eq!(r.error_code(), "input.syntax-error", "{}", r.stdout);
    let d = &r.json["error"]["diagnostics"][0];
    assert_eq!(d["line"], 1, "{d}");
    assert!(d["column"].as_u64().is_some(), "{d}");
    let r = env.run(&["check", "b.rs"]);
    assert_eq!(r.error_code(), "input.syntax-error", "{}", r.stdout);
    let d = &r.json["error"]["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(2), Some(11)),
        "{d}"
    );
    let r = env.run(&["check", "ok.go"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

fn qualified(r: &crate::support::Run, list: &str) -> Vec<(String, String)> {
    r.json[list]
        .as_array()
        .expect("list")
        .iter()
        .map(|s| {
            let q = s["qualified"].as_str().or(s["name"].as_str()).unwrap_or("");
            (q.to_string(), s["kind"].as_str().unwrap_or("").to_string())
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn outline_gives_qualified_names_and_kinds_per_language() {
    let env = TestEnv::new();
    let fixtures: &[(&str, &str, &[(&str, &str)])] = &[
        (
            "a.rs",
            "mod m {\n    pub struct A;\n    impl A {\n        pub fn new() -> A { A }\n    }\n}\n",
            &[
                ("m", "module"),
                ("m::A", "struct"),
                ("m::A", "impl"),
                ("m::A::new", "method"),
            ],
        ),
        (
            "a.py",
            "class A:\n    def f(self):\n        pass\n\ndef g():\n    pass\n",
            &[("A", "class"), ("A.f", "method"), ("g", "function")],
        ),
        (
            "a.go",
            "package p\n\ntype T struct{}\n\nfunc (t *T) Run() {}\n\nfunc Free() {}\n",
            &[("T", "struct"), ("T.Run", "method"), ("Free", "function")],
        ),
        (
            "a.ts",
            "namespace N {\n  export class C {\n    run(): void {}\n  }\n}\ninterface I { x: number }\n",
            &[
                ("N", "namespace"),
                ("N.C", "class"),
                ("N.C.run", "method"),
                ("I", "interface"),
            ],
        ),
        (
            "a.js",
            "class C {\n  run() {}\n}\nconst h = () => 1;\n",
            &[("C", "class"), ("C.run", "method"), ("h", "function")],
        ),
        (
            "A.java",
            "class A {\n  A() {}\n  void f() {}\n  class B { void g() {} }\n}\n",
            &[
                ("A", "class"),
                ("A.A", "constructor"),
                ("A.f", "method"),
                ("A.B", "class"),
                ("A.B.g", "method"),
            ],
        ),
        (
            "a.cpp",
            "namespace n {\nclass C {\n  void f() {}\n};\nvoid C::g() {}\n}\n",
            &[
                ("n", "namespace"),
                ("n::C", "class"),
                ("n::C::f", "method"),
                ("n::C::g", "method"),
            ],
        ),
        (
            "a.c",
            "#define N 1\nstruct S { int x; };\nint f(void) { return N; }\n",
            &[("N", "macro"), ("S", "struct"), ("f", "function")],
        ),
        (
            "a.rb",
            "module M\n  class K\n    def run\n    end\n  end\nend\n",
            &[("M", "module"), ("M::K", "class"), ("M::K.run", "method")],
        ),
    ];
    for (file, src, want) in fixtures {
        env.write(file, src);
        let r = env.run(&["code", "outline", file]);
        assert_eq!(r.code, 0, "{file}: {}", r.stdout);
        assert_eq!(
            qualified(&r, "symbols"),
            pairs(want),
            "{file}: {}",
            r.stdout
        );
    }
    // end_line comes from the tree: the Rust impl ends on its closing brace.
    let r = env.run(&["code", "outline", "a.rs"]);
    let imp = &r.json["symbols"][2];
    assert_eq!(
        (imp["line"].as_u64(), imp["end_line"].as_u64()),
        (Some(3), Some(5))
    );
}

#[test]
fn defs_finds_a_qualified_name_through_the_grammar() {
    let env = TestEnv::new();
    env.write(
        "src/a.rs",
        "struct A;\nstruct B;\nimpl A {\n    fn run(&self) {}\n}\nimpl B {\n    fn run(&self) {}\n}\n",
    );
    env.write("src/b.py", "class A:\n    def run(self):\n        pass\n");
    let r = env.run(&["code", "defs", "A::run", "src"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let got: Vec<(String, u64)> = r.json["defs"]
        .as_array()
        .expect("defs")
        .iter()
        .map(|d| {
            (
                d["qualified"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![("A::run".to_string(), 4), ("A.run".to_string(), 2)],
        "{}",
        r.stdout
    );
    let r = env.run(&["code", "defs", "run", "src", "--kind", "method"]);
    assert_eq!(r.json["total"], 3, "{}", r.stdout);
}

#[test]
fn languages_without_a_grammar_fall_back_to_the_rules() {
    let env = TestEnv::new();
    env.write("a.lua", "local function f()\n  return 1\nend\n");
    let r = env.run(&["code", "outline", "a.lua"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let s = &r.json["symbols"][0];
    assert_eq!(s["name"], "f", "{}", r.stdout);
    assert!(s.get("qualified").is_none(), "{}", r.stdout);
    // check of a language without grammar still checks its brackets.
    env.write("b.lua", "local t = {1, 2\n");
    let r = env.run(&["check", "b.lua"]);
    assert_eq!(r.error_code(), "input.syntax-error", "{}", r.stdout);
    // The guard flag is accepted there and judges nothing.
    let r = env.run(&[
        "edit",
        "b.lua",
        "--old",
        "2",
        "--new",
        "2,",
        "--syntax-guard",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

/// A file nested 200,000 deep (Python parentheses, Rust brackets) is parsed and
/// walked without exhausting the stack: every command that reads the tree answers
/// with its envelope (`support::parse` fails the test on a crash or a missing one).
#[test]
fn a_file_nested_200000_deep_never_exhausts_the_stack() {
    let env = TestEnv::new();
    let n = 200_000;
    env.write(
        "deep.py",
        format!("x = {}1{}\n", "(".repeat(n), ")".repeat(n)),
    );
    env.write(
        "deep.rs",
        format!(
            "fn f() {{ let x = {}1{}; }}\n",
            "[".repeat(n),
            "]".repeat(n)
        ),
    );
    for args in [
        &["check", "deep.py"][..],
        &["check", "deep.rs"],
        &["code", "outline", "deep.py"],
        &["code", "outline", "deep.rs"],
        &["code", "refs", "x"],
        &["code", "defs", "f"],
        &["code", "rename", "x", "y", "--dry-run"],
    ] {
        let r = env.run(args);
        assert!(r.json["status"].is_string(), "{args:?}: {}", r.stdout);
    }
    let r = env.run(&[
        "edit",
        "deep.py",
        "--old",
        "x =",
        "--new",
        "y =",
        "--syntax-guard",
    ]);
    assert_eq!(r.json["status"], "ok", "{}", r.stdout);
}

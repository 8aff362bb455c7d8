//! `code refs` through the grammars (kinds, strings and comments left out,
//! locals resolved) and `code rename` (one op across files, undo, refusals).

use crate::support::TestEnv;

fn refs(env: &TestEnv, args: &[&str]) -> Vec<(String, u64, String)> {
    let r = env.run(args);
    assert_eq!(r.code, 0, "{}", r.stdout);
    r.json["refs"]
        .as_array()
        .expect("refs")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["kind"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn row(p: &str, l: u64, k: &str) -> (String, u64, String) {
    (p.to_string(), l, k.to_string())
}

const LIB: &str = "def helper(x: int) -> int:\n    \"\"\"helper adds one\"\"\"\n    return x + 1\n\n\ndef shadow(helper):\n    return helper * 2\n\n\nclass Box:\n    def helper(self):\n        return helper(1)  # calls helper\n";
const USE: &str =
    "from lib import helper\nimport lib\n\nprint(helper(2), lib.helper(3), \"helper\")\n";

#[test]
fn refs_classify_and_leave_out_strings_comments_and_locals() {
    let env = TestEnv::new();
    env.write("lib.py", LIB);
    env.write("use.py", USE);
    env.write(
        "m.rs",
        "fn helper() {}\nfn f() {\n    helper();\n    let helper = 2;\n    let _ = helper;\n}\n",
    );
    env.write("w.ts", "export function helper(): number { return 1 }\nfunction g(helper: number) { return helper }\nhelper();\n");
    let got = refs(&env, &["code", "refs", "helper"]);
    assert_eq!(
        got,
        vec![
            row("lib.py", 1, "definition"),
            row("lib.py", 11, "definition"),
            row("lib.py", 12, "call"),
            row("m.rs", 1, "definition"),
            row("m.rs", 3, "call"),
            row("use.py", 1, "import"),
            row("use.py", 4, "call"),
            row("w.ts", 1, "definition"),
            row("w.ts", 3, "call"),
        ]
    );
    let r = env.run(&["code", "refs", "helper"]);
    assert_eq!(r.json["left_out"]["string"], 2);
    assert_eq!(r.json["left_out"]["comment"], 1);
    // lib.py's parameter and its use, m.rs's let and its use, w.ts's parameter and its use.
    assert_eq!(r.json["left_out"]["local"], 6);
    let all = refs(
        &env,
        &[
            "code",
            "refs",
            "helper",
            "lib.py",
            "--include",
            "strings,comments,locals",
        ],
    );
    assert!(all.contains(&row("lib.py", 2, "string")), "{all:?}");
    assert!(all.contains(&row("lib.py", 12, "comment")), "{all:?}");
    assert!(all.contains(&row("lib.py", 7, "local")), "{all:?}");
}

#[test]
fn rename_changes_every_file_in_one_op_and_undo_restores_them() {
    let env = TestEnv::new();
    env.write("lib.py", LIB);
    env.write("use.py", USE);
    env.git(&["add", "-A"]);
    let r = env.run(&["code", "rename", "helper", "assist", "--kind", "function"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["symbol"]["path"], "lib.py");
    let lib = String::from_utf8(env.read("lib.py")).expect("utf8");
    let want_lib = LIB.replacen("def helper(x", "def assist(x", 1).replacen(
        "return helper(1)",
        "return assist(1)",
        1,
    );
    assert_eq!(lib, want_lib);
    let used = String::from_utf8(env.read("use.py")).expect("utf8");
    assert_eq!(
        used,
        "from lib import assist\nimport lib\n\nprint(assist(2), lib.assist(3), \"helper\")\n"
    );
    let counts: Vec<u64> = r.json["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| c["count"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(counts, vec![2, 3]);
    // The oracle: Python itself still runs the renamed code.
    let py = std::process::Command::new("python3")
        .args(["-c", "import use"])
        .current_dir(env.root())
        .output();
    if let Ok(out) = py {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), "3 4 helper\n");
    }
    let op = r.json["op_id"].as_str().expect("op").to_string();
    let u = env.run(&["undo", &op]);
    assert_eq!(u.code, 0, "{}", u.stdout);
    assert_eq!(env.read("lib.py"), LIB.as_bytes());
    assert_eq!(env.read("use.py"), USE.as_bytes());
}

#[test]
fn rename_dry_run_writes_nothing() {
    let env = TestEnv::new();
    env.write("lib.py", LIB);
    env.write("use.py", USE);
    let r = env.run(&[
        "code",
        "rename",
        "helper",
        "assist",
        "--kind",
        "function",
        "--dry-run",
        "--strings",
        "--comments",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["dry_run"], true);
    assert_eq!(r.json["renamed"]["string"], 2);
    assert_eq!(r.json["renamed"]["comment"], 1);
    assert_eq!(env.read("lib.py"), LIB.as_bytes());
    assert_eq!(env.read("use.py"), USE.as_bytes());
}

#[test]
fn rename_refuses_an_ambiguous_name_with_a_repair_that_works() {
    let env = TestEnv::new();
    env.write("lib.py", LIB);
    env.write("use.py", USE);
    let r = env.run(&["code", "rename", "helper", "assist"]);
    assert_eq!(r.error_code(), "selection.ambiguous");
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("function helper at lib.py:1"), "{msg}");
    assert!(msg.contains("method Box.helper at lib.py:11"), "{msg}");
    let fix = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    assert_eq!(fix, "aitools code rename Box.helper assist --dry-run");
    assert_eq!(
        r.json["error"]["candidates"],
        serde_json::json!(["helper", "Box.helper"])
    );
    let ok = env.run_line(fix);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    assert_eq!(env.read("lib.py"), LIB.as_bytes());
}

const BLOCK: &str = "package p;\n\npublic final class Block {\n    static String join(String a) {\n        return a;\n    }\n\n    static final class Joiner {\n        String join(String b) {\n            return b + b;\n        }\n    }\n\n    static String use() {\n        return Block.join(\"x\");\n    }\n}\n";

#[test]
fn rename_takes_the_qualified_name_an_ambiguous_refusal_lists() {
    let env = TestEnv::new();
    env.write("p/Block.java", BLOCK);
    // Two methods of one kind in one file: --kind and --in cannot pick one.
    let r = env.run(&[
        "code",
        "rename",
        "join",
        "glue",
        "--kind",
        "method",
        "--in",
        "p/Block.java",
    ]);
    assert_eq!(r.error_code(), "selection.ambiguous", "{}", r.stdout);
    assert_eq!(
        r.json["error"]["candidates"],
        serde_json::json!(["Block.join", "Block.Joiner.join"])
    );
    let fix = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    assert_eq!(fix, "aitools code rename Block.join glue --dry-run");
    assert_eq!(env.run_line(fix).code, 0);
    assert_eq!(env.read("p/Block.java"), BLOCK.as_bytes());
    // Every candidate is a NAME code rename takes; a partly qualified one too.
    let r = env.run(&["code", "rename", "Joiner.join", "glue", "--dry-run"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["symbol"]["name"], "Block.Joiner.join");
    let r = env.run(&["code", "rename", "Block.join", "glue"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["symbol"]["name"], "Block.join");
    let text = String::from_utf8(env.read("p/Block.java")).expect("utf8");
    assert!(
        text.contains("static String glue(String a)") && text.contains("Block.glue(\"x\")"),
        "{text}"
    );
    let r = env.run(&["code", "rename", "Nope.join", "glue"]);
    assert_eq!(r.error_code(), "selection.no-match", "{}", r.stdout);
}

#[test]
fn rename_refuses_a_name_it_would_capture_and_a_bad_identifier() {
    let env = TestEnv::new();
    env.write("lib.py", LIB);
    env.write(
        "use.py",
        "from lib import helper\nprint_it = print\nprint_it(helper(2))\n",
    );
    let r = env.run(&["code", "rename", "helper", "print_it", "--kind", "function"]);
    assert_eq!(r.error_code(), "refusal.name-taken");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("use.py:2")
    );
    let fix = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    assert_eq!(fix, "aitools code rename helper print_it2 --kind function");
    assert_eq!(env.read("lib.py"), LIB.as_bytes());
    let r = env.run(&["code", "rename", "helper", "class", "--kind", "function"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let r = env.run(&["code", "rename", "helper", "a-b", "--kind", "function"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let ok = env.run_line(fix);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
}

#[test]
fn rename_a_type_renames_its_definition_and_every_use() {
    let env = TestEnv::new();
    env.write("src/shapes.rs", "pub struct Circle {\n    pub r: f64,\n}\n\nimpl Circle {\n    pub fn new(r: f64) -> Circle {\n        Circle { r }\n    }\n}\n");
    env.write("src/lib.rs", "pub mod shapes;\nuse shapes::Circle;\n\npub fn one() -> Circle {\n    let r = 1.0;\n    Circle::new(r)\n}\n");
    env.write(
        "k.py",
        "class Box:\n    pass\n\n\ndef make() -> Box:\n    return Box()\n",
    );
    let r = env.run(&["code", "rename", "Circle", "Disk", "src"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        String::from_utf8(env.read("src/shapes.rs")).expect("utf8"),
        "pub struct Disk {\n    pub r: f64,\n}\n\nimpl Disk {\n    pub fn new(r: f64) -> Disk {\n        Disk { r }\n    }\n}\n"
    );
    assert_eq!(
        String::from_utf8(env.read("src/lib.rs")).expect("utf8"),
        "pub mod shapes;\nuse shapes::Disk;\n\npub fn one() -> Disk {\n    let r = 1.0;\n    Disk::new(r)\n}\n"
    );
    let r = env.run(&["code", "rename", "Box", "Crate", "k.py"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        String::from_utf8(env.read("k.py")).expect("utf8"),
        "class Crate:\n    pass\n\n\ndef make() -> Crate:\n    return Crate()\n"
    );
}

#[test]
fn rename_in_a_tx_stages_every_file_and_refs_see_it() {
    let env = TestEnv::new();
    env.write("lib.py", LIB);
    env.write("use.py", USE);
    let tx = env.run(&["tx", "begin"]).json["tx"]
        .as_str()
        .expect("tx")
        .to_string();
    let r = env.run(&[
        "code", "rename", "helper", "assist", "--kind", "function", "--tx", &tx,
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["tx_op"], 1);
    assert_eq!(env.read("lib.py"), LIB.as_bytes());
    let got = refs(&env, &["code", "refs", "assist", "--tx", &tx]);
    assert_eq!(
        got,
        vec![
            row("lib.py", 1, "definition"),
            row("lib.py", 12, "call"),
            row("use.py", 1, "import"),
            row("use.py", 4, "call"),
        ]
    );
}

#[test]
fn refs_leave_out_members_of_an_external_library() {
    let env = TestEnv::new();
    env.write("lib.py", "def get(url):\n    return url\n");
    env.write(
        "use.py",
        "import requests\nimport lib\n\nrequests.get(1)\nlib.get(2)\nrequests.get(3); lib.get(4)\n",
    );
    env.write(
        "main.go",
        "package main\n\nimport \"net/http\"\n\nfunc get() {}\n\nfunc main() {\n\tget()\n\thttp.get()\n}\n",
    );
    let got = refs(&env, &["code", "refs", "get"]);
    assert_eq!(
        got,
        vec![
            row("lib.py", 1, "definition"),
            row("main.go", 5, "definition"),
            row("main.go", 8, "call"),
            row("use.py", 5, "call"),
            row("use.py", 6, "call"),
        ]
    );
    let r = env.run(&["code", "refs", "get"]);
    assert_eq!(r.json["left_out"]["external"], 3, "{}", r.stdout);
    assert_eq!(r.json["total"], 5);
}

#[test]
fn a_bare_name_imported_from_an_external_library_is_not_our_definition() {
    let env = TestEnv::new();
    env.write("lib.py", "def get(url):\n    return url\n");
    env.write("use.py", "from requests import get\n\nget(1)\n");
    env.write("mine.py", "from lib import get\n\nget(2)\n");
    env.write("a.js", "import { get } from 'axios';\nget(3);\n");
    env.write("b.js", "const { get } = require('got');\nget(4);\n");
    let got = refs(&env, &["code", "refs", "get"]);
    assert_eq!(
        got,
        vec![
            row("lib.py", 1, "definition"),
            row("mine.py", 1, "import"),
            row("mine.py", 3, "call"),
        ]
    );
    let r = env.run(&["code", "refs", "get"]);
    assert_eq!(r.json["left_out"]["external"], 6, "{}", r.stdout);
    let r = env.run(&["code", "rename", "get", "fetch", "--in", "lib.py"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(env.read("mine.py"), b"from lib import fetch\n\nfetch(2)\n");
    assert_eq!(env.read("use.py"), b"from requests import get\n\nget(1)\n");
    assert_eq!(env.read("a.js"), b"import { get } from 'axios';\nget(3);\n");
    assert_eq!(
        env.read("b.js"),
        b"const { get } = require('got');\nget(4);\n"
    );
}

#[test]
fn the_member_an_aliased_import_reads_from_an_external_library_is_not_ours() {
    let env = TestEnv::new();
    env.write("lib.py", "def get(url):\n    return url\n");
    env.write("use.py", "from requests import get as g\n\ng(1)\n");
    env.write("mine.py", "from lib import get as mine\n\nmine(2)\n");
    env.write("a.js", "import { get as g } from 'axios';\ng(3);\n");
    env.write("b.js", "const { get: g } = require('got');\ng(4);\n");
    env.write("c.js", "export { get as g } from 'pkg';\n");
    let got = refs(&env, &["code", "refs", "get"]);
    assert_eq!(
        got,
        vec![row("lib.py", 1, "definition"), row("mine.py", 1, "import")]
    );
    let r = env.run(&["code", "refs", "get"]);
    assert_eq!(r.json["left_out"]["external"], 4, "{}", r.stdout);
    let r = env.run(&["code", "rename", "get", "fetch"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["left"]["external"], 4, "{}", r.stdout);
    assert_eq!(
        env.read("mine.py"),
        b"from lib import fetch as mine\n\nmine(2)\n"
    );
    assert_eq!(
        env.read("use.py"),
        b"from requests import get as g\n\ng(1)\n"
    );
    assert_eq!(
        env.read("a.js"),
        b"import { get as g } from 'axios';\ng(3);\n"
    );
    assert_eq!(
        env.read("b.js"),
        b"const { get: g } = require('got');\ng(4);\n"
    );
    assert_eq!(env.read("c.js"), b"export { get as g } from 'pkg';\n");
}

const SVC: &str = "from requests import get\n\n\ndef fetch(url):\n    return get(url)\n\n\nclass Cache:\n    def get(self, key):\n        return key\n\n    def both(self):\n        return self.get(1)\n\n\ndef local_one():\n    def get(x):\n        return x\n    return get(2)\n";

#[test]
fn each_use_is_judged_by_the_binding_of_its_scope_not_the_files_external_import() {
    let env = TestEnv::new();
    env.write("svc.py", SVC);
    env.write("use.py", "from svc import Cache\nCache().get(3)\n");
    env.write(
        "w.js",
        "import { get } from 'axios';\nfunction f(u) { return get(u); }\nfunction g() {\n  const get = (x) => x;\n  return get(2);\n}\n",
    );
    // The local def and its use are locals, not the import's (external) uses.
    let got = refs(&env, &["code", "refs", "get", "--include", "locals"]);
    assert_eq!(
        got,
        vec![
            row("svc.py", 9, "definition"),
            row("svc.py", 13, "call"),
            row("svc.py", 17, "local"),
            row("svc.py", 19, "local"),
            row("use.py", 2, "call"),
            row("w.js", 4, "local"),
            row("w.js", 5, "local"),
        ]
    );
    let r = env.run(&["code", "refs", "get", "--include", "locals"]);
    assert_eq!(r.json["left_out"]["external"], 4, "{}", r.stdout);
    // Renaming the nested def renames what its binding captures, nothing else.
    let r = env.run(&[
        "code", "rename", "get", "lookup", "--kind", "function", "--in", "svc.py",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        String::from_utf8(env.read("svc.py")).expect("utf8"),
        SVC.replace("def get(x)", "def lookup(x)")
            .replace("get(2)", "lookup(2)")
    );
    assert_eq!(
        env.read("use.py"),
        b"from svc import Cache\nCache().get(3)\n"
    );
    let r = env.run(&[
        "code", "rename", "get", "lookup", "--kind", "function", "--in", "w.js",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        String::from_utf8(env.read("w.js")).expect("utf8"),
        "import { get } from 'axios';\nfunction f(u) { return get(u); }\nfunction g() {\n  const lookup = (x) => x;\n  return lookup(2);\n}\n"
    );
}

const APP_RB: &str = "LIMIT = 10\ncount = compute\nmodule Conf\n  DEPTH = 3\n  def self.depth\n    DEPTH\n  end\nend\nclass Runner\n  def count\n    1\n  end\n  def run\n    LIMIT + count\n  end\nend\n[1, 2].each { |i| puts count + i }\nputs count\n";

#[test]
fn ruby_file_level_assignments_are_definitions_outlined_and_renamed() {
    let env = TestEnv::new();
    env.write("app.rb", APP_RB);
    env.write("other.rb", "puts LIMIT\ncount = 2\n");
    let r = env.run(&["code", "outline", "app.rb"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let got: Vec<(u64, String, String)> = r.json["symbols"]
        .as_array()
        .expect("symbols")
        .iter()
        .map(|s| {
            let q = s.get("qualified").unwrap_or(&s["name"]);
            (
                s["line"].as_u64().unwrap_or(0),
                s["kind"].as_str().unwrap_or("").to_string(),
                q.as_str().unwrap_or("").to_string(),
            )
        })
        .filter(|s| matches!(s.1.as_str(), "constant" | "variable"))
        .collect();
    let want = [
        (1, "constant", "LIMIT"),
        (2, "variable", "count"),
        (4, "constant", "Conf::DEPTH"),
    ];
    let want: Vec<(u64, String, String)> = want
        .iter()
        .map(|(l, k, n)| (*l, k.to_string(), n.to_string()))
        .collect();
    assert_eq!(got, want);
    // A file-level variable: its file's top level and blocks, not Runner#count.
    let r = env.run(&[
        "code", "rename", "count", "total", "--kind", "variable", "--in", "app.rb",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let text = String::from_utf8(env.read("app.rb")).expect("utf8");
    assert_eq!(
        text,
        APP_RB
            .replace("count = compute", "total = compute")
            .replace("puts count", "puts total")
    );
    assert_eq!(env.read("other.rb"), b"puts LIMIT\ncount = 2\n");
    // A constant is seen from every file.
    let r = env.run(&["code", "rename", "LIMIT", "MAX_N"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(env.read("other.rb"), b"puts MAX_N\ncount = 2\n");
    let text = String::from_utf8(env.read("app.rb")).expect("utf8");
    assert!(text.starts_with("MAX_N = 10\n") && text.contains("    MAX_N + count\n"));
}

const JOB: &str = "package p;\n\npublic class Job implements Runnable, Handler {\n    @Override\n    public void run() {\n        System.out.println(toString());\n    }\n\n    @Override\n    public String toString() {\n        return \"Job\";\n    }\n\n    @Override\n    public int handle(int x) {\n        return x + 1;\n    }\n}\n";

#[test]
fn java_rename_of_an_override_of_a_jdk_method_is_refused_with_a_repair_that_works() {
    let env = TestEnv::new();
    env.write("src/p/Job.java", JOB);
    env.write(
        "src/p/Handler.java",
        "package p;\n\npublic interface Handler {\n    int handle(int x);\n}\n",
    );
    env.write(
        "src/p/Main.java",
        "package p;\n\npublic class Main {\n    public static void main(String[] a) {\n        Job j = new Job();\n        j.run();\n        System.out.println(j.toString() + j.handle(1));\n    }\n}\n",
    );
    for (name, new) in [("toString", "describe"), ("run", "start")] {
        let r = env.run(&["code", "rename", name, new, "src"]);
        assert_eq!(r.code, 1, "{}", r.stdout);
        assert_eq!(
            r.json["error"]["code"], "refusal.external-symbol",
            "{}",
            r.stdout
        );
        let msg = r.json["error"]["message"].as_str().unwrap_or("");
        assert!(
            msg.contains(&format!("Job.{name}")) && msg.contains("override"),
            "{msg}"
        );
        let repair = r.json["error"]["repairs"][0]["command"]
            .as_str()
            .unwrap_or("");
        assert_eq!(repair, format!("aitools code refs {name} src"));
        let argv: Vec<&str> = repair.split(' ').skip(1).collect();
        let seen = env.run(&argv);
        assert_eq!(seen.code, 0, "{}", seen.stdout);
    }
    assert_eq!(env.read("src/p/Job.java"), JOB.as_bytes());
    // An override of our own interface's method is ours, not an external
    // symbol: the interface's method, its override and their uses are renamed
    // together.
    let r = env.run(&[
        "code",
        "rename",
        "handle",
        "apply",
        "--in",
        "src/p/Handler.java",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["renamed"]["definition"], 2, "{}", r.stdout);
    assert_eq!(
        env.read("src/p/Job.java"),
        JOB.replace("int handle(", "int apply(").as_bytes()
    );
    let main = String::from_utf8(env.read("src/p/Main.java")).expect("utf8");
    assert!(main.contains("j.apply(1)"), "{main}");
    let all = ["src/p/Job.java", "src/p/Handler.java", "src/p/Main.java"];
    assert_ne!(javac(&env, &all), Some(false));
}

#[test]
fn java_rename_of_a_method_leaves_calls_on_a_receiver_declared_as_another_own_class() {
    let env = TestEnv::new();
    env.write(
        "p/Field.java",
        "package p;\n\nclass Field {\n    boolean has(int m) {\n        return m > 0;\n    }\n}\n",
    );
    let method =
        "package p;\n\nclass Method {\n    boolean has(int m) {\n        return m < 0;\n    }\n}\n";
    env.write("p/Method.java", method);
    env.write(
        "p/Use.java",
        "package p;\n\nclass Use {\n    static boolean f(Field a, Method b) {\n        return a.has(1) && b.has(2);\n    }\n}\n",
    );
    let r = env.run(RENAME_FIELDS_HAS);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        env.read("p/Use.java"),
        b"package p;\n\nclass Use {\n    static boolean f(Field a, Method b) {\n        return a.holds(1) && b.has(2);\n    }\n}\n"
    );
    assert_eq!(env.read("p/Method.java"), method.as_bytes());
    assert!(
        String::from_utf8(env.read("p/Field.java"))
            .expect("utf8")
            .contains("boolean holds(int m)")
    );
}

/// Compiles `files` (under the test's root) with javac into `out`: whether it
/// compiled, or None when javac is not installed.
fn javac(env: &TestEnv, files: &[&str]) -> Option<bool> {
    let out = std::process::Command::new("javac")
        .args(["-nowarn", "-d", "out"])
        .args(files)
        .current_dir(env.root())
        .output()
        .ok()?;
    Some(out.status.success())
}

/// Renames the method `has` of `p/Field.java` to `holds` (other classes define `has` too).
const RENAME_FIELDS_HAS: &[&str] = &[
    "code",
    "rename",
    "has",
    "holds",
    "--kind",
    "method",
    "--in",
    "p/Field.java",
];

const FIELD: &str =
    "package p;\n\nclass Field {\n    boolean has(int m) {\n        return m > 0;\n    }\n}\n";
const METHOD: &str = "package p;\n\nclass Method {\n    boolean has(int m) {\n        return m < 0;\n    }\n\n    boolean check() {\n        return has(1);\n    }\n}\n";

#[test]
fn java_rename_leaves_a_bare_call_in_another_class_that_defines_the_name() {
    let env = TestEnv::new();
    env.write("p/Field.java", FIELD);
    env.write("p/Method.java", METHOD);
    let r = env.run(RENAME_FIELDS_HAS);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(env.read("p/Method.java"), METHOD.as_bytes());
    assert_eq!(
        env.read("p/Field.java"),
        FIELD.replace("has(", "holds(").as_bytes()
    );
    assert_ne!(javac(&env, &["p/Field.java", "p/Method.java"]), Some(false));
}

#[test]
fn java_rename_refuses_a_use_whose_receiver_could_be_another_own_class() {
    let env = TestEnv::new();
    env.write("p/Field.java", FIELD);
    env.write("p/Method.java", METHOD);
    // `s.get()` returns a type parameter: which class's has is called is not known.
    let user = "package p;\n\nclass Use {\n    static Method make() {\n        return new Method();\n    }\n\n    static boolean f(Field a, java.util.function.Supplier<Method> s) {\n        return a.has(1) && s.get().has(2);\n    }\n}\n";
    env.write("p/Use.java", user);
    let r = env.run(RENAME_FIELDS_HAS);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(
        r.json["error"]["code"], "selection.ambiguous",
        "{}",
        r.stdout
    );
    assert_eq!(
        r.json["error"]["candidates"],
        serde_json::json!(["Field.has", "Method.has"])
    );
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("p/Use.java:9"), "{msg}");
    for (f, text) in [
        ("p/Field.java", FIELD),
        ("p/Method.java", METHOD),
        ("p/Use.java", user),
    ] {
        assert_eq!(env.read(f), text.as_bytes(), "{f}");
    }
    let repair = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap_or("");
    let argv: Vec<&str> = repair.split(' ').skip(1).collect();
    assert_eq!(env.run(&argv).code, 0, "{repair}");
}

/// A method, its override in a subclass, a subclass inheriting it, and
/// another class with a method of the same name.
const HIERARCHY: &[(&str, &str)] = &[
    (
        "p/Base.java",
        "package p;\n\nclass Base {\n    boolean has(int m) {\n        return m > 0;\n    }\n\n    boolean twice(int m) {\n        return has(m) && has(m + 1);\n    }\n}\n",
    ),
    (
        "p/Sub.java",
        "package p;\n\nclass Sub extends Base {\n    @Override\n    boolean has(int m) {\n        return m < 0 || super.has(m);\n    }\n}\n",
    ),
    (
        "p/Leaf.java",
        "package p;\n\nclass Leaf extends Sub {\n    boolean check() {\n        return has(2) && this.has(3);\n    }\n}\n",
    ),
    (
        "p/Other.java",
        "package p;\n\nclass Other {\n    boolean has(int m) {\n        return m == 0;\n    }\n}\n",
    ),
    (
        "p/Use.java",
        "package p;\n\nclass Use {\n    static boolean f(Base b, Sub s, Leaf l, Other o) {\n        return b.has(1) && s.has(2) && l.has(3) && o.has(4) && new Leaf().has(5);\n    }\n}\n",
    ),
];

#[test]
fn java_rename_of_an_overridden_method_renames_the_whole_hierarchy_and_its_uses() {
    let env = TestEnv::new();
    let paths: Vec<&str> = HIERARCHY.iter().map(|(p, _)| *p).collect();
    for at in ["p/Base.java", "p/Sub.java"] {
        for (p, text) in HIERARCHY {
            env.write(p, text);
        }
        let r = env.run(&["code", "rename", "has", "holds", "--in", at]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(r.json["renamed"]["definition"], 2, "{}", r.stdout);
        for (p, text) in HIERARCHY {
            let want = if *p == "p/Other.java" {
                text.to_string()
            } else {
                // Every has but Other's and the call on an Other.
                text.replace("has(", "holds(")
                    .replace("o.holds(4)", "o.has(4)")
            };
            assert_eq!(
                String::from_utf8(env.read(p)).expect("utf8"),
                want,
                "{at}: {p}"
            );
        }
        assert_ne!(javac(&env, &paths), Some(false), "{at}");
    }
}

#[test]
fn java_rename_of_a_hierarchy_that_overrides_a_jdk_method_is_refused_and_a_rival_is_not() {
    let env = TestEnv::new();
    let task = "package p;\n\nimport java.util.function.Supplier;\n\nclass Task implements Supplier<String> {\n    @Override\n    public String get() {\n        return \"t\";\n    }\n}\n";
    let later = "package p;\n\nclass Later extends Task {\n    @Override\n    public String get() {\n        return \"l\";\n    }\n}\n";
    let cell = "package p;\n\nclass Cell {\n    String get() {\n        return \"b\";\n    }\n\n    String twice() {\n        return get() + this.get();\n    }\n}\n";
    env.write("p/Task.java", task);
    env.write("p/Later.java", later);
    env.write("p/Cell.java", cell);
    // Later.get overrides Task.get, which overrides Supplier's: not ours to rename.
    let r = env.run(&["code", "rename", "get", "fetch", "--in", "p/Later.java"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(
        r.json["error"]["code"], "refusal.external-symbol",
        "{}",
        r.stdout
    );
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("Task.get at p/Task.java:6"), "{msg}");
    assert_eq!(env.read("p/Later.java"), later.as_bytes());
    // Cell.get overrides nothing: the others' overrides are none of its business.
    let r = env.run(&["code", "rename", "get", "fetch", "--in", "p/Cell.java"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        env.read("p/Cell.java"),
        cell.replace("get()", "fetch()").as_bytes()
    );
    assert_eq!(env.read("p/Task.java"), task.as_bytes());
    assert_ne!(
        javac(&env, &["p/Task.java", "p/Later.java", "p/Cell.java"]),
        Some(false)
    );
}

#[test]
fn java_rename_refuses_a_method_an_anonymous_class_overrides() {
    let env = TestEnv::new();
    let base =
        "package p;\n\nclass Base {\n    boolean has(int m) {\n        return m > 0;\n    }\n}\n";
    let other =
        "package p;\n\nclass Other {\n    boolean has(int m) {\n        return m == 0;\n    }\n}\n";
    let make = "package p;\n\nclass Make {\n    static Base make() {\n        return new Base() {\n            @Override\n            boolean has(int m) {\n                return m < 0;\n            }\n        };\n    }\n}\n";
    env.write("p/Base.java", base);
    env.write("p/Other.java", other);
    env.write("p/Make.java", make);
    let r = env.run(&["code", "rename", "has", "holds", "--in", "p/Base.java"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(
        r.json["error"]["code"], "selection.ambiguous",
        "{}",
        r.stdout
    );
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("@Override"), "{msg}");
    for (p, text) in [
        ("p/Base.java", base),
        ("p/Other.java", other),
        ("p/Make.java", make),
    ] {
        assert_eq!(env.read(p), text.as_bytes(), "{p}");
    }
}

#[test]
fn java_rename_ties_uses_through_typed_lambdas_chained_calls_and_new() {
    let env = TestEnv::new();
    env.write("p/Field.java", FIELD);
    let method = "package p;\n\nclass Method {\n    boolean has(int m) {\n        return m < 0;\n    }\n\n    Field field() {\n        return new Field();\n    }\n}\n";
    env.write("p/Method.java", method);
    let user = "package p;\n\nimport java.util.function.Predicate;\n\nclass Use {\n    static Predicate<Field> f = (Field a) -> a.has(1);\n    static Predicate<Method> g = (Method b) -> b.has(2);\n\n    static boolean h(Method m) {\n        return m.field().has(3) && new Method().has(4) && new Field().has(5);\n    }\n}\n";
    env.write("p/Use.java", user);
    let r = env.run(RENAME_FIELDS_HAS);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        String::from_utf8(env.read("p/Use.java")).expect("utf8"),
        user.replace("a.has(1)", "a.holds(1)")
            .replace("field().has(3)", "field().holds(3)")
            .replace("Field().has(5)", "Field().holds(5)")
    );
    assert_eq!(env.read("p/Method.java"), method.as_bytes());
    assert_ne!(
        javac(&env, &["p/Field.java", "p/Method.java", "p/Use.java"]),
        Some(false)
    );
}

/// Two classes with `unindent`, called through a fluent chain on a field
/// declared as a nested class (another field of the same name in the outer
/// class has another type) and through a cast.
const CHAIN: &[(&str, &str)] = &[
    (
        "p/Block.java",
        "package p;\n\nclass Block {\n    static class Builder {\n        Builder add(String s) {\n            return this;\n        }\n\n        Builder unindent() {\n            return this;\n        }\n    }\n}\n",
    ),
    (
        "p/Writer.java",
        "package p;\n\nclass Writer {\n    Writer unindent() {\n        return this;\n    }\n}\n",
    ),
    (
        "p/Spec.java",
        "package p;\n\nclass Spec {\n    final Block body = new Block();\n\n    static class Builder {\n        final Block.Builder body = new Block.Builder();\n\n        void f(Object w) {\n            body.add(\"x\").unindent();\n            ((Writer) w).unindent();\n        }\n    }\n}\n",
    ),
];

#[test]
fn java_rename_follows_fluent_chains_casts_and_the_nearest_declaration() {
    let env = TestEnv::new();
    let paths: Vec<&str> = CHAIN.iter().map(|(p, _)| *p).collect();
    for (at, renamed) in [
        ("p/Block.java", "body.add(\"x\").indent();"),
        ("p/Writer.java", "((Writer) w).indent();"),
    ] {
        for (p, text) in CHAIN {
            env.write(p, text);
        }
        let r = env.run(&["code", "rename", "unindent", "indent", "--in", at]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        let spec = String::from_utf8(env.read("p/Spec.java")).expect("utf8");
        assert!(spec.contains(renamed), "{at}: {spec}");
        assert_eq!(spec.matches("indent()").count(), 2, "{spec}");
        assert_eq!(spec.matches("unindent()").count(), 1, "{spec}");
        assert_ne!(javac(&env, &paths), Some(false), "{at}");
    }
}

const OUTER: &str = "package p;\n\nclass Outer {\n    static String join(String a) {\n        return a + \"!\";\n    }\n\n    String use() {\n        return join(\"x\");\n    }\n\n    static class Builder {\n        String join(String a) {\n            return a + \"?\";\n        }\n\n        String build() {\n            return join(\"y\");\n        }\n    }\n}\n";

#[test]
fn java_rename_by_qualified_name_tells_an_outer_member_from_its_nested_builders() {
    let env = TestEnv::new();
    env.write("p/Outer.java", OUTER);
    // The outer join: its call in use(); the Builder's join and its call stay.
    let r = env.run(&["code", "rename", "Outer.join", "glue", "--kind", "method"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let want = OUTER
        .replacen("join(String a)", "glue(String a)", 1)
        .replacen("join(\"x\")", "glue(\"x\")", 1);
    assert_eq!(
        String::from_utf8(env.read("p/Outer.java")).expect("utf8"),
        want
    );
    assert_ne!(javac(&env, &["p/Outer.java"]), Some(false));
    env.write("p/Outer.java", OUTER);
    // The Builder's join: its definition and its call; the outer ones stay.
    let r = env.run(&[
        "code",
        "rename",
        "Outer.Builder.join",
        "glue",
        "--kind",
        "method",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let want = OUTER
        .replace(
            "String join(String a) {\n            return",
            "String glue(String a) {\n            return",
        )
        .replace("join(\"y\")", "glue(\"y\")");
    assert_eq!(
        String::from_utf8(env.read("p/Outer.java")).expect("utf8"),
        want
    );
    assert_ne!(javac(&env, &["p/Outer.java"]), Some(false));
}

#[test]
fn java_rename_leaves_a_name_statically_imported_from_another_class() {
    let env = TestEnv::new();
    env.write("p/Outer.java", OUTER);
    let w = "package p;\n\nimport static java.lang.String.join;\n\nclass W {\n    String f() {\n        return join(\",\", \"a\", \"b\");\n    }\n}\n";
    env.write("p/W.java", w);
    let r = env.run(&["code", "rename", "Outer.join", "glue", "--kind", "method"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(env.read("p/W.java"), w.as_bytes());
    assert_ne!(javac(&env, &["p/Outer.java", "p/W.java"]), Some(false));
}

/// `run` in Base, and in Other, a class outside Base's hierarchy.
const RUN_BASE: &str = "package p;\n\nclass Base {\n    void run() {\n    }\n}\n";
const RUN_OTHER: &str = "package p;\n\nclass Other {\n    void run() {\n    }\n}\n";

/// Writes Base, Other and `files`, renames Base.run to exec, and checks
/// each of `files` became its expected text and javac compiles them all.
fn rename_base_run(files: &[(&str, &str, &str)]) {
    let env = TestEnv::new();
    env.write("p/Base.java", RUN_BASE);
    env.write("p/Other.java", RUN_OTHER);
    for (p, text, _) in files {
        env.write(p, text);
    }
    let r = env.run(&["code", "rename", "run", "exec", "--in", "p/Base.java"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(env.read("p/Other.java"), RUN_OTHER.as_bytes());
    for (p, _, want) in files {
        let got = String::from_utf8(env.read(p)).expect("utf8");
        assert_eq!(got, *want, "{p}");
    }
    let mut paths = vec!["p/Base.java", "p/Other.java"];
    paths.extend(files.iter().map(|(p, _, _)| *p));
    assert_ne!(javac(&env, &paths), Some(false));
}

#[test]
fn java_rename_reads_the_supertypes_of_a_class_annotated_with_braces() {
    let imp = "package p;\n\n@SuppressWarnings({\"unchecked\"})\nclass Impl extends Base {\n    @Override\n    void run() {\n    }\n}\n";
    rename_base_run(&[("p/Impl.java", imp, &imp.replace("run()", "exec()"))]);
}

#[test]
fn java_rename_ties_a_method_reference_by_its_receiver() {
    let sub = "package p;\n\nclass Sub extends Base {\n    void go(Other o) {\n        take(o::run);\n        take(this::run);\n        take(Other::new);\n    }\n\n    static void take(Runnable r) {\n    }\n\n    static void take(java.util.function.Supplier<Other> s) {\n    }\n}\n";
    let want = sub.replace("this::run", "this::exec");
    rename_base_run(&[("p/Sub.java", sub, &want)]);
}

#[test]
fn java_rename_ties_a_receiver_by_the_declaration_in_its_own_method() {
    let uses = "package p;\n\nclass Uses {\n    void a() {\n        Base x = new Base();\n        x.run();\n    }\n\n    void b() {\n        Other x = new Other();\n        x.run();\n    }\n}\n";
    let want = uses.replacen("x.run()", "x.exec()", 1);
    rename_base_run(&[("p/Uses.java", uses, &want)]);
}

#[test]
fn java_rename_judges_a_bare_call_in_an_anonymous_class_by_its_created_type() {
    // Other's own run() and the anonymous Base's run(): Base.run is the latter's.
    let make = "package p;\n\nclass Make extends Other {\n    Base make() {\n        run();\n        return new Base() {\n            void twice() {\n                run();\n                this.run();\n            }\n        };\n    }\n}\n";
    let want = make
        .replace("                run();", "                exec();")
        .replace("this.run()", "this.exec()");
    rename_base_run(&[("p/Make.java", make, &want)]);
}

#[test]
fn java_rename_through_cyclic_interfaces_answers_at_once() {
    // Hostile Java: five interfaces, each extending the four others.
    let env = TestEnv::new();
    env.write("p/Base.java", RUN_BASE);
    env.write("p/Other.java", RUN_OTHER);
    for i in 0..5 {
        let others: Vec<String> = (0..5)
            .filter(|&k| k != i)
            .map(|k| format!("I{k}"))
            .collect();
        let text = format!(
            "package p;\n\ninterface I{i} extends {} {{\n}}\n",
            others.join(", ")
        );
        env.write(&format!("p/I{i}.java"), &text);
    }
    let uses = "package p;\n\nclass Uses {\n    void f(I0 x) {\n        x.run();\n    }\n}\n";
    env.write("p/Uses.java", uses);
    let started = std::time::Instant::now();
    let r = env.run(&["code", "rename", "run", "exec", "--in", "p/Base.java"]);
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    // Which run an I0 has is not known: refused, nothing written.
    assert_eq!(
        r.json["error"]["code"], "selection.ambiguous",
        "{}",
        r.stdout
    );
    assert_eq!(env.read("p/Uses.java"), uses.as_bytes());
}

/// Compiles `files` (under the test's root) with `g++ -std=c++17 -fsyntax-only`:
/// whether they compiled, or None when g++ is not installed.
fn gxx(env: &TestEnv, files: &[&str]) -> Option<bool> {
    let out = std::process::Command::new("g++")
        .args(["-std=c++17", "-fsyntax-only"])
        .args(files)
        .current_dir(env.root())
        .output()
        .ok()?;
    Some(out.status.success())
}

const STORE_H: &str = "#pragma once\n#define KV_EXPORT\nnamespace kv {\nint Twice(int x);\nclass KV_EXPORT Store {\n public:\n  Store();\n  int Size() const;\n  static Store* Make();\n\n private:\n  int n_ = 2;\n};\nusing Alias = Store;\n}  // namespace kv\n";
const STORE_CC: &str = "#include \"store.h\"\nnamespace kv {\nint Twice(int x) { return 2 * x; }\nStore::Store() {}\nint Store::Size() const { return Twice(n_); }\nStore* Store::Make() { return new Store(); }\n}  // namespace kv\n";
const STORE_MAIN: &str = "#include \"store.h\"\nint main() {\n  kv::Store* s = kv::Store::Make();\n  return s->Size() + kv::Twice(1);\n}\n";

fn store(env: &TestEnv, main: &str) {
    env.write("store.h", STORE_H);
    env.write("store.cc", STORE_CC);
    env.write("main.cc", main);
}

#[test]
fn cpp_rename_of_a_method_renames_its_declaration_in_a_header_read_as_cpp() {
    let env = TestEnv::new();
    store(&env, STORE_MAIN);
    assert_ne!(gxx(&env, &["store.cc", "main.cc"]), Some(false));
    let r = env.run(&[
        "code", "rename", "Size", "Count", "--in", "store.cc", "--kind", "method",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        env.read("store.h"),
        STORE_H.replace("int Size()", "int Count()").as_bytes()
    );
    assert_eq!(
        env.read("main.cc"),
        STORE_MAIN.replace("s->Size()", "s->Count()").as_bytes()
    );
    assert_ne!(gxx(&env, &["store.cc", "main.cc"]), Some(false));
}

#[test]
fn cpp_rename_of_a_function_in_a_namespace_renames_its_calls_inside_methods() {
    let env = TestEnv::new();
    store(&env, STORE_MAIN);
    let r = env.run(&["code", "rename", "Twice", "Double", "--in", "store.cc"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let cc = String::from_utf8(env.read("store.cc")).expect("utf8");
    assert!(cc.contains("return Double(n_);"), "{cc}");
    assert!(!cc.contains("Twice"), "{cc}");
    assert_ne!(gxx(&env, &["store.cc", "main.cc"]), Some(false));
}

const SHAPE_H: &str = "#pragma once\n#include <exception>\nclass Shape {\n public:\n  virtual ~Shape() {}\n  virtual int Area() const = 0;\n};\nclass Square : public Shape {\n public:\n  int Area() const override;\n};\nclass Oops : public std::exception {\n public:\n  const char* what() const noexcept override;\n};\n";
const SHAPE_CC: &str = "#include \"shape.h\"\nint Square::Area() const { return 4; }\nconst char* Oops::what() const noexcept { return \"oops\"; }\nint main() {\n  Shape* s = new Square();\n  return s->Area();\n}\n";

#[test]
fn cpp_rename_refuses_an_override_a_constructor_and_a_use_through_an_alias() {
    let env = TestEnv::new();
    store(
        &env,
        &STORE_MAIN.replace("kv::Store::Make", "kv::Alias::Make"),
    );
    env.write("shape.h", SHAPE_H);
    env.write("shape.cc", SHAPE_CC);
    assert_ne!(gxx(&env, &["store.cc", "main.cc", "shape.cc"]), Some(false));
    // A macro the grammar cannot read leaves the class's members unknown.
    let odd = "#define FIELD(x) int x;\nclass Table {\n public:\n  int Size() { return 1; }\n  FIELD(a)\n  FIELD(b)\n};\nint main() {\n  Table t;\n  return t.Size();\n}\n";
    env.write("odd.cc", odd);
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["Size", "Count", "--in", "odd.cc"],
            "input.syntax-error",
            "at line 6",
        ),
        // Shape declares Area too: which `s->Area()` calls is not told.
        (
            &["Area", "Size2", "--in", "shape.cc"],
            "selection.ambiguous",
            "Shape at shape.h:6",
        ),
        // std::exception's what(): a library's.
        (
            &["what", "why", "--in", "shape.cc"],
            "refusal.external-symbol",
            "Oops::what",
        ),
        // A constructor is the class's name.
        (
            &["Store", "Box", "--in", "store.cc", "--kind", "method"],
            "argument.invalid",
            "constructor",
        ),
        // `kv::Alias::Make()` is Store's, through a name that is not its class.
        (
            &["Make", "Create", "--in", "store.cc"],
            "selection.ambiguous",
            "main.cc:3",
        ),
    ];
    for (args, code, says) in cases {
        let mut argv = vec!["code", "rename"];
        argv.extend_from_slice(args);
        let r = env.run(&argv);
        assert_eq!(r.json["error"]["code"], code, "{args:?}: {}", r.stdout);
        let msg = r.json["error"]["message"].as_str().unwrap_or("");
        assert!(msg.contains(says), "{args:?}: {msg}");
    }
    assert_eq!(env.read("shape.h"), SHAPE_H.as_bytes());
    assert_eq!(env.read("shape.cc"), SHAPE_CC.as_bytes());
    assert_eq!(env.read("store.h"), STORE_H.as_bytes());
    assert_eq!(env.read("store.cc"), STORE_CC.as_bytes());
    assert_eq!(env.read("odd.cc"), odd.as_bytes());
}

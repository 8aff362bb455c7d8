//! `mktemp` (a private scratch entry outside the tree, never journaled, filled by
//! `run --stdout-to`, removed by `gc` after a day) and `json diff` (a semantic
//! diff by pointer, checked against a Python deep compare as the oracle).

use crate::support::TestEnv;
use serde_json::{Map, Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;

fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).expect("stat").permissions().mode() & 0o777
}

fn mktemp(env: &TestEnv, args: &[&str]) -> PathBuf {
    let mut argv = vec!["mktemp"];
    argv.extend_from_slice(args);
    let r = env.run(&argv);
    assert_eq!(r.code, 0, "{}", r.stdout);
    PathBuf::from(r.json["path"].as_str().expect("path"))
}

#[test]
fn mktemp_file_is_private_outside_the_tree_and_not_journaled() {
    let env = TestEnv::new();
    let r = env.run(&["mktemp", "--suffix", ".json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let p = PathBuf::from(r.json["path"].as_str().expect("path"));
    assert!(p.is_absolute() && p.is_file(), "{p:?}");
    assert!(
        p.starts_with(env.state.path()),
        "{p:?} not in the state home"
    );
    assert!(!p.starts_with(env.root()), "{p:?} inside the tree");
    assert!(p.to_string_lossy().ends_with(".json"), "{p:?}");
    assert_eq!(mode(&p), 0o600);
    assert_eq!(mode(p.parent().expect("parent")), 0o700);
    let info = env.run(&["info", p.to_str().expect("utf8")]);
    assert_eq!(r.json["hash"], info.json["hash"]);
    assert_eq!(env.run(&["history"]).json["total"], 0);
    let again = mktemp(&env, &["--suffix", ".json"]);
    assert_ne!(again, p, "two calls, one name");
}

#[test]
fn mktemp_dir_with_prefix_and_bad_names() {
    let env = TestEnv::new();
    let r = env.run(&["mktemp", "--dir", "--prefix", "build-", "--suffix", ".d"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.json.get("hash").is_none(), "{}", r.stdout);
    let d = PathBuf::from(r.json["path"].as_str().expect("path"));
    assert!(d.is_dir());
    assert_eq!(mode(&d), 0o700);
    let name = d.file_name().expect("name").to_string_lossy().to_string();
    assert!(name.starts_with("build-") && name.ends_with(".d"), "{name}");
    for bad in ["a/b", ".."] {
        let r = env.run(&["mktemp", "--prefix", bad]);
        assert_eq!(r.error_code(), "argument.invalid", "{}", r.stdout);
    }
}

#[test]
fn run_stdout_to_accepts_a_mktemp_path_unjournaled() {
    let env = TestEnv::new();
    let f = mktemp(&env, &["--suffix", ".txt"]);
    let fs = f.to_str().expect("utf8");
    let r = env.run(&["run", "--stdout-to", fs, "--", "printf", "one\\ntwo\\n"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["stdout"]["path"], fs);
    assert_eq!(r.json["stdout"]["op_id"], Value::Null);
    assert_eq!(std::fs::read(&f).expect("read"), b"one\ntwo\n");
    let d = mktemp(&env, &["--dir"]);
    let inner = d.join("out.log");
    let r = env.run(&[
        "run",
        "--stdout-to",
        inner.to_str().expect("utf8"),
        "--",
        "echo",
        "hi",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(std::fs::read(&inner).expect("read"), b"hi\n");
    assert_eq!(mode(&inner), 0o600);
    assert_eq!(env.run(&["history"]).json["total"], 0);
    // Elsewhere outside the tree stays refused.
    let out = env.state.path().join("elsewhere.txt");
    let r = env.run(&[
        "run",
        "--stdout-to",
        out.to_str().expect("utf8"),
        "--",
        "echo",
    ]);
    assert_eq!(r.error_code(), "refusal.outside-workspace", "{}", r.stdout);
}

#[test]
fn gc_removes_scratch_entries_older_than_a_day() {
    let env = TestEnv::new();
    let old = mktemp(&env, &[]);
    let old_dir = mktemp(&env, &["--dir"]);
    std::fs::write(old_dir.join("x"), "x").expect("write");
    let fresh = mktemp(&env, &[]);
    let two_days_ago = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
        - 2 * 86400;
    for p in [&old, &old_dir] {
        let ok = Command::new("touch")
            .args(["-d", &format!("@{two_days_ago}"), p.to_str().expect("utf8")])
            .status()
            .expect("touch");
        assert!(ok.success());
    }
    let dry = env.run(&["gc", "--dry-run"]);
    assert_eq!(dry.json["scratch_removed"], 2, "{}", dry.stdout);
    assert!(old.exists() && old_dir.exists());
    let r = env.run(&["gc"]);
    assert_eq!(r.json["scratch_removed"], 2, "{}", r.stdout);
    assert!(!old.exists() && !old_dir.exists());
    assert!(fresh.exists());
}

/// A small deterministic generator (an LCG), so the pairs are the same each run.
struct Gen(u64);

const KEYS: &[&str] = &[
    "a", "b", "name", "k/x", "t~y", "~1", "/", "é", "日本", "", "a b", "~0~",
];

impl Gen {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    fn scalar(&mut self) -> Value {
        match self.next(7) {
            0 => Value::Null,
            1 => Value::Bool(self.next(2) == 0),
            2 => json!(self.next(5)),
            3 => json!(self.next(4) as f64 + 0.5),
            4 => json!(["x", "y", "ü", "🦀"][self.next(4) as usize]),
            5 => json!(format!("s{}", self.next(3))),
            _ => json!(-(self.next(3) as i64)),
        }
    }

    fn value(&mut self, depth: u32) -> Value {
        if depth == 0 {
            return self.scalar();
        }
        match self.next(4) {
            0 => {
                let n = self.next(5);
                Value::Array((0..n).map(|_| self.value(depth - 1)).collect())
            }
            1 => {
                let mut m = Map::new();
                for _ in 0..self.next(6) {
                    let k = KEYS[self.next(KEYS.len() as u64) as usize];
                    m.insert(k.to_string(), self.value(depth - 1));
                }
                Value::Object(m)
            }
            _ => self.scalar(),
        }
    }

    /// A copy of `v` with some parts changed, removed, added or retyped.
    fn mutate(&mut self, v: &Value, depth: u32) -> Value {
        match v {
            Value::Object(m) => {
                let mut out = Map::new();
                for (k, x) in m {
                    match self.next(8) {
                        0 => {}
                        1 => {
                            out.insert(k.clone(), self.value(depth));
                        }
                        _ => {
                            out.insert(k.clone(), self.mutate(x, depth));
                        }
                    }
                }
                if self.next(3) == 0 {
                    let k = KEYS[self.next(KEYS.len() as u64) as usize];
                    out.insert(k.to_string(), self.value(depth));
                }
                Value::Object(out)
            }
            Value::Array(a) => {
                let mut out: Vec<Value> = a.iter().map(|x| self.mutate(x, depth)).collect();
                match self.next(4) {
                    0 => out.truncate(self.next(out.len() as u64 + 1) as usize),
                    1 => out.extend((0..1 + self.next(3)).map(|_| self.value(1))),
                    _ => {}
                }
                Value::Array(out)
            }
            Value::Number(n) if n.is_u64() && self.next(3) == 0 => {
                // The same number written as a float: equal by value.
                json!(n.as_u64().unwrap_or(0) as f64)
            }
            _ if self.next(4) == 0 => self.value(1),
            _ => v.clone(),
        }
    }
}

const ORACLE: &str = r#"
import json, sys
a = json.load(open(sys.argv[1], encoding="utf-8"))
b = json.load(open(sys.argv[2], encoding="utf-8"))
out = []
def esc(k): return k.replace("~", "~0").replace("/", "~1")
def num(v): return isinstance(v, (int, float)) and not isinstance(v, bool)
def walk(p, x, y):
    if isinstance(x, dict) and isinstance(y, dict):
        for k in x:
            if k in y: walk(p + "/" + esc(k), x[k], y[k])
            else: out.append("remove " + p + "/" + esc(k))
        for k in y:
            if k not in x: out.append("add " + p + "/" + esc(k))
    elif isinstance(x, list) and isinstance(y, list):
        for i in range(min(len(x), len(y))): walk(p + "/" + str(i), x[i], y[i])
        for i in range(len(y), len(x)): out.append("remove " + p + "/" + str(i))
        for i in range(len(x), len(y)): out.append("add " + p + "/" + str(i))
    elif not ((num(x) and num(y) or type(x) == type(y)) and x == y):
        out.append("replace " + p)
walk("", a, b)
print(json.dumps(sorted(out)))
"#;

fn oracle(a: &std::path::Path, b: &std::path::Path) -> Vec<String> {
    let out = Command::new("python3")
        .args(["-c", ORACLE])
        .arg(a)
        .arg(b)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("oracle json")
}

#[test]
fn json_diff_lists_the_pointers_a_python_deep_compare_finds() {
    let env = TestEnv::new();
    let mut g = Gen(31);
    let mut nonempty = 0;
    for i in 0..24 {
        let a = Value::Object(match g.value(3) {
            Value::Object(m) => m,
            v => Map::from_iter([("root".to_string(), v)]),
        });
        let b = g.mutate(&a, 2);
        let (an, bn) = (format!("a{i}.json"), format!("b{i}.json"));
        let pa = env.write(&an, serde_json::to_string_pretty(&a).expect("json"));
        let pb = env.write(&bn, serde_json::to_string(&b).expect("json"));
        let r = env.run(&["json", "diff", &an, &bn, "--limit", "100000"]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        let ops = r.json["ops"].as_array().expect("ops");
        let mut got: Vec<String> = ops
            .iter()
            .map(|o| {
                format!(
                    "{} {}",
                    o["op"].as_str().unwrap_or("?"),
                    o["pointer"].as_str().unwrap_or("?")
                )
            })
            .collect();
        got.sort();
        let want = oracle(&pa, &pb);
        assert_eq!(got, want, "pair {i}: {}", r.stdout);
        assert_eq!(r.json["total"], want.len());
        assert_eq!(r.json["identical"], want.is_empty());
        nonempty += usize::from(!want.is_empty());
        for o in ops {
            let (has_old, has_new) = (o.get("old").is_some(), o.get("new").is_some());
            match o["op"].as_str() {
                Some("add") => assert!(!has_old && has_new, "{o}"),
                Some("remove") => assert!(has_old && !has_new, "{o}"),
                _ => assert!(has_old && has_new, "{o}"),
            }
        }
    }
    assert!(nonempty >= 12, "only {nonempty} pairs differ");
}

#[test]
fn json_diff_ignores_member_order_and_number_spelling() {
    let env = TestEnv::new();
    env.write(
        "a.json",
        "{\"x\": 1, \"y\": [1.0, {\"k\": 2}], \"z\": \"é\"}\n",
    );
    env.write(
        "b.json",
        "{\"z\":\"\\u00e9\",\"y\":[1,{\"k\":2e0}],\"x\":1.00}",
    );
    let r = env.run(&["json", "diff", "a.json", "b.json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["identical"], true);
    assert_eq!(r.json["ops"], json!([]));
    env.write("c.json", "{\"x\": 2, \"y\": [1], \"w\": true}");
    let r = env.run(&["json", "diff", "a.json", "c.json"]);
    assert_eq!(r.json["identical"], false);
    assert_eq!(
        r.json["ops"],
        json!([
            {"op": "replace", "pointer": "/x", "old": 1, "new": 2},
            {"op": "remove", "pointer": "/y/1", "old": {"k": 2}},
            {"op": "remove", "pointer": "/z", "old": "é"},
            {"op": "add", "pointer": "/w", "new": true}
        ])
    );
}

#[test]
fn json_diff_is_bounded_with_a_continuation_and_masked() {
    let env = TestEnv::new();
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    env.write("a.json", "{\"t\": \"old\", \"n\": [1, 2, 3, 4, 5]}");
    env.write(
        "b.json",
        format!("{{\"t\": \"{token}\", \"n\": [9, 9, 9, 9, 9]}}"),
    );
    let r = env.run(&["json", "diff", "a.json", "b.json", "--limit", "2"]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["status"], "partial");
    assert_eq!(r.json["truncated"], true);
    assert_eq!(r.json["total"], 6);
    assert_eq!(r.json["ops"].as_array().map(Vec::len), Some(2));
    let next = r.json["next_commands"][0].as_str().expect("next");
    assert_eq!(next, "aitools json diff a.json b.json --limit 6");
    let all = env.run(&["json", "diff", "a.json", "b.json", "--limit", "6"]);
    assert_eq!(all.code, 0, "{}", all.stdout);
    assert!(!all.stdout.contains(token), "secret leaked: {}", all.stdout);
    assert!(all.stdout.contains("/t"), "{}", all.stdout);
}

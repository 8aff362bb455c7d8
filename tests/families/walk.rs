//! Issue 12 rows 6-7: `find` and `overview` walk in parallel (each worker sorts
//! its own results) and read overview's samples on several threads; their
//! answers are byte-identical whatever the thread count, in path order, and
//! exact where nothing is estimated.

use crate::support::TestEnv;
use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("git: {e}"));
    assert!(out.status.success(), "git {args:?}");
}

/// A tree whose names sort differently by bytes and by path components
/// (`a-b`, `a.b`, `a/b`), three languages of 40 files each (120 samples:
/// enough to read them on several threads), ignored and deleted files.
fn tree(env: &TestEnv) -> (u64, u64) {
    let (mut lines, mut bytes) = (0u64, 0u64);
    for i in 0..40u64 {
        let n = 1 + i % 4;
        let dir = ["a", "a-b", "a.b", "a/b", "a/b/c", "z"][i as usize % 6];
        env.write(
            &format!("{dir}/m{i:02}.rs"),
            "fn f() {}\n".repeat(n as usize),
        );
        env.write(&format!("{dir}/p{i:02}.py"), "x = 1\n".repeat(n as usize));
        env.write(&format!("{dir}-{i}.go"), "// go\n".repeat(n as usize));
        lines += n;
        bytes += n * 10;
    }
    env.write("Cargo.toml", "[package]\n");
    env.write("a b/Makefile", "all:\n");
    env.write(".gitignore", "ignored/\n*.log\n");
    env.write("ignored/x.rs", "fn x() {}\n");
    env.write("a/run.log", "log\n");
    git(env.root(), &["init", "-q"]);
    git(env.root(), &["add", "a", "Cargo.toml"]);
    git(env.root(), &["commit", "-qm", "init"]);
    std::fs::remove_file(env.path("a/m00.rs")).expect("rm");
    lines -= 1;
    bytes -= 10;
    (lines, bytes)
}

fn run(env: &TestEnv, threads: &str, args: &[&str]) -> (String, serde_json::Value) {
    let out = env
        .command(args)
        .env("AITOOLS_THREADS", threads)
        .output()
        .expect("spawn");
    let r = crate::support::parse(out);
    (r.stdout.clone(), r.json)
}

#[test]
fn find_and_overview_answer_the_same_on_any_thread_count() {
    let env = TestEnv::new();
    let (rust_lines, rust_bytes) = tree(&env);
    let find = ["find", "--limit", "100000"];
    let files = ["find", "--type", "file", "--limit", "100000"];
    let (one_find, j) = run(&env, "1", &find);
    let (one_files, _) = run(&env, "1", &files);
    let (one_overview, ov) = run(&env, "1", &["overview"]);
    for threads in ["2", "3", "8"] {
        assert_eq!(run(&env, threads, &find).0, one_find, "{threads} threads");
        assert_eq!(run(&env, threads, &files).0, one_files, "{threads} threads");
        assert_eq!(
            run(&env, threads, &["overview"]).0,
            one_overview,
            "{threads} threads"
        );
    }
    // Path order: component by component (`a/b` before `a-b`), ignored files out.
    let items = crate::support::find_items(&j);
    let paths: Vec<&str> = items.iter().filter_map(|i| i["path"].as_str()).collect();
    let mut sorted = paths.clone();
    sorted.sort_by(|x, y| Path::new(x).cmp(Path::new(y)));
    assert_eq!(paths, sorted);
    assert_eq!(paths.first(), Some(&".gitignore"));
    assert!(paths.iter().position(|p| *p == "a/b") < paths.iter().position(|p| *p == "a-b"));
    assert!(
        !paths
            .iter()
            .any(|p| p.starts_with("ignored") || p.ends_with(".log"))
    );
    assert_eq!(paths.len(), 40 * 3 - 1 + 3 + 6 + 1);
    // Every language has at most 64 files: all are read, the sums are exact.
    let lang = |name: &str| {
        ov["languages"]
            .as_array()
            .expect("languages")
            .iter()
            .find(|l| l["lang"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name}: {ov}"))
    };
    let rust = lang("rust");
    assert_eq!(rust["files"], 39);
    assert_eq!(rust["estimated"], false);
    assert_eq!(
        (rust["lines"].as_u64(), rust["bytes"].as_u64()),
        (Some(rust_lines), Some(rust_bytes))
    );
    assert_eq!(lang("python")["files"], 40);
    assert_eq!(lang("go")["files"], 40);
    assert_eq!(
        ov["build_files"],
        serde_json::json!(["Cargo.toml", "a b/Makefile"])
    );
    // Committed: a/ and Cargo.toml, one of them deleted since; the rest is new.
    let out = Command::new("git")
        .args(["ls-files"])
        .current_dir(env.root())
        .output()
        .expect("git ls-files");
    let committed = String::from_utf8_lossy(&out.stdout).lines().count() as u64;
    assert_eq!(committed, 1 + 2 * 20 + 13);
    assert_eq!(ov["git"]["deleted"], 1);
    assert_eq!(ov["git"]["untracked"], (40 * 3 + 3 - 1) - (committed - 1));
}

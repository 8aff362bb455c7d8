//! Files whose names look like options (`-rf`, `--x.txt`: a hostile or unlucky
//! tree): every call aitools hands back for them runs as written, and options
//! written after `--` get a repair that puts them back before it.

use crate::support::TestEnv;

fn tree() -> TestEnv {
    let env = TestEnv::new();
    env.write("-rf", "x\n");
    env.write("--x.txt", "y\n");
    env
}

/// The first repair of `args`' refusal, run as an agent runs it.
fn first_repair_runs(env: &TestEnv, args: &[&str]) -> crate::support::Run {
    let r = env.run(args);
    assert_ne!(r.code, 0, "{args:?}: {}", r.stdout);
    let line = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let fix = env.run_line(&line);
    assert_eq!(fix.code, 0, "{args:?} handed back {line}: {}", fix.stdout);
    fix
}

#[test]
fn a_repair_naming_a_dash_file_runs_as_written() {
    let env = tree();
    for (args, shows) in [
        (
            &["edit", "--old", "nope", "--new", "y", "--", "-rf"][..],
            "x",
        ),
        (
            &["edit", "--old", "nope", "--new", "y", "--", "--x.txt"],
            "y",
        ),
    ] {
        let fix = first_repair_runs(&env, args);
        assert_eq!(fix.json["lines"][0], shows, "{}", fix.stdout);
    }
    let fix = first_repair_runs(&env, &["replace", "nope", "y", "--", "-rf"]);
    assert_eq!(fix.json["status"], "ok", "{}", fix.stdout);
}

#[test]
fn options_after_dashes_are_handed_back_before_them() {
    let env = tree();
    let fix = first_repair_runs(&env, &["read", "--", "-rf", "--range", "1:1"]);
    assert_eq!(
        fix.json["lines"],
        serde_json::json!(["x"]),
        "{}",
        fix.stdout
    );
    let fix = first_repair_runs(&env, &["edit", "--", "-rf", "--old", "x", "--new", "X"]);
    assert_eq!(fix.json["status"], "ok", "{}", fix.stdout);
    assert_eq!(env.read("-rf"), b"X\n");
}

/// A call run with `--root` from outside the workspace hands back calls that
/// keep it: run from the same place, they act on the same workspace.
#[test]
fn calls_handed_back_keep_the_callers_root() {
    let env = tree();
    env.write("a.txt", "x\n");
    let outside = tempfile::tempdir().expect("tempdir");
    let root = env.root().to_string_lossy().into_owned();
    let run_from_outside = |args: &[&str]| {
        let mut c = env.command(args);
        c.current_dir(outside.path());
        crate::support::parse(c.output().expect("spawn"))
    };
    let r = run_from_outside(&[
        "--root", &root, "edit", "nope.txt", "--old", "a", "--new", "b",
    ]);
    assert_eq!(r.error_code(), "input.not-found", "{}", r.stdout);
    let line = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let words = shlex_words(&line);
    let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let fix = run_from_outside(&args);
    assert_eq!(fix.code, 0, "{line}: {}", fix.stdout);
    assert!(fix.stdout.contains("a.txt"), "{line}: {}", fix.stdout);
}

/// The words of a line in aitools' own quoting (bare words and '...').
fn shlex_words(line: &str) -> Vec<String> {
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            &format!("for w in {line}; do printf '%s\\0' \"$w\"; done"),
        ])
        .output()
        .expect("sh");
    String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

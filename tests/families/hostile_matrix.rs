//! Issue 28: every call an answer hands back (`error.repairs[].command`,
//! `next_commands`) runs as written, whatever the tree holds. A matrix over
//! hostile names (option-like, quotes, blanks, a tab, a newline, U+202E, 255
//! bytes, a directory `-d/`) and modes (a file and a directory at 000, met as
//! `nobody`) and the commands agents use most: each handed-back call is run
//! through sh as an agent runs it and must answer, or refuse with an expected
//! error, never argument.invalid nor not-found of a path the tree has.

use crate::support::{self, Run, TestEnv};
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

const BODY: &str = "{\"k\": \"x\"}\n";

/// The hostile names; each sits in its own workspace beside `other.json`.
fn names() -> Vec<String> {
    let long = format!("{}.json", "l".repeat(250));
    assert_eq!(long.len(), 255);
    [
        "-rf",
        "--x.txt",
        "a'b.txt",
        "a b.txt",
        "tab\there.txt",
        &long,
        "new\nline.json",
        "rlo\u{202E}nosj.txt",
        "-d/f.json",
        "$(touch PWNED);`x`~*#!.json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The calls made on path `p` (basename `base`); each is run with every path
/// argument after `--` where it could be read as an option.
fn calls(p: &str, base: &str) -> Vec<Vec<String>> {
    let rows: Vec<Vec<&str>> = vec![
        vec!["read", "--", p],
        vec!["read", "--range", "99:100", "--", p],
        vec!["read", "--match", "nope", "--", p],
        vec!["search", "x", "--", p],
        vec!["search", "nope", "--", p],
        vec!["search", "--", base],
        vec!["find", "--", base],
        vec!["edit", "--old", "nope", "--new", "y", "--", p],
        vec!["edit", "--old", "x", "--new", "y", "--dry-run", "--", p],
        vec!["replace", "nope", "y", "--", p],
        vec!["replace", "x", "y", "--dry-run", "--", p],
        vec![
            "insert",
            "--at",
            "end",
            "--content",
            "z",
            "--dry-run",
            "--",
            p,
        ],
        vec![
            "insert",
            "--range",
            "99",
            "--after",
            "--content",
            "z",
            "--",
            p,
        ],
        vec!["delete", "--dry-run", "--", p],
        vec!["move", "--dry-run", "--", p, "moved.json"],
        vec!["move", "--", p, "other.json"],
        vec!["info", "--", p],
        vec!["diff", "--", p, "other.json"],
        vec!["diff", "--", p, "missing.json"],
        vec!["code", "defs", "k", "--", p],
        vec!["code", "refs", "k", "--", p],
        vec!["code", "outline", "--", p],
        vec!["git", "blame", "--", p],
        vec!["git", "log", "--", p],
        vec!["json", "get", "--", p, "/k"],
        vec!["json", "get", "--", p, "/nope"],
        vec!["json", "set", "--dry-run", "--", p, "/k", "1"],
        vec!["check", "--", p],
        vec!["history", "--", p],
        vec!["edit", "--old", "x", "--new", "y", "--", p],
        vec!["history", "--", p],
        vec!["search", "x"],
        vec!["find", "*"],
        vec!["code", "defs", "k"],
        vec!["history"],
        vec!["git", "log"],
    ];
    rows.into_iter()
        .map(|r| r.into_iter().map(String::from).collect())
        .collect()
}

/// The calls `r` hands back whole (a `<...>` placeholder is the caller's to fill).
fn handed_back(r: &Run) -> Vec<String> {
    let repairs = r.json["error"]["repairs"].as_array().cloned();
    let next = r.json["next_commands"].as_array().cloned();
    let from_repairs = repairs.into_iter().flatten().map(|x| x["command"].clone());
    from_repairs
        .chain(next.into_iter().flatten())
        .filter_map(|c| c.as_str().map(String::from))
        .filter(|c| c.starts_with("aitools ") && !c.contains('<'))
        .collect()
}

/// Why `fix`, handed back by `call` in a tree holding `paths`, failed; `None`
/// when it answered or refused as a caller may expect.
fn verdict(call: &str, fix: &str, r: &Run, paths: &[&str]) -> Option<String> {
    let code = r.error_code();
    let bad = match code {
        "" => false,
        "argument.invalid" | "argument.unknown" | "argument.missing" => true,
        // `info` is handed back to tell what stat tells, mode 0000 and all.
        "environment.io" => fix.starts_with("aitools info "),
        c if c.contains("not-found") => {
            let msg = r.json["error"]["message"].as_str().unwrap_or("");
            paths.iter().any(|p| msg.contains(p))
        }
        _ => false,
    };
    bad.then(|| format!("{call}\n  handed back {fix}\n  -> {}", r.json))
}

/// Runs `args` and every call it hands back; the failures, and how many calls ran.
fn probe(
    run: &dyn Fn(&[String]) -> Run,
    run_line: &dyn Fn(&str) -> Run,
    args: &[String],
    paths: &[&str],
) -> (Vec<String>, usize) {
    let call = format!("{args:?}");
    let Some(r) = caught(&call, || run(args)) else {
        return (
            vec![format!("{call}: its own answer broke the envelope")],
            1,
        );
    };
    let mut failures = Vec::new();
    let fixes = handed_back(&r);
    for fix in &fixes {
        match caught(fix, || run_line(fix)) {
            Some(out) => failures.extend(verdict(&call, fix, &out, paths)),
            None => failures.push(format!("{call}\n  handed back {fix}: broke the envelope")),
        }
    }
    (failures, 1 + fixes.len())
}

/// `f`'s run, or `None` when it broke the one-envelope rule (the support
/// checks panic; the panic is printed, the matrix goes on).
fn caught(what: &str, f: impl FnOnce() -> Run) -> Option<Run> {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    if r.is_none() {
        eprintln!("(the call above was {what})");
    }
    r
}

/// The calls on `name` (from `w/` when `below`) and what they hand back.
fn probe_name(name: &str, below: bool) -> (Vec<String>, usize) {
    let dir = if below { "w/" } else { "" };
    let env = hostile_tree(&format!("{dir}{name}"));
    env.write(&format!("{dir}other.json"), "{\"k\": \"w\"}\n");
    let cwd = env.path(dir);
    let base = name.rsplit('/').next().unwrap_or(name);
    let top = name.split('/').next().unwrap_or(name);
    let paths = [name, top, "other.json"];
    let run = |a: &[String]| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        env.run_in(&cwd, &a)
    };
    let line = |l: &str| run_line_in(&env, &cwd, l);
    let mut all = (Vec::new(), 0);
    let mut rows = calls(name, base);
    if top != name {
        rows.push(vec!["find".into(), "--".into(), top.into()]);
        rows.push(vec!["delete".into(), "--".into(), top.into()]);
    }
    for args in rows {
        let (f, n) = probe(&run, &line, &args, &paths);
        all.0.extend(f);
        all.1 += n;
    }
    all
}

fn hostile_tree(name: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write(name, BODY);
    env.write("other.json", "{\"k\": \"w\"}\n");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-qm", "init"]);
    env
}

/// Every other name sits in a subdirectory `w/` the calls are made from (the
/// answers name it `w/NAME`; the caller, from `w`, `NAME`).
#[test]
fn every_call_handed_back_for_a_hostile_name_runs() {
    let results: Vec<(Vec<String>, usize)> = std::thread::scope(|s| {
        let jobs: Vec<_> = names()
            .into_iter()
            .enumerate()
            .map(|(i, name)| s.spawn(move || probe_name(&name, i % 2 == 0)))
            .collect();
        jobs.into_iter()
            .map(|j| j.join().expect("a name's probe"))
            .collect()
    });
    let ran: usize = results.iter().map(|r| r.1).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.0).collect();
    println!("hostile names: {ran} calls run");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `line` (an `aitools ...` call quoted for sh) run through sh from `cwd`.
fn run_line_in(env: &TestEnv, cwd: &std::path::Path, line: &str) -> Run {
    let rest = line.strip_prefix("aitools ").expect("an aitools call");
    let mut c = Command::new("sh");
    c.args(["-c", &format!("exec \"$AITOOLS\" {rest}")])
        .env("AITOOLS", support::bin());
    let mut c = env.isolate(c);
    c.current_dir(cwd);
    support::parse(c.output().expect("spawn sh"))
}

/// Answers name paths from the root; called from a subdirectory, what they
/// hand back runs there: `sub/a b.json` is `a b.json` from `sub`, and
/// `other.json` is `../other.json`.
#[test]
fn every_call_handed_back_in_a_subdirectory_runs() {
    let env = hostile_tree("sub/a b.json");
    env.write("sub/deeper/c.json", BODY);
    env.write("sub/taken.json", BODY);
    let sub = env.path("sub");
    let run = |a: &[String]| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        env.run_in(&sub, &a)
    };
    let line = |l: &str| run_line_in(&env, &sub, l);
    let paths = [
        "sub/a b.json",
        "other.json",
        "sub/deeper/c.json",
        "-top.json",
    ];
    let mut rows = calls("a b.json", "a b.json");
    rows.extend(calls("../other.json", "other.json"));
    rows.extend(calls("deeper/c.json", "c.json"));
    // A name at the root that reads as an option: `-top.json` is `../-top.json`.
    env.write("-top.json", BODY);
    for r in [
        &["read", "--range", "99:100", "--", "../-top.json"][..],
        &["edit", "--old", "nope", "--new", "y", "--", "../-top.json"],
        &["json", "get", "--", "../-top.json", "/nope"],
    ] {
        rows.push(r.iter().map(|s| s.to_string()).collect());
    }
    // `other.json` is no name in `sub`: the moves meet `taken.json` there.
    for r in rows.iter_mut().filter(|r| r[0] == "move") {
        if let Some(dst) = r.last_mut().filter(|d| *d == "other.json") {
            *dst = "taken.json".into();
        }
    }
    let (mut failures, mut ran) = (Vec::new(), 0);
    for args in rows {
        let (f, n) = probe(&run, &line, &args, &paths);
        failures.extend(f);
        ran += n;
    }
    println!("subdirectory: {ran} calls run");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Called with `--root` from a directory outside the workspace, with the file
/// given by its absolute path: what the answers hand back runs from there.
#[test]
fn every_call_handed_back_outside_the_root_runs() {
    let env = hostile_tree("a b.json");
    let outside = tempfile::tempdir().expect("tempdir");
    let root = env.root().to_string_lossy().into_owned();
    let run = |a: &[String]| {
        let mut a: Vec<&str> = a.iter().map(String::as_str).collect();
        a.splice(0..0, ["--root", root.as_str()]);
        env.run_in(outside.path(), &a)
    };
    let line = |l: &str| run_line_in(&env, outside.path(), l);
    let abs = |n: &str| env.path(n).to_string_lossy().into_owned();
    let (p, other) = (abs("a b.json"), abs("other.json"));
    let paths = ["a b.json", other.as_str()];
    let (mut failures, mut ran) = (Vec::new(), 0);
    for mut args in calls(&p, "a b.json") {
        // The other names of the calls, in the workspace too.
        for w in args.iter_mut().filter(|w| w.ends_with(".json") && **w != p) {
            *w = abs(w);
        }
        let (f, n) = probe(&run, &line, &args, &paths);
        failures.extend(f);
        ran += n;
    }
    println!("outside the root: {ran} calls run");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `line` (an `aitools ...` call quoted for sh) run through sh as `nobody`.
fn run_line_as_nobody(env: &TestEnv, line: &str) -> Run {
    let rest = line.strip_prefix("aitools ").expect("an aitools call");
    let isolated = env.command(&[]);
    let mut c = Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .args(["sh", "-c", &format!("exec \"$AITOOLS\" {rest}")])
        .env("AITOOLS", support::bin())
        .current_dir(env.root())
        .stdin(std::process::Stdio::null());
    for (k, v) in isolated.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    support::parse(c.output().expect("spawn setpriv"))
}

#[test]
fn every_call_handed_back_around_mode_000_runs() {
    let env = TestEnv::new();
    env.write("locked.json", BODY);
    env.write("shut/in.json", BODY);
    env.write("other.json", "{\"k\": \"w\"}\n");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-qm", "init"]);
    if !env.hand_to_nobody() {
        println!("skipped: dropping to another uid needs root and setpriv");
        return;
    }
    let shut = std::fs::Permissions::from_mode(0o000);
    std::fs::set_permissions(env.path("locked.json"), shut.clone()).expect("chmod");
    std::fs::set_permissions(env.path("shut"), shut).expect("chmod");
    let run = |a: &[String]| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        env.run_as_nobody(&a)
    };
    let line = |l: &str| run_line_as_nobody(&env, l);
    let mut shut_rows = calls("shut/in.json", "in.json");
    for r in [
        &["search", "x"][..],
        &["find", "*.json"],
        &["code", "defs", "k"],
    ] {
        shut_rows.push(r.iter().map(|s| s.to_string()).collect());
    }
    let paths = ["other.json", "locked.json"];
    // The two halves touch different files: one thread each.
    let halves = [calls("locked.json", "locked.json"), shut_rows];
    let (run, line, paths) = (&run, &line, &paths);
    let (failures, ran) = std::thread::scope(|s| {
        let jobs: Vec<_> = halves
            .iter()
            .map(|rows| {
                s.spawn(move || {
                    let mut all = (Vec::new(), 0);
                    for args in rows {
                        let (f, n) = probe(run, line, args, paths);
                        all.0.extend(f);
                        all.1 += n;
                    }
                    all
                })
            })
            .collect();
        let done = jobs.into_iter().map(|j| j.join().expect("a half's probe"));
        done.fold((Vec::new(), 0), |(mut f, n), (g, m)| {
            f.extend(g);
            (f, n + m)
        })
    });
    std::fs::set_permissions(env.path("shut"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    println!("mode 000: {ran} calls run");
    let failures: Vec<String> = failures;
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

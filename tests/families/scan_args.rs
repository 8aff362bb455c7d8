//! The scan filters (`--glob`, `--lang`, `--no-ignore`, `--skip-larger-than`,
//! `--newer`) are one set of arguments in the workspace core: `search` and
//! `replace` pick the same files under each, reject a bad value the same way, and
//! `replace` keeps its own 10MiB size default.

use crate::support::TestEnv;
use std::time::{Duration, UNIX_EPOCH};

fn set_mtime(env: &TestEnv, rel: &str, secs_ago: u64) {
    let f = std::fs::File::options()
        .write(true)
        .open(env.path(rel))
        .unwrap();
    // Relative to the fixed aitools clock (AITOOLS_FIXED_TIME), which durations count from.
    f.set_modified(UNIX_EPOCH + Duration::from_secs(1_796_000_000 - secs_ago))
        .unwrap();
}

fn sorted(v: &serde_json::Value, key: &str) -> Vec<String> {
    let mut out: Vec<String> = v
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|x| {
            if key.is_empty() {
                x.as_str().unwrap().to_string()
            } else {
                x[key].as_str().unwrap().to_string()
            }
        })
        .collect();
    out.sort();
    out
}

#[test]
fn search_and_replace_pick_the_same_files_under_each_filter() {
    let env = TestEnv::new();
    env.write(".gitignore", "ignored/\n");
    env.write("t/a.rs", "let old = 1;\n");
    env.write("t/b.py", "old = 2\n");
    env.write("t/sub/c.rs", "// old\n");
    env.write("t/ignored/d.rs", "old\n");
    env.write("t/big.rs", format!("{}\nold\n", "x".repeat(3000)));
    env.write("ref.txt", "reference\n");
    for (rel, ago) in [
        ("t/a.rs", 5000),
        ("t/b.py", 10),
        ("t/sub/c.rs", 10),
        ("t/ignored/d.rs", 10),
        ("t/big.rs", 5000),
        ("ref.txt", 1000),
    ] {
        set_mtime(&env, rel, ago);
    }
    let filters: &[&[&str]] = &[
        &[],
        &["--glob", "*.rs"],
        &["--glob", "!sub/**", "--glob", "*.rs"],
        &["--lang", "python"],
        &["--no-ignore"],
        &["--skip-larger-than", "1KiB"],
        &["--newer", "ref.txt"],
        &["--newer", "30m"],
    ];
    for f in filters {
        let mut s = vec!["search", "old", "t", "--output", "files"];
        s.extend_from_slice(f);
        let sr = env.run(&s);
        assert_eq!(sr.code, 0, "{f:?}: {}", sr.stderr);
        let mut r = vec!["replace", "old", "new", "t", "--dry-run"];
        r.extend_from_slice(f);
        let rr = env.run(&r);
        let found = sorted(&sr.json["paths"], "");
        assert!(!found.is_empty(), "{f:?}: search found nothing");
        assert_eq!(rr.code, 0, "{f:?}: {}", rr.stderr);
        assert_eq!(
            sorted(&rr.json["changes"], "path"),
            found,
            "{f:?}: replace and search disagree"
        );
    }
}

#[test]
fn a_bad_filter_is_refused_alike_with_a_runnable_repair() {
    let env = TestEnv::new();
    env.write("a.txt", "old\n");
    for (argv, again) in [
        (
            vec!["search", "old", ".", "--newer", "nosuch"],
            "aitools search old . --newer 1h",
        ),
        (
            vec![
                "replace",
                "old",
                "new",
                ".",
                "--dry-run",
                "--newer",
                "nosuch",
            ],
            "aitools replace old new . --dry-run --newer 1h",
        ),
    ] {
        let r = env.run(&argv);
        assert_eq!(r.error_code(), "argument.invalid", "{argv:?}");
        assert_eq!(r.json["error"]["repairs"][0]["command"], again);
        let fixed: Vec<&str> = again.split(' ').skip(1).collect();
        let r = env.run(&fixed);
        assert_ne!(r.error_code(), "argument.invalid", "{again}: {}", r.stderr);
    }
    for argv in [
        vec!["search", "old", ".", "--skip-larger-than", "lots"],
        vec![
            "replace",
            "old",
            "new",
            ".",
            "--dry-run",
            "--skip-larger-than",
            "lots",
        ],
    ] {
        let r = env.run(&argv);
        assert_eq!(r.error_code(), "argument.invalid", "{argv:?}");
        assert!(
            r.json["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("--skip-larger-than: "),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn replace_keeps_its_size_default_and_search_has_none() {
    let env = TestEnv::new();
    let default_of = |cmd: &str| {
        let s = env.run(&["schema", cmd]);
        s.json["commands"][0]["args"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == "--skip-larger-than")
            .map(|a| a["default"].clone())
            .unwrap()
    };
    assert_eq!(default_of("replace"), "10MiB");
    assert_eq!(default_of("search"), serde_json::Value::Null);
    // Just over the default: replace's scan skips it, an explicit larger limit takes it.
    let big = format!("old\n{}\n", "x".repeat(10 * 1024 * 1024));
    env.write("d/big.txt", &big);
    env.write("d/small.txt", "old\n");
    let r = env.run(&["replace", "old", "new", "d", "--dry-run"]);
    assert_eq!(sorted(&r.json["changes"], "path"), ["d/small.txt"]);
    let r = env.run(&[
        "replace",
        "old",
        "new",
        "d",
        "--dry-run",
        "--skip-larger-than",
        "11MiB",
    ]);
    assert_eq!(
        sorted(&r.json["changes"], "path"),
        ["d/big.txt", "d/small.txt"]
    );
}

#[test]
fn replace_takes_a_file_named_twice_once() {
    let env = TestEnv::new();
    env.write("f.txt", "a x\nb x\n");
    env.write("e.txt", "no match\n");
    std::fs::create_dir_all(env.path("d")).unwrap();
    std::os::unix::fs::symlink("../f.txt", env.path("d/link.txt")).unwrap();
    // d/link.txt, e.txt, f.txt: the two names of f.txt do not sort side by side.
    let r = env.run(&[
        "replace",
        "x",
        "y",
        "d/link.txt",
        "e.txt",
        "f.txt",
        "--expect-count",
        "2",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json["changes"].as_array().unwrap().len(), 1);
    assert_eq!(env.read("f.txt"), b"a y\nb y\n");
}

//! `read --tail` and the hash cache, black-box and adversarial: a file changed
//! behind the cache's back (same size, mtime restored with `touch -d`) is never
//! answered from it, and no guard accepts its old hash; a large file's first
//! tail answers hash null and the `info` it names fills the hash in.

use crate::support::{TestEnv, sha256sum};
use std::process::Command;
use std::time::Duration;

fn touch_old(env: &TestEnv, rel: &str) {
    let ok = Command::new("touch")
        .args(["-d", "2020-01-01 00:00:00"])
        .arg(env.path(rel))
        .status()
        .expect("touch");
    assert!(ok.success());
}

/// The cache trusts only files whose timestamps (ctime included, which `touch`
/// sets to now) are older than its racy-clean window.
fn outlive_racy_window() {
    std::thread::sleep(Duration::from_millis(3300));
}

fn cache_text(env: &TestEnv) -> String {
    let mut out = String::new();
    let mut stack = vec![env.state.path().to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "hashcache") {
                out.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    out
}

#[test]
fn a_file_changed_behind_the_cache_is_rehashed_and_guards_refuse_its_old_hash() {
    let env = TestEnv::new();
    let body: String = (0..200_000).map(|i| format!("line {i:06}\n")).collect();
    let p = env.write("big.log", &body);
    touch_old(&env, "big.log");
    outlive_racy_window();
    let old = sha256sum(&p);
    let first = env.run(&["read", "big.log", "--tail", "2"]);
    assert_eq!(first.json["hash"], &old[..12]);
    assert!(cache_text(&env).contains(&old), "the cache holds the hash");
    let again = env.run(&["read", "big.log", "--tail", "2"]);
    assert_eq!(again.json["hash"], &old[..12]);
    assert_eq!(again.lines(), vec!["line 199998", "line 199999"]);

    // Same size, same mtime, other bytes (in the middle and in the tail).
    let changed = body
        .replace("line 100000\n", "LINE 100000\n")
        .replace("line 199999\n", "LINE 199999\n");
    assert_eq!(changed.len(), body.len());
    std::fs::write(&p, &changed).unwrap();
    touch_old(&env, "big.log");
    let new = sha256sum(&p);
    assert_ne!(new, old);
    let r = env.run(&["read", "big.log", "--tail", "2"]);
    assert_eq!(r.json["hash"], &new[..12]);
    assert_eq!(r.lines(), vec!["line 199998", "LINE 199999"]);
    let r = env.run(&[
        "edit",
        "big.log",
        "--range",
        "1",
        "--new",
        "x",
        "--expect-hash",
        &old,
    ]);
    assert_eq!((r.code, r.error_code()), (2, "refusal.target-changed"));

    // Racy: the same change again right after a read, before the window passed.
    std::fs::write(&p, &body).unwrap();
    touch_old(&env, "big.log");
    let r = env.run(&["read", "big.log", "--tail", "2"]);
    assert_eq!(r.json["hash"], &old[..12]);
    std::fs::write(&p, &changed).unwrap();
    touch_old(&env, "big.log");
    let r = env.run(&["read", "big.log", "--tail", "2"]);
    assert_eq!(r.json["hash"], &new[..12]);
    let r = env.run(&[
        "write",
        "big.log",
        "--content",
        "y\n",
        "--overwrite",
        "--expect-hash",
        &old,
    ]);
    assert_eq!((r.code, r.error_code()), (2, "refusal.target-changed"));
}

#[test]
fn a_large_files_first_tail_answers_hash_and_count_null_and_info_fills_them_in() {
    let env = TestEnv::new();
    let body: String = (0..1_700_000).map(|i| format!("{i:09}\n")).collect();
    let p = env.write("huge.log", &body);
    outlive_racy_window();
    let r = env.run(&["read", "huge.log", "--tail", "3"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.json["hash"], serde_json::Value::Null);
    // Read backwards from the end: the count is not computed either.
    assert_eq!(r.json["start_line"], serde_json::Value::Null);
    assert_eq!(r.json["total_lines"], serde_json::Value::Null);
    assert_eq!(r.lines(), vec!["001699997", "001699998", "001699999"]);
    assert_eq!(r.json["next_commands"][0], "aitools info huge.log");
    let info = env.run(&["info", "huge.log"]);
    assert_eq!(info.json["hash"], sha256sum(&p).as_str());
    let r = env.run(&["read", "huge.log", "--tail", "3"]);
    assert_eq!(r.json["hash"], &sha256sum(&p)[..12]);
    assert_eq!(r.json["start_line"], 1_699_998);
    assert_eq!(r.json["total_lines"], 1_700_000);
    assert!(
        r.json
            .get("next_commands")
            .is_none_or(|n| n.as_array().is_some_and(|a| a.is_empty()))
    );
}

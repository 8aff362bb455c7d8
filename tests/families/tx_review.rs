//! The review gate, black-box: `tx begin --review`, a `tx commit` that waits
//! (holding no lock) for `tx approve` from another process, `tx deny`, the
//! `--review-timeout`, an approval voided by a later staged change, a decision
//! file that is not trusted, and `tx reviews`. Oracles: the files' bytes and
//! sha256sum, and the commit's own process (still running, or its exit).

use crate::support::{Run, TestEnv, parse, sha256sum};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A `--review` tx staging one edit of `a.txt` (`one` → `ONE`).
fn review_tx(env: &TestEnv) -> String {
    env.write("a.txt", "one\ntwo\n");
    let r = env.run(&["tx", "begin", "--review", "--name", "r"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["review"], true);
    let t = r.json["tx"].as_str().unwrap().to_string();
    let e = env.run(&["edit", "a.txt", "--old", "one", "--new", "ONE", "--tx", &t]);
    assert_eq!(e.code, 0, "{}", e.stdout);
    t
}

/// `tx commit <t> --review-timeout <secs>`, started in the background.
fn commit_in_background(env: &TestEnv, t: &str, secs: &str) -> Child {
    env.command(&["tx", "commit", t, "--review-timeout", secs])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tx commit")
}

/// Waits for `c` (at most 20 s) and parses its answer.
fn finish(mut c: Child) -> Run {
    let start = Instant::now();
    while c.try_wait().expect("try_wait").is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = c.kill();
            panic!("the waiting commit never ended");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    parse(c.wait_with_output().expect("output"))
}

#[test]
fn a_commit_waits_without_the_lock_until_another_process_approves_then_writes() {
    let env = TestEnv::new();
    let t = review_tx(&env);
    let before = sha256sum(&env.path("a.txt"));
    let listed = env.run(&["tx", "reviews"]);
    assert_eq!(
        listed.json["items"][0]["waiting"], false,
        "{}",
        listed.stdout
    );
    let mut c = commit_in_background(&env, &t, "20");
    std::thread::sleep(Duration::from_millis(400));
    assert!(c.try_wait().unwrap().is_none(), "the commit did not wait");
    // The operator sees that a commit is blocked on the decision.
    let listed = env.run(&["tx", "reviews"]);
    assert_eq!(
        listed.json["items"][0]["waiting"], true,
        "{}",
        listed.stdout
    );
    assert_eq!(
        sha256sum(&env.path("a.txt")),
        before,
        "written before approval"
    );
    // Other writers and readers go on while it waits: the lock is free.
    let w = env.run(&[
        "write",
        "other.txt",
        "--content",
        "x\n",
        "--lock-timeout",
        "1s",
    ]);
    assert_eq!(w.code, 0, "{}", w.stdout);
    let st = env.run(&["tx", "status", &t]);
    assert_eq!(st.json["review"]["state"], "pending", "{}", st.stdout);
    let a = env.run(&["tx", "approve", &t, "--note", "looks right"]);
    assert_eq!(a.code, 0, "{}", a.stdout);
    assert_eq!(a.json["decision"], "approved");
    assert_eq!(a.json["note"], "looks right");
    assert_eq!(a.json["files"], 1);
    let done = finish(c);
    assert_eq!(done.code, 0, "{}", done.stdout);
    assert!(done.json["op_id"].is_string(), "{}", done.stdout);
    assert_eq!(env.read("a.txt"), b"ONE\ntwo\n");
    assert_eq!(env.read("other.txt"), b"x\n");
    assert_eq!(
        env.run(&["tx", "status", &t]).error_code(),
        "input.not-found"
    );
}

#[test]
fn a_denial_refuses_the_commit_with_the_reason_and_writes_nothing() {
    let env = TestEnv::new();
    let t = review_tx(&env);
    let before = sha256sum(&env.path("a.txt"));
    // Denied while the commit waits.
    let c = commit_in_background(&env, &t, "20");
    std::thread::sleep(Duration::from_millis(300));
    let d = env.run(&["tx", "deny", &t, "--reason", "too broad"]);
    assert_eq!(d.code, 0, "{}", d.stdout);
    assert_eq!(d.json["decision"], "denied");
    assert_eq!(d.json["reason"], "too broad");
    let r = finish(c);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(r.error_code(), "refusal.review-denied");
    let msg = r.json["error"]["message"].as_str().unwrap();
    assert!(msg.contains("too broad"), "{msg}");
    assert_eq!(sha256sum(&env.path("a.txt")), before);
    // Denied already: a new commit answers at once.
    let again = env.run(&["tx", "commit", &t]);
    assert_eq!(again.error_code(), "refusal.review-denied");
    let st = env.run(&["tx", "status", &t]);
    assert_eq!(st.json["review"]["state"], "denied");
    assert_eq!(st.json["review"]["reason"], "too broad");
    // The repairs work: the diff, then the abort.
    let repairs: Vec<String> = again.json["error"]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["command"].as_str().unwrap().to_string())
        .collect();
    let diff = repairs
        .iter()
        .find(|c| c.contains("tx diff"))
        .expect("a diff repair");
    assert_eq!(env.run_line(diff).json["changes"][0]["path"], "a.txt");
    let abort = repairs
        .iter()
        .find(|c| c.contains("tx abort"))
        .expect("an abort repair");
    let ab = env.run_line(abort);
    assert_eq!(ab.code, 0, "{}", ab.stdout);
    assert_eq!(ab.json["discarded"], serde_json::json!(["a.txt"]));
    assert_eq!(sha256sum(&env.path("a.txt")), before);
    assert_eq!(env.run(&["history"]).json["items"], serde_json::json!([]));
}

#[test]
fn no_decision_within_the_timeout_answers_its_own_code_and_a_longer_wait() {
    let env = TestEnv::new();
    let t = review_tx(&env);
    let before = sha256sum(&env.path("a.txt"));
    let r = env.run(&["tx", "commit", &t, "--review-timeout", "0"]);
    assert_eq!(
        (r.code, r.error_code()),
        (1, "environment.review-timeout"),
        "{}",
        r.stdout
    );
    let start = Instant::now();
    let r = env.run(&["tx", "commit", &t, "--review-timeout", "1"]);
    let took = start.elapsed();
    assert_eq!(r.error_code(), "environment.review-timeout");
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(8),
        "{took:?}"
    );
    let wait = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(wait, format!("aitools tx commit {t} --review-timeout 600"));
    assert_eq!(sha256sum(&env.path("a.txt")), before);
    // A dry run never waits, and a plain tx never needs approval.
    let dry = env.run(&["tx", "commit", &t, "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stdout);
    let plain = env.tx_begin();
    env.run(&["write", "p.txt", "--content", "p\n", "--tx", &plain]);
    assert_eq!(
        env.run(&["tx", "commit", &plain, "--review-timeout", "0"])
            .code,
        0
    );
    let no = env.run(&["tx", "approve", &plain]);
    assert_eq!(no.error_code(), "input.not-found", "{}", no.stdout);
}

#[test]
fn an_approval_no_longer_counts_once_the_staged_changes_change() {
    let env = TestEnv::new();
    let t = review_tx(&env);
    assert_eq!(env.run(&["tx", "approve", &t]).code, 0);
    let e = env.run(&["edit", "a.txt", "--old", "two", "--new", "TWO", "--tx", &t]);
    assert_eq!(e.code, 0, "{}", e.stdout);
    let st = env.run(&["tx", "status", &t]);
    assert_eq!(st.json["review"]["state"], "pending", "{}", st.stdout);
    assert_eq!(st.json["review"]["previous"], "approved");
    let r = env.run(&["tx", "commit", &t, "--review-timeout", "0"]);
    assert_eq!(r.error_code(), "environment.review-timeout", "{}", r.stdout);
    assert_eq!(env.read("a.txt"), b"one\ntwo\n");
    let list = env.run(&["tx", "reviews"]);
    assert_eq!(list.json["items"][0]["previous"], "approved");
    // A dropped op changes it too; approving what is staged now lets it through.
    assert_eq!(env.run(&["tx", "approve", &t]).code, 0);
    assert_eq!(env.run(&["tx", "drop", &t, "2"]).code, 0);
    let r = env.run(&["tx", "commit", &t, "--review-timeout", "0"]);
    assert_eq!(r.error_code(), "environment.review-timeout");
    assert_eq!(env.run(&["tx", "approve"]).code, 0);
    let r = env.run(&["tx", "commit", &t, "--review-timeout", "0"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(env.read("a.txt"), b"ONE\ntwo\n");
}

#[test]
fn a_decision_file_that_is_not_private_or_not_for_this_content_is_not_trusted() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let t = review_tx(&env);
    assert_eq!(env.run(&["tx", "approve", &t]).code, 0);
    let f = env.tx_dir(&t).join("review.json");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o666)).unwrap();
    let r = env.run(&["tx", "commit", &t, "--review-timeout", "0"]);
    assert_eq!(r.error_code(), "environment.review-timeout", "{}", r.stdout);
    // A forged approval of other content.
    let forged = r#"{"decision":"approved","staged":"00","at":"2026-01-01T00:00:00Z"}"#;
    std::fs::remove_file(&f).unwrap();
    std::fs::write(&f, forged).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
    let r = env.run(&["tx", "commit", &t, "--review-timeout", "0"]);
    assert_eq!(r.error_code(), "environment.review-timeout", "{}", r.stdout);
    assert_eq!(env.read("a.txt"), b"one\ntwo\n");
}

#[test]
fn tx_reviews_lists_the_pending_reviews_with_per_file_diff_stats() {
    let env = TestEnv::new();
    let empty = env.run(&["tx", "reviews"]);
    assert_eq!((empty.json["total"].clone(), empty.code), (0.into(), 0));
    let t1 = review_tx(&env);
    let w = env.run(&["write", "n.txt", "--content", "1\n2\n3\n", "--tx", &t1]);
    assert_eq!(w.code, 0, "{}", w.stdout);
    let t2 = env.run(&["tx", "begin", "--review"]).json["tx"]
        .as_str()
        .unwrap()
        .to_string();
    env.run(&["delete", "a.txt", "--tx", &t2]);
    let plain = env.tx_begin();
    env.run(&["write", "p.txt", "--content", "p\n", "--tx", &plain]);
    let r = env.run(&["tx", "reviews"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["total"], 2, "{}", r.stdout);
    // Oldest first, then by id (the clock is fixed here).
    let items = r.json["items"].as_array().unwrap();
    let of = |t: &str| items.iter().find(|i| i["tx"] == t).expect("listed");
    let first = of(&t1);
    assert_eq!(first["name"], "r");
    assert_eq!(first["files_total"], 2);
    assert_eq!(first["age_secs"], 0);
    assert_eq!(first["diff"], format!("aitools tx diff {t1}"));
    let files = serde_json::json!([
        {"path": "a.txt", "action": "modified", "added": 1, "deleted": 1},
        {"path": "n.txt", "action": "created", "added": 3, "deleted": 0},
    ]);
    assert_eq!(first["files"], files);
    assert_eq!(of(&t2)["files"][0]["action"], "deleted");
    let not_gated = env.run(&["tx", "approve", &plain]);
    assert_eq!(
        not_gated.error_code(),
        "argument.invalid",
        "{}",
        not_gated.stdout
    );
    // Two pending: a decision must name its tx; deciding one leaves one.
    let which = env.run(&["tx", "approve"]);
    assert_eq!(which.error_code(), "argument.invalid", "{}", which.stdout);
    assert_eq!(env.run(&["tx", "deny", &t2, "--reason", "no"]).code, 0);
    let r = env.run(&["tx", "reviews"]);
    assert_eq!(r.json["total"], 1);
    let a = env.run(&["tx", "approve"]);
    assert_eq!(a.json["tx"], t1.as_str(), "{}", a.stdout);
    assert_eq!(env.run(&["tx", "reviews"]).json["total"], 0);
    let none = env.run(&["tx", "approve"]);
    assert_eq!(none.error_code(), "input.not-found", "{}", none.stdout);
    // tx status lists the review state of each tx (none for a plain one).
    let all = env.run(&["tx", "status"]);
    let items = all.json["items"].as_array().unwrap();
    let state = |t: &str| {
        let i = items.iter().find(|i| i["tx"] == t).expect("listed");
        i["review"]["state"].clone()
    };
    assert_eq!(state(&t1), "approved");
    assert_eq!(state(&t2), "denied");
    assert_eq!(state(&plain), serde_json::Value::Null);
}

//! Issue 32's "answers that mislead": a limit the caller chose is no cut, a
//! misspelled member is no new member, `==` is equality, `git show <commit>` shows
//! the commit, and `git blame` gives each commit's facts once.

use crate::support::{TestEnv, log_items};

/// Three commits on one file, each changing one line.
fn history() -> TestEnv {
    let env = TestEnv::new();
    env.write("a.py", "one\ntwo\nthree\n");
    env.git(&["add", "."]);
    env.git(&["commit", "-qm", "first"]);
    env.write("a.py", "one\nTWO\nthree\n");
    env.git(&["commit", "-qam", "second: upper two"]);
    env.write("a.py", "one\nTWO\nthree\nfour\n");
    env.git(&["commit", "-qam", "third"]);
    env
}

#[test]
fn an_explicit_log_limit_is_an_answer_not_a_cut() {
    let env = history();
    let r = env.run(&["git", "log", "--rev", "HEAD", "--limit", "1"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["status"], "ok");
    assert!(r.json.get("next_commands").is_none(), "{}", r.stdout);
    // More follow: `more` says so; their count is not walked for (`--total` does).
    assert!(r.json.get("total").is_none(), "{}", r.stdout);
    let counted = env.run(&["git", "log", "--rev", "HEAD", "--limit", "1", "--total"]);
    assert_eq!(counted.json["total"], 3);
    assert_eq!(r.json["more"], "--skip 1", "{}", r.stdout);
    let more = crate::support::run_more(&env, &["git", "log", "--rev", "HEAD", "--limit", "1"], &r);
    assert_eq!(log_items(&more.json)[0]["subject"], "second: upper two");
    // The default page is still a cut (partial) when more commits follow.
    for i in 0..21 {
        env.write("a.py", format!("{i}\n"));
        env.git(&["commit", "-qam", &format!("c{i}")]);
    }
    let d = env.run(&["git", "log"]);
    assert_eq!(d.code, 3, "{}", d.stdout);
    assert!(d.json["next_commands"][0].is_string());
}

#[test]
fn json_set_of_a_missing_member_needs_create() {
    let env = TestEnv::new();
    let doc = "{\"name\": \"x\", \"version\": \"1.0\"}\n";
    env.write("p.json", doc);
    let r = env.run(&["json", "set", "p.json", "/verison", "\"2.0\""]);
    assert_eq!(r.error_code(), "selection.no-match", "{}", r.stdout);
    assert_eq!(r.json["error"]["candidates"][0], "version");
    assert_eq!(env.read("p.json"), doc.as_bytes());
    // The first repair sets the close key; it runs.
    let fix = env.run_line(r.json["error"]["repairs"][0]["command"].as_str().unwrap());
    assert_eq!(fix.code, 0, "{}", fix.stdout);
    assert!(
        String::from_utf8(env.read("p.json"))
            .unwrap()
            .contains("\"2.0\"")
    );
    // --create adds the member.
    let c = env.run(&["json", "set", "p.json", "/license", "\"MIT\"", "--create"]);
    assert_eq!(c.code, 0, "{}", c.stdout);
    let g = env.run(&["json", "get", "p.json", "/license"]);
    assert_eq!(g.json["value"], "MIT", "{}", g.stdout);
}

#[test]
fn json_select_double_equals_is_equality() {
    let env = TestEnv::new();
    env.write(
        "r.json",
        "[{\"ok\": true, \"n\": 1}, {\"ok\": false, \"n\": 2}, {\"ok\": true, \"n\": 3}]\n",
    );
    for w in ["/ok==true", "/ok=true"] {
        let r = env.run(&["json", "select", "r.json", "", "--where", w]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(
            r.json["items"].as_array().map(Vec::len),
            Some(2),
            "{w}: {}",
            r.stdout
        );
    }
}

#[test]
fn git_show_of_a_commit_shows_the_commit() {
    let env = history();
    let r = env.run(&["git", "show", "HEAD~1"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["sha"], env.git(&["rev-parse", "HEAD~1"]).trim());
    assert_eq!(r.json["message"], "second: upper two");
    assert_eq!(r.json["files"][0]["path"], "a.py");
    assert_eq!(r.json["files"][0]["added"], 1);
    assert_eq!(r.json["files"][0]["deleted"], 1);
    let diff: Vec<&str> = r.json["diff"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let want = env.git(&["show", "--format=", "HEAD~1"]);
    assert_eq!(diff, want.lines().collect::<Vec<_>>());
    // Bounded, with a continuation that picks up where it stopped.
    let w = env.run(&["git", "show", "HEAD", "--max-lines", "3"]);
    assert_eq!(w.code, 3, "{}", w.stdout);
    assert_eq!(w.json["diff"].as_array().unwrap().len(), 3);
    let more = env.run_line(w.json["next_commands"][0].as_str().unwrap());
    assert_eq!(more.json["start_line"], 4, "{}", more.stdout);
    // A file named alone: the repair reads it at HEAD, and works.
    let f = env.run(&["git", "show", "a.py"]);
    let fix = env.run_line(f.json["error"]["repairs"][0]["command"].as_str().unwrap());
    assert_eq!(fix.code, 0, "{}", fix.stdout);
    assert_eq!(fix.json["lines"][3], "four");
}

#[test]
fn git_blame_gives_each_commit_once() {
    let env = history();
    let r = env.run(&["git", "blame", "a.py"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let commits = r.json["commits"].as_object().unwrap();
    assert_eq!(commits.len(), 3, "{}", r.stdout);
    let lines = r.json["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 4);
    let two = &commits[lines[1]["commit"].as_str().unwrap()];
    assert_eq!(two["summary"], "second: upper two");
    assert_eq!(two["sha"], env.git(&["rev-parse", "HEAD~1"]).trim());
    assert_eq!(two["author"], "Tester");
    assert!(lines.iter().all(|l| l.get("sha").is_none()));
    // A range names only the commits of its lines.
    let one = env.run(&["git", "blame", "a.py", "--range", "4"]);
    assert_eq!(one.json["commits"].as_object().unwrap().len(), 1);
}

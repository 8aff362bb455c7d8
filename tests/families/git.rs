//! `git status|diff|log|show|blame`, checked against git's own porcelain output.

use crate::support::{TestEnv, log_items, sha256sum};
use std::collections::BTreeSet;
use std::process::Command;

fn git(env: &TestEnv, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .args(["-c", "user.name=Tester", "-c", "user.email=t@example.com"])
        .args(["-c", "core.quotepath=false"])
        .args(args)
        .current_dir(env.root())
        .env("GIT_AUTHOR_DATE", "1796000000 +0130")
        .env("GIT_COMMITTER_DATE", "1796000000 +0130")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {:?}", out);
    out.stdout
}

fn git_text(env: &TestEnv, args: &[&str]) -> String {
    String::from_utf8(git(env, args)).unwrap()
}

/// A repository with history and every kind of change.
fn repo() -> TestEnv {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\nthree\n");
    env.write("b c.txt", "spaced\n");
    env.write("gone.txt", "bye\n");
    env.write("old.txt", "moved content\nline 2\nline 3\n");
    git(&env, &["add", "."]);
    git(&env, &["commit", "-qm", "first"]);
    env.write("a.txt", "one\n2\nthree\nfour\n");
    git(&env, &["commit", "-qam", "second: a"]);
    // Staged modify, then an unstaged change on top (MM).
    env.write("a.txt", "one\n2\nthree\nfour\nfive\n");
    git(&env, &["add", "a.txt"]);
    env.write("a.txt", "zero\none\n2\nthree\nfour\nfive\n");
    git(&env, &["mv", "old.txt", "new.txt"]);
    env.write("added.txt", "new file\n");
    git(&env, &["add", "added.txt"]);
    std::fs::remove_file(env.path("gone.txt")).unwrap();
    env.write("b c.txt", "spaced\nmore\n");
    env.write("untracked.txt", "u\n");
    env.write("newdir/x.txt", "x\n");
    env
}

#[test]
fn git_status_matches_porcelain() {
    let env = repo();
    let r = env.run(&["git", "status"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let raw = git_text(&env, &["status", "--porcelain", "-z"]);
    let mut staged = BTreeSet::new();
    let mut unstaged = BTreeSet::new();
    let mut untracked = BTreeSet::new();
    let mut recs = raw.split('\0').filter(|s| !s.is_empty());
    while let Some(rec) = recs.next() {
        let (xy, path) = rec.split_at(3);
        let (x, y) = (&xy[0..1], &xy[1..2]);
        if xy.starts_with("??") {
            untracked.insert(path.to_string());
            continue;
        }
        let from = if x == "R" || x == "C" {
            recs.next().map(str::to_string)
        } else {
            None
        };
        if x != " " {
            staged.insert((path.to_string(), x.to_string(), from));
        }
        if y != " " {
            unstaged.insert((path.to_string(), y.to_string()));
        }
    }
    let ours_staged: BTreeSet<_> = r.json["staged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_string(),
                e["status"].as_str().unwrap().to_string(),
                e["from"].as_str().map(str::to_string),
            )
        })
        .collect();
    let ours_unstaged: BTreeSet<_> = r.json["unstaged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_string(),
                e["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let ours_untracked: BTreeSet<_> = r.json["untracked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    assert_eq!(ours_staged, staged);
    assert_eq!(ours_unstaged, unstaged);
    assert_eq!(ours_untracked, untracked);
    assert!(
        staged
            .iter()
            .any(|(p, s, f)| p == "new.txt" && s == "R" && f.as_deref() == Some("old.txt"))
    );
    let branch = git_text(&env, &["branch", "--show-current"]);
    assert_eq!(r.json["branch"], branch.trim());
    // No upstream: upstream, ahead and behind are left out, not null.
    for k in ["upstream", "ahead", "behind"] {
        assert!(r.json.get(k).is_none(), "{k}: {}", r.stdout);
    }
}

#[test]
fn git_status_takes_no_index_lock_and_leaves_the_index_alone() {
    let env = repo();
    git(&env, &["add", "-A"]);
    // Same content, new mtime: a plain `git status` refreshes (rewrites) the index.
    let idx = env.path(".git/index");
    let before = std::fs::read(&idx).unwrap();
    let t = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(env.path("a.txt"))
        .unwrap()
        .set_modified(t)
        .unwrap();
    let r = env.run(&["git", "status"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        std::fs::read(&idx).unwrap(),
        before,
        "aitools rewrote the index"
    );
    // The oracle: git itself, without GIT_OPTIONAL_LOCKS=0, does rewrite it.
    git(&env, &["status", "--porcelain"]);
    assert_ne!(std::fs::read(&idx).unwrap(), before);
}

#[test]
fn git_diff_matches_numstat_and_patch() {
    let env = repo();
    for (ours, theirs) in [
        (vec!["git", "diff"], vec!["diff"]),
        (vec!["git", "diff", "--staged"], vec!["diff", "--cached"]),
        (
            vec!["git", "diff", "--ref", "HEAD~1..HEAD"],
            vec!["diff", "HEAD~1..HEAD"],
        ),
        (
            vec!["git", "diff", "--ref", "HEAD~1"],
            vec!["diff", "HEAD~1"],
        ),
    ] {
        let r = env.run(&ours);
        assert_eq!(r.code, 0, "{ours:?}: {}", r.stdout);
        let mut ns = theirs.clone();
        ns.extend(["-M", "--numstat"]);
        let numstat = git_text(&env, &ns);
        let files = r.json["files"].as_array().unwrap();
        assert_eq!(files.len(), numstat.lines().count(), "{ours:?}");
        // The mode and a shown file's counts are not said: the caller chose hunks,
        // and the hunks hold every added and deleted line (issue 32).
        assert!(r.json.get("mode").is_none(), "{}", r.stdout);
        let mut stat_call = ours.clone();
        stat_call.extend(["--output", "stat"]);
        let counted = env.run(&stat_call);
        for ((f, line), c) in files
            .iter()
            .zip(numstat.lines())
            .zip(counted.json["files"].as_array().unwrap())
        {
            let mut cols = line.split('\t');
            let (added, deleted) = (cols.next().unwrap(), cols.next().unwrap());
            assert_eq!(c["added"].to_string(), added, "{line}");
            assert_eq!(c["deleted"].to_string(), deleted, "{line}");
            assert!(
                f.get("added").is_none() && f.get("deleted").is_none(),
                "{f}"
            );
            let lines: Vec<String> = f["hunks"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|h| {
                    h.as_str()
                        .unwrap()
                        .lines()
                        .skip(1)
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                })
                .collect();
            let plus = lines.iter().filter(|l| l.starts_with('+')).count();
            let minus = lines.iter().filter(|l| l.starts_with('-')).count();
            assert_eq!(
                (plus.to_string(), minus.to_string()),
                (added.into(), deleted.into()),
                "{f}"
            );
            let path = cols.next().unwrap();
            // A rename's numstat path is "old => new".
            assert!(path.ends_with(f["path"].as_str().unwrap()), "{path} vs {f}");
        }
        let mut pt = theirs.clone();
        pt.push("-M");
        let patch = git_text(&env, &pt);
        let want: Vec<&str> = patch
            .lines()
            .filter(|l| {
                l.starts_with("@@")
                    || l.starts_with('+') && !l.starts_with("+++")
                    || l.starts_with('-') && !l.starts_with("---")
                    || l.starts_with(' ')
            })
            .collect();
        let got: Vec<String> = files
            .iter()
            .flat_map(|f| f["hunks"].as_array().cloned().unwrap_or_default())
            .flat_map(|h| {
                h.as_str()
                    .unwrap()
                    .split('\n')
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(got, want, "{ours:?}");
    }
    let stat = env.run(&["git", "diff", "--output", "stat"]);
    assert!(stat.json["files"][0].get("hunks").is_none());
    // A file's mode is the caller's (--output): not repeated (issue 32).
    assert!(stat.json.get("mode").is_none(), "{}", stat.stdout);
    assert!(
        stat.json["files"][0].get("mode").is_none(),
        "{}",
        stat.stdout
    );
    assert!(stat.json.get("total_files").is_none(), "{}", stat.stdout);
    assert!(stat.json.get("approx_tokens").is_none(), "{}", stat.stdout);
}

#[test]
fn git_diff_cuts_to_its_budget_with_a_continuation_per_file() {
    let env = TestEnv::new();
    for i in 0..4 {
        env.write(&format!("f{i}.txt"), "x\n".repeat(20));
    }
    git(&env, &["add", "."]);
    git(&env, &["commit", "-qm", "base"]);
    for i in 0..4 {
        env.write(&format!("f{i}.txt"), "y\n".repeat(20));
    }
    let r = env.run(&["git", "diff", "--max-lines", "45"]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["status"], "partial");
    let files = r.json["files"].as_array().unwrap();
    assert!(files[0].get("mode").is_none(), "{}", r.stdout);
    assert!(files[0]["hunks"].is_array(), "{}", r.stdout);
    assert!(files[1..].iter().all(|f| f["mode"] == "summary"));
    assert!(files[1..].iter().all(|f| f["added"] == 20));
    let next = r.json["next_commands"].as_array().unwrap();
    assert_eq!(next.len(), 3);
    let one = env.run_line(next[0].as_str().unwrap());
    assert_eq!(one.code, 0, "{}", one.stdout);
    assert_eq!(one.json["files"].as_array().unwrap().len(), 1);
    assert_eq!(one.json["files"][0]["path"], "f1.txt");
    assert!(one.json["files"][0]["hunks"].is_array(), "{}", one.stdout);
    // A list --limit stopped short says how many files changed.
    let short = env.run(&["git", "diff", "--output", "stat", "--limit", "1"]);
    assert_eq!(short.code, 3, "{}", short.stdout);
    assert_eq!(short.json["total_files"], 4, "{}", short.stdout);
}

#[test]
fn git_log_matches_git_log_and_pages() {
    let env = repo();
    git(&env, &["commit", "-qm", "third"]);
    // One array per commit, its values in the order `fields` names: git's short
    // sha and the date as YYYY-MM-DD (%h, %as), no member names repeated.
    let r = env.run(&["git", "log"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        r.json["fields"],
        serde_json::json!(["sha", "author", "date", "subject"])
    );
    let rows = |r: &crate::support::Run| -> Vec<String> {
        r.json["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let v: Vec<&str> = i
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                v.join("\t")
            })
            .collect()
    };
    let want = git_text(&env, &["log", "--format=%h%x09%an%x09%as%x09%s"]);
    assert_eq!(rows(&r), want.lines().collect::<Vec<_>>());
    assert_eq!(r.json["total"], 3);
    // --full: the 40-hex sha and the date with its time (%H, %aI).
    let full = env.run(&["git", "log", "--full"]);
    let want = git_text(&env, &["log", "--format=%H%x09%an%x09%aI%x09%s"]);
    assert_eq!(rows(&full), want.lines().collect::<Vec<_>>());
    // --fields in the caller's order, sha first when left out.
    let picked = env.run(&["git", "log", "--fields", "subject,date", "--limit", "1"]);
    assert_eq!(
        picked.json["fields"],
        serde_json::json!(["sha", "subject", "date"])
    );
    let want = git_text(&env, &["log", "-1", "--format=%h%x09%s%x09%as"]);
    assert_eq!(rows(&picked), want.lines().collect::<Vec<_>>());
    // A page the caller asked for is ok; `more` is the flag that continues it.
    let p = env.run(&["git", "log", "--limit", "2"]);
    assert_eq!(p.code, 0);
    assert_eq!(p.json["more"], "--skip 2", "{}", p.stdout);
    let rest = crate::support::run_more(&env, &["git", "log", "--limit", "2"], &p);
    assert_eq!(rest.code, 0);
    assert_eq!(log_items(&rest.json)[0]["subject"], "first");
    // Only commits touching a path, with the paths each changed.
    let a = env.run(&["git", "log", "a.txt", "--files"]);
    assert_eq!(
        a.json["fields"],
        serde_json::json!(["sha", "author", "date", "subject", "files"])
    );
    let want = git_text(&env, &["log", "--format=%s", "--", "a.txt"]);
    let items = log_items(&a.json);
    let subjects: Vec<&str> = items
        .iter()
        .map(|i| i["subject"].as_str().unwrap())
        .collect();
    assert_eq!(subjects, want.lines().collect::<Vec<_>>());
    assert_eq!(items[0]["files"][0], "a.txt");
    // An empty repository has no commits, not an error.
    let empty = TestEnv::new();
    let e = empty.run(&["git", "log"]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert_eq!(e.json["total"], 0);
}

/// A page that does not reach the end is answered by one `git log` walk: the
/// count of every commit (a walk of the whole history) is left out, members and
/// all (0.6.0 named it: `"total":null` and a `total_command`); `--total` counts
/// it, equal to `git rev-list --count`. `more` is the one "more follow" member.
#[test]
fn git_log_counts_the_history_only_when_asked() {
    let env = repo();
    git(&env, &["commit", "-qm", "third"]);
    git(&env, &["commit", "-qm", "fourth", "--allow-empty"]);
    let want: u64 = git_text(&env, &["rev-list", "--count", "HEAD"])
        .trim()
        .parse()
        .unwrap();
    let p = env.run(&["git", "log", "--limit", "2"]);
    assert_eq!(p.code, 0, "{}", p.stdout);
    assert!(p.json.get("total").is_none(), "{}", p.stdout);
    assert!(p.json.get("total_command").is_none(), "{}", p.stdout);
    let counted = env.run(&["git", "log", "--limit", "2", "--total"]);
    assert_eq!(counted.json["total"], want, "{}", counted.stdout);
    assert_eq!(counted.json["items"], p.json["items"]);
    assert_eq!(counted.json["more"], "--skip 2");
    // The last page reaches the end: its total is known without counting.
    let last = crate::support::run_more(&env, &["git", "log", "--limit", "2"], &p);
    assert_eq!(last.json["total"], want, "{}", last.stdout);
    assert!(last.json.get("more").is_none(), "{}", last.stdout);
}

#[test]
fn git_show_reads_a_blob_like_git_show() {
    let env = repo();
    let r = env.run(&["git", "show", "HEAD~1:a.txt"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let want = git(&env, &["show", "HEAD~1:a.txt"]);
    let text = String::from_utf8(want.clone()).unwrap();
    assert_eq!(
        r.json["lines"].as_array().unwrap().len(),
        text.lines().count()
    );
    let lines: Vec<&str> = r.json["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(lines, text.lines().collect::<Vec<_>>());
    std::fs::write(env.path("blob.out"), &want).unwrap();
    assert_eq!(r.json["hash"], sha256sum(&env.path("blob.out")));
    // A window, then its continuation.
    let w = env.run(&["git", "show", "HEAD~1:a.txt", "--max-lines", "1"]);
    assert_eq!(w.code, 3);
    assert_eq!(w.json["lines"][0], "one");
    let more = env.run_line(w.json["next_commands"][0].as_str().unwrap());
    assert_eq!(more.json["start_line"], 2);
    assert_eq!(more.json["lines"][0], "two");
    let m = env.run(&["git", "show", "HEAD:a.txt", "--match", "^f"]);
    assert_eq!(m.json["line_numbers"], serde_json::json!([4]));
    let missing = env.run(&["git", "show", "HEAD:nope.txt"]);
    assert_eq!(missing.error_code(), "input.not-found");
    // A path named alone is no commit; the repair reads it at HEAD.
    let bad = env.run(&["git", "show", "a.txt"]);
    assert_eq!(bad.error_code(), "input.not-found");
    let fixed = env.run_line(bad.json["error"]["repairs"][0]["command"].as_str().unwrap());
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
}

#[test]
fn git_blame_matches_git_blame() {
    let env = repo();
    git(&env, &["add", "-A"]);
    git(&env, &["commit", "-qm", "all"]);
    env.write("a.txt", "zero\nONE\n2\nthree\nfour\nfive\n");
    let r = env.run(&["git", "blame", "a.txt"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let want = git_text(&env, &["blame", "-l", "-s", "--", "a.txt"]);
    let want: Vec<(String, String)> = want
        .lines()
        .map(|l| {
            let sha = l[..40].trim_start_matches('^').to_string();
            let text = l.split_once(") ").unwrap().1.to_string();
            (sha, text)
        })
        .collect();
    let got: Vec<(String, String)> = r.json["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let key = l["commit"].as_str().unwrap();
            (
                r.json["commits"][key]["sha"].as_str().unwrap().to_string(),
                l["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // `git blame -l` writes a boundary commit's sha as ^ + 39 characters.
    for ((gs, gt), (ws, wt)) in got.iter().zip(&want) {
        assert!(gs.starts_with(ws.as_str()), "{gs} vs {ws}");
        assert_eq!(gt, wt);
    }
    assert_eq!(got.len(), want.len());
    assert_eq!(got[1].0, "0".repeat(40));
    let first = r.json["lines"][0]["commit"].as_str().unwrap();
    assert_eq!(
        r.json["commits"][first]["date"],
        "2026-11-30T02:23:20+01:30"
    );
    let w = env.run(&[
        "git",
        "blame",
        "a.txt",
        "--range",
        "2:5",
        "--max-lines",
        "2",
    ]);
    assert_eq!(w.code, 3);
    assert_eq!(w.json["lines"][0]["n"], 2);
    let more = env.run_line(w.json["next_commands"][0].as_str().unwrap());
    assert_eq!(more.code, 0);
    assert_eq!(more.json["lines"][0]["n"], 4);
    assert_eq!(more.json["lines"].as_array().unwrap().len(), 2);
}

#[test]
fn outside_a_repository_or_without_git_is_environment_unavailable() {
    let env = TestEnv::new();
    let outside = tempfile::tempdir().unwrap();
    let root = outside.path().to_str().unwrap();
    for cmd in [
        vec!["git", "status"],
        vec!["git", "diff"],
        vec!["git", "log"],
        vec!["git", "show", "HEAD:x"],
    ] {
        let mut argv = vec!["--root", root];
        argv.extend(&cmd);
        let r = env.run_in(outside.path(), &argv);
        assert_eq!(r.error_code(), "environment.unavailable", "{cmd:?}");
        assert!(
            r.json["error"]["repairs"][0]["command"]
                .as_str()
                .unwrap()
                .starts_with("aitools ")
        );
    }
    let empty = tempfile::tempdir().unwrap();
    let out = env
        .command(&["git", "status"])
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let r = crate::support::parse(out);
    assert_eq!(r.error_code(), "environment.unavailable");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not installed")
    );
}

#[test]
fn a_path_git_never_knew_is_not_found_a_deleted_one_is_not() {
    let env = repo();
    git(&env, &["commit", "-qam", "third"]);
    // gone.txt: deleted and committed; only history knows it.
    for argv in [
        vec!["git", "log", "gone.txt"],
        vec!["git", "status", "gone.txt"],
        vec!["git", "diff", "gone.txt"],
        vec!["git", "diff", "--ref", "HEAD~2", "gone.txt"],
    ] {
        let r = env.run(&argv);
        assert_eq!(r.code, 0, "{argv:?}: {}", r.stdout);
    }
    assert_eq!(
        env.run(&["git", "log", "gone.txt"]).json["total"],
        serde_json::json!(2)
    );
    // An untracked file and a glob matching tracked files are known too.
    env.write("fresh.txt", "f\n");
    assert_eq!(env.run(&["git", "log", "fresh.txt"]).code, 0);
    assert_eq!(env.run(&["git", "diff", "*.txt"]).code, 0);
    for argv in [
        vec!["git", "log", "typo.txt"],
        vec!["git", "status", "sub/typo.txt"],
        vec!["git", "diff", "typo.txt"],
        vec!["git", "diff", "*.nosuch"],
    ] {
        let r = env.run(&argv);
        assert_eq!(r.error_code(), "input.not-found", "{argv:?}: {}", r.stdout);
        let find = &r.json["error"]["repairs"][0]["command"];
        assert!(
            find.as_str().unwrap().starts_with("aitools find "),
            "{find}"
        );
        assert_eq!(env.run_line(find.as_str().unwrap()).code, 0, "{find}");
    }
}

#[test]
fn the_git_deadline_comes_from_aitools_git_timeout_ms() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("git");
    std::fs::write(&fake, "#!/bin/sh\nsleep 30\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let started = std::time::Instant::now();
    let out = env
        .command(&["git", "log"])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.path().display()))
        .env("AITOOLS_GIT_TIMEOUT_MS", "300")
        .output()
        .unwrap();
    let r = crate::support::parse(out);
    assert_eq!(r.error_code(), "environment.timeout", "{}", r.stdout);
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("0.3s")
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

/// A repository whose config files can define no filter driver (none holds
/// `filter` or `include`) is read with one git process, not two: no `git config
/// --list` first (was: every command listed the config); one that defines a
/// driver is still listed and the driver emptied by name.
#[test]
fn a_repository_without_filter_drivers_costs_one_git_process() {
    use std::os::unix::fs::PermissionsExt;
    let env = repo();
    let real = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(|d| std::path::Path::new(d).join("git"))
        .find(|p| p.is_file())
        .expect("git on PATH");
    // A logging git in `<prefix>/bin` (its system config would be `<prefix>/etc`).
    let prefix = tempfile::tempdir().unwrap();
    let log = prefix.path().join("calls.log");
    std::fs::create_dir(prefix.path().join("bin")).unwrap();
    let wrapper = prefix.path().join("bin/git");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real.display()
    );
    std::fs::write(&wrapper, script).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", prefix.path().join("bin").display());
    let status = |env: &TestEnv| {
        let _ = std::fs::remove_file(&log);
        let out = env
            .command(&["git", "status"])
            .env("PATH", &path)
            .output()
            .unwrap();
        let r = crate::support::parse(out);
        assert_eq!(r.json["status"], "ok", "{}", r.stdout);
        std::fs::read_to_string(&log).unwrap_or_default()
    };
    let calls = status(&env);
    assert_eq!(calls.lines().count(), 1, "{calls}");
    assert!(!calls.contains("config --list"), "{calls}");
    // A driver in the repository's config: listed, and emptied by name.
    let config = env.path(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[FILTER \"evil\"]\n\tclean = touch pwned\n");
    std::fs::write(&config, text).unwrap();
    let calls = status(&env);
    assert!(calls.contains("config --list"), "{calls}");
    assert!(calls.contains("filter.evil.clean="), "{calls}");
}

/// `git log -p` over one page of 5,000 commits feeds `git diff-tree --stdin`
/// 205 KB of ids while git answers 41 bytes a commit on its stdout: more than
/// the two pipes hold (64 KiB each), so the feeding must never wait for git to
/// read it (git, blocked on a full stdout nobody reads yet, would stop reading,
/// and the call would hang until its deadline). Every commit comes back, long
/// before the deadline.
#[test]
fn git_log_p_feeds_more_than_a_pipe_holds_without_waiting() {
    use std::io::Write;
    let env = TestEnv::new();
    let mut stream = String::new();
    for i in 0..5000 {
        let msg = format!("c{i}\n");
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter T <t@e> {} +0000\ndata {}\n{msg}",
            1_700_000_000 + i,
            msg.len()
        ));
        if i == 0 {
            stream.push_str("M 644 inline a.txt\ndata 2\na\n");
        }
    }
    let mut imp = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(env.root())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("git fast-import");
    imp.stdin
        .take()
        .expect("stdin")
        .write_all(stream.as_bytes())
        .expect("feed fast-import");
    assert!(imp.wait().expect("wait").success());
    env.git(&["symbolic-ref", "HEAD", "refs/heads/main"]);
    // Waited for with a limit: a feeding that waits hangs the call for good
    // (before its deadline starts), and the test must fail, not hang.
    let mut child = env
        .command(&["git", "log", "-p", "--limit", "5000"])
        .env("AITOOLS_GIT_TIMEOUT_MS", "20000")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn aitools");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut b);
        b
    });
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("try_wait") {
            break Some(st);
        }
        if started.elapsed() > std::time::Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let stdout = reader.join().expect("reader");
    let status = status.expect("git log -p over 5,000 commits did not end in 10 s");
    assert!(status.success(), "{}", String::from_utf8_lossy(&stdout));
    let r: serde_json::Value = serde_json::from_slice(&stdout).expect("one JSON envelope");
    let items = r["items"].as_array().expect("items");
    assert_eq!(items.len(), 5000);
    assert_eq!(items[0][3], "c4999");
}

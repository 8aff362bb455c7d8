//! The undo copies and the state directory, black-box: blobs are private copies
//! that a process still holding the old file cannot change, undo checks them,
//! bytes appended by another program during a write are never lost silently, and
//! the state directory stays within its budget (`gc`, and automatically).

use crate::support::TestEnv;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn blobs(env: &TestEnv) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(env.ws_state().join("blobs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    v.sort();
    v
}

fn wait_for(p: &Path) {
    let start = Instant::now();
    while !p.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{p:?} never came"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_process_holding_the_old_file_cannot_change_what_undo_restores() {
    let env = TestEnv::new();
    env.write("f.txt", "orig\n");
    env.write("twin.txt", "other\n");
    // A shell holds f.txt open for appending across the edit, then writes to it:
    // the bytes land in the old inode, which the undo copy must not be.
    let mut sh = Command::new("sh")
        .args([
            "-c",
            "exec 3>>f.txt; : > ready; while [ ! -e go ]; do sleep 0.01; done; echo INJECTED >&3",
        ])
        .current_dir(env.root())
        .spawn()
        .unwrap();
    wait_for(&env.path("ready"));
    let edit = env
        .run(&["edit", "f.txt", "--old", "orig", "--new", "new"])
        .op_id();
    env.write("go", "");
    assert!(sh.wait().unwrap().success());
    assert_eq!(env.read("f.txt"), b"new\n");
    // The undo copy is a private file of its own.
    for b in blobs(&env) {
        let m = std::fs::metadata(&b).unwrap();
        assert_eq!(m.nlink(), 1, "{b:?} shares its inode");
        assert_eq!(m.mode() & 0o777, 0o600, "{b:?}");
    }
    let dir = std::fs::metadata(env.ws_state().join("blobs")).unwrap();
    assert_eq!(dir.mode() & 0o777, 0o700);
    let u = env.run(&["undo", &edit]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert_eq!(env.read("f.txt"), b"orig\n");
    // Dedup: another file whose old content had the same hash gets the same bytes.
    env.run(&[
        "write",
        "twin.txt",
        "--overwrite",
        "--expect-hash",
        env.run(&["info", "twin.txt"]).json["hash"]
            .as_str()
            .unwrap(),
        "--content",
        "orig\n",
    ])
    .op_id();
    let w = env
        .run(&["edit", "twin.txt", "--old", "orig", "--new", "x"])
        .op_id();
    assert_eq!(env.run(&["undo", &w]).code, 0);
    assert_eq!(env.read("twin.txt"), b"orig\n");
}

#[test]
fn undo_refuses_a_blob_whose_bytes_no_longer_match_its_hash() {
    let env = TestEnv::new();
    env.write("a.txt", "before\n");
    let id = env
        .run(&["edit", "a.txt", "--old", "before", "--new", "after"])
        .op_id();
    let kept = blobs(&env);
    assert_eq!(kept.len(), 1);
    std::fs::write(&kept[0], "tampered\n").unwrap();
    let u = env.run(&["undo", &id]);
    assert_eq!(u.error_code(), "integrity.blob-corrupt", "{}", u.stderr);
    assert_eq!(u.code, 1);
    assert_eq!(env.read("a.txt"), b"after\n", "nothing was written");
    let repairs = u.json["error"]["repairs"].as_array().unwrap();
    assert!(
        repairs.iter().any(|r| r["command"]
            .as_str()
            .unwrap()
            .starts_with("aitools diff --op")),
        "{}",
        u.stderr
    );
}

/// Appends numbered lines to `path` (opened anew for each line, as `echo >>`
/// does) until `stop` exists; returns how many it wrote.
fn appender(path: PathBuf, stop: PathBuf) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        use std::io::Write;
        let mut n = 0;
        while !stop.exists() {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all(format!("appended {n}\n").as_bytes()).unwrap();
            drop(f);
            n += 1;
            std::thread::sleep(Duration::from_millis(3));
        }
        n
    })
}

#[test]
fn no_line_another_program_appends_during_edits_is_lost_silently() {
    let env = TestEnv::new();
    let body: String = (0..2000).map(|i| format!("row {i}\n")).collect();
    env.write("log.txt", format!("counter 0\n{body}"));
    let stop = env.path("stop");
    let handle = appender(env.path("log.txt"), stop.clone());
    let mut reported = String::new();
    let mut repairs: Vec<String> = Vec::new();
    let (mut done, mut refused) = (0, 0);
    while done < 200 {
        let r = env.run(&[
            "edit",
            "log.txt",
            "--old",
            &format!("counter {done}\n"),
            "--new",
            &format!("counter {}\n", done + 1),
        ]);
        match r.code {
            0 => {
                done += 1;
                for a in r.json["concurrent_appends"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    // A tail carried over to the new file is in it already.
                    if a["merged"] == true {
                        continue;
                    }
                    let cmd = a["command"].as_str().expect("a tail kept as a blob");
                    let blob = cmd.rsplit(' ').next().unwrap().trim_matches('\'');
                    reported.push_str(&String::from_utf8(std::fs::read(blob).unwrap()).unwrap());
                    assert!(
                        r.json["next_commands"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|c| c == cmd)
                    );
                    repairs.push(cmd.to_string());
                }
            }
            _ if r.error_code() == "refusal.target-changed" => refused += 1,
            _ => panic!("{}", r.stderr),
        }
    }
    std::fs::write(&stop, "").unwrap();
    let written = handle.join().unwrap();
    assert!(written > 50, "the appender wrote only {written} lines");
    let text = String::from_utf8(env.read("log.txt")).unwrap();
    let lost: Vec<usize> = (0..written)
        .filter(|n| {
            let line = format!("appended {n}\n");
            !text.contains(&line) && !reported.contains(&line)
        })
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {written} appended lines lost silently ({refused} edits refused): {:?}",
        lost.len(),
        &lost[..lost.len().min(20)]
    );
    // A reported tail's command appends it again (a few are enough to show it).
    for cmd in repairs.iter().take(3) {
        let blob = cmd.rsplit(' ').next().unwrap().trim_matches('\'');
        let tail = String::from_utf8(std::fs::read(blob).unwrap()).unwrap();
        let r = env.run_line(cmd);
        assert_eq!(r.code, 0, "{cmd}: {}", r.stderr);
        let text = String::from_utf8(env.read("log.txt")).unwrap();
        assert!(text.ends_with(&tail), "{cmd} did not append its tail");
    }
    eprintln!(
        "appender: {written} lines, {} edits refused, {} tails reported",
        refused,
        repairs.len()
    );
}

fn blob_bytes(env: &TestEnv) -> u64 {
    blobs(env)
        .iter()
        .map(|b| std::fs::metadata(b).unwrap().len())
        .sum()
}

#[test]
fn a_thousand_edits_stay_within_the_budget_and_the_newest_20_undo() {
    let env = TestEnv::new();
    // 128 KiB with a 4 MiB budget: the 1 MB / 32 MiB case of the issue, scaled
    // down 8x so 1,000 fsynced edits stay quick.
    let body: String = (0..2_000)
        .map(|i| format!("line {i:06} {}\n", "x".repeat(50)))
        .collect();
    env.write("big.txt", format!("counter 0\n{body}"));
    let budget: u64 = 4 << 20;
    let run = |args: &[&str], input: Option<&str>| {
        let mut c = env.command(args);
        c.env("AITOOLS_STATE_BUDGET", "4MiB");
        let out = match input {
            None => c.output().unwrap(),
            Some(text) => {
                use std::io::Write;
                let mut child = c
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(text.as_bytes())
                    .unwrap();
                child.wait_with_output().unwrap()
            }
        };
        crate::support::parse(out)
    };
    // In batches of 50 (one process each, every edit its own op), to keep it fast.
    let mut ops = Vec::new();
    let mut peak = 0;
    for chunk in 0..20 {
        let argvs: Vec<Vec<String>> = (chunk * 50..chunk * 50 + 50)
            .map(|i| {
                vec![
                    "edit".into(),
                    "big.txt".into(),
                    "--old".into(),
                    format!("counter {i}\n"),
                    "--new".into(),
                    format!("counter {}\n", i + 1),
                ]
            })
            .collect();
        let r = run(
            &["batch", "--stdin"],
            Some(&serde_json::to_string(&argvs).unwrap()),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        for e in r.json["results"].as_array().unwrap() {
            ops.push(e["op_id"].as_str().expect("op_id").to_string());
        }
        peak = peak.max(blob_bytes(&env));
    }
    assert_eq!(ops.len(), 1000);
    let total = blob_bytes(&env);
    assert!(
        total <= budget && peak <= budget + budget / 8,
        "blobs take {total} bytes (peak {peak}), budget {budget}"
    );
    // The newest 20 undo, newest first.
    for (k, id) in ops.iter().rev().take(20).enumerate() {
        let u = run(&["undo", id], None);
        assert_eq!(u.code, 0, "undo #{k} {id}: {}", u.stderr);
    }
    assert!(
        String::from_utf8(env.read("big.txt"))
            .unwrap()
            .starts_with("counter 980\n")
    );
    // The oldest was collected: a clear refusal with a repair.
    let old = run(&["undo", &ops[0]], None);
    assert_eq!(old.error_code(), "refusal.op-collected", "{}", old.stderr);
    assert!(
        old.json["error"]["repairs"][0]["command"]
            .as_str()
            .unwrap()
            .starts_with("aitools history")
    );
}

#[test]
fn gc_removes_what_nothing_names_and_keeps_open_transactions() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    // An aborted tx's staged blob goes with it.
    let t = env.run(&["tx", "begin"]);
    let tx = t.json["tx"].as_str().unwrap().to_string();
    let staged = "staged in an aborted tx\n";
    assert_eq!(
        env.run(&["write", "s.txt", "--content", staged, "--tx", &tx])
            .code,
        0
    );
    assert_eq!(env.run(&["tx", "abort", &tx]).code, 0);
    // Its staged blob was the tx's own: gone with it, never in the shared blobs/.
    assert!(
        blobs(&env)
            .iter()
            .all(|p| std::fs::read(p).unwrap() != staged.as_bytes())
    );
    // A blob nothing names (as a tx staged by an earlier version leaves behind).
    let orphan = env.ws_state().join("blobs").join(".orphan");
    std::fs::write(&orphan, staged).unwrap();
    std::fs::set_permissions(&orphan, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let h = crate::support::sha256sum(&orphan);
    std::fs::rename(&orphan, env.ws_state().join("blobs").join(h)).unwrap();
    // An open tx's staged blob stays.
    let t2 = env.run(&["tx", "begin"]);
    let tx2 = t2.json["tx"].as_str().unwrap().to_string();
    let open = "staged in an open tx\n";
    assert_eq!(
        env.run(&["write", "o.txt", "--content", open, "--tx", &tx2])
            .code,
        0
    );
    let e = env
        .run(&["edit", "a.txt", "--old", "one", "--new", "two"])
        .op_id();
    let n = blobs(&env).len();
    let dry = env.run(&["gc", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_eq!(dry.json["blobs_removed"], 1);
    assert_eq!(dry.json["dry_run"], true);
    assert_eq!(blobs(&env).len(), n, "--dry-run removed something");
    let g = env.run(&["gc"]);
    assert_eq!(g.code, 0, "{}", g.stderr);
    assert_eq!(g.json["blobs_removed"], 1);
    assert_eq!(g.json["ops_collected"], 0);
    assert_eq!(g.json["bytes_freed"], staged.len() as u64);
    assert_eq!(blobs(&env).len(), n - 1);
    // The open tx still commits; the edit still undoes.
    assert_eq!(env.run(&["tx", "commit", &tx2]).code, 0);
    assert_eq!(env.read("o.txt"), open.as_bytes());
    assert_eq!(env.run(&["undo", &e]).code, 0);
    assert_eq!(env.read("a.txt"), b"one\n");
    // Budget 0 collects nothing within the newest 20 per path.
    let z = env.run(&["gc", "--budget", "0"]);
    assert_eq!(z.json["ops_collected"], 0, "{}", z.stdout);
    let bad = env.run(&["gc", "--budget", "lots"]);
    assert_eq!(bad.error_code(), "argument.invalid");
}

#[test]
fn gc_collects_ops_beyond_the_newest_20_of_a_path_oldest_first() {
    let env = TestEnv::new();
    env.write("a.txt", "v0\n");
    env.write("other.txt", "o0\n");
    let first_other = env
        .run(&["edit", "other.txt", "--old", "o0", "--new", "o1"])
        .op_id();
    let mut ops = Vec::new();
    for i in 0..25 {
        ops.push(
            env.run(&[
                "edit",
                "a.txt",
                "--old",
                &format!("v{i}\n"),
                "--new",
                &format!("v{}\n", i + 1),
            ])
            .op_id(),
        );
    }
    let g = env.run(&["gc", "--budget", "0"]);
    assert_eq!(g.code, 0, "{}", g.stderr);
    assert_eq!(g.json["ops_collected"], 5, "{}", g.stdout);
    for id in &ops[..5] {
        assert_eq!(env.run(&["undo", id]).error_code(), "refusal.op-collected");
    }
    // Another path's only op is among its newest 20: kept, however old.
    assert_eq!(env.run(&["undo", &first_other]).code, 0);
    for id in ops[5..].iter().rev() {
        let u = env.run(&["undo", id]);
        assert_eq!(u.code, 0, "{}", u.stderr);
    }
    assert_eq!(env.read("a.txt"), b"v5\n");
}

//! Faults and attacks on the store, black-box: a committed write is never
//! reported as refused, a recovery step that cannot run never blocks reads, and a
//! state directory or intent record someone else could have planted is never
//! trusted.

use crate::support::TestEnv;

/// A write whose diff alone would pass the envelope cap is committed and journaled
/// before its answer is built: the answer is ok with its op_id, the diff is cut.
#[test]
fn edit_of_an_8mb_line_answers_ok_and_undoes() {
    let env = TestEnv::new();
    let mut big = vec![b'a'; 8 * 1024 * 1024];
    big.extend_from_slice(b"X\n");
    env.write("big.txt", &big);
    // An exact edit shows its diff only when asked.
    let r = env.run(&[
        "edit",
        "big.txt",
        "--old",
        "X",
        "--new",
        "Y",
        "--max-diff-lines",
        "10",
    ]);
    assert_eq!(
        r.code,
        0,
        "{}",
        r.stderr.chars().take(600).collect::<String>()
    );
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    assert_eq!(r.json["diff_truncated"], true);
    assert!(r.stdout.len() < 4 * 1024 * 1024, "{}", r.stdout.len());
    assert!(env.read("big.txt").ends_with(b"Y\n"));
    let u = env.run(&["undo", &op]);
    assert_eq!(
        u.code,
        0,
        "{}",
        u.stderr.chars().take(600).collect::<String>()
    );
    assert_eq!(env.read("big.txt"), big);
}

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's state directory (made by a first write).
fn state_dir(env: &TestEnv) -> PathBuf {
    if !env.state.path().join("aitools").is_dir() {
        let r = env.run(&["write", ".seed", "--content", "x"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(env.state.path().join("aitools"))
        .expect("state home")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("commit").is_dir())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.remove(0)
}

fn commit_dir(env: &TestEnv) -> PathBuf {
    state_dir(env).join("commit")
}

fn records(env: &TestEnv) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(commit_dir(env))
        .expect("commit/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Plants `commit/<op_id>.intent` with these steps: the first line as aitools
/// writes it, then `checksum` (None: the true one), with `mode`.
fn plant(env: &TestEnv, op_id: &str, steps: Value, checksum: Option<&str>, mode: u32) -> PathBuf {
    let first = json!({
        "op_id": op_id,
        "temps": [],
        "blob_tmps": [],
        "links": [],
        "steps": steps,
        "sync_dirs": [],
        "entry": {"seq": 99, "op_id": op_id, "time": "2026-12-01T00:00:00Z",
                  "command": "chmod", "argv": ["chmod"], "changes": []}
    })
    .to_string();
    let sum = checksum
        .map(str::to_string)
        .unwrap_or_else(|| hex(first.as_bytes()));
    let path = commit_dir(env).join(format!("{op_id}.intent"));
    std::fs::write(&path, format!("{first}\n{sum}\n")).expect("plant");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    path
}

fn mode_of(p: &Path) -> u32 {
    std::fs::metadata(p).expect("stat").mode() & 0o7777
}

fn pending_ids(r: &crate::support::Run) -> Vec<String> {
    r.json["pending_recovery"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|p| p["op_id"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// A record someone else could have planted is never run, never deleted, and is
/// reported; reads go on, writes refuse, and setting it aside clears the way.
#[test]
fn planted_intent_records_failing_a_check_are_not_run() {
    let env = TestEnv::new();
    env.write("in.txt", "inside\n");
    let outside = tempfile::tempdir().expect("tempdir");
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "keep\n").expect("victim");
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let inside = env.path("in.txt");
    std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let root = std::fs::canonicalize(env.root()).expect("root");
    let v = victim.to_string_lossy().to_string();
    // root/../<outside>/victim when both are in one temp directory.
    let real_outside = std::fs::canonicalize(outside.path()).expect("outside");
    let escape = match (root.parent(), real_outside.parent()) {
        (Some(a), Some(b)) if a == b => root
            .join("..")
            .join(real_outside.file_name().expect("name"))
            .join("victim"),
        _ => root
            .join("..")
            .join(real_outside.strip_prefix("/").expect("abs"))
            .join("victim"),
    };
    let inside_s = root.join("in.txt").to_string_lossy().to_string();
    let chmod = |p: &str| json!([{"op": "chmod", "path": p, "mode": 0o777}]);
    let mut planted = vec![
        // Every check passes but the path: an absolute path elsewhere.
        (
            "op-20260101T000000Z-0000000a",
            plant(&env, "op-20260101T000000Z-0000000a", chmod(&v), None, 0o600),
        ),
        // ../ out of the root.
        (
            "op-20260101T000000Z-0000000b",
            plant(
                &env,
                "op-20260101T000000Z-0000000b",
                chmod(&escape.to_string_lossy()),
                None,
                0o600,
            ),
        ),
        // Inside, but a mode others could have written it with.
        (
            "op-20260101T000000Z-0000000c",
            plant(
                &env,
                "op-20260101T000000Z-0000000c",
                chmod(&inside_s),
                None,
                0o644,
            ),
        ),
        // Inside, 0600, but its checksum line is not the checksum of its first line.
        (
            "op-20260101T000000Z-0000000d",
            plant(
                &env,
                "op-20260101T000000Z-0000000d",
                chmod(&inside_s),
                Some(&"0".repeat(64)),
                0o600,
            ),
        ),
        // A rename of an outside file onto a tree file.
        (
            "op-20260101T000000Z-0000000e",
            plant(
                &env,
                "op-20260101T000000Z-0000000e",
                json!([{"op": "rename", "tmp": v, "to": inside_s}]),
                None,
                0o600,
            ),
        ),
    ];
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        // Someone else's record (root can make one).
        let p = plant(
            &env,
            "op-20260101T000000Z-0000000f",
            chmod(&inside_s),
            None,
            0o600,
        );
        std::os::unix::fs::chown(&p, Some(65534), Some(65534)).expect("chown");
        planted.push(("op-20260101T000000Z-0000000f", p));
    } else {
        println!("not root: the other-owner record is not tried");
    }
    let ids: Vec<String> = planted.iter().map(|(id, _)| id.to_string()).collect();

    let r = env.run(&["read", "in.txt"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.lines(), vec!["inside"]);
    assert_eq!(pending_ids(&r), ids, "{}", r.stdout);
    for p in r.json["pending_recovery"].as_array().unwrap() {
        assert!(p["error"].as_str().unwrap().contains("not trusted"), "{p}");
        assert!(
            p["repairs"][0]["command"]
                .as_str()
                .unwrap()
                .contains("--set-aside"),
            "{p}"
        );
    }
    let h = env.run(&["history"]);
    assert_eq!(h.code, 0, "{}", h.stderr);
    assert_eq!(pending_ids(&h), ids);
    assert_eq!(mode_of(&victim), 0o644, "the outside file was chmodded");
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep\n");
    assert_eq!(mode_of(&inside), 0o644, "the tree file was chmodded");
    assert_eq!(env.read("in.txt"), b"inside\n");
    for (_, p) in &planted {
        assert!(p.exists(), "{} was deleted", p.display());
    }

    let w = env.run(&["write", "new.txt", "--content", "x"]);
    assert_eq!(
        w.error_code(),
        "environment.recovery-pending",
        "{}",
        w.stderr
    );
    assert!(!env.path("new.txt").exists());

    // Each repair sets its record aside; then writes run again.
    for id in &ids {
        let r = env.run_line(&format!("aitools recover --set-aside {id}"));
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.json["set_aside"]["op_id"], id.as_str());
        assert!(
            state_dir(&env)
                .join("set-aside")
                .join(id)
                .join(format!("{id}.intent"))
                .exists()
        );
    }
    assert!(records(&env).is_empty(), "{:?}", records(&env));
    assert_eq!(mode_of(&victim), 0o644);
    assert_eq!(mode_of(&inside), 0o644);
    let h = env.run(&["history"]);
    let commands: Vec<&str> = h.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["command"].as_str().unwrap())
        .collect();
    assert!(
        commands
            .iter()
            .any(|c| *c == format!("recover --set-aside {}", ids[0])),
        "{commands:?}"
    );
    let w = env.run(&["write", "new.txt", "--content", "x"]);
    assert_eq!(w.code, 0, "{}", w.stderr);
}

/// A state home others can write is refused, with the fix in the repair.
#[test]
fn a_state_home_others_can_write_is_refused() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    std::fs::set_permissions(env.state.path(), std::fs::Permissions::from_mode(0o777))
        .expect("chmod");
    for args in [
        &["read", "a.txt"][..],
        &["write", "b.txt", "--content", "b"][..],
    ] {
        let r = env.run(args);
        assert_eq!(
            r.error_code(),
            "environment.state-untrusted",
            "{}",
            r.stderr
        );
        let detail = r.json["error"]["repairs"][0]["detail"].as_str().unwrap();
        assert!(
            detail.contains("chmod 700") && detail.contains("XDG_STATE_HOME"),
            "{detail}"
        );
    }
    assert!(!env.path("b.txt").exists());
    std::fs::set_permissions(env.state.path(), std::fs::Permissions::from_mode(0o700))
        .expect("chmod");
    assert_eq!(env.run(&["read", "a.txt"]).code, 0);
    // A state directory below it, too.
    let commit = commit_dir(&env);
    std::fs::set_permissions(&commit, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let r = env.run(&["read", "a.txt"]);
    assert_eq!(
        r.error_code(),
        "environment.state-untrusted",
        "{}",
        r.stderr
    );
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("commit")
    );
    std::fs::set_permissions(&commit, std::fs::Permissions::from_mode(0o700)).expect("chmod");
}

/// With neither HOME nor XDG_STATE_HOME there is no shared fallback (/tmp).
#[test]
fn no_home_and_no_xdg_state_home_is_refused() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    for args in [
        &["read", "a.txt"][..],
        &["write", "b.txt", "--content", "b"][..],
    ] {
        let out = env
            .command(args)
            .env_remove("HOME")
            .env_remove("XDG_STATE_HOME")
            .output()
            .expect("spawn");
        let r = crate::support::parse(out);
        assert_eq!(
            r.error_code(),
            "environment.state-untrusted",
            "{}",
            r.stdout
        );
        let detail = r.json["error"]["repairs"][0]["detail"].as_str().unwrap();
        assert!(detail.contains("XDG_STATE_HOME"), "{detail}");
    }
    assert!(!env.path("b.txt").exists());
}

/// Undoes what a fault test did to the tree, even when the test fails.
struct Restore(Vec<Vec<String>>);

impl Drop for Restore {
    fn drop(&mut self) {
        for c in &self.0 {
            let _ = Command::new(&c[0]).args(&c[1..]).status();
        }
    }
}

fn run_ok(cmd: &[&str]) -> bool {
    Command::new(cmd[0])
        .args(&cmd[1..])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether this process can make `dir` refuse changes to its entries even to
/// itself (root ignores 0555): `chattr +i`, where the file system has it.
fn make_immutable(dir: &Path) -> Option<Restore> {
    let d = dir.to_string_lossy().to_string();
    if !run_ok(&["chattr", "+i", &d]) {
        return None;
    }
    let probe = dir.join(".probe");
    if std::fs::write(&probe, "x").is_ok() {
        let _ = std::fs::remove_file(&probe);
        run_ok(&["chattr", "-i", &d]);
        return None;
    }
    Some(Restore(vec![vec!["chattr".into(), "-i".into(), d]]))
}

/// A committed record whose first step runs and whose second cannot: a tx that
/// deletes `del` and edits `c.txt` (`old` to `new`), committed while `c.txt` is
/// immutable (a step refused before the tree changed leaves no record, so the
/// refusal must come after one that changed it). `None` where chattr is missing.
fn stuck_tx(
    env: &TestEnv,
    del: &str,
    old: &str,
    new: &str,
) -> Option<(crate::support::Run, Restore)> {
    let tx = env.tx_begin();
    let e = env.run(&["edit", "c.txt", "--old", old, "--new", new, "--tx", &tx]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert_eq!(env.run(&["delete", del, "--tx", &tx]).code, 0);
    let c = env.path("c.txt").to_string_lossy().to_string();
    if !run_ok(&["chattr", "+i", &c]) {
        return None;
    }
    let r = env.run(&["tx", "commit", &tx]);
    Some((r, Restore(vec![vec!["chattr".into(), "-i".into(), c]])))
}

/// A tx whose second step the tree refuses: the committed record stays pending.
/// Reads and history run and report it, writes refuse with repairs that work:
/// `recover` once the cause is gone, or `recover --set-aside`.
#[test]
fn a_step_that_cannot_run_never_blocks_reads() {
    let env = TestEnv::new();
    env.write("d/a", "a\n");
    env.write("d/b", "b\n");
    env.write("c.txt", "c\n");
    let Some((del, guard)) = stuck_tx(&env, "d/a", "c", "C") else {
        println!("skipped: chattr +i is not available here, so no file refuses root");
        return;
    };
    assert_eq!(
        del.error_code(),
        "environment.recovery-pending",
        "{}",
        del.stderr
    );
    let op = records(&env)[0].trim_end_matches(".intent").to_string();
    for args in [&["read", "c.txt"][..], &["history"][..], &["find", "d"][..]] {
        let r = env.run(args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert_eq!(pending_ids(&r), vec![op.clone()], "{}", r.stdout);
        let repairs: Vec<&str> = r.json["pending_recovery"][0]["repairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["command"].as_str().unwrap())
            .collect();
        assert_eq!(
            repairs,
            vec![
                "aitools recover".to_string(),
                format!("aitools recover --set-aside {op}")
            ]
        );
    }
    // Writes to the paths the record names wait for it; writes elsewhere go on.
    for args in [
        &["edit", "c.txt", "--old", "c", "--new", "z"][..],
        &["write", "d/a", "--content", "x"][..],
        &["move", "c.txt", "e.txt"][..],
    ] {
        let w = env.run(args);
        assert_eq!(
            w.error_code(),
            "environment.recovery-pending",
            "{args:?}: {}",
            w.stdout
        );
        assert_eq!(w.json["error"]["repairs"][0]["command"], "aitools recover");
    }
    let w = env.run(&["write", "new.txt", "--content", "x"]);
    assert_eq!(w.code, 0, "a write elsewhere is not blocked: {}", w.stderr);
    let elsewhere = w.json["op_id"].as_str().expect("op_id").to_string();
    // The retry fails the same way while the cause is there...
    let again = env.run_line("aitools recover");
    assert_eq!(again.error_code(), "environment.recovery-pending");
    // ...and finishes the delete once it is gone.
    drop(guard);
    let fixed = env.run_line("aitools recover");
    assert_eq!(fixed.code, 0, "{}", fixed.stderr);
    assert_eq!(fixed.json["recovered"][0]["op_id"], op.as_str());
    assert!(!env.path("d/a").exists());
    assert_eq!(env.read("c.txt"), b"C\n");
    let h = env.run(&["history"]);
    // history shows it as answers do: `op-<8 hex>`, the record's id's end.
    assert_eq!(h.json["items"][0]["op_id"], format!("op-{}", &op[20..]));
    assert!(h.json.get("pending_recovery").is_none());
    // Its journal line came after the writes that went ahead, numbered after them.
    let journal = std::fs::read_to_string(state_dir(&env).join("journal").join("journal.jsonl"))
        .expect("journal");
    let seqs: Vec<u64> = journal
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).expect("line")["seq"]
                .as_u64()
                .expect("seq")
        })
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let late = format!("op-{}", &op[20..]);

    // Set aside instead: the file not reached stays, the record and its blob are kept.
    let b_hash = crate::support::sha256sum(&env.path("d/b"));
    let (del, guard) = stuck_tx(&env, "d/b", "C", "c2").expect("chattr worked a moment ago");
    assert_eq!(del.error_code(), "environment.recovery-pending");
    let op = records(&env)[0].trim_end_matches(".intent").to_string();
    let set = del.json["error"]["repairs"][1]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let r = env.run_line(&set);
    assert_eq!(r.code, 0, "{}", r.stderr);
    drop(guard);
    assert_eq!(env.read("c.txt"), b"C\n");
    let kept = state_dir(&env).join("set-aside").join(&op);
    assert!(kept.join(format!("{op}.intent")).exists());
    let blob = kept.join("blobs").join(b_hash);
    assert_eq!(std::fs::read(blob).expect("the blob is kept"), b"b\n");
    let h = env.run(&["history"]);
    assert_eq!(
        h.json["items"][0]["command"],
        format!("recover --set-aside {op}")
    );
    let w = env.run(&["write", "new2.txt", "--content", "x"]);
    assert_eq!(w.code, 0, "{}", w.stderr);
    // The op finished late undoes like any other (c.txt and d/a come back).
    let u = env.run(&["undo", &late]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert_eq!(env.read("c.txt"), b"c\n");
    assert_eq!(env.read("d/a"), b"a\n");
    let u = env.run(&["undo", &elsewhere]);
    assert_eq!(u.code, 0, "{}", u.stderr);
}

/// `recover --set-aside` keeps the blobs a record names by copying them: a blob
/// already in the store keeps one name (a hard link into `set-aside/` gave it
/// two, and the next op needing it stored it again), and undo still restores it.
#[test]
fn a_set_aside_copies_the_blobs_it_keeps() {
    let env = TestEnv::new();
    env.write("d/a", "same\n");
    env.write("d/b", "same\n");
    env.write("c.txt", "c\n");
    // The before-image of d/a ("same\n") becomes a published blob.
    let first = env.run(&["edit", "d/a", "--old", "same", "--new", "other"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let hash = crate::support::sha256sum(&env.path("d/b"));
    let blob = state_dir(&env).join("blobs").join(&hash);
    assert_eq!(std::fs::metadata(&blob).expect("blob").nlink(), 1);
    // Its second step cannot run: pending, with the same blob named by its entry.
    let Some((del, guard)) = stuck_tx(&env, "d/b", "c", "C") else {
        println!("skipped: chattr +i is not available here, so no file refuses root");
        return;
    };
    assert_eq!(
        del.error_code(),
        "environment.recovery-pending",
        "{}",
        del.stderr
    );
    let op = records(&env)[0].trim_end_matches(".intent").to_string();
    let r = env.run_line(&format!("aitools recover --set-aside {op}"));
    drop(guard);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let kept = state_dir(&env)
        .join("set-aside")
        .join(&op)
        .join("blobs")
        .join(&hash);
    assert_eq!(std::fs::read(&kept).expect("kept"), b"same\n");
    let (bm, km) = (
        std::fs::metadata(&blob).unwrap(),
        std::fs::metadata(&kept).unwrap(),
    );
    assert_eq!((bm.nlink(), km.nlink()), (1, 1));
    assert_ne!(bm.ino(), km.ino());
    let u = env.run(&["undo", first.op_id().as_str()]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert_eq!(env.read("d/a"), b"same\n");
}

/// A write that fails before its commit point (a read-only mount refuses its temp
/// file) leaves no record: the next command runs with nothing pending.
#[test]
fn a_failure_before_the_commit_point_leaves_no_record() {
    let env = TestEnv::new();
    env.write("d/a", "a\n");
    env.write("c.txt", "c\n");
    state_dir(&env);
    let d = env.path("d").to_string_lossy().to_string();
    let guard = if run_ok(&["mount", "--bind", "-o", "ro", &d, &d]) {
        Restore(vec![vec!["umount".into(), d.clone()]])
    } else if let Some(g) = make_immutable(&env.path("d")) {
        println!("no read-only bind mount here: using chattr +i");
        g
    } else {
        println!("skipped: neither a read-only bind mount nor chattr +i is available");
        return;
    };
    let w = env.run(&["write", "d/new", "--content", "x"]);
    assert_eq!(w.error_code(), "environment.io", "{}", w.stderr);
    assert!(records(&env).is_empty(), "{:?}", records(&env));
    let r = env.run(&["read", "c.txt"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.json.get("pending_recovery").is_none(), "{}", r.stdout);
    drop(guard);
    let w = env.run(&["write", "d/new", "--content", "x"]);
    assert_eq!(w.code, 0, "{}", w.stderr);
}

/// The issue's own case, `delete` in a 0555 directory, run as a user 0555 stops:
/// root (which these tests run as) drops to nobody with setpriv.
#[test]
fn delete_in_a_0555_directory_leaves_reads_working() {
    let env = TestEnv::new();
    env.write("d/a", "a\n");
    env.write("c.txt", "c\n");
    if !env.hand_to_nobody() {
        println!("skipped: dropping to another uid needs root and setpriv");
        return;
    }
    std::fs::set_permissions(env.path("d"), std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let as_nobody = |args: &[&str]| env.run_as_nobody(args);
    // Refused before the tree changed: undone, nothing pending, the fix named.
    let del = as_nobody(&["delete", "d/a"]);
    assert_eq!(del.error_code(), "environment.io", "{}", del.stdout);
    let fix = del.json["error"]["repairs"][0]["detail"].as_str().unwrap();
    assert!(fix.contains("chmod u+w d"), "{fix}");
    assert!(env.path("d/a").exists());
    for args in [&["read", "c.txt"][..], &["history"][..]] {
        let r = as_nobody(args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(r.json.get("pending_recovery").is_none(), "{}", r.stdout);
    }
    assert_eq!(as_nobody(&["write", "n.txt", "--content", "x"]).code, 0);
    std::fs::set_permissions(env.path("d"), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let fixed = as_nobody(&["delete", "d/a"]);
    assert_eq!(fixed.code, 0, "{}", fixed.stderr);
    assert!(!env.path("d/a").exists());
}

/// What strace saw of an apply: its sync calls and the temp files it created,
/// in order.
struct Traced {
    lines: Vec<String>,
}

impl Traced {
    fn count(&self, name: &str) -> usize {
        self.lines.iter().filter(|l| l.starts_with(name)).count()
    }
    /// (syncfs, fsync + fdatasync).
    fn syncs(&self) -> (usize, usize) {
        (
            self.count("syncfs("),
            self.count("fsync(") + self.count("fdatasync("),
        )
    }
}

fn apply_file(i: usize) -> String {
    format!("d{}/f{i}.txt", i % 2)
}

/// A write over `n` files under strace (`AITOOLS_SYNCFS_DIRTY_MAX=dirty_max`):
/// every file is written as the patch says; what strace saw.
fn apply_traced(env: &TestEnv, n: usize, dirty_max: &str) -> Traced {
    let mut diff = String::new();
    for i in 0..n {
        let f = apply_file(i);
        env.write(&f, format!("file {i}\nline two\n"));
        diff.push_str(&format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1,2 +1,2 @@\n file {i}\n-line two\n+line 2 of {i}\n"
        ));
    }
    env.run(&["write", "seed.txt", "--content", "x\n"]);
    let log = env.root().join("..").join(format!(
        "syncs-{}.log",
        env.root()
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ));
    let mut c = std::process::Command::new("strace");
    c.args([
        "-f",
        "-qq",
        "-e",
        "trace=fsync,fdatasync,syncfs,openat",
        "-o",
    ])
    .arg(&log)
    .arg(crate::support::bin())
    .args(["apply", "--stdin", "--strip", "1"]);
    let mut c = env.isolate(c);
    c.env("AITOOLS_SYNCFS_DIRTY_MAX", dirty_max)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = c.spawn().expect("strace (apt-get install strace)");
    {
        use std::io::Write;
        let mut si = child.stdin.take().expect("stdin");
        si.write_all(diff.as_bytes()).expect("feed the patch");
    }
    let out = child.wait_with_output().expect("strace");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    for i in 0..n {
        assert_eq!(
            env.read(&apply_file(i)),
            format!("file {i}\nline 2 of {i}\n").as_bytes()
        );
    }
    let text = std::fs::read_to_string(&log).expect("strace log");
    let _ = std::fs::remove_file(&log);
    Traced {
        lines: text
            .lines()
            .filter_map(|l| l.split_once(' ').map(|(_, call)| call.trim().to_string()))
            .collect(),
    }
}

/// The syncs of a write over 8 files, under strace: (syncfs, fsync + fdatasync).
fn syncs_of_an_apply(dirty_max: &str) -> (usize, usize) {
    apply_traced(&TestEnv::new(), 8, dirty_max).syncs()
}

/// A write over many files makes them durable with one syncfs while the system
/// holds few dirty pages, and with an fsync of each file when it holds more than
/// the limit (a syncfs would also wait for other programs' pages).
#[test]
fn many_files_sync_by_syncfs_unless_the_system_holds_many_dirty_pages() {
    let (syncfs, each) = syncs_of_an_apply("18446744073709551615");
    assert!(syncfs >= 1, "syncfs {syncfs}, fsyncs {each}");
    let (syncfs, each) = syncs_of_an_apply("0");
    assert_eq!(syncfs, 0, "fsyncs {each}");
    assert!(each >= 8, "one fsync per file at least: {each}");
}

/// More files than the fsync window holds open (64) while the system holds many
/// dirty pages (`AITOOLS_SYNCFS_DIRTY_MAX=0`): no syncfs, an fsync of every
/// file, some of them while the temp files are still being made (the window
/// filled and synced its oldest), every file written, and the op undoes.
#[test]
fn a_write_over_more_files_than_the_fsync_window_syncs_each_and_undoes() {
    let env = TestEnv::new();
    let n = 70;
    let t = apply_traced(&env, n, "0");
    let (syncfs, each) = t.syncs();
    assert_eq!(syncfs, 0, "fsyncs {each}");
    assert!(each >= n, "one fsync per file at least: {each}");
    // The window keeps 64 files open: from the 65th temp file on, each one
    // handed over once written fsyncs the oldest, so n - 64 fsyncs come before
    // the sync at the end, all but the last of them between the first and the
    // last temp file made (with no window, none).
    let temp_made = |l: &String| l.starts_with("openat(") && l.contains(".aitools-op-");
    let first_temp = t.lines.iter().position(temp_made).expect("temp files");
    let last_temp = t.lines.iter().rposition(temp_made).expect("temp files");
    assert_eq!(
        t.lines.iter().filter(|l| temp_made(l)).count(),
        n,
        "one temp file per file: {:?}",
        t.lines
    );
    let within = t.lines[first_temp..last_temp]
        .iter()
        .filter(|l| l.starts_with("fsync(") || l.starts_with("fdatasync("))
        .count();
    assert!(
        within >= n - 65,
        "the window never filled: {within} fsyncs while the temp files were made"
    );
    let op = env.run(&["history"]).json["items"][0]["op_id"]
        .as_str()
        .expect("the apply is journaled")
        .to_string();
    let undo = env.run(&["undo", &op]);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    for i in 0..n {
        assert_eq!(
            env.read(&apply_file(i)),
            format!("file {i}\nline two\n").as_bytes()
        );
    }
}

/// A write refused while its new file is made, before the commit point (a
/// file created or replaced in a directory that refuses new entries), names
/// the directory and how to fix it, leaves no record, and blocks nothing (was:
/// "the write (nothing was changed)" and a repair pointing at the state
/// directory).
#[test]
fn a_refused_new_file_names_its_directory_and_leaves_nothing() {
    let env = TestEnv::new();
    env.write("d/a", "a\n");
    let Some(guard) = make_immutable(&env.path("d")) else {
        println!("skipped: chattr +i is not available here, so no directory refuses root");
        return;
    };
    for args in [
        &["write", "d/new", "--content", "x"][..],
        &["edit", "d/a", "--old", "a", "--new", "A"][..],
    ] {
        let r = env.run(args);
        assert_eq!(r.error_code(), "environment.io", "{args:?}: {}", r.stdout);
        let msg = r.json["error"]["message"].as_str().unwrap_or("");
        assert!(msg.contains(" d is immutable"), "{msg}");
        assert!(msg.contains("nothing stays pending"), "{msg}");
        let fix = &r.json["error"]["repairs"][0];
        assert!(
            fix["detail"].as_str().unwrap_or("").contains("chattr -i"),
            "{}",
            r.stdout
        );
        assert!(records(&env).is_empty(), "{:?}", records(&env));
    }
    let w = env.run(&["write", "elsewhere.txt", "--content", "x"]);
    assert_eq!(w.code, 0, "{}", w.stdout);
    // Once fixed, the repair's command works.
    drop(guard);
    let r = env.run_line("aitools edit d/a --old a --new A");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(env.read("d/a"), b"A\n");
}

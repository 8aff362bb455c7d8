//! Adversarial black-box tests of the state directory (packs, loose blobs,
//! intent records, the journal and its id index, the usage counter): what a
//! flaky disk, a stray tool or a hostile user leaves there must give one
//! envelope within a bounded time (never a hang holding the workspace lock),
//! and never change a workspace file.

use crate::support::{self, Run, TestEnv};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `aitools args` and fails the test when it has not answered within
/// `secs` (the child is killed first): a command must never block.
pub fn run_bounded(env: &TestEnv, args: &[&str], secs: u64) -> Run {
    let mut child = env
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn aitools");
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if child.try_wait().expect("wait").is_some() {
            return support::parse(child.wait_with_output().expect("output"));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("aitools {args:?} did not answer within {secs} s (blocked)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    let ok = Command::new("mkfifo")
        .args(["-m", "600"])
        .arg(p)
        .status()
        .expect("mkfifo")
        .success();
    assert!(ok, "mkfifo {}", p.display());
}

const FILES: [&str; 3] = ["a.txt", "d/b.txt", "d/c.txt"];

fn before(i: usize) -> String {
    format!("file {i}\nline two\nline three\n")
}

/// Three files and one packed apply over them (each file has a second name, so
/// its before-image goes into the pack rather than being linked); its op id.
fn packed_op(env: &TestEnv) -> String {
    let mut diff = String::new();
    for (i, f) in FILES.iter().enumerate() {
        env.write(f, before(i));
        diff.push_str(&format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1,3 +1,3 @@\n file {i}\n-line two\n+line 2 of {i}\n line three\n"
        ));
    }
    env.pin_second_names(&FILES);
    env.run_stdin(&["apply", "--stdin", "--strip", "1"], diff.as_bytes())
        .op_id()
}

fn workspace(env: &TestEnv) -> Vec<Vec<u8>> {
    FILES.iter().map(|f| env.read(f)).collect()
}

/// A FIFO where the store keeps a regular file (a pack, a loose blob, an
/// intent record): `undo`, `diff --op`, `history`, `gc` and a new write each
/// answer one envelope in bounded time, and no workspace file changes unless
/// the command said ok.
#[test]
fn a_fifo_in_the_state_directory_never_blocks_a_command() {
    for place in [
        "pack",
        "loose blob",
        "intent record",
        "journal",
        "journal id index",
        "usage counter",
    ] {
        let env = TestEnv::new();
        let mut op = packed_op(&env);
        let state = env.ws_state();
        match place {
            "pack" => {
                let dir = state.join("blobs").join("packs");
                let name = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap();
                mkfifo(&name.path());
            }
            "loose blob" => {
                // A one-file op keeps its before-image loose.
                op = env
                    .run(&["edit", "a.txt", "--old", "file 0", "--new", "FILE 0"])
                    .op_id();
                let blob = std::fs::read_dir(state.join("blobs"))
                    .unwrap()
                    .flatten()
                    .find(|e| e.path().is_file())
                    .expect("a loose blob");
                mkfifo(&blob.path());
            }
            "intent record" => {
                let name = "op-20261201T000000Z-0badf1f0.intent";
                mkfifo(&state.join("commit").join(name));
            }
            "journal" => mkfifo(&state.join("journal").join("journal.jsonl")),
            "journal id index" => {
                let ids = state.join("journal").join("ids");
                let name = std::fs::read_dir(&ids).unwrap().next().unwrap().unwrap();
                mkfifo(&name.path());
            }
            _ => mkfifo(&state.join("usage")),
        }
        let calls: [&[&str]; 5] = [
            &["undo", &op],
            &["diff", "--op", &op],
            &["history"],
            &["gc"],
            &["edit", "d/c.txt", "--old", "three", "--new", "3"],
        ];
        for args in calls {
            let was = workspace(&env);
            let r = run_bounded(&env, args, 20);
            eprintln!("{place}: {args:?}: {}{}", r.stdout, r.stderr);
            if r.code != 0 {
                assert_eq!(workspace(&env), was, "{place}: {args:?} failed and wrote");
            } else if place == "loose blob" && args[0] == "diff" {
                // The before-image cannot be read: never shown as empty.
                assert!(!r.stdout.contains("@@ -0,0 "), "{place}: {}", r.stdout);
            } else if place == "journal" && args[0] != "history" {
                panic!(
                    "{place}: {args:?} answered ok with no journal to record it: {}",
                    r.stdout
                );
            }
        }
    }
}

/// Rewrites the journal's only entry with `edit` applied to its JSON (its id
/// index made to match), as a hostile or buggy writer of the state could.
fn lie_in_journal(env: &TestEnv, edit: impl Fn(&mut serde_json::Value)) {
    let journal = env.ws_state().join("journal");
    let text = std::fs::read_to_string(journal.join("journal.jsonl")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(text.trim_end()).unwrap();
    edit(&mut v);
    let line = format!("{v}\n");
    std::fs::write(journal.join("journal.jsonl"), &line).unwrap();
    let ids = journal.join("ids");
    if let Some(e) = std::fs::read_dir(&ids).ok().and_then(|mut r| r.next()) {
        std::fs::write(e.unwrap().path(), format!("0 0 {}\n", line.len())).unwrap();
    }
}

/// A journal entry that is valid JSON but lies about its paths (outside the
/// root, through a symlink out of it, inside `.git`): `undo` refuses and no
/// byte is written anywhere, inside the workspace or out.
#[test]
fn undo_of_a_journal_entry_that_lies_about_its_paths_writes_nothing() {
    for (i, lie) in [
        "../victim.txt",
        "ABS",
        "out/victim.txt",
        ".git/hooks/pre-commit",
    ]
    .into_iter()
    .enumerate()
    {
        let env = TestEnv::new();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim.txt");
        std::fs::write(&victim, "victim\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), env.path("out")).unwrap();
        let op = packed_op(&env);
        let path = match lie {
            "ABS" => victim.display().to_string(),
            "../victim.txt" => {
                // The workspace's parent: the victim next to it.
                let v = env.root().parent().unwrap().join(format!("victim-{i}.txt"));
                std::fs::write(&v, "victim\n").unwrap();
                format!("../victim-{i}.txt")
            }
            p => p.to_string(),
        };
        let victim_hash = support::sha256sum(&victim);
        lie_in_journal(&env, |v| {
            v["changes"][0]["path"] = serde_json::Value::String(path.clone());
            v["changes"][0]["after"]["hash"] = serde_json::Value::String(victim_hash.clone());
        });
        let was = workspace(&env);
        let r = run_bounded(&env, &["undo", &op], 20);
        assert_ne!(
            r.code, 0,
            "{lie}: undo of a lying entry succeeded: {}",
            r.stdout
        );
        assert_eq!(workspace(&env), was, "{lie}: a workspace file changed");
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim\n", "{lie}");
        if lie == "../victim.txt" {
            let v = env.root().parent().unwrap().join(format!("victim-{i}.txt"));
            assert_eq!(std::fs::read(&v).unwrap(), b"victim\n", "{lie}");
            let _ = std::fs::remove_file(v);
        }
        assert!(!env.path(".git/hooks/pre-commit").exists(), "{lie}");
    }
}

/// The first line of a forged intent record (old shape, as a hostile hand
/// would write it): `temps` and `blob_tmps` as given, one rename of `renamed`
/// onto a.txt, and an empty journal entry.
fn forged_first_line(
    env: &TestEnv,
    id: &str,
    temps: &[&Path],
    blob_tmps: &[&Path],
    renamed: &Path,
) -> String {
    serde_json::json!({
        "op_id": id,
        "temps": temps,
        "blob_tmps": blob_tmps,
        "links": [],
        "steps": [{"op": "rename", "tmp": renamed, "to": env.path("a.txt")}],
        "sync_dirs": [env.root()],
        "entry": {"seq": 1, "op_id": id, "time": "2026-12-01T00:00:00Z",
                  "command": "apply", "argv": ["apply"], "changes": []}
    })
    .to_string()
}

/// Writes `first` as the whole intent record `id` (its checksum line, mode 0600).
fn plant_record(env: &TestEnv, id: &str, first: &str) {
    let scratch = tempfile::tempdir().unwrap();
    let hash = {
        let p = scratch.path().join("first");
        std::fs::write(&p, first).unwrap();
        support::sha256sum(&p)
    };
    let rec = env.ws_state().join("commit").join(format!("{id}.intent"));
    std::fs::write(&rec, format!("{first}\n{hash}\n")).unwrap();
    std::fs::set_permissions(&rec, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
}

/// A record whose only temp is reached through a symlink leading out: refused
/// with the boundary's reason inside one sentence (it once read "...inside the
/// workspace., so it is not trusted...": `support::parse` checks every
/// pending error for doubled punctuation).
#[test]
fn a_record_naming_a_path_through_a_symlink_out_is_refused_in_one_sentence() {
    let env = TestEnv::new();
    packed_op(&env);
    let outside = tempfile::tempdir().unwrap();
    let id = "op-20261201T000000Z-0badf1f1";
    std::os::unix::fs::symlink(outside.path(), env.path("out")).unwrap();
    let via_link = env.path("out").join(format!(".aitools-{id}-0.tmp"));
    let first = forged_first_line(&env, id, &[&via_link], &[], &via_link);
    plant_record(&env, id, &first);
    let was = workspace(&env);
    let h = run_bounded(&env, &["history"], 20);
    let error = h.json["pending_recovery"][0]["error"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        error.contains("out/") && error.ends_with("so it is not trusted and was not run."),
        "{}",
        h.stdout
    );
    assert_eq!(support::doubled_punctuation(&error), None, "{error}");
    assert_eq!(workspace(&env), was);
}

/// An intent record (mode 0600, whole) that names temps and blob temps outside
/// the workspace and the blob store: recovery does not trust it, deletes and
/// renames nothing, and says how to set it aside.
#[test]
fn a_forged_intent_record_naming_files_outside_is_never_run() {
    let env = TestEnv::new();
    let op = packed_op(&env);
    let outside = tempfile::tempdir().unwrap();
    let id = "op-20261201T000000Z-0badf1f0";
    let bait = outside.path().join(format!(".aitools-{id}-0.tmp"));
    let blob_bait = outside.path().join(format!(".{id}-pack.tmp"));
    std::fs::write(&bait, "keep\n").unwrap();
    std::fs::write(&blob_bait, "keep\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), env.path("out")).unwrap();
    let via_link = env.path("out").join(format!(".aitools-{id}-0.tmp"));
    let first = forged_first_line(&env, id, &[&bait, &via_link], &[&blob_bait], &via_link);
    plant_record(&env, id, &first);
    let was = workspace(&env);
    let h = run_bounded(&env, &["history"], 20);
    assert_eq!(h.code, 0, "{}", h.stderr);
    let pending = h.json["pending_recovery"]
        .as_array()
        .expect("pending_recovery");
    assert_eq!(pending[0]["op_id"], id, "{}", h.stdout);
    let w = run_bounded(&env, &["undo", &op], 20);
    assert_eq!(
        w.error_code(),
        "environment.recovery-pending",
        "{}",
        w.stderr
    );
    assert_eq!(workspace(&env), was);
    assert_eq!(std::fs::read(&bait).unwrap(), b"keep\n");
    assert_eq!(std::fs::read(&blob_bait).unwrap(), b"keep\n");
    // Set aside as the repair says; then the undo runs.
    let s = run_bounded(&env, &["recover", "--set-aside", id], 20);
    assert_eq!(s.code, 0, "{}", s.stderr);
    assert_eq!(std::fs::read(&bait).unwrap(), b"keep\n");
    run_bounded(&env, &["undo", &op], 20).op_id();
    for (i, f) in FILES.iter().enumerate() {
        assert_eq!(env.read(f), before(i).as_bytes());
    }
}

/// The op's own pack with its header gone (a large pack zeroed by a flaky
/// disk; here a 256 MiB sparse file): undo answers promptly that the pack is
/// damaged (integrity), not that the blob is missing, and reads no more than a
/// header line's worth of it.
#[test]
fn a_pack_with_a_zeroed_header_is_damage_answered_promptly() {
    let env = TestEnv::new();
    let op = packed_op(&env);
    let dir = env.ws_state().join("blobs").join("packs");
    let pack = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let f = std::fs::OpenOptions::new().write(true).open(&pack).unwrap();
    f.set_len(0).unwrap();
    f.set_len(256 << 20).unwrap();
    drop(f);
    let was = workspace(&env);
    let t = std::time::Instant::now();
    let r = run_bounded(&env, &["undo", &op], 30);
    assert!(r.error_code().starts_with("integrity."), "{}", r.stderr);
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert_eq!(workspace(&env), was);
}

/// `blobs/packs/` holds before-images as `blobs/` does, so it is trusted only
/// as `blobs/` is: a packs directory others can write refuses reads and writes
/// (`environment.state-untrusted`, naming it) and changes no file.
#[test]
fn a_packs_directory_others_can_write_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let op = packed_op(&env);
    let packs = env.ws_state().join("blobs").join("packs");
    assert!(packs.is_dir(), "the apply packed its before-images");
    std::fs::set_permissions(&packs, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let was = workspace(&env);
    for args in [&["read", "a.txt"][..], &["undo", &op][..]] {
        let r = run_bounded(&env, args, 20);
        assert_eq!(
            r.error_code(),
            "environment.state-untrusted",
            "{args:?}: {}",
            r.stderr
        );
        let msg = r.json["error"]["message"].as_str().unwrap_or("");
        assert!(msg.contains("packs"), "{msg}");
    }
    assert_eq!(workspace(&env), was);
    std::fs::set_permissions(&packs, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    run_bounded(&env, &["undo", &op], 20).op_id();
    for (i, f) in FILES.iter().enumerate() {
        assert_eq!(env.read(f), before(i).as_bytes());
    }
}

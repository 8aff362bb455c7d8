//! Blob packs, black-box: an op over many files keeps its before-images in one
//! pack (`blobs/packs/<op_id>`); undo, redo, `diff --op` and `gc` find them
//! there, and a state directory whose before-images are loose blobs (as older
//! versions wrote them) keeps working.

use crate::support::TestEnv;
use std::path::PathBuf;

/// Loose blobs (files directly in `blobs/`, temps apart).
fn loose(env: &TestEnv) -> Vec<PathBuf> {
    std::fs::read_dir(env.ws_state().join("blobs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect()
}

fn packs(env: &TestEnv) -> Vec<String> {
    match std::fs::read_dir(env.ws_state().join("blobs").join("packs")) {
        Ok(rd) => rd
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

const FILES: [&str; 3] = ["a.txt", "d/b.txt", "d/c.txt"];

fn before(i: usize) -> String {
    format!("file {i}\nline two\nline three\n")
}

/// Three files, and a patch changing the second line of each. Each file has a
/// second hard link outside the workspace (kept while the returned directory
/// lives), so its before-image cannot be kept as a link of its inode and goes
/// into the op's pack.
fn setup(env: &TestEnv) -> (Vec<u8>, tempfile::TempDir) {
    let mut diff = String::new();
    for (i, f) in FILES.iter().enumerate() {
        env.write(f, before(i));
        diff.push_str(&format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1,3 +1,3 @@\n file {i}\n-line two\n+line 2 of {i}\n line three\n"
        ));
    }
    (diff.into_bytes(), pin(env))
}

/// A second hard link of each file, outside the workspace, while the returned
/// directory lives.
fn pin(env: &TestEnv) -> tempfile::TempDir {
    let others = tempfile::tempdir().unwrap();
    for (i, f) in FILES.iter().enumerate() {
        std::fs::hard_link(env.path(f), others.path().join(i.to_string())).unwrap();
    }
    others
}

fn after(i: usize) -> String {
    format!("file {i}\nline 2 of {i}\nline three\n")
}

#[test]
fn a_packed_op_undoes_redoes_diffs_and_is_collected_as_a_whole() {
    let env = TestEnv::new();
    let (diff, _others) = setup(&env);
    let a = env
        .run_stdin(&["apply", "--stdin", "--strip", "1"], &diff)
        .op_id();
    for (i, f) in FILES.iter().enumerate() {
        assert_eq!(env.read(f), after(i).as_bytes());
    }
    // One pack named by the op, no loose blob, no temp left.
    let p = packs(&env);
    let short = a.trim_start_matches("op-");
    assert!(p.len() == 1 && p[0].ends_with(short), "{p:?} {a}");
    assert!(loose(&env).is_empty(), "{:?}", loose(&env));
    let d = env.run(&["diff", "--op", &a]);
    assert_eq!(d.code, 0, "{}", d.stderr);
    assert!(d.stdout.contains("-line two"), "{}", d.stdout);
    // Undo reads the pack; the undo's own before-images (files apply wrote,
    // one name each) are kept as links of their inodes: loose blobs, no pack.
    let u = env.run(&["undo", &a]).op_id();
    for (i, f) in FILES.iter().enumerate() {
        assert_eq!(env.read(f), before(i).as_bytes());
    }
    assert_eq!(packs(&env).len(), 1);
    assert_eq!(loose(&env).len(), 3);
    // Pinned again, the redo's before-images are a pack of their own.
    let pinned = pin(&env);
    let r = env.run(&["undo", &u]).op_id();
    drop(pinned);
    for (i, f) in FILES.iter().enumerate() {
        assert_eq!(env.read(f), after(i).as_bytes());
    }
    // gc keeps every pack a kept op names.
    let g = env.run(&["gc"]);
    assert_eq!(g.code, 0, "{}", g.stderr);
    assert_eq!(g.json["blobs_removed"], 0, "{}", g.stdout);
    assert_eq!(packs(&env).len(), 2);
    // A pack nothing names goes whole.
    let stray = env.ws_state().join("blobs").join("packs").join("op-stray");
    let h = "0".repeat(64);
    std::fs::write(&stray, format!("aitools-pack 1\n{h} 0 1\n\nx")).unwrap();
    let g = env.run(&["gc"]);
    assert_eq!(g.json["blobs_removed"], 1, "{}", g.stdout);
    assert!(!stray.exists());
    // Twenty newer ops on every path: the first three ops are collected with
    // budget 0, their packs removed, and the newest one still undoes.
    for _ in 0..20 {
        for f in FILES {
            let w = env.run(&["edit", f, "--old", "three", "--new", "three."]);
            assert_eq!(w.code, 0, "{}", w.stderr);
        }
    }
    let g = env.run(&["gc", "--budget", "0"]);
    assert_eq!(g.code, 0, "{}", g.stderr);
    assert_eq!(g.json["ops_collected"], 3, "{}", g.stdout);
    assert!(packs(&env).is_empty(), "{:?}", packs(&env));
    let refused = env.run(&["undo", &r]);
    assert_eq!(refused.error_code(), "refusal.op-collected");
}

#[test]
fn before_images_kept_as_loose_blobs_still_undo() {
    let env = TestEnv::new();
    let (diff, _others) = setup(&env);
    let a = env
        .run_stdin(&["apply", "--stdin", "--strip", "1"], &diff)
        .op_id();
    // As an older version left it: each before-image its own 0600 blob, no pack.
    let blobs = env.ws_state().join("blobs");
    for i in 0..FILES.len() {
        let p = blobs.join(".x");
        std::fs::write(&p, before(i)).unwrap();
        std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
        let h = crate::support::sha256sum(&p);
        std::fs::rename(&p, blobs.join(h)).unwrap();
    }
    std::fs::remove_dir_all(blobs.join("packs")).unwrap();
    let d = env.run(&["diff", "--op", &a]);
    assert!(d.stdout.contains("-line two"), "{}", d.stdout);
    let g = env.run(&["gc"]);
    assert_eq!(g.json["blobs_removed"], 0, "{}", g.stdout);
    env.run(&["undo", &a]).op_id();
    for (i, f) in FILES.iter().enumerate() {
        assert_eq!(env.read(f), before(i).as_bytes());
    }
}

#[test]
fn a_single_file_op_keeps_a_loose_blob() {
    let env = TestEnv::new();
    env.write("one.txt", "one\n");
    let e = env
        .run(&["edit", "one.txt", "--old", "one", "--new", "two"])
        .op_id();
    assert!(packs(&env).is_empty());
    assert_eq!(loose(&env).len(), 1);
    env.run(&["undo", &e]).op_id();
    assert_eq!(env.read("one.txt"), b"one\n");
}

/// A pack changed or cut short behind our back: undo refuses with an integrity
/// error naming what to run next, and leaves every file of the op as it is.
#[test]
fn undo_refuses_a_damaged_pack_and_touches_no_file() {
    for damage in ["tampered", "truncated"] {
        let env = TestEnv::new();
        let a = env
            .run_stdin(&["apply", "--stdin", "--strip", "1"], &setup(&env).0)
            .op_id();
        let p = packs(&env);
        assert_eq!(p.len(), 1, "{p:?}");
        let path = env.ws_state().join("blobs").join("packs").join(&p[0]);
        let mut bytes = std::fs::read(&path).unwrap();
        if damage == "tampered" {
            let last = bytes.len() - 2;
            bytes[last] ^= 0x20;
        } else {
            bytes.truncate(bytes.len() - 5);
        }
        std::fs::write(&path, &bytes).unwrap();
        let u = env.run(&["undo", &a]);
        assert_eq!(u.code, 1, "{damage}: {}", u.stdout);
        assert!(
            u.error_code().starts_with("integrity."),
            "{damage}: {}",
            u.stdout
        );
        let repairs = u.json["error"]["repairs"].as_array().unwrap();
        assert!(
            repairs
                .iter()
                .any(|r| r["command"].as_str().unwrap().starts_with("aitools ")),
            "{damage}: {}",
            u.stdout
        );
        for (i, f) in FILES.iter().enumerate() {
            assert_eq!(env.read(f), after(i).as_bytes(), "{damage}: {f} changed");
        }
    }
}

/// `diff --op` of an op whose after-states a later op kept in its own pack (the
/// files changed since): the before-images come from the op's pack (its hint),
/// the after-states from the later op's pack, found by the last-resort look
/// through every pack.
#[test]
fn diff_finds_an_after_state_held_in_a_later_ops_pack() {
    let env = TestEnv::new();
    let (diff, _others) = setup(&env);
    let a = env
        .run_stdin(&["apply", "--stdin", "--strip", "1"], &diff)
        .op_id();
    let mut second = String::new();
    for (i, f) in FILES.iter().enumerate() {
        second.push_str(&format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1,3 +1,3 @@\n file {i}\n line 2 of {i}\n-line three\n+line 3\n"
        ));
    }
    // Pinned again: the second op's before-images (the first's after-states)
    // go into its own pack too.
    let _pinned = pin(&env);
    let b = env
        .run_stdin(&["apply", "--stdin", "--strip", "1"], second.as_bytes())
        .op_id();
    assert_eq!(packs(&env).len(), 2, "{:?} {a} {b}", packs(&env));
    assert!(loose(&env).is_empty(), "{:?}", loose(&env));
    let d = env.run(&["diff", "--op", &a]);
    assert_eq!(d.code, 0, "{}", d.stderr);
    for (i, c) in d.json["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .enumerate()
    {
        let text = c["diff"].as_str().unwrap_or_else(|| panic!("no diff: {c}"));
        assert!(text.contains("-line two"), "{i}: {text}");
        assert!(text.contains("+line 2 of"), "{i}: {text}");
    }
    // The latest op's after-states are the files themselves.
    let d = env.run(&["diff", "--op", &b]);
    assert_eq!(d.code, 0, "{}", d.stderr);
    assert!(d.stdout.contains("+line 3"), "{}", d.stdout);
    assert!(!d.stdout.contains("diff_unavailable"), "{}", d.stdout);
}

/// `tx diff` of a file whose base (its state when the tx touched it) a later op
/// outside the tx kept in its pack: the base is found there (the disk no longer
/// has it).
#[test]
fn tx_diff_finds_a_base_held_in_a_pack() {
    let env = TestEnv::new();
    let (diff, _others) = setup(&env);
    let tx = env.tx_begin();
    let e = env.run(&[
        "edit", "a.txt", "--old", "file 0", "--new", "FILE 0", "--tx", &tx,
    ]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    let a = env
        .run_stdin(&["apply", "--stdin", "--strip", "1"], &diff)
        .op_id();
    assert_eq!(packs(&env).len(), 1, "{:?} {a}", packs(&env));
    let d = env.run(&["tx", "diff", &tx]);
    assert_eq!(d.code, 0, "{}", d.stderr);
    let text = d.json["changes"][0]["diff"].as_str().unwrap_or_default();
    assert!(
        text.contains("-file 0") && text.contains("+FILE 0") && text.contains(" line two"),
        "{}",
        d.stdout
    );
}

//! Before-images kept as links, black-box: a write that replaces a file keeps the
//! old inode as its blob (a second name made before the rename, named a blob
//! after it) when the state directory is on the same filesystem, the file has
//! one name and nothing has it open for writing; otherwise the bytes are copied.
//! Either way undo restores the exact bytes and mode, and the blob never changes
//! with the workspace file.

use crate::support::{TestEnv, parse, sha256sum};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

fn body(tag: &str) -> String {
    (0..3000).map(|i| format!("{tag} line {i}\n")).collect()
}

fn ino(p: &Path) -> u64 {
    std::fs::symlink_metadata(p).unwrap().ino()
}

fn blob(state: &Path, hash: &str) -> PathBuf {
    state.join("blobs").join(hash)
}

/// Names in `blobs/` that start with a dot (temps): none may be left.
fn temps(state: &Path) -> Vec<String> {
    std::fs::read_dir(state.join("blobs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[test]
fn an_edit_keeps_the_old_inode_as_its_blob_and_undo_restores_bytes_and_mode() {
    let env = TestEnv::new();
    let p = env.write("f.txt", body("a"));
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (old_ino, hash) = (ino(&p), sha256sum(&p));
    let e = env
        .run(&["edit", "f.txt", "--old", "a line 7\n", "--new", "seven\n"])
        .op_id();
    let state = env.ws_state();
    let b = blob(&state, &hash);
    // The blob is the old inode (no copy), with one name and mode 0600; the
    // workspace file is a new inode with one name.
    assert_eq!(ino(&b), old_ino, "the before-image was copied, not linked");
    let bm = std::fs::symlink_metadata(&b).unwrap();
    assert_eq!((bm.nlink(), bm.mode() & 0o7777), (1, 0o600));
    let wm = std::fs::symlink_metadata(&p).unwrap();
    assert_eq!(wm.nlink(), 1);
    assert_ne!(wm.ino(), old_ino);
    assert!(temps(&state).is_empty(), "{:?}", temps(&state));
    let u = env.run(&["undo", &e]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert_eq!(env.read("f.txt"), body("a").as_bytes());
    let m = std::fs::symlink_metadata(&p).unwrap();
    assert_eq!((m.mode() & 0o7777, m.nlink()), (0o640, 1));
    assert_eq!(sha256sum(&b), hash);
}

#[test]
fn changing_the_file_after_an_edit_never_changes_its_blob() {
    let env = TestEnv::new();
    let p = env.write("f.txt", body("a"));
    let hash = sha256sum(&p);
    let e = env
        .run(&["edit", "f.txt", "--old", "a line 7\n", "--new", "seven\n"])
        .op_id();
    let b = blob(&env.ws_state(), &hash);
    // In place (`>>`) and rewritten through the same inode (truncate + write).
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"appended\n").unwrap();
    }
    assert_eq!(sha256sum(&b), hash);
    let after = env.read("f.txt");
    std::fs::write(&p, b"rewritten\n").unwrap();
    assert_eq!(sha256sum(&b), hash);
    // Undo sees the file changed since the op and writes nothing.
    let u = env.run(&["undo", &e]);
    assert_eq!(u.error_code(), "refusal.target-changed", "{}", u.stdout);
    assert_eq!(env.read("f.txt"), b"rewritten\n");
    // Back as the op left it, undo restores the before-image.
    std::fs::write(&p, &after[..after.len() - b"appended\n".len()]).unwrap();
    let u = env.run(&["undo", &e]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert_eq!(env.read("f.txt"), body("a").as_bytes());
}

#[test]
fn a_file_with_a_second_hard_link_is_copied_and_the_other_link_untouched() {
    let env = TestEnv::new();
    let p = env.write("f.txt", body("a"));
    let other = env.path("g.txt");
    std::fs::hard_link(&p, &other).unwrap();
    let (old_ino, hash) = (ino(&p), sha256sum(&p));
    let e = env
        .run(&["edit", "f.txt", "--old", "a line 7\n", "--new", "seven\n"])
        .op_id();
    let b = blob(&env.ws_state(), &hash);
    assert_ne!(ino(&b), old_ino, "a file with two names was linked");
    assert_eq!(std::fs::symlink_metadata(&b).unwrap().nlink(), 1);
    assert_eq!(std::fs::read(&other).unwrap(), body("a").as_bytes());
    assert_eq!(ino(&other), old_ino);
    let u = env.run(&["undo", &e]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert_eq!(env.read("f.txt"), body("a").as_bytes());
    assert_eq!(std::fs::read(&other).unwrap(), body("a").as_bytes());
}

#[test]
fn a_file_open_for_writing_elsewhere_is_copied() {
    let env = TestEnv::new();
    let p = env.write("f.txt", body("a"));
    let (old_ino, hash) = (ino(&p), sha256sum(&p));
    // Held open for appending across the edit (`exec 3>>f.txt`).
    let held = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    let e = env
        .run(&["edit", "f.txt", "--old", "a line 7\n", "--new", "seven\n"])
        .op_id();
    let b = blob(&env.ws_state(), &hash);
    assert_ne!(ino(&b), old_ino, "a file open for writing was linked");
    {
        use std::io::Write;
        (&held).write_all(b"late\n").unwrap();
    }
    drop(held);
    assert_eq!(sha256sum(&b), hash);
    let u = env.run(&["undo", &e]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert_eq!(env.read("f.txt"), body("a").as_bytes());
}

/// Whether `/dev/shm` is a tmpfs on another device than the workspace.
fn shm_elsewhere(root: &Path) -> bool {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let tmpfs = mounts.lines().any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() > 2 && f[1] == "/dev/shm" && f[2] == "tmpfs"
    });
    tmpfs
        && std::fs::metadata("/dev/shm")
            .is_ok_and(|m| m.dev() != std::fs::metadata(root).unwrap().dev())
}

#[test]
fn a_state_directory_on_another_filesystem_gets_a_copy() {
    let env = TestEnv::new();
    if !shm_elsewhere(env.root()) {
        println!("skipped: /dev/shm is not a tmpfs on another filesystem");
        return;
    }
    let home = tempfile::Builder::new()
        .prefix("aitools-link-")
        .tempdir_in("/dev/shm")
        .unwrap();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let run = |args: &[&str]| {
        parse(
            env.command(args)
                .env("XDG_STATE_HOME", home.path())
                .output()
                .unwrap(),
        )
    };
    let p = env.write("f.txt", body("a"));
    let hash = sha256sum(&p);
    let e = run(&["edit", "f.txt", "--old", "a line 7\n", "--new", "seven\n"]).op_id();
    let state = std::fs::read_dir(home.path().join("aitools"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let b = blob(&state, &hash);
    assert_ne!(
        std::fs::metadata(&b).unwrap().dev(),
        std::fs::metadata(&p).unwrap().dev()
    );
    assert_eq!(sha256sum(&b), hash);
    let u = run(&["undo", &e]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert_eq!(env.read("f.txt"), body("a").as_bytes());
}

#[test]
fn an_apply_over_many_files_links_every_before_image_and_undo_restores_all() {
    let env = TestEnv::new();
    let mut diff = String::new();
    let mut olds = Vec::new();
    for i in 0..12 {
        let f = format!("d{}/f{i}.txt", i % 3);
        let p = env.write(&f, format!("file {i}\nline two\nline three\n"));
        olds.push((f.clone(), ino(&p), sha256sum(&p)));
        diff.push_str(&format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1,3 +1,3 @@\n file {i}\n-line two\n+line 2 of {i}\n line three\n"
        ));
    }
    let a = env
        .run_stdin(&["apply", "--stdin", "--strip", "1"], diff.as_bytes())
        .op_id();
    let state = env.ws_state();
    assert!(
        !state.join("blobs").join("packs").exists()
            || std::fs::read_dir(state.join("blobs").join("packs"))
                .unwrap()
                .next()
                .is_none(),
        "linked before-images went into a pack"
    );
    for (f, old_ino, hash) in &olds {
        assert_eq!(ino(&blob(&state, hash)), *old_ino, "{f} was not linked");
        assert_eq!(std::fs::symlink_metadata(env.path(f)).unwrap().nlink(), 1);
    }
    assert!(temps(&state).is_empty(), "{:?}", temps(&state));
    let u = env.run(&["undo", &a]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    for (i, (f, _, _)) in olds.iter().enumerate() {
        assert_eq!(
            env.read(f),
            format!("file {i}\nline two\nline three\n").as_bytes()
        );
    }
}

/// A name in `blobs/` that shares a tree file's inode (a before-image link not
/// yet published, or one a set-aside shares) is never taken as kept: an op whose
/// before-image has that hash stores it again as its own inode, so a later
/// change of the tree file never reaches what undo restores.
#[test]
fn a_blob_name_shared_with_a_tree_file_is_stored_again() {
    let env = TestEnv::new();
    env.write("first.txt", "one\n");
    env.run(&["edit", "first.txt", "--old", "one", "--new", "two"]);
    let state = env.ws_state();
    let shared = env.write("shared.txt", body("x"));
    let hash = sha256sum(&shared);
    std::fs::hard_link(&shared, blob(&state, &hash)).unwrap();
    env.write("f.txt", body("x"));
    let e = env
        .run(&["edit", "f.txt", "--old", "x line 7\n", "--new", "seven\n"])
        .op_id();
    let bm = std::fs::symlink_metadata(blob(&state, &hash)).unwrap();
    assert_eq!((bm.nlink(), bm.mode() & 0o7777), (1, 0o600));
    assert_ne!(bm.ino(), ino(&shared));
    // The tree file that shared the old name changes: undo is unaffected.
    std::fs::write(&shared, "changed\n").unwrap();
    let u = env.run(&["undo", &e]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert_eq!(env.read("f.txt"), body("x").as_bytes());
    assert!(temps(&state).is_empty(), "{:?}", temps(&state));
}

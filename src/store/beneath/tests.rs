//! The unit tests of `beneath`: symlinked directories refused both ways of opening.

use super::*;
use std::os::unix::fs::PermissionsExt;

fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(t.path()).unwrap();
    let root = base.join("ws");
    let out = base.join("out");
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("f"), "outside").unwrap();
    std::fs::set_permissions(out.join("f"), std::fs::Permissions::from_mode(0o644)).unwrap();
    (t, root, out)
}

/// Every operation refuses to pass a symlinked directory, both ways of opening.
fn refuses_symlinked_dirs(walk: bool) {
    let (_t, root, out) = setup();
    std::os::unix::fs::symlink(&out, root.join("l")).unwrap();
    let tree = if walk {
        Tree::open_walking(&root).unwrap()
    } else {
        Tree::open(&root).unwrap()
    };
    // Directly, and one level further down.
    std::fs::create_dir(out.join("sub")).unwrap();
    for d in [root.join("l"), root.join("l/sub")] {
        let f = d.join("f");
        let comps = tree.parts(&f).unwrap();
        let opened = tree.open_dir(&comps[..comps.len() - 1], libc::O_PATH, &f);
        assert!(opened.as_ref().is_err_and(is_symlink_on_way), "{opened:?}");
        assert!(tree.create_new(&d.join("new"), 0o644).is_err());
        assert!(tree.create_new(&d.join("new"), 0o644).is_err());
        assert!(tree.set_mode(&f, 0o600, &|_, _| 0).is_err());
        assert!(tree.set_mtime(&f, 5, &|_, _| 0).is_err());
        assert!(tree.mkdir(&d.join("nd")).is_err());
        assert!(tree.rename(&f, &root.join("g")).is_err());
        assert!(tree.lstat(&f).is_err());
        assert!(tree.sync_dir(&d).is_err());
    }
    let m = std::fs::metadata(out.join("f")).unwrap();
    assert_eq!(m.permissions().mode() & 0o7777, 0o644);
    assert_eq!(std::fs::read(out.join("f")).unwrap(), b"outside");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 2);
    // The entry itself a symlink: mode and time are refused, not followed.
    std::os::unix::fs::symlink(out.join("f"), root.join("d/s")).unwrap();
    assert!(tree.set_mode(&root.join("d/s"), 0o600, &|_, _| 0).is_err());
    assert!(tree.set_mtime(&root.join("d/s"), 5, &|_, _| 0).is_err());
    let m = std::fs::metadata(out.join("f")).unwrap();
    assert_eq!(m.permissions().mode() & 0o7777, 0o644);
}

#[test]
fn openat2_refuses_a_symlinked_directory() {
    refuses_symlinked_dirs(false);
}

#[test]
fn the_walk_refuses_a_symlinked_directory() {
    refuses_symlinked_dirs(true);
}

#[test]
fn the_walk_and_openat2_act_beneath_the_root() {
    for walk in [false, true] {
        acts_beneath(walk);
    }
}

fn acts_beneath(walk: bool) {
    let (_t, root, _out) = setup();
    let tree = if walk {
        Tree::open_walking(&root).unwrap()
    } else {
        Tree::open(&root).unwrap()
    };
    let f = root.join("d/a");
    {
        use std::io::Write;
        let mut h = tree.create_new(&f, 0o640).unwrap().0;
        h.write_all(b"x").unwrap();
    }
    assert_eq!(std::fs::read(&f).unwrap(), b"x");
    tree.set_mode(&f, 0o600, &|_, _| 0).unwrap();
    tree.set_mtime(&f, 1000, &|_, _| 0).unwrap();
    let m = std::fs::metadata(&f).unwrap();
    assert_eq!(m.permissions().mode() & 0o7777, 0o600);
    assert_eq!(std::os::unix::fs::MetadataExt::mtime(&m), 1000);
    tree.mkdir(&root.join("d/e")).unwrap();
    tree.mkdir(&root.join("d/e")).unwrap();
    tree.rename(&f, &root.join("d/e/b")).unwrap();
    // Present or not, in one directory and across two (recovery runs it again).
    for to in [root.join("d/e/c"), root.join("d/c")] {
        assert!(tree.rename_present(&root.join("d/e/b"), &to).unwrap());
        assert!(!tree.rename_present(&root.join("d/e/b"), &to).unwrap());
        tree.rename(&to, &root.join("d/e/b")).unwrap();
    }
    let id = tree.identity(&root.join("d/e/b")).unwrap().unwrap();
    tree.remove_if(&root.join("d/e/b"), id, false).unwrap();
    assert!(tree.lstat(&root.join("d/e/b")).unwrap().is_none());
    tree.sync_dir(&root).unwrap();
    assert!(tree.create_new(Path::new("/etc/x"), 0o600).is_err());
}

#[test]
fn a_hard_linked_file_keeps_its_metadata() {
    let (_t, root, out) = setup();
    std::fs::hard_link(out.join("f"), root.join("hl")).unwrap();
    let tree = Tree::open(&root).unwrap();
    assert!(tree.set_mode(&root.join("hl"), 0o666, &|_, _| 0).is_err());
    assert!(tree.set_mtime(&root.join("hl"), 7, &|_, _| 0).is_err());
    let m = std::fs::metadata(out.join("f")).unwrap();
    assert_eq!(m.permissions().mode() & 0o7777, 0o644);
    // A link the caller accounts for (its own blob) is allowed.
    tree.set_mode(&root.join("hl"), 0o600, &|_, _| 1).unwrap();
}

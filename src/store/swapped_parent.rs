//! Test fixture (unit tests only): a workspace whose directory `d` is a
//! symlink to a directory outside it, as a parent swapped for a link between a
//! path's check and its use leaves it. Every read or write of `ws/d/NAME` must
//! refuse rather than reach the outside file.

use std::path::PathBuf;

/// A temporary `ws/` and `out/` (real paths), `out/name` holding `text`, and
/// `ws/d` → `out`. The `TempDir` removes both when dropped.
pub fn parent_linked_out(name: &str, text: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().expect("tempdir");
    let base = std::fs::canonicalize(t.path()).expect("real tempdir");
    let (ws, out) = (base.join("ws"), base.join("out"));
    std::fs::create_dir_all(&ws).expect("ws");
    std::fs::create_dir_all(&out).expect("out");
    std::fs::write(out.join(name), text).expect("outside file");
    std::os::unix::fs::symlink(&out, ws.join("d")).expect("link");
    (t, ws, out)
}

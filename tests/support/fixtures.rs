//! What many black-box tests share: the call that must succeed, a call's peak
//! memory under `/usr/bin/time`, the patch and the archive the writing
//! commands' fixtures hold, and a commit of the whole work tree.

use super::{Run, TestEnv, bin, parse};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The call answered ok (exit 0); its whole answer when it did not.
pub fn ok(r: &Run) {
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

/// aitools with `args` under `/usr/bin/time`, which writes the peak resident
/// set (KiB) to the returned file (read it with `peak_kib`).
pub fn timed(env: &TestEnv, args: &[&str]) -> (Command, PathBuf) {
    let out_file = env.path(".peak");
    let mut c = Command::new("/usr/bin/time");
    c.arg("-o")
        .arg(&out_file)
        .args(["-f", "%M"])
        .arg(bin())
        .args(args);
    (c, out_file)
}

/// The peak RSS in KiB `/usr/bin/time` wrote to `file`, which is removed;
/// `u64::MAX` when it wrote none, so a budget check fails rather than passes.
pub fn peak_kib(file: &Path) -> u64 {
    let kib = std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(u64::MAX);
    let _ = std::fs::remove_file(file);
    kib
}

/// Runs aitools under `/usr/bin/time`: the answer and its peak RSS in KiB.
pub fn peak_rss(env: &TestEnv, args: &[&str]) -> (Run, u64) {
    let (c, file) = timed(env, args);
    let r = parse(env.isolate(c).output().expect("spawn /usr/bin/time"));
    (r, peak_kib(&file))
}

/// A unified diff of `a.txt` ("one\ntwo\n..." → "one\nTWO\n...").
pub const PATCH: &str = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n";

/// `tar czf <archive> <inputs>` in the test repository.
pub fn tar_czf(env: &TestEnv, archive: &str, inputs: &[&str]) {
    let made = Command::new("tar")
        .arg("czf")
        .arg(archive)
        .args(inputs)
        .current_dir(env.root())
        .status()
        .is_ok_and(|s| s.success());
    assert!(made, "tar czf {archive}");
}

impl TestEnv {
    /// `git add -A` and a commit of it with `message`.
    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }
}

//! The commit the binary is built from, for `aitools --version`: `git rev-parse
//! --short=12 HEAD` of the checkout holding Cargo.toml, and whether its tracked
//! files differ from HEAD. A build outside a git checkout (a crates.io or tarball
//! build, or no `git` on PATH) says "unknown". Read once here, so the CLI never
//! runs git to answer `--version`.

use std::path::Path;
use std::process::Command;

/// `(commit, dirty)`, and the files whose change must re-run this step.
pub struct Commit {
    pub hash: String,
    pub dirty: bool,
    pub watch: Vec<String>,
}

/// Reads the commit of the checkout at `dir`; "unknown" when `dir` is no
/// checkout's top level (a tarball unpacked inside another repository included).
pub fn read(dir: &Path) -> Commit {
    let unknown = Commit {
        hash: "unknown".into(),
        dirty: false,
        watch: Vec::new(),
    };
    let top = git(dir, &["rev-parse", "--show-toplevel"]);
    let same = top.as_deref().is_some_and(|t| same_dir(Path::new(t), dir));
    let Some(hash) = same
        .then(|| git(dir, &["rev-parse", "--short=12", "HEAD"]))
        .flatten()
    else {
        return unknown;
    };
    let dirty =
        git(dir, &["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Commit {
        hash,
        dirty,
        watch: watch(dir),
    }
}

/// HEAD, the ref it names, packed-refs and the index: a commit, a checkout or
/// a `git add` changes one of them.
fn watch(dir: &Path) -> Vec<String> {
    let mut paths = vec!["HEAD".to_string(), "packed-refs".into(), "index".into()];
    if let Some(r) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        paths.push(r);
    }
    paths
        .iter()
        .filter_map(|p| {
            git(
                dir,
                &["rev-parse", "--path-format=absolute", "--git-path", p],
            )
        })
        .filter(|p| Path::new(p).exists())
        .collect()
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// One git call's trimmed stdout, or None when git is absent or fails.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    out.status.success().then(|| text.trim().to_string())
}

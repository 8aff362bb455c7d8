//! The workspace scan shared by every scanning command (search, find, replace):
//! gitignore rules, builtin excludes, filters, deterministic path order.
//!
//! SKELETON: a plain recursive walk that skips `.git`. The signature is the contract;
//! the real scan (ignore rules identical to git's, parallel, ordered) replaces the body.

use std::path::{Path, PathBuf};

/// Options every scanning command shares.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Include files the ignore rules exclude.
    pub no_ignore: bool,
    /// Glob filters (`!` excludes; without `/` they match the base name).
    pub globs: Vec<String>,
}

/// Regular files under `starts` (files are taken as they are), sorted by path.
pub fn files(root: &Path, starts: &[PathBuf], opts: &ScanOptions) -> std::io::Result<Vec<PathBuf>> {
    let _ = (root, opts);
    let mut out = Vec::new();
    for s in starts {
        walk(s, &mut out)?;
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(p)?;
    if meta.is_file() {
        out.push(p.to_path_buf());
    } else if meta.is_dir() {
        for e in std::fs::read_dir(p)? {
            let e = e?;
            if e.file_name() == ".git" {
                continue;
            }
            walk(&e.path(), out)?;
        }
    }
    Ok(())
}

//! Near matches for a path that does not exist: names in the same directory a
//! few edits away (or sharing a stem), and files with the same base name elsewhere
//! in the workspace. The work is bounded (entries visited, depth) so a huge tree
//! costs little. Every command's `input.not-found` for a missing path is built
//! here, so they all carry the same message and `candidates`.

use std::path::{Path, PathBuf};

/// Directory entries looked at in all, across both searches.
const MAX_VISITS: usize = 20_000;
const MAX_DEPTH: usize = 12;
/// Paths listed as `candidates` at most.
const MAX_CANDIDATES: usize = 5;
/// A name contained in another counts as near only from this many characters on
/// (below it, `a` would match nearly everything).
const MIN_CONTAINED: usize = 3;
/// Directories never worth descending into for a lost file.
const SKIP_DIRS: &[&str] = &[".git", "node_modules", "target", ".hg", ".svn"];

/// Levenshtein distance over characters, giving up above `limit`.
pub fn edit_distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= limit).then_some(d)
}

/// Up to `limit` existing paths near `missing` (absolute), nearest first: siblings
/// by edit distance of the name, then same-name files under `root`.
pub fn similar_paths(root: &Path, missing: &Path, limit: usize) -> Vec<PathBuf> {
    let Some(name) = missing.file_name().map(|n| n.to_string_lossy().to_string()) else {
        return Vec::new();
    };
    let mut visits = 0usize;
    let mut out: Vec<PathBuf> = Vec::new();
    let max_edits = (name.chars().count() / 3).clamp(1, 3);
    if let Some(dir) = missing.parent()
        && let Ok(entries) = std::fs::read_dir(dir)
    {
        let mut near: Vec<(usize, String)> = Vec::new();
        for e in entries.flatten() {
            visits += 1;
            if visits > MAX_VISITS {
                break;
            }
            let other = e.file_name().to_string_lossy().to_string();
            if let Some(rank) = sibling_rank(&name, &other, max_edits) {
                near.push((rank, other));
            }
        }
        near.sort();
        out.extend(near.into_iter().map(|(_, n)| dir.join(n)));
    }
    if root.is_dir() {
        let mut same = Vec::new();
        walk(root, 0, &name, &mut visits, &mut same);
        same.sort();
        for p in same {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out.truncate(limit);
    out
}

/// How near a sibling's name `other` is to the missing `name`: its edit distance
/// when within `max_edits`, else one past that when the two share a stem (the name
/// up to its first dot: `config.yml` for `config.yaml`, `README.md` for `README`) or
/// one holds the other (`utils.rs` for `util`); `None` when it is not near at all.
fn sibling_rank(name: &str, other: &str, max_edits: usize) -> Option<usize> {
    let (a, b) = (name.to_lowercase(), other.to_lowercase());
    if a == b {
        return Some(0);
    }
    if let Some(d) = edit_distance(&a, &b, max_edits) {
        return Some(d);
    }
    let stem = |s: &str| s.split('.').next().unwrap_or("").to_string();
    let shares_stem = {
        let (sa, sb) = (stem(&a), stem(&b));
        !sa.is_empty() && sa == sb
    };
    let (short, long) = if a.chars().count() <= b.chars().count() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    let contained = short.chars().count() >= MIN_CONTAINED && long.contains(short.as_str());
    (shares_stem || contained).then_some(max_edits + 1)
}

fn walk(dir: &Path, depth: usize, name: &str, visits: &mut usize, out: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH || *visits > MAX_VISITS {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut subdirs = Vec::new();
    for e in entries.flatten() {
        *visits += 1;
        if *visits > MAX_VISITS {
            return;
        }
        let file_name = e.file_name();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            if !SKIP_DIRS.contains(&file_name.to_string_lossy().as_ref()) {
                subdirs.push(e.path());
            }
        } else if file_name.to_string_lossy() == name {
            out.push(e.path());
        }
    }
    subdirs.sort();
    for d in subdirs {
        walk(&d, depth + 1, name, visits, out);
    }
}

pub use super::error::Offer;

/// `argv` with the word `arg` replaced by `path` (its first occurrence), or
/// `None` when `arg` is not a word of it.
pub fn same_argv_on(argv: &[String], arg: &str, path: &str) -> Option<Vec<String>> {
    let at = argv.iter().position(|a| a == arg)?;
    let mut argv = argv.to_vec();
    *argv.get_mut(at)? = path.to_string();
    Some(argv)
}

/// `input.not-found` for the path argument `arg` (resolved to `abs`), with near
/// matches as `candidates` (shown as reads show paths). `offer` picks the first
/// repair: the same invocation on the nearest, or `find` for writes.
pub fn not_found(
    ctx: &super::Ctx,
    arg: &str,
    abs: &Path,
    offer: Offer,
) -> Box<super::WorkspaceError> {
    // The path itself is never its own candidate (a dangling symlink, or a path a
    // tx deleted, still has an entry): retrying it would fail the same way.
    let near: Vec<_> = similar_paths(&ctx.root, abs, MAX_CANDIDATES + 1)
        .into_iter()
        .filter(|p| p.as_path() != abs)
        .take(MAX_CANDIDATES)
        .collect();
    let dangling = std::fs::symlink_metadata(abs).is_ok_and(|m| m.file_type().is_symlink());
    let nearest = near.first().map(|best| match best.strip_prefix(&ctx.cwd) {
        Ok(rel) => rel.to_string_lossy().to_string(),
        Err(_) => best.to_string_lossy().to_string(),
    });
    super::WorkspaceError::NotFound(Box::new(super::error::NotFound {
        arg: arg.to_string(),
        dangling,
        nearest,
        candidates: near.iter().map(|p| ctx.display_path(p)).collect(),
        offer,
        command: ctx.command.clone(),
        argv: ctx.argv.clone(),
    }))
    .boxed()
}

/// `not_found` for an ENOENT from `io` on `arg`; any other failure keeps its own
/// code through `io_error`.
pub fn not_found_or_io(
    ctx: &super::Ctx,
    arg: &str,
    abs: &Path,
    io: &std::io::Error,
    offer: Offer,
) -> Box<super::WorkspaceError> {
    if io.kind() == std::io::ErrorKind::NotFound {
        not_found(ctx, arg, abs, offer)
    } else {
        super::WorkspaceError::Io {
            command: ctx.command.clone(),
            path: arg.to_string(),
            err: crate::protocol::error::copy_io(io),
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn distances() {
        assert_eq!(edit_distance("main.rs", "mian.rs", 3), Some(2));
        assert_eq!(edit_distance("a", "abcdef", 2), None);
        assert_eq!(edit_distance("read.rs", "read.rs", 0), Some(0));
    }
    #[test]
    fn sibling_ranks() {
        assert_eq!(sibling_rank("Main.rs", "main.rs", 2), Some(0));
        assert_eq!(sibling_rank("mian.rs", "main.rs", 2), Some(2));
        assert_eq!(sibling_rank("README", "README.md", 2), Some(3));
        assert_eq!(sibling_rank("config.yaml", "config.json", 3), Some(4));
        assert_eq!(sibling_rank("util", "utils_test.rs", 1), Some(2));
        assert_eq!(sibling_rank("main.rs", "a", 2), None);
        assert_eq!(sibling_rank("lib.rs", "notes.txt", 2), None);
    }
}

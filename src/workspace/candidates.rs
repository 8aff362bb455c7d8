//! Near matches for a path that does not exist: names in the same directory a
//! few edits away, and files with the same base name elsewhere in the workspace.
//! The work is bounded (entries visited, depth) so a huge tree costs little.

use std::path::{Path, PathBuf};

/// Directory entries looked at in all, across both searches.
const MAX_VISITS: usize = 20_000;
const MAX_DEPTH: usize = 12;
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
    if let Some(dir) = missing.parent() {
        if let Ok(entries) = std::fs::read_dir(dir) {
            let mut near: Vec<(usize, String)> = Vec::new();
            for e in entries.flatten() {
                visits += 1;
                if visits > MAX_VISITS {
                    break;
                }
                let other = e.file_name().to_string_lossy().to_string();
                let d = if other.eq_ignore_ascii_case(&name) {
                    Some(0)
                } else {
                    edit_distance(&name.to_lowercase(), &other.to_lowercase(), max_edits)
                };
                if let Some(d) = d {
                    near.push((d, other));
                }
            }
            near.sort();
            out.extend(near.into_iter().map(|(_, n)| dir.join(n)));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn distances() {
        assert_eq!(edit_distance("main.rs", "mian.rs", 3), Some(2));
        assert_eq!(edit_distance("a", "abcdef", 2), None);
        assert_eq!(edit_distance("read.rs", "read.rs", 0), Some(0));
    }
}

/// `input.not-found` for the path argument `arg` (resolved to `abs`), with near
/// matches as `candidates` (shown as reads show paths) and, when there is one, the
/// same invocation on the nearest as the first repair.
pub fn not_found(ctx: &super::Ctx, arg: &str, abs: &Path) -> crate::protocol::CmdError {
    use crate::protocol::{CmdError, Json, Repair, code, shell};
    let near = similar_paths(&ctx.root, abs, 5);
    let mut err = CmdError::new(
        code::NOT_FOUND,
        format!("{arg} does not exist."),
        Repair::new(
            "find",
            "List the workspace's files to find the right name.",
            "aitools find .",
        ),
    );
    if let Some(best) = near.first() {
        let as_arg = match best.strip_prefix(&ctx.cwd) {
            Ok(rel) => rel.to_string_lossy().to_string(),
            Err(_) => best.to_string_lossy().to_string(),
        };
        let mut replaced = false;
        let argv: Vec<String> = ctx
            .argv
            .iter()
            .map(|a| {
                if !replaced && a == arg {
                    replaced = true;
                    as_arg.clone()
                } else {
                    a.clone()
                }
            })
            .collect();
        let command = if replaced {
            shell::aitools(&argv)
        } else {
            shell::aitools([ctx.command.as_str(), as_arg.as_str()])
        };
        err = err.with_first_repair(Repair::new(
            "retry",
            "The nearest existing path, in the same invocation.",
            command,
        ));
        err = err.with_candidates(Json::Arr(
            near.iter()
                .map(|p| Json::str(ctx.display_path(p)))
                .collect(),
        ));
    }
    err
}

//! Path arithmetic that never touches the disk more than it must: lexical
//! normalization, real paths of possibly-missing files, and display forms.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// Real paths of directories resolved by one invocation (its session's): a write
/// across 1,000 files in 20 directories resolves 20 directories, not 1,000 paths
/// component by component (`realpath` reads every component as a link). Cleared
/// whenever the invocation changes the tree (`forget`); containment never rests
/// on it — the store acts beneath the root's descriptor, refusing a symlink on
/// the way. Nothing of it outlives the invocation (an MCP server's next call
/// starts with an empty one).
#[derive(Debug, Default)]
pub struct Dirs(Mutex<Option<HashMap<PathBuf, PathBuf>>>);

/// Entries kept at most (a scan of a huge tree must not grow it without end).
const DIRS_MAX: usize = 4096;

impl Dirs {
    /// Drops the cached directory real paths (the tree was changed).
    pub fn forget(&self) {
        if let Ok(mut d) = self.0.lock() {
            *d = None;
        }
    }

    /// `canonicalize` of a directory, cached.
    fn real_dir(&self, dir: &Path) -> Option<PathBuf> {
        if let Ok(d) = self.0.lock()
            && let Some(real) = d.as_ref().and_then(|m| m.get(dir))
        {
            return Some(real.clone());
        }
        let real = std::fs::canonicalize(dir).ok()?;
        if let Ok(mut d) = self.0.lock() {
            let m = d.get_or_insert_with(HashMap::new);
            if m.len() >= DIRS_MAX {
                m.clear();
            }
            m.insert(dir.to_path_buf(), real.clone());
        }
        Some(real)
    }
}

/// `real_path` for a plain absolute path (no `.` or `..`) whose final component is
/// not a symlink: the parent's real path (cached) and the name, as `canonicalize`
/// would give it; `None` when the full resolution is needed.
fn real_path_fast(dirs: &Dirs, path: &Path) -> Option<PathBuf> {
    real_path_fast_lstat(dirs, path).map(|(real, _)| real)
}

/// `real_path_fast`, with the lstat it made of the real path when something that
/// is not a symlink is there (a regular file's lstat is its stat too).
fn real_path_fast_lstat(dirs: &Dirs, path: &Path) -> Option<(PathBuf, Option<std::fs::Metadata>)> {
    if !path.is_absolute()
        || path
            .components()
            .any(|c| !matches!(c, Component::RootDir | Component::Normal(_)))
    {
        return None;
    }
    let (parent, name) = (path.parent()?, path.file_name()?);
    let real = dirs.real_dir(parent)?.join(name);
    match std::fs::symlink_metadata(&real) {
        Ok(m) if m.file_type().is_symlink() => None,
        Ok(m) => Some((real, Some(m))),
        // Missing (or below a file): the real parent and the name, as below.
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            Some((real, None))
        }
        Err(_) => None,
    }
}

/// Whether `path` is a plain absolute path whose parent is its own real path
/// (cached: the directories of a write are resolved once), so that `path` is the
/// real path `real_path` gives when its final component is not a symlink.
pub fn parent_is_real(dirs: &Dirs, path: &Path) -> bool {
    path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)))
        && path
            .parent()
            .and_then(|p| dirs.real_dir(p))
            .is_some_and(|real| Some(real.as_path()) == path.parent())
}

/// Removes `.` and folds `..` lexically (`/a/b/../c` → `/a/c`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The real path of `path` with every existing ancestor's symlinks resolved; the
/// missing tail is appended as is. Never fails: a path with no existing ancestor
/// is returned normalized.
pub fn real_path(dirs: &Dirs, path: &Path) -> PathBuf {
    if let Some(real) = real_path_fast(dirs, path) {
        return real;
    }
    real_path_slow(path)
}

/// `real_path` the long way (`canonicalize`, else the deepest existing ancestor's).
fn real_path_slow(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let norm = normalize(path);
    let mut tail = Vec::new();
    let mut cur = norm.as_path();
    while let Some(parent) = cur.parent() {
        if let Some(name) = cur.file_name() {
            tail.push(name.to_os_string());
        }
        if let Ok(real) = std::fs::canonicalize(parent) {
            let mut out = real;
            for t in tail.iter().rev() {
                out.push(t);
            }
            return out;
        }
        cur = parent;
    }
    norm
}

/// `real_path`, and the lstat of the real path when it was taken on the way and
/// found something other than a symlink (the common case: a plain absolute path
/// to an existing file). A caller that needs the file's metadata uses it instead
/// of asking again; `None` says nothing (missing, or resolved the long way).
pub fn real_path_lstat(dirs: &Dirs, path: &Path) -> (PathBuf, Option<std::fs::Metadata>) {
    match real_path_fast_lstat(dirs, path) {
        Some(found) => found,
        None => (real_path_slow(path), None),
    }
}

/// `path` relative to `base` when it is below it (`.` for `base` itself).
pub fn relative_to(path: &Path, base: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?;
    let s = rel.to_string_lossy().to_string();
    Some(if s.is_empty() { ".".to_string() } else { s })
}

/// Lossy UTF-8 text of a path, for output.
pub fn display(path: &Path) -> String {
    path.to_string_lossy().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_path_lstat_gives_the_lstat_of_a_file_and_none_for_a_link_or_nothing() {
        let t = tempfile::tempdir().expect("tempdir");
        let dir = std::fs::canonicalize(t.path()).expect("real");
        std::fs::write(dir.join("f"), "x").expect("write");
        std::os::unix::fs::symlink(dir.join("f"), dir.join("l")).expect("symlink");
        let dirs = Dirs::default();
        let (real, m) = real_path_lstat(&dirs, &dir.join("f"));
        assert_eq!(real, dir.join("f"));
        assert!(m.is_some_and(|m| m.file_type().is_file()));
        // A final symlink is resolved the long way: its target, no lstat kept.
        let (real, m) = real_path_lstat(&dirs, &dir.join("l"));
        assert_eq!((real, m.is_none()), (dir.join("f"), true));
        let (real, m) = real_path_lstat(&dirs, &dir.join("missing"));
        assert_eq!((real, m.is_none()), (dir.join("missing"), true));
    }
}

//! Path arithmetic that never touches the disk more than it must: lexical
//! normalization, real paths of possibly-missing files, and display forms.

use std::path::{Component, Path, PathBuf};

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
pub fn real_path(path: &Path) -> PathBuf {
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

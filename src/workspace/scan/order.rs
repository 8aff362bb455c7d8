//! Path order and root-relative paths at byte speed. A walk's paths are a real
//! start joined with entry names (no `.`, no `//`, no trailing `/`), so on them
//! `Path`'s component order is the byte order with `/` below every other byte,
//! and stripping the root is slicing past its bytes; `Path::cmp` and
//! `Path::strip_prefix` walk components instead, which cost a quarter of a
//! `find` on a 16k-file tree. Other paths take the `Path` methods.

use std::cmp::Ordering;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The index of the first byte where `a` and `b` differ (the shorter length
/// when one is a prefix of the other); eight bytes at a time.
fn mismatch(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (
        a.get(..n).unwrap_or_default(),
        b.get(..n).unwrap_or_default(),
    );
    let mut i = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let x: [u8; 8] = x.try_into().unwrap_or_default();
        let y: [u8; 8] = y.try_into().unwrap_or_default();
        let d = u64::from_le_bytes(x) ^ u64::from_le_bytes(y);
        if d != 0 {
            return i + (d.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a.get(i) == b.get(i) {
        i += 1;
    }
    i
}

/// Whether `rest` (what follows a path's last component) holds a component
/// of its own: a byte other than `/` and `.`.
fn has_component(rest: &[u8]) -> bool {
    rest.iter().any(|&c| c != b'/' && c != b'.')
}

/// `a.cmp(b)` as `Path` orders them (component by component).
pub fn path_order(a: &Path, b: &Path) -> Ordering {
    let (x, y) = (a.as_os_str().as_bytes(), b.as_os_str().as_bytes());
    let i = mismatch(x, y);
    // Most pairs differ inside a component at a byte that is neither `/` nor
    // `.`: their order is that byte's, whatever the prefix holds.
    if let (Some(&p), Some(&q)) = (x.get(i), y.get(i))
        && p != b'/'
        && q != b'/'
        && p != b'.'
        && q != b'.'
    {
        return p.cmp(&q);
    }
    // The common prefix's last component: the one the first difference is in.
    let head = x.get(..i).unwrap_or_default();
    let last = head.rsplit(|&c| c == b'/').next().unwrap_or_default();
    let sure = i > 0 && !last.is_empty() && last != b".";
    match (x.get(i), y.get(i)) {
        (None, None) => Ordering::Equal,
        // Inside both components; a component that may be `.` or `..` (one
        // starting here with a dot) is not ordered as text.
        (Some(&p), Some(&q)) if p != b'/' && q != b'/' && (sure || (p != b'.' && q != b'.')) => {
            p.cmp(&q)
        }
        // One component ends where the other goes on: the shorter is first.
        (Some(b'/'), Some(_)) if sure => Ordering::Less,
        (Some(_), Some(b'/')) if sure => Ordering::Greater,
        // One path is the other plus more: more components come after.
        (None, Some(&q))
            if sure && (q != b'/' || has_component(y.get(i..).unwrap_or_default())) =>
        {
            Ordering::Less
        }
        (Some(&p), None)
            if sure && (p != b'/' || has_component(x.get(i..).unwrap_or_default())) =>
        {
            Ordering::Greater
        }
        _ => a.cmp(b),
    }
}

/// `path.file_name()` at byte speed: on a walk's path (no trailing `/`, last
/// component a name) it is the bytes past the last `/`; `Path::file_name`
/// parses components from the back (a few percent of a search's instructions).
pub fn file_name(path: &Path) -> Option<&OsStr> {
    let p = path.as_os_str().as_bytes();
    let base = match memchr::memrchr(b'/', p) {
        Some(i) => p.get(i + 1..).unwrap_or_default(),
        None => p,
    };
    if base.is_empty() || base == b"." || base == b".." {
        return path.file_name();
    }
    Some(OsStr::from_bytes(base))
}

/// `path` relative to `root` (empty for `root` itself), or `path` itself when it
/// is not below `root`: `path.strip_prefix(root).unwrap_or(path)`.
pub fn strip_root<'p>(path: &'p Path, root: &Path) -> &'p Path {
    let (p, r) = (path.as_os_str().as_bytes(), root.as_os_str().as_bytes());
    if let Some(rest) = p.strip_prefix(r).filter(|_| !r.is_empty()) {
        let rest = match rest.first() {
            None => Some(rest),
            Some(b'/') => rest.get(1..),
            Some(_) if r.ends_with(b"/") => Some(rest),
            Some(_) => None,
        };
        // Path::strip_prefix trims `/` and `.` components at both ends.
        if let Some(rest) = rest
            && !rest.starts_with(b"/")
            && !rest.starts_with(b"./")
            && !rest.ends_with(b"/")
            && !rest.ends_with(b"/.")
            && rest != b"."
        {
            return Path::new(OsStr::from_bytes(rest));
        }
    }
    path.strip_prefix(root).unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path of up to 4 bytes from a small alphabet, and some longer ones.
    fn paths() -> Vec<String> {
        let mut out: Vec<String> = PATHS.iter().map(|p| p.to_string()).collect();
        let mut layer = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for p in &layer {
                for c in ["a", "b", "/", ".", "-"] {
                    next.push(format!("{p}{c}"));
                }
            }
            out.extend(next.iter().cloned());
            layer = next;
        }
        out
    }

    const PATHS: &[&str] = &[
        "/a",
        "/a/b",
        "/a-b",
        "/a.b",
        "/a/b/c",
        "/a b",
        "/ab",
        "/a/",
        "/a//b",
        "/a/./b",
        "/a/../b",
        "/",
        "a",
        "a/b",
        "",
        "/a/b-c",
        "/a/b/c/d/e/f/g/h/i",
        "/a/b/c/d/e/f/g/h-i",
        "/aaaaaaaa/b",
        "/aaaaaaaa-b",
        "/aaaaaaaa",
        "/é/x",
        "/e/x",
        "/\u{7f}",
    ];

    #[test]
    fn path_order_is_paths_order() {
        let all = paths();
        for a in &all {
            for b in &all {
                let (a, b) = (Path::new(a), Path::new(b));
                assert_eq!(path_order(a, b), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn file_name_is_paths_file_name() {
        for p in paths() {
            let p = Path::new(&p);
            assert_eq!(file_name(p), p.file_name(), "{p:?}");
        }
    }

    #[test]
    fn strip_root_is_strip_prefix() {
        let all = paths();
        for p in &all {
            for r in &all {
                let (p, r) = (Path::new(p), Path::new(r));
                let want = p.strip_prefix(r).unwrap_or(p);
                assert_eq!(strip_root(p, r), want, "{p:?} under {r:?}");
            }
        }
    }
}

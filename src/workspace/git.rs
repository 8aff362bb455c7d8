//! What a repository's `.git` says, read from the files themselves (no `git`
//! process): the work tree, the branch and commit HEAD names, and the paths the
//! index tracks. Worktrees (`.git` file with `gitdir:`), packed refs and index
//! versions 2, 3 and 4 are understood.

use std::path::{Path, PathBuf};

/// A repository's state as `overview` reports it.
#[derive(Debug, Clone)]
pub struct GitState {
    /// The directory holding `.git`.
    pub work_tree: PathBuf,
    /// `None` on a detached HEAD.
    pub branch: Option<String>,
    /// The commit HEAD names; `None` on an unborn branch.
    pub head: Option<String>,
    /// Work-tree-relative paths (with `/`) in the index, sorted, without duplicates.
    pub tracked: Vec<String>,
}

/// The work tree enclosing `dir`: the nearest ancestor holding `.git`.
pub fn work_tree(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|a| a.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The repository directory and the common directory (they differ in a worktree).
pub fn git_dirs(work_tree: &Path) -> Option<(PathBuf, PathBuf)> {
    let dot_git = work_tree.join(".git");
    let git_dir = if dot_git.is_dir() {
        dot_git
    } else {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text.trim().strip_prefix("gitdir:")?.trim();
        work_tree.join(target)
    };
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(c) => git_dir.join(c.trim()),
        Err(_) => git_dir.clone(),
    };
    Some((git_dir, common))
}

/// Where the excludes file of a scan comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExcludesFile {
    /// The ignore crate finds it itself in the user's `~/.gitconfig` (or the XDG
    /// config), as git does when nothing overrides that.
    UserConfig,
    /// This file, matched from the top of the work tree.
    Path(PathBuf),
}

/// The excludes file git would use for `work_tree`: the repository config's
/// `core.excludesFile` first; then, when `GIT_CONFIG_GLOBAL` replaces the user's
/// config (the ignore crate does not read that variable), that file's
/// `core.excludesFile` or git's default `$XDG_CONFIG_HOME/git/ignore`; else the
/// user's config as the ignore crate reads it.
pub fn excludes_file(work_tree: &Path) -> ExcludesFile {
    let repo = git_dirs(work_tree)
        .and_then(|(_, common)| config_excludes_file(&common.join("config"), work_tree));
    if let Some(p) = repo {
        return ExcludesFile::Path(p);
    }
    match std::env::var_os("GIT_CONFIG_GLOBAL") {
        Some(global) => ExcludesFile::Path(
            config_excludes_file(Path::new(&global), work_tree).unwrap_or_else(xdg_git_ignore),
        ),
        None => ExcludesFile::UserConfig,
    }
}

/// The excludes file the user's config names, as git (and the ignore crate) find
/// it when no repository config or `GIT_CONFIG_GLOBAL` does: `~/.gitconfig`, then
/// `$XDG_CONFIG_HOME/git/config` (or `~/.config/git/config`), then the system
/// config (`GIT_CONFIG_SYSTEM`, else `/etc/gitconfig`), else git's default
/// `$XDG_CONFIG_HOME/git/ignore`. Read here with the plain `[core]` reader, so a
/// scan does not compile the ignore crate's config regex before its first entry.
pub fn user_excludes_file(work_tree: &Path) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let system = std::env::var_os("GIT_CONFIG_SYSTEM")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("/etc/gitconfig"), PathBuf::from);
    [
        home.map(|h| h.join(".gitconfig")),
        xdg.map(|x| x.join("git/config")),
        Some(system),
    ]
    .into_iter()
    .flatten()
    .find_map(|c| config_excludes_file(&c, work_tree))
    .unwrap_or_else(xdg_git_ignore)
}

/// git's default excludes file when no config names one.
fn xdg_git_ignore() -> PathBuf {
    match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x).join("git/ignore"),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".config/git/ignore")
        }
    }
}

/// `core.excludesFile` from one config file, with `~/` expanded; relative paths
/// are taken from the work tree, as git does.
fn config_excludes_file(config: &Path, work_tree: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(config).ok()?;
    let mut in_core = false;
    let mut found = None;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_core = t
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim()
                .eq_ignore_ascii_case("core");
            continue;
        }
        if !in_core {
            continue;
        }
        if let Some((k, v)) = t.split_once('=')
            && k.trim().eq_ignore_ascii_case("excludesfile")
        {
            let v = v.trim().trim_matches('"');
            found = Some(match v.strip_prefix("~/") {
                Some(rest) => PathBuf::from(std::env::var_os("HOME")?).join(rest),
                None => work_tree.join(v),
            });
        }
    }
    found
}

/// The enclosing repository of `dir`, if any.
pub fn read(dir: &Path) -> Option<GitState> {
    let work_tree = work_tree(dir)?;
    let (git_dir, common) = git_dirs(&work_tree)?;
    let head_text = std::fs::read_to_string(git_dir.join("HEAD")).unwrap_or_default();
    let head_text = head_text.trim();
    let (branch, head) = match head_text.strip_prefix("ref:") {
        Some(r) => {
            let r = r.trim();
            let branch = r.strip_prefix("refs/heads/").unwrap_or(r).to_string();
            (Some(branch), resolve_ref(&git_dir, &common, r))
        }
        None if !head_text.is_empty() => (None, Some(head_text.to_string())),
        None => (None, None),
    };
    let tracked = std::fs::read(git_dir.join("index"))
        .ok()
        .and_then(|b| parse_index(&b))
        .unwrap_or_default();
    Some(GitState {
        work_tree,
        branch,
        head,
        tracked,
    })
}

fn resolve_ref(git_dir: &Path, common: &Path, name: &str) -> Option<String> {
    for base in [git_dir, common] {
        if let Ok(s) = std::fs::read_to_string(base.join(name)) {
            let s = s.trim();
            if let Some(inner) = s.strip_prefix("ref:") {
                return resolve_ref(git_dir, common, inner.trim());
            }
            return Some(s.to_string());
        }
    }
    let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
    packed.lines().find_map(|l| {
        let (sha, r) = l.split_once(' ')?;
        (r == name && !sha.starts_with('#')).then(|| sha.to_string())
    })
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

/// The paths of a `.git/index` file (versions 2 to 4, SHA-1 or SHA-256 ids).
pub fn parse_index(b: &[u8]) -> Option<Vec<String>> {
    if b.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(b, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(b, 8)? as usize;
    // The id length is not in the header: SHA-256 repositories use 32 bytes. Try
    // SHA-1 first and fall back when the entries do not line up.
    for id_len in [20usize, 32] {
        if let Some(paths) = parse_entries(b, version, count, id_len) {
            let mut paths = paths;
            paths.sort();
            paths.dedup();
            return Some(paths);
        }
    }
    None
}

fn parse_entries(b: &[u8], version: u32, count: usize, id_len: usize) -> Option<Vec<String>> {
    let mut pos = 12usize;
    let mut out: Vec<String> = Vec::with_capacity(count.min(1 << 20));
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = pos;
        let flags_at = start + 40 + id_len;
        let flags = u16::from_be_bytes([*b.get(flags_at)?, *b.get(flags_at + 1)?]);
        pos = flags_at + 2;
        if version >= 3 && flags & 0x4000 != 0 {
            pos += 2;
        }
        let path: Vec<u8> = if version == 4 {
            // Prefix compression: a varint of bytes to drop from the previous path.
            let mut strip: usize = 0;
            let mut first = true;
            loop {
                let byte = *b.get(pos)?;
                pos += 1;
                if first {
                    strip = (byte & 0x7f) as usize;
                    first = false;
                } else {
                    strip = ((strip + 1) << 7) | (byte & 0x7f) as usize;
                }
                if byte & 0x80 == 0 {
                    break;
                }
            }
            let end = pos + memchr::memchr(0, b.get(pos..)?)?;
            let keep = prev.len().checked_sub(strip)?;
            let mut p = prev.get(..keep)?.to_vec();
            p.extend_from_slice(b.get(pos..end)?);
            pos = end + 1;
            p
        } else {
            let end = pos + memchr::memchr(0, b.get(pos..)?)?;
            let p = b.get(pos..end)?.to_vec();
            // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
            let len = end - start;
            pos = start + (len + 8) / 8 * 8;
            p
        };
        if path.is_empty() {
            return None;
        }
        out.push(String::from_utf8_lossy(&path).into_owned());
        prev = path;
    }
    if pos > b.len() {
        return None;
    }
    Some(out)
}

//! The fast answer to what [`super::gitrun`] asks the repository's config (its
//! filter drivers, whether it is a partial clone) without starting `git config
//! --list`: the config files are read as bytes, and only when none of them can
//! define what the listing looks for is the answer "nothing". A filter driver
//! is a `[filter "name"]` section (or `[filter.name]`): section names have no
//! escapes, so its file holds the word `filter` (in any case) whatever its
//! spelling. A file that holds `filter` or `include` (which may pull any other
//! file), a partial clone's keys, a repository git might discover differently
//! (a bare repository on the way up, `GIT_CEILING_DIRECTORIES`) or a config
//! read from elsewhere (`GIT_CONFIG_GLOBAL`, ...) is left to git's own listing.

use std::path::{Path, PathBuf};

/// Variables that move or add config files git reads.
const MOVED: &[&str] = &[
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
];

/// Whether `dir`'s repository (and the user's and system's config) surely
/// defines no filter driver in repository scope and no partial clone:
/// `false` when only git's listing can tell. `git` is the program that will
/// run (its system config is beside it); `cap` bounds each file read.
pub fn nothing_to_disable(dir: &Path, git: Option<&Path>, cap: usize) -> bool {
    if MOVED.iter().any(|v| std::env::var_os(v).is_some()) {
        return false;
    }
    let Some(mut git_dirs) = repository(dir) else {
        return false;
    };
    // Without a `commondir` file the git directory is the common one: read once.
    git_dirs.dedup();
    let Some(system) = git.and_then(system_config) else {
        return false;
    };
    // The user's files, as git finds them.
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|x| !x.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut user: Vec<PathBuf> = home.iter().map(|h| h.join(".gitconfig")).collect();
    user.extend(xdg.map(|x| x.join("git/config")));
    let repo_clean = git_dirs.iter().all(|d| repository_clean(d, cap));
    repo_clean
        && user
            .iter()
            .chain([&system])
            .all(|f| clean(f, cap, &["include", "promisor", "partialclone"]))
}

/// Whether the repository config in git directory `git_dir` (and its
/// per-worktree file) surely defines no filter driver and no partial clone.
pub fn repository_clean(git_dir: &Path, cap: usize) -> bool {
    const WORDS: &[&str] = &["filter", "include", "promisor", "partialclone"];
    ["config", "config.worktree"]
        .iter()
        .all(|f| clean(&git_dir.join(f), cap, WORDS))
}

/// Whether `file` is absent, or a regular file of at most `cap` bytes free of
/// every word (ASCII case ignored). Anything else (a FIFO, a device, a link to
/// one, a file that cannot be read) is left to git's listing and its deadline.
fn clean(file: &Path, cap: usize, words: &[&str]) -> bool {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    // Opened without blocking (a FIFO), then known by what was opened.
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(file);
    let f = match opened {
        Ok(f) => f,
        Err(e) => return e.kind() == std::io::ErrorKind::NotFound,
    };
    if !f
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() <= cap as u64)
    {
        return false;
    }
    let mut bytes = Vec::new();
    if f.take(cap as u64 + 1).read_to_end(&mut bytes).is_err() {
        return false;
    }
    bytes.len() <= cap && !words.iter().any(|w| holds(&bytes, w.as_bytes()))
}

fn holds(hay: &[u8], word: &[u8]) -> bool {
    hay.windows(word.len())
        .any(|w| w.eq_ignore_ascii_case(word))
}

/// The git directory and the common directory of the repository git finds from
/// `dir`, when it is found as git finds it: the nearest ancestor holding a
/// `.git` directory or a readable `.git` file, with no directory on the way
/// that is itself a git directory (a bare repository git would take first).
/// `Some(empty)` outside any repository.
fn repository(dir: &Path) -> Option<Vec<PathBuf>> {
    for a in dir.ancestors() {
        let dot = a.join(".git");
        match std::fs::symlink_metadata(&dot) {
            Ok(_) => {
                let (git_dir, common) = super::git::git_dirs(a)?;
                return Some(vec![git_dir, common]);
            }
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return None,
            Err(_) => {}
        }
        if a.join("HEAD").exists() || a.join("objects").exists() && a.join("refs").exists() {
            return None;
        }
    }
    Some(Vec::new())
}

/// The system config of the git at `git` (`<prefix>/bin/git`): `/etc/gitconfig`
/// for the prefix `/usr`, else `<prefix>/etc/gitconfig`.
fn system_config(git: &Path) -> Option<PathBuf> {
    let bin = git.parent()?;
    if bin.file_name()? != "bin" {
        return None;
    }
    let prefix = bin.parent()?;
    Some(if prefix == Path::new("/usr") {
        PathBuf::from("/etc/gitconfig")
    } else {
        prefix.join("etc/gitconfig")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_section_is_seen_in_any_spelling() {
        for text in ["[FiLtEr \"x\"]\n\tclean = y\n", "[filter.x]\nsmudge=y\n"] {
            assert!(holds(text.as_bytes(), b"filter"), "{text}");
        }
        assert!(!holds(b"[core]\n\tbare = false\n", b"filter"));
        assert_eq!(
            system_config(Path::new("/usr/bin/git")),
            Some(PathBuf::from("/etc/gitconfig"))
        );
        assert_eq!(
            system_config(Path::new("/usr/local/bin/git")),
            Some(PathBuf::from("/usr/local/etc/gitconfig"))
        );
        assert_eq!(system_config(Path::new("/opt/git")), None);
    }
}

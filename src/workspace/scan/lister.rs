//! The ordered walk's own lister: each directory is listed once, its entries
//! sorted by name, and its ignore files are read only when its listing names
//! them (the ignore crate's sequential walker probes `.git`, `.jj`, `.gitignore`
//! and `.git/info/exclude` in every directory with a failing stat each). The
//! rules are those of the walker `Plan::new` configures (git rules with
//! `require_git`, parents, `.git/info/exclude`, an explicit excludes file; no
//! `.ignore`, hidden files kept, symlinks not followed): `.gitignore` matchers
//! stack from the nearest directory up, stopping past a repository's top
//! (a nested repository does not see its parent's rules). `Plan::new` takes it
//! only where those are the walker's settings, and the ignore crate's walker
//! everywhere else.

use super::filters::Filters;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::{FileType, Metadata};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One listed entry.
#[derive(Clone)]
pub(super) struct Listed {
    pub path: PathBuf,
    pub ft: FileType,
    pub depth: usize,
}

/// A listed entry: from the ignore crate's walkers, or the ordered walk's own
/// lister.
#[derive(Clone)]
pub(super) enum Dent {
    Walk(ignore::DirEntry),
    Listed(Listed),
}

impl Dent {
    pub(super) fn path(&self) -> &Path {
        match self {
            Dent::Walk(d) => d.path(),
            Dent::Listed(l) => &l.path,
        }
    }

    pub(super) fn file_type(&self) -> Option<std::fs::FileType> {
        match self {
            Dent::Walk(d) => d.file_type(),
            Dent::Listed(l) => Some(l.ft),
        }
    }

    pub(super) fn depth(&self) -> usize {
        match self {
            Dent::Walk(d) => d.depth(),
            Dent::Listed(l) => l.depth,
        }
    }

    pub(super) fn file_name(&self) -> &std::ffi::OsStr {
        match self {
            Dent::Walk(d) => d.file_name(),
            Dent::Listed(l) => l.path.file_name().unwrap_or(l.path.as_os_str()),
        }
    }

    /// The entry's own metadata (a symlink's, not its target's).
    pub(super) fn metadata(&self) -> io::Result<Metadata> {
        match self {
            Dent::Walk(d) => d.metadata().map_err(super::into_io),
            Dent::Listed(l) => std::fs::symlink_metadata(&l.path),
        }
    }

    pub(super) fn into_path(self) -> PathBuf {
        match self {
            Dent::Walk(d) => d.into_path(),
            Dent::Listed(l) => l.path,
        }
    }
}

/// The ignore rules of one directory, linked to its parent's.
struct Node {
    gitignore: Option<Gitignore>,
    exclude: Option<Gitignore>,
    /// The directory is a repository's top (`.git` or `.jj`).
    has_git: bool,
    /// It or an ancestor is.
    any_git: bool,
    parent: Option<Arc<Node>>,
}

impl Node {
    /// The rules of `dir` under `parent`; `present(name)` says whether `dir`
    /// may hold `name` (its listing names it, or it was not listed).
    fn child(parent: Option<Arc<Node>>, dir: &Path, present: impl Fn(&str) -> bool) -> Node {
        let git_type = if present(".git") {
            std::fs::metadata(dir.join(".git"))
                .ok()
                .map(|m| m.file_type())
        } else {
            None
        };
        let has_jj = present(".jj") && dir.join(".jj").exists();
        let has_git = git_type.is_some() || has_jj;
        let gitignore = if present(".gitignore") {
            read_rules(dir, &dir.join(".gitignore"))
        } else {
            None
        };
        let exclude = if present(".git") {
            commondir(dir, git_type).and_then(|g| read_rules(dir, &g.join("info/exclude")))
        } else {
            None
        };
        let any_git = has_git || parent.as_ref().is_some_and(|p| p.any_git);
        Node {
            gitignore,
            exclude,
            has_git,
            any_git,
            parent,
        }
    }

    /// Whether the rules ignore `path` (below this node's directory).
    fn ignored(&self, explicit: Option<&Gitignore>, path: &Path, is_dir: bool) -> bool {
        let path = path.strip_prefix("./").unwrap_or(path);
        let mut gi = Match::None;
        let mut ex = Match::None;
        if self.any_git {
            let mut node = Some(self);
            while let Some(n) = node {
                if gi.is_none()
                    && let Some(m) = &n.gitignore
                {
                    gi = m.matched(path, is_dir);
                }
                if ex.is_none()
                    && let Some(m) = &n.exclude
                {
                    ex = m.matched(path, is_dir);
                }
                if n.has_git {
                    break;
                }
                node = n.parent.as_deref();
            }
        }
        let m = if !gi.is_none() {
            gi
        } else if !ex.is_none() {
            ex
        } else {
            explicit.map_or(Match::None, |e| e.matched(path, is_dir))
        };
        m.is_ignore()
    }
}

/// The rules of `file`, matched from `dir`; none when it does not exist.
fn read_rules(dir: &Path, file: &Path) -> Option<Gitignore> {
    if !file.exists() {
        return None;
    }
    let mut b = GitignoreBuilder::new(dir);
    let _ = b.add(file);
    b.build().ok().filter(|g| !g.is_empty())
}

/// The git directory holding `dir`'s `info/exclude` (a `.git` file names it).
fn commondir(dir: &Path, git_type: Option<FileType>) -> Option<PathBuf> {
    let git = dir.join(".git");
    if !git_type.is_some_and(|t| t.is_file()) {
        return Some(git);
    }
    let first = |p: &Path| -> Option<String> {
        let text = std::fs::read_to_string(p).ok()?;
        text.lines().next().map(str::to_string)
    };
    let line = first(&git)?;
    let real = PathBuf::from(line.strip_prefix("gitdir: ")?);
    let common = first(&real.join("commondir"))?;
    Some(if common.starts_with('.') {
        real.join(common)
    } else {
        PathBuf::from(common)
    })
}

/// A directory being listed.
struct Frame {
    dir: PathBuf,
    depth: usize,
    node: Arc<Node>,
    names: std::vec::IntoIter<(OsString, FileType)>,
}

/// Lists the starts depth first in path order (each directory's entries sorted
/// by name), passing over what the ignore rules or `Filters::prune` exclude.
pub(super) struct Lister {
    starts: VecDeque<PathBuf>,
    stack: Vec<Frame>,
    explicit: Option<Gitignore>,
    filters: Arc<Filters>,
}

/// A directory's entries sorted by name.
fn list(dir: &Path) -> std::io::Result<Vec<(OsString, FileType)>> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        v.push((e.file_name(), e.file_type()?));
    }
    v.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(v)
}

fn error(e: std::io::Error, path: &Path, depth: usize) -> ignore::Error {
    ignore::Error::WithDepth {
        depth,
        err: Box::new(ignore::Error::WithPath {
            path: path.to_path_buf(),
            err: Box::new(ignore::Error::Io(e)),
        }),
    }
}

impl Lister {
    /// `starts`: absolute, canonical, sorted; `explicit`: the excludes file
    /// (matched from the top of the work tree).
    pub(super) fn new(
        starts: &[PathBuf],
        explicit: Option<Gitignore>,
        filters: Arc<Filters>,
    ) -> Lister {
        Lister {
            starts: starts.iter().cloned().collect(),
            stack: Vec::new(),
            explicit,
            filters,
        }
    }

    /// The rules of the directories above `start`, from the root down.
    fn parents(start: &Path) -> Option<Arc<Node>> {
        let mut above: Vec<&Path> = start.ancestors().skip(1).collect();
        above.reverse();
        let mut node = None;
        for dir in above {
            node = Some(Arc::new(Node::child(node, dir, |_| true)));
        }
        node
    }

    fn start(&mut self, start: PathBuf) -> Result<Listed, ignore::Error> {
        let meta = std::fs::symlink_metadata(&start).map_err(|e| error(e, &start, 0))?;
        let ft = meta.file_type();
        if ft.is_dir() {
            let names = list(&start).map_err(|e| error(e, &start, 0))?;
            let node = Node::child(Self::parents(&start), &start, |n| {
                names.iter().any(|(m, _)| m == n)
            });
            self.stack.push(Frame {
                dir: start.clone(),
                depth: 0,
                node: Arc::new(node),
                names: names.into_iter(),
            });
        }
        Ok(Listed {
            path: start,
            ft,
            depth: 0,
        })
    }
}

impl Iterator for Lister {
    type Item = Result<Listed, ignore::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let Some(top) = self.stack.last_mut() else {
                let start = self.starts.pop_front()?;
                return Some(self.start(start));
            };
            let Some((name, ft)) = top.names.next() else {
                self.stack.pop();
                continue;
            };
            let path = top.dir.join(&name);
            let depth = top.depth + 1;
            let is_dir = ft.is_dir();
            // As the walkdir-based walker does, a directory is opened before
            // the rules are asked about it.
            let names = if is_dir {
                match list(&path) {
                    Ok(n) => Some(n),
                    Err(e) => return Some(Err(error(e, &path, depth))),
                }
            } else {
                None
            };
            if top.node.ignored(self.explicit.as_ref(), &path, is_dir)
                || self.filters.prune_path(&path, is_dir)
            {
                continue;
            }
            if let Some(names) = names {
                let node = Node::child(Some(top.node.clone()), &path, |n| {
                    names.iter().any(|(m, _)| m == n)
                });
                self.stack.push(Frame {
                    dir: path.clone(),
                    depth,
                    node: Arc::new(node),
                    names: names.into_iter(),
                });
            }
            return Some(Ok(Listed { path, ft, depth }));
        }
    }
}

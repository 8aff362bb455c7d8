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
            // ignore's DirEntry::file_name is `Path::file_name` (or the path).
            Dent::Walk(d) => super::order::file_name(d.path()).unwrap_or(d.path().as_os_str()),
            Dent::Listed(l) => super::order::file_name(&l.path).unwrap_or(l.path.as_os_str()),
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

/// The git directory holding `dir`'s `info/exclude`: the common directory a
/// `.git` file leads to (a worktree's is the main `.git`; a separate git dir
/// is its own), found as `git::git_dirs` finds it.
fn commondir(dir: &Path, git_type: Option<FileType>) -> Option<PathBuf> {
    if !git_type.is_some_and(|t| t.is_file()) {
        return Some(dir.join(".git"));
    }
    crate::workspace::git::git_dirs(dir).map(|(_, common)| common)
}

/// A directory being listed.
struct Frame {
    dir: PathBuf,
    depth: usize,
    node: Arc<Node>,
    /// What could not be read of it, reported before its entries.
    unread: std::vec::IntoIter<ignore::Error>,
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

/// What a directory's listing read: its entries sorted by name, and what it
/// could not read (an entry whose type could not be read; the directory itself
/// when its reading stopped part-way). What was read before a failure is kept.
pub(super) struct DirListing {
    pub(super) names: Vec<(OsString, FileType)>,
    unread: Vec<(PathBuf, io::Error)>,
}

impl DirListing {
    /// The failures as the walk's errors, at `depth` (the directory's).
    pub(super) fn errors(&mut self, dir: &Path, depth: usize) -> Vec<ignore::Error> {
        std::mem::take(&mut self.unread)
            .into_iter()
            .map(|(p, e)| error(e, &p, if p == dir { depth } else { depth + 1 }))
            .collect()
    }
}

/// Lists `dir`; fails only when it cannot be opened.
fn list(dir: &Path) -> io::Result<DirListing> {
    let entries = std::fs::read_dir(dir)?;
    Ok(collect(
        dir,
        entries.map(|e| e.map(|e| (e.file_name(), e.file_type()))),
    ))
}

/// [`DirListing`] of `dir` from its entries (name, type) as read: a failing
/// entry type is that entry unread; a failing read ends the listing there.
pub(super) fn collect(
    dir: &Path,
    entries: impl Iterator<Item = io::Result<(OsString, io::Result<FileType>)>>,
) -> DirListing {
    let mut names = Vec::new();
    let mut unread = Vec::new();
    for e in entries {
        match e {
            Ok((name, Ok(ft))) => names.push((name, ft)),
            Ok((name, Err(err))) => unread.push((dir.join(name), err)),
            Err(err) => {
                unread.push((dir.to_path_buf(), err));
                break;
            }
        }
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    DirListing { names, unread }
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
            let listing = list(&start).map_err(|e| error(e, &start, 0))?;
            let node = Node::child(Self::parents(&start), &start, |n| {
                listing.names.iter().any(|(m, _)| m == n)
            });
            self.push(start.clone(), 0, node, listing);
        }
        Ok(Listed {
            path: start,
            ft,
            depth: 0,
        })
    }

    /// Lists `dir`'s entries next (after what could not be read of it).
    fn push(&mut self, dir: PathBuf, depth: usize, node: Node, mut listing: DirListing) {
        let unread = listing.errors(&dir, depth);
        self.stack.push(Frame {
            dir,
            depth,
            node: Arc::new(node),
            unread: unread.into_iter(),
            names: listing.names.into_iter(),
        });
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
            if let Some(e) = top.unread.next() {
                return Some(Err(e));
            }
            let Some((name, ft)) = top.names.next() else {
                self.stack.pop();
                continue;
            };
            let path = top.dir.join(&name);
            let depth = top.depth + 1;
            let is_dir = ft.is_dir();
            // As the walkdir-based walker does, a directory is opened before
            // the rules are asked about it.
            let listing = if is_dir {
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
            if let Some(listing) = listing {
                let node = Node::child(Some(top.node.clone()), &path, |n| {
                    listing.names.iter().any(|(m, _)| m == n)
                });
                self.push(path.clone(), depth, node, listing);
            }
            return Some(Ok(Listed { path, ft, depth }));
        }
    }
}

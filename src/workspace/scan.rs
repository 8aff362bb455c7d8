//! The workspace scan shared by every scanning command (search, find, overview,
//! code, replace): ignore rules identical to git's, builtin excludes, filters, a
//! parallel walk whose results come back in path order.
//!
//! Ignore rules: inside a git work tree, `.gitignore` files (nested, with negation,
//! anchoring and directory-only patterns), `.git/info/exclude` and the global
//! `core.excludesFile` apply exactly as git applies them (the `ignore` crate, the
//! engine ripgrep uses). Outside a git work tree no `.gitignore` applies, as with
//! git; the `no-git` rows of `data/excludes.txt` (dependency installs and tool
//! caches) are skipped instead. `.git` and aitools' `.aitools-*.tmp` files are
//! always skipped. Hidden files are scanned (git does not hide them either).
//!
//! A path given as a start is taken as it is: a file start is scanned even when an
//! ignore rule covers it, as ripgrep does; the other filters still apply.

use globset::{GlobBuilder, GlobMatcher};
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

const EXCLUDES: &str = include_str!("../../data/excludes.txt");

/// Options every scanning command shares.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Include files the ignore rules exclude (`.git` and temp files stay out).
    pub no_ignore: bool,
    /// Glob filters (wildmatch; `!` excludes; without `/` they match the base name,
    /// with `/` the workspace-relative path).
    pub globs: Vec<String>,
    /// Only files of this language (a `data/languages.tsv` name).
    pub lang: Option<String>,
    /// Files above this size are not visited; they are reported as `too-large`.
    pub skip_larger_than: Option<u64>,
    /// Only entries modified after this instant.
    pub newer: Option<SystemTime>,
    /// Only entries at most this many levels below a start.
    pub max_depth: Option<usize>,
    /// Also visit directories, symlinks and other non-files (find).
    pub include_dirs: bool,
    /// Worker threads; 0 picks from `AITOOLS_THREADS` or the machine.
    pub threads: usize,
}

/// What an entry is (symlinks are never followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "dir",
            Kind::Symlink => "symlink",
            Kind::Other => "other",
        }
    }
}

/// One entry handed to a visitor.
pub struct Entry<'a> {
    /// The path as walked: a start joined with the names below it.
    pub path: &'a Path,
    pub kind: Kind,
    /// Levels below its start (0 for a start itself).
    pub depth: usize,
    meta: Option<Metadata>,
    dent: &'a ignore::DirEntry,
}

impl Entry<'_> {
    /// The entry's own metadata (a symlink's, not its target's).
    pub fn metadata(&self) -> io::Result<Metadata> {
        if let Some(m) = &self.meta {
            return Ok(m.clone());
        }
        self.dent.metadata().map_err(into_io)
    }
}

/// Why a file was not visited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    TooLarge,
    Unreadable,
}

impl SkipReason {
    pub fn name(&self) -> &'static str {
        match self {
            SkipReason::TooLarge => "too-large",
            SkipReason::Unreadable => "unreadable",
        }
    }
}

/// A finished walk: the visitors' results and the skipped paths, both in path order.
#[derive(Debug)]
pub struct Walked<T> {
    pub items: Vec<(PathBuf, T)>,
    pub skipped: Vec<(PathBuf, SkipReason)>,
    /// `gitignore`, `builtin`, or `none` (with --no-ignore).
    pub ignore_source: &'static str,
}

/// A filter the caller got wrong.
#[derive(Debug, Clone)]
pub enum ScanError {
    BadGlob { glob: String, message: String },
    UnknownLang(String),
}

impl ScanError {
    pub fn message(&self) -> String {
        match self {
            ScanError::BadGlob { glob, message } => {
                format!("--glob {glob:?} is not a glob: {message}.")
            }
            ScanError::UnknownLang(l) => format!(
                "--lang {l:?} is not a language of the table; known: {}.",
                crate::text::lang::names().join(", ")
            ),
        }
    }
}

fn into_io(e: ignore::Error) -> io::Error {
    match e.io_error() {
        Some(ioe) => io::Error::new(ioe.kind(), ioe.to_string()),
        None => io::Error::other(e.to_string()),
    }
}

/// Whether `root` is inside a git work tree (a `.git` in it or an ancestor).
pub fn in_git_repo(root: &Path) -> bool {
    root.ancestors().any(|a| a.join(".git").exists())
}

/// The `ignore_source` a scan of `root` reports.
pub fn ignore_source(root: &Path, no_ignore: bool) -> &'static str {
    if no_ignore {
        "none"
    } else if in_git_repo(root) {
        "gitignore"
    } else {
        "builtin"
    }
}

struct Glob {
    matcher: GlobMatcher,
    /// Matches the workspace-relative path rather than the base name.
    whole: bool,
}

impl Glob {
    fn is_match(&self, rel: &Path, base: &std::ffi::OsStr) -> bool {
        if self.whole {
            self.matcher.is_match(rel)
        } else {
            self.matcher.is_match(base)
        }
    }
}

fn compile_glob(text: &str) -> Result<Glob, ScanError> {
    let body = text.trim_end_matches('/');
    let whole = body.contains('/');
    let body = body.trim_start_matches('/');
    let matcher = GlobBuilder::new(body)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| ScanError::BadGlob {
            glob: text.to_string(),
            message: e.kind().to_string(),
        })?
        .compile_matcher();
    Ok(Glob { matcher, whole })
}

/// The compiled filters of one scan.
struct Filters {
    root: PathBuf,
    includes: Vec<Glob>,
    excludes: Vec<Glob>,
    always: Vec<Glob>,
    builtin_dirs: Vec<Glob>,
    lang: Option<&'static crate::text::lang::Language>,
    newer: Option<SystemTime>,
    skip_larger_than: Option<u64>,
    include_dirs: bool,
}

impl Filters {
    fn new(root: &Path, opts: &ScanOptions, builtin: bool) -> Result<Filters, ScanError> {
        let mut includes = Vec::new();
        let mut excludes = Vec::new();
        for g in &opts.globs {
            match g.strip_prefix('!') {
                Some(ex) => excludes.push(compile_glob(ex)?),
                None => includes.push(compile_glob(g)?),
            }
        }
        let mut always = Vec::new();
        let mut builtin_dirs = Vec::new();
        for line in EXCLUDES.lines() {
            if let Some((kind, glob)) = line.split_once('\t') {
                match kind {
                    "always" => always.push(compile_glob(glob)?),
                    "no-git" if builtin => builtin_dirs.push(compile_glob(glob)?),
                    _ => {}
                }
            }
        }
        let lang = match &opts.lang {
            Some(l) => {
                Some(crate::text::lang::named(l).ok_or_else(|| ScanError::UnknownLang(l.clone()))?)
            }
            None => None,
        };
        Ok(Filters {
            root: root.to_path_buf(),
            includes,
            excludes,
            always,
            builtin_dirs,
            lang,
            newer: opts.newer,
            skip_larger_than: opts.skip_larger_than,
            include_dirs: opts.include_dirs,
        })
    }

    fn rel<'p>(&self, path: &'p Path) -> &'p Path {
        path.strip_prefix(&self.root).unwrap_or(path)
    }

    /// Whether a walked entry (below a start) is pruned with everything below it.
    fn prune(&self, dent: &ignore::DirEntry) -> bool {
        let base = dent.file_name();
        let rel = self.rel(dent.path());
        if self.always.iter().any(|g| g.is_match(rel, base)) {
            return true;
        }
        let is_dir = dent.file_type().is_some_and(|t| t.is_dir());
        if is_dir && self.builtin_dirs.iter().any(|g| g.is_match(rel, base)) {
            return true;
        }
        self.excludes.iter().any(|g| g.is_match(rel, base))
    }
}

fn thread_count(opts: &ScanOptions) -> usize {
    if opts.threads > 0 {
        return opts.threads;
    }
    if let Some(n) = std::env::var("AITOOLS_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return n.min(64);
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(12)
}

struct Acc<T> {
    items: Vec<(PathBuf, T)>,
    skipped: Vec<(PathBuf, SkipReason)>,
}

/// One worker's results, handed to the shared accumulator when the worker ends.
struct Local<'s, T, V> {
    visit: V,
    filters: &'s Filters,
    acc: Acc<T>,
    shared: &'s Mutex<Acc<T>>,
}

impl<T, V> Drop for Local<'_, T, V> {
    fn drop(&mut self) {
        if let Ok(mut shared) = self.shared.lock() {
            shared.items.append(&mut self.acc.items);
            shared.skipped.append(&mut self.acc.skipped);
        }
    }
}

impl<T, V: FnMut(&Entry) -> Option<T>> Local<'_, T, V> {
    fn handle(&mut self, res: Result<ignore::DirEntry, ignore::Error>) {
        let dent = match res {
            Ok(d) => d,
            Err(e) => {
                if let Some(p) = error_path(&e) {
                    self.acc.skipped.push((p, SkipReason::Unreadable));
                }
                return;
            }
        };
        let f = self.filters;
        let kind = match dent.file_type() {
            Some(t) if t.is_file() => Kind::File,
            Some(t) if t.is_dir() => Kind::Dir,
            Some(t) if t.is_symlink() => Kind::Symlink,
            _ => Kind::Other,
        };
        if dent.depth() == 0 && kind == Kind::Dir {
            return;
        }
        if kind != Kind::File && !f.include_dirs {
            return;
        }
        let path = dent.path();
        let base = dent.file_name();
        let rel = f.rel(path);
        if !f.includes.is_empty() && !f.includes.iter().any(|g| g.is_match(rel, base)) {
            return;
        }
        if let Some(lang) = f.lang {
            let name = base.to_string_lossy();
            if kind != Kind::File
                || crate::text::lang::of_file(&name).is_none_or(|l| l.name != lang.name)
            {
                return;
            }
        }
        let mut meta = None;
        if f.newer.is_some() || (kind == Kind::File && f.skip_larger_than.is_some()) {
            match dent.metadata() {
                Ok(m) => meta = Some(m),
                Err(_) => {
                    self.acc
                        .skipped
                        .push((path.to_path_buf(), SkipReason::Unreadable));
                    return;
                }
            }
        }
        if let (Some(t), Some(m)) = (f.newer, &meta) {
            if m.modified().map_or(true, |mt| mt <= t) {
                return;
            }
        }
        if let (Some(max), Some(m), Kind::File) = (f.skip_larger_than, &meta, kind) {
            if m.len() > max {
                self.acc
                    .skipped
                    .push((path.to_path_buf(), SkipReason::TooLarge));
                return;
            }
        }
        let entry = Entry {
            path,
            kind,
            depth: dent.depth(),
            meta,
            dent: &dent,
        };
        if let Some(t) = (self.visit)(&entry) {
            self.acc.items.push((path.to_path_buf(), t));
        }
    }
}

fn error_path(e: &ignore::Error) -> Option<PathBuf> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
}

/// Walks `starts` in parallel. `make_visitor` builds one visitor per worker; a
/// visitor sees every entry that passes the filters (files, plus directories and
/// other kinds with `include_dirs`) and keeps what it returns. Results and skipped
/// paths come back sorted by path, so the output never depends on thread timing.
pub fn walk<T, B, V>(
    root: &Path,
    starts: &[PathBuf],
    opts: &ScanOptions,
    make_visitor: B,
) -> Result<Walked<T>, ScanError>
where
    T: Send,
    B: Fn() -> V + Sync,
    V: FnMut(&Entry) -> Option<T> + Send,
{
    let in_git = in_git_repo(root);
    let source = ignore_source(root, opts.no_ignore);
    let filters = Filters::new(root, opts, !opts.no_ignore && !in_git)?;
    let shared = Mutex::new(Acc {
        items: Vec::new(),
        skipped: Vec::new(),
    });
    let Some((first, rest)) = starts.split_first() else {
        return Ok(Walked {
            items: Vec::new(),
            skipped: Vec::new(),
            ignore_source: source,
        });
    };
    let mut b = ignore::WalkBuilder::new(first);
    for s in rest {
        b.add(s);
    }
    let use_git = !opts.no_ignore;
    // Git reads core.excludesFile from the repository's config before the user's,
    // and matches it from the top of the work tree; the ignore crate only reads the
    // user's and matches from the process cwd.
    let repo_excludes = if use_git {
        crate::workspace::git::work_tree(root).map(|wt| {
            b.current_dir(&wt);
            crate::workspace::git::repo_excludes_file(&wt)
        })
    } else {
        None
    };
    let repo_excludes = repo_excludes.flatten();
    if let Some(f) = &repo_excludes {
        let _ = b.add_ignore(f);
    }
    b.hidden(false)
        .ignore(false)
        .parents(use_git)
        .git_ignore(use_git)
        .git_global(use_git && repo_excludes.is_none())
        .git_exclude(use_git)
        .require_git(true)
        .follow_links(false)
        .max_depth(opts.max_depth)
        .threads(thread_count(opts));
    let prune_filters = Filters::new(root, opts, !opts.no_ignore && !in_git)?;
    b.filter_entry(move |d| d.depth() == 0 || !prune_filters.prune(d));
    let filters_ref = &filters;
    let shared_ref = &shared;
    let make_ref = &make_visitor;
    b.build_parallel().run(|| {
        let mut local = Local {
            visit: make_ref(),
            filters: filters_ref,
            acc: Acc {
                items: Vec::new(),
                skipped: Vec::new(),
            },
            shared: shared_ref,
        };
        Box::new(move |res| {
            local.handle(res);
            ignore::WalkState::Continue
        })
    });
    let mut acc = match shared.into_inner() {
        Ok(a) => a,
        Err(poisoned) => poisoned.into_inner(),
    };
    acc.items.sort_by(|a, b| a.0.cmp(&b.0));
    acc.items.dedup_by(|a, b| a.0 == b.0);
    acc.skipped.sort_by(|a, b| a.0.cmp(&b.0));
    acc.skipped.dedup_by(|a, b| a.0 == b.0);
    Ok(Walked {
        items: acc.items,
        skipped: acc.skipped,
        ignore_source: source,
    })
}

/// Regular files under `starts` (files are taken as they are), sorted by path.
pub fn files(root: &Path, starts: &[PathBuf], opts: &ScanOptions) -> io::Result<Vec<PathBuf>> {
    for s in starts {
        std::fs::symlink_metadata(s)?;
    }
    let mut o = opts.clone();
    o.include_dirs = false;
    let walked = walk(root, starts, &o, || |_: &Entry| Some(()))
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.message()))?;
    Ok(walked.items.into_iter().map(|(p, ())| p).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn every_exclude_row_parses() {
        for line in EXCLUDES.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (kind, glob) = line.split_once('\t').expect("two columns");
            assert!(kind == "always" || kind == "no-git", "{line}");
            compile_glob(glob).map_err(|e| e.message()).expect("glob");
        }
    }
    #[test]
    fn globs_base_name_or_path() {
        let g = compile_glob("*.rs").map_err(|e| e.message()).expect("glob");
        assert!(g.is_match(Path::new("a/b/c.rs"), std::ffi::OsStr::new("c.rs")));
        let g = compile_glob("src/*.rs")
            .map_err(|e| e.message())
            .expect("glob");
        assert!(g.whole);
        assert!(g.is_match(Path::new("src/c.rs"), std::ffi::OsStr::new("c.rs")));
        assert!(!g.is_match(Path::new("src/a/c.rs"), std::ffi::OsStr::new("c.rs")));
        let g = compile_glob("src/**/*.rs")
            .map_err(|e| e.message())
            .expect("glob");
        assert!(g.is_match(Path::new("src/a/b/c.rs"), std::ffi::OsStr::new("c.rs")));
    }
}

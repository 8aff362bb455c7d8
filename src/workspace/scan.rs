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
//!
//! A walk spends a `Budget` (files visited, their bytes, wall time; unlimited
//! unless the caller sets one) and stops when it is spent, reporting `Walked::cut`.
//! A walk that leaves the workspace passes over procfs/sysfs directories
//! (`SkipReason::Special`): their files report size 0 and a read may block.
//!
//! With an `Overlay` (a tx's changes, `--tx`), the disk walk skips what the tx
//! removed or replaced, and the tx's files are visited from their staged bytes
//! (`Entry::content`), passing the same filters. When the tx changes a
//! `.gitignore`, the ignore rules are evaluated here from the tx's view of every
//! `.gitignore` instead of by the walker.

use globset::{GlobBuilder, GlobMatcher};
use std::collections::{BTreeMap, HashMap};
use std::fs::Metadata;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

mod budget;
mod disk;
mod filters;
mod lister;
use lister::Dent;
mod order;
mod ordered;
pub mod skipped;
mod sorted;
mod staged;
mod starts;
use budget::Meter;
pub use budget::{Budget, Cut};
pub use disk::{
    Listed, exists_nofollow, is_fifo_at, lstat, open_file, open_listed, open_sized, real_start,
};
#[allow(unused_imports)]
use filters::*;
pub use order::{path_order, strip_root};
pub use ordered::walk_ordered;
pub use sorted::threads;
#[allow(unused_imports)]
pub use staged::*;
use starts::{disk_starts, git_excludes};

/// A tx's changes as a scan sees them, by absolute path.
#[derive(Debug, Default)]
pub struct Overlay {
    pub nodes: BTreeMap<PathBuf, OverlayNode>,
}

/// A path's staged state.
#[derive(Debug, Clone)]
pub enum OverlayNode {
    Missing,
    File { bytes: Arc<Vec<u8>>, mode: u32 },
    Dir,
    Symlink,
}

impl Overlay {
    /// The overlay's verdict on `p`: its node, or `Missing` under a removed or
    /// replaced ancestor; `None` when the disk decides.
    pub fn node(&self, p: &Path) -> Option<&OverlayNode> {
        if let Some(n) = self.nodes.get(p) {
            return Some(n);
        }
        for a in p.ancestors().skip(1) {
            match self.nodes.get(a) {
                Some(OverlayNode::Dir) | None => {}
                Some(_) => return Some(&OverlayNode::Missing),
            }
        }
        None
    }

    fn touches_gitignore(&self) -> bool {
        self.nodes
            .keys()
            .any(|p| p.file_name().is_some_and(|n| n == ".gitignore"))
    }
}

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
    /// A tx's changes to scan as if they were on disk (`--tx`).
    pub overlay: Option<Arc<Overlay>>,
    /// How much the walk may do before it stops and reports `Walked::cut`;
    /// unlimited by default (a write scan, such as replace's, must see everything).
    pub budget: Budget,
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
    dent: Option<&'a Dent>,
    staged: Option<&'a OverlayNode>,
}

/// Size, mode and modification time of an entry (disk or staged).
#[derive(Debug, Clone, Copy)]
pub struct EntryStat {
    pub len: u64,
    pub mode: u32,
    /// Seconds and nanoseconds since the epoch (now, for a staged entry).
    pub mtime: (i64, u32),
}

impl Entry<'_> {
    /// The entry's own metadata (a symlink's, not its target's); an error for an
    /// entry only a tx has (use `stat`).
    pub fn metadata(&self) -> io::Result<Metadata> {
        if let Some(m) = &self.meta {
            return Ok(m.clone());
        }
        match self.dent {
            Some(d) => d.metadata(),
            None => Err(io::Error::other("staged in a tx")),
        }
    }

    /// Size, mode and mtime, for disk and staged entries alike.
    pub fn stat(&self) -> io::Result<EntryStat> {
        match self.staged {
            Some(node) => {
                let (len, mode) = match node {
                    OverlayNode::File { bytes, mode } => (bytes.len() as u64, *mode),
                    OverlayNode::Dir => (0, 0o755),
                    _ => (0, 0o777),
                };
                let (s, n) = crate::protocol::time::now();
                Ok(EntryStat {
                    len,
                    mode,
                    mtime: (s, n),
                })
            }
            None => {
                let m = self.metadata()?;
                Ok(EntryStat {
                    len: m.len(),
                    mode: m.mode(),
                    mtime: (m.mtime(), m.mtime_nsec().clamp(0, 999_999_999) as u32),
                })
            }
        }
    }

    /// The staged bytes of a file a tx changed; `None` for a file on disk.
    pub fn content(&self) -> Option<&[u8]> {
        match self.staged {
            Some(OverlayNode::File { bytes, .. }) => Some(bytes.as_slice()),
            _ => None,
        }
    }

    /// Whether this is a named pipe (only a start can be: see `walk`).
    pub fn is_pipe(&self) -> bool {
        self.kind == Kind::Other && self.dent.is_some_and(is_fifo_or_link)
    }

    /// A named pipe's bytes, up to `cap`; `None` when it holds more; a
    /// `TimedOut` error when no writer came within `disk::PIPE_WRITER_WAIT`.
    pub fn read_pipe(&self, cap: u64) -> io::Result<Option<Vec<u8>>> {
        disk::read_fifo(self.path, cap, disk::PIPE_WRITER_WAIT)
    }

    /// The file's bytes: staged, or read from disk.
    pub fn read(&self) -> io::Result<Vec<u8>> {
        match self.content() {
            Some(b) => Ok(b.to_vec()),
            None => {
                use std::io::Read;
                let mut out = Vec::new();
                disk::open_file(self.path)?.read_to_end(&mut out)?;
                Ok(out)
            }
        }
    }
}

/// Why a file was not visited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    TooLarge,
    Unreadable,
    /// A path that is not UTF-8: no argument (they are UTF-8) could name it, an
    /// answer could only show it mangled, and the journal cannot record it.
    NonUtf8Name,
    /// A procfs/sysfs directory or file (a scan outside the workspace reached a
    /// kernel file system): its files report size 0 and a read may block.
    Special,
}

impl SkipReason {
    pub fn name(&self) -> &'static str {
        match self {
            SkipReason::TooLarge => "too-large",
            SkipReason::Unreadable => "unreadable",
            SkipReason::NonUtf8Name => "non-utf8-name",
            SkipReason::Special => "special",
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
    /// Set when the walk stopped at its budget: the items are then a part of
    /// what the starts hold.
    pub cut: Option<Cut>,
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

fn thread_count(opts: &ScanOptions) -> usize {
    if opts.threads > 0 {
        return opts.threads;
    }
    default_threads()
}

/// `AITOOLS_THREADS`, else the machine's parallelism (at most 12): worked out
/// once per process, as asking the machine reads cgroup files every time.
fn default_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
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
    })
}

/// Readies what the first scan of a process asks for on its way to its first
/// entry: the worker count (the machine's parallelism, read from cgroup files)
/// and the size of the regex engine's matcher pools (the same question, which
/// the ignore crate's walker asks when it is built). Both are kept for the
/// process; the AOI mode calls this on its otherwise idle main thread.
pub fn warm() {
    let _ = default_threads();
    let _ = ignore::types::Types::empty();
}

struct Acc<T> {
    items: Vec<(PathBuf, T)>,
    skipped: Vec<(PathBuf, SkipReason)>,
}

impl<T> Acc<T> {
    fn empty() -> Acc<T> {
        Acc {
            items: Vec::new(),
            skipped: Vec::new(),
        }
    }
}

/// One worker's results, handed to the shared accumulator when the worker ends.
struct Local<'s, T, V> {
    visit: V,
    filters: &'s Filters,
    meter: &'s Meter,
    acc: Acc<T>,
    shared: &'s Mutex<Acc<T>>,
}

impl<'s, T, V> Local<'s, T, V> {
    /// A worker's state: nothing accumulated yet, handed to `shared` on drop.
    fn new(visit: V, filters: &'s Filters, meter: &'s Meter, shared: &'s Mutex<Acc<T>>) -> Self {
        Local {
            visit,
            filters,
            meter,
            acc: Acc::empty(),
            shared,
        }
    }
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
    fn handle(&mut self, res: Result<Dent, ignore::Error>) -> ignore::WalkState {
        if self.meter.spent() {
            return ignore::WalkState::Quit;
        }
        self.handle_entry(res);
        if self.meter.spent() {
            ignore::WalkState::Quit
        } else {
            ignore::WalkState::Continue
        }
    }

    fn handle_entry(&mut self, res: Result<Dent, ignore::Error>) {
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
            // A start that is a link to a pipe (`<(cmd)` is /dev/fd/N) is read
            // as the pipe it names.
            Some(t) if t.is_symlink() && dent.depth() == 0 && disk::is_fifo_at(dent.path()) => {
                Kind::Other
            }
            Some(t) if t.is_symlink() => Kind::Symlink,
            _ => Kind::Other,
        };
        if dent.depth() == 0 && kind == Kind::Dir {
            return;
        }
        // A named pipe given as a start is read, as ripgrep reads `<(cmd)`.
        let piped = dent.depth() == 0 && kind == Kind::Other && is_fifo_or_link(&dent);
        if kind != Kind::File && !f.include_dirs && !piped {
            return;
        }
        let path = dent.path();
        let base = dent.file_name();
        let rel = f.rel(path);
        if rel.to_str().is_none() {
            self.acc
                .skipped
                .push((path.to_path_buf(), SkipReason::NonUtf8Name));
            return;
        }
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
        let metered = kind == Kind::File && self.meter.budget.bytes != u64::MAX;
        if f.newer.is_some() || (kind == Kind::File && f.skip_larger_than.is_some()) || metered {
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
        if let (Some(t), Some(m)) = (f.newer, &meta)
            && m.modified().map_or(true, |mt| mt <= t)
        {
            return;
        }
        if let (Some(max), Some(m), Kind::File) = (f.skip_larger_than, &meta, kind)
            && m.len() > max
        {
            self.acc
                .skipped
                .push((path.to_path_buf(), SkipReason::TooLarge));
            return;
        }
        if kind == Kind::File && !self.meter.charge(meta.as_ref().map_or(0, |m| m.len())) {
            return;
        }
        let entry = Entry {
            path,
            kind,
            depth: dent.depth(),
            meta,
            dent: Some(&dent),
            staged: None,
        };
        if let Some(t) = (self.visit)(&entry) {
            self.acc.items.push((path.to_path_buf(), t));
        }
    }
}

fn is_fifo(d: &Dent) -> bool {
    use std::os::unix::fs::FileTypeExt;
    d.file_type().is_some_and(|t| t.is_fifo())
}

/// A FIFO, or (a start only: `handle_entry` kinds no other link `Other`) a
/// link to one.
fn is_fifo_or_link(d: &Dent) -> bool {
    is_fifo(d) || (d.depth() == 0 && d.file_type().is_some_and(|t| t.is_symlink()))
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

/// A walk with its starts, filters and walker settled, ready to run.
struct Plan {
    source: &'static str,
    /// The ignore rules of git apply (in a work tree, without --no-ignore).
    git_rules: bool,
    filters: Arc<Filters>,
    meter: Meter,
    overlay: Option<Arc<Overlay>>,
    /// procfs/sysfs paths passed over, reported as `special`.
    special: Arc<Mutex<Vec<PathBuf>>>,
    ignorer: Arc<Ignorer>,
    /// The disk walker; none when no start is on disk.
    builder: Option<ignore::WalkBuilder>,
    /// Set when the ordered walk may list with its own lister (`lister.rs`):
    /// the walker's rules are the ones it applies.
    own_lister: Option<OwnLister>,
}

/// What the ordered walk's own lister needs, kept unchecked and unread until
/// that walk asks (`ready`): other walks pay nothing for it.
struct OwnLister {
    starts: Vec<PathBuf>,
    work_tree: PathBuf,
    excludes: PathBuf,
}

impl OwnLister {
    /// The starts and the excludes file's rules, when every start is real
    /// (absolute, no symlink on the way) and a directory or a file.
    fn ready(self) -> Option<(Vec<PathBuf>, Option<ignore::gitignore::Gitignore>)> {
        let plain = self.starts.iter().all(|s| {
            s.is_absolute()
                && std::fs::canonicalize(s).is_ok_and(|c| &c == s)
                && std::fs::symlink_metadata(s)
                    .is_ok_and(|m| m.file_type().is_dir() || m.file_type().is_file())
        });
        if !plain {
            return None;
        }
        let explicit = if self.excludes.is_file() {
            let mut g = ignore::gitignore::GitignoreBuilder::new(&self.work_tree);
            let _ = g.add(&self.excludes);
            g.build().ok()
        } else {
            None
        };
        Some((self.starts, explicit))
    }
}

impl Plan {
    fn new(root: &Path, starts: &[PathBuf], opts: &ScanOptions) -> Result<Plan, ScanError> {
        let in_git = in_git_repo(root);
        let source = ignore_source(root, opts.no_ignore);
        // Built once: the walk's per-entry filter and its directory pruning share it.
        let filters = Arc::new(Filters::new(root, opts, !opts.no_ignore && !in_git)?);
        let overlay = opts.overlay.clone();
        let meter = Meter::new(opts.budget);
        // A scan that leaves the workspace (or a workspace at /) may reach a kernel
        // file system; those directories are checked and passed over. In-tree scans
        // skip the per-directory statfs.
        let guard_pseudo = root == Path::new("/") || starts.iter().any(|s| !s.starts_with(root));
        let (disk_starts, special) = disk_starts(starts, overlay.as_deref(), guard_pseudo);
        let special = Arc::new(Mutex::new(special));
        let manual = overlay
            .as_ref()
            .is_some_and(|o| o.touches_gitignore() && !opts.no_ignore && in_git);
        let ignorer = Arc::new(Ignorer::new(root, overlay.clone()));
        let mut plan = Plan {
            source,
            git_rules: !opts.no_ignore && in_git,
            filters,
            meter,
            overlay,
            special,
            ignorer,
            builder: None,
            own_lister: None,
        };
        let Some((first, rest)) = disk_starts.split_first() else {
            return Ok(plan);
        };
        let mut b = ignore::WalkBuilder::new(first);
        for s in rest {
            b.add(s);
        }
        let use_git = !opts.no_ignore;
        let (work_tree, excludes) = match use_git {
            true => git_excludes(&mut b, root, manual, &disk_starts),
            false => (None, None),
        };
        let explicit_excludes = match &excludes {
            Some(crate::workspace::git::ExcludesFile::Path(f)) => {
                if f.is_file() {
                    let _ = b.add_ignore(f);
                }
                true
            }
            _ => false,
        };
        // The ordered walk's own lister applies exactly these settings: git
        // rules inside a work tree, an explicit excludes file, no depth limit, no
        // kernel file system in reach (the starts are checked by `OwnLister::ready`,
        // only by the walk that uses it).
        if use_git
            && in_git
            && !manual
            && !guard_pseudo
            && opts.max_depth.is_none()
            && let (Some(wt), Some(crate::workspace::git::ExcludesFile::Path(f))) =
                (&work_tree, &excludes)
        {
            plan.own_lister = Some(OwnLister {
                starts: disk_starts.clone(),
                work_tree: wt.clone(),
                excludes: f.clone(),
            });
        }
        b.hidden(false)
            .ignore(false)
            .parents(use_git && !manual)
            .git_ignore(use_git && !manual)
            .git_global(use_git && !explicit_excludes)
            .git_exclude(use_git)
            .require_git(true)
            .follow_links(false)
            .max_depth(opts.max_depth)
            .threads(thread_count(opts));
        plan.filter_entry(&mut b, guard_pseudo, manual);
        plan.builder = Some(b);
        Ok(plan)
    }

    /// The walker's entry filter: it passes over kernel file systems (when in
    /// reach; noted as `special`), paths the tx staged other than as a directory,
    /// ignored ones when the tx touched a .gitignore (`manual`), and directories
    /// the filters prune.
    fn filter_entry(&self, b: &mut ignore::WalkBuilder, guard_pseudo: bool, manual: bool) {
        let prune_filters = self.filters.clone();
        let prune_overlay = self.overlay.clone();
        let prune_ignorer = self.ignorer.clone();
        let special_ref = self.special.clone();
        b.filter_entry(move |d| {
            if guard_pseudo
                && d.file_type().is_some_and(|t| t.is_dir())
                && super::input::pseudo_fs(d.path()).is_some()
            {
                if let Ok(mut v) = special_ref.lock() {
                    v.push(d.path().to_path_buf());
                }
                return false;
            }
            if let Some(o) = &prune_overlay {
                match o.node(d.path()) {
                    None | Some(OverlayNode::Dir) => {}
                    Some(_) => return false,
                }
                let is_dir = d.file_type().is_some_and(|t| t.is_dir());
                if manual && d.depth() > 0 && prune_ignorer.ignored_one(d.path(), is_dir) {
                    return false;
                }
            }
            d.depth() == 0 || !prune_filters.prune(d)
        });
    }

    /// The disk walk's results plus the tx's staged files and the special paths,
    /// in path order.
    fn finish<T, B, V>(
        self,
        mut acc: Acc<T>,
        starts: &[PathBuf],
        opts: &ScanOptions,
        make_visitor: &B,
    ) -> Walked<T>
    where
        B: Fn() -> V,
        V: FnMut(&Entry) -> Option<T>,
    {
        if let Some(o) = &self.overlay {
            visit_staged(
                o,
                starts,
                opts,
                &self.filters,
                &self.ignorer,
                self.git_rules,
                make_visitor,
                &mut acc,
            );
        }
        let special = self.special.lock().map(|v| v.clone()).unwrap_or_default();
        acc.skipped
            .extend(special.into_iter().map(|p| (p, SkipReason::Special)));
        finish(acc, self.source, self.meter.cut())
    }
}

/// Walks `starts` in parallel. `make_visitor` builds one visitor per worker; a
/// visitor sees every entry that passes the filters (files, plus directories and
/// other kinds with `include_dirs`) and keeps what it returns. Results and skipped
/// paths come back sorted by path, so the output never depends on thread timing:
/// each worker sorts its own results as it ends and the runs are merged
/// (`sorted.rs`).
pub use sorted::walk;
/// The walk's results in path order, each path once (a path under two starts, or
/// both on disk and staged, is visited twice).
fn finish<T>(mut acc: Acc<T>, ignore_source: &'static str, cut: Option<Cut>) -> Walked<T> {
    sorted::sort_dedup(&mut acc.items);
    sorted::sort_dedup(&mut acc.skipped);
    Walked {
        items: acc.items,
        skipped: acc.skipped,
        ignore_source,
        cut,
    }
}
/// Regular files under `starts` (files are taken as they are), sorted by path.
pub fn files(root: &Path, starts: &[PathBuf], opts: &ScanOptions) -> io::Result<Vec<PathBuf>> {
    files_and_skipped(root, starts, opts).map(|(f, _)| f)
}

/// [`files`], with the files the walk skipped and why.
#[allow(clippy::type_complexity)]
pub fn files_and_skipped(
    root: &Path,
    starts: &[PathBuf],
    opts: &ScanOptions,
) -> io::Result<(Vec<PathBuf>, Vec<(PathBuf, SkipReason)>)> {
    for s in starts {
        std::fs::symlink_metadata(s)?;
    }
    let mut o = opts.clone();
    o.include_dirs = false;
    let walked = walk(root, starts, &o, || |_: &Entry| Some(()))
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.message()))?;
    Ok((
        walked.items.into_iter().map(|(p, ())| p).collect(),
        walked.skipped,
    ))
}

#[cfg(test)]
mod tests;

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
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

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

/// What one scan may spend: files visited, bytes of those files, wall time.
/// The read-only scans (search, find, overview, code) take [`Budget::DEFAULT`]
/// inside and outside the workspace alike, so `overview /` ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub files: u64,
    pub bytes: u64,
    pub time: Duration,
}

impl Budget {
    pub const UNLIMITED: Budget = Budget {
        files: u64::MAX,
        bytes: u64::MAX,
        time: Duration::MAX,
    };
    /// Far above a large repository (a few seconds of ripgrep-speed work); a
    /// whole file system is cut.
    pub const DEFAULT: Budget = Budget {
        files: 200_000,
        bytes: 16 << 30,
        time: Duration::from_secs(10),
    };
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::UNLIMITED
    }
}

/// Which budget a walk spent, and what it had visited when it stopped.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Cut {
    /// `files`, `bytes` or `time`.
    pub budget: &'static str,
    pub files: u64,
    pub bytes: u64,
}

/// The walk's spending against its budget, shared by the workers.
struct Meter {
    budget: Budget,
    start: Instant,
    files: AtomicU64,
    bytes: AtomicU64,
    /// 0 while within budget, else 1 + the index in `REASONS`.
    stop: AtomicU8,
}

const REASONS: [&str; 3] = ["files", "bytes", "time"];

impl Meter {
    fn new(budget: Budget) -> Meter {
        Meter {
            budget,
            start: Instant::now(),
            files: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            stop: AtomicU8::new(0),
        }
    }

    fn halt(&self, reason: usize) {
        let _ = self
            .stop
            .compare_exchange(0, reason as u8 + 1, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Whether the walk must stop: a budget is spent or the time is up.
    fn spent(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) != 0 {
            return true;
        }
        if self.budget.time != Duration::MAX && self.start.elapsed() > self.budget.time {
            self.halt(2);
            return true;
        }
        false
    }

    /// Charges one file of `len` bytes before it is visited; false (and the walk
    /// stops) when it would overspend.
    fn charge(&self, len: u64) -> bool {
        if self.spent() {
            return false;
        }
        if self.files.fetch_add(1, Ordering::SeqCst) >= self.budget.files {
            self.files.fetch_sub(1, Ordering::SeqCst);
            self.halt(0);
            return false;
        }
        let before = self.bytes.fetch_add(len, Ordering::SeqCst);
        if before.saturating_add(len) > self.budget.bytes {
            self.bytes.fetch_sub(len, Ordering::SeqCst);
            self.files.fetch_sub(1, Ordering::SeqCst);
            self.halt(1);
            return false;
        }
        true
    }

    fn cut(&self) -> Option<Cut> {
        let r = self.stop.load(Ordering::SeqCst);
        (r != 0).then(|| Cut {
            budget: REASONS[(r as usize - 1).min(2)],
            files: self.files.load(Ordering::SeqCst),
            bytes: self.bytes.load(Ordering::SeqCst),
        })
    }
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
    dent: Option<&'a ignore::DirEntry>,
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
            Some(d) => d.metadata().map_err(into_io),
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

    /// The file's bytes: staged, or read from disk.
    pub fn read(&self) -> io::Result<Vec<u8>> {
        match self.content() {
            Some(b) => Ok(b.to_vec()),
            None => std::fs::read(self.path),
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

struct Glob {
    how: GlobMatch,
    /// Matches the workspace-relative path rather than the base name.
    whole: bool,
}

/// Most globs are names (`.git`) or one star between literals (`.aitools-*.tmp`,
/// `*.rs`); compiling those to a regex costs more than a scan of a small tree, so
/// only the rest go to globset.
enum GlobMatch {
    Exact(String),
    /// `prefix*suffix` with no `/` (a star does not cross a separator).
    Star(String, String),
    Compiled(GlobMatcher),
}

impl Glob {
    fn is_match(&self, rel: &Path, base: &std::ffi::OsStr) -> bool {
        let subject = if self.whole { rel.as_os_str() } else { base };
        let bytes = subject.as_encoded_bytes();
        match &self.how {
            GlobMatch::Exact(text) => bytes == text.as_bytes(),
            GlobMatch::Star(pre, suf) => {
                bytes.len() >= pre.len() + suf.len()
                    && bytes.starts_with(pre.as_bytes())
                    && bytes.ends_with(suf.as_bytes())
                    && !bytes[pre.len()..bytes.len() - suf.len()].contains(&b'/')
            }
            GlobMatch::Compiled(m) => m.is_match(subject),
        }
    }
}

fn compile_glob(text: &str) -> Result<Glob, ScanError> {
    let body = text.trim_end_matches('/');
    let whole = body.contains('/');
    let body = body.trim_start_matches('/');
    let meta = |c: char| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\');
    if !body.contains(meta) {
        return Ok(Glob {
            how: GlobMatch::Exact(body.to_string()),
            whole,
        });
    }
    if let Some((pre, suf)) = body.split_once('*')
        && !pre.contains(meta)
        && !suf.contains(meta)
        && !pre.contains('/')
        && !suf.contains('/')
    {
        return Ok(Glob {
            how: GlobMatch::Star(pre.to_string(), suf.to_string()),
            whole,
        });
    }
    let matcher = GlobBuilder::new(body)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| ScanError::BadGlob {
            glob: text.to_string(),
            message: e.kind().to_string(),
        })?
        .compile_matcher();
    Ok(Glob {
        how: GlobMatch::Compiled(matcher),
        whole,
    })
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
        let is_dir = dent.file_type().is_some_and(|t| t.is_dir());
        self.prune_path(dent.path(), is_dir)
    }

    fn prune_path(&self, path: &Path, is_dir: bool) -> bool {
        let Some(base) = path.file_name() else {
            return false;
        };
        let rel = self.rel(path);
        if self.always.iter().any(|g| g.is_match(rel, base)) {
            return true;
        }
        if is_dir && self.builtin_dirs.iter().any(|g| g.is_match(rel, base)) {
            return true;
        }
        self.excludes.iter().any(|g| g.is_match(rel, base))
    }

    /// The filters `Local::handle` applies after pruning, for a staged entry.
    fn admits(&self, path: &Path, kind: Kind, len: u64) -> Option<bool> {
        if kind != Kind::File && !self.include_dirs {
            return None;
        }
        let base = path.file_name()?;
        let rel = self.rel(path);
        if !self.includes.is_empty() && !self.includes.iter().any(|g| g.is_match(rel, base)) {
            return None;
        }
        if let Some(lang) = self.lang {
            let name = base.to_string_lossy();
            if kind != Kind::File
                || crate::text::lang::of_file(&name).is_none_or(|l| l.name != lang.name)
            {
                return None;
            }
        }
        if let (Some(max), Kind::File) = (self.skip_larger_than, kind)
            && len > max
        {
            return Some(false);
        }
        Some(true)
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
    meter: &'s Meter,
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
    fn handle(&mut self, res: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
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

    fn handle_entry(&mut self, res: Result<ignore::DirEntry, ignore::Error>) {
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
    // Built once: the walk's per-entry filter and its directory pruning share it.
    let filters = std::sync::Arc::new(Filters::new(root, opts, !opts.no_ignore && !in_git)?);
    let shared = Mutex::new(Acc {
        items: Vec::new(),
        skipped: Vec::new(),
    });
    let overlay = opts.overlay.clone();
    let meter = Meter::new(opts.budget);
    // A scan that leaves the workspace (or a workspace at /) may reach a kernel
    // file system; those directories are checked and passed over. In-tree scans
    // skip the per-directory statfs.
    let guard_pseudo = root == Path::new("/") || starts.iter().any(|s| !s.starts_with(root));
    let mut special: Vec<PathBuf> = Vec::new();
    // Starts the tx removed, replaced or created are not walked on disk.
    let disk_starts: Vec<PathBuf> = starts
        .iter()
        .filter(|s| match overlay.as_ref().and_then(|o| o.node(s)) {
            None | Some(OverlayNode::Dir) => fsx_exists(s),
            Some(_) => false,
        })
        .filter(|s| {
            let pseudo = guard_pseudo && super::input::pseudo_fs(s).is_some();
            if pseudo {
                special.push(s.to_path_buf());
            }
            !pseudo
        })
        .cloned()
        .collect();
    let special = Arc::new(Mutex::new(special));
    let manual = overlay
        .as_ref()
        .is_some_and(|o| o.touches_gitignore() && !opts.no_ignore && in_git);
    let ignorer = Arc::new(Ignorer::new(root, overlay.clone()));
    let Some((first, rest)) = disk_starts.split_first() else {
        let mut acc = Acc {
            items: Vec::new(),
            skipped: Vec::new(),
        };
        if let Some(o) = &overlay {
            visit_staged(
                o,
                starts,
                opts,
                &filters,
                &ignorer,
                !opts.no_ignore && in_git,
                &make_visitor,
                &mut acc,
            );
        }
        let special = special.lock().map(|v| v.clone()).unwrap_or_default();
        acc.skipped
            .extend(special.into_iter().map(|p| (p, SkipReason::Special)));
        return Ok(finish(acc, source, meter.cut()));
    };
    let mut b = ignore::WalkBuilder::new(first);
    for s in rest {
        b.add(s);
    }
    let use_git = !opts.no_ignore;
    // Git reads core.excludesFile from the repository's config before the user's
    // (and honours GIT_CONFIG_GLOBAL), and matches it from the top of the work
    // tree; the ignore crate only reads the user's and matches from the process cwd.
    let excludes = if use_git {
        crate::workspace::git::work_tree(root).map(|wt| {
            b.current_dir(&wt);
            crate::workspace::git::excludes_file(&wt)
        })
    } else {
        None
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
    let prune_filters = filters.clone();
    let prune_overlay = overlay.clone();
    let prune_ignorer = ignorer.clone();
    let special_ref = special.clone();
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
    let filters_ref = &*filters;
    let shared_ref = &shared;
    let make_ref = &make_visitor;
    let meter_ref = &meter;
    b.build_parallel().run(|| {
        let mut local = Local {
            visit: make_ref(),
            filters: filters_ref,
            meter: meter_ref,
            acc: Acc {
                items: Vec::new(),
                skipped: Vec::new(),
            },
            shared: shared_ref,
        };
        Box::new(move |res| local.handle(res))
    });
    let mut acc = match shared.into_inner() {
        Ok(a) => a,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some(o) = &overlay {
        visit_staged(
            o,
            starts,
            opts,
            &filters,
            &ignorer,
            !opts.no_ignore && in_git,
            &make_visitor,
            &mut acc,
        );
    }
    let special = special.lock().map(|v| v.clone()).unwrap_or_default();
    acc.skipped
        .extend(special.into_iter().map(|p| (p, SkipReason::Special)));
    Ok(finish(acc, source, meter.cut()))
}

/// The walk's results in path order, each path once (a path under two starts, or
/// both on disk and staged, is visited twice).
fn finish<T>(mut acc: Acc<T>, ignore_source: &'static str, cut: Option<Cut>) -> Walked<T> {
    acc.items.sort_by(|a, b| a.0.cmp(&b.0));
    acc.items.dedup_by(|a, b| a.0 == b.0);
    acc.skipped.sort_by(|a, b| a.0.cmp(&b.0));
    acc.skipped.dedup_by(|a, b| a.0 == b.0);
    Walked {
        items: acc.items,
        skipped: acc.skipped,
        ignore_source,
        cut,
    }
}

/// Whether the scan's rules leave `path` (an existing path below `root`) out: it,
/// or a directory above it, is not listed when its parent is walked. Each
/// ancestor's listing is asked, so the answer is the scan's own, rule for rule.
pub fn is_ignored(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let opts = ScanOptions {
        include_dirs: true,
        max_depth: Some(1),
        threads: 1,
        ..ScanOptions::default()
    };
    let mut dir = root.to_path_buf();
    let mut names = rel.components().peekable();
    while let Some(name) = names.next() {
        let next = dir.join(name);
        if !fsx_exists(&next) {
            // Not on disk (a path a tx creates): no walk lists it, so its
            // `.gitignore` rules decide, as they will once it exists.
            let rules = Ignorer::new(root, None);
            let mut p = next;
            loop {
                let last = names.peek().is_none();
                if rules.ignored_one(&p, !last) {
                    return true;
                }
                match names.next() {
                    Some(n) => p = p.join(n),
                    None => return false,
                }
            }
        }
        let listed = walk(root, std::slice::from_ref(&dir), &opts, || {
            |e: &Entry| (e.depth == 1).then_some(())
        });
        match listed {
            Ok(w) if w.items.iter().any(|(p, ())| *p == next) => {}
            Ok(_) => return true,
            Err(_) => return false,
        }
        dir = next;
    }
    false
}

fn fsx_exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

/// Visits the overlay's files (and, with `include_dirs`, its new directories and
/// symlinks) below the starts, through the same filters as the disk walk.
#[allow(clippy::too_many_arguments)]
fn visit_staged<T, B, V>(
    o: &Overlay,
    starts: &[PathBuf],
    opts: &ScanOptions,
    filters: &Filters,
    ignorer: &Ignorer,
    use_git: bool,
    make_visitor: &B,
    acc: &mut Acc<T>,
) where
    B: Fn() -> V,
    V: FnMut(&Entry) -> Option<T>,
{
    let mut visit = make_visitor();
    for (p, node) in &o.nodes {
        let kind = match node {
            OverlayNode::Missing => continue,
            OverlayNode::File { .. } => Kind::File,
            OverlayNode::Symlink => Kind::Symlink,
            OverlayNode::Dir => {
                if fsx_exists(p) {
                    continue;
                }
                Kind::Dir
            }
        };
        // Under a removed ancestor, or replaced by a later node: not there.
        if p.ancestors()
            .skip(1)
            .any(|a| matches!(o.nodes.get(a), Some(n) if !matches!(n, OverlayNode::Dir)))
        {
            continue;
        }
        let Some(start) = starts.iter().find(|s| p.starts_with(s)) else {
            continue;
        };
        let depth = p
            .strip_prefix(start)
            .map(|r| r.components().count())
            .unwrap_or(0);
        if depth == 0 && kind == Kind::Dir {
            continue;
        }
        if opts.max_depth.is_some_and(|m| depth > m) {
            continue;
        }
        // Pruning rules on every level below the start, as the walk applies them.
        let mut pruned = false;
        for a in p.ancestors() {
            if a == start.as_path() || !a.starts_with(start) {
                break;
            }
            let is_dir = a != p.as_path() || kind == Kind::Dir;
            if filters.prune_path(a, is_dir)
                || (use_git && ignorer.ignored_one(a, is_dir) && a != start.as_path())
            {
                pruned = true;
                break;
            }
        }
        if pruned && p != start {
            continue;
        }
        let len = match node {
            OverlayNode::File { bytes, .. } => bytes.len() as u64,
            _ => 0,
        };
        match filters.admits(p, kind, len) {
            None => continue,
            Some(false) => {
                acc.skipped.push((p.clone(), SkipReason::TooLarge));
                continue;
            }
            Some(true) => {}
        }
        let entry = Entry {
            path: p,
            kind,
            depth,
            meta: None,
            dent: None,
            staged: Some(node),
        };
        if let Some(t) = visit(&entry) {
            acc.items.push((p.clone(), t));
        }
    }
}

/// `.gitignore` rules evaluated from the tx's view of every `.gitignore` (the
/// staged one where the tx has one, else the disk's), deepest directory first.
struct Ignorer {
    top: PathBuf,
    overlay: Option<Arc<Overlay>>,
    cache: Mutex<HashMap<PathBuf, Arc<ignore::gitignore::Gitignore>>>,
}

impl Ignorer {
    fn new(root: &Path, overlay: Option<Arc<Overlay>>) -> Ignorer {
        // Only a scan with a tx's overlay evaluates ignore rules itself.
        let top = match overlay {
            Some(_) => crate::workspace::git::work_tree(root).unwrap_or_else(|| root.to_path_buf()),
            None => root.to_path_buf(),
        };
        Ignorer {
            top,
            overlay,
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn matcher(&self, dir: &Path) -> Arc<ignore::gitignore::Gitignore> {
        if let Some(m) = self.cache.lock().ok().and_then(|c| c.get(dir).cloned()) {
            return m;
        }
        let file = dir.join(".gitignore");
        let text: Option<Vec<u8>> = match self.overlay.as_ref().and_then(|o| o.node(&file)) {
            Some(OverlayNode::File { bytes, .. }) => Some(bytes.to_vec()),
            Some(_) => None,
            None => std::fs::read(&file).ok(),
        };
        let mut b = ignore::gitignore::GitignoreBuilder::new(dir);
        if let Some(t) = text {
            for line in String::from_utf8_lossy(&t).lines() {
                let _ = b.add_line(None, line);
            }
        }
        let m = Arc::new(
            b.build()
                .unwrap_or_else(|_| ignore::gitignore::Gitignore::empty()),
        );
        if let Ok(mut c) = self.cache.lock() {
            c.insert(dir.to_path_buf(), m.clone());
        }
        m
    }

    /// Whether `.gitignore` rules ignore `p` itself (its ancestors not considered).
    fn ignored_one(&self, p: &Path, is_dir: bool) -> bool {
        for dir in p.ancestors().skip(1) {
            if !dir.starts_with(&self.top) {
                break;
            }
            let m = self.matcher(dir);
            match m.matched(p, is_dir) {
                ignore::Match::Ignore(_) => return true,
                ignore::Match::Whitelist(_) => return false,
                ignore::Match::None => {}
            }
        }
        false
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
        let g = compile_glob("src/main.rs")
            .map_err(|e| e.message())
            .expect("glob");
        assert!(matches!(g.how, GlobMatch::Exact(_)));
        assert!(g.is_match(Path::new("src/main.rs"), std::ffi::OsStr::new("main.rs")));
        assert!(!g.is_match(Path::new("main.rs"), std::ffi::OsStr::new("main.rs")));
        assert!(!g.is_match(Path::new("src/main.rsx"), std::ffi::OsStr::new("main.rsx")));
        let g = compile_glob(".git/")
            .map_err(|e| e.message())
            .expect("glob");
        assert!(g.is_match(Path::new("a/.git"), std::ffi::OsStr::new(".git")));
        assert!(!g.is_match(Path::new("a/.gitx"), std::ffi::OsStr::new(".gitx")));
    }
    #[test]
    fn one_star_globs_match_as_globset_does() {
        let names = [
            "",
            "a",
            ".aitools-op-1.tmp",
            ".aitools-.tmp",
            ".aitools-x.tmpx",
            "x.aitools-1.tmp",
            "main.rs",
            ".rs",
            "rs",
            "a.rs.bak",
            "sub/a.rs",
            "a.r",
            "README",
            "READ.ME",
        ];
        for pat in ["*.rs", ".aitools-*.tmp", "*", "READ*", "*ME", "/*.rs"] {
            let ours = compile_glob(pat).map_err(|e| e.message()).expect("glob");
            assert!(matches!(ours.how, GlobMatch::Star(..)), "{pat}");
            let body = pat.trim_start_matches('/');
            let reference = GlobBuilder::new(body)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .expect("glob")
                .compile_matcher();
            for n in names {
                let path = Path::new(n);
                let base = path.file_name().unwrap_or_default();
                let subject = if ours.whole { path.as_os_str() } else { base };
                assert_eq!(
                    ours.is_match(path, base),
                    reference.is_match(subject),
                    "{pat} on {n:?}"
                );
            }
        }
    }
}

//! `overview`: the workspace at a glance — root, git state (read from `.git`),
//! languages by lines, build files, and the entries below the path. Lines and
//! bytes of a large language come from a fixed sample of its files, so the cost
//! follows the number of files (no stat, no read for the rest), not their bytes.

use super::show;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, code};
use crate::text::lang;
use crate::workspace::scan::{self, Entry, Kind, ScanOptions};
use crate::workspace::scan_args::{BudgetArgs, FIELD_SCAN_CUT, raise_budget};
use crate::workspace::{Ctx, git};
use clap::Args;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;
use std::io::Read;

#[derive(Args, Debug)]
pub struct OverviewArgs {
    /// Summarize below this directory; default the root.
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// Languages returned.
    #[arg(long, value_name = "N", default_value = "30")]
    pub limit: u64,
    /// Include ignored files.
    #[arg(long)]
    pub no_ignore: bool,
    #[command(flatten)]
    pub budget: BudgetArgs,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "overview",
    summary: "Git state, languages, top entries.",
    description: "Languages come from the language table by file name; binary files are not counted. Lines and bytes of a language with many or large files are estimated from a sample (estimated: true). The git state is read from the .git files (HEAD, refs, packed-refs, index), never by running git.",
    args: <OverviewArgs as clap::Args>::augment_args,
    output_fields: &[
        field("root", "The workspace root."),
        field(
            "path",
            "The summarized directory, workspace-relative (\"\" for the root).",
        ),
        field("ignore_source", "gitignore, builtin, or none."),
        field(
            "git",
            "{branch,head,untracked,deleted} read from .git without running git, or null outside a repository. branch is null on a detached HEAD. untracked and deleted count files below path; files modified in place are not counted.",
        ),
        field(
            "languages",
            "[{lang,files,lines,bytes,estimated}], most lines first. files is exact; lines and bytes are exact when estimated is false, else the per-file mean of an even spread of 64 files read (a file over 1 MiB scaled from its first MiB by its size) times files.",
        ),
        field("languages_total", "Languages before --limit."),
        field(
            "build_files",
            "Workspace-relative paths of build and project files (Cargo.toml, package.json, flake.nix, *.asd, ...), at most 100.",
        ),
        field(
            "entries",
            "[{name,kind}] directly below path (at most 200).",
        ),
        field(
            "truncated",
            "True when --limit cut the languages, or the scan budget cut the scan (status partial, exit 3).",
        ),
        FIELD_SCAN_CUT,
        field(
            "next_commands",
            "The call again with a --limit that lists every language, or with the spent scan budget raised.",
        ),
    ],
    error_codes: &[code::NOT_FOUND, code::ARGUMENT_INVALID, code::INTERNAL],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(OverviewArgs, run),
};

const BUILD_NAMES: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "go.mod",
    "Makefile",
    "GNUmakefile",
    "CMakeLists.txt",
    "meson.build",
    "flake.nix",
    "default.nix",
    "shell.nix",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "pom.xml",
    "Gemfile",
    "composer.json",
    "requirements.txt",
    "Dockerfile",
    "docker-compose.yml",
    "compose.yaml",
    "BUILD",
    "BUILD.bazel",
    "WORKSPACE",
    "MODULE.bazel",
    "stack.yaml",
    "dune-project",
    "mix.exs",
    "deno.json",
    "tsconfig.json",
    "configure.ac",
    "build.zig",
    "Justfile",
    "justfile",
    "Pipfile",
    "build.sbt",
    "project.clj",
    "deps.edn",
    "Package.swift",
];
const BUILD_EXTS: &[&str] = &[
    "asd", "cabal", "csproj", "fsproj", "sln", "gemspec", "nimble", "rockspec",
];

fn is_build_file(name: &str) -> bool {
    BUILD_NAMES.contains(&name)
        || name
            .rsplit_once('.')
            .is_some_and(|(_, e)| BUILD_EXTS.contains(&e))
}

#[derive(Serialize)]
struct GitOut {
    branch: Option<String>,
    head: Option<String>,
    untracked: u64,
    deleted: u64,
}

#[derive(Serialize)]
struct LangOut {
    lang: &'static str,
    files: u64,
    lines: u64,
    bytes: u64,
    estimated: bool,
}

#[derive(Serialize)]
struct EntryOut {
    name: String,
    kind: &'static str,
}

#[derive(Serialize)]
struct OverviewOut {
    root: String,
    path: String,
    ignore_source: &'static str,
    git: Option<GitOut>,
    languages: Vec<LangOut>,
    languages_total: u64,
    build_files: Vec<String>,
    entries: Vec<EntryOut>,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    scan_cut: Option<scan::Cut>,
    next_commands: Vec<String>,
}

enum Seen {
    Entry(Kind),
    File {
        lang: Option<&'static str>,
        size: Size,
        depth: usize,
        /// A build or project file (`is_build_file`).
        build: bool,
        /// In git's index: the first index entry of its path.
        git: InIndex,
    },
}

/// Where a file stands in git's index, looked up by the walk's workers.
#[derive(Clone, Copy)]
enum InIndex {
    /// No repository, or the file is not below its work tree (or its path
    /// there is not UTF-8).
    Outside,
    Untracked,
    /// The position of the path's first entry in `GitState::tracked`.
    Tracked(usize),
}

/// FxHash (rustc's): the index's paths are looked up once per file walked,
/// and SipHash cost more than the lookups' other work.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl Fx {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let mut tail = [0u8; 8];
        for (t, b) in tail.iter_mut().zip(chunks.remainder()) {
            *t = *b;
        }
        self.add(u64::from_le_bytes(tail));
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The index's paths, each to its first entry's position.
type Index<'g> = HashMap<&'g str, usize, BuildHasherDefault<Fx>>;

fn index_of(g: &git::GitState) -> Index<'_> {
    let mut ix = Index::with_capacity_and_hasher(g.tracked.len(), Default::default());
    for (i, t) in g.tracked.iter().enumerate() {
        ix.entry(t.as_str()).or_insert(i);
    }
    ix
}

enum Size {
    /// Measured already (a file a tx staged): lines and bytes, zero if binary.
    Exact(u64, u64),
    /// On disk: read only if sampled, never stat'ed otherwise.
    Disk,
}

/// Files read per language; the rest are scaled from them by size.
const SAMPLE_FILES: usize = 64;
/// Bytes read per sampled file; a longer file is scaled from its prefix.
const SAMPLE_BYTES: u64 = 1 << 20;
/// The read buffer of a sample.
const READ_BUF: usize = 256 * 1024;

/// What reading (a prefix of) a file found.
struct Measured {
    lines: u64,
    bytes: u64,
    binary: bool,
    /// The whole file was read.
    whole: bool,
}

/// Lines and bytes of up to `cap` bytes of a file; `None` if unreadable.
fn measure(mut f: impl Read, cap: u64, buf: &mut [u8]) -> Option<Measured> {
    let (mut lines, mut bytes, mut last) = (0u64, 0u64, b'\n');
    loop {
        if bytes >= cap {
            let mut probe = [0u8; 1];
            let more = loop {
                match f.read(&mut probe) {
                    Ok(n) => break n > 0,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => return None,
                }
            };
            if more {
                return Some(Measured {
                    lines,
                    bytes,
                    binary: false,
                    whole: false,
                });
            }
            break;
        }
        let n = match f.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        let chunk = buf.get(..n)?;
        if bytes == 0 && crate::text::sniff::is_binary(chunk) {
            return Some(Measured {
                lines: 0,
                bytes: 0,
                binary: true,
                whole: true,
            });
        }
        lines += memchr::memchr_iter(b'\n', chunk).count() as u64;
        last = *chunk.last()?;
        bytes += n as u64;
    }
    if bytes > 0 && last != b'\n' {
        lines += 1;
    }
    Some(Measured {
        lines,
        bytes,
        binary: false,
        whole: true,
    })
}

/// Per-language totals: exact for the files read whole, scaled for the rest.
#[derive(Default)]
struct Tally {
    files: u64,
    lines: u64,
    bytes: u64,
    /// Files read (whole or a prefix) and what they added: the per-file mean.
    sampled: u64,
    sampled_lines: f64,
    sampled_bytes: f64,
    /// Files not read.
    rest: u64,
    estimated: bool,
}

/// What one sampled file adds: lines and bytes, and whether they were scaled
/// from a prefix; `None` for a binary or unreadable file (it counts zero).
type Sample = Option<(f64, f64, bool)>;

/// Reads (a prefix of) a sampled file.
fn read_sample(path: &std::path::Path, buf: &mut [u8]) -> Sample {
    let (f, size) = scan::open_sized(path).ok()?;
    let m = measure(f, SAMPLE_BYTES, buf)?;
    if m.binary {
        return None;
    }
    if m.whole {
        return Some((m.lines as f64, m.bytes as f64, false));
    }
    // A prefix: its lines per byte over the whole size.
    let rate = if m.bytes == 0 {
        0.0
    } else {
        m.lines as f64 / m.bytes as f64
    };
    Some((size as f64 * rate, size as f64, true))
}

/// Fewer samples than this are read on the calling thread alone (a thread
/// costs more than a few small reads).
const PARALLEL_SAMPLES: usize = 48;

/// The samples of `paths`, in order: read on up to `threads` threads (each
/// with one buffer for all its files: a fresh 256 KiB per file was a zeroed
/// mmap and its page faults each, over a contiguous share) when there are enough.
fn read_samples(paths: &[&std::path::Path], threads: usize) -> Vec<Sample> {
    let read_all = |part: &[&std::path::Path]| -> Vec<Sample> {
        let mut buf = vec![0u8; READ_BUF];
        part.iter().map(|p| read_sample(p, &mut buf)).collect()
    };
    if threads < 2 || paths.len() < PARALLEL_SAMPLES {
        return read_all(paths);
    }
    let share = paths.len().div_ceil(threads).max(1);
    let mut parts = paths.chunks(share);
    let first = parts.next().unwrap_or_default();
    std::thread::scope(|s| {
        let others: Vec<_> = parts
            .map(|part| (part.len(), s.spawn(move || read_all(part))))
            .collect();
        let mut out = read_all(first);
        for (n, h) in others {
            // A sample thread that panicked counts its files zero.
            out.extend(h.join().unwrap_or_else(|_| vec![None; n]));
        }
        out
    })
}

impl Tally {
    fn add(&mut self, sample: Sample) {
        self.sampled += 1;
        if let Some((lines, bytes, prefix)) = sample {
            self.estimated |= prefix;
            self.sampled_lines += lines;
            self.sampled_bytes += bytes;
        }
    }

    fn finish(&self) -> (u64, u64) {
        let scale = if self.sampled == 0 {
            0.0
        } else {
            (self.sampled + self.rest) as f64 / self.sampled as f64
        };
        (
            self.lines + (self.sampled_lines * scale).round() as u64,
            self.bytes + (self.sampled_bytes * scale).round() as u64,
        )
    }
}

pub fn run(ctx: &Ctx, args: &OverviewArgs) -> Result<Output, CmdError> {
    let start = match &args.path {
        Some(a) => super::start_path(ctx, a)?,
        None => ctx.root.clone(),
    };
    let budget = args.budget.budget("overview")?;
    let opts = scan_options(ctx, args, budget)?;
    // Read before the walk: its workers look each file up in the index.
    let git = git::read(&ctx.root);
    let index = git.as_ref().map(index_of);
    let in_index = |p: &std::path::Path| match (&git, &index) {
        (Some(g), Some(ix)) => {
            // strip_root hands back the path itself when it is not below.
            let r = scan::strip_root(p, &g.work_tree);
            match r.to_str() {
                Some(r) if r.len() != p.as_os_str().len() => ix
                    .get(r)
                    .map_or(InIndex::Untracked, |&i| InIndex::Tracked(i)),
                _ => InIndex::Outside,
            }
        }
        _ => InIndex::Outside,
    };
    // Each result is tallied as it comes, in path order: nothing per file is
    // kept but a language's sample (`Sampler`).
    let mut seen = Tallied::new(git.as_ref().map_or(0, |g| g.tracked.len()));
    let visit = || {
        |e: &Entry| {
            if e.kind != Kind::File {
                return (e.depth == 1).then_some(Seen::Entry(e.kind));
            }
            let name = e.path.file_name()?.to_string_lossy();
            let lang = lang::of_file(&name).map(|l| l.name);
            let build = is_build_file(&name);
            let size = match e.content() {
                Some(b) => {
                    let m = measure(b, u64::MAX, &mut vec![0u8; READ_BUF]);
                    let (l, n) = m
                        .filter(|m| !m.binary)
                        .map_or((0, 0), |m| (m.lines, m.bytes));
                    Size::Exact(l, n)
                }
                None => Size::Disk,
            };
            Some(Seen::File {
                lang,
                size,
                depth: e.depth,
                build,
                git: in_index(e.path),
            })
        }
    };
    let starts = std::slice::from_ref(&start);
    let walked = scan::walk_ordered(&ctx.root, starts, &opts, visit, |p, s| {
        seen.add(ctx, p, s);
        true
    })
    .map_err(|e| super::scan_error("overview", &ctx.argv, &e))?;
    seen.sample_disk(scan::threads(&opts));
    let (languages, languages_total) = languages_out(seen.langs);
    let truncated = languages_total > args.limit;
    let mut languages = languages;
    languages.truncate(args.limit as usize);
    drop(index);
    let git = git.map(|g| git_out(g, &start, &seen.seen_tracked, seen.untracked));
    let path = match start.strip_prefix(&ctx.root) {
        Ok(r) => r.to_string_lossy().into_owned(),
        Err(_) => start.to_string_lossy().into_owned(),
    };
    let mut next_commands = Vec::new();
    if let Some(cut) = &walked.cut {
        next_commands.push(raise_budget(ctx, &budget, cut));
    } else if truncated {
        next_commands.push(super::with_limit(ctx, languages_total, None));
    }
    let truncated = truncated || walked.cut.is_some();
    let out = OverviewOut {
        root: ctx.root.to_string_lossy().into_owned(),
        path,
        ignore_source: walked.ignore_source,
        git,
        languages,
        languages_total,
        build_files: seen.build_files,
        entries: seen.entries,
        truncated,
        scan_cut: walked.cut.clone(),
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}

/// The walk's options: directories too, and no bytes budget unless asked.
fn scan_options(
    ctx: &Ctx,
    args: &OverviewArgs,
    budget: scan::Budget,
) -> Result<ScanOptions, CmdError> {
    let mut opts = ScanOptions {
        overlay: ctx.files().overlay()?,
        no_ignore: args.no_ignore,
        include_dirs: true,
        budget,
        ..ScanOptions::default()
    };
    // Only sampled files are read: the default bytes budget would cost a stat
    // per file to guard nothing; an explicit --max-scan-bytes still binds.
    if args.budget.max_scan_bytes.is_none() {
        opts.budget.bytes = u64::MAX;
    }
    Ok(opts)
}

/// What the walk saw, summed: each language's files (a fixed sample of those
/// whose size is on disk only, `Sampler`), the build files, the top-level entries
/// (the first of each in path order), and where the files stand in git's index.
struct Tallied {
    langs: BTreeMap<&'static str, Tally>,
    disk: BTreeMap<&'static str, Sampler>,
    build_files: Vec<String>,
    entries: Vec<EntryOut>,
    /// Files below the work tree not in the index, and the index entries seen.
    untracked: u64,
    seen_tracked: Vec<bool>,
}

/// Build files listed at most.
const MAX_BUILD_FILES: usize = 100;
/// Top-level entries listed at most.
const MAX_ENTRIES: usize = 200;

/// One language's files sized on disk only: how many, and the `SAMPLE_FILES` of
/// them whose paths hash least (a sample fixed by the paths alone, whatever the
/// walk's order or threads, kept without a list of them all).
#[derive(Default)]
struct Sampler {
    files: u64,
    kept: std::collections::BinaryHeap<(u64, std::path::PathBuf)>,
}

impl Sampler {
    fn offer(&mut self, p: &std::path::Path) {
        use std::hash::Hasher;
        use std::os::unix::ffi::OsStrExt;
        self.files += 1;
        let mut h = Fx::default();
        h.write(p.as_os_str().as_bytes());
        // splitmix64's finish: every bit of the path moves the rank.
        let mut z = h.finish();
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        let rank = z ^ (z >> 31);
        if self.kept.len() < SAMPLE_FILES {
            self.kept.push((rank, p.to_path_buf()));
        } else if self.kept.peek().is_some_and(|(top, _)| rank < *top) {
            self.kept.pop();
            self.kept.push((rank, p.to_path_buf()));
        }
    }
}

impl Tallied {
    fn new(tracked: usize) -> Tallied {
        Tallied {
            langs: BTreeMap::new(),
            disk: BTreeMap::new(),
            build_files: Vec::new(),
            entries: Vec::new(),
            untracked: 0,
            seen_tracked: vec![false; tracked],
        }
    }

    /// One result of the walk (they come in path order).
    fn add(&mut self, ctx: &Ctx, p: &std::path::Path, s: Seen) {
        let name_of = |p: &std::path::Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let (lang, size, depth, build, in_ix) = match s {
            Seen::Entry(kind) => {
                if self.entries.len() < MAX_ENTRIES {
                    self.entries.push(EntryOut {
                        name: name_of(p),
                        kind: kind.name(),
                    });
                }
                return;
            }
            Seen::File {
                lang,
                size,
                depth,
                build,
                git,
            } => (lang, size, depth, build, git),
        };
        match in_ix {
            InIndex::Outside => {}
            InIndex::Untracked => self.untracked += 1,
            InIndex::Tracked(i) => {
                if let Some(s) = self.seen_tracked.get_mut(i) {
                    *s = true;
                }
            }
        }
        if depth == 1 && self.entries.len() < MAX_ENTRIES {
            self.entries.push(EntryOut {
                name: name_of(p),
                kind: "file",
            });
        }
        if let Some(l) = lang {
            let tally = self.langs.entry(l).or_default();
            tally.files += 1;
            match size {
                Size::Exact(lines, bytes) => {
                    tally.lines += lines;
                    tally.bytes += bytes;
                }
                Size::Disk => self.disk.entry(l).or_default().offer(p),
            }
        }
        if self.build_files.len() < MAX_BUILD_FILES && build {
            self.build_files.push(show(&ctx.root, p));
        }
    }

    /// Each language's sample (`Sampler`) is read; the others count as its
    /// mean. The samples are read together (on the scan's threads) and added
    /// in path order, so the sums do not depend on thread timing.
    fn sample_disk(&mut self, threads: usize) {
        let mut picked: Vec<(&'static str, std::path::PathBuf)> = Vec::new();
        for (l, sampler) in std::mem::take(&mut self.disk) {
            let t = self.langs.entry(l).or_default();
            let mut kept: Vec<std::path::PathBuf> =
                sampler.kept.into_iter().map(|(_, p)| p).collect();
            kept.sort_by(|a, b| scan::path_order(a, b));
            t.rest = sampler.files - kept.len() as u64;
            t.estimated |= t.rest > 0;
            picked.extend(kept.into_iter().map(|p| (l, p)));
        }
        let paths: Vec<&std::path::Path> = picked.iter().map(|(_, p)| p.as_path()).collect();
        let samples = read_samples(&paths, threads);
        for ((l, _), sample) in picked.iter().zip(samples) {
            self.langs.entry(l).or_default().add(sample);
        }
    }
}

/// The languages, most lines first, and how many there are.
fn languages_out(langs: BTreeMap<&'static str, Tally>) -> (Vec<LangOut>, u64) {
    let mut languages: Vec<LangOut> = langs
        .into_iter()
        .map(|(lang, t)| {
            let (lines, bytes) = t.finish();
            LangOut {
                lang,
                files: t.files,
                lines,
                bytes,
                estimated: t.estimated,
            }
        })
        .collect();
    languages.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.lang.cmp(b.lang)));
    let total = languages.len() as u64;
    (languages, total)
}

/// The repository's facts below `start`: branch, head, untracked files, and
/// index entries whose files are gone.
fn git_out(
    g: git::GitState,
    start: &std::path::Path,
    seen_tracked: &[bool],
    untracked: u64,
) -> GitOut {
    let rel = |p: &std::path::Path| {
        p.strip_prefix(&g.work_tree)
            .ok()
            .map(|r| r.to_string_lossy().into_owned())
    };
    let below = rel(start).unwrap_or_default();
    let under = format!("{below}/");
    let deleted = g
        .tracked
        .iter()
        .zip(seen_tracked)
        .filter(|(t, _)| below.is_empty() || t.starts_with(&under))
        // A file the walk just saw exists; only the others need a stat
        // (an entry listed twice is stat'ed once more, and exists too).
        .filter(|(_, seen)| !**seen)
        .filter(|(t, _)| !scan::exists_nofollow(&g.work_tree.join(t)))
        .count() as u64;
    GitOut {
        branch: g.branch,
        head: g.head,
        untracked,
        deleted,
    }
}

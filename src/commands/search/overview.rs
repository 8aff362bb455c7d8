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
use std::collections::{BTreeMap, HashSet};
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
    },
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

impl Tally {
    fn sample(&mut self, path: &std::path::Path, buf: &mut [u8]) {
        let Ok((f, size)) = scan::open_sized(path) else {
            // Unreadable files count zero, as a binary one does.
            self.sampled += 1;
            return;
        };
        self.sampled += 1;
        let Some(m) = measure(f, SAMPLE_BYTES, buf) else {
            return;
        };
        if m.binary {
            return;
        }
        let (lines, bytes) = if m.whole {
            (m.lines as f64, m.bytes as f64)
        } else {
            // A prefix: its lines per byte over the whole size.
            self.estimated = true;
            let rate = if m.bytes == 0 {
                0.0
            } else {
                m.lines as f64 / m.bytes as f64
            };
            (size as f64 * rate, size as f64)
        };
        self.sampled_lines += lines;
        self.sampled_bytes += bytes;
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
    let walked = scan::walk(&ctx.root, std::slice::from_ref(&start), &opts, || {
        |e: &Entry| {
            if e.kind != Kind::File {
                return (e.depth == 1).then_some(Seen::Entry(e.kind));
            }
            let name = e.path.file_name()?.to_string_lossy().into_owned();
            let lang = lang::of_file(&name).map(|l| l.name);
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
            })
        }
    })
    .map_err(|e| super::scan_error("overview", &e))?;

    let mut langs: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let mut disk: BTreeMap<&'static str, Vec<&std::path::Path>> = BTreeMap::new();
    let mut build_files = Vec::new();
    let mut entries = Vec::new();
    let mut files_seen: Vec<&std::path::Path> = Vec::new();
    for (p, s) in &walked.items {
        match s {
            Seen::Entry(kind) => entries.push(EntryOut {
                name: p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                kind: kind.name(),
            }),
            Seen::File { lang, size, depth } => {
                files_seen.push(p);
                if *depth == 1 {
                    entries.push(EntryOut {
                        name: p
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                        kind: "file",
                    });
                }
                if let Some(l) = lang {
                    let t = langs.entry(l).or_default();
                    t.files += 1;
                    match size {
                        Size::Exact(lines, bytes) => {
                            t.lines += lines;
                            t.bytes += bytes;
                        }
                        Size::Disk => disk.entry(l).or_default().push(p),
                    }
                }
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default();
                if build_files.len() < 100 && is_build_file(&name) {
                    build_files.push(show(&ctx.root, p));
                }
            }
        }
    }
    entries.truncate(200);
    // An even spread of each language's files (in path order, so the answer does
    // not depend on thread timing) is read; the others count as its mean.
    // One read buffer for every sample (a fresh 256 KiB each was a zeroed
    // mmap per file).
    let mut buf = vec![0u8; READ_BUF];
    for (l, files) in &disk {
        let t = langs.entry(l).or_default();
        let n = files.len();
        let k = n.min(SAMPLE_FILES);
        let picks: Vec<usize> = (0..k).map(|i| i * n / k).collect();
        let mut next = picks.iter().peekable();
        for (i, p) in files.iter().enumerate() {
            if next.peek() == Some(&&i) {
                next.next();
                t.sample(p, &mut buf);
            } else {
                t.rest += 1;
                t.estimated = true;
            }
        }
    }
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
    let languages_total = languages.len() as u64;
    let truncated = languages_total > args.limit;
    languages.truncate(args.limit as usize);

    let git = git::read(&ctx.root).map(|g| {
        let tracked: HashSet<&str> = g.tracked.iter().map(String::as_str).collect();
        let rel = |p: &std::path::Path| {
            p.strip_prefix(&g.work_tree)
                .ok()
                .map(|r| r.to_string_lossy().into_owned())
        };
        // Borrowed, not copied: the walk's paths are UTF-8 (others are skipped).
        let seen: HashSet<&str> = files_seen
            .iter()
            .filter_map(|p| {
                // strip_root hands back the path itself when it is not below.
                let r = scan::strip_root(p, &g.work_tree);
                (r.as_os_str().len() != p.as_os_str().len())
                    .then_some(r)?
                    .to_str()
            })
            .collect();
        let untracked = seen.iter().filter(|r| !tracked.contains(*r)).count() as u64;
        let below = rel(&start).unwrap_or_default();
        let deleted = g
            .tracked
            .iter()
            .filter(|t| below.is_empty() || t.starts_with(&format!("{below}/")))
            // A file the walk just saw exists; only the others need a stat.
            .filter(|t| !seen.contains(t.as_str()))
            .filter(|t| !scan::exists_nofollow(&g.work_tree.join(t)))
            .count() as u64;
        GitOut {
            branch: g.branch,
            head: g.head,
            untracked,
            deleted,
        }
    });
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
        build_files,
        entries,
        truncated,
        scan_cut: walked.cut.clone(),
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}

//! `snapshot create` / `snapshot diff`: what a build, code generator or formatter
//! changed, without git. `create` records every scanned file's size, mtime and
//! content hash (with the scan it ran) under the state directory
//! (`store::snapshot_area`, removed by `gc` after a week); `diff` walks the same
//! scan again and lists the added, removed and modified paths, bounded by
//! `--limit` with the call that lists them all in `next_commands`.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell, time};
use crate::store::files::{Durable, OwnDir};
use crate::store::snapshot_area;
use crate::text::lines::{sha256_hex, sha256_reader};
use crate::workspace::Ctx;
use crate::workspace::scan::skipped::{Skipped, kept_and_left, skipped_list};
use crate::workspace::scan::{self, Entry, Kind, ScanOptions, strip_root};
use crate::workspace::scan_args::{ScanArgs, scan_error};
use clap::Args;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

#[derive(Args, Debug)]
pub struct CreateArgs {
    /// Files or directories to record (default: the whole workspace).
    pub paths: Vec<String>,
    /// The snapshot's id (1-64 of A-Z a-z 0-9 . _ -); an existing snapshot of that name is replaced. Default snap-<n>.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    #[command(flatten)]
    pub scan: ScanArgs,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The id snapshot create answered.
    pub snapshot_id: String,
    /// Most paths listed per list (added, removed, modified); more make the answer partial (exit 3).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub limit: usize,
}

pub const CREATE: CommandSpec = CommandSpec {
    name: "snapshot create",
    summary: "Record files' size, mtime and hash for a later snapshot diff.",
    description: "Independent of the journal, of git and of any tx. Ignored files are left out unless --no-ignore (then a build's output is recorded too); the scan options are stored and snapshot diff reuses them. Records live in the state directory; gc removes those older than 7 days.",
    args: <CreateArgs as clap::Args>::augment_args,
    output_fields: &[
        field("snapshot_id", "The id for snapshot diff."),
        field("files", "Files recorded."),
        field(
            "ignore_source",
            "gitignore, builtin, or none (--no-ignore).",
        ),
        field(
            "skipped",
            "Only when a path was left out: [{reason,count,examples}], one per reason, examples the first 3 paths; reason is too-large (--skip-larger-than), unreadable, symlink (links are not recorded), not-a-file (a FIFO, socket or device), non-utf8-name or special (procfs/sysfs). snapshot diff does not see changes to them.",
        ),
    ],
    error_codes: &[code::NOT_FOUND],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects {
        additive: true,
        ..Effects::SIDE
    },
    run: handler!(CreateArgs, create),
};

pub const DIFF: CommandSpec = CommandSpec {
    name: "snapshot diff",
    summary: "List files added, removed or modified since a snapshot.",
    description: "Walks the snapshot's scan again. A file is modified only when its size or mtime changed and its content hash differs from the recorded one (a touch alone is no change). Lists are sorted by path.",
    args: <DiffArgs as clap::Args>::augment_args,
    output_fields: &[
        field("snapshot_id", "The snapshot compared with."),
        field("added", "Paths not in the snapshot."),
        field("removed", "Recorded paths now missing."),
        field("modified", "Paths whose content changed."),
        field(
            "counts",
            "{added, removed, modified}: the full list sizes, before --limit.",
        ),
        field(
            "truncated",
            "True when --limit cut a list (status partial, exit 3).",
        ),
        field(
            "next_commands",
            "When truncated: the call with a --limit that lists everything.",
        ),
    ],
    error_codes: &[code::NOT_FOUND],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DiffArgs, diff),
};

/// One recorded file.
#[derive(Serialize, Deserialize, Debug, Clone)]
struct Rec {
    p: String,
    s: u64,
    m: (i64, u32),
    h: String,
}

/// A snapshot record: the scan that made it and its files.
#[derive(Serialize, Deserialize, Debug)]
struct Record {
    version: u32,
    created: i64,
    /// Starts, workspace-relative ("" is the root).
    starts: Vec<String>,
    globs: Vec<String>,
    lang: Option<String>,
    no_ignore: bool,
    skip_larger_than: Option<u64>,
    newer: Option<(u64, u32)>,
    files: Vec<Rec>,
}

fn area(ctx: &Ctx) -> Result<OwnDir, CmdError> {
    let state = ctx
        .files()
        .state_dir()
        .map_err(|e| crate::store::io_fault(ctx, "the state directory", &e))?;
    Ok(OwnDir::at(snapshot_area::dir(state.path())))
}

fn valid_name(n: &str) -> bool {
    (1..=64).contains(&n.len())
        && !n.starts_with('.')
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

fn rel(ctx: &Ctx, p: &Path) -> String {
    strip_root(p, &ctx.root).to_string_lossy().to_string()
}

fn options(r: &Record) -> ScanOptions {
    ScanOptions {
        no_ignore: r.no_ignore,
        globs: r.globs.clone(),
        lang: r.lang.clone(),
        skip_larger_than: r.skip_larger_than,
        newer: r.newer.map(|(s, n)| UNIX_EPOCH + Duration::new(s, n)),
        ..ScanOptions::default()
    }
}

fn starts(ctx: &Ctx, r: &Record) -> Vec<PathBuf> {
    r.starts
        .iter()
        .map(|s| {
            if s.is_empty() {
                ctx.root.clone()
            } else {
                ctx.root.join(s)
            }
        })
        .collect()
}

/// A file's hash, streamed: a snapshot may record multi-gigabyte build output.
fn hash_of(e: &Entry) -> Option<String> {
    match e.content() {
        Some(staged) => Some(sha256_hex(staged)),
        None => sha256_reader(scan::open_file(e.path).ok()?).ok(),
    }
}

fn next_id(dir: &OwnDir) -> String {
    let n = dir
        .names()
        .unwrap_or_default()
        .iter()
        .filter_map(|n| {
            let n = n.to_str()?;
            n.strip_prefix("snap-")?
                .strip_suffix(".json")?
                .parse::<u64>()
                .ok()
        })
        .max()
        .unwrap_or(0);
    format!("snap-{}", n + 1)
}

/// What a walk recorded and what it left out (grouped by reason).
struct Recorded {
    ignore_source: &'static str,
    skipped: Vec<Skipped>,
}

/// The files `record`'s scan finds, each with its size, mtime and hash; and the
/// paths it left out: the scan's own (too-large, unreadable, ...), a file it
/// could not stat or read (unreadable), a symlink (never followed, so never
/// recorded) and a FIFO, socket or device (not-a-file).
fn record_files(
    ctx: &Ctx,
    record: &Record,
    mut opts: ScanOptions,
) -> Result<(Vec<Rec>, Recorded), CmdError> {
    // Every kind reaches the visitor, so what is not a file can be said.
    opts.include_dirs = true;
    let walked = scan::walk(&ctx.root, &starts(ctx, record), &opts, || {
        |e: &Entry| match e.kind {
            Kind::Dir => None,
            Kind::Symlink => Some(Err("symlink")),
            Kind::File => Some(
                e.stat()
                    .ok()
                    .and_then(|st| Some((st.len, st.mtime, hash_of(e)?)))
                    .ok_or("unreadable"),
            ),
            _ => Some(Err("not-a-file")),
        }
    })
    .map_err(|e| scan_error(&ctx.command, &ctx.argv, &e))?;
    let (kept, left) = kept_and_left(walked.items, walked.skipped);
    let files = kept
        .into_iter()
        .map(|(p, (s, m, h))| Rec {
            p: rel(ctx, &p),
            s,
            m,
            h,
        })
        .collect();
    let skipped = skipped_list(&ctx.root, left);
    let ignore_source = walked.ignore_source;
    Ok((
        files,
        Recorded {
            ignore_source,
            skipped,
        },
    ))
}

pub fn create(ctx: &Ctx, a: &CreateArgs) -> Result<Output, CmdError> {
    if let Some(n) = &a.name
        && !valid_name(n)
    {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("--name {n:?} must be 1-64 of A-Z a-z 0-9 . _ - and not start with a dot."),
        ));
    }
    let opts = a.scan.options(ctx, None)?;
    let mut rel_starts = Vec::new();
    for p in &a.paths {
        let abs = ctx.path_arg(p)?;
        if !ctx.inside(&crate::workspace::paths::real_path(ctx.dirs(), &abs)) {
            return Err(CmdError::invalid_argument(
                &ctx.command,
                format!("{p:?} is outside the workspace; a snapshot records workspace files."),
            ));
        }
        if !scan::exists_nofollow(&abs) {
            return Err(CmdError::new(
                code::NOT_FOUND,
                format!("{p:?} does not exist."),
                Repair::new("find", "List what is there.", shell::aitools(["find", "."])),
            ));
        }
        rel_starts.push(rel(ctx, &abs));
    }
    if rel_starts.is_empty() {
        rel_starts.push(String::new());
    }
    let mut record = Record {
        version: 1,
        created: time::now().0,
        starts: rel_starts,
        globs: opts.globs.clone(),
        lang: opts.lang.clone(),
        no_ignore: opts.no_ignore,
        skip_larger_than: opts.skip_larger_than,
        newer: opts.newer.and_then(|t| {
            let d = t.duration_since(UNIX_EPOCH).ok()?;
            Some((d.as_secs(), d.subsec_nanos()))
        }),
        files: Vec::new(),
    };
    let (files, walked) = record_files(ctx, &record, opts)?;
    record.files = files;
    let dir = area(ctx)?;
    dir.create()
        .map_err(|e| crate::store::io_fault(ctx, "the snapshot area", &e))?;
    let id = a.name.clone().unwrap_or_else(|| next_id(&dir));
    let bytes = serde_json::to_vec(&record).map_err(|e| {
        crate::store::io_fault(ctx, "the snapshot record", &std::io::Error::other(e))
    })?;
    dir.replace(
        &format!("{id}.json"),
        &bytes,
        Durable {
            mode: 0o600,
            sync: false,
        },
    )
    .map_err(|e| crate::store::io_fault(ctx, "the snapshot record", &e))?;
    let mut o = Json::obj();
    o.push("snapshot_id", Json::str(id));
    o.push("files", Json::UInt(record.files.len() as u64));
    o.push("ignore_source", Json::str(walked.ignore_source));
    if !walked.skipped.is_empty() {
        o.push("skipped", Json::from_serialize(&walked.skipped));
    }
    Ok(Output::from_json(o, false))
}

fn not_found(id: &str) -> CmdError {
    CmdError::new(
        code::NOT_FOUND,
        format!("No snapshot {id:?} (gc removes snapshots older than 7 days)."),
        Repair::new(
            "create",
            "Take a snapshot first, then run the build and diff against it.",
            shell::aitools(["snapshot", "create"]),
        ),
    )
}

enum Seen {
    Added,
    Modified,
    Same,
}

pub fn diff(ctx: &Ctx, a: &DiffArgs) -> Result<Output, CmdError> {
    if !valid_name(&a.snapshot_id) {
        return Err(not_found(&a.snapshot_id));
    }
    let dir = area(ctx)?;
    let bytes = match dir.read(&format!("{}.json", a.snapshot_id)) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(not_found(&a.snapshot_id));
        }
        Err(e) => return Err(crate::store::io_fault(ctx, "the snapshot record", &e).into()),
    };
    let record: Record = serde_json::from_slice(&bytes).map_err(|e| {
        crate::store::io_fault(ctx, "the snapshot record", &std::io::Error::other(e))
    })?;
    let before: HashMap<&str, &Rec> = record.files.iter().map(|r| (r.p.as_str(), r)).collect();
    let before_ref = &before;
    let root = ctx.root.clone();
    let root_ref = &root;
    let walked = scan::walk(&ctx.root, &starts(ctx, &record), &options(&record), || {
        move |e: &Entry| {
            if e.kind != Kind::File {
                return None;
            }
            let key = strip_root(e.path, root_ref).to_string_lossy().to_string();
            let Some(old) = before_ref.get(key.as_str()) else {
                return Some(Seen::Added);
            };
            let st = e.stat().ok()?;
            if st.len == old.s && st.mtime == old.m {
                return Some(Seen::Same);
            }
            match hash_of(e) {
                Some(h) if h == old.h => Some(Seen::Same),
                _ => Some(Seen::Modified),
            }
        }
    })
    .map_err(|e| scan_error(&ctx.command, &ctx.argv, &e))?;
    let (mut added, mut modified) = (Vec::new(), Vec::new());
    let mut present: std::collections::HashSet<String> = Default::default();
    for (p, seen) in walked.items {
        let r = rel(ctx, &p);
        match seen {
            Seen::Added => added.push(r.clone()),
            Seen::Modified => modified.push(r.clone()),
            Seen::Same => {}
        }
        present.insert(r);
    }
    let removed: Vec<String> = record
        .files
        .iter()
        .filter(|r| !present.contains(&r.p))
        .map(|r| r.p.clone())
        .collect();
    let most = added.len().max(removed.len()).max(modified.len());
    let truncated = most > a.limit;
    let list = |v: &[String]| Json::Arr(v.iter().take(a.limit).map(Json::str).collect());
    let mut o = Json::obj();
    o.push("snapshot_id", Json::str(a.snapshot_id.clone()));
    o.push("added", list(&added));
    o.push("removed", list(&removed));
    o.push("modified", list(&modified));
    let mut counts = Json::obj();
    counts.push("added", Json::UInt(added.len() as u64));
    counts.push("removed", Json::UInt(removed.len() as u64));
    counts.push("modified", Json::UInt(modified.len() as u64));
    o.push("counts", counts);
    o.push("truncated", Json::Bool(truncated));
    if truncated {
        let again = shell::rerun(
            &ctx.argv,
            &["--limit"],
            &[],
            &["--limit".into(), most.to_string()],
        );
        o.push(
            "next_commands",
            Json::Arr(vec![Json::str(shell::aitools(again))]),
        );
    }
    Ok(Output::from_json(o, truncated))
}

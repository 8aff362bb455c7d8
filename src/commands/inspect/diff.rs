//! `diff`: compare two files (unified, stat, or set of distinct lines) or two
//! directories, or show every change of a journal op with its full diff.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, Repair, code, redact, shell};
use crate::store::files::Kind;
use crate::store::journal::{EntryChange, State};
use crate::store::{blobs, state_dir, undo};
use crate::text::diff::{self, DiffOptions};
use crate::workspace::candidates::{self, Offer};
use crate::workspace::{Ctx, paths};
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq)]
pub enum Shape {
    Unified,
    Stat,
    Set,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// Old file or directory.
    #[arg(value_name = "PATH")]
    pub a: Option<String>,
    /// New file or directory.
    #[arg(value_name = "PATH")]
    pub b: Option<String>,
    /// Journal op to show instead of two paths.
    #[arg(long)]
    pub op: Option<String>,
    /// Unchanged lines around each hunk.
    #[arg(long, value_name = "N", default_value = "3")]
    pub context: u64,
    /// File comparison shape; sets mode.
    #[arg(long, value_enum, default_value = "unified")]
    pub output: Shape,
    /// Compare lines with all whitespace removed (diff -w).
    #[arg(long)]
    pub ignore_whitespace: bool,
    /// Ignore CR before LF and a missing final newline.
    #[arg(long)]
    pub ignore_eol: bool,
    /// Maximum hunks, set lines, directory entries, or op changes returned.
    #[arg(long, value_name = "N", default_value = "100")]
    pub limit: u64,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "diff",
    summary: "Compare files or dirs, or show an op (diff).",
    description: "Files: unified (identical, diff), stat (added, deleted), or set (only_a, only_b, both_count: comm over distinct lines). Directories: added, removed, modified, identical_count (recursive, .git skipped). --op <op_id>: every change of that journal op with its full diff.",
    args: <DiffArgs as clap::Args>::augment_args,
    output_fields: &[
        field("mode", "unified, stat, set, directory, or op."),
        field("identical", "Files: no difference under the chosen rules."),
        field("diff", "unified: the diff text with ---/+++ headers."),
        field("added", "stat: inserted lines; directory: paths only in b."),
        field("deleted", "stat: deleted lines."),
        field("only_a", "set: distinct lines only in a."),
        field("only_b", "set: distinct lines only in b."),
        field("both_count", "set: distinct lines in both."),
        field("removed", "directory: paths only in a."),
        field(
            "modified",
            "directory: paths in both with different content.",
        ),
        field(
            "identical_count",
            "directory: paths in both with equal content.",
        ),
        field(
            "changes",
            "op: [{path,action,from?,diff?}] with the full diff of each text change.",
        ),
        field(
            "truncated",
            "True when --limit cut a list (status partial, exit 3).",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::AMBIGUOUS,
        code::NOT_A_FILE,
        code::IO,
    ],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DiffArgs, run),
};

#[derive(Serialize, Default)]
struct DiffOut {
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    identical: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    added: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deleted: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    only_a: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    only_b: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    both_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    identical_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<Vec<OpChange>>,
    truncated: bool,
}

#[derive(Serialize)]
struct OpChange {
    path: String,
    action: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff_unavailable: Option<bool>,
}

fn options(a: &DiffArgs) -> DiffOptions {
    DiffOptions {
        context: a.context as usize,
        ignore_whitespace: a.ignore_whitespace,
        ignore_eol: a.ignore_eol,
    }
}

pub fn run(ctx: &Ctx, a: &DiffArgs) -> Result<Output, CmdError> {
    if a.limit == 0 {
        return Err(CmdError::invalid_argument(
            "diff",
            "--limit must be at least 1.",
        ));
    }
    match (&a.op, &a.a, &a.b) {
        (Some(op), None, None) => op_diff(ctx, a, op),
        (None, Some(x), Some(y)) => paths_diff(ctx, a, x, y),
        _ => Err(CmdError::invalid_argument(
            "diff",
            "diff takes two paths (A B) or --op <op_id>, not both.",
        )),
    }
}

fn paths_diff(ctx: &Ctx, a: &DiffArgs, x: &str, y: &str) -> Result<Output, CmdError> {
    let (pa, pb) = (ctx.path_arg(x)?, ctx.path_arg(y)?);
    let kind = |p: &Path, arg: &str| -> Result<Kind, CmdError> {
        let k = ctx.files().stat(p, true)?.kind;
        if k == Kind::Missing {
            return Err(candidates::not_found(ctx, arg, p, Offer::Retry).into());
        }
        Ok(k)
    };
    let (ka, kb) = (kind(&pa, x)?, kind(&pb, y)?);
    let (da, db) = (ka == Kind::Dir, kb == Kind::Dir);
    if da && db {
        return dir_diff(ctx, a, &pa, &pb);
    }
    if da != db {
        return Err(CmdError::new(
            code::NOT_A_FILE,
            format!("{x} and {y} are not both files or both directories."),
            Repair::new(
                "info",
                "Check what each path is.",
                shell::aitools(["info", x]),
            ),
        ));
    }
    // A procfs/sysfs file passes as a regular file, and reading it may block.
    for (p, arg) in [(&pa, x), (&pb, y)] {
        let on_disk = ctx.files().disk(p);
        if let Ok(m) = on_disk.metadata()
            && let Some(kind) = on_disk.special_kind(&m)
        {
            return Err(crate::workspace::input::not_openable(arg, kind).into());
        }
    }
    let ba = ctx.files().load_follow(&pa)?.bytes.clone();
    let bb = ctx.files().load_follow(&pb)?.bytes.clone();
    let o = options(a);
    let mut out = DiffOut::default();
    match a.output {
        Shape::Unified => {
            let d = diff::unified(&ba, &bb, x, y, &o);
            out.mode = "unified";
            out.identical = Some(d.identical);
            let (text, cut) = cut_hunks(&d.text, a.limit as usize);
            out.diff = Some(text);
            out.truncated = cut;
        }
        Shape::Stat => {
            let d = diff::unified(&ba, &bb, x, y, &o);
            out.mode = "stat";
            out.identical = Some(d.identical);
            out.added = Some(serde_json::Value::from(d.added));
            out.deleted = Some(d.deleted);
        }
        Shape::Set => {
            let key = |l: &[u8]| -> String {
                let mut s = String::from_utf8_lossy(l).into_owned();
                while s.ends_with('\n')
                    || (s.ends_with('\r') && (o.ignore_eol || o.ignore_whitespace))
                {
                    s.pop();
                }
                if o.ignore_whitespace {
                    s.retain(|c| !c.is_whitespace());
                }
                s
            };
            let sa: BTreeSet<String> = diff::split_lines(&ba).into_iter().map(key).collect();
            let sb: BTreeSet<String> = diff::split_lines(&bb).into_iter().map(key).collect();
            let only_a: Vec<String> = sa.difference(&sb).cloned().collect();
            let only_b: Vec<String> = sb.difference(&sa).cloned().collect();
            out.mode = "set";
            out.identical = Some(ba == bb);
            out.both_count = Some(sa.intersection(&sb).count() as u64);
            out.truncated = only_a.len() as u64 > a.limit || only_b.len() as u64 > a.limit;
            out.only_a = Some(only_a.into_iter().take(a.limit as usize).collect());
            out.only_b = Some(only_b.into_iter().take(a.limit as usize).collect());
        }
    }
    mask_named(&mut out, [(x, &ba[..]), (y, &bb[..])]);
    let partial = out.truncated;
    Ok(Output::cut(&out, partial))
}

/// The value of a file whose name is its key (`secrets/db_password` holding one
/// value, `redact::value_named_by_path`) masked wherever the answer shows it.
fn mask_named(out: &mut DiffOut, files: [(&str, &[u8]); 2]) {
    for (path, bytes) in files {
        let Some(r) = redact::value_named_by_path(path, bytes) else {
            continue;
        };
        let value = String::from_utf8_lossy(&bytes[r]).into_owned();
        let mut hid = false;
        let lists = [&mut out.only_a, &mut out.only_b].into_iter().flatten();
        for t in out.diff.iter_mut().chain(lists.flatten()) {
            if t.contains(&value) {
                *t = t.replace(&value, redact::PLACEHOLDER);
                hid = true;
            }
        }
        redact::tally_shown(usize::from(hid));
    }
}

/// The diff text up to (not including) hunk `limit + 1`.
fn cut_hunks(text: &str, limit: usize) -> (String, bool) {
    let mut seen = 0;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("@@ ") {
            seen += 1;
            if seen > limit {
                return (text[..at].to_string(), true);
            }
        }
        at += line.len();
    }
    (text.to_string(), false)
}

fn walk(ctx: &Ctx, root: &Path, dir: &Path, out: &mut BTreeMap<String, PathBuf>) {
    let Ok(entries) = ctx.files().entries(dir) else {
        return;
    };
    for e in entries {
        if e.name == ".git" {
            continue;
        }
        if e.is_dir {
            walk(ctx, root, &e.path, out);
        } else if let Some(rel) = paths::relative_to(&e.path, root) {
            out.insert(rel, e.path);
        }
    }
}

/// `walk` through a tx's view (`--tx`).
fn walk_view(
    ctx: &Ctx,
    root: &Path,
    dir: &Path,
    out: &mut BTreeMap<String, PathBuf>,
) -> Result<(), CmdError> {
    for (p, k) in ctx.files().list_dir(dir)? {
        if p.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if k == Kind::Dir {
            walk_view(ctx, root, &p, out)?;
        } else if let Some(rel) = paths::relative_to(&p, root) {
            out.insert(rel, p);
        }
    }
    Ok(())
}

/// A directory entry's content for comparison, in the tx's view.
fn content_view(ctx: &Ctx, p: &Path) -> Option<Vec<u8>> {
    let files = ctx.files();
    let st = files.stat(p, false).ok()?;
    match st.kind {
        Kind::Symlink => Some(
            files
                .link_text(p, &st)
                .ok()?
                .into_os_string()
                .into_encoded_bytes(),
        ),
        Kind::File => files.load_follow(p).ok().map(|s| s.bytes.clone()),
        _ => None,
    }
}

fn dir_diff(ctx: &Ctx, a: &DiffArgs, pa: &Path, pb: &Path) -> Result<Output, CmdError> {
    let (mut fa, mut fb) = (BTreeMap::new(), BTreeMap::new());
    if ctx.tx.is_some() {
        walk_view(ctx, pa, pa, &mut fa)?;
        walk_view(ctx, pb, pb, &mut fb)?;
    } else {
        walk(ctx, pa, pa, &mut fa);
        walk(ctx, pb, pb, &mut fb);
    }
    let mut added = Vec::new();
    let mut removed = Vec::new();
    let mut modified = Vec::new();
    let mut same = 0u64;
    for (rel, p) in &fa {
        match fb.get(rel) {
            None => removed.push(rel.clone()),
            Some(q) => {
                let equal = if ctx.tx.is_some() {
                    content_view(ctx, p) == content_view(ctx, q)
                } else {
                    let (p, q) = (ctx.files().disk(p), ctx.files().disk(q));
                    match (p.symlink_metadata(), q.symlink_metadata()) {
                        (Ok(x), Ok(y))
                            if x.file_type().is_symlink() || y.file_type().is_symlink() =>
                        {
                            p.read_link().ok() == q.read_link().ok()
                        }
                        _ => p.read().ok() == q.read().ok(),
                    }
                };
                if equal {
                    same += 1;
                } else {
                    modified.push(rel.clone());
                }
            }
        }
    }
    for rel in fb.keys() {
        if !fa.contains_key(rel) {
            added.push(rel.clone());
        }
    }
    let lim = a.limit as usize;
    let truncated = added.len() > lim || removed.len() > lim || modified.len() > lim;
    added.truncate(lim);
    removed.truncate(lim);
    modified.truncate(lim);
    let out = DiffOut {
        mode: "directory",
        added: Some(serde_json::Value::from(added)),
        removed: Some(removed),
        modified: Some(modified),
        identical_count: Some(same),
        truncated,
        ..DiffOut::default()
    };
    Ok(Output::cut(&out, truncated))
}

/// The bytes of a file state: its loose blob, else the pack of `op` (the op
/// whose before-image it is), else the tree file when it still holds them, and
/// only then any pack that does (each pack listed and its index read: the
/// latest op's after-state, on disk, never costs that).
fn state_bytes(
    ctx: &Ctx,
    state_dir: &Path,
    rel: &str,
    s: &State,
    op: Option<&str>,
) -> Option<Vec<u8>> {
    if s.kind != "file" {
        return if s.is_missing() {
            Some(Vec::new())
        } else {
            None
        };
    }
    let hash = s.hash.as_deref()?;
    if blobs::exists(state_dir, hash)
        && let Ok(b) = blobs::read(state_dir, hash)
    {
        return Some(b);
    }
    if let Some(op) = op
        && let Ok(Some(b)) = crate::store::pack::find_in(state_dir, hash, op)
    {
        return Some(b);
    }
    if let Ok(b) = ctx.files().disk(&ctx.root.join(rel)).read()
        && crate::text::lines::sha256_hex(&b) == hash
    {
        return Some(b);
    }
    blobs::read(state_dir, hash).ok()
}

fn op_diff(ctx: &Ctx, a: &DiffArgs, op: &str) -> Result<Output, CmdError> {
    let state = state_dir::for_root(&ctx.root);
    let entry = undo::find(ctx, &state, op, &["diff", "--op"])?;
    let o = options(a);
    let mut changes = Vec::new();
    for c in entry.changes.iter().take(a.limit as usize) {
        changes.push(op_change(ctx, &state, &entry.op_id, c, &o));
    }
    let truncated = entry.changes.len() as u64 > a.limit;
    let out = DiffOut {
        mode: "op",
        changes: Some(changes),
        truncated,
        ..DiffOut::default()
    };
    Ok(Output::cut(&out, truncated))
}

fn op_change(ctx: &Ctx, state: &Path, op: &str, c: &EntryChange, o: &DiffOptions) -> OpChange {
    let mut out = OpChange {
        path: c.path.clone(),
        action: c.action.clone(),
        from: c.from.clone(),
        diff: None,
        diff_unavailable: None,
    };
    let text_kinds = |s: &State| s.kind == "file" || s.is_missing();
    let content_changed = c.from.is_none()
        && text_kinds(&c.before)
        && text_kinds(&c.after)
        && c.before.hash != c.after.hash;
    if !content_changed {
        return out;
    }
    let before = state_bytes(ctx, state, &c.path, &c.before, Some(op));
    let after = state_bytes(ctx, state, &c.path, &c.after, None);
    match (before, after) {
        (Some(x), Some(y)) => {
            if crate::text::sniff::is_binary(&x) || crate::text::sniff::is_binary(&y) {
                return out;
            }
            let an = if c.before.is_missing() {
                "/dev/null".to_string()
            } else {
                format!("a/{}", c.path)
            };
            let bn = if c.after.is_missing() {
                "/dev/null".to_string()
            } else {
                format!("b/{}", c.path)
            };
            let d = diff::unified(&x, &y, &an, &bn, o);
            if !d.text.is_empty() {
                out.diff = Some(d.text);
            }
        }
        _ => out.diff_unavailable = Some(true),
    }
    out
}

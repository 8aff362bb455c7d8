//! The tx commands that need no other command: open, inspect, trim, commit and
//! discard a transaction.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::journal::State;
use crate::store::tx::review::Review;
use crate::store::tx::{self, Tx};
use crate::store::{blobs, lock, state_dir, write};
use crate::text::diff::{self, DiffOptions};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;

// ---------------------------------------------------------------- begin

#[derive(Args, Debug)]
pub struct BeginArgs {
    /// Label shown by tx status.
    #[arg(long)]
    pub name: Option<String>,
    /// Gate the commit on an operator's review: tx commit waits until tx approve.
    #[arg(long)]
    pub review: bool,
}

pub const BEGIN: CommandSpec = CommandSpec {
    name: "tx begin",
    summary: "Open a transaction; --tx writes stage in it.",
    description: "Writes given --tx <tx> are validated against the tx's view and staged in it; reads and scans given --tx see that view. Nothing reaches the files until tx commit. Open transactions never expire.",
    args: <BeginArgs as clap::Args>::augment_args,
    output_fields: &[
        field("tx", "The tx id for --tx and the other tx commands."),
        field("name", "The --name label, or null."),
        field(
            "review",
            "true with --review: commit waits for an operator's tx approve of what is staged.",
        ),
    ],
    error_codes: &[code::BUSY, code::IO],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects {
        additive: true,
        ..Effects::SIDE
    },
    run: handler!(BeginArgs, begin),
};

#[derive(Serialize)]
struct BeginOut {
    tx: String,
    name: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    review: bool,
}

pub fn begin(ctx: &Ctx, a: &BeginArgs) -> Result<Output, CmdError> {
    let meta = tx::begin(ctx, a.name.clone(), a.review)?;
    Ok(Output::ok(&BeginOut {
        tx: meta.tx,
        name: meta.name,
        review: meta.review,
    }))
}

// ---------------------------------------------------------------- status

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The tx to detail; omit to list all.
    #[arg(value_name = "TX")]
    pub tx: Option<String>,
}

pub const STATUS: CommandSpec = CommandSpec {
    name: "tx status",
    summary: "List open transactions, or one tx's ops and drift.",
    description: "drift lists written paths whose file changed outside the tx since the tx first touched it (commit would conflict; see tx rebase); stale_reads lists files read through the tx that changed since (commit would conflict unless re-read or --ignore-stale-reads). A path's base and staged are content hashes, null for a missing file, directory or symlink.",
    args: <StatusArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "items",
            "Without tx: [{tx, name, created, ops, paths, drift, stale_reads, review?}], ops and paths as counts.",
        ),
        field("total", "Without tx: number of open transactions."),
        field("tx", "With tx: the tx."),
        field("name", "With tx: its --name label, or null."),
        field("created", "With tx: when it was begun (UTC)."),
        field("ops", "With tx: [{tx_op, command, paths}]."),
        field("paths", "With tx: [{path, action, base, staged}]."),
        field("drift", "Written paths changed outside the tx."),
        field(
            "stale_reads",
            "Paths read through the tx and changed since.",
        ),
        field(
            "review",
            "A --review tx only: {state: pending|approved|denied, note?, reason?, at?, previous?}; previous is a decision made on content staged before.",
        ),
    ],
    error_codes: &[code::NOT_FOUND, code::BUSY, code::IO],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(StatusArgs, status),
};

#[derive(Serialize)]
struct ListItem {
    tx: String,
    name: Option<String>,
    created: String,
    ops: usize,
    paths: usize,
    drift: Vec<String>,
    stale_reads: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    review: Option<ReviewOut>,
}

#[derive(Serialize)]
struct ListOut {
    items: Vec<ListItem>,
    total: usize,
}

#[derive(Serialize)]
struct OpOut {
    tx_op: u64,
    command: String,
    paths: Vec<String>,
}

#[derive(Serialize)]
struct PathOut {
    path: String,
    action: &'static str,
    base: Option<String>,
    staged: Option<String>,
}

#[derive(Serialize)]
struct DetailOut {
    tx: String,
    name: Option<String>,
    created: String,
    ops: Vec<OpOut>,
    paths: Vec<PathOut>,
    drift: Vec<String>,
    stale_reads: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    review: Option<ReviewOut>,
}

/// The action committing takes the path from `base` to `staged`.
pub fn action(base: &State, staged: &State) -> &'static str {
    if base == staged {
        "unchanged"
    } else if base.is_missing() {
        "created"
    } else if staged.is_missing() {
        "deleted"
    } else if base.kind == staged.kind
        && base.hash == staged.hash
        && base.target == staged.target
        && base.mode != staged.mode
    {
        "mode-changed"
    } else {
        "modified"
    }
}

fn names(c: Vec<tx::Conflict>) -> Vec<String> {
    c.into_iter().map(|c| c.path).collect()
}

pub fn status(ctx: &Ctx, a: &StatusArgs) -> Result<Output, CmdError> {
    let Some(id) = &a.tx else {
        let mut items = Vec::new();
        for t in tx::list(ctx)? {
            items.push(ListItem {
                drift: names(t.drift(ctx)?),
                stale_reads: names(t.stale_reads(ctx)?),
                tx: t.id.clone(),
                name: t.meta.name.clone(),
                created: t.meta.created.clone(),
                ops: t.ops.len(),
                paths: t.index.paths.len(),
                review: t.review().map(ReviewOut::of),
            });
        }
        let total = items.len();
        return Ok(Output::ok(&ListOut { items, total }));
    };
    let t = tx::open(ctx, id)?;
    let ops = t
        .ops
        .iter()
        .map(|r| OpOut {
            tx_op: r.tx_op,
            command: crate::protocol::shell::aitools(&r.argv),
            paths: r.paths.clone(),
        })
        .collect();
    let paths = t
        .index
        .paths
        .iter()
        .map(|(p, e)| PathOut {
            path: p.clone(),
            action: action(&e.base, &e.staged),
            base: tx::file_hash(&e.base),
            staged: tx::file_hash(&e.staged),
        })
        .collect();
    Ok(Output::ok(&DetailOut {
        drift: names(t.drift(ctx)?),
        stale_reads: names(t.stale_reads(ctx)?),
        tx: t.id.clone(),
        name: t.meta.name.clone(),
        created: t.meta.created.clone(),
        ops,
        paths,
        review: t.review().map(ReviewOut::of),
    }))
}

/// A tx's review state as `tx status` shows it.
#[derive(Serialize)]
pub struct ReviewOut {
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous: Option<String>,
}

impl ReviewOut {
    pub fn of(r: Review) -> ReviewOut {
        let mut out = ReviewOut {
            state: r.word(),
            note: None,
            reason: None,
            at: None,
            previous: None,
        };
        match r {
            Review::Approved(d) => {
                out.note = d.note;
                out.at = Some(d.at);
            }
            Review::Denied(d) => {
                out.reason = d.note;
                out.at = Some(d.at);
            }
            Review::Pending { previous } => out.previous = previous.map(|d| d.decision),
        }
        out
    }
}

// ---------------------------------------------------------------- diff

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The tx.
    #[arg(value_name = "TX")]
    pub tx: String,
    /// Diff lines shown per change.
    #[arg(long, value_name = "N", default_value = "200")]
    pub max_diff_lines: u64,
}

pub const DIFF: CommandSpec = CommandSpec {
    name: "tx diff",
    summary: "What committing a tx would change.",
    description: "Compares each path's base (its state when the tx first touched it) with its staged state. A cut diff is marked diff_truncated and next_commands repeats this command with a limit that fits.",
    args: <DiffArgs as clap::Args>::augment_args,
    output_fields: &[
        field("tx", "The tx."),
        field(
            "changes",
            "[{path, action, hash_after, added?, deleted?, diff?, diff_truncated?}]; diff is the full unified diff with ---/+++ headers.",
        ),
        field(
            "next_commands",
            "This command with a --max-diff-lines that fits, when a diff was cut.",
        ),
    ],
    error_codes: &[code::ARGUMENT_INVALID, code::NOT_FOUND, code::IO],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DiffArgs, diff),
};

/// The bytes of a base state: its loose blob, else the file on disk while it
/// still has that hash (the usual case: no pack listed), else any pack that
/// holds it.
fn base_bytes(ctx: &Ctx, t: &Tx, rel: &str, s: &State) -> Option<Vec<u8>> {
    let h = s.hash.as_ref().filter(|_| s.kind == "file")?;
    if blobs::exists(&t.state, h)
        && let Ok(b) = blobs::read(&t.state, h)
    {
        return Some(b);
    }
    if let Ok(snap) = ctx.session.snapshots.load(&ctx.root.join(rel))
        && snap.hash == *h
    {
        return Some(snap.bytes.clone());
    }
    blobs::read(&t.state, h).ok()
}

/// One staged path's change as `tx diff` shows it (diff cut at `max` lines),
/// with the whole diff's line count.
pub(super) fn change(
    ctx: &Ctx,
    t: &Tx,
    rel: &str,
    e: &tx::PathEntry,
    max: usize,
) -> (write::ChangeReport, usize) {
    let mut r = write::ChangeReport {
        path: rel.to_string(),
        action: action(&e.base, &e.staged),
        from: None,
        hash_after: tx::file_hash(&e.staged),
        added: None,
        deleted: None,
        diff: None,
        diff_truncated: None,
        count: None,
    };
    let old = base_bytes(ctx, t, rel, &e.base);
    let new = e
        .staged
        .hash
        .as_ref()
        .filter(|_| e.staged.kind == "file")
        .and_then(|h| t.blob(h).ok());
    let text_ok =
        |b: &Option<Vec<u8>>| b.as_ref().is_none_or(|b| !crate::text::sniff::is_binary(b));
    let comparable = (old.is_some() || e.base.kind != "file")
        && (new.is_some() || e.staged.kind != "file")
        && (old.is_some() || new.is_some());
    let mut lines = 0;
    if comparable && text_ok(&old) && text_ok(&new) {
        let an = if old.is_some() {
            format!("a/{rel}")
        } else {
            "/dev/null".into()
        };
        let bn = if new.is_some() {
            format!("b/{rel}")
        } else {
            "/dev/null".into()
        };
        let d = diff::unified(
            old.as_deref().unwrap_or_default(),
            new.as_deref().unwrap_or_default(),
            &an,
            &bn,
            &DiffOptions::default(),
        );
        r.added = Some(d.added);
        r.deleted = Some(d.deleted);
        if !d.text.is_empty() {
            lines = d.text.lines().count();
            let (text, cut) = diff::cut_lines(&d.text, max);
            r.diff = Some(text);
            if cut {
                r.diff_truncated = Some(true);
            }
        }
    }
    (r, lines)
}

pub fn diff(ctx: &Ctx, a: &DiffArgs) -> Result<Output, CmdError> {
    let max = a.max_diff_lines.max(1) as usize;
    let t = tx::open(ctx, &a.tx)?;
    let mut changes = Vec::new();
    let mut longest = 0usize;
    for (rel, e) in &t.index.paths {
        if e.base == e.staged {
            continue;
        }
        let (r, lines) = change(ctx, &t, rel, e, max);
        longest = longest.max(lines);
        changes.push(r);
    }
    let mut obj = Json::obj();
    obj.push("tx", Json::str(t.id.clone()));
    obj.push("changes", Json::from_serialize(&changes));
    if longest > max {
        obj.push(
            "next_commands",
            Json::Arr(vec![Json::str(shell::aitools([
                "tx",
                "diff",
                &t.id,
                "--max-diff-lines",
                &longest.to_string(),
            ]))]),
        );
    }
    Ok(Output::from_json(obj, false))
}

// ---------------------------------------------------------------- drop

#[derive(Args, Debug)]
pub struct DropArgs {
    /// The tx.
    #[arg(value_name = "TX")]
    pub tx: String,
    /// The first operation to drop, from tx status.
    #[arg(value_name = "TX_OP")]
    pub tx_op: u64,
}

pub const DROP: CommandSpec = CommandSpec {
    name: "tx drop",
    summary: "Undo a tx op and every later one.",
    description: "Later operations build on earlier ones, so dropping one drops everything after it too.",
    args: <DropArgs as clap::Args>::augment_args,
    output_fields: &[
        field("tx", "The tx."),
        field("dropped", "The dropped tx_op numbers, ascending."),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::BUSY,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects {
        destructive: true,
        ..Effects::SIDE
    },
    run: handler!(DropArgs, drop),
};

#[derive(Serialize)]
struct DropOut {
    tx: String,
    dropped: Vec<u64>,
}

pub fn drop(ctx: &Ctx, a: &DropArgs) -> Result<Output, CmdError> {
    let state = state_dir::ensure(&ctx.root, ctx.session.kept())
        .map_err(|e| crate::store::io_fault(ctx, "the state directory", &e))?;
    let _w = lock::acquire(ctx, &state)?;
    let _t = tx::open(ctx, &a.tx)?.lock(ctx)?;
    let mut t = tx::open(ctx, &a.tx)?;
    // The op an unreadable log line would be may be dropped (that rewrites the
    // log without the line).
    let past_unreadable = t.stamp.unreadable.is_some_and(|(_, op)| op == a.tx_op);
    if a.tx_op == 0 || (a.tx_op > t.index.last_op && !past_unreadable) {
        return Err(CmdError::new(
            code::ARGUMENT_INVALID,
            format!(
                "tx {} has operations 1 to {}; there is no operation {}.",
                t.id, t.index.last_op, a.tx_op
            ),
            Repair::new(
                "status",
                "List the tx's operations and their numbers.",
                shell::aitools(["tx", "status", &t.id]),
            ),
        ));
    }
    let dropped = t.drop_from(ctx, a.tx_op)?;
    ctx.files().forget();
    Ok(Output::ok(&DropOut {
        tx: t.id.clone(),
        dropped,
    }))
}

// ---------------------------------------------------------------- commit

#[derive(Args, Debug)]
pub struct CommitArgs {
    /// The tx.
    #[arg(value_name = "TX")]
    pub tx: String,
    /// Commit despite read conflicts.
    #[arg(long)]
    pub ignore_stale_reads: bool,
    /// Check for conflicts and show the changes; write nothing and keep the tx.
    #[arg(long)]
    pub dry_run: bool,
    /// A --review tx: seconds to wait for the operator's decision (0: look once).
    #[arg(long, value_name = "SECS", default_value = "600")]
    pub review_timeout: u64,
}

pub const COMMIT: CommandSpec = CommandSpec {
    name: "tx commit",
    summary: "Write a tx to the working tree as one undoable op.",
    description: "Atomically writes every staged path through the write protocol. A written path whose file changed since the tx first touched it is a write conflict (repair: tx rebase); a file read through the tx that changed since is a read conflict (repair: read it again with --tx, or --ignore-stale-reads). Any conflict writes nothing (exit 2). The op_id undoes the whole tx; the tx is gone after a commit. A tx begun with --review first waits, holding no lock, for tx approve of exactly what it stages (a later staged change voids the approval): tx deny answers refusal.review-denied, no decision within --review-timeout answers environment.review-timeout; either way nothing is written and the tx stays open.",
    args: <CommitArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        field(
            "op_id",
            "The op recording the commit (undo reverts the whole tx); null for an empty tx or with --dry-run.",
        ),
        write::FIELD_DRY_RUN,
        field(
            "next_commands",
            "`aitools diff --op <op_id>` when a diff was cut.",
        ),
    ],
    error_codes: &[
        code::NOT_FOUND,
        code::TARGET_CHANGED,
        code::REVIEW_DENIED,
        code::REVIEW_TIMEOUT,
        code::BUSY,
        code::IO,
    ],
    writes: true,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(CommitArgs, commit),
};

pub fn commit(ctx: &Ctx, a: &CommitArgs) -> Result<Output, CmdError> {
    let done = tx::commit::run(
        ctx,
        &a.tx,
        a.ignore_stale_reads,
        // Each staged op showed its diff: the commit summarizes unless asked.
        0,
        a.dry_run,
        std::time::Duration::from_secs(a.review_timeout),
    )?;
    Ok(done.into_output(vec![]))
}

// ---------------------------------------------------------------- abort

#[derive(Args, Debug)]
pub struct AbortArgs {
    /// The tx.
    #[arg(value_name = "TX")]
    pub tx: String,
}

pub const ABORT: CommandSpec = CommandSpec {
    name: "tx abort",
    summary: "Discard a tx.",
    description: "Takes the tx lock and deletes the tx; returns the paths it had staged.",
    args: <AbortArgs as clap::Args>::augment_args,
    output_fields: &[
        field("tx", "The tx."),
        field("discarded", "The paths the tx had staged, sorted."),
    ],
    error_codes: &[code::NOT_FOUND, code::BUSY, code::IO],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects {
        destructive: true,
        ..Effects::SIDE
    },
    run: handler!(AbortArgs, abort),
};

#[derive(Serialize)]
struct AbortOut {
    tx: String,
    discarded: Vec<String>,
}

pub fn abort(ctx: &Ctx, a: &AbortArgs) -> Result<Output, CmdError> {
    let discarded = tx::abort(ctx, &a.tx)?;
    Ok(Output::ok(&AbortOut {
        tx: a.tx.clone(),
        discarded,
    }))
}

//! The review gate's commands: `tx approve`, `tx deny` (an operator's decision
//! on what a `--review` tx stages; what the console's actions call) and
//! `tx reviews` (the transactions awaiting one, with per-file diff stats). The
//! decision file and the wait are the store's (`store::tx::review`).

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, code, shell, time};
use crate::store::error::StoreError;
use crate::store::tx::review::{Decision, Review};
use crate::store::tx::{self, Tx};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;

/// The open `--review` transactions no decision counts for, oldest first.
fn pending(ctx: &Ctx) -> Result<Vec<(Tx, Option<Decision>)>, CmdError> {
    let mut out = Vec::new();
    for t in tx::list(ctx)? {
        if let Some(Review::Pending { previous }) = t.review() {
            out.push((t, previous));
        }
    }
    Ok(out)
}

/// The tx a decision is about: the one named, else the only one pending.
fn target(ctx: &Ctx, named: Option<&str>) -> Result<String, CmdError> {
    if let Some(id) = named {
        return Ok(id.to_string());
    }
    let ids: Vec<String> = pending(ctx)?.into_iter().map(|(t, _)| t.id).collect();
    match ids.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(StoreError::ReviewUnnamed { pending: ids }.into()),
    }
}

#[derive(Serialize)]
struct DecideOut {
    tx: String,
    decision: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    files: usize,
    at: String,
}

fn decide(
    ctx: &Ctx,
    id: Option<&str>,
    approve: bool,
    text: Option<String>,
) -> Result<Output, CmdError> {
    let id = target(ctx, id)?;
    let (d, t) = tx::review::decide(ctx, &id, approve, text)?;
    let files = t.changed_paths().len();
    let (note, reason) = if approve {
        (d.note, None)
    } else {
        (None, d.note)
    };
    Ok(Output::ok(&DecideOut {
        tx: t.id,
        decision: d.decision,
        note,
        reason,
        files,
        at: d.at,
    }))
}

const DECIDE_FIELDS: &[crate::protocol::registry::Field] = &[
    field("tx", "The tx decided on."),
    field("decision", "approved or denied."),
    field("note", "approve's --note."),
    field("reason", "deny's --reason."),
    field("files", "How many paths the decision covers."),
    field("at", "When (UTC)."),
];

// ---------------------------------------------------------------- approve

#[derive(Args, Debug)]
pub struct ApproveArgs {
    /// The tx; omit when exactly one awaits review.
    #[arg(value_name = "TX")]
    pub tx: Option<String>,
    /// A note kept with the approval.
    #[arg(long)]
    pub note: Option<String>,
}

pub const APPROVE: CommandSpec = CommandSpec {
    name: "tx approve",
    summary: "Approve a --review tx's staged changes; its commit goes on.",
    description: "Records the approval of exactly what the tx stages now (a later staged change voids it); a tx commit waiting on the tx then writes. See tx reviews for what awaits a decision and tx diff for the changes.",
    args: <ApproveArgs as clap::Args>::augment_args,
    output_fields: DECIDE_FIELDS,
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
        idempotent: true,
        ..Effects::SIDE
    },
    run: handler!(ApproveArgs, approve),
};

pub fn approve(ctx: &Ctx, a: &ApproveArgs) -> Result<Output, CmdError> {
    decide(ctx, a.tx.as_deref(), true, a.note.clone())
}

// ---------------------------------------------------------------- deny

#[derive(Args, Debug)]
pub struct DenyArgs {
    /// The tx; omit when exactly one awaits review.
    #[arg(value_name = "TX")]
    pub tx: Option<String>,
    /// Why: the waiting commit answers it to the agent.
    #[arg(long, required = true)]
    pub reason: String,
}

pub const DENY: CommandSpec = CommandSpec {
    name: "tx deny",
    summary: "Deny a --review tx's staged changes; its commit is refused.",
    description: "Records the denial of what the tx stages now: tx commit answers refusal.review-denied with the reason and writes nothing; the tx stays open (abort it, or stage changes and commit again for a new review).",
    args: <DenyArgs as clap::Args>::augment_args,
    output_fields: DECIDE_FIELDS,
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
        idempotent: true,
        ..Effects::SIDE
    },
    run: handler!(DenyArgs, deny),
};

pub fn deny(ctx: &Ctx, a: &DenyArgs) -> Result<Output, CmdError> {
    decide(ctx, a.tx.as_deref(), false, Some(a.reason.clone()))
}

// ---------------------------------------------------------------- reviews

/// Files listed per tx; `tx diff` shows them all.
const MAX_FILES: usize = 20;

#[derive(Args, Debug)]
pub struct ReviewsArgs {}

pub const REVIEWS: CommandSpec = CommandSpec {
    name: "tx reviews",
    summary: "List the --review transactions awaiting a decision.",
    description: "Each pending review with its files and their diff stats (the first 20; tx diff shows all and the diffs) and its age. A review is pending until tx approve or tx deny decides on what is staged now.",
    args: <ReviewsArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "items",
            "[{tx, name, created, age_secs, files: [{path, action, added?, deleted?}], files_total, previous?, waiting, diff}]; previous: a decision made on content staged before; waiting: a tx commit is blocked on the decision now; diff: the command showing the changes.",
        ),
        field("total", "Number of pending reviews."),
    ],
    error_codes: &[code::BUSY, code::IO],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(ReviewsArgs, reviews),
};

#[derive(Serialize)]
struct FileOut {
    path: String,
    action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    added: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deleted: Option<u64>,
}

#[derive(Serialize)]
struct PendingOut {
    tx: String,
    name: Option<String>,
    created: String,
    age_secs: i64,
    files: Vec<FileOut>,
    files_total: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous: Option<String>,
    waiting: bool,
    diff: String,
}

#[derive(Serialize)]
struct ReviewsOut {
    items: Vec<PendingOut>,
    total: usize,
}

pub fn reviews(ctx: &Ctx, _a: &ReviewsArgs) -> Result<Output, CmdError> {
    let now = time::now().0;
    let mut items = Vec::new();
    for (t, previous) in pending(ctx)? {
        let changed: Vec<_> = t
            .index
            .paths
            .iter()
            .filter(|(_, e)| e.base != e.staged)
            .collect();
        let files = changed
            .iter()
            .take(MAX_FILES)
            .map(|(rel, e)| {
                let (r, _) = super::commands::change(ctx, &t, rel, e, 0);
                FileOut {
                    path: r.path,
                    action: r.action,
                    added: r.added,
                    deleted: r.deleted,
                }
            })
            .collect();
        let age_secs = time::parse(&t.meta.created).map_or(0, |c| (now - c).max(0));
        items.push(PendingOut {
            diff: shell::aitools(["tx", "diff", &t.id]),
            tx: t.id.clone(),
            name: t.meta.name.clone(),
            created: t.meta.created.clone(),
            age_secs,
            files,
            files_total: changed.len(),
            previous: previous.map(|d| d.decision),
            waiting: tx::review::waiting(&t),
        });
    }
    let total = items.len();
    Ok(Output::ok(&ReviewsOut { items, total }))
}

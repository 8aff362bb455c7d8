//! `gc`: collect the state directory now, under the retention policy every write
//! also applies when the blobs grow over budget (see `store::gc`).

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, code, values};
use crate::store::{gc, lock, recovery, scratch, snapshot_area, state_dir};
use crate::workspace::Ctx;
use clap::Args;

#[derive(Args, Debug)]
pub struct GcArgs {
    /// Size the kept blobs may take: <n>, <n>KiB, <n>MiB or <n>GiB (default AITOOLS_STATE_BUDGET, else 512MiB). 0 collects every op outside the newest 20 per path.
    #[arg(long, value_name = "SIZE")]
    pub budget: Option<String>,
    /// Report what would be collected; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "gc",
    summary: "Collect old undo data beyond the budget.",
    description: "Blobs that no journaled op, open tx or pending write names are removed. While the remaining blobs exceed the budget, the oldest ops are collected (undo of them then answers refusal.op-collected) and the blobs only they named removed; the 20 newest ops touching each path, open transactions and pending writes are always kept. Writes run the same collection on their own when the blobs grow over budget. mktemp entries not modified for a day, and snapshot records older than 7 days, are removed too. Takes the workspace lock (--lock-timeout).",
    args: <GcArgs as clap::Args>::augment_args,
    output_fields: &[
        field("ops_collected", "Ops newly collected (no longer undoable)."),
        field("blobs_removed", "Blob files removed."),
        field("bytes_freed", "Bytes those blobs took."),
        field("bytes_before", "Blob bytes before the collection."),
        field("bytes_after", "Blob bytes after it."),
        field("budget", "The budget applied, in bytes."),
        field(
            "scratch_removed",
            "mktemp entries (state tmp/) removed: those not modified for a day.",
        ),
        field(
            "snapshots_removed",
            "snapshot create records removed: those older than 7 days.",
        ),
        field("dry_run", "True with --dry-run: nothing was removed."),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::BUSY,
        code::IO,
        code::RECOVERY_PENDING,
    ],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects {
        destructive: true,
        ..Effects::SIDE
    },
    run: handler!(GcArgs, run),
};

pub fn run(ctx: &Ctx, a: &GcArgs) -> Result<Output, CmdError> {
    let budget = match &a.budget {
        Some(s) => {
            values::parse_size(s).map_err(|m| CmdError::invalid_argument(&ctx.command, m))?
        }
        None => ctx.session.settings.gc_budget,
    };
    if a.dry_run && state_dir::verify(&ctx.root, ctx.session.kept()).is_ok_and(|s| !s.exists()) {
        return Ok(nothing_to_collect(budget));
    }
    let state = state_dir::ensure(&ctx.root, ctx.session.kept())
        .map_err(|e| crate::store::io_fault(ctx, "the state directory", &e))?;
    let _lock = lock::acquire(ctx, &state)?;
    recovery::recover_locked(ctx, &state)?;
    let r = gc::collect(&state, budget, budget, a.dry_run)
        .map_err(|e| crate::store::io_fault(ctx, "the collection", &e))?;
    if !a.dry_run {
        // A store made before the journal's tail index gets it once (best effort:
        // without it short ids are still found, by a listing).
        let _ = crate::store::journal::build_tail_index(&state);
    }
    let scratch = scratch::sweep(&state, std::time::SystemTime::now(), a.dry_run)
        .map_err(|e| crate::store::io_fault(ctx, "the scratch area", &e))?;
    let snaps = snapshot_area::sweep(&state, std::time::SystemTime::now(), a.dry_run)
        .map_err(|e| crate::store::io_fault(ctx, "the snapshot area", &e))?;
    Ok(answer(&r, scratch, snaps, a.dry_run))
}

/// gc's answer: the collection's report, the scratch and snapshot entries
/// removed, and `dry_run` when nothing was.
fn answer(r: &gc::Report, scratch: u64, snaps: u64, dry_run: bool) -> Output {
    let mut obj = Json::obj();
    obj.push("ops_collected", Json::UInt(r.ops_collected));
    obj.push("blobs_removed", Json::UInt(r.blobs_removed));
    obj.push("bytes_freed", Json::UInt(r.bytes_freed));
    obj.push("bytes_before", Json::UInt(r.bytes_before));
    obj.push("bytes_after", Json::UInt(r.bytes_after));
    obj.push("budget", Json::UInt(r.budget));
    obj.push("scratch_removed", Json::UInt(scratch));
    obj.push("snapshots_removed", Json::UInt(snaps));
    if dry_run {
        obj.push("dry_run", Json::Bool(true));
    }
    Output::from_json(obj, false)
}

/// `gc --dry-run` where the workspace has no state directory: nothing to collect,
/// and the preview makes none.
fn nothing_to_collect(budget: u64) -> Output {
    let none = gc::Report {
        budget,
        ..gc::Report::default()
    };
    answer(&none, 0, 0, true)
}

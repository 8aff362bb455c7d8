//! `undo`: revert one journaled op as a new op (journaled with `undoes`), refusing with the
//! conflicting paths when any of them changed since.

use crate::handler;
use crate::protocol::args::DryRun;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, code};
use crate::store::write::{self, WriteRequest};
use crate::store::{state_dir, undo};
use crate::workspace::Ctx;
use clap::Args;

#[derive(Args, Debug)]
pub struct UndoArgs {
    /// The op to revert, from aitools history.
    #[arg(value_name = "OP_ID")]
    pub op_id: String,
    #[command(flatten)]
    pub dry: DryRun,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "undo",
    summary: "Revert one write by its op_id.",
    description: "op_id is required (see aitools history). If any path of the op is no longer in the state the op left it in, nothing is written and the changed paths come back as conflicts (exit 2). The undo is itself a new op with undoes = op_id, so undoing it redoes the original. Takes the workspace lock (--lock-timeout).",
    args: <UndoArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "changes",
            "[{path,action?,from?,hash?}]; added, deleted and diff only with --dry-run or --max-diff-lines N (the inverse of the op's own diff).",
        ),
        field(
            "op_id",
            "The new op recording the undo, whose journal entry names the op it undoes (absent with --dry-run).",
        ),
        field("dry_run", "True with --dry-run."),
        write::FIELD_NEXT,
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::AMBIGUOUS,
        code::TARGET_CHANGED,
        code::OP_COLLECTED,
        code::BLOB_CORRUPT,
        code::OUTSIDE_WORKSPACE,
        code::BUSY,
        code::IO,
    ],
    writes: true,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(UndoArgs, run),
};

pub fn run(ctx: &Ctx, a: &UndoArgs) -> Result<Output, CmdError> {
    let state = state_dir::for_root(&ctx.root);
    // The before-states the op recorded are written back: their diff is the op's
    // own, inverted, so a real undo answers paths and hashes (`--dry-run` or
    // `--max-diff-lines N` shows the diff).
    let echo = a.dry.dry_run || ctx.max_diff_lines.is_some();
    // The journal records the whole id an answer's short one names.
    let op_id = crate::store::journal::whole_op_id(&state, &a.op_id)
        .map_err(|e| crate::store::io_fault(ctx, "the journal", &e))?;
    let req = WriteRequest::new(ctx)
        .dry_run(a.dry.dry_run)
        .undoes(&op_id)
        .max_diff_lines(if echo { None } else { Some(0) });
    // Without them no diff is built (a large file's would be read whole).
    req.no_diffs.set(!echo);
    let done = write::submit(ctx, &req, || {
        let entry = undo::find(ctx, &state, &op_id, &["undo"])?;
        undo::inverse(ctx, &state, &entry, echo)
    })?;
    // The reverted op is the one the caller named; `history` shows the link.
    let mut out = done.into_output(vec![]);
    if !echo {
        crate::protocol::compact::drop_diffs(&mut out.fields, &[]);
    }
    Ok(out)
}

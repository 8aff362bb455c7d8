//! `recover`: finish the interrupted writes still pending in this workspace (after
//! their cause is fixed), or set one aside without running it.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, code};
use crate::store::recovery;
use crate::workspace::Ctx;
use clap::Args;

#[derive(Args, Debug)]
pub struct RecoverArgs {
    /// Set this pending write (an op_id from pending_recovery) aside instead of
    /// finishing it: its record, blobs and temp files' bytes are kept under
    /// set-aside/<op_id>/ in the state directory and the set-aside is journaled.
    #[arg(long, value_name = "OP_ID")]
    pub set_aside: Option<String>,
    /// Say what would be finished, discarded or set aside; change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "recover",
    summary: "Finish or set aside interrupted writes.",
    description: "Every command first finishes or discards what a killed write left; a write whose step cannot run (read-only mount, permissions, full disk) or whose record is not trusted stays pending: reads report it in pending_recovery; writes to the paths it names (every write, for a record that is not trusted) refuse with environment.recovery-pending, writes elsewhere go on. Fix the cause and run recover to finish it; recover fails the same way while it still cannot. --set-aside OP_ID moves the record out of the way without running it, keeping every byte it references, and journals that as an op of its own (the files it touched stay as they are now).",
    args: <RecoverArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "set_aside",
            "With --set-aside: {op_id, kept_in (inside the state directory), left_in_tree? (temp files that could not be removed), journal_op (null with --dry-run)}.",
        ),
        field(
            "recovered",
            "[{op_id, action}]: writes finished (rolled-forward) or discarded now.",
        ),
        field(
            "pending_recovery",
            "[{op_id, error, repairs}]: writes still pending after --set-aside or --dry-run (otherwise any left make recover fail).",
        ),
        field("dry_run", "True with --dry-run."),
    ],
    error_codes: &[
        code::RECOVERY_PENDING,
        code::STATE_UNTRUSTED,
        code::NOT_FOUND,
        code::BUSY,
        code::IO,
    ],
    writes: true,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(RecoverArgs, run),
};

pub fn run(ctx: &Ctx, a: &RecoverArgs) -> Result<Output, CmdError> {
    let set_aside = match &a.set_aside {
        Some(id) => Some(recovery::set_aside(ctx, id, a.dry_run)?),
        None => None,
    };
    let report = if a.dry_run {
        let mut r = recovery::preview(ctx)?;
        // The record set aside would not also be finished.
        if let Some(id) = &a.set_aside {
            r.recovered.retain(|x| &x.op_id != id);
            r.pending.retain(|x| &x.op_id != id);
        }
        r
    } else {
        recovery::recover(ctx)?
    };
    if set_aside.is_none() && !a.dry_run && !report.pending.is_empty() {
        return Err(recovery::pending_error(&report.pending).into());
    }
    let mut obj = Json::obj();
    if let Some(s) = set_aside {
        obj.push("set_aside", Json::from_serialize(&s));
    }
    obj.push("recovered", Json::from_serialize(&report.recovered));
    obj.push("pending_recovery", Json::from_serialize(&report.pending));
    if a.dry_run {
        obj.push("dry_run", Json::Bool(true));
    }
    Ok(Output::from_json(obj, false))
}

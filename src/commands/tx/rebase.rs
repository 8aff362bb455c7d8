//! `tx rebase`: re-runs a tx's recorded operations that touch drifted paths
//! against the current files, through the invoker (`Ctx::invoker`), into a scratch
//! tx that replaces the tx's paths and ops only when every re-run succeeds.

use crate::handler;
use crate::protocol::invoke::with_tx;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::tx::{self, PathEntry};
use crate::store::{lock, state_dir};
use crate::workspace::Ctx;
use crate::workspace::root::Invoker;
use clap::Args;
use std::collections::BTreeSet;

#[derive(Args, Debug)]
pub struct RebaseArgs {
    /// The tx.
    #[arg(value_name = "TX")]
    pub tx: String,
}

pub const REBASE: CommandSpec = CommandSpec {
    name: "tx rebase",
    summary: "Re-apply a tx onto files changed outside it.",
    description: "Only operations touching drifted paths (or paths an earlier re-applied operation rewrote) are re-run, from their recorded arguments, against the current files. Content-based operations search again; position-based ones (--range, --symbol) and hash-guarded ones (--expect-hash), and --stdin input, are not re-run and make the rebase a conflict. On any conflict the tx is left unchanged (exit 2). Stale reads are not resolved here: re-read, or commit with --ignore-stale-reads.",
    args: <RebaseArgs as clap::Args>::augment_args,
    output_fields: &[
        field("tx", "The tx."),
        field(
            "rebased",
            "The drifted paths whose base moved to the current file.",
        ),
    ],
    error_codes: &[code::NOT_FOUND, code::TARGET_CHANGED, code::BUSY, code::IO],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::SIDE,
    run: handler!(RebaseArgs, rebase),
};

/// Why an op that must be re-run cannot be.
fn not_rerunnable(argv: &[String]) -> Option<&'static str> {
    for (flag, why) in [
        (
            "--range",
            "it selected by --range (positions may have moved)",
        ),
        (
            "--symbol",
            "it selected by --symbol (positions may have moved)",
        ),
        (
            "--expect-hash",
            "it was guarded by --expect-hash (the content it relied on changed)",
        ),
        (
            "--stdin",
            "its input came from --stdin, which cannot be given again",
        ),
    ] {
        if has_flag(argv, flag) {
            return Some(why);
        }
    }
    None
}

fn rebase_conflict(id: &str, drift: &[tx::Conflict], diag: Json) -> CmdError {
    CmdError::new(
        code::TARGET_CHANGED,
        format!("tx {id} cannot be rebased onto the current files; it is unchanged."),
        Repair::new(
            "status",
            "Find the operation that cannot be re-applied (see diagnostics); drop it and redo it by hand.",
            shell::aitools(["tx", "status", id]),
        ),
    )
    .with_repair(Repair::new(
        "abort",
        "Discard the tx and start again from the current files.",
        shell::aitools(["tx", "abort", id]),
    ))
    .with_conflicts(Json::from_serialize(drift))
    .with_diagnostics(diag)
}

pub fn rebase(ctx: &Ctx, a: &RebaseArgs) -> Result<Output, CmdError> {
    let id = a.tx.as_str();
    let run = invoker(ctx)?;
    let state = state_dir::ensure(&ctx.root, ctx.session.kept())
        .map_err(|e| crate::store::io_fault(ctx, "the state directory", &e))?;
    let _w = lock::acquire(ctx, &state)?;
    let _t = tx::open(ctx, id)?.lock(ctx)?;
    let mut t = tx::open(ctx, id)?;
    let drift = t.drift(ctx)?;
    let rebased: Vec<String> = drift.iter().map(|c| c.path.clone()).collect();
    let mut out = Json::obj();
    out.push("tx", Json::str(id));
    if drift.is_empty() {
        out.push("rebased", Json::Arr(Vec::new()));
        return Ok(Output::from_json(out, false));
    }
    let mut dirty: BTreeSet<String> = rebased.iter().cloned().collect();
    // Ops that must be re-run but cannot: a conflict before anything is built.
    let mut blocked = Vec::new();
    let mut probe = dirty.clone();
    for r in &t.ops {
        if r.depends_on(&probe) {
            if let Some(why) = not_rerunnable(&r.argv) {
                let mut d = Json::obj();
                d.push("tx_op", Json::UInt(r.tx_op));
                d.push("command", Json::str(shell::aitools(&r.argv)));
                d.push("reason", Json::str(why));
                blocked.push(d);
            }
            probe.extend(r.paths.iter().cloned());
        }
    }
    if !blocked.is_empty() {
        return Err(rebase_conflict(id, &drift, Json::Arr(blocked)));
    }
    let scratch_meta = tx::begin_scratch(ctx, id)?;
    let sid = scratch_meta.tx.clone();
    let built = (|| -> Result<tx::Tx, CmdError> {
        for (k, r) in t.ops.iter().enumerate() {
            if r.depends_on(&dirty) {
                let cwd = std::path::Path::new(&r.cwd);
                let cwd = (!r.cwd.is_empty() && cwd.is_dir()).then_some(cwd);
                let inner = (run.run)(ctx, &with_tx(&r.argv, &sid), cwd);
                if inner.error().is_some() {
                    // The scratch tx is discarded below: name the tx the agent knows.
                    let mut env = inner.envelope();
                    replace_everywhere(&mut env, &sid, id);
                    let mut d = Json::obj();
                    d.push("tx_op", Json::UInt(r.tx_op));
                    d.push("command", Json::str(shell::aitools(&r.argv)));
                    d.push("reason", Json::str("re-running it failed"));
                    d.push("envelope", env);
                    return Err(rebase_conflict(id, &drift, Json::Arr(vec![d])));
                }
                dirty.extend(r.paths.iter().cloned());
            } else {
                let mut s = tx::open(ctx, &sid)?;
                let entries: Vec<(String, PathEntry)> = r
                    .paths
                    .iter()
                    .filter_map(|p| t.entry_after(k, p).map(|e| (p.clone(), e)))
                    .collect();
                s.copy_op(ctx, r, entries)?;
            }
        }
        Ok(tx::open(ctx, &sid)?)
    })();
    let result = match built {
        Ok(s) => t.replace(ctx, &s).map_err(CmdError::from),
        Err(e) => Err(e),
    };
    let _ = tx::discard(ctx, &sid);
    ctx.files().forget();
    result?;
    out.push("rebased", Json::from_serialize(&rebased));
    Ok(Output::from_json(out, false))
}

/// The invoker the dispatcher put in `ctx` (a handler called any other way has none).
fn invoker(ctx: &Ctx) -> Result<Invoker, CmdError> {
    ctx.invoker
        .ok_or_else(|| CmdError::internal(format!("{} ran without an invoker.", ctx.command)))
}

fn has_flag(argv: &[String], flag: &str) -> bool {
    let eq = format!("{flag}=");
    argv.iter()
        .take_while(|a| *a != "--")
        .any(|a| a == flag || a.starts_with(&eq))
}

/// Every string of an envelope with `from` replaced by `to`.
fn replace_everywhere(v: &mut Json, from: &str, to: &str) {
    match v {
        Json::Str(s) if s.contains(from) => *s = s.replace(from, to),
        Json::Obj(members) => members
            .iter_mut()
            .for_each(|(_, val)| replace_everywhere(val, from, to)),
        Json::Arr(items) => items
            .iter_mut()
            .for_each(|i| replace_everywhere(i, from, to)),
        _ => {}
    }
}

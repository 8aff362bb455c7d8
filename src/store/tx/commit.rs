//! `tx commit`: the tx's staged changes through the write protocol, as one
//! journal op. It sits above `write` (which stages through the rest of `tx`), so
//! `tx`'s other files never name it.

use super::*;
use crate::store::write::{self, Committed, WriteRequest};

/// `tx commit`: checks the write and read sets, then writes every staged path
/// through the write protocol as one journal op and removes the tx.
/// `max_diff_lines` is the diff shown when the call gave no `--max-diff-lines`.
/// A tx begun with `--review` first waits (holding no lock) up to
/// `review_timeout` for an operator's approval of its staged state, and commits
/// only if that approval still counts under the locks (`review`); a dry run
/// does not wait.
pub fn run(
    ctx: &Ctx,
    id: &str,
    ignore_stale_reads: bool,
    max_diff_lines: usize,
    dry_run: bool,
    review_timeout: std::time::Duration,
) -> Result<Committed, Box<StoreError>> {
    let deadline = std::time::Instant::now() + review_timeout;
    loop {
        if !dry_run {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            review::wait(ctx, id, left, |tx| conflicts(ctx, tx, ignore_stale_reads))?;
        }
        if let Some(done) = locked(ctx, id, ignore_stale_reads, max_diff_lines, dry_run)? {
            return Ok(done);
        }
        // The staged state changed between the approval seen and the locks: the
        // approval no longer counts; wait for one on what is staged now.
    }
}

/// A commit's conflicts (drift, and stale reads unless ignored) as its refusal.
fn conflicts(ctx: &Ctx, tx: &Tx, ignore_stale_reads: bool) -> Result<(), Box<StoreError>> {
    let mut conflicts = tx.drift(ctx)?;
    if !ignore_stale_reads {
        conflicts.extend(tx.stale_reads(ctx)?);
    }
    if !conflicts.is_empty() {
        return Err(conflict_error(&tx.id, &conflicts));
    }
    Ok(())
}

/// The commit under the workspace and tx locks; `None` when the tx is review
/// gated and no approval counts for what it stages now.
fn locked(
    ctx: &Ctx,
    id: &str,
    ignore_stale_reads: bool,
    max_diff_lines: usize,
    dry_run: bool,
) -> Result<Option<Committed>, Box<StoreError>> {
    let state = super::state_for(ctx).map_err(|e| io_err(ctx, &e))?;
    let _wlock = lock::acquire(ctx, &state)?;
    super::recovery::recover_locked(ctx, &state)?;
    let (_tlock, tx) = open_locked(ctx, id)?;
    if !dry_run {
        match tx.review() {
            None | Some(review::Review::Approved(_)) => {}
            Some(review::Review::Pending { .. }) => return Ok(None),
            Some(review::Review::Denied(d)) => {
                return Err(StoreError::ReviewRefused(review::Refused::Denied {
                    id: id.to_string(),
                    reason: d.note,
                })
                .into());
            }
        }
    }
    conflicts(ctx, &tx, ignore_stale_reads)?;
    let changes = tx.changes(ctx)?;
    let mut plain = ctx.clone();
    plain.tx = None;
    let mut req = WriteRequest::new(&plain)
        .dry_run(dry_run)
        .max_diff_lines(Some(max_diff_lines));
    // Each op was judged by the syntax guard when it was staged.
    req.syntax_guard = Some(false);
    if dry_run {
        return write::submit(&plain, &req, || Ok(changes)).map(Some);
    }
    // The staged blobs (checked against their hashes by `changes`) move into the
    // shared `blobs/`, where the journal keeps the after-states.
    let verified: Vec<String> = tx
        .index
        .paths
        .values()
        .filter(|e| e.staged.kind == "file" && e.base != e.staged)
        .filter(|e| !(e.base.kind == "file" && e.base.hash == e.staged.hash))
        .filter_map(|e| e.staged.hash.clone())
        .collect();
    tx.publish_blobs(&verified).map_err(|e| io_err(ctx, &e))?;
    // The marker names the journal op the commit will be: the command that
    // journals it may be `batch`, whose argv does not name the tx.
    let seq = journal::next_seq(&state).map_err(|e| io_err(ctx, &e))?;
    let op_id = journal::new_op_id(&state, seq, ctx.session.settings.seed.as_deref());
    let marker = (|| -> io::Result<()> {
        let mut f = fsx::create_new(&tx.dir.join("committing"), 0o600)?;
        f.write_all(format!("{seq} {op_id}\n").as_bytes())?;
        f.sync_all()?;
        fsx::sync_dir(&tx.dir)
    })();
    marker.map_err(|e| io_err(ctx, &e))?;
    req.op_id = Some(op_id);
    let done = write::submit(&plain, &req, || Ok(changes));
    match done {
        Ok(c) => {
            remove_dir(&state, &tx.dir, id).map_err(|e| io_err(ctx, &e))?;
            ctx.session.forget_tx();
            Ok(Some(c))
        }
        Err(e) => {
            let _ = std::fs::remove_file(tx.dir.join("committing"));
            Err(e)
        }
    }
}

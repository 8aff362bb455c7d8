//! The tx family: `tx begin`, `tx status`, `tx diff`, `tx drop`, `tx commit`,
//! `tx abort`, `tx rebase`, `batch`, and the review gate's `tx approve`, `tx deny`
//! and `tx reviews`. The storage, staging and commit are the
//! store's (`store::tx`); rebase and batch run other commands through the invoker
//! the dispatcher puts in `Ctx` (`protocol::invoke`).

use crate::protocol::registry::CommandSpec;

pub mod batch;
pub mod commands;
pub mod rebase;
pub mod review;

pub const COMMANDS: &[CommandSpec] = &[
    commands::BEGIN,
    commands::STATUS,
    commands::DIFF,
    commands::DROP,
    commands::COMMIT,
    commands::ABORT,
    review::APPROVE,
    review::DENY,
    review::REVIEWS,
    rebase::REBASE,
    batch::BATCH,
];

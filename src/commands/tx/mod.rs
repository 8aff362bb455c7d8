//! The tx family: `tx begin`, `tx status`, `tx diff`, `tx drop`, `tx commit`,
//! `tx abort`, `tx rebase` and `batch`. The storage, staging and commit are the
//! store's (`store::tx`); rebase and batch run other commands through the invoker
//! the dispatcher puts in `Ctx` (`protocol::invoke`).

use crate::protocol::registry::CommandSpec;

pub mod batch;
pub mod commands;
pub mod rebase;

pub const COMMANDS: &[CommandSpec] = &[
    commands::BEGIN,
    commands::STATUS,
    commands::DIFF,
    commands::DROP,
    commands::COMMIT,
    commands::ABORT,
    rebase::REBASE,
    batch::BATCH,
];

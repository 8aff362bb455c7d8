//! The tx family: `tx begin`, `tx status`, `tx diff`, `tx drop`, `tx commit`,
//! `tx abort`. The storage, staging and commit are the store's (`store::tx`);
//! `tx rebase` re-runs commands, so it lives in the composition root (`tx_flow`).

use crate::protocol::registry::CommandSpec;

pub mod commands;

pub const COMMANDS: &[CommandSpec] = &[
    commands::BEGIN,
    commands::STATUS,
    commands::DIFF,
    commands::DROP,
    commands::COMMIT,
    commands::ABORT,
];

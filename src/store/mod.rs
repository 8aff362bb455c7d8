//! The store core: the state directory outside the tree, the workspace lock,
//! blobs, intent records, the write protocol, recovery, the journal, undo, transactions (`tx`) and the view reads and
//! validations go through (`view`). No
//! command writes a workspace file except through here.

pub mod appends;
pub mod beneath;
pub mod blobs;
pub mod files;
pub mod fsx;
pub mod gc;
pub mod guard;
pub mod hashcache;
pub mod intent;
pub mod journal;
pub mod lock;
pub mod recovery;
pub mod session;
pub mod snapshot;
pub mod state_dir;
pub mod tx;
pub mod undo;
pub mod view;
pub mod write;

use crate::protocol::{CmdError, Repair, code, error, shell};
use crate::workspace::Ctx;

/// `environment.io` for the store's own files (state directory, journal, records).
pub fn io_error(ctx: &Ctx, what: &str, e: &std::io::Error) -> CmdError {
    CmdError::new(
        code::IO,
        format!("{what}: {}.", error::err_text(e)),
        Repair::new(
            "retry",
            "Check the disk and the state directory's permissions, then run the command again.",
            shell::aitools(&ctx.argv),
        ),
    )
    .with_repair(Repair::new(
        "history",
        "See which writes the journal holds.",
        "aitools history",
    ))
}

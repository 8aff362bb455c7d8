//! The store core: the state directory outside the tree, the workspace lock,
//! blobs, intent records, the write protocol, recovery, the journal, undo,
//! transactions (`tx`) and the view reads and validations go through (`view`).
//! No command writes a workspace file except through here.
//!
//! The files form layers; a file names only files of the layers below it (no
//! import cycle, checked by `tests/structure.rs`):
//!
//! 1. leaves: `fsx`, `guard`, `snapshot`, `state_dir`, `journal`, `pack` (the
//!    blob packs of ops over many files), `blobs`, `beneath`, `lock`, `intent`,
//!    `hashcache`, `appends`, `stream` (large files edited in one streaming pass), `scratch` (the
//!    `mktemp` area), `snapshot_area` (`snapshot create`'s records), and `request` (the write request and answer types,
//!    `Change`, `WriteRequest`, `Committed`);
//! 2. `current` (what is on disk now: a path's state and hash), `tx::model` (a
//!    tx's records as data), `session` (the state an invocation carries),
//!    `error` (`StoreError`: what went wrong, as data; `src/command_error/store.rs`
//!    words it as code, message and repairs);
//! 3. `gc` (retention); over it `undo` (the changes that revert a journaled op,
//!    which the `undo` command submits as a write) and `recovery` (finishing or
//!    setting aside a record a killed writer left: `recovery::finish` applies
//!    and journals an intent);
//! 4. `tx` (open, list, begin, staging, drift, the commit marker, abort), then
//!    `view` (a path as the command sees it: the tx's staged state, else disk);
//! 5. `write` (`write::submit`, the one entry: plans a `WriteRequest` against the
//!    view, then commits it through the write protocol or stages it in its tx);
//! 6. `tx::commit` (the tx's staged changes through `write`, as one op).

pub mod appends;
pub mod beneath;
pub mod blobs;
pub mod current;
pub mod error;
pub mod files;
pub mod fsx;
pub mod gc;
pub mod guard;
pub mod hashcache;
pub mod intent;
pub mod journal;
pub mod lock;
pub mod pack;
pub mod recovery;
pub mod request;
pub mod scratch;
pub mod session;
pub mod snapshot;
pub mod snapshot_area;
pub mod state_dir;
pub mod stream;
#[cfg(test)]
pub mod swapped_parent;
pub mod tx;
pub mod undo;
pub mod view;
pub mod write;

use crate::workspace::Ctx;

/// `environment.io` for the store's own files (state directory, journal, records).
pub fn io_fault(ctx: &Ctx, what: &str, e: &std::io::Error) -> Box<error::StoreError> {
    Box::new(error::StoreError::Io {
        what: what.to_string(),
        error: error::copy_io(e),
        argv: ctx.argv.clone(),
    })
}

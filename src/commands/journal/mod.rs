//! The journal family: `history` (what was written, newest first), `undo`
//! (revert one op as a new op), `recover` (finish or set aside the writes an
//! interruption left pending) and `gc` (collect the state directory now).

use crate::protocol::registry::CommandSpec;

pub mod gc;
pub mod history;
pub mod recover;
pub mod undo;

pub const COMMANDS: &[CommandSpec] = &[history::SPEC, undo::SPEC, recover::SPEC, gc::SPEC];

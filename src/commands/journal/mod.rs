//! The journal family: `history` (what was written, newest first) and `undo`
//! (revert one op as a new op), `gc` (collect the state directory now).

use crate::protocol::registry::CommandSpec;

pub mod gc;
pub mod history;
pub mod undo;

pub const COMMANDS: &[CommandSpec] = &[history::SPEC, undo::SPEC, gc::SPEC];

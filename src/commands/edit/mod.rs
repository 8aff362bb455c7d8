//! The edit family: commands that change files' text through the store's write
//! protocol (`edit`, `insert`, `replace`, `apply`).

use crate::protocol::registry::CommandSpec;

pub mod apply;
pub mod common;
pub mod edit_cmd;
pub mod insert;
pub mod matching;
pub mod patch;
pub mod replace;
pub mod template;

pub const COMMANDS: &[CommandSpec] = &[edit_cmd::SPEC, insert::SPEC, replace::SPEC, apply::SPEC];

//! The inspect family: commands that look at one file or path (`read`, `info`),
//! or compare two (`diff`).

use crate::protocol::registry::CommandSpec;

pub mod diff;
pub mod info;
pub mod read;

pub const COMMANDS: &[CommandSpec] = &[read::SPEC, info::SPEC, diff::SPEC];

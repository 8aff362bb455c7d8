//! The inspect family: commands that look at one file or path (`read`, `info`).

use crate::protocol::registry::CommandSpec;

pub mod info;
pub mod read;

pub const COMMANDS: &[CommandSpec] = &[read::SPEC, info::SPEC];

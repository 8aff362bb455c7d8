//! The inspect family: commands that look at one file or path (`read`, `info`),
//! check its syntax (`check`), or compare two (`diff`).

use crate::protocol::registry::CommandSpec;

pub mod check;
pub mod diff;
pub mod info;
pub mod read;

pub const COMMANDS: &[CommandSpec] = &[read::SPEC, info::SPEC, check::SPEC, diff::SPEC];

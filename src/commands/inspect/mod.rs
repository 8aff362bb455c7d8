//! The inspect family: commands that look at one file or path (`read`, `info`),
//! check its syntax (`check`), or compare two (`diff`); `snapshot create|diff`
//! compares the tree with itself over time.

use crate::protocol::registry::CommandSpec;

pub mod check;
pub mod diff;
pub mod info;
pub mod read;
pub mod snapshot;

pub const COMMANDS: &[CommandSpec] = &[
    read::SPEC,
    info::SPEC,
    check::SPEC,
    diff::SPEC,
    snapshot::CREATE,
    snapshot::DIFF,
];

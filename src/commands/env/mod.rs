//! The env family: facts about the machine and the clock that agents otherwise
//! get from the shell: `sys info|env|tools` (host, environment masked, tools on
//! PATH) and `time now|convert|diff` (zones from the system's TZif database).

use crate::protocol::registry::CommandSpec;

pub mod sys;
pub mod time;
pub mod tz;

pub const COMMANDS: &[CommandSpec] = &[
    sys::INFO,
    sys::ENV,
    sys::TOOLS,
    time::NOW,
    time::CONVERT,
    time::DIFF,
];

//! The agent family: the commands of seed 003's agent layer, `skills` (the guides
//! compiled in from `agent/skills/`) and `feedback` (problems agents file about
//! aitools itself, one JSON file each).

use crate::protocol::registry::CommandSpec;

pub mod feedback;
mod feedback_store;
pub mod skills;

pub const COMMANDS: &[CommandSpec] = &[
    skills::SPEC,
    feedback::CREATE,
    feedback::LIST,
    feedback::SHOW,
    feedback::TRANSITION,
];

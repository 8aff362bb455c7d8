//! The process family: `run` (a program to its end, its output trimmed), `bg
//! start|logs|status|stop` (programs that outlive the call, their state under the
//! workspace's state directory), `wait` (until a condition holds) and `mktemp`
//! (a scratch entry outside the tree for their output).

use crate::protocol::registry::CommandSpec;

pub mod bg;
pub mod capture;
pub mod mktemp;
pub mod output;
pub mod run;
pub mod wait;

pub const COMMANDS: &[CommandSpec] = &[
    run::SPEC,
    wait::SPEC,
    bg::START,
    bg::LOGS,
    bg::STATUS,
    bg::STOP,
    mktemp::SPEC,
];

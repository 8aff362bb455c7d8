//! The process family: `run` (a program to its end, its output trimmed), `bg
//! start|logs|status|stop` (programs that outlive the call, their state under the
//! workspace's state directory) and `wait` (until a condition holds).

use crate::protocol::registry::CommandSpec;

pub mod bg;
pub mod capture;
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
];

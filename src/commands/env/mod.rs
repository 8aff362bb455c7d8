//! The env family: what agents otherwise ask the shell about the world around
//! the tree: `snapshot create|diff` (what a build changed, without git), `sys
//! info|env|tools` (host, environment masked, tools on PATH) and `time
//! now|convert|diff` (zones from the system's TZif database); `util
//! encode|decode|redact|tokens|uuid|calc|random` (codecs, the mask, sizes,
//! ids, exact arithmetic, random strings).

use crate::protocol::registry::CommandSpec;

pub mod calc;
pub mod random;
pub mod snapshot;
pub mod sys;
pub mod time;
pub mod tz;
pub mod util;

pub const COMMANDS: &[CommandSpec] = &[
    snapshot::CREATE,
    snapshot::DIFF,
    sys::INFO,
    sys::ENV,
    sys::TOOLS,
    sys::PROCS,
    sys::PORTS,
    time::NOW,
    time::CONVERT,
    time::DIFF,
    util::ENCODE,
    util::DECODE,
    util::REDACT,
    util::TOKENS,
    util::UUID,
    calc::CALC,
    random::RANDOM,
];

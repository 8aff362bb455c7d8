//! The json family: read a JSON file by RFC 6901 pointer (`json get`, `json
//! select`, `json diff`) and edit it in place (`json set|delete|merge|patch|fmt`)
//! through the store's write path, touching only the bytes of what changed (`text::json_doc`).

use crate::protocol::registry::CommandSpec;

pub mod diff;
pub mod file;
mod meant;
pub mod read;
pub mod write;

pub const COMMANDS: &[CommandSpec] = &[
    read::GET,
    read::SELECT,
    diff::DIFF,
    write::SET,
    write::DELETE,
    write::MERGE,
    write::PATCH,
    write::FMT,
];

//! The edit family: commands that write files (`write`, `delete`, `move`, `copy`,
//! `mkdir`, `chmod`, `link`, `touch`, and the text edits). Every one goes through
//! the store's write protocol.

use crate::protocol::registry::CommandSpec;

pub mod files;
pub mod write;

pub const COMMANDS: &[CommandSpec] = &[
    write::SPEC,
    files::DELETE,
    files::MOVE,
    files::COPY,
    files::MKDIR,
    files::CHMOD,
    files::LINK,
    files::TOUCH,
];

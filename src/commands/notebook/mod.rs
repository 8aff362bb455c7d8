//! The nb family: Jupyter notebooks (`.ipynb`, nbformat 4) by cell. `nb read`
//! shows cells with their outputs cut and rich payloads named by size; `nb
//! edit|insert|delete|move` change cells by id or index through the store's
//! guarded, journaled write path, leaving every other cell's bytes as they were
//! (`text::notebook`).

use crate::protocol::registry::CommandSpec;

pub mod file;
pub mod read;
pub mod write;

pub const COMMANDS: &[CommandSpec] = &[
    read::READ,
    write::EDIT,
    write::INSERT,
    write::DELETE,
    write::MOVE,
];

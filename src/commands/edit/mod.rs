//! The edit family: commands that write files (`edit`, `insert`, `replace`,
//! `apply` (unified diffs and V4A patches), `transform`, `transcode`, `split`, `move-lines`, `write`, `delete`, `move`, `copy`, `mkdir`, `chmod`, `link`, `touch`).
//! Every one goes through the store's write protocol.

use crate::protocol::registry::CommandSpec;

pub mod anchored;
pub mod apply;
pub mod common;
pub mod edit_cmd;
pub mod files;
pub mod insert;
pub mod matching;
pub mod move_lines;
pub mod patch;
pub mod replace;
pub mod split;
pub mod stream;
pub mod template;
pub mod transcode;
pub mod transform;
pub mod transform_ops;
pub mod v4a;
pub mod write;

pub const COMMANDS: &[CommandSpec] = &[
    edit_cmd::SPEC,
    insert::SPEC,
    replace::SPEC,
    apply::SPEC,
    transform::SPEC,
    transcode::SPEC,
    split::SPEC,
    move_lines::SPEC,
    write::SPEC,
    files::DELETE,
    files::MOVE,
    files::COPY,
    files::MKDIR,
    files::CHMOD,
    files::LINK,
    files::TOUCH,
];

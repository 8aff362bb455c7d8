//! The table family: CSV and TSV files read as rows (`table read`), grouped and
//! aggregated (`table agg`), and one cell set in place (`table set`) through the
//! store's write path, every other byte of the file kept as it was.

use crate::protocol::registry::CommandSpec;

pub mod agg;
pub mod load;
pub mod parse;
pub mod read;
pub mod set;
pub mod shapes;

pub const COMMANDS: &[CommandSpec] = &[read::READ, agg::AGG, set::SET];

//! The store core: the state directory outside the tree, and (as it lands) the
//! workspace lock, blobs, intent records, the write protocol, recovery, the journal
//! and transactions. No command writes a workspace file except through here.

pub mod guard;
pub mod recovery;
pub mod state_dir;
pub mod write;

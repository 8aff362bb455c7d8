//! The command families. Each family owns its commands' argument structs, handlers
//! and registry entries, uses only the core (`protocol`, `workspace`, `text`,
//! `store`), and never reaches into another family.

pub mod agent;
pub mod archive;
pub mod edit;
pub mod env;
pub mod git;
pub mod inspect;
pub mod journal;
pub mod json;
pub mod notebook;
pub mod process;
pub mod search;
pub mod table;
pub mod tx;

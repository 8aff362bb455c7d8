//! The workspace core: where the root is, how path arguments resolve, how paths are
//! shown, and the invocation context (`Ctx`) every handler receives.

pub mod boundary;
pub mod candidates;
pub mod defs;
pub mod error;
pub mod git;
pub mod gitquick;
pub mod gitrun;
pub mod host;
pub mod input;
pub mod lsp;
pub mod paths;
pub mod process;
pub mod proctree;
pub mod reaper;
pub mod reaper_fork;
pub mod reaper_guard;
pub mod root;
pub mod scan;
pub mod scan_args;
pub mod steady;
pub mod subreaper;
pub mod supervisor;

pub use error::WorkspaceError;
pub use root::Ctx;

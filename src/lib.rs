//! aitools: one binary an AI agent calls instead of cat, grep, sed, find and patch.
//!
//! Core modules (`protocol`, `workspace`, `text`, `store`) never name a command
//! family; families (`commands::*`) use only the core; the composition root
//! (`cli`, `registry`, `discovery`, `dispatch`, `mcp`, `oui`, `console`, `aoi`) wires them together, and only
//! `dispatch` prints or picks an exit code.

// Visibility follows the layers: the tests use `protocol` (the mask, the JSON
// tree) and `main.rs` uses `dispatch`; the core stays `pub` as the library's
// surface; families and the composition root are the crate's own.
pub mod protocol;
pub mod store;
pub mod text;
pub mod workspace;

pub(crate) mod commands;

pub mod aoi;
pub(crate) mod cli;
mod command_error;
pub(crate) mod console;
pub(crate) mod discovery;
pub mod dispatch;
pub(crate) mod mcp;
pub(crate) mod oui;
pub(crate) mod registry;

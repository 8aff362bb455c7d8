//! aitools: one binary an AI agent calls instead of cat, grep, sed, find and patch.
//!
//! Core modules (`protocol`, `workspace`, `text`, `store`) never name a command
//! family; families (`commands::*`) use only the core; the composition root
//! (`cli`, `registry`, `discovery`, `dispatch`, `mcp`) wires them together, and only
//! `dispatch` prints or picks an exit code.

pub mod protocol;
pub mod store;
pub mod text;
pub mod workspace;

pub mod commands;

pub mod cli;
pub mod discovery;
pub mod dispatch;
pub mod mcp;
pub mod registry;

//! The one layer that turns the core's typed errors into what the user sees: a
//! catalog code, a message and at least one repair (an `aitools ...` command).
//! The core returns what went wrong as data (`text::select::SelectError`,
//! `workspace::root::RootError`, `store::guard::GuardError`, ...); only this
//! module words it, so no error reaches the user without a repair and the core
//! never spells a command line. Modelled on jj's `command_error.rs`.
//!
//! One file per core area, each holding the `From<Box<XError>> for CmdError`
//! impls of that area's error types, so mappings are added without conflicts.

mod protocol;
mod select;
mod store;
mod store_leaf;
mod store_tx;
mod store_undo;
mod syntax;
mod workspace;

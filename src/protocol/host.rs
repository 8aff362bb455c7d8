//! What the composition root hands the code that needs the whole command list or
//! runs whole calls (`schema`, `--help`, `capabilities`, `doctor`, the MCP server,
//! the AOI mode), so that none of it names the root (`registry`, `dispatch`), the
//! way `workspace::Invoker` serves `batch` and `tx rebase`.

use crate::protocol::args::{MODE_OPTIONS_TAKING_VALUES, global_options_taking_values};
use crate::protocol::envelope::Rendered;
use crate::protocol::events::Events;
use crate::protocol::kept::Kept;
use crate::protocol::registry::CommandSpec;
use std::ffi::OsString;
use std::sync::Arc;

/// The binary's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The commit the binary was built from (`git rev-parse --short=12 HEAD`, with
/// `-dirty` when tracked files differed), or "unknown" outside a git checkout;
/// build.rs reads it, so answering never runs git.
pub const COMMIT: &str = env!("AITOOLS_COMMIT");

/// Every registered command, family by family (the root's `registry` builds it).
#[derive(Clone, Copy)]
pub struct CommandList(pub &'static [&'static [CommandSpec]]);

impl std::fmt::Debug for CommandList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CommandList({} commands)", self.all().count())
    }
}

impl CommandList {
    /// Every registered command, in the order `schema` lists them.
    pub fn all(self) -> impl Iterator<Item = &'static CommandSpec> {
        self.0.iter().flat_map(|f| f.iter())
    }

    /// The spec named exactly `name` (`read`, `tx commit`).
    pub fn find(self, name: &str) -> Option<&'static CommandSpec> {
        self.all().find(|s| s.name == name)
    }

    /// Whether `word` is a group word (`tx`, `code`): the first word of a
    /// multi-word command name.
    pub fn is_group(self, word: &str) -> bool {
        self.all()
            .any(|s| s.name.split_once(' ').is_some_and(|(g, _)| g == word))
    }

    /// The command words of an argv (`["tx", "commit"]`), skipping global options
    /// and their values; stops at the first word that is no command.
    pub fn command_words(self, argv: &[String]) -> Vec<String> {
        let mut words = Vec::new();
        let mut i = 0;
        while i < argv.len() {
            let a = &argv[i];
            if a == "--" {
                break;
            }
            let mode = words.is_empty() && MODE_OPTIONS_TAKING_VALUES.contains(&a.as_str());
            if mode || global_options_taking_values().contains(&a.as_str()) {
                i += 2;
                continue;
            }
            if a.starts_with('-') {
                // A command's own option ends the command words.
                if words.is_empty() {
                    i += 1;
                    continue;
                }
                break;
            }
            words.push(a.clone());
            let joined = words.join(" ");
            if self.find(&joined).is_some() {
                return words;
            }
            if words.len() == 1 && !self.is_group(a) {
                return words;
            }
            if words.len() >= 2 {
                return words;
            }
            i += 1;
        }
        words
    }
}

/// The composition root's services: the command list and whole-call runners.
#[derive(Debug, Clone, Copy)]
pub struct Host {
    pub commands: CommandList,
    /// Runs one invocation to its envelope.
    pub invoke: fn(&[OsString]) -> Rendered,
    /// `invoke` with paths (and `--root`) relative to the given directory, not
    /// the process's working directory (which no server moves).
    /// A server passes what it keeps between calls (`kept`), which the call's
    /// session carries.
    pub invoke_at: fn(&[OsString], &std::path::Path, Option<Arc<Kept>>) -> Rendered,
    /// `invoke` with an event sink in the command's `Ctx` (the AOI JSONL mode).
    pub invoke_with: fn(&[OsString], Events) -> Rendered,
}

//! The one list of every command aitools has, gathered from the families (and the
//! composition root's own `schema`). Parsing, `schema`, `--help` and the machine
//! modes all read this list; nothing else enumerates commands.

use crate::commands;
use crate::protocol::host::CommandList;
use crate::protocol::registry::CommandSpec;

/// One line per family, so adding a family is a one-line change.
#[rustfmt::skip]
const FAMILIES: &[&[CommandSpec]] = &[
    commands::inspect::COMMANDS,
    commands::search::COMMANDS,
    commands::edit::COMMANDS,
    commands::journal::COMMANDS,
    commands::json::COMMANDS,
    commands::table::COMMANDS,
    commands::notebook::COMMANDS,
    crate::discovery::COMMANDS,
    commands::agent::COMMANDS,
    commands::tx::COMMANDS,
    commands::git::COMMANDS,
    commands::process::COMMANDS,
    commands::archive::COMMANDS,
    commands::env::COMMANDS,
    crate::mcp::COMMANDS,
    crate::oui::COMMANDS,
    crate::console::COMMANDS,
    crate::aoi::commands::COMMANDS,
];

/// The list the root hands to the code that reads it back (`schema`, `--help`,
/// the machine modes) through `Host`.
pub const LIST: CommandList = CommandList(FAMILIES);

/// Every registered command, in the order `schema` lists them.
pub fn all() -> impl Iterator<Item = &'static CommandSpec> {
    LIST.all()
}

/// The spec named exactly `name` (`read`, `tx commit`).
pub fn find(name: &str) -> Option<&'static CommandSpec> {
    LIST.find(name)
}

/// Whether `word` is a group word (`tx`, `code`): the first word of a multi-word
/// command name.
pub fn is_group(word: &str) -> bool {
    LIST.is_group(word)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_command_is_registered_once() {
        let mut names: Vec<&str> = super::all().map(|s| s.name).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n, "a command is registered twice");
    }

    #[test]
    fn the_list_handed_out_finds_commands_and_their_words() {
        let list = super::LIST;
        assert_eq!(list.all().count(), super::all().count());
        assert!(list.find("tx commit").is_some() && list.is_group("tx"));
        let argv: Vec<String> = ["--root", "x", "tx", "commit", "--tx", "t1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(list.command_words(&argv), ["tx", "commit"]);
        assert_eq!(crate::cli::command_words(&argv), ["tx", "commit"]);
    }
}

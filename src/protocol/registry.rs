//! The command registry's types: each command declares itself once (`CommandSpec`),
//! and its schema (arguments read off its clap definition, output fields, error
//! codes) is generated from that one declaration for `schema`, `--help`, and the
//! machine modes.

use super::envelope::Output;
use super::error::CmdError;
use super::json::Json;
use crate::workspace::Ctx;
use clap::{ArgAction, ArgMatches};

/// The one handler shape: parsed arguments in, output or error out.
pub type Handler = fn(&Ctx, &ArgMatches) -> Result<Output, CmdError>;

/// An output field and what it means.
pub struct Field {
    pub name: &'static str,
    pub description: &'static str,
}

/// Shorthand for a `Field` in a const table.
pub const fn field(name: &'static str, description: &'static str) -> Field {
    Field { name, description }
}

/// Everything aitools knows about one command.
pub struct CommandSpec {
    /// As typed: `read`, `code outline`, `tx commit`.
    pub name: &'static str,
    pub summary: &'static str,
    pub description: &'static str,
    /// Adds the command's arguments (`XArgs::augment_args`).
    pub args: fn(clap::Command) -> clap::Command,
    pub output_fields: &'static [Field],
    pub error_codes: &'static [&'static str],
    /// Writes to the workspace (journaled, accepts --dry-run/--tx where declared).
    pub writes: bool,
    /// Accepts `--tx <TX>` (added here, so the schema shows it): a write stages in
    /// the tx, a read or scan sees the tx's view (`store::view`).
    pub tx: bool,
    /// Needs the workspace (root, recovery). `schema` and friends do not.
    pub workspace: bool,
    /// What the command changes besides a `writes` command's files: the AOI
    /// manifest, the MCP annotations and `--confirm` in the jsonl mode read it.
    pub effects: Effects,
    pub run: Handler,
}

/// A command's effects beyond `writes`, declared in its spec (most say
/// `Effects::NONE`; the others `Effects { destructive: true, ..Effects::SIDE }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    /// Changes something outside the write protocol (runs a program, starts or
    /// stops a process, keeps a tx or feedback record, deletes old state): not
    /// read-only although `writes` is false.
    pub side_effects: bool,
    /// Only adds something new (a directory, a tx, a feedback record): never
    /// replaces or removes (MCP `destructiveHint: false`).
    pub additive: bool,
    /// The same call again leaves the same state (MCP `idempotentHint`).
    pub idempotent: bool,
    /// Destroys what an agent may still want: with `--output jsonl` it runs only
    /// with `--confirm` (or as a `--dry-run` plan).
    pub destructive: bool,
    /// Writes workspace files through the journal by a way of its own, not the
    /// shared write options `writes` adds (`batch`'s elements, `run
    /// --stdout-to`): the schema says `writes: true` all the same.
    pub journaled: bool,
}

impl Effects {
    /// A read, or a write whose only effect is its journaled change.
    pub const NONE: Effects = Effects {
        side_effects: false,
        additive: false,
        idempotent: false,
        destructive: false,
        journaled: false,
    };
    /// Side effects outside the write protocol, nothing more said.
    pub const SIDE: Effects = Effects {
        side_effects: true,
        ..Effects::NONE
    };
}

/// Builds a `Handler` from an args type and a `fn(&Ctx, &Args) -> Result<Output, CmdError>`.
#[macro_export]
macro_rules! handler {
    ($args:ty, $run:path) => {
        |ctx: &$crate::workspace::Ctx, m: &clap::ArgMatches| {
            let args = <$args as clap::FromArgMatches>::from_arg_matches(m).map_err(|e| {
                $crate::protocol::CmdError::invalid_argument(&ctx.command, e.to_string())
            })?;
            $run(ctx, &args)
        }
    };
}

/// The id of the `--tx` argument every tx-aware command gets.
pub const TX_ARG: &str = "tx";

/// The id of the `--max-diff-lines` argument every write gets.
pub const MAX_DIFF_ARG: &str = "max_diff_lines";

/// The id of the `--syntax-guard` argument every write gets.
pub const SYNTAX_GUARD_ARG: &str = "syntax_guard";

/// Whether `id` is a global option's id (or one of the flags dispatch answers
/// itself): not part of a command's own schema.
pub fn is_global_arg(id: &str) -> bool {
    // Asked for every argument of a command each time a schema is built or an MCP
    // call is turned into an argv: the ids are read from clap once per process.
    static IDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    ["help", "help_flag", "version", "brief"].contains(&id)
        || IDS
            .get_or_init(|| {
                super::args::global_args()
                    .iter()
                    .map(|a| a.get_id().as_str().to_string())
                    .collect()
            })
            .iter()
            .any(|g| g == id)
}

/// The global options in the compact schema form (`schema`, `--help`).
pub fn global_options_compact() -> Json {
    Json::Arr(super::args::global_args().iter().map(arg_compact).collect())
}

/// `--root DIR, --lock-timeout DURATION`: the global options in one line (`--help`).
pub fn global_options_line() -> String {
    super::args::global_args()
        .iter()
        .filter_map(|a| {
            let value = a.get_value_names()?.first()?.to_string();
            Some(format!("--{} {value}", a.get_long()?))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The global options in the full schema form (`schema <cmd> --full`).
pub fn global_options_full() -> Json {
    Json::Arr(super::args::global_args().iter().map(arg_schema).collect())
}

/// Error codes any command may answer with (a bad argument, the disk, the lock, a
/// bug): the compact schema lists only the others, the full one lists all.
pub const ANY_COMMAND_CODES: &[&str] = &[
    super::error::code::ARGUMENT_INVALID,
    super::error::code::IO,
    super::error::code::BUSY,
    super::error::code::INTERNAL,
    super::error::code::OUTPUT_LOST,
];

/// Error codes of the write protocol itself (the path, the guard, the input's
/// mask, the target's kind), which any write may answer: a write's compact schema
/// leaves them out too (its `writes: true` says them), the full one lists them.
pub const WRITE_CODES: &[&str] = &[
    super::error::code::NOT_FOUND,
    super::error::code::OUTSIDE_WORKSPACE,
    super::error::code::REDACTED_INPUT,
    super::error::code::EXISTS,
    super::error::code::NOT_A_FILE,
    super::error::code::TARGET_CHANGED,
];

/// Arguments that `history` and `batch` write for replays and an agent never types
/// (it passes `--stdin`): the full schema lists them, the compact one does not.
const REPLAY_ARG_IDS: &[&str] = &["stdin_data"];

/// Limits an agent raises only when an answer tells it to (a cut answer's
/// next_commands or a refusal's repair names the option and its new value): the
/// compact schema names them in `limits`, the full form describes them.
const LIMIT_ARG_IDS: &[&str] = &[
    "max_input",
    "max_files",
    "max_scan_bytes",
    "scan_timeout",
    MAX_DIFF_ARG,
];

/// Options every write takes with one meaning (`write_options` in the compact
/// schema names them; `--full` describes them): listing their help on each write
/// command cost an agent learning the tool ~200 bytes a command.
const WRITE_OPTION_IDS: &[&str] = &["dry_run", TX_ARG, SYNTAX_GUARD_ARG];

/// An option of `WRITE_OPTION_IDS` (`tx commit TX` has a positional of that id).
fn is_write_option(arg: &clap::Arg) -> bool {
    arg.get_long().is_some() && WRITE_OPTION_IDS.contains(&arg.get_id().as_str())
}

/// Whether the parser's value type is an integer.
fn parser_yields_integer(arg: &clap::Arg) -> bool {
    use std::any::TypeId;
    let id = arg.get_value_parser().type_id();
    [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<isize>(),
    ]
    .iter()
    .any(|t| id == *t)
}

/// What one value of an option holds, as schema and MCP say it: a size or a
/// duration by its value name (a string such as `64MiB` or `30s`, whatever the
/// parser turns it into); an integer when the parser yields one, or when the
/// value name says a count (`N`: read as a string so the handler can word the
/// error, and only an integer passes it); a path; else a string.
pub fn value_kind(arg: &clap::Arg) -> &'static str {
    let name = arg
        .get_value_names()
        .and_then(|n| n.first().map(|s| s.to_string()))
        .unwrap_or_default();
    match name.as_str() {
        "SIZE" => "size",
        "DURATION" => "duration",
        _ if parser_yields_integer(arg) => "integer",
        "N" | "INT" | "LINE" | "COUNT" => "integer",
        "PATH" | "FILE" | "DIR" => "path",
        _ => "string",
    }
}

/// The schema type of an argument: a flag from its action, an enum from its
/// possible values, else its `value_kind`.
fn arg_type(arg: &clap::Arg) -> String {
    if matches!(
        arg.get_action(),
        ArgAction::SetTrue | ArgAction::SetFalse | ArgAction::Count
    ) {
        return "flag".to_string();
    }
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .map(|v| v.get_name().to_string())
        .collect();
    if !values.is_empty() {
        return "enum".to_string();
    }
    let base = value_kind(arg);
    match arg.get_num_args() {
        Some(r) if r.min_values() == 2 && r.max_values() == 2 => format!("{base}, 2 values"),
        _ => base.to_string(),
    }
}

/// The default schema shows: clap's, or else the one value the help states as
/// `(default N)`. The second form is for an option whose absence the command
/// must tell from the value (`search --limit`: a cut by the default is partial,
/// a cut by a limit the caller gave is not), so clap cannot hold the default.
/// Only a single stated value that starts with a digit counts: a help naming
/// two defaults (one per mode) or a phrase ("the whole file") states none.
fn schema_default(arg: &clap::Arg) -> Option<String> {
    if let Some(v) = arg.get_default_values().first() {
        return Some(v.to_string_lossy().into_owned());
    }
    let help = arg.get_help()?.to_string();
    let mut stated = help.split("(default ").skip(1);
    let value = stated.next()?.split([')', ';', ',']).next()?;
    let plain = value.starts_with(|c: char| c.is_ascii_digit()) && !value.contains(' ');
    (plain && stated.next().is_none()).then(|| value.to_string())
}

/// How schema names an argument: `--long` for an option, the id for a positional.
fn arg_name(arg: &clap::Arg) -> String {
    match arg.get_long() {
        Some(long) if !arg.is_positional() => format!("--{long}"),
        _ => arg.get_id().as_str().to_string(),
    }
}

/// The schema of one argument: `{name, type, values?, required, repeatable, default, description}`.
fn arg_schema(arg: &clap::Arg) -> Json {
    let mut obj = Json::obj();
    let positional = arg.is_positional();
    obj.push("name", Json::str(arg_name(arg)));
    // grep's and ripgrep's one-letter habits (`-i`, `-C 3`), declared with the flag.
    if let Some(c) = arg.get_short().filter(|_| !positional) {
        obj.push("short", Json::str(format!("-{c}")));
    }
    obj.push("type", Json::str(arg_type(arg)));
    let values: Vec<Json> = arg
        .get_possible_values()
        .iter()
        .map(|v| Json::str(v.get_name()))
        .collect();
    if !values.is_empty() {
        obj.push("values", Json::Arr(values));
    }
    obj.push("positional", Json::Bool(positional));
    obj.push("required", Json::Bool(arg.is_required_set()));
    let repeatable = matches!(arg.get_action(), ArgAction::Append)
        || (positional && arg.get_num_args().is_some_and(|r| r.max_values() > 1));
    obj.push("repeatable", Json::Bool(repeatable));
    obj.push("default", schema_default(arg).map_or(Json::Null, Json::str));
    obj.push(
        "description",
        Json::str(arg.get_help().map(|h| h.to_string()).unwrap_or_default()),
    );
    obj
}

/// A help text's short form for the compact schema (the full form has the rest):
/// its first sentence (up to `. ` or `; ` outside brackets and backticks) without
/// its parenthetical remarks.
fn short_help(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' if depth == 0 => quoted = !quoted,
            '(' if !quoted => {
                depth += 1;
                continue;
            }
            ')' if !quoted && depth > 0 => {
                depth -= 1;
                continue;
            }
            '.' | ';' if !quoted && depth == 0 && chars.peek() == Some(&' ') => break,
            _ => {}
        }
        if depth == 0 {
            out.push(c);
        }
    }
    // "the size (<n>, ...) of" leaves a double space; "a glob (...)." a trailing one.
    let mut short = out
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" ,", ",")
        .replace(" :", ":");
    while short.ends_with(['.', ' ', ',', ':']) {
        short.pop();
    }
    short
}

/// One argument in the compact schema: `{name, short?, values?, type?, required?,
/// repeatable?, default?, help?}`, members that say nothing left out (false, null,
/// a flag's type and true/false values, a help that repeats the name).
fn arg_compact(arg: &clap::Arg) -> Json {
    let mut obj = Json::obj();
    let positional = arg.is_positional();
    obj.push("name", Json::str(arg_name(arg)));
    if let Some(c) = arg.get_short() {
        obj.push("short", Json::str(format!("-{c}")));
    }
    let ty = arg_type(arg);
    if ty == "enum" {
        let values = arg.get_possible_values();
        obj.push(
            "values",
            Json::Arr(values.iter().map(|v| Json::str(v.get_name())).collect()),
        );
    }
    // Most arguments are flags: a flag is the one without a type; an enum's values
    // say it is one.
    if ty != "flag" && ty != "enum" {
        obj.push("type", Json::str(ty));
    }
    if arg.is_required_set() {
        obj.push("required", Json::Bool(true));
    }
    let repeatable = matches!(arg.get_action(), ArgAction::Append)
        || (positional && arg.get_num_args().is_some_and(|r| r.max_values() > 1));
    if repeatable {
        obj.push("repeatable", Json::Bool(true));
    }
    if let Some(v) = schema_default(arg) {
        obj.push("default", Json::str(v));
    }
    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
    let help = short_help(&help);
    // A positional's help that only spells its name again says nothing.
    if !help.eq_ignore_ascii_case(arg.get_id().as_str()) && !help.is_empty() {
        obj.push("help", Json::str(help));
    }
    obj
}
/// The recovery report every workspace command's envelope may carry.
const RECOVERY_FIELDS: &[Field] = &[
    field(
        "recovered",
        "[{op_id, action}], only when this call finished (rolled-forward) or discarded writes a killed process left.",
    ),
    field(
        "pending_recovery",
        "[{op_id, error, repairs}], only when an interrupted write could not be finished or its record is not trusted; writes to the paths it names (any write, when its record cannot be read or is not trusted) refuse with environment.recovery-pending until `aitools recover` clears it.",
    ),
];

/// What every write may answer besides its own fields.
const WRITE_FIELDS: &[Field] = &[
    field(
        "diff_truncated",
        "Only when a change's diff was cut to the answer's budget: true (next_commands shows it all).",
    ),
    field(
        "concurrent_appends",
        "Only when another program appended to a file while this write ran: each tail, `merged: true` when it was carried over to the new file, else with the command that appends it again.",
    ),
];

/// What a write staged with `--tx` answers instead of `op_id`.
const TX_WRITE_FIELDS: &[Field] = &[
    field("tx", "With --tx: the tx the write was staged in."),
    field(
        "tx_op",
        "With --tx: the staged op's number in the tx (`aitools tx drop <tx> <tx_op>` removes it).",
    ),
];

impl CommandSpec {
    /// The clap command for this spec, leaf only (named by its last word).
    pub fn clap_command(&self) -> clap::Command {
        let leaf = self.name.rsplit(' ').next().unwrap_or(self.name);
        let cmd = (self.args)(
            clap::Command::new(leaf)
                .disable_help_flag(true)
                .disable_version_flag(true)
                // `search -5`, `replace 5 -6`: a number is a value, never an option.
                .allow_negative_numbers(true),
        )
        // A value is never taken for a flag: `edit --old '--help'` edits that text.
        .mut_args(|a| {
            if a.get_long().is_some() && a.get_action().takes_values() {
                a.allow_hyphen_values(true)
            } else {
                a
            }
        });
        // Declared here once for every write: the store applies it to the answer.
        let cmd = if self.writes {
            cmd.arg(
                clap::Arg::new(MAX_DIFF_ARG)
                    .long("max-diff-lines")
                    .value_name("N")
                    .value_parser(clap::value_parser!(u64))
                    .action(ArgAction::Set)
                    .allow_hyphen_values(true)
                    .help("Diff lines shown in all (0: none); default a small budget, the rest via diff --op"),
            )
            .arg(
                clap::Arg::new(SYNTAX_GUARD_ARG)
                    .long("syntax-guard")
                    .value_name("on|off")
                    .num_args(0..=1)
                    .require_equals(true)
                    .default_missing_value("on")
                    .value_parser(["on", "off"])
                    .action(ArgAction::Set)
                    .help("Refuse syntax breakage. A source file that parsed (tree-sitter: Rust, Python, Go, JS, TS, Java, C, C++, Ruby), or a JSON, YAML or TOML file, must still parse; =off overrides syntax_guard = true in .aitools.toml"),
            )
        } else {
            cmd
        };
        if !self.tx {
            return cmd;
        }
        let help = if self.writes {
            "Stage the write in this tx. The working tree is untouched (`aitools tx begin` opens a tx) and the answer carries tx and tx_op instead of op_id."
        } else {
            "See the working tree as this tx would leave it (from `aitools tx begin`); `read` and `info` also record the file in the tx's read set (tx commit refuses when it changed since; scans and diffs record nothing)."
        };
        cmd.arg(
            clap::Arg::new(TX_ARG)
                .long("tx")
                .value_name("TX")
                .action(ArgAction::Set)
                .allow_hyphen_values(true)
                .help(help),
        )
    }

    /// The spec's error codes and the ones its kind implies: a workspace command
    /// checks the state directory (`environment.state-untrusted`), a write refuses
    /// while a record waits for recovery (`environment.recovery-pending`). The
    /// compact form leaves the implied ones out, like `ANY_COMMAND_CODES`.
    pub fn implied_codes(&self) -> impl Iterator<Item = &'static str> + '_ {
        let workspace = self
            .workspace
            .then_some(super::error::code::STATE_UNTRUSTED);
        let writes = self.writes.then_some(super::error::code::RECOVERY_PENDING);
        // Any write may be refused by the syntax guard (`--syntax-guard`).
        let guard = self.writes.then_some(super::error::code::SYNTAX_BROKEN);
        let own = self.error_codes;
        own.iter().copied().chain(
            [workspace, writes, guard]
                .into_iter()
                .flatten()
                .filter(move |c| !own.contains(c)),
        )
    }

    /// Every field the answer may carry: its own, then what its kind adds (a
    /// workspace command's recovery report, a write's, a staged write's `tx`).
    pub fn all_fields(&self) -> impl Iterator<Item = &'static Field> {
        let recovery: &'static [Field] = if self.workspace { RECOVERY_FIELDS } else { &[] };
        let staged: &'static [Field] = if self.tx && self.writes {
            TX_WRITE_FIELDS
        } else {
            &[]
        };
        let written: &'static [Field] = if self.writes { WRITE_FIELDS } else { &[] };
        let own = self.output_fields;
        own.iter().chain(
            written
                .iter()
                .chain(staged)
                .chain(recovery)
                .filter(move |r| !own.iter().any(|f| f.name == r.name)),
        )
    }

    /// The full detail object: `{name, summary, description, args, output_fields, error_codes}`.
    pub fn detail(&self) -> Json {
        let mut obj = Json::obj();
        obj.push("name", Json::str(self.name));
        obj.push("summary", Json::str(self.summary));
        obj.push("description", Json::str(self.description));
        let cmd = self.clap_command();
        let args: Vec<Json> = cmd
            .get_arguments()
            .filter(|a| !a.is_hide_set() && !is_global_arg(a.get_id().as_str()))
            .map(arg_schema)
            .collect();
        obj.push("args", Json::Arr(args));
        let fields: Vec<Json> = self
            .all_fields()
            .map(|f| {
                let mut o = Json::obj();
                o.push("name", Json::str(f.name));
                o.push("description", Json::str(f.description));
                if let Some(ty) = super::field_types::type_of(self.name, f.name) {
                    o.push("type", Json::str(ty));
                }
                o
            })
            .collect();
        obj.push("output_fields", Json::Arr(fields));
        // The full form also names what any command may answer (a bad argument, the
        // disk, the lock, a bug): a host that branches on declared codes sees them all.
        let own: Vec<&str> = self.implied_codes().collect();
        let any = ANY_COMMAND_CODES.iter().filter(|c| !own.contains(c));
        let codes = own.iter().chain(any).map(|c| Json::str(*c)).collect();
        obj.push("error_codes", Json::Arr(codes));
        obj.push("writes", Json::Bool(self.writes_files()));
        obj
    }

    /// The compact detail `schema <cmd>` and `<cmd> --help` answer with: `{name,
    /// summary, args (compact), write_options?, limits?, writes (only when true),
    /// full}`, `full` being the call that shows every description, the output
    /// fields and the error codes.
    pub fn compact(&self) -> Json {
        let mut obj = Json::obj();
        obj.push("name", Json::str(self.name));
        obj.push("summary", Json::str(self.summary));
        let cmd = self.clap_command();
        let args: Vec<Json> = cmd
            .get_arguments()
            .filter(|a| !a.is_hide_set() && !is_global_arg(a.get_id().as_str()))
            .filter(|a| !REPLAY_ARG_IDS.contains(&a.get_id().as_str()))
            .filter(|a| !LIMIT_ARG_IDS.contains(&a.get_id().as_str()))
            .filter(|a| !(self.writes && is_write_option(a)))
            .map(arg_compact)
            .collect();
        obj.push("args", Json::Arr(args));
        if self.writes {
            let shared: Vec<Json> = cmd
                .get_arguments()
                .filter(|a| is_write_option(a))
                .filter_map(|a| a.get_long().map(|l| Json::str(format!("--{l}"))))
                .collect();
            if !shared.is_empty() {
                obj.push("write_options", Json::Arr(shared));
            }
        }
        let limits: Vec<Json> = cmd
            .get_arguments()
            .filter(|a| LIMIT_ARG_IDS.contains(&a.get_id().as_str()))
            .filter_map(|a| a.get_long().map(|l| Json::str(format!("--{l}"))))
            .collect();
        if !limits.is_empty() {
            obj.push("limits", Json::Arr(limits));
        }
        // Output fields and error codes are in `--full` (and in every answer and
        // error themselves); a write says so, a read needs no word.
        if self.writes_files() {
            obj.push("writes", Json::Bool(true));
        }
        obj.push(
            "full",
            Json::str(format!("aitools schema {} --full", self.name)),
        );
        obj
    }

    /// Changes nothing: neither a write nor a side effect (AOI `read_only`, MCP
    /// `readOnlyHint`).
    pub fn read_only(&self) -> bool {
        !self.writes_files() && !self.effects.side_effects
    }

    /// The command's nature as the schema's `writes` says it: it changes
    /// workspace files through the journal, with the shared write options
    /// (`writes`) or its own way (`Effects::journaled`). `capabilities` and the
    /// MCP annotations read it through `read_only`.
    pub fn writes_files(&self) -> bool {
        self.writes || self.effects.journaled
    }

    /// `{name, summary}`.
    pub fn brief(&self) -> Json {
        let mut obj = Json::obj();
        obj.push("name", Json::str(self.name));
        obj.push("summary", Json::str(self.summary));
        obj
    }
}

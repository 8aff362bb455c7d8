//! Argument groups several commands share, declared once so every command that
//! takes one shows the same flag with the same help (`#[command(flatten)]`).

use clap::Args;

/// The write guards every single-target write takes.
#[derive(Args, Debug, Clone, Default)]
pub struct Guard {
    /// Guard: HASH (the file the call changes or replaces) or PATH=HASH; refusal.target-changed when it differs. The hash is the one `aitools info PATH` reports.
    #[arg(long)]
    pub expect_hash: Vec<String>,
    #[command(flatten)]
    pub dry: DryRun,
}

/// `--dry-run` for a write.
#[derive(Args, Debug, Clone, Default)]
pub struct DryRun {
    /// Validate and show the diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// How a regex pattern matches, for every command that takes one (`search`,
/// `replace`); the grep-habit short aliases are declared here once.
#[derive(Args, Debug, Clone, Default)]
pub struct Pattern {
    /// Treat the pattern as literal text.
    #[arg(long, short = 'F')]
    pub fixed: bool,
    /// Case-insensitive matching (Unicode simple case folding).
    #[arg(long, short = 'i')]
    pub ignore_case: bool,
    /// Match only at word boundaries (the pattern is wrapped in \b(?:...)\b).
    #[arg(long, short = 'w')]
    pub word: bool,
    /// Let matches span lines (each file is matched as one buffer); . still excludes newlines unless (?s).
    #[arg(long)]
    pub multiline: bool,
}

/// The line selectors of a read of a file's lines (`git show REV:PATH`,
/// `git blame`, `archive read`); at most one per call, except that `--range`
/// bounds a `--match`. Each command resolves them over its own text.
#[derive(Args, Debug, Clone, Default)]
pub struct LineArgs {
    /// Selector: lines S:E, S: or N (1-based, inclusive); with --match, the lines it searches.
    #[arg(long, value_name = "RANGE")]
    pub range: Option<String>,
    /// Selector: a definition's lines, found with the `code outline` language table in the file's text; Outer.name picks it by the definition around it.
    #[arg(long, value_name = "NAME")]
    pub symbol: Option<String>,
    /// With --symbol: only definitions of this kind (function, struct, ...).
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Selector: START-RE END-RE; from the first line matching START to the next line matching END.
    #[arg(long, num_args = 2, value_names = ["START", "END"], allow_hyphen_values = true, action = clap::ArgAction::Set)]
    pub between: Option<Vec<String>>,
    /// With --between: leave out the two boundary lines.
    #[arg(long)]
    pub exclusive: bool,
    /// Selector: every line matching this regex (Rust regex syntax, per line); --invert selects the rest.
    #[arg(long, value_name = "RE", allow_hyphen_values = true)]
    pub r#match: Option<String>,
    /// With --match: the lines that do not match.
    #[arg(long)]
    pub invert: bool,
}

impl LineArgs {
    /// The flags that select a file's lines by content, given (for a refusal
    /// where no file is named).
    pub fn content_flags(&self) -> Vec<&'static str> {
        [
            ("--symbol", self.symbol.is_some()),
            ("--between", self.between.is_some()),
            ("--match", self.r#match.is_some()),
        ]
        .iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect()
    }

    /// `argument.invalid` for a modifier (`--kind`, `--exclusive`, `--invert`)
    /// without the selector it modifies.
    pub fn check_modifiers(&self, command: &str) -> Result<(), super::CmdError> {
        for (on, modifier, base) in [
            (
                self.kind.is_some() && self.symbol.is_none(),
                "--kind",
                "--symbol",
            ),
            (
                self.exclusive && self.between.is_none(),
                "--exclusive",
                "--between",
            ),
            (self.invert && self.r#match.is_none(), "--invert", "--match"),
        ] {
            if on {
                return Err(super::CmdError::invalid_argument(
                    command,
                    format!("{modifier} applies to {base} only."),
                ));
            }
        }
        Ok(())
    }
}

/// The options every command accepts, declared here once: the clap tree adds them
/// (global, so they go before or after the command words), dispatch reads them back
/// with `from_arg_matches`, `schema` and `--help` show them, and argv rewriting
/// (`shell::global_options`) knows them from `global_options_taking_values`.
#[derive(Args, Debug, Default, Clone)]
pub struct GlobalArgs {
    /// Workspace root (default: the enclosing git work tree, else the working directory).
    #[arg(long, value_name = "DIR", global = true, allow_hyphen_values = true)]
    pub root: Option<String>,
    /// How long a write, or recovery before a command, waits for the workspace lock (default 10s).
    #[arg(
        long,
        value_name = "DURATION",
        global = true,
        allow_hyphen_values = true
    )]
    pub lock_timeout: Option<String>,
}

/// Options no command's parser declares that take a value: the machine mode's
/// (`--output jsonl`, its alias `--format`, `--schema-version`).
pub const MODE_OPTIONS_TAKING_VALUES: &[&str] = &["--output", "--format", "--schema-version"];

/// The global options, as clap arguments (in declaration order).
pub fn global_args() -> Vec<clap::Arg> {
    <GlobalArgs as clap::Args>::augment_args(clap::Command::new("aitools"))
        .get_arguments()
        .cloned()
        .collect()
}

/// `--root`, `--lock-timeout`: the global options (every one takes a value).
/// Written out, as every call reads them (finding its command words) and
/// building them from `global_args` cost ~9k instructions; a test checks they
/// are `GlobalArgs`' own.
pub fn global_options_taking_values() -> &'static [&'static str] {
    &["--root", "--lock-timeout"]
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_global_options_written_out_are_global_args_own() {
        let from_clap: Vec<String> = super::global_args()
            .iter()
            .filter(|a| a.get_action().takes_values())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        let all = super::global_args().len();
        assert_eq!(from_clap.len(), all, "a global option takes no value");
        assert_eq!(from_clap, super::global_options_taking_values());
    }
}

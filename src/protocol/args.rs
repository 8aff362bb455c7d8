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

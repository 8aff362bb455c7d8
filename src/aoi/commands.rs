//! The AOI discovery and readiness commands: `capabilities` (the seed's manifest,
//! one object, generated from the registry) and `doctor` (state directory, pending
//! recovery, the lock, the external tools; `--lint` adds the seed's conformance
//! checks). Both speak the envelope like every command; in `--output jsonl` the
//! doctor's checks stream as `aoi:check` events. Also the human-readable `--help`
//! text the seed asks for in this mode.

use super::lint::check;
use super::table;
use crate::handler;
use crate::protocol::host::{CommandList, VERSION};
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output};
use crate::store::error::StoreError;
use crate::workspace::Ctx;

#[derive(clap::Args, Debug)]
pub struct CapabilitiesArgs {}

#[derive(clap::Args, Debug)]
pub struct DoctorArgs {
    /// Also run the AOI-CLI conformance checks (seed 000 section 18) against every command.
    #[arg(long)]
    pub lint: bool,
}

pub const CAPABILITIES: CommandSpec = CommandSpec {
    name: "capabilities",
    summary: "The AOI-CLI capability manifest (--output json: the bare object).",
    description: "What the machine mode offers: versions, outputs, schemas, and per command read_only, destructive, requires_confirm, supports_dry_run, bounded, supports_cursor and event_types. No network, no credentials.",
    args: <CapabilitiesArgs as clap::Args>::augment_args,
    output_fields: &[
        field("tool", "aitools."),
        field("tool_version", "The binary's version."),
        field("aoi_versions", "AOI versions spoken."),
        field("outputs", "Machine outputs (jsonl)."),
        field("output_flags", "The flags that select them."),
        field("schemas", "[{name,versions,default}]."),
        field("input_modes", "Streamed input modes (none)."),
        field("auth", "Credentials needed (none)."),
        field("exit_codes", "What each exit code means in the jsonl mode."),
        field(
            "commands",
            "[{name,read_only,destructive,...,event_types}].",
        ),
    ],
    error_codes: &[],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(CapabilitiesArgs, run_capabilities),
};

pub const DOCTOR: CommandSpec = CommandSpec {
    name: "doctor",
    summary: "Check the state directory, recovery, the lock and tools (--lint: AOI checks).",
    description: "Read-only readiness checks: the state directory (present, private, owned by you, writable), pending recovery records, whether the workspace lock can be taken, and the external tools commands call (git, diff). --lint runs the 16 AOI-CLI conformance checks against every command in-process. In --output jsonl each check is an aoi:check event.",
    args: <DoctorArgs as clap::Args>::augment_args,
    output_fields: &[
        field("ok", "True when no check failed."),
        field(
            "checks",
            "[{name,ok,severity,detail}]; severity info, warning or error.",
        ),
    ],
    error_codes: &[],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DoctorArgs, run_doctor),
};

pub const COMMANDS: &[CommandSpec] = &[CAPABILITIES, DOCTOR];

fn has_arg(spec: &CommandSpec, id: &str) -> bool {
    spec.clap_command()
        .get_arguments()
        .any(|a| a.get_id().as_str() == id)
}

/// The domain event types a command can emit.
pub fn event_types(spec: &CommandSpec) -> Vec<String> {
    let mut v = vec!["aoi:meta".to_string()];
    let rows = table::events_of(spec);
    for r in &rows {
        if !v.iter().any(|e| e == r.event) {
            v.push(r.event.to_string());
        }
    }
    // A dry run's changes stream as the plan.
    if rows.iter().any(|r| r.event == "change") && has_arg(spec, "dry_run") {
        v.push("aoi:plan".to_string());
    }
    for e in ["result", "aoi:error", "aoi:summary"] {
        v.push(e.to_string());
    }
    v
}

/// The manifest (seed section 17).
pub fn capabilities(list: CommandList) -> Json {
    let mut o = Json::obj();
    o.push("tool", Json::str(super::TOOL));
    o.push("tool_version", Json::str(VERSION));
    o.push(
        "aoi_versions",
        Json::Arr(vec![Json::str(super::AOI_VERSION)]),
    );
    o.push("outputs", Json::Arr(vec![Json::str("jsonl")]));
    o.push(
        "output_flags",
        Json::Arr(vec![
            Json::str("--output jsonl"),
            Json::str("--format jsonl"),
        ]),
    );
    let mut s = Json::obj();
    s.push("name", Json::str(super::SCHEMA_NAME));
    s.push(
        "versions",
        Json::Arr(vec![Json::str(super::SCHEMA_VERSION)]),
    );
    s.push("default", Json::str(super::SCHEMA_VERSION));
    o.push("schemas", Json::Arr(vec![s]));
    o.push("input_modes", Json::Arr(Vec::new()));
    o.push("auth", Json::Arr(Vec::new()));
    let cmds = list
        .all()
        .map(|spec| {
            let mut c = Json::obj();
            c.push("name", Json::str(spec.name));
            // Declared in the spec (`CommandSpec::effects`).
            c.push("read_only", Json::Bool(spec.read_only()));
            let destructive = spec.effects.destructive;
            c.push("destructive", Json::Bool(destructive));
            c.push("requires_confirm", Json::Bool(destructive));
            c.push("supports_dry_run", Json::Bool(has_arg(spec, "dry_run")));
            let bounded = ["limit", "max_lines", "max_files", "max_bytes"]
                .iter()
                .any(|a| has_arg(spec, a));
            c.push("bounded", Json::Bool(bounded));
            c.push(
                "supports_cursor",
                Json::Bool(has_arg(spec, "offset") || has_arg(spec, "range")),
            );
            c.push("supports_idempotency_key", Json::Bool(false));
            c.push(
                "event_types",
                Json::Arr(event_types(spec).into_iter().map(Json::Str).collect()),
            );
            c
        })
        .collect();
    o.push("commands", Json::Arr(cmds));
    let mut exits = Json::obj();
    exits.push(
        "0",
        Json::str("success; a truncated answer too (summary.truncated)"),
    );
    for (n, what) in [
        (64, "usage"),
        (65, "data or validation"),
        (66, "input not found"),
        (69, "unavailable"),
        (70, "internal"),
        (73, "cannot create (exists)"),
        (74, "I/O"),
        (75, "temporary failure (busy, recovery pending)"),
        (77, "permission (outside the workspace)"),
        (78, "configuration (state directory)"),
        (124, "timeout"),
        (130, "SIGINT"),
        (141, "stdout closed"),
        (143, "SIGTERM"),
    ] {
        exits.push(&n.to_string(), Json::str(what));
    }
    o.push("exit_codes", exits);
    o
}

fn run_capabilities(ctx: &Ctx, _a: &CapabilitiesArgs) -> Result<Output, CmdError> {
    let host = ctx.host.ok_or_else(|| {
        CmdError::internal("capabilities needs the command list from the dispatcher.")
    })?;
    Ok(Output::from_json(capabilities(host.commands), false))
}

fn on_path(tool: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

fn run_doctor(ctx: &Ctx, a: &DoctorArgs) -> Result<Output, CmdError> {
    use crate::store::{recovery, state_dir};
    let mut checks: Vec<Json> = Vec::new();
    let mut add = |c: Json| {
        ctx.events.emit_with("aoi:check", || c.clone());
        checks.push(c);
    };
    let state = match state_dir::verify(&ctx.root, ctx.session.kept()) {
        Ok(s) => {
            add(check(
                "state_dir_trusted",
                true,
                "error",
                "private and owned by you (or not created yet)",
            ));
            Some(s)
        }
        Err(u) => {
            add(check("state_dir_trusted", false, "error", u.message()));
            None
        }
    };
    if let Some(state) = &state {
        let probe = state.join(format!(".doctor-{}", std::process::id()));
        let writable = state_dir::ensure(&ctx.root, ctx.session.kept())
            .and_then(|_| std::fs::write(&probe, b""))
            .and_then(|_| std::fs::remove_file(&probe));
        add(match writable {
            Ok(()) => check("state_dir_writable", true, "error", "writable"),
            Err(e) => check(
                "state_dir_writable",
                false,
                "error",
                format!(
                    "{}: {}",
                    state.display(),
                    crate::protocol::error::err_text(&e)
                ),
            ),
        });
        match recovery::preview(ctx) {
            Ok(r) if r.pending.is_empty() => add(check(
                "pending_recovery",
                true,
                "error",
                "no interrupted write waits",
            )),
            Ok(r) => add(check(
                "pending_recovery",
                false,
                "error",
                format!(
                    "{} interrupted write(s) wait; run aitools recover",
                    r.pending.len()
                ),
            )),
            Err(e) => add(check(
                "pending_recovery",
                false,
                "error",
                CmdError::from(e).message.clone(),
            )),
        }
        add(lock_check(ctx, state));
    }
    add(check(
        "root",
        ctx.root.is_dir(),
        "error",
        ctx.display_path(&ctx.root),
    ));
    for (tool, why) in [
        ("git", "optional: aitools reads .git itself"),
        ("diff", "patch --check-with-diff compares with it"),
    ] {
        add(match on_path(tool) {
            Some(p) => check(tool, true, "warning", p.display().to_string()),
            None => check(tool, false, "warning", format!("not on PATH ({why})")),
        });
    }
    if a.lint {
        for c in super::lint::run(ctx) {
            add(c);
        }
    }
    let ok = checks.iter().all(|c| {
        matches!(c.get("ok"), Some(Json::Bool(true)))
            || !matches!(c.get("severity").and_then(Json::as_str), Some("error"))
    });
    let mut o = Json::obj();
    o.push("ok", Json::Bool(ok));
    o.push("checks", Json::Arr(checks));
    Ok(Output::from_json(o, false))
}

/// `--help` in this mode: the seed's human-readable help, from the registry.
pub fn help_text(list: CommandList, spec: Option<&CommandSpec>) -> String {
    let mut t = String::new();
    match spec {
        None => {
            t.push_str("aitools: one binary AI agents call instead of cat, grep, sed, find and patch.\n\nUsage: aitools <command> [options] --output jsonl\n\nCommands:\n");
            for s in list.all() {
                t.push_str(&format!("  {:<16} {}\n", s.name, s.summary));
            }
            t.push_str("\nMachine mode: --output jsonl (or --format jsonl) prints AOI-CLI events;\n`aitools schema --output json` and `aitools capabilities --output json` describe them.\n");
        }
        Some(s) => {
            t.push_str(&format!(
                "aitools {}: {}\n\n{}\n\nOptions:\n",
                s.name, s.summary, s.description
            ));
            for a in s.clap_command().get_arguments() {
                let name = match a.get_long() {
                    Some(l) if !a.is_positional() => format!("--{l}"),
                    _ => format!("<{}>", a.get_id()),
                };
                let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                t.push_str(&format!("  {name:<22} {help}\n"));
            }
            if table::destructive(s) {
                t.push_str("  --confirm              Required with --output jsonl: this command is destructive.\n");
            }
        }
    }
    t
}

/// The doctor's `lock` check: the workspace lock is free, held by another
/// aitools, or cannot be taken.
fn lock_check(ctx: &Ctx, state: &std::path::Path) -> Json {
    let mut quick = ctx.clone();
    quick.lock_timeout = std::time::Duration::from_millis(200);
    match crate::store::lock::acquire(&quick, state) {
        Ok(l) => {
            drop(l);
            check("lock", true, "warning", "the workspace lock is free")
        }
        Err(e) if matches!(*e, StoreError::Busy(_)) => check(
            "lock",
            false,
            "warning",
            "another aitools holds the workspace lock",
        ),
        Err(e) => check("lock", false, "error", CmdError::from(e).message.clone()),
    }
}

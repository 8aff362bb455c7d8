//! `sys info|env|tools`: host facts agents otherwise ask the shell for: the OS,
//! CPUs, user, memory and the workspace's disk (`workspace::host`); the
//! environment with secret values masked by the one mask; which tools are on
//! PATH and their versions, probed in parallel through the one process runner.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, redact, values};
use crate::workspace::Ctx;
use crate::workspace::host;
use crate::workspace::process::{self, Limits};
use clap::Args;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct InfoArgs {}

#[derive(Args, Debug)]
pub struct EnvArgs {
    /// Only variables whose name starts with this (case-sensitive).
    pub prefix: Option<String>,
}

#[derive(Args, Debug)]
pub struct ToolsArgs {
    /// Command names (no /); default: git cargo rustc go node npm python3 pytest make cmake gcc clang java docker rg jq.
    pub names: Vec<String>,
    /// Per-command limit for the version probe (<n>ms|s|m).
    #[arg(long, default_value = "5s", value_name = "DURATION")]
    pub timeout: String,
}

pub const INFO: CommandSpec = CommandSpec {
    name: "sys info",
    summary: "The host: OS, arch, CPUs, user, memory, the workspace's disk.",
    description: "Linux reads uname(2), /proc/meminfo (available is MemAvailable) and statvfs(2) of the workspace root. Unknown values are null.",
    args: <InfoArgs as clap::Args>::augment_args,
    output_fields: &[
        field("os", "Kernel name, lowercase (linux)."),
        field("os_version", "Kernel release from uname(2)."),
        field("arch", "Machine from uname(2): x86_64, aarch64."),
        field("cpus", "Logical CPUs online."),
        field("user", "User name."),
        field("uid", "Real user id."),
        field("hostname", "Host name."),
        field("shell", "$SHELL, or null."),
        field("memory", "{total, available} in bytes."),
        field(
            "disk",
            "{total, available} in bytes of the workspace root's file system.",
        ),
    ],
    error_codes: &[],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(InfoArgs, info),
};

pub const ENV: CommandSpec = CommandSpec {
    name: "sys env",
    summary: "Environment variables (printenv), secret values masked.",
    description: "Each NAME=VALUE goes through the one secret mask: a secret-named variable (TOKEN, PASSWORD, API_KEY, ...) or a known secret format has its value replaced by [REDACTED_SECRET].",
    args: <EnvArgs as clap::Args>::augment_args,
    output_fields: &[
        field("items", "[{name, value}] sorted by name."),
        field("total", "Number of items."),
        field(
            "redactions",
            "Values masked (the envelope's count, present when any).",
        ),
    ],
    error_codes: &[],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(EnvArgs, env),
};

pub const TOOLS: CommandSpec = CommandSpec {
    name: "sys tools",
    summary: "Which tools are on PATH, and their versions (which, --version).",
    description: "Probes the names in parallel: version is the first nonblank line of NAME --version (go version for go), stdout first, then stderr; null when it did not finish within --timeout or printed nothing.",
    args: <ToolsArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "items",
            "[{name, path, version}]; path is null when not found on PATH.",
        ),
        field("total", "Number of items."),
        field("found", "How many were found on PATH."),
    ],
    error_codes: &[],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::SIDE,
    run: handler!(ToolsArgs, tools),
};

const DEFAULT_TOOLS: &[&str] = &[
    "git", "cargo", "rustc", "go", "node", "npm", "python3", "pytest", "make", "cmake", "gcc",
    "clang", "java", "docker", "rg", "jq",
];

fn pair(total: u64, available: u64) -> Json {
    let mut o = Json::obj();
    o.push("total", Json::UInt(total));
    o.push("available", Json::UInt(available));
    o
}

fn opt_str(s: Option<String>) -> Json {
    s.map_or(Json::Null, Json::str)
}

pub fn info(ctx: &Ctx, _a: &InfoArgs) -> Result<Output, CmdError> {
    let u = host::uname();
    let uid = host::uid();
    let mut o = Json::obj();
    o.push("os", opt_str(u.as_ref().map(|u| u.sysname.to_lowercase())));
    o.push("os_version", opt_str(u.as_ref().map(|u| u.release.clone())));
    o.push("arch", opt_str(u.as_ref().map(|u| u.machine.clone())));
    o.push("cpus", host::cpus().map_or(Json::Null, Json::UInt));
    o.push("user", opt_str(host::user_name(uid)));
    o.push("uid", Json::UInt(u64::from(uid)));
    o.push("hostname", opt_str(u.as_ref().map(|u| u.nodename.clone())));
    o.push(
        "shell",
        opt_str(std::env::var("SHELL").ok().filter(|s| !s.is_empty())),
    );
    o.push(
        "memory",
        host::memory().map_or(Json::Null, |(t, a)| pair(t, a)),
    );
    o.push(
        "disk",
        host::disk(&ctx.root).map_or(Json::Null, |(t, a)| pair(t, a)),
    );
    Ok(Output::from_json(o, false))
}

pub fn env(_ctx: &Ctx, a: &EnvArgs) -> Result<Output, CmdError> {
    let mut vars: Vec<(String, String)> = std::env::vars_os()
        .map(|(k, v)| {
            (
                k.to_string_lossy().to_string(),
                v.to_string_lossy().to_string(),
            )
        })
        .filter(|(k, _)| a.prefix.as_deref().is_none_or(|p| k.starts_with(p)))
        .collect();
    vars.sort();
    let mut items = Vec::with_capacity(vars.len());
    for (name, value) in vars {
        let line = format!("{name}={value}");
        let value = match redact::mask_str(&line) {
            Some((m, _)) => match m.strip_prefix(&format!("{name}=")) {
                Some(v) => v.to_string(),
                None => redact::PLACEHOLDER.to_string(),
            },
            None => value,
        };
        let mut it = Json::obj();
        it.push("name", Json::str(name));
        it.push("value", Json::str(value));
        items.push(it);
    }
    let mut o = Json::obj();
    let total = items.len() as u64;
    o.push("items", Json::Arr(items));
    o.push("total", Json::UInt(total));
    Ok(Output::from_json(o, false))
}

/// The first nonblank line of the probe's stdout, else its stderr.
fn first_line(out: &[u8], err: &[u8]) -> Option<String> {
    [out, err].iter().find_map(|b| {
        String::from_utf8_lossy(b)
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| l.chars().take(200).collect())
    })
}

fn probe(path: &std::path::Path, name: &str, timeout: Duration) -> Option<String> {
    let mut cmd = std::process::Command::new(path);
    cmd.arg(if name == "go" { "version" } else { "--version" });
    let limits = Limits {
        timeout,
        grace: Duration::from_millis(200),
        cap: 64 * 1024,
    };
    let done = process::run(cmd, limits).ok()?;
    if done.timed_out {
        return None;
    }
    first_line(&done.stdout.bytes, &done.stderr.bytes)
}

pub fn tools(ctx: &Ctx, a: &ToolsArgs) -> Result<Output, CmdError> {
    let timeout = values::parse_duration(&a.timeout)
        .map_err(|why| CmdError::invalid_argument(&ctx.command, format!("--timeout: {why}")))?;
    let names: Vec<String> = if a.names.is_empty() {
        DEFAULT_TOOLS.iter().map(|s| s.to_string()).collect()
    } else {
        a.names.clone()
    };
    if let Some(bad) = names
        .iter()
        .find(|n| n.is_empty() || n.contains(['/', '\0']) || n.len() > 255)
    {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("{bad:?} is not a command name: give bare names such as cargo (no /)."),
        ));
    }
    let path_var = std::env::var("PATH").unwrap_or_default();
    let found: Vec<(String, Option<std::path::PathBuf>)> = names
        .iter()
        .map(|n| (n.clone(), host::which(n, &path_var)))
        .collect();
    let versions: Vec<Option<String>> = std::thread::scope(|s| {
        let handles: Vec<_> = found
            .iter()
            .map(|(n, p)| s.spawn(move || p.as_ref().and_then(|p| probe(p, n, timeout))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    });
    let mut items = Vec::new();
    let mut count = 0u64;
    for ((name, path), version) in found.into_iter().zip(versions) {
        let mut it = Json::obj();
        it.push("name", Json::str(name));
        if path.is_some() {
            count += 1;
        }
        it.push(
            "path",
            opt_str(path.map(|p| p.to_string_lossy().to_string())),
        );
        it.push("version", opt_str(version));
        items.push(it);
    }
    let mut o = Json::obj();
    let total = items.len() as u64;
    o.push("items", Json::Arr(items));
    o.push("total", Json::UInt(total));
    o.push("found", Json::UInt(count));
    Ok(Output::from_json(o, false))
}

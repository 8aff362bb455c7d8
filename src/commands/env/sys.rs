//! `sys info|env|tools|procs|ports`: host facts agents otherwise ask the shell for: the OS,
//! CPUs, user, memory and the workspace's disk (`workspace::host`); the
//! environment with secret values masked by the one mask; which tools are on
//! PATH and their versions, probed in parallel through the one process runner;
//! processes and listening sockets (`host::processes`, `host::listeners`), masked.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, redact, shell, time, values};
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
    let limits = Limits::plain(timeout, Duration::from_millis(200), 64 * 1024);
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

#[derive(Args, Debug)]
pub struct ProcsArgs {
    /// Only processes whose command line contains this (case-insensitive).
    pub pattern: Option<String>,
    /// Maximum items.
    #[arg(long, value_name = "N", default_value = "50", value_parser = values::parse_count)]
    pub limit: u64,
}

#[derive(Args, Debug)]
pub struct PortsArgs {}

pub const PROCS: CommandSpec = CommandSpec {
    name: "sys procs",
    summary: "List processes whose command line contains PATTERN (ps), by pid.",
    description: "Linux reads /proc (stat, cmdline, the directory's owner); this call itself is left out. Only reads: nothing is signalled. Command lines go through the secret mask. More matches than --limit give status partial (exit 3) with the call that lists them all.",
    args: <ProcsArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "items",
            "[{pid, ppid, user, state, command, started}]; started is ISO 8601 UTC or null, user null when unknown.",
        ),
        field("total", "Matching processes before --limit."),
        field(
            "truncated",
            "True when --limit cut the list (status partial, exit 3).",
        ),
        field(
            "next_commands",
            "When truncated: the call with a --limit that lists all.",
        ),
    ],
    error_codes: &[code::UNAVAILABLE],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(ProcsArgs, procs),
};

pub const PORTS: CommandSpec = CommandSpec {
    name: "sys ports",
    summary: "List listening TCP (and bound UDP) sockets with the owning process (ss -ltnup).",
    description: "Linux reads /proc/net/tcp, tcp6, udp and udp6 and maps socket inodes through /proc/<pid>/fd; another user's process stays pid null without privileges. The wildcard address is 0.0.0.0 or ::.",
    args: <PortsArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "items",
            "[{port, address, protocol, pid, command}] by port; protocol is tcp, tcp6, udp or udp6.",
        ),
        field("total", "Number of items."),
    ],
    error_codes: &[code::UNAVAILABLE],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(PortsArgs, ports),
};

/// `/proc` missing (not Linux, or not mounted: a container, a sandbox) or an
/// empty mount that does not list this process is `environment.unavailable`;
/// another failure reading it is `environment.io`.
fn no_proc(ctx: &Ctx, e: Option<&std::io::Error>) -> CmdError {
    match e {
        Some(e) if e.kind() != std::io::ErrorKind::NotFound => {
            crate::protocol::error::io_error(&ctx.command, "/proc", e)
        }
        _ => CmdError::new(
            code::UNAVAILABLE,
            format!(
                "{} reads Linux's /proc, and no /proc listing this process is mounted here.",
                ctx.command
            ),
            Repair::new(
                "info",
                "See what this host is (its OS and tools).",
                shell::aitools(["sys", "info"]),
            ),
        ),
    }
}

/// Fails unless `/proc` lists this very process.
fn proc_here(ctx: &Ctx) -> Result<(), CmdError> {
    host::proc_mounted().map_err(|e| no_proc(ctx, Some(&e)))
}

pub fn procs(ctx: &Ctx, a: &ProcsArgs) -> Result<Output, CmdError> {
    if a.limit == 0 {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--limit must be at least 1.",
        ));
    }
    proc_here(ctx)?;
    let all = host::processes().map_err(|e| no_proc(ctx, Some(&e)))?;
    let want = a.pattern.as_deref().map(str::to_lowercase);
    // Never this call itself (its own command line holds PATTERN), as pgrep.
    let me = std::process::id();
    let matching: Vec<&host::Proc> = all
        .iter()
        .filter(|p| p.pid != me)
        .filter(|p| {
            want.as_deref()
                .is_none_or(|w| p.command.to_lowercase().contains(w))
        })
        .collect();
    let total = matching.len() as u64;
    let mut items = Vec::new();
    for p in matching
        .iter()
        .take(usize::try_from(a.limit).unwrap_or(usize::MAX))
    {
        let command = match redact::mask_str(&p.command) {
            Some((m, _)) => m,
            None => p.command.clone(),
        };
        let mut it = Json::obj();
        it.push("pid", Json::UInt(u64::from(p.pid)));
        it.push("ppid", Json::UInt(u64::from(p.ppid)));
        it.push(
            "user",
            p.uid
                .and_then(host::user_name)
                .map(Json::str)
                .unwrap_or(Json::Null),
        );
        it.push("state", Json::str(p.state.clone()));
        it.push("command", Json::str(command));
        it.push(
            "started",
            p.started
                .map(|s| Json::str(time::iso8601(s)))
                .unwrap_or(Json::Null),
        );
        items.push(it);
    }
    let truncated = total > a.limit;
    let mut o = Json::obj();
    o.push("items", Json::Arr(items));
    o.push("total", Json::UInt(total));
    o.push("truncated", Json::Bool(truncated));
    if truncated {
        let words = shell::rerun(
            &ctx.argv,
            &["--limit"],
            &[],
            &["--limit".into(), total.to_string()],
        );
        o.push(
            "next_commands",
            Json::Arr(vec![Json::str(shell::aitools(&words))]),
        );
    }
    Ok(Output::from_json(o, truncated))
}

pub fn ports(ctx: &Ctx, _a: &PortsArgs) -> Result<Output, CmdError> {
    proc_here(ctx)?;
    let mut ls = host::listeners().map_err(|e| no_proc(ctx, Some(&e)))?;
    ls.sort_by(|x, y| (x.port, x.protocol, &x.address).cmp(&(y.port, y.protocol, &y.address)));
    let owners = host::socket_owners();
    let procs = host::processes().unwrap_or_default();
    let mut items = Vec::new();
    for l in &ls {
        let pid = owners.get(&l.inode).copied();
        let command = pid
            .and_then(|p| procs.iter().find(|x| x.pid == p))
            .map(|p| {
                redact::mask_str(&p.command)
                    .map(|(m, _)| m)
                    .unwrap_or_else(|| p.command.clone())
            });
        let mut it = Json::obj();
        it.push("port", Json::UInt(u64::from(l.port)));
        it.push("address", Json::str(l.address.clone()));
        it.push("protocol", Json::str(l.protocol));
        it.push(
            "pid",
            pid.map(|p| Json::UInt(u64::from(p))).unwrap_or(Json::Null),
        );
        it.push("command", command.map(Json::str).unwrap_or(Json::Null));
        items.push(it);
    }
    let total = items.len() as u64;
    let mut o = Json::obj();
    o.push("items", Json::Arr(items));
    o.push("total", Json::UInt(total));
    Ok(Output::from_json(o, false))
}

//! `aitools console` (and `aitools mcp --http`): one small synchronous HTTP/1.1
//! server on 127.0.0.1 that serves the operator's console page (`GET /`, the
//! compiled-in `data/console.html`), the OUI WebSocket (`/oui/v1`, the surfaces
//! of `crate::oui`) and MCP's Streamable HTTP transport (`/mcp`, the stdio
//! server's `mcp::Server::handle`). A thread per connection under a cap; every
//! request must carry the token and a loopback Host (and Origin, when present).
//! It never prints: `dispatch` binds it (`bind`), prints the start line
//! (`Console::started`) and then hands it the process (`Console::serve`) until
//! SIGINT or SIGTERM.

mod guard;
mod http;
mod mcp_http;
mod serve;
mod signals;
mod ws;

use crate::protocol::host::Host;
use crate::protocol::json::Json;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, Repair, code};
use crate::workspace::Ctx;
use std::net::TcpListener;
use std::path::PathBuf;

pub use serve::Console;

#[derive(clap::Args, Debug)]
pub struct ConsoleArgs {
    /// Port on 127.0.0.1 (0: any free port, named in the answer's url)
    #[arg(long, default_value_t = 0)]
    pub port: u16,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "console",
    summary: "Operator console in the browser (OUI, MCP over HTTP).",
    description: "Serves on 127.0.0.1 until SIGINT or SIGTERM (then exits 0): the console page at url (live journal, diffs, undo, open transactions, recovery, feedback, background jobs; every confirm action asks the person first), the OUI WebSocket at oui_url (the workspace's surfaces) and MCP's Streamable HTTP transport at mcp_url (both protocol eras). Prints one envelope line when it listens. Every request needs the token (?token= or Authorization: Bearer), a Host of 127.0.0.1:PORT or localhost:PORT and, when sent, the matching Origin; frames and bodies are capped at 1 MiB. Started by a person, not called inside another call.",
    args: <ConsoleArgs as clap::Args>::augment_args,
    output_fields: &[
        field("url", "The console page, token included."),
        field("oui_url", "The OUI WebSocket (ws://127.0.0.1:PORT/oui/v1)."),
        field(
            "mcp_url",
            "MCP Streamable HTTP endpoint (send the token as a bearer).",
        ),
        field("token", "The token every request must carry."),
        field("pid", "The server's process id (SIGTERM stops it)."),
        field("root", "The workspace served."),
    ],
    error_codes: &[code::ARGUMENT_INVALID],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::SIDE,
    run: crate::handler!(ConsoleArgs, run_as_command),
};

pub const COMMANDS: &[CommandSpec] = &[SPEC];

/// Reached only when `console` runs inside another answer (batch): a server
/// needs the process to itself.
fn run_as_command(_ctx: &Ctx, _a: &ConsoleArgs) -> Result<Output, CmdError> {
    Err(CmdError::new(
        code::ARGUMENT_INVALID,
        "console is a server that runs until it is stopped; it cannot run inside another call.",
        Repair::new(
            "start",
            "Start it on its own, in a terminal or in the background.",
            "aitools console --port 0",
        ),
    ))
}

/// What the server offers besides MCP (`mcp --http` serves only `/mcp`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Console,
    McpOnly,
}

/// Binds 127.0.0.1:`port` for `root` (the workspace, already resolved). The
/// error is an envelope's: a port taken or refused.
pub fn bind(host: Host, root: PathBuf, port: u16, mode: Mode) -> Result<Console, CmdError> {
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
        CmdError::new(
            code::IO,
            format!(
                "Could not listen on 127.0.0.1:{port} ({}).",
                crate::protocol::error::err_text(&e)
            ),
            Repair::new(
                "any-port",
                "Let the system pick a free port (the answer names it).",
                "aitools console --port 0",
            ),
        )
    })?;
    let port = listener.local_addr().map(|a| a.port()).map_err(|e| {
        CmdError::new(
            code::IO,
            format!(
                "The listening socket has no address ({}).",
                crate::protocol::error::err_text(&e)
            ),
            Repair::new(
                "retry",
                "Start the console again.",
                "aitools console --port 0",
            ),
        )
    })?;
    let token = guard::new_token();
    Ok(Console::new(host, root, listener, port, token, mode))
}

impl Console {
    /// The start line's fields. Printed without the envelope's mask (the token
    /// must reach the person), so the one value not ours, the root, is masked here.
    pub fn started(&self) -> Output {
        let mut o = Json::obj();
        let base = format!("http://127.0.0.1:{}", self.port);
        if self.mode == Mode::Console {
            o.push("url", Json::str(format!("{base}/?token={}", self.token)));
            o.push(
                "oui_url",
                Json::str(format!("ws://127.0.0.1:{}/oui/v1", self.port)),
            );
        }
        o.push("mcp_url", Json::str(format!("{base}/mcp")));
        o.push("token", Json::str(self.token.clone()));
        o.push("pid", Json::UInt(u64::from(std::process::id())));
        let root = self.root.to_string_lossy().to_string();
        let root = crate::protocol::redact::mask_str_quiet(&root).unwrap_or(root);
        o.push("root", Json::str(root));
        Output::from_json(o, false)
    }
}

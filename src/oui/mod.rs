//! aitools as OUI surfaces (seed 002, OUI 0.1.0): the manifests, the protocol
//! core and the spec-literal WebSocket binding.
//!
//! - `manifest`: the surfaces (journal, transactions, review when its commands
//!   exist, recovery, feedback, programs), generated from `data/oui-surfaces.tsv`
//!   and the registry through the MCP tool generator (`mcp::tools`): one schema
//!   generator. `aitools oui manifest [--surface ID]` prints them.
//! - `session`: the protocol core (§7), transport-agnostic, one implementation
//!   for every binding. Its API (stable; the console's WebSocket uses it too):
//!
//!   ```text
//!   let mut s = oui::Session::new(host, &ctx.root, metadata); // Host: ctx.host or dispatch::HOST
//!   s.on_connect()   -> Vec<Value>  // surface:register per surface, then each observation's value
//!   s.handle(frame)  -> Vec<Value>  // a frame from the runtime: what to send back
//!   s.poll()         -> Vec<Value>  // observation:update for what changed (call every ~100-250 ms)
//!   s.on_shutdown()  -> Vec<Value>  // surface:deregister per surface
//!   ```
//!
//!   Each `Value` is one protocol event (`{type, payload}`) already through the
//!   secret mask; send each as one text frame. `handle`: an `action:request`
//!   gets exactly one `action:result` with its `requestId` (params checked
//!   against the action's input schema first: `VALIDATION_ERROR`; unknown
//!   action `ACTION_NOT_FOUND`, unknown surface `SURFACE_UNAVAILABLE`; a failed
//!   command `EXECUTION_ERROR` or the closer code from the table — selection.*
//!   and target-changed `PRECONDITION_FAILED`, timeouts `TIMEOUT` — with the
//!   aitools error (code, message, exit_code, repairs) as `error.details`;
//!   success carries the command's envelope as `data`), followed by any
//!   observation that changed. The action runs on a worker thread: past 30 s
//!   (`set_timeout`) it answers `TIMEOUT`, and the surface takes no other action
//!   until it ends (`PRECONDITION_FAILED`). `handle` blocks while the action
//!   runs, so a binding calls it from the connection's thread: one action at a
//!   time per session. An `observation:request` gets its `observation:update`;
//!   malformed frames, unknown or `x-` events and frames over 1 MB
//!   (`MAX_FRAME`) get nothing (the binding keeps the connection). `poll`'s
//!   change check is a stat of the state directory's journal, tx, recovery and
//!   bg records (`every:5` for feedback, whose files may live elsewhere); a
//!   changed value is sent once (deduplicated), at most every 100 ms per
//!   observation. Values come from running the aitools commands in-process
//!   (`Host::invoke`: the dispatcher's parse path and masked envelope).
//! - `connect`: `aitools oui connect URL [--token T]`, the §8.2 binding where
//!   the surface dials the runtime (backoff 1 s → 30 s, re-registration on
//!   reconnect, ping/pong, deregistration on SIGINT/SIGTERM).

pub mod connect;
pub mod manifest;
pub mod session;
pub mod validate;

pub use session::Session;

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::workspace::Ctx;
use serde_json::{Map, Value, json};

#[derive(clap::Args, Debug)]
pub struct ManifestArgs {
    /// Only this surface (journal, transactions, recovery, feedback, programs)
    #[arg(long)]
    pub surface: Option<String>,
}

pub const MANIFEST: CommandSpec = CommandSpec {
    name: "oui manifest",
    summary: "OUI surfaces (seed 002): print, connect.",
    description: "One manifest per surface (journal, transactions, recovery, feedback, programs; review when the review commands exist): actions are aitools commands (snake_case, the MCP tools' argument names, bounded input schemas), confirm on changes an operator cannot trivially take back, observations with JSON Schemas. Served by `aitools oui connect` and the console.",
    args: <ManifestArgs as clap::Args>::augment_args,
    output_fields: &[
        field("oui_version", "The OUI spec version the manifests follow."),
        field(
            "surfaces",
            "The manifests: [{id,name,description,version,actions,observations,metadata}].",
        ),
    ],
    error_codes: &[code::NOT_FOUND],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(ManifestArgs, run_manifest),
};

pub const COMMANDS: &[CommandSpec] = &[MANIFEST, connect::SPEC];

/// The root's services, which `dispatch` puts in every `Ctx`.
pub(crate) fn host_of(ctx: &Ctx) -> Result<crate::protocol::host::Host, CmdError> {
    ctx.host.ok_or_else(|| {
        CmdError::internal("the OUI commands need the command list, which this call lacks.")
    })
}

fn run_manifest(ctx: &Ctx, a: &ManifestArgs) -> Result<Output, CmdError> {
    let host = host_of(ctx)?;
    manifest::surfaces(host.commands).map_err(|e| CmdError::internal(e.0))?;
    let session = Session::new(host, &ctx.root, Map::new());
    let all = session.manifests();
    let ids: Vec<String> = all
        .iter()
        .filter_map(|m| m["id"].as_str().map(String::from))
        .collect();
    let picked: Vec<Value> = match &a.surface {
        None => all,
        Some(want) => {
            let one: Vec<Value> = all
                .into_iter()
                .filter(|m| m["id"] == want.as_str())
                .collect();
            if one.is_empty() {
                let near = ids.first().cloned().unwrap_or_default();
                return Err(CmdError::new(
                    code::NOT_FOUND,
                    format!("No OUI surface {want:?}; there are: {}.", ids.join(", ")),
                    Repair::new(
                        "surface",
                        "Print one of the surfaces there are.",
                        shell::aitools(["oui", "manifest", "--surface", &near]),
                    ),
                ));
            }
            one
        }
    };
    let v = json!({"oui_version": manifest::OUI_VERSION, "surfaces": picked});
    let fields = Json::parse(&v.to_string())
        .map_err(|_| CmdError::internal("the OUI manifests could not be rendered."))?;
    Ok(Output::from_json(fields, false))
}

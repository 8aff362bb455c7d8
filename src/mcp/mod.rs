//! `aitools mcp`: a Model Context Protocol server over stdio, generated from the one
//! command registry. It owns the wire (JSON-RPC 2.0, one message per line), both
//! protocol eras (2026-07-28's stateless requests with `_meta` and
//! `server/discover`; the legacy `initialize` handshake of 2025-11-25 and
//! earlier), the tool schemas derived from each spec's clap arguments, and turning
//! a `tools/call` into an argv for `Host::invoke`. It never touches stdin or
//! stdout itself: `dispatch` hands it a reader and a writer.

use crate::protocol::envelope;
use crate::protocol::host::Host;
use crate::protocol::kept::Kept;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, Repair, code};
use crate::workspace::Ctx;
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The modern revision: every request carries its version and capabilities.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];
/// The handshake revisions `initialize` negotiates, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// A host's tool-result limit is 25k tokens; at ~4 bytes a token, an envelope
/// over this many bytes is cut and continued with the `more` tool.
pub const RESULT_LIMIT: usize = 100_000;

/// The tool (not a registry command) that hands out the rest of a cut result.
pub const MORE_TOOL: &str = "more";

#[derive(clap::Args)]
pub struct McpArgs {
    /// Tools listed: core (the most used, compact, and `aitools` for any other command) or all (every command, full schemas)
    #[arg(long, value_enum, default_value = "core")]
    pub tools: ToolSet,
    /// Serve MCP's Streamable HTTP transport on 127.0.0.1 at /mcp (token required) instead of stdio; runs until SIGINT or SIGTERM
    #[arg(long)]
    pub http: bool,
    /// Port for --http (0: any free port, named in the answer's mcp_url)
    #[arg(long, default_value_t = 0, requires = "http")]
    pub port: u16,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "mcp",
    summary: "MCP server on stdio (for agent hosts).",
    description: "JSON-RPC 2.0, one message per line on stdin/stdout; exits at end of input (0), or when stdout refuses a reply (1, an environment.output-lost envelope on stderr naming what the lost call did). Speaks the 2026-07-28 revision (stateless requests with _meta, server/discover) and the initialize handshake of 2025-11-25 and earlier. Tools are the commands, snake_case (code_outline, tx_commit): tools/list names a core set (read, search, edit, ...) and the tool aitools, which runs any command ({command, args}); --tools all lists every command. structuredContent is the command's envelope. The workspace root is --root, else the working directory (never / or the home directory), else the first root the client offers. Started by a host, not called as a command. --http serves the same tools over MCP's Streamable HTTP transport on 127.0.0.1 instead (its one start line names mcp_url and the token to send as a bearer).",
    args: <McpArgs as clap::Args>::augment_args,
    output_fields: &[
        field("mcp_url", "With --http: the endpoint (POST JSON-RPC)."),
        field(
            "token",
            "With --http: the bearer token every request needs.",
        ),
        field(
            "pid",
            "With --http: the server's process id (SIGTERM stops it).",
        ),
        field("root", "With --http: the workspace served."),
    ],
    error_codes: &[code::ARGUMENT_INVALID],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: crate::handler!(McpArgs, run_as_command),
};

pub const COMMANDS: &[CommandSpec] = &[SPEC];

/// Reached only when `mcp` is run inside another answer (batch): a server needs
/// the process's own stdin and stdout.
fn run_as_command(_ctx: &Ctx, _a: &McpArgs) -> Result<Output, CmdError> {
    Err(CmdError::new(
        code::ARGUMENT_INVALID,
        "mcp is a server an agent host starts on its own stdin and stdout; it cannot run inside another call.",
        Repair::new(
            "host",
            "Add `aitools mcp --root .` to the host's MCP servers, or call the commands directly.",
            "aitools skills mcp",
        ),
    ))
}

mod compact;
mod line;
pub(crate) use line::percent_decode;
pub(crate) mod tools;
pub use compact::ToolSet;
use compact::{GENERIC_TOOL, tools};
use tools::{argv_for, served, tool_name};

/// Where the server's calls run.
enum Root {
    Dir(PathBuf),
    /// None usable yet (the working directory is / or the home directory, and no
    /// client root was offered): calls answer an error saying so.
    Refused(String),
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .and_then(|h| std::fs::canonicalize(h).ok())
}

fn check_root(p: &Path) -> Result<PathBuf, String> {
    let real = std::fs::canonicalize(p)
        .ok()
        .filter(|r| r.is_dir())
        .ok_or_else(|| format!("{} is not an existing directory", p.display()))?;
    if real == Path::new("/") {
        return Err("the workspace root may not be /".into());
    }
    if home().as_deref() == Some(real.as_path()) {
        return Err("the workspace root may not be the home directory".into());
    }
    Ok(real)
}

/// A cut result's remaining items, served by `more`.
struct Pending {
    id: String,
    template: Value,
    /// Where in `template` the remaining items go back (a JSON pointer).
    pointer: String,
    rest: Vec<Value>,
}

/// One server: the stdio session's state (the legacy handshake, the root, the
/// cut results not yet fetched).
pub struct Server {
    /// The command list and the call runner (handed over by the dispatcher).
    host: Host,
    /// What `tools/list` names.
    tool_set: ToolSet,
    root: Root,
    /// Given by `--root`: client roots do not override it.
    fixed_root: bool,
    legacy: Option<String>,
    client_roots: bool,
    next_id: u64,
    pending: VecDeque<Pending>,
    /// Verdicts on state directories kept between calls: every tool call
    /// verifies the state directory; a server re-checks its identity and
    /// verifies it whole only when that changed (`state_dir::verify`).
    kept: Arc<Kept>,
}

/// Why `serve` stopped before the end of its input.
#[derive(Debug)]
pub enum Stopped {
    /// stdin failed (the host is gone).
    Input,
    /// stdout refused a reply: the error, and the envelope the lost reply
    /// carried (a tool call's `structuredContent`), if it was one.
    Output {
        error: std::io::Error,
        reply: Option<Value>,
    },
}

/// Whether a request speaks the modern protocol (its `params._meta` names a
/// version, with the client's capabilities), or the error reply when its
/// `_meta` names a version this server does not speak or lacks a part.
fn modern_request(id: &Value, params: &Value) -> Result<bool, Value> {
    let meta_version = params
        .get("_meta")
        .and_then(|m| m.get(META_VERSION))
        .cloned();
    match meta_version {
        Some(Value::String(v)) => {
            if !MODERN_VERSIONS.contains(&v.as_str()) {
                return Err(unsupported(id.clone(), &v));
            }
            if params
                .get("_meta")
                .and_then(|m| m.get(META_CAPS))
                .is_none_or(|c| !c.is_object())
            {
                return Err(error(
                    id.clone(),
                    INVALID_PARAMS,
                    &format!("params._meta must carry {META_CAPS} (an object; {{}} for none)."),
                    None,
                ));
            }
            Ok(true)
        }
        Some(_) => Err(error(
            id.clone(),
            INVALID_PARAMS,
            &format!("params._meta.{META_VERSION} must be a string."),
            None,
        )),
        None => Ok(false),
    }
}

impl Server {
    pub fn new(host: Host, root_arg: Option<&str>, tool_set: ToolSet) -> Server {
        let (root, fixed) = match root_arg {
            Some(r) => (check_root(Path::new(r)), true),
            None => (
                std::env::current_dir()
                    .map_err(|e| e.to_string())
                    .and_then(|d| check_root(&d)),
                false,
            ),
        };
        let root = match root {
            // Relative paths in tool arguments resolve against the root: each
            // call is run there (`Host::invoke_at`), the process never moves.
            Ok(d) => Root::Dir(d),
            Err(m) => Root::Refused(m),
        };
        Server {
            host,
            tool_set,
            root,
            fixed_root: fixed,
            legacy: None,
            client_roots: false,
            next_id: 0,
            pending: VecDeque::new(),
            kept: Arc::default(),
        }
    }

    /// Reads messages until end of input, answering each on `out`; stops at the
    /// first read or write that fails.
    pub fn serve(&mut self, input: &mut dyn BufRead, out: &mut dyn Write) -> Result<(), Stopped> {
        let mut line = Vec::new();
        loop {
            let replies = match line::read(input, &mut line, line::MAX_LINE) {
                Err(_) => return Err(Stopped::Input),
                Ok(line::Line::End) => return Ok(()),
                Ok(line::Line::TooLong) => vec![error(
                    Value::Null,
                    INVALID_REQUEST,
                    &format!(
                        "The message is over {} MiB; it was skipped.",
                        line::MAX_LINE >> 20
                    ),
                    None,
                )],
                Ok(line::Line::Whole) => match trim(&line) {
                    [] => continue,
                    text => self.handle(text),
                },
            };
            for reply in replies {
                let mut s = serde_json::to_string(&reply).unwrap_or_default();
                s.push('\n');
                if let Err(error) = out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
                    let reply = reply
                        .get("result")
                        .and_then(|r| r.get("structuredContent"))
                        .cloned();
                    return Err(Stopped::Output { error, reply });
                }
            }
        }
    }

    /// The messages one incoming line produces (none for a notification).
    pub fn handle(&mut self, text: &[u8]) -> Vec<Value> {
        let msg: Value = match serde_json::from_slice(text) {
            Ok(v) => v,
            Err(e) => {
                return vec![error(
                    Value::Null,
                    PARSE_ERROR,
                    &format!("Parse error: {e}."),
                    None,
                )];
            }
        };
        let Value::Object(msg) = msg else {
            return vec![error(
                Value::Null,
                INVALID_REQUEST,
                "A message is one JSON object (batches are not part of MCP).",
                None,
            )];
        };
        let id = msg.get("id").cloned();
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            // A response to our own request (roots/list).
            if msg.contains_key("result") || msg.contains_key("error") {
                return self.on_response(&msg);
            }
            return vec![error(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "The message has no method.",
                None,
            )];
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        if id.as_ref().is_some_and(Value::is_null) {
            // A request's id is a string or an integer; only a message without
            // one is a notification.
            return vec![error(
                Value::Null,
                INVALID_REQUEST,
                "A request id is a string or an integer, never null (a notification has no id).",
                None,
            )];
        }
        let Some(id) = id else {
            return self.on_notification(method, &params);
        };
        if !(id.is_string() || id.is_i64() || id.is_u64())
            || msg.get("jsonrpc") != Some(&json!("2.0"))
        {
            return vec![error(
                id,
                INVALID_REQUEST,
                "A request needs jsonrpc \"2.0\" and a string or integer id.",
                None,
            )];
        }
        if !(params.is_object() || params.is_null()) {
            return vec![error(id, INVALID_PARAMS, "params must be an object.", None)];
        }
        let modern = match modern_request(&id, &params) {
            Ok(m) => m,
            Err(reply) => return vec![reply],
        };
        let result = match method {
            "initialize" => return vec![self.initialize(id, &params)],
            "ping" => Ok(json!({})),
            "server/discover" => Ok(discover()),
            "tools/list" | "tools/call" if !modern && self.legacy.is_none() => {
                return vec![error(
                    id,
                    INVALID_PARAMS,
                    &format!(
                        "No protocol version: send params._meta.{META_VERSION} (2026-07-28) and {META_CAPS}, or initialize first."
                    ),
                    Some(json!({"supported": supported()})),
                )];
            }
            "tools/list" => Ok(self.list(modern)),
            "tools/call" => self.call(&params),
            other => {
                return vec![error(
                    id,
                    METHOD_NOT_FOUND,
                    &format!("Method not found: {other}."),
                    None,
                )];
            }
        };
        match result {
            Ok(mut r) => {
                if modern {
                    r["resultType"] = json!("complete");
                    r["_meta"] = json!({META_SERVER_INFO: server_info()});
                }
                vec![json!({"jsonrpc": "2.0", "id": id, "result": r})]
            }
            Err((code, message)) => vec![error(id, code, &message, None)],
        }
    }

    fn initialize(&mut self, id: Value, params: &Value) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let Some(asked) = asked else {
            return error(
                id,
                INVALID_PARAMS,
                "initialize needs params.protocolVersion.",
                Some(json!({"supported": supported()})),
            );
        };
        // Negotiation: the same version when we speak it, else our newest legacy one.
        let version = if LEGACY_VERSIONS.contains(&asked) {
            asked
        } else {
            LEGACY_VERSIONS[0]
        };
        self.legacy = Some(version.to_string());
        self.client_roots = params
            .get("capabilities")
            .and_then(|c| c.get("roots"))
            .is_some_and(Value::is_object);
        json!({
            "jsonrpc": "2.0",
            "id": id,
            "result": {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": server_info(),
                "instructions": INSTRUCTIONS,
            }
        })
    }

    fn on_notification(&mut self, method: &str, _params: &Value) -> Vec<Value> {
        match method {
            "notifications/initialized" | "notifications/roots/list_changed"
                if self.client_roots && !self.fixed_root =>
            {
                self.next_id += 1;
                vec![json!({
                    "jsonrpc": "2.0",
                    "id": format!("aitools-roots-{}", self.next_id),
                    "method": "roots/list",
                })]
            }
            _ => Vec::new(),
        }
    }

    /// The client's answer to `roots/list`: its first usable `file://` root
    /// becomes the workspace root (unless `--root` fixed it).
    fn on_response(&mut self, msg: &Map<String, Value>) -> Vec<Value> {
        let roots = msg
            .get("result")
            .and_then(|r| r.get("roots"))
            .and_then(Value::as_array);
        for r in roots.into_iter().flatten() {
            let Some(path) = r
                .get("uri")
                .and_then(Value::as_str)
                .and_then(|u| u.strip_prefix("file://"))
                .map(percent_decode)
            else {
                continue;
            };
            if let Ok(d) = check_root(Path::new(&path)) {
                self.root = Root::Dir(d);
                break;
            }
        }
        Vec::new()
    }

    fn list(&self, modern: bool) -> Value {
        let mut r = json!({"tools": tools(self.host.commands, self.tool_set)});
        if modern {
            r["ttlMs"] = json!(3_600_000);
            r["cacheScope"] = json!("public");
        }
        r
    }

    fn call(&mut self, params: &Value) -> Result<Value, (i64, String)> {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err((
                INVALID_PARAMS,
                "tools/call needs params.name (a string).".into(),
            ));
        };
        let empty = Map::new();
        let args = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err((INVALID_PARAMS, "params.arguments must be an object.".into()));
            }
        };
        if name == MORE_TOOL {
            return self.more(args);
        }
        let generic;
        let (spec, args) = if name == GENERIC_TOOL {
            match compact::resolve(self.host.commands, args) {
                Ok((spec, inner)) => {
                    generic = inner;
                    (spec, &generic)
                }
                Err(m) => return Ok(self.result(bad_arguments(GENERIC_TOOL, m))),
            }
        } else {
            // Every command is callable by its tool name, listed or not.
            match served(self.host.commands).find(|s| tool_name(s) == name) {
                Some(spec) => (spec, args),
                None => return Err((INVALID_PARAMS, format!("Unknown tool: {name}."))),
            }
        };
        let argv = match argv_for(spec, args) {
            Ok(argv) => argv,
            // Input validation errors are tool results the model can correct.
            Err(m) => return Ok(self.result(bad_arguments(spec.name, m))),
        };
        let text = match &self.root {
            Root::Dir(d) => run(self.host, argv, d, &self.kept),
            Root::Refused(why) => {
                let err = CmdError::new(
                    code::ARGUMENT_INVALID,
                    format!("No workspace root: {why}."),
                    Repair::new(
                        "root",
                        "Start the server on a project directory (the host's MCP server arguments).",
                        "aitools mcp --root '<project dir>'",
                    ),
                );
                envelope::render_error(spec.name, &err).text
            }
        };
        Ok(self.result(text.trim_end().to_string()))
    }

    /// The tool result for an envelope, cut to `RESULT_LIMIT` when over it.
    fn result(&mut self, text: String) -> Value {
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        // An answer holding a number serde_json cannot hold (`1e999999`) is sent as
        // text only; its status is still read, by the reader that keeps such numbers.
        let is_error = match &value {
            Value::Null => crate::protocol::Json::parse(&text)
                .ok()
                .and_then(|j| j.get("status").and_then(|s| s.as_str().map(str::to_string)))
                .is_some_and(|s| s == "error"),
            v => v.get("status").and_then(Value::as_str) == Some("error"),
        };
        if text.len() <= RESULT_LIMIT {
            return tool_result(text, value, is_error);
        }
        if !value.is_object() {
            return tool_result(text, Value::Null, is_error);
        }
        match self.cut(value, None) {
            Some(v) => {
                let t = serde_json::to_string(&v).unwrap_or_default();
                tool_result(t, v, is_error)
            }
            None => {
                let v = serde_json::from_str(&text).unwrap_or(Value::Null);
                tool_result(text, v, is_error)
            }
        }
    }

    /// Cuts the envelope's largest array (found by descending into the largest
    /// field: search's one block holding every line) to what fits, keeping the
    /// rest for `more`.
    fn cut(&mut self, env: Value, pointer: Option<String>) -> Option<Value> {
        let pointer = pointer.or_else(|| largest_array(&env, String::new()))?;
        let mut template = env;
        let items = match template.pointer_mut(&pointer).map(Value::take) {
            Some(Value::Array(a)) => a,
            _ => return None,
        };
        self.next_id += 1;
        let id = format!("c{}", self.next_id);
        let page = |n: usize| {
            let mut m = template.clone();
            if let Some(slot) = m.pointer_mut(&pointer) {
                *slot = Value::Array(items[..n].to_vec());
            }
            if n < items.len() {
                m["status"] = json!("partial");
                m["mcp_continuation"] = json!({"tool": MORE_TOOL, "arguments": {"cursor": id}, "remaining": items.len() - n});
            }
            m
        };
        let fits = |v: &Value| {
            serde_json::to_string(v)
                .map(|s| s.len())
                .unwrap_or(usize::MAX)
                <= RESULT_LIMIT
        };
        // The largest prefix that fits (at least one item, so `more` always moves on).
        let (mut lo, mut hi) = (1usize, items.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if fits(&page(mid)) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let n = lo.min(items.len());
        let v = page(n);
        if n < items.len() {
            self.pending.push_back(Pending {
                id,
                template,
                pointer,
                rest: items[n..].to_vec(),
            });
            // A host that never asks for the rest must not grow the server.
            while self.pending.len() > 8 {
                self.pending.pop_front();
            }
        }
        Some(v)
    }

    fn more(&mut self, args: &Map<String, Value>) -> Result<Value, (i64, String)> {
        let Some(cursor) = args.get("cursor").and_then(Value::as_str) else {
            return Err((
                INVALID_PARAMS,
                "more needs arguments.cursor (a string).".into(),
            ));
        };
        let Some(pos) = self.pending.iter().position(|p| p.id == cursor) else {
            let err = CmdError::new(
                code::ARGUMENT_INVALID,
                format!(
                    "No cut result {cursor} is pending (each part is handed out once, and only the last 8 are kept)."
                ),
                Repair::new(
                    "rerun",
                    "Run the original call again, with a narrower scope or limit.",
                    "aitools schema",
                ),
            );
            let text = envelope::render_error("more", &err).text;
            return Ok(self.result(text.trim_end().to_string()));
        };
        let Some(p) = self.pending.remove(pos) else {
            return Err((INVALID_PARAMS, "cursor vanished".into()));
        };
        // The template keeps the command's own status: a search cut at its --limit
        // stays partial on the last page, with its next_commands.
        let mut env = p.template;
        if let Some(slot) = env.pointer_mut(&p.pointer) {
            *slot = Value::Array(p.rest);
        }
        let text = serde_json::to_string(&env).unwrap_or_default();
        if text.len() <= RESULT_LIMIT {
            return Ok(tool_result(text, env, false));
        }
        match self.cut(env.clone(), Some(p.pointer)) {
            Some(v) => {
                let t = serde_json::to_string(&v).unwrap_or_default();
                Ok(tool_result(t, v, false))
            }
            None => Ok(tool_result(text, env, false)),
        }
    }
}

/// The JSON pointer of the array to cut: the largest field, descended into
/// while it is an object or a one-item array.
fn largest_array(v: &Value, at: String) -> Option<String> {
    let size = |v: &Value| serde_json::to_string(v).map(|s| s.len()).unwrap_or(0);
    match v {
        Value::Array(a) if a.len() > 1 => Some(at),
        Value::Array(a) => a.first().and_then(|x| largest_array(x, format!("{at}/0"))),
        Value::Object(m) => {
            let mut fields: Vec<(&String, &Value)> = m
                .iter()
                .filter(|(_, x)| x.is_array() || x.is_object())
                .collect();
            fields.sort_by_key(|(_, x)| std::cmp::Reverse(size(x)));
            fields.into_iter().find_map(|(k, x)| {
                let key = k.replace('~', "~0").replace('/', "~1");
                largest_array(x, format!("{at}/{key}"))
            })
        }
        _ => None,
    }
}

fn tool_result(text: String, structured: Value, is_error: bool) -> Value {
    let mut r = json!({
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
    });
    if structured.is_object() {
        r["structuredContent"] = structured;
    }
    r
}

/// Runs one command in this process, exactly as `aitools <argv> --root <dir>`
/// would; each call has its own session, so nothing a previous call cached
/// carries over but the server's `kept` verdicts, each re-checked before use.
fn run(host: Host, mut argv: Vec<String>, root: &Path, kept: &Arc<Kept>) -> String {
    let at = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    // The call runs relative to the root (`invoke_at`), so `.` is the root;
    // follow-up commands in the answer stay short and still name it.
    argv.insert(at, "--root=.".to_string());
    let os: Vec<OsString> = argv.iter().map(OsString::from).collect();
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        (host.invoke_at)(&os, root, Some(kept.clone()))
    }));
    match out {
        Ok(r) => r.text,
        Err(_) => {
            let words = host.commands.command_words(&argv);
            envelope::render_error(
                &words.join(" "),
                &CmdError::internal("aitools failed unexpectedly inside the MCP server."),
            )
            .text
        }
    }
}

/// The `argument.invalid` envelope of a call whose arguments do not fit the
/// tool's schema (`why`), with the command's schema as the repair.
fn bad_arguments(command: &str, why: String) -> String {
    let err = CmdError::new(
        code::ARGUMENT_INVALID,
        why,
        Repair::new(
            "schema",
            "See the tool's arguments.",
            if command == GENERIC_TOOL {
                crate::protocol::shell::aitools(["schema"])
            } else {
                crate::protocol::shell::aitools(["schema", command])
            },
        ),
    );
    envelope::render_error(command, &err)
        .text
        .trim_end()
        .to_string()
}

fn trim(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r' | b' ' | b'\t') {
        end -= 1;
    }
    &line[..end]
}

const INSTRUCTIONS: &str = "aitools: bounded reads, content search, guarded atomic journaled edits with undo. Every tool answers one envelope (structuredContent): status ok/partial/error; on error, error.repairs lists aitools commands to run next (the same tool, snake_case). Tools not listed run through the aitools tool: {command: \"git log\", args: {limit: 5}}. Read before editing; pass expect_hash from a read to guard writes; undo takes an op_id from a write.";

fn server_info() -> Value {
    json!({"name": "aitools", "title": "aitools", "version": crate::protocol::host::VERSION})
}

fn supported() -> Vec<&'static str> {
    MODERN_VERSIONS
        .iter()
        .chain(LEGACY_VERSIONS)
        .copied()
        .collect()
}

fn discover() -> Value {
    json!({
        "supportedVersions": supported(),
        "capabilities": {"tools": {}},
        "instructions": INSTRUCTIONS,
        "ttlMs": 3_600_000,
        "cacheScope": "public",
    })
}

fn unsupported(id: Value, requested: &str) -> Value {
    error(
        id,
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        Some(json!({"supported": supported(), "requested": requested})),
    )
}

/// A JSON-RPC error reply. It echoes what the client sent (a tool name, an
/// argument key, a version), so its strings pass the mask like every envelope's.
fn error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut e = json!({"code": code, "message": message});
    if let Some(d) = data {
        e["data"] = d;
    }
    mask_strings(&mut e);
    json!({"jsonrpc": "2.0", "id": id, "error": e})
}

/// Masks every string in `v` in place.
fn mask_strings(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Some(masked) = crate::protocol::redact::mask_str_quiet(s) {
                *s = masked;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_strings),
        Value::Object(map) => map.values_mut().for_each(mask_strings),
        _ => {}
    }
}

//! MCP's Streamable HTTP transport on `/mcp`, over the stdio server's own
//! message handler (`mcp::Server::handle`): a POSTed JSON-RPC message gets its
//! reply as JSON (or as one SSE stream when the client accepts only that), a
//! notification or response 202; GET 405 (the server sends nothing unasked);
//! DELETE ends a session. The legacy era's `initialize` opens a session (an
//! `Mcp-Session-Id`, each with its own server state); the 2026-07-28 era is
//! stateless and shares one server.

use super::http::{Request, Response};
use crate::mcp::{Server, ToolSet};
use crate::protocol::host::Host;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

const SESSION_HEADER: &str = "mcp-session-id";
/// Sessions kept at once; the oldest goes when a new one would pass this.
const MAX_SESSIONS: usize = 64;

/// The MCP side of the server: the stateless server and the legacy sessions.
pub struct Mcp {
    host: Host,
    root: PathBuf,
    stateless: Mutex<Server>,
    sessions: Mutex<HashMap<String, Arc<Mutex<Server>>>>,
    /// Session ids in creation order (the oldest is dropped first).
    order: Mutex<Vec<String>>,
    token: String,
    next: Mutex<u64>,
}

fn rpc_error(code: i64, message: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}})
        .to_string()
        .into_bytes()
}

impl Mcp {
    pub fn new(host: Host, root: PathBuf, token: &str) -> Mcp {
        let server = Server::new(host, Some(&root.to_string_lossy()), ToolSet::default());
        Mcp {
            host,
            root,
            stateless: Mutex::new(server),
            sessions: Mutex::new(HashMap::new()),
            order: Mutex::new(Vec::new()),
            token: token.to_string(),
            next: Mutex::new(0),
        }
    }

    fn new_session_id(&self) -> String {
        let mut n = self.next.lock().unwrap_or_else(|p| p.into_inner());
        *n += 1;
        let material = format!("mcp-session:{}:{}:{}", self.token, *n, std::process::id());
        crate::text::lines::sha256_hex(material.as_bytes())[..32].to_string()
    }

    fn session(&self, id: &str) -> Option<Arc<Mutex<Server>>> {
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    fn open(&self) -> (String, Arc<Mutex<Server>>) {
        let id = self.new_session_id();
        let server = Arc::new(Mutex::new(Server::new(
            self.host,
            Some(&self.root.to_string_lossy()),
            ToolSet::default(),
        )));
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let mut order = self.order.lock().unwrap_or_else(|p| p.into_inner());
        if order.len() >= MAX_SESSIONS {
            let old = order.remove(0);
            sessions.remove(&old);
        }
        order.push(id.clone());
        sessions.insert(id.clone(), server.clone());
        (id, server)
    }

    /// Answers one request on `/mcp`.
    pub fn answer(&self, req: &Request) -> Response {
        match req.method.as_str() {
            "POST" => self.post(req),
            "DELETE" => match req.header(SESSION_HEADER) {
                Some(id) if self.session(id).is_some() => {
                    self.sessions
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(id);
                    self.order
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .retain(|s| s != id);
                    Response::new(204, "text/plain", Vec::new())
                }
                Some(_) => Response::text(404, "no such MCP session"),
                None => Response::text(400, "DELETE needs an Mcp-Session-Id"),
            },
            _ => Response::text(
                405,
                "this server sends nothing unasked: POST JSON-RPC messages to /mcp",
            )
            .with("Allow", "POST, DELETE"),
        }
    }

    fn post(&self, req: &Request) -> Response {
        let ctype = req.header("content-type").unwrap_or("");
        if !ctype
            .split(';')
            .next()
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
        {
            return Response::text(415, "POST a JSON-RPC message as application/json");
        }
        let accepts_json = req.header_has("accept", "application/json")
            || req.header_has("accept", "*/*")
            || req.header("accept").is_none();
        let accepts_sse = req.header_has("accept", "text/event-stream");
        if !accepts_json && !accepts_sse {
            return Response::text(
                406,
                "Accept application/json or text/event-stream (or both)",
            );
        }
        let parsed: Option<Value> = serde_json::from_slice(&req.body).ok();
        let method = parsed
            .as_ref()
            .and_then(|v| v.get("method"))
            .and_then(Value::as_str);
        let mut opened = None;
        let server = match req.header(SESSION_HEADER) {
            Some(id) => match self.session(id) {
                Some(s) => s,
                None => {
                    return Response::new(
                        404,
                        "application/json",
                        rpc_error(-32001, "Session not found: initialize again."),
                    );
                }
            },
            None if method == Some("initialize") => {
                let (id, s) = self.open();
                opened = Some(id);
                s
            }
            None => {
                // The stateless era (and any message outside a session).
                let mut s = self.stateless.lock().unwrap_or_else(|p| p.into_inner());
                let replies = s.handle(&req.body);
                drop(s);
                return reply(replies, accepts_json, None);
            }
        };
        let replies = server
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .handle(&req.body);
        reply(replies, accepts_json, opened)
    }
}

/// The replies as the client asked for them: none → 202; else JSON (one
/// message) or an SSE stream that carries each message and ends.
fn reply(replies: Vec<Value>, accepts_json: bool, session: Option<String>) -> Response {
    let mut r = if replies.is_empty() {
        Response::new(202, "text/plain", Vec::new())
    } else if accepts_json && replies.len() == 1 {
        let body = serde_json::to_vec(&replies[0]).unwrap_or_default();
        Response::new(200, "application/json", body)
    } else {
        let mut body = String::new();
        for (i, m) in replies.iter().enumerate() {
            body.push_str(&format!("id: {i}\nevent: message\ndata: {m}\n\n"));
        }
        Response::new(200, "text/event-stream", body)
    };
    if let Some(id) = session {
        r = r.with("Mcp-Session-Id", id);
    }
    r
}

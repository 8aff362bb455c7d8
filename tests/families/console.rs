//! `aitools console` and `aitools mcp --http`: the built server on 127.0.0.1,
//! driven by raw HTTP requests, a WebSocket client (tungstenite, no browser) and
//! the MCP Python SDK's Streamable HTTP client: the start line, the token, Host
//! and Origin checks on HTTP and WebSocket, the OUI frames (register,
//! correlation, ignored events, an update after a CLI write, a 2 MB frame
//! refused, deregister on SIGTERM) and MCP over HTTP in both eras.

use crate::support::{Patient, TestEnv, check_contract};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use tungstenite::client::IntoClientRequest;
use tungstenite::{Message, WebSocket};

/// A running server: its child, port and token (killed when dropped).
pub(super) struct Server {
    pub child: Child,
    pub port: u16,
    pub token: String,
    pub line: Value,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `aitools <args>` (console or mcp --http) and reads its start line.
pub(super) fn start(env: &TestEnv, args: &[&str]) -> Server {
    let mut child = env
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the console");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the start line");
    let json: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    check_contract(&json);
    let url = json["mcp_url"].as_str().expect("mcp_url");
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port in mcp_url");
    let token = json["token"].as_str().expect("token").to_string();
    Server {
        child,
        port,
        token,
        line: json,
    }
}

/// One request on a fresh connection (`Connection: close`): status, head, body.
pub(super) fn http(port: u16, head: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req = head.trim_end().replace('\n', "\r\n");
    req.push_str(&format!(
        "\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    s.write_all(req.as_bytes()).unwrap();
    // A server that refuses the head may close before the body is all sent.
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&out[..split]).to_string();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, head, out[split + 4..].to_vec())
}

fn get(port: u16, target: &str, extra: &str) -> u16 {
    let mut head = format!("GET {target} HTTP/1.1\nHost: 127.0.0.1:{port}");
    if !extra.is_empty() {
        head.push('\n');
        head.push_str(extra);
    }
    http(port, &head, b"").0
}

fn ws_connect(
    port: u16,
    query_token: Option<&str>,
    headers: &[(&'static str, &str)],
) -> Result<WebSocket<Patient>, tungstenite::Error> {
    let url = match query_token {
        Some(t) => format!("ws://127.0.0.1:{port}/oui/v1?token={t}"),
        None => format!("ws://127.0.0.1:{port}/oui/v1"),
    };
    let mut req = url.into_client_request()?;
    for (k, v) in headers {
        req.headers_mut().insert(*k, v.parse().unwrap());
    }
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    tungstenite::client(req, Patient(stream))
        .map(|(ws, _)| ws)
        .map_err(|e| match e {
            tungstenite::HandshakeError::Failure(e) => e,
            tungstenite::HandshakeError::Interrupted(_) => {
                tungstenite::Error::Io(std::io::ErrorKind::WouldBlock.into())
            }
        })
}

fn refused_status(e: tungstenite::Error) -> u16 {
    match e {
        tungstenite::Error::Http(r) => r.status().as_u16(),
        other => panic!("not an HTTP refusal: {other:?}"),
    }
}

#[test]
fn the_console_starts_with_one_line_and_refuses_what_lacks_the_token_host_or_origin() {
    let env = TestEnv::new();
    let mut s = start(&env, &["console", "--port", "0"]);
    let port = s.port;
    let token = s.token.clone();
    assert_eq!(s.line["command"], "console");
    assert_eq!(s.line["pid"], json!(s.child.id()));
    assert_eq!(token.len(), 32, "{}", s.line);
    assert_eq!(
        s.line["url"],
        json!(format!("http://127.0.0.1:{port}/?token={token}"))
    );
    assert_eq!(
        s.line["oui_url"],
        json!(format!("ws://127.0.0.1:{port}/oui/v1"))
    );
    // The page: with the token; not without it, nor through a foreign name.
    let (status, head, body) = http(
        port,
        &format!("GET /?token={token} HTTP/1.1\nHost: 127.0.0.1:{port}"),
        b"",
    );
    assert_eq!(status, 200, "{head}");
    let page = String::from_utf8(body).unwrap();
    assert!(page.contains("<title>aitools console</title>"));
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "no CDN"
    );
    assert!(head.contains("Content-Security-Policy"));
    assert_eq!(get(port, "/", ""), 401);
    assert_eq!(get(port, "/?token=0123", ""), 401);
    assert_eq!(
        get(port, "/", &format!("Authorization: Bearer {token}")),
        200
    );
    let rebound = format!("GET /?token={token} HTTP/1.1\nHost: evil.example:{port}");
    assert_eq!(http(port, &rebound, b"").0, 421, "DNS rebinding");
    let other_port = format!("GET /?token={token} HTTP/1.1\nHost: 127.0.0.1:1");
    assert_eq!(http(port, &other_port, b"").0, 421);
    assert_eq!(
        get(
            port,
            &format!("/?token={token}"),
            "Origin: http://evil.example"
        ),
        403
    );
    assert_eq!(
        get(
            port,
            &format!("/?token={token}"),
            &format!("Origin: http://localhost:{port}")
        ),
        200
    );
    // The WebSocket: the same three checks before any upgrade.
    assert_eq!(
        refused_status(ws_connect(port, None, &[]).unwrap_err()),
        401
    );
    let foreign = [("Origin", "http://evil.example")];
    assert_eq!(
        refused_status(ws_connect(port, Some(&token), &foreign).unwrap_err()),
        403
    );
    let rebound = [("Host", "evil.example")];
    assert_eq!(
        refused_status(ws_connect(port, Some(&token), &rebound).unwrap_err()),
        421
    );
    // Bounded heads: a 20 KiB header is refused, and the server lives on.
    let big = format!(
        "GET /?token={token} HTTP/1.1\nHost: 127.0.0.1:{port}\nX-Big: {}",
        "a".repeat(20_000)
    );
    assert_eq!(http(port, &big, b"").0, 431);
    assert_eq!(get(port, &format!("/?token={token}"), ""), 200);
    // SIGTERM: exit 0.
    unsafe { libc_kill(s.child.id() as i32, 15) };
    let status = wait_exit(&mut s.child, Duration::from_secs(5));
    assert_eq!(status, Some(0));
}

unsafe extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

pub(super) fn wait_exit(child: &mut Child, within: Duration) -> Option<i32> {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if let Ok(Some(st)) = child.try_wait() {
            return st.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[test]
fn a_second_console_and_a_taken_port() {
    let env = TestEnv::new();
    let a = start(&env, &["console"]);
    let b = start(&env, &["console", "--port", "0"]);
    assert_ne!(
        a.port, b.port,
        "a second console on the same workspace works"
    );
    let taken = env.run(&["console", "--port", &a.port.to_string()]);
    assert_eq!(taken.error_code(), "environment.io", "{}", taken.stderr);
    assert!(
        taken.json["error"]["repairs"][0]["command"]
            .as_str()
            .unwrap()
            .contains("--port 0")
    );
}

/// POSTs one JSON-RPC message to /mcp.
pub(super) fn mcp_post(s: &Server, msg: &Value, extra: &str) -> (u16, String, Vec<u8>) {
    let mut head = format!(
        "POST /mcp HTTP/1.1\nHost: 127.0.0.1:{}\nAuthorization: Bearer {}\nContent-Type: application/json\nAccept: application/json, text/event-stream",
        s.port, s.token
    );
    if !extra.is_empty() {
        head.push('\n');
        head.push_str(extra);
    }
    http(s.port, &head, msg.to_string().as_bytes())
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[test]
fn mcp_over_http_speaks_both_eras_with_sessions_and_the_same_checks() {
    let env = TestEnv::new();
    env.write("notes.txt", "alpha\n");
    let s = start(&env, &["mcp", "--http", "--port", "0"]);
    assert_eq!(s.line["command"], "mcp");
    assert!(s.line.get("url").is_none(), "mcp --http serves no page");
    // The legacy era: initialize opens a session.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (status, head, body) = mcp_post(&s, &init, "");
    assert_eq!(status, 200, "{head}");
    let sid = header(&head, "Mcp-Session-Id")
        .expect("a session id")
        .to_string();
    let reply: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(reply["result"]["protocolVersion"], "2025-06-18");
    let session = format!("Mcp-Session-Id: {sid}\nMCP-Protocol-Version: 2025-06-18");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(mcp_post(&s, &note, &session).0, 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "read", "arguments": {"path": "notes.txt"}}});
    let (status, _, body) = mcp_post(&s, &call, &session);
    assert_eq!(status, 200);
    let reply: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        reply["result"]["structuredContent"]["lines"],
        json!(["alpha"])
    );
    // Only SSE accepted: the reply comes as one event.
    let sse_only = format!("{session}\nAccept: text/event-stream");
    let mut head_sse = format!(
        "POST /mcp HTTP/1.1\nHost: 127.0.0.1:{}\nAuthorization: Bearer {}\nContent-Type: application/json\n{sse_only}",
        s.port, s.token
    );
    head_sse = head_sse.replace("Accept: application/json, text/event-stream\n", "");
    let (status, head, body) = http(s.port, &head_sse, call.to_string().as_bytes());
    assert_eq!(status, 200);
    assert!(
        header(&head, "Content-Type")
            .unwrap()
            .starts_with("text/event-stream")
    );
    let text = String::from_utf8(body).unwrap();
    let data = text.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
    assert_eq!(serde_json::from_str::<Value>(data).unwrap()["id"], 2);
    // An unknown session: 404. GET: 405. DELETE ends the session.
    assert_eq!(mcp_post(&s, &call, "Mcp-Session-Id: nope").0, 404);
    let get405 = format!(
        "GET /mcp HTTP/1.1\nHost: 127.0.0.1:{}\nAuthorization: Bearer {}\nAccept: text/event-stream",
        s.port, s.token
    );
    assert_eq!(http(s.port, &get405, b"").0, 405);
    let del = format!(
        "DELETE /mcp HTTP/1.1\nHost: 127.0.0.1:{}\nAuthorization: Bearer {}\nMcp-Session-Id: {sid}",
        s.port, s.token
    );
    assert_eq!(http(s.port, &del, b"").0, 204);
    assert_eq!(mcp_post(&s, &call, &session).0, 404);
    // The modern era: stateless, no session.
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let (status, head, body) = mcp_post(&s, &list, "");
    assert_eq!(status, 200, "{head}");
    assert!(header(&head, "Mcp-Session-Id").is_none());
    let reply: Value = serde_json::from_slice(&body).unwrap();
    assert!(reply["result"]["tools"].as_array().unwrap().len() > 3);
    // The same checks as the console's: no token, a foreign Origin, a body over 1 MiB.
    let no_token = format!(
        "POST /mcp HTTP/1.1\nHost: 127.0.0.1:{}\nContent-Type: application/json",
        s.port
    );
    assert_eq!(http(s.port, &no_token, list.to_string().as_bytes()).0, 401);
    assert_eq!(mcp_post(&s, &list, "Origin: http://evil.example").0, 403);
    let huge = json!({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"pad": "x".repeat(1_100_000)}});
    assert_eq!(mcp_post(&s, &huge, "").0, 413);
}

/// The Python SDK's Streamable HTTP client (AITOOLS_MCP_SDK_PYTHON) lists,
/// reads, edits and undoes through `aitools mcp --http` in both eras.
#[test]
fn the_python_sdk_drives_mcp_over_http() {
    let Some(python) = std::env::var_os("AITOOLS_MCP_SDK_PYTHON") else {
        eprintln!("skipped: AITOOLS_MCP_SDK_PYTHON is not set (.ci/run installs the SDK)");
        return;
    };
    let env = TestEnv::new();
    let s = start(&env, &["mcp", "--http"]);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_sdk/http_check.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(s.line["mcp_url"].as_str().unwrap())
        .arg(&s.token)
        .arg(env.root())
        .output()
        .expect("run the python client");
    assert!(
        out.status.success(),
        "python sdk http client failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The next protocol event (text frames only), or None when `within` passes.
fn next_event(ws: &mut WebSocket<Patient>, within: Duration) -> Option<Value> {
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        ws.get_ref()
            .0
            .set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .unwrap();
        match ws.read() {
            Ok(Message::Text(t)) => return Some(serde_json::from_str(t.as_str()).expect("JSON")),
            Ok(_) => continue,
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return None;
            }
            Err(e) => panic!("the socket ended: {e}"),
        }
    }
}

/// Reads events until one satisfies `want` (panics after `within`).
pub(super) fn wait_for(
    ws: &mut WebSocket<Patient>,
    within: Duration,
    want: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + within;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match next_event(ws, left) {
            Some(ev) if want(&ev) => return ev,
            Some(_) => continue,
            None => break,
        }
    }
    panic!("no such event within {within:?}");
}

pub(super) fn send(ws: &mut WebSocket<Patient>, v: Value) {
    ws.send(Message::text(v.to_string())).unwrap();
}

fn request(
    ws: &mut WebSocket<Patient>,
    id: &str,
    surface: &str,
    action: &str,
    params: Value,
) -> Value {
    send(
        ws,
        json!({"type": "action:request", "payload": {"requestId": id, "surfaceId": surface,
            "actionId": action, "params": params, "timestamp": 1}}),
    );
    let r = wait_for(ws, Duration::from_secs(35), |e| {
        e["type"] == "action:result" && e["payload"]["requestId"] == id
    });
    r["payload"].clone()
}

/// How many surfaces `oui manifest` declares: the socket registers each one.
pub(super) fn surface_count(env: &TestEnv) -> usize {
    let manifest = env.run(&["oui", "manifest"]);
    manifest.json["surfaces"].as_array().map_or(0, |a| a.len())
}

pub(super) fn socket(s: &Server) -> WebSocket<Patient> {
    let origin = format!("http://127.0.0.1:{}", s.port);
    ws_connect(s.port, Some(&s.token), &[("Origin", origin.as_str())]).expect("the socket")
}

#[test]
fn the_oui_socket_registers_correlates_ignores_junk_and_pushes_a_cli_write() {
    let env = TestEnv::new();
    let s = start(&env, &["console"]);
    let mut ws = socket(&s);
    let surfaces = surface_count(&env);
    let mut registered = Vec::new();
    while registered.len() < surfaces {
        let ev = wait_for(&mut ws, Duration::from_secs(10), |e| {
            e["type"] == "surface:register"
        });
        let m = &ev["payload"]["surface"];
        assert!(
            m["actions"].as_array().is_some_and(|a| !a.is_empty()),
            "{m}"
        );
        registered.push(m["id"].as_str().unwrap().to_string());
    }
    for want in [
        "journal",
        "transactions",
        "recovery",
        "feedback",
        "programs",
    ] {
        assert!(
            registered.iter().any(|r| r == want),
            "{want}: {registered:?}"
        );
    }
    // Malformed, unknown and x- events, and a binary frame: ignored, socket open.
    ws.send(Message::text("not json {")).unwrap();
    send(&mut ws, json!({"type": "x-vendor:thing", "payload": {}}));
    send(
        &mut ws,
        json!({"type": "no:such", "payload": {"requestId": "zz"}}),
    );
    send(&mut ws, json!({"payload": {}}));
    ws.send(Message::binary(vec![1u8, 2, 3])).unwrap();
    // Correlation: each request gets exactly its own result.
    let ok = request(&mut ws, "r-1", "journal", "history", json!({}));
    assert_eq!(ok["success"], true, "{ok}");
    assert_eq!(ok["data"]["command"], "history");
    let missing = request(&mut ws, "r-2", "journal", "no_such_action", json!({}));
    assert_eq!(missing["error"]["code"], "ACTION_NOT_FOUND", "{missing}");
    let invalid = request(&mut ws, "r-3", "journal", "undo", json!({"op_id": 5}));
    assert_eq!(invalid["error"]["code"], "VALIDATION_ERROR", "{invalid}");
    // A CLI write is pushed as a journal update, without asking.
    let started = Instant::now();
    let op = env
        .run(&["write", "pushed.txt", "--content", "x\n"])
        .op_id();
    let ev = wait_for(&mut ws, Duration::from_millis(1500), |e| {
        e["type"] == "observation:update"
            && e["payload"]["observationId"] == "journal_head"
            && e["payload"]["value"]["items"][0]["op_id"] == json!(op)
    });
    eprintln!("write-to-socket latency: {:?}", started.elapsed());
    assert_eq!(ev["payload"]["surfaceId"], "journal");
    // Undo through the socket: the file is gone again.
    let undo = request(&mut ws, "r-4", "journal", "undo", json!({"op_id": op}));
    assert_eq!(undo["success"], true, "{undo}");
    assert!(!env.path("pushed.txt").exists());
}

#[test]
fn a_2mb_frame_closes_its_socket_and_sigterm_deregisters() {
    let env = TestEnv::new();
    let mut s = start(&env, &["console"]);
    let mut big = socket(&s);
    wait_for(&mut big, Duration::from_secs(10), |e| {
        e["type"] == "surface:register"
    });
    let _ = big.send(Message::text("x".repeat(2 * 1024 * 1024)));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut closed = None;
    while Instant::now() < deadline {
        match big.read() {
            Ok(Message::Close(frame)) => {
                closed = Some(frame.map(|f| u16::from(f.code)));
                break;
            }
            Ok(_) => continue,
            Err(_) => {
                closed = Some(None);
                break;
            }
        }
    }
    assert!(closed.is_some(), "the 2 MB frame was taken");
    if let Some(Some(code)) = closed {
        assert_eq!(code, 1009);
    }
    // The server lives on: a new socket registers, and SIGTERM deregisters it.
    let mut ws = socket(&s);
    let surfaces = surface_count(&env);
    let mut ids = Vec::new();
    while ids.len() < surfaces {
        let ev = wait_for(&mut ws, Duration::from_secs(10), |e| {
            e["type"] == "surface:register"
        });
        ids.push(ev["payload"]["surface"]["id"].as_str().unwrap().to_string());
    }
    unsafe { libc_kill(s.child.id() as i32, 15) };
    let mut gone = Vec::new();
    while gone.len() < ids.len() {
        let ev = wait_for(&mut ws, Duration::from_secs(5), |e| {
            e["type"] == "surface:deregister"
        });
        gone.push(ev["payload"]["surfaceId"].as_str().unwrap().to_string());
    }
    gone.sort();
    ids.sort();
    assert_eq!(gone, ids);
    assert_eq!(wait_exit(&mut s.child, Duration::from_secs(5)), Some(0));
}

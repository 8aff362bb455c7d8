//! `aitools oui connect URL [--token T]`: the WebSocket binding as seed 002
//! §8.2 writes it — the surface dials the agent runtime at
//! `ws://host:port/oui/v1` and speaks the protocol core (`Session`) over it:
//! reconnection with exponential backoff (1 s, ×2, at most 30 s) and
//! re-registration once a first connection was made (the first has
//! `--connect-timeout`, then answers `environment.unavailable`), ping every 30 s (no pong within 10 s: the connection is
//! dead), text frames only, and `surface:deregister` then a close on SIGINT or
//! SIGTERM, after which the command answers its envelope. No TLS is built in
//! (`wss://` is refused): the runtime is expected on the loopback or behind a
//! tunnel.

use super::session::{MAX_FRAME, Session};
use crate::aoi::signals;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, Repair, code, shell, values};
use crate::workspace::Ctx;
use crate::workspace::steady::Steady;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};

#[derive(clap::Args, Debug)]
pub struct ConnectArgs {
    /// The agent runtime's OUI endpoint, ws://HOST:PORT/oui/v1
    pub url: String,
    /// Sent as `Authorization: Bearer` and as the `token` query parameter
    #[arg(long)]
    pub token: Option<String>,
    /// How long the first connection is tried (with backoff) before the call
    /// answers environment.unavailable; reconnections after it retry for good
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = values::parse_duration)]
    pub connect_timeout: Duration,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "oui connect",
    summary: "Serve the OUI surfaces to an agent runtime's WebSocket.",
    description: "The seed 002 §8.2 binding: dials URL (ws://, no TLS), registers every surface (aitools oui manifest) with its observations' values, answers action:request by running the aitools command, pushes observation:update when the journal, a tx, recovery, feedback or a bg job changes. The first connection is tried for --connect-timeout (default 5s, backoff from 1 s), then the call answers environment.unavailable; once connected it reconnects with backoff 1 s to 30 s for good and registers again; pings every 30 s. Runs until SIGINT or SIGTERM, then deregisters, closes and answers.",
    args: <ConnectArgs as clap::Args>::augment_args,
    output_fields: &[
        field("url", "The runtime dialled (without its query)."),
        field("connections", "How many times a connection was made."),
        field("stopped", "Why it ended: the signal's name."),
    ],
    error_codes: &[code::ARGUMENT_INVALID, code::UNAVAILABLE],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::SIDE,
    run: handler!(ConnectArgs, run),
};

const BACKOFF_START: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(30);
const PING_EVERY: Duration = Duration::from_secs(30);
const PONG_WITHIN: Duration = Duration::from_secs(10);
/// How long a read waits before the loop polls the observations again.
const TICK: Duration = Duration::from_millis(100);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Serialize)]
struct Connected {
    url: String,
    connections: u64,
    stopped: String,
}

/// How one connection ended.
enum Ended {
    Signal(i32),
    Lost,
}

fn bad_url(url: &str, why: &str) -> CmdError {
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!("{url:?} is no OUI endpoint aitools can dial: {why}."),
        Repair::new(
            "url",
            "Give the runtime's plain WebSocket URL.",
            "aitools oui connect ws://127.0.0.1:8080/oui/v1",
        ),
    )
}

/// `host:port` of a `ws://` URL.
fn authority(url: &str) -> Result<String, CmdError> {
    if url.starts_with("wss://") {
        return Err(bad_url(
            url,
            "wss:// needs TLS, which aitools does not carry; tunnel it to a local ws:// port",
        ));
    }
    let rest = url
        .strip_prefix("ws://")
        .ok_or_else(|| bad_url(url, "it does not start with ws://"))?;
    let auth = rest.split(['/', '?', '#']).next().unwrap_or("");
    if auth.is_empty() || auth.contains('@') {
        return Err(bad_url(url, "it names no host (or carries credentials)"));
    }
    Ok(
        if auth
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        {
            auth.to_string()
        } else {
            format!("{auth}:80")
        },
    )
}

fn with_token(url: &str, token: Option<&str>) -> String {
    match token {
        None => url.to_string(),
        Some(t) => {
            let enc: String = t
                .bytes()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect();
            let sep = if url.contains('?') { '&' } else { '?' };
            format!("{url}{sep}token={enc}")
        }
    }
}

fn run(ctx: &Ctx, a: &ConnectArgs) -> Result<Output, CmdError> {
    let auth = authority(&a.url)?;
    let host = super::host_of(ctx)?;
    signals::install();
    let mut meta = Map::new();
    meta.insert(
        "binding".into(),
        json!("websocket: the surface dials the runtime (seed 002 §8.2)"),
    );
    let mut session = Session::new(host, &ctx.root, meta);
    let mut connections = 0u64;
    let mut delay = BACKOFF_START;
    let shown = a.url.split('?').next().unwrap_or("").to_string();
    // The first connection's budget; none once a connection was made.
    let first = Instant::now() + a.connect_timeout;
    let mut tries = 0u64;
    let sig = loop {
        if let Some(s) = signals::caught() {
            break s;
        }
        let within = match connections {
            0 => first.saturating_duration_since(Instant::now()),
            _ => CONNECT_TIMEOUT,
        };
        tries += 1;
        match dial(&a.url, &auth, a.token.as_deref(), within) {
            Ok(mut ws) => {
                connections += 1;
                delay = BACKOFF_START;
                match serve(&mut ws, &mut session) {
                    Ended::Signal(s) => break s,
                    Ended::Lost => continue,
                }
            }
            Err(why) if connections == 0 && Instant::now() >= first => {
                return Err(unreachable(a, &shown, &why, tries));
            }
            Err(_) => {}
        }
        // Waits out the backoff in ticks, so a signal ends it at once (the
        // first connection's wait ends at its budget: one last try then).
        let mut until = Instant::now() + delay;
        if connections == 0 {
            until = until.min(first);
        }
        while Instant::now() < until && signals::caught().is_none() {
            std::thread::sleep(TICK.min(until.saturating_duration_since(Instant::now())));
        }
        delay = (delay * 2).min(BACKOFF_MAX);
    };
    let stopped = if sig == libc::SIGINT {
        "SIGINT"
    } else {
        "SIGTERM"
    };
    Ok(Output::ok(&Connected {
        url: shown,
        connections,
        stopped: stopped.to_string(),
    }))
}

/// The first connection was not made within `--connect-timeout`.
fn unreachable(a: &ConnectArgs, shown: &str, why: &str, tries: u64) -> CmdError {
    let mut again = vec!["oui", "connect", shown];
    if a.token.is_some() {
        again.extend(["--token", "TOKEN"]);
    }
    again.extend(["--connect-timeout", "60s"]);
    let budget = a.connect_timeout.as_millis();
    CmdError::new(
        code::UNAVAILABLE,
        format!(
            "No OUI runtime answered at {shown} within --connect-timeout ({budget} ms, {tries} tries): {why}."
        ),
        Repair::new(
            "start_runtime",
            "Start the agent runtime's OUI endpoint (or fix the URL), then connect again; a longer --connect-timeout waits for a runtime that is starting.",
            shell::aitools(again),
        ),
    )
    .with_repair(Repair::new(
        "serve_instead",
        "Or let the runtime dial the surfaces: aitools console serves them at its oui_url.",
        shell::aitools(["console"]),
    ))
}

/// One attempt at a connection and its handshake, each step within `within`
/// (at least 50 ms): the connection, or why there is none.
fn dial(
    url: &str,
    auth: &str,
    token: Option<&str>,
    within: Duration,
) -> Result<WebSocket<Steady<TcpStream>>, String> {
    use tungstenite::client::IntoClientRequest;
    let within = within.clamp(Duration::from_millis(50), CONNECT_TIMEOUT);
    let addr = auth
        .to_socket_addrs()
        .map_err(|e| format!("{auth} does not resolve ({e})"))?
        .next()
        .ok_or_else(|| format!("{auth} resolves to no address"))?;
    let stream = TcpStream::connect_timeout(&addr, within).map_err(|e| e.to_string())?;
    let io = |e: std::io::Error| e.to_string();
    stream.set_read_timeout(Some(within)).map_err(io)?;
    stream.set_write_timeout(Some(within)).map_err(io)?;
    let _ = stream.set_nodelay(true);
    let mut req = with_token(url, token)
        .into_client_request()
        .map_err(|e| e.to_string())?;
    if let Some(t) = token {
        let v = format!("Bearer {t}")
            .parse()
            .map_err(|_| "the token cannot be sent in a header".to_string())?;
        req.headers_mut().insert("Authorization", v);
    }
    // Frames up to 16 MiB are read (memory stays bounded); the session refuses
    // those over 1 MB without closing the connection.
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_FRAME * 16))
        .max_frame_size(Some(MAX_FRAME * 16));
    let (ws, _) = tungstenite::client::client_with_config(req, Steady(stream), Some(config))
        .map_err(|e| format!("the WebSocket handshake failed ({e})"))?;
    ws.get_ref().set_read_timeout(Some(TICK)).map_err(io)?;
    Ok(ws)
}

fn send_all(ws: &mut WebSocket<Steady<TcpStream>>, frames: Vec<Value>) -> bool {
    for f in frames {
        if ws.send(Message::text(f.to_string())).is_err() {
            return false;
        }
    }
    true
}

/// One connection: register, then answer frames and push changes until the
/// connection is lost or a signal comes.
fn serve(ws: &mut WebSocket<Steady<TcpStream>>, session: &mut Session) -> Ended {
    if !send_all(ws, session.on_connect()) {
        return Ended::Lost;
    }
    let mut last_ping = Instant::now();
    let mut waiting_pong: Option<Instant> = None;
    loop {
        if let Some(s) = signals::caught() {
            let _ = send_all(ws, session.on_shutdown());
            let _ = ws.close(None);
            // Lets the close handshake finish (bounded by the read timeout ticks).
            for _ in 0..10 {
                if ws.read().is_err() {
                    break;
                }
            }
            return Ended::Signal(s);
        }
        match ws.read() {
            Ok(Message::Text(t)) => {
                if !send_all(ws, session.handle(t.as_bytes())) {
                    return Ended::Lost;
                }
            }
            Ok(Message::Pong(_)) => waiting_pong = None,
            Ok(Message::Close(_)) => return Ended::Lost,
            // Pings are answered by tungstenite on the next write or flush;
            // binary frames are no protocol events (§8.2.2).
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        // A signal cuts a read short (SO_RCVTIMEO sockets never restart).
                        | std::io::ErrorKind::Interrupted
                ) => {}
            // An oversized message: refused, the connection kept.
            Err(tungstenite::Error::Capacity(_)) => {}
            Err(_) => return Ended::Lost,
        }
        if waiting_pong.is_some_and(|t| t.elapsed() > PONG_WITHIN) {
            return Ended::Lost;
        }
        if last_ping.elapsed() >= PING_EVERY {
            last_ping = Instant::now();
            if ws.send(Message::Ping(Vec::new().into())).is_err() {
                return Ended::Lost;
            }
            waiting_pong.get_or_insert(Instant::now());
        }
        if ws.flush().is_err() || !send_all(ws, session.poll()) {
            return Ended::Lost;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_read_or_refused() {
        assert_eq!(authority("ws://127.0.0.1:9/oui/v1").unwrap(), "127.0.0.1:9");
        assert_eq!(authority("ws://localhost/oui/v1").unwrap(), "localhost:80");
        assert!(authority("wss://x:1/oui/v1").is_err());
        assert!(authority("http://x:1/").is_err());
        assert!(authority("ws://u:p@x:1/").is_err());
        assert_eq!(
            with_token("ws://h:1/oui/v1", Some("a b&c")),
            "ws://h:1/oui/v1?token=a%20b%26c"
        );
    }
}

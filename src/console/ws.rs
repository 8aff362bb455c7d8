//! The OUI WebSocket binding (`/oui/v1`): the upgrade (answered here, after the
//! guard has seen the request), then frames in both directions between the page
//! (the runtime) and a protocol session (`Surface`, the surfaces' side: one
//! implementation, `crate::oui`). Text frames of at most 1 MiB; a bigger one
//! closes the socket with 1009. Between frames the session is polled for
//! observation changes (every `TICK`), and on shutdown it deregisters.

use super::http::{Request, Response};
use crate::workspace::steady::Steady;
use serde_json::Value;
use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tungstenite::{Error, Message, WebSocket};

/// The largest frame or message taken (the OUI binding's 1 MB).
pub const MAX_FRAME: usize = 1024 * 1024;
/// How often an idle socket checks for observation changes.
pub const TICK: Duration = Duration::from_millis(200);

/// The surfaces' side of one connection (`oui::Session`).
pub trait Surface {
    /// `surface:register` frames (manifests and current values).
    fn on_connect(&mut self) -> Vec<Value>;
    /// The frames one incoming text frame answers.
    fn handle(&mut self, frame: &[u8]) -> Vec<Value>;
    /// `observation:update` frames for what changed since the last poll.
    fn poll(&mut self) -> Vec<Value>;
    /// `surface:deregister` frames.
    fn on_shutdown(&mut self) -> Vec<Value>;
}

/// Answers the upgrade request: the socket, or the response that refuses it.
pub fn upgrade(
    mut stream: TcpStream,
    req: &Request,
) -> Result<WebSocket<Steady<TcpStream>>, (TcpStream, Response)> {
    let key = req.header("sec-websocket-key").map(str::trim);
    let ok = req.method == "GET"
        && req.header_has("upgrade", "websocket")
        && req.header_has("connection", "upgrade")
        && req.header("sec-websocket-version").map(str::trim) == Some("13");
    let Some(key) = key.filter(|_| ok) else {
        let r = Response::text(426, "this path is a WebSocket (version 13)")
            .with("Upgrade", "websocket");
        return Err((stream, r));
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let head = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
    );
    if stream
        .write_all(head.as_bytes())
        .and_then(|_| stream.flush())
        .is_err()
    {
        return Err((stream, Response::text(400, "the client went away")));
    }
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_FRAME))
        .max_frame_size(Some(MAX_FRAME));
    Ok(WebSocket::from_raw_socket(
        Steady(stream),
        Role::Server,
        Some(config),
    ))
}

fn send(ws: &mut WebSocket<Steady<TcpStream>>, frames: Vec<Value>) -> Result<(), Error> {
    for f in frames {
        ws.write(Message::text(f.to_string()))?;
    }
    ws.flush()
}

/// Serves one socket until the peer closes, an error, or `stopping`.
pub fn serve(
    mut ws: WebSocket<Steady<TcpStream>>,
    surface: &mut dyn Surface,
    stopping: &AtomicBool,
) {
    let _ = ws.get_ref().set_read_timeout(Some(TICK));
    let _ = ws
        .get_ref()
        .set_write_timeout(Some(Duration::from_secs(10)));
    if send(&mut ws, surface.on_connect()).is_err() {
        return;
    }
    loop {
        if stopping.load(Ordering::SeqCst) {
            let _ = send(&mut ws, surface.on_shutdown());
            let _ = ws.close(Some(CloseFrame {
                code: CloseCode::Away,
                reason: "the console is stopping".into(),
            }));
            let _ = ws.flush();
            return;
        }
        let replies = match ws.read() {
            Ok(Message::Text(t)) => {
                let mut r = surface.handle(t.as_bytes());
                r.extend(surface.poll());
                r
            }
            // Binary frames are not protocol events (§8.2.2); pings are answered
            // by the flush below.
            Ok(_) => Vec::new(),
            Err(Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        // A timed read is not restarted after a signal (signal(7)).
                        | std::io::ErrorKind::Interrupted
                ) =>
            {
                surface.poll()
            }
            Err(Error::Capacity(_)) => {
                let _ = ws.close(Some(CloseFrame {
                    code: CloseCode::Size,
                    reason: "frames are at most 1 MiB".into(),
                }));
                let _ = ws.flush();
                return;
            }
            Err(_) => return,
        };
        if send(&mut ws, replies).is_err() {
            return;
        }
    }
}

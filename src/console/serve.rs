//! The accept loop and one connection's life: a thread per connection under
//! `MAX_CONNECTIONS`, bounded reads (`http`), the guard on every request, then
//! the route: `/` the page, `/oui/v1` the WebSocket, `/mcp` MCP. A stop signal
//! ends the loop; open sockets deregister their surfaces before it returns.

use super::http::{Conn, ReadError, Response};
use super::mcp_http::Mcp;
use super::{Mode, guard, signals, ws};
use crate::protocol::host::Host;
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Connections served at once; more are answered 503 and closed.
const MAX_CONNECTIONS: usize = 32;
/// How long a connection may sit between bytes of a request (or idle between
/// keep-alive requests) before it is dropped.
const READ_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a stop waits for open sockets to deregister.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// The page, compiled in (no CDN, no build step).
const PAGE: &str = include_str!("../../data/console.html");

/// A bound console, ready to serve.
pub struct Console {
    pub(super) host: Host,
    pub(super) root: PathBuf,
    listener: TcpListener,
    pub(super) port: u16,
    pub(super) token: String,
    pub(super) mode: Mode,
}

/// What every connection thread shares.
struct Shared {
    host: Host,
    root: PathBuf,
    port: u16,
    token: String,
    mode: Mode,
    mcp: Mcp,
    stopping: AtomicBool,
    active: AtomicUsize,
}

/// Counts a connection while its thread lives.
struct Slot(Arc<Shared>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Console {
    pub(super) fn new(
        host: Host,
        root: PathBuf,
        listener: TcpListener,
        port: u16,
        token: String,
        mode: Mode,
    ) -> Console {
        Console {
            host,
            root,
            listener,
            port,
            token,
            mode,
        }
    }

    /// Serves until SIGINT or SIGTERM; returns once open sockets have
    /// deregistered (or `STOP_GRACE` passed).
    pub fn serve(self) {
        signals::install();
        let shared = Arc::new(Shared {
            mcp: Mcp::new(self.host, self.root.clone(), &self.token),
            host: self.host,
            root: self.root,
            port: self.port,
            token: self.token,
            mode: self.mode,
            stopping: AtomicBool::new(false),
            active: AtomicUsize::new(0),
        });
        let fd = self.listener.as_raw_fd();
        while !signals::caught() {
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd; a signal ends the wait early (EINTR).
            let n = unsafe { libc::poll(&mut pfd, 1, 250) };
            if n <= 0 {
                continue;
            }
            let Ok((stream, _)) = self.listener.accept() else {
                continue;
            };
            if shared.active.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
                let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                let mut s = stream;
                let _ = Response::text(503, "too many connections; try again").write(&mut s, true);
                continue;
            }
            shared.active.fetch_add(1, Ordering::SeqCst);
            let slot = Slot(shared.clone());
            let spawned = std::thread::Builder::new()
                .name("console-conn".into())
                .spawn(move || connection(&slot.0, stream));
            if spawned.is_err() {
                // The slot went with the closure and was released.
                continue;
            }
        }
        shared.stopping.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + STOP_GRACE;
        while shared.active.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Answers `status` and closes. What the client is still sending (a body over
/// the cap) is read and dropped for a moment first, so the close is not a reset
/// that would lose the answer.
fn refuse(conn: &mut Conn, status: u16, why: &str) {
    let _ = Response::text(status, why).write(&mut conn.stream, true);
    let _ = conn.stream.shutdown(std::net::Shutdown::Write);
    let _ = conn
        .stream
        .set_read_timeout(Some(Duration::from_millis(500)));
    let mut sink = [0u8; 16384];
    let mut left = 4 * super::http::MAX_BODY;
    while left > 0 {
        match std::io::Read::read(&mut conn.stream, &mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

/// One connection: requests until it closes, or its upgrade to a WebSocket.
fn connection(shared: &Shared, stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_nodelay(true);
    let mut conn = Conn::new(stream);
    loop {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let req = match conn.read_request() {
            Ok(r) => r,
            Err(ReadError::Closed) => return,
            Err(ReadError::Bad(status, why)) => return refuse(&mut conn, status, why),
        };
        if let Err(r) = guard::check(&req, &shared.token, shared.port) {
            return refuse(&mut conn, r.status, r.reason);
        }
        let console = shared.mode == Mode::Console;
        let response = match req.path.as_str() {
            "/mcp" => shared.mcp.answer(&req),
            "/" | "/index.html" if console && matches!(req.method.as_str(), "GET" | "HEAD") => {
                page(shared.port)
            }
            "/oui/v1" if console => {
                return socket(shared, conn, &req);
            }
            _ => Response::text(404, "no such path: /, /oui/v1 and /mcp are served"),
        };
        let close = !req.keep_alive();
        let response = if req.method == "HEAD" {
            Response {
                body: Vec::new(),
                ..response
            }
        } else {
            response
        };
        if response.write(&mut conn.stream, close).is_err() || close {
            return;
        }
    }
}

fn page(port: u16) -> Response {
    let csp = format!(
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src ws://127.0.0.1:{port} ws://localhost:{port}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    );
    Response::new(200, "text/html; charset=utf-8", PAGE)
        .with("Content-Security-Policy", csp)
        .with("Referrer-Policy", "no-referrer")
        .with("X-Frame-Options", "DENY")
}

/// `/oui/v1`: upgrade, then the protocol session until the socket ends.
fn socket(shared: &Shared, conn: Conn, req: &super::http::Request) {
    let mut surface = new_surface(shared);
    match ws::upgrade(conn.stream, req) {
        Ok(socket) => ws::serve(socket, surface.as_mut(), &shared.stopping),
        Err((mut stream, r)) => {
            let _ = r.write(&mut stream, true);
        }
    }
}

/// A protocol session for one socket: the one OUI core (`oui::Session`).
fn new_surface(shared: &Shared) -> Box<dyn ws::Surface> {
    let mut metadata = serde_json::Map::new();
    metadata.insert(
        "binding".into(),
        serde_json::json!(
            "aitools console: the surface serves the WebSocket at /oui/v1 and the page dials it (the reverse of OUI 0.1.0 §8.2, where the surface dials the runtime); aitools oui connect is the §8.2 direction"
        ),
    );
    Box::new(crate::oui::Session::new(
        shared.host,
        &shared.root,
        metadata,
    ))
}

impl ws::Surface for crate::oui::Session {
    fn on_connect(&mut self) -> Vec<serde_json::Value> {
        crate::oui::Session::on_connect(self)
    }
    fn handle(&mut self, frame: &[u8]) -> Vec<serde_json::Value> {
        crate::oui::Session::handle(self, frame)
    }
    fn poll(&mut self) -> Vec<serde_json::Value> {
        crate::oui::Session::poll(self)
    }
    fn on_shutdown(&mut self) -> Vec<serde_json::Value> {
        crate::oui::Session::on_shutdown(self)
    }
}

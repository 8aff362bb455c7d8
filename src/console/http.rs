//! HTTP/1.1 on one connection: request heads parsed by `httparse` within
//! bounds (16 KiB head, 64 headers, a 1 MiB body with a Content-Length),
//! keep-alive, and the few response shapes the console sends.

use std::io::{self, Read, Write};
use std::net::TcpStream;

/// The largest request head read.
pub const MAX_HEAD: usize = 16 * 1024;
/// The largest request body read (a JSON-RPC message).
pub const MAX_BODY: usize = 1024 * 1024;
const MAX_HEADERS: usize = 64;

/// One parsed request.
#[derive(Debug, Default)]
pub struct Request {
    pub method: String,
    /// The path without its query.
    pub path: String,
    query: String,
    /// Names lower-cased, in order.
    headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first header named `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// A query parameter's value, percent-decoded.
    pub fn query(&self, name: &str) -> Option<String> {
        self.query.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (k == name).then(|| crate::mcp::percent_decode(v))
        })
    }

    /// Whether a header's comma-separated list holds `token` (case-insensitive).
    pub fn header_has(&self, name: &str, token: &str) -> bool {
        self.headers
            .iter()
            .filter(|(n, _)| n == name)
            .any(|(_, v)| {
                v.split(',').any(|t| {
                    t.trim()
                        .split(';')
                        .next()
                        .unwrap_or("")
                        .trim()
                        .eq_ignore_ascii_case(token)
                })
            })
    }

    /// Whether the client keeps the connection open after this request.
    pub fn keep_alive(&self) -> bool {
        !self.header_has("connection", "close")
    }
}

/// Why no request could be read.
#[derive(Debug)]
pub enum ReadError {
    /// The peer closed (or timed out) between requests: nothing to answer.
    Closed,
    /// A request that breaks a bound or the grammar: answer `status`, then close.
    Bad(u16, &'static str),
}

/// A connection's stream and the bytes read past the last request.
pub struct Conn {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn new(stream: TcpStream) -> Conn {
        Conn {
            stream,
            buf: Vec::new(),
        }
    }

    fn fill(&mut self) -> Result<usize, ReadError> {
        let mut chunk = [0u8; 8192];
        match self.stream.read(&mut chunk) {
            Ok(0) => Err(ReadError::Closed),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(0),
            Err(_) => Err(ReadError::Closed),
        }
    }

    /// Reads the next request (head and body).
    pub fn read_request(&mut self) -> Result<Request, ReadError> {
        loop {
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut parsed = httparse::Request::new(&mut headers);
            match parsed.parse(&self.buf) {
                Ok(httparse::Status::Complete(head_len)) => {
                    let req = head(&parsed);
                    return self.finish(req, head_len);
                }
                Ok(httparse::Status::Partial) => {
                    if self.buf.len() > MAX_HEAD {
                        return Err(ReadError::Bad(431, "the request head is over 16 KiB"));
                    }
                }
                Err(httparse::Error::TooManyHeaders) => {
                    return Err(ReadError::Bad(431, "the request has over 64 headers"));
                }
                Err(_) => return Err(ReadError::Bad(400, "the request is not HTTP/1.1")),
            }
            self.fill()?;
        }
    }

    fn finish(&mut self, mut req: Request, head_len: usize) -> Result<Request, ReadError> {
        if head_len > MAX_HEAD {
            return Err(ReadError::Bad(431, "the request head is over 16 KiB"));
        }
        if req.header("transfer-encoding").is_some() {
            return Err(ReadError::Bad(411, "send the body with a Content-Length"));
        }
        let len = match req.header("content-length") {
            None => 0,
            Some(v) => v
                .trim()
                .parse::<usize>()
                .map_err(|_| ReadError::Bad(400, "Content-Length is not a number"))?,
        };
        if len > MAX_BODY {
            return Err(ReadError::Bad(413, "the body is over 1 MiB"));
        }
        self.buf.drain(..head_len);
        while self.buf.len() < len {
            self.fill()?;
        }
        req.body = self.buf.drain(..len).collect();
        Ok(req)
    }
}

/// The parsed head as an owned request (no body yet).
fn head(parsed: &httparse::Request<'_, '_>) -> Request {
    let target = parsed.path.unwrap_or("/");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    Request {
        method: parsed.method.unwrap_or("").to_string(),
        path: path.to_string(),
        query: query.to_string(),
        headers: parsed
            .headers
            .iter()
            .map(|h| {
                (
                    h.name.to_ascii_lowercase(),
                    String::from_utf8_lossy(h.value).to_string(),
                )
            })
            .collect(),
        body: Vec::new(),
    }
}

/// A response: status, extra headers, body.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type", content_type.to_string())],
            body: body.into(),
        }
    }

    /// A short plain-text answer (errors, refusals).
    pub fn text(status: u16, text: &str) -> Response {
        let mut body = text.to_string();
        body.push('\n');
        Response::new(status, "text/plain; charset=utf-8", body)
    }

    pub fn with(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }

    /// Writes the response; `close` adds `Connection: close`.
    pub fn write(&self, out: &mut impl Write, close: bool) -> io::Result<()> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (n, v) in &self.headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n", self.body.len()));
        head.push_str("Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n");
        if close {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        out.write_all(head.as_bytes())?;
        out.write_all(&self.body)?;
        out.flush()
    }
}

pub fn reason(status: u16) -> &'static str {
    match status {
        101 => "Switching Protocols",
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        411 => "Length Required",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        421 => "Misdirected Request",
        426 => "Upgrade Required",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

//! Who may talk to the console: the token (random per start, or derived from
//! `AITOOLS_SEED` for reproducible tests) on every request, a loopback `Host`
//! naming our port (a DNS-rebound name is refused), and an `Origin`, when one is
//! sent, that is the console's own page (no cross-site WebSocket or fetch).

use super::http::Request;
use crate::text::lines::sha256_hex;

/// 32 hex digits: 128 bits from the kernel, or the seed's hash under `AITOOLS_SEED`.
pub fn new_token() -> String {
    if let Ok(seed) = std::env::var("AITOOLS_SEED") {
        return sha256_hex(format!("console-token:{seed}").as_bytes())[..32].to_string();
    }
    let mut buf = [0u8; 16];
    let mut filled = 0;
    while filled < buf.len() {
        // SAFETY: the pointer and length name the unfilled tail of `buf`.
        let n = unsafe {
            libc::getrandom(
                buf[filled..].as_mut_ptr().cast::<libc::c_void>(),
                buf.len() - filled,
                0,
            )
        };
        if n <= 0 {
            // No kernel randomness (ancient kernel, seccomp): the clock, the pid
            // and the address space's layout, hashed; still not guessable remotely.
            let (s, ns) = crate::protocol::time::now();
            let material = format!("{s}:{ns}:{}:{:p}", std::process::id(), &buf);
            return sha256_hex(material.as_bytes())[..32].to_string();
        }
        filled += n as usize;
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a request is refused (the status and a short reason for the body).
#[derive(Debug, PartialEq, Eq)]
pub struct Refused {
    pub status: u16,
    pub reason: &'static str,
}

/// Compares in time independent of where the first difference is.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The token the request carries: `Authorization: Bearer T`, else `?token=T`.
fn presented(req: &Request) -> Option<String> {
    if let Some(auth) = req.header("authorization")
        && let Some(t) = auth
            .strip_prefix("Bearer ")
            .or_else(|| auth.strip_prefix("bearer "))
    {
        return Some(t.trim().to_string());
    }
    req.query("token")
}

/// Accepts the request or says why not.
pub fn check(req: &Request, token: &str, port: u16) -> Result<(), Refused> {
    let hosts = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    match req.header("host") {
        Some(h) if hosts.iter().any(|ok| ok.eq_ignore_ascii_case(h.trim())) => {}
        _ => {
            return Err(Refused {
                status: 421,
                reason: "the Host must be 127.0.0.1:PORT or localhost:PORT",
            });
        }
    }
    if let Some(origin) = req.header("origin") {
        let origin = origin.trim();
        if !hosts
            .iter()
            .any(|ok| origin.eq_ignore_ascii_case(&format!("http://{ok}")))
        {
            return Err(Refused {
                status: 403,
                reason: "a foreign Origin may not use the console",
            });
        }
    }
    match presented(req) {
        Some(t) if same(t.as_bytes(), token.as_bytes()) => Ok(()),
        _ => Err(Refused {
            status: 401,
            reason: "the token is missing or wrong (see the console's start line)",
        }),
    }
}

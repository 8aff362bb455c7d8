//! The OUI protocol core (seed 002 §7), one implementation for every binding.
//! A `Session` takes the runtime's frames and gives back the frames to send;
//! it never touches a socket. Every value it returns has been through the secret
//! mask. See `oui` (the module doc) for the API and the bindings that use it.

use super::manifest::{self, Action, Observation, Surface, Watch, oui_code};
use super::validate;
use crate::protocol::host::Host;
use crate::protocol::redact;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::ffi::OsString;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Frames over this many bytes are refused unread (§8.2.2).
pub const MAX_FRAME: usize = 1 << 20;

/// A synchronous action's default limit (§7.5).
pub const ACTION_TIMEOUT: Duration = Duration::from_secs(30);

/// At most one `observation:update` per observation in this time (§9.5: 10/s).
pub const MIN_UPDATE_GAP: Duration = Duration::from_millis(100);

/// Entries of a watched directory looked at, at most.
const MAX_WATCHED: usize = 2000;

/// The latest state of one observation.
#[derive(Default)]
struct Seen {
    /// The change check's last reading.
    fingerprint: Option<u64>,
    /// The value last sent (its masked text), for deduplication.
    sent: Option<String>,
    sent_at: Option<Instant>,
    /// Changed since it was last sent, but held back by `MIN_UPDATE_GAP`.
    dirty: bool,
    /// When an `every:N` observation was last computed.
    ran_at: Option<Instant>,
}

/// One OUI session: the surfaces' manifests, their observations' last values,
/// and the action still running on each surface.
pub struct Session {
    host: Host,
    root: PathBuf,
    state: PathBuf,
    surfaces: Vec<Surface>,
    metadata: Map<String, Value>,
    seen: HashMap<(String, String), Seen>,
    /// A surface's action that outran its timeout and has not finished yet.
    running: HashMap<String, mpsc::Receiver<Value>>,
    timeout: Duration,
}

/// Milliseconds since the epoch (the clock `AITOOLS_FIXED_TIME` fixes).
pub fn timestamp() -> i64 {
    let (s, ns) = crate::protocol::time::now();
    s.saturating_mul(1000)
        .saturating_add(i64::from(ns / 1_000_000))
}

/// Every string (and key) of `v` through the secret mask.
pub fn masked(v: Value) -> Value {
    match v {
        Value::String(s) => Value::String(redact::mask_str_quiet(&s).unwrap_or(s)),
        Value::Array(a) => Value::Array(a.into_iter().map(masked).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (redact::mask_str_quiet(&k).unwrap_or(k), masked(v)))
                .collect(),
        ),
        other => other,
    }
}

fn event(kind: &str, payload: Value) -> Value {
    masked(json!({"type": kind, "payload": payload}))
}

/// Runs one aitools call in this process (`Host::invoke`: the dispatcher's one
/// parse path and masked envelope) against `root`; the envelope, parsed.
pub fn run(host: Host, mut argv: Vec<String>, root: &Path) -> Value {
    let at = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    argv.insert(at, format!("--root={}", root.display()));
    let os: Vec<OsString> = argv.iter().map(OsString::from).collect();
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (host.invoke)(&os)));
    let failed = || {
        json!({"status": "error", "command": argv.first().cloned().unwrap_or_default(),
            "error": {"code": "internal.unexpected",
                "message": "aitools failed unexpectedly inside the OUI session.",
                "repairs": [{"action": "doctor", "detail": "Check the state directory and the lock.",
                    "command": "aitools doctor"}]}})
    };
    match out {
        Ok(r) => serde_json::from_str(r.text.trim_end()).unwrap_or_else(|_| failed()),
        Err(_) => failed(),
    }
}

fn result_ok(request_id: &str, data: Value, started: Instant) -> Value {
    event(
        "action:result",
        json!({"requestId": request_id, "success": true, "data": data,
            "durationMs": started.elapsed().as_millis() as u64, "timestamp": timestamp()}),
    )
}

fn result_err(
    request_id: &str,
    code: &str,
    message: &str,
    details: Option<Value>,
    started: Instant,
) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(d) = details {
        error["details"] = d;
    }
    event(
        "action:result",
        json!({"requestId": request_id, "success": false, "error": error,
            "durationMs": started.elapsed().as_millis() as u64, "timestamp": timestamp()}),
    )
}

/// The stat of `p` folded into `h` (absent paths fold a marker).
fn fold_stat(p: &Path, h: &mut std::collections::hash_map::DefaultHasher) {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(p) {
        Ok(m) => (m.ino(), m.size(), m.mtime(), m.mtime_nsec(), m.ctime_nsec()).hash(h),
        Err(_) => 0u8.hash(h),
    }
}

impl Session {
    /// A session on the workspace whose real root is `root` (`Ctx::root`).
    /// `metadata` goes into every manifest's `metadata` (the binding says there
    /// how it departs from §8.2, if it does).
    pub fn new(host: Host, root: &Path, metadata: Map<String, Value>) -> Session {
        // A table row that does not resolve is a build's mistake (a test reads
        // every row); the binary serves the surfaces it has.
        let surfaces = manifest::surfaces(host.commands).unwrap_or_default();
        Session {
            host,
            root: root.to_path_buf(),
            state: crate::store::state_dir::for_root(root),
            surfaces,
            metadata,
            seen: HashMap::new(),
            running: HashMap::new(),
            timeout: ACTION_TIMEOUT,
        }
    }

    /// The synchronous action limit (default 30 s); tests shorten it.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn set_timeout(&mut self, t: Duration) {
        self.timeout = t;
    }

    /// The manifests, as `surface:register` carries them.
    pub fn manifests(&self) -> Vec<Value> {
        self.surfaces
            .iter()
            .map(|s| masked(s.manifest(&self.metadata)))
            .collect()
    }

    /// On a new connection (and every reconnection): one `surface:register` per
    /// surface, then each observation's current value (§5.3.2).
    pub fn on_connect(&mut self) -> Vec<Value> {
        self.seen.clear();
        let mut out: Vec<Value> = self
            .manifests()
            .into_iter()
            .map(|m| {
                event(
                    "surface:register",
                    json!({"surface": m, "timestamp": timestamp()}),
                )
            })
            .collect();
        for (s, o) in self.all_observations() {
            if let Some(u) = self.update(&s, &o, true) {
                out.push(u);
            }
        }
        out
    }

    /// One frame from the runtime: what to send back. An `action:request` gets
    /// exactly one `action:result` (then any observation that changed); an
    /// `observation:request` its `observation:update`; anything else (malformed,
    /// unknown, `x-` events, frames over `MAX_FRAME`) nothing.
    pub fn handle(&mut self, frame: &[u8]) -> Vec<Value> {
        if frame.len() > MAX_FRAME {
            return Vec::new();
        }
        let Ok(v) = serde_json::from_slice::<Value>(frame) else {
            return Vec::new();
        };
        let (Some(kind), Some(payload)) = (
            v.get("type").and_then(Value::as_str),
            v.get("payload").and_then(Value::as_object),
        ) else {
            return Vec::new();
        };
        match kind {
            "action:request" => {
                let Some(rid) = payload.get("requestId").and_then(Value::as_str) else {
                    return Vec::new();
                };
                let mut out = vec![self.action(rid, payload)];
                out.extend(self.poll());
                out
            }
            "observation:request" => {
                let (Some(s), Some(o)) = (
                    payload.get("surfaceId").and_then(Value::as_str),
                    payload.get("observationId").and_then(Value::as_str),
                ) else {
                    return Vec::new();
                };
                if self.surface(s).and_then(|x| x.observation(o)).is_none() {
                    return Vec::new();
                }
                self.update(s, o, true).into_iter().collect()
            }
            _ => Vec::new(),
        }
    }

    /// The cheap change check: each observation whose watched state changed
    /// (or whose `every:N` is due) is computed again and sent if its value
    /// differs from the last sent, at most once per `MIN_UPDATE_GAP`.
    pub fn poll(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        for (s, o) in self.all_observations() {
            let Some(obs) = self.surface(&s).and_then(|x| x.observation(&o)).cloned() else {
                continue;
            };
            let key = (s.clone(), o.clone());
            let seen = self.seen.entry(key).or_default();
            let changed = match &obs.watch {
                Watch::Polling => false,
                Watch::Every(n) => seen
                    .ran_at
                    .is_none_or(|t| t.elapsed() >= Duration::from_secs(*n)),
                Watch::Paths(paths) => {
                    let f = fingerprint(&self.state, paths);
                    let moved = seen.fingerprint != Some(f);
                    seen.fingerprint = Some(f);
                    moved
                }
            };
            if changed {
                seen.dirty = true;
            }
            if !seen.dirty || seen.sent_at.is_some_and(|t| t.elapsed() < MIN_UPDATE_GAP) {
                continue;
            }
            if let Some(u) = self.update(&s, &o, false) {
                out.push(u);
            }
        }
        out
    }

    /// On shutdown: one `surface:deregister` per surface.
    pub fn on_shutdown(&mut self) -> Vec<Value> {
        self.surfaces
            .iter()
            .map(|s| {
                event(
                    "surface:deregister",
                    json!({"surfaceId": s.id, "timestamp": timestamp()}),
                )
            })
            .collect()
    }

    fn surface(&self, id: &str) -> Option<&Surface> {
        self.surfaces.iter().find(|s| s.id == id)
    }

    fn all_observations(&self) -> Vec<(String, String)> {
        self.surfaces
            .iter()
            .flat_map(|s| s.observations.iter().map(|o| (s.id.clone(), o.id.clone())))
            .collect()
    }

    /// The observation's value now, as an `observation:update`; `None` when it
    /// equals the last one sent and `always` is false.
    fn update(&mut self, s: &str, o: &str, always: bool) -> Option<Value> {
        let obs: Observation = self.surface(s)?.observation(o)?.clone();
        let key = (s.to_string(), o.to_string());
        if let Watch::Paths(paths) = &obs.watch {
            let f = fingerprint(&self.state, paths);
            self.seen.entry(key.clone()).or_default().fingerprint = Some(f);
        }
        let value = masked(run(self.host, obs.argv(), &self.root));
        let text = value.to_string();
        let seen = self.seen.entry(key).or_default();
        seen.ran_at = Some(Instant::now());
        seen.dirty = false;
        if !always && seen.sent.as_deref() == Some(text.as_str()) {
            return None;
        }
        seen.sent = Some(text);
        seen.sent_at = Some(Instant::now());
        Some(event(
            "observation:update",
            json!({"surfaceId": s, "observationId": o, "value": value, "timestamp": timestamp()}),
        ))
    }

    /// One `action:request` to its `action:result`.
    fn action(&mut self, rid: &str, payload: &Map<String, Value>) -> Value {
        let started = Instant::now();
        let field = |k: &str| payload.get(k).and_then(Value::as_str).unwrap_or("");
        let (sid, aid) = (field("surfaceId"), field("actionId"));
        let ran = self.action_argv(sid, aid, payload).and_then(|argv| {
            self.claim(sid)?;
            self.run_bounded(sid, aid, argv)
        });
        let envelope = match ran {
            Ok(v) => v,
            Err(r) => return result_err(rid, r.code, &r.message, r.details, started),
        };
        if envelope.get("status").and_then(Value::as_str) == Some("error") {
            let err = envelope.get("error").cloned().unwrap_or(json!({}));
            let code = err.get("code").and_then(Value::as_str).unwrap_or("");
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("The command failed.")
                .to_string();
            return result_err(rid, oui_code(code), &message, Some(err), started);
        }
        result_ok(rid, envelope, started)
    }

    /// The registered action's argv for these params, checked against its input schema.
    fn action_argv(
        &self,
        sid: &str,
        aid: &str,
        payload: &Map<String, Value>,
    ) -> Result<Vec<String>, Refused> {
        let Some(surface) = self.surface(sid) else {
            let ids: Vec<&String> = self.surfaces.iter().map(|s| &s.id).collect();
            return Err(Refused::new(
                "SURFACE_UNAVAILABLE",
                format!("No surface {sid:?} is registered here."),
                Some(json!({ "surfaces": ids })),
            ));
        };
        let Some(action): Option<Action> = surface.action(aid).cloned() else {
            let ids: Vec<&String> = surface.actions.iter().map(|a| &a.id).collect();
            return Err(Refused::new(
                "ACTION_NOT_FOUND",
                format!("Surface {sid} has no action {aid:?}."),
                Some(json!({ "actions": ids })),
            ));
        };
        let params = payload.get("params").cloned().unwrap_or(json!({}));
        if let Err(e) = validate::check(&action.input(), &params) {
            return Err(Refused::new("VALIDATION_ERROR", e.message, Some(e.details)));
        }
        action
            .argv(params.as_object().unwrap_or(&Map::new()))
            .map_err(|m| Refused::new("VALIDATION_ERROR", m, None))
    }

    /// One action at a time per surface: one that outran its timeout still holds it.
    fn claim(&mut self, sid: &str) -> Result<(), Refused> {
        if let Some(rx) = self.running.get(sid) {
            if let Err(mpsc::TryRecvError::Empty) = rx.try_recv() {
                return Err(Refused::new(
                    "PRECONDITION_FAILED",
                    format!("An earlier action on {sid} is still running; try again when it ends."),
                    None,
                ));
            }
            self.running.remove(sid);
        }
        Ok(())
    }

    /// Runs `argv` on its own thread and waits up to the session's timeout; a call
    /// that outruns it keeps the surface (see `claim`).
    fn run_bounded(&mut self, sid: &str, aid: &str, argv: Vec<String>) -> Result<Value, Refused> {
        let (tx, rx) = mpsc::channel();
        let (host, root) = (self.host, self.root.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("oui-{aid}"))
            .spawn(move || {
                let _ = tx.send(run(host, argv, &root));
            });
        if spawned.is_err() {
            return Err(Refused::new(
                "INTERNAL_ERROR",
                "No thread could be started to run the action.".to_string(),
                None,
            ));
        }
        match rx.recv_timeout(self.timeout) {
            Ok(v) => Ok(v),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.running.insert(sid.to_string(), rx);
                Err(Refused::new(
                    "TIMEOUT",
                    format!(
                        "{aid} did not finish within {} s; it may still complete (see the surface's observations).",
                        self.timeout.as_secs_f64()
                    ),
                    None,
                ))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(Refused::new(
                "EXECUTION_ERROR",
                format!("{aid} failed unexpectedly."),
                None,
            )),
        }
    }
}

/// An action refused before or while it ran: its `action:result` error.
struct Refused {
    code: &'static str,
    message: String,
    details: Option<Value>,
}

impl Refused {
    fn new(code: &'static str, message: String, details: Option<Value>) -> Refused {
        Refused {
            code,
            message,
            details,
        }
    }
}

/// The watched state's stat, folded: `p` is the file or directory itself,
/// `dir/*` also each entry of it (a tx's `index.json` rename, a bg record's
/// rewrite change the entry's directory).
fn fingerprint(state: &Path, paths: &[String]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in paths {
        let (base, entries) = match p.strip_suffix("/*") {
            Some(b) => (b, true),
            None => (p.as_str(), false),
        };
        let dir = state.join(base);
        fold_stat(&dir, &mut h);
        if entries && let Ok(rd) = std::fs::read_dir(&dir) {
            let mut names: Vec<PathBuf> =
                rd.flatten().take(MAX_WATCHED).map(|e| e.path()).collect();
            names.sort();
            for n in names {
                n.hash(&mut h);
                fold_stat(&n, &mut h);
            }
        }
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    //! The core on frames, with a stand-in for the dispatcher (no network, no
    //! workspace): the argv's first word picks the canned envelope.
    use super::*;
    use crate::protocol::envelope::Rendered;

    fn fake_invoke(args: &[OsString]) -> Rendered {
        let words: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().to_string())
            .collect();
        let text = match words.first().map(String::as_str) {
            Some("history") => {
                r#"{"schema_version":9,"status":"ok","command":"history","items":[],"total":0,"note":"ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"}"#.to_string()
            }
            Some("undo") if words.iter().any(|w| w == "op-slow") => {
                std::thread::sleep(Duration::from_millis(600));
                r#"{"schema_version":9,"status":"ok","command":"undo"}"#.to_string()
            }
            Some("undo") => r#"{"schema_version":9,"status":"error","command":"undo","error":{"code":"refusal.target-changed","message":"changed","exit_code":2,"repairs":[{"action":"read","detail":"d","command":"aitools read a"}]}}"#.to_string(),
            Some(w) => format!(r#"{{"schema_version":9,"status":"ok","command":"{w}"}}"#),
            None => String::new(),
        };
        Rendered {
            text: format!("{text}\n"),
            exit_code: 0,
            to_stderr: false,
        }
    }

    fn fake_invoke_with(args: &[OsString], _e: crate::protocol::events::Events) -> Rendered {
        fake_invoke(args)
    }

    fn session() -> Session {
        let host = Host {
            commands: crate::registry::LIST,
            invoke: fake_invoke,
            invoke_at: |a, _, _| fake_invoke(a),
            invoke_with: fake_invoke_with,
        };
        Session::new(host, Path::new("/nonexistent-oui-root"), Map::new())
    }

    fn req(rid: &str, s: &str, a: &str, params: Value) -> Vec<u8> {
        json!({"type": "action:request", "payload": {"requestId": rid, "surfaceId": s,
            "actionId": a, "params": params, "timestamp": 0}})
        .to_string()
        .into_bytes()
    }

    fn results(out: &[Value]) -> Vec<&Value> {
        out.iter()
            .filter(|v| v["type"] == "action:result")
            .collect()
    }

    #[test]
    fn connect_registers_every_surface_then_sends_masked_values() {
        let mut s = session();
        let out = s.on_connect();
        let regs = out
            .iter()
            .filter(|v| v["type"] == "surface:register")
            .count();
        assert_eq!(regs, s.surfaces.len());
        let head = out
            .iter()
            .find(|v| v["payload"]["observationId"] == "journal_head")
            .unwrap();
        let text = head.to_string();
        assert!(!text.contains("ghp_aB3dE5"), "{text}");
        assert_eq!(head["payload"]["value"]["total"], 0);
        // Nothing changed: a poll sends nothing again.
        assert!(
            s.poll()
                .iter()
                .all(|v| v["payload"]["observationId"] != "journal_head")
        );
        let bye = s.on_shutdown();
        assert_eq!(bye.len(), regs);
        assert!(bye.iter().all(|v| v["type"] == "surface:deregister"));
    }

    #[test]
    fn ignored_frames_get_nothing() {
        let mut s = session();
        for f in [
            &b"{not json"[..],
            br#"{"type":"x-analytics:track","payload":{}}"#,
            br#"{"type":"surface:bogus","payload":{}}"#,
            br#"{"type":"action:request","payload":{"surfaceId":"journal"}}"#,
            br#"{"type":"action:request"}"#,
            br#"[1,2]"#,
        ] {
            assert!(s.handle(f).is_empty(), "{}", String::from_utf8_lossy(f));
        }
        let mut big = req("big", "journal", "history", json!({}));
        big.extend(std::iter::repeat_n(b' ', MAX_FRAME));
        assert!(s.handle(&big).is_empty());
    }

    #[test]
    fn each_request_gets_one_result_with_its_id_and_code() {
        let mut s = session();
        let code = |s: &mut Session, f: Vec<u8>| {
            let out = s.handle(&f);
            let r = results(&out);
            assert_eq!(r.len(), 1, "{out:?}");
            r[0]["payload"].clone()
        };
        let r = code(&mut s, req("a1", "journal", "history", json!({"limit": 3})));
        assert_eq!(
            (r["requestId"].clone(), r["success"].clone()),
            (json!("a1"), json!(true))
        );
        assert!(r.get("error").is_none() && r["durationMs"].is_u64());
        let r = code(&mut s, req("a2", "journal", "nope", json!({})));
        assert_eq!(r["error"]["code"], "ACTION_NOT_FOUND");
        let r = code(&mut s, req("a3", "nowhere", "history", json!({})));
        assert_eq!(r["error"]["code"], "SURFACE_UNAVAILABLE");
        let r = code(
            &mut s,
            req("a4", "journal", "history", json!({"limit": "x"})),
        );
        assert_eq!(r["error"]["code"], "VALIDATION_ERROR");
        assert_eq!(r["error"]["details"]["field"], "limit");
        let r = code(&mut s, req("a5", "journal", "history", json!({"bogus": 1})));
        assert_eq!(r["error"]["code"], "VALIDATION_ERROR");
        let r = code(
            &mut s,
            req("a6", "journal", "undo", json!({"op_id": "op-1"})),
        );
        assert_eq!(r["error"]["code"], "PRECONDITION_FAILED");
        assert_eq!(r["error"]["details"]["code"], "refusal.target-changed");
        assert_eq!(
            r["error"]["details"]["repairs"][0]["command"],
            "aitools read a"
        );
        assert!(r.get("data").is_none());
    }

    #[test]
    fn an_overrunning_action_times_out_and_holds_its_surface() {
        let mut s = session();
        s.set_timeout(Duration::from_millis(100));
        let out = s.handle(&req("t1", "journal", "undo", json!({"op_id": "op-slow"})));
        assert_eq!(results(&out)[0]["payload"]["error"]["code"], "TIMEOUT");
        let out = s.handle(&req("t2", "journal", "undo", json!({"op_id": "op-slow"})));
        assert_eq!(
            results(&out)[0]["payload"]["error"]["code"],
            "PRECONDITION_FAILED"
        );
        // Another surface is free meanwhile.
        let out = s.handle(&req("t3", "transactions", "tx_status", json!({})));
        assert_eq!(results(&out)[0]["payload"]["success"], true);
        std::thread::sleep(Duration::from_millis(700));
        s.set_timeout(Duration::from_secs(5));
        let out = s.handle(&req("t4", "journal", "undo", json!({"op_id": "op-slow"})));
        assert_eq!(results(&out)[0]["payload"]["success"], true);
    }

    #[test]
    fn observation_requests_are_answered() {
        let mut s = session();
        let f = json!({"type": "observation:request", "payload": {"surfaceId": "journal",
            "observationId": "workspace_summary", "requestId": "o1", "timestamp": 0}});
        let out = s.handle(f.to_string().as_bytes());
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["type"], "observation:update");
        assert_eq!(out[0]["payload"]["value"]["command"], "git");
        let f = json!({"type": "observation:request", "payload": {"surfaceId": "journal",
            "observationId": "nope", "requestId": "o2", "timestamp": 0}});
        assert!(s.handle(f.to_string().as_bytes()).is_empty());
    }
}

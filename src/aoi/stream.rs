//! The AOI JSONL writer: one compact JSON object per line, each with `type` and the
//! reserved `aoi` object (`seq` contiguous from 0, `run` a ULID, `t` ms since the
//! meta line). It is the event sink handlers stream into, it counts what it wrote
//! for the summary, masks secrets on every line, and goes quiet once stdout closes
//! or the stream has ended (a summary written, or a cancellation), keeping the
//! error that closed it (the dispatcher tells a lost answer from a closed pipe).

use crate::protocol::events::EventSink;
use crate::protocol::{Json, redact};
use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

/// What the stream has written so far.
#[derive(Default, Clone, Copy)]
pub struct Counts {
    /// Lines written (every line, framework ones included).
    pub events: u64,
    /// Domain events (types without the `aoi:` prefix).
    pub domain: u64,
    pub warnings: u64,
    pub errors: u64,
    pub redactions: u64,
}

struct Inner {
    out: Box<dyn Write + Send>,
    counts: Counts,
    /// stdout refused a write (a closed pipe): nothing more is written.
    closed: bool,
    /// Why it refused (EPIPE for a closed pipe; ENOSPC, EIO: the answer is lost).
    error: Option<std::io::Error>,
    /// The terminal line was written: nothing may follow it.
    ended: bool,
    /// Domain event types a handler streamed (their envelope lists are then not
    /// replayed at the end).
    streamed: Vec<&'static str>,
    /// One mask over the whole stream: a secret masked in one event is masked in
    /// every later one, as in one envelope.
    mask: redact::StreamMask,
    /// The line that goes before any other (the meta line), not written yet.
    first: Option<(&'static str, Json)>,
}

pub struct Stream {
    inner: Mutex<Inner>,
    run: String,
    start: Instant,
}

impl Stream {
    pub fn new(out: Box<dyn Write + Send>) -> Stream {
        Stream {
            inner: Mutex::new(Inner {
                out,
                counts: Counts::default(),
                closed: false,
                error: None,
                ended: false,
                streamed: Vec::new(),
                mask: redact::StreamMask::default(),
                first: None,
            }),
            run: ulid(),
            start: Instant::now(),
        }
    }

    pub fn run_id(&self) -> &str {
        &self.run
    }

    pub fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    pub fn counts(&self) -> Counts {
        self.lock().counts
    }

    pub fn closed(&self) -> bool {
        self.lock().closed
    }

    /// Takes back `n` counted masks: events the command streamed live are in its
    /// envelope too, whose own count already says them (one count per surface).
    pub fn uncount_redactions(&self, n: u64) {
        let mut g = self.lock();
        g.counts.redactions = g.counts.redactions.saturating_sub(n);
    }

    /// The error that closed the stream, once (`None` while stdout takes it all).
    pub fn take_error(&self) -> Option<std::io::Error> {
        self.lock().error.take()
    }

    pub fn streamed(&self, kind: &str) -> bool {
        self.lock().streamed.contains(&kind)
    }

    /// Writes one event line; `fields` (an object) follow `type` and `aoi`.
    pub fn line(&self, kind: &str, fields: Json) {
        self.write(kind, fields);
    }

    /// Writes the terminal line (a summary): `event_count` is filled in here, so it
    /// counts this line too, and nothing is written after it.
    pub fn end(&self, mut fields: Json) {
        let mut g = self.lock();
        if g.ended {
            return;
        }
        let total = g.counts.events + 1;
        if let Json::Obj(m) = &mut fields {
            for (k, v) in m.iter_mut() {
                if k == "event_count" {
                    *v = Json::UInt(total);
                }
            }
        }
        self.write_locked(&mut g, "aoi:summary", fields);
        g.ended = true;
    }

    /// Sets the line that goes before any other: whichever thread writes first
    /// (or calls [`Stream::write_first`]) writes it, so the command's first event
    /// waits for no other thread while the meta line still comes first.
    pub fn first(&self, kind: &'static str, fields: Json) {
        self.lock().first = Some((kind, fields));
    }

    /// Writes the line set by [`Stream::first`], unless a line went out already.
    pub fn write_first(&self) {
        let mut g = self.lock();
        if let Some((kind, fields)) = g.first.take() {
            self.write_one(&mut g, kind, fields);
        }
    }

    fn write(&self, kind: &str, fields: Json) {
        let mut g = self.lock();
        self.write_locked(&mut g, kind, fields);
    }

    fn write_locked(&self, g: &mut Inner, kind: &str, fields: Json) {
        if let Some((k, f)) = g.first.take() {
            self.write_one(g, k, f);
        }
        self.write_one(g, kind, fields);
    }

    fn write_one(&self, g: &mut Inner, kind: &str, fields: Json) {
        if g.ended {
            return;
        }
        let seq = g.counts.events;
        let mut env = Json::obj();
        env.push("seq", Json::UInt(seq));
        env.push("run", Json::str(self.run.clone()));
        env.push("t", Json::UInt(self.elapsed_ms()));
        let mut obj = Json::obj();
        obj.push("type", Json::str(kind));
        obj.push("aoi", env);
        if let Json::Obj(m) = fields {
            for (k, v) in m {
                obj.push(&k, v);
            }
        }
        let masked = g.mask.mask(&mut obj);
        let mut text = obj.to_string_compact();
        text.push('\n');
        g.counts.events += 1;
        g.counts.redactions += masked as u64;
        match kind {
            "aoi:warning" => g.counts.warnings += 1,
            "aoi:error" => g.counts.errors += 1,
            k if !k.starts_with("aoi:") => g.counts.domain += 1,
            _ => {}
        }
        if g.closed {
            return;
        }
        // One write per line, flushed: a consumer sees each event as it happens.
        if let Err(e) = g.out.write_all(text.as_bytes()).and_then(|_| g.out.flush()) {
            g.closed = true;
            g.error = Some(e);
        }
    }
}

impl EventSink for Stream {
    fn emit(&self, kind: &'static str, fields: Json) {
        {
            let mut g = self.lock();
            if !g.streamed.contains(&kind) {
                g.streamed.push(kind);
            }
        }
        self.write(kind, fields);
    }

    fn note_secrets(&self, values: &[String]) {
        self.lock().mask.note(values);
    }
}

/// A ULID: 48 bits of milliseconds, 80 bits from the clock, the process and a
/// counter through SHA-256 (no random-number dependency), Crockford base32.
pub fn ulid() -> String {
    use sha2::{Digest, Sha256};
    let (secs, nanos) = crate::protocol::time::now();
    let ms = (secs.max(0) as u128) * 1000 + u128::from(nanos / 1_000_000);
    let mut h = Sha256::new();
    h.update(secs.to_le_bytes());
    h.update(nanos.to_le_bytes());
    h.update(std::process::id().to_le_bytes());
    if let Ok(seed) = std::env::var("AITOOLS_SEED") {
        h.update(seed.as_bytes());
    } else if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.update(d.as_nanos().to_le_bytes());
    }
    let d = h.finalize();
    let mut rand: u128 = 0;
    for b in d.iter().take(10) {
        rand = (rand << 8) | u128::from(*b);
    }
    let value = ((ms & ((1u128 << 48) - 1)) << 80) | rand;
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut out = [0u8; 26];
    for (i, slot) in out.iter_mut().enumerate() {
        let shift = 125 - 5 * i as u32;
        *slot = ALPHABET[((value >> shift) & 31) as usize];
    }
    String::from_utf8_lossy(&out).into_owned()
}

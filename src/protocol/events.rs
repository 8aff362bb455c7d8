//! The event sink a handler streams its domain events into (a search match or
//! block, a find entry, a read line). The envelope mode passes no sink: the
//! handler's `Output` is the whole answer. The AOI JSONL mode passes one that
//! writes each event as a line the moment it is emitted, so a consumer acts
//! before the scan ends. Core only defines the hook; the writer lives outside it.

use super::json::Json;
use std::sync::Arc;

/// Where streamed events go. Called from scan worker threads too.
pub trait EventSink: Send + Sync {
    /// One domain event: its `type` and its fields (an object).
    fn emit(&self, kind: &'static str, fields: Json);
    /// Secret values the handler masked itself before an event's text was built
    /// (a search match shows only the mask): the sink masks them in this and every
    /// later event, as the envelope's second pass does in the whole answer.
    fn note_secrets(&self, _values: &[String]) {}
}

/// The handle a `Ctx` carries: no sink in the envelope mode.
#[derive(Clone, Default)]
pub struct Events(Option<Arc<dyn EventSink>>);

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Events(streaming)"
        } else {
            "Events(none)"
        })
    }
}

impl Events {
    pub fn new(sink: Arc<dyn EventSink>) -> Events {
        Events(Some(sink))
    }

    /// Whether events are being streamed (a handler builds them only then).
    pub fn streaming(&self) -> bool {
        self.0.is_some()
    }

    /// Streams one event; `build` runs only when there is a sink.
    pub fn emit_with(&self, kind: &'static str, build: impl FnOnce() -> Json) {
        if let Some(s) = &self.0 {
            s.emit(kind, build());
        }
    }

    /// Tells the sink about secrets the handler hid itself (`EventSink::note_secrets`).
    pub fn note_secrets(&self, values: &[String]) {
        if let (Some(s), false) = (&self.0, values.is_empty()) {
            s.note_secrets(values);
        }
    }

    /// Streams one serializable item as an event.
    pub fn emit<T: serde::Serialize + ?Sized>(&self, kind: &'static str, item: &T) {
        self.emit_with(kind, || Json::from_serialize(item));
    }
}

//! `aitools doctor --lint`: the seed's conformance checks (section 18.2), run
//! in-process against every command of the registry.

use crate::protocol::Json;
use crate::workspace::Ctx;

pub fn run(_ctx: &Ctx) -> Vec<Json> {
    Vec::new()
}

//! The agent texts of `agent/` (brief, rules, skills), compiled in by `build.rs`,
//! and the shapes they take in envelopes: the rules and skills lists of `--help`,
//! and the inline context `AITOOLS_INLINE_CONTEXT=1` adds to every envelope.

use super::json::Json;

/// One rule or skill: front matter `name` and `description`, and the body.
#[derive(Debug)]
pub struct Doc {
    pub name: &'static str,
    pub description: &'static str,
    pub content: &'static str,
}

// BRIEF, FEEDBACK_LINE (writeback.md's description), RULES and SKILLS, sorted by name.
include!(concat!(env!("OUT_DIR"), "/agent_docs.rs"));

/// The skill named exactly `name`.
pub fn skill(name: &str) -> Option<&'static Doc> {
    SKILLS.iter().find(|s| s.name == name)
}

/// `[{name, content}]` of every rule.
pub fn rules_json() -> Json {
    Json::Arr(
        RULES
            .iter()
            .map(|r| {
                let mut o = Json::obj();
                o.push("name", Json::str(r.name));
                o.push("content", Json::str(r.content));
                o
            })
            .collect(),
    )
}

/// `[{name, description}]` of every skill (`aitools skills <name>` shows one).
pub fn skills_json() -> Json {
    Json::Arr(
        SKILLS
            .iter()
            .map(|s| {
                let mut o = Json::obj();
                o.push("name", Json::str(s.name));
                o.push("description", Json::str(s.description));
                o
            })
            .collect(),
    )
}

/// Whether `AITOOLS_INLINE_CONTEXT` asks for the rules on every envelope. Off by
/// default: it adds thousands of tokens to every call.
pub fn inline_enabled() -> bool {
    std::env::var("AITOOLS_INLINE_CONTEXT").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// `rules`, `skills`, `feedback` when inline context is on, else nothing.
pub fn inline_context() -> Vec<(&'static str, Json)> {
    if !inline_enabled() {
        return Vec::new();
    }
    vec![
        ("rules", rules_json()),
        ("skills", skills_json()),
        ("feedback", Json::str(FEEDBACK_LINE)),
    ]
}

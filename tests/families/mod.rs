//! One module per command family, plus the protocol rules every command shares.

mod agent;
mod agent_examples;
mod aoi;
mod conformance;
mod containment;
mod durable;
mod edit;
mod git;
mod inputs;
mod inspect;
mod json;
mod lines;
mod mcp;
mod notfound;
mod process;
mod protocol;
mod read_cache;
mod redaction;
mod retention;
mod scan_args;
mod search;
mod secret_corpus;
mod store;
mod token_budget;
mod tx;
mod write_diffs;

//! One module per command family, plus the protocol rules every command shares.

mod agent;
mod agent_examples;
mod conformance;
mod containment;
mod contract;
mod durable;
mod edit;
mod inputs;
mod inspect;
mod mcp;
mod notfound;
mod protocol;
mod redaction;
mod retention;
mod scan_args;
mod search;
mod secret_corpus;
mod store;
mod token_budget;
mod tx;
mod write_diffs;

//! One module per command family, plus the protocol rules every command shares.

mod agent;
mod agent_examples;
mod conformance;
mod edit;
mod inspect;
mod notfound;
mod protocol;
mod redaction;
mod retention;
mod scan_args;
mod search;
mod store;
mod tx;
mod write_diffs;

//! One module per command family, plus the protocol rules every command shares.

mod agent;
mod agent_examples;
mod conformance;
mod inspect;
mod protocol;
mod search;
mod tx;

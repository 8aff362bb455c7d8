//! One module per command family, plus the protocol rules every command shares.

mod agent;
mod inspect;
mod protocol;

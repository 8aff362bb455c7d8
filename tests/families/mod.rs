//! One module per command family, plus the protocol rules every command shares.

mod edit;
mod inspect;
mod protocol;

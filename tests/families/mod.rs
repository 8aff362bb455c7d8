//! One module per command family, plus the protocol rules every command shares.

mod inspect;
mod protocol;
mod redaction;

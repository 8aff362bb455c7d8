//! The black-box tests: every test runs the built binary as an agent would.

mod families;
mod support;

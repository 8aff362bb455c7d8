//! The composition root's entry: everything happens in `dispatch::main`.

fn main() -> std::process::ExitCode {
    aitools::dispatch::main()
}

//! `hydromech`: compiles machine descriptions into FMI 2.0 or 3.0 Co-Simulation FMUs.
//! The commands are in [`model_compiler::cli`], one module each.

use std::process::ExitCode;

fn main() -> ExitCode {
    // `hydromech check x.toml | head -1`: a closed pipe ends hydromech quietly, as it ends
    // `cat`, instead of a panic in `println!` (Rust ignores SIGPIPE by default).
    // SAFETY: setting a signal disposition before any thread starts.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    model_compiler::cli::main(std::env::args_os())
}

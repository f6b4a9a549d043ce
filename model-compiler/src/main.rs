//! `hydromech`: compiles machine descriptions into FMI 2.0 or 3.0 Co-Simulation FMUs.
//! The commands are in [`cli`], one module each.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // `hydromech check x.toml | head -1`: a closed pipe ends hydromech quietly, as it ends
    // `cat`, instead of a panic in `println!` (Rust ignores SIGPIPE by default).
    // SAFETY: setting a signal disposition before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match <cli::Cli as clap::Parser>::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    cli::run(cli.command)
}

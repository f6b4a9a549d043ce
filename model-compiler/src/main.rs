//! `hydromech`: compiles machine descriptions into FMI 2.0 Co-Simulation FMUs.

use clap::{Parser, Subcommand};
use model_compiler::diagnostic::{Diagnostic, Source};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "hydromech",
    version,
    about = "Compiles TOML machine descriptions into FMI 2.0 Co-Simulation FMUs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build FMUs (default: every models/*.toml into fmus/).
    Build {
        /// Description files; none means every *.toml in models/.
        models: Vec<PathBuf>,
        /// Output directory.
        #[arg(short = 'o', long = "output", default_value = "fmus")]
        output: PathBuf,
    },
    /// Parse, validate and lower descriptions without building.
    Check {
        #[arg(required = true)]
        models: Vec<PathBuf>,
    },
    /// Benchmark FMUs through their C ABI (and, with --scaling, generated machine families).
    Bench(model_compiler::bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
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
    match cli.command {
        Command::Build { models, output } => build(models, &output),
        Command::Check { models } => check(&models),
        Command::Bench(args) => model_compiler::bench::main(args),
    }
}

fn read(path: &Path) -> Result<Source, ()> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Source::new(path, text)),
        Err(e) => {
            eprintln!("{}: error: cannot read the file: {e}", path.display());
            eprintln!("help: check the path and the file's permissions");
            Err(())
        }
    }
}

fn report(source: &Source, errors: &[Diagnostic]) {
    for e in errors {
        eprintln!("{}\n", source.render(e));
    }
    let n = errors.len();
    eprintln!(
        "{}: {n} error{}",
        source.path.display(),
        if n == 1 { "" } else { "s" }
    );
}

/// Every `*.toml` in `models/`, sorted.
fn default_models() -> Result<Vec<PathBuf>, ()> {
    let dir = Path::new("models");
    let mut found: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
            .collect(),
        Err(_) => Vec::new(),
    };
    found.sort();
    if found.is_empty() {
        eprintln!(
            "error: no models given and no *.toml file in {}",
            std::env::current_dir()
                .map(|d| d.join(dir))
                .unwrap_or(dir.into())
                .display()
        );
        eprintln!(
            "help: run `hydromech build path/to/machine.toml`, or run from a directory that has models/*.toml"
        );
        return Err(());
    }
    Ok(found)
}

fn build(models: Vec<PathBuf>, output: &Path) -> ExitCode {
    let models = if models.is_empty() {
        match default_models() {
            Ok(m) => m,
            Err(()) => return ExitCode::from(1),
        }
    } else {
        models
    };
    let workspace = model_compiler::binary::workspace_root();
    let mut failed = 0;
    for path in &models {
        let started = Instant::now();
        let Ok(source) = read(path) else {
            failed += 1;
            continue;
        };
        match model_compiler::build(&source, output, &workspace) {
            Ok(fmu) => println!(
                "{}  ({:.2} s)",
                fmu.display(),
                started.elapsed().as_secs_f64()
            ),
            Err(errors) => {
                report(&source, &errors);
                failed += 1;
            }
        }
    }
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn check(models: &[PathBuf]) -> ExitCode {
    let mut failed = 0;
    for path in models {
        let Ok(source) = read(path) else {
            failed += 1;
            continue;
        };
        match model_compiler::check(&source) {
            Ok((_, l)) => {
                for w in &l.warnings {
                    eprintln!("{}\n", source.render(w));
                }
                print!(
                    "{}: ok ({})\n{}",
                    path.display(),
                    model_compiler::summary::headline(&l),
                    model_compiler::summary::report(&l)
                );
            }
            Err(errors) => {
                report(&source, &errors);
                failed += 1;
            }
        }
    }
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

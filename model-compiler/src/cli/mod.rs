//! The `hydromech` commands: [`args`] declares them (clap), [`run`] dispatches, and each
//! command's module does its work through the library; [`models`] reads the descriptions
//! they take.

mod args;
mod build;
mod check;
mod fit;
mod models;
mod package;
mod report;
mod simulate;
mod sweep;

use args::Cli;

use args::Command;
use args::DistributionArg;
use build::build;
use check::{check, inspect};
use fit::fit;
use package::{package, verify};
use report::report_pages;
use simulate::simulate;
use std::process::ExitCode;
use sweep::{SweepMode, sweep};

fn warnings(deny: bool) -> crate::Warnings {
    if deny {
        crate::Warnings::Deny
    } else {
        crate::Warnings::Allow
    }
}

/// The `hydromech` command line: parses `args` (the program name first) and runs the
/// command; what the `hydromech` binary and the Python package's `hydromech` script run.
pub fn main<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    match <Cli as clap::Parser>::try_parse_from(args) {
        Ok(cli) => run(cli.command),
        Err(e) => {
            let _ = e.print();
            if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}

/// What `hydromech --version` prints after the name: the version and the platforms whose
/// FMU runtimes this build carries.
pub fn version() -> &'static str {
    args::VERSION
}

/// Runs one command.
fn run(command: Command) -> ExitCode {
    match command {
        Command::Build {
            models,
            output,
            platforms,
            split,
            estimator,
            fmi,
            interface,
            deny_warnings,
        } => build(
            models,
            &output,
            &platforms,
            (split, estimator),
            crate::Flavour::new(fmi.into(), interface.into()),
            warnings(deny_warnings),
        ),
        Command::Check {
            models,
            deny_warnings,
        } => check(&models, warnings(deny_warnings)),
        Command::Report { models, output } => report_pages(models, &output),
        Command::Fit(args) => fit(args),
        Command::Bench(args) => crate::bench::main(args),
        Command::Package {
            models,
            output,
            platforms,
            allow_idle,
        } => package(models, &output, &platforms, allow_idle),
        Command::Verify {
            paths,
            exact,
            platform,
        } => verify(&paths, exact, platform),
        Command::Inspect { fmus } => inspect(&fmus),
        Command::Schema => {
            println!("{}", crate::schema::render());
            ExitCode::SUCCESS
        }
        Command::Simulate {
            run,
            set,
            output,
            plot,
            display_units,
        } => simulate(
            &run.model,
            crate::simulate::Options {
                stop_time: run.stop_time,
                step: run.step,
                inputs: run.inputs,
                set,
                output,
                vars: run.vars,
                progress: true,
                ..Default::default()
            },
            &plot,
            display_units,
        ),
        Command::Sweep {
            run,
            params,
            samples,
            distribution,
            seed,
            threads,
            cases_only,
            trajectories,
            dask,
            output,
        } => {
            use crate::sweep::grid::{Distribution, Sampling};
            let sampling = samples.map(|samples| Sampling {
                samples,
                distribution: match distribution {
                    DistributionArg::Uniform => Distribution::Uniform,
                    DistributionArg::Lhs => Distribution::LatinHypercube,
                },
                seed,
            });
            let mode = match (cases_only, dask) {
                (true, _) => SweepMode::CasesOnly,
                (false, Some(address)) => SweepMode::Dask(address),
                (false, None) => SweepMode::InProcess { trajectories },
            };
            sweep(run, &params, sampling, threads, mode, &output)
        }
    }
}

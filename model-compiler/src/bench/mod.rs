//! `hydromech bench`: the performance harness of issue 7.
//!
//! - [`fmi`]: a minimal FMI 2.0 Co-Simulation master (unzip, `dlopen`, the `fmi2*` C ABI);
//! - [`xml`]: what it reads from `modelDescription.xml` (GUID, value references);
//! - [`schedule`]: the fixed manoeuvre of each model (a table keyed by model name, with a
//!   generic fallback);
//! - [`run`]: the timed manoeuvre: `fmi2DoStep` wall time at the internal step and at 1 ms,
//!   Newton iterations, real-time factor, get/set overhead, instance memory;
//! - [`family`], [`scaling`]: generated N-stage machines stepped in-process
//!   (`--scaling`), [`svg`]: their plot;
//! - [`report`]: table, CSV, JSON.

pub mod family;
pub mod report;
pub mod run;
pub mod scaling;
pub mod schedule;
pub mod stats;
pub mod svg;

use crate::diagnostic::Source;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Communication steps to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CommSteps {
    /// The model's internal step only.
    Internal,
    /// 1 ms only.
    #[value(name = "1ms")]
    OneMs,
    /// Both (two runs).
    Both,
}

/// Arguments of `hydromech bench`.
#[derive(Clone, Debug, clap::Args)]
pub struct BenchArgs {
    /// FMUs (.fmu) or descriptions (.toml, built first); none means every models/*.toml
    /// (unless --scaling is given alone).
    pub models: Vec<PathBuf>,
    /// Time at most N communication steps per run (default: the default experiment's span).
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// Untimed steps on a separate instance before each timed run.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub warmup: usize,
    /// Which communication steps to time.
    #[arg(long, value_enum, default_value = "both")]
    pub comm: CommSteps,
    /// Write the results as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the results as CSV (one row per model and communication step).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Run the scaling study (generated N-stage boom chains with and without loops,
    /// stepped in-process); --steps sets its steps per member (default 1000).
    #[arg(long)]
    pub scaling: bool,
    /// Stage counts of the scaling study.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32")]
    pub stages: Vec<usize>,
    /// Write the scaling plot as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Set a parameter after fmi2Instantiate, before initialization (repeatable), e.g.
    /// `--set cylinder.friction_model=2`.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub set: Vec<(String, f64)>,
    /// Keep FMUs built from .toml arguments in this directory (default: a temporary one).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
}

fn parse_set(s: &str) -> Result<(String, f64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, got \"{s}\""))?;
    let v: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("\"{value}\" is not a number"))?;
    Ok((name.trim().to_string(), v))
}

fn write(path: &Path, text: &str) -> Result<(), ()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::write(path, text).map_err(|e| {
        eprintln!("error: cannot write {}: {e}", path.display());
    })
}

/// Every `*.toml` in `models/`, sorted.
fn default_models() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("models")
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// Builds a description into `dir`; returns the FMU path.
fn build_fmu(path: &Path, dir: &Path) -> Result<PathBuf, ()> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        eprintln!("{}: error: cannot read the file: {e}", path.display());
    })?;
    let source = Source::new(path, text);
    let started = std::time::Instant::now();
    match crate::build(&source, dir) {
        Ok(fmu) => {
            eprintln!(
                "built {} ({:.1} s)",
                fmu.display(),
                started.elapsed().as_secs_f64()
            );
            Ok(fmu)
        }
        Err(errors) => {
            for e in &errors {
                eprintln!("{}\n", source.render(e));
            }
            Err(())
        }
    }
}

/// `hydromech bench`.
pub fn main(args: BenchArgs) -> ExitCode {
    let env = report::Environment::detect();
    let mut failed = false;
    let models = if args.models.is_empty() && !args.scaling {
        let m = default_models();
        if m.is_empty() {
            eprintln!("error: no models given and no *.toml file in models/");
            eprintln!(
                "help: run `hydromech bench path/to/model.fmu` or run from the repository root"
            );
            return ExitCode::from(1);
        }
        m
    } else {
        args.models.clone()
    };

    // Build the descriptions first (so that build output does not interleave with timing).
    let temp = std::env::temp_dir().join(format!("hydromech-bench-fmus-{}", std::process::id()));
    let build_dir = args.output.clone().unwrap_or_else(|| temp.clone());
    let mut fmus = Vec::new();
    for path in &models {
        if path.extension().is_some_and(|x| x == "toml") {
            match build_fmu(path, &build_dir) {
                Ok(f) => fmus.push(f),
                Err(()) => failed = true,
            }
        } else {
            fmus.push(path.clone());
        }
    }

    let settings = run::Settings {
        steps: args.steps,
        warmup: args.warmup,
        comm_steps: match args.comm {
            CommSteps::Internal => vec![None],
            CommSteps::OneMs => vec![Some(1e-3)],
            CommSteps::Both => vec![None, Some(1e-3)],
        },
        parameters: args.set.clone(),
        ..run::Settings::default()
    };
    let mut results = Vec::new();
    for path in &fmus {
        let outcome =
            crate::host::fmi::Fmu::load(path).and_then(|fmu| run::bench_fmu(&fmu, &settings));
        match outcome {
            Ok(r) => {
                if r.runs.iter().any(|x| x.failure.is_some()) {
                    failed = true;
                }
                results.push(r);
            }
            Err(e) => {
                eprintln!("{}: error: {e}", path.display());
                failed = true;
            }
        }
    }
    if args.output.is_none() {
        let _ = std::fs::remove_dir_all(&temp);
    }
    if !results.is_empty() {
        println!(
            "hydromech bench — {} — commit {}{} — {} ({} CPUs) — {}",
            env.date,
            if env.commit.is_empty() {
                "?"
            } else {
                &env.commit
            },
            if env.dirty {
                " (+ uncommitted changes)"
            } else {
                ""
            },
            env.cpu,
            env.nproc,
            env.rustc
        );
        print!("{}", report::table(&results));
        print!("{}", report::notes(&results));
    }

    let mut rows = Vec::new();
    if args.scaling {
        let s = scaling::ScalingSettings {
            stages: args.stages.clone(),
            steps: args.steps.unwrap_or(1000),
            warmup: args.warmup.min(100),
        };
        eprintln!(
            "scaling study: {} steps of 1 ms per member, stages {:?}",
            s.steps, s.stages
        );
        rows = scaling::run(&s, |r| {
            eprintln!(
                "  {} N={}: {} unknowns, median {:.2} µs{}",
                r.family,
                r.stages,
                r.unknowns,
                r.step.median * 1e6,
                r.failure
                    .as_ref()
                    .map_or(String::new(), |f| format!(" FAILED: {f}"))
            )
        });
        if rows.iter().any(|r| r.failure.is_some()) {
            failed = true;
        }
        print!("{}", report::scaling_table(&rows));
        if let Some(svg_path) = &args.svg {
            let mut title = format!(
                "hydromech scaling study, dense and sparse paths ({}",
                env.date.get(..10).unwrap_or(&env.date)
            );
            if !env.commit.is_empty() {
                title += &format!(", commit {}", env.commit);
            }
            title += ")";
            failed |= write(svg_path, &svg::scaling_plot(&rows, &title)).is_err();
        }
    }

    if let Some(p) = &args.json {
        failed |= write(p, &report::json(&env, &results, &rows)).is_err();
    }
    if let Some(p) = &args.csv {
        failed |= write(p, &report::csv(&results, &env)).is_err();
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

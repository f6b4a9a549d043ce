//! `hydromech`: compiles machine descriptions into FMI 2.0 or 3.0 Co-Simulation FMUs.

use clap::{Parser, Subcommand};
use model_compiler::diagnostic::{Diagnostic, Source};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// `hydromech --version`: the version and the FMU platforms this build carries.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (FMU runtime for: ",
    env!("HYDROMECH_PLATFORMS"),
    ")"
);

#[derive(Parser)]
#[command(
    name = "hydromech",
    version = VERSION,
    about = "Compiles TOML machine descriptions into FMI 2.0 or 3.0 Co-Simulation FMUs"
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
        /// FMI platform of the binaries to include (repeatable, or comma-separated:
        /// `--platform linux64`); default: every platform this hydromech carries
        /// (`hydromech --version` lists them).
        #[arg(long = "platform", value_delimiter = ',')]
        platforms: Vec<String>,
        /// Also split each machine: `base` writes, for a description with [carries], the
        /// carrier and the carried machine as two FMUs (`<file>.carrier.fmu`,
        /// `<file>.<name>.fmu`) and `<model>-split.ssp` joining the mount to the base port;
        /// `actuators` writes the mechanism with force actuators for its cylinders
        /// (`<file>.mechanics.fmu`), the circuit with driven cylinders
        /// (`<file>.hydraulics.fmu`) and `<model>-actuators.ssp` joining them.
        #[arg(long, value_enum)]
        split: Option<SplitAt>,
        /// Also write `<file>.estimator.fmu` for each description with [estimator]: the
        /// machine with its error-state Kalman filter (inputs `sensor.<name>` and
        /// `sensor.<name>.valid`; outputs the estimate, each state's standard deviation and
        /// each sensor's innovation).
        #[arg(long)]
        estimator: bool,
        /// FMI version of the FMUs: 2 (FMI 2.0 Co-Simulation, the default) or 3 (FMI 3.0
        /// Co-Simulation, with intermediate update and early return; platform folders
        /// x86_64-linux, x86_64-windows, aarch64-linux).
        #[arg(long = "fmi", value_enum, default_value = "2")]
        fmi: FmiArg,
        /// Interface types: cs (Co-Simulation, hydromech's solver steps; the default), me
        /// (Model Exchange: the importer integrates the continuous states — what
        /// OpenModelica embeds in a Modelica model) or both.
        #[arg(long = "interface", value_enum, default_value = "cs")]
        interface: InterfaceArg,
    },
    /// Parse, validate and lower descriptions without building.
    Check {
        #[arg(required = true)]
        models: Vec<PathBuf>,
    },
    /// Print the interface of a built FMU (from its modelDescription.xml; nothing is loaded).
    Inspect {
        #[arg(required = true)]
        fmus: Vec<PathBuf>,
    },
    /// Print the JSON Schema (draft 2020-12) of the description format, for editors.
    Schema,
    /// Run an FMU (or a description, built first) through its C ABI and write the results
    /// as CSV.
    Simulate {
        #[command(flatten)]
        run: RunArgs,
        /// Set a parameter (or input) before initialization, in SI units: `--set name=value`.
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// Results CSV (`time` first, one row per communication point).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Also plot the recorded variables as SVG.
        #[arg(long)]
        plot: Option<PathBuf>,
    },
    /// Run a model over a grid of parameter values or random draws of them, in-process on
    /// all cores: one CSV row per case with its values, its status and the final, min, max
    /// and RMS of each output.
    Sweep {
        /// Each case's run (`--vars`: the summarized variables).
        #[command(flatten)]
        run: RunArgs,
        /// A swept parameter (repeatable; the cases are the full grid): `NAME=LOW..HIGH:COUNT`
        /// (`supply.p=150..200bar:5`, the unit after the upper end for both) or
        /// `NAME=A,B,C`. On a description, NAME may also be a numeric field of it (a design
        /// variant: `lift_cylinder.bore=90..110mm:5`).
        #[arg(long = "param", value_name = "NAME=SPEC", required = true)]
        params: Vec<String>,
        /// Draw N cases at random instead of the grid: `NAME=LOW..HIGH` intervals by
        /// `--distribution`, `NAME=normal(MEAN,SD)` from a normal distribution.
        #[arg(long, value_name = "N")]
        samples: Option<usize>,
        /// How intervals are drawn with --samples: uniform (independent draws) or lhs
        /// (Latin hypercube: one draw per stratum).
        #[arg(long, value_enum, default_value = "uniform")]
        distribution: DistributionArg,
        /// Random seed of --samples (the same seed, the same cases).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads; default: every core.
        #[arg(long)]
        threads: Option<usize>,
        /// Write the cases (checked against the FMU) instead of running them: `case` and
        /// the parameters per row, for a Dask cluster (python/hydromech, docs/sweeps.md).
        #[arg(long)]
        cases_only: bool,
        /// Also every case's outputs at every communication point, one long table (`case`,
        /// `time`, the outputs): `.parquet` or CSV.
        #[arg(long, value_name = "FILE")]
        trajectories: Option<PathBuf>,
        /// Run the cases on the Dask cluster whose scheduler is at this address
        /// (`tcp://host:8786`) through python/hydromech (`HYDROMECH_PYTHON`, default
        /// `python3`); CSV results only.
        #[arg(long, value_name = "ADDRESS")]
        dask: Option<String>,
        /// Results, one row per case: `.parquet` (Apache Parquet) or CSV.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// Identify description fields from a measurement: the measured inputs drive the
    /// model, Levenberg-Marquardt fits the mapped outputs to the measured channels over the
    /// window; prints the fitted values, standard errors, correlations and the agreement on
    /// the window and the hold-out; writes the fitted description.
    Fit(FitArgs),
    /// Write a Markdown page per model (drawing, FMU interface, plots of the standard
    /// manoeuvre of its `[report]` table) and an index, into docs/models/.
    Report {
        /// Description files; none means every *.toml in models/.
        models: Vec<PathBuf>,
        /// Output directory (pages `<name>.md`, pictures in `<name>/`).
        #[arg(short = 'o', long = "output", default_value = "docs/models")]
        output: PathBuf,
    },
    /// Benchmark FMUs through their C ABI (and, with --scaling, generated machine families).
    Bench(model_compiler::bench::BenchArgs),
    /// Write the supplier package: each FMU with its inputs, reference results, settings and
    /// README in the FMI Cross-Check tree `<output>/fmus/2.0/cs/<platform>/hydromech/<version>/<Model>/`.
    Package {
        /// Description files; none means every *.toml in models/.
        models: Vec<PathBuf>,
        /// Root of the tree.
        #[arg(short = 'o', long = "output", default_value = "package")]
        output: PathBuf,
        /// FMI platforms (as for `build`); default: every platform this hydromech carries.
        #[arg(long = "platform", value_delimiter = ',')]
        platforms: Vec<String>,
    },
    /// Re-run packaged FMUs against their `_in.csv` and `_ref.opt`, compare with `_ref.csv`
    /// in the cross-check's tolerance tube, print a verdict per output; exit 1 on a failure.
    Verify {
        /// A package directory (searched for <Model>/<Model>.fmu) or an .fmu with its files.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Also require every value to equal the reference bit for bit.
        #[arg(long)]
        exact: bool,
        /// The binary to run: linux64, or win64 (under wine); default: the platform folder
        /// of each FMU in the tree (linux64 where that one cannot run here).
        #[arg(long)]
        platform: Option<String>,
    },
}

fn main() -> ExitCode {
    // `hydromech check x.toml | head -1`: a closed pipe ends hydromech quietly, as it ends
    // `cat`, instead of a panic in `println!` (Rust ignores SIGPIPE by default).
    // SAFETY: setting a signal disposition before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
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
        Command::Build {
            models,
            output,
            platforms,
            split,
            estimator,
            fmi,
            interface,
        } => build(
            models,
            &output,
            &platforms,
            (split, estimator),
            model_compiler::Flavour::new(fmi.into(), interface.into()),
        ),
        Command::Check { models } => check(&models),
        Command::Report { models, output } => report_pages(models, &output),
        Command::Fit(args) => fit(args),
        Command::Bench(args) => model_compiler::bench::main(args),
        Command::Package {
            models,
            output,
            platforms,
        } => package(models, &output, &platforms),
        Command::Verify {
            paths,
            exact,
            platform,
        } => verify(&paths, exact, platform),
        Command::Inspect { fmus } => inspect(&fmus),
        Command::Schema => {
            println!("{}", model_compiler::schema::render());
            ExitCode::SUCCESS
        }
        Command::Simulate {
            run,
            set,
            output,
            plot,
        } => simulate(
            &run.model,
            model_compiler::simulate::Options {
                stop_time: run.stop_time,
                step: run.step,
                inputs: run.inputs,
                set,
                output,
                plot,
                vars: run.vars,
                progress: true,
                ..Default::default()
            },
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
            use model_compiler::sweep::grid::{Distribution, Sampling};
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

/// Where `hydromech sweep` runs its cases.
enum SweepMode {
    InProcess { trajectories: Option<PathBuf> },
    CasesOnly,
    Dask(String),
}

/// `hydromech sweep`.
fn sweep(
    run: RunArgs,
    params: &[String],
    sampling: Option<model_compiler::sweep::grid::Sampling>,
    threads: Option<usize>,
    mode: SweepMode,
    output: &Path,
) -> ExitCode {
    use model_compiler::{simulate, sweep};
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(1)
    };
    let ranges = match params
        .iter()
        .map(|p| sweep::grid::Range::parse(p))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let mut input_series = Vec::new();
    if let Some(p) = &run.inputs {
        match std::fs::read_to_string(p)
            .map_err(|e| format!("{}: cannot read the inputs: {e}", p.display()))
            .and_then(|t| simulate::parse_inputs(&t).map_err(|e| format!("{}: {e}", p.display())))
        {
            Ok(s) => input_series.push(s),
            Err(e) => return fail(e),
        }
    }
    let prepared = match simulate::prepare(&run.model) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let fmu = match model_compiler::bench::fmi::Fmu::load(&prepared.fmu) {
        Ok(f) => f,
        Err(e) => return fail(e),
    };
    let options = sweep::Options {
        ranges,
        sampling,
        run: simulate::Options {
            stop_time: run.stop_time,
            step: run.step,
            input_series,
            vars: run.vars,
            ..Default::default()
        },
        threads: threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        progress: true,
        trajectories: matches!(
            &mode,
            SweepMode::InProcess {
                trajectories: Some(_)
            }
        ),
        variants: None,
    };
    // A description: its fields can be swept too (in-process).
    let is_description = run.model.extension().is_some_and(|e| e == "toml");
    let options = if is_description && matches!(mode, SweepMode::InProcess { .. }) {
        let file = run.model.display().to_string();
        let variants = std::fs::read_to_string(&run.model)
            .map_err(|e| format!("{file}: {e}"))
            .and_then(|text| {
                sweep::variants::Variants::new(
                    model_compiler::fit::field::Document::parse(&file, &text)?,
                    &fmu.description.guid,
                )
            });
        match variants {
            Ok(v) => sweep::Options {
                variants: Some(std::sync::Arc::new(v)),
                ..options
            },
            Err(e) => return fail(e),
        }
    } else {
        options
    };
    let trajectories = match mode {
        SweepMode::CasesOnly => {
            return match sweep::cases_csv(&fmu, &options) {
                Ok(csv) => match std::fs::write(output, csv) {
                    Ok(()) => {
                        println!("{}", output.display());
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(format!("{}: {e}", output.display())),
                },
                Err(e) => fail(e),
            };
        }
        SweepMode::Dask(address) => {
            let inputs = run.inputs.as_deref();
            return match sweep::dask::run(&prepared.fmu, &fmu, &options, inputs, &address, output) {
                Ok(summary) => {
                    println!("{summary}");
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            };
        }
        SweepMode::InProcess { trajectories } => trajectories,
    };
    let sweep = match sweep::run(&fmu, &options) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if let Err(e) = sweep.to_table().write(output) {
        return fail(e);
    }
    if let Some(Err(e)) = trajectories.map(|path| sweep.trajectories().write(&path)) {
        return fail(e);
    }
    println!(
        "{}  ({} cases, {} failed; {} thread(s), {:.2} s, {:.1} ms per case median)",
        output.display(),
        sweep.cases.len(),
        sweep.failures(),
        sweep.threads,
        sweep.wall.as_secs_f64(),
        1e3 * sweep.median_case_seconds()
    );
    ExitCode::SUCCESS
}

/// What `hydromech simulate` and each case of `hydromech sweep` run.
#[derive(clap::Args)]
struct RunArgs {
    /// A description (`.toml`, built into a temporary directory) or an `.fmu`.
    model: PathBuf,
    /// End of the run [s].
    #[arg(long = "stop-time")]
    stop_time: f64,
    /// Communication step [s]; default: the FMU's default experiment step size.
    #[arg(long)]
    step: Option<f64>,
    /// Input time series: CSV with `time` first, then input names (linear interpolation).
    #[arg(long)]
    inputs: Option<PathBuf>,
    /// Recorded variables, comma-separated; default: every output.
    #[arg(long, value_delimiter = ',')]
    vars: Vec<String>,
}

/// `hydromech fit`.
#[derive(clap::Args)]
struct FitArgs {
    /// The machine description (`.toml`) whose fields are fitted.
    model: PathBuf,
    /// The measurement: CSV with a header row of column names.
    #[arg(long)]
    data: PathBuf,
    /// The time column, `COLUMN` or `COLUMN[unit]`; default `time`, else the first column.
    #[arg(long)]
    time: Option<String>,
    /// A fitted channel: `OUTPUT=COLUMN[unit]` (repeatable), e.g. `lift.angle=z1_deg[deg]`;
    /// without `[unit]` the column is SI.
    #[arg(long = "map", value_name = "OUTPUT=COLUMN", required = true)]
    maps: Vec<String>,
    /// A measured input driving the model: `INPUT=COLUMN[unit]` (repeatable).
    #[arg(long = "input", value_name = "INPUT=COLUMN")]
    inputs: Vec<String>,
    /// A free field of the description and its bounds: `FIELD=LOW..HIGH` (repeatable), e.g.
    /// `lift_cylinder.friction.coulomb=1..4kN`, `lift_valve.edges.BT.coefficient[0][1]=2e-7..2e-6`.
    #[arg(long = "free", value_name = "FIELD=LOW..HIGH", required = true)]
    free: Vec<String>,
    /// A channel's standard deviation: `OUTPUT=SIGMA` (e.g. `lift.angle=0.1deg`); default:
    /// the measured channel's standard deviation over the window (each channel weighs alike).
    #[arg(long = "weight", value_name = "OUTPUT=SIGMA")]
    weights: Vec<String>,
    /// The fitted span `FROM..TO` [s]; the rest of the record is the hold-out. Default: all.
    #[arg(long)]
    window: Option<String>,
    /// Communication step [s]; default: the model's default experiment step size.
    #[arg(long)]
    step: Option<f64>,
    /// Worker threads for the Jacobian's simulations; default: every core.
    #[arg(long)]
    threads: Option<usize>,
    /// Simulations at most.
    #[arg(long, default_value_t = 400)]
    max_simulations: usize,
    /// The fitted description (the source with the fitted values and their provenance).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// The fitted description's `model.name`; default: the output file's stem.
    #[arg(long)]
    name: Option<String>,
    /// A folder for before/after plots (SVG), one per channel.
    #[arg(long)]
    plots: Option<PathBuf>,
    /// The record and the runs with the start and the fitted values as CSV.
    #[arg(long)]
    results: Option<PathBuf>,
}

/// `hydromech sweep --distribution`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum DistributionArg {
    Uniform,
    Lhs,
}

/// `hydromech build --fmi`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum FmiArg {
    #[value(name = "2")]
    Two,
    #[value(name = "3")]
    Three,
}

impl From<FmiArg> for model_compiler::FmiVersion {
    fn from(a: FmiArg) -> Self {
        match a {
            FmiArg::Two => model_compiler::FmiVersion::Fmi2,
            FmiArg::Three => model_compiler::FmiVersion::Fmi3,
        }
    }
}

/// `hydromech build --interface`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum InterfaceArg {
    Cs,
    Me,
    Both,
}

impl From<InterfaceArg> for model_compiler::Interface {
    fn from(a: InterfaceArg) -> Self {
        match a {
            InterfaceArg::Cs => model_compiler::Interface::CoSimulation,
            InterfaceArg::Me => model_compiler::Interface::ModelExchange,
            InterfaceArg::Both => model_compiler::Interface::Both,
        }
    }
}

/// Where `hydromech build --split` cuts a machine.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum SplitAt {
    /// At the base of the machine a carrier carries ([carries]).
    Base,
    /// At the cylinders and rotary motors: mechanics and hydraulics as two FMUs.
    Actuators,
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

/// 1 if any model failed, else success.
fn exit_code(failed: usize) -> ExitCode {
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The given descriptions, or every `models/*.toml` when none are given.
fn models_or_default(models: Vec<PathBuf>) -> Result<Vec<PathBuf>, ()> {
    if models.is_empty() {
        default_models()
    } else {
        Ok(models)
    }
}

/// Runs `job` on each description (every `models/*.toml` when none are given) with the
/// time it started; exit 1 if any could not be read or its job failed.
fn each_model(models: Vec<PathBuf>, mut job: impl FnMut(&Source, Instant) -> bool) -> ExitCode {
    let Ok(models) = models_or_default(models) else {
        return ExitCode::from(1);
    };
    let mut failed = 0;
    for path in &models {
        let started = Instant::now();
        let Ok(source) = read(path) else {
            failed += 1;
            continue;
        };
        if !job(&source, started) {
            failed += 1;
        }
    }
    exit_code(failed)
}

fn build(
    models: Vec<PathBuf>,
    output: &Path,
    platforms: &[String],
    (split, estimator): (Option<SplitAt>, bool),
    flavour: model_compiler::Flavour,
) -> ExitCode {
    if flavour != model_compiler::Flavour::default() && (split.is_some() || estimator) {
        eprintln!(
            "error: --split and --estimator build FMI 2.0 Co-Simulation FMUs (and SSP files) only"
        );
        eprintln!("help: leave out --fmi 3 and --interface, or --split and --estimator");
        return ExitCode::from(1);
    }
    // Named descriptions without [carries] get a note; models/ is split where it can be.
    let named = !models.is_empty();
    each_model(models, |source, started| {
        // A system description becomes one SSP archive with its components' FMUs.
        if model_compiler::system::is_system(&source.text) {
            if flavour != model_compiler::Flavour::default() {
                eprintln!(
                    "{}: a system description builds an SSP of FMI 2.0 Co-Simulation FMUs; build it without --fmi 3 and --interface",
                    source.path.display()
                );
                return false;
            }
            return match model_compiler::system::build(source, output, platforms) {
                Ok(ssp) => {
                    println!(
                        "{}  ({:.2} s)",
                        ssp.display(),
                        started.elapsed().as_secs_f64()
                    );
                    true
                }
                Err(errors) => {
                    for e in errors {
                        eprintln!("{e}\n");
                    }
                    eprintln!("{}: the system was not built", source.path.display());
                    false
                }
            };
        }
        match model_compiler::build_version(source, output, platforms, flavour) {
            Ok(fmu) => {
                println!(
                    "{}  ({:.2} s)",
                    fmu.display(),
                    started.elapsed().as_secs_f64()
                );
                let split = match split {
                    Some(SplitAt::Base) => split_at_base(source, output, platforms, named),
                    Some(SplitAt::Actuators) => {
                        split_at_actuators(source, output, platforms, named)
                    }
                    None => true,
                };
                split && (!estimator || with_estimator(source, output, platforms, named))
            }
            Err(errors) => {
                report(source, &errors);
                false
            }
        }
    })
}

/// `--split base` of one description.
fn split_at_base(source: &Source, output: &Path, platforms: &[String], named: bool) -> bool {
    let carries = model_compiler::description::Description::parse(&source.text)
        .is_ok_and(|d| d.carries.is_some());
    if !carries {
        if !named {
            return true;
        }
        eprintln!(
            "{}: note: no [carries], nothing to split at a base",
            source.path.display()
        );
        return true;
    }
    built_split(
        source,
        model_compiler::compose::write_split(source, output, platforms),
    )
}

/// `--split actuators` of one description (one without cylinders or motors is left whole,
/// with a note when it was named).
fn split_at_actuators(source: &Source, output: &Path, platforms: &[String], named: bool) -> bool {
    let actuators = model_compiler::description::Description::parse(&source.text).is_ok_and(|d| {
        d.hydraulics
            .is_some_and(|h| !h.cylinders.is_empty() || !h.motors.is_empty())
    });
    if !actuators {
        if named {
            eprintln!(
                "{}: note: no cylinders or motors, nothing to split at actuators",
                source.path.display()
            );
        }
        return true;
    }
    built_split(
        source,
        model_compiler::actuator_split::write_split(source, output, platforms),
    )
}

/// `--estimator` of one description (one without [estimator] is left alone, with a note
/// when it was named).
fn with_estimator(source: &Source, output: &Path, platforms: &[String], named: bool) -> bool {
    let declared = model_compiler::description::Description::parse(&source.text)
        .is_ok_and(|d| d.estimator.is_some());
    if !declared {
        if named {
            eprintln!(
                "{}: note: no [estimator], no estimator FMU",
                source.path.display()
            );
        }
        return true;
    }
    match model_compiler::build_estimator(source, output, platforms) {
        Ok(fmu) => {
            println!("{}", fmu.display());
            true
        }
        Err(errors) => {
            report(source, &errors);
            false
        }
    }
}

/// Prints the files a split wrote, or its errors; whether it was built.
fn built_split(source: &Source, result: Result<Vec<PathBuf>, Vec<String>>) -> bool {
    match result {
        Ok(paths) => {
            for p in paths {
                println!("{}", p.display());
            }
            true
        }
        Err(errors) => {
            for e in errors {
                eprintln!("{e}\n");
            }
            eprintln!("{}: the split was not built", source.path.display());
            false
        }
    }
}

fn report_pages(models: Vec<PathBuf>, output: &Path) -> ExitCode {
    let Ok(models) = models_or_default(models) else {
        return ExitCode::from(1);
    };
    if let Err(e) = std::fs::create_dir_all(output) {
        eprintln!("error: {}: {e}", output.display());
        return ExitCode::from(1);
    }
    let started = Instant::now();
    let mut failed = 0;
    for path in &models {
        let Ok(source) = read(path) else {
            failed += 1;
            continue;
        };
        let command = format!(
            "cargo run --release -p model-compiler -- report {}",
            path.display()
        );
        match model_compiler::report::report(&source, output, &command) {
            Ok(o) => {
                println!(
                    "{}  ({} files, {:.1} s)",
                    o.page.display(),
                    o.files.len(),
                    o.seconds
                );
                if let Some(e) = o.failure {
                    eprintln!("{}: error: the run stopped early: {e}", path.display());
                    failed += 1;
                }
            }
            Err(e) => {
                eprintln!("{e}\n");
                eprintln!("{}: the page was not written", path.display());
                failed += 1;
            }
        }
    }
    match model_compiler::report::write_index(output) {
        Ok(p) => println!(
            "{}  ({:.1} s in all)",
            p.display(),
            started.elapsed().as_secs_f64()
        ),
        Err(e) => {
            eprintln!("error: {e}");
            failed += 1;
        }
    }
    exit_code(failed)
}

fn package(models: Vec<PathBuf>, output: &Path, platforms: &[String]) -> ExitCode {
    use model_compiler::crosscheck::package;
    let code = each_model(models, |source, started| {
        match package::package(source, output, platforms) {
            Ok(p) => {
                for d in &p.directories {
                    println!("{}", d.display());
                }
                println!(
                    "  StepSize {:?} s, _in.csv {} × {}{}, _ref.csv {} × {}  ({:.1} s)",
                    p.opt.step_size,
                    p.inputs.0,
                    p.inputs.1,
                    if p.resampled {
                        " (on the communication points)"
                    } else {
                        ""
                    },
                    p.reference.0,
                    p.reference.1,
                    started.elapsed().as_secs_f64()
                );
                true
            }
            Err(e) => {
                eprintln!("{e}\n");
                eprintln!("{}: not packaged", source.path.display());
                false
            }
        }
    });
    match package::write_index(output) {
        Ok(p) => {
            println!("{}", p.display());
            code
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn verify(paths: &[PathBuf], exact: bool, platform: Option<String>) -> ExitCode {
    use model_compiler::crosscheck::verify;
    let options = verify::Options { exact, platform };
    let (mut passed, mut failed) = (0, 0);
    for path in paths {
        let cases = match verify::cases(path) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
                continue;
            }
        };
        for case in &cases {
            let v = verify::verify(case, &options);
            print!("{}", v.report);
            if v.passed {
                passed += 1;
            } else {
                failed += 1;
            }
        }
    }
    println!("verify: {passed} passed, {failed} failed");
    exit_code(failed)
}

fn check(models: &[PathBuf]) -> ExitCode {
    let mut failed = 0;
    for path in models {
        let Ok(source) = read(path) else {
            failed += 1;
            continue;
        };
        if model_compiler::system::is_system(&source.text) {
            match model_compiler::system::load(&source) {
                Ok(sys) => println!("{}: ok ({})", path.display(), sys.summary()),
                Err(errors) => {
                    for e in errors {
                        eprintln!("{e}\n");
                    }
                    failed += 1;
                }
            }
            continue;
        }
        match model_compiler::check(&source) {
            Ok((_, l)) => {
                if let Err(errors) = model_compiler::report::check_csv(&source, &l) {
                    report(&source, &errors);
                    failed += 1;
                    continue;
                }
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
    exit_code(failed)
}

fn inspect(fmus: &[PathBuf]) -> ExitCode {
    let mut failed = false;
    for (k, path) in fmus.iter().enumerate() {
        match model_compiler::inspect::read_fmu(path) {
            Ok(i) => {
                if k > 0 {
                    println!();
                }
                println!("{}:", path.display());
                print!("{}", model_compiler::inspect::render(&i));
            }
            Err(e) => {
                eprintln!("error: {e}");
                eprintln!(
                    "help: give the path of an FMI 2.0 .fmu file (a zip with modelDescription.xml)"
                );
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn simulate(model: &Path, options: model_compiler::simulate::Options) -> ExitCode {
    use model_compiler::simulate;
    let prepared = match simulate::prepare(model) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    let (results, error) = match simulate::run(&prepared.fmu, &options) {
        Ok(r) => (r, None),
        Err((r, e)) => (r, Some(e)),
    };
    let mut failed = false;
    if !results.time.is_empty() {
        if let Err(e) = std::fs::write(&options.output, results.to_csv()) {
            eprintln!("error: {}: {e}", options.output.display());
            failed = true;
        } else {
            println!(
                "{}  ({} rows, {} variables)",
                options.output.display(),
                results.time.len(),
                results.names.len()
            );
        }
        if let Some(p) = &options.plot {
            let title = model
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Err(e) = std::fs::write(p, simulate::plot(&results, &title)) {
                eprintln!("error: {}: {e}", p.display());
                failed = true;
            } else {
                println!("{}", p.display());
            }
        }
    }
    if let Some(e) = error {
        eprintln!("error: {e}");
        failed = true;
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `hydromech fit`.
fn fit(a: FitArgs) -> ExitCode {
    use model_compiler::fit;
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(1)
    };
    let window = match a.window.as_deref().map(|w| {
        w.split_once("..")
            .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)))
            .ok_or_else(|| format!("--window {w}: expected FROM..TO in seconds, e.g. 0..14"))
    }) {
        None => None,
        Some(Ok(w)) => Some(w),
        Some(Err(e)) => return fail(e),
    };
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let o = fit::Options {
        model: a.model.clone(),
        data: a.data.clone(),
        time: a.time,
        maps: a.maps,
        inputs: a.inputs,
        free: a.free,
        weights: a.weights,
        window,
        step: a.step,
    };
    let setup = match fit::Setup::prepare(&o) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    eprintln!(
        "fitting {} field(s) to {} channel(s) × {} samples on {threads} thread(s)",
        setup.free.len(),
        setup.fit.outputs.len(),
        setup.fit.times.len()
    );
    let began = Instant::now();
    let result = fit::fit(&setup, threads, a.max_simulations, true);
    let (before, after) = match (
        setup.agreement(&setup.start),
        setup.agreement(&result.values),
    ) {
        (Ok(b), Ok(f)) => (b, f),
        (Err(e), _) | (_, Err(e)) => return fail(e),
    };
    print!("{}", fit::report::summary(&setup, &result, &before, &after));
    println!("({:.1} s)", began.elapsed().as_secs_f64());
    if let Some(dir) = &a.plots {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return fail(format!("{}: {e}", dir.display()));
        }
        for (file, svg) in fit::report::plots(&setup, &before, &after) {
            if let Err(e) = std::fs::write(dir.join(&file), svg) {
                return fail(format!("{}: {e}", dir.join(&file).display()));
            }
        }
    }
    if let Some(path) = &a.results {
        let csv = fit::report::trajectories_csv(&setup, &before, &after);
        if let Err(e) = std::fs::write(path, csv) {
            return fail(format!("{}: {e}", path.display()));
        }
    }
    if let Some(out) = &a.output {
        let name = a
            .name
            .or_else(|| out.file_stem().map(|s| s.to_string_lossy().into_owned()));
        let date = model_compiler::timestamp::build_time().to_xml();
        let command: Vec<String> = std::iter::once("hydromech".to_string())
            .chain(std::env::args().skip(1))
            .map(|x| if x.contains(' ') { format!("'{x}'") } else { x })
            .collect();
        let text = fit::report::fitted_description(
            &setup,
            &result,
            &before,
            &after,
            name.as_deref(),
            &a.data.display().to_string(),
            &date[..10],
            &command.join(" "),
        );
        if let Err(e) = std::fs::write(out, text) {
            return fail(format!("{}: {e}", out.display()));
        }
        eprintln!("wrote {}", out.display());
    }
    ExitCode::SUCCESS
}

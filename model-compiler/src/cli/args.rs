//! The command line: every command, its arguments and their help texts (clap).

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// `hydromech --version`: the version and the FMU platforms this build carries.
pub(crate) const VERSION: &str = concat!(
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
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
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
        /// Treat the descriptions' warnings (implausible values, …) as errors: nothing is
        /// built from a description that has any (for CI).
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Parse, validate and lower descriptions without building; print errors and
    /// warnings (implausible values, unbalanced starts, …).
    Check {
        #[arg(required = true)]
        models: Vec<PathBuf>,
        /// Treat warnings as errors: exit 1 when a description has any (for CI).
        #[arg(long)]
        deny_warnings: bool,
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
        /// Also plot the results as SVG, in the FMU's display units (bar, deg, ...), panels
        /// grouped by element. Values (repeatable, comma-separated): the SVG file (ending in
        /// `.svg`; default: the CSV's name with .svg) and/or the variables to plot, names or
        /// globs (`boom_cylinder.*`, `*.p_*`; default: every recorded variable).
        #[arg(
            long,
            value_name = "FILE.svg|NAME|GLOB",
            value_delimiter = ',',
            num_args = 1
        )]
        plot: Vec<String>,
        /// Write the CSV in the display units the FMU declares (`"boom_cylinder.p_cap [bar]"`)
        /// instead of SI: for reading; SI CSVs are what FMI tools and `--inputs` take.
        #[arg(long)]
        display_units: bool,
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
        /// (`tcp://host:8786`) through the Python package hydromech (`HYDROMECH_PYTHON`,
        /// default `python3`; `pip install "hydromech[dask]"`), its workers running this
        /// engine.
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
    Bench(crate::bench::BenchArgs),
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
        /// Package a machine whose description has no `[report]` manoeuvre: the reference
        /// run holds every input at its start value (refused without this flag).
        #[arg(long)]
        allow_idle: bool,
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

/// What `hydromech simulate` and each case of `hydromech sweep` run.
#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// A description (`.toml`, built into a temporary directory) or an `.fmu`.
    pub(crate) model: PathBuf,
    /// End of the run [s].
    #[arg(long = "stop-time")]
    pub(crate) stop_time: f64,
    /// Communication step [s]; default: the FMU's default experiment step size.
    #[arg(long)]
    pub(crate) step: Option<f64>,
    /// Input time series: CSV with `time` first, then input names (linear interpolation).
    #[arg(long)]
    pub(crate) inputs: Option<PathBuf>,
    /// Recorded variables, comma-separated; default: every output.
    #[arg(long, value_delimiter = ',')]
    pub(crate) vars: Vec<String>,
}

/// `hydromech fit`.
#[derive(clap::Args)]
pub(crate) struct FitArgs {
    /// The machine description (`.toml`) whose fields are fitted.
    pub(crate) model: PathBuf,
    /// The measurement: CSV with a header row of column names.
    #[arg(long)]
    pub(crate) data: PathBuf,
    /// The time column, `COLUMN` or `COLUMN[unit]`; default `time`, else the first column.
    #[arg(long)]
    pub(crate) time: Option<String>,
    /// A fitted channel: `OUTPUT=COLUMN[unit]` (repeatable), e.g. `lift.angle=z1_deg[deg]`;
    /// without `[unit]` the column is SI.
    #[arg(long = "map", value_name = "OUTPUT=COLUMN", required = true)]
    pub(crate) maps: Vec<String>,
    /// A measured input driving the model: `INPUT=COLUMN[unit]` (repeatable).
    #[arg(long = "input", value_name = "INPUT=COLUMN")]
    pub(crate) inputs: Vec<String>,
    /// A free field of the description and its bounds: `FIELD=LOW..HIGH` (repeatable), e.g.
    /// `lift_cylinder.friction.coulomb=1..4kN`, `lift_valve.edges.BT.coefficient[0][1]=2e-7..2e-6`.
    #[arg(long = "free", value_name = "FIELD=LOW..HIGH", required = true)]
    pub(crate) free: Vec<String>,
    /// A channel's standard deviation: `OUTPUT=SIGMA` (e.g. `lift.angle=0.1deg`); default:
    /// the measured channel's standard deviation over the window (each channel weighs alike).
    #[arg(long = "weight", value_name = "OUTPUT=SIGMA")]
    pub(crate) weights: Vec<String>,
    /// The fitted span `FROM..TO` [s]; the rest of the record is the hold-out. Default: all.
    #[arg(long)]
    pub(crate) window: Option<String>,
    /// Communication step [s]; default: the model's default experiment step size.
    #[arg(long)]
    pub(crate) step: Option<f64>,
    /// Worker threads for the Jacobian's simulations; default: every core.
    #[arg(long)]
    pub(crate) threads: Option<usize>,
    /// Simulations at most.
    #[arg(long, default_value_t = 400)]
    pub(crate) max_simulations: usize,
    /// The fitted description (the source with the fitted values and their provenance).
    #[arg(short = 'o', long = "output")]
    pub(crate) output: Option<PathBuf>,
    /// The fitted description's `model.name`; default: the output file's stem.
    #[arg(long)]
    pub(crate) name: Option<String>,
    /// A folder for before/after plots (SVG), one per channel.
    #[arg(long)]
    pub(crate) plots: Option<PathBuf>,
    /// The record and the runs with the start and the fitted values as CSV.
    #[arg(long)]
    pub(crate) results: Option<PathBuf>,
}

/// `hydromech sweep --distribution`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum DistributionArg {
    Uniform,
    Lhs,
}

/// `hydromech build --fmi`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum FmiArg {
    #[value(name = "2")]
    Two,
    #[value(name = "3")]
    Three,
}

impl From<FmiArg> for crate::FmiVersion {
    fn from(a: FmiArg) -> Self {
        match a {
            FmiArg::Two => crate::FmiVersion::Fmi2,
            FmiArg::Three => crate::FmiVersion::Fmi3,
        }
    }
}

/// `hydromech build --interface`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum InterfaceArg {
    Cs,
    Me,
    Both,
}

impl From<InterfaceArg> for crate::Interface {
    fn from(a: InterfaceArg) -> Self {
        match a {
            InterfaceArg::Cs => crate::Interface::CoSimulation,
            InterfaceArg::Me => crate::Interface::ModelExchange,
            InterfaceArg::Both => crate::Interface::Both,
        }
    }
}

/// Where `hydromech build --split` cuts a machine.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum SplitAt {
    /// At the base of the machine a carrier carries ([carries]).
    Base,
    /// At the cylinders and rotary motors: mechanics and hydraulics as two FMUs.
    Actuators,
}

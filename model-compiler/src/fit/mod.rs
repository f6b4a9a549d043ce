//! `hydromech fit`: identifies description fields from a measurement (issue 20).
//!
//! The measured inputs drive the model (the description compiled and run in-process, see
//! [`experiment`]); the weighted differences between the mapped outputs and the measured
//! channels over the fit window are minimized by Levenberg–Marquardt (MINPACK's
//! trust-region algorithm, the `levenberg-marquardt` crate) over the free fields, kept
//! inside their bounds by the sine transform ([`free::to_bounded`]). The Jacobian's columns
//! are forward differences, one simulation each, run in parallel on the sweep's worker
//! pool. At the optimum the standard errors and correlations follow from the Jacobian
//! (`s² (JᵀJ)⁻¹`, `s²` the residual variance); the whole record is then simulated with the
//! start and the fitted values and the agreement reported on the fit window and on the
//! rest of the record (the hold-out) separately.
//!
//! Everything the user gives is checked before the first simulation: each free field exists
//! (did you mean), its bounds hold the start value and compile (the description's own
//! validation is the fields' min and max), each mapped column exists, each mapped variable
//! is an output or input of the model, and the measurement's samples lie on the model's
//! communication grid.

pub mod data;
pub mod experiment;
pub mod field;
pub mod free;
pub mod report;
pub mod setup;
pub mod solve;

pub use setup::Setup;
pub use solve::fit;

use experiment::Trajectory;
use nalgebra::DMatrix;
use std::path::PathBuf;

/// What `hydromech fit` was asked for.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub model: PathBuf,
    pub data: PathBuf,
    /// `COLUMN` or `COLUMN[unit]`; default `time`, else the first column.
    pub time: Option<String>,
    /// `--map OUTPUT=COLUMN[unit]`: the fitted channels.
    pub maps: Vec<String>,
    /// `--input INPUT=COLUMN[unit]`: the measured inputs.
    pub inputs: Vec<String>,
    /// `--free FIELD=LOW..HIGH`.
    pub free: Vec<String>,
    /// `--weight OUTPUT=SIGMA`: the channel's standard deviation (with a unit); default
    /// the measured channel's standard deviation over the fit window.
    pub weights: Vec<String>,
    /// `--window FROM..TO` [s]: the fitted span; the rest of the record is the hold-out.
    pub window: Option<(f64, f64)>,
    /// Communication step; default the model's default experiment step.
    pub step: Option<f64>,
}

/// A fit's outcome.
#[derive(Clone, Debug)]
pub struct Fit {
    pub values: Vec<f64>,
    /// Standard errors (NaN: at a bound, or not identifiable: JᵀJ singular).
    pub std_errors: Vec<f64>,
    /// Within 0.1 % of the range from a bound.
    pub at_bound: Vec<bool>,
    pub correlation: DMatrix<f64>,
    /// ½·Σr² at the start and at the end (weighted residuals over the fit window).
    pub cost_start: f64,
    pub cost: f64,
    pub residuals: usize,
    pub simulations: usize,
    pub termination: String,
}

/// Agreement of one simulation with the record, per channel.
#[derive(Clone, Debug)]
pub struct Agreement {
    /// Over the fit window and over the hold-out (NaN when empty).
    pub window: Vec<Errors>,
    pub holdout: Vec<Errors>,
    pub trajectory: Trajectory,
}

/// A channel's errors over a span (SI).
#[derive(Clone, Copy, Debug)]
pub struct Errors {
    pub rms: f64,
    pub max: f64,
    /// When the largest error occurred [s].
    pub at: f64,
}

/// A weighted residual for a sample the simulation did not reach (it failed before): large
/// enough that the optimizer rejects the step, finite so that it can.
pub(crate) const UNREACHED: f64 = 1e3;

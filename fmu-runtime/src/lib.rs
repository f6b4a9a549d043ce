//! # fmu-runtime
//!
//! The inside of every hydromech FMU: a monolithic multibody–hydraulic solver and the
//! FMI 2.0 Co-Simulation C ABI around it.
//!
//! - [`model`]: the compiled model (immutable: topology, parameters, interface table).
//! - [`Instance`]: the per-run state (coordinates, pressures, integrator history) and the
//!   step loop; it allocates nothing after construction.
//! - [`mechanics`]: semi-recursive kinematics and dynamics in relative joint coordinates.
//! - [`hydraulics`]: lumped-fluid control volumes, valves, pumps and cylinders.
//! - [`contact`]: collision shapes against the ground: detection and the penalty law.
//! - [`solver`]: implicit trapezoidal rule, augmented-Lagrangian Newton loop, projections,
//!   static-equilibrium initialisation.
//! - [`estimator`]: the error-state Kalman filter of an estimator FMU (seed 001, ch. 3).
//! - [`component`]: the FMI component layer both versions share (call frame, call states,
//!   logger, FMU states, resources, Model Exchange).
//! - [`fmi2`]: the exported `fmi2*` functions and FMI 2.0's calling-sequence table.
//! - [`fmi3`]: the exported `fmi3*` functions (Co-Simulation) on the same component.

// Numerical kernels index several arrays with one loop variable; iterator chains would
// obscure the equations they implement.
#![allow(clippy::needless_range_loop)]

pub mod component;
pub mod contact;
pub mod estimator;
pub mod fmi2;
pub mod fmi3;
pub mod hydraulics;
pub mod instance;
pub mod math;
pub mod mechanics;
pub mod model;
pub mod solver;

pub use instance::{Instance, Snapshot, StepError};
pub use model::CompiledModel;
pub use solver::State;

//! Machines that are more than one FMU, and FMUs derived from a description: a carried
//! machine lowered as one or split at its mount ([`compose`]), a machine split between its
//! mechanics and its actuators ([`actuator_split`]), the estimator FMU beside a model with
//! sensors ([`estimator_fmu`]), and the SSP archive that connects several FMUs
//! ([`system`]).

pub mod actuator_split;
pub mod compose;
pub mod estimator_fmu;
pub mod system;

//! Compile-time static equilibrium for `init.solve_for` (e.g. the valve command κ0 of
//! seed 002 eq 32 that holds the rod at rest).
//!
//! The solve itself belongs to fmu-runtime's solver
//! (`fmu_runtime::solver::solve_equilibrium_parameters(&model, &[ParamId])`); this module is
//! the single place where the compiler calls it.

use fmu_runtime::model::{CompiledModel, ParamId};
pub use fmu_runtime::solver::ParameterSolveError;

/// Values of the `unknowns` slots that put the model in static equilibrium.
pub fn solve_parameters(
    model: &CompiledModel,
    unknowns: &[ParamId],
) -> Result<Vec<f64>, ParameterSolveError> {
    if unknowns.is_empty() {
        return Ok(Vec::new());
    }
    fmu_runtime::solver::solve_equilibrium_parameters(model, unknowns)
}

//! `hydromech._native`: the compiler behind the Python package (`src/hydromech/`).
//!
//! Thin on purpose: each function reads its arguments, calls the `model_compiler` library
//! the `hydromech` binary uses, and turns its diagnostics into the Python exceptions of
//! `hydromech.errors` (raised by the Python side from the tuples returned here). Nothing
//! panics across the boundary: PyO3 turns a panic into `PanicException`, and every
//! library error is a value.

mod compile;
mod fit;
mod model;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compile::check, m)?)?;
    m.add_function(wrap_pyfunction!(compile::build, m)?)?;
    m.add_function(wrap_pyfunction!(compile::main, m)?)?;
    m.add_function(wrap_pyfunction!(compile::version, m)?)?;
    m.add_function(wrap_pyfunction!(model::read_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(model::write_table, m)?)?;
    m.add_function(wrap_pyfunction!(fit::fit, m)?)?;
    m.add_class::<model::Model>()?;
    Ok(())
}

//! FMI 3.0 Co-Simulation and Model Exchange C ABI, beside FMI 2.0 in the same binary.
//!
//! One file per concern, as [`crate::fmi2`], on the same component layer
//! ([`crate::component`]: instance, logger, FMU states, resources, call frame), so both
//! interfaces run the same solver on the same state:
//!
//! - [`types`]: the C types of `fmi3PlatformTypes.h` / `fmi3FunctionTypes.h`;
//! - [`state_machine`]: the FMI 3.0 call-state masks;
//! - [`component`]: the instance behind `fmi3Instance` (intermediate update, early
//!   return, the state a discarded step returns to);
//! - [`exports`]: the `#[no_mangle]` functions of instances, variables and FMU states;
//! - [`do_step`]: `fmi3DoStep`, with intermediate update and early return;
//! - [`model_exchange`]: the Model Exchange functions (the shared
//!   [`crate::component::model_exchange`] side of the component);
//! - [`unsupported`]: the functions of capabilities this FMU does not have (all 75 symbols
//!   must exist).

pub mod component;
pub mod do_step;
pub mod exports;
pub mod model_exchange;
pub mod state_machine;
pub mod types;
pub mod unsupported;

#[cfg(test)]
mod tests;

pub use exports::EXPORTED_FUNCTIONS;

use crate::model::CompiledModel;

/// The value reference of the independent variable `time`, which FMI 3.0 requires and the
/// compiled model does not list: 0 (hydromech numbers its variables from 1), or one past
/// the largest for a model that uses 0. The model-description writer uses the same rule.
pub fn time_value_reference(model: &CompiledModel) -> u32 {
    let vrs = model.variables.iter().map(|v| v.value_reference);
    if vrs.clone().all(|vr| vr != 0) {
        0
    } else {
        vrs.max().unwrap_or(0).saturating_add(1)
    }
}

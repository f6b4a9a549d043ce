//! FMI 2.0 Co-Simulation and Model Exchange C ABI on the shared component layer
//! ([`crate::component`]), laid out like the Modelica Reference-FMUs, one concern per file:
//!
//! - [`types`]: the C types of `fmi2TypesPlatform.h` / `fmi2FunctionTypes.h`;
//! - [`state_machine`]: FMI 2.0's calling-sequence table (the mask of each function);
//! - [`exports`]: the 44 `#[no_mangle]` functions (the 10 of Model Exchange in
//!   [`exports_me`]), each in the shared call frame.
//!
//! Design rules, from the pitfalls collected in `fmi-export-notes.md` §3.10: no global
//! mutable state (each instance reads its own model file); no panic crosses the ABI
//! (`catch_unwind` → `fmi2Fatal`); every master pointer is NULL-checked; messages go to the
//! logger as `"%s"` arguments; FMU states are pointer-free when serialized.

pub mod exports;
pub mod exports_me;
pub mod state_machine;
pub mod types;

#[cfg(test)]
pub(crate) mod tests;

pub use crate::component::logging::{LOG_CATEGORIES, LogCategory};
pub use exports::EXPORTED_FUNCTIONS;

//! FMI 2.0 Co-Simulation and Model Exchange C ABI, and the component layer that FMI 3.0 ([`crate::fmi3`])
//! shares: the component, its logger, FMU states, resources, the call frame.
//!
//! Laid out like the Modelica Reference-FMUs, one concern per file:
//!
//! - [`types`]: the C types of `fmi2TypesPlatform.h` / `fmi2FunctionTypes.h`;
//! - [`resources`]: where the model file is (`fmuResourceLocation`, or beside the binary);
//! - [`logging`]: the copied logger callback, log categories, message escaping;
//! - [`state_machine`]: call-sequence states and the allowed-state mask of each function;
//! - [`call`]: the frame of every call (handle check, call-state mask, panics, errors);
//! - [`component`]: the instance behind `fmi2Component` and the per-variable set rules;
//! - [`fmu_state`]: `fmi2FMUstate` objects and their serialized form;
//! - [`model_exchange`]: the master-integrated ODE side of a component (FMI 2.0 and 3.0),
//!   its per-instance data in [`me_state`];
//! - [`directional`]: directional derivatives of Model Exchange (FMI 2.0 and 3.0);
//! - [`exports`]: the 44 `#[no_mangle]` functions (the 10 of Model Exchange in
//!   [`exports_me`]).
//!
//! Design rules, from the pitfalls collected in `fmi-export-notes.md` §3.10: no global
//! mutable state (each instance reads its own model file); no panic crosses the ABI
//! (`catch_unwind` → `fmi2Fatal`); every master pointer is NULL-checked; messages go to the
//! logger as `"%s"` arguments; FMU states are pointer-free when serialized.

pub mod call;
pub mod component;
pub mod directional;
pub mod exports;
pub mod exports_me;
pub mod fmu_state;
pub mod logging;
pub mod me_state;
pub mod model_exchange;
pub mod resources;
pub mod state_machine;
pub mod types;

#[cfg(test)]
pub(crate) mod tests;

pub use exports::EXPORTED_FUNCTIONS;
pub use logging::{LOG_CATEGORIES, LogCategory};

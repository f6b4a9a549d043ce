//! The FMI component layer both FMI versions share: the object behind an `fmi2Component` or
//! `fmi3Instance` ([`fmu_instance::Component`]), the frame every call runs in ([`call`]:
//! handle check, call-sequence mask, panics, errors), the calling-sequence states
//! ([`call_state`]), the logger ([`logging`]), FMU states ([`fmu_state`]), where the model
//! file is ([`resources`]), Initialization Mode ([`initialization`]), Model Exchange ([`model_exchange`], its data in [`me_state`])
//! and directional derivatives ([`directional`]). `fmi2/` and `fmi3/` keep their C
//! signatures, type conversions and tables of masks; the C types of each version
//! (`fmi2/types.rs`, `fmi3/types.rs`) are leaves this layer uses.

pub mod call;
pub mod call_state;
pub mod directional;
pub mod fmu_instance;
pub mod fmu_state;
pub mod initialization;
pub mod logging;
pub mod me_state;
pub mod model_exchange;
pub mod resources;

pub use fmu_instance::Component;

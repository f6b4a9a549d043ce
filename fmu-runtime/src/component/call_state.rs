//! The calling-sequence states of an FMU instance, shared by FMI 2.0 and 3.0 (each names
//! them in its own words), and an exported function with the mask of states it may be
//! called in; each version's table of masks is its own (`fmi2/state_machine.rs`,
//! `fmi3/state_machine.rs`).

use std::fmt;

/// The states of a Co-Simulation slave. `StartAndEnd` exists for completeness: an instance
/// is only reachable between `fmi2Instantiate` and `fmi2FreeInstance`, so it never holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum FmiState {
    StartAndEnd = 1 << 0,
    Instantiated = 1 << 1,
    InitializationMode = 1 << 2,
    StepComplete = 1 << 3,
    /// Only reachable with asynchronous `fmi2DoStep`, which we do not offer.
    StepInProgress = 1 << 4,
    StepFailed = 1 << 5,
    StepCanceled = 1 << 6,
    Terminated = 1 << 7,
    Error = 1 << 8,
    Fatal = 1 << 9,
    /// FMI 3.0 only: inside `fmi3DoStep`, while the master's intermediate-update callback
    /// runs (`IntermediateUpdateMode`). No FMI 2.0 function is allowed in it.
    IntermediateUpdate = 1 << 10,
    /// Model Exchange (§3.2.3): discrete-time equations (events), and integration by the
    /// master.
    EventMode = 1 << 11,
    ContinuousTimeMode = 1 << 12,
}

impl FmiState {
    pub const ALL: [FmiState; 13] = [
        FmiState::StartAndEnd,
        FmiState::Instantiated,
        FmiState::InitializationMode,
        FmiState::StepComplete,
        FmiState::StepInProgress,
        FmiState::StepFailed,
        FmiState::StepCanceled,
        FmiState::Terminated,
        FmiState::Error,
        FmiState::Fatal,
        FmiState::IntermediateUpdate,
        FmiState::EventMode,
        FmiState::ContinuousTimeMode,
    ];

    pub fn bit(self) -> u32 {
        self as u32
    }

    /// Stable numeric code used in serialized FMU states.
    pub fn code(self) -> u32 {
        self.bit().trailing_zeros()
    }

    pub fn from_code(code: u32) -> Option<FmiState> {
        FmiState::ALL.into_iter().find(|s| s.code() == code)
    }

    pub fn name(self) -> &'static str {
        match self {
            FmiState::StartAndEnd => "StartAndEnd",
            FmiState::Instantiated => "Instantiated",
            FmiState::InitializationMode => "InitializationMode",
            FmiState::StepComplete => "StepComplete",
            FmiState::StepInProgress => "StepInProgress",
            FmiState::StepFailed => "StepFailed",
            FmiState::StepCanceled => "StepCanceled",
            FmiState::Terminated => "Terminated",
            FmiState::Error => "Error",
            FmiState::Fatal => "Fatal",
            FmiState::IntermediateUpdate => "IntermediateUpdateMode",
            FmiState::EventMode => "EventMode",
            FmiState::ContinuousTimeMode => "ContinuousTimeMode",
        }
    }

    /// The name FMI 3.0 gives the state (`StepComplete` is its `StepMode`).
    pub fn name3(self) -> &'static str {
        match self {
            FmiState::StepComplete => "StepMode",
            FmiState::InitializationMode => "InitializationMode",
            other => other.name(),
        }
    }
}

impl fmt::Display for FmiState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An exported function: its C name and the states in which it may be called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FmiFunction {
    pub name: &'static str,
    pub mask: u32,
}

impl FmiFunction {
    /// A function and its mask (an OR of [`FmiState`] bits; FMI 3.0's table builds on
    /// it too).
    pub const fn new(name: &'static str, mask: u32) -> FmiFunction {
        FmiFunction { name, mask }
    }

    pub fn allowed_in(self, state: FmiState) -> bool {
        self.mask & state.bit() != 0
    }
}

//! The FMI 2.0 C types, written by hand from `fmi2TypesPlatform.h` (platform "default") and
//! `fmi2FunctionTypes.h` (FMI 2.0.x).
//!
//! The names are the C names on purpose: `cbindgen` writes our function declarations with
//! them, and `tests/abi/check_header.sh` compiles those declarations against the standard
//! headers, so a wrong type here is a compile error there.
//!
//! Enums that the *master* passes to us (`fmi2Type`, `fmi2StatusKind`) are transparent
//! `c_int` newtypes rather than Rust enums: a buggy master may pass any integer, and an
//! out-of-range discriminant in a Rust enum is undefined behaviour. Passing a C enum and an
//! `int` is the same at the ABI level (both are `int`-sized and `int`-aligned on every
//! platform FMI 2.0 supports). `fmi2Status` is a real `#[repr(C)]` enum because only we
//! produce it.

#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use std::ffi::{c_char, c_int, c_uint, c_void};

/// Pointer to an FMU instance (`void*`).
pub type fmi2Component = *mut c_void;
/// Pointer to the master's environment, handed back to the callbacks (`void*`).
pub type fmi2ComponentEnvironment = *mut c_void;
/// Pointer to a saved FMU state (`void*`).
pub type fmi2FMUstate = *mut c_void;
pub type fmi2ValueReference = c_uint;
pub type fmi2Real = f64;
pub type fmi2Integer = c_int;
/// A C `int`, **not** Rust `bool` (4 bytes; any non-zero value is true).
pub type fmi2Boolean = c_int;
pub type fmi2Char = c_char;
/// `const fmi2Char*`, UTF-8, NUL-terminated.
pub type fmi2String = *const fmi2Char;
pub type fmi2Byte = c_char;

pub const fmi2True: fmi2Boolean = 1;
pub const fmi2False: fmi2Boolean = 0;

/// Value of `fmi2GetTypesPlatform` (`fmi2TypesPlatform` macro of the header).
pub const fmi2TypesPlatform: &std::ffi::CStr = c"default";
/// Value of `fmi2GetVersion` (`fmi2Version` macro of the header).
pub const fmi2Version: &std::ffi::CStr = c"2.0";

/// Return status of every FMI function; ordered by severity.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum fmi2Status {
    fmi2OK = 0,
    fmi2Warning = 1,
    fmi2Discard = 2,
    fmi2Error = 3,
    fmi2Fatal = 4,
    fmi2Pending = 5,
}

/// `fmi2Type` (`fmi2ModelExchange = 0`, `fmi2CoSimulation = 1`), see the module docs for
/// why it is a newtype.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct fmi2Type(pub c_int);

impl fmi2Type {
    pub const fmi2ModelExchange: fmi2Type = fmi2Type(0);
    pub const fmi2CoSimulation: fmi2Type = fmi2Type(1);
}

/// `fmi2StatusKind` of the `fmi2Get*Status` functions, see the module docs.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct fmi2StatusKind(pub c_int);

impl fmi2StatusKind {
    pub const fmi2DoStepStatus: fmi2StatusKind = fmi2StatusKind(0);
    pub const fmi2PendingStatus: fmi2StatusKind = fmi2StatusKind(1);
    pub const fmi2LastSuccessfulTime: fmi2StatusKind = fmi2StatusKind(2);
    pub const fmi2Terminated: fmi2StatusKind = fmi2StatusKind(3);
}

/// `fmi2CallbackLogger`: printf-style and variadic. We always call it with the format
/// `"%s"` and the message as the single variadic argument. Like every C function-pointer
/// type it may be NULL, hence the `Option` (same ABI as a plain function pointer).
pub type fmi2CallbackLogger = Option<
    unsafe extern "C" fn(
        componentEnvironment: fmi2ComponentEnvironment,
        instanceName: fmi2String,
        status: fmi2Status,
        category: fmi2String,
        message: fmi2String,
        ...
    ),
>;
pub type fmi2CallbackAllocateMemory =
    Option<unsafe extern "C" fn(nobj: usize, size: usize) -> *mut c_void>;
pub type fmi2CallbackFreeMemory = Option<unsafe extern "C" fn(obj: *mut c_void)>;
pub type fmi2StepFinished = Option<
    unsafe extern "C" fn(componentEnvironment: fmi2ComponentEnvironment, status: fmi2Status),
>;

/// The callbacks handed to `fmi2Instantiate`. Each function pointer may be NULL (`None`).
/// The struct itself is only valid during `fmi2Instantiate`: we copy it.
///
/// We declare `canNotUseMemoryManagementFunctions="true"` and never call
/// `allocateMemory`/`freeMemory`; `stepFinished` is for asynchronous steps, which we do
/// not offer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct fmi2CallbackFunctions {
    pub logger: fmi2CallbackLogger,
    pub allocateMemory: fmi2CallbackAllocateMemory,
    pub freeMemory: fmi2CallbackFreeMemory,
    pub stepFinished: fmi2StepFinished,
    pub componentEnvironment: fmi2ComponentEnvironment,
}

/// Model-Exchange event info (only used by the ME stubs, which return `fmi2Error`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct fmi2EventInfo {
    pub newDiscreteStatesNeeded: fmi2Boolean,
    pub terminateSimulation: fmi2Boolean,
    pub nominalsOfContinuousStatesChanged: fmi2Boolean,
    pub valuesOfContinuousStatesChanged: fmi2Boolean,
    pub nextEventTimeDefined: fmi2Boolean,
    pub nextEventTime: fmi2Real,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// The layout the C header gives on LP64/LLP64 targets (checked against the real header
    /// by `tests/abi/check_header.sh`; this is the quick in-Rust guard).
    #[test]
    fn layouts_match_the_c_header() {
        assert_eq!(size_of::<fmi2Status>(), size_of::<c_int>());
        assert_eq!(size_of::<fmi2Type>(), size_of::<c_int>());
        assert_eq!(size_of::<fmi2StatusKind>(), size_of::<c_int>());
        assert_eq!(size_of::<fmi2Boolean>(), 4);
        assert_eq!(size_of::<fmi2CallbackLogger>(), size_of::<*const c_void>());
        let p = size_of::<*const c_void>();
        assert_eq!(size_of::<fmi2CallbackFunctions>(), 5 * p);
        assert_eq!(
            align_of::<fmi2CallbackFunctions>(),
            align_of::<*const c_void>()
        );
        assert_eq!(offset_of!(fmi2CallbackFunctions, logger), 0);
        assert_eq!(offset_of!(fmi2CallbackFunctions, allocateMemory), p);
        assert_eq!(offset_of!(fmi2CallbackFunctions, freeMemory), 2 * p);
        assert_eq!(offset_of!(fmi2CallbackFunctions, stepFinished), 3 * p);
        assert_eq!(
            offset_of!(fmi2CallbackFunctions, componentEnvironment),
            4 * p
        );
        assert_eq!(offset_of!(fmi2EventInfo, nextEventTime), 24);
        assert_eq!(size_of::<fmi2EventInfo>(), 32);
        assert_eq!(fmi2Status::fmi2Pending as c_int, 5);
    }
}

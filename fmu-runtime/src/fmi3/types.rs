//! The FMI 3.0 C types, written by hand from `fmi3PlatformTypes.h` and
//! `fmi3FunctionTypes.h`.
//!
//! As for FMI 2.0 ([`crate::fmi2::types`]), the names are the C names, so that cbindgen
//! writes our declarations with them and `tests/abi/check_header.sh` compiles them against
//! the standard headers.
//!
//! `fmi3Boolean` is C99 `bool`, one byte, which is Rust's `bool` at the ABI level. A Rust
//! `bool` holding anything but 0 or 1 is undefined behaviour, so arrays of booleans that the
//! master fills are read as bytes (see `exports.rs`); scalar arguments are `bool` as in the
//! header. Enums the master passes to us are `c_int` newtypes (any integer is safe);
//! `fmi3Status` is a real enum because only we produce it.

#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use crate::fmi2::types::fmi2Status;
use std::ffi::{c_char, c_int, c_void};

/// Pointer to an FMU instance (`void*`).
pub type fmi3Instance = *mut c_void;
/// Pointer to the importer's environment, handed back to the callbacks (`void*`).
pub type fmi3InstanceEnvironment = *mut c_void;
/// Pointer to a saved FMU state (`void*`).
pub type fmi3FMUState = *mut c_void;
pub type fmi3ValueReference = u32;
pub type fmi3Float32 = f32;
pub type fmi3Float64 = f64;
pub type fmi3Int8 = i8;
pub type fmi3UInt8 = u8;
pub type fmi3Int16 = i16;
pub type fmi3UInt16 = u16;
pub type fmi3Int32 = i32;
pub type fmi3UInt32 = u32;
pub type fmi3Int64 = i64;
pub type fmi3UInt64 = u64;
/// C99 `bool` (see the module docs).
pub type fmi3Boolean = bool;
pub type fmi3Char = c_char;
/// `const fmi3Char*`, UTF-8, NUL-terminated.
pub type fmi3String = *const fmi3Char;
pub type fmi3Byte = u8;
/// `const fmi3Byte*`.
pub type fmi3Binary = *const fmi3Byte;
/// C99 `bool`.
pub type fmi3Clock = bool;

/// Value of `fmi3GetVersion` (`fmi3Version` macro of the header).
pub const fmi3Version: &std::ffi::CStr = c"3.0";

/// Return status of every FMI 3.0 function; ordered by severity.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum fmi3Status {
    fmi3OK = 0,
    fmi3Warning = 1,
    fmi3Discard = 2,
    fmi3Error = 3,
    fmi3Fatal = 4,
}

impl From<fmi2Status> for fmi3Status {
    /// The FMI 2.0 status of the shared component layer: the same codes (`fmi2Pending`,
    /// which never occurs there, becomes an error).
    fn from(s: fmi2Status) -> fmi3Status {
        match s {
            fmi2Status::fmi2OK => fmi3Status::fmi3OK,
            fmi2Status::fmi2Warning => fmi3Status::fmi3Warning,
            fmi2Status::fmi2Discard => fmi3Status::fmi3Discard,
            fmi2Status::fmi2Error | fmi2Status::fmi2Pending => fmi3Status::fmi3Error,
            fmi2Status::fmi2Fatal => fmi3Status::fmi3Fatal,
        }
    }
}

/// `fmi3DependencyKind` (only produced by us, but a newtype like the others: it is written
/// into arrays the master owns).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct fmi3DependencyKind(pub c_int);

impl fmi3DependencyKind {
    pub const fmi3Independent: fmi3DependencyKind = fmi3DependencyKind(0);
    pub const fmi3Constant: fmi3DependencyKind = fmi3DependencyKind(1);
    pub const fmi3Fixed: fmi3DependencyKind = fmi3DependencyKind(2);
    pub const fmi3Tunable: fmi3DependencyKind = fmi3DependencyKind(3);
    pub const fmi3Discrete: fmi3DependencyKind = fmi3DependencyKind(4);
    pub const fmi3Dependent: fmi3DependencyKind = fmi3DependencyKind(5);
}

/// `fmi3IntervalQualifier` (Clocks; this FMU has none).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct fmi3IntervalQualifier(pub c_int);

/// `fmi3LogMessageCallback`: not variadic in FMI 3.0, the message is plain text.
pub type fmi3LogMessageCallback = Option<
    unsafe extern "C" fn(
        instanceEnvironment: fmi3InstanceEnvironment,
        status: fmi3Status,
        category: fmi3String,
        message: fmi3String,
    ),
>;

/// `fmi3IntermediateUpdateCallback`: called by the FMU between its internal steps.
pub type fmi3IntermediateUpdateCallback = Option<
    unsafe extern "C" fn(
        instanceEnvironment: fmi3InstanceEnvironment,
        intermediateUpdateTime: fmi3Float64,
        intermediateVariableSetRequested: fmi3Boolean,
        intermediateVariableGetAllowed: fmi3Boolean,
        intermediateStepFinished: fmi3Boolean,
        canReturnEarly: fmi3Boolean,
        earlyReturnRequested: *mut fmi3Boolean,
        earlyReturnTime: *mut fmi3Float64,
    ),
>;

pub type fmi3ClockUpdateCallback =
    Option<unsafe extern "C" fn(instanceEnvironment: fmi3InstanceEnvironment)>;
pub type fmi3LockPreemptionCallback = Option<unsafe extern "C" fn()>;
pub type fmi3UnlockPreemptionCallback = Option<unsafe extern "C" fn()>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_c_header() {
        assert_eq!(size_of::<fmi3Status>(), size_of::<c_int>());
        assert_eq!(size_of::<fmi3DependencyKind>(), size_of::<c_int>());
        assert_eq!(size_of::<fmi3Boolean>(), 1);
        assert_eq!(
            size_of::<fmi3LogMessageCallback>(),
            size_of::<*const c_void>()
        );
        assert_eq!(fmi3Status::fmi3Fatal as c_int, 4);
        for s in [
            fmi2Status::fmi2OK,
            fmi2Status::fmi2Warning,
            fmi2Status::fmi2Discard,
            fmi2Status::fmi2Error,
            fmi2Status::fmi2Fatal,
        ] {
            assert_eq!(fmi3Status::from(s) as c_int, s as c_int);
        }
    }
}

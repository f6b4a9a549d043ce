//! The `fmi3*` functions of capabilities this FMU does not have: variables of types it has
//! none of (Float32, the 8/16/64-bit and unsigned integers, String, Binary, Clock),
//! Event Mode, Clocks, structural parameters, adjoint derivatives,
//! per-element dependencies, output derivatives and Scheduled Execution.
//!
//! The standard requires every symbol (importers resolve them all at load time), so each
//! exists with its exact signature and fails with a logged reason: `fmi3Error`, or NULL
//! from an instantiate function. They are written out one by one rather than by a macro
//! so that cbindgen sees them for the header check.

#![allow(non_snake_case)]

use super::exports::guarded;
use super::state_machine::{getter, setter, unsupported};
use super::types::*;
use crate::component::call::slice_in;
use crate::component::call_state::FmiFunction;
use crate::component::logging::{Category, Logger};
use crate::fmi2::types::fmi2Status::{fmi2Error, fmi2OK};
use std::ffi::CStr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::null_mut;

/// A function of a capability this FMU does not have: logs why, `fmi3Error`.
///
/// # Safety
/// `c` is NULL or from `fmi3InstantiateCoSimulation`.
unsafe fn not_supported(c: fmi3Instance, name: &'static str, why: &'static str) -> fmi3Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(c, unsupported(name), format_args!(""), |_| {
            Err(format!("not supported: {why}"))
        })
    }
}

/// Scheduled Execution is not offered: NULL, with the reason logged.
///
/// # Safety
/// FMI 3.0 calling conventions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3InstantiateScheduledExecution(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    clockUpdate: fmi3ClockUpdateCallback,
    lockPreemption: fmi3LockPreemptionCallback,
    unlockPreemption: fmi3UnlockPreemptionCallback,
) -> fmi3Instance {
    let _ = (instantiationToken, resourcePath, visible);
    let _ = (clockUpdate, lockPreemption, unlockPreemption);
    refuse_instance(
        instanceName,
        loggingOn,
        instanceEnvironment,
        logMessage,
        "fmi3InstantiateScheduledExecution: not supported: this FMU offers Co-Simulation and Model Exchange only",
    )
}

fn refuse_instance(
    instanceName: fmi3String,
    loggingOn: bool,
    environment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    why: &str,
) -> fmi3Instance {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: NULL or a C string (FMI calling conventions).
        let name = (!instanceName.is_null()).then(|| unsafe { CStr::from_ptr(instanceName) });
        Logger::new_fmi3(logMessage, environment, name.unwrap_or(c""), loggingOn).log(
            fmi2Error,
            Category::StatusError,
            why,
        );
    }));
    null_mut()
}

/// A type this FMU has no variables of: any value reference is an error.
///
/// # Safety
/// `vr` holds `nvr` elements.
unsafe fn no_variables_of_type(
    instance: fmi3Instance,
    f: FmiFunction,
    type_name: &'static str,
    (vr, nvr): (*const fmi3ValueReference, usize),
) -> fmi3Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(instance, f, format_args!("nValueReferences={nvr}"), |_| {
            let vrs = slice_in(vr, nvr, "valueReferences[]")?;
            match vrs.first() {
                Some(vr) => Err(format!("no {type_name} variable has value reference {vr}")),
                None => Ok(fmi2OK),
            }
        })
    }
}

// The types this FMU has no variables of: any value reference is an error. Written out
// one by one (not by a macro) so that cbindgen sees them for the header check.

/// No Float32 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetFloat32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Float32,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetFloat32");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Float32", vrs) }
}

/// No Float32 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetFloat32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Float32,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetFloat32");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Float32", vrs) }
}

/// No Int8 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Int8,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetInt8");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int8", vrs) }
}

/// No Int8 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Int8,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetInt8");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int8", vrs) }
}

/// No UInt8 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetUInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3UInt8,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetUInt8");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt8", vrs) }
}

/// No UInt8 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetUInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3UInt8,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetUInt8");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt8", vrs) }
}

/// No Int16 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Int16,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetInt16");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int16", vrs) }
}

/// No Int16 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Int16,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetInt16");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int16", vrs) }
}

/// No UInt16 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetUInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3UInt16,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetUInt16");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt16", vrs) }
}

/// No UInt16 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetUInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3UInt16,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetUInt16");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt16", vrs) }
}

/// No UInt32 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetUInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3UInt32,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetUInt32");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt32", vrs) }
}

/// No UInt32 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetUInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3UInt32,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetUInt32");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt32", vrs) }
}

/// No Int64 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Int64,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetInt64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int64", vrs) }
}

/// No Int64 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Int64,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetInt64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int64", vrs) }
}

/// No UInt64 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetUInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3UInt64,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetUInt64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt64", vrs) }
}

/// No UInt64 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetUInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3UInt64,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetUInt64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt64", vrs) }
}

/// No String variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetString(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3String,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetString");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "String", vrs) }
}

/// No String variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetString(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3String,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetString");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "String", vrs) }
}

/// No Binary variables.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetBinary(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    valueSizes: *mut usize,
    values: *mut fmi3Binary,
    nValues: usize,
) -> fmi3Status {
    let _ = (valueSizes, values, nValues);
    const F: FmiFunction = getter("fmi3GetBinary");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Binary", vrs) }
}

/// No Binary variables.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetBinary(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    valueSizes: *const usize,
    values: *const fmi3Binary,
    nValues: usize,
) -> fmi3Status {
    let _ = (valueSizes, values, nValues);
    const F: FmiFunction = setter("fmi3SetBinary");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Binary", vrs) }
}

/// No Clocks.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetClock(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Clock,
) -> fmi3Status {
    let _ = values;
    const F: FmiFunction = getter("fmi3GetClock");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Clock", vrs) }
}

/// No Clocks.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetClock(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Clock,
) -> fmi3Status {
    let _ = values;
    const F: FmiFunction = setter("fmi3SetClock");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Clock", vrs) }
}

// ---------------------------------------------------------------------------------------
// Variable dependencies, derivatives, configuration, clocks, discrete states
// ---------------------------------------------------------------------------------------

const NO_DEPENDENCIES: &str = "this FMU declares providesPerElementDependencies=\"false\"; the dependencies are in <ModelStructure>";

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNumberOfVariableDependencies(
    instance: fmi3Instance,
    valueReference: fmi3ValueReference,
    nDependencies: *mut usize,
) -> fmi3Status {
    let _ = (valueReference, nDependencies);
    const NAME: &str = "fmi3GetNumberOfVariableDependencies";
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, NAME, NO_DEPENDENCIES) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetVariableDependencies(
    instance: fmi3Instance,
    dependent: fmi3ValueReference,
    elementIndicesOfDependent: *mut usize,
    independents: *mut fmi3ValueReference,
    elementIndicesOfIndependents: *mut usize,
    dependencyKinds: *mut fmi3DependencyKind,
    nDependencies: usize,
) -> fmi3Status {
    let _ = (dependent, elementIndicesOfDependent, independents);
    let _ = (elementIndicesOfIndependents, dependencyKinds, nDependencies);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetVariableDependencies", NO_DEPENDENCIES) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetAdjointDerivative(
    instance: fmi3Instance,
    unknowns: *const fmi3ValueReference,
    nUnknowns: usize,
    knowns: *const fmi3ValueReference,
    nKnowns: usize,
    seed: *const fmi3Float64,
    nSeed: usize,
    sensitivity: *mut fmi3Float64,
    nSensitivity: usize,
) -> fmi3Status {
    let _ = (unknowns, nUnknowns, knowns, nKnowns, seed, nSeed);
    let _ = (sensitivity, nSensitivity);
    const WHY: &str = "this FMU declares providesAdjointDerivatives=\"false\"";
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetAdjointDerivative", WHY) }
}

const NO_STRUCTURAL_PARAMETERS: &str = "this FMU has no structural parameters";

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterConfigurationMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        not_supported(
            instance,
            "fmi3EnterConfigurationMode",
            NO_STRUCTURAL_PARAMETERS,
        )
    }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3ExitConfigurationMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        not_supported(
            instance,
            "fmi3ExitConfigurationMode",
            NO_STRUCTURAL_PARAMETERS,
        )
    }
}

const NO_CLOCKS: &str = "this FMU has no Clocks";

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetIntervalDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    intervals: *mut fmi3Float64,
    qualifiers: *mut fmi3IntervalQualifier,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, intervals, qualifiers);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetIntervalDecimal", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetIntervalFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *mut fmi3UInt64,
    resolutions: *mut fmi3UInt64,
    qualifiers: *mut fmi3IntervalQualifier,
) -> fmi3Status {
    let _ = (
        valueReferences,
        nValueReferences,
        counters,
        resolutions,
        qualifiers,
    );
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetIntervalFraction", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetShiftDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    shifts: *mut fmi3Float64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, shifts);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetShiftDecimal", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetShiftFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *mut fmi3UInt64,
    resolutions: *mut fmi3UInt64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, counters, resolutions);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetShiftFraction", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetIntervalDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    intervals: *const fmi3Float64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, intervals);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3SetIntervalDecimal", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetIntervalFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *const fmi3UInt64,
    resolutions: *const fmi3UInt64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, counters, resolutions);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3SetIntervalFraction", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetShiftDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    shifts: *const fmi3Float64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, shifts);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3SetShiftDecimal", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetShiftFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *const fmi3UInt64,
    resolutions: *const fmi3UInt64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, counters, resolutions);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3SetShiftFraction", NO_CLOCKS) }
}

const NO_EVENT_MODE: &str = "this FMU has no Event Mode (hasEventMode=\"false\")";

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EvaluateDiscreteStates(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3EvaluateDiscreteStates", NO_EVENT_MODE) }
}

// ---------------------------------------------------------------------------------------
// Scheduled Execution (not offered by this FMU; Model Exchange is in `model_exchange.rs`)
// ---------------------------------------------------------------------------------------

const NOT_SCHEDULED: &str = "this FMU does not offer Scheduled Execution";

/// Not offered: no Scheduled Execution.
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3ActivateModelPartition(
    instance: fmi3Instance,
    clockReference: fmi3ValueReference,
    activationTime: fmi3Float64,
) -> fmi3Status {
    let _ = (clockReference, activationTime);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3ActivateModelPartition", NOT_SCHEDULED) }
}

/// Event Mode is never entered, so Step Mode is never re-entered.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterStepMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3EnterStepMode", NO_EVENT_MODE) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetOutputDerivatives(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    orders: *const fmi3Int32,
    values: *mut fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, orders, values, nValues);
    const WHY: &str = "this FMU declares maxOutputDerivativeOrder=\"0\"";
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetOutputDerivatives", WHY) }
}

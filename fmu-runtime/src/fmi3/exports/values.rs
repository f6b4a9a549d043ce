//! Getting and setting variable values, in every FMI 3.0 type.

use crate::component::call::{Outcome, slice_in, slice_out};
use crate::component::call_state::{FmiFunction, FmiState};
use crate::fmi2::types::fmi2Status::fmi2OK;
use crate::fmi3::component::Fmi3Component;
use crate::fmi3::state_machine::{getter, setter};
use crate::fmi3::types::*;
use crate::model::VarType;

use super::guarded;

// ---------------------------------------------------------------------------------------
// Getting and setting variable values
// ---------------------------------------------------------------------------------------

/// In Intermediate Update Mode only the required intermediate variables may be read,
/// and only if the callback allowed it.
pub(super) fn check_intermediate_access(
    fmu: &Fmi3Component,
    vr: u32,
    set: bool,
) -> Result<(), String> {
    if fmu.comp.state != FmiState::IntermediateUpdate {
        return Ok(());
    }
    let allowed = if set {
        fmu.sets_requested
    } else {
        fmu.gets_allowed
    };
    if !fmu.is_required(vr) || !allowed {
        return Err(format!(
            "value reference {vr} cannot be {} in Intermediate Update Mode: only variables passed in requiredIntermediateVariables at instantiation are",
            if set { "set" } else { "read" }
        ));
    }
    Ok(())
}

pub(super) fn get_values<T>(
    fmu: &mut Fmi3Component,
    ty: VarType,
    vrs: &[u32],
    out: &mut [T],
    conv: impl Fn(f64) -> T,
) -> Outcome {
    fmu.comp.prepare_get(ty, vrs)?;
    for (&vr, slot) in vrs.iter().zip(out.iter_mut()) {
        if ty == VarType::Real && vr == fmu.time_vr {
            *slot = conv(fmu.comp.instance.time());
            continue;
        }
        check_intermediate_access(fmu, vr, false)?;
        let var = fmu.comp.variable(ty, vr)?;
        if var.is_continuous_state() && !fmu.comp.instance.has_ode() {
            return Err(format!(
                "{} is defined after initialization (the independent coordinates are chosen at the initial equilibrium)",
                var.name
            ));
        }
        *slot = conv(fmu.comp.instance.value(var));
    }
    Ok(fmi2OK)
}

/// Checks every value first, then writes them all: a failing call changes nothing. Inside
/// the intermediate-update callback the inputs are held until it returns.
pub(super) fn set_values<T: Copy>(
    fmu: &mut Fmi3Component,
    ty: VarType,
    vrs: &[u32],
    values: &[T],
    conv: impl Fn(T) -> f64,
) -> Outcome {
    for (&vr, &v) in vrs.iter().zip(values) {
        if ty == VarType::Real && vr == fmu.time_vr {
            return Err(format!(
                "value reference {vr} is the independent variable time, which only fmi3DoStep advances"
            ));
        }
        check_intermediate_access(fmu, vr, true)?;
        fmu.comp.check_set(ty, vr, conv(v))?;
    }
    for (&vr, &v) in vrs.iter().zip(values) {
        let (slot, value) = fmu.comp.check_set(ty, vr, conv(v))?;
        if fmu.comp.state == FmiState::IntermediateUpdate {
            fmu.hold_input(slot, value);
        } else {
            fmu.comp.set_value(ty, vr, slot, value)?;
        }
    }
    Ok(fmi2OK)
}

/// The common part of `fmi3Get{Float64,Int32,Boolean}`: scalar variables only, so
/// `nValues` must equal `nValueReferences`.
///
/// # Safety
/// `vr` holds `nvr` and `values` holds `nv` elements.
unsafe fn get<T>(
    instance: fmi3Instance,
    f: FmiFunction,
    ty: VarType,
    (vr, nvr): (*const fmi3ValueReference, usize),
    (values, nv): (*mut T, usize),
    conv: impl Fn(f64) -> T,
) -> fmi3Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(instance, f, format_args!("nValueReferences={nvr}"), |fmu| {
            scalar_count(nvr, nv)?;
            let vrs = slice_in(vr, nvr, "valueReferences[]")?;
            let out = slice_out(values, nv, "values[]")?;
            get_values(fmu, ty, vrs, out, conv)
        })
    }
}

/// The common part of `fmi3Set{Float64,Int32,Boolean}`.
///
/// # Safety
/// `vr` holds `nvr` and `values` holds `nv` elements.
unsafe fn set<T: Copy>(
    instance: fmi3Instance,
    f: FmiFunction,
    ty: VarType,
    (vr, nvr): (*const fmi3ValueReference, usize),
    (values, nv): (*const T, usize),
    conv: impl Fn(T) -> f64,
) -> fmi3Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(instance, f, format_args!("nValueReferences={nvr}"), |fmu| {
            scalar_count(nvr, nv)?;
            let vrs = slice_in(vr, nvr, "valueReferences[]")?;
            let values = slice_in(values, nv, "values[]")?;
            set_values(fmu, ty, vrs, values, conv)
        })
    }
}

pub(super) fn scalar_count(nvr: usize, nv: usize) -> Result<(), String> {
    if nvr != nv {
        return Err(format!(
            "nValues = {nv} differs from nValueReferences = {nvr}: every variable of this FMU is a scalar"
        ));
    }
    Ok(())
}

/// # Safety
/// FMI calling conventions: `valueReferences` holds `nValueReferences` elements, `values`
/// `nValues`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetFloat64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = getter("fmi3GetFloat64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { get(instance, F, VarType::Real, vrs, (values, nValues), |v| v) }
}

/// Integer variables (FMI 2.0 `Integer`) are FMI 3.0 `Int32`.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Int32,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = getter("fmi3GetInt32");
    let vrs = (valueReferences, nValueReferences);
    // `as` saturates (and maps NaN to 0): no UB, no panic.
    // SAFETY: FMI calling conventions.
    unsafe {
        get(instance, F, VarType::Integer, vrs, (values, nValues), |v| {
            v.round() as i32
        })
    }
}

/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetBoolean(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Boolean,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = getter("fmi3GetBoolean");
    let vrs = (valueReferences, nValueReferences);
    // Written as bytes 0/1 (see types.rs): the master's array may hold anything before.
    let out = (values.cast::<u8>(), nValues);
    // SAFETY: FMI calling conventions.
    unsafe {
        get(instance, F, VarType::Boolean, vrs, out, |v| {
            (v != 0.0) as u8
        })
    }
}

/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetFloat64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = setter("fmi3SetFloat64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { set(instance, F, VarType::Real, vrs, (values, nValues), |v| v) }
}

/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Int32,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = setter("fmi3SetInt32");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe {
        set(
            instance,
            F,
            VarType::Integer,
            vrs,
            (values, nValues),
            f64::from,
        )
    }
}

/// Booleans are read as bytes: any non-zero byte is true (no invalid Rust `bool`).
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetBoolean(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Boolean,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = setter("fmi3SetBoolean");
    let vrs = (valueReferences, nValueReferences);
    let bytes = (values.cast::<u8>(), nValues);
    // SAFETY: FMI calling conventions.
    unsafe {
        set(instance, F, VarType::Boolean, vrs, bytes, |b: u8| {
            if b != 0 { 1.0 } else { 0.0 }
        })
    }
}

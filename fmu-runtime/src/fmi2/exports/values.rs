//! Getting and setting variable values.

use crate::component::call::{Outcome, slice_in, slice_out};
use crate::component::fmu_instance::Component;
use crate::fmi2::state_machine as sm;
use crate::fmi2::types::*;
use crate::model::VarType;

use super::guarded;
use fmi2Status::fmi2OK;

// ---------------------------------------------------------------------------------------
// Getting and setting variable values
// ---------------------------------------------------------------------------------------

pub(super) fn get_values<T>(
    comp: &mut Component,
    ty: VarType,
    vrs: &[u32],
    out: &mut [T],
    conv: impl Fn(f64) -> T,
) -> Outcome {
    comp.prepare_get(ty, vrs)?;
    for (&vr, slot) in vrs.iter().zip(out.iter_mut()) {
        let var = comp.variable(ty, vr)?;
        if var.is_continuous_state() && !comp.instance.has_ode() {
            return Err(format!(
                "{} is defined after initialization (the independent coordinates are chosen at the initial equilibrium)",
                var.name
            ));
        }
        *slot = conv(comp.instance.value(var));
    }
    Ok(fmi2OK)
}

/// Checks every value first, then writes them all: a failing call changes nothing.
pub(super) fn set_values<T: Copy>(
    comp: &mut Component,
    ty: VarType,
    vrs: &[u32],
    values: &[T],
    conv: impl Fn(T) -> f64,
) -> Outcome {
    for (&vr, &v) in vrs.iter().zip(values) {
        comp.check_set(ty, vr, conv(v))?;
    }
    for (&vr, &v) in vrs.iter().zip(values) {
        let (slot, value) = comp.check_set(ty, vr, conv(v))?;
        comp.set_value(ty, vr, slot, value)?;
    }
    Ok(fmi2OK)
}

pub(super) fn integer_of(v: f64) -> fmi2Integer {
    // `as` saturates (and maps NaN to 0): no UB, no panic.
    v.round() as fmi2Integer
}

pub(super) fn boolean_of(v: f64) -> fmi2Boolean {
    if v != 0.0 { fmi2True } else { fmi2False }
}

/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Real,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_REAL, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let out = slice_out(value, nvr, "value[]")?;
            get_values(comp, VarType::Real, vrs, out, |v| v)
        })
    }
}

/// Integer variables are stored as f64; they are rounded to the nearest `int`.
///
/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Integer,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_INTEGER, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let out = slice_out(value, nvr, "value[]")?;
            get_values(comp, VarType::Integer, vrs, out, integer_of)
        })
    }
}

/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_BOOLEAN, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let out = slice_out(value, nvr, "value[]")?;
            get_values(comp, VarType::Boolean, vrs, out, boolean_of)
        })
    }
}

/// hydromech models have no String variables: any value reference is an error.
///
/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2String,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_STRING, format_args!("nvr={nvr}"), |_| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            slice_out(value, nvr, "value[]")?;
            match vrs.first() {
                Some(vr) => Err(format!("no String variable has value reference {vr}")),
                None => Ok(fmi2OK),
            }
        })
    }
}

/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Real,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SET_REAL, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let values = slice_in(value, nvr, "value[]")?;
            set_values(comp, VarType::Real, vrs, values, |v| v)
        })
    }
}

/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Integer,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SET_INTEGER, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let values = slice_in(value, nvr, "value[]")?;
            set_values(comp, VarType::Integer, vrs, values, f64::from)
        })
    }
}

/// Any non-zero value is true (C convention).
///
/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Boolean,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SET_BOOLEAN, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let values = slice_in(value, nvr, "value[]")?;
            set_values(comp, VarType::Boolean, vrs, values, |v| {
                if v != fmi2False { 1.0 } else { 0.0 }
            })
        })
    }
}

/// hydromech models have no String variables: any value reference is an error.
///
/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2String,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SET_STRING, format_args!("nvr={nvr}"), |_| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            slice_in(value, nvr, "value[]")?;
            match vrs.first() {
                Some(vr) => Err(format!("no String variable has value reference {vr}")),
                None => Ok(fmi2OK),
            }
        })
    }
}

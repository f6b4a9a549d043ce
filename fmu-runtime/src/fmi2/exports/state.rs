//! Getting, setting and serializing the internal FMU state.

use crate::component::call::{out_ref, slice_in, slice_out};
use crate::component::fmu_state::FmuState;
use crate::fmi2::state_machine as sm;
use crate::fmi2::types::*;

use super::guarded;
use fmi2Status::fmi2OK;

// ---------------------------------------------------------------------------------------
// Getting and setting the internal FMU state
// ---------------------------------------------------------------------------------------

/// Saves the complete state. `*FMUstate == NULL` allocates a new state object, otherwise
/// the given one (which must be ours) is overwritten.
///
/// # Safety
/// FMI calling conventions; `*FMUstate` is NULL or a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetFMUstate(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_FMU_STATE, format_args!(""), |comp| {
            comp.capture_to_slot(out_ref(FMUstate, "FMUstate")?)?;
            Ok(fmi2OK)
        })
    }
}

/// Restores a state saved by `fmi2GetFMUstate` or `fmi2DeSerializeFMUstate` (also one saved
/// by another instance of the same model), including the call-sequence state.
///
/// # Safety
/// FMI calling conventions; `FMUstate` is a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetFMUstate(c: fmi2Component, FMUstate: fmi2FMUstate) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SET_FMU_STATE, format_args!(""), |comp| {
            let st = match FmuState::from_ptr(FMUstate) {
                Some(st) => st,
                None if FMUstate.is_null() => return Err("FMUstate is NULL".into()),
                None => return Err("FMUstate is not an FMU state of this FMU".into()),
            };
            comp.restore_logged(st)?;
            Ok(fmi2OK)
        })
    }
}

/// Frees a state and sets `*FMUstate` to NULL; `FMUstate == NULL` and `*FMUstate == NULL`
/// are no-ops.
///
/// # Safety
/// FMI calling conventions; `*FMUstate` is NULL or a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2FreeFMUstate(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::FREE_FMU_STATE, format_args!(""), |_| {
            FmuState::free_slot(FMUstate)?;
            Ok(fmi2OK)
        })
    }
}

/// # Safety
/// FMI calling conventions; `FMUstate` is a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SerializedFMUstateSize(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    size: *mut usize,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SERIALIZED_FMU_STATE_SIZE, format_args!(""), |_| {
            let st = FmuState::from_ptr(FMUstate)
                .ok_or("FMUstate is NULL or not an FMU state of this FMU")?;
            *out_ref(size, "size")? = st.serialized_len();
            Ok(fmi2OK)
        })
    }
}

/// Writes the pointer-free byte form of a state (format in `fmu_state.rs`); `size` must be
/// exactly what `fmi2SerializedFMUstateSize` returned.
///
/// # Safety
/// FMI calling conventions; `serializedState` holds `size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SerializeFMUstate(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    serializedState: *mut fmi2Byte,
    size: usize,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::SERIALIZE_FMU_STATE,
            format_args!("size={size}"),
            |_| {
                let st = FmuState::from_ptr(FMUstate)
                    .ok_or("FMUstate is NULL or not an FMU state of this FMU")?;
                let out = slice_out(serializedState.cast::<u8>(), size, "serializedState")?;
                st.serialize_into(out, "fmi2SerializedFMUstateSize")?;
                Ok(fmi2OK)
            },
        )
    }
}

/// Checks and decodes serialized bytes (magic, versions, GUID, dimensions, checksums) into
/// a state object: a new one if `*FMUstate == NULL`, otherwise the given one.
///
/// # Safety
/// FMI calling conventions; `serializedState` holds `size` bytes; `*FMUstate` is NULL or a
/// state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2DeSerializeFMUstate(
    c: fmi2Component,
    serializedState: *const fmi2Byte,
    size: usize,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::DESERIALIZE_FMU_STATE,
            format_args!("size={size}"),
            |comp| {
                let slot = out_ref(FMUstate, "FMUstate")?;
                let bytes = slice_in(serializedState.cast::<u8>(), size, "serializedState")?;
                let decoded = FmuState::deserialize(bytes, &comp.model)?;
                FmuState::store_in_slot(slot, decoded)?;
                Ok(fmi2OK)
            },
        )
    }
}

/// Model Exchange: the derivatives and outputs `vUnknown_ref` along `dvKnown` of the
/// continuous states and inputs `vKnown_ref` ([`super::directional`]). Co-Simulation
/// declares `providesDirectionalDerivative="false"` and gets `fmi2Error`.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; the reference and value arrays hold `nUnknown`
/// and `nKnown` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetDirectionalDerivative(
    c: fmi2Component,
    vUnknown_ref: *const fmi2ValueReference,
    nUnknown: usize,
    vKnown_ref: *const fmi2ValueReference,
    nKnown: usize,
    dvKnown: *const fmi2Real,
    dvUnknown: *mut fmi2Real,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::GET_DIRECTIONAL_DERIVATIVE,
            format_args!("nUnknown={nUnknown}, nKnown={nKnown}"),
            |comp| {
                let unknowns = slice_in(vUnknown_ref, nUnknown, "vUnknown_ref[]")?;
                let knowns = slice_in(vKnown_ref, nKnown, "vKnown_ref[]")?;
                let seed = slice_in(dvKnown, nKnown, "dvKnown[]")?;
                let out = slice_out(dvUnknown, nUnknown, "dvUnknown[]")?;
                comp.directional_derivative(unknowns, knowns, seed, out)?;
                Ok(fmi2OK)
            },
        )
    }
}

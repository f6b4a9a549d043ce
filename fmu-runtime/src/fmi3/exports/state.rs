//! Getting, setting and serializing FMU states.

use crate::component::call::{out_ref, slice_in, slice_out};
use crate::component::call_state::FmiState;
use crate::component::fmu_state::FmuState;
use crate::fmi2::types::fmi2Status::fmi2OK;
use crate::fmi3::state_machine as sm;
use crate::fmi3::types::*;

use super::guarded;

// ---------------------------------------------------------------------------------------
// FMU states
// ---------------------------------------------------------------------------------------

/// Saves the complete state; `*FMUState == NULL` allocates a new object, otherwise the
/// given one (which must be ours) is overwritten.
///
/// # Safety
/// FMI calling conventions; `*FMUState` is NULL or a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetFMUState(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::GET_FMU_STATE, format_args!(""), |fmu| {
            let slot = out_ref(FMUState, "FMUState")?;
            fmu.comp.capture_to_slot(slot)?;
            Ok(fmi2OK)
        })
    }
}

/// Restores a state from `fmi3GetFMUState` or `fmi3DeserializeFMUState` (also one of
/// another instance of the same model).
///
/// # Safety
/// FMI calling conventions; `FMUState` is a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetFMUState(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::SET_FMU_STATE, format_args!(""), |fmu| {
            let st = match FmuState::from_ptr(FMUState) {
                Some(st) => st,
                None if FMUState.is_null() => return Err("FMUState is NULL".into()),
                None => return Err("FMUState is not an FMU state of this FMU".into()),
            };
            let s = st.progress.state;
            if !matches!(
                s,
                FmiState::Instantiated
                    | FmiState::InitializationMode
                    | FmiState::StepComplete
                    | FmiState::Terminated
            ) {
                return Err(format!(
                    "the FMU state was saved through FMI 2.0 in state {s}, which FMI 3.0 has not"
                ));
            }
            fmu.comp.restore_logged(st)?;
            fmu.pending.clear();
            Ok(fmi2OK)
        })
    }
}

/// Frees a state and sets `*FMUState` to NULL; NULL pointers are no-ops.
///
/// # Safety
/// FMI calling conventions; `*FMUState` is NULL or a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3FreeFMUState(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::FREE_FMU_STATE, format_args!(""), |_| {
            FmuState::free_slot(FMUState)?;
            Ok(fmi2OK)
        })
    }
}

/// # Safety
/// FMI calling conventions; `FMUState` is a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SerializedFMUStateSize(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    size: *mut usize,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::SERIALIZED_FMU_STATE_SIZE,
            format_args!(""),
            |_| {
                let st = FmuState::from_ptr(FMUState)
                    .ok_or("FMUState is NULL or not an FMU state of this FMU")?;
                *out_ref(size, "size")? = st.serialized_len();
                Ok(fmi2OK)
            },
        )
    }
}

/// The pointer-free byte form of a state (as FMI 2.0's); `size` must be what
/// `fmi3SerializedFMUStateSize` returned.
///
/// # Safety
/// FMI calling conventions; `serializedState` holds `size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SerializeFMUState(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    serializedState: *mut fmi3Byte,
    size: usize,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::SERIALIZE_FMU_STATE,
            format_args!("size={size}"),
            |_| {
                let st = FmuState::from_ptr(FMUState)
                    .ok_or("FMUState is NULL or not an FMU state of this FMU")?;
                let out = slice_out(serializedState, size, "serializedState")?;
                st.serialize_into(out, "fmi3SerializedFMUStateSize")?;
                Ok(fmi2OK)
            },
        )
    }
}

/// Checks and decodes serialized bytes (magic, versions, token, dimensions, checksums).
///
/// # Safety
/// FMI calling conventions; `serializedState` holds `size` bytes; `*FMUState` is NULL or
/// a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3DeserializeFMUState(
    instance: fmi3Instance,
    serializedState: *const fmi3Byte,
    size: usize,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::DESERIALIZE_FMU_STATE,
            format_args!("size={size}"),
            |fmu| {
                let slot = out_ref(FMUState, "FMUState")?;
                let bytes = slice_in(serializedState, size, "serializedState")?;
                let decoded = FmuState::deserialize(bytes, &fmu.comp.model)?;
                FmuState::store_in_slot(slot, decoded)?;
                Ok(fmi2OK)
            },
        )
    }
}

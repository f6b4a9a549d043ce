//! Saved FMU states (`fmi2GetFMUstate` & co.) and their byte format.
//!
//! An [`FmuState`] is what an `fmi2FMUstate` pointer points to: the instance
//! [`Snapshot`] (integrator state + parameter values) plus the FMI-level facts that decide
//! what the master may do next (call-sequence state, experiment, last successful time).
//! Restoring both is what makes a rollback continue exactly like the original run.
//!
//! Serialized layout (little-endian, pointer-free, so it can be restored in another
//! process; pitfall 13 of the notes):
//!
//! ```text
//! magic "HMFMI2S\0" | version u32 | FMI state code u32 | flags u8 (1 = stop time defined,
//! 2 = terminated, 4 = last step discarded) | start time f64 | stop time f64 |
//! last successful time f64 | snapshot length u64 | Snapshot::encode bytes | FNV-1a-64 u64
//! ```
//!
//! The snapshot carries its own magic, version, model GUID and checksum and is checked by
//! [`Snapshot::decode`]; the outer checksum covers our header too.

use super::call_state::FmiState;
use crate::fmi2::types::fmi2Status;
use crate::instance::Snapshot;
use crate::model::CompiledModel;
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"HMFMI2S\0";
const VERSION: u32 = 1;
/// magic, version, state, flags, 3 × f64, snapshot length.
const HEADER_LEN: usize = 8 + 4 + 4 + 1 + 3 * 8 + 8;
const CHECKSUM_LEN: usize = 8;

/// Start and stop time given by `fmi2SetupExperiment`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Experiment {
    pub start_time: f64,
    pub stop_time: Option<f64>,
}

impl Experiment {
    /// Used until `fmi2SetupExperiment` is called: the model's default start time and no
    /// stop time.
    pub fn default_for(model: &CompiledModel) -> Experiment {
        let t0 = model.default_experiment.start_time;
        Experiment {
            start_time: if t0.is_finite() { t0 } else { 0.0 },
            stop_time: None,
        }
    }
}

/// The FMI-level part of an instance's state (everything outside [`crate::Instance`] that a
/// restore must bring back).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub state: FmiState,
    pub experiment: Experiment,
    /// Time of the last state reached successfully (`fmi2LastSuccessfulTime`).
    pub last_successful_time: f64,
    /// Answer to `fmi2GetBooleanStatus(fmi2Terminated)`.
    pub terminated: bool,
    /// Result of the last `fmi2DoStep` (`fmi2OK` or `fmi2Discard`), for
    /// `fmi2GetStatus(fmi2DoStepStatus)`.
    pub last_step_status: fmi2Status,
}

/// Tells our own heap objects apart from foreign or stale pointers. The second word is the
/// address of a static of this binary, so a pointer made by another FMU binary loaded in the
/// same process (possibly another runtime version with another layout) is rejected too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Tag {
    magic: u64,
    binary: usize,
}

static BINARY_MARKER: u8 = 0;

impl Tag {
    pub fn new(magic: u64) -> Tag {
        Tag {
            magic,
            binary: &BINARY_MARKER as *const u8 as usize,
        }
    }

    pub const DEAD: Tag = Tag {
        magic: 0,
        binary: 0,
    };
}

const FMU_STATE_MAGIC: u64 = u64::from_le_bytes(*b"HMFMUST\0");

/// What an `fmi2FMUstate` points to.
#[derive(Debug)]
#[repr(C)]
pub struct FmuState {
    /// First field, so it can be checked before anything else is trusted.
    tag: Tag,
    /// The model the state belongs to (compared by GUID on restore).
    pub model: Arc<CompiledModel>,
    pub snapshot: Snapshot,
    pub progress: Progress,
}

impl FmuState {
    pub fn new(model: Arc<CompiledModel>, snapshot: Snapshot, progress: Progress) -> FmuState {
        FmuState {
            tag: Tag::new(FMU_STATE_MAGIC),
            model,
            snapshot,
            progress,
        }
    }

    /// Our object behind `ptr`, or `None` for NULL and for pointers that we did not create.
    ///
    /// # Safety
    /// `ptr` must be NULL or point to readable memory of at least `size_of::<Tag>()` bytes
    /// (any state pointer handed out by an FMU satisfies this until it is freed).
    pub unsafe fn from_ptr<'a>(ptr: *mut std::ffi::c_void) -> Option<&'a mut FmuState> {
        if ptr.is_null() || !ptr.cast::<FmuState>().is_aligned() {
            return None;
        }
        // SAFETY: see the function contract; the tag is the first field (repr(C)).
        let tag = unsafe { std::ptr::read(ptr.cast::<Tag>()) };
        if tag != Tag::new(FMU_STATE_MAGIC) {
            return None;
        }
        // SAFETY: the tag proves that this is an FmuState we allocated with Box.
        Some(unsafe { &mut *ptr.cast::<FmuState>() })
    }

    /// Frees a state made by `Box::into_raw` and poisons its tag first, so that a second
    /// free of the same pointer is more likely to be caught than to corrupt the heap.
    ///
    /// # Safety
    /// `state` must come from `Box::into_raw(Box<FmuState>)` and not be used afterwards.
    pub unsafe fn free(state: *mut FmuState) {
        // SAFETY: see the function contract.
        unsafe {
            (*state).tag = Tag::DEAD;
            drop(Box::from_raw(state));
        }
    }

    /// Frees the state in the master's slot and sets the slot to NULL; a NULL slot pointer
    /// or a NULL state are no-ops (`fmi2FreeFMUstate` / `fmi3FreeFMUState`).
    ///
    /// # Safety
    /// `slot` is NULL or writable; `*slot` is NULL or a pointer the master got from us.
    pub unsafe fn free_slot(slot: *mut *mut std::ffi::c_void) -> Result<(), String> {
        if slot.is_null() {
            return Ok(());
        }
        if !slot.is_aligned() {
            return Err("the FMU state pointer is not aligned".into());
        }
        // SAFETY: non-NULL and aligned; writable by the function contract.
        let slot = unsafe { &mut *slot };
        if slot.is_null() {
            return Ok(());
        }
        // SAFETY: the function contract.
        unsafe {
            FmuState::from_ptr(*slot).ok_or("the FMU state is not an FMU state of this FMU")?;
            FmuState::free(slot.cast());
        }
        *slot = std::ptr::null_mut();
        Ok(())
    }

    /// Puts a decoded state into the master's slot: a new object for NULL, else into the
    /// given one (which must be ours).
    pub fn store_in_slot(
        slot: &mut *mut std::ffi::c_void,
        decoded: FmuState,
    ) -> Result<(), String> {
        if slot.is_null() {
            *slot = Box::into_raw(Box::new(decoded)).cast();
        } else {
            // SAFETY: a non-NULL state pointer from the master is ours or detected by its
            // tag (from_ptr's contract).
            let st = unsafe { FmuState::from_ptr(*slot) }
                .ok_or("the FMU state is neither NULL nor an FMU state of this FMU")?;
            *st = decoded;
        }
        Ok(())
    }

    /// Writes [`FmuState::serialize`] into the master's buffer, which must have exactly
    /// [`FmuState::serialized_len`] bytes (as the master's `size_function` said).
    pub fn serialize_into(&self, out: &mut [u8], size_function: &str) -> Result<(), String> {
        let needed = self.serialized_len();
        if out.len() != needed {
            return Err(format!(
                "size is {} bytes but the state takes {needed} bytes (see {size_function})",
                out.len()
            ));
        }
        let bytes = self.serialize();
        if bytes.len() != needed {
            return Err(format!(
                "internal error: serialized {} bytes instead of {needed}",
                bytes.len()
            ));
        }
        out.copy_from_slice(&bytes);
        Ok(())
    }

    pub fn serialized_len(&self) -> usize {
        HEADER_LEN + self.snapshot.encoded_len(&self.model.guid) + CHECKSUM_LEN
    }

    /// The byte format of the module docs.
    pub fn serialize(&self) -> Vec<u8> {
        let mut snap = Vec::with_capacity(self.snapshot.encoded_len(&self.model.guid));
        self.snapshot.encode(&self.model.guid, &mut snap);
        let p = &self.progress;
        let mut out = Vec::with_capacity(HEADER_LEN + snap.len() + CHECKSUM_LEN);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&p.state.code().to_le_bytes());
        let flags = p.experiment.stop_time.is_some() as u8
            | (p.terminated as u8) << 1
            | ((p.last_step_status == fmi2Status::fmi2Discard) as u8) << 2;
        out.push(flags);
        for x in [
            p.experiment.start_time,
            p.experiment.stop_time.unwrap_or(0.0),
            p.last_successful_time,
        ] {
            out.extend_from_slice(&x.to_bits().to_le_bytes());
        }
        out.extend_from_slice(&(snap.len() as u64).to_le_bytes());
        out.extend_from_slice(&snap);
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Checks and decodes bytes made by [`FmuState::serialize`] for `model`. Every failure
    /// is a sentence for the log; nothing here can panic on hostile input.
    pub fn deserialize(bytes: &[u8], model: &Arc<CompiledModel>) -> Result<FmuState, String> {
        if bytes.len() < HEADER_LEN + CHECKSUM_LEN || &bytes[..8] != MAGIC {
            return Err(format!(
                "the {} bytes are not a serialized FMU state of a hydromech FMU",
                bytes.len()
            ));
        }
        let (body, tail) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
        if fnv1a(body).to_le_bytes() != tail {
            return Err(
                "the serialized FMU state is corrupted or truncated (checksum mismatch)".into(),
            );
        }
        let u32_at =
            |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap_or_default());
        let u64_at =
            |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().unwrap_or_default());
        let version = u32_at(8);
        if version != VERSION {
            return Err(format!(
                "serialized FMU state format {version} is not supported (expects {VERSION})"
            ));
        }
        let state = FmiState::from_code(u32_at(12))
            .filter(|s| {
                !matches!(
                    s,
                    FmiState::StartAndEnd
                        | FmiState::StepInProgress
                        | FmiState::Fatal
                        | FmiState::IntermediateUpdate
                )
            })
            .ok_or_else(|| {
                "the serialized FMU state holds an invalid call-sequence state".to_string()
            })?;
        let flags = body[16];
        if flags > 7 {
            return Err("the serialized FMU state holds invalid flags".into());
        }
        let [start_time, stop_time, last_successful_time] =
            [17, 25, 33].map(|at| f64::from_bits(u64_at(at)));
        if !(start_time.is_finite() && stop_time.is_finite() && last_successful_time.is_finite()) {
            return Err("the serialized FMU state holds a non-finite time".into());
        }
        let snap_len = u64_at(41);
        if snap_len != (body.len() - HEADER_LEN) as u64 {
            return Err("the serialized FMU state has an inconsistent length".into());
        }
        let snapshot = Snapshot::decode(&body[HEADER_LEN..], model)?;
        let progress = Progress {
            state,
            experiment: Experiment {
                start_time,
                stop_time: (flags & 1 != 0).then_some(stop_time),
            },
            last_successful_time,
            terminated: flags & 2 != 0,
            last_step_status: if flags & 4 != 0 {
                fmi2Status::fmi2Discard
            } else {
                fmi2Status::fmi2OK
            },
        };
        Ok(FmuState::new(model.clone(), snapshot, progress))
    }
}

/// FNV-1a 64 over our header and the snapshot.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

//! The frame every exported function that takes an instance runs in, for both FMI
//! versions, and the checks of the master's pointers.
//!
//! [`guard`]:
//! 1. NULL or foreign handle → error, nothing logged (there is no logger to use);
//! 2. state check against the function's mask (each version's `state_machine.rs`) →
//!    "Illegal call sequence";
//! 3. the body runs inside `catch_unwind`: since Rust 1.81 a panic that reaches an
//!    `extern "C"` boundary aborts the master's process, so a panic becomes `Fatal`
//!    (logged, state `Fatal`) instead;
//! 4. a body error (`Err(message)`) is logged as an error and moves the instance to the
//!    error state of its FMI version ([`Handle::ERROR_STATE`]).

use super::call_state::{FmiFunction, FmiState};
use super::fmu_instance::Component;
use super::logging::Category;
use crate::fmi2::types::fmi2Status;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use fmi2Status::{fmi2Error, fmi2Fatal, fmi2OK};

/// What a function body returns: a status (`OK`, or `Discard` after it logged why), or
/// the reason of an error. FMI 3.0 statuses have the same codes ([`crate::fmi3::types`]).
pub type Outcome = Result<fmi2Status, String>;

/// What an instance handle of one FMI version points to.
pub trait Handle {
    /// The state a failed call leaves the instance in: FMI 2.0 `Error` (only reset, free,
    /// set FMU state and debugging getters remain), FMI 3.0 `Terminated`.
    const ERROR_STATE: FmiState;

    /// Our instance behind `c`, or `None` for NULL and pointers we did not make.
    ///
    /// # Safety
    /// `c` must be NULL or point to at least 16 readable bytes; the master must not call
    /// functions of one instance concurrently.
    unsafe fn from_handle<'a>(c: *mut std::ffi::c_void) -> Option<&'a mut Self>;

    fn component(&mut self) -> &mut Component;

    /// The state's name in the words of this FMI version.
    fn state_name(state: FmiState) -> &'static str;
}

pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("unknown panic payload")
}

/// The common frame of every function that takes an instance (see the module docs).
/// `trace` is formatted only if the `logAll` category is enabled.
///
/// # Safety
/// `c` must be NULL or a pointer returned by the instantiate function of `H`'s FMI
/// version (see [`Handle::from_handle`]); `body` must uphold the safety of whatever it
/// dereferences.
pub unsafe fn guard<H: Handle>(
    c: *mut std::ffi::c_void,
    f: FmiFunction,
    trace: fmt::Arguments<'_>,
    body: impl FnOnce(&mut H) -> Outcome,
) -> fmi2Status {
    // SAFETY: forwarded contract.
    let Some(handle) = (unsafe { H::from_handle(c) }) else {
        return fmi2Error;
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let comp = handle.component();
        if comp.logger.would_log(fmi2OK, Category::All) {
            comp.log(fmi2OK, Category::All, &format!("{}({trace})", f.name));
        }
        if !f.allowed_in(comp.state) {
            return Err(format!(
                "Illegal call sequence (state {}).",
                H::state_name(comp.state)
            ));
        }
        #[cfg(test)]
        if std::mem::take(&mut comp.panic_on_next_call) {
            panic!("panic injected by a test");
        }
        body(handle)
    }));
    let comp = handle.component();
    match outcome {
        Ok(Ok(status)) => status,
        Ok(Err(message)) => {
            comp.log(
                fmi2Error,
                Category::StatusError,
                &format!("{}: {message}", f.name),
            );
            if comp.state != FmiState::Fatal {
                comp.state = H::ERROR_STATE;
            }
            fmi2Error
        }
        Err(payload) => {
            comp.state = FmiState::Fatal;
            let text = panic_text(payload.as_ref());
            let message = format!(
                "{}: internal error (panic: {text}); this instance cannot be used any more",
                f.name
            );
            // The logger is a C function; it cannot unwind into us, but formatting above
            // already happened, so nothing here can panic again.
            comp.log(fmi2Fatal, Category::StatusFatal, &message);
            fmi2Fatal
        }
    }
}

/// The category names of a `SetDebugLogging` call; a NULL entry is an error.
///
/// # Safety
/// If `n > 0` and `categories` is not NULL, it holds `n` pointers, each NULL or a C string.
pub(crate) unsafe fn category_names<'a>(
    categories: *const *const std::ffi::c_char,
    n: usize,
) -> Result<Vec<&'a std::ffi::CStr>, String> {
    // SAFETY: forwarded contract.
    let pointers = unsafe { slice_in(categories, n, "categories[]")? };
    let mut names = Vec::with_capacity(pointers.len());
    for (i, &p) in pointers.iter().enumerate() {
        if p.is_null() {
            return Err(format!("categories[{i}] is NULL"));
        }
        // SAFETY: non-NULL, a C string by the contract.
        names.push(unsafe { std::ffi::CStr::from_ptr(p) });
    }
    Ok(names)
}

/// A master-provided input array of `n` elements (empty if `n == 0`, whatever `ptr` is).
///
/// # Safety
/// If `n > 0` and `ptr` is not NULL, `ptr` must point to `n` readable elements.
pub(crate) unsafe fn slice_in<'a, T>(
    ptr: *const T,
    n: usize,
    what: &str,
) -> Result<&'a [T], String> {
    if n == 0 {
        return Ok(&[]);
    }
    check_array(ptr, n, what)?;
    // SAFETY: non-NULL, aligned, length in range; validity is the master's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// A master-provided output array of `n` elements.
///
/// # Safety
/// If `n > 0` and `ptr` is not NULL, `ptr` must point to `n` writable elements.
pub(crate) unsafe fn slice_out<'a, T>(
    ptr: *mut T,
    n: usize,
    what: &str,
) -> Result<&'a mut [T], String> {
    if n == 0 {
        return Ok(&mut []);
    }
    check_array(ptr, n, what)?;
    // SAFETY: as in `slice_in`.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, n) })
}

pub(crate) fn check_array<T>(ptr: *const T, n: usize, what: &str) -> Result<(), String> {
    if ptr.is_null() {
        return Err(format!("{what} is NULL but its length is {n}"));
    }
    if !ptr.is_aligned() {
        return Err(format!("{what} is not aligned for its element type"));
    }
    if n > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(format!("{what} has an impossible length {n}"));
    }
    Ok(())
}

/// A master-provided pointer to one output value.
///
/// # Safety
/// If not NULL, `ptr` must be valid for writes.
pub(crate) unsafe fn out_ref<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, String> {
    check_array(ptr, 1, what)?;
    // SAFETY: non-NULL and aligned; validity is the master's contract.
    Ok(unsafe { &mut *ptr })
}

//! Creation and destruction of FMU instances.

use crate::component::call::panic_text;
use crate::component::fmu_instance::Component;
use crate::component::logging::{Category, Logger};
use crate::component::me_state::ModelExchange;
use crate::component::resources;
use crate::fmi2::types::*;
use crate::model::{CompiledModel, file as model_file};
use std::ffi::CStr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::null_mut;
use std::sync::Arc;

use fmi2Status::{fmi2Error, fmi2Fatal, fmi2OK};

// ---------------------------------------------------------------------------------------
// Creation and destruction of FMU instances
// ---------------------------------------------------------------------------------------

/// Creates an instance of the FMU's model (Co-Simulation only), read from
/// `resources/hydromech-model.bin` ([`model_file`]). The file is looked for at
/// `fmuResourceLocation` and, for masters that pass NULL or a wrong location, beside the
/// binary ([`resources`]). Returns NULL, after logging why through `functions->logger`, if
/// the name is empty, the type is Model Exchange, the model file is missing, corrupted,
/// from another runtime version or another GUID. `visible` is ignored (no GUI).
///
/// # Safety
/// FMI 2.0 calling conventions: string arguments are NULL or NUL-terminated, `functions`
/// is NULL or points to a callback struct.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2Instantiate(
    instanceName: fmi2String,
    fmuType: fmi2Type,
    fmuGUID: fmi2String,
    fmuResourceLocation: fmi2String,
    functions: *const fmi2CallbackFunctions,
    visible: fmi2Boolean,
    loggingOn: fmi2Boolean,
) -> fmi2Component {
    let _ = visible;
    if functions.is_null() || !functions.is_aligned() {
        return null_mut();
    }
    // SAFETY: non-NULL and aligned; the struct is only valid during this call, so copy it.
    let callbacks = unsafe { *functions };
    let logging_on = loggingOn != fmi2False;
    // SAFETY: instanceName is NULL or a C string (FMI calling conventions).
    let name = (!instanceName.is_null()).then(|| unsafe { CStr::from_ptr(instanceName) });
    let early = Logger::new(
        callbacks.logger,
        callbacks.componentEnvironment,
        name.unwrap_or(c""),
        logging_on,
    );
    let fail = |message: &str| -> fmi2Component {
        early.log(
            fmi2Error,
            Category::StatusError,
            &format!("fmi2Instantiate: {message}"),
        );
        null_mut()
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            return fail("instanceName must be a non-empty string");
        };
        let model_exchange = fmuType == fmi2Type::fmi2ModelExchange;
        if !model_exchange && fmuType != fmi2Type::fmi2CoSimulation {
            return fail(&format!("invalid fmuType {}", fmuType.0));
        }
        if fmuGUID.is_null() {
            return fail("fmuGUID is NULL");
        }
        // SAFETY: non-NULL C string (FMI calling conventions).
        let guid = unsafe { CStr::from_ptr(fmuGUID) };
        // SAFETY: NULL or a C string (FMI calling conventions).
        let location = (!fmuResourceLocation.is_null())
            .then(|| unsafe { CStr::from_ptr(fmuResourceLocation) });
        let (path, how) = match resources::locate(location, model_file::FILE_NAME) {
            Ok(found) => found,
            Err(e) => return fail(&e),
        };
        let model = match resources::read_model(&path, how, &guid.to_string_lossy()) {
            Ok(model) => model,
            Err(e) => return fail(&e),
        };
        early.log(
            fmi2OK,
            Category::All,
            &format!(
                "fmi2Instantiate: model read from {} (found through {how})",
                path.display()
            ),
        );
        let model = Arc::new(model);
        if model_exchange {
            instantiate_model_exchange(model, name, &callbacks, logging_on)
        } else {
            instantiate_with_model(model, name, &callbacks, logging_on)
        }
        .cast::<std::ffi::c_void>()
    }));
    result.unwrap_or_else(|payload| {
        let text = panic_text(payload.as_ref());
        early.log(
            fmi2Fatal,
            Category::StatusFatal,
            &format!("fmi2Instantiate: internal error (panic: {text})"),
        );
        null_mut()
    })
}

/// [`instantiate_with_model`] for Model Exchange: NULL (logged) if the model declares no
/// continuous states (built for Co-Simulation only).
pub(crate) fn instantiate_model_exchange(
    model: Arc<CompiledModel>,
    instance_name: &CStr,
    callbacks: &fmi2CallbackFunctions,
    logging_on: bool,
) -> *mut Component {
    let n = model.continuous_states();
    if n == 0 {
        Logger::new(
            callbacks.logger,
            callbacks.componentEnvironment,
            instance_name,
            logging_on,
        )
        .log(
            fmi2Error,
            Category::StatusError,
            "fmi2Instantiate: fmuType is fmi2ModelExchange but this FMU was built for Co-Simulation only (build it with `hydromech build --interface me` or `--interface both`)",
        );
        return null_mut();
    }
    let comp = instantiate_with_model(model, instance_name, callbacks, logging_on);
    if !comp.is_null() {
        // SAFETY: just made by `Box::into_raw`, not shared yet.
        unsafe { (*comp).model_exchange = Some(ModelExchange::new(n)) };
    }
    comp
}

/// Creates a component for an already decoded model; `fmi2Instantiate` uses it after its
/// argument checks, tests use it to bypass the embedded model. Returns NULL (after logging)
/// on failure; never panics.
pub(crate) fn instantiate_with_model(
    model: Arc<CompiledModel>,
    instance_name: &CStr,
    callbacks: &fmi2CallbackFunctions,
    logging_on: bool,
) -> *mut Component {
    let built = catch_unwind(AssertUnwindSafe(|| {
        Component::new(model, instance_name, callbacks, logging_on)
    }));
    let error = match built {
        Ok(Ok(comp)) => {
            if comp.logger.would_log(fmi2OK, Category::Events) {
                let m = &comp.model;
                comp.log(
                    fmi2OK,
                    Category::Events,
                    &format!("instantiated model {} (GUID {})", m.name, m.guid),
                );
            }
            return Box::into_raw(Box::new(comp));
        }
        Ok(Err(message)) => format!("fmi2Instantiate: {message}"),
        Err(payload) => format!(
            "fmi2Instantiate: internal error (panic: {})",
            panic_text(payload.as_ref())
        ),
    };
    let logger = Logger::new(
        callbacks.logger,
        callbacks.componentEnvironment,
        instance_name,
        logging_on,
    );
    logger.log(fmi2Error, Category::StatusError, &error);
    null_mut()
}

/// Frees the instance. NULL and unknown pointers are ignored; allowed in every state (see
/// `state_machine.rs`).
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate` and is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2FreeInstance(c: fmi2Component) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: FMI calling conventions.
        if let Some(comp) = unsafe { Component::from_handle(c) } {
            comp.log(fmi2OK, Category::All, "fmi2FreeInstance()");
            // SAFETY: the pointer came from Box::into_raw in instantiate_with_model.
            unsafe { Component::free(c.cast()) }
        }
    }));
}

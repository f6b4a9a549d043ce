//! Creation and destruction of instances (Co-Simulation; Model Exchange shares `instantiate`).

use crate::component::call::{Handle, panic_text, slice_in};
use crate::component::logging::{Category, Logger};
use crate::component::resources;
use crate::fmi2::types::fmi2Status::{fmi2Error, fmi2Fatal, fmi2OK};
use crate::fmi3::component::Fmi3Component;
use crate::fmi3::state_machine as sm;
use crate::fmi3::types::*;
use crate::model::{CompiledModel, file as model_file};
use std::ffi::CStr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::null_mut;
use std::sync::Arc;

// ---------------------------------------------------------------------------------------
// Creation and destruction of instances
// ---------------------------------------------------------------------------------------

/// Creates a Co-Simulation instance of the model in `resources/hydromech-model.bin`
/// (looked for at `resourcePath`, a file path, then beside the binary). NULL, after
/// logging why, for an empty name, a wrong instantiation token, a missing or corrupted
/// model file, `eventModeUsed = true` (`hasEventMode="false"`) or a required intermediate
/// variable that is not a continuous input or output.
///
/// # Safety
/// FMI 3.0 calling conventions: strings are NULL or NUL-terminated;
/// `requiredIntermediateVariables` holds `nRequiredIntermediateVariables` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3InstantiateCoSimulation(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    eventModeUsed: fmi3Boolean,
    earlyReturnAllowed: fmi3Boolean,
    requiredIntermediateVariables: *const fmi3ValueReference,
    nRequiredIntermediateVariables: usize,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    intermediateUpdate: fmi3IntermediateUpdateCallback,
) -> fmi3Instance {
    let _ = visible;
    let caller = Caller {
        function: "fmi3InstantiateCoSimulation",
        instance_name: instanceName,
        token: instantiationToken,
        resource_path: resourcePath,
        logging_on: loggingOn,
        environment: instanceEnvironment,
        log_message: logMessage,
    };
    let refuse = eventModeUsed.then_some(
        "eventModeUsed = true, but this FMU has no Event Mode (hasEventMode=\"false\"); instantiate it with eventModeUsed = false",
    );
    // SAFETY: FMI calling conventions.
    unsafe {
        instantiate(caller, refuse, |model, logger| {
            // SAFETY: FMI calling conventions.
            let required = slice_in(
                requiredIntermediateVariables,
                nRequiredIntermediateVariables,
                "requiredIntermediateVariables[]",
            )?;
            Fmi3Component::new(
                Arc::new(model),
                logger,
                earlyReturnAllowed,
                intermediateUpdate,
                instanceEnvironment,
                required,
            )
        })
    }
}

/// The arguments every `fmi3Instantiate*` function has.
pub(in crate::fmi3) struct Caller {
    pub function: &'static str,
    pub instance_name: fmi3String,
    pub token: fmi3String,
    pub resource_path: fmi3String,
    pub logging_on: bool,
    pub environment: fmi3InstanceEnvironment,
    pub log_message: fmi3LogMessageCallback,
}

/// The frame both instantiate functions share: the name (non-empty), `refuse` (a reason
/// to fail before anything is read), the token, the model file; then `build` makes the
/// instance from the decoded model and its logger. NULL after logging why; a panic is
/// caught and logged as fatal.
///
/// # Safety
/// The strings of `caller` are NULL or NUL-terminated (FMI calling conventions), and so is
/// whatever `build` dereferences.
pub(in crate::fmi3) unsafe fn instantiate(
    caller: Caller,
    refuse: Option<&str>,
    build: impl FnOnce(CompiledModel, Logger) -> Result<Fmi3Component, String>,
) -> fmi3Instance {
    let function = caller.function;
    // SAFETY: NULL or a C string (FMI calling conventions).
    let name =
        (!caller.instance_name.is_null()).then(|| unsafe { CStr::from_ptr(caller.instance_name) });
    let early = Logger::new_fmi3(
        caller.log_message,
        caller.environment,
        name.unwrap_or(c""),
        caller.logging_on,
    );
    let fail = |message: &str| -> fmi3Instance {
        early.log(
            fmi2Error,
            Category::StatusError,
            &format!("{function}: {message}"),
        );
        null_mut()
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let Some(name) = name.filter(|n| !n.to_bytes().trim_ascii().is_empty()) else {
            return fail("instanceName must be a non-empty string");
        };
        if let Some(why) = refuse {
            return fail(why);
        }
        if caller.token.is_null() {
            return fail("instantiationToken is NULL");
        }
        // SAFETY: non-NULL C string (FMI calling conventions).
        let token = unsafe { CStr::from_ptr(caller.token) };
        // SAFETY: NULL or a C string (FMI calling conventions).
        let location = (!caller.resource_path.is_null())
            .then(|| unsafe { CStr::from_ptr(caller.resource_path) });
        let model = match read_model(location, &token.to_string_lossy()) {
            Ok(model) => model,
            Err(e) => return fail(&e),
        };
        let logger = Logger::new_fmi3(
            caller.log_message,
            caller.environment,
            name,
            caller.logging_on,
        );
        match build(model, logger) {
            Ok(fmu) => {
                if fmu.comp.logger.would_log(fmi2OK, Category::Events) {
                    let m = &fmu.comp.model;
                    let msg = format!(
                        "instantiated model {} (instantiation token {})",
                        m.name, m.guid
                    );
                    fmu.comp.log(fmi2OK, Category::Events, &msg);
                }
                Box::into_raw(Box::new(fmu)).cast()
            }
            Err(e) => fail(&e),
        }
    }));
    result.unwrap_or_else(|payload| {
        let text = panic_text(payload.as_ref());
        early.log(
            fmi2Fatal,
            Category::StatusFatal,
            &format!("{function}: internal error (panic: {text})"),
        );
        null_mut()
    })
}

/// Finds (at `resourcePath`, else beside the binary) and reads the model file.
pub(in crate::fmi3) fn read_model(
    location: Option<&CStr>,
    token: &str,
) -> Result<CompiledModel, String> {
    let (path, how) = resources::locate_path(location, model_file::FILE_NAME)?;
    resources::read_model(&path, how, token)
}

/// An FMI 3.0 instance of an already decoded model (tests bypass the model file with it).
/// NULL on failure; never panics.
#[cfg(test)]
pub(crate) fn instantiate_with_model(
    model: Arc<CompiledModel>,
    name: &CStr,
    logger: Logger,
    early_return_allowed: bool,
    intermediate_update: fmi3IntermediateUpdateCallback,
    environment: fmi3InstanceEnvironment,
    required: &[u32],
) -> fmi3Instance {
    let _ = name;
    let built = catch_unwind(AssertUnwindSafe(|| {
        Fmi3Component::new(
            model,
            logger,
            early_return_allowed,
            intermediate_update,
            environment,
            required,
        )
    }));
    match built {
        Ok(Ok(fmu)) => Box::into_raw(Box::new(fmu)).cast(),
        _ => null_mut(),
    }
}

/// Frees the instance; NULL and unknown pointers are ignored. Not from inside the
/// intermediate-update callback (the step still runs on the instance): that call is
/// refused with a logged error and the instance lives on.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation` and is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3FreeInstance(instance: fmi3Instance) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: FMI calling conventions.
        let Some(fmu) = (unsafe { Fmi3Component::from_handle(instance) }) else {
            return;
        };
        if !sm::FREE_INSTANCE.allowed_in(fmu.comp.state) {
            fmu.comp.log(
                fmi2Error,
                Category::StatusError,
                "fmi3FreeInstance: Illegal call sequence (state IntermediateUpdateMode): the instance is inside fmi3DoStep",
            );
            return;
        }
        fmu.comp.log(fmi2OK, Category::All, "fmi3FreeInstance()");
        fmu.comp.kill_tag();
        // SAFETY: the pointer came from Box::into_raw(Box<Fmi3Component>).
        drop(unsafe { Box::from_raw(instance.cast::<Fmi3Component>()) });
    }));
}

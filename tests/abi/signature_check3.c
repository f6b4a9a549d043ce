/*
 * ABI check of the FMI 3.0 functions exported by fmu-runtime, against the standard headers
 * (FMPy's copy), built by tests/abi/check_header.sh like signature_check.c:
 *
 *  1. Without HM_WITH_STANDARD_DECLARATIONS: the cbindgen declarations (hydromech_fmi2.h,
 *     which holds both versions' functions and takes its types from fmi3FunctionTypes.h)
 *     are the only ones; each function is assigned to a pointer of its standard
 *     fmi3XxxTYPE. This build is linked against the library and run (main below).
 *  2. With HM_WITH_STANDARD_DECLARATIONS: fmi3Functions.h declares every function a second
 *     time and the compiler checks both are compatible.
 *
 * The layout of the Rust types (hydromech_fmi3_types.h, names prefixed hm_) is compared
 * with the standard types.
 */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hydromech_fmi2.h"
#ifdef HM_WITH_STANDARD_DECLARATIONS
#include "fmi3Functions.h"
#endif
#include "hydromech_fmi3_types.h"

/* ---- 1. every exported function has exactly the standard type ---------------------- */

#define CHECK(name) name##TYPE *const check_##name = &name;

CHECK(fmi3GetVersion)
CHECK(fmi3SetDebugLogging)
CHECK(fmi3InstantiateModelExchange)
CHECK(fmi3InstantiateCoSimulation)
CHECK(fmi3InstantiateScheduledExecution)
CHECK(fmi3FreeInstance)
CHECK(fmi3EnterInitializationMode)
CHECK(fmi3ExitInitializationMode)
CHECK(fmi3EnterEventMode)
CHECK(fmi3Terminate)
CHECK(fmi3Reset)
CHECK(fmi3GetFloat32)
CHECK(fmi3GetFloat64)
CHECK(fmi3GetInt8)
CHECK(fmi3GetUInt8)
CHECK(fmi3GetInt16)
CHECK(fmi3GetUInt16)
CHECK(fmi3GetInt32)
CHECK(fmi3GetUInt32)
CHECK(fmi3GetInt64)
CHECK(fmi3GetUInt64)
CHECK(fmi3GetBoolean)
CHECK(fmi3GetString)
CHECK(fmi3GetBinary)
CHECK(fmi3GetClock)
CHECK(fmi3SetFloat32)
CHECK(fmi3SetFloat64)
CHECK(fmi3SetInt8)
CHECK(fmi3SetUInt8)
CHECK(fmi3SetInt16)
CHECK(fmi3SetUInt16)
CHECK(fmi3SetInt32)
CHECK(fmi3SetUInt32)
CHECK(fmi3SetInt64)
CHECK(fmi3SetUInt64)
CHECK(fmi3SetBoolean)
CHECK(fmi3SetString)
CHECK(fmi3SetBinary)
CHECK(fmi3SetClock)
CHECK(fmi3GetNumberOfVariableDependencies)
CHECK(fmi3GetVariableDependencies)
CHECK(fmi3GetFMUState)
CHECK(fmi3SetFMUState)
CHECK(fmi3FreeFMUState)
CHECK(fmi3SerializedFMUStateSize)
CHECK(fmi3SerializeFMUState)
CHECK(fmi3DeserializeFMUState)
CHECK(fmi3GetDirectionalDerivative)
CHECK(fmi3GetAdjointDerivative)
CHECK(fmi3EnterConfigurationMode)
CHECK(fmi3ExitConfigurationMode)
CHECK(fmi3GetIntervalDecimal)
CHECK(fmi3GetIntervalFraction)
CHECK(fmi3GetShiftDecimal)
CHECK(fmi3GetShiftFraction)
CHECK(fmi3SetIntervalDecimal)
CHECK(fmi3SetIntervalFraction)
CHECK(fmi3SetShiftDecimal)
CHECK(fmi3SetShiftFraction)
CHECK(fmi3EvaluateDiscreteStates)
CHECK(fmi3UpdateDiscreteStates)
CHECK(fmi3EnterContinuousTimeMode)
CHECK(fmi3CompletedIntegratorStep)
CHECK(fmi3SetTime)
CHECK(fmi3SetContinuousStates)
CHECK(fmi3GetContinuousStateDerivatives)
CHECK(fmi3GetEventIndicators)
CHECK(fmi3GetContinuousStates)
CHECK(fmi3GetNominalsOfContinuousStates)
CHECK(fmi3GetNumberOfEventIndicators)
CHECK(fmi3GetNumberOfContinuousStates)
CHECK(fmi3EnterStepMode)
CHECK(fmi3GetOutputDerivatives)
CHECK(fmi3DoStep)
CHECK(fmi3ActivateModelPartition)

/* ---- 2. the Rust types have the layout of the standard types ----------------------- */

#define SAME_TYPE(ours, std) \
    _Static_assert(__builtin_types_compatible_p(ours, std), #ours " is not " #std);
#define SAME_LAYOUT(ours, std) \
    _Static_assert(sizeof(ours) == sizeof(std) && _Alignof(ours) == _Alignof(std), \
                   #ours " has another size or alignment than " #std);
#define SAME_VALUE(ours, std) _Static_assert((int)(ours) == (int)(std), #ours " != " #std);

SAME_TYPE(hm_fmi3Instance, fmi3Instance)
SAME_TYPE(hm_fmi3InstanceEnvironment, fmi3InstanceEnvironment)
SAME_TYPE(hm_fmi3FMUState, fmi3FMUState)
SAME_TYPE(hm_fmi3ValueReference, fmi3ValueReference)
SAME_TYPE(hm_fmi3Float32, fmi3Float32)
SAME_TYPE(hm_fmi3Float64, fmi3Float64)
SAME_TYPE(hm_fmi3Int8, fmi3Int8)
SAME_TYPE(hm_fmi3UInt8, fmi3UInt8)
SAME_TYPE(hm_fmi3Int16, fmi3Int16)
SAME_TYPE(hm_fmi3UInt16, fmi3UInt16)
SAME_TYPE(hm_fmi3Int32, fmi3Int32)
SAME_TYPE(hm_fmi3UInt32, fmi3UInt32)
SAME_TYPE(hm_fmi3Int64, fmi3Int64)
SAME_TYPE(hm_fmi3UInt64, fmi3UInt64)
SAME_TYPE(hm_fmi3Boolean, fmi3Boolean)
SAME_TYPE(hm_fmi3Char, fmi3Char)
SAME_TYPE(hm_fmi3String, fmi3String)
SAME_TYPE(hm_fmi3Byte, fmi3Byte)
SAME_TYPE(hm_fmi3Binary, fmi3Binary)
SAME_TYPE(hm_fmi3Clock, fmi3Clock)

SAME_LAYOUT(hm_fmi3Status, fmi3Status)
SAME_VALUE(hm_fmi3Status_fmi3OK, fmi3OK)
SAME_VALUE(hm_fmi3Status_fmi3Warning, fmi3Warning)
SAME_VALUE(hm_fmi3Status_fmi3Discard, fmi3Discard)
SAME_VALUE(hm_fmi3Status_fmi3Error, fmi3Error)
SAME_VALUE(hm_fmi3Status_fmi3Fatal, fmi3Fatal)
SAME_LAYOUT(hm_fmi3DependencyKind, fmi3DependencyKind)
SAME_LAYOUT(hm_fmi3IntervalQualifier, fmi3IntervalQualifier)

/* Callback types that mention fmi3Status cannot be "compatible" (two distinct enum types),
   so compare sizes. */
SAME_LAYOUT(hm_fmi3LogMessageCallback, fmi3LogMessageCallback)
SAME_TYPE(hm_fmi3IntermediateUpdateCallback, fmi3IntermediateUpdateCallback)
SAME_TYPE(hm_fmi3ClockUpdateCallback, fmi3ClockUpdateCallback)
SAME_TYPE(hm_fmi3LockPreemptionCallback, fmi3LockPreemptionCallback)
SAME_TYPE(hm_fmi3UnlockPreemptionCallback, fmi3UnlockPreemptionCallback)

/* ---- 3. a few real calls through the C ABI ------------------------------------------ */

#ifndef HM_WITH_STANDARD_DECLARATIONS

typedef struct {
    int calls;
    fmi3Status status;
    char category[64];
    char message[1024];
} LogRecord;

static void logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                   fmi3String message) {
    LogRecord *log = (LogRecord *)env;
    log->calls++;
    log->status = status;
    snprintf(log->category, sizeof log->category, "%s", category ? category : "(null)");
    snprintf(log->message, sizeof log->message, "%s", message);
}

static int failures = 0;

static void expect(int ok, const char *what) {
    printf("  [%s] %s\n", ok ? " ok " : "FAIL", what);
    if (!ok) failures++;
}

int main(void) {
    LogRecord log;
    fmi3Instance c;
    fmi3Boolean a, b, e;
    fmi3Float64 t;

    printf("FMI 3.0 runtime calls through the C ABI:\n");
    expect(strcmp(fmi3GetVersion(), "3.0") == 0, "fmi3GetVersion() == \"3.0\"");
    fmi3FreeInstance(NULL);
    expect(1, "fmi3FreeInstance(NULL) is a no-op");
    expect(fmi3DoStep(NULL, 0.0, 0.1, fmi3True, &a, &b, &e, &t) == fmi3Error,
           "fmi3DoStep(NULL, ...) == fmi3Error");

    memset(&log, 0, sizeof log);
    c = fmi3InstantiateCoSimulation("abi%s#check", "{not-the-token-%s}", NULL, fmi3False,
                                    fmi3False, fmi3False, fmi3False, NULL, 0, &log, logger, NULL);
    expect(c == NULL, "fmi3InstantiateCoSimulation with a wrong token (or without a model) returns NULL");
    expect(log.calls >= 1 && log.status == fmi3Error && strcmp(log.category, "logStatusError") == 0,
           "... and logs an fmi3Error in category logStatusError");
    expect(strstr(log.message, "hydromech-model.bin was not found") != NULL ||
               strstr(log.message, "{not-the-token-%s}") != NULL,
           "... whose message arrives intact");
    printf("        message: %s\n", log.message);
    if (c) fmi3FreeInstance(c);

    memset(&log, 0, sizeof log);
    c = fmi3InstantiateCoSimulation("abi", "{x}", NULL, fmi3False, fmi3False, fmi3True, fmi3False,
                                    NULL, 0, &log, logger, NULL);
    expect(c == NULL && strstr(log.message, "eventModeUsed") != NULL,
           "eventModeUsed = true is refused (hasEventMode=\"false\")");

    memset(&log, 0, sizeof log);
    c = fmi3InstantiateModelExchange("abi", "{x}", NULL, fmi3False, fmi3False, &log, logger);
    expect(c == NULL && (strstr(log.message, "hydromech-model.bin was not found") != NULL ||
                         strstr(log.message, "{x}") != NULL),
           "fmi3InstantiateModelExchange checks the model file as Co-Simulation does");

    return failures == 0 ? 0 : 1;
}

#endif

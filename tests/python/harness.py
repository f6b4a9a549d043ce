"""Shared helpers of the hydromech importer tests (used by conftest, the tests and the
subprocess drivers; importable on its own: no pytest import here).

Everything is written against FMPy 0.3.32's low-level `fmpy.fmi2.FMU2Slave`.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import importlib.util
import json
import math
import os
import shutil
import struct
import sys
import threading
from pathlib import Path

import fmpy
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (
    FMU2Slave,
    fmi2CallbackAllocateMemoryTYPE,
    fmi2CallbackFreeMemoryTYPE,
    fmi2CallbackFunctions,
    fmi2CallbackLoggerTYPE,
)

ROOT = Path(__file__).resolve().parents[2]
# The CLI `tests/run.sh` builds (the tests that build FMUs of their own call it).
HYDROMECH = ROOT / "target" / "release" / "hydromech"
FMU_DIR = Path(os.environ.get("HYDROMECH_FMU_DIR", ROOT / "fmus")).resolve()

BUILD_HINT = (
    "run `cargo run --release -p model-compiler -- build` first "
    "(or `bash tests/run.sh`, which builds every FMU before testing)"
)

FMI2_OK, FMI2_WARNING, FMI2_DISCARD, FMI2_ERROR, FMI2_FATAL = range(5)
FMI2_LAST_SUCCESSFUL_TIME = 2  # fmi2StatusKind fmi2LastSuccessfulTime

# The 44 functions of fmi2Functions.h (25 common + 9 CS + 10 ME), FMI 2.0.5 headers l.192-245.
FMI2_FUNCTIONS = [
    # common
    "fmi2GetTypesPlatform", "fmi2GetVersion", "fmi2SetDebugLogging", "fmi2Instantiate",
    "fmi2FreeInstance", "fmi2SetupExperiment", "fmi2EnterInitializationMode",
    "fmi2ExitInitializationMode", "fmi2Terminate", "fmi2Reset", "fmi2GetReal",
    "fmi2GetInteger", "fmi2GetBoolean", "fmi2GetString", "fmi2SetReal", "fmi2SetInteger",
    "fmi2SetBoolean", "fmi2SetString", "fmi2GetFMUstate", "fmi2SetFMUstate",
    "fmi2FreeFMUstate", "fmi2SerializedFMUstateSize", "fmi2SerializeFMUstate",
    "fmi2DeSerializeFMUstate", "fmi2GetDirectionalDerivative",
    # co-simulation
    "fmi2SetRealInputDerivatives", "fmi2GetRealOutputDerivatives", "fmi2DoStep",
    "fmi2CancelStep", "fmi2GetStatus", "fmi2GetRealStatus", "fmi2GetIntegerStatus",
    "fmi2GetBooleanStatus", "fmi2GetStringStatus",
    # model exchange
    "fmi2EnterEventMode", "fmi2NewDiscreteStates", "fmi2EnterContinuousTimeMode",
    "fmi2CompletedIntegratorStep", "fmi2SetTime", "fmi2SetContinuousStates",
    "fmi2GetDerivatives", "fmi2GetEventIndicators", "fmi2GetContinuousStates",
    "fmi2GetNominalsOfContinuousStates",
]
assert len(FMI2_FUNCTIONS) == 44 and len(set(FMI2_FUNCTIONS)) == 44


# --------------------------------------------------------------------------------------------
# FMUs on disk

def fmu_files() -> list[Path]:
    return sorted(FMU_DIR.glob("*.fmu")) if FMU_DIR.is_dir() else []


@functools.lru_cache(maxsize=None)
def model_description(path: str | Path):
    """fmpy.read_model_description without schema validation (test_validate does that)."""
    return fmpy.read_model_description(str(path), validate=False)


_EXTRACT_LOCK = threading.Lock()
_EXTRACTED: dict[str, str] = {}


@atexit.register
def _cleanup_extracted():
    for d in _EXTRACTED.values():
        shutil.rmtree(d, ignore_errors=True)


def extracted(path: str | Path) -> str:
    """Extract an FMU once per process (fmpy.extract into a temp dir) and return the dir."""
    key = str(Path(path).resolve())
    with _EXTRACT_LOCK:
        if key not in _EXTRACTED:
            _EXTRACTED[key] = fmpy.extract(key)
        return _EXTRACTED[key]


def variable(md, name):
    for v in md.modelVariables:
        if v.name == name:
            return v
    raise KeyError(f"{md.modelName}: no variable {name!r}")


def variables(md, causality=None, variability=None, type_=None):
    out = []
    for v in md.modelVariables:
        if causality is not None and v.causality != causality:
            continue
        if variability is not None and (v.variability or "continuous") != variability:
            continue
        if type_ is not None and v.type != type_:
            continue
        out.append(v)
    return out


def real_outputs(md):
    return variables(md, causality="output", type_="Real")


def integer_outputs(md):
    return [v for v in md.modelVariables
            if v.causality == "output" and v.type in ("Integer", "Enumeration")]


def default_step(md) -> float:
    de = md.defaultExperiment
    if de is not None and de.stepSize is not None:
        return float(de.stepSize)
    return 0.01


def default_stop(md) -> float:
    de = md.defaultExperiment
    if de is not None and de.stopTime is not None:
        return float(de.stopTime)
    return 1.0


# --------------------------------------------------------------------------------------------
# Input plans: deterministic inputs that move the machine, used by the protocol tests.

SWITCH_TIME = 0.05


def input_plan(md):
    """Return f(t) -> list[(vr, value)] for every Real input.

    Known machines get a command that actually moves them (a spool step for naya-rod, +10 V for
    the four-bar); any other FMU gets a 1 % step of its start values. The step happens at
    SWITCH_TIME so that state save/restore windows see a transient.
    """
    plan = []
    for v in variables(md, causality="input", type_="Real"):
        start = float(v.start) if v.start is not None else 0.0
        if md.modelName == "naya-rod" and v.name == "valve.command":
            after = start - 0.01
        elif md.modelName == "jaiswal-fourbar" and v.name == "valve.command":
            after = 10.0
        else:
            after = start + 0.01 * (abs(start) if start != 0 else 1.0)
        if v.min is not None:
            after = max(after, float(v.min))
        if v.max is not None:
            after = min(after, float(v.max))
        plan.append((v.valueReference, start, after))

    def at(t):
        return [(vr, s if t < SWITCH_TIME else a) for vr, s, a in plan]

    return at


# --------------------------------------------------------------------------------------------
# Logger: one recorder per process. FMPy's native logger proxy (addLoggerProxy) formats the
# variadic message with vsnprintf and forwards it to ONE process-wide Python callback, so the
# recorder is global and kept alive for the life of the process.

class LogRecorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.records: list[tuple[str, int, str | None, str]] = []

    def __call__(self, env, instance_name, status, category, message):
        rec = (
            instance_name.decode("utf-8", "replace") if instance_name else None,
            int(status),
            category.decode("utf-8", "replace") if category else None,
            message.decode("utf-8", "replace") if message else "",
        )
        with self.lock:
            self.records.append(rec)

    def for_instance(self, name):
        with self.lock:
            return [r for r in self.records if r[0] == name]

    def clear(self):
        with self.lock:
            self.records.clear()


LOG = LogRecorder()
_LOGGER_CFUNC = fmi2CallbackLoggerTYPE(LOG)
CALLBACKS = fmi2CallbackFunctions()
CALLBACKS.logger = _LOGGER_CFUNC
CALLBACKS.allocateMemory = fmi2CallbackAllocateMemoryTYPE(fmpy.calloc)
CALLBACKS.freeMemory = fmi2CallbackFreeMemoryTYPE(fmpy.free)
try:
    from fmpy.logging import addLoggerProxy

    addLoggerProxy(ctypes.byref(CALLBACKS))
except Exception as e:  # pragma: no cover - the proxy ships with FMPy's linux64 wheel
    print(f"warning: FMPy logger proxy unavailable ({e}); messages arrive unformatted")


def new_slave(path, instance_name="hydromech-test", guid=None, logging_on=True, instantiate=True):
    """Create (and instantiate) an FMU2Slave with the recording logger."""
    md = model_description(path)
    slave = FMU2Slave(
        guid=md.guid if guid is None else guid,
        unzipDirectory=extracted(path),
        modelIdentifier=md.coSimulation.modelIdentifier,
        instanceName=instance_name,
    )
    if instantiate:
        slave.instantiate(visible=False, callbacks=CALLBACKS, loggingOn=logging_on)
    return slave


def initialize(slave, t0=0.0, stop=None):
    slave.setupExperiment(startTime=t0, stopTime=stop)
    slave.enterInitializationMode()
    slave.exitInitializationMode()


def start_model_exchange(model, t0=0.0):
    """An instantiated FMU2Model through initialization and the initial event update into
    Continuous-Time Mode."""
    model.setupExperiment(startTime=t0)
    model.enterInitializationMode()
    model.exitInitializationMode()
    model.newDiscreteStates()
    model.enterContinuousTimeMode()


class Outputs:
    """Reads every Real and Integer output of a model."""

    def __init__(self, md):
        self.real = [v.valueReference for v in real_outputs(md)]
        self.int = [v.valueReference for v in integer_outputs(md)]
        self.names = [v.name for v in real_outputs(md)] + [v.name for v in integer_outputs(md)]

    def read(self, slave):
        vals = slave.getReal(self.real) if self.real else []
        ints = slave.getInteger(self.int) if self.int else []
        return list(vals) + [float(i) for i in ints]


def run_steps(slave, md, t, steps, plan=None, outputs=None, no_set_prior=False):
    """Set inputs from `plan`, doStep over `steps`; return (t_end, rows of outputs)."""
    plan = plan or input_plan(md)
    outputs = outputs or Outputs(md)
    rows = []
    for h in steps:
        for vr, val in plan(t):
            slave.setReal([vr], [val])
        slave.doStep(t, h, 1 if no_set_prior else 0)
        t = t + h
        rows.append(outputs.read(slave))
    return t, rows


def bits(rows):
    """Bit patterns of a list of rows of floats: compare with ==, exactly."""
    return [[struct.pack("<d", float(x)).hex() for x in row] for row in rows]


def status_of(exc: BaseException) -> int | None:
    return getattr(exc, "status", None)


def call_status(fn, *args, **kwargs) -> int:
    """Run an FMPy call and return the fmi2Status it produced (0/1 if it did not raise)."""
    try:
        fn(*args, **kwargs)
    except FMICallException as e:
        return e.status
    return FMI2_OK


def free(slave):
    try:
        slave.freeInstance()
    except Exception as e:  # noqa: BLE001 - best effort cleanup
        print(f"freeInstance failed: {e}", file=sys.stderr)


# --------------------------------------------------------------------------------------------
# ecos (ecospy wheel)

def ecospy_dir() -> Path:
    spec = importlib.util.find_spec("ecospy")  # does not import it (that would load libtbb)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("ecospy is not installed in this Python environment")
    return Path(list(spec.submodule_search_locations)[0])


def ecos_binary() -> Path:
    exe = ecospy_dir() / "binaries" / "ecos"
    if not exe.is_file():
        raise RuntimeError(f"ecos binary not found at {exe}")
    if not os.access(exe, os.X_OK):
        exe.chmod(0o755)  # the wheel stores it 0644
    return exe


def ecos_env() -> dict:
    env = dict(os.environ)
    libdir = str(Path(sys.prefix) / "lib")  # libtbb.so.12 from the `tbb` wheel lives here
    env["LD_LIBRARY_PATH"] = libdir + (
        os.pathsep + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def dump_json(obj) -> str:
    return json.dumps(obj, allow_nan=True)


def finite(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def hydromech_or_skip() -> Path:
    """The hydromech CLI, or the test skipped when it is not built."""
    import pytest
    if not HYDROMECH.exists():
        pytest.skip("target/release/hydromech not built (tests/run.sh builds it)")
    return HYDROMECH

"""FMI 3.0 Co-Simulation FMUs (`hydromech build --fmi 3`, in fmus/fmi3/) seen by FMPy.

* `validate_fmu` finds no problem; the archive has the FMI 3.0 platform folders;
* every model run through FMI 3.0 gives the FMI 2.0 FMU's results bit for bit (10 s, the
  supplier package's inputs), through `simulate_fmu`;
* the call protocol through `fmpy.fmi3.FMU3Slave`: illegal call orders and bad values are
  fmi3Error (3) with a logged reason, FMU states roll back and continue bit for bit in a fresh
  instance, corrupted state bytes are refused, the intermediate-update callback is called
  between internal steps and an early return lands on the requested time;
* the binary exports all 75 functions of fmi3Functions.h;
* Ecos, an independent C++ master, runs the FMI 3.0 FMUs to the FMI 2.0 ones' printed values.
"""

from __future__ import annotations

import math
import subprocess
import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.fmi3 import FMU3Slave, fmi3Float64
from fmpy.util import read_csv, read_ref_opt_file
from fmpy.validation import validate_fmu

import harness

FMU3_DIR = harness.FMU_DIR / "fmi3"
PACKAGE = harness.ROOT / "target" / "package" / "fmus" / "2.0" / "cs" / "linux64" / "hydromech"
HINT = "run `cargo run --release --bin hydromech -- build --fmi 3 -o fmus/fmi3` (tests/run.sh does)"
FMI3_ERROR = 3
FMI3_FUNCTIONS = 75


def fmi3_files() -> list[Path]:
    return sorted(FMU3_DIR.glob("*.fmu")) if FMU3_DIR.is_dir() else []


def pytest_generate_tests(metafunc):
    if "fmu3" in metafunc.fixturenames:
        files = fmi3_files()
        metafunc.parametrize("fmu3", files or [None], ids=[p.stem for p in files] or ["none"])


@pytest.fixture
def fmu3(request):
    return request.param


def _need(fmu3):
    if fmu3 is None:
        pytest.fail(f"no FMI 3.0 FMU in {FMU3_DIR}: {HINT}")
    return fmu3


class Log:
    def __init__(self):
        self.records = []

    def __call__(self, env, status, category, message):
        self.records.append((int(status), (category or b"").decode(), message.decode()))

    def errors(self):
        return [r for r in self.records if r[0] >= FMI3_ERROR]


def slave(fmu3, name="fmi3-test", **kwargs):
    md = harness.model_description(fmu3)
    log = Log()
    s = FMU3Slave(guid=md.guid, unzipDirectory=harness.extracted(fmu3),
                  modelIdentifier=md.coSimulation.modelIdentifier, instanceName=name)
    s.instantiate(loggingOn=False, logMessage=log, **kwargs)
    s.log = log  # keeps the callback alive with the slave
    return s, md


def status(fn, *args):
    try:
        fn(*args)
    except FMICallException as e:
        return e.status
    return 0


def outputs(md):
    return [v.valueReference for v in md.modelVariables
            if v.causality == "output" and v.type == "Float64"]


def inputs(md):
    return [v for v in md.modelVariables if v.causality == "input" and v.type == "Float64"]


def run(s, md, t, n, h=None):
    h = h or harness.default_step(md)
    rows = []
    for _ in range(n):
        s.doStep(t, h)
        t += h
        rows.append(s.getFloat64(outputs(md)))
    return t, rows


def test_fmi3_fmus_exist_for_every_model():
    names = sorted(p.stem for p in fmi3_files())
    assert names == sorted(p.stem for p in harness.fmu_files() if "." not in p.stem), HINT


def test_fmpy_validate(fmu3, report):
    problems = validate_fmu(str(_need(fmu3)))
    assert problems == [], problems
    report(f"{fmu3.stem}: FMPy validate_fmu (FMI 3.0): 0 problems")


def test_archive_has_fmi3_platform_folders(fmu3):
    md = harness.model_description(_need(fmu3))
    assert md.fmiVersion == "3.0"
    with zipfile.ZipFile(fmu3) as z:
        binaries = sorted(n for n in z.namelist() if n.startswith("binaries/"))
    ident = md.coSimulation.modelIdentifier
    assert f"binaries/x86_64-linux/{ident}.so" in binaries, binaries
    assert not any(n.startswith(("binaries/linux64/", "binaries/win64/")) for n in binaries)
    cs = md.coSimulation
    assert cs.canGetAndSetFMUstate and cs.canSerializeFMUstate  # FMPy's names for both versions
    assert cs.providesIntermediateUpdate and cs.canReturnEarlyAfterIntermediateUpdate
    assert not cs.hasEventMode


def test_binary_exports_every_fmi3_function(fmu3, report):
    md = harness.model_description(_need(fmu3))
    lib = Path(harness.extracted(fmu3)) / "binaries" / "x86_64-linux" / f"{md.coSimulation.modelIdentifier}.so"
    header = Path(fmpy.__file__).parent / "c-code" / "fmi3Functions.h"
    names = [line.split()[-1].rstrip(";") for line in header.read_text().splitlines()
             if line.startswith("FMI3_Export fmi3")]
    assert len(names) == FMI3_FUNCTIONS
    nm = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True,
                        check=True).stdout
    exported = {line.split()[-1] for line in nm.splitlines() if " T " in line}
    missing = [n for n in names if n not in exported]
    assert missing == []
    report(f"{fmu3.stem}: all {len(names)} fmi3 functions exported (and the 44 fmi2 ones)")


@pytest.mark.parametrize("model", sorted(p.stem for p in fmi3_files()))
def test_bit_identical_to_fmi2(model, report):
    """The supplier package's manoeuvre through both interfaces, every output compared."""
    fmi2 = harness.FMU_DIR / f"{model}.fmu"
    d = next(PACKAGE.glob(f"*/{model}"), None)
    if d is None:
        pytest.fail(f"no package of {model} under {PACKAGE}: run hydromech package (tests/run.sh does)")
    opt = read_ref_opt_file(str(d / f"{model}_ref.opt"))
    inp = read_csv(str(d / f"{model}_in.csv"))
    kw = dict(fmi_type="CoSimulation", start_time=opt["StartTime"], stop_time=opt["StopTime"],
              output_interval=opt["StepSize"], input=inp, validate=False)
    md2 = harness.model_description(fmi2)
    names = [v.name for v in md2.modelVariables if v.causality == "output"]
    r2 = fmpy.simulate_fmu(str(fmi2), output=names, **kw)
    r3 = fmpy.simulate_fmu(str(FMU3_DIR / f"{model}.fmu"), output=names, **kw)
    assert r2.size == r3.size and r2.size > 100
    bits = lambda r, n: np.ascontiguousarray(r[n], dtype=np.float64).view(np.uint64)  # noqa: E731
    differ = {n: int(np.sum(bits(r2, n) != bits(r3, n))) for n in names}
    assert sum(differ.values()) == 0, differ
    moved = sum(1 for n in names if np.ptp(r2[n]) > 0)
    report(f"{model}: FMI 3.0 = FMI 2.0 bit for bit over {r2.size} points × {len(names)} outputs "
           f"({moved} of them move)")


# ---------------------------------------------------------------------------------------------
# Call protocol


def _init(s, md, stop=None):
    s.enterInitializationMode(startTime=0.0, stopTime=stop)
    s.exitInitializationMode()


ILLEGAL = {
    "doStep_right_after_instantiate": lambda s, md, h: s.doStep(0.0, h),
    "doStep_in_initialization_mode": lambda s, md, h: (s.enterInitializationMode(), s.doStep(0.0, h)),
    "exitInitializationMode_without_enter": lambda s, md, h: s.exitInitializationMode(),
    "enterInitializationMode_twice": lambda s, md, h: (_init(s, md), s.enterInitializationMode()),
    "setFloat64_on_output": lambda s, md, h: (_init(s, md), s.setFloat64([outputs(md)[0]], [1.0])),
    "getFloat64_unknown_value_reference": lambda s, md, h: (
        _init(s, md), s.getFloat64([max(v.valueReference for v in md.modelVariables) + 1000])),
    "setFloat64_NaN_input": lambda s, md, h: (
        _init(s, md), s.setFloat64([inputs(md)[0].valueReference], [math.nan])),
    "setFloat64_infinite_input": lambda s, md, h: (
        _init(s, md), s.setFloat64([inputs(md)[0].valueReference], [math.inf])),
    "setFloat64_time": lambda s, md, h: (_init(s, md), s.setFloat64([0], [1.0])),
    "doStep_after_terminate": lambda s, md, h: (_init(s, md), s.doStep(0.0, h), s.terminate(),
                                                s.doStep(h, h)),
    "doStep_zero_step_size": lambda s, md, h: (_init(s, md), s.doStep(0.0, 0.0)),
    "doStep_negative_step_size": lambda s, md, h: (_init(s, md), s.doStep(0.0, -h)),
    "doStep_mismatching_communication_point": lambda s, md, h: (
        _init(s, md), s.doStep(0.0, h), s.doStep(2 * h, h)),
    "doStep_past_stop_time": lambda s, md, h: (_init(s, md, stop=h), s.doStep(0.0, 2 * h)),
    "enterEventMode_without_event_mode": lambda s, md, h: (_init(s, md), s.enterEventMode()),
}


@pytest.mark.parametrize("scenario", list(ILLEGAL))
def test_illegal_call_returns_error(fmu3, scenario):
    s, md = slave(_need(fmu3), f"illegal-{scenario}")
    if scenario.endswith("_input") and not inputs(md):
        s.freeInstance()
        pytest.skip(f"{fmu3.stem} has no input")
    try:
        got = status(ILLEGAL[scenario], s, md, harness.default_step(md))
        errors = s.log.errors()
    finally:
        s.freeInstance()
    assert got == FMI3_ERROR, f"{scenario}: expected fmi3Error (3), got {got}"
    assert errors, f"{scenario}: fmi3Error without a logged reason"
    assert all(cat == "logStatusError" for _, cat, _ in errors), errors


def test_time_is_the_independent_variable(fmu3):
    s, md = slave(_need(fmu3))
    try:
        time_vr = [v for v in md.modelVariables if v.causality == "independent"][0].valueReference
        _init(s, md)
        h = harness.default_step(md)
        run(s, md, 0.0, 3)
        assert s.getFloat64([time_vr]) == [pytest.approx(3 * h, abs=1e-15)]
    finally:
        s.freeInstance()


def test_rollback_and_fresh_instance_are_bit_identical(fmu3):
    s, md = slave(_need(fmu3), "state-source")
    try:
        _init(s, md)
        t1, _ = run(s, md, 0.0, 5)
        state = s.getFMUState()
        _, first = run(s, md, t1, 20)
        s.setFMUState(state)
        _, again = run(s, md, t1, 20)
        assert again == first
        data = s.serializeFMUState(state)
        s.freeFMUState(state)
    finally:
        s.freeInstance()
    f, _ = slave(fmu3, "state-target")
    try:
        st = f.deserializeFMUState(data)
        f.setFMUState(st)
        f.freeFMUState(st)
        _, fresh = run(f, md, t1, 20)
    finally:
        f.freeInstance()
    assert fresh == first


def test_corrupted_state_bytes_are_refused(fmu3):
    s, md = slave(_need(fmu3), "corrupt")
    try:
        _init(s, md)
        run(s, md, 0.0, 2)
        state = s.getFMUState()
        data = bytearray(s.serializeFMUState(state))
        s.freeFMUState(state)
        data[len(data) // 2] ^= 0xFF
        assert status(s.deserializeFMUState, bytes(data)) == FMI3_ERROR
        assert any("checksum" in m for _, _, m in s.log.errors()), s.log.records
    finally:
        s.freeInstance()


def test_intermediate_update_and_early_return(fmu3, report):
    """The callback comes between internal steps; the outputs read there move; an early
    return lands on the requested time and the run continues from it."""
    md = harness.model_description(_need(fmu3))
    internal = float(md.coSimulation.fixedInternalStepSize)
    outs = outputs(md)
    calls = []
    holder = {}

    def update(env, t, set_requested, get_allowed, finished, can_return, requested, when):
        calls.append((t, bool(get_allowed), bool(can_return)))
        if get_allowed:
            holder.setdefault("read", []).append(holder["s"].getFloat64(outs[:1])[0])
        if holder.get("early") is not None and can_return:
            requested[0] = True
            when[0] = holder.pop("early")

    s, _ = slave(fmu3, "intermediate", earlyReturnAllowed=True, intermediateUpdate=update,
                 requiredIntermediateVariables=outs[:1])
    holder["s"] = s
    try:
        _init(s, md)
        h = 10 * internal
        _, _, early, last = s.doStep(0.0, h)
        assert not early and last == pytest.approx(h, abs=1e-15)
        assert len(calls) == 9, calls
        times = [c[0] for c in calls]
        assert all(0.0 < a < b < h for a, b in zip(times, times[1:])), times
        assert all(get and can for _, get, can in calls)
        holder["early"] = h + 4.5 * internal
        _, _, early, last = s.doStep(h, h)
        assert early and last == h + 4.5 * internal
        _, _, early, last = s.doStep(last, 2 * h - last)
        assert not early
    finally:
        s.freeInstance()
    report(f"{fmu3.stem}: intermediate update every internal step ({internal} s), "
           f"early return at {h + 4.5 * internal} s")


def _moving_run(s, md, n, h=None):
    """Step `n` times with every continuous input moved 1 % at the 6th step."""
    h = h or harness.default_step(md)
    ins = inputs(md)
    rows, t = [], 0.0
    for k in range(n):
        for v in ins:
            start = float(v.start) if v.start is not None else 0.0
            moved = start * 1.01 if start != 0 else 0.01
            s.setFloat64([v.valueReference], [start if k < 5 else moved])
        s.doStep(t, h)
        t += h
        rows.append(s.getFloat64(outputs(md)))
    return rows


def test_reset_equals_fresh_instance(fmu3):
    a, md = slave(_need(fmu3), "reset-a")
    b, _ = slave(fmu3, "reset-b")
    try:
        _init(a, md)
        first = _moving_run(a, md, 15)
        a.reset()
        _init(a, md)
        after_reset = _moving_run(a, md, 15)
        _init(b, md)
        fresh = _moving_run(b, md, 15)
    finally:
        a.freeInstance()
        b.freeInstance()
    assert first == fresh, "two fresh runs differ"
    assert after_reset == fresh, "fmi3Reset is not a fresh instance"


def test_concurrent_instances_match_sequential_runs(fmu3):
    """Two instances in two threads, each stepping its own manoeuvre, give what each gives
    alone: no state is shared between instances."""
    import threading

    md = harness.model_description(_need(fmu3))
    alone, _ = slave(fmu3, "alone")
    try:
        _init(alone, md)
        reference = _moving_run(alone, md, 30)
    finally:
        alone.freeInstance()
    results, errors = {}, []

    def worker(name):
        try:
            s, _ = slave(fmu3, name)
            _init(s, md)
            results[name] = _moving_run(s, md, 30)
            s.freeInstance()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"{name}: {e}")

    threads = [threading.Thread(target=worker, args=(f"thread-{i}",)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=300)
    assert not errors, errors
    assert results == {"thread-0": reference, "thread-1": reference}


def test_variable_communication_steps_land_exactly(fmu3):
    """Steps of 0.37, 1, 2.5 and 0.1 internal steps: the FMU's time is where the master
    says after each, and a step that is not a multiple of the internal one is taken."""
    s, md = slave(_need(fmu3), "variable-steps")
    internal = float(md.coSimulation.fixedInternalStepSize)
    time_vr = [v for v in md.modelVariables if v.causality == "independent"][0].valueReference
    try:
        _init(s, md)
        t = 0.0
        for factor in [0.37, 1.0, 2.5, 0.1, 3.0]:
            _, _, early, last = s.doStep(t, factor * internal)
            t += factor * internal
            assert not early and last == t
            assert s.getFloat64([time_vr]) == [t]
            assert all(math.isfinite(x) for x in s.getFloat64(outputs(md)))
    finally:
        s.freeInstance()


def test_hostile_names_and_null_handles_are_harmless(fmu3):
    """An instance name full of printf conversions and `#` is just a name; calls on a NULL
    instance are fmi3Error and fmi3FreeInstance(NULL) is a no-op (no crash)."""
    name = "evil%s%n%x#1#"
    s, md = slave(_need(fmu3), name)
    try:
        assert status(s.doStep, 0.0, harness.default_step(md)) == FMI3_ERROR
        assert status(s.fmi3Terminate, None) == FMI3_ERROR
        s.fmi3FreeInstance(None)
    finally:
        s.freeInstance()
    errors = s.log.errors()
    assert errors and "fmi3DoStep" in errors[0][2], s.log.records


def test_ecos_runs_the_fmi3_fmu_as_the_fmi2_one(fmu3, ecos_path, tmp_path, report):
    """Ecos (an independent C++ master with partial FMI 3.0 support) runs the FMI 3.0 FMU
    and prints the same values (its CSV has 6 decimals) as for the FMI 2.0 twin."""
    import csv
    md = harness.model_description(_need(fmu3))
    h = harness.default_step(md)
    stop = min(harness.default_stop(md), 10.0)
    tables = {}
    for tag, path in [("fmi3", fmu3), ("fmi2", harness.FMU_DIR / f"{fmu3.stem}.fmu")]:
        cwd = tmp_path / tag
        cwd.mkdir()
        p = subprocess.run(
            [str(ecos_path), "simulate", "--path", str(path), "--stopTime", repr(stop),
             "--stepSize", repr(h), "--noParallel"],
            cwd=cwd, env=harness.ecos_env(), capture_output=True, text=True, timeout=900,
            stdin=subprocess.DEVNULL)
        assert p.returncode == 0, f"ecos on {path}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}"
        (out,) = list(cwd.glob("*.csv"))
        with open(out, newline="") as f:
            rows = list(csv.reader(f, skipinitialspace=True))
        # The master's own columns (iterations, time), then instance::<variable>[TYPE].
        names = [c.strip() if "::" not in c else "var:" + c.strip().split("::", 1)[1].split("[", 1)[0]
                 for c in rows[0]]
        tables[tag] = {n: [r[i] for r in rows[1:] if r] for i, n in enumerate(names)}
    shared = sorted(set(tables["fmi2"]) & set(tables["fmi3"]) - {"iterations"})
    outs = {"var:" + v.name for v in md.modelVariables if v.causality == "output"}
    assert outs <= set(shared), outs - set(shared)
    # FMI 3.0's independent variable, read back by the master, is its own time.
    fmu_time = [float(x) for x in tables["fmi3"]["var:time"]]
    master_time = [float(x) for x in tables["fmi3"]["time"]]
    assert max(abs(a - b) for a, b in zip(fmu_time, master_time)) < 1e-6
    differ = [n for n in shared if tables["fmi2"][n] != tables["fmi3"][n]]
    assert differ == [], differ
    rows = len(tables["fmi3"]["time"])
    report(f"{fmu3.stem}: ecos runs the FMI 3.0 FMU: {rows} rows × {len(shared)} columns as the FMI 2.0 one")

"""FMI 2.0 Co-Simulation call protocol through FMPy's low-level FMU2Slave, for every FMU.

Illegal call sequences must return fmi2Error (3) (FMPy raises FMICallException with .status),
FMU state save/restore/serialize must reproduce results bit for bit, reset must equal a fresh
instance, concurrent instances must not interfere, and variable communication steps must land
exactly on the requested times.
"""

from __future__ import annotations

import ctypes
import json
import math
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from fmpy.fmi1 import FMICallException

import harness
from harness import FMI2_ERROR, FMI2_OK

DRIVER = Path(__file__).resolve().parent / "fmu_driver.py"


def _steps(md, duration):
    h = harness.default_step(md)
    return [h] * max(1, math.ceil(round(duration / h, 9)))


def _driver(spec: dict, tmp_path: Path, timeout=300):
    spec_file = tmp_path / f"spec-{spec['mode']}.json"
    spec_file.write_text(json.dumps(spec))
    p = subprocess.run([sys.executable, str(DRIVER), str(spec_file)], capture_output=True,
                       text=True, timeout=timeout)
    assert p.returncode == 0, (
        f"driver process for {spec['mode']!r} died with exit code {p.returncode} "
        f"(negative = killed by signal {-p.returncode if p.returncode < 0 else ''})\n"
        f"stdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _fixed_parameter(md):
    for v in md.modelVariables:
        if v.causality == "parameter" and v.variability == "fixed" and v.type == "Real":
            return v
    return None


def _real_input(md):
    ins = harness.variables(md, causality="input", type_="Real")
    return ins[0] if ins else None


def _unknown_vr(md):
    return max(v.valueReference for v in md.modelVariables) + 1000


# ---------------------------------------------------------------------------------------------
# Illegal call orders -> fmi2Error

def _scenario(name):
    """Each scenario gets (slave, md, h) on a fresh, instantiated slave and returns the status
    of the call under test (None = not applicable to this FMU)."""

    def deco(fn):
        SCENARIOS[name] = fn
        return fn

    return deco


SCENARIOS: dict = {}


@_scenario("doStep_right_after_instantiate")
def _(s, md, h):
    return harness.call_status(s.doStep, 0.0, h)


@_scenario("doStep_before_exitInitializationMode")
def _(s, md, h):
    s.setupExperiment(startTime=0.0)
    s.enterInitializationMode()
    return harness.call_status(s.doStep, 0.0, h)


@_scenario("exitInitializationMode_without_enter")
def _(s, md, h):
    s.setupExperiment(startTime=0.0)
    return harness.call_status(s.exitInitializationMode)


@_scenario("setReal_on_output")
def _(s, md, h):
    harness.initialize(s)
    out = harness.real_outputs(md)[0]
    return harness.call_status(s.setReal, [out.valueReference], [1.0])


@_scenario("setReal_on_fixed_parameter_after_init")
def _(s, md, h):
    p = _fixed_parameter(md)
    if p is None:
        return None
    harness.initialize(s)
    s.doStep(0.0, h)
    return harness.call_status(s.setReal, [p.valueReference], [float(p.start) * 0.5 or 1.0])


@_scenario("getReal_unknown_value_reference")
def _(s, md, h):
    harness.initialize(s)
    return harness.call_status(s.getReal, [_unknown_vr(md)])


@_scenario("setReal_unknown_value_reference")
def _(s, md, h):
    harness.initialize(s)
    return harness.call_status(s.setReal, [_unknown_vr(md)], [0.0])


@_scenario("setReal_NaN_input")
def _(s, md, h):
    i = _real_input(md)
    if i is None:
        return None
    harness.initialize(s)
    return harness.call_status(s.setReal, [i.valueReference], [float("nan")])


@_scenario("setReal_infinite_input")
def _(s, md, h):
    i = _real_input(md)
    if i is None:
        return None
    harness.initialize(s)
    return harness.call_status(s.setReal, [i.valueReference], [float("inf")])


@_scenario("doStep_after_terminate")
def _(s, md, h):
    harness.initialize(s)
    s.doStep(0.0, h)
    s.terminate()
    return harness.call_status(s.doStep, h, h)


@_scenario("doStep_zero_step_size")
def _(s, md, h):
    harness.initialize(s)
    return harness.call_status(s.doStep, 0.0, 0.0)


@_scenario("doStep_negative_step_size")
def _(s, md, h):
    harness.initialize(s)
    return harness.call_status(s.doStep, 0.0, -h)


@_scenario("doStep_first_point_not_start_time")
def _(s, md, h):
    harness.initialize(s, 0.0)
    return harness.call_status(s.doStep, 0.5 * h, h)


@_scenario("doStep_mismatching_communication_point")
def _(s, md, h):
    harness.initialize(s, 0.0)
    s.doStep(0.0, h)
    s.doStep(h, h)
    return harness.call_status(s.doStep, 2 * h + 0.25 * h, h)  # master skipped a quarter step


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_illegal_call_returns_error(fmu_path, scenario, log):
    md = harness.model_description(fmu_path)
    name = f"illegal-{scenario}"
    s = harness.new_slave(fmu_path, name)
    try:
        status = SCENARIOS[scenario](s, md, harness.default_step(md))
    finally:
        harness.free(s)
    if status is None:
        pytest.skip(f"{md.modelName} has no variable this scenario needs")
    assert status == FMI2_ERROR, f"{scenario}: expected fmi2Error (3), got status {status}"
    msgs = log.for_instance(name)
    assert any(r[1] >= FMI2_ERROR for r in msgs), (
        f"{scenario}: returned fmi2Error but logged no error message (got {msgs})")


def test_log_categories_are_declared(fmu_path, log):
    """Every logged category must be a declared <LogCategories> name (or NULL if none)."""
    md = harness.model_description(fmu_path)
    s = harness.new_slave(fmu_path, "categories")
    harness.call_status(s.doStep, 0.0, harness.default_step(md))  # provoke an error message
    harness.free(s)
    declared = {c.name for c in md.logCategories}
    recs = log.for_instance("categories")
    assert recs, "no log message for an illegal doStep"
    for _, _, cat, msg in recs:
        if declared:
            assert cat in declared, f"category {cat!r} not in <LogCategories> {declared} ({msg})"
        else:
            assert cat in (None, ""), f"category {cat!r} logged but no <LogCategories> declared"


# ---------------------------------------------------------------------------------------------
# Legal but unusual calls

def test_getReal_after_terminate_is_allowed(fmu_path):
    """Spec table (FMI 2.0 §4.2.4): fmi2Get* is allowed in state `terminated`."""
    md = harness.model_description(fmu_path)
    outs = harness.Outputs(md)
    s = harness.new_slave(fmu_path, "get-after-terminate")
    try:
        harness.initialize(s)
        harness.run_steps(s, md, 0.0, _steps(md, 0.02))
        before = outs.read(s)
        s.terminate()
        after = outs.read(s)  # raises FMICallException if refused
    finally:
        harness.free(s)
    assert all(math.isfinite(x) for x in after), after
    assert harness.bits([after]) == harness.bits([before])


def test_wrong_guid_is_rejected(fmu_path, log):
    s = harness.new_slave(fmu_path, "wrong-guid", guid="{00000000-dead-beef-0000-000000000000}",
                          instantiate=False)
    with pytest.raises(Exception, match="[Ff]ailed to instantiate"):
        s.instantiate(visible=False, callbacks=harness.CALLBACKS, loggingOn=True)
    s.freeLibrary()
    assert s.component is None


def test_printf_conversions_in_instance_name(fmu_path, tmp_path):
    name = "evil%s%n%s%x%%%d%p"
    res = _driver({"mode": "evil_name", "fmu": str(fmu_path), "name": name}, tmp_path)
    assert res["doStep_status"] == FMI2_ERROR
    recs = res["records"]
    assert recs, "the illegal doStep logged nothing"
    for inst, status, cat, msg in recs:
        assert inst == name, f"logger got instanceName {inst!r}, expected {name!r} verbatim"
        if "evil" in msg:
            assert name in msg, f"instance name mangled in the message: {msg!r}"


def test_free_null_is_a_no_op(fmu_path, tmp_path):
    res = _driver({"mode": "null_safety", "fmu": str(fmu_path)}, tmp_path)
    assert res["free_null_state_status"] == FMI2_OK


# ---------------------------------------------------------------------------------------------
# FMU state

def _prepare_state(fmu_path, warmup=0.03, window=0.1):
    """Instance at t1 with a saved state; returns (slave, md, t1, state, window steps)."""
    md = harness.model_description(fmu_path)
    s = harness.new_slave(fmu_path, "state-source")
    harness.initialize(s)
    t1, _ = harness.run_steps(s, md, 0.0, _steps(md, warmup))
    state = s.getFMUstate()
    return s, md, t1, state, _steps(md, window)


def test_rollback_is_bit_identical(fmu_path):
    s, md, t1, state, steps = _prepare_state(fmu_path)
    try:
        t2, first = harness.run_steps(s, md, t1, steps)
        s.setFMUstate(state)
        t2b, second = harness.run_steps(s, md, t1, steps)
        assert t2b == t2
        assert harness.bits(second) == harness.bits(first), "outputs differ after rollback"

        # fmi2GetFMUstate with *FMUstate != NULL must update that state in place
        s.fmi2GetFMUstate(s.component, ctypes.byref(state))
        _, cont_a = harness.run_steps(s, md, t2, steps[:10])
        s.setFMUstate(state)
        _, cont_b = harness.run_steps(s, md, t2, steps[:10])
        assert harness.bits(cont_a) == harness.bits(cont_b), "re-used FMU state not updated"
        s.freeFMUstate(state)
        assert not state.value, "fmi2FreeFMUstate did not set the state to NULL"
    finally:
        harness.free(s)


@pytest.mark.parametrize("init_mode", ["instantiated", "initialized"])
def test_serialized_state_continues_in_fresh_instance(fmu_path, init_mode):
    s, md, t1, state, steps = _prepare_state(fmu_path)
    try:
        data = s.serializeFMUstate(state)
        s.freeFMUstate(state)
        _, reference = harness.run_steps(s, md, t1, steps)
    finally:
        harness.free(s)
    assert len(data) > 0

    f = harness.new_slave(fmu_path, f"fresh-{init_mode}")
    try:
        if init_mode == "initialized":
            harness.initialize(f)
        st = f.deSerializeFMUstate(data)
        f.setFMUstate(st)
        f.freeFMUstate(st)
        _, rows = harness.run_steps(f, md, t1, steps)
    finally:
        harness.free(f)
    assert harness.bits(rows) == harness.bits(reference)


@pytest.mark.parametrize("init_mode", ["instantiated", "initialized"])
def test_serialized_state_continues_in_fresh_process(fmu_path, init_mode, tmp_path):
    s, md, t1, state, steps = _prepare_state(fmu_path)
    try:
        data = s.serializeFMUstate(state)
        s.freeFMUstate(state)
        _, reference = harness.run_steps(s, md, t1, steps)
    finally:
        harness.free(s)
    state_file = tmp_path / "state.bin"
    state_file.write_bytes(data)
    res = _driver({"mode": "continue", "fmu": str(fmu_path), "state_file": str(state_file),
                   "t1": t1, "steps": steps, "init_mode": init_mode}, tmp_path)
    assert res["rows"] == harness.bits(reference)


def test_corrupted_serialized_state_is_rejected(fmu_path, all_fmus, tmp_path, report):
    s, md, t1, state, steps = _prepare_state(fmu_path)
    try:
        data = s.serializeFMUstate(state)
        s.freeFMUstate(state)
        _, reference = harness.run_steps(s, md, t1, steps)
    finally:
        harness.free(s)
    (tmp_path / "state.bin").write_bytes(data)
    spec = {"mode": "corrupt", "fmu": str(fmu_path), "state_file": str(tmp_path / "state.bin"),
            "t1": t1, "steps": steps}
    others = [p for p in all_fmus if p != fmu_path]
    if others:  # a perfectly valid state of a different model must be refused too
        o = harness.new_slave(others[0], "foreign-state")
        try:
            harness.initialize(o)  # state right after initialization: no step needed
            ostate = o.getFMUstate()
            (tmp_path / "foreign.bin").write_bytes(o.serializeFMUstate(ostate))
            o.freeFMUstate(ostate)
        finally:
            harness.free(o)
        spec["foreign_state_file"] = str(tmp_path / "foreign.bin")
    res = _driver(spec, tmp_path)
    report(f"{fmu_path.name}: serialized state {len(data)} bytes; deSerialize statuses on "
           f"damaged input: {res['statuses']}")
    accepted = {k: v for k, v in res["statuses"].items() if v != FMI2_ERROR}
    assert not accepted, f"damaged states not rejected with fmi2Error (3): {accepted}"
    assert res["rows_after"] == harness.bits(reference), "valid state misbehaves afterwards"


# ---------------------------------------------------------------------------------------------
# Reset, concurrency, variable steps

def test_reset_equals_fresh_instance(fmu_path):
    md = harness.model_description(fmu_path)
    steps = _steps(md, 0.1)
    a = harness.new_slave(fmu_path, "reset-a")
    b = harness.new_slave(fmu_path, "reset-b")
    try:
        harness.initialize(a)
        _, first = harness.run_steps(a, md, 0.0, steps)
        a.reset()
        harness.initialize(a)
        _, after_reset = harness.run_steps(a, md, 0.0, steps)
        harness.initialize(b)
        _, fresh = harness.run_steps(b, md, 0.0, steps)
    finally:
        harness.free(a)
        harness.free(b)
    assert harness.bits(first) == harness.bits(fresh), "two fresh runs differ"
    assert harness.bits(after_reset) == harness.bits(fresh), "reset is not a fresh instance"


def _constant_plan(md):
    plan = [(v.valueReference, float(v.start) if v.start is not None else 0.0)
            for v in harness.variables(md, causality="input", type_="Real")]
    return lambda t: plan


REFERENCE_MACHINES = ["naya-rod", "jaiswal-fourbar"]


def _partner(fmu_path, all_fmus):
    """Another FMU to run beside `fmu_path`: a reference machine if possible."""
    others = [p for p in all_fmus if p != fmu_path]
    for stem in REFERENCE_MACHINES:
        for p in others:
            if p.stem == stem:
                return p
    return others[0] if others else None


def test_concurrent_instances_match_sequential_runs(fmu_path, all_fmus):
    # 3 instances of the FMU (moving, constant, moving again) and 1 of another FMU (two
    # different binaries in one process), 400 communication steps each, all started together
    # from a barrier: the FMU calls run truly in parallel (ctypes releases the GIL during
    # foreign calls).
    partner = _partner(fmu_path, all_fmus)
    configs = []
    for path in [fmu_path] + ([partner] if partner else []):
        md = harness.model_description(path)
        steps = [harness.default_step(md)] * 400
        configs.append((path, md, harness.input_plan(md), steps))
        if path == fmu_path:
            configs.append((path, md, _constant_plan(md), steps))
            configs.append((path, md, harness.input_plan(md), steps))

    def run(slave, md, plan, steps):
        harness.initialize(slave)
        return harness.run_steps(slave, md, 0.0, steps, plan=plan)[1]

    sequential = []
    for i, (path, md, plan, steps) in enumerate(configs):
        s = harness.new_slave(path, f"seq-{i}", logging_on=False)
        try:
            sequential.append(run(s, md, plan, steps))
        finally:
            harness.free(s)

    # loggingOn=False: with logging on, every call would call back into Python (logAll) and
    # serialize the threads on the GIL
    slaves = [harness.new_slave(p, f"thread-{i}", logging_on=False)
              for i, (p, *_rest) in enumerate(configs)]
    results: list = [None] * len(configs)
    errors: list = []
    barrier = threading.Barrier(len(configs))

    def worker(i):
        try:
            _, md, plan, steps = configs[i]
            barrier.wait()
            results[i] = run(slaves[i], md, plan, steps)
        except BaseException as e:  # noqa: BLE001
            errors.append((configs[i][0].name, i, repr(e)))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(configs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    for s in slaves:
        harness.free(s)
    assert not errors, errors
    for i, (path, *_rest) in enumerate(configs):
        assert harness.bits(results[i]) == harness.bits(sequential[i]), (
            f"{path.name} config {i}: threaded run differs from the sequential run")


VARIABLE_STEPS = [1e-3, 7e-3, 3e-4, 1e-2, 2.5e-3, 1e-4, 5e-3, 3e-3, 7e-4, 1.3e-2, 0.1, 1e-5]


def test_variable_communication_steps_land_exactly(fmu_path, report):
    md = harness.model_description(fmu_path)
    outs = harness.Outputs(md)
    s = harness.new_slave(fmu_path, "variable-steps")
    provided = True
    try:
        harness.initialize(s, 0.0)
        t = 0.0
        for h in VARIABLE_STEPS * 2:
            s.doStep(t, h, 0)  # must accept exactly the previous end point
            t = t + h
            try:
                last = s.getRealStatus(harness.FMI2_LAST_SUCCESSFUL_TIME)
            except FMICallException as e:
                assert e.status == harness.FMI2_DISCARD, f"getRealStatus -> {e.status}"
                provided = False
            else:
                assert last == t, f"fmi2LastSuccessfulTime = {last!r}, expected {t!r}"
            row = outs.read(s)
            assert all(math.isfinite(x) for x in row), (t, row)
    finally:
        harness.free(s)
    report(f"{fmu_path.name}: variable steps OK up to t={t!r}; fmi2LastSuccessfulTime "
           f"{'provided and exact' if provided else 'not provided (fmi2Discard)'}")

"""Model Exchange FMUs (`hydromech build --interface me|both`, FMI 2.0 in fmus/me/ and
fmus/both/, FMI 3.0 in fmus/fmi3-me/) seen by FMPy.

* `validate_fmu` finds no problem in either; each declares its continuous states (a minimal
  set: independent joint coordinates, their rates, dynamic first-order states, work
  integrals) with nominals, their derivatives in `<Derivatives>` and both in
  `<InitialUnknowns>`;
* FMPy's CVode (BDF, rtol 1e-8) integrating the naya-rod and Pub I four-bar FMUs agrees with
  the monolithic Co-Simulation solver at a fine step (issue 17: 0.05 mm / 0.01 MPa of CS at
  0.1 ms; crank angle within 1e-4 rad, energy balance within 0.1 J), and the number of
  right-hand-side evaluations and the wall time are reported;
* the Co-Simulation side of a `both` FMU is bit-identical to the Co-Simulation-only FMU;
* the calling protocol through `fmpy.fmi2.FMU2Model`: out-of-sequence and malformed calls
  are fmi2Error with a logged reason;
* FMI 3.0 Model Exchange validates and integrates the machine bit for bit as FMI 2.0 does.
"""

from __future__ import annotations

import ctypes
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import simulate_fmu
from fmpy.fmi2 import FMU2Model
from fmpy.validation import validate_fmu

import harness

ME_DIR = harness.FMU_DIR / "me"
BOTH_DIR = harness.FMU_DIR / "both"
ME3_DIR = harness.FMU_DIR / "fmi3-me"
HINT = ("run `hydromech build --interface me -o fmus/me`, `--interface both -o fmus/both` and "
        "`--fmi 3 --interface me -o fmus/fmi3-me` (tests/run.sh does)")
FMI2_ERROR = 3

# The seeds' manoeuvres (models/naya-rod.toml, models/jaiswal-fourbar.toml [report]).
NAYA_COMMAND = [(0, 0.4646082), (2, 0.4646082), (2, 0.4546082), (6, 0.4546082),
                (6, 0.4746082), (10, 0.4746082)]
FOURBAR_COMMAND = [(0, 0), (1, 0), (1, 10), (2.5, 10), (2.5, 0), (5, 0), (5, -10), (8, -10),
                   (8, 0), (10, 0)]


def me_files(d=ME_DIR) -> list[Path]:
    return sorted(d.glob("*.fmu")) if d.is_dir() else []


def pytest_generate_tests(metafunc):
    for name, d in (("me_fmu", ME_DIR), ("both_fmu", BOTH_DIR), ("me3_fmu", ME3_DIR)):
        if name in metafunc.fixturenames:
            files = me_files(d)
            metafunc.parametrize(name, files or [None], ids=[p.stem for p in files] or ["none"])


def _need(path):
    if path is None:
        pytest.fail(f"no Model Exchange FMU: {HINT}")
    return path


def signal(points):
    return np.array(points, dtype=[("time", float), ("valve.command", float)])


def model_exchange_run(fmu, points, **kw):
    """CVode through FMPy, with its derivative evaluations counted and the wall time."""
    calls = {"n": 0}

    def count(message):
        if message.startswith(("fmi2GetDerivatives", "fmi3GetContinuousStateDerivatives")):
            calls["n"] += 1

    started = time.perf_counter()
    r = simulate_fmu(str(fmu), fmi_type="ModelExchange", input=signal(points),
                     fmi_call_logger=count, **kw)
    return r, calls["n"], time.perf_counter() - started


def co_simulation_run(fmu, points, step, **kw):
    started = time.perf_counter()
    r = simulate_fmu(str(fmu), start_values={"solver.step": step}, input=signal(points), **kw)
    return r, time.perf_counter() - started


def gap(me, cs, name):
    return float(np.max(np.abs(np.interp(cs["time"], me["time"], me[name]) - cs[name])))


def test_model_exchange_fmus_exist_for_every_model():
    expected = sorted(p.stem for p in harness.fmu_files() if "." not in p.stem)
    assert sorted(p.stem for p in me_files()) == expected, HINT
    assert sorted(p.stem for p in me_files(BOTH_DIR)) == expected, HINT


def _structure(fmu):
    with zipfile.ZipFile(fmu) as z:
        return ET.fromstring(z.read("modelDescription.xml"))


def test_fmpy_validate_model_exchange(me_fmu, report):
    problems = validate_fmu(str(_need(me_fmu)))
    assert problems == [], problems
    root = _structure(me_fmu)
    assert root.find("ModelExchange") is not None and root.find("CoSimulation") is None
    variables = root.find("ModelVariables").findall("ScalarVariable")
    states = [i + 1 for i, v in enumerate(variables) if v.get("name").startswith("ode.x[")]
    derivatives = root.find("ModelStructure/Derivatives").findall("Unknown")
    assert len(derivatives) == len(states) > 0
    for u in derivatives:
        real = variables[int(u.get("index")) - 1].find("Real")
        assert int(real.get("derivative")) in states
    unknowns = {int(u.get("index")) for u in root.find("ModelStructure/InitialUnknowns")}
    assert set(states) <= unknowns
    nominals = [float(variables[i - 1].find("Real").get("nominal")) for i in states]
    pressures = [n for i, n in zip(states, nominals) if variables[i - 1].find("Real").get("unit") == "Pa"]
    assert all(n == 1e7 for n in pressures), "pressure states have nominal 1e7 Pa"
    # A machine with pressures among its variables has them as states (ball-drop has none).
    hydraulic = any(r is not None and r.get("unit") == "Pa" for r in (x.find("Real") for x in variables))
    assert pressures or not hydraulic, "a hydraulic machine's pressures are continuous states"
    report(f"{me_fmu.stem}: FMI 2.0 Model Exchange, {len(states)} continuous states "
           f"({len(pressures)} pressures): FMPy validate_fmu 0 problems")


def test_fmpy_validate_both(both_fmu):
    problems = validate_fmu(str(_need(both_fmu)))
    assert problems == [], problems
    root = _structure(both_fmu)
    assert root.find("ModelExchange") is not None and root.find("CoSimulation") is not None


def test_co_simulation_of_a_both_fmu_is_the_co_simulation_fmu(both_fmu):
    """Declaring the continuous states changes nothing the Co-Simulation solver does."""
    cs_only = harness.FMU_DIR / f"{_need(both_fmu).stem}.fmu"
    md = harness.model_description(cs_only)
    kw = dict(stop_time=min(2.0, harness.default_stop(md)), output_interval=harness.default_step(md))
    a = simulate_fmu(str(cs_only), **kw)
    b = simulate_fmu(str(both_fmu), **kw)
    for name in a.dtype.names:
        assert np.array_equal(a[name], b[name]), name


def test_naya_rod_model_exchange_against_the_monolithic_solver(report):
    """Issue 17: CVode (rtol 1e-8) within 0.05 mm and 0.01 MPa of Co-Simulation at 0.1 ms."""
    me, evaluations, wall = model_exchange_run(ME_DIR / "naya-rod.fmu", NAYA_COMMAND,
                                               relative_tolerance=1e-8, output_interval=1e-3)
    cs, cs_wall = co_simulation_run(harness.FMU_DIR / "naya-rod.fmu", NAYA_COMMAND, 1e-4,
                                    output_interval=1e-3)
    ds = gap(me, cs, "cylinder.length")
    dp = max(gap(me, cs, "cylinder.p_a"), gap(me, cs, "cylinder.p_b"))
    assert ds <= 0.05e-3, f"cylinder length {ds:.3e} m off"
    assert dp <= 0.01e6, f"pressure {dp:.3e} Pa off"
    balance = float(np.max(np.abs(me["energy.balance_error"])))
    assert balance < 0.01, balance
    report(f"naya-rod ME (CVode rtol 1e-8, 10 s): max |Δs| {ds * 1e3:.2e} mm, max |Δp| "
           f"{dp / 1e6:.2e} MPa against CS at 0.1 ms; {evaluations} derivative evaluations, "
           f"{wall:.2f} s wall (CS at 0.1 ms: {cs_wall:.2f} s); energy balance {balance:.1e} J")


def test_fourbar_model_exchange_against_the_monolithic_solver(report):
    """Issue 17: crank angle within 1e-4 rad, energy drift within 0.1 J (Pub I four-bar)."""
    me, evaluations, wall = model_exchange_run(ME_DIR / "jaiswal-fourbar.fmu", FOURBAR_COMMAND,
                                               relative_tolerance=1e-8, output_interval=1e-3)
    cs, cs_wall = co_simulation_run(harness.FMU_DIR / "jaiswal-fourbar.fmu", FOURBAR_COMMAND,
                                    1e-5, output_interval=1e-3)
    dz = gap(me, cs, "crank.angle")
    balance = float(np.max(np.abs(me["energy.balance_error"])))
    assert dz <= 1e-4, f"crank angle {dz:.3e} rad off"
    assert balance <= 0.1, f"energy balance {balance:.3e} J"
    assert float(np.max(me["constraints.phi_norm"])) < 1e-9, "the loop stays closed"
    work = float(me["energy.actuator_work"][-1])
    assert abs(work - float(cs["energy.actuator_work"][-1])) < 0.01 * abs(work)
    report(f"jaiswal-fourbar ME (CVode rtol 1e-8, 10 s): max |Δz1| {dz:.2e} rad against CS at "
           f"0.01 ms, energy balance {balance:.2e} J (actuator work {work:.1f} J); "
           f"{evaluations} derivative evaluations, {wall:.2f} s wall (CS at 0.01 ms: "
           f"{cs_wall:.2f} s)")


# --------------------------------------------------------------------------------------------
# Protocol through the real binary (the Rust unit tests cover the rest: fmi2/tests_me.rs).

def model(fmu, name="me-test"):
    md = harness.model_description(fmu)
    m = FMU2Model(guid=md.guid, unzipDirectory=harness.extracted(fmu),
                  modelIdentifier=md.modelExchange.modelIdentifier, instanceName=name)
    m.instantiate(callbacks=harness.CALLBACKS)
    return m, md


def errors_of(name):
    return [r[3] for r in harness.LOG.for_instance(name) if r[1] >= FMI2_ERROR]


def pointer(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


def test_model_exchange_protocol_errors():
    fmu = ME_DIR / "naya-rod.fmu"
    m, md = model(fmu, "me-protocol")
    n = md.numberOfContinuousStates
    try:
        x = np.zeros(n)
        assert harness.call_status(m.getContinuousStates, pointer(x), n) == FMI2_ERROR
        assert "Illegal call sequence (state Instantiated)" in errors_of("me-protocol")[-1]
        m.reset()
        m.setupExperiment(startTime=0.0)
        m.enterInitializationMode()
        m.exitInitializationMode()
        info = m.newDiscreteStates()
        assert not info[0] and not info[1]  # no iteration, no termination
        m.enterContinuousTimeMode()
        m.getContinuousStates(pointer(x), n)
        bad = x.copy()
        bad[-1] = np.nan
        assert harness.call_status(m.setContinuousStates, pointer(bad), n) == FMI2_ERROR
        assert f"x[{n - 1}] is NaN" in errors_of("me-protocol")[-1]
        m.reset()
        m.setupExperiment(startTime=0.0)
        m.enterInitializationMode()
        m.exitInitializationMode()
        m.enterContinuousTimeMode()
        assert harness.call_status(m.setContinuousStates, pointer(x), n - 1) == FMI2_ERROR
        assert f"x[] has {n - 1} elements" in errors_of("me-protocol")[-1]
    finally:
        m.freeInstance()


def test_a_co_simulation_fmu_refuses_model_exchange():
    fmu = harness.FMU_DIR / "naya-rod.fmu"
    md = harness.model_description(fmu)
    m = FMU2Model(guid=md.guid, unzipDirectory=harness.extracted(fmu),
                  modelIdentifier=md.coSimulation.modelIdentifier, instanceName="me-refused")
    with pytest.raises(Exception):
        m.instantiate(callbacks=harness.CALLBACKS)
    assert any("built for Co-Simulation only" in e for e in errors_of("me-refused"))


# --------------------------------------------------------------------------------------------
# FMI 3.0 Model Exchange (`hydromech build --fmi 3 --interface me`, in fmus/fmi3-me/)


def test_fmi3_model_exchange_fmus_exist_for_every_model():
    expected = sorted(p.stem for p in harness.fmu_files() if "." not in p.stem)
    assert sorted(p.stem for p in me_files(ME3_DIR)) == expected, HINT


def test_fmpy_validate_fmi3_model_exchange(me3_fmu, report):
    fmu = _need(me3_fmu)
    model = fmu.stem
    problems = validate_fmu(str(fmu))
    assert problems == [], problems
    root = _structure(fmu)
    assert root.get("fmiVersion") == "3.0"
    me = root.find("ModelExchange")
    assert me is not None and root.find("CoSimulation") is None
    assert me.get("needsCompletedIntegratorStep") == "true"
    states = {v.get("valueReference") for v in root.find("ModelVariables")
              if v.get("name", "").startswith("ode.x[")}
    derivatives = root.find("ModelStructure").findall("ContinuousStateDerivative")
    assert len(derivatives) == len(states) > 0
    by_vr = {v.get("valueReference"): v for v in root.find("ModelVariables")}
    assert {by_vr[d.get("valueReference")].get("derivative") for d in derivatives} == states
    report(f"{model}: FMI 3.0 Model Exchange, {len(states)} continuous states: "
           "FMPy validate_fmu 0 problems")


def test_fmi3_model_exchange_runs_as_fmi2_model_exchange(report):
    """The same CVode run through fmi3* and fmi2*: the same machine, the same numbers."""
    runs = {}
    for d in (ME_DIR, ME3_DIR):
        runs[d.name] = model_exchange_run(d / "naya-rod.fmu", NAYA_COMMAND,
                                          relative_tolerance=1e-8, output_interval=1e-3)
    (a, na, _), (b, nb, _) = runs["me"], runs["fmi3-me"]
    worst = max(float(np.max(np.abs(a[n] - b[n]))) for n in ("cylinder.length", "rod.angle"))
    assert len(a) == len(b) and worst == 0.0, worst
    report(f"naya-rod: FMI 3.0 Model Exchange = FMI 2.0 Model Exchange bit for bit under CVode "
           f"({na} and {nb} derivative evaluations)")


def test_directional_derivatives_give_the_stiff_jacobian(report):
    """fmi2GetDirectionalDerivative of ẋ against the test's own central differences of
    fmi2GetDerivatives (steps 1e-6 of each state's nominal), column by column, on naya-rod
    mid-manoeuvre; the pressure block carries the oil's stiffness (∂ṗ/∂p < 0, large)."""
    fmu = ME_DIR / "naya-rod.fmu"
    m, md = model(fmu, "me-jacobian")
    n = md.numberOfContinuousStates
    try:
        harness.start_model_exchange(m)
        command = harness.variable(md, "valve.command").valueReference
        m.setReal([command], [0.4546082])
        x = np.zeros(n)
        m.getContinuousStates(pointer(x), n)
        nominal = np.zeros(n)
        m.getNominalsOfContinuousStates(pointer(nominal), n)
        states = [v.valueReference for v in md.modelVariables if v.name.startswith("ode.x[")]
        derivs = [v.valueReference for v in md.modelVariables if v.name.startswith("der(ode.x[")]

        def f(at):
            m.setContinuousStates(pointer(np.ascontiguousarray(at)), n)
            dx = np.zeros(n)
            m.getDerivatives(pointer(dx), n)
            return dx

        worst = 0.0
        jac = np.zeros((n, n))
        for j in range(n):
            jac[:, j] = m.getDirectionalDerivative(derivs, [states[j]], [1.0])
            h = 1e-6 * nominal[j]
            e = np.zeros(n)
            e[j] = h
            reference = (f(x + e) - f(x - e)) / (2 * h)
            f(x)
            scale = np.abs(reference).max() + 1e-12
            worst = max(worst, float(np.abs(jac[:, j] - reference).max() / scale))
        assert worst < 1e-4, worst
        pressures = [k for k in range(n) if nominal[k] == 1e7]
        stiff = min(jac[k, k] for k in pressures)
        assert stiff < -100.0, stiff  # 1/s: the oil springs react within milliseconds
        eig = np.linalg.eigvals(jac)
        report(f"naya-rod ME Jacobian by fmi2GetDirectionalDerivative: {n}×{n}, worst column "
               f"{worst:.1e} relative to central differences of fmi2GetDerivatives; fastest "
               f"eigenvalue {min(eig.real):.3e} 1/s (the oil stiffness)")
    finally:
        m.freeInstance()


# A 6 m steel box cantilever from the beam mesher (issue 22), released undeformed under its
# own weight and ringing undamped: four Craig–Bampton modes as continuous states.
FLEXIBLE_CANTILEVER = """[model]
name = "flexible-ring"
gravity = [0, 0, -9.81]
[experiment]
start_time = 0.0
stop_time = 0.5
step_size = 0.001
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "boom"
parent = "ground"
joint = { type = "fixed" }
[bodies.flexible]
beam = { length = "6 m", section = { shape = "box", width = "200 mm", height = "300 mm", wall = "8 mm" }, young = "210 GPa", poisson = 0.3, density = "7850 kg/m3" }
damping = 0.0
nodes = [{ name = "tip", at = "6 m" }]
[[markers]]
name = "tip"
body = "boom"
point = [6, 0, 0]
[[interface.outputs]]
name = "tip.z"
quantity = "tip.position.z"
"""


def test_a_flexible_boom_under_cvode_is_what_co_simulation_converges_to(tmp_path):
    """FMPy's CVode on the modal states agrees with the monolithic trapezoidal solver, which
    converges to it at second order as its step falls (1 ms, 0.1 ms, 25 µs)."""
    binary = harness.hydromech_or_skip()
    import subprocess
    description = tmp_path / "flexible-ring.toml"
    description.write_text(FLEXIBLE_CANTILEVER)
    subprocess.run([str(binary), "build", str(description), "--interface", "both", "-o",
                    str(tmp_path)], check=True, capture_output=True)
    fmu = str(tmp_path / "flexible-ring.fmu")
    assert validate_fmu(fmu) == []
    me = simulate_fmu(fmu, stop_time=0.5, output_interval=1e-3, fmi_type="ModelExchange",
                      relative_tolerance=1e-10)
    gaps = []
    for h in (1e-3, 1e-4, 2.5e-5):
        cs = simulate_fmu(fmu, stop_time=0.5, output_interval=1e-3, fmi_type="CoSimulation",
                          start_values={"solver.step": h})
        n = min(len(me), len(cs))
        gaps.append(float(np.max(np.abs(me["tip.z"][:n] - cs["tip.z"][:n]))))
    amplitude = float(np.ptp(me["tip.z"]))
    print(f"flexible cantilever: tip ring {amplitude * 1e3:.3f} mm; |ME − CS| at 1 ms, 0.1 ms, "
          f"25 µs: {', '.join(f'{g:.2e}' for g in gaps)} m")
    assert amplitude > 5e-3
    # Second order: a tenth of the step, a hundredth of the gap (≥ 50× measured 88×).
    assert gaps[1] < gaps[0] / 50 and gaps[2] < gaps[1] / 10
    assert gaps[2] < 2e-5 * amplitude

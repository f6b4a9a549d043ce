"""Co-simulation through the FMI C ABI (issue 15, item 9): the carrier (a mount) and the boom
(a carrier-driven base) of `tests/cosim/` as two FMUs coupled by an FMPy master loop at
communication steps of 10, 5, 2 and 1 ms, against the one-description machine
(`carrier-boom.toml`) run as one FMU. The master initializes with a handshake (carrier
first, motion to the boom, the boom's wrench back, twice), then exchanges the deck's motion
(19 values) one way and the base wrench (6) the other at every communication point; a
second run also sends the motion's first derivatives with fmi2SetRealInputDerivatives.
The split must converge to the whole as the step falls; at 1 ms the deck roll must differ
by at most 1 % of its range (the issue's target). The same split as an SSP archive
(`hydromech build tests/cosim/split.toml`) runs in ecos, whose own master must meet the
same target.
"""

from __future__ import annotations

import csv
import subprocess

import numpy as np
import pytest

import harness

COSIM = harness.ROOT / "tests" / "cosim"
HYDROMECH = harness.HYDROMECH
MOTION = [
    f"{g}.{c}"
    for g, cs in [
        ("position", "xyz"),
        ("orientation", "wxyz"),
        ("velocity", "xyz"),
        ("angular_velocity", "xyz"),
        ("acceleration", "xyz"),
        ("angular_acceleration", "xyz"),
    ]
    for c in cs
]
WRENCH = [f"{g}.{c}" for g in ("force", "moment") for c in "xyz"]
# d/dt of a motion input = another motion output of the carrier.
RATE = {
    **{f"position.{c}": f"velocity.{c}" for c in "xyz"},
    **{f"velocity.{c}": f"acceleration.{c}" for c in "xyz"},
    **{f"angular_velocity.{c}": f"angular_acceleration.{c}" for c in "xyz"},
}
T_END = 3.0


class Case:
    """A machine split at a base: the FMU stems of the whole, the carrier and the carried
    machine, the mount's and the base port's names, the compared outputs (carrier's, carried
    machine's), the run's length and its input steps (time, carried input, value) at
    multiples of 10 ms, so that every master step size sees the same inputs."""

    def __init__(self, whole, carrier, carried, compared, t_end, steps=(), jerk=True):
        self.whole, self.carrier, self.carried = whole, carrier, carried
        self.compared, self.t_end, self.steps = compared, t_end, list(steps)
        self.mount, self.base = "deck", "base"
        # Interpolate the accelerations too, by their change over the last step.
        self.jerk = jerk

    def inputs_at(self, t):
        """The inputs that change at t (within half a microsecond)."""
        return [(name, value) for at, name, value in self.steps if abs(at - t) < 5e-7]


CARRIER_BOOM = Case("carrier-boom", "carrier", "boom", ("roll", "luff"), T_END)
# models/truck-crane.toml split by `hydromech build --split base`: lift the boom, then slew
# the crane to the side and stop it: the truck rolls under the moving load. The deck's
# accelerations answer the crane's wrench within the step (a 2.3 t crane on an 8 t truck):
# their change over the last step carries the exchange's step-to-step oscillation, and
# extrapolating it made the crane's Newton fail at every step size tried (10 to 1 ms), so
# only the motion's exact rates are interpolated here.
TRUCK_CRANE = Case(
    "truck-crane", "truck-crane.carrier", "truck-crane.crane", ("truck.roll", "boom.angle"),
    6.0,
    [(0.5, "boom.command", 0.8), (2.0, "boom.command", 0.0), (2.0, "slew.command", 0.8),
     (4.0, "slew.command", 0.0)],
    jerk=False,
)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    if not HYDROMECH.exists():
        pytest.fail(f"{HYDROMECH} is missing: run `cargo build --release` (tests/run.sh does)")
    out = tmp_path_factory.mktemp("cosim")
    files = [COSIM / f for f in ("carrier.toml", "boom.toml", "carrier-boom.toml", "split.toml")]
    subprocess.run([str(HYDROMECH), "build", *map(str, files), "-o", str(out)], check=True)
    subprocess.run([str(HYDROMECH), "build", "--split", "base",
                    str(harness.ROOT / "models" / "truck-crane.toml"), "-o", str(out)], check=True)
    found = {p.stem: p for p in out.glob("*.fmu")}
    found["split"] = out / "carrier-boom-split.ssp"
    found["truck-crane-split"] = out / "truck-crane-split.ssp"
    return found


def whole_run(fmus, case=CARRIER_BOOM):
    """The one-description machine every 10 ms: rows of the compared outputs."""
    whole = Model(fmus[case.whole], "whole")
    whole.init()
    ref = []
    for k in range(1, round(case.t_end / 0.01) + 1):
        t = (k - 1) * 0.01
        for name, value in case.inputs_at(t):
            whole.set([name], [value])
        whole.slave.doStep(t, 0.01, 1)
        ref.append(whole.get(list(case.compared)))
    whole.slave.terminate()
    whole.slave.freeInstance()
    return np.array(ref)


class Model:
    def __init__(self, path, name):
        self.md = harness.model_description(path)
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.slave = harness.new_slave(path, instance_name=name)
        self.slave.setupExperiment(startTime=0.0, stopTime=None)

    def get(self, names):
        return list(self.slave.getReal([self.vr[n] for n in names]))

    def set(self, names, values):
        self.slave.setReal([self.vr[n] for n in names], list(values))

    def init(self):
        self.slave.enterInitializationMode()
        self.slave.exitInitializationMode()


def split(fmus, h, interpolate, case=CARRIER_BOOM):
    carrier = Model(fmus[case.carrier], "carrier")
    boom = Model(fmus[case.carried], "carried")
    deck = [f"{case.mount}.{s}" for s in MOTION]
    base_in = [f"{case.base}.{s}" for s in MOTION]

    def motion_to_boom():
        boom.set(base_in, carrier.get(deck))

    def wrench_to_carrier():
        carrier.set([f"{case.mount}.{s}" for s in WRENCH],
                    boom.get([f"{case.base}.{s}" for s in WRENCH]))

    # Handshake: FMI allows inputs to be set in initialization mode, so both stay there
    # until motion and wrench agree.
    carrier.slave.enterInitializationMode()
    boom.slave.enterInitializationMode()
    for _ in range(2):
        motion_to_boom()
        wrench_to_carrier()
    carrier.slave.exitInitializationMode()
    motion_to_boom()
    boom.slave.exitInitializationMode()
    wrench_to_carrier()

    rate_names = [f"{case.mount}.{RATE[s]}" for s in MOTION if s in RATE]
    rate_vrs = [boom.vr[f"{case.base}.{s}"] for s in MOTION if s in RATE]
    # The accelerations have no reported rate: their change over the last step.
    acc = [s for s in MOTION if "acceleration" in s]
    acc_vrs = [boom.vr[f"{case.base}.{s}"] for s in acc]
    previous = carrier.get([f"{case.mount}.{s}" for s in acc])
    n = round(case.t_end / h)
    every = round(0.01 / h)
    rows = []
    t = 0.0
    for k in range(1, n + 1):
        for name, value in case.inputs_at(t):
            boom.set([name], [value])
        if interpolate:
            rates, vrs = carrier.get(rate_names), list(rate_vrs)
            if case.jerk:
                now = carrier.get([f"{case.mount}.{s}" for s in acc])
                rates += [(a - b) / h for a, b in zip(now, previous)]
                previous = now
                vrs += acc_vrs
            boom.slave.setRealInputDerivatives(vrs, [1] * len(vrs), rates)
        carrier.slave.doStep(t, h, 1)
        boom.slave.doStep(t, h, 1)
        t = k * h
        motion_to_boom()
        wrench_to_carrier()
        if k % every == 0:
            rows.append((carrier.get([case.compared[0]])[0], boom.get([case.compared[1]])[0]))
    work = (boom.get([f"{case.base}.work"])[0], carrier.get([f"{case.mount}.work"])[0])
    for m in (carrier, boom):
        m.slave.terminate()
        m.slave.freeInstance()
    return np.array(rows), work


def differences(fmus, ref, h, interpolate, case=CARRIER_BOOM):
    """The split at step h against the whole's rows: the largest difference of each compared
    output, and the port's work on the carried side and on the carrier's."""
    rows, work = split(fmus, h, interpolate, case)
    carrier, carried = np.abs(rows - ref).max(axis=0)
    return carrier, carried, work


def test_split_machine_converges_to_the_whole_through_fmi(fmus, report):
    ref = whole_run(fmus)
    roll_range = ref[:, 0].max() - ref[:, 0].min()
    assert roll_range > 0.01
    at_1ms = []
    for interpolate in (False, True):
        errors = []
        for h in (0.01, 0.005, 0.002, 0.001):
            roll, luff, (boom_work, carrier_work) = differences(fmus, ref, h, interpolate)
            errors.append((h, roll, luff))
            report(
                f"co-simulation ({'interpolated' if interpolate else 'held'} inputs) at {h * 1e3:g} ms: "
                f"max roll difference {roll:.3e} rad = {100 * roll / roll_range:.3f} % of its range, "
                f"luff {luff:.3e} rad; port work boom {boom_work:.3f} J, carrier {carrier_work:.3f} J"
            )
        for a, b in zip(errors, errors[1:]):
            assert b[1] < a[1] and b[2] < a[2], errors
        assert errors[-1][1] <= 0.01 * roll_range, errors
        at_1ms.append(errors[-1])
    # Interpolated motion halves the roll error and cuts the boom's by ten at 1 ms.
    assert at_1ms[1][1] < 0.6 * at_1ms[0][1] and at_1ms[1][2] < 0.2 * at_1ms[0][2], at_1ms


def test_the_truck_crane_split_from_one_description_converges_to_the_whole(fmus, report):
    """models/truck-crane.toml: `hydromech build --split base` gives the truck and the crane
    as two FMUs; coupled by the FMPy master at 5, 2, 1, 0.5 ms they approach the one FMU of
    both as the step falls, and at 1 ms the truck's roll is within 1 % of its range. At
    10 ms the explicit exchange is unstable: the crane's wrench and the deck's acceleration
    answer each other with a one-step lag, and the oscillation grows until the crane's
    Newton fails (reported, with the time)."""
    case = TRUCK_CRANE
    ref = whole_run(fmus, case)
    roll_range = np.ptp(ref[:, 0])
    assert roll_range > 0.01, f"the slewing crane rolls the truck ({roll_range:.2e} rad)"
    try:
        split(fmus, 0.01, False, case)
        report("truck-crane split at 10 ms (held): ran to the end")
    except Exception as e:  # noqa: BLE001 - the master's view: the step was refused
        last = harness.LOG.records[-1][3] if harness.LOG.records else ""
        report(f"truck-crane split at 10 ms (held): unstable, {e}; {last[:160]}")
    steps = (0.005, 0.002, 0.001, 0.0005)
    at_1ms = {}
    for interpolate in (False, True):
        errors = []
        for h in steps:
            roll, boom, (crane_work, truck_work) = differences(fmus, ref, h, interpolate, case)
            errors.append((h, roll, boom))
            report(
                f"truck-crane split ({'interpolated' if interpolate else 'held'} inputs) at "
                f"{h * 1e3:g} ms: max roll difference {roll:.3e} rad = "
                f"{100 * roll / roll_range:.3f} % of its range {roll_range:.4f} rad, boom "
                f"{boom:.3e} rad; port work crane {crane_work:.1f} J, truck {truck_work:.1f} J"
            )
            if h == 0.001:
                at_1ms[interpolate] = roll
        logs = np.log([e for e in errors])
        order = np.polyfit(logs[1:, 0], logs[1:, 1], 1)[0]
        report(f"truck-crane split ({'interpolated' if interpolate else 'held'}): roll error "
               f"order {order:.2f} from 2 to 0.5 ms")
        for a, b in zip(errors, errors[1:]):
            assert b[1] < a[1] and b[2] < a[2], errors
        assert at_1ms[interpolate] <= 0.01 * roll_range, errors
        assert order > 0.9, errors


def test_the_ssp_archive_runs_in_ecos_and_meets_the_target(fmus, tmp_path, report):
    ssp = fmus["split"]
    assert ssp.is_file(), "hydromech build writes the .ssp of a [system] description"
    p = subprocess.run(
        [str(harness.ecos_binary()), "simulate", "--path", str(ssp), "--stopTime", "3",
         "--stepSize", "0.001", "--noParallel", "--parameterSet", "initial"],
        cwd=tmp_path, env=harness.ecos_env(), capture_output=True, text=True, timeout=600,
        stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout + p.stderr
    with open(tmp_path / "carrier-boom-split.csv", newline="") as f:
        rows = list(csv.reader(f, skipinitialspace=True))
    header = [h.strip() for h in rows[0]]
    data = np.array([[float(x) for x in r] for r in rows[1:] if r])
    col = {h.split("[", 1)[0]: i for i, h in enumerate(header)}
    t = data[:, col["time"]]
    ref = whole_run(fmus)
    times = 0.01 * np.arange(1, 301)
    roll = np.interp(times, t, data[:, col["carrier::roll"]])
    luff = np.interp(times, t, data[:, col["boom::luff"]])
    roll_range = np.ptp(ref[:, 0])
    d_roll = np.abs(roll - ref[:, 0]).max()
    d_luff = np.abs(luff - ref[:, 1]).max()
    report(
        f"ecos, carrier-boom-split.ssp at 1 ms: max roll difference {d_roll:.3e} rad = "
        f"{100 * d_roll / roll_range:.3f} % of its range, luff {d_luff:.3e} rad"
    )
    assert d_roll <= 0.01 * roll_range


def test_the_generated_truck_crane_ssp_runs_in_ecos_and_meets_the_target(fmus, tmp_path, report):
    """The `.ssp` that `hydromech build --split base` writes for models/truck-crane.toml, run
    by ecos' own master at 1 ms with the manoeuvre as an ecos scenario (the crane's commands
    stepped at the same times): the truck's roll within 1 % of its range of the whole's."""
    case = TRUCK_CRANE
    ssp = fmus["truck-crane-split"]
    assert ssp.is_file(), "hydromech build --split base writes the .ssp"
    actions = "".join(
        f'  <ecos:action t="{t}">\n    <ecos:variable id="crane::{name}">'
        f'<ecos:real value="{value}"/></ecos:variable>\n  </ecos:action>\n'
        for t, name, value in case.steps)
    scenario = tmp_path / "manoeuvre.xml"
    scenario.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<ecos:Scenario xmlns:ecos='
        '"http://github.com/Ecos-platform/libecos/resources/schema/ScenarioConfig" eps="1e-6">\n'
        + actions + "</ecos:Scenario>\n")
    p = subprocess.run(
        [str(harness.ecos_binary()), "simulate", "--path", str(ssp), "--stopTime", str(case.t_end),
         "--stepSize", "0.001", "--noParallel", "--scenarioConfig", str(scenario)],
        cwd=tmp_path, env=harness.ecos_env(), capture_output=True, text=True, timeout=600,
        stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout + p.stderr
    with open(tmp_path / "truck-crane-split.csv", newline="") as f:
        rows = list(csv.reader(f, skipinitialspace=True))
    data = np.array([[float(x) for x in r] for r in rows[1:] if r])
    col = {h.strip().split("[", 1)[0]: i for i, h in enumerate(rows[0])}
    ref = whole_run(fmus, case)
    times = 0.01 * np.arange(1, len(ref) + 1)
    t = data[:, col["time"]]
    roll = np.interp(times, t, data[:, col["carrier::truck.roll"]])
    boom = np.interp(times, t, data[:, col["crane::boom.angle"]])
    roll_range = np.ptp(ref[:, 0])
    d_roll, d_boom = np.abs(roll - ref[:, 0]).max(), np.abs(boom - ref[:, 1]).max()
    report(f"ecos, truck-crane-split.ssp at 1 ms with the manoeuvre as a scenario: max roll "
           f"difference {d_roll:.3e} rad = {100 * d_roll / roll_range:.3f} % of its range, "
           f"boom {d_boom:.3e} rad")
    assert np.ptp(boom) > 0.04, "the scenario drove the crane"
    assert d_roll <= 0.01 * roll_range


def test_a_hydraulic_cut_runs_in_ecos_and_settles_where_the_whole_line_would(tmp_path, report):
    """tests/cosim/hydraulic-split.toml: the supply's flow port to the load's pressure port."""
    out = tmp_path / "build"
    subprocess.run([str(HYDROMECH), "build", str(COSIM / "hydraulic-split.toml"), "-o", str(out)],
                   check=True)
    p = subprocess.run(
        [str(harness.ecos_binary()), "simulate", "--path", str(out / "hydraulic-split.ssp"),
         "--stopTime", "1", "--stepSize", "0.001", "--noParallel"],
        cwd=tmp_path, env=harness.ecos_env(), capture_output=True, text=True, timeout=600,
        stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout + p.stderr
    with open(tmp_path / "hydraulic-split.csv", newline="") as f:
        rows = list(csv.reader(f, skipinitialspace=True))
    col = {h.strip().split("[", 1)[0]: i for i, h in enumerate(rows[0])}
    last = [float(x) for x in rows[-1]]
    pressure, drawn, fed = (last[col["supply::outlet.pressure"]], last[col["load::inlet.flow"]],
                            last[col["supply::outlet.flow"]])
    q, g = 0.1e-6 * 1500 / 60, 1e-10
    expected = 1e5 + q / g
    report(f"ecos, hydraulic-split.ssp at 1 ms: line {pressure:.3f} Pa after 1 s (1 bar + Q/G = "
           f"{expected:.0f} Pa), load draws {drawn:.1e} m³/s in ecos' 6-decimal CSV (pump {q:.4e})")
    assert abs(pressure - expected) < 1e-5 * expected
    # ecos writes 6 decimals: the flows are only that exact in its CSV.
    assert abs(drawn - q) <= 1e-6
    assert fed == -drawn, "the connection turns the flow's sign"


def hydraulic_cut(models, h, t_end, tlm, zc=1e12):
    """supply → load through a hydraulic cut, FMPy master at step h: plain exchange (the
    supply's line pressure to the load's pressure port, the drawn flow back to the supply's
    flow port) or a transmission line between two TLM ends whose delay is the step: each
    end's wave is the other end's p − Zc q one step ago. Returns the times and the supply
    line's pressure at every point."""
    supply = Model(models["tlm-supply" if tlm else "supply"], "supply")
    load = Model(models["tlm-load" if tlm else "load"], "load")
    if tlm:
        supply.set(["outlet.impedance"], [zc])
        load.set(["inlet.impedance"], [zc])
    else:
        supply.set(["line.volume"], [1e-5])
        load.set(["drain.conductance"], [1e-12])
    for m in (supply, load):
        m.init()
    t, times, pressures = 0.0, [], []
    for k in range(1, round(t_end / h) + 1):
        if tlm:
            (p1, q1), (p2, q2) = supply.get(["outlet.pressure", "outlet.flow"]), load.get(
                ["inlet.pressure", "inlet.flow"])
            supply.set(["outlet.wave"], [p2 - zc * q2])
            load.set(["inlet.wave"], [p1 - zc * q1])
        else:
            load.set(["inlet.pressure"], supply.get(["outlet.pressure"]))
            supply.set(["outlet.flow"], [-load.get(["inlet.flow"])[0]])
        try:
            supply.slave.doStep(t, h, 1)
            load.slave.doStep(t, h, 1)
        except Exception:  # noqa: BLE001 - a refused step ends the run: unstable
            break
        t = k * h
        times.append(t)
        pressures.append(supply.get(["outlet.pressure"])[0])
    for m in (supply, load):
        m.slave.terminate()
        m.slave.freeInstance()
    return np.array(times), np.array(pressures)


def test_a_stiff_hydraulic_cut_is_unstable_by_plain_exchange_and_stable_by_a_transmission_line(
        tmp_path, report):
    """A pump (2.5 cm³/s) into a 0.01 L line, drained to tank by G = 1e-12 m³/(s·Pa) on the
    other side of a cut; the whole settles at 1 bar + Q/G = 26 bar, where the oil is stiff
    (β = 1.5 GPa; the entrained air counts at a few bar only). Plain exchange feeds the
    supply the flow the load drew one step earlier (outputs have no feedthrough), so the
    line's pressure follows p⁺ = p + (h/C)(Q − G p⁻): stable for h < C/G = V/(βG) = 6.7 ms,
    growing beyond. Two TLM ends joined by a line whose delay is the step (Hopsan's
    coupling; Zc = 1/G, matched to the drain, so the line's waves are not reflected there)
    settle exactly at any step."""
    out = tmp_path / "build"
    files = [COSIM / f for f in ("supply.toml", "load.toml", "tlm-supply.toml", "tlm-load.toml")]
    subprocess.run([str(HYDROMECH), "build", *map(str, files), "-o", str(out)], check=True)
    models = {p.stem: p for p in out.glob("*.fmu")}
    expected = 1e5 + 0.1e-6 * 1500 / 60 / 1e-12
    limit = 1e-5 / (1.5e9 * 1e-12)
    for h in (0.005, 0.01, 0.02, 0.05):
        t, p = hydraulic_cut(models, h, 4.0, tlm=False)
        last = p[t > t[-1] - 0.5] if len(t) else np.array([np.nan])
        swing = np.ptp(last) / expected if len(last) else np.inf
        stable = len(t) == round(4.0 / h) and swing < 1e-3 and abs(last[-1] - expected) < 1e-3 * expected
        report(f"hydraulic cut, plain exchange at {h * 1e3:g} ms (limit {limit * 1e3:.1f} ms): "
               f"{'settles at %.1f Pa' % last[-1] if stable else 'unstable: last 0.5 s swings %.2g of p' % swing}")
        assert stable == (h < limit), (h, swing)
    for h in (0.005, 0.02, 0.05, 0.1):
        t, p = hydraulic_cut(models, h, 8.0, tlm=True)
        assert len(t) == round(8.0 / h)
        error = abs(p[-1] - expected) / expected
        report(f"hydraulic cut, TLM line (Zc 1e12 Pa·s/m³, delay = step) at {h * 1e3:g} ms: "
               f"{p[-1]:.1f} Pa after 8 s, {error:.1e} from 1 bar + Q/G")
        assert error < 1e-9, (h, p[-1])


def test_a_prescribed_motion_joint_through_fmi(tmp_path, report):
    """tests/cosim/driven-rod.toml through FMPy: the master sends q, q̇, q̈ of θ = 0.3 + ωt
    at every communication point and reads the drive's torque m g c cos θ; the FMU passes
    fmpy's validation, and its OSP description pairs the torque with the rate."""
    from fmpy.validation import validate_fmu

    out = tmp_path / "build"
    subprocess.run([str(HYDROMECH), "build", str(COSIM / "driven-rod.toml"), "-o", str(out)],
                   check=True)
    fmu = out / "driven-rod.fmu"
    assert validate_fmu(str(fmu)) == []
    osp = (out / "driven-rod_OspModelDescription.xml").read_text()
    assert "AngularMechanicalPort" in osp and "servo.torque" in osp and "servo.qd" in osp, osp
    rod = Model(fmu, "rod")
    start = {v.name: v.start for v in rod.md.modelVariables}
    assert float(start["servo.q"]) == 0.3, "q starts at the joint's initial coordinate"
    omega, h = 0.8, 0.01
    rod.set(["servo.qd"], [omega])
    rod.init()
    worst = 0.0
    for k in range(1, 201):
        rod.set(["servo.q", "servo.qd", "servo.qdd"], [0.3 + omega * (k - 1) * h, omega, 0.0])
        rod.slave.doStep((k - 1) * h, h, 1)
        theta = 0.3 + omega * k * h
        angle, torque = rod.get(["angle", "servo.torque"])
        assert abs(angle - theta) < 1e-12
        worst = max(worst, abs(torque - 2 * 9.81 * 0.5 * np.cos(theta)))
    work = rod.get(["servo.work"])[0]
    gain = 2 * 9.81 * 0.5 * (np.sin(0.3 + omega * 2) - np.sin(0.3))
    report(f"joint-motion through FMI: torque within {worst:.1e} N·m of m g c cos θ; "
           f"work {work:.9f} J, potential energy gain {gain:.9f} J")
    assert worst < 1e-9
    assert abs(work - gain) < 1e-6 * gain
    # A non-finite motion input is refused at the call (fmi2Error, the reason logged);
    # after an error only freeing the instance is allowed.
    with pytest.raises(Exception, match="status 3"):
        rod.set(["servo.qdd"], [float("nan")])
    rod.slave.freeInstance()

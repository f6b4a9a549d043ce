"""Seed 002's Table 1 with standard tools: seed 002's rod (models/naya-rod.toml) simulated
whole (the unified method, one FMU) and split at its cylinder (`hydromech build --split
actuators`: a mechanics and a hydraulics FMU) under an FMPy master and under ecos, at
communication steps 10, 5, 2, 1, 0.5, 0.2, 0.1 ms, on the seed's manoeuvre (eq 38: the valve at κ0, κ0 − 0.01 from
2 s, κ0 + 0.01 from 6 s; 10 s).

Methods of the split (the seed's co-integration, done as co-simulation of two FMUs):
- `gauss-seidel`: the hydraulics steps first on the mechanics' length and speed at the
  step's start, then the mechanics on the new force;
- `jacobi`: both step on the values exchanged at the step's start;
- `+ extrapolation`: the inputs followed linearly through the step — the hydraulics' pin
  acceleration `motion.qdd` from the last change of the speed, the mechanics' force by
  `fmi2SetRealInputDerivatives` from its last change (Jacobi only: under Gauss–Seidel the
  mechanics already has the force at the step's end);
- `iterated`: Gauss–Seidel repeated within each step from saved FMU states
  (`fmi2GetFMUstate`/`fmi2SetFMUstate`) until the force changes by less than 1e-6 of itself
  — the seed's co-integration, which integrates the hydraulics again at every Newton
  iteration of the multibody step;
- `ecos`: ecos' own master on the generated `.ssp` (the valve as an ecos scenario), which
  steps both FMUs on the values exchanged at the step's start (Jacobi); its CPU is the whole
  ecos process's (loading, CSV writing and its own master included).

And the seed's third method, **kinematic guidance**: the rod alone (no hydraulics) with its
pivot driven by a `joint-motion` port along the angle the unified run took at the same step
(its rate and acceleration by central differences of the recorded angle), as the seed
replays s(t) from its unified run; it is a cost baseline (its accuracy is the unified run's
by construction).

Each run reports the largest difference of the cylinder length s and the chamber pressures
p1, p2 from the whole machine at 1 ms (the issue's reference) and from the whole machine at
0.02 ms (converged), the CPU time inside `fmi2DoStep` for the 10 s, and where the run
failed or left the reference by more than 1 mm ("unstable").

    target/release/hydromech build --split actuators models/naya-rod.toml -o target/naya-split
    .venv/bin/python docs/cosimulation/naya_table1.py target/naya-split

writes docs/cosimulation/naya-table1.md and naya-split.svg.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

T_END = 10.0
STEPS = (0.01, 0.005, 0.002, 0.001, 0.0005, 0.0002, 0.0001)
METHODS = ("kinematic guidance", "unified", "gauss-seidel", "jacobi", "jacobi + extrapolation",
           "gauss-seidel + extrapolation", "iterated", "ecos")
SAMPLE = 0.01
CONVERGED = 0.00002  # s: the whole machine's step taken as converged
UNSTABLE = 1e-3  # m: a run this far from the reference has left it


class Model:
    def __init__(self, path, name):
        self.md = harness.model_description(path)
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.slave = harness.new_slave(path, instance_name=name, logging_on=False)
        self.slave.setupExperiment(startTime=0.0, stopTime=None)
        self.slave.enterInitializationMode()
        self.slave.exitInitializationMode()
        self.cpu = 0.0

    def get(self, name):
        return self.slave.getReal([self.vr[name]])[0]

    def set(self, name, value):
        self.slave.setReal([self.vr[name]], [value])

    def step(self, t, h):
        c = time.thread_time()
        self.slave.doStep(t, h, 1)
        self.cpu += time.thread_time() - c

    def free(self):
        self.slave.terminate()
        self.slave.freeInstance()


def valve(kappa0, t, h):
    """The command from the step starting at t (seed 002 eq 38)."""
    if t >= 6.0 - 0.5 * h:
        return kappa0 + 0.01
    if t >= 2.0 - 0.5 * h:
        return kappa0 - 0.01
    return kappa0


class Run:
    """Samples every 10 ms of s, p1, p2; CPU seconds in fmi2DoStep; failure, if any."""

    def __init__(self):
        self.rows, self.cpu, self.failure = [], 0.0, None

    def array(self):
        return np.array(self.rows)


def unified(fmus, h, t_end=T_END):
    run = Run()
    m = Model(fmus["naya-rod"], "whole")
    kappa0 = m.get("valve.command")
    every = round(SAMPLE / h)
    try:
        for k in range(1, round(t_end / h) + 1):
            t = (k - 1) * h
            m.set("valve.command", valve(kappa0, t, h))
            m.step(t, h)
            if k % every == 0:
                run.rows.append([m.get(n) for n in ("cylinder.length", "cylinder.p_a",
                                                    "cylinder.p_b")])
    except Exception as e:  # noqa: BLE001 - the FMU refused the step: reported
        run.failure = f"failed at {t:.3f} s: {e}"
    run.cpu = m.cpu
    m.free()
    return run


def guidance_description():
    """models/naya-rod.toml without its circuit, the pivot driven by a joint-motion port
    `guide` (the description's text up to its hydraulics, at rest as given)."""
    text = (ROOT / "models" / "naya-rod.toml").read_text()
    head = text[: text.index("[hydraulics.oil]")]
    lines = [ln for ln in head.splitlines() if not ln.startswith("solve_for")]
    head = "\n".join(lines).replace("static_equilibrium = true", "static_equilibrium = false")
    head = head.replace('name = "naya-rod"', 'name = "naya-guidance"', 1)
    return head + """
[[interface.ports]]
name = "guide"
type = "joint-motion"
on = "pivot"
[[interface.outputs]]
name = "rod.angle"
quantity = "pivot.q"
"""


def build_guidance(out_dir: Path) -> Path:
    """Writes and builds naya-guidance.toml into `out_dir`; returns the FMU."""
    import subprocess
    toml = out_dir / "naya-guidance.toml"
    toml.write_text(guidance_description())
    subprocess.run([str(harness.HYDROMECH), "build", str(toml), "-o", str(out_dir)],
                   check=True, capture_output=True)
    return out_dir / "naya-guidance.fmu"


def ecos_scenario(kappa0, t_end=T_END):
    """The valve of eq 38 as an ecos scenario (actions on the hydraulics' command)."""
    actions = [(t, kappa0 + dk) for t, dk in ((2.0, -0.01), (6.0, 0.01)) if t < t_end]
    body = "".join(
        f'  <ecos:action t="{t!r}">\n    <ecos:variable id="hydraulics::valve.command">'
        f'<ecos:real value="{v!r}"/></ecos:variable>\n  </ecos:action>\n' for t, v in actions)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<ecos:Scenario xmlns:ecos='
            '"http://github.com/Ecos-platform/libecos/resources/schema/ScenarioConfig" '
            f'eps="1e-6">\n{body}</ecos:Scenario>\n')


def ecos(fmus, h, t_end=T_END, work_dir=None):
    """ecos' own master on the generated `.ssp` (it steps both FMUs on the values exchanged
    at the step's start: Jacobi), the valve as a scenario; CPU is the ecos process's."""
    import csv
    import os
    import subprocess
    import tempfile
    run = Run()
    whole = Model(fmus["naya-rod"], "whole")
    kappa0 = whole.get("valve.command")
    whole.free()
    with tempfile.TemporaryDirectory(dir=work_dir) as tmp:
        scenario = Path(tmp) / "manoeuvre.xml"
        scenario.write_text(ecos_scenario(kappa0, t_end))
        before = os.times()
        p = subprocess.run(
            [str(harness.ecos_binary()), "simulate", "--path", str(Path(fmus["ssp"]).resolve()), "--stopTime",
             str(t_end), "--stepSize", repr(h), "--noParallel", "--scenarioConfig",
             str(scenario)], cwd=tmp, env=harness.ecos_env(), capture_output=True, text=True,
            timeout=1200, stdin=subprocess.DEVNULL)
        after = os.times()
        run.cpu = (after.children_user - before.children_user
                   + after.children_system - before.children_system)
        if p.returncode != 0:
            run.failure = f"ecos exited with {p.returncode}: {(p.stdout + p.stderr).strip()[-200:]}"
            return run
        with open(Path(tmp) / "naya-rod-actuators.csv", newline="") as f:
            rows = list(csv.reader(f, skipinitialspace=True))
    data = np.array([[float(x) for x in r] for r in rows[1:] if r])
    col = {c.strip().split("[", 1)[0]: i for i, c in enumerate(rows[0])}
    times = SAMPLE * np.arange(1, round(t_end / SAMPLE) + 1)
    names = ("mechanics::cylinder.length", "hydraulics::cylinder.p_a",
             "hydraulics::cylinder.p_b")
    run.rows = np.column_stack([np.interp(times, data[:, col["time"]], data[:, col[n]])
                                for n in names]).tolist()
    return run


def kinematic_guidance(fmus, h, t_end=T_END):
    """The unified run's angle at step h replayed on the guided rod; the run's samples are
    the unified run's (accuracy is not the point), its CPU the guided rod's."""
    whole = Model(fmus["naya-rod"], "whole")
    kappa0 = whole.get("valve.command")
    n = round(t_end / h)
    angle = [whole.get("rod.angle")]
    for k in range(1, n + 1):
        t = (k - 1) * h
        whole.set("valve.command", valve(kappa0, t, h))
        whole.slave.doStep(t, h, 1)
        angle.append(whole.get("rod.angle"))
    whole.free()
    angle = np.array(angle)
    rate = np.gradient(angle, h)
    acceleration = np.gradient(rate, h)
    run = unified(fmus, h, t_end)
    guided = Model(fmus["naya-guidance"], "guidance")
    try:
        for k in range(1, n + 1):
            t = (k - 1) * h
            guided.set("guide.q", angle[k - 1])
            guided.set("guide.qd", rate[k - 1])
            guided.set("guide.qdd", acceleration[k - 1])
            guided.step(t, h)
    except Exception as e:  # noqa: BLE001 - reported
        run.failure = f"failed at {t:.3f} s: {e}"
    run.cpu = guided.cpu
    guided.free()
    return run


def split(fmus, h, method, t_end=T_END, reference=None):
    run = Run()
    mech = Model(fmus["naya-rod.mechanics"], "mechanics")
    hyd = Model(fmus["naya-rod.hydraulics"], "hydraulics")
    kappa0 = hyd.get("valve.command")
    every = round(SAMPLE / h)
    extrapolate = method.endswith("extrapolation")
    last_speed, last_force = mech.get("cylinder.speed"), hyd.get("cylinder.force")
    force_vr = [mech.vr["cylinder.force"]]
    t = 0.0
    try:
        for k in range(1, round(t_end / h) + 1):
            t = (k - 1) * h
            hyd.set("valve.command", valve(kappa0, t, h))
            length, speed = mech.get("cylinder.length"), mech.get("cylinder.speed")
            force = hyd.get("cylinder.force")
            hyd.set("cylinder.motion.q", length)
            hyd.set("cylinder.motion.qd", speed)
            if extrapolate:
                hyd.set("cylinder.motion.qdd", (speed - last_speed) / h)
            last_speed = speed
            if method.startswith("jacobi"):
                mech.set("cylinder.force", force)
                if extrapolate:
                    mech.slave.setRealInputDerivatives(force_vr, [1], [(force - last_force) / h])
                last_force = force
                hyd.step(t, h)
                mech.step(t, h)
            elif method == "iterated":
                iterate(mech, hyd, t, h)
            else:
                hyd.step(t, h)
                mech.set("cylinder.force", hyd.get("cylinder.force"))
                mech.step(t, h)
            if k % every == 0:
                row = [mech.get("cylinder.length"), hyd.get("cylinder.p_a"),
                       hyd.get("cylinder.p_b")]
                run.rows.append(row)
                n = len(run.rows)
                if reference is not None and abs(row[0] - reference[n - 1, 0]) > UNSTABLE:
                    run.failure = f"left the reference by {UNSTABLE * 1e3:g} mm at {t + h:.2f} s"
                    break
    except Exception as e:  # noqa: BLE001 - an FMU refused the step: reported
        run.failure = f"failed at {t:.3f} s: {e}"
    run.cpu = mech.cpu + hyd.cpu
    mech.free()
    hyd.free()
    return run


def iterate(mech, hyd, t, h, tol=1e-6, limit=20):
    """Strong coupling within the step: from saved FMU states, the hydraulics follows the
    mechanics' motion through the step (start values, and the speed's change over it as
    `motion.qdd`), the mechanics the hydraulics' force (start value, and its change as an
    input derivative), until the force at the step's end changes by less than `tol` of
    itself."""
    m0, h0 = mech.slave.getFMUstate(), hyd.slave.getFMUstate()
    force0 = hyd.get("cylinder.force")
    length, speed = mech.get("cylinder.length"), mech.get("cylinder.speed")
    force_vr = [mech.vr["cylinder.force"]]
    end_speed, force = speed, force0
    for k in range(limit):
        if k > 0:
            mech.slave.setFMUstate(m0)
            hyd.slave.setFMUstate(h0)
        hyd.set("cylinder.motion.q", length)
        hyd.set("cylinder.motion.qd", speed)
        hyd.set("cylinder.motion.qdd", (end_speed - speed) / h)
        hyd.step(t, h)
        new_force = hyd.get("cylinder.force")
        mech.set("cylinder.force", force0)
        mech.slave.setRealInputDerivatives(force_vr, [1], [(new_force - force0) / h])
        mech.step(t, h)
        end_speed = mech.get("cylinder.speed")
        if abs(new_force - force) <= tol * abs(new_force):
            break
        force = new_force
    mech.slave.freeFMUstate(m0)
    hyd.slave.freeFMUstate(h0)
    hyd.set("cylinder.motion.qdd", 0.0)
    mech.slave.setRealInputDerivatives(force_vr, [1], [0.0])


def differences(run, reference):
    a = run.array()
    n = min(len(a), len(reference))
    if n == 0:
        return [np.nan] * 3
    return list(np.abs(a[:n] - reference[:n]).max(axis=0))


def table(fmus, steps=STEPS, methods=METHODS, t_end=T_END):
    """Rows (method, step, |Δs|, |Δp1|, |Δp2| vs 1 ms, |Δs| vs converged, CPU s, failure)."""
    ref_1ms = unified(fmus, 0.001, t_end).array()
    converged = unified(fmus, CONVERGED, t_end).array()
    rows = []
    for method in methods:
        for h in steps:
            if method == "unified":
                run = unified(fmus, h, t_end)
            elif method == "kinematic guidance":
                run = kinematic_guidance(fmus, h, t_end)
            elif method == "ecos":
                run = ecos(fmus, h, t_end)
            else:
                run = split(fmus, h, method, t_end, converged)
            d1 = differences(run, ref_1ms)
            dc = differences(run, converged)
            rows.append((method, h, *d1, dc[0], run.cpu, run.failure))
    return rows, ref_1ms, converged


def markdown(rows):
    out = ["| method | step | max \\|Δs\\| vs whole 1 ms | max \\|Δp1\\|, \\|Δp2\\| vs whole 1 ms "
           "| max \\|Δs\\| vs converged | CPU in fmi2DoStep, 10 s | |",
           "|---|---|---|---|---|---|---|"]
    for method, h, ds, dp1, dp2, dc, cpu, failure in rows:
        if method == "kinematic guidance":
            out.append(f"| {method} | {h * 1e3:g} ms | (replays the unified run) | | | "
                       f"{cpu:.3f} s | {failure or ''} |")
            continue
        note = failure or ("CPU of the ecos process" if method == "ecos" else "")
        out.append(f"| {method} | {h * 1e3:g} ms | {ds:.2e} m | {dp1 / 1e5:.3f}, {dp2 / 1e5:.3f} bar "
                   f"| {dc:.2e} m | {cpu:.3f} s | {note} |")
    return "\n".join(out)


def main(build_dir: Path):
    fmus = {p.stem: p for p in build_dir.glob("*.fmu")}
    fmus["ssp"] = build_dir / "naya-rod-actuators.ssp"
    fmus["naya-guidance"] = build_guidance(build_dir)
    rows, ref_1ms, converged = table(fmus)
    text = markdown(rows)
    here = Path(__file__).resolve().parent
    (here / "naya-table1.md").write_text(text + "\n")
    print(text)
    from svg_panels import H, document, panel
    t = SAMPLE * np.arange(1, len(converged) + 1)
    runs = {h: split(fmus, h, "gauss-seidel").array() for h in (0.005, 0.001)}
    colors = {0.005: "#d62728", 0.001: "#1f77b4"}
    s = [("whole 0.02 ms", "#222222", converged[:, 0] * 1e3)] + [
        (f"split GS {h * 1e3:g} ms", colors[h], r[:, 0] * 1e3) for h, r in runs.items()]
    ds = [(f"split GS {h * 1e3:g} ms", colors[h], (r[:, 0] - converged[: len(r), 0]) * 1e3)
          for h, r in runs.items()] + [
        ("whole 1 ms", "#2ca02c", (ref_1ms[:, 0] - converged[:, 0]) * 1e3)]
    p = [("p1 whole", "#222222", converged[:, 1] / 1e6), ("p2 whole", "#7f7f7f",
                                                          converged[:, 2] / 1e6)] + [
        (f"p1 split GS {h * 1e3:g} ms", colors[h], r[:, 1] / 1e6) for h, r in runs.items()]
    svg = document([panel(0, "Cylinder length s", "mm", s, t),
                    panel(H, "Difference from the whole machine at 0.02 ms", "mm", ds, t),
                    panel(2 * H, "Chamber pressures", "MPa", p, t)])
    (here / "naya-split.svg").write_text(svg)


if __name__ == "__main__":
    main(Path(sys.argv[1]))

"""Contact side by side with Exudyn (issue 49): the ball drop on the same linear spring and
damper, both integrated by the trapezoidal rule at 0.1 ms; and a solid cylinder rolling
(μ = 0.5) and slipping (μ = 0.03) down a 10° ramp at 1 ms, hydromech's cylinder on its two
rim contacts, Exudyn's `CreateRollingDiscPenalty` (one disc, the same total stiffness).

    python -m venv /tmp/exu && /tmp/exu/bin/pip install exudyn numpy
    cargo build --release -p model-compiler
    /tmp/exu/bin/python bench/exudyn_contact.py

hydromech's law is `F = max(0, k δ + c δ̇)` at exponent 1, with `c = γ √(m k)` set through
the restitution its clamped law gives for γ (`contact::law::restitution`, mirrored
below); Exudyn's `CreateSphereQuadContact` with `impactModel = 0` is the linear spring and
damper `k δ + d δ̇`. The sphere stands inside one triangle of Exudyn's quad (on the
diagonal it would touch both triangles and feel twice the spring). Prints the bounce
apexes of both, their difference, and the cost per step: Exudyn's wall time over its steps,
hydromech's `hydromech bench` median and mean of its internal steps (one run, this machine).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
HYDROMECH = ROOT / "target/release/hydromech"
M, R, K, GAMMA, H, T = 1.0, 0.1, 1e5, 0.2, 1e-4, 3.0


def restitution(gamma: float, n: float = 1.0) -> float:
    """The clamped law's restitution, as the runtime's `contact::law::restitution` finds it
    (RK4 at 1e-3, the step that crosses an event shortened onto it by the secant method)."""
    def force(x, v):
        return 0.0 if x <= 0 else x**n + gamma * x ** (0.5 * (n - 1)) * v

    def acc(x, v):
        return -max(force(x, v), 0.0)

    def step(x, v, dt):
        k1x, k1v = v, acc(x, v)
        k2x, k2v = v + 0.5 * dt * k1v, acc(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v)
        k3x, k3v = v + 0.5 * dt * k2v, acc(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v)
        k4x, k4v = v + dt * k3v, acc(x + dt * k3x, v + dt * k3v)
        return (x + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x),
                v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v))

    def onto(x, v, dt, event):
        a, fa = 0.0, event(x, v)
        b = dt
        fb = event(*step(x, v, dt))
        for _ in range(30):
            if fb == fa:
                break
            c = b - fb * (b - a) / (fb - fa)
            fc = event(*step(x, v, c))
            a, fa, b, fb = b, fb, c, fc
            if abs(fc) < 1e-14:
                break
        return step(x, v, b)

    dt, x, v = 1e-3, 0.0, 1.0
    for _ in range(100_000):
        xn, vn = step(x, v, dt)
        if xn <= 0:
            return -onto(x, v, dt, lambda x, v: x)[1]
        if vn < 0 and force(xn, vn) <= 0:
            return -onto(x, v, dt, force)[1]
        if vn >= 0 > v:
            return 0.0
        x, v = xn, vn
    return 0.0


def apexes(t: np.ndarray, z: np.ndarray) -> list[float]:
    """Heights of the bounce apexes above first touch (parabola through the samples)."""
    out = []
    for i in range(1, len(z) - 1):
        if z[i] >= z[i - 1] and z[i] > z[i + 1] and z[i] > R + 1e-3:
            # Vertex of the parabola through three samples.
            a = (z[i + 1] - 2 * z[i] + z[i - 1]) / 2
            b = (z[i + 1] - z[i - 1]) / 2
            out.append(z[i] - b * b / (4 * a) - R)
    return out


def exudyn_run() -> tuple[np.ndarray, np.ndarray, float]:
    import exudyn as exu
    from exudyn.utilities import InertiaSphere, SensorBody

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.CreateGround()
    ball = mbs.CreateRigidBody(inertia=InertiaSphere(M, R), referencePosition=[-1, -2, 1 + R],
                               gravity=[0, 0, -9.81])
    mbs.CreateSphereQuadContact(itemNumbers=[ball, ground], sphereRadius=R,
                                quadPoints=[[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]],
                                contactStiffness=K, contactDamping=GAMMA * np.sqrt(M * K),
                                impactModel=0, dynamicFriction=0.0)
    sensor = mbs.AddSensor(SensorBody(bodyNumber=ball, storeInternal=True,
                                      outputVariableType=exu.OutputVariableType.Position))
    mbs.Assemble()
    s = exu.SimulationSettings()
    s.timeIntegration.numberOfSteps = int(round(T / H))
    s.timeIntegration.endTime = T
    s.timeIntegration.verboseMode = 0
    s.solutionSettings.writeSolutionToFile = False
    s.solutionSettings.sensorsWritePeriod = H
    start = time.perf_counter()
    mbs.SolveDynamic(s, solverType=exu.DynamicSolverType.TrapezoidalIndex2)
    per_step = (time.perf_counter() - start) / s.timeIntegration.numberOfSteps
    data = mbs.GetSensorStoredData(sensor)
    return data[:, 0], data[:, 3], per_step


def hydromech_description(e: float) -> str:
    text = (ROOT / "models/ball-drop.toml").read_text()
    law = f'stiffness = "{K:g} N/m", exponent = 1, restitution = {e!r}, friction = 0.0'
    text = text.replace('stiffness = "1e5 N/m", restitution = 0.7', law)
    return text.replace('stop_time = 4.0', f'stop_time = {T}')


def hydromech_run(e: float, tmp: Path) -> tuple[np.ndarray, np.ndarray, float]:
    toml = tmp / "ball-drop-linear.toml"
    toml.write_text(hydromech_description(e))
    csv = tmp / "run.csv"
    subprocess.run([HYDROMECH, "simulate", toml, "--stop-time", str(T), "--step", str(H),
                    "--vars", "height", "-o", csv], check=True, capture_output=True)
    data = np.genfromtxt(csv, delimiter=",", names=True)
    bench = subprocess.run([HYDROMECH, "bench", toml, "--comm", "internal"], check=True,
                           capture_output=True, text=True).stdout
    row = next(line for line in bench.splitlines() if line.startswith("ball-drop"))
    # model, comm. step (2 words), steps, median µs, ...
    median = float(row.split()[5]) * 1e-6
    return data["time"], data["height"], median


THETA, MC, RC, LC = np.radians(10.0), 10.0, 0.2, 0.5


def cylinder_description(mu: float) -> str:
    """hydromech's rolling cylinder (as model-compiler/tests/contact.rs)."""
    s, c = float(np.sin(THETA)), float(np.cos(THETA))
    d = RC - MC * 9.81 * c / (2.0 * 1e7)
    ia, it = 0.5 * MC * RC**2, MC * (3 * RC**2 + LC**2) / 12
    return f"""[model]
name = "rolling-cylinder"
gravity = [0, 0, -9.81]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "roller"
parent = "ground"
joint = {{ type = "free", name = "roll", origin = [0, 0, 0], initial = [{-s * d!r}, 0, {c * d!r}, 0, 0, 0] }}
mass = "{MC} kg"
com = [0, 0, 0]
inertia = [{it!r}, {ia!r}, {it!r}, 0, 0, 0]
collision = [{{ shape = "cylinder", from = [0, -0.25, 0], to = [0, 0.25, 0], radius = "0.2 m", stiffness = "1e7 N/m", restitution = 0.3, friction = {mu} }}]
[contact]
ground = {{ shape = "plane", point = [0, 0, 0], normal = [{-s!r}, 0, {c!r}] }}
[[markers]]
name = "axle"
body = "roller"
point = [0, 0, 0]
[[interface.outputs]]
name = "vx"
quantity = "axle.velocity.x"
[[interface.outputs]]
name = "vz"
quantity = "axle.velocity.z"
"""


def downhill(vx: np.ndarray, vz: np.ndarray) -> np.ndarray:
    return -(vx * np.cos(THETA) + vz * np.sin(THETA))


def cylinder_hydromech(mu: float, tmp: Path) -> tuple[float, float]:
    toml = tmp / "rolling-cylinder.toml"
    toml.write_text(cylinder_description(mu))
    csv = tmp / "roll.csv"
    subprocess.run([HYDROMECH, "simulate", toml, "--stop-time", "2", "--step", "0.001",
                    "-o", csv], check=True, capture_output=True)
    data = np.genfromtxt(csv, delimiter=",", names=True)
    v = downhill(data["vx"], data["vz"])
    t = data["time"]
    a = (np.interp(2.0, t, v) - np.interp(1.0, t, v)) / 1.0
    bench = subprocess.run([HYDROMECH, "bench", toml, "--comm", "internal", "--steps", "2000"],
                           check=True, capture_output=True, text=True).stdout
    row = next(line for line in bench.splitlines() if line.startswith("rolling-cylinder"))
    return a, float(row.split()[5]) * 1e-6


def cylinder_exudyn(mu: float) -> tuple[float, float]:
    import exudyn as exu
    from exudyn.utilities import InertiaCylinder, SensorBody

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.CreateGround()
    n = np.array([-np.sin(THETA), 0.0, np.cos(THETA)])
    density = MC / (np.pi * RC**2 * LC)
    body = mbs.CreateRigidBody(inertia=InertiaCylinder(density, LC, RC, axis=1),
                               referencePosition=list(n * RC), gravity=[0, 0, -9.81])
    # Two rims of 1e7 N/m each in hydromech: 2e7 N/m here; damping as restitution 0.3 gives.
    mbs.CreateRollingDiscPenalty(bodyNumbers=[ground, body], axisPosition=[0, 0, 0],
                                 axisVector=[0, 1, 0], discRadius=RC, planePosition=[0, 0, 0],
                                 planeNormal=list(n), contactStiffness=2e7, contactDamping=2e4,
                                 dryFriction=[mu, mu], dryFrictionProportionalZone=1e-4,
                                 useLinearProportionalZone=True)
    sensor = mbs.AddSensor(SensorBody(bodyNumber=body, storeInternal=True,
                                      outputVariableType=exu.OutputVariableType.Velocity))
    mbs.Assemble()
    s = exu.SimulationSettings()
    s.timeIntegration.numberOfSteps = 2000
    s.timeIntegration.endTime = 2.0
    s.timeIntegration.verboseMode = 0
    s.solutionSettings.writeSolutionToFile = False
    s.solutionSettings.sensorsWritePeriod = 1e-3
    start = time.perf_counter()
    mbs.SolveDynamic(s, solverType=exu.DynamicSolverType.TrapezoidalIndex2)
    per_step = (time.perf_counter() - start) / 2000
    data = mbs.GetSensorStoredData(sensor)
    v = downhill(data[:, 1], data[:, 3])
    t = data[:, 0]
    return (np.interp(2.0, t, v) - np.interp(1.0, t, v)) / 1.0, per_step


def main() -> int:
    e = restitution(GAMMA)
    with tempfile.TemporaryDirectory() as d:
        th, zh, median = hydromech_run(e, Path(d))
    te, ze, exu_step = exudyn_run()
    ah, ae = apexes(th, zh), apexes(te, ze)
    print(f"linear spring k = {K:g} N/m, damper c = {GAMMA}·√(m k) = {GAMMA * np.sqrt(M * K):.2f} N·s/m, "
          f"step {H * 1e3} ms, trapezoidal; hydromech restitution for γ: {e:.6f}")
    # The compression of the first impact is the same law in both: its deepest point.
    first = lambda t, z: (float(np.min(z[t < 0.6])), float(t[t < 0.6][np.argmin(z[t < 0.6])]))
    (dh, th0), (de, te0) = first(th, zh), first(te, ze)
    print(f"first impact, deepest: hydromech {R - dh:.6e} m at {th0:.4f} s, Exudyn {R - de:.6e} m "
          f"at {te0:.4f} s ({100 * ((R - dh) - (R - de)) / (R - de):+.3f} %)")
    # Rebound: hydromech's damper never pulls (restitution e above); Exudyn's linear model
    # pulls as the ball leaves: Kelvin–Voigt's e = exp(−πζ/√(1 − ζ²)), ζ = γ/2.
    z = GAMMA / 2
    kv = float(np.exp(-np.pi * z / np.sqrt(1 - z * z)))
    eh, ee = np.sqrt(apexes(th, zh)[0]), np.sqrt(apexes(te, ze)[0])
    print(f"restitution of the first bounce: hydromech {eh:.5f} (its law: {e:.5f}, "
          f"{100 * (eh - e) / e:+.3f} %), Exudyn {ee:.5f} (Kelvin–Voigt: {kv:.5f}, {100 * (ee - kv) / kv:+.3f} %)")
    print("bounce  apex above touch [m]: hydromech   Exudyn     difference")
    for k, (a, b) in enumerate(zip(ah[:4], ae[:4])):
        print(f"{k + 1:6d}  {a:31.6f}  {b:9.6f}  {100 * (a - b) / b:+8.3f} %")
    print(f"cost per step: hydromech median {median * 1e6:.2f} µs (hydromech bench, internal steps); "
          f"Exudyn {exu_step * 1e6:.2f} µs (wall time / steps); ratio {exu_step / median:.2f}")
    g, sn, cs = 9.81, np.sin(THETA), np.cos(THETA)
    print("cylinder on 10°, 1 ms: a [m/s²]  closed form  hydromech (Δ)        Exudyn (Δ)          "
          "cost per step hydromech / Exudyn")
    for mu, closed in [(0.5, 2 / 3 * g * sn), (0.03, g * (sn - 0.03 * cs))]:
        with tempfile.TemporaryDirectory() as d:
            ah, step_h = cylinder_hydromech(mu, Path(d))
        ae, step_e = cylinder_exudyn(mu)
        print(f"  μ = {mu:<4}              {closed:.5f}      {ah:.5f} ({100 * (ah - closed) / closed:+.3f} %)"
              f"   {ae:.5f} ({100 * (ae - closed) / closed:+.3f} %)   {step_h * 1e6:.2f} / {step_e * 1e6:.2f} µs "
              f"({step_e / step_h:.1f}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

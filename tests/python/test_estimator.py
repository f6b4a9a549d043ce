"""The estimator FMU (issue 19): `hydromech build --estimator models/jaiswal-fourbar.toml`
writes the Pub I four-bar with seed 001's error-state Kalman filter inside. Through the
FMI C ABI under FMPy: the machine FMU gives the "truth" (its sensors with Gaussian noise),
the estimator FMU takes them as `sensor.<name>` inputs with their validity flags. What an
importer sees is checked: innovations within their predicted standard deviation (a
consistent filter), state standard deviations that shrink where sensors are, a serialized
FMU state that continues bit for bit with the covariance, NaN samples refused with
fmi2Error unless flagged invalid, and no sample = the machine itself.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

import harness

HYDROMECH = harness.HYDROMECH
SENSORS = {"crank_angle": ("crank.angle", np.radians(0.05)), "p1": ("hose.p", 0.5e5),
           "p2": ("cylinder.p_cap", 0.5e5), "p3": ("cylinder.p_rod", 0.5e5)}
H = 1e-3


def u_ref(t):
    """Seed 001 Pub I eq 46 (+10 V 1–2.5 s, −10 V 5–8 s)."""
    return 10.0 if 1.0 <= t < 2.5 else -10.0 if 5.0 <= t < 8.0 else 0.0


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    if not HYDROMECH.exists():
        pytest.fail(f"{HYDROMECH} is missing: run `cargo build --release` (tests/run.sh does)")
    out = tmp_path_factory.mktemp("estimator")
    subprocess.run([str(HYDROMECH), "build", "--estimator", "--platform", "linux64",
                    str(harness.ROOT / "models" / "jaiswal-fourbar.toml"), "-o", str(out)],
                   check=True)
    return out / "jaiswal-fourbar.fmu", out / "jaiswal-fourbar.estimator.fmu"


class Model:
    def __init__(self, path, name):
        self.md = harness.model_description(path)
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.slave = harness.new_slave(path, instance_name=name, logging_on=False)
        harness.initialize(self.slave)

    def get(self, name):
        return self.slave.getReal([self.vr[name]])[0]

    def set(self, name, value):
        self.slave.setReal([self.vr[name]], [value])

    def flag(self, name, value):
        self.slave.setBoolean([self.vr[name]], [value])

    def free(self):
        self.slave.terminate()
        self.slave.freeInstance()


def run(fmus, t_end, sensors=SENSORS, seed=1):
    """Truth and estimator side by side; returns per-step arrays."""
    truth, est = Model(fmus[0], "truth"), Model(fmus[1], "estimator")
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(round(t_end / H)):
        t = k * H
        for m in (truth, est):
            m.set("valve.command", u_ref(t))
        truth.slave.doStep(t, H)
        for name, (quantity, sigma) in SENSORS.items():
            used = name in sensors
            est.set(f"sensor.{name}", truth.get(quantity) + sigma * rng.standard_normal())
            est.flag(f"sensor.{name}.valid", used)
        est.slave.doStep(t, H)
        rows.append([truth.get("crank.angle"), est.get("crank.angle"),
                     truth.get("cylinder.p_cap"), est.get("cylinder.p_cap"),
                     est.get("cap_side.p.sigma"),
                     est.get("sensor.crank_angle.innovation"),
                     est.get("sensor.crank_angle.innovation_sigma")])
    truth.free()
    est.free()
    return np.array(rows)


def test_the_estimator_fmu_declares_its_sensors_and_sigmas(fmus):
    md = harness.model_description(fmus[1])
    by_name = {v.name: v for v in md.modelVariables}
    for name in ("crank_angle", "crank_rate", "p1", "p2", "p3"):
        assert by_name[f"sensor.{name}"].causality == "input"
        assert by_name[f"sensor.{name}.valid"].type == "Boolean"
        assert by_name[f"sensor.{name}.sigma"].variability == "tunable"
        assert by_name[f"sensor.{name}.innovation"].causality == "output"
    assert by_name["sensor.crank_angle"].unit == "rad"
    assert by_name["sensor.p1.sigma"].unit == "Pa"
    for name in ("hose.p.sigma", "cap_side.p.sigma", "rod_side.p.sigma"):
        assert by_name[name].causality == "output"
    assert md.modelName == "jaiswal-fourbar-estimator"
    assert md.coSimulation.modelIdentifier == "jaiswal_fourbar_estimator"


def test_innovations_stay_within_their_predicted_sigma(fmus, report):
    rows = run(fmus, 3.0)
    innovation, sigma = rows[:, 5], rows[:, 6]
    ratio = np.abs(innovation / sigma)
    inside = np.mean(ratio < 1.96)
    angle_error = np.sqrt(np.mean((rows[:, 1] - rows[:, 0]) ** 2))
    p_error = np.sqrt(np.mean((rows[:, 3] - rows[:, 2]) ** 2))
    report(f"estimator FMU, encoder + p1–p3 at 1 kHz, 3 s: {100 * inside:.1f} % of the crank "
           f"innovations within 1.96 σ; RMS error crank {angle_error:.2e} rad "
           f"(encoder σ {SENSORS['crank_angle'][1]:.2e}), p2 {p_error / 1e5:.3f} bar")
    # A consistent filter: 95 % expected; a broken one is far off either way.
    assert 0.90 < inside < 0.99, inside
    assert angle_error < SENSORS["crank_angle"][1]
    assert p_error < 0.5e5


def test_pressure_sensors_shrink_the_pressure_sigma(fmus, report):
    with_p = run(fmus, 0.5)[-1, 4]
    without = run(fmus, 0.5, sensors={"crank_angle": SENSORS["crank_angle"]})[-1, 4]
    report(f"estimator FMU: σ(cap_side.p) after 0.5 s {with_p / 1e5:.3f} bar with p1–p3, "
           f"{without / 1e5:.3f} bar with the encoder alone")
    assert with_p < 0.5 * without


def test_a_serialized_state_continues_bit_for_bit(fmus):
    est = Model(fmus[1], "estimator")
    rng = np.random.default_rng(3)
    samples = [0.0 + 1e-3 * rng.standard_normal() for _ in range(400)]

    def steps(k0, k1):
        for k in range(k0, k1):
            est.set("valve.command", u_ref(1.0 + k * H))
            est.set("sensor.p2", 5.0e6 + 1e4 * samples[k])
            est.flag("sensor.p2.valid", True)
            est.slave.doStep(k * H, H)
        return [est.get(n) for n in ("crank.angle", "cylinder.p_cap", "cap_side.p.sigma",
                                     "sensor.p2.innovation")]

    steps(0, 200)
    state = est.slave.getFMUstate()
    blob = est.slave.serializeFMUstate(state)
    est.slave.freeFMUstate(state)
    first = steps(200, 400)
    restored = est.slave.deSerializeFMUstate(blob)
    est.slave.setFMUstate(restored)
    est.slave.freeFMUstate(restored)
    again = steps(200, 400)
    est.free()
    assert first == again


def test_a_nan_sample_is_refused_with_fmi2error(fmus):
    """A missing sample is a cleared `valid` flag; NaN as a value is refused where it is
    set, with the variable named in the log."""
    est = Model(fmus[1], "estimator")
    harness.LOG.clear()
    with pytest.raises(FMICallException) as e:
        est.set("sensor.p1", float("nan"))
    assert e.value.status == 3  # fmi2Error
    assert any("sensor.p1" in r[3] for r in harness.LOG.records), harness.LOG.records
    # fmi2Error leaves the instance in the error state: only freeing (or resetting) it.
    est.slave.freeInstance()


def test_without_samples_the_estimator_is_the_machine(fmus):
    truth, est = Model(fmus[0], "truth"), Model(fmus[1], "estimator")
    for k in range(1500):
        t = k * H
        for m in (truth, est):
            m.set("valve.command", u_ref(t))
            m.slave.doStep(t, H)
    same = [truth.get(n) == est.get(n) for n in ("crank.angle", "cylinder.p_cap",
                                                 "cylinder.p_rod", "hose.p")]
    truth.free()
    est.free()
    assert all(same)


# The PATU crane's estimator FMU (models/patu-pvg32.toml: the laboratory's sensors and load
# errors). The truth is the machine FMU with a payload 20 % heavier (its tunable
# `payload.mass`), holding still on closed valves; the estimator of the nominal crane is
# fed its pressures and lift angle.
PATU_PAYLOAD = 211.431  # kg, note §7 (the description's)
PATU_SENSORS = {"lift_angle": ("lift.angle", np.radians(0.1)),
                "p1": ("lift_cylinder.p_cap", 0.1e5), "p2": ("lift_cylinder.p_rod", 0.1e5),
                "p3": ("tilt_cylinder.p_cap", 0.1e5), "p4": ("tilt_cylinder.p_rod", 0.1e5)}


@pytest.fixture(scope="module")
def patu_fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("patu-estimator")
    subprocess.run([str(HYDROMECH), "build", "--estimator", "--platform", "linux64",
                    str(harness.ROOT / "models" / "patu-pvg32.toml"), "-o", str(out)],
                   check=True)
    return out / "patu-pvg32.fmu", out / "patu-pvg32.estimator.fmu"


def test_the_patu_estimator_weighs_the_payload_it_was_not_told(patu_fmus, report):
    md = harness.model_description(patu_fmus[1])
    by_name = {v.name: v for v in md.modelVariables}
    for joint in ("lift", "tilt"):
        assert by_name[f"{joint}.load"].causality == "output"
        assert by_name[f"{joint}.load"].unit == "N.m"
        assert by_name[f"{joint}.load.sigma"].causality == "output"
    assert by_name["estimator.load_noise"].variability == "tunable"
    # The encoder's bias (the measured z1's mismatch with the geometry, see the model).
    assert by_name["sensor.lift_angle.bias"].unit == "rad"
    assert by_name["sensor.lift_angle.bias.sigma"].causality == "output"
    assert by_name["sensor.lift_angle.bias_noise"].variability == "tunable"

    md_truth = harness.model_description(patu_fmus[0])
    vr = {v.name: v.valueReference for v in md_truth.modelVariables}
    slave = harness.new_slave(patu_fmus[0], instance_name="truth", logging_on=False)
    slave.setupExperiment(startTime=0.0)
    slave.setReal([vr["payload.mass"]], [1.2 * PATU_PAYLOAD])
    slave.enterInitializationMode()
    slave.exitInitializationMode()
    est = Model(patu_fmus[1], "estimator")
    rng = np.random.default_rng(5)
    for k in range(round(2.0 / H)):
        slave.doStep(k * H, H)
        for name, (quantity, sigma) in PATU_SENSORS.items():
            value = slave.getReal([vr[quantity]])[0]
            est.set(f"sensor.{name}", value + sigma * rng.standard_normal())
            est.flag(f"sensor.{name}.valid", True)
        est.slave.doStep(k * H, H)
    z1, z2 = (slave.getReal([vr[n]])[0] for n in ("lift.angle", "tilt.angle"))
    loads = {j: (est.get(f"{j}.load"), est.get(f"{j}.load.sigma")) for j in ("lift", "tilt")}
    slave.terminate()
    slave.freeInstance()
    est.free()
    # By hand from the description's geometry: the extra 42.3 kg at [2.113, 0.26] in the
    # tilt boom's frame (absolute angle z2), the tilt joint at [2.875, 0.01515] on the lift
    # boom (angle z1).
    weight = 0.2 * PATU_PAYLOAD * 9.8066
    payload_arm = 2.113 * np.cos(z2) - 0.26 * np.sin(z2)
    tilt_arm = 2.875 * np.cos(z1) - 0.01515 * np.sin(z1)
    expected = {"lift": -weight * (tilt_arm + payload_arm), "tilt": -weight * payload_arm}
    report("PATU estimator FMU, 2 s holding a payload 20 % heavier than its model: "
           + ", ".join(f"{j}.load {f:.0f} ± {s:.0f} N·m (by hand {expected[j]:.0f})"
                       for j, (f, s) in loads.items()))
    for j, (f, s) in loads.items():
        assert abs(f - expected[j]) < max(3 * s, 0.03 * abs(expected[j])), (j, f, s)
        assert abs(f - expected[j]) < 0.05 * abs(expected[j]), (j, f)

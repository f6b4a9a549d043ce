"""Draws docs/cosimulation/vessel-crane.svg: models/knuckle-crane.toml on a carrier-driven
base, driven through FMPy by a synthetic sea state 3 (roll ±5° at 8 s, heave ±1 m at 10 s,
the motion of model-compiler/tests/vessel_crane.rs) at 1 ms with the motion's rates
interpolated: the hook's swing in the deck frame and the wrench on the vessel.

    .venv/bin/python docs/cosimulation/vessel_crane_plot.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_cosimulation as tc  # noqa: E402
from svg_panels import H, document, panel  # noqa: E402

ROLL, ROLL_PERIOD, HEAVE, HEAVE_PERIOD = np.radians(5.0), 8.0, 1.0, 10.0


def sea(t):
    """Base inputs (world axes) of the roll about x and the heave along y at t."""
    wr, wh = 2 * np.pi / ROLL_PERIOD, 2 * np.pi / HEAVE_PERIOD
    roll = ROLL * np.sin(wr * t)
    return {
        "base.orientation.w": np.cos(roll / 2), "base.orientation.x": np.sin(roll / 2),
        "base.angular_velocity.x": ROLL * wr * np.cos(wr * t),
        "base.angular_acceleration.x": -ROLL * wr * wr * np.sin(wr * t),
        "base.position.y": HEAVE * np.sin(wh * t),
        "base.velocity.y": HEAVE * wh * np.cos(wh * t),
        "base.acceleration.y": -HEAVE * wh * wh * np.sin(wh * t),
    }


def main():
    with tempfile.TemporaryDirectory() as tmp:
        text = (ROOT / "models" / "knuckle-crane.toml").read_text()
        text = text.replace('name = "knuckle-crane"', 'name = "knuckle-crane-on-vessel"', 1)
        description = Path(tmp) / "knuckle-crane-on-vessel.toml"
        description.write_text(text + '\n[interface.base]\nmotion = "carrier"\n')
        subprocess.run([str(tc.HYDROMECH), "build", str(description), "-o", tmp], check=True,
                       stdout=subprocess.DEVNULL)
        crane = tc.Model(Path(tmp) / "knuckle-crane-on-vessel.fmu", "crane")
        names = list(sea(0.0))
        crane.slave.enterInitializationMode()
        crane.set(names, [sea(0.0)[n] for n in names])
        crane.slave.exitInitializationMode()
        hook0 = crane.get(["hook.x", "hook.z"])
        h, t_end = 1e-3, 40.0
        rows = []
        for k in range(1, round(t_end / h) + 1):
            t0 = (k - 1) * h
            now = sea(t0)
            crane.set(names, [now[n] for n in names])
            rates = {"base.position.y": now["base.velocity.y"],
                     "base.velocity.y": now["base.acceleration.y"],
                     "base.angular_velocity.x": now["base.angular_acceleration.x"]}
            vrs = [crane.vr[n] for n in rates]
            crane.slave.setRealInputDerivatives(vrs, [1] * len(vrs), list(rates.values()))
            crane.slave.doStep(t0, h, 1)
            if k % 20 == 0:
                x, z, fy, fz, mx = crane.get(["hook.x", "hook.z", "base.force.y", "base.force.z",
                                              "base.moment.x"])
                rows.append((k * h, x - hook0[0], z - hook0[1], fy, fz, mx))
        crane.slave.terminate()
        crane.slave.freeInstance()
    r = np.array(rows)
    t = r[:, 0]
    svg = document([
        panel(0, "Hook swing in the deck frame (from its start)", "m",
              [("x (along the boom)", "#1f77b4", r[:, 1]), ("z (across)", "#d62728", r[:, 2])],
              t),
        panel(H, "Force on the vessel (base axes)", "kN",
              [("y (deck normal)", "#1f77b4", r[:, 3] / 1e3), ("z", "#d62728", r[:, 4] / 1e3)],
              t),
        panel(2 * H, "Roll moment on the vessel (about the base origin)", "kN·m",
              [("moment x", "#2ca02c", r[:, 5] / 1e3)], t),
    ])
    out = Path(__file__).with_name("vessel-crane.svg")
    out.write_text(svg)
    print(out, f"hook swing max {np.hypot(r[:, 1], r[:, 2]).max():.3f} m, "
               f"force y {r[:, 3].min():.0f}…{r[:, 3].max():.0f} N, |Mx| ≤ {np.abs(r[:, 5]).max():.0f} N·m")


if __name__ == "__main__":
    main()

"""Draws docs/cosimulation/truck-split.svg: the truck crane's roll and boom angle, the one FMU
against the split at its base (FMPy master, held inputs) at 5, 2 and 1 ms, with the split's
difference from the whole below. Uses the master of tests/python/test_cosimulation.py.

    target/release/hydromech build --split base models/truck-crane.toml -o target/truck-split
    .venv/bin/python docs/cosimulation/truck_split_plot.py target/truck-split
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_cosimulation as tc  # noqa: E402
from svg_panels import H, document, panel  # noqa: E402

COLORS = {"whole": "#222222", 0.005: "#d62728", 0.002: "#ff7f0e", 0.001: "#1f77b4"}


def main(build_dir: Path):
    fmus = {p.stem: p for p in build_dir.glob("*.fmu")}
    case = tc.TRUCK_CRANE
    ref = tc.whole_run(fmus, case)
    t = 0.01 * np.arange(1, len(ref) + 1)
    runs = {h: tc.split(fmus, h, False, case)[0] for h in (0.005, 0.002, 0.001)}
    deg = 180 / np.pi
    roll = [("one FMU", COLORS["whole"], ref[:, 0] * deg)] + [
        (f"split {h * 1e3:g} ms", COLORS[h], r[:, 0] * deg) for h, r in runs.items()]
    diff = [(f"split {h * 1e3:g} ms", COLORS[h], (r[:, 0] - ref[:, 0]) * deg)
            for h, r in runs.items() if h < 0.005]
    boom = [("one FMU", COLORS["whole"], ref[:, 1] * deg)] + [
        (f"split {h * 1e3:g} ms", COLORS[h], r[:, 1] * deg) for h, r in runs.items()]
    svg = document([
        panel(0, "Truck roll: one FMU and the split at its crane's base (held inputs)", "deg",
              roll, t),
        panel(H, "Roll difference from the one FMU (2 and 1 ms)", "deg", diff, t),
        panel(2 * H, "Boom angle", "deg", boom, t),
    ])
    out = Path(__file__).with_name("truck-split.svg")
    out.write_text(svg)
    print(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]))

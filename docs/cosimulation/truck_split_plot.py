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
import test_cosimulation as tc  # noqa: E402

COLORS = {"whole": "#222222", 0.005: "#d62728", 0.002: "#ff7f0e", 0.001: "#1f77b4"}
W, H, LEFT, RIGHT, TOP = 760, 250, 80, 20, 30


def panel(y0, title, unit, series, t):
    """One plot: series = [(label, color, values)]; returns SVG text."""
    lo = min(v.min() for _, _, v in series)
    hi = max(v.max() for _, _, v in series)
    pad = 0.05 * (hi - lo or 1.0)
    lo, hi = lo - pad, hi + pad
    x = lambda s: LEFT + (W - LEFT - RIGHT) * s / t[-1]  # noqa: E731
    y = lambda v: y0 + TOP + (H - TOP - 40) * (hi - v) / (hi - lo)  # noqa: E731
    out = [f'<text x="{W / 2}" y="{y0 + 20}" text-anchor="middle" font-size="14">{title}</text>',
           f'<rect x="{LEFT}" y="{y0 + TOP}" width="{W - LEFT - RIGHT}" height="{H - TOP - 40}" '
           'fill="none" stroke="#444"/>']
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        out.append(f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.3g}</text>')
    for s in range(0, int(t[-1]) + 1):
        out.append(f'<text x="{x(s):.1f}" y="{y0 + H - 24}" text-anchor="middle">{s}</text>')
    out.append(f'<text transform="translate(16 {y0 + H / 2}) rotate(-90)" '
               f'text-anchor="middle">{unit}</text>')
    for k, (label, color, v) in enumerate(series):
        pts = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in zip(t, v))
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.4" points="{pts}"/>')
        lx = LEFT + 150 * k
        out.append(f'<line x1="{lx}" y1="{y0 + H - 8}" x2="{lx + 24}" y2="{y0 + H - 8}" '
                   f'stroke="{color}" stroke-width="2"/><text x="{lx + 30}" y="{y0 + H - 4}">'
                   f"{label}</text>")
    return "\n".join(out)


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
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{3 * H}" '
           'font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>',
           panel(0, "Truck roll: one FMU and the split at its crane's base (held inputs)", "deg",
                 roll, t),
           panel(H, "Roll difference from the one FMU (2 and 1 ms)", "deg", diff, t),
           panel(2 * H, "Boom angle", "deg", boom, t),
           f'<text x="{W / 2}" y="{3 * H - 2}" text-anchor="middle">time [s]</text>', "</svg>"]
    out = Path(__file__).with_name("truck-split.svg")
    out.write_text("\n".join(svg) + "\n")
    print(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]))

"""Error against step size of the seed's four-bar (issue 16, item 6): runs
`model-compiler/tests/convergence.rs`, reads the errors it prints and draws them on log-log
axes with a slope-2 guide into convergence.svg (plain SVG, no plotting library).

Usage (from the repository root): python3 docs/performance/convergence_plot.py
"""
import math
import pathlib
import re
import subprocess

out = subprocess.run(
    ["cargo", "test", "--release", "-q", "-p", "model-compiler", "--test", "convergence",
     "--", "--nocapture", "--test-threads=1"],
    check=True, capture_output=True, text=True).stdout
order = [(float(h) * 1e-3, float(e)) for h, e in
         re.findall(r"h = ([\d.]+) ms: max crank-angle error ([\d.e+-]+) rad", out)]
floor = [(float(h), float(e)) for h, e in
         re.findall(r"h = ([\d.e+-]+) s: max crank-angle error ([\d.e+-]+) rad", out)]
assert order and floor, out

W, H, L, R, T, B = 760, 420, 90, 30, 40, 60
xs = [h for h, _ in order + floor]
ys = [e for _, e in order + floor]
x0, x1 = math.log10(min(xs)) - 0.2, math.log10(max(xs)) + 0.2
y0, y1 = math.log10(min(ys)) - 0.5, math.log10(max(ys)) + 0.5
X = lambda h: L + (W - L - R) * (math.log10(h) - x0) / (x1 - x0)  # noqa: E731
Y = lambda e: T + (H - T - B) * (y1 - math.log10(e)) / (y1 - y0)  # noqa: E731
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
       'font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>',
       f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">Seed 001 four-bar, '
       'input stepped every 10 ms: max crank-angle error against step size</text>',
       f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="#444"/>']
for p in range(math.ceil(x0), math.floor(x1) + 1):
    svg.append(f'<text x="{X(10**p):.1f}" y="{H - B + 18}" text-anchor="middle">1e{p}</text>')
for p in range(math.ceil(y0), math.floor(y1) + 1):
    svg.append(f'<text x="{L - 6}" y="{Y(10**p) + 4:.1f}" text-anchor="end">1e{p}</text>'
               f'<line x1="{L}" x2="{W - R}" y1="{Y(10**p):.1f}" y2="{Y(10**p):.1f}" stroke="#eee"/>')
svg.append(f'<text x="{W / 2}" y="{H - 18}" text-anchor="middle">internal step h [s]</text>')
svg.append(f'<text transform="translate(18 {H / 2}) rotate(-90)" text-anchor="middle">'
           'max |crank angle error| [rad]</text>')
h_ref, e_ref = order[-1]
guide = [(h, e_ref * (h / h_ref) ** 2) for h in (order[0][0], order[-1][0])]
for _, color, pts, dash in [
        ("order", "#c0392b", order, ""),
        ("floor", "#2e86c1", floor, ""),
        ("slope 2", "#888", guide, ' stroke-dasharray="5 4"')]:
    line = " ".join(f"{X(h):.1f},{Y(e):.1f}" for h, e in pts)
    svg.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.6"{dash} points="{line}"/>')
    svg += [f'<circle cx="{X(h):.1f}" cy="{Y(e):.1f}" r="3" fill="{color}"/>' for h, e in pts
            if not dash]
for k, (label, color) in enumerate([("10 ms … 0.625 ms against a 0.1 ms run (2 s)", "#c0392b"),
                                    ("1 ms … 1 µs against a 0.5 µs run, default tolerances", "#2e86c1"),
                                    ("slope 2", "#888")]):
    ly = T + 16 + 16 * k
    svg.append(f'<line x1="{L + 12}" x2="{L + 36}" y1="{ly}" y2="{ly}" stroke="{color}" '
               f'stroke-width="2"/><text x="{L + 42}" y="{ly + 4}">{label}</text>')
svg.append("</svg>")
path = pathlib.Path(__file__).with_name("convergence.svg")
path.write_text("\n".join(svg) + "\n")
print(f"wrote {path}: {order} {floor}")

"""Plain SVG line plots for the co-simulation pages (no plotting library in the test venv)."""

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
    tick = max(1, round(t[-1] / 10))
    for s in range(0, int(t[-1]) + 1, tick):
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


def document(panels, title_x="time [s]"):
    """The SVG file of stacked panels (each from `panel` at y0 = k·H)."""
    n = len(panels)
    return "\n".join(
        [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{n * H}" '
         'font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>',
         *panels,
         f'<text x="{W / 2}" y="{n * H - 2}" text-anchor="middle">{title_x}</text>', "</svg>"]
    ) + "\n"

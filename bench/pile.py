#!/usr/bin/env python3
"""Writes the descriptions of the contact scaling study: N balls dropped into a bowl.

Balls of 1 kg, r 0.1 m, μ 0.5, restitution 0.5, 1e5 N/m (our numbers), in layers of 4 × 4
0.22 m apart (odd layers shifted 1 cm, so that the pile does not stand on exact symmetry),
dropped into the heightfield bowl z = 0.15 (x² + y²) (3 m square, 0.1 m cells), all in one
contact group: every ball may touch every other, each touches a few at a time.

    python3 bench/pile.py OUT_DIR 1 10 100
    target/release/hydromech bench OUT_DIR/pile-10.toml --comm internal --warmup 10 --steps 2000
"""

import os
import sys

RADIUS = 0.1
SPACING = 0.22
PER_ROW = 4


def bowl(path):
    n, step, origin = 31, 0.1, -1.5
    with open(path, "w") as f:
        for j in range(n):
            y = origin + j * step
            row = [0.15 * ((origin + i * step) ** 2 + y * y) for i in range(n)]
            f.write(",".join(f"{z:.6f}" for z in row) + "\n")


def description(n):
    names = [f"b{k}" for k in range(n)]
    text = f"""# {n} balls dropped into a bowl: the contact scaling study (bench/pile.py).
[model]
name = "pile-{n}"
gravity = [0, 0, -9.81]

[solver]
step = "1 ms"

[init]
static_equilibrium = false

[report]
stop_time = "2 s"

[contact]
ground = {{ shape = "heightfield", file = "bowl.csv", spacing = ["0.1 m", "0.1 m"], origin = [-1.5, -1.5, 0] }}
"""
    if n > 1:
        text += "groups = [{ bodies = [" + ", ".join(f'"{b}"' for b in names) + "] }]\n"
    text += """
[[interface.outputs]]
name = "points"
quantity = "contact.points"

[[interface.outputs]]
name = "iterations"
quantity = "solver.iterations"
"""
    per_layer = PER_ROW * PER_ROW
    for k in range(n):
        layer, at = divmod(k, per_layer)
        row, col = divmod(at, PER_ROW)
        shift = 0.01 * (layer % 2)
        x = -0.33 + SPACING * col + shift
        y = -0.33 + SPACING * row + shift
        z = 0.2 + 0.21 * layer
        text += f"""
[[bodies]]
name = "b{k}"
parent = "ground"
joint = {{ type = "free", name = "j{k}", origin = [0, 0, 0], initial = [{x:.4f}, {y:.4f}, {z:.4f}, 0, 0, 0] }}
mass = "1 kg"
com = [0, 0, 0]
inertia = [0.004, 0.004, 0.004, 0, 0, 0]
collision = [{{ shape = "sphere", radius = "{RADIUS} m", stiffness = "1e5 N/m", restitution = 0.5, friction = 0.5 }}]
"""
    return text


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    bowl(os.path.join(out, "bowl.csv"))
    for n in map(int, sys.argv[2:]):
        with open(os.path.join(out, f"pile-{n}.toml"), "w") as f:
            f.write(description(n))


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Side-by-side step cost of the one-arm hydraulic boom: hydromech (its FMU through the C
# ABI, `hydromech bench`) and Exudyn 1.13.6 (fast module, SolveDynamic), 1 ms steps with
# the valve held at 0.005. Not part of CI: it installs
# exudyn from PyPI into a venv of its own (EXUDYN_VENV, default /tmp/exudyn-venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="${EXUDYN_VENV:-/tmp/exudyn-venv}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "exudyn==1.13.6" numpy
fi
cargo build --release -q -p model-compiler
FMU_DIR="$(mktemp -d)"
trap 'rm -rf "$FMU_DIR"' EXIT
./target/release/hydromech build bench/exudyn/one-arm.toml -o "$FMU_DIR" > /dev/null
FMU="$FMU_DIR/one-arm.fmu"
# Both tools are timed over the same window, steps 1000-3000 (1-3 s): the cost of a run of
# 3000 steps minus that of a run of 1000, over 2000, so that start-up (Exudyn's solver
# set-up; the first steps from the non-equilibrium start in both) cancels. The valve is held
# at 0.005 in both (the bench's table manoeuvre for this model, one_arm.py's argument).
ROUNDS="${ROUNDS:-3}"
for r in $(seq "$ROUNDS"); do
    ./target/release/hydromech bench "$FMU" --comm internal --steps 1000 --json "$FMU_DIR/h1.json" > /dev/null
    ./target/release/hydromech bench "$FMU" --comm internal --steps 3000 --json "$FMU_DIR/h3.json" > /dev/null
    t1=$("$VENV/bin/python" bench/exudyn/one_arm.py 1000 0.005 2>/dev/null | tail -1)
    t2=$("$VENV/bin/python" bench/exudyn/one_arm.py 3000 0.005 2>/dev/null | tail -1)
    python3 - "$FMU_DIR/h1.json" "$FMU_DIR/h3.json" "$t1" "$t2" <<'PY'
import json, sys
h1, h3 = (json.load(open(f))["models"][0]["runs"][0] for f in sys.argv[1:3])
a, b = (json.loads(x) for x in sys.argv[3:5])
ours = (h3["do_step"]["mean_us"] * 3000 - h1["do_step"]["mean_us"] * 1000) / 2000
theirs = (b["us_per_step"] * b["steps"] - a["us_per_step"] * a["steps"]) / (b["steps"] - a["steps"])
it = h3["iterations"]
print(f"hydromech: {ours:.3f} us per 1 ms step over steps 1000-3000 (fmi2DoStep, median "
      f"{h3['do_step']['median_us']:.3f}, p99 {h3['do_step']['p99_us']:.2f} us; Newton "
      f"iterations mean {it['mean']:.2f}, max {it['max']})")
print(f"exudyn:    {theirs:.2f} us per 1 ms step over steps 1000-3000; at 1 s: angle "
      f"{a['angle']:.6f} rad, p0 {a['p0'] / 1e6:.4f} MPa, p1 {a['p1'] / 1e6:.4f} MPa")
print(f"ratio:     {theirs / ours:.1f}x")
PY
done
./target/release/hydromech simulate bench/exudyn/one-arm.toml --stop-time 1 \
    -o /tmp/one-arm-hydromech.csv --vars arm.angle,p0,p1 > /dev/null
tail -1 /tmp/one-arm-hydromech.csv | awk -F, '{printf "hydromech at 1 s: angle %.6f rad, p0 %.4f MPa, p1 %.4f MPa\n", $2, $3/1e6, $4/1e6}'

#!/usr/bin/env bash
# Side-by-side step cost of the one-arm hydraulic boom: hydromech (its FMU through the C
# ABI, `hydromech bench`) and Exudyn 1.13.6 (fast module, SolveDynamic), the first second
# at 1 ms with the valve held at 0.005. Exudyn's per-step cost is taken as the difference
# of a 3000- and a 1000-step run (its solver set-up cancels). Not part of CI: it installs
# exudyn from PyPI into a venv of its own (EXUDYN_VENV, default /tmp/exudyn-venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="${EXUDYN_VENV:-/tmp/exudyn-venv}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "exudyn==1.13.6" numpy
fi
cargo build --release -q -p model-compiler
ROUNDS="${ROUNDS:-3}"
for r in $(seq "$ROUNDS"); do
    ./target/release/hydromech bench bench/exudyn/one-arm.toml --comm internal --steps 1000 \
        | grep -E "^one-arm-exudyn +1 ms" | awk '{printf "hydromech: median %s us, p99 %s us, mean %.2f us per 1 ms step (RTF x 1000), Newton median/max %s\n", $6, $7, $11*1000, $10}'
    t1=$("$VENV/bin/python" bench/exudyn/one_arm.py 1000 0.005 2>/dev/null | tail -1)
    t2=$("$VENV/bin/python" bench/exudyn/one_arm.py 3000 0.005 2>/dev/null | tail -1)
    python3 - "$t1" "$t2" <<'PY'
import json, sys
a, b = (json.loads(x) for x in sys.argv[1:])
per = (b["us_per_step"] * b["steps"] - a["us_per_step"] * a["steps"]) / (b["steps"] - a["steps"])
print(f"exudyn:    {per:.2f} us per 1 ms step (3000-step minus 1000-step run); at 1 s: "
      f"angle {a['angle']:.6f} rad, p0 {a['p0'] / 1e6:.4f} MPa, p1 {a['p1'] / 1e6:.4f} MPa")
PY
done
./target/release/hydromech simulate bench/exudyn/one-arm.toml --stop-time 1 \
    -o /tmp/one-arm-hydromech.csv --vars arm.angle,p0,p1 > /dev/null
tail -1 /tmp/one-arm-hydromech.csv | awk -F, '{printf "hydromech at 1 s: angle %.6f rad, p0 %.4f MPa, p1 %.4f MPa\n", $2, $3/1e6, $4/1e6}'

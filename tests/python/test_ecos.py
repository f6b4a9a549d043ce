"""Second, independent importer: the Ecos C++ co-simulation engine (PyPI `ecospy`).

* `ecos simulate` CLI on every FMU (`LD_LIBRARY_PATH=<venv>/lib` for libtbb). It writes
  `<fmu stem>.csv` into its working directory; columns `iterations, time,
  instance::<var>[REAL], ...`; values are printed with 6 decimals (std::fixed), and the row of
  the final communication point (t = stopTime) is not written: the last row is t = stopTime - h.
* Because the CLI's CSV only has 6 decimals, the 1e-9 agreement with FMPy is checked through
  ecospy's own library API (same engine, full doubles), in a subprocess.
"""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fmpy import simulate_fmu

import harness

CLI_STOP_MAX = 10.0  # s; cap for FMUs with a long DefaultExperiment


def _run_cli(ecos_path, fmu_path, tmp_path, stop, h):
    p = subprocess.run(
        [str(ecos_path), "simulate", "--path", str(fmu_path), "--stopTime", repr(stop),
         "--stepSize", repr(h), "--noParallel"],
        cwd=tmp_path, env=harness.ecos_env(), capture_output=True, text=True, timeout=900,
        stdin=subprocess.DEVNULL)
    return p


def _read_csv(path: Path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, skipinitialspace=True))
    header = [h.strip() for h in rows[0]]
    data = [[float(x) for x in r] for r in rows[1:] if r]
    return header, data


def _column(header, name):
    for i, h in enumerate(header):
        if h.split("::", 1)[-1].split("[", 1)[0] == name:
            return i
    raise KeyError(f"{name} not in ecos CSV header {header}")


def test_ecos_cli_simulates(fmu_path, ecos_path, tmp_path, report):
    md = harness.model_description(fmu_path)
    h = harness.default_step(md)
    stop = min(harness.default_stop(md), CLI_STOP_MAX)
    p = _run_cli(ecos_path, fmu_path, tmp_path, stop, h)
    assert p.returncode == 0, f"ecos exit code {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    csvs = sorted(tmp_path.glob("*.csv"))
    assert csvs, f"ecos wrote no CSV in {tmp_path}; stdout:\n{p.stdout[-2000:]}"
    header, data = _read_csv(csvs[0])
    assert header[:2] == ["iterations", "time"], header
    assert data, "CSV has no rows"
    t_col = [r[1] for r in data]
    assert t_col[0] == 0.0
    assert t_col[-1] >= stop - h * (1 + 1e-6), f"last CSV row at t={t_col[-1]}, stopTime={stop}"
    for v in harness.real_outputs(md):
        _column(header, v.name)  # every Real output is logged
    for r in data:
        assert all(math.isfinite(x) for x in r), f"non-finite value in row {r}"
    report(f"{fmu_path.name}: ecos CLI {len(data)} rows to t={t_col[-1]} "
           f"({csvs[0].name}, {len(header) - 2} columns)")


def _fmpy_constant_input(fmu_path, stop, h, names):
    return simulate_fmu(str(fmu_path), fmi_type="CoSimulation", start_time=0.0,
                        stop_time=stop, output_interval=h, output=names)


def test_ecos_cli_matches_fmpy_naya(naya_fmu, ecos_path, tmp_path):
    md = harness.model_description(naya_fmu)
    h, stop = harness.default_step(md), 1.0
    p = _run_cli(ecos_path, naya_fmu, tmp_path, stop, h)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    header, data = _read_csv(next(tmp_path.glob("*.csv")))
    t_last = data[-1][1]
    ref = _fmpy_constant_input(naya_fmu, stop, h, ["cylinder.length"])
    i = int(abs(ref["time"] - t_last).argmin())
    assert abs(ref["time"][i] - t_last) < 1e-9
    got = data[-1][_column(header, "cylinder.length")]
    # the CLI prints 6 decimals: agreement within the print resolution
    assert abs(got - ref["cylinder.length"][i]) <= 1e-6, (got, ref["cylinder.length"][i])


ECOSPY_SCRIPT = textwrap.dedent("""
    import json, sys
    from ecospy.EcosSimulationStructure import EcosSimulationStructure
    from ecospy.EcosSimulation import EcosSimulation
    fmu, h, n, names = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
    s = EcosSimulationStructure()
    s.add_model("m", fmu)
    sim = EcosSimulation(structure=s, step_size=h)
    sim.init()
    t = sim.step(n)
    out = {k: sim.get_real("m::" + k) for k in names}
    sim.terminate()
    print(json.dumps({"t": t, "values": out}))
""")


def test_ecos_engine_matches_fmpy_naya_1e9(naya_fmu, tmp_path, report):
    """Same FMU, same constant inputs, same steps: Ecos and FMPy agree to 1e-9 at stopTime."""
    md = harness.model_description(naya_fmu)
    h, n = harness.default_step(md), 100
    names = [v.name for v in harness.real_outputs(md)]
    p = subprocess.run([sys.executable, "-c", ECOSPY_SCRIPT, str(naya_fmu), repr(h), str(n),
                        json.dumps(names)], cwd=tmp_path, env=harness.ecos_env(),
                       capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-3000:]
    res = json.loads(p.stdout.strip().splitlines()[-1])
    t_end = res["t"]
    assert abs(t_end - n * h) < 1e-9
    ref = _fmpy_constant_input(naya_fmu, n * h, h, names)
    assert abs(ref["time"][-1] - t_end) < 1e-9
    e, f = res["values"]["cylinder.length"], float(ref["cylinder.length"][-1])
    report(f"naya-rod: cylinder.length at t={t_end:.6f}: ecos {e!r}, FMPy {f!r}, "
           f"diff {abs(e - f):.3e}")
    assert math.isfinite(e) and abs(e - f) <= 1e-9
    for k in names:
        a, b = res["values"][k], float(ref[k][-1])
        assert math.isfinite(a)
        assert abs(a - b) <= 1e-9 * max(1.0, abs(b)), f"{k}: ecos {a!r} vs FMPy {b!r}"

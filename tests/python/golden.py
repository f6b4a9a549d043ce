"""Golden results: every FMU that `tests/run.sh` builds, run through its standard manoeuvre
by FMPy, recorded as the bit patterns of its outputs at every communication point.

    tests/golden/<variant>/<fmu stem>.json   hashes (whole run and per output), range,
                                             final value, the interface's hash
    tests/golden/<variant>/<fmu stem>.csv    the run itself (17 digits: it reads back to the
                                             same bits); every k-th point of a long run

Variants are the folders of fmus/ that the build stage writes: `fmi2-cs` (fmus/*.fmu,
with the split and estimator FMUs), `fmi3-cs` (fmus/fmi3), `fmi2-me` (fmus/me),
`fmi2-both` (fmus/both) and `fmi3-me` (fmus/fmi3-me).

The manoeuvre of a model with a supplier package (`hydromech package -o target/package`,
the build stage writes it) is that package's: its `_in.csv`, StopTime and StepSize, so the
FMI 2.0 Co-Simulation run is the package's `_ref.csv`. An FMU without one (split halves,
estimator FMUs) gets every Real input stepped by 1 % at 0.05 s (harness.input_plan), over
its default experiment at FMPy's communication step. Model Exchange FMUs run the same
inputs under FMPy's CVode (fixed tolerance, deterministic for one build of FMPy).

`tests/python/test_golden.py` compares; a deliberate change of results is recorded with

    .venv/bin/python tests/python/golden.py --update [--only STEM ...]

which rewrites the files and prints, per model and output, the largest change relative to
the output's range: the line CHANGELOG.md needs (see CHANGELOG.md's header).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

GOLDEN = harness.ROOT / "tests" / "golden"
PACKAGE = Path(os.environ.get("HYDROMECH_PACKAGE_DIR", harness.ROOT / "target" / "package")).resolve()
VARIANTS = {
    "fmi2-cs": ("", "CoSimulation"),
    "fmi3-cs": ("fmi3", "CoSimulation"),
    "fmi2-me": ("me", "ModelExchange"),
    "fmi2-both": ("both", "CoSimulation"),
    "fmi3-me": ("fmi3-me", "ModelExchange"),
}
# A run's CSV beside its hashes: every point up to this size, else every k-th.
CSV_LIMIT = 100_000
# Variants whose runs are kept as CSV too (the others are checked equal to them).
CSV_VARIANTS = ("fmi2-cs", "fmi2-me")
# Model Exchange: CVode's relative tolerance (FMPy's default would take the FMU's own).
ME_RTOL = 1e-6
# At most this many communication points (FMPy's own rule for a co-simulation import,
# crosscheck/package.rs `fmpy_step`).
MAX_STEPS = 1000


def fmus(variant: str) -> list[Path]:
    sub, _ = VARIANTS[variant]
    d = harness.FMU_DIR / sub if sub else harness.FMU_DIR
    return sorted(d.glob("*.fmu")) if d.is_dir() else []


def package_dir(model: str) -> Path | None:
    """The supplier package's linux64 folder of `model`, if the build stage wrote one."""
    hits = sorted(PACKAGE.glob(f"fmus/2.0/cs/linux64/hydromech/*/{model}/{model}_in.csv"))
    return hits[0].parent if hits else None


def fmpy_step(default_step: float, start: float, stop: float) -> float:
    step = default_step
    while (stop - start) / step > MAX_STEPS:
        step *= 2.0
    return step


@dataclass
class Manoeuvre:
    what: str
    stop: float
    step: float
    inputs: np.ndarray | None


def manoeuvre(fmu: Path, md) -> Manoeuvre:
    from fmpy.util import read_csv, read_ref_opt_file

    pkg = package_dir(md.modelName) if fmu.stem == md.modelName else None
    if pkg is not None:
        opt = read_ref_opt_file(str(pkg / f"{md.modelName}_ref.opt"))
        return Manoeuvre(f"the supplier package's {md.modelName}_in.csv", float(opt["StopTime"]),
                         float(opt["StepSize"]), read_csv(str(pkg / f"{md.modelName}_in.csv")))
    stop = harness.default_stop(md)
    step = fmpy_step(harness.default_step(md), 0.0, stop)
    plan = [(v.name, *pair) for v, pair in _input_steps(md)]
    if not plan:
        return Manoeuvre("no inputs", stop, step, None)
    t = harness.SWITCH_TIME
    dtype = [("time", float)] + [(name, float) for name, _, _ in plan]
    rows = [(0.0, *[s for _, s, _ in plan]), (t, *[s for _, s, _ in plan]),
            (t, *[a for _, _, a in plan]), (stop, *[a for _, _, a in plan])]
    return Manoeuvre("every Real input stepped by 1 % at 0.05 s", stop, step,
                     np.array(rows, dtype=dtype))


def _input_steps(md):
    at = harness.input_plan(md)
    before = dict(at(0.0))
    after = dict(at(harness.SWITCH_TIME))
    for v in harness.variables(md, causality="input", type_="Real"):
        yield v, (before[v.valueReference], after[v.valueReference])


def interface_hash(fmu: Path) -> str:
    """The modelDescription.xml without what changes with every build or release
    (generation date, tool version) and without the GUID (the model file's hash)."""
    with zipfile.ZipFile(fmu) as z:
        xml = z.read("modelDescription.xml").decode("utf-8")
    for attr in ("generationDateAndTime", "generationTool", "guid", "instantiationToken"):
        xml = re.sub(rf'\s{attr}="[^"]*"', "", xml)
    return hashlib.sha256(xml.encode("utf-8")).hexdigest()


def _recoverable_rhs():
    """FMPy 0.3.32's CVode right-hand side (`fmpy.sundials.CVodeSolver.f`) lets an
    `fmi2Discard` of `fmi2SetContinuousStates` (a state the FMU cannot take: a trial step
    far from the last one) raise inside a ctypes callback, which then returns an undefined
    value to CVode: the excavator's run finished or failed at random. Here the discard is
    returned as CVode's "recoverable failure" (1): CVode retries with a smaller step,
    the same way every time."""
    from fmpy import sundials

    def f(self, t, y, ydot, user_data):
        try:
            return original(self, t, y, ydot, user_data)
        except Exception:
            return 1

    original = sundials.CVodeSolver.f
    if getattr(original, "__name__", "") != "f_recoverable":
        f.__name__ = "f_recoverable"
        sundials.CVodeSolver.f = f


def run(fmu: Path, variant: str):
    """(manoeuvre, output names, result columns as float64 arrays incl. time)."""
    from fmpy import read_model_description, simulate_fmu

    md = read_model_description(str(fmu))
    m = manoeuvre(fmu, md)
    outputs = [v.name for v in md.modelVariables
               if v.causality == "output" and (v.type in ("Real", "Integer") or v.type[:3] in ("Flo", "Int", "UIn"))]
    fmi_type = VARIANTS[variant][1]
    kw = dict(fmi_type=fmi_type, start_time=0.0, stop_time=m.stop, output_interval=m.step,
              output=outputs, input=m.inputs, validate=False)
    if fmi_type == "CoSimulation":
        kw["step_size"] = m.step
    else:
        _recoverable_rhs()
        kw.update(solver="CVode", relative_tolerance=ME_RTOL)
    r = simulate_fmu(str(fmu), **kw)
    columns = {name: np.asarray(r[name], dtype=np.float64) for name in r.dtype.names}
    return m, md, outputs, columns


def fmu_name(fmu: Path) -> str:
    """`fmus/...` wherever the FMUs were built (HYDROMECH_FMU_DIR)."""
    return str(Path("fmus") / fmu.resolve().relative_to(harness.FMU_DIR))


def digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f8").tobytes()).hexdigest()


def record(fmu: Path, variant: str) -> tuple[dict, str, dict[str, np.ndarray]]:
    """The golden JSON record, the CSV text and the columns of one FMU's run."""
    try:
        m, md, outputs, cols = run(fmu, variant)
    except Exception as e:  # an importer that gives up (CVode) is a result too
        return failure_record(fmu, variant, e), "", {}
    names = ["time"] + outputs
    whole = hashlib.sha256()
    for n in names:
        whole.update(np.ascontiguousarray(cols[n], dtype="<f8").tobytes())
    per = {}
    for n in outputs:
        y = cols[n]
        finite = y[np.isfinite(y)]
        per[n] = {
            "sha256": digest(y),
            "min": float(finite.min()) if finite.size else None,
            "max": float(finite.max()) if finite.size else None,
            "final": float(y[-1]) if np.isfinite(y[-1]) else repr(float(y[-1])),
        }
    rec = identity(fmu, variant, md, m) | {
        "points": int(cols["time"].size),
        "last_time": float(cols["time"][-1]),
        "sha256": whole.hexdigest(),
        "outputs": per,
    }
    return rec, csv_text(names, cols), cols


def identity(fmu: Path, variant: str, md, m: Manoeuvre) -> dict:
    """What a record says of the FMU and its manoeuvre."""
    return {
        "fmu": fmu_name(fmu),
        "model": md.modelName,
        "variant": variant,
        "manoeuvre": m.what,
        "stop_time": m.stop,
        "step_size": m.step,
        "interface_sha256": interface_hash(fmu),
    }


def csv_text(names: list[str], cols: dict[str, np.ndarray]) -> str:
    """The run at 17 significant digits (each value reads back to its bits): every
    communication point when that fits in CSV_LIMIT, else every k-th and the last, so that
    a change's size can still be measured (a lower bound of its largest)."""
    rows = [",".join(repr(float(cols[n][i])) for n in names) for i in range(cols["time"].size)]
    size = sum(len(r) + 1 for r in rows)
    k = max(1, -(-size // CSV_LIMIT))
    keep = list(range(0, len(rows), k))
    if keep and keep[-1] != len(rows) - 1:
        keep.append(len(rows) - 1)
    return "\n".join([",".join(names)] + [rows[i] for i in keep]) + "\n"


def failure_record(fmu: Path, variant: str, e: Exception) -> dict:
    """A run the importer could not finish: where and why, which is as deterministic as
    the outputs it would have given."""
    from fmpy import read_model_description

    md = read_model_description(str(fmu))
    text = str(e).splitlines()[0] if str(e) else type(e).__name__
    return identity(fmu, variant, md, manoeuvre(fmu, md)) | {
        "points": 0,
        "failure": text,
        "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "outputs": {},
    }


def paths(variant: str, stem: str) -> tuple[Path, Path]:
    d = GOLDEN / variant
    return d / f"{stem}.json", d / f"{stem}.csv"


def read_csv_columns(path: Path) -> dict[str, np.ndarray]:
    lines = path.read_text().splitlines()
    names = lines[0].split(",")
    data = np.array([[float(x) for x in l.split(",")] for l in lines[1:]], dtype=np.float64)
    return {n: data[:, j] for j, n in enumerate(names)}


def compare(old: dict, new: dict, old_csv: Path | None, new_cols: dict[str, np.ndarray]) -> list[str]:
    """What moved between two records, one line per output (empty: identical); where the
    old run's CSV is there, by how much at its points."""
    moved = []
    for key in ("manoeuvre", "stop_time", "step_size", "points", "interface_sha256", "failure"):
        if old.get(key) != new.get(key):
            moved.append(f"{key}: {old.get(key)!r} -> {new.get(key)!r}")
    if old["sha256"] == new["sha256"] and not moved:
        return []
    before = read_csv_columns(old_csv) if old_csv is not None and old_csv.exists() else None
    rows = None
    if before is not None and "time" in new_cols:
        t = new_cols["time"]
        at = np.minimum(np.searchsorted(t, before["time"]), t.size - 1)
        if np.array_equal(t[at], before["time"]):
            rows = at
    for name in sorted(set(old["outputs"]) | set(new["outputs"])):
        o, n = old["outputs"].get(name), new["outputs"].get(name)
        if o is None or n is None:
            moved.append(f"{name}: {'added' if o is None else 'removed'}")
            continue
        if o["sha256"] == n["sha256"]:
            continue
        text = f"{name}: final {o['final']!r} -> {n['final']!r}"
        if rows is not None and name in before and name in new_cols:
            span = (o["max"] - o["min"]) if o["min"] is not None else 0.0
            d = float(np.nanmax(np.abs(new_cols[name][rows] - before[name])))
            rel = d / span if span > 0 else float("inf") if d > 0 else 0.0
            text += f"; max |Δ| {d:.3g} = {100 * rel:.3g} % of the range {span:.4g}"
        moved.append(text)
    return moved


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", action="store_true", help="rewrite tests/golden")
    ap.add_argument("--only", nargs="*", default=None, help="FMU stems to run")
    ap.add_argument("--variant", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    a = ap.parse_args(argv)
    changed = 0
    for variant in a.variant:
        for fmu in fmus(variant):
            if a.only and fmu.stem not in a.only:
                continue
            rec, csv, cols = record(fmu, variant)
            jpath, cpath = paths(variant, fmu.stem)
            old = json.loads(jpath.read_text()) if jpath.exists() else None
            moved = ["new"] if old is None else compare(old, rec, cpath, cols)
            status = "unchanged" if not moved else "CHANGED"
            print(f"{variant}/{fmu.stem}: {status} ({rec['points']} points)")
            for m in moved:
                print(f"    {m}")
            changed += bool(moved)
            if a.update and moved:
                jpath.parent.mkdir(parents=True, exist_ok=True)
                jpath.write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
                if csv and variant in CSV_VARIANTS:
                    cpath.write_text(csv)
                elif cpath.exists():
                    cpath.unlink()
    print(f"{changed} golden record(s) {'rewritten' if a.update else 'differ'}")
    return 0 if a.update or changed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

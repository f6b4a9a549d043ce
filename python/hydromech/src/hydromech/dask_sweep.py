"""A sweep's cases on Dask workers, stepped by the Rust engine.

The client ships the FMU's bytes to every worker once (``client.scatter(...,
broadcast=True)``): no file system shared with the workers. Each worker process writes
them to a temporary file, loads the FMU once, and runs the chunks of cases it is given
with the same code as ``hydromech sweep`` in-process (``hydromech._native``), so a row
from a worker equals the in-process row to the last bit. Dask is the scheduler (a
``LocalCluster``, dask-jobqueue on a batch system, a Kubernetes deployment — the user's
choice); nothing here schedules beyond cutting the cases into chunks.

``python -m hydromech.dask_sweep FMU --cases CASES.csv ...`` (or ``hydromech-dask-sweep``)
is what ``hydromech sweep --dask ADDRESS`` runs.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import math
import os
import tempfile

import numpy as np

# The FMUs shipped to this worker process, loaded once each: sha256 → native Model.
_LOADED: dict = {}


def _model(shipped):
    from . import _native

    digest, data = shipped
    if digest not in _LOADED:
        folder = tempfile.mkdtemp(prefix="hydromech-dask-")
        path = os.path.join(folder, digest + ".fmu")
        with open(path, "wb") as f:
            f.write(data)
        _LOADED[digest] = _native.Model(path)
    return _LOADED[digest]


def run_chunk(shipped, names: list[str], cases: np.ndarray, first: int, stop_time: float,
              step, inputs, vars: list[str]) -> dict:
    """Runs one chunk of cases on a worker: the columns of its rows, ``case`` counted from
    ``first``."""
    columns = _model(shipped).run_cases(names, cases, stop_time, step=step, inputs=inputs,
                                        vars=vars, threads=1)
    columns = {k: v for k, v in columns.items() if not k.startswith("__")}
    columns["case"] = columns["case"] + first
    return columns


def run_on(client, model, names: list[str], cases: np.ndarray, *, stop_time: float,
           step=None, inputs=None, vars=(), chunk: int | None = None) -> dict:
    """Runs ``cases`` (rows of values of ``names``) of ``model`` (a :class:`hydromech.Model`
    or an FMU path) on the Dask ``client``'s workers: the sweep's columns in case order.
    ``chunk``: cases per task (default: eight tasks per worker thread, so that the last
    tasks end close together)."""
    fmu = model.fmu_path if hasattr(model, "fmu_path") else model
    with open(fmu, "rb") as f:
        data = f.read()
    # A key of its own per sweep (hash=False): with the content's hash as key, a sweep
    # right after another raced the scheduler's release of the same key ("lost
    # dependencies"). The workers load each FMU once all the same (by its sha256).
    [shipped] = client.scatter([(hashlib.sha256(data).hexdigest(), data)], broadcast=True,
                               hash=False)
    cases = np.ascontiguousarray(cases, dtype=float)
    n = len(cases)
    if chunk is None:
        threads = sum(w.get("nthreads", 1)
                      for w in client.scheduler_info()["workers"].values()) or 1
        chunk = max(1, math.ceil(n / (8 * threads)))
    starts = list(range(0, n, chunk)) or [0]
    futures = [client.submit(run_chunk, shipped, list(names), cases[s:s + chunk], s,
                             stop_time, step, inputs, list(vars), pure=False)
               for s in starts]
    parts = client.gather(futures)
    out = {}
    for key in parts[0]:
        values = [p[key] for p in parts]
        out[key] = np.concatenate(values) if isinstance(values[0], np.ndarray) else \
            [x for v in values for x in v]
    return out


def read_cases(path: str) -> tuple[list[str], np.ndarray]:
    """The cases of ``hydromech sweep --cases-only``: the parameters' names and
    ``cases[k, j]`` (the file's ``case`` column must count 0, 1, 2, …)."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    if not rows or rows[0][0] != "case":
        raise ValueError(f"{path}:1: expected a header starting with \"case\"")
    names = rows[0][1:]
    cases = np.empty((len(rows) - 1, len(names)))
    for k, row in enumerate(rows[1:]):
        line = k + 2
        if len(row) != len(names) + 1:
            raise ValueError(f"{path}:{line}: {len(row)} cells, the header has "
                             f"{len(names) + 1}")
        if row[0].strip() != str(k):
            raise ValueError(f"{path}:{line}: case {row[0]!r}, expected {k}")
        try:
            cases[k] = [float(v) for v in row[1:]]
        except ValueError:
            raise ValueError(f"{path}:{line}: a value is not a number") from None
    return names, cases


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("fmu")
    p.add_argument("--cases", required=True, help="the CSV of `hydromech sweep --cases-only`")
    p.add_argument("--stop-time", type=float, required=True)
    p.add_argument("--step", type=float)
    p.add_argument("--vars", required=True, help="summarized outputs, comma-separated")
    p.add_argument("--inputs", help="input schedule: CSV with `time` first")
    p.add_argument("--scheduler", help="the Dask scheduler's address (default: a LocalCluster)")
    p.add_argument("-o", "--output", required=True, help="rows: CSV, or Parquet for .parquet")
    a = p.parse_args(argv)
    from distributed import Client, LocalCluster

    from . import _native

    names, cases = read_cases(a.cases)
    outputs = [v.strip() for v in a.vars.split(",") if v.strip()]
    inputs = _native.read_inputs(a.inputs) if a.inputs else None
    client = Client(a.scheduler) if a.scheduler else \
        Client(LocalCluster(processes=True, threads_per_worker=1))
    with client:
        columns = run_on(client, a.fmu, names, cases, stop_time=a.stop_time, step=a.step,
                         inputs=inputs, vars=outputs)
    _native.write_table(a.output, list(columns.items()))
    failed = sum(s != "ok" for s in columns["status"])
    print(f"{a.output}  ({len(cases)} cases, {failed} failed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

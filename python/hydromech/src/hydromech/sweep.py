"""The cases of a sweep on Dask workers.

Each worker process unpacks the FMU once and runs its cases with FMPy's co-simulation
loop (``simulate_fmu``), which `hydromech simulate` and `hydromech sweep` follow to the
last bit; the statistics are computed in the order the Rust side computes them, so a row
from a worker equals the in-process row exactly. Which machine runs a case does not
matter: Dask is the scheduler (a ``LocalCluster``, dask-jobqueue on a batch system, a
Kubernetes deployment — the user's choice), nothing here schedules.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import math
import os
import tempfile
from dataclasses import dataclass, field

import numpy as np

STATISTICS = ("final", "min", "max", "rms")


@dataclass
class Case:
    """One case: its index, the swept parameters' values, and after the run its status,
    message and statistics (per output: final, min, max, RMS)."""

    index: int
    values: dict[str, float]
    status: str = "pending"
    message: str = ""
    statistics: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)


def read_cases(path: str) -> list[Case]:
    """The cases of `hydromech sweep --cases-only` (columns `case`, then the parameters)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0][0] != "case":
        raise ValueError(f"{path}: expected a header starting with \"case\"")
    names = rows[0][1:]
    cases = []
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(names) + 1:
            raise ValueError(f"{path}:{line}: {len(row)} cells, the header has {len(names) + 1}")
        cases.append(Case(int(row[0]), {n: float(v) for n, v in zip(names, row[1:])}))
    return cases


# One unpacked copy of the FMU per worker process (FMPy then loads it once).
_UNPACKED: dict[str, str] = {}


def _unpacked(fmu: str) -> str:
    from fmpy import extract

    if fmu not in _UNPACKED:
        _UNPACKED[fmu] = extract(fmu, unzipdir=tempfile.mkdtemp(prefix="hydromech-dask-"))
    return _UNPACKED[fmu]


# The FMU as shipped to a worker: (sha256, bytes) written once per worker process, so that
# the workers need no file system shared with the client.
_LOCAL: dict[str, str] = {}


def _local(fmu) -> str:
    if isinstance(fmu, str):
        return fmu
    digest, data = fmu
    if digest not in _LOCAL:
        path = os.path.join(tempfile.mkdtemp(prefix="hydromech-dask-"), digest + ".fmu")
        with open(path, "wb") as f:
            f.write(data)
        _LOCAL[digest] = path
    return _LOCAL[digest]


def _statistics(column: np.ndarray) -> tuple[float, float, float, float]:
    # Sequential, as the Rust side folds: the same sums to the last bit.
    lo, hi, sq = math.inf, -math.inf, 0.0
    for v in column.tolist():
        lo, hi, sq = min(lo, v), max(hi, v), sq + v * v
    return (column[-1].item(), lo, hi, math.sqrt(sq / max(len(column), 1)))


def run_case(fmu, case: Case, stop_time: float, step: float | None,
             outputs: list[str], inputs: np.ndarray | None) -> Case:
    """Runs one case (on a worker): its values set before initialization. `fmu`: a path,
    or the (sha256, bytes) pair `run` ships to the workers."""
    from fmpy import read_model_description, simulate_fmu

    fmu = _local(fmu)
    md = read_model_description(fmu)
    h = step if step is not None else (md.defaultExperiment.stepSize
                                       if md.defaultExperiment and md.defaultExperiment.stepSize
                                       else None)
    done = Case(case.index, dict(case.values))
    try:
        result = simulate_fmu(
            _unpacked(fmu),  # FMPy runs an unpacked FMU's directory as is
            fmi_type="CoSimulation",
            start_values=dict(case.values),
            stop_time=stop_time,
            output_interval=float(h) if h else None,
            input=inputs,
            output=outputs,
        )
    except Exception as e:  # a step the solver could not take, a refused value
        done.status, done.message = "failed", str(e)
        done.statistics = {o: (math.nan,) * 4 for o in outputs}
        return done
    done.status = "ok"
    done.statistics = {o: _statistics(np.asarray(result[o], dtype=float)) for o in outputs}
    return done


def run(fmu: str, cases: list[Case], stop_time: float, outputs: list[str], *,
        step: float | None = None, inputs: np.ndarray | None = None, client=None) -> list[Case]:
    """Runs `cases` on the Dask `client` (a `distributed.Client`; None: in this process)
    and returns them in case order."""
    fmu = os.path.abspath(fmu)
    if client is None:
        return [run_case(fmu, c, stop_time, step, outputs, inputs) for c in cases]
    with open(fmu, "rb") as f:
        data = f.read()
    # Broadcast once: every worker gets the FMU's bytes, not its path.
    [shipped] = client.scatter([(hashlib.sha256(data).hexdigest(), data)], broadcast=True)
    futures = client.map(run_case, [shipped] * len(cases), cases,
                         stop_time=stop_time, step=step, outputs=outputs, inputs=inputs,
                         pure=False)
    done = client.gather(futures)
    return sorted(done, key=lambda c: c.index)


def to_csv(cases: list[Case], outputs: list[str]) -> str:
    """The rows of `hydromech sweep`: case, parameters, status, message, statistics."""
    names = list(cases[0].values) if cases else []
    quote = lambda s: '"' + s.replace('"', '""') + '"'  # noqa: E731
    lines = [",".join([quote("case")] + [quote(n) for n in names] + [quote("status"),
                      quote("message")] + [quote(f"{o}.{s}") for o in outputs for s in STATISTICS])]
    for c in cases:
        cells = [str(c.index)] + [repr(c.values[n]) for n in names] + [c.status, quote(c.message)]
        cells += [repr(v) for o in outputs for v in c.statistics[o]]
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("fmu")
    p.add_argument("--cases", required=True, help="the CSV of `hydromech sweep --cases-only`")
    p.add_argument("--stop-time", type=float, required=True)
    p.add_argument("--step", type=float)
    p.add_argument("--vars", required=True, help="summarized outputs, comma-separated")
    p.add_argument("--inputs", help="input schedule: CSV with `time` first (FMPy's format)")
    p.add_argument("--scheduler", help="the Dask scheduler's address (default: a LocalCluster)")
    p.add_argument("-o", "--output", required=True)
    a = p.parse_args(argv)
    from distributed import Client, LocalCluster

    cases = read_cases(a.cases)
    outputs = [v.strip() for v in a.vars.split(",")]
    inputs = None
    if a.inputs:
        from fmpy.util import read_csv

        inputs = read_csv(a.inputs)
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        client = Client(LocalCluster(processes=True, threads_per_worker=1))
    with client:
        done = run(a.fmu, cases, a.stop_time, outputs, step=a.step, inputs=inputs, client=client)
    with open(a.output, "w") as f:
        f.write(to_csv(done, outputs))
    failed = sum(c.status != "ok" for c in done)
    print(f"{a.output}  ({len(done)} cases, {failed} failed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

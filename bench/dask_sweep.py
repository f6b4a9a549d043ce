"""Benchmark: a sweep in-process vs. on a Dask LocalCluster (issue 55's target: per case and
core within 1.3× of the in-process sweep).

Run in a venv with the wheel and `hydromech[dask]` installed (tests/run.sh stage "wheel"
builds the wheel into target/wheels):

    python bench/dask_sweep.py fmus/patu-pvg32.fmu --cases 1000 --stop-time 10

Prints the wall times, the per-case-and-core times and their ratio, the cluster's start-up
separately (a user's cluster is running before a sweep), and whether the rows are equal bit
for bit. Median of --repeat runs of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import pandas as pd


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("fmu")
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--stop-time", type=float, default=10.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    import distributed

    import hydromech

    model = hydromech.Model(a.fmu)
    params = {"payload.mass": f"100..400:{a.cases}"}
    run = dict(stop_time=a.stop_time, outputs=["lift.angle", "lift_cylinder.p_cap"])
    cores = a.workers

    local_times, local = [], None
    for _ in range(a.repeat):
        began = time.perf_counter()
        local = model.sweep(params, threads=cores, **run)
        local_times.append(time.perf_counter() - began)
    began = time.perf_counter()
    with distributed.LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.wait_for_workers(a.workers)
        startup = time.perf_counter() - began
        dask_times, remote = [], None
        for _ in range(a.repeat):
            began = time.perf_counter()
            remote = model.sweep(params, client=client, **run)
            dask_times.append(time.perf_counter() - began)
    equal = True
    try:
        pd.testing.assert_frame_equal(local, remote, check_exact=True)
    except AssertionError:
        equal = False
    tl, td = statistics.median(local_times), statistics.median(dask_times)
    per = lambda t: 1e3 * t * cores / a.cases  # noqa: E731
    print(f"{a.cases} cases of {os.path.basename(a.fmu)}, {a.stop_time:g} s each, "
          f"{cores} cores, median of {a.repeat}:")
    print(f"  in-process, {cores} threads:         {tl:7.2f} s  {per(tl):6.1f} ms per case and core")
    print(f"  LocalCluster, {a.workers} worker processes: {td:7.2f} s  {per(td):6.1f} ms per case "
          f"and core  (cluster start {startup:.1f} s, not counted)")
    print(f"  ratio {td / tl:.2f}; first Dask run {dask_times[0]:.2f} s (ships and loads the "
          f"FMU); rows equal bit for bit: {equal}")


if __name__ == "__main__":
    main()

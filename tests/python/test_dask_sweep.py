"""`hydromech sweep` on a Dask cluster (issue 20): the cases written by
`hydromech sweep --cases-only`, run by python/hydromech on a `LocalCluster` of two worker
processes through FMPy, give exactly the rows the in-process sweep writes."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

import harness

sys.path.insert(0, str(harness.ROOT / "python" / "hydromech" / "src"))
import hydromech  # noqa: E402

OUTPUTS = ["lift_cylinder.p_cap", "lift.angle"]


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(text.splitlines()))


def test_a_local_cluster_gives_the_rows_of_the_in_process_sweep(tmp_path, report):
    distributed = pytest.importorskip("distributed")
    exe = harness.hydromech_or_skip()
    fmu = harness.FMU_DIR / "patu-pvg32.fmu"
    args = ["sweep", str(fmu), "--param", "payload.mass=100..400:6", "--stop-time", "1",
            "--vars", ",".join(OUTPUTS)]
    cases = tmp_path / "cases.csv"
    rust = tmp_path / "rust.csv"
    subprocess.run([str(exe), *args, "--cases-only", "-o", str(cases)], check=True)
    subprocess.run([str(exe), *args, "-o", str(rust)], check=True)

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        done = hydromech.run(str(fmu), hydromech.read_cases(str(cases)), 1.0, OUTPUTS,
                             client=client)
        workers = len(client.scheduler_info()["workers"])
    assert workers == 2
    ours = _rows(rust.read_text())
    theirs = _rows(hydromech.to_csv(done, OUTPUTS))
    assert ours[0] == theirs[0]
    assert len(ours) == len(theirs) == 7
    for a, b in zip(ours[1:], theirs[1:]):
        assert a[0] == b[0] and a[2:4] == b[2:4], (a, b)
        # Every number equal to the last bit (the text differs: Rust writes 1e-5, Python 1e-05).
        assert [float(x) for x in a[1:2] + a[4:]] == [float(x) for x in b[1:2] + b[4:]], (a, b)
    report(f"patu-pvg32, 6 payloads of 1 s: the LocalCluster's 2 worker processes (FMPy) give "
           f"the in-process sweep's rows bit for bit")

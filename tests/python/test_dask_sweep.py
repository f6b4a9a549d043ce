"""`hydromech sweep` on a Dask cluster (issue 20): the cases written by
`hydromech sweep --cases-only`, run by python/hydromech on a `LocalCluster` of two worker
processes through FMPy, give exactly the rows the in-process sweep writes."""

from __future__ import annotations

import csv
import os
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


SCHEDULE = "time,lift_valve.command\n0,5.8\n0.2,5.8\n0.5,5.0\n1,5.0\n"


def _lift_sweep(tmp_path):
    """The hydromech executable and a sweep of 4 payloads over 1 s of patu-pvg32 with the
    lift valve opening at 0.2-0.5 s."""
    exe = harness.hydromech_or_skip()
    fmu = harness.FMU_DIR / "patu-pvg32.fmu"
    schedule = tmp_path / "lift.csv"
    schedule.write_text(SCHEDULE)
    return exe, ["sweep", str(fmu), "--param", "payload.mass=150..300:4", "--stop-time", "1",
                 "--vars", ",".join(OUTPUTS), "--inputs", str(schedule)]


def test_the_dask_flag_runs_the_sweep_on_a_cluster(tmp_path, report):
    """`hydromech sweep --dask ADDRESS`: the Rust command checks the cases and hands them,
    with the FMU's bytes and the input schedule, to python/hydromech on the cluster; the
    rows equal the in-process sweep's."""
    distributed = pytest.importorskip("distributed")
    exe, args = _lift_sweep(tmp_path)
    rust, dask_rows = tmp_path / "rust.csv", tmp_path / "dask.csv"
    subprocess.run([str(exe), *args, "-o", str(rust)], check=True)
    env = dict(os.environ, HYDROMECH_PYTHON=sys.executable,
               PYTHONPATH=str(harness.ROOT / "python" / "hydromech" / "src"))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        run = subprocess.run([str(exe), *args, "--dask", cluster.scheduler_address,
                              "-o", str(dask_rows)], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    ours, theirs = _rows(rust.read_text()), _rows(dask_rows.read_text())
    assert ours[0] == theirs[0] and len(ours) == len(theirs) == 5
    for a, b in zip(ours[1:], theirs[1:]):
        assert a[2:4] == b[2:4] == ["ok", ""], (a, b)
        assert [float(x) for x in a[:2] + a[4:]] == [float(x) for x in b[:2] + b[4:]], (a, b)
    # The valve opened and the boom rose: a heavier payload needs a higher cap pressure and
    # rises less in this first second.
    start = 0.943554915 * 3.141592653589793 / 180
    angle_final = [float(r[ours[0].index("lift.angle.final")]) for r in ours[1:]]
    p_final = [float(r[ours[0].index("lift_cylinder.p_cap.final")]) for r in ours[1:]]
    assert all(a > start + 1e-3 for a in angle_final)
    assert angle_final == sorted(angle_final, reverse=True)
    assert p_final == sorted(p_final) and p_final[0] < p_final[-1]
    # A Parquet output is refused before anything runs.
    bad = subprocess.run([str(exe), *args, "--dask", "tcp://127.0.0.1:1", "-o",
                          str(tmp_path / "x.parquet")], env=env, capture_output=True, text=True)
    assert bad.returncode == 1 and "writes CSV" in bad.stderr, bad.stderr
    report(f"patu-pvg32, 4 payloads, lift valve opened: `--dask {cluster.scheduler_address}` "
           f"rows equal the in-process rows; rise in 1 s {angle_final[0] - start:.2e} rad "
           f"(150 kg) to {angle_final[-1] - start:.2e} rad (300 kg)")


def test_parquet_results_read_back_with_pyarrow(tmp_path, report):
    """`-o rows.parquet --trajectories traj.parquet`: Apache Arrow's reader sees the CSV's
    rows bit for bit, and every case's trajectory ends at its row's final value."""
    pq = pytest.importorskip("pyarrow.parquet")
    exe, args = _lift_sweep(tmp_path)
    subprocess.run([str(exe), *args, "-o", str(tmp_path / "rows.csv"), "--trajectories",
                    str(tmp_path / "traj.csv")], check=True)
    subprocess.run([str(exe), *args, "-o", str(tmp_path / "rows.parquet"), "--trajectories",
                    str(tmp_path / "traj.parquet")], check=True)
    rows = pq.read_table(tmp_path / "rows.parquet").to_pydict()
    csv_rows = _rows((tmp_path / "rows.csv").read_text())
    assert list(rows) == csv_rows[0]
    for k, line in enumerate(csv_rows[1:]):
        for name, cell in zip(csv_rows[0], line):
            v = rows[name][k]
            assert (v == cell) if isinstance(v, str) else (float(v) == float(cell)), name
    assert rows["status"] == ["ok"] * 4
    traj = pq.read_table(tmp_path / "traj.parquet").to_pydict()
    assert list(traj) == ["case", "time", *OUTPUTS]
    csv_traj = _rows((tmp_path / "traj.csv").read_text())
    assert len(traj["case"]) == len(csv_traj) - 1
    points = len(traj["case"]) // 4
    assert traj["case"] == [k for k in range(4) for _ in range(points)]
    for k in range(4):
        last = (k + 1) * points - 1
        for o in OUTPUTS:
            assert traj[o][last] == rows[f"{o}.final"][k]
            assert max(traj[o][k * points:last + 1]) == rows[f"{o}.max"][k]
    report(f"patu-pvg32, 4 payloads × {points} points: Parquet rows and trajectories read by "
           f"pyarrow equal the CSV's bit for bit; each trajectory's last point is its row's final")

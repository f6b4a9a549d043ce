"""`hydromech sweep -o rows.parquet --trajectories traj.parquet` (issue 20): Apache Arrow's
reader sees the CSV's rows bit for bit. The Dask tests moved to the wheel's suite
(tests/wheel/test_runs.py), where the `hydromech` package they need is installed."""

from __future__ import annotations

import csv
import subprocess

import pytest

import harness

OUTPUTS = ["lift_cylinder.p_cap", "lift.angle"]


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(text.splitlines()))


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

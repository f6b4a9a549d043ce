"""Runs from the wheel (issue 55): `hydromech.simulate` and `hydromech.sweep` give the
numbers of `hydromech simulate` and `hydromech sweep` to the last bit, in this process with
the GIL released, and on a Dask `LocalCluster` whose workers run the Rust engine; bad input
from Python is a Python exception with a message, never a crash.

The reference is the `hydromech` binary of the checkout (target/release/hydromech) on the
FMUs stage build-fmus built (fmus/)."""

from __future__ import annotations

import csv
import math
import os
import threading
import time

import numpy as np
import pandas as pd
import pytest

import hydromech
from test_wheel import BINARY, ROOT, run

FMU = ROOT / "fmus" / "patu-pvg32.fmu"
TOML = ROOT / "models" / "patu-pvg32.toml"
OUTPUTS = ["lift_cylinder.p_cap", "lift.angle"]
# The lift valve opens from 0.2 s to 0.5 s (a step at 0.2 s, held, a ramp down).
LIFT = {"time": [0.0, 0.2, 0.2, 0.5, 1.0, 2.0],
        "lift_valve.command": [0.0, 0.0, 5.8, 5.8, 5.0, 5.0]}


def _csv(path) -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(open(path, newline="")))
    return rows[0], rows[1:]


def _cli(*args, env_extra=None):
    r = run(str(BINARY), *map(str, args), env_extra=env_extra)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def lift_csv(tmp_path_factory):
    p = tmp_path_factory.mktemp("inputs") / "lift.csv"
    pd.DataFrame(LIFT).to_csv(p, index=False)
    return p


def test_simulate_equals_the_command_bit_for_bit(tmp_path, lift_csv, report):
    """The same run from the command and from Python, the inputs given as a CSV path, a
    dict, a DataFrame, a time-indexed DataFrame and a record array: every number equal."""
    out = tmp_path / "cli.csv"
    _cli("simulate", FMU, "--stop-time", 2, "--inputs", lift_csv, "--set",
         "payload.mass=250.0", "-o", out)
    header, rows = _csv(out)
    cli = np.array(rows, dtype=float)
    frame = pd.DataFrame(LIFT)
    forms = {"csv": lift_csv, "dict": LIFT, "frame": frame,
             "indexed": frame.set_index("time"), "records": frame.to_records(index=False)}
    model = hydromech.Model(FMU)
    for name, inputs in forms.items():
        df = model.simulate(2.0, inputs=inputs, parameters={"payload.mass": 250.0})
        assert list(df.columns) == header, name
        assert np.array_equal(df.to_numpy(), cli), name
    # The description itself (built in-process) gives the FMU's numbers.
    df = hydromech.simulate(TOML, 2.0, inputs=LIFT, parameters={"payload.mass": 250.0},
                            outputs=OUTPUTS)
    assert np.array_equal(df[OUTPUTS].to_numpy(), cli[:, [header.index(o) for o in OUTPUTS]])
    rec = model.simulate(2.0, inputs=LIFT, parameters={"payload.mass": 250.0}, frame="numpy")
    assert rec.dtype.names == tuple(header)
    assert np.array_equal(rec["lift.angle"], cli[:, header.index("lift.angle")])
    rise = np.degrees(df["lift.angle"].iloc[-1] - df["lift.angle"].iloc[0])
    assert rise > 0.1, "the valve opened: the boom rose"
    report(f"simulate: patu-pvg32 2 s, {len(cli)} rows × {len(header)} columns equal to "
           f"`hydromech simulate` bit for bit from 5 input forms and the description "
           f"(boom rose {rise:.2f}°)")


def test_the_gil_is_released_while_simulating(report):
    """Python threads run while a simulation steps, and two simulations on two threads
    give the numbers of one after the other."""
    model = hydromech.Model(FMU)
    alone = model.simulate(10.0, inputs=LIFT, outputs=OUTPUTS)
    spins, done = 0, threading.Event()
    results = [None, None]

    def work(k):
        results[k] = model.simulate(10.0, inputs=LIFT, outputs=OUTPUTS)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        spins += 1  # runs only while the simulations do not hold the GIL
    wall = time.perf_counter() - began
    for t in threads:
        t.join()
    for r in results:
        assert r.equals(alone)
    assert spins > 10_000, spins
    report(f"GIL released: {spins} loop turns of the main thread during two 10 s runs on two "
           f"threads ({wall:.2f} s); both equal the run alone")


def test_sweep_equals_the_command_bit_for_bit(tmp_path, lift_csv, report):
    out = tmp_path / "cli.csv"
    _cli("sweep", FMU, "--param", "payload.mass=150..300:4", "--param",
         "supply.p=150bar,180bar", "--stop-time", 1, "--vars", ",".join(OUTPUTS), "--inputs",
         lift_csv, "-o", out)
    header, rows = _csv(out)
    df = hydromech.sweep(FMU, {"payload.mass": "150..300:4", "supply.p": [150e5, 180e5]},
                         stop_time=1.0, outputs=OUTPUTS, inputs=LIFT, threads=2)
    assert list(df.columns) == header
    assert len(df) == len(rows) == 8
    for k, row in enumerate(rows):
        ours = df.iloc[k]
        assert [ours["status"], ours["message"]] == ["ok", ""] == row[3:5]
        assert [float(x) for x in row[:3] + row[5:]] == \
            [float(ours[c]) for c in header[:3] + header[5:]], k
    report(f"sweep: 8 cases of patu-pvg32 (payload × supply) equal `hydromech sweep` bit for "
           f"bit")


def test_a_local_cluster_gives_the_rows_of_the_in_process_sweep(report):
    """Dask workers run the cases with the Rust engine: the rows equal the in-process ones,
    the FMU's bytes shipped to each worker once."""
    distributed = pytest.importorskip("distributed")
    params = {"payload.mass": "100..400:12"}
    model = hydromech.Model(FMU)
    local = model.sweep(params, stop_time=1.0, outputs=OUTPUTS, inputs=LIFT)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = model.sweep(params, stop_time=1.0, outputs=OUTPUTS, inputs=LIFT,
                             client=client)
        pids = client.run(os.getpid)
        workers = len(client.scheduler_info()["workers"])
    assert workers == 2 and os.getpid() not in pids.values()
    pd.testing.assert_frame_equal(local, remote, check_exact=True)
    assert list(remote["case"]) == list(range(12))
    assert (remote["status"] == "ok").all()
    report("Dask: 12 cases on a LocalCluster of 2 worker processes (Rust engine) equal the "
           "in-process rows bit for bit")


def test_the_dask_flag_runs_the_sweep_on_a_cluster(tmp_path, lift_csv, report):
    """`hydromech sweep --dask ADDRESS` (the wheel's command): the command checks the cases
    and hands them with the FMU and the schedule to hydromech.dask_sweep; its CSV equals
    the in-process sweep's byte for byte, and Parquet is written too."""
    distributed = pytest.importorskip("distributed")
    args = ["sweep", str(FMU), "--param", "payload.mass=150..300:4", "--stop-time", "1",
            "--vars", ",".join(OUTPUTS), "--inputs", str(lift_csv)]
    inproc, dask_rows = tmp_path / "rust.csv", tmp_path / "dask.csv"
    assert run("hydromech", *args, "-o", str(inproc)).returncode == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        r = run("hydromech", *args, "--dask", cluster.scheduler_address, "-o", str(dask_rows))
        assert r.returncode == 0, r.stderr
        r = run("hydromech", *args, "--dask", cluster.scheduler_address, "-o",
                str(tmp_path / "dask.parquet"))
        assert r.returncode == 0, r.stderr
    assert dask_rows.read_bytes() == inproc.read_bytes()
    back = pd.read_csv(dask_rows)
    start = math.radians(0.943554915)
    angle = back["lift.angle.final"].to_numpy()
    assert (angle > start + 1e-3).all() and list(angle) == sorted(angle, reverse=True)
    assert (tmp_path / "dask.parquet").read_bytes()[:4] == b"PAR1"
    report(f"`hydromech sweep --dask`: the CSV equals the in-process one byte for byte; rise "
           f"in 1 s {angle[0] - start:.2e} rad (150 kg) to {angle[-1] - start:.2e} rad (300 kg)")


def test_bad_input_from_python_is_an_exception(tmp_path):
    model = hydromech.Model(FMU)
    bad = [
        (dict(stop_time="1"), TypeError, "stop_time must be a number"),
        (dict(stop_time=1.0, outputs=["lift.angel"]), KeyError, "did you mean 'lift.angle'"),
        (dict(stop_time=1.0, outputs=[3]), TypeError, "a variable name is a str"),
        (dict(stop_time=1.0, inputs={"time": [0, 1], "lift_valve.command": [0, math.nan]}),
         ValueError, "'lift_valve.command', row 1: nan is not a finite number"),
        (dict(stop_time=1.0, inputs={"time": [0, 1, 0.5], "lift_valve.command": [0, 1, 2]}),
         ValueError, "row 2: time 0.5 is earlier"),
        (dict(stop_time=1.0, inputs={"time": [0, 1], "lift_valve.command": [0]}),
         ValueError, "has 1 rows, 'time' 2"),
        (dict(stop_time=1.0, inputs={"time": [0, 1], "lift_valve.command": ["a", "b"]}),
         TypeError, "is not numeric"),
        (dict(stop_time=1.0, inputs={"lift_valve.command": [0, 1]}), ValueError,
         "no 'time' column"),
        (dict(stop_time=1.0, inputs={"time": [0, 1], "lift.angle": [0, 1]}), ValueError,
         "'lift.angle' is an output variable, not input"),
        (dict(stop_time=1.0, inputs=42), TypeError, "give a DataFrame"),
        (dict(stop_time=1.0, inputs=tmp_path / "missing.csv"), FileNotFoundError,
         "no such file"),
        (dict(stop_time=1.0, parameters={"payload.mass": math.inf}), ValueError,
         "must be a finite number"),
        (dict(stop_time=1.0, parameters={"lift.angle": 1.0}), ValueError,
         "not parameter or input"),
        (dict(stop_time=1.0, step=-1.0), ValueError, "must be a positive number"),
        (dict(stop_time=-1.0), ValueError, "must be a number after the start time"),
        (dict(stop_time=1.0, frame="excel"), ValueError, "frame must be"),
    ]
    for kwargs, kind, text in bad:
        with pytest.raises(kind) as e:
            model.simulate(**kwargs)
        assert text in str(e.value), (kwargs, str(e.value))
    (tmp_path / "bad.csv").write_text("time,lift_valve.command\n0,1\n1,x\n")
    with pytest.raises(ValueError, match=r"bad.csv: line 3: 'x' is not a number"):
        model.simulate(1.0, inputs=tmp_path / "bad.csv")
    with pytest.raises(FileNotFoundError):
        hydromech.Model(tmp_path / "nothing.fmu")
    (tmp_path / "junk.fmu").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="junk.fmu"):
        hydromech.Model(tmp_path / "junk.fmu")
    for params, kind, text in [({"payload.mass": "abc"}, ValueError, "params: --param"),
                               ({"payload.mass": [1, math.nan]}, ValueError, "finite"),
                               ({"payload.mass": "-5..-1:2"}, ValueError, "below the minimum 0"),
                               ({"nope": [1.0]}, ValueError, "no variable 'nope'"),
                               ({}, TypeError, "non-empty dict"),
                               ({"payload.mass": object()}, TypeError, "a sequence")]:
        with pytest.raises(kind) as e:
            model.sweep(params, stop_time=1.0)
        assert text in str(e.value), (params, str(e.value))
    # The interpreter is alive and the model still runs.
    assert len(model.simulate(0.1, outputs=OUTPUTS)) > 1


def test_python_prints_no_traceback_for_the_command_line(tmp_path):
    """The installed command: a bad argument is the command's message and exit code."""
    r = run("hydromech", "simulate", str(FMU), "--stop-time", "1", "--vars", "lift.angel",
            "-o", str(tmp_path / "x.csv"))
    assert r.returncode == 1 and "did you mean 'lift.angle'" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr

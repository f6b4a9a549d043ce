"""`hydromech.fit` (issue 55): the PATU PVG32 crane's lift fitted to its measurement from
Python gives the fitted description `hydromech fit -o` writes, byte for byte (its
provenance's command line aside), and a result
object with the values, standard errors and agreements."""

from __future__ import annotations

import math

import pytest

import hydromech
from test_wheel import BINARY, EPOCH, ROOT, run

MODEL = ROOT / "models" / "patu-pvg32.toml"
DATA = ROOT / "tests" / "data" / "patu-crane" / "patu_pvg32_lift_measured_27s_5ms.csv"
INPUTS = {"lift_valve.command": "U1_V", "tilt_valve.command": "U2_V", "supply.p": "pP_Pa",
          "tank.p": "pT_Pa"}
MAPS = {"lift.angle": "z1_deg[deg]", "lift_cylinder.p_cap": "p1_Pa[Pa]"}
WEIGHTS = {"lift.angle": "0.25deg", "lift_cylinder.p_cap": "1bar"}
FREE = {"lift_cylinder.friction.coulomb,lift_cylinder.friction.stiction": "0.5..6kN",
        "lift_boom.joint.initial": "-1..2deg"}


def test_fit_equals_the_command(tmp_path, monkeypatch, report):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH["SOURCE_DATE_EPOCH"])
    result = hydromech.fit(MODEL, DATA, time="t_s", free=FREE, maps=MAPS, inputs=INPUTS,
                           weights=WEIGHTS, window=(0, 14), threads=2, name="patu-fit")
    args = ["fit", str(MODEL), "--data", str(DATA), "--time", "t_s"]
    for flag, pairs in (("--map", MAPS), ("--input", INPUTS), ("--free", FREE),
                        ("--weight", WEIGHTS)):
        for k, v in pairs.items():
            args += [flag, f"{k}={v}"]
    out = tmp_path / "patu-fit.toml"
    r = run(str(BINARY), *args, "--window", "0..14", "--threads", "2", "-o", str(out),
            env_extra=EPOCH)
    assert r.returncode == 0, r.stderr
    # Byte for byte, but for the provenance's command line: the CLI's also names its
    # thread count and output file, which Python's call does not have.
    cli = out.read_text()
    assert f" --window 0..14 --threads 2 -o {out}\n" in cli
    assert result.description == cli.replace(f" --threads 2 -o {out}\n", "\n")
    assert result.summary in r.stdout
    # What the fit found: the friction and start angle moved, the angle follows better.
    assert result.names == list(FREE)
    assert all(lo <= v <= hi for v, lo, hi in zip(result.values, [500, math.radians(-1)],
                                                   [6000, math.radians(2)]))
    before, after = result.before["lift.angle"][0].rms, result.after["lift.angle"][0].rms
    assert after < before
    assert result.cost < result.cost_start
    assert all(math.isfinite(s) and s > 0 for s in result.std_errors)
    assert result.correlation.shape == (2, 2) and result.correlation[0, 0] == pytest.approx(1)
    report(f"fit: 2 free fields of patu-pvg32 to the measured lift: the description equals "
           f"`hydromech fit -o` byte for byte; lift angle RMS over 0-14 s "
           f"{math.degrees(before):.2f}° → {math.degrees(after):.2f}° "
           f"({result.simulations} simulations)")


def test_fit_refuses_what_the_command_refuses(tmp_path):
    with pytest.raises(ValueError, match="fit needs the description"):
        hydromech.fit(ROOT / "fmus" / "patu-pvg32.fmu", DATA, free=FREE, maps=MAPS)
    with pytest.raises(ValueError, match="lift_cylinder.bor"):
        hydromech.fit(MODEL, DATA, time="t_s", free={"lift_cylinder.bor": "0.05..0.1"},
                      maps=MAPS, inputs=INPUTS)
    with pytest.raises(ValueError, match="z9_deg"):
        hydromech.fit(MODEL, DATA, time="t_s", free=FREE, maps={"lift.angle": "z9_deg[deg]"},
                      inputs=INPUTS)
    with pytest.raises(TypeError, match="free must be a dict"):
        hydromech.fit(MODEL, DATA, free=["x"], maps=MAPS)
    with pytest.raises(FileNotFoundError):
        hydromech.fit(MODEL, tmp_path / "none.csv", free=FREE, maps=MAPS)

"""Identification from Python: :func:`fit` is ``hydromech fit`` (the same checks, the same
Levenberg–Marquardt on the same worker threads, the same fitted description)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from .api import _path, check


@dataclass(frozen=True)
class Errors:
    """A channel's errors over a span (SI): RMS, largest, and when the largest occurred."""

    rms: float
    max: float
    at: float


@dataclass(frozen=True)
class FitResult:
    """A fit's outcome: per free field its fitted ``values``, ``std_errors`` (NaN at a bound
    or when not identifiable) and ``correlation``; the cost ½·Σr² before and after; per
    channel the agreement over the fit ``window`` and the hold-out, with the start values
    (``before``) and the fitted ones (``after``); ``description`` the fitted TOML text."""

    names: list[str]
    start: list[float]
    values: list[float]
    std_errors: list[float]
    at_bound: list[bool]
    correlation: np.ndarray
    cost_start: float
    cost: float
    simulations: int
    termination: str
    channels: list[str]
    window: tuple[float, float]
    before: dict[str, tuple[Errors, Errors]]
    after: dict[str, tuple[Errors, Errors]]
    summary: str
    description: str

    @property
    def fitted(self) -> dict[str, float]:
        """``{field: fitted value}``."""
        return dict(zip(self.names, self.values))

    def __str__(self) -> str:
        return self.summary

    def write(self, path: str | os.PathLike) -> Path:
        """Writes the fitted description (as ``hydromech fit -o``)."""
        p = Path(path)
        p.write_text(self.description)
        return p


def _pairs(what: str, given) -> list[str]:
    """``{"a": "b"}`` → ``["a=b"]``: the command line's ``NAME=VALUE`` arguments."""
    if given is None:
        return []
    if not isinstance(given, Mapping):
        raise TypeError(f"{what} must be a dict, not {type(given).__name__}")
    out = []
    for k, v in given.items():
        if not isinstance(k, str) or not isinstance(v, (str, int, float)) \
                or isinstance(v, bool):
            raise TypeError(f"{what}: {k!r}: give names and values as str (a value may carry "
                            f"a unit, e.g. \"0.5..6kN\")")
        out.append(f"{k}={v}")
    return out


def fit(model: str | os.PathLike, data: str | os.PathLike, *,
        free: Mapping[str, str], maps: Mapping[str, str],
        inputs: Mapping[str, str] | None = None, time: str | None = None,
        weights: Mapping[str, str] | None = None,
        window: tuple[float, float] | None = None, step: float | None = None,
        threads: int | None = None, max_simulations: int = 400,
        name: str | None = None) -> FitResult:
    """Fits the ``free`` fields of the description ``model`` to the record ``data`` (a CSV)
    as ``hydromech fit`` does; the arguments are its options as dicts:
    ``free={"field": "LOW..HIGH"}``, ``maps={"output": "column[unit]"}``,
    ``inputs={"input": "column[unit]"}``, ``weights={"output": "sigma"}``, ``window=(from,
    to)`` in seconds. Raises ``ValueError`` for anything the command refuses (an unknown
    field or column, bounds that do not hold the start value, a record off the model's
    communication grid).

    >>> r = hydromech.fit(
    ...     "models/patu-pvg32.toml",
    ...     "tests/data/patu-crane/patu_pvg32_lift_measured_27s_5ms.csv", time="t_s",
    ...     free={"lift_boom.joint.initial": "-1..2deg"},
    ...     maps={"lift.angle": "z1_deg[deg]"},
    ...     inputs={"lift_valve.command": "U1_V", "tilt_valve.command": "U2_V",
    ...             "supply.p": "pP_Pa", "tank.p": "pT_Pa"},
    ...     window=(0, 14))
    >>> r.fitted, r.std_errors
    """
    from . import _native

    m = _path(model, "model")
    if m.suffix != ".toml":
        raise ValueError(f"{m}: fit needs the description (.toml): it moves its fields")
    check(m)
    d = _path(data, "data")
    free_, maps_ = _pairs("free", free), _pairs("maps", maps)
    inputs_, weights_ = _pairs("inputs", inputs), _pairs("weights", weights)
    if not free_ or not maps_:
        raise ValueError("fit needs at least one free field and one mapped channel")
    if window is not None:
        window = (float(window[0]), float(window[1]))
    if threads is None:
        threads = os.cpu_count() or 1
    # The command line `hydromech fit` would be given: the fitted file's provenance,
    # quoted as the command quotes its own.
    argv = ["hydromech", "fit", str(m), "--data", str(d)]
    if time is not None:
        argv += ["--time", time]
    for flag, pairs in (("--map", maps_), ("--input", inputs_), ("--free", free_),
                        ("--weight", weights_)):
        for p in pairs:
            argv += [flag, p]
    if window is not None:
        argv += ["--window", f"{window[0]:g}..{window[1]:g}"]
    if step is not None:
        argv += ["--step", f"{step:g}"]
    raw = _native.fit(str(m), str(d), free_, maps_, inputs_, " ".join(f"'{x}'" if " " in x else x for x in argv), time=time,
                      weights=weights_, window=window,
                      step=None if step is None else float(step), threads=int(threads),
                      max_simulations=int(max_simulations), name=name)

    def agreement(spans):
        window_, holdout = spans
        return {c: (Errors(*w), Errors(*h))
                for c, w, h in zip(raw["channels"], window_, holdout)}

    return FitResult(
        names=raw["names"], start=raw["start"], values=raw["values"],
        std_errors=raw["std_errors"], at_bound=raw["at_bound"],
        correlation=np.array(raw["correlation"]), cost_start=raw["cost_start"],
        cost=raw["cost"], simulations=raw["simulations"], termination=raw["termination"],
        channels=raw["channels"], window=tuple(raw["window"]),
        before=agreement(raw["before"]), after=agreement(raw["after"]),
        summary=raw["summary"], description=raw["description"])


__all__ = ["Errors", "FitResult", "fit"]

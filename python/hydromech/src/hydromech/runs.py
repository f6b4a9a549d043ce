"""Runs from Python: :class:`Model`, :func:`simulate` and :func:`sweep` step the FMU
through its own C ABI with the engine of ``hydromech simulate`` and ``hydromech sweep``
(compiled into ``hydromech._native``), in this process and with the GIL released — the
numbers equal the command's to the last bit, and threads run in parallel.

Names and types are checked here first, so that a slip reads as a Python error with a
suggestion (``outputs: the model has no variable 'lift.angel'; did you mean 'lift.angle'?``).
"""

from __future__ import annotations

import difflib
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Mapping, Sequence

import numpy as np

from .api import _path, check
from .errors import SimulationError

Frame = Literal["pandas", "numpy", None]


@dataclass(frozen=True)
class Variable:
    """A variable of the FMU: ``causality`` is ``parameter``, ``input``, ``output``, ``local``
    …, ``type`` ``Real``, ``Integer``, ``Boolean`` …; ``unit`` the SI unit."""

    name: str
    causality: str
    variability: str
    type: str
    unit: str | None
    start: float | None
    min: float | None
    max: float | None


class Model:
    """An FMU loaded once, for many runs; a description (``.toml``) is checked and built
    into a temporary FMU first (its errors raised as :class:`DescriptionError`).

    >>> crane = hydromech.Model("models/patu-pvg32.toml")
    >>> crane.inputs
    ['lift_valve.command', 'tilt_valve.command', 'supply.p', 'tank.p']
    >>> crane.simulate(stop_time=1.0, outputs=["lift.angle"]).tail(1)
    """

    def __init__(self, path: str | os.PathLike):
        from . import _native

        p = _path(path, "model")
        if p.suffix == ".toml":
            check(p)
        elif p.suffix != ".fmu":
            raise ValueError(f"{p}: a model is a description (.toml) or an FMU (.fmu)")
        self.path = p
        self._native = _native.Model(str(p))
        self.variables = {v[0]: Variable(*v) for v in self._native.variables()}
        self.start_time, self.stop_time, self.step = self._native.default_experiment

    def __repr__(self) -> str:
        return f"hydromech.Model({str(self.path)!r})"

    def _names(self, causality: str) -> list[str]:
        return [v.name for v in self.variables.values()
                if v.causality == causality and v.type == "Real"]

    @property
    def inputs(self) -> list[str]:
        """The Real inputs, in the FMU's order."""
        return self._names("input")

    @property
    def outputs(self) -> list[str]:
        """The Real outputs (recorded by default), in the FMU's order."""
        return self._names("output")

    @property
    def parameters(self) -> list[str]:
        """The Real parameters (settable before a run)."""
        return self._names("parameter")

    @property
    def fmu_path(self) -> Path:
        """The FMU file (for a description: built into a temporary folder)."""
        return Path(self._native.fmu_path)

    def variable(self, name: str, what: str, causalities: tuple[str, ...] = ()) -> Variable:
        """The Real variable ``name``, or a ``KeyError``/``ValueError`` saying what is wrong
        (``what``: where the name came from)."""
        if not isinstance(name, str):
            raise TypeError(f"{what}: a variable name is a str, not {type(name).__name__}")
        v = self.variables.get(name)
        if v is None:
            close = difflib.get_close_matches(name, list(self.variables), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else \
                " (Model.variables lists them)"
            raise KeyError(f"{what}: the model has no variable {name!r}{hint}")
        if v.type != "Real":
            raise ValueError(f"{what}: {name!r} is a {v.type} variable; only Real variables "
                             f"are supported")
        if causalities and v.causality not in causalities:
            raise ValueError(f"{what}: {name!r} is an {v.causality} variable, not "
                             f"{' or '.join(causalities)}")
        return v

    def _outputs(self, outputs) -> list[str]:
        if outputs is None:
            return []
        if isinstance(outputs, str):
            outputs = [outputs]
        return [self.variable(n, "outputs").name for n in outputs]

    def _stop(self, stop_time) -> float:
        if stop_time is None:
            if self.stop_time is None:
                raise ValueError("stop_time: the FMU has no default stop time; give one")
            return float(self.stop_time)
        return _number(stop_time, "stop_time")

    def _inputs(self, inputs):
        if inputs is None:
            return None
        names, time, values = _schedule(inputs)
        for n in names:
            self.variable(n, "inputs", ("input",))
        return names, time, values

    def simulate(self, stop_time: float | None = None, *, inputs=None,
                 parameters: Mapping[str, float] | None = None,
                 outputs: Sequence[str] | None = None, start_time: float | None = None,
                 step: float | None = None, frame: Frame = None):
        """Runs the model from ``start_time`` (default: the FMU's) to ``stop_time`` as
        ``hydromech simulate`` does, and returns the recorded ``outputs`` (default: every
        Real output) at every communication point — a pandas DataFrame with a ``time``
        column (``frame="numpy"``: a NumPy record array; default pandas when installed).

        ``inputs``: a DataFrame or dict with a ``time`` column (or a DataFrame indexed by
        time), a NumPy record array as FMPy's, or the path of an inputs CSV; linear between
        rows, a repeated time is a step. ``parameters``: ``{name: value}`` in SI units, set
        before initialization. Raises :class:`SimulationError` (with the rows up to it)
        when a step fails.

        >>> lift = {"time": [0, 0.2, 0.5, 1], "lift_valve.command": [5.8, 5.8, 5.0, 5.0]}
        >>> df = hydromech.simulate("models/patu-pvg32.toml", 1.0, inputs=lift)
        """
        set_ = []
        for name, value in (parameters or {}).items():
            self.variable(name, "parameters", ("parameter", "input"))
            set_.append((name, _number(value, f"parameters[{name!r}]", finite=True)))
        raw = self._native.simulate(
            self._stop(stop_time),
            None if start_time is None else _number(start_time, "start_time"),
            None if step is None else _number(step, "step"),
            set_, self._inputs(inputs), self._outputs(outputs))
        columns = {"time": raw["time"]}
        for j, name in enumerate(raw["names"]):
            columns[name] = raw["values"][:, j]
        table = _frame(columns, frame)
        if raw["error"] is not None:
            raise SimulationError(raw["error"], table)
        return table

    def sweep(self, params: Mapping[str, str | Sequence[float] | float], *,
              stop_time: float | None = None, inputs=None,
              outputs: Sequence[str] | None = None, step: float | None = None,
              samples: int | None = None, distribution: Literal["uniform", "lhs"] = "uniform",
              seed: int = 0, threads: int | None = None, client=None,
              frame: Frame = None):
        """Runs a case per combination of the ``params`` values (or ``samples`` random
        draws) as ``hydromech sweep`` does and returns its rows: ``case``, the parameters,
        ``status`` (``ok``/``failed``), ``message``, and ``<output>.final``, ``.min``,
        ``.max``, ``.rms`` per recorded output.

        A parameter's values: a string in ``--param``'s syntax (``"100..400:6"``,
        ``"150..200bar:3"``, ``"normal(211, 21)"``), a sequence of numbers, or one number.
        In this process the cases run on ``threads`` threads (default: every core) and a
        description's fields may be swept too; with ``client`` (a ``distributed.Client``)
        they run on its workers, the FMU's bytes shipped to each once — rows equal to the
        in-process ones to the last bit.

        >>> rows = hydromech.sweep("fmus/patu-pvg32.fmu", {"payload.mass": "100..400:6"},
        ...                        stop_time=1.0, outputs=["lift.angle"])
        """
        specs = _params(params)
        common = dict(stop_time=self._stop(stop_time),
                      step=None if step is None else _number(step, "step"),
                      inputs=self._inputs(inputs), vars=self._outputs(outputs))
        if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int)
                                    or samples < 1):
            raise ValueError(f"samples must be a positive int, is {samples!r}")
        if client is not None:
            from .dask_sweep import run_on

            names, cases = self._native.cases(specs, samples, distribution, int(seed))
            columns = run_on(client, self, names, cases, **common)
        else:
            if threads is None:
                threads = os.cpu_count() or 1
            columns = self._native.sweep(specs, samples=samples, distribution=distribution,
                                         seed=int(seed), threads=int(threads), **common)
            columns = {k: v for k, v in columns.items() if not k.startswith("__")}
        return _frame(columns, frame)


def simulate(model: str | os.PathLike | Model, stop_time: float | None = None, **options):
    """:meth:`Model.simulate` of ``model`` (a path to an ``.fmu`` or ``.toml``, or a
    :class:`Model`)."""
    return (model if isinstance(model, Model) else Model(model)).simulate(stop_time, **options)


def sweep(model: str | os.PathLike | Model, params, **options):
    """:meth:`Model.sweep` of ``model`` (a path to an ``.fmu`` or ``.toml``, or a
    :class:`Model`)."""
    return (model if isinstance(model, Model) else Model(model)).sweep(params, **options)


def _number(x, what: str, finite: bool = False) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a number, not {type(x).__name__}")
    x = float(x)
    if finite and not math.isfinite(x):
        raise ValueError(f"{what} must be a finite number, is {x}")
    return x


def _params(params) -> list[tuple[str, object]]:
    if not isinstance(params, Mapping) or not params:
        raise TypeError("params must be a non-empty dict {name: values}")
    out = []
    for name, spec in params.items():
        if not isinstance(name, str):
            raise TypeError(f"params: a name is a str, not {type(name).__name__}")
        if isinstance(spec, str):
            out.append((name, spec))
            continue
        values = np.atleast_1d(np.asarray(spec))
        if values.ndim != 1 or not np.issubdtype(values.dtype, np.number) \
                or np.issubdtype(values.dtype, np.bool_):
            raise TypeError(f"params[{name!r}]: give a str such as \"100..400:6\", a number "
                            f"or a sequence of numbers")
        values = values.astype(float)
        if not np.all(np.isfinite(values)):
            raise ValueError(f"params[{name!r}]: the values must be finite numbers")
        out.append((name, values.tolist()))
    return out


def _column(values, what: str) -> np.ndarray:
    try:
        # A copy: a record array's field or a frame's column may be strided.
        a = np.array(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"inputs: column {what!r} is not numeric") from None
    if a.ndim != 1:
        raise ValueError(f"inputs: column {what!r} is not one-dimensional")
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        raise ValueError(f"inputs: column {what!r}, row {bad[0]}: {a[bad[0]]} is not a finite "
                         f"number")
    return a


def _schedule(inputs):
    """``(names, time, values[row, column])`` of any form of input schedule."""
    from . import _native

    if isinstance(inputs, (str, os.PathLike)):
        return _native.read_inputs(os.fspath(_path(inputs, "inputs")))
    columns: dict
    if isinstance(inputs, np.ndarray) and inputs.dtype.names:
        columns = {n: inputs[n] for n in inputs.dtype.names}
    elif isinstance(inputs, Mapping):
        columns = dict(inputs)
    elif hasattr(inputs, "columns") and hasattr(inputs, "index"):  # a pandas DataFrame
        columns = {str(c): inputs[c].to_numpy() for c in inputs.columns}
        if "time" not in columns and getattr(inputs.index, "name", None) == "time":
            columns = {"time": inputs.index.to_numpy(), **columns}
    else:
        raise TypeError("inputs: give a DataFrame, a dict of columns, a NumPy record array or "
                        f"the path of a CSV, not {type(inputs).__name__}")
    if "time" not in columns:
        raise ValueError("inputs: no 'time' column (a DataFrame may instead be indexed by "
                         "'time')")
    time = _column(columns.pop("time"), "time")
    if time.size == 0:
        raise ValueError("inputs: no rows")
    back = np.flatnonzero(np.diff(time) < 0)
    if back.size:
        k = back[0] + 1
        raise ValueError(f"inputs: row {k}: time {time[k]} is earlier than the row before; "
                         "times must not decrease")
    names = [str(n) for n in columns]
    table = np.empty((time.size, len(names)))
    for j, n in enumerate(names):
        c = _column(columns[n], n)
        if c.size != time.size:
            raise ValueError(f"inputs: column {n!r} has {c.size} rows, 'time' {time.size}")
        table[:, j] = c
    return names, time, table


def _frame(columns: dict, frame: Frame):
    """A pandas DataFrame of the columns (``frame="numpy"``, or pandas not installed: a
    NumPy record array)."""
    if frame not in ("pandas", "numpy", None):
        raise ValueError(f"frame must be 'pandas' or 'numpy', is {frame!r}")
    if frame != "numpy":
        try:
            import pandas as pd
        except ImportError:
            if frame == "pandas":
                raise
        else:
            return pd.DataFrame(columns)
    arrays = [np.asarray(v) for v in columns.values()]
    return np.rec.fromarrays(arrays, names=list(columns))


__all__ = ["Model", "Variable", "simulate", "sweep"]

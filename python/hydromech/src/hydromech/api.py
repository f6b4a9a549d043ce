"""The compiler from Python: :func:`check` and :func:`build` run the same library as the
``hydromech`` command (``hydromech._native``), in this process, with the GIL released."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Literal

from .errors import DescriptionError, Diagnostic, diagnostics_of


@dataclass(frozen=True)
class CheckReport:
    """What ``hydromech check`` prints of a description that compiles.

    >>> import hydromech
    >>> r = hydromech.check("models/naya-rod.toml")
    >>> r.coordinates, r.bodies
    (1, 1)
    """

    path: str
    headline: str
    report: str
    bodies: int
    coordinates: int
    variables: int
    warnings: list[Diagnostic] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.path}: ok ({self.headline})\n{self.report}"


def _path(path: str | os.PathLike, what: str) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a path (str or os.PathLike), not {type(path).__name__}")
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such file")
    return p


def check(path: str | os.PathLike) -> CheckReport:
    """Checks a machine description as ``hydromech check`` does.

    Returns a :class:`CheckReport` (with its warnings); raises :class:`DescriptionError`
    with the first error's ``file``, ``line``, ``column``, ``message`` and ``help`` (and
    all of them in ``diagnostics``) when the description does not compile or one of its
    ``[report]`` files is wrong.

    >>> hydromech.check("broken.toml")
    Traceback (most recent call last):
    hydromech.errors.DescriptionError: broken.toml:12:9: unknown body "bom" ...
    """
    from . import _native

    p = _path(path, "path")
    raw = _native.check(str(p))
    diagnostics = diagnostics_of(raw["diagnostics"])
    if not raw["compiled"] or any(d.severity == "error" for d in diagnostics):
        raise DescriptionError(diagnostics)
    return CheckReport(path=str(p), headline=raw["headline"], report=raw["report"],
                       bodies=raw["bodies"], coordinates=raw["coordinates"],
                       variables=raw["variables"], warnings=diagnostics)


def build(path: str | os.PathLike, out: str | os.PathLike = "fmus", *,
          fmi: Literal[2, 3] = 2, interface: Literal["cs", "me", "both"] = "cs",
          platforms: Iterable[str] = (), deny_warnings: bool = False) -> Path:
    """Builds the FMU of a description into the folder ``out`` and returns its path, as
    ``hydromech build`` does (``fmi``: 2 or 3; ``interface``: Co-Simulation ``"cs"``,
    Model Exchange ``"me"`` or ``"both"``; ``platforms``: e.g. ``["linux64", "win64"]``,
    empty for every platform the package carries).

    >>> fmu = hydromech.build("models/patu-crane.toml", "fmus", fmi=3)
    >>> fmu.name
    'patu-crane.fmu'
    """
    from . import _native

    p = _path(path, "path")
    if fmi not in (2, 3) or isinstance(fmi, bool):
        raise ValueError(f"fmi must be 2 or 3, is {fmi!r}")
    if interface not in ("cs", "me", "both"):
        raise ValueError(f"interface must be 'cs', 'me' or 'both', is {interface!r}")
    if isinstance(platforms, str):
        platforms = [platforms]
    raw = _native.build(str(p), os.fspath(out), fmi, interface, [str(x) for x in platforms],
                        bool(deny_warnings))
    if raw["fmu"] is None:
        raise DescriptionError(diagnostics_of(raw["diagnostics"]))
    return Path(raw["fmu"])


def version() -> str:
    """The compiler's version and the platforms whose FMU runtimes it carries."""
    from . import _native

    return _native.version()

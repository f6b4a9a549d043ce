"""What the Python API raises: a description's errors with their place in the file."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One error or warning of a description: what is wrong, how to fix it, and where
    (``line`` and ``column`` 1-based; ``None`` when it has no place in the file)."""

    severity: str
    message: str
    help: str
    file: str
    line: int | None
    column: int | None
    rendered: str

    def __str__(self) -> str:
        return self.rendered


class HydromechError(Exception):
    """Base class of hydromech's exceptions."""


class DescriptionError(HydromechError, ValueError):
    """A description that does not compile (or, with ``deny_warnings``, has warnings).

    ``file``, ``line``, ``column``, ``message`` and ``help`` are the first error's;
    ``diagnostics`` holds all of them, warnings included, in file order."""

    def __init__(self, diagnostics: list[Diagnostic]):
        errors = [d for d in diagnostics if d.severity == "error"] or diagnostics
        first = errors[0]
        self.diagnostics = diagnostics
        self.file, self.line, self.column = first.file, first.line, first.column
        self.message, self.help = first.message, first.help
        where = f"{first.file}:{first.line}:{first.column}" if first.line else first.file
        count = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"{where}: {first.message}{count}\nhelp: {first.help}")


def diagnostics_of(raw: list[dict]) -> list[Diagnostic]:
    return [Diagnostic(**d) for d in raw]


class SimulationError(HydromechError, RuntimeError):
    """A run that stopped before its stop time (a step the solver could not take).

    ``results`` holds the rows up to the failure (as :func:`hydromech.simulate` returns
    them), ``reason`` the FMU's message."""

    def __init__(self, reason: str, results):
        self.reason, self.results = reason, results
        super().__init__(reason)

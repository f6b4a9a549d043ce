"""hydromech from Python: compile machine descriptions into FMUs (:func:`check`,
:func:`build`), and run `hydromech sweep` cases on a Dask cluster (:mod:`hydromech.sweep`:
:func:`run`, :func:`read_cases`, :func:`to_csv`).

The ``hydromech`` command installed with the package is the same command line as the
``cargo install``ed binary (docs/python.md).
"""

from .api import CheckReport, build, check, version
from .errors import DescriptionError, Diagnostic, HydromechError

__all__ = ["CheckReport", "DescriptionError", "Diagnostic", "HydromechError", "build", "check",
           "version", "Case", "read_cases", "run", "to_csv"]


def __getattr__(name):
    # The Dask side needs FMPy and dask (the `dask` extra); imported when first used.
    if name in ("Case", "read_cases", "run", "to_csv"):
        from . import sweep

        return getattr(sweep, name)
    raise AttributeError(f"module 'hydromech' has no attribute {name!r}")

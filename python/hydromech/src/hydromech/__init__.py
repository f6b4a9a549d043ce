"""hydromech from Python: compile machine descriptions into FMUs (:func:`check`,
:func:`build`), run them with the Rust engine (:class:`Model`, :func:`simulate`,
:func:`sweep` — on a Dask cluster with ``client=``) and fit them to measurements
(:func:`fit`).

The ``hydromech`` command installed with the package is the same command line as the
``cargo install``ed binary (docs/python.md).
"""

from .api import CheckReport, build, check, version
from .errors import DescriptionError, Diagnostic, HydromechError, SimulationError
from .fitting import Errors, FitResult, fit
from .runs import Model, Variable, simulate, sweep

__all__ = ["CheckReport", "DescriptionError", "Diagnostic", "Errors", "FitResult",
           "HydromechError", "Model", "SimulationError", "Variable", "build", "check", "fit",
           "simulate", "sweep", "version"]

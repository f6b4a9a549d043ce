"""hydromech on a cluster: the cases of `hydromech sweep` run by Dask workers.

`hydromech sweep --cases-only` writes the cases (a grid or random draws, checked against
the FMU); :func:`hydromech.sweep.run` runs them on any Dask cluster and returns the same
rows `hydromech sweep` writes when it runs them in-process (see docs/sweeps.md).
"""

from .sweep import Case, read_cases, run, to_csv

__all__ = ["Case", "read_cases", "run", "to_csv"]

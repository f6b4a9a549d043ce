"""The `hydromech` command installed with the wheel: the same command line as the binary
(`cargo install`), run by the compiled module in this process."""

import sys


def main() -> None:
    import os

    from . import _native

    # `hydromech sweep --dask` hands the cases to this Python's hydromech.dask_sweep.
    os.environ.setdefault("HYDROMECH_PYTHON", sys.executable)
    sys.exit(_native.main(["hydromech", *sys.argv[1:]]))


if __name__ == "__main__":
    main()

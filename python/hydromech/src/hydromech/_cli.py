"""The `hydromech` command installed with the wheel: the same command line as the binary
(`cargo install`), run by the compiled module in this process."""

import sys


def main() -> None:
    from . import _native

    sys.exit(_native.main(["hydromech", *sys.argv[1:]]))


if __name__ == "__main__":
    main()

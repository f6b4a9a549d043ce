"""Every Linux binary of every FMU this run built loads on glibc 2.17 (issue 54, item 1).

The check `auditwheel` makes of a manylinux2014 wheel, made of FMUs: the versions of the
glibc symbols a binary imports (`objdump -T`: `GLIBC_2.14`, ...) are at most 2.17, and the
libraries it needs (`objdump -p`: NEEDED) are the system's own: libc, libm, libdl,
libpthread, librt, libgcc_s and the dynamic loader itself. A binary linked against this
machine's glibc imports `GLIBC_2.34` symbols (pthread_key_create, dladdr) and fails here.

FMUs: `fmus/**` (Co-Simulation, Model Exchange, both, FMI 3.0, split halves, estimators)
and the supplier package `target/package/**`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

import harness

BASELINE = (2, 17)
# The platform folders of Linux binaries: FMI 2.0 linux64, FMI 3.0 x86_64-linux, and
# aarch64-linux (both versions).
LINUX = ("binaries/linux64/", "binaries/x86_64-linux/", "binaries/aarch64-linux/")
SYSTEM_LIBRARIES = {
    "libc.so.6",
    "libm.so.6",
    "libdl.so.2",
    "libpthread.so.0",
    "librt.so.1",
    "libgcc_s.so.1",
    # The dynamic loader (the binary's interpreter on every glibc system).
    "ld-linux-x86-64.so.2",
    "ld-linux-aarch64.so.1",
}


def all_fmus() -> list[Path]:
    roots = [harness.FMU_DIR, harness.ROOT / "target" / "package"]
    return sorted(p for r in roots if r.is_dir() for p in r.rglob("*.fmu"))


def glibc_versions(objdump_t: str) -> set[tuple[int, ...]]:
    """The `GLIBC_x.y[.z]` versions of the dynamic symbols in `objdump -T` output."""
    return {
        tuple(int(n) for n in m.group(1).split("."))
        for m in re.finditer(r"\bGLIBC_(\d+(?:\.\d+)+)\b", objdump_t)
    }


def needed(objdump_p: str) -> set[str]:
    return set(re.findall(r"^\s*NEEDED\s+(\S+)", objdump_p, re.M))


def test_the_version_reader_sees_what_a_new_glibc_binary_imports():
    sample = """
0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.34) pthread_key_create
0000000000000000  w   DF *UND*  0000000000000000 (GLIBC_2.2.5) __cxa_finalize
0000000000000000      DF *UND*  0000000000000000  GLIBC_2.14  memcpy
"""
    assert glibc_versions(sample) == {(2, 34), (2, 2, 5), (2, 14)}
    assert max(glibc_versions(sample)) > BASELINE
    assert needed("  NEEDED               libc.so.6\n  NEEDED  libfoo.so\n") == {
        "libc.so.6",
        "libfoo.so",
    }


def test_every_linux_binary_needs_at_most_glibc_2_17(report):
    objdump = shutil.which("objdump")
    assert objdump, "objdump (binutils) is needed: tests/run.sh installs it"
    fmus = all_fmus()
    assert fmus, f"no FMUs under {harness.FMU_DIR}: build them first (tests/run.sh)"
    problems, checked, newest = [], 0, (0,)
    with tempfile.TemporaryDirectory() as tmp:
        for fmu in fmus:
            with zipfile.ZipFile(fmu) as z:
                names = [n for n in z.namelist() if n.startswith(LINUX) and n.endswith(".so")]
                for n in names:
                    path = Path(z.extract(n, tmp))
                    t = subprocess.run([objdump, "-T", path], capture_output=True, text=True, check=True)
                    p = subprocess.run([objdump, "-p", path], capture_output=True, text=True, check=True)
                    versions = glibc_versions(t.stdout)
                    checked += 1
                    where = f"{fmu.relative_to(harness.ROOT) if fmu.is_relative_to(harness.ROOT) else fmu}:{n}"
                    if not versions:
                        problems.append(f"{where}: no GLIBC symbol versions read (not a glibc binary?)")
                        continue
                    newest = max(newest, max(versions))
                    above = sorted(v for v in versions if v > BASELINE)
                    if above:
                        shown = ", ".join("GLIBC_" + ".".join(map(str, v)) for v in above)
                        problems.append(f"{where}: imports {shown} (above GLIBC_2.17)")
                    extra = needed(p.stdout) - SYSTEM_LIBRARIES
                    if extra:
                        problems.append(f"{where}: needs {sorted(extra)} beyond the system libraries")
                    path.unlink()
    report(
        f"glibc baseline: {checked} Linux binaries in {len(fmus)} FMUs, newest symbol version "
        f"GLIBC_{'.'.join(map(str, newest))} (limit GLIBC_2.17)"
    )
    assert checked > 0, "no Linux binary in any FMU"
    assert not problems, "\n".join(problems)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-v"]))

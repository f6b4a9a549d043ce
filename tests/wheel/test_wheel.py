"""The `hydromech` wheel (issue 55), installed in a fresh venv with no Rust toolchain on
PATH (tests/run.sh, stage "wheel"): the command and the Python API work, build FMUs
byte-identical to those of the `hydromech` binary, turn bad input into Python exceptions
(a description's error with its file:line:column), and the compiled module needs no glibc
newer than 2.17 (manylinux2014).

Environment (set by tests/run.sh): HYDROMECH_ROOT (the checkout, for models/ and the
binary target/release/hydromech), HYDROMECH_WHEEL (the wheel file)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import hydromech

ROOT = Path(os.environ["HYDROMECH_ROOT"])
WHEEL = Path(os.environ["HYDROMECH_WHEEL"])
BINARY = ROOT / "target" / "release" / "hydromech"
EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}  # 2026-01-01: both builds stamp the same time
SCRIPT = Path(sys.executable).parent / "hydromech"


def run(*args, env_extra=None, cwd=None):
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run(list(args), capture_output=True, text=True, env=env, cwd=cwd)


def test_no_rust_toolchain_on_path():
    for tool in ("cargo", "rustc"):
        assert shutil.which(tool) is None, f"{tool} is on PATH: the test must run without Rust"


def test_the_command_is_the_binarys_command_line():
    mine = run(str(SCRIPT), "--version")
    theirs = run(str(BINARY), "--version")
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout, (mine.stdout, theirs.stdout)
    assert "linux64" in mine.stdout and "win64" in mine.stdout
    assert hydromech.version() == mine.stdout.split(" ", 1)[1].strip()
    wrong = run(str(SCRIPT), "bogus")
    assert wrong.returncode == 1 and "unrecognized subcommand" in wrong.stderr


def test_check_reports_what_the_command_prints():
    model = ROOT / "models" / "naya-rod.toml"
    r = hydromech.check(model)
    assert (r.bodies, r.coordinates) == (1, 1)
    cli = run(str(BINARY), "check", str(model))
    assert cli.stdout.splitlines()[0] == f"{model}: ok ({r.headline})"
    assert str(r) == cli.stdout


def broken(tmp_path: Path) -> tuple[Path, int, int]:
    """naya-rod with a joint whose body does not exist: the line and column of the value."""
    text = (ROOT / "models" / "naya-rod.toml").read_text()
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if re.match(r'\s*parent\s*=\s*"', line))
    lines[k] = re.sub(r'"[^"]*"', '"no_such_body"', lines[k], count=1)
    path = tmp_path / "broken.toml"
    path.write_text("\n".join(lines) + "\n")
    return path, k + 1, lines[k].index('"no_such_body"') + 1


def test_a_broken_description_raises_with_file_line_column(tmp_path):
    path, line, column = broken(tmp_path)
    with pytest.raises(hydromech.DescriptionError) as e:
        hydromech.check(path)
    err = e.value
    assert (err.file, err.line, err.column) == (str(path), line, column), err
    assert "no_such_body" in err.message and err.help
    cli = run(str(BINARY), "check", str(path))
    assert f"{path}:{line}:{column}" in cli.stderr
    assert isinstance(err, ValueError)
    with pytest.raises(hydromech.DescriptionError):
        hydromech.build(path, tmp_path / "out")
    assert not (tmp_path / "out" / "broken.fmu").exists()


def test_bad_arguments_are_python_exceptions(tmp_path):
    model = ROOT / "models" / "naya-rod.toml"
    with pytest.raises(FileNotFoundError):
        hydromech.check(tmp_path / "missing.toml")
    with pytest.raises(TypeError):
        hydromech.check(42)
    with pytest.raises(ValueError, match="fmi must be 2 or 3"):
        hydromech.build(model, tmp_path, fmi=4)
    with pytest.raises(ValueError, match="interface"):
        hydromech.build(model, tmp_path, interface="co-sim")
    with pytest.raises(hydromech.DescriptionError, match="platform"):
        hydromech.build(model, tmp_path, platforms=["amiga68k"])
    not_toml = tmp_path / "binary.toml"
    not_toml.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises((hydromech.DescriptionError, OSError)):
        hydromech.check(not_toml)


@pytest.mark.parametrize("fmi,interface", [(2, "cs"), (3, "cs"), (2, "me")])
def test_build_gives_the_binarys_fmu_byte_for_byte(tmp_path, monkeypatch, fmi, interface):
    model = ROOT / "models" / "patu-crane.toml"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH["SOURCE_DATE_EPOCH"])
    fmu = hydromech.build(model, tmp_path / "py", fmi=fmi, interface=interface)
    assert fmu == tmp_path / "py" / "patu-crane.fmu"
    cli = run(str(BINARY), "build", str(model), "-o", str(tmp_path / "cli"), "--fmi", str(fmi),
              "--interface", interface, env_extra=EPOCH)
    assert cli.returncode == 0, cli.stderr
    assert fmu.read_bytes() == (tmp_path / "cli" / "patu-crane.fmu").read_bytes()
    with zipfile.ZipFile(fmu) as z:
        names = z.namelist()
    folders = ("linux64", "win64") if fmi == 2 else ("x86_64-linux", "x86_64-windows", "aarch64-linux")
    for folder in folders:
        assert any(n.startswith(f"binaries/{folder}/") for n in names), (folder, names)


def test_the_installed_command_builds(tmp_path):
    r = run(str(SCRIPT), "build", str(ROOT / "models" / "naya-rod.toml"), "-o", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "naya-rod.fmu").is_file()


def test_the_wheel_is_manylinux2014_and_small(report):
    with zipfile.ZipFile(WHEEL) as z:
        natives = [n for n in z.namelist() if n.endswith(".so")]
        assert natives, z.namelist()
    assert "manylinux2014_x86_64" in WHEEL.name or "manylinux_2_17_x86_64" in WHEEL.name, WHEEL
    native = Path(hydromech._native.__file__)
    dump = subprocess.run(["/usr/bin/objdump", "-T", str(native)], capture_output=True,
                          text=True, check=True).stdout
    versions = {tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)", dump)}
    newest = max(versions)
    assert newest <= (2, 17), f"{native.name} needs GLIBC_{'.'.join(map(str, newest))}"
    show = run(sys.executable, "-m", "auditwheel", "show", str(WHEEL))
    assert show.returncode == 0, show.stderr
    assert "manylinux_2_17_x86_64" in show.stdout.replace("\n", " "), show.stdout
    size = WHEEL.stat().st_size / 1e6
    assert size < 15, f"{size:.1f} MB"
    report(f"{WHEEL.name}: {size:.1f} MB (target < 15 MB); {native.name} newest symbol "
           f"GLIBC_{'.'.join(map(str, newest))}; auditwheel show: manylinux_2_17_x86_64")


def test_the_aarch64_wheel_is_manylinux2014(tmp_path, report):
    """The aarch64 wheel (built beside the x86-64 one, with zig against glibc 2.17): an
    AArch64 module needing nothing newer than GLIBC_2.17, the same Python files and FMU
    runtimes as the x86-64 wheel. It cannot be imported here (no AArch64 Python)."""
    arm = Path(os.environ["HYDROMECH_WHEEL_AARCH64"])
    show = run(sys.executable, "-m", "auditwheel", "show", str(arm))
    assert show.returncode == 0, show.stderr
    assert "manylinux_2_17_aarch64" in show.stdout.replace("\n", " "), show.stdout
    with zipfile.ZipFile(arm) as a, zipfile.ZipFile(WHEEL) as x:
        [so] = [n for n in a.namelist() if n.endswith(".so")]
        a.extract(so, tmp_path)
        python = lambda z: {n: z.read(n) for n in z.namelist() if n.endswith(".py")}  # noqa
        assert python(a) == python(x)
    header = subprocess.run(["/usr/bin/readelf", "-h", str(tmp_path / so)], capture_output=True,
                            text=True, check=True).stdout
    assert "AArch64" in header, header
    # readelf reads any architecture's version needs (objdump here only x86's).
    dump = subprocess.run(["/usr/bin/readelf", "-V", str(tmp_path / so)], capture_output=True,
                          text=True, check=True).stdout
    versions = {tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)", dump)}
    assert versions and max(versions) <= (2, 17), sorted(versions)[-3:]
    size = arm.stat().st_size / 1e6
    assert size < 15, f"{size:.1f} MB"
    report(f"{arm.name}: {size:.1f} MB; AArch64 module, newest GLIBC_"
           f"{'.'.join(map(str, max(versions)))}; auditwheel show: manylinux_2_17_aarch64")


# What a Windows DLL may import: the system's own DLLs and the stable-ABI python3.dll (no
# MinGW runtime DLL such as libgcc_s_seh-1.dll or libwinpthread-1.dll, which a Windows
# machine does not have, and no python3XX.dll, which would tie the wheel to one Python).
WINDOWS_DLLS = re.compile(r"(kernel32|msvcrt|ntdll|userenv|ws2_32|bcrypt|bcryptprimitives|"
                          r"advapi32|python3|api-ms-win-[a-z0-9-]+)\.dll", re.I)
MINGW_OBJDUMP = "/usr/bin/x86_64-w64-mingw32-objdump"


def test_the_win64_wheel_needs_only_windows_and_python3(tmp_path, report):
    win = Path(os.environ["HYDROMECH_WHEEL_WIN64"])
    assert win.name.endswith("-cp310-abi3-win_amd64.whl"), win.name
    with zipfile.ZipFile(win) as w, zipfile.ZipFile(WHEEL) as x:
        [pyd] = [n for n in w.namelist() if n.endswith(".pyd")]
        w.extract(pyd, tmp_path)
        python = lambda z: {n: z.read(n) for n in z.namelist() if n.endswith(".py")}  # noqa
        assert python(w) == python(x)
    head = subprocess.run([MINGW_OBJDUMP, "-f", str(tmp_path / pyd)], capture_output=True,
                          text=True, check=True).stdout
    assert "pei-x86-64" in head, head
    dump = subprocess.run([MINGW_OBJDUMP, "-p", str(tmp_path / pyd)], capture_output=True,
                          text=True, check=True).stdout
    dlls = sorted(set(re.findall(r"DLL Name: (\S+)", dump)), key=str.lower)
    assert "python3.dll" in dlls, dlls
    foreign = [d for d in dlls if not WINDOWS_DLLS.fullmatch(d)]
    assert not foreign, foreign
    size = win.stat().st_size / 1e6
    assert size < 15, f"{size:.1f} MB"
    report(f"{win.name}: {size:.1f} MB; _native.pyd (PE32+ x86-64) imports "
           f"{', '.join(dlls)}")


def test_the_win64_command_runs_under_wine(tmp_path, report):
    """The Windows build of the command (the library the .pyd wraps) under wine: its
    version, and a run of the win64 binary of an FMU whose CSV equals the Linux run's byte
    for byte (results are bit-identical across platforms)."""
    wine = shutil.which("wine", path="/usr/bin:/usr/lib/wine")
    assert wine, "wine is installed by tests/run.sh"
    # Beside it the stand-in for Windows 10's bcryptprimitives.dll (Rust's std imports
    # ProcessPrng from it; Debian's wine 8 lacks it), as `hydromech verify` runs win64 FMUs.
    exe = tmp_path / "hydromech.exe"
    shutil.copy(os.environ["HYDROMECH_WIN64_EXE"], exe)
    shim = subprocess.run(["/usr/bin/x86_64-w64-mingw32-gcc", "-shared", "-s", "-o",
                           str(tmp_path / "bcryptprimitives.dll"),
                           str(ROOT / "model-compiler" / "driver" / "bcryptprimitives_shim.c"),
                           "-ladvapi32"], capture_output=True, text=True)
    assert shim.returncode == 0, shim.stderr
    exe = str(exe)
    version = run(wine, exe, "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout == run(str(BINARY), "--version").stdout
    fmu = ROOT / "fmus" / "patu-pvg32.fmu"
    linux, windows = tmp_path / "linux.csv", tmp_path / "windows.csv"
    args = ["simulate", str(fmu), "--stop-time", "1", "--set", "payload.mass=300"]
    assert run(str(BINARY), *args, "-o", str(linux)).returncode == 0
    r = run(wine, exe, *[f"Z:{a}" if a.startswith("/") else a for a in args], "-o",
            f"Z:{windows}")
    assert r.returncode == 0, r.stderr
    assert windows.read_bytes() == linux.read_bytes()
    rows = len(linux.read_text().splitlines()) - 1
    report(f"hydromech.exe under wine: --version as the Linux binary's; patu-pvg32 1 s through "
           f"its win64 DLL: {rows} rows equal to the Linux run byte for byte")

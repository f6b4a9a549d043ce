"""Static checks of every FMU: FMPy validation, the ZIP container, capability flags and the
shared library's ABI (dependencies, glibc symbol versions, exported fmi2 functions)."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
from fmpy.validation import validate_fmu

import harness

# Libraries a portable FMU binary may need at run time (everything else must be linked in).
ALLOWED_LIBS = {
    "linux-vdso.so.1",
    "libc.so.6",
    "libm.so.6",
    "libpthread.so.0",
    "libdl.so.2",
    "libgcc_s.so.1",
    "ld-linux-x86-64.so.2",
    "librt.so.1",  # tolerated, but reported
}
MAX_GLIBC = (2, 34)

REQUIRED_CAPABILITIES = {
    "canHandleVariableCommunicationStepSize": "true",
    "canGetAndSetFMUstate": "true",
    "canSerializeFMUstate": "true",
    "canNotUseMemoryManagementFunctions": "true",
}


def _xml(fmu_path):
    with zipfile.ZipFile(fmu_path) as z:
        return ET.fromstring(z.read("modelDescription.xml"))


def _so_path(fmu_path) -> Path:
    md = harness.model_description(fmu_path)
    so = Path(harness.extracted(fmu_path)) / "binaries" / "linux64" / (
        md.coSimulation.modelIdentifier + ".so")
    assert so.is_file(), f"{so} missing"
    return so


def _tool(name):
    exe = shutil.which(name)
    if exe is None:
        pytest.fail(f"`{name}` not found (install binutils / libc-bin; tests/run.sh does)")
    return exe


# ---------------------------------------------------------------------------------------------

def test_fmpy_validate_fmu(fmu_path):
    problems = validate_fmu(str(fmu_path))
    for p in problems:
        print(f"{fmu_path.name}: {p}")
    assert problems == [], f"fmpy.validation.validate_fmu found {len(problems)} problem(s):\n" + \
        "\n".join(problems)


def _zip64_or_bad_extra(info: zipfile.ZipInfo) -> bool:
    extra, i = info.extra, 0
    while i + 4 <= len(extra):
        hid, ln = struct.unpack_from("<HH", extra, i)
        if hid == 0x0001:  # ZIP64 extended information
            return True
        i += 4 + ln
    return False


def test_zip_container(fmu_path):
    raw = fmu_path.read_bytes()
    # End of central directory record and, 20 bytes before it, no ZIP64 locator.
    eocd = raw.rfind(b"PK\x05\x06")
    assert eocd >= 0, "no end-of-central-directory record"
    assert eocd < 20 or raw[eocd - 20:eocd - 16] != b"PK\x06\x07", "ZIP64 end locator present"

    with zipfile.ZipFile(fmu_path) as z:
        infos = z.infolist()
        names = [i.filename for i in infos]
        bad = []
        for i in infos:
            n = i.filename
            if i.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                bad.append(f"{n}: compression method {i.compress_type} (only 0 or 8 allowed)")
            if i.extract_version > 20:
                bad.append(f"{n}: 'version needed to extract' {i.extract_version} > 2.0")
            if _zip64_or_bad_extra(i):
                bad.append(f"{n}: ZIP64 extra field")
            if i.flag_bits & 0x1:
                bad.append(f"{n}: encrypted")
            if "\\" in n:
                bad.append(f"{n}: backslash in entry name")
            if n.startswith(("/", "./")) or ".." in n.split("/"):
                bad.append(f"{n}: not a plain relative path")
        assert z.testzip() is None, "CRC error in the archive"
    assert not bad, "\n".join(bad)

    md = harness.model_description(fmu_path)
    ident = md.coSimulation.modelIdentifier
    assert "modelDescription.xml" in names
    assert f"binaries/linux64/{ident}.so" in names, f"binaries/linux64/{ident}.so missing: {names}"
    assert "documentation/index.html" in names, f"documentation/index.html missing: {names}"


def test_capability_flags(fmu_path):
    root = _xml(fmu_path)
    assert root.get("fmiVersion") == "2.0"
    cs = root.find("CoSimulation")
    assert cs is not None, "no <CoSimulation> element"
    assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", cs.get("modelIdentifier", "")), \
        "modelIdentifier must be a C identifier"
    got = {k: cs.get(k) for k in REQUIRED_CAPABILITIES}
    assert got == REQUIRED_CAPABILITIES, f"CoSimulation flags: {dict(cs.attrib)}"
    # default is false; if written it must say false
    assert cs.get("canBeInstantiatedOnlyOncePerProcess", "false") == "false"
    assert root.find("ModelExchange") is None or root.find("ModelExchange").get(
        "modelIdentifier") == cs.get("modelIdentifier")


def test_shared_library_dependencies(fmu_path, report):
    so = _so_path(fmu_path)
    out = subprocess.run([_tool("ldd"), str(so)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    libs = []
    for line in out.stdout.splitlines():
        line = line.strip()
        if not line or line.startswith("statically linked"):
            continue
        name = line.split()[0]
        libs.append(Path(name).name)
        assert "not found" not in line, f"unresolved dependency: {line}"
    report(f"{fmu_path.name}: ldd -> {', '.join(libs)}")
    if "librt.so.1" in libs:
        report(f"{fmu_path.name}: NOTE links librt.so.1 (tolerated)")
    extra = [l for l in libs if l not in ALLOWED_LIBS]
    assert not extra, f"{so.name} depends on {extra}; allowed: {sorted(ALLOWED_LIBS)}"

    dyn = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True).stdout
    rpath = re.findall(r"\((?:RPATH|RUNPATH)\)\s+.*\[(.*)\]", dyn)
    report(f"{fmu_path.name}: RPATH/RUNPATH = {rpath or 'none'}")


def test_glibc_symbol_versions(fmu_path, report):
    so = _so_path(fmu_path)
    out = subprocess.run([_tool("objdump"), "-T", str(so)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    versions: dict[tuple, list[str]] = {}
    for line in out.stdout.splitlines():
        m = re.search(r"\bGLIBC_(\d+)\.(\d+)(?:\.(\d+))?\b", line)
        if m and "*UND*" in line:
            v = tuple(int(x) for x in m.groups() if x is not None)
            versions.setdefault(v, []).append(line.split()[-1])
    if not versions:
        report(f"{fmu_path.name}: no GLIBC-versioned imports")
        return
    top = max(versions)
    top_s = "GLIBC_" + ".".join(map(str, top))
    syms = sorted(set(versions[top]))
    report(f"{fmu_path.name}: highest glibc symbol version {top_s} "
           f"(needed by: {', '.join(syms[:8])}{' ...' if len(syms) > 8 else ''})")
    hist = ", ".join(f"GLIBC_{'.'.join(map(str, v))}: {len(set(s))}"
                     for v, s in sorted(versions.items()))
    report(f"{fmu_path.name}: glibc versions used: {hist}")
    assert top[:2] <= MAX_GLIBC, (
        f"{so.name} needs {top_s} (symbols {syms}); must run on glibc "
        f"{'.'.join(map(str, MAX_GLIBC))}")


def test_exports_all_fmi2_functions(fmu_path, report):
    so = _so_path(fmu_path)
    out = subprocess.run([_tool("nm"), "-D", "--defined-only", str(so)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    exported = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            exported[parts[2].split("@")[0]] = parts[1]
    missing = [f for f in harness.FMI2_FUNCTIONS if f not in exported]
    not_code = [f for f in harness.FMI2_FUNCTIONS if f in exported and exported[f] not in "Tt"]
    others = sorted(n for n in exported if not n.startswith("fmi2"))
    report(f"{fmu_path.name}: exports {sum(f in exported for f in harness.FMI2_FUNCTIONS)}/44 "
           f"fmi2 functions, {len(others)} other dynamic symbol(s)"
           + (f": {', '.join(others[:10])}{' ...' if len(others) > 10 else ''}" if others else ""))
    assert not missing, f"missing fmi2 exports: {missing}"
    assert not not_code, f"not function symbols: {not_code}"

"""pytest fixtures of the hydromech importer tests.

* `fmu_path` is parametrized over every `fmus/*.fmu` (one test per FMU, id = file stem);
  with no FMU at all it is a single failing case that says how to build them.
* `naya_fmu` / `jaiswal_fmu`: the two reference machines; missing -> FAIL (not skip).
* `ecos_path`: the venv's `ecos` CLI (made executable).
* `model_description(path)`: `fmpy.read_model_description` (cached, unvalidated).
* `report(line)`: lines shown in a "hydromech report" section at the end of the run (no `-s`
  needed) and written to tests/python/report/report.txt.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

REPORT_DIR = Path(__file__).resolve().parent / "report"
_REPORT: list[str] = []


def pytest_report_header(config):
    files = harness.fmu_files()
    names = ", ".join(p.name for p in files) or "NONE"
    return [f"hydromech FMUs in {harness.FMU_DIR}: {names}"]


def pytest_generate_tests(metafunc):
    if "fmu_path" in metafunc.fixturenames:
        files = harness.fmu_files()
        if files:
            metafunc.parametrize("fmu_path", files, ids=[p.stem for p in files], indirect=True)
        else:
            metafunc.parametrize("fmu_path", [None], ids=["no-fmus-built"], indirect=True)


@pytest.fixture
def fmu_path(request):
    if request.param is None:
        pytest.fail(f"no *.fmu in {harness.FMU_DIR}: {harness.BUILD_HINT}")
    return request.param


def _named(stem: str) -> Path:
    p = harness.FMU_DIR / f"{stem}.fmu"
    if not p.is_file():
        pytest.fail(f"{p} does not exist: {harness.BUILD_HINT}")
    return p


@pytest.fixture
def naya_fmu() -> Path:
    return _named("naya-rod")


@pytest.fixture
def jaiswal_fmu() -> Path:
    return _named("jaiswal-fourbar")


@pytest.fixture(scope="session")
def all_fmus() -> list[Path]:
    files = harness.fmu_files()
    if not files:
        pytest.fail(f"no *.fmu in {harness.FMU_DIR}: {harness.BUILD_HINT}")
    return files


@pytest.fixture(scope="session")
def ecos_path() -> Path:
    return harness.ecos_binary()


@pytest.fixture(scope="session")
def model_description():
    return harness.model_description


@pytest.fixture(scope="session")
def report():
    def add(line: str):
        _REPORT.append(line)
        print(line)

    return add


@pytest.fixture(autouse=True)
def _fresh_log():
    harness.LOG.clear()


@pytest.fixture
def log():
    """The process-wide FMU log recorder (cleared before each test)."""
    return harness.LOG


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _REPORT:
        return
    terminalreporter.section("hydromech report")
    for line in _REPORT:
        terminalreporter.write_line(line)
    try:
        REPORT_DIR.mkdir(exist_ok=True)
        (REPORT_DIR / "report.txt").write_text("\n".join(_REPORT) + "\n")
        terminalreporter.write_line(f"(also written to {REPORT_DIR / 'report.txt'})")
    except OSError as e:
        terminalreporter.write_line(f"(could not write {REPORT_DIR}: {e})")


# Slow-test guard: a hung FMU must not eat the CI budget (pytest-timeout, see requirements.txt).
def pytest_collection_modifyitems(config, items):
    if os.environ.get("HYDROMECH_NO_TIMEOUT"):
        return
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(600))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On failure, show the FMU's own warning/error messages (what the logger callback got)."""
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call" and rep.failed:
        with harness.LOG.lock:
            recs = [r for r in harness.LOG.records if r[1] >= harness.FMI2_WARNING][-15:]
        if recs:
            text = "\n".join(f"[{('OK', 'WARNING', 'DISCARD', 'ERROR', 'FATAL', 'PENDING')[s] if 0 <= s < 6 else s}]"
                             f" {inst} {cat}: {msg}" for inst, s, cat, msg in recs)
            rep.sections.append(("FMU log messages (status >= warning, last 15)", text))

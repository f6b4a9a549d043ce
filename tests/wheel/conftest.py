"""A `report` fixture as tests/python has: lines for the run's report (printed at the end)."""

import pytest

LINES: list[str] = []


@pytest.fixture
def report():
    return LINES.append


def pytest_terminal_summary(terminalreporter):
    for line in LINES:
        terminalreporter.write_line(line)

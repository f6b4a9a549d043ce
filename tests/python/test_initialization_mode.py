"""Model Exchange as strict importers call it (issue 54, item 5): the continuous states
(FMI 2.0 and 3.0), their derivatives and nominals (FMI 3.0) and every output answer in
Initialization Mode with the initial state — the static equilibrium for the values set
so far, solved provisionally — and the run after ExitInitializationMode is, bit for bit,
the run of a master that read nothing there. Every model, FMI 2.0 (fmus/me/) and FMI 3.0
(fmus/fmi3-me/), through the real binaries with FMPy."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from fmpy.fmi2 import FMU2Model
from fmpy.fmi3 import FMU3Model

import harness

ME_DIR = harness.FMU_DIR / "me"
ME3_DIR = harness.FMU_DIR / "fmi3-me"


def files(d):
    return sorted(d.glob("*.fmu")) if d.is_dir() else []


def pytest_generate_tests(metafunc):
    for name, d in (("me2_fmu", ME_DIR), ("me3_fmu", ME3_DIR)):
        if name in metafunc.fixturenames:
            found = files(d)
            metafunc.parametrize(name, found or [None], ids=[p.stem for p in found] or ["none"])


def need(path):
    if path is None:
        pytest.fail("no Model Exchange FMU: tests/run.sh builds fmus/me and fmus/fmi3-me")
    return path


def pointer(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


class Fmi2:
    def __init__(self, fmu, name):
        self.md = harness.model_description(fmu)
        self.m = FMU2Model(guid=self.md.guid, unzipDirectory=harness.extracted(fmu),
                           modelIdentifier=self.md.modelExchange.modelIdentifier,
                           instanceName=name)
        self.m.instantiate(callbacks=harness.CALLBACKS)
        self.n = self.md.numberOfContinuousStates
        self.outputs = [v.valueReference for v in harness.real_outputs(self.md)]

    def enter(self):
        self.m.setupExperiment(startTime=0.0)
        self.m.enterInitializationMode()

    def exit(self):
        self.m.exitInitializationMode()

    def states(self):
        x = np.full(self.n, np.nan)
        self.m.getContinuousStates(pointer(x), self.n)
        return x

    def derivatives(self):
        dx = np.full(self.n, np.nan)
        self.m.getDerivatives(pointer(dx), self.n)
        return dx

    def values(self):
        return np.array(self.m.getReal(self.outputs))

    def free(self):
        self.m.freeInstance()


class Fmi3(Fmi2):
    def __init__(self, fmu, name):
        self.md = harness.model_description(fmu)
        self.m = FMU3Model(guid=self.md.guid, unzipDirectory=harness.extracted(fmu),
                           modelIdentifier=self.md.modelExchange.modelIdentifier,
                           instanceName=name)
        self.m.instantiate()
        self.n = self.md.numberOfContinuousStates
        self.outputs = [v.valueReference for v in self.md.modelVariables
                        if v.causality == "output" and v.type == "Float64"]

    def enter(self):
        self.m.enterInitializationMode(startTime=0.0)

    def derivatives(self):
        dx = np.full(self.n, np.nan)
        self.m.getContinuousStateDerivatives(pointer(dx), self.n)
        return dx

    def nominals(self):
        x = np.full(self.n, np.nan)
        self.m.getNominalsOfContinuousStates(pointer(x), self.n)
        return x

    def values(self):
        return np.array(self.m.getFloat64(self.outputs))


def same_bits(a, b):
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def check(kind, fmu, report):
    reader, silent = kind(fmu, "init-reader"), kind(fmu, "init-silent")
    try:
        reader.enter()
        silent.enter()
        seen = {"x": reader.states(), "outputs": reader.values()}
        if kind is Fmi3:
            seen["der(x)"] = reader.derivatives()
            seen["nominal"] = reader.nominals()
        assert np.all(np.isfinite(seen["x"])), seen["x"]
        reader.exit()
        silent.exit()
        after = {"x": reader.states(), "outputs": reader.values()}
        if kind is Fmi3:
            after["der(x)"] = reader.derivatives()
            after["nominal"] = reader.nominals()
        for what, value in seen.items():
            assert same_bits(value, after[what]), f"{what} in Initialization Mode differs after it"
        assert same_bits(silent.states(), after["x"]), "a master that read nothing"
        assert same_bits(silent.derivatives(), reader.derivatives())
        assert same_bits(silent.values(), after["outputs"])
        report(f"{fmu.stem} (FMI {'3.0' if kind is Fmi3 else '2.0'} ME): {reader.n} states, "
               f"{len(reader.outputs)} outputs read in Initialization Mode = after it, bit "
               "for bit; the same as an instance that read nothing")
    finally:
        reader.free()
        silent.free()


def test_fmi2_getters_in_initialization_mode(me2_fmu, report):
    check(Fmi2, need(me2_fmu), report)


def test_fmi3_getters_in_initialization_mode(me3_fmu, report):
    check(Fmi3, need(me3_fmu), report)

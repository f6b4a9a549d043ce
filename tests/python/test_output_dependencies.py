"""Model Exchange outputs declare what they depend on (issue 54, item 5): every output of
every ME FMU carries `dependencies` (FMI 2.0 indices, FMI 3.0 value references — the same
lists), and at points other than those the compiler sampled (`emit/dependencies.rs`),
finite differences through the FMU binary find no dependency the list leaves out: moving
an undeclared state or input by 1e-3 of its scale moves no output by more than 1e-8 of its
scale. The lists are sparse where the physics is (a pressure does not depend on a joint
rate), so a master sees which outputs an input reaches without a step."""

from __future__ import annotations

import ctypes
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest
from fmpy.fmi2 import FMU2Model

import harness

ME_DIR = harness.FMU_DIR / "me"
ME3_DIR = harness.FMU_DIR / "fmi3-me"
STEP = 1e-3
TOLERANCE = 1e-8
POINTS = 3


def files(d):
    return sorted(d.glob("*.fmu")) if d.is_dir() else []


def pytest_generate_tests(metafunc):
    if "me_fmu" in metafunc.fixturenames:
        found = files(ME_DIR)
        metafunc.parametrize("me_fmu", found or [None], ids=[p.stem for p in found] or ["none"])


def pointer(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


def declared(fmu):
    """{output name: set of names it depends on} from the FMI 2.0 modelDescription."""
    with zipfile.ZipFile(fmu) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    names = [v.get("name") for v in root.find("ModelVariables")]
    out = {}
    for u in root.find("ModelStructure").find("Outputs"):
        deps = u.get("dependencies")
        assert deps is not None, f"{names[int(u.get('index')) - 1]} declares no dependencies"
        out[names[int(u.get("index")) - 1]] = {names[int(k) - 1] for k in deps.split()}
    return out


def declared3(fmu):
    with zipfile.ZipFile(fmu) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
    name = {v.get("valueReference"): v.get("name") for v in root.find("ModelVariables")}
    return {name[u.get("valueReference")]: {name[k] for k in u.get("dependencies").split()}
            for u in root.find("ModelStructure").findall("Output")}


def nominal_of(v):
    return abs(float(v.nominal)) if getattr(v, "nominal", None) is not None else 1.0


def test_outputs_depend_on_what_they_declare(me_fmu, report):
    if me_fmu is None:
        pytest.fail("no Model Exchange FMU: tests/run.sh builds fmus/me")
    deps = declared(me_fmu)
    fmu3 = ME3_DIR / me_fmu.name
    assert declared3(fmu3) == deps, "FMI 3.0 declares the same lists"
    md = harness.model_description(me_fmu)
    outputs = [v for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
    states = [v for v in md.modelVariables if v.name.startswith("ode.x[")]
    inputs = [v for v in md.modelVariables
              if v.causality == "input" and v.type == "Real"
              and (v.variability or "continuous") == "continuous"]
    n = md.numberOfContinuousStates
    assert len(states) == n
    m = FMU2Model(guid=md.guid, unzipDirectory=harness.extracted(me_fmu),
                  modelIdentifier=md.modelExchange.modelIdentifier, instanceName="deps")
    m.instantiate(callbacks=harness.CALLBACKS)
    rng = np.random.default_rng(54)
    checked = changed = 0
    try:
        harness.start_model_exchange(m)
        x0 = np.zeros(n)
        m.getContinuousStates(pointer(x0), n)
        nominal = np.zeros(n)
        m.getNominalsOfContinuousStates(pointer(nominal), n)
        u0 = np.array(m.getReal([v.valueReference for v in inputs])) if inputs else np.zeros(0)
        out_vrs = [v.valueReference for v in outputs]
        scale_out = np.array([nominal_of(v) for v in outputs])

        def evaluate():
            dx = np.zeros(n)
            m.getDerivatives(pointer(dx), n)
            return np.array(m.getReal(out_vrs))

        for point in range(POINTS):
            x = x0 + 0.015 * nominal * rng.uniform(-1, 1, n) if point else x0.copy()
            u = []
            for v, start in zip(inputs, u0):
                lo = float(v.min) if v.min is not None else None
                hi = float(v.max) if v.max is not None else None
                u.append(rng.uniform(lo, hi) if point and lo is not None and hi is not None
                         else start)
            if inputs:
                m.setReal([v.valueReference for v in inputs], u)
            m.setContinuousStates(pointer(x), n)
            y0 = evaluate()
            knowns = [(s.name, "x", k, nominal[k]) for k, s in enumerate(states)]
            knowns += [(v.name, "u", k, max(nominal_of(v), abs(u[k]))) for k, v in enumerate(inputs)]
            for name, kind, k, scale in knowns:
                if kind == "x":
                    moved = x.copy()
                    moved[k] += STEP * scale
                    m.setContinuousStates(pointer(moved), n)
                else:
                    m.setReal([inputs[k].valueReference], [u[k] + STEP * scale])
                y1 = evaluate()
                limit = TOLERANCE * (np.maximum(np.abs(y0), np.abs(y1)) + scale_out)
                for o, v in enumerate(outputs):
                    moved_out = not abs(y1[o] - y0[o]) <= limit[o]
                    if name in deps[v.name]:
                        changed += moved_out
                        continue
                    checked += 1
                    assert not moved_out, (
                        f"{v.name} moves by {y1[o] - y0[o]:.3e} when {name} moves by "
                        f"{STEP * scale:.3e}, but does not declare it (point {point})")
                if kind == "x":
                    m.setContinuousStates(pointer(x), n)
                else:
                    m.setReal([inputs[k].valueReference], [u[k]])
    finally:
        m.freeInstance()
    pairs = len(outputs) * (n + len(inputs))
    declared_pairs = sum(len(d) for d in deps.values())
    report(f"{me_fmu.stem}: {len(outputs)} outputs × {n} states + {len(inputs)} inputs; "
           f"{declared_pairs} of {pairs} pairs declared ({100 * declared_pairs / pairs:.0f} %); "
           f"{checked} undeclared pair-evaluations at {POINTS} points all below "
           f"{TOLERANCE:g} (declared pairs that moved: {changed})")

"""Golden results (tests/golden, written by `tests/python/golden.py --update`): every FMU the
build stage writes runs its standard manoeuvre in FMPy and gives the recorded outputs bit
for bit, with the recorded interface. A refactor moves nothing; a deliberate change of
results rewrites the record in the same commit and says in CHANGELOG.md what moved.
"""

from __future__ import annotations

import json

import pytest

import golden
import harness

CASES = [(v, p) for v in golden.VARIANTS for p in golden.fmus(v)]
UPDATE = "if the change is deliberate: `.venv/bin/python tests/python/golden.py --update` and a CHANGELOG.md line"


@pytest.mark.parametrize("variant,fmu", CASES, ids=[f"{v}/{p.stem}" for v, p in CASES])
def test_outputs_are_the_golden_ones_bit_for_bit(variant, fmu):
    jpath, cpath = golden.paths(variant, fmu.stem)
    assert jpath.exists(), f"{fmu} has no golden record {jpath}: {UPDATE}"
    old = json.loads(jpath.read_text())
    new, _, cols = golden.record(fmu, variant)
    moved = golden.compare(old, new, cpath, cols)
    assert not moved, f"{variant}/{fmu.stem} moved:\n  " + "\n  ".join(moved) + f"\n{UPDATE}"


def test_every_golden_record_has_its_fmu():
    """A record whose FMU the build no longer writes is a model or variant that went away."""
    built = {(v, p.stem) for v, p in CASES}
    assert built, harness.BUILD_HINT
    recorded = {(p.parent.name, p.stem) for p in golden.GOLDEN.glob("*/*.json")}
    assert recorded - built == set(), f"golden records without an FMU: {sorted(recorded - built)}"


def test_every_shipped_model_and_variant_is_recorded():
    models = {p.stem for p in (harness.ROOT / "models").glob("*.toml")}
    for variant in golden.VARIANTS:
        recorded = {p.stem for p in (golden.GOLDEN / variant).glob("*.json")}
        assert models <= recorded, f"{variant}: no golden record of {sorted(models - recorded)}"


@pytest.mark.parametrize("variant,ref", [("fmi3-cs", "fmi2-cs"), ("fmi2-both", "fmi2-cs"),
                                         ("fmi3-me", "fmi2-me")])
def test_fmi3_and_both_variants_record_the_fmi2_run(variant, ref):
    """FMI 3.0 and the Co-Simulation side of a `both` FMU run the same solver on the same
    steps, FMI 3.0 Model Exchange gives CVode the same derivatives: their records equal the
    FMI 2.0 ones bit for bit."""
    for p in sorted((golden.GOLDEN / variant).glob("*.json")):
        other = golden.GOLDEN / ref / p.name
        a, b = json.loads(p.read_text()), json.loads(other.read_text())
        assert a["sha256"] == b["sha256"], f"{variant}/{p.stem} differs from {ref}/{p.stem}"

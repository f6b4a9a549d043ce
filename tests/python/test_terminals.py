"""FMI 3.0 terminals and the icons of every FMU (issue 54, item 3): `terminalsAndIcons/terminalsAndIcons.xml` of every
FMI 3.0 FMU validates against the FMI 3.0 schema (tests/python/schema/fmi3, from the
standard's repository), names only inputs and outputs of its own modelDescription.xml, and
groups each element's variables: the excavator's boom cylinder is one bus with its length,
speed, pressures and forces. FMPy's validation of the FMU finds no problem with it there.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lxml import etree

import harness

SCHEMA = Path(__file__).resolve().parent / "schema" / "fmi3" / "fmi3TerminalsAndIcons.xsd"
ENTRY = "terminalsAndIcons/terminalsAndIcons.xml"


def fmi3_fmus() -> list[Path]:
    return sorted(
        p for d in ("fmi3", "fmi3-me") if (harness.FMU_DIR / d).is_dir() for p in (harness.FMU_DIR / d).glob("*.fmu")
    )


def causalities(z: zipfile.ZipFile) -> dict[str, str]:
    root = etree.fromstring(z.read("modelDescription.xml"))
    variables = root.find("ModelVariables")
    return {v.get("name"): v.get("causality", "local") for v in variables}


@pytest.fixture(scope="module")
def schema():
    return etree.XMLSchema(etree.parse(str(SCHEMA)))


def test_terminals_validate_and_name_the_fmus_own_inputs_and_outputs(schema, report):
    fmus = fmi3_fmus()
    assert fmus, f"no FMI 3.0 FMUs under {harness.FMU_DIR}: build them first (tests/run.sh)"
    with_terminals, terminals = 0, 0
    for fmu in fmus:
        with zipfile.ZipFile(fmu) as z:
            if ENTRY not in z.namelist():
                continue
            with_terminals += 1
            doc = etree.fromstring(z.read(ENTRY))
            assert schema.validate(doc), f"{fmu.name}: {schema.error_log}"
            known = causalities(z)
            for t in doc.iter("Terminal"):
                terminals += 1
                members = t.findall("TerminalMemberVariable")
                assert len(members) >= 2, f"{fmu.name}: terminal {t.get('name')} has one member"
                for m in members:
                    name = m.get("variableName")
                    assert known.get(name) in ("input", "output"), f"{fmu.name}: {name} is {known.get(name)}"
                    assert name == f"{t.get('name')}.{m.get('memberName')}"
    report(f"terminals: {terminals} in {with_terminals} of {len(fmus)} FMI 3.0 FMUs, all valid against fmi3TerminalsAndIcons.xsd")
    assert with_terminals > 0


def test_every_fmu_carries_its_icon():
    """FMI 2.0: `model.png`; FMI 3.0: `terminalsAndIcons/icon.png` with the icon's extent in
    terminalsAndIcons.xml. A square PNG of the machine's side view."""
    fmus = harness.fmu_files() + fmi3_fmus()
    assert fmus
    for fmu in fmus:
        with zipfile.ZipFile(fmu) as z:
            fmi3 = b'fmiVersion="3.0"' in z.read("modelDescription.xml")
            name = "terminalsAndIcons/icon.png" if fmi3 else "model.png"
            png = z.read(name)
            assert png[:8] == b"\x89PNG\r\n\x1a\n", f"{fmu.name}: {name} is no PNG"
            width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
            assert (width, height) == (256, 256), f"{fmu.name}: {width}x{height}"
            if fmi3:
                doc = etree.fromstring(z.read(ENTRY))
                assert doc.find("GraphicalRepresentation/Icon") is not None, fmu.name


def test_the_excavator_cylinder_is_one_bus_and_fmpy_accepts_the_fmu():
    from fmpy.validation import validate_fmu

    fmu = harness.FMU_DIR / "fmi3" / "excavator.fmu"
    assert fmu.is_file(), f"{fmu} is not built"
    with zipfile.ZipFile(fmu) as z:
        doc = etree.fromstring(z.read(ENTRY))
    cylinder = next(t for t in doc.iter("Terminal") if t.get("name") == "boom_cylinder")
    members = [m.get("memberName") for m in cylinder.findall("TerminalMemberVariable")]
    assert members == ["length", "speed", "p_cap", "p_rod", "left.force", "right.force"]
    assert {m.get("variableKind") for m in cylinder.iter("TerminalMemberVariable")} == {"signal"}
    assert cylinder.get("matchingRule") == "bus"
    assert validate_fmu(str(fmu)) == []


def test_the_schema_refuses_a_terminal_without_its_matching_rule(schema):
    """The checks above can fail: a terminal without its required attribute is invalid."""
    bad = etree.fromstring(
        b'<fmiTerminalsAndIcons fmiVersion="3.0"><Terminals><Terminal name="x">'
        b'<TerminalMemberVariable variableName="x.a" variableKind="signal"/></Terminal></Terminals>'
        b"</fmiTerminalsAndIcons>"
    )
    assert not schema.validate(bad)  # matchingRule is required

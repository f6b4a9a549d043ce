"""Subprocess driver of test_protocol.py: runs FMU calls in a separate process, so that a crash
(segfault, abort, format-string bug) fails one test instead of killing the pytest session, and
so that "continue from a serialized state in a fresh process" really is a fresh process.

Usage: python fmu_driver.py SPEC.json   -> prints one JSON line (the last line of stdout).
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402


def continue_from_state(spec):
    """Fresh instance <- deserialized state, then step; returns the output bits."""
    path = spec["fmu"]
    md = harness.model_description(path)
    data = Path(spec["state_file"]).read_bytes()
    s = harness.new_slave(path, "fresh-process")
    if spec.get("init_mode") == "initialized":
        harness.initialize(s, 0.0)
    st = s.deSerializeFMUstate(data)
    s.setFMUstate(st)
    s.freeFMUstate(st)
    _, rows = harness.run_steps(s, md, spec["t1"], spec["steps"])
    harness.free(s)
    return {"rows": harness.bits(rows)}


def corrupt(spec):
    """deSerializeFMUstate on damaged bytes: report each status, then prove the FMU still works."""
    path = spec["fmu"]
    md = harness.model_description(path)
    good = Path(spec["state_file"]).read_bytes()
    mid = len(good) // 2
    flipped = bytearray(good)
    flipped[mid] ^= 0xFF
    variants = {
        "flip_middle_byte": bytes(flipped),
        "flip_last_byte": good[:-1] + bytes([good[-1] ^ 0x01]),
        "truncated_half": good[:mid],
        "truncated_by_one": good[:-1],
        "extended_by_one": good + b"\x00",
        "empty": b"",
        "garbage": bytes((i * 37 + 11) & 0xFF for i in range(len(good))),
    }
    if spec.get("foreign_state_file"):
        variants["state_of_another_model"] = Path(spec["foreign_state_file"]).read_bytes()
    statuses = {}
    for name, data in variants.items():
        s = harness.new_slave(path, f"corrupt-{name}")
        harness.initialize(s, 0.0)
        statuses[name] = harness.call_status(s.deSerializeFMUstate, data)
        harness.free(s)
    # the process survived; a valid state still works
    s = harness.new_slave(path, "after-corruption")
    harness.initialize(s, 0.0)
    st = s.deSerializeFMUstate(good)
    s.setFMUstate(st)
    s.freeFMUstate(st)
    _, rows = harness.run_steps(s, md, spec["t1"], spec["steps"])
    harness.free(s)
    return {"statuses": statuses, "rows_after": harness.bits(rows)}


def evil_name(spec):
    """printf conversions in the instance name must reach the logger verbatim."""
    path = spec["fmu"]
    md = harness.model_description(path)
    name = spec["name"]
    s = harness.new_slave(path, name)
    status = harness.call_status(s.doStep, 0.0, harness.default_step(md))  # illegal: not init
    recs = harness.LOG.records[:]
    harness.free(s)
    return {"doStep_status": status, "records": recs}


def null_safety(spec):
    """fmi2FreeInstance(NULL) and fmi2FreeFMUstate(c, &NULL) must be no-ops (FMI 2.0 §2.1)."""
    path = spec["fmu"]
    s = harness.new_slave(path, "null-safety")
    harness.initialize(s, 0.0)
    null_state = ctypes.c_void_p(None)
    st = s.fmi2FreeFMUstate(s.component, ctypes.byref(null_state))
    s.fmi2FreeInstance(None)
    harness.free(s)
    return {"free_null_state_status": st}


MODES = {
    "continue": continue_from_state,
    "corrupt": corrupt,
    "evil_name": evil_name,
    "null_safety": null_safety,
}


if __name__ == "__main__":
    spec = json.loads(Path(sys.argv[1]).read_text())
    result = MODES[spec["mode"]](spec)
    sys.stdout.flush()
    print(json.dumps(result))

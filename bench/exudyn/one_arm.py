"""Exudyn side of the one-arm hydraulic boom benchmark (issue 16).

The machine of Exudyn 1.13.6's own test `hydraulicActuatorSimpleTest.py`, written here from
the documentation of `ObjectConnectorHydraulicActuatorSimple`: a 120 kg, 1 m arm on a
revolute joint at the origin, lifted by a double-acting actuator from (0, -0.25) to the
arm's point 0.25 m from the pivot; laminar-free valve flow Av*Qn*sqrt(dp), 200 bar
supply, tank at 1 bar (the test's 0 bar, raised to hydromech's absolute pressures), 1 m3
hose volumes, oil bulk modulus 1e11 Pa, 2e5 N s/m damping. Open loop: both
valves held at a fixed opening (no Python in the solver loop), implicit trapezoidal rule
(index 2, as close as Exudyn comes to hydromech's), fixed 1 ms steps.

Usage: python one_arm.py [steps] [opening]  -> prints JSON: time per step, final state.
"""
import json
import sys
import time
from math import sqrt

sys.exudynFast = True  # the module without range checks, AVX2 (Exudyn's fastest)
import exudyn as exu  # noqa: E402
from exudyn.itemInterface import (  # noqa: E402
    HydraulicActuatorSimple, MarkerBodyPosition, NodeGenericODE1, NodeRigidBody2D,
    ObjectGround, ObjectRigidBody2D, RevoluteJoint2D, Force,
)

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
opening = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
h = 1e-3

SC = exu.SystemContainer()
mbs = SC.AddSystem()
L, mass, g = 1.0, 120.0, 9.81
ground = mbs.AddObject(ObjectGround())
node = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[0.5 * L, 0, 0]))
arm = mbs.AddObject(ObjectRigidBody2D(mass=mass, inertia=mass / 12 * L**2,
                                      nodeNumber=node))
m_pivot = mbs.AddMarker(MarkerBodyPosition(bodyNumber=arm, localPosition=[-0.5 * L, 0, 0]))
m_com = mbs.AddMarker(MarkerBodyPosition(bodyNumber=arm, localPosition=[0, 0, 0]))
m_ground = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0, 0, 0]))
mbs.AddObject(RevoluteJoint2D(markerNumbers=[m_ground, m_pivot]))
mbs.AddLoad(Force(markerNumber=m_com, loadVector=[0, -mass * g, 0]))
m_cap = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0, -0.25 * L, 0]))
m_rod = mbs.AddMarker(MarkerBodyPosition(bodyNumber=arm, localPosition=[-0.25 * L, 0, 0]))
length0 = sqrt(2 * (0.25 * L) ** 2)
pressures = mbs.AddNode(NodeGenericODE1(referenceCoordinates=[0, 0],
                                        initialCoordinates=[2e6, 2e6],
                                        numberOfODE1Coordinates=2))
actuator = mbs.AddObject(HydraulicActuatorSimple(
    markerNumbers=[m_cap, m_rod], nodeNumbers=[pressures],
    offsetLength=length0, strokeLength=0.5 * length0,
    chamberCrossSection0=0.01, chamberCrossSection1=0.01,
    hoseVolume0=1.0, hoseVolume1=1.0,
    valveOpening0=opening, valveOpening1=-opening,
    oilBulkModulus=1e11, actuatorDamping=2e5, nominalFlow=2e-5,
    systemPressure=200e5, tankPressure=1e5, useChamberVolumeChange=False))
mbs.Assemble()

settings = exu.SimulationSettings()
settings.timeIntegration.numberOfSteps = steps
settings.timeIntegration.endTime = steps * h
settings.timeIntegration.verboseMode = 0
settings.solution.file.write = False
settings.solution.sensors.writePeriod = 1e9
settings.timeIntegration.newton.useModifiedNewton = True
settings.show.computationTime = False
settings.show.statistics = False

start = time.perf_counter()
exu.SolveDynamic(mbs, settings, solverType=exu.DynamicSolverType.TrapezoidalIndex2)
seconds = time.perf_counter() - start
angle = mbs.GetNodeOutput(node, exu.OutputVariableType.Rotation)
p = mbs.GetNodeOutput(pressures, exu.OutputVariableType.Coordinates)
print(json.dumps({
    "tool": f"exudyn {exu.__version__} (fast module)",
    "steps": steps,
    "us_per_step": 1e6 * seconds / steps,
    "angle": float(angle[2]) if hasattr(angle, "__len__") else float(angle),
    "p0": float(p[0]), "p1": float(p[1]),
}))

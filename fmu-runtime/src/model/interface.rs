//! The FMI interface table: which quantities the FMU exposes, and how each one maps onto
//! a parameter slot or a computed quantity ("probe") of the instance.

use super::CompiledModel;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Causality {
    Parameter,
    Input,
    Output,
    Local,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Variability {
    Constant,
    Fixed,
    Tunable,
    Discrete,
    Continuous,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Initial {
    Exact,
    Approx,
    Calculated,
}

/// FMI base type of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VarType {
    Real,
    Integer,
    Boolean,
}

/// Cartesian component of a vector quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    pub fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }
}

/// A quantity computed from the instance state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Probe {
    /// Joint coordinate of body `i`'s tree joint [rad or m] (its rate, its acceleration).
    JointPosition(usize),
    JointVelocity(usize),
    JointAcceleration(usize),
    /// Pin-to-pin length [m], extension speed [m/s], force on the mechanism [N]
    /// (positive pushes the pins apart) of cylinder `i`.
    CylinderLength(usize),
    CylinderSpeed(usize),
    CylinderForce(usize),
    /// Seal-friction force of cylinder `i` [N].
    CylinderFriction(usize),
    /// Pressure of hydraulic node `i` [Pa].
    NodePressure(usize),
    /// Spool position of spool `i` (same unit as its command).
    SpoolPosition(usize),
    /// Flow through hydraulic element `i` [m³/s]: for valves the flow into port A, for
    /// pumps/orifices/reliefs/leakages from `from` to `to`.
    ElementFlow(usize),
    /// Hydraulic power delivered by pump `i` [W] (Δp·Q).
    PumpPower(usize),
    /// Shaft speed [rad/s], torque on the driven joint [N·m] and flow A→B [m³/s] of
    /// rotary motor `i`.
    MotorSpeed(usize),
    MotorTorque(usize),
    MotorFlow(usize),
    /// World position, velocity [m, m/s] of marker `i`.
    MarkerPosition(usize, Axis),
    MarkerVelocity(usize, Axis),
    /// Planar rotation angle of body `i` about a world axis [rad], in (−π, π]: about z
    /// `atan2(R₂₁, R₁₁)` (where the body's x axis points in the world x–y plane), about x
    /// `atan2(R₃₂, R₂₂)`, about y `atan2(R₁₃, R₃₃)`. The absolute boom angle of a planar
    /// machine, whatever chain of relative joints carries it.
    BodyAngle(usize, Axis),
    /// World angular velocity component of body `i` [rad/s].
    BodyAngularVelocity(usize, Axis),
    KineticEnergy,
    PotentialEnergy,
    /// Kinetic + potential [J].
    TotalEnergy,
    /// Work done on the mechanism by actuators, applied forces, dampers and the base port [J].
    ActuatorWork,
    /// Mechanical energy added at once by the master's changes of tunable parameters [J].
    ParameterWork,
    /// Total − initial total − actuator work − parameter work [J]: zero for an exact
    /// integrator.
    EnergyBalanceError,
    ConstraintNorm,
    ConstraintVelocityNorm,
    ConstraintAccelerationNorm,
    /// Newton iterations of the last internal step (Integer).
    NewtonIterations,
    /// Internal steps taken since initialization (Integer).
    StepCount,
    /// Oil held by accumulator `i` [m³].
    AccumulatorVolume(usize),
    /// Relative displacement ε ∈ [0, 1] of the variable pump that is element `i` [-].
    PumpDisplacement(usize),
    /// Path length from drum to hook [m], unstretched rope out [m] and tension [N] of rope
    /// `i` (in the order of the ropes among the force elements).
    RopeLength(usize),
    RopeOut(usize),
    RopeTension(usize),
    /// Force [N] and moment about the port's reference point [N·m] the machine exerts on
    /// its carrier, in base axes.
    BaseForce(Axis),
    BaseMoment(Axis),
    /// Power the carrier delivers to the machine through the base [W] and its work [J].
    BasePower,
    BaseWork,
    /// The computed side of port `i` (of [`CompiledModel::ports`](super::CompiledModel)):
    /// joint rate, pressure (flow port), flow into the machine (pressure and TLM ports) or
    /// shaft torque; the power it delivers into the machine [W] and its work [J].
    PortOutput(usize),
    PortPower(usize),
    PortWork(usize),
    /// Motion value `j` (< [`MOUNT_MOTION`](super::MOUNT_MOTION)) of the mount that is port
    /// `i`, world axes.
    MountMotion(usize, usize),
    /// Model Exchange: continuous state `k` of x = [z_i; ż_i; w] and its derivative
    /// (`solver::ode`); which joint coordinates are independent is the instance's
    /// partition, chosen at initialization and re-chosen at a step event.
    ContinuousState(usize),
    StateDerivative(usize),
    /// Modal coordinate `k` of flexible body `f` [m·√kg] (mass-normalised modes) and its
    /// rate.
    ModalCoordinate(usize, usize),
    ModalVelocity(usize, usize),
    /// Strain energy of flexible body `f` [J].
    StrainEnergy(usize),
    /// Deflection of marker `i` relative to its flexible body's frame, in that body's axes
    /// [m]: its interface node's translation plus the node's turn acting on the marker's
    /// offset (0 for a marker on a rigid body).
    MarkerDeflection(usize, Axis),
    /// Pin-to-pin length [m] and extension speed [m/s] of the force actuator that is
    /// force element `i`.
    ActuatorLength(usize),
    ActuatorSpeed(usize),
    /// An estimator FMU: the standard deviation of estimated state `k` of x = [z_i; ż_i; w]
    /// (`crate::estimator`), from the error covariance after the step's correction.
    EstimateSigma(usize),
    /// An estimator FMU: sensor `i`'s last innovation (measured − predicted) and its
    /// predicted standard deviation √(H P⁻ Hᵀ + R); 0 before its first sample.
    Innovation(usize),
    InnovationSigma(usize),
    /// An estimator FMU: the estimated load error on joint coordinate `loads.on[i]`
    /// [N·m or N].
    EstimatedLoad(usize),
    /// An estimator FMU: sensor `i`'s estimated bias (the quantity's unit).
    SensorBias(usize),
    /// An estimator FMU: what sensor `i` reads by the estimate, h(x̂) + its bias — the
    /// filtered signal, and the prediction its next sample is compared with.
    SensorEstimate(usize),
    /// An estimator FMU: samples skipped by its innovation gate so far.
    RejectedSamples,
    /// Contact pair `i` (of [`Contacts::pairs`](super::Contacts)): total normal force [N],
    /// deepest penetration [m] (negative: the gap), slip speed weighted by the points'
    /// normal forces [m/s], magnitude of the total friction force [N], points in contact.
    ContactNormalForce(usize),
    ContactPenetration(usize),
    ContactSlipSpeed(usize),
    ContactFrictionForce(usize),
    ContactPoints(usize),
    /// Contact points carrying force, all pairs (Integer).
    ContactActivePoints,
    /// Power the contacts' dampers and friction take out of the mechanism [W] (≥ 0).
    ContactDissipation,
}

impl Variable {
    /// A Model Exchange continuous state or its derivative.
    pub fn is_continuous_state(&self) -> bool {
        matches!(
            self.binding,
            Binding::Probe(Probe::ContinuousState(_) | Probe::StateDerivative(_))
        )
    }
}

impl Probe {
    pub fn is_valid(&self, m: &CompiledModel) -> bool {
        let nb = m.mechanism.bodies.len();
        let nc = m.circuit.cylinders.len();
        match *self {
            Probe::JointPosition(i) | Probe::JointVelocity(i) | Probe::JointAcceleration(i) => {
                i < nb && m.mechanism.bodies[i].joint.dof() == 1
            }
            Probe::CylinderLength(i)
            | Probe::CylinderSpeed(i)
            | Probe::CylinderForce(i)
            | Probe::CylinderFriction(i) => i < nc,
            Probe::NodePressure(i) => i < m.circuit.nodes.len(),
            Probe::MotorSpeed(i) | Probe::MotorTorque(i) | Probe::MotorFlow(i) => {
                i < m.circuit.motors.len()
            }
            Probe::SpoolPosition(i) => i < m.circuit.spools.len(),
            Probe::ElementFlow(i) => i < m.circuit.elements.len(),
            Probe::PumpPower(i) => matches!(
                m.circuit.elements.get(i),
                Some(super::Element::Pump(_) | super::Element::LoadSensingPump(_))
            ),
            Probe::PumpDisplacement(i) => matches!(
                m.circuit.elements.get(i),
                Some(super::Element::LoadSensingPump(_))
            ),
            Probe::MarkerPosition(i, _) | Probe::MarkerVelocity(i, _) => {
                i < m.mechanism.markers.len()
            }
            Probe::BodyAngle(i, _) | Probe::BodyAngularVelocity(i, _) => i < nb,
            Probe::ModalCoordinate(f, k) | Probe::ModalVelocity(f, k) => {
                m.mechanism.flexible.get(f).is_some_and(|fb| k < fb.modes())
            }
            Probe::AccumulatorVolume(i) => i < m.circuit.accumulators.len(),
            Probe::RopeLength(i) | Probe::RopeOut(i) | Probe::RopeTension(i) => {
                i < m.mechanism.ropes().count()
            }
            Probe::BaseForce(_) | Probe::BaseMoment(_) | Probe::BasePower | Probe::BaseWork => {
                m.mechanism.base.is_some()
            }
            Probe::PortOutput(i) | Probe::PortPower(i) | Probe::PortWork(i) => i < m.ports.len(),
            Probe::ActuatorLength(i) | Probe::ActuatorSpeed(i) => matches!(
                m.mechanism.forces.get(i),
                Some(super::ForceElement::ForceActuator(_))
            ),
            Probe::MountMotion(i, j) => {
                j < super::MOUNT_MOTION
                    && matches!(
                        m.ports.get(i).map(|p| p.kind),
                        Some(super::PortKind::Mount { .. })
                    )
            }
            Probe::Innovation(i) | Probe::InnovationSigma(i) | Probe::SensorEstimate(i) => {
                m.estimator.as_ref().is_some_and(|e| i < e.sensors.len())
            }
            // How many states the filter has is the runtime's (like the continuous states);
            // one past them reads NaN.
            Probe::EstimateSigma(_) | Probe::RejectedSamples => m.estimator.is_some(),
            Probe::EstimatedLoad(i) => m
                .estimator
                .as_ref()
                .and_then(|e| e.loads.as_ref())
                .is_some_and(|l| i < l.on.len()),
            Probe::ContactNormalForce(i)
            | Probe::ContactPenetration(i)
            | Probe::ContactSlipSpeed(i)
            | Probe::ContactFrictionForce(i)
            | Probe::ContactPoints(i) => i < m.mechanism.contacts.pairs.len(),
            Probe::SensorBias(i) => m
                .estimator
                .as_ref()
                .is_some_and(|e| e.sensors.get(i).is_some_and(|s| s.bias.is_some())),
            _ => true,
        }
    }
}

/// Where the value of a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Binding {
    /// A slot of the parameter vector (parameters and inputs).
    Param(super::ParamId),
    /// A computed quantity (outputs).
    Probe(Probe),
}

/// One FMI ScalarVariable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variable {
    /// Structured FMI name, e.g. `boom.cylinder.p_cap`.
    pub name: String,
    pub value_reference: u32,
    pub description: String,
    pub causality: Causality,
    pub variability: Variability,
    /// `None` means the attribute is omitted in the XML.
    pub initial: Option<Initial>,
    pub var_type: VarType,
    /// SI unit name (must be defined in the XML UnitDefinitions); `None` = dimensionless.
    pub unit: Option<String>,
    pub display_unit: Option<String>,
    /// Start value (SI); required for parameters and inputs.
    pub start: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// Typical magnitude for a master's error control (continuous states).
    pub nominal: Option<f64>,
    pub binding: Binding,
}

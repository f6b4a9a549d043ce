//! Output cache: quantities computed once per accepted state, so `fmi2GetReal` is a
//! lookup (no evaluation, no allocation).

use super::evaluate::Evaluation;
use super::{Layout, Workspace, charts};
use crate::hydraulics::cylinder::CylinderState;
use crate::math;
use crate::mechanics::spatial::{Vec3, ang, lin, vec3};
use crate::model::{CompiledModel, Element, JointKind, MOUNT_MOTION, PortKind, Probe};
use crate::solver::State;
use nalgebra::{Rotation3, UnitQuaternion};

#[derive(Clone, Debug)]
pub struct Outputs {
    pub cylinders: Vec<CylinderState>,
    pub motors: Vec<crate::hydraulics::motor::MotorState>,
    pub pressure: Vec<f64>,
    pub flow: Vec<f64>,
    /// Oil held by each accumulator [m³].
    pub accumulators: Vec<f64>,
    pub ropes: Vec<crate::mechanics::rope::RopeState>,
    /// Marker position and velocity, `[x, y, z, vx, vy, vz]`.
    pub markers: Vec<[f64; 6]>,
    /// Per body, its planar angles (as the atan2 arguments) and angular velocity.
    pub bodies: Vec<BodyOutputs>,
    pub kinetic: f64,
    pub potential: f64,
    /// Wrench on the carrier about the base port's reference point, base axes
    /// `[F; M]`.
    pub base: [f64; 6],
    /// The computed side of each port.
    pub ports: Vec<f64>,
    /// The motion of each mount port (zeros for other ports), see [`mount_motion`].
    pub mounts: Vec<[f64; MOUNT_MOTION]>,
    pub phi_norm: f64,
    pub dphi_norm: f64,
    pub ddphi_norm: f64,
    /// Per re-charted rotation: angles, rates, accelerations of its whole orientation
    /// ([`charts::joint_angles`]), and per body the (rotation, part) it is, if any.
    pub charted: Vec<[[f64; 3]; 3]>,
    pub chart_part: Vec<Option<(usize, usize)>>,
    /// Per contact pair its summary; points carrying force; dissipated power [W].
    pub contact_pairs: Vec<crate::contact::PairSummary>,
    pub contact_active: usize,
    pub contact_dissipation: f64,
}

/// What a body's angle and angular-velocity outputs are read from.
#[derive(Clone, Copy, Debug)]
pub struct BodyOutputs {
    /// The rotation's `[R21, R11, R02, R22, R10, R00]`: the planar angle about world x is
    /// `atan2(R21, R11)`, about y `atan2(R02, R22)`, about z `atan2(R10, R00)`. The angles
    /// are taken when read: three `atan2` per body and step cost a small machine's step
    /// 1.5 % whether or not anyone reads them.
    atan2_args: [f64; 6],
    /// `[ωx, ωy, ωz]` in world axes.
    angular_velocity: [f64; 3],
}

impl BodyOutputs {
    const AT_REST: BodyOutputs = BodyOutputs {
        atan2_args: [0.0, 1.0, 0.0, 1.0, 0.0, 1.0],
        angular_velocity: [0.0; 3],
    };

    /// Planar angle about world axis `a` (0 = x, 1 = y, 2 = z).
    fn angle(&self, a: usize) -> f64 {
        math::atan2(self.atan2_args[2 * a], self.atan2_args[2 * a + 1])
    }
}

impl Outputs {
    pub fn new(m: &CompiledModel, charts: &[charts::Chart]) -> Outputs {
        let mut chart_part = vec![None; m.mechanism.bodies.len()];
        for (k, c) in charts.iter().enumerate() {
            for (i, &b) in c.bodies.iter().enumerate() {
                chart_part[b] = Some((k, i));
            }
        }
        Outputs {
            cylinders: vec![CylinderState::default(); m.circuit.cylinders.len()],
            motors: vec![Default::default(); m.circuit.motors.len()],
            pressure: vec![0.0; m.circuit.nodes.len()],
            flow: vec![0.0; m.circuit.elements.len()],
            accumulators: vec![0.0; m.circuit.accumulators.len()],
            ropes: vec![Default::default(); m.mechanism.ropes().count()],
            markers: vec![[0.0; 6]; m.mechanism.markers.len()],
            bodies: vec![BodyOutputs::AT_REST; m.mechanism.bodies.len()],
            kinetic: 0.0,
            potential: 0.0,
            base: [0.0; 6],
            ports: vec![0.0; m.ports.len()],
            mounts: vec![[0.0; MOUNT_MOTION]; m.ports.len()],
            phi_norm: 0.0,
            dphi_norm: 0.0,
            ddphi_norm: 0.0,
            charted: vec![[[0.0; 3]; 3]; charts.len()],
            chart_part,
            contact_pairs: vec![Default::default(); m.mechanism.contacts.pairs.len()],
            contact_active: 0,
            contact_dissipation: 0.0,
        }
    }

    /// Copies what the outputs need from an evaluation at the state `st`.
    pub fn capture(
        &mut self,
        m: &CompiledModel,
        l: &Layout,
        e: &Evaluation,
        charts: &[charts::Chart],
        st: &State,
    ) {
        for (k, (out, c)) in self.charted.iter_mut().zip(charts).enumerate() {
            *out = charts::joint_angles(c, k, st);
        }
        self.cylinders.copy_from_slice(&e.cylinders);
        self.motors.copy_from_slice(&e.motors);
        self.pressure.copy_from_slice(&e.pressure);
        self.flow.copy_from_slice(&e.flow);
        self.accumulators.copy_from_slice(e.volumes.stored_oil());
        self.ropes.copy_from_slice(&e.ropes);
        self.contact_pairs.copy_from_slice(&e.contact.pairs);
        self.contact_active = e.contact.active;
        self.contact_dissipation = -e.contact.power;
        for (out, mk) in self.markers.iter_mut().zip(&m.mechanism.markers) {
            let (x, v) = e.kin.point(&mk.point);
            *out = [x.x, x.y, x.z, v.x, v.y, v.z];
        }
        for (out, b) in self.bodies.iter_mut().zip(&e.kin.bodies) {
            let r = &b.rotation;
            *out = BodyOutputs {
                atan2_args: [
                    r[(2, 1)],
                    r[(1, 1)],
                    r[(0, 2)],
                    r[(2, 2)],
                    r[(1, 0)],
                    r[(0, 0)],
                ],
                angular_velocity: [b.twist[3], b.twist[4], b.twist[5]],
            };
        }
        (self.kinetic, self.potential) = e.energies(&m.mechanism);
        self.ports.copy_from_slice(&e.port_out);
        for (out, port) in self.mounts.iter_mut().zip(&m.ports) {
            if let PortKind::Mount { body, origin, .. } = port.kind {
                *out = mount_motion(e, body, &vec3(origin));
            }
        }
        if let Some(port) = &m.mechanism.base {
            // The carrier feels the opposite of what it applies.
            let f = -lin(&e.base_wrench);
            let moment = -ang(&e.base_wrench) - vec3(port.reference).cross(&f);
            self.base = [f.x, f.y, f.z, moment.x, moment.y, moment.z];
        }
        // Φ, Φ̇ = Φ_z ż and Φ̈ = Φ_z z̈ + Φ̇_z ż.
        let (mut p2, mut v2, mut a2) = (0.0, 0.0, 0.0);
        for r in 0..l.nc {
            let row = &e.phi_z[r * l.nz..(r + 1) * l.nz];
            let v: f64 = row.iter().zip(&st.zd).map(|(a, b)| a * b).sum();
            let a: f64 = row.iter().zip(&st.zdd).map(|(a, b)| a * b).sum::<f64>() + e.phi_bias[r];
            p2 += e.phi[r] * e.phi[r];
            v2 += v * v;
            a2 += a * a;
        }
        self.phi_norm = p2.sqrt();
        self.dphi_norm = v2.sqrt();
        self.ddphi_norm = a2.sqrt();
    }
}

/// World-frame motion of the frame at `origin` on `body` (body axes): position,
/// orientation quaternion `[w, x, y, z]` (w ≥ 0), velocity, angular velocity,
/// acceleration and angular acceleration.
fn mount_motion(e: &Evaluation, body: usize, origin: &Vec3) -> [f64; MOUNT_MOTION] {
    let kb = &e.kin.bodies[body];
    let (twist, accel) = e.base.absolute(kb);
    let x = kb.point(origin);
    let (w, alpha) = (ang(&twist), ang(&accel));
    let v = lin(&twist) + w.cross(&x);
    let a = lin(&accel) + alpha.cross(&x) + w.cross(&v);
    let r = e.base.rotation;
    let q =
        UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(r * kb.rotation));
    let s = if q.w < 0.0 { -1.0 } else { 1.0 };
    let mut out = [0.0; MOUNT_MOTION];
    let vectors = [e.base.origin + r * x, r * v, r * w, r * a, r * alpha];
    out[3..7].copy_from_slice(&[s * q.w, s * q.i, s * q.j, s * q.k]);
    for (slot, vec) in [0, 7, 10, 13, 16].into_iter().zip(vectors) {
        out[slot..slot + 3].copy_from_slice(vec.as_slice());
    }
    out
}

pub fn probe(m: &CompiledModel, l: &Layout, st: &State, ws: &Workspace, probe: Probe) -> f64 {
    let o = &ws.outputs;
    // Joint probes name bodies with a 1-dof joint (checked by `Probe::is_valid`).
    let coordinate = |body: usize| ws.eval.kin.bodies[body].coordinate.unwrap_or(0);
    // A part of a re-charted rotation reads the angles of the whole orientation.
    let charted = |body: usize, order: usize| {
        let (k, part) = o.chart_part[body]?;
        Some(o.charted[k][order][part])
    };
    match probe {
        Probe::JointPosition(b) => charted(b, 0).unwrap_or_else(|| st.z[coordinate(b)]),
        Probe::JointVelocity(b) => charted(b, 1).unwrap_or_else(|| st.zd[coordinate(b)]),
        Probe::JointAcceleration(b) => charted(b, 2).unwrap_or_else(|| st.zdd[coordinate(b)]),
        Probe::CylinderLength(c) => o.cylinders[c].length,
        Probe::CylinderSpeed(c) => o.cylinders[c].speed,
        Probe::CylinderForce(c) => o.cylinders[c].force,
        Probe::CylinderFriction(c) => o.cylinders[c].friction,
        Probe::NodePressure(n) => o.pressure[n],
        Probe::SpoolPosition(s) => st.w[l.n_pressures + s],
        Probe::ElementFlow(e) => o.flow[e],
        Probe::AccumulatorVolume(i) => o.accumulators[i],
        Probe::PumpPower(e) => match &m.circuit.elements[e] {
            Element::Pump(pump) => (o.pressure[pump.outlet] - o.pressure[pump.inlet]) * o.flow[e],
            Element::LoadSensingPump(pump) => {
                (o.pressure[pump.outlet] - o.pressure[pump.inlet]) * o.flow[e]
            }
            _ => 0.0,
        },
        Probe::PumpDisplacement(e) => match &m.circuit.elements[e] {
            Element::LoadSensingPump(pump) => st.w[l.first_displacement() + pump.state],
            _ => 0.0,
        },
        Probe::RopeLength(i) => o.ropes[i].length,
        Probe::RopeOut(i) => o.ropes[i].out,
        Probe::RopeTension(i) => o.ropes[i].tension,
        Probe::MotorSpeed(i) => o.motors[i].speed,
        Probe::MotorTorque(i) => o.motors[i].torque,
        Probe::MotorFlow(i) => o.motors[i].flow,
        Probe::MarkerPosition(i, a) => o.markers[i][a.index()],
        Probe::MarkerVelocity(i, a) => o.markers[i][3 + a.index()],
        Probe::BodyAngle(i, a) => o.bodies[i].angle(a.index()),
        Probe::BodyAngularVelocity(i, a) => o.bodies[i].angular_velocity[a.index()],
        Probe::KineticEnergy => o.kinetic,
        Probe::PotentialEnergy => o.potential,
        Probe::TotalEnergy => o.kinetic + o.potential,
        Probe::ActuatorWork => st.work,
        Probe::ParameterWork => st.parameter_work,
        Probe::EnergyBalanceError => {
            o.kinetic + o.potential - st.energy0 - st.work - st.parameter_work
        }
        Probe::ConstraintNorm => o.phi_norm,
        Probe::ConstraintVelocityNorm => o.dphi_norm,
        Probe::ConstraintAccelerationNorm => o.ddphi_norm,
        Probe::BaseForce(a) => o.base[a.index()],
        Probe::BaseMoment(a) => o.base[3 + a.index()],
        Probe::PortOutput(i) => o.ports[i],
        Probe::MountMotion(i, j) => o.mounts[i][j],
        Probe::PortPower(i) => st.port_power[i],
        Probe::PortWork(i) => st.port_work[i],
        Probe::BasePower => st.base_power,
        Probe::BaseWork => st.base_work,
        Probe::NewtonIterations => st.iterations as f64,
        Probe::StepCount => st.steps as f64,
        // The ODE's partition lives in the instance, which answers these itself.
        Probe::ContinuousState(_)
        | Probe::StateDerivative(_)
        | Probe::EstimateSigma(_)
        | Probe::Innovation(_)
        | Probe::InnovationSigma(_)
        | Probe::EstimatedLoad(_)
        | Probe::SensorBias(_)
        | Probe::SensorEstimate(_)
        | Probe::RejectedSamples => f64::NAN,
        Probe::ModalCoordinate(f, k) => st.z[m.mechanism.modal_start(f) + k],
        Probe::ModalVelocity(f, k) => st.zd[m.mechanism.modal_start(f) + k],
        Probe::StrainEnergy(f) => {
            let start = m.mechanism.modal_start(f);
            let body = &m.mechanism.flexible[f];
            let eta = &st.z[start..start + body.modes()];
            0.5 * body
                .stiffness
                .iter()
                .zip(eta)
                .map(|(k, e)| k * e * e)
                .sum::<f64>()
        }
        Probe::ContactNormalForce(i) => o.contact_pairs[i].normal_force,
        Probe::ContactPenetration(i) => o.contact_pairs[i].penetration,
        Probe::ContactSlipSpeed(i) => o.contact_pairs[i].slip_speed,
        Probe::ContactFrictionForce(i) => o.contact_pairs[i].friction_force,
        Probe::ContactPoints(i) => o.contact_pairs[i].points as f64,
        Probe::ContactActivePoints => o.contact_active as f64,
        Probe::ContactDissipation => o.contact_dissipation,
        Probe::MarkerDeflection(i, axis) => marker_deflection(m, st, i)[axis.index()],
        Probe::ActuatorLength(i) | Probe::ActuatorSpeed(i) => {
            let crate::model::ForceElement::ForceActuator(fa) = &m.mechanism.forces[i] else {
                return f64::NAN;
            };
            let line = super::evaluate::PinLine::between(&ws.eval.kin, &fa.a, &fa.b);
            if matches!(probe, Probe::ActuatorLength(_)) {
                line.length
            } else {
                line.rate
            }
        }
    }
}

/// Where marker `i` has moved relative to its flexible body's frame (body axes): the
/// translation of its interface node and the node's turn acting on the marker's offset.
fn marker_deflection(m: &CompiledModel, st: &State, i: usize) -> [f64; 3] {
    use crate::mechanics::ffrf;
    let point = &m.mechanism.markers[i].point;
    let Some(JointKind::Node { flexible, node }) = point.body.map(|b| m.mechanism.bodies[b].joint)
    else {
        return [0.0; 3];
    };
    let body = &m.mechanism.flexible[flexible];
    let start = m.mechanism.modal_start(flexible);
    let (u, th) = ffrf::node_deformation(&body.nodes[node], &st.z[start..start + body.modes()]);
    let offset = vec3(point.point);
    let d = u + (ffrf::exp_rotation(&th) - crate::mechanics::spatial::Mat3::identity()) * offset;
    [d.x, d.y, d.z]
}

//! One evaluation of the whole machine at given coordinates, rates, accelerations and
//! first-order states: kinematics, forces, inverse-dynamics residual, constraints and
//! hydraulic rates. All buffers are allocated once in [`Evaluation::new`].

use super::Layout;
use crate::contact::ContactScratch;
use crate::hydraulics::cylinder::{self, CylinderState};
use crate::hydraulics::friction;
use crate::hydraulics::motor::{self, MotorState};
use crate::hydraulics::network;
use crate::hydraulics::pump;
use crate::hydraulics::valve::dead_band;
use crate::mechanics::Kinematics;
use crate::mechanics::base::BaseMotion;
use crate::mechanics::constraints::{self, ConstraintEval, PrismaticReference};
use crate::mechanics::dynamics::{self, add_point_force};
use crate::mechanics::end_stop;
use crate::mechanics::ffrf;
use crate::mechanics::rope::{self, RopeState};
use crate::mechanics::spatial::{Vec3, Vec6, join, vec3};
use crate::model::{CompiledModel, Element, ForceElement, Node, PointRef, PortKind};

/// What the first-order columns of the tangent linearise about: the last full evaluation's
/// inverse-dynamics residual, actuator forces, and the generalised force of a unit force
/// of each cylinder (`∂L/∂z`, row-major cylinders × nz) with its time derivative (`J̇`,
/// read by the assembled tangent columns).
pub struct FirstOrderBase {
    pub(crate) r_mech: Vec<f64>,
    pub(crate) cylinder_force: Vec<f64>,
    pub(crate) motor_torque: Vec<f64>,
    pub(crate) cylinder_jacobian: Vec<f64>,
    pub(crate) cylinder_jacobian_rate: Vec<f64>,
}

impl FirstOrderBase {
    pub fn new(m: &CompiledModel, l: &Layout) -> FirstOrderBase {
        let nc = m.circuit.cylinders.len();
        FirstOrderBase {
            r_mech: vec![0.0; l.nz],
            cylinder_force: vec![0.0; nc],
            motor_torque: vec![0.0; m.circuit.motors.len()],
            cylinder_jacobian: vec![0.0; nc * l.nz],
            cylinder_jacobian_rate: vec![0.0; nc * l.nz],
        }
    }
}

/// The line between two body points (a cylinder's or a spring's pins): ends, length, unit
/// vector from `a` to `b` (zero when the pins coincide) and extension rate.
pub(crate) struct PinLine {
    a: Vec3,
    b: Vec3,
    pub(crate) length: f64,
    unit: Vec3,
    pub(crate) rate: f64,
}

impl PinLine {
    pub(crate) fn between(kin: &Kinematics, a: &PointRef, b: &PointRef) -> PinLine {
        let (xa, va) = kin.point(a);
        let (xb, vb) = kin.point(b);
        let d = xb - xa;
        let length = d.norm();
        let unit = if length > 1e-12 {
            d / length
        } else {
            Vec3::zeros()
        };
        PinLine {
            a: xa,
            b: xb,
            length,
            unit,
            rate: unit.dot(&(vb - va)),
        }
    }
}

pub struct Evaluation {
    pub kin: Kinematics,
    /// Motion of the base frame (fixed unless a carrier drives it).
    pub base: BaseMotion,
    /// Wrench the carrier applies to the machine through the base, about the base origin
    /// in base axes (what the machine's inertia and gravity need beyond the external
    /// forces).
    pub base_wrench: Vec6,
    /// Power the carrier delivers to the machine through the base [W].
    pub base_power: f64,
    /// The computed side of each port ([`crate::model::Probe::PortOutput`]) and the power
    /// it delivers into the machine [W].
    pub port_out: Vec<f64>,
    pub port_power: Vec<f64>,
    applied: Vec<Vec6>,
    scratch: Vec<Vec6>,
    pub cylinders: Vec<CylinderState>,
    pub motors: Vec<MotorState>,
    /// Every rope's geometry and tension, in the order of the force elements.
    pub ropes: Vec<RopeState>,
    /// Every contact point and pair.
    pub contact: ContactScratch,
    /// Pressure of every node [Pa].
    pub pressure: Vec<f64>,
    inflow: Vec<f64>,
    /// Per-node volume sums of the pressure rates, and the oil the accumulators hold.
    pub volumes: network::VolumeScratch,
    /// Flow of every element [m³/s].
    pub flow: Vec<f64>,
    /// ṗ of every control volume [Pa/s].
    pub rates: Vec<f64>,
    /// `M z̈ − Q` (without constraint forces).
    pub r_mech: Vec<f64>,
    /// Residuals of the first-order states: `ṗ − rate`, `τ u̇ + u − u_set` (spools) and
    /// `τ ε̇ + ε − ε*` (pump displacements).
    pub r_first: Vec<f64>,
    pub phi: Vec<f64>,
    /// Φ_z, row-major nc × nz.
    pub phi_z: Vec<f64>,
    /// Φ̇_z ż.
    pub phi_bias: Vec<f64>,
    /// Power delivered to the mechanism by actuators, applied forces and dampers [W].
    pub power: f64,
    /// Elastic energy of springs [J].
    pub spring_energy: f64,
    /// Number of evaluations so far (for profiling the step's cost).
    pub count: u64,
    /// Number of partial (first-order) evaluations so far.
    pub partial_count: u64,
    /// Reference vectors of prismatic cuts (see [`solver::cut_references`](super::cut_references)).
    pub prismatic: Vec<PrismaticReference>,
}

impl Evaluation {
    pub fn new(m: &CompiledModel, l: &Layout) -> Evaluation {
        let nb = m.mechanism.bodies.len();
        Evaluation {
            kin: Kinematics::new(&m.mechanism),
            base: BaseMotion::fixed(m.gravity),
            base_wrench: Vec6::zeros(),
            base_power: 0.0,
            port_out: vec![0.0; m.ports.len()],
            port_power: vec![0.0; m.ports.len()],
            applied: vec![Vec6::zeros(); nb],
            scratch: vec![Vec6::zeros(); nb],
            cylinders: vec![CylinderState::default(); m.circuit.cylinders.len()],
            motors: vec![MotorState::default(); m.circuit.motors.len()],
            ropes: vec![RopeState::default(); m.mechanism.ropes().count()],
            contact: ContactScratch::new(&m.mechanism.contacts),
            pressure: vec![0.0; m.circuit.nodes.len()],
            inflow: vec![0.0; m.circuit.nodes.len()],
            volumes: network::VolumeScratch::new(&m.circuit),
            flow: vec![0.0; m.circuit.elements.len()],
            rates: vec![0.0; l.n_pressures],
            r_mech: vec![0.0; l.nz],
            r_first: vec![0.0; l.nw],
            phi: vec![0.0; l.nc],
            phi_z: vec![0.0; l.nc * l.nz],
            phi_bias: vec![0.0; l.nc],
            power: 0.0,
            spring_energy: 0.0,
            count: 0,
            partial_count: 0,
            prismatic: vec![PrismaticReference::default(); m.mechanism.cut_joints.len()],
        }
    }

    /// Evaluates everything at the given point.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        m: &CompiledModel,
        l: &Layout,
        p: &[f64],
        z: &[f64],
        zd: &[f64],
        zdd: &[f64],
        w: &[f64],
        wd: &[f64],
    ) {
        self.count += 1;
        let mech = &m.mechanism;
        self.kin.update(mech, |b| p[b.mass.index()], z, zd, zdd);
        // Inputs were checked when set (`Instance::advance`); a bad one keeps the last motion.
        if let Some(port) = &mech.base
            && let Ok(base) = BaseMotion::carried(port, p, m.gravity)
        {
            self.base = base;
        }
        let mut external = Vec6::zeros();
        self.applied.fill(Vec6::zeros());
        // Modal damping works against the flexible bodies' deformation rates.
        self.power = -mech
            .flexible
            .iter()
            .zip(&self.kin.modal)
            .map(|(f, s)| ffrf::damping_power(f, s))
            .sum::<f64>();
        self.spring_energy = 0.0;

        // Node pressures: control volumes from the state, the rest from parameters.
        let mut k = 0;
        for (n, node) in m.circuit.nodes.iter().enumerate() {
            self.pressure[n] = match node {
                Node::Volume(_) => {
                    k += 1;
                    w[k - 1]
                }
                Node::Pressure { pressure, .. } => p[pressure.index()],
            };
        }

        // Cylinders: geometry from the pins, force back onto the pins; friction states follow
        // the spools and pump displacements in w.
        let mut fy = l.first_friction();
        for (c, s) in m.circuit.cylinders.iter().zip(self.cylinders.iter_mut()) {
            let line = PinLine::between(&self.kin, &c.cap_point, &c.rod_point);
            let (xa, xb, e) = (line.a, line.b, line.unit);
            *s = cylinder::kinematics(c, p, line.length, line.rate);
            fy = cylinder_forces(c, p, s, &self.pressure, w, wd, fy, &mut self.r_first);
            add_point_force(&mut self.applied, c.rod_point.body, &xb, &(e * s.force));
            add_point_force(&mut self.applied, c.cap_point.body, &xa, &(-e * s.force));
            self.power += s.force * s.speed;
        }

        // Rotary motors: a moment about the joint axis on the body, its reaction on the
        // parent.
        for (mo, s) in m.circuit.motors.iter().zip(self.motors.iter_mut()) {
            let k = &self.kin.bodies[mo.body];
            let q_dot = k.coordinate.map_or(0.0, |c| zd[c]);
            *s = motor::evaluate(
                mo,
                p,
                q_dot,
                self.pressure[mo.port_a],
                self.pressure[mo.port_b],
            );
            let axis = Vec3::new(k.b[3], k.b[4], k.b[5]);
            let moment = Vec6::new(0.0, 0.0, 0.0, axis.x, axis.y, axis.z) * s.torque;
            self.applied[mo.body] += moment;
            if let Some(parent) = mech.bodies[mo.body].parent {
                self.applied[parent] -= moment;
            }
            self.power += s.torque * q_dot;
        }

        for f in &mech.forces {
            match f {
                ForceElement::SpringDamper(sd) => {
                    let line = PinLine::between(&self.kin, &sd.a, &sd.b);
                    let (xa, xb, e, rate) = (line.a, line.b, line.unit, line.rate);
                    let stretch = line.length - p[sd.free_length.index()];
                    let k_s = p[sd.stiffness.index()];
                    let c_d = p[sd.damping.index()];
                    // Tension positive: pulls the points together.
                    let tension = k_s * stretch + c_d * rate;
                    add_point_force(&mut self.applied, sd.b.body, &xb, &(-e * tension));
                    add_point_force(&mut self.applied, sd.a.body, &xa, &(e * tension));
                    self.spring_energy += 0.5 * k_s * stretch * stretch;
                    self.power -= c_d * rate * rate;
                }
                ForceElement::PointForce(pf) => {
                    let (x, v) = self.kin.point(&pf.point);
                    // Given in world axes; it works on the point's absolute velocity.
                    let f = self.base.to_base(&vec3([
                        p[pf.force[0].index()],
                        p[pf.force[1].index()],
                        p[pf.force[2].index()],
                    ]));
                    add_point_force(&mut self.applied, pf.point.body, &x, &f);
                    if pf.point.body.is_some() {
                        external += join(f, x.cross(&f));
                    }
                    self.power += f.dot(&(v + self.base.velocity_at(&x)));
                }
                ForceElement::ForceActuator(fa) => {
                    let line = PinLine::between(&self.kin, &fa.a, &fa.b);
                    // Positive pushes the points apart.
                    let push = p[fa.force.index()];
                    add_point_force(&mut self.applied, fa.b.body, &line.b, &(line.unit * push));
                    add_point_force(&mut self.applied, fa.a.body, &line.a, &(-line.unit * push));
                    self.power += push * line.rate;
                }
                // Generalized forces added to the residual, and ropes: both below.
                ForceElement::JointLimit(_) | ForceElement::Rope(_) => {}
            }
        }
        // Mounts: the carried machine's wrench, given in the mount frame (= body axes).
        for (k, port) in m.ports.iter().enumerate() {
            if let PortKind::Mount {
                body,
                origin,
                force,
                moment,
            } = port.kind
            {
                let kb = &self.kin.bodies[body];
                let read = |ids: [crate::model::ParamId; 3]| {
                    kb.rotation * vec3(ids.map(|id| p[id.index()]))
                };
                let (f, moment) = (read(force), read(moment));
                let x = kb.point(&vec3(origin));
                let wrench = join(f, x.cross(&f) + moment);
                self.applied[body] += wrench;
                external += wrench;
                let v = kb.velocity_at(&x) + self.base.velocity_at(&x);
                let w = kb.angular_velocity() + crate::mechanics::spatial::ang(&self.base.twist);
                self.port_power[k] = f.dot(&v) + moment.dot(&w);
                self.power += self.port_power[k];
            }
        }
        // Ropes: the tension pulls neighbouring path points together; the drum's share is a
        // generalized force, added below.
        for (r, state) in mech.ropes().zip(self.ropes.iter_mut()) {
            let (q, qd) = self.kin.bodies[r.drum]
                .coordinate
                .map_or((0.0, 0.0), |c| (z[c], zd[c]));
            let s = RopeState::of(r, p, &self.kin, q, qd);
            for pair in r.path.windows(2) {
                let (xa, _) = self.kin.point(&pair[0]);
                let (xb, _) = self.kin.point(&pair[1]);
                let pull = rope::direction(&xa, &xb) * s.tension;
                add_point_force(&mut self.applied, pair[0].body, &xa, &pull);
                add_point_force(&mut self.applied, pair[1].body, &xb, &(-pull));
            }
            self.power -= s.tension * s.stretch_rate;
            *state = s;
        }
        // Contacts with the ground: forces at the touching points of the shapes.
        if !mech.contacts.is_empty() {
            let b = l.first_bristle();
            self.contact.evaluate(
                &mech.contacts,
                &self.kin,
                &self.base,
                p,
                &w[b..],
                &mut self.applied,
            );
            self.contact
                .bristle_residuals(&w[b..], &wd[b..], &mut self.r_first[b..]);
            external += self.contact.wrench;
            self.spring_energy += self.contact.energy;
            self.power += self.contact.power;
        }

        let inertial = dynamics::inverse_dynamics(
            mech,
            &self.kin,
            &self.base,
            &self.applied,
            &mut self.scratch,
            &mut self.r_mech,
        );
        self.base_wrench = inertial - external;
        if !self.base.fixed {
            self.base_power = self.base_wrench.dot(&self.base.twist);
            self.power += self.base_power;
        }
        // End stops: a generalized force on the joint's own coordinate.
        for f in &mech.forces {
            if let ForceElement::JointLimit(jl) = f
                && let Some(c) = self.kin.bodies[jl.body].coordinate
            {
                let tau = end_stop::force(
                    z[c],
                    zd[c],
                    p[jl.lower.index()],
                    p[jl.upper.index()],
                    p[jl.stiffness.index()],
                    p[jl.damping.index()],
                );
                self.r_mech[c] -= tau;
                self.power += tau * zd[c];
            }
        }
        // Joint ports: a generalized force between the body and its parent.
        for (k, port) in m.ports.iter().enumerate() {
            if let PortKind::JointForce { body, force } = port.kind
                && let Some(c) = self.kin.bodies[body].coordinate
            {
                let f = p[force.index()];
                self.r_mech[c] -= f;
                self.port_out[k] = zd[c];
                self.port_power[k] = f * zd[c];
                self.power += self.port_power[k];
            }
        }
        // An estimator's load errors: generalized forces on their coordinates.
        if let Some(loads) = m.estimator.as_ref().and_then(|e| e.loads.as_ref()) {
            for &(c, id) in &loads.on {
                let f = p[id.index()];
                self.r_mech[c] -= f;
                self.power += f * zd[c];
            }
        }
        // Ropes: the tension turns the drum to pay out, `T·r` on its coordinate.
        for (r, s) in mech.ropes().zip(&self.ropes) {
            if let Some(c) = self.kin.bodies[r.drum].coordinate {
                self.r_mech[c] -= s.tension * p[r.drum_radius.index()];
            }
        }

        if l.nc > 0 {
            constraints::evaluate(
                mech,
                &self.kin,
                l.nz,
                &self.prismatic,
                ConstraintEval {
                    phi: &mut self.phi,
                    jacobian: &mut self.phi_z,
                    bias: &mut self.phi_bias,
                },
            );
        }

        // Hydraulics.
        self.hydraulic_rates(m, l, p, w, wd);
    }

    /// Records the linearisation point of [`Evaluation::run_first_order`]: must follow a
    /// full [`Evaluation::run`].
    pub fn capture_first_order_base(
        &self,
        m: &CompiledModel,
        l: &Layout,
        base: &mut FirstOrderBase,
    ) {
        base.r_mech.copy_from_slice(&self.r_mech);
        for (f, s) in base.cylinder_force.iter_mut().zip(&self.cylinders) {
            *f = s.force;
        }
        for (t, s) in base.motor_torque.iter_mut().zip(&self.motors) {
            *t = s.torque;
        }
        // ∂L/∂z of each cylinder's pin distance and its rate.
        for (i, c) in m.circuit.cylinders.iter().enumerate() {
            let rows = i * l.nz..(i + 1) * l.nz;
            self.kin.line_jacobian(
                &m.mechanism,
                &c.cap_point,
                &c.rod_point,
                &mut base.cylinder_jacobian[rows.clone()],
                &mut base.cylinder_jacobian_rate[rows],
            );
        }
    }

    /// Re-evaluates only what depends on the first-order states `w` and their rates
    /// (pressures, spools, friction states) at the z, ż, z̈ of the last full evaluation: the
    /// kinematics and constraint terms are kept, and the inverse-dynamics residual is moved
    /// linearly by the change of the actuator forces (it is linear in them). Used for the
    /// first-order columns of the finite-difference tangent, which then cost no kinematics,
    /// inverse dynamics or constraint evaluation.
    #[allow(clippy::too_many_arguments)]
    pub fn run_first_order(
        &mut self,
        m: &CompiledModel,
        l: &Layout,
        p: &[f64],
        zd: &[f64],
        w: &[f64],
        wd: &[f64],
        base: &FirstOrderBase,
    ) {
        self.partial_count += 1;
        let mut k = 0;
        for (n, node) in m.circuit.nodes.iter().enumerate() {
            if let Node::Volume(_) = node {
                self.pressure[n] = w[k];
                k += 1;
            }
        }
        self.r_mech.copy_from_slice(&base.r_mech);
        if l.n_bristles > 0 {
            let b = l.first_bristle();
            self.contact
                .bristle_change(&m.mechanism, &self.kin, &w[b..], &mut self.r_mech);
            self.contact
                .bristle_residuals(&w[b..], &wd[b..], &mut self.r_first[b..]);
        }
        let mut fy = l.first_friction();
        for (i, (c, s)) in m
            .circuit
            .cylinders
            .iter()
            .zip(self.cylinders.iter_mut())
            .enumerate()
        {
            fy = cylinder_forces(c, p, s, &self.pressure, w, wd, fy, &mut self.r_first);
            let df = s.force - base.cylinder_force[i];
            if df != 0.0 {
                let g = &base.cylinder_jacobian[i * l.nz..(i + 1) * l.nz];
                for (r, gk) in self.r_mech.iter_mut().zip(g) {
                    *r -= df * gk;
                }
            }
        }
        for (i, (mo, s)) in m
            .circuit
            .motors
            .iter()
            .zip(self.motors.iter_mut())
            .enumerate()
        {
            let kb = &self.kin.bodies[mo.body];
            let q_dot = kb.coordinate.map_or(0.0, |c| zd[c]);
            *s = motor::evaluate(
                mo,
                p,
                q_dot,
                self.pressure[mo.port_a],
                self.pressure[mo.port_b],
            );
            // The moment pair about the joint axis (unit) acts on that joint's coordinate only.
            if let Some(c) = kb.coordinate {
                self.r_mech[c] -= s.torque - base.motor_torque[i];
            }
        }
        self.hydraulic_rates(m, l, p, w, wd);
    }

    /// Flows, pressure rates and first-order residuals at the current node pressures and
    /// cylinder states.
    fn hydraulic_rates(&mut self, m: &CompiledModel, l: &Layout, p: &[f64], w: &[f64], wd: &[f64]) {
        let spool = &w[l.n_pressures..l.first_displacement()];
        let displacement = &w[l.first_displacement()..l.first_friction()];
        network::element_flows(
            &m.circuit,
            p,
            &self.pressure,
            spool,
            displacement,
            &mut self.flow,
            &mut self.inflow,
        );
        for (mo, s) in m.circuit.motors.iter().zip(&self.motors) {
            self.inflow[mo.port_a] -= s.flow;
            self.inflow[mo.port_b] += s.flow;
        }
        self.hydraulic_ports(m, p);
        network::pressure_rates(
            &m.circuit,
            p,
            &self.pressure,
            &self.inflow,
            &self.cylinders,
            &mut self.volumes,
            &mut self.rates,
        );
        for k in 0..l.n_pressures {
            self.r_first[k] = wd[k] - self.rates[k];
        }
        for (i, s) in m.circuit.spools.iter().enumerate() {
            let j = l.n_pressures + i;
            let target = dead_band(
                p[s.command.index()],
                s.dead_band_centre,
                p[s.dead_band.index()],
            )
            .clamp(s.min, s.max);
            self.r_first[j] = p[s.time_constant.index()] * wd[j] + w[j] - target;
        }
        for e in &m.circuit.elements {
            if let Element::LoadSensingPump(pump) = e {
                let j = l.first_displacement() + pump.state;
                let target = pump::regulator_setting(pump, p, &self.pressure);
                self.r_first[j] = p[pump.time_constant.index()] * wd[j] + w[j] - target;
            }
        }
    }

    /// Flows of the hydraulic ports into their volumes (before the pressure rates), the
    /// flows drawn from pressure ports (after every other flow), and shaft torques.
    fn hydraulic_ports(&mut self, m: &CompiledModel, p: &[f64]) {
        for (k, port) in m.ports.iter().enumerate() {
            let (node, q) = match port.kind {
                PortKind::Flow { node, flow } => {
                    self.port_out[k] = self.pressure[node];
                    (node, p[flow.index()])
                }
                PortKind::Tlm {
                    node,
                    wave,
                    impedance,
                } => {
                    // The line end: p = c − Zc q with q into the machine.
                    let q = (p[wave.index()] - self.pressure[node]) / p[impedance.index()];
                    self.port_out[k] = q;
                    (node, q)
                }
                _ => continue,
            };
            self.inflow[node] += q;
            self.port_power[k] = self.pressure[node] * q;
        }
        for (k, port) in m.ports.iter().enumerate() {
            match port.kind {
                PortKind::Pressure { node } => {
                    // What the machine's elements draw from the node.
                    let q = -self.inflow[node];
                    self.port_out[k] = q;
                    self.port_power[k] = self.pressure[node] * q;
                }
                PortKind::PumpShaft { element } => {
                    if let Element::Pump(pump) = &m.circuit.elements[element] {
                        let rise = self.pressure[pump.outlet] - self.pressure[pump.inlet];
                        let torque = p[pump.displacement.index()] * rise / std::f64::consts::TAU;
                        self.port_out[k] = torque;
                        self.port_power[k] = torque * p[pump.speed.index()];
                    }
                }
                _ => {}
            }
        }
    }

    /// Kinetic and potential (gravity + springs) energy at the last evaluation [J].
    pub fn energies(&self, mech: &crate::model::Mechanism) -> (f64, f64) {
        let ke = dynamics::kinetic_energy(mech, &self.kin, &self.base);
        let pe = dynamics::potential_energy(mech, &self.kin, &self.base) + self.spring_energy;
        (ke, pe)
    }
}

/// Seal friction (and its internal-state residuals at `fy`) and the net force of one
/// cylinder at its current length and speed; returns the index of the next friction state.
#[allow(clippy::too_many_arguments)]
fn cylinder_forces(
    c: &crate::model::Cylinder,
    p: &[f64],
    s: &mut CylinderState,
    pressure: &[f64],
    w: &[f64],
    wd: &[f64],
    fy: usize,
    r_first: &mut [f64],
) -> usize {
    let ns = c.friction.states();
    let (y, yd) = (&w[fy..fy + ns], &wd[fy..fy + ns]);
    let f_mu = friction::force(&c.friction, p, s.speed, y, yd);
    if ns > 0 {
        friction::state_residuals(&c.friction, p, s.speed, y, yd, &mut r_first[fy..fy + ns]);
    }
    cylinder::forces(c, p, s, pressure[c.cap_node], pressure[c.rod_node], f_mu);
    fy + ns
}

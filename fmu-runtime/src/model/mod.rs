//! The compiled model: everything about a machine that does not change while it runs.
//!
//! Like MuJoCo's `mjModel`, it holds topology, geometry, component data and the FMI
//! interface table; the mutable part of a simulation lives in [`crate::Instance`].
//! Numbers that a user may tune (masses, pressures, valve commands, ...) are not stored
//! inline: components refer to a [`ParamId`], an index into the instance's parameter
//! vector, whose defaults are [`CompiledModel::params`]. This lets any numeric field be
//! exposed as an FMI parameter or input without special cases in the solver.
//!
//! The model is produced by `model-compiler`, serialized with postcard into the FMU's
//! model file ([`file`]); [`CompiledModel::from_bytes`] validates it when an instance is
//! created.

mod circuit;
mod contact;
pub mod estimator;
pub mod file;
mod flexible;
mod interface;
mod mechanism;
mod ports;

pub use circuit::*;
pub use contact::*;
pub use flexible::*;
pub use interface::*;
pub use mechanism::*;
pub use ports::*;

use serde::{Deserialize, Serialize};

/// Version of the serialized [`CompiledModel`] layout; bump on any change of these types.
pub const MODEL_FORMAT_VERSION: u32 = 28;

/// Index into the instance parameter vector (see module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ParamId(pub u32);

impl ParamId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One entry of the parameter vector: a named scalar with its default value (SI units).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamSlot {
    /// Path of the field in the description, e.g. `boom.mass` or `valve.tau`.
    pub name: String,
    pub default: f64,
}

/// Integration formulation of the mechanics (seed 001, Pub I compares the two).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Formulation {
    /// Index-3 augmented Lagrangian with mass-damping-stiffness-orthogonal projections.
    AugmentedLagrangian,
    /// Coordinate partitioning ("double-step semi-recursive", seed 001 §2.1.4): the
    /// independent coordinates are integrated, the dependent ones follow from the position
    /// problem, so constraints hold to solver precision.
    DoubleStep,
}

/// Linear solver of the Newton tangent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LinearSolver {
    /// Sparse when its factorisation is predicted cheaper (see `solver::plan`).
    #[default]
    Auto,
    /// Dense LU with partial pivoting.
    Dense,
    /// Sparse LU on the structural pattern, fill-reducing order, diagonal pivots.
    Sparse,
}

/// How the Newton tangent's joint-coordinate columns are formed (the first-order columns
/// are always forward differences of partial evaluations).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TangentMethod {
    /// From the model's structure (`solver::assembled`): mass matrix, penalty term and the
    /// stiffness and damping of every actuator and spring through its line of action; the
    /// gyroscopic and geometric-stiffness terms are left out. One mass-matrix pass and a
    /// few partial evaluations instead of one full evaluation per column group.
    #[default]
    Assembled,
    /// Forward differences of the whole residual (seed 001 eqs 2.61–2.62).
    FiniteDifference,
}

/// Solver settings; the step is a parameter so that users can trade accuracy for speed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolverSettings {
    pub formulation: Formulation,
    /// Internal fixed step [s] (FMI parameter `solver.step`).
    pub step: ParamId,
    /// Penalty factor α. If `None`, α is chosen per step as
    /// `penalty_ratio · m_ref · 4/h²` so that the penalty term dominates the mass term by a
    /// fixed ratio whatever the step (a fixed α diverges when the step shrinks).
    pub penalty: Option<ParamId>,
    pub penalty_ratio: f64,
    /// Newton convergence tolerances on the update of each kind of unknown.
    pub tol_position: f64,
    pub tol_pressure: f64,
    pub tol_state: f64,
    /// Iteration cap of one Newton solve (a real-time step must have a bounded cost).
    pub max_iterations: u32,
    /// Number of times a failed step is retried with the step halved before giving up.
    pub max_step_halvings: u32,
    /// Keep the factored Newton tangent across steps while Newton contracts well
    /// (modified Newton: fewer evaluations per step, sometimes one or two more iterations).
    /// Off: a fresh tangent every step, as in seeds 001 and 002.
    pub reuse_tangent: bool,
    pub linear_solver: LinearSolver,
    pub tangent: TangentMethod,
}

/// Initial-state settings used by the static-equilibrium solve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InitSettings {
    /// Start from static equilibrium (pressures, spool and friction states solved, and the
    /// joint coordinates nothing else holds settled).
    pub static_equilibrium: bool,
    /// Joint coordinates (indices in z) the static equilibrium keeps at their initial
    /// values although nothing holds them (`init.hold`: a pendulum released from an angle).
    pub hold: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    pub description: String,
    pub author: String,
    pub version: String,
    pub license: String,
    pub copyright: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DefaultExperiment {
    pub start_time: f64,
    pub stop_time: f64,
    pub step_size: f64,
    pub tolerance: f64,
}

/// The whole machine, ready to simulate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompiledModel {
    pub format_version: u32,
    pub name: String,
    /// FMI `modelIdentifier`: a C identifier, also the shared-library base name.
    pub model_identifier: String,
    /// FMI `guid`, derived from the model content by the compiler.
    pub guid: String,
    pub metadata: Metadata,
    pub default_experiment: DefaultExperiment,
    pub gravity: [f64; 3],
    pub solver: SolverSettings,
    pub init: InitSettings,
    pub params: Vec<ParamSlot>,
    pub mechanism: Mechanism,
    pub circuit: Circuit,
    /// Coupling ports other than the base (see [`ports`]).
    pub ports: Vec<Port>,
    /// The FMI interface, in `modelDescription.xml` order.
    pub variables: Vec<Variable>,
    /// The sensors and plant noise of an estimator FMU (`hydromech build --estimator`);
    /// `None` for the machine itself.
    pub estimator: Option<estimator::EstimatorSpec>,
}

/// Why a serialized model could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelError(pub String);

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModelError {}

impl CompiledModel {
    pub fn to_bytes(&self) -> Vec<u8> {
        postcard::to_allocvec(self).expect("a compiled model always serializes")
    }

    /// Decodes and validates a model; every index inside it is checked so that the solver
    /// can index without bounds surprises.
    pub fn from_bytes(bytes: &[u8]) -> Result<CompiledModel, ModelError> {
        if bytes.is_empty() {
            return Err(ModelError(
                "the model is empty; build an FMU with `hydromech build`".into(),
            ));
        }
        let model: CompiledModel = postcard::from_bytes(bytes)
            .map_err(|e| ModelError(format!("the compiled model cannot be decoded: {e}")))?;
        if model.format_version != MODEL_FORMAT_VERSION {
            return Err(ModelError(format!(
                "model format {} is not supported by this runtime (expects {MODEL_FORMAT_VERSION})",
                model.format_version
            )));
        }
        model.validate()?;
        Ok(model)
    }

    /// Value of a parameter in the defaults.
    pub fn default_param(&self, id: ParamId) -> f64 {
        self.params[id.index()].default
    }

    /// Structural checks of indices and numbers (the compiler gives user-facing errors;
    /// this guards the runtime against a corrupted or hand-made blob).
    /// The z-y-x rotations the runtime may re-chart: those whose coordinates mean nothing
    /// beyond the orientation they give (no motor, rope drum, end stop or joint port acts
    /// on one of them: each of those would act about another axis after a re-chart).
    pub fn charted_rotations(&self) -> impl Iterator<Item = &ZyxRotation> {
        let mut acted_on = Vec::new();
        acted_on.extend(self.circuit.motors.iter().map(|m| m.body));
        for f in &self.mechanism.forces {
            match f {
                ForceElement::Rope(r) => acted_on.push(r.drum),
                ForceElement::JointLimit(l) => acted_on.push(l.body),
                _ => {}
            }
        }
        for port in &self.ports {
            if let PortKind::JointForce { body, .. } | PortKind::JointMotion { body, .. } =
                port.kind
            {
                acted_on.push(body);
            }
        }
        self.mechanism
            .rotations
            .iter()
            .filter(move |r| !r.bodies.iter().any(|b| acted_on.contains(b)))
    }

    /// Flexible bodies: sound data, one per body, and interface nodes that hang from theirs.
    fn validate_flexible(&self) -> Result<(), ModelError> {
        let mech = &self.mechanism;
        let err = |m: String| Err(ModelError(m));
        for (f, fb) in mech.flexible.iter().enumerate() {
            if let Err(e) = fb.check() {
                return err(format!("flexible body {f}: {e}"));
            }
            match mech.bodies.get(fb.body) {
                None => return err(format!("flexible body {f} refers to a missing body")),
                Some(b) if matches!(b.joint, JointKind::Node { .. }) => {
                    return err(format!("flexible body {} hangs at a node", b.name));
                }
                _ => {}
            }
            if mech.flexible[..f].iter().any(|g| g.body == fb.body) {
                return err(format!("body {} is flexible twice", fb.body));
            }
        }
        for b in &mech.bodies {
            if let JointKind::Node { flexible, node } = b.joint {
                let ok = mech
                    .flexible
                    .get(flexible)
                    .is_some_and(|fb| node < fb.nodes.len() && b.parent == Some(fb.body));
                if !ok {
                    return err(format!(
                        "{} is not an interface node of its parent flexible body",
                        b.name
                    ));
                }
            }
        }
        Ok(())
    }

    pub fn validate(&self) -> Result<(), ModelError> {
        let np = self.params.len();
        let nb = self.mechanism.bodies.len();
        let nn = self.circuit.nodes.len();
        let ns = self.circuit.spools.len();
        let err = |m: String| Err(ModelError(m));
        if let Some(e) = &self.estimator {
            e.validate(self).map_err(ModelError)?;
        }
        let joints = self.mechanism.joint_coordinates();
        if let Some(c) = self.init.hold.iter().find(|&&c| c >= joints) {
            return err(format!(
                "init.hold names coordinate {c}; the mechanism has {joints} joint coordinates"
            ));
        }
        let mut ids = Vec::new();
        self.collect_params(&mut ids);
        if let Some(bad) = ids.iter().find(|p| p.index() >= np) {
            return err(format!(
                "parameter index {} out of range ({np} parameters)",
                bad.0
            ));
        }
        for (i, b) in self.mechanism.bodies.iter().enumerate() {
            if b.parent.is_some_and(|p| p >= i) {
                return err(format!("body {i} ({}) must come after its parent", b.name));
            }
        }
        if let Err(e) = self.mechanism.contacts.validate(nb) {
            return err(e);
        }
        let body_ok = |b: Option<usize>| b.is_none_or(|b| b < nb);
        let mut points = Vec::new();
        self.collect_points(&mut points);
        if points.iter().any(|p| !body_ok(p.body)) {
            return err("a point refers to a body that does not exist".into());
        }
        for m in &self.mechanism.markers {
            if !body_ok(m.point.body) {
                return err(format!("marker {} refers to a missing body", m.name));
            }
        }
        for f in &self.mechanism.forces {
            if let ForceElement::Rope(r) = f {
                let revolute = matches!(
                    self.mechanism.bodies.get(r.drum).map(|b| b.joint),
                    Some(JointKind::Revolute { .. })
                );
                if !revolute || r.path.len() < 2 {
                    return err(format!(
                        "rope {} needs a drum on a revolute joint and a path of two points",
                        r.name
                    ));
                }
            }
        }
        self.validate_flexible()?;
        for r in &self.mechanism.rotations {
            if !self.mechanism.is_zyx_chain(r.bodies) {
                return err(format!(
                    "rotation {} is not a chain of revolutes about z, y, x",
                    r.name
                ));
            }
        }
        for c in &self.mechanism.cut_joints {
            if !body_ok(c.a.body) || !body_ok(c.b.body) {
                return err(format!("cut joint {} refers to a missing body", c.name));
            }
        }
        for e in &self.circuit.elements {
            if e.nodes().iter().any(|&n| n >= nn) {
                return err("a hydraulic element refers to a missing node".into());
            }
            if let Element::DirectionalValve(v) = e {
                if v.spool >= ns {
                    return err(format!("valve {} refers to a missing spool", v.name));
                }
                for edge in &v.edges {
                    if edge.table.len() < 2 || edge.table.windows(2).any(|w| w[1].0 <= w[0].0) {
                        return err(format!("valve {}: an edge table is not increasing", v.name));
                    }
                }
                if let Some(ls) = &v.load_sense
                    && !ls.gate.iter().all(|g| g.is_finite() && *g > 0.0)
                {
                    return err(format!("valve {}: its LS gate must be positive", v.name));
                }
            }
        }
        // Pump displacement states: each index once, 0..count.
        let mut seen = vec![false; self.circuit.displacement_states()];
        for e in &self.circuit.elements {
            if let Element::LoadSensingPump(p) = e {
                match seen.get_mut(p.state) {
                    Some(s) if !*s => *s = true,
                    _ => return err(format!("pump {} has a bad displacement state", p.name)),
                }
            }
        }
        for c in &self.circuit.cylinders {
            if c.cap_node >= nn || c.rod_node >= nn {
                return err(format!("cylinder {} refers to a missing node", c.name));
            }
        }
        for mo in &self.circuit.motors {
            if mo.port_a >= nn || mo.port_b >= nn {
                return err(format!("motor {} refers to a missing node", mo.name));
            }
            if !matches!(
                self.mechanism.bodies.get(mo.body).map(|b| b.joint),
                Some(JointKind::Revolute { .. })
            ) {
                return err(format!("motor {} must drive a revolute joint", mo.name));
            }
        }
        for port in &self.ports {
            let ok = match port.kind {
                PortKind::JointForce { body, .. } | PortKind::JointMotion { body, .. } => self
                    .mechanism
                    .bodies
                    .get(body)
                    .is_some_and(|b| b.joint.dof() == 1),
                PortKind::Flow { node, .. } | PortKind::Tlm { node, .. } => {
                    matches!(self.circuit.nodes.get(node), Some(Node::Volume(_)))
                }
                PortKind::Pressure { node } => {
                    matches!(self.circuit.nodes.get(node), Some(Node::Pressure { .. }))
                }
                PortKind::PumpShaft { element } => {
                    matches!(self.circuit.elements.get(element), Some(Element::Pump(_)))
                }
                PortKind::Mount { body, origin, .. } => {
                    body < self.mechanism.bodies.len() && origin.iter().all(|v| v.is_finite())
                }
            };
            if !ok {
                return err(format!(
                    "port {} is on a missing or wrong component",
                    port.name
                ));
            }
            if matches!(port.kind, PortKind::JointMotion { .. })
                && self.solver.formulation != Formulation::AugmentedLagrangian
            {
                return err(format!(
                    "port {} prescribes a joint's motion, which needs the augmented-Lagrangian formulation",
                    port.name
                ));
            }
        }
        for (i, v) in self.variables.iter().enumerate() {
            if let Binding::Probe(p) = &v.binding
                && !p.is_valid(self)
            {
                return err(format!(
                    "variable {i} ({}) probes a missing element",
                    v.name
                ));
            }
        }
        if self.params.iter().any(|p| !p.default.is_finite()) {
            return err("a parameter default is not finite".into());
        }
        self.validate_continuous_states()
    }

    /// Model Exchange: the continuous states x\[k\] and their derivatives, each k of
    /// 0..n exactly once ([`CompiledModel::continuous_states`]).
    fn validate_continuous_states(&self) -> Result<(), ModelError> {
        let n = self.continuous_states();
        let mut seen = vec![[false; 2]; n];
        for v in &self.variables {
            let (k, d) = match v.binding {
                Binding::Probe(Probe::ContinuousState(k)) => (k, 0),
                Binding::Probe(Probe::StateDerivative(k)) => (k, 1),
                _ => continue,
            };
            if k >= n || std::mem::replace(&mut seen[k][d], true) {
                return Err(ModelError(format!(
                    "variable {} names continuous state {k} of {n} out of range or twice",
                    v.name
                )));
            }
        }
        if seen.iter().any(|s| s != &[true, true]) {
            return Err(ModelError(
                "a continuous state lacks its derivative variable".into(),
            ));
        }
        Ok(())
    }

    /// Number of continuous states the FMU declares for Model Exchange (0: Co-Simulation
    /// only).
    pub fn continuous_states(&self) -> usize {
        self.variables
            .iter()
            .filter(|v| matches!(v.binding, Binding::Probe(Probe::ContinuousState(_))))
            .count()
    }

    fn collect_points(&self, out: &mut Vec<PointRef>) {
        for f in &self.mechanism.forces {
            match f {
                ForceElement::SpringDamper(s) => out.extend([s.a, s.b]),
                ForceElement::PointForce(p) => out.push(p.point),
                ForceElement::JointLimit(_) => {}
                ForceElement::Rope(r) => out.extend(r.path.iter().copied()),
                ForceElement::ForceActuator(a) => out.extend([a.a, a.b]),
            }
        }
        for c in &self.circuit.cylinders {
            out.extend([c.cap_point, c.rod_point]);
        }
    }

    /// Every point that sits on a body, with what holds it (for the compiler's passes that
    /// move points, such as onto a flexible body's interface nodes).
    pub fn points_mut(&mut self, mut f: impl FnMut(String, &mut PointRef)) {
        for m in &mut self.mechanism.markers {
            f(format!("marker '{}'", m.name), &mut m.point);
        }
        for c in &mut self.mechanism.cut_joints {
            f(format!("point a of cut joint '{}'", c.name), &mut c.a);
            f(format!("point b of cut joint '{}'", c.name), &mut c.b);
        }
        for e in &mut self.mechanism.forces {
            match e {
                ForceElement::SpringDamper(s) => {
                    f(format!("point a of spring-damper '{}'", s.name), &mut s.a);
                    f(format!("point b of spring-damper '{}'", s.name), &mut s.b);
                }
                ForceElement::PointForce(p) => f(format!("point force '{}'", p.name), &mut p.point),
                ForceElement::JointLimit(_) => {}
                ForceElement::Rope(r) => {
                    for p in &mut r.path {
                        f(format!("a point of rope '{}'", r.name), p);
                    }
                }
                ForceElement::ForceActuator(a) => {
                    f(format!("point a of force actuator '{}'", a.name), &mut a.a);
                    f(format!("point b of force actuator '{}'", a.name), &mut a.b);
                }
            }
        }
        for c in &mut self.circuit.cylinders {
            f(
                format!("the cap eye of cylinder '{}'", c.name),
                &mut c.cap_point,
            );
            f(
                format!("the rod eye of cylinder '{}'", c.name),
                &mut c.rod_point,
            );
        }
        for p in &mut self.ports {
            if let PortKind::Mount { body, origin, .. } = &mut p.kind {
                let mut point = PointRef {
                    body: Some(*body),
                    point: *origin,
                };
                f(format!("mount port '{}'", p.name), &mut point);
                if let Some(b) = point.body {
                    *body = b;
                }
                *origin = point.point;
            }
        }
    }

    /// Every [`ParamId`] the model refers to.
    pub fn collect_params(&self, out: &mut Vec<ParamId>) {
        out.push(self.solver.step);
        out.extend(self.solver.penalty);
        for b in &self.mechanism.bodies {
            out.extend([b.mass, b.q0]);
        }
        for f in &self.mechanism.forces {
            match f {
                ForceElement::SpringDamper(s) => {
                    out.extend([s.stiffness, s.damping, s.free_length])
                }
                ForceElement::PointForce(p) => out.extend(p.force),
                ForceElement::JointLimit(j) => {
                    out.extend([j.lower, j.upper, j.stiffness, j.damping])
                }
                ForceElement::Rope(r) => {
                    out.extend([r.drum_radius, r.length, r.axial_stiffness, r.damping])
                }
                ForceElement::ForceActuator(a) => out.push(a.force),
            }
        }
        if let Some(base) = &self.mechanism.base {
            out.extend(base.params());
        }
        self.mechanism.contacts.collect_params(out);
        self.circuit.collect_params(out);
        for port in &self.ports {
            out.extend(port.params());
        }
        for v in &self.variables {
            if let Binding::Param(p) = v.binding {
                out.push(p);
            }
        }
    }
}

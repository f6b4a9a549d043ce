//! Time integration: implicit trapezoidal rule with every primary unknown (joint
//! coordinates, pressures, spool states) in one Newton loop, closed loops by the
//! index-3 augmented Lagrangian; static-equilibrium initialisation; output probes.

pub mod assembled;
pub mod cavitation;
pub mod charts;
mod data;
pub mod double_step;
pub mod drives;
pub mod equilibrium;
mod equilibrium_problem;
pub mod evaluate;
pub mod input_change;
pub mod linalg;
mod multipliers;
pub mod near_pairs;
pub mod newton;
pub mod ode;
mod outputs;
pub mod plan;
pub(crate) mod predictor;
mod projection;
mod residual;
mod settling;
mod slip_limiter;
pub mod sparse_lu;
pub mod sparsity;
mod state;
mod stick_projection;
mod tangent;
mod trapped_oil;

pub use data::{Data, Model};
pub use equilibrium::{ParameterSolveError, solve_equilibrium_parameters};
pub use outputs::Outputs;
pub use state::State;

use crate::model::{CompiledModel, Formulation, Node, Probe};
use evaluate::Evaluation;

/// Sizes of the unknown vectors of a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Coordinates: the joint coordinates, then the flexible bodies' modal coordinates.
    pub nz: usize,
    /// Joint coordinates (the first `nq` of z).
    pub nq: usize,
    /// First-order states: control-volume pressures, spool positions, pump displacements,
    /// friction states, in this order.
    pub nw: usize,
    /// Constraint equations.
    pub nc: usize,
    pub n_pressures: usize,
    pub n_spools: usize,
    /// Relative displacements of the variable pumps (swash plates), after the spools.
    pub n_displacements: usize,
    /// Internal friction states (LuGre bristles, lubricant film), after the displacements.
    pub n_friction: usize,
    /// Contact points' bristle deflections (LuGre contact friction), after the friction
    /// states: the last of w.
    pub n_bristles: usize,
    /// Coupling ports (other than the base), each with a power and a work.
    pub n_ports: usize,
    /// Re-charted z-y-x rotations (`charts`), each with a turn in the state.
    pub n_charts: usize,
    /// Contact pairs the sparse tangent couples only while they are near (`near_pairs`),
    /// each with a flag in the state.
    pub n_near: usize,
}

impl Layout {
    pub fn of(m: &CompiledModel) -> Layout {
        let n_pressures = m.circuit.volumes();
        let n_spools = m.circuit.spools.len();
        let n_displacements = m.circuit.displacement_states();
        let n_friction = m.circuit.friction_states();
        let n_bristles = m.mechanism.contacts.bristle_states();
        Layout {
            nz: m.mechanism.coordinates(),
            nq: m.mechanism.joint_coordinates(),
            nw: n_pressures + n_spools + n_displacements + n_friction + n_bristles,
            nc: m.mechanism.constraint_equations(),
            n_pressures,
            n_spools,
            n_displacements,
            n_friction,
            n_bristles,
            n_ports: m.ports.len(),
            n_charts: m.charted_rotations().count(),
            n_near: m.mechanism.contacts.near_only_pairs().count(),
        }
    }

    /// Index in `w` of the first pump displacement.
    pub fn first_displacement(&self) -> usize {
        self.n_pressures + self.n_spools
    }

    /// Index in `w` of the first friction state.
    pub fn first_friction(&self) -> usize {
        self.first_displacement() + self.n_displacements
    }

    /// Index in `w` of the first contact bristle state.
    pub fn first_bristle(&self) -> usize {
        self.first_friction() + self.n_friction
    }
}

/// Every buffer the step loop needs, allocated once per instance.
pub struct Workspace {
    pub(crate) eval: Evaluation,
    /// Newton unknowns `[z; w]`, update, residuals (the tangent lives in the state).
    pub(crate) x: Vec<f64>,
    pub(crate) dx: Vec<f64>,
    pub(crate) f: Vec<f64>,
    pub(crate) f_pert: Vec<f64>,
    /// Per-unknown convergence tolerance and finite-difference scale.
    pub(crate) tol: Vec<f64>,
    pub(crate) scale: Vec<f64>,
    /// Trapezoidal history vectors and derived rates.
    pub(crate) zd_hat: Vec<f64>,
    pub(crate) zdd_hat: Vec<f64>,
    pub(crate) wd_hat: Vec<f64>,
    /// `∂ẇ/∂w` of each first-order state in this step: 2/h (trapezoidal) or 1/h (backward
    /// Euler, a pressure near vapour pressure; see [`cavitation`]).
    pub(crate) wd_gain: Vec<f64>,
    pub(crate) euler: Vec<bool>,
    /// Volumes (among the pressure unknowns) the initialization held at the make-up
    /// pressure as trapped oil (`trapped_oil`).
    pub(crate) held_at_make_up: Vec<usize>,
    /// Joint coordinates the static equilibrium settled (nothing else held them).
    pub(crate) settled: Vec<usize>,
    /// How well the static equilibrium was met (`None` without one).
    pub(crate) equilibrium: Option<equilibrium::EquilibriumReport>,
    /// Steps that took some pressure by backward Euler, and those of them solved twice (the
    /// trapezoidal solution ended near vapour pressure): diagnostics, like the evaluation
    /// counts.
    pub(crate) euler_steps: u64,
    pub(crate) resolved_steps: u64,
    pub(crate) zd: Vec<f64>,
    pub(crate) zdd: Vec<f64>,
    pub(crate) wd: Vec<f64>,
    pub(crate) lambda: Vec<f64>,
    pub(crate) dz: Vec<f64>,
    pub(crate) viol: Vec<f64>,
    pub(crate) outputs: Outputs,
    /// Linearisation point of the tangent's first-order columns.
    pub(crate) first_order: evaluate::FirstOrderBase,
    /// Buffers of the assembled joint-coordinate columns, when the model uses them.
    pub(crate) assembly: Option<assembled::AssemblyWork>,
    /// Buffers of the double-step formulation, when the model uses it.
    pub(crate) double_step: Option<double_step::DoubleStepWork>,
    /// Pattern, column groups and solver path of the tangent (fixed per instance).
    pub(crate) plan: std::sync::Arc<plan::TangentPlan>,
    /// Prescribed-motion joints, their references anchored at the communication point.
    pub(crate) drives: Vec<drives::Drive>,
    /// κ of the driven coordinates' rows in this step (the inertia scale).
    pub(crate) drive_gain: f64,
    /// The z-y-x rotations re-charted near gimbal lock.
    pub(crate) charts: Vec<charts::Chart>,
    /// Scratch of the sparse factorisation and solve.
    pub(crate) lu_at: Vec<usize>,
    pub(crate) lu_work: Vec<f64>,
    /// Buffers of the accelerations' jump when an input changes between steps.
    pub(crate) input_change: input_change::InputChangeWork,
    /// Newton on the multipliers, for a closed loop (augmented Lagrangian).
    pub(crate) multipliers: Option<multipliers::MultiplierWork>,
    /// The projections' matrix of a closed loop whose tangent is kept (`projection`).
    pub(crate) projection: Option<projection::MassProjection>,
    /// Sliding contact points put at stick together (`stick_projection`): with contact and
    /// without loop multipliers.
    pub(crate) stick: Option<stick_projection::StickProjection>,
}

impl Workspace {
    pub fn new(m: &CompiledModel, l: &Layout) -> Workspace {
        let n = l.nz + l.nw;
        let mut tol = vec![m.solver.tol_position; n];
        let mut scale = vec![0.01; n];
        for k in 0..l.nw {
            let pressure = k < l.n_pressures;
            tol[l.nz + k] = if pressure {
                m.solver.tol_pressure
            } else {
                m.solver.tol_state
            };
            scale[l.nz + k] = if pressure { 1e5 } else { 1e-2 };
        }
        modal_tolerances(&m.mechanism, m.solver.tol_position, &mut tol);
        let double_step = (m.solver.formulation == Formulation::DoubleStep)
            .then(|| double_step::DoubleStepWork::new(l, &tol, &scale));
        let drives = drives::of(m);
        let charts = charts::of(m);
        let plan = plan::TangentPlan::new(m, l, drives::mask(&drives, l.nz));
        let multiplied = l.nc > 0 && m.solver.formulation == Formulation::AugmentedLagrangian;
        Workspace {
            drives,
            drive_gain: 0.0,
            double_step,
            assembly: plan.assembled.then(|| assembled::AssemblyWork::new(m, l)),
            plan: std::sync::Arc::new(plan),
            lu_at: vec![0; n],
            lu_work: vec![0.0; n],
            input_change: input_change::InputChangeWork::new(m, l),
            multipliers: multiplied.then(|| multipliers::MultiplierWork::new(l.nz, n, l.nc)),
            projection: (multiplied && m.solver.reuse_tangent)
                .then(|| projection::MassProjection::new(&m.mechanism, l.nz)),
            stick: (!m.mechanism.contacts.is_empty() && !multiplied)
                .then(|| stick_projection::StickProjection::new(l.nz, n)),
            eval: Evaluation::new(m, l),
            x: vec![0.0; n],
            dx: vec![0.0; n],
            f: vec![0.0; n],
            f_pert: vec![0.0; n],
            tol,
            scale,
            zd_hat: vec![0.0; l.nz],
            zdd_hat: vec![0.0; l.nz],
            wd_hat: vec![0.0; l.nw],
            wd_gain: vec![0.0; l.nw],
            euler: vec![false; l.nw],
            held_at_make_up: Vec::new(),
            settled: Vec::new(),
            equilibrium: None,
            euler_steps: 0,
            resolved_steps: 0,
            zd: vec![0.0; l.nz],
            zdd: vec![0.0; l.nz],
            wd: vec![0.0; l.nw],
            lambda: vec![0.0; l.nc],
            dz: vec![0.0; l.nz],
            viol: vec![0.0; l.nc],
            outputs: Outputs::new(m, &charts),
            charts,
            first_order: evaluate::FirstOrderBase::new(m, l),
        }
    }

    /// The tangent's plan: pattern, column groups, solver path.
    pub fn plan(&self) -> &plan::TangentPlan {
        &self.plan
    }

    /// How often the double-step formulation re-chose its independent coordinates.
    pub fn partition_reselections(&self) -> u64 {
        self.double_step.as_ref().map_or(0, |d| d.reselections)
    }
}

/// Sets the joint coordinates to their initial values, everything else at rest, and the
/// first-order states to their starting guesses.
pub fn place_at_initial_configuration(model: Model<'_>, st: &mut State) {
    let (m, l, p) = model.parts();
    let mut c = 0;
    for b in &m.mechanism.bodies {
        if b.joint.dof() == 1 {
            st.z[c] = p[b.q0.index()];
            c += 1;
        }
    }
    // Flexible bodies start undeformed.
    st.z[c..l.nz].fill(0.0);
    st.zd.fill(0.0);
    st.zdd.fill(0.0);
    st.wd.fill(0.0);
    st.lambda.fill(0.0);
    let mut k = 0;
    for node in &m.circuit.nodes {
        if let Node::Volume(v) = node {
            st.w[k] = v.precharge.map_or(v.initial_guess, |pc| p[pc.index()]);
            k += 1;
        }
    }
    for (i, s) in m.circuit.spools.iter().enumerate() {
        st.w[l.n_pressures + i] = p[s.command.index()].clamp(s.min, s.max);
    }
    // Pumps start destroked, friction states relaxed (the equilibrium solve sets the
    // displacements).
    st.w[l.first_displacement()..].fill(0.0);
}

/// Kinetic plus potential energy of the state `st` under the parameters `p` [J] (leaves
/// the evaluation at the state).
pub fn mechanical_energy(model: Model<'_>, st: &State, ws: &mut Workspace) -> f64 {
    let (m, l, p) = model.parts();
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    let (ke, pe) = ws.eval.energies(&m.mechanism);
    ke + pe
}

/// Reference vectors of prismatic cut joints: their relative orientation is held at
/// what it is at the initial joint coordinates (taken from the parameters, so the result
/// is a function of the parameters and restores deterministically).
pub fn cut_references(model: Model<'_>, ws: &mut Workspace) {
    let (m, l, p) = model.parts();
    if !m
        .mechanism
        .cut_joints
        .iter()
        .any(|c| matches!(c.kind, crate::model::CutKind::Prismatic { .. }))
    {
        return;
    }
    let z0 = m.mechanism.initial_coordinates(p);
    let zero = vec![0.0; l.nz];
    ws.eval
        .kin
        .update(&m.mechanism, |b| p[b.mass.index()], &z0, &zero, &zero);
    crate::mechanics::constraints::prismatic_references(
        &m.mechanism,
        &ws.eval.kin,
        &mut ws.eval.prismatic,
    );
}

/// How the Newton tolerances shrink with the step `h`: by `(h/h₀)²` below the model's own
/// step h₀ (the description's `solver.step`). A position error δ becomes a rate error 2δ/h
/// and an acceleration error 4δ/h² through the trapezoidal formulas, so tolerances fixed at
/// h₀'s values stop the convergence at small steps (a plateau where the error no longer
/// falls with h). Above h₀ they stay as given.
pub(crate) fn tolerance_scale(m: &CompiledModel, h: f64) -> f64 {
    let h0 = m.default_param(m.solver.step);
    // (A step within rounding of h₀, e.g. the last sub-step of a communication step, is h₀.)
    if h0 > 0.0 && h < h0 * (1.0 - 1e-9) {
        (h / h0) * (h / h0)
    } else {
        1.0
    }
}

const FLOOR_ULPS: f64 = 8.0;

/// A scaled tolerance, never below what the update of a value `x` can resolve in double
/// precision (FLOOR_ULPS ulps of x).
/// A modal coordinate (m·√kg) converges with the motion it makes: its tolerance is the
/// position tolerance over its largest interface-node translation [m] or turn [rad] per
/// unit η, so that no node moves by more than `tol_position` (m or rad, as a joint
/// coordinate) in the last update. (The plain `tol_position` on η asked the PATU lift boom's
/// nodes for a tenth of it: 1.77 Newton iterations per step against the rigid crane's 1.40.)
fn modal_tolerances(mech: &crate::model::Mechanism, tol_position: f64, tol: &mut [f64]) {
    let norm = |v: &[f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    for (f, body) in mech.flexible.iter().enumerate() {
        let start = mech.modal_start(f);
        for k in 0..body.modes() {
            let reach = body
                .nodes
                .iter()
                .map(|n| norm(&n.translation[k]).max(norm(&n.rotation[k])))
                .fold(0.0, f64::max);
            if reach > 0.0 {
                tol[start + k] = tol_position / reach;
            }
        }
    }
}

pub(crate) fn tolerance(tol: f64, scale: f64, x: f64) -> f64 {
    (tol * scale).max(FLOOR_ULPS * f64::EPSILON * x.abs())
}

/// Newton update `x += dx`; returns its size in tolerances, `max |dx_i| / tol(i, x_i)` (x_i
/// updated), or an error at time `t` when it is not finite.
pub(crate) fn apply_update(
    x: &mut [f64],
    dx: &[f64],
    tol: impl Fn(usize, f64) -> f64,
    t: f64,
) -> Result<f64, String> {
    let mut size = 0.0f64;
    for (i, (xi, di)) in x.iter_mut().zip(dx).enumerate() {
        *xi += di;
        size = size.max(di.abs() / tol(i, *xi));
    }
    if size.is_finite() {
        Ok(size)
    } else {
        Err(format!("Newton update is not finite at t = {t} s"))
    }
}

/// Assembles the loops and solves the static equilibrium (see [`equilibrium`]).
pub fn initialize(model: Model<'_>, data: Data<'_>) -> Result<(), String> {
    let (st, ws) = data.parts();
    equilibrium::initialize(model, Data::new(st, ws))?;
    refresh_outputs(model, Data::new(st, ws));
    Ok(())
}

/// Advances by `h`; if Newton fails, retries the whole interval as 2, 4, … equal
/// sub-steps (up to `max_step_halvings` times) from the state the step started at, which
/// `saved` holds for the retries (and which `st` is again after a final failure).
/// Allocation-free.
///
/// A failed augmented-Lagrangian step leaves `st` as it found it but for the tangent it
/// formed (`newton::step` writes the rest only once converged), so the start is saved only
/// when a retry needs it, with the tangent marked stale: the copy of the whole state,
/// tangent included, cost a tenth of a small machine's step. The double-step formulation
/// writes its partition's rank while it iterates and is saved before every step.
pub fn step_with_retries(
    model: Model<'_>,
    data: Data<'_>,
    saved: &mut State,
    h: f64,
) -> Result<(), String> {
    let m = model.compiled;
    let (st, ws) = data.parts();
    let double_step = m.solver.formulation == Formulation::DoubleStep;
    if double_step {
        saved.copy_from(st);
    }
    let mut last_error: StepFailure = match advance_in_pieces(model, Data::new(st, ws), h, 1) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    if !double_step {
        // The failed attempt left `st` at the start but for its tangent.
        st.tangent_step = 0.0;
        saved.copy_from(st);
    }
    for halvings in 1..=m.solver.max_step_halvings {
        st.copy_from(saved);
        match advance_in_pieces(model, Data::new(st, ws), h, 1 << halvings) {
            Ok(()) => return Ok(()),
            Err(e) => last_error = e,
        }
    }
    st.copy_from(saved);
    Err(format!(
        "{last_error}; {} step halvings did not help",
        m.solver.max_step_halvings
    ))
}

/// Why a step failed. The failures a shorter step answers carry numbers, not text, so
/// that a retried step allocates nothing; the message is written once the retries are
/// spent.
#[derive(Debug)]
pub enum StepFailure {
    NonFiniteResidual { time: f64 },
    NoConvergence { iterations: u32, time: f64, h: f64 },
    Other(String),
}

impl From<String> for StepFailure {
    fn from(message: String) -> StepFailure {
        StepFailure::Other(message)
    }
}

impl std::fmt::Display for StepFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepFailure::NonFiniteResidual { time } => {
                write!(f, "non-finite residual at t = {time} s")
            }
            StepFailure::NoConvergence {
                iterations,
                time,
                h,
            } => write!(
                f,
                "Newton did not converge in {iterations} iterations at t = {time} s (h = {h} s)"
            ),
            StepFailure::Other(message) => f.write_str(message),
        }
    }
}

/// Advances `st` by `h` as `pieces` equal steps, accumulating the work; stops at the first
/// step that fails. Every step leaves `ws.eval` at its final state (see `capture_outputs`).
fn advance_in_pieces(
    model: Model<'_>,
    data: Data<'_>,
    h: f64,
    pieces: u32,
) -> Result<(), StepFailure> {
    let m = model.compiled;
    let (st, ws) = data.parts();
    let dt = h / pieces as f64;
    let t0 = st.time;
    for k in 0..pieces {
        match m.solver.formulation {
            Formulation::AugmentedLagrangian => newton::step(model, Data::new(st, ws), dt)?,
            Formulation::DoubleStep => double_step::step(model, Data::new(st, ws), dt)?,
        }
        st.time = t0 + dt * (k + 1) as f64;
        update_work(st, ws, dt);
    }
    Ok(())
}

/// Trapezoidal accumulation of the actuator work over the last step (the step leaves
/// `ws.eval` at its final state).
fn update_work(st: &mut State, ws: &mut Workspace, h: f64) {
    let power = ws.eval.power;
    st.work += 0.5 * h * (st.power + power);
    st.power = power;
    let power = ws.eval.base_power;
    st.base_work += 0.5 * h * (st.base_power + power);
    st.base_power = power;
    for ((work, last), now) in st
        .port_work
        .iter_mut()
        .zip(&mut st.port_power)
        .zip(&ws.eval.port_power)
    {
        *work += 0.5 * h * (*last + now);
        *last = *now;
    }
}

/// Caches the outputs after a successful `step_with_retries`, whose last step left
/// `ws.eval` at the final state: done once per communication point, not per internal step.
pub fn capture_outputs(m: &CompiledModel, l: &Layout, st: &State, ws: &mut Workspace) {
    ws.outputs.capture(m, l, &ws.eval, &ws.charts, st);
}

/// Recomputes the cached outputs from the state (after init, a failed step, restore, reset).
pub fn refresh_outputs(model: Model<'_>, data: Data<'_>) {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    ws.outputs.capture(m, l, &ws.eval, &ws.charts, st);
}

/// Value of a probe at the current state (from the output cache).
pub fn probe(m: &CompiledModel, l: &Layout, st: &State, ws: &Workspace, probe: Probe) -> f64 {
    outputs::probe(m, l, st, ws, probe)
}

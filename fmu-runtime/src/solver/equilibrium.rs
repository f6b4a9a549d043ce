//! Consistent initial state: loops assembled, machine at rest in static equilibrium.
//!
//! Starting away from equilibrium makes a pressure and force transient at t = 0
//! (seed 002 trap T7, seed 001 trap 6). The unknowns are the first-order states
//! (pressures, spools), the constraint multipliers and optionally some parameters (e.g.
//! the spool command κ0 of seed 002 eq 32, solved at compile time); the equations are
//! the joint-space force balance `−Q + Φ_zᵀλ = 0` at ż = z̈ = 0, `ṗ = 0`, spools at their
//! set-point and the pre-charges (seed 001: p3(0) = 3.5 MPa). A joint coordinate on whose
//! balance none of these unknowns acts (a chassis on its springs, a hook on its rope) is an
//! unknown itself: it settles where its forces balance, unless `init.hold` keeps it. The
//! coordinates the pressures hold (a boom on its cylinder) stay where the description puts
//! them. The system may be
//! rank-deficient (redundant loop equations, a closed valve leaving a chamber pressure
//! free), so it is solved as least squares by Levenberg–Marquardt, which returns a
//! minimum-change solution.

use super::equilibrium_problem::{assemble, close_rates, load_scale, mass, problem, solve};
use super::linalg::{lu_factor, lu_solve};
use super::settling::{solve_at_rest, structure};
use super::{Data, Layout, Model, Workspace};
use crate::model::{CompiledModel, ParamId};
use crate::solver::State;

/// Positions, equilibrium, consistent accelerations and energy reference.
pub fn initialize(model: Model<'_>, data: Data<'_>) -> Result<(), String> {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let mut params = p.to_vec();
    super::drives::anchor(ws, p, st.time);
    super::drives::place(ws, st, st.time);
    assemble(model, Data::new(st, ws))?;
    close_rates(model, Data::new(st, ws))?;
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    let mm = mass(m, l, ws);
    st.mass_scale = (0..l.nz)
        .map(|i| mm[i * l.nz + i])
        .fold(0.0, f64::max)
        .max(1e-9);
    ws.held_at_make_up.clear();
    ws.settled.clear();
    if m.init.static_equilibrium {
        // The load where the description draws the machine: settled springs balance the
        // weight, so the load where they settle may be nothing (a chassis on its tyres).
        let drawn_load = load_scale(model, Data::new(st, ws));
        let mut prob = problem(m, l, p, st, &[]);
        let settled = structure(&prob, st, &mut params, ws).settled;
        if l.n_displacements > 0 {
            // Regulators first without saturation, so that the pump lines find their
            // pressures from any guess; then the real law from there.
            prob.linear_regulators = true;
            solve(&prob, prob.start(st, &params), st, &mut params, ws)?;
            prob.linear_regulators = false;
        }
        solve_at_rest(&mut prob, &settled, st, &mut params, ws)?;
        ws.held_at_make_up = super::trapped_oil::settle(m, l, &mut params, st, ws)?;
        ws.settled = settled;
        ws.equilibrium = Some(report(m, l, &mut params, st, ws, drawn_load));
    } else {
        ws.equilibrium = None;
    }
    settle(model, Data::new(st, ws), &mm)?;
    st.iterations = 0;
    st.steps = 0;
    Ok(())
}

/// How well the static-equilibrium solve met its equations (a machine that cannot stand
/// still where it starts, or a solve that stalled, leaves them unmet: the run then starts
/// with a transient, which `check` and the FMU's log report).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EquilibriumReport {
    /// Largest unbalanced generalized force [N or N·m] and its joint coordinate.
    pub force: f64,
    pub coordinate: usize,
    /// The load it compares with: the largest generalized force of gravity and applied
    /// forces with every volume at the make-up pressure [N or N·m], where the machine
    /// starts or where the description draws it, whichever is larger.
    pub load: f64,
    /// Largest net inflow into a volume [m³/s] and that volume (among the pressures).
    pub inflow: f64,
    pub volume: usize,
}

impl EquilibriumReport {
    /// Unbalanced force within 1e-6 of the load (1 N at least) and net inflows below
    /// 1e-9 m³/s (0.06 mL/min).
    pub fn reached(&self) -> bool {
        self.force <= (1e-6 * self.load).max(1.0) && self.inflow <= 1e-9
    }
}

fn report(
    m: &CompiledModel,
    l: &Layout,
    params: &mut [f64],
    st: &mut State,
    ws: &mut Workspace,
    drawn_load: f64,
) -> EquilibriumReport {
    let load = load_scale(Model::new(m, l, params), Data::new(st, ws)).max(drawn_load);
    let mut prob = problem(m, l, params, st, &[]);
    let w = st.w.clone();
    prob.precharged
        .extend(ws.held_at_make_up.iter().map(|&k| (k, w[k])));
    let u = prob.start(st, params);
    let mut r = vec![0.0; prob.equations()];
    prob.residual(&u, st, params, ws, &mut r);
    let largest = |v: &[f64]| {
        v.iter().enumerate().fold(
            (0.0f64, 0),
            |(m, k), (i, x)| if x.abs() > m { (x.abs(), i) } else { (m, k) },
        )
    };
    let (force, coordinate) = largest(&r[..l.nz]);
    let (inflow, volume) = largest(&r[l.nz..l.nz + l.n_pressures]);
    EquilibriumReport {
        force,
        coordinate,
        load,
        inflow,
        volume,
    }
}

/// Consistent accelerations and state rates, then the energy reference of the balance.
fn settle(model: Model<'_>, data: Data<'_>, mm: &[f64]) -> Result<(), String> {
    let m = model.compiled;
    let (st, ws) = data.parts();
    rates_at(model, Data::new(st, ws), mm)?;
    restart_bookkeeping(m, st, ws);
    Ok(())
}

/// Consistent accelerations and state rates, the evaluation left at them.
fn rates_at(model: Model<'_>, data: Data<'_>, mm: &[f64]) -> Result<(), String> {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    consistent_rates(model, Data::new(st, ws), mm)?;
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    super::drives::finish(l.nz, st, ws);
    Ok(())
}

/// The energy reference of the balance: the evaluated state, no work done yet; the
/// predictor's rate history starts at the state's rates.
fn restart_bookkeeping(m: &CompiledModel, st: &mut State, ws: &Workspace) {
    super::predictor::restart_history(st);
    let (ke, pe) = ws.eval.energies(&m.mechanism);
    st.energy0 = ke + pe;
    st.work = 0.0;
    st.parameter_work = 0.0;
    st.power = ws.eval.power;
    st.base_work = 0.0;
    st.base_power = ws.eval.base_power;
    st.port_work.fill(0.0);
    st.port_power.copy_from_slice(&ws.eval.port_power);
}

/// Recomputes consistent accelerations and the energy reference after the rates of an
/// initialized state were changed.
pub fn restart_from_state(model: Model<'_>, data: Data<'_>) -> Result<(), String> {
    let m = model.compiled;
    let (st, ws) = data.parts();
    retuned_rates(model, Data::new(st, ws))?;
    restart_bookkeeping(m, st, ws);
    Ok(())
}

/// Accelerations and state rates consistent with the state under new parameters (a
/// tunable mass or stiffness changed between steps): the next step then starts from the
/// machine's actual accelerations, not those of the old parameters. The energy bookkeeping
/// is left as it is.
pub fn retuned_rates(model: Model<'_>, data: Data<'_>) -> Result<(), String> {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    let mm = mass(m, l, ws);
    rates_at(model, Data::new(st, ws), &mm)
}

/// Accelerations and state rates consistent with the initial state: if the force
/// balance is not exactly met (e.g. a command away from equilibrium), solve
/// `M z̈ + Φ_zᵀλ = Q`, `Φ_z z̈ + Φ̇_z ż = 0` by augmented-Lagrangian iterations.
fn consistent_rates(model: Model<'_>, data: Data<'_>, mm: &[f64]) -> Result<(), String> {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let (nz, nc) = (l.nz, l.nc);
    st.zdd.fill(0.0);
    st.wd.fill(0.0);
    // Driven coordinates take their reference acceleration; their rows are replaced below.
    let driven: Vec<(usize, f64)> = ws
        .drives
        .iter()
        .map(|d| (d.coordinate, d.reference(st.time)[2]))
        .collect();
    for &(c, qdd) in &driven {
        st.zdd[c] = qdd;
    }
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    // ẇ from the state equations, which are all linear in ẇ: r(ẇ) = c ẇ + r(0).
    let r0 = ws.eval.r_first.clone();
    for j in 0..l.nw {
        st.wd[j] = 1.0;
        ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
        let c = ws.eval.r_first[j] - r0[j];
        st.wd[j] = if c.abs() > 1e-300 { -r0[j] / c } else { 0.0 };
    }
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    let e = &ws.eval;
    let mut rhs: Vec<f64> = (0..nz)
        .map(|i| {
            -(e.r_mech[i]
                + (0..nc)
                    .map(|k| e.phi_z[k * nz + i] * st.lambda[k])
                    .sum::<f64>())
        })
        .collect();
    let scale = e.r_mech.iter().fold(1.0f64, |s, v| s.max(v.abs()));
    if rhs
        .iter()
        .zip(&ws.plan.driven)
        .all(|(v, &driven)| driven || v.abs() < 1e-10 * scale)
    {
        return Ok(());
    }
    let alpha = 1e3 * st.mass_scale;
    let mut a = vec![0.0; nz * nz];
    for i in 0..nz {
        for j in 0..nz {
            a[i * nz + j] = mm[i * nz + j]
                + alpha
                    * (0..nc)
                        .map(|k| e.phi_z[k * nz + i] * e.phi_z[k * nz + j])
                        .sum::<f64>();
        }
    }
    // A driven coordinate's row: z̈ = q̈_ref (scaled like the inertia).
    for &(c, _) in &driven {
        for j in 0..nz {
            a[c * nz + j] = if j == c { st.mass_scale } else { 0.0 };
        }
    }
    let (mut piv, mut rs) = (vec![0; nz], vec![0.0; 2 * nz]);
    lu_factor(&mut a, nz, &mut piv, &mut rs)?;
    let phi_z = e.phi_z.clone();
    let bias = e.phi_bias.clone();
    for _ in 0..30 {
        let mut zdd = rhs.clone();
        for i in 0..nz {
            zdd[i] -= alpha * (0..nc).map(|k| phi_z[k * nz + i] * bias[k]).sum::<f64>();
        }
        for &(c, qdd) in &driven {
            zdd[c] = st.mass_scale * qdd;
        }
        lu_solve(&a, nz, &piv, &rs, &mut zdd);
        let mut viol = 0.0f64;
        for k in 0..nc {
            let v = (0..nz).map(|j| phi_z[k * nz + j] * zdd[j]).sum::<f64>() + bias[k];
            st.lambda[k] += alpha * v;
            viol = viol.max(v.abs());
            for i in 0..nz {
                rhs[i] -= phi_z[k * nz + i] * alpha * v;
            }
        }
        st.zdd.copy_from_slice(&zdd);
        if viol < 1e-12 {
            break;
        }
    }
    Ok(())
}

/// Why the parameters of [`solve_equilibrium_parameters`] were not found.
#[derive(Clone, Debug, PartialEq)]
pub enum ParameterSolveError {
    /// Parameters (indices among those asked for) on which no force, flow or set-point at
    /// rest depends (a damping, a start value, a limit): nothing can be solved for them.
    Unused(Vec<usize>),
    /// The model is invalid, or no equilibrium was found by adjusting them.
    Failed(String),
}

impl std::fmt::Display for ParameterSolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unused(k) => write!(
                f,
                "no force, flow or set-point at rest depends on parameters {k:?}"
            ),
            Self::Failed(e) => f.write_str(e),
        }
    }
}

impl From<String> for ParameterSolveError {
    fn from(e: String) -> Self {
        Self::Failed(e)
    }
}

/// Values of the parameters `free` that put the machine in static equilibrium at its
/// initial configuration (used by the compiler, e.g. for the spool command κ0 of seed 002
/// eq 32, written as the input's start value), the coordinates nothing holds settled as
/// [`initialize`] settles them.
pub fn solve_equilibrium_parameters(
    m: &CompiledModel,
    free: &[ParamId],
) -> Result<Vec<f64>, ParameterSolveError> {
    m.validate().map_err(|e| e.0)?;
    let l = Layout::of(m);
    let mut params: Vec<f64> = m.params.iter().map(|s| s.default).collect();
    let mut st = crate::solver::State::new_for(&l);
    let mut ws = Workspace::new(m, &l);
    super::cut_references(Model::new(m, &l, &params), &mut ws);
    super::place_at_initial_configuration(Model::new(m, &l, &params), &mut st);
    assemble(Model::new(m, &l, &params), Data::new(&mut st, &mut ws))?;
    let mut prob = problem(m, &l, &params, &st, free);
    let reach = structure(&prob, &mut st, &mut params, &mut ws);
    if !reach.idle_parameters.is_empty() {
        return Err(ParameterSolveError::Unused(reach.idle_parameters));
    }
    let u0 = prob.start(&st, &params);
    let mut r0 = vec![0.0; prob.equations()];
    prob.residual(&u0, &mut st, &mut params, &mut ws, &mut r0);
    let load = r0[..l.nz].iter().fold(0.0f64, |s, v| s.max(v.abs()));
    let (_, r) = solve_at_rest(&mut prob, &reach.settled, &mut st, &mut params, &mut ws)?;
    let force = r[..l.nz].iter().fold(0.0f64, |s, v| s.max(v.abs()));
    if force > 1e-8 * load.max(1.0) {
        let names: Vec<&str> = free
            .iter()
            .map(|id| m.params[id.index()].name.as_str())
            .collect();
        return Err(ParameterSolveError::Failed(format!(
            "no static equilibrium found by adjusting {names:?}: {force:.3e} N (or N·m) of the \
             {load:.3e} load stays unbalanced"
        )));
    }
    Ok(free.iter().map(|id| params[id.index()]).collect())
}

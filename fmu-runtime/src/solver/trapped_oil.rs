//! Trapped oil at the start (issue 14, item 4).
//!
//! A volume that no element conducts into at the static equilibrium (valves centred, check
//! and relief valves shut, no leakage) keeps whatever pressure it starts with: the
//! equilibrium fixes only the net force of the cylinders it acts on, and the least-squares
//! solve returns the split nearest its starting guess (a rod chamber at −43 bar). A real
//! machine's trapped oil was last at the pressure of what it was open to: the lower chamber
//! of a blocked cylinder sits at the make-up (tank) pressure and the other carries the load.
//! So, lowest first, each trapped volume without a stated `precharge` is held at the lowest
//! source pressure of the circuit, and kept there if the equilibrium still holds and no
//! trapped volume is pushed below that pressure; otherwise it keeps the pressure the
//! equilibrium dictates.

use super::equilibrium_problem::{Problem, load_scale, make_up_pressure, problem, solve};
use super::{Data, Layout, Model, Workspace};
use crate::model::{CompiledModel, Node};
use crate::solver::State;

/// Volumes (indices among the pressure unknowns) without a precharge whose pressure rate
/// does not depend on their own pressure just above the make-up pressure: nothing conducts
/// into them there.
fn trapped_volumes(model: Model<'_>, data: Data<'_>, make_up: f64) -> Vec<usize> {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let precharged: Vec<bool> = m
        .circuit
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Volume(v) => Some(v.precharge.is_some()),
            Node::Pressure { .. } => None,
        })
        .collect();
    let mut trapped = Vec::new();
    for k in 0..l.n_pressures {
        if precharged[k] {
            continue;
        }
        // Judged just above the make-up pressure, not at the state: the solve may leave a
        // blocked chamber inside the opening of its make-up check valve (below tank −
        // cracking, 0.8 bar, with the inflow unbalanced), where it conducts.
        let p0 = st.w[k];
        let dp = 1e-3 * make_up.abs().max(1e5);
        let mut rate_at = |pk: f64| {
            st.w[k] = pk;
            ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
            ws.eval.rates[k]
        };
        if rate_at(make_up + dp) == rate_at(make_up + 2.0 * dp) {
            trapped.push(k);
        }
        st.w[k] = p0;
    }
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    trapped
}

/// Largest force residual that still counts as equilibrium, relative to the load.
const BALANCE: f64 = 1e-8;

/// After the static-equilibrium solve: trapped volumes to the make-up pressure where the
/// equilibrium leaves them free (see the module docs). Returns the volumes so held.
pub(super) fn settle(
    m: &CompiledModel,
    l: &Layout,
    params: &mut [f64],
    st: &mut State,
    ws: &mut Workspace,
) -> Result<Vec<usize>, String> {
    let Some(make_up) = make_up_pressure(m, params) else {
        return Ok(Vec::new());
    };
    let mut trapped = trapped_volumes(Model::new(m, l, params), Data::new(st, ws), make_up);
    if trapped.is_empty() {
        return Ok(Vec::new());
    }
    let load = load_scale(Model::new(m, l, params), Data::new(st, ws));
    // What the equilibrium left unbalanced where no pressure acts (a carrier's springs a
    // hair off): holding trapped oil must not add to it, but cannot remove it either.
    let floor = {
        let prob = problem(m, l, params, st, &[]);
        let u = prob.start(st, params);
        let mut r = vec![0.0; prob.equations()];
        prob.residual(&u, st, params, ws, &mut r);
        r[..l.nz].iter().fold(0.0f64, |s, v| s.max(v.abs()))
    };
    trapped.sort_by(|&a, &b| st.w[a].total_cmp(&st.w[b]));
    let mut held: Vec<usize> = Vec::new();
    let (mut w, mut lambda, mut z) = (st.w.clone(), st.lambda.clone(), st.z.clone());
    for &k in &trapped {
        // The coordinates stay where the equilibrium settled them: a trapped volume taken to
        // the make-up pressure must not find another pose (a hook laid on its side, its rope
        // slack) that needs no pressure there.
        let mut prob: Problem<'_> = problem(m, l, params, st, &[]);
        prob.precharged.extend(held.iter().map(|&j| (j, make_up)));
        prob.precharged.push((k, make_up));
        let u0 = prob.start(st, params);
        let (_, r) = solve(&prob, u0, st, params, ws)?;
        let force = r[..l.nz].iter().fold(0.0f64, |s, v| s.max(v.abs()));
        let pins = r[l.nz + prob.solved_states()..]
            .iter()
            .fold(0.0f64, |s, v| s.max(v.abs()));
        let above = trapped
            .iter()
            .all(|&j| st.w[j] >= make_up - 1.0 || w[j] < make_up - 1.0);
        if force <= floor + BALANCE * load.max(1.0) && pins <= 1.0 && above {
            held.push(k);
            w.copy_from_slice(&st.w);
            lambda.copy_from_slice(&st.lambda);
            z.copy_from_slice(&st.z);
        } else {
            st.w.copy_from_slice(&w);
            st.lambda.copy_from_slice(&lambda);
            st.z.copy_from_slice(&z);
        }
    }
    Ok(held)
}

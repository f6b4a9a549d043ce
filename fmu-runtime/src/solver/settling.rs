//! The joint coordinates nothing else holds, settled at the start (issue 48, item 2).
//!
//! The static equilibrium's unknowns are the pressures, spools, loop multipliers and the
//! solved-for parameters; the coordinates stay where the description draws them, as a
//! crane stands where its cylinders hold it. A coordinate on whose balance none of those
//! unknowns acts — a chassis on its springs, a cab on its mounts, a hook on its rope —
//! would keep the force it is drawn with, and the run would start with a bounce. Those
//! coordinates settle here: Newton on their own force balance with the other unknowns
//! held, alternating with the equilibrium solve until the coordinates stop moving. Newton
//! from the drawn pose finds the equilibrium nearest it; the least-squares solve with the
//! coordinates among its unknowns found the knuckle crane's hook laid on its side at the
//! sheave, its rope slack — to least squares a zero of the residual as good as any.

use super::Workspace;
use super::equilibrium_problem::{Problem, jacobian, normal_equations, row_norm, solve};
use super::linalg::{lu_factor, lu_solve};
use crate::solver::State;

/// What the unknowns of a problem reach, from its Jacobian at the current state.
pub(super) struct Structure {
    /// The joint coordinates to settle: those on whose force balance no unknown acts (no
    /// pressure, loop multiplier or solved-for parameter), less the driven ones and those
    /// `init.hold` keeps.
    pub(super) settled: Vec<usize>,
    /// The free parameters (indices among them) on which no equation depends: a damping,
    /// a start value, a limit — nothing the balance at rest could be solved for.
    pub(super) idle_parameters: Vec<usize>,
}

/// The [`Structure`] of `problem` at the state.
pub(super) fn structure(
    problem: &Problem<'_>,
    st: &mut State,
    p: &mut [f64],
    ws: &mut Workspace,
) -> Structure {
    let (n, neq) = (problem.unknowns(), problem.equations());
    let mut u = problem.start(st, p);
    // The residual solves a flexible body's deflection into the state and the Jacobian
    // leaves a parameter perturbed: put both back, so that the solve starts where it would
    // without this look.
    let (z, w, lambda, params) = (st.z.clone(), st.w.clone(), st.lambda.clone(), p.to_vec());
    let (mut r, mut r_trial, mut jac) = (vec![0.0; neq], vec![0.0; neq], vec![0.0; neq * n]);
    problem.residual(&u, st, p, ws, &mut r);
    jacobian(problem, &mut u, &r, (st, p, ws), &mut r_trial, &mut jac);
    st.z.copy_from_slice(&z);
    st.w.copy_from_slice(&w);
    st.lambda.copy_from_slice(&lambda);
    p.copy_from_slice(&params);
    let joints = problem.m.mechanism.joint_coordinates();
    let norms: Vec<f64> = (0..joints).map(|i| row_norm(&jac, n, i)).collect();
    // As the solve's row weights judge it: a row whose slope is 1e-6 of the largest joint
    // row's is rounding noise (internal forces cancelling), not an unknown acting.
    let scale = norms.iter().fold(0.0f64, |s, v| s.max(*v));
    let settled = (0..joints)
        .filter(|&i| !ws.plan.driven[i] && !problem.m.init.hold.contains(&i))
        .filter(|&i| norms[i] <= 1e-6 * scale)
        .collect();
    let first = problem.solved_states() + problem.l.nc;
    let idle_parameters = (0..problem.free.len())
        .filter(|&k| (0..neq).all(|i| jac[i * n + first + k] == 0.0))
        .collect();
    Structure {
        settled,
        idle_parameters,
    }
}

/// Rounds of settling and solving: a chassis under a crane takes two or three (the crane's
/// pressures follow the chassis's tilt, which follows the crane's weight).
const ROUNDS: usize = 30;

/// The static equilibrium with the `settled` coordinates found too. Returns what
/// [`solve`] returns for the last round.
pub(super) fn solve_at_rest(
    problem: &mut Problem<'_>,
    settled: &[usize],
    st: &mut State,
    p: &mut [f64],
    ws: &mut Workspace,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let mut out = solve(problem, problem.start(st, p), st, p, ws)?;
    for _ in 0..ROUNDS {
        if settled.is_empty() || !settle(problem, settled, st, p, ws)? {
            break;
        }
        out = solve(problem, problem.start(st, p), st, p, ws)?;
    }
    Ok(out)
}

/// Newton on the balance of the `settled` coordinates, every other unknown held, with
/// step halving on its norm. Returns whether they moved (by more than rounding).
fn settle(
    problem: &mut Problem<'_>,
    settled: &[usize],
    st: &mut State,
    p: &mut [f64],
    ws: &mut Workspace,
) -> Result<bool, String> {
    let ns = settled.len();
    let u = problem.start(st, p);
    let mut r = vec![0.0; problem.equations()];
    let rows = |r: &[f64]| -> Vec<f64> { settled.iter().map(|&c| r[c]).collect() };
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>();
    problem.residual(&u, st, p, ws, &mut r);
    let mut balance = rows(&r);
    let mut jac = vec![0.0; ns * ns];
    let (mut piv, mut scale) = (vec![0; ns], vec![0.0; 2 * ns]);
    let mut moved = false;
    for _ in 0..50 {
        let z0: Vec<f64> = settled.iter().map(|&c| st.z[c]).collect();
        for (k, &c) in settled.iter().enumerate() {
            let eps = 1e-7 * z0[k].abs().max(1e-3);
            problem.place(st, c, z0[k] + eps);
            problem.residual(&u, st, p, ws, &mut r);
            problem.place(st, c, z0[k]);
            for (i, &ci) in settled.iter().enumerate() {
                jac[i * ns + k] = (r[ci] - balance[i]) / eps;
            }
        }
        let step = newton_step(&jac, ns, &balance, (&mut piv, &mut scale))?;
        let f0 = norm(&balance);
        let mut alpha = 1.0;
        let mut accepted = None;
        while alpha > 1e-6 {
            for (k, &c) in settled.iter().enumerate() {
                problem.place(st, c, z0[k] - alpha * step[k]);
            }
            problem.residual(&u, st, p, ws, &mut r);
            let trial = rows(&r);
            if norm(&trial) < f0 {
                accepted = Some(trial);
                break;
            }
            alpha /= 2.0;
        }
        let Some(trial) = accepted else {
            for (k, &c) in settled.iter().enumerate() {
                problem.place(st, c, z0[k]);
            }
            break;
        };
        balance = trial;
        let large =
            (step.iter().zip(&z0)).any(|(s, z)| (alpha * s).abs() > 1e-12 * z.abs().max(1.0));
        if !large {
            break;
        }
        moved = true;
    }
    // Leave the evaluation at the state the next solve starts from.
    problem.residual(&u, st, p, ws, &mut r);
    Ok(moved)
}

/// The Newton step `J⁻¹ b`; where `J` is singular (a hook on a slack rope: nothing changes
/// its balance), the least-squares step of `(JᵀJ + μ) s = Jᵀ b` with a small μ.
fn newton_step(
    jac: &[f64],
    n: usize,
    b: &[f64],
    (piv, scale): (&mut [usize], &mut [f64]),
) -> Result<Vec<f64>, String> {
    let mut a = jac.to_vec();
    let mut step = b.to_vec();
    if lu_factor(&mut a, n, piv, scale).is_ok() {
        lu_solve(&a, n, piv, scale, &mut step);
        if step.iter().all(|s| s.is_finite()) {
            return Ok(step);
        }
    }
    let mut normal = vec![0.0; n * n];
    normal_equations(jac, n, b, |_| 1.0, &mut normal, &mut step);
    let trace: f64 = (0..n).map(|i| normal[i * n + i]).sum();
    for i in 0..n {
        normal[i * n + i] += 1e-10 * trace / n as f64 + 1e-300;
    }
    lu_factor(&mut normal, n, piv, scale)?;
    lu_solve(&normal, n, piv, scale, &mut step);
    Ok(step)
}

//! Levenberg–Marquardt over the free fields, their Jacobian's columns in parallel, and the
//! standard errors and correlations at the optimum.

use super::free::{from_bounded, to_bounded};
use super::{Fit, Setup};
use crate::sweep::pool;
use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{DMatrix, DVector, Dyn, Owned};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The least-squares problem in the optimizer's unbounded coordinates.
struct Problem<'a> {
    setup: &'a Setup,
    threads: usize,
    u: DVector<f64>,
    /// Residuals at `u` (the Jacobian's base point).
    at_u: Mutex<Option<DVector<f64>>>,
    simulations: AtomicUsize,
    progress: bool,
}

/// Forward-difference step in the unbounded coordinates (a radian of the sine transform:
/// ~5e-5 of a field's range in mid-range).
const DU: f64 = 1e-4;

impl Problem<'_> {
    fn values(&self, u: &DVector<f64>) -> Vec<f64> {
        self.setup
            .free
            .iter()
            .zip(u.iter())
            .map(|(s, u)| to_bounded(*u, s.low, s.high))
            .collect()
    }

    fn simulate(&self, u: &DVector<f64>) -> DVector<f64> {
        self.setup.weighted_residuals(&self.values(u))
    }

    /// Jacobian columns by forward differences from `base`, in parallel.
    fn columns(&self, u: &DVector<f64>, base: &DVector<f64>) -> DMatrix<f64> {
        let n = u.len();
        let cols = pool::map(
            self.threads,
            n,
            |j| {
                let mut v = u.clone();
                v[j] += DU;
                (self.simulate(&v) - base) / DU
            },
            |_| {},
        );
        self.simulations.fetch_add(n, Ordering::Relaxed);
        DMatrix::from_columns(&cols)
    }
}

impl LeastSquaresProblem<f64, Dyn, Dyn> for Problem<'_> {
    type ResidualStorage = Owned<f64, Dyn>;
    type JacobianStorage = Owned<f64, Dyn, Dyn>;
    type ParameterStorage = Owned<f64, Dyn>;

    fn set_params(&mut self, u: &DVector<f64>) {
        self.u.copy_from(u);
        *self.at_u.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn params(&self) -> DVector<f64> {
        self.u.clone()
    }

    fn residuals(&self) -> Option<DVector<f64>> {
        let r = self.simulate(&self.u);
        let count = self.simulations.fetch_add(1, Ordering::Relaxed) + 1;
        if self.progress {
            let values = self.values(&self.u);
            let shown: Vec<String> = self
                .setup
                .free
                .iter()
                .zip(&values)
                .map(|(s, v)| format!("{} = {v:.6}", s.name))
                .collect();
            eprintln!(
                "  simulation {:>4}: cost {:.6e}  {}",
                count,
                0.5 * r.norm_squared(),
                shown.join(", ")
            );
        }
        *self.at_u.lock().unwrap_or_else(|e| e.into_inner()) = Some(r.clone());
        Some(r)
    }

    fn jacobian(&self) -> Option<DMatrix<f64>> {
        let cached = self.at_u.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let base = match cached {
            Some(r) => r,
            None => self.residuals()?,
        };
        Some(self.columns(&self.u, &base))
    }
}

/// Fits the free fields of `setup`.
pub fn fit(setup: &Setup, threads: usize, max_simulations: usize, progress: bool) -> Fit {
    let n = setup.free.len();
    let u0 = DVector::from_iterator(
        n,
        setup
            .free
            .iter()
            .zip(&setup.start)
            .map(|(s, p)| from_bounded(*p, s.low, s.high)),
    );
    let problem = Problem {
        setup,
        threads,
        u: u0.clone(),
        at_u: Mutex::new(None),
        simulations: AtomicUsize::new(0),
        progress,
    };
    let cost_start = 0.5 * problem.simulate(&u0).norm_squared();
    let patience = (max_simulations / (n + 1)).max(1);
    let (problem, report) = LevenbergMarquardt::new()
        .with_ftol(1e-8)
        .with_xtol(1e-8)
        .with_patience(patience)
        .minimize(problem);
    let values = problem.values(&problem.u);
    // Statistics in the fields' own coordinates: columns by forward differences of
    // 1e-4 of each range, toward the inside.
    let base = problem.simulate(&problem.u);
    let m = base.len();
    let dp: Vec<f64> = setup
        .free
        .iter()
        .zip(&values)
        .map(|(s, p)| {
            let h = 1e-4 * (s.high - s.low);
            if p + h > s.high { -h } else { h }
        })
        .collect();
    let p = DVector::from_vec(values.clone());
    let cols = pool::map(
        threads,
        n,
        |j| {
            let mut q = p.clone();
            q[j] += dp[j];
            (setup.weighted_residuals(q.as_slice()) - &base) / dp[j]
        },
        |_| {},
    );
    let jac = DMatrix::from_columns(&cols);
    let cost = 0.5 * base.norm_squared();
    let dof = (m.saturating_sub(n)).max(1) as f64;
    let s2 = 2.0 * cost / dof;
    let (std_errors, correlation) = covariance(&jac, s2);
    // A value pressed against its bound has no standard error worth printing.
    let at_bound: Vec<bool> = setup
        .free
        .iter()
        .zip(&values)
        .map(|(s, v)| {
            let margin = 1e-3 * (s.high - s.low);
            *v - s.low < margin || s.high - *v < margin
        })
        .collect();
    let std_errors = std_errors
        .iter()
        .zip(&at_bound)
        .map(|(se, b)| if *b { f64::NAN } else { *se })
        .collect();
    Fit {
        values,
        std_errors,
        at_bound,
        correlation,
        cost_start,
        cost,
        residuals: m,
        simulations: problem.simulations.load(Ordering::Relaxed) + n + 2,
        termination: format!("{:?}", report.termination),
    }
}

/// Standard errors and correlations from `s² (JᵀJ)⁻¹`. A column the residuals do not feel
/// (norm below 1e-12 of the largest: a field the record does not see) is left out and
/// its field reported unidentified (NaN) rather than spoiling the others; a singular rest
/// (two fields acting alike) leaves every value unidentified.
fn covariance(jac: &DMatrix<f64>, s2: f64) -> (Vec<f64>, DMatrix<f64>) {
    let n = jac.ncols();
    let norms: Vec<f64> = jac.column_iter().map(|c| c.norm()).collect();
    let largest = norms.iter().cloned().fold(0.0, f64::max);
    let seen: Vec<usize> = (0..n).filter(|&j| norms[j] > 1e-12 * largest).collect();
    let mut se = vec![f64::NAN; n];
    let mut corr = DMatrix::from_element(n, n, f64::NAN);
    let reduced = jac.select_columns(&seen);
    if let Some(inv) = (reduced.transpose() * &reduced).try_inverse() {
        let cov = inv * s2;
        for (a, &i) in seen.iter().enumerate() {
            se[i] = cov[(a, a)].max(0.0).sqrt();
        }
        for (a, &i) in seen.iter().enumerate() {
            for (b, &j) in seen.iter().enumerate() {
                corr[(i, j)] = cov[(a, b)] / (se[i] * se[j]);
            }
        }
    }
    (se, corr)
}

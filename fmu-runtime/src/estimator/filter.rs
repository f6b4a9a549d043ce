//! The error-state Kalman filter's algebra (seed 001, thesis ch. 3): the error covariance
//! carried over a step and corrected at a measurement, on dense row-major buffers
//! allocated once.
//!
//! The filter's state is the error of the model's continuous states, which the model
//! itself carries: after each correction the model is overwritten and the error estimate
//! is zero again (eq 3.2), so only the covariance P lives here.
//!
//! - **Predict** (eq 3.3): `P ← F P Fᵀ + Q`. The thesis builds F by a second-order Taylor
//!   step of the accelerations; here F is the trapezoidal rule's own transition for the
//!   linearised system ẋ = A x, `F = (I − A h/2)⁻¹ (I + A h/2)`, which is what the model's
//!   integrator does to a small error and stays bounded on the stiff pressure modes
//!   (a Taylor F grows without bound there once h exceeds the oil column's period).
//! - **Correct** (eqs 3.5–3.9): `S = H P Hᵀ + R`, `K = P Hᵀ S⁻¹`, `Δx = K y`, and P in
//!   Joseph's form `(I − K H) P (I − K H)ᵀ + K R Kᵀ`, which stays symmetric and positive
//!   where the thesis's `(I − K H) P` drifts with round-off.
//!
//! # Example
//!
//! A position measured with variance r, no motion, no plant noise: after k measurements the
//! variance is `p0 r / (r + k p0)`.
//!
//! ```
//! use fmu_runtime::estimator::filter::ErrorStateFilter;
//! let (p0, r) = (4.0, 1.0);
//! let mut f = ErrorStateFilter::new(1, 1, &[p0]);
//! for _ in 0..3 {
//!     f.predict(1e-3); // A = 0, Q = 0: P unchanged
//!     f.measurement_row(0).copy_from_slice(&[1.0]);
//!     f.correct(&[0.5], &[r]).unwrap();
//! }
//! assert!((f.variance(0) - p0 * r / (r + 3.0 * p0)).abs() < 1e-12);
//! ```

use crate::solver::linalg::{lu_factor, lu_solve};

/// Covariance and work buffers of an error-state filter over `n` states and up to `m`
/// measurements per correction.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorStateFilter {
    n: usize,
    m: usize,
    /// Error covariance P (n × n).
    p: Vec<f64>,
    /// ∂ẋ/∂x at the step (n × n), set through [`ErrorStateFilter::jacobian_mut`].
    a: Vec<f64>,
    /// Plant noise over the step (n × n), set through [`ErrorStateFilter::noise_mut`].
    q: Vec<f64>,
    /// Measurement rows (m × n): the first `rows` of a correction are used.
    h: Vec<f64>,
    f: Vec<f64>,
    t1: Vec<f64>,
    t2: Vec<f64>,
    /// P Hᵀ, then the gain K (n × m).
    k: Vec<f64>,
    s: Vec<f64>,
    piv: Vec<usize>,
    scale: Vec<f64>,
    col: Vec<f64>,
    /// The last correction Δx = K y (n), and each row's innovation variance (m).
    correction: Vec<f64>,
    innovation_variance: Vec<f64>,
}

impl ErrorStateFilter {
    /// A filter whose initial covariance is diagonal with `p0` (one entry per state).
    pub fn new(n: usize, m: usize, p0: &[f64]) -> ErrorStateFilter {
        assert_eq!(p0.len(), n, "one initial variance per state");
        let mut p = vec![0.0; n * n];
        for i in 0..n {
            p[i * n + i] = p0[i];
        }
        let big = n.max(m);
        ErrorStateFilter {
            n,
            m,
            p,
            a: vec![0.0; n * n],
            q: vec![0.0; n * n],
            h: vec![0.0; m * n],
            f: vec![0.0; n * n],
            t1: vec![0.0; n * n],
            t2: vec![0.0; n * n],
            k: vec![0.0; n * m],
            s: vec![0.0; m * m],
            piv: vec![0; big],
            scale: vec![0.0; 2 * big],
            col: vec![0.0; big],
            correction: vec![0.0; n],
            innovation_variance: vec![0.0; m],
        }
    }

    /// Number of states.
    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The Jacobian A = ∂ẋ/∂x of the next [`ErrorStateFilter::predict`] (row-major n × n).
    pub fn jacobian_mut(&mut self) -> &mut [f64] {
        &mut self.a
    }

    /// The Jacobian of the last step (row-major n × n).
    pub fn jacobian(&self) -> &[f64] {
        &self.a
    }

    /// The plant noise Q over the next step (row-major n × n).
    pub fn noise_mut(&mut self) -> &mut [f64] {
        &mut self.q
    }

    /// Row `r` of H (∂ measurement r / ∂x) for the next [`ErrorStateFilter::correct`].
    pub fn measurement_row(&mut self, r: usize) -> &mut [f64] {
        &mut self.h[r * self.n..(r + 1) * self.n]
    }

    /// The covariance P (row-major n × n).
    pub fn covariance(&self) -> &[f64] {
        &self.p
    }

    /// Replaces P (a restored FMU state); `p` must hold n × n entries.
    pub fn set_covariance(&mut self, p: &[f64]) {
        self.p.copy_from_slice(p);
    }

    /// The variance of state `i`.
    pub fn variance(&self, i: usize) -> f64 {
        self.p[i * self.n + i]
    }

    /// Δx of the last correction.
    pub fn correction(&self) -> &[f64] {
        &self.correction
    }

    /// The variance of the last correction's row `r` innovation, H P⁻ Hᵀ + R.
    pub fn innovation_variance(&self, r: usize) -> f64 {
        self.innovation_variance[r]
    }

    /// `P ← F P Fᵀ + Q` over a step `dt`, F the trapezoidal transition of A.
    pub fn predict(&mut self, dt: f64) {
        let n = self.n;
        if n == 0 {
            return;
        }
        // t1 = I − A dt/2, f = I + A dt/2; F = t1⁻¹ f, column by column.
        for i in 0..n {
            for j in 0..n {
                let half = 0.5 * dt * self.a[i * n + j];
                let eye = if i == j { 1.0 } else { 0.0 };
                self.t1[i * n + j] = eye - half;
                self.f[i * n + j] = eye + half;
            }
        }
        if lu_factor(&mut self.t1, n, &mut self.piv, &mut self.scale).is_ok() {
            for j in 0..n {
                for i in 0..n {
                    self.col[i] = self.f[i * n + j];
                }
                lu_solve(&self.t1, n, &self.piv, &self.scale, &mut self.col[..n]);
                for i in 0..n {
                    self.f[i * n + j] = self.col[i];
                }
            }
        }
        // (A singular I − A h/2 means an eigenvalue at 2/h: the step itself would fail.
        // F = I + A h/2 is kept then, the forward half step.)
        multiply(&self.f, &self.p, &mut self.t2, n, n, n);
        multiply_transposed(&self.t2, &self.f, &mut self.p, n, n, n);
        for i in 0..n * n {
            self.p[i] += self.q[i];
        }
        symmetrize(&mut self.p, n);
    }

    /// Corrects with `y.len()` measurements whose H rows were set: `y` the innovations
    /// (measured − predicted), `r` their variances. Δx is then [`Self::correction`].
    pub fn correct(&mut self, y: &[f64], r: &[f64]) -> Result<(), String> {
        let (n, rows) = (self.n, y.len());
        assert!(rows <= self.m && r.len() == rows);
        self.correction.fill(0.0);
        if rows == 0 || n == 0 {
            return Ok(());
        }
        // k = P Hᵀ (n × rows), S = H P Hᵀ + R.
        for i in 0..n {
            for a in 0..rows {
                self.k[i * rows + a] = (0..n).map(|j| self.p[i * n + j] * self.h[a * n + j]).sum();
            }
        }
        for a in 0..rows {
            for b in 0..rows {
                self.s[a * rows + b] = (0..n)
                    .map(|j| self.h[a * n + j] * self.k[j * rows + b])
                    .sum::<f64>()
                    + if a == b { r[a] } else { 0.0 };
            }
            self.innovation_variance[a] = self.s[a * rows + a];
        }
        lu_factor(
            &mut self.s[..rows * rows],
            rows,
            &mut self.piv,
            &mut self.scale,
        )
        .map_err(|e| format!("the innovation covariance is singular: {e}"))?;
        // K = P Hᵀ S⁻¹, row by row (S is symmetric).
        for i in 0..n {
            self.col[..rows].copy_from_slice(&self.k[i * rows..(i + 1) * rows]);
            lu_solve(
                &self.s[..rows * rows],
                rows,
                &self.piv,
                &self.scale,
                &mut self.col[..rows],
            );
            self.k[i * rows..(i + 1) * rows].copy_from_slice(&self.col[..rows]);
        }
        for i in 0..n {
            self.correction[i] = (0..rows).map(|a| self.k[i * rows + a] * y[a]).sum();
        }
        // Joseph: L = I − K H; P ← L P Lᵀ + K R Kᵀ.
        for i in 0..n {
            for j in 0..n {
                let kh: f64 = (0..rows)
                    .map(|a| self.k[i * rows + a] * self.h[a * n + j])
                    .sum();
                self.t1[i * n + j] = if i == j { 1.0 } else { 0.0 } - kh;
            }
        }
        multiply(&self.t1, &self.p, &mut self.t2, n, n, n);
        multiply_transposed(&self.t2, &self.t1, &mut self.p, n, n, n);
        for i in 0..n {
            for j in 0..n {
                self.p[i * n + j] += (0..rows)
                    .map(|a| self.k[i * rows + a] * r[a] * self.k[j * rows + a])
                    .sum::<f64>();
            }
        }
        symmetrize(&mut self.p, n);
        Ok(())
    }
}

/// c = a b (a: r × k, b: k × c).
fn multiply(a: &[f64], b: &[f64], out: &mut [f64], r: usize, k: usize, c: usize) {
    for i in 0..r {
        for j in 0..c {
            out[i * c + j] = (0..k).map(|l| a[i * k + l] * b[l * c + j]).sum();
        }
    }
}

/// out = a bᵀ (a: r × k, b: c × k).
fn multiply_transposed(a: &[f64], b: &[f64], out: &mut [f64], r: usize, k: usize, c: usize) {
    for i in 0..r {
        for j in 0..c {
            out[i * c + j] = (0..k).map(|l| a[i * k + l] * b[j * k + l]).sum();
        }
    }
}

fn symmetrize(p: &mut [f64], n: usize) {
    for i in 0..n {
        for j in i + 1..n {
            let v = 0.5 * (p[i * n + j] + p[j * n + i]);
            p[i * n + j] = v;
            p[j * n + i] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transition_of_a_constant_velocity_is_exact() {
        // ẋ = v, v̇ = 0: the trapezoidal rule carries (x, v) exactly, F = [1 h; 0 1], and a
        // velocity variance grows the position's by h² per step.
        let h = 0.01;
        let mut f = ErrorStateFilter::new(2, 1, &[0.0, 1.0]);
        f.jacobian_mut().copy_from_slice(&[0.0, 1.0, 0.0, 0.0]);
        f.predict(h);
        let p = f.covariance();
        assert!((p[0] - h * h).abs() < 1e-15, "{p:?}");
        assert!((p[1] - h).abs() < 1e-15 && (p[2] - h).abs() < 1e-15);
        assert!((p[3] - 1.0).abs() < 1e-15);
    }

    #[test]
    fn a_stiff_mode_stays_bounded_where_a_taylor_step_grows() {
        // λ = −1e5 at h = 1 ms (a pressure mode far faster than the step): the trapezoidal
        // factor (1 − 50)/(1 + 50) = −0.96 keeps |F| < 1; a Taylor step 1 + λh + (λh)²/2 = 4901.
        let mut f = ErrorStateFilter::new(1, 1, &[1.0]);
        f.jacobian_mut()[0] = -1e5;
        for _ in 0..100 {
            f.predict(1e-3);
        }
        assert!(f.variance(0) < 1.0, "{}", f.variance(0));
    }

    #[test]
    fn the_gain_weighs_prediction_against_measurement() {
        // Two states, the first measured: equal variances halve the difference, and the
        // correlated second state moves by its covariance's share.
        let mut f = ErrorStateFilter::new(2, 1, &[1.0, 1.0]);
        f.set_covariance(&[1.0, 0.5, 0.5, 1.0]);
        f.measurement_row(0).copy_from_slice(&[1.0, 0.0]);
        f.correct(&[2.0], &[1.0]).unwrap();
        let dx = f.correction();
        assert!(
            (dx[0] - 1.0).abs() < 1e-15 && (dx[1] - 0.5).abs() < 1e-15,
            "{dx:?}"
        );
        // P⁺ = P − P Hᵀ S⁻¹ H P: [0.5, 0.25; 0.25, 0.875].
        let p = f.covariance();
        for (a, b) in p.iter().zip([0.5, 0.25, 0.25, 0.875]) {
            assert!((a - b).abs() < 1e-15, "{p:?}");
        }
        assert_eq!(f.innovation_variance(0), 2.0);
    }
}

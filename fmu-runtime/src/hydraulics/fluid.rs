//! Bulk modulus of oil — liquid, entrained air, vapour — and the effective modulus of a
//! compliant volume.
//!
//! # Oil that cannot pull
//! Oil carries undissolved air. Compressed and expanded polytropically, `p V_g^n = const`,
//! the air makes the mixture soft at low pressure: the mixture law of the Simscape
//! Hydraulics *Hydraulic Fluid* block and MapleSim's hydraulic chambers,
//!
//! ```text
//! 1/E = (1/β_L + (−dg/dp)) / (1 + g),   g = α ((p_a − p_v)/(p − p_v))^(1/n)
//! ```
//!
//! with `g` the air volume per liquid volume, `α` its value at atmospheric pressure
//! `p_a`, `β_L` the liquid's modulus. We measure the gas pressure from the oil's vapour
//! pressure `p_v` (at `p_v` the oil boils and the cavity holds vapour and released air), so
//! the air volume grows without bound as `p → p_v`: `E → n (p − p_v)` and a volume that is
//! drained faster than oil arrives approaches `p_v` and never crosses it, while the load
//! that drains it moves as if nothing held it (cavitation). With `p_v = 0` the law is
//! Simscape's.
//!
//! Below `p_v + δ` the distance `p − p_v` is continued by `δ e^((p − p_v)/δ − 1)` (C¹, always
//! positive), so that Newton's iterates may stray below `p_v` without leaving the law's
//! domain; converged steps stay above `p_v` (backward Euler near it, `solver::newton`).

use crate::math;
use crate::model::{BulkModulus, EntrainedAir};

/// Atmospheric pressure: the pressure at which the air fraction is stated [Pa].
pub const ATMOSPHERE: f64 = 101_325.0;

/// Share of `p_a − p_v` below which `p − p_v` is continued exponentially (our choice: a
/// tenth of a percent, ≈ 100 Pa, where the air has expanded to 1000× its atmospheric volume).
const CONTINUATION: f64 = 1e-3;

/// The liquid's compressibility `1/β` at pressure `p` [1/Pa] (the pressure rates work in
/// compliances).
pub fn oil_compliance(law: &BulkModulus, params: &[f64], p: f64) -> f64 {
    match *law {
        BulkModulus::Constant(b) => 1.0 / params[b.index()],
        BulkModulus::PressureDependent { a, b } => {
            // Seed 002 eq 3: β = (1 + a p + b p²)/(a + 2 b p).
            let (a, b) = (params[a.index()], params[b.index()]);
            (a + 2.0 * b * p) / (1.0 + a * p + b * p * p)
        }
    }
}

/// The oil's low-pressure law with its parameter values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AirLaw {
    fraction: f64,
    /// `1/n`.
    inverse_index: f64,
    vapour_pressure: f64,
}

impl AirLaw {
    pub fn of(air: &EntrainedAir, params: &[f64]) -> AirLaw {
        AirLaw::new(
            params[air.fraction.index()],
            params[air.polytropic_index.index()],
            params[air.vapour_pressure.index()],
        )
    }

    /// Mixture bulk modulus at absolute pressure `p` from the liquid's `beta_liquid` [Pa].
    ///
    /// ```
    /// use fmu_runtime::hydraulics::fluid::{AirLaw, ATMOSPHERE};
    /// // 0.1 % air, isothermal, no vapour pressure: at 1 atm the air is 1/1000 of the
    /// // liquid and as compliant as 1/(1000 p_a) = 1e-8 1/Pa, 15× the liquid's 6.7e-10.
    /// let law = AirLaw::new(1e-3, 1.0, 0.0);
    /// let e = law.mixture_bulk_modulus(1.5e9, ATMOSPHERE);
    /// let expected = 1.001 / (1.0 / 1.5e9 + 1e-3 / ATMOSPHERE);
    /// assert!((e / expected - 1.0).abs() < 1e-12);
    /// // At 200 bar the air costs 0.03 % of the modulus.
    /// assert!((law.mixture_bulk_modulus(1.5e9, 200e5) / 1.5e9 - 1.0).abs() < 4e-4);
    /// ```
    pub fn mixture_bulk_modulus(&self, beta_liquid: f64, p: f64) -> f64 {
        1.0 / self.mixture_compliance(1.0 / beta_liquid, p)
    }

    /// The mixture's compressibility `1/E` at absolute pressure `p` [1/Pa] from the
    /// liquid's `1/β_L` (`liquid`): the form the pressure rates use, with three divisions
    /// where the modulus and its inverse took six.
    pub fn mixture_compliance(&self, liquid: f64, p: f64) -> f64 {
        let (g, compliance) = self.gas(p);
        if g.is_finite() && compliance.is_finite() {
            (liquid + compliance) / (1.0 + g)
        } else {
            // Far below vapour pressure the continued distance underflows and the air
            // fraction overflows; the modulus tends to `(1 + g)/compliance → n·δ` there, the
            // value a static-equilibrium trial far below p_v must see (not NaN).
            self.inverse_index / (CONTINUATION * (ATMOSPHERE - self.vapour_pressure))
        }
    }

    /// A law from its values: air fraction at atmospheric pressure, polytropic index,
    /// vapour pressure [Pa].
    pub fn new(fraction: f64, polytropic_index: f64, vapour_pressure: f64) -> AirLaw {
        AirLaw {
            fraction,
            inverse_index: 1.0 / polytropic_index,
            vapour_pressure,
        }
    }

    /// The oil's vapour pressure [Pa].
    pub fn vapour_pressure(&self) -> f64 {
        self.vapour_pressure
    }

    /// Air volume per liquid volume `g` and its compliance `−dg/dp` [1/Pa] at `p`.
    fn gas(&self, p: f64) -> (f64, f64) {
        let span = ATMOSPHERE - self.vapour_pressure;
        let delta = CONTINUATION * span;
        let x = p - self.vapour_pressure;
        // Distance from vapour pressure, continued below δ; `slope` = its derivative.
        let (d, slope) = if x >= delta {
            (x, 1.0)
        } else {
            let e = math::exp(x / delta - 1.0);
            (delta * e, e)
        };
        let per_d = 1.0 / d;
        let ratio = span * per_d;
        let g = self.fraction
            * if self.inverse_index == 1.0 {
                ratio
            } else {
                math::pow(ratio, self.inverse_index)
            };
        (g, g * self.inverse_index * per_d * slope)
    }
}

/// Effective bulk modulus of a volume made of sub-volumes with compliant walls
/// (seed 001 eq 2.35): `1/β_e = 1/β_oil + Σ (V_k/V)/β_k`. `walls` yields `(V_k, β_k)`.
pub fn effective_bulk_modulus(
    beta_oil: f64,
    volume: f64,
    walls: impl Iterator<Item = (f64, f64)>,
) -> f64 {
    let walls: f64 = walls.map(|(v_k, beta_k)| v_k / beta_k).sum();
    volume / volume_compliance(volume, 1.0 / beta_oil, walls)
}

/// `V/β_e = V/β_oil + Σ V_k/β_k` (seed 001 eq 2.35 times V) from the oil's compressibility
/// and the walls' compliance `Σ V_k/β_k`: the form the pressure rates use.
#[inline]
pub fn volume_compliance(volume: f64, oil: f64, walls: f64) -> f64 {
    volume * oil + walls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mixture_law_is_simscapes_at_zero_vapour_pressure() {
        // Simscape Hydraulic Fluid block: E = E_l (1 + α (p_a/p)^(1/n)) /
        // (1 + α p_a^(1/n) E_l / (n p^((n+1)/n))), p absolute here.
        let (el, alpha, n) = (1.6e9, 0.005, 1.4);
        let law = AirLaw::new(alpha, n, 0.0);
        for p in [0.2e5, 1e5, 5e5, 20e5, 100e5, 350e5] {
            let simscape = el * (1.0 + alpha * math::pow(ATMOSPHERE / p, 1.0 / n))
                / (1.0
                    + alpha * math::pow(ATMOSPHERE, 1.0 / n) * el
                        / (n * math::pow(p, (n + 1.0) / n)));
            let e = law.mixture_bulk_modulus(el, p);
            assert!((e / simscape - 1.0).abs() < 1e-12, "{p}: {e} vs {simscape}");
        }
    }

    #[test]
    fn the_modulus_vanishes_at_vapour_pressure_and_stays_positive_below() {
        let law = AirLaw::new(1e-3, 1.0, 1000.0);
        // 500 Pa above p_v the air is g = 1e-3·(p_a − p_v)/500 = 0.2 of the liquid and
        // E = (1 + g)/(1/β + g/500) ≈ 3000 Pa: the oil is softer than the air alone.
        let g = 1e-3 * (ATMOSPHERE - 1000.0) / 500.0;
        let e = law.mixture_bulk_modulus(1.5e9, 1000.0 + 500.0);
        assert!(
            (e / ((1.0 + g) / (1.0 / 1.5e9 + g / 500.0)) - 1.0).abs() < 1e-12,
            "{e}"
        );
        assert!(e < 3100.0, "{e}");
        let mut last = f64::INFINITY;
        for k in 0..40 {
            let p = 1200.0 - 10.0 * k as f64;
            let e = law.mixture_bulk_modulus(1.5e9, p);
            assert!(e > 0.0 && e < last, "{p}: {e}");
            last = e;
        }
    }

    #[test]
    fn far_below_vapour_pressure_the_modulus_stays_finite() {
        let law = AirLaw::new(1e-3, 1.4, 1000.0);
        let floor = CONTINUATION * (ATMOSPHERE - 1000.0) * 1.4;
        // Overflowed (−40 bar) the limit itself; at 1 kPa below p_v within 0.3 % of it.
        for p in [-40e5, -1e5, -1e3, 0.0] {
            let e = law.mixture_bulk_modulus(1.5e9, p);
            assert!(e.is_finite() && e > 0.0, "{p}: {e}");
            assert!((e / floor - 1.0).abs() < 5e-3, "{p}: {e} vs {floor}");
        }
        assert!((law.mixture_bulk_modulus(1.5e9, -40e5) / floor - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_continuation_below_vapour_pressure_is_c1() {
        let law = AirLaw::new(2e-3, 1.2, 2000.0);
        let delta = CONTINUATION * (ATMOSPHERE - 2000.0);
        let p = 2000.0 + delta;
        let (below, above) = (law.gas(p - 1e-9 * delta), law.gas(p + 1e-9 * delta));
        assert!((below.0 / above.0 - 1.0).abs() < 1e-8);
        assert!((below.1 / above.1 - 1.0).abs() < 1e-6);
    }

    #[test]
    fn seed_001_effective_moduli() {
        // Seed 001 Pub I: hose only 402.4 MPa; piston side ≈1364 MPa (digest §3.1).
        let b1 = effective_bulk_modulus(1500e6, 4.71e-5, [(4.71e-5, 550e6)].into_iter());
        assert!((b1 / 1e6 - 402.4).abs() < 0.1, "{b1}");
        let a2 = std::f64::consts::PI * 0.08f64.powi(2) / 4.0;
        let v_ch = a2 * (2f64.sqrt() - 1.1);
        let v = 3.14e-5 + v_ch;
        let b2 = effective_bulk_modulus(1500e6, v, [(3.14e-5, 550e6), (v_ch, 31500e6)].into_iter());
        assert!((b2 / 1e6 - 1364.0).abs() < 1.0, "{b2}");
    }
}

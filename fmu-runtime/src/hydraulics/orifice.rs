//! Sharp-edged orifice law with a laminar region around Δp = 0.

/// Flow `Q = K·sign(Δp)·√|Δp|` for |Δp| ≥ `p_lam`; below it the cubic
/// `K √p_lam · (5x − x³)/4` with `x = Δp/p_lam`, which matches value and slope at
/// |Δp| = p_lam and has the finite slope `5K/(4√p_lam)` at 0 (the √ law's slope is
/// infinite there, which stalls Newton: seed 002 trap T9, seed 001 §2.7).
pub fn turbulent_flow(k: f64, dp: f64, p_lam: f64) -> f64 {
    if k == 0.0 {
        return 0.0;
    }
    if dp.abs() >= p_lam || p_lam <= 0.0 {
        k * dp.signum() * dp.abs().sqrt()
    } else {
        let x = dp / p_lam;
        k * p_lam.sqrt() * (5.0 * x - x * x * x) * 0.25
    }
}

/// An opening faded in over `width`: 0 for `x ≤ 0`, 1 for `x ≥ width`, the smoothstep
/// `ξ²(3 − 2ξ)` of `ξ = x/width` between (C¹). Opens compensated edges (x = Δp over the
/// margin), check valves (the signal above cracking) and an accumulator's gas compliance.
pub fn smooth_opening(x: f64, width: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else if x >= width {
        1.0
    } else {
        let xi = x / width;
        xi * xi * (3.0 - 2.0 * xi)
    }
}

/// The opening of a valve that cracks at `y = 0`: exactly `0` for `y ≤ 0` (a closed valve
/// passes nothing, however far below cracking), exactly `y` for `y ≥ s`, and the cubic
/// `y²(2s − y)/s²` between, which matches value and slope at both ends (C¹), so Newton sees
/// a continuous slope. The former blend `(y + √(y² + s²))/2` leaked `≈ s²/(4|y|)` below
/// cracking; beyond `s` the two agree to `s²/(4y)`.
pub fn cracking_ramp(y: f64, s: f64) -> f64 {
    if y <= 0.0 {
        0.0
    } else if y >= s {
        y
    } else {
        y * y * (2.0 * s - y) / (s * s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cracking_valve_is_shut_below_cracking_and_c1_everywhere() {
        let s = 1e5;
        // Closed: exactly zero however close to or far below cracking.
        for y in [0.0, -1e-9, -1.0, -1e5, -4e7] {
            assert_eq!(cracking_ramp(y, s), 0.0);
        }
        // Open: exactly the linear law from s on.
        for y in [s, 2.0 * s, 4e7] {
            assert_eq!(cracking_ramp(y, s), y);
        }
        // Value and slope continuous at both ends of the blend, monotone inside it.
        let d = |y: f64| (cracking_ramp(y + 1e-3, s) - cracking_ramp(y - 1e-3, s)) / 2e-3;
        assert!(d(1e-3).abs() < 1e-6, "slope at cracking {}", d(1e-3));
        assert!((d(s) - 1.0).abs() < 1e-6, "slope at s {}", d(s));
        assert!((cracking_ramp(s * (1.0 - 1e-12), s) - s).abs() < 1e-6);
        let mut last = 0.0;
        for k in 1..=100 {
            let v = cracking_ramp(s * k as f64 / 100.0, s);
            assert!(v > last);
            last = v;
        }
    }

    #[test]
    fn continuous_with_matching_slope_at_the_laminar_limit() {
        let (k, pl) = (2.0e-8, 2.0e5);
        let below = turbulent_flow(k, pl * (1.0 - 1e-9), pl);
        let above = turbulent_flow(k, pl * (1.0 + 1e-9), pl);
        assert!((below - above).abs() < 1e-8 * above.abs());
        let h = 1.0;
        let slope_in = (turbulent_flow(k, pl - h, pl) - turbulent_flow(k, pl - 2.0 * h, pl)) / h;
        let slope_out = (turbulent_flow(k, pl + 2.0 * h, pl) - turbulent_flow(k, pl + h, pl)) / h;
        assert!((slope_in - slope_out).abs() / slope_out < 1e-4);
        // Odd, finite slope at zero, exact √ law far away.
        assert_eq!(turbulent_flow(k, -1.0e3, pl), -turbulent_flow(k, 1.0e3, pl));
        let s0 = turbulent_flow(k, 1.0, pl) / 1.0;
        assert!((s0 - 1.25 * k / pl.sqrt()).abs() / s0 < 1e-9);
        assert!((turbulent_flow(k, 4.0e6, pl) - k * 2000.0).abs() < 1e-18);
    }
}

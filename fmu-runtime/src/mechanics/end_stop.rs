//! End stops of a joint's travel (`limits = [lower, upper]`): beyond a limit a spring-damper
//! pushes the coordinate back, never pulls (the same law as a cylinder's end cushion).

/// Penetration over which the damping is faded in [m or rad] (our choice): full damping the
/// instant of contact would make the force jump when the joint arrives at speed.
pub const DAMPING_FADE: f64 = 1e-3;

/// Generalized force [N or N·m] on a coordinate `q` moving at `qd` with the stops at
/// `lower` and `upper`, stiffness `k`, damping `d`; zero between the limits.
pub fn force(q: f64, qd: f64, lower: f64, upper: f64, k: f64, d: f64) -> f64 {
    faded_force(q, qd, lower, upper, k, d, DAMPING_FADE)
}

/// [`force`] with the damping faded in over `fade` of penetration (a cylinder's cushion
/// fades it over the cushion's length).
pub fn faded_force(q: f64, qd: f64, lower: f64, upper: f64, k: f64, d: f64, fade: f64) -> f64 {
    let below = lower - q;
    let above = q - upper;
    if below > 0.0 {
        (k * below - d * qd * (below / fade).min(1.0)).max(0.0)
    } else if above > 0.0 {
        -(k * above + d * qd * (above / fade).min(1.0)).max(0.0)
    } else {
        0.0
    }
}

/// `(−∂F/∂q, −∂F/∂q̇)` where a stop is engaged (the stiffness and the damping it adds to the
/// Newton tangent, the fade of the damping included), else zeros.
pub fn stiffness(q: f64, qd: f64, lower: f64, upper: f64, k: f64, d: f64) -> (f64, f64) {
    let below = lower - q;
    let above = q - upper;
    // The penetration, and whether the stop's force grows against q̇ (lower) or with it.
    let (e, side) = if below > 0.0 {
        (below, -1.0)
    } else {
        (above, 1.0)
    };
    if e <= 0.0 || force(q, qd, lower, upper, k, d) == 0.0 {
        return (0.0, 0.0);
    }
    let fading = e < DAMPING_FADE;
    let w = if fading { e / DAMPING_FADE } else { 1.0 };
    let dw = if fading { 1.0 / DAMPING_FADE } else { 0.0 };
    (k + side * d * qd * dw, d * w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushes_back_beyond_either_limit_and_never_pulls() {
        let (lo, hi, k, d) = (-1.0, 2.0, 1e6, 1e3);
        assert_eq!(force(0.5, 3.0, lo, hi, k, d), 0.0);
        assert!((force(-1.01, 0.0, lo, hi, k, d) - k * 0.01).abs() < 1e-6);
        assert!((force(2.02, 0.0, lo, hi, k, d) + k * 0.02).abs() < 1e-6);
        // Moving into the stop: more force; leaving it fast: none (no pull).
        assert!(force(-1.01, -1.0, lo, hi, k, d) > k * 0.01);
        assert_eq!(force(-1.0001, 100.0, lo, hi, k, d), 0.0);
        assert_eq!(stiffness(-1.0001, 100.0, lo, hi, k, d), (0.0, 0.0));
        // The damping is faded in over the first millimetre (or milliradian).
        let e = 0.00048828125; // 2⁻¹¹, exact
        let w = e / DAMPING_FADE;
        assert!((force(hi + e, 1.0, lo, hi, k, d) + (k * e + d * w)).abs() < 1e-9);
        let (ks, ds) = stiffness(hi + e, 1.0, lo, hi, k, d);
        assert!((ds - d * w).abs() < 1e-9);
        // Both slopes are the derivatives of the force (central differences).
        let dq = 1e-9;
        let fq = (force(hi + e + dq, 1.0, lo, hi, k, d) - force(hi + e - dq, 1.0, lo, hi, k, d))
            / (2.0 * dq);
        assert!((ks + fq).abs() < 1e-6 * ks, "{ks} vs {fq}");
        let (ks, _) = stiffness(lo - e, -1.0, lo, hi, k, d);
        let fq = (force(lo - e + dq, -1.0, lo, hi, k, d) - force(lo - e - dq, -1.0, lo, hi, k, d))
            / (2.0 * dq);
        assert!((ks + fq).abs() < 1e-6 * ks, "{ks} vs {fq}");
        assert_eq!(force(hi + 0.5, 1.0, lo, hi, k, d), -(k * 0.5 + d));
    }
}

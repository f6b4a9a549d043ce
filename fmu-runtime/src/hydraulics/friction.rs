//! Cylinder seal friction (seed 001 §2.3, Pub II). Static models are functions of the
//! extension speed; the dynamic ones (LuGre, modified LuGre) carry internal states that
//! are primary unknowns of the monolithic Newton loop (Pub II eqs 2.64–2.65), so their
//! state equations are returned as residuals `τ ẏ − f(y, v)` like every first-order state.

use crate::math;
use crate::model::Friction;

/// |v| smoothed over 1 µm/s: the exact |v| has a kink at 0 that stalls finite-difference
/// tangents, and `(|v|/v_s)^n` with n = 0.5 has an infinite slope there (seed 001 trap 3).
const V_SMOOTH: f64 = 1e-6;

fn smooth_abs(v: f64) -> f64 {
    (v * v + V_SMOOTH * V_SMOOTH).sqrt()
}

/// Friction force opposing positive speed `v` [N]. `y`, `yd` are the model's states and
/// their rates (empty for static models).
pub fn force(model: &Friction, p: &[f64], v: f64, y: &[f64], yd: &[f64]) -> f64 {
    let g = |id: crate::model::ParamId| p[id.index()];
    match *model.active(p) {
        Friction::Viscous { coefficient } => g(coefficient) * v,
        Friction::BengisuAkay {
            coulomb,
            stiction,
            stribeck_velocity,
            shape,
            viscous,
        } => {
            let (fc, fs, vs, xi, s2) = (
                g(coulomb),
                g(stiction),
                g(stribeck_velocity),
                g(shape),
                g(viscous),
            );
            let a = v.abs();
            if a < vs {
                (-fs / (vs * vs) * (a - vs).powi(2) + fs) * v.signum()
            } else {
                (fc + (fs - fc) * math::exp(-xi * (a - vs))) * v.signum() + s2 * v
            }
        }
        Friction::BrownMcPhee {
            coulomb,
            stiction,
            stribeck_velocity,
            viscous,
        } => {
            let (fc, fs, vs, s2) = (g(coulomb), g(stiction), g(stribeck_velocity), g(viscous));
            let r = v.abs() / vs;
            let stribeck = (fs - fc) * r / (0.25 * r * r + 0.75).powi(2);
            (fc * math::tanh(4.0 * r) + stribeck) * v.signum() + s2 * v * math::tanh(4.0)
        }
        Friction::LuGre {
            bristle_stiffness,
            bristle_damping,
            viscous,
            ..
        }
        | Friction::ModifiedLuGre {
            bristle_stiffness,
            bristle_damping,
            viscous,
            ..
        } => g(bristle_stiffness) * y[0] + g(bristle_damping) * yd[0] + g(viscous) * v,
        // `active` never returns a selectable model.
        Friction::Selectable { .. } => 0.0,
    }
}

/// Residuals of the friction state equations into `out` (one per state).
pub fn state_residuals(
    model: &Friction,
    p: &[f64],
    v: f64,
    y: &[f64],
    yd: &[f64],
    out: &mut [f64],
) {
    let g = |id: crate::model::ParamId| p[id.index()];
    let a = smooth_abs(v);
    let active = model.active(p);
    // States the active model does not use (a selectable friction) relax to zero.
    for k in active.states()..out.len() {
        out[k] = yd[k] + y[k];
    }
    match *active {
        Friction::LuGre {
            coulomb,
            stiction,
            stribeck_velocity,
            exponent,
            bristle_stiffness,
            ..
        } => {
            let (fc, fs, vs, n, s0) = (
                g(coulomb),
                g(stiction),
                g(stribeck_velocity),
                g(exponent),
                g(bristle_stiffness),
            );
            let stribeck = fc + (fs - fc) * math::exp(-math::pow(a / vs, n));
            // Eq 2.45: q̇ = v − σ0 |v| q / g(v).
            out[0] = yd[0] - (v - s0 * a * y[0] / stribeck);
        }
        Friction::ModifiedLuGre {
            coulomb,
            stiction,
            stribeck_velocity,
            exponent,
            bristle_stiffness,
            threshold_velocity,
            tau_acceleration,
            tau_deceleration,
            tau_dwell,
            dwell_velocity,
            ..
        } => {
            let (fc, fs, vs, n, s0) = (
                g(coulomb),
                g(stiction),
                g(stribeck_velocity),
                g(exponent),
                g(bristle_stiffness),
            );
            let vb = g(threshold_velocity);
            let h = y[1];
            // Eq 2.49: the film lowers the stiction peak.
            let stribeck = fc + ((1.0 - h.abs()) * fs - fc) * math::exp(-math::pow(a / vs, n));
            out[0] = yd[0] - (v - s0 * a * y[0] / stribeck);
            // Eqs 2.50–2.53: film thickness lag towards its steady state.
            let kf = (1.0 - fc / fs) * math::pow(vb, -2.0 / 3.0);
            let h_ss = kf * math::pow(a.min(vb), 2.0 / 3.0);
            let tau = if v.abs() < g(dwell_velocity) {
                g(tau_dwell)
            } else if h.abs() <= h_ss {
                g(tau_acceleration)
            } else {
                g(tau_deceleration)
            };
            out[1] = tau * yd[1] + h - h_ss;
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParamId;

    /// Seed 001 Pub II Table 2.
    fn table2() -> (Vec<f64>, Friction, Friction, Friction) {
        let p = vec![
            210.0,
            830.0,
            1.25e-2,
            0.5,
            54f64.sqrt() * 1e6,
            10f64.sqrt() * 1e4,
            330.0,
            0.7,
            0.25,
            1.5,
            40.0,
            1e-4,
            50.0,
        ];
        let id = |i: u32| ParamId(i);
        let ba = Friction::BengisuAkay {
            coulomb: id(0),
            stiction: id(1),
            stribeck_velocity: id(2),
            shape: id(12),
            viscous: id(6),
        };
        let lugre = Friction::LuGre {
            coulomb: id(0),
            stiction: id(1),
            stribeck_velocity: id(2),
            exponent: id(3),
            bristle_stiffness: id(4),
            bristle_damping: id(5),
            viscous: id(6),
        };
        let modified = Friction::ModifiedLuGre {
            coulomb: id(0),
            stiction: id(1),
            stribeck_velocity: id(2),
            exponent: id(3),
            bristle_stiffness: id(4),
            bristle_damping: id(5),
            viscous: id(6),
            threshold_velocity: id(7),
            tau_acceleration: id(8),
            tau_deceleration: id(9),
            tau_dwell: id(10),
            dwell_velocity: id(11),
        };
        (p, ba, lugre, modified)
    }

    #[test]
    fn bengisu_akay_branches() {
        let (p, ba, _, _) = table2();
        assert_eq!(force(&ba, &p, 0.0, &[], &[]), 0.0);
        // Peak F_s at v_s from the parabola; just above, the viscous term adds σ2 v_s.
        assert!((force(&ba, &p, 1.25e-2 * (1.0 - 1e-12), &[], &[]) - 830.0).abs() < 1e-6);
        let above = force(&ba, &p, 1.25e-2 * (1.0 + 1e-12), &[], &[]);
        assert!((above - (830.0 + 330.0 * 1.25e-2)).abs() < 1e-6);
        // Far away: Coulomb + viscous.
        assert!((force(&ba, &p, 1.0, &[], &[]) - (210.0 + 330.0)).abs() < 1e-6);
        assert_eq!(
            force(&ba, &p, -0.3, &[], &[]),
            -force(&ba, &p, 0.3, &[], &[])
        );
    }

    #[test]
    fn lugre_steady_state_is_the_stribeck_curve() {
        // At constant v the bristle settles at q = g(v)/σ0 sgn v: F = g(v) + σ2 v.
        let (p, _, lugre, modified) = table2();
        for v in [0.005, 0.05, 0.5] {
            let g = 210.0 + 620.0 * math::exp(-math::pow(v / 1.25e-2, 0.5));
            let q = g / (54f64.sqrt() * 1e6);
            let mut r = [0.0];
            state_residuals(&lugre, &p, v, &[q], &[0.0], &mut r);
            assert!(r[0].abs() < 1e-6 * v, "v={v}: residual {}", r[0]);
            let f = force(&lugre, &p, v, &[q], &[0.0]);
            assert!((f - (g + 330.0 * v)).abs() < 1e-6 * g);
            // Modified LuGre at its steady film: h̄ = K_f |v|^(2/3) lowers the stiction term.
            let kf = (1.0 - 210.0 / 830.0) * math::pow(0.7, -2.0 / 3.0);
            let h = kf * math::pow(v, 2.0 / 3.0);
            let mut r2 = [0.0, 0.0];
            state_residuals(&modified, &p, v, &[0.0, h], &[0.0, 0.0], &mut r2);
            assert!(r2[1].abs() < 1e-9, "film residual {}", r2[1]);
        }
        // Seed 001 digest: K_f = 0.9475, maximum h̄_ss = 1 − F_c/F_s = 0.747.
        let kf = (1.0 - 210.0 / 830.0) * math::pow(0.7, -2.0 / 3.0);
        assert!((kf - 0.9475).abs() < 1e-4);
    }
}

//! A rope from a winch drum over sheaves to a hook: an axial spring–damper along a
//! polyline that only pulls.
//!
//! The rope leaves the drum at a point fixed to the drum's mount, runs straight between
//! the points of its path (sheaves, sheave blocks) and ends at the hook. Its stretch is the
//! path length less the unstretched rope out, `e = Σ|x_{i+1} − x_i| − (L_0 + r·q)` with the
//! drum angle q (positive pays out); its tension `T = max(0, (EA/L_out)·e + c·ė)` with the
//! damping faded in over the first millimetre of stretch, the end-stop law of
//! [`super::end_stop`]: a slack rope (e ≤ 0) carries nothing, neither pull nor push. The
//! tension pulls every pair of neighbouring points together and turns the drum to pay out
//! (generalized force `T·r` on q). Sheave friction and the rope's mass are neglected.

use super::Kinematics;
use super::end_stop;
use super::spatial::Vec3;
use crate::model::Rope;

/// Shortest rope out the stiffness is computed for [m]: `EA/L` stays finite when the drum
/// has wound in everything (our choice).
const MIN_OUT: f64 = 1e-3;

/// A rope's geometry and tension at one evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RopeState {
    /// Length of the path from the drum to the hook [m] and its rate [m/s].
    pub length: f64,
    pub rate: f64,
    /// Unstretched rope out, `L_0 + r·q` [m].
    pub out: f64,
    /// Stretch `length − out` [m] and its rate.
    pub stretch: f64,
    pub stretch_rate: f64,
    /// Effective axial stiffness EA/out [N/m] and the damping [N·s/m].
    pub stiffness: f64,
    pub damping: f64,
    /// Tension [N], never negative.
    pub tension: f64,
}

impl RopeState {
    /// The rope's state at the current kinematics; `q`, `qd`: the drum's joint coordinate.
    pub fn of(rope: &Rope, p: &[f64], kin: &Kinematics, q: f64, qd: f64) -> RopeState {
        let (mut length, mut rate) = (0.0, 0.0);
        for pair in rope.path.windows(2) {
            let (xa, va) = kin.point(&pair[0]);
            let (xb, vb) = kin.point(&pair[1]);
            let d = xb - xa;
            let l = d.norm();
            length += l;
            if l > 1e-12 {
                rate += (d / l).dot(&(vb - va));
            }
        }
        let r = p[rope.drum_radius.index()];
        let out = p[rope.length.index()] + r * q;
        let stiffness = p[rope.axial_stiffness.index()] / out.max(MIN_OUT);
        let damping = p[rope.damping.index()];
        let (stretch, stretch_rate) = (length - out, rate - r * qd);
        RopeState {
            length,
            rate,
            out,
            stretch,
            stretch_rate,
            stiffness,
            damping,
            tension: tension(stretch, stretch_rate, stiffness, damping),
        }
    }
}

/// Tension at stretch `e` and stretch rate `ed`: the end-stop law beyond `e = 0`.
pub fn tension(e: f64, ed: f64, k: f64, d: f64) -> f64 {
    -end_stop::force(e, ed, f64::NEG_INFINITY, 0.0, k, d)
}

/// `(∂T/∂e, ∂T/∂ė)` where the rope is taut, else zeros (for the Newton tangent).
pub fn tension_slopes(e: f64, ed: f64, k: f64, d: f64) -> (f64, f64) {
    end_stop::stiffness(e, ed, f64::NEG_INFINITY, 0.0, k, d)
}

/// Unit vector along a segment from `a` to `b` (zero when they coincide).
pub fn direction(a: &Vec3, b: &Vec3) -> Vec3 {
    let d = b - a;
    let l = d.norm();
    if l > 1e-12 { d / l } else { Vec3::zeros() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slack_rope_carries_nothing_and_a_taut_one_pulls() {
        let (k, d) = (1e6, 1e3);
        assert_eq!(tension(-0.01, -5.0, k, d), 0.0);
        assert_eq!(tension(-0.01, 5.0, k, d), 0.0);
        assert_eq!(tension(0.0, 5.0, k, d), 0.0);
        // Fully damped beyond the fade: k·e + d·ė.
        assert_eq!(tension(0.002, 0.1, k, d), k * 0.002 + d * 0.1);
        // Never pushes, even when the rope shortens fast.
        assert_eq!(tension(0.002, -10.0, k, d), 0.0);
    }
}

//! Double-acting cylinder: geometry from its two pins, chamber volumes, seal friction,
//! end cushions, and the force it puts on the mechanism.

use crate::model::Cylinder;

/// Kinematic and force state of one cylinder at an evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CylinderState {
    /// Pin-to-pin length [m] and its rate [m/s].
    pub length: f64,
    pub speed: f64,
    /// Stroke position x ∈ [0, stroke] (0 = fully retracted) [m].
    pub position: f64,
    pub cap_volume: f64,
    pub rod_volume: f64,
    /// Seal friction opposing the speed [N].
    pub friction: f64,
    /// End-cushion force pushing away from the nearer end [N].
    pub cushion: f64,
    /// Net force pushing the pins apart [N].
    pub force: f64,
}

/// Geometry and volumes from the pin distance and its rate.
#[inline]
pub fn kinematics(c: &Cylinder, p: &[f64], length: f64, speed: f64) -> CylinderState {
    let x = length - p[c.retracted_length.index()];
    let stroke = p[c.stroke.index()];
    CylinderState {
        length,
        speed,
        position: x,
        cap_volume: p[c.cap_dead_volume.index()] + p[c.cap_area.index()] * x,
        rod_volume: p[c.rod_dead_volume.index()] + p[c.rod_area.index()] * (stroke - x),
        ..CylinderState::default()
    }
}

/// Completes `s` with cushion and net force for chamber pressures `p_cap`, `p_rod` and
/// the seal friction `friction` (see [`super::friction`]).
#[inline]
pub fn forces(
    c: &Cylinder,
    p: &[f64],
    s: &mut CylinderState,
    p_cap: f64,
    p_rod: f64,
    friction: f64,
) {
    s.friction = friction;
    s.cushion = cushion(c, p, s.position, s.speed);
    s.force =
        p_cap * p[c.cap_area.index()] - p_rod * p[c.rod_area.index()] - s.friction + s.cushion;
}

/// Cushion: spring `k·e` plus damping `c·v` faded in over the cushion length, where `e` is
/// the penetration into the cushion zone at either end; never pulls.
fn cushion(c: &Cylinder, p: &[f64], x: f64, v: f64) -> f64 {
    let len = p[c.cushion.length.index()];
    let (k, d) = (p[c.cushion.stiffness.index()], p[c.cushion.damping.index()]);
    if len <= 0.0 {
        return 0.0;
    }
    let stroke = p[c.stroke.index()];
    // An end stop at `len` from either end, its damping faded in over the cushion length.
    crate::mechanics::end_stop::faded_force(x, v, len, stroke - len, k, d, len)
}

#[cfg(test)]
mod tests {
    use super::super::friction::force;
    use crate::model::{Friction, ParamId};

    #[test]
    fn brown_mcphee_peaks_near_stiction_and_is_odd() {
        let p = [210.0, 830.0, 1.25e-2, 330.0];
        let m = Friction::BrownMcPhee {
            coulomb: ParamId(0),
            stiction: ParamId(1),
            stribeck_velocity: ParamId(2),
            viscous: ParamId(3),
        };
        let f = |v: f64| force(&m, &p, v, &[], &[]);
        let peak = (1..2000).map(|i| f(i as f64 * 1e-5)).fold(0.0, f64::max);
        assert!(peak > 800.0 && peak < 900.0, "{peak}");
        assert_eq!(f(-0.01), -f(0.01));
        assert_eq!(f(0.0), 0.0);
        // Far from zero: Coulomb + viscous.
        assert!((f(1.0) - (210.0 + 330.0 * crate::math::tanh(4.0))).abs() < 5.0);
    }
}

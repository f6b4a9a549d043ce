//! The first iterate of a step: the state extrapolated from the step's start.
//!
//! A good first iterate is what lets Newton converge in one or two iterations (seed 001
//! Pub I predicts `z + h ż + h²/2 z̈` and `p + h ṗ`). Ours is one explicit step of the
//! trapezoidal rule itself, with the rate at the step's end extrapolated from the rates at
//! the starts of the last steps:
//!
//! - joint coordinates: `z + h ż + h²/4 (z̈ + z̈₁)`, with the end acceleration `z̈₁`
//!   extrapolated quadratically, `3 (z̈ − z̈₋₁) + z̈₋₂`, while the three keep one sign,
//!   linearly, `2 z̈ − z̈₋₁`, while the last two do, else `z̈₁ = z̈`. The Taylor predictor
//!   `z + h ż + h²/2 z̈` is the last case, and it leaves the trapezoidal solution `h³/4 z⃛`
//!   away (not the Taylor series' `h³/6`: the rule's displacement is `h²/4 (z̈ + z̈₁)`).
//!   Through the bench manoeuvres (full span, mean Newton iterations per step, instructions
//!   per step): excavator 1.60 → 1.50, PATU 1.36 → 1.23, knuckle crane 1.48 → 1.27
//!   (−10 %), truck crane 1.70 → 1.45 (−10 %), PVG32 crane 1.87 → 1.45 (−11 %), one-boom
//!   crane 1.50 → 1.04 (−17 %); the four-bars and the naya rod within ±1 %;
//! - first-order states (pressures, spools, friction states): `w + h/2 (ẇ + ẇ₁)` with
//!   `ẇ₁ = 2ẇ − ẇ₋₁` while the rate keeps its sign (`w + h (3ẇ − ẇ₋₁)/2`: on Exudyn's one-arm
//!   boom at 1 ms it took the median step from 2 Newton iterations to 1, where `w + h ẇ`
//!   leaves the pressure an `h²/2 p̈` off). A rate that alternates in sign from step to
//!   step is the trapezoidal rule ringing on a mode far faster than the step (a stiff
//!   volume at the seed 002 step of 10 ms): `ẇ` then says nothing about the next step and
//!   `ẇ₁ = ẇ₋₁` (the state moves by its last trapezoidal increment). The quadratic
//!   extrapolation here too took the Pub I four-bar's kept tangent from 2.21 to 1.94
//!   iterations per step, but its pressures then left the double-step's by 0.23 % in the
//!   ringing after the last valve switch (`tests/formulations.rs` allows 0.1 %); not kept.
//!
//! The history assumes steps of one length (a communication step's shorter last step makes
//! the next first iterate a little worse, nothing more: Newton corrects it). Inputs that
//! jump between steps move the rates at the step's start (`input_change`); the history
//! moves with them (`shift_history`), so a step input is extrapolated as a constant offset
//! of the trend, not as a trend of its own.

use crate::solver::State;

/// Predicted joint coordinate `i` at the end of a step of `h`.
#[inline]
pub fn joint(st: &State, i: usize, h: f64) -> f64 {
    let (a, a1, a2) = (st.zdd[i], st.zdd_last[i], st.zdd_last2[i]);
    let end = if a * a1 > 0.0 {
        if a1 * a2 > 0.0 {
            3.0 * (a - a1) + a2
        } else {
            2.0 * a - a1
        }
    } else {
        a
    };
    st.z[i] + h * st.zd[i] + 0.25 * h * h * (a + end)
}

/// Predicted first-order state `k` at the end of a step of `h`.
#[inline]
pub fn first_order(st: &State, k: usize, h: f64) -> f64 {
    let (rate, last) = (st.wd[k], st.wd_last[k]);
    let end = if rate * last > 0.0 {
        2.0 * rate - last
    } else {
        last
    };
    st.w[k] + 0.5 * h * (rate + end)
}

/// Before an accepted step writes its end rates: the rates it started from become the
/// history.
pub fn push_history(st: &mut State) {
    st.zdd_last2.copy_from_slice(&st.zdd_last);
    st.zdd_last.copy_from_slice(&st.zdd);
    st.wd_last.copy_from_slice(&st.wd);
}

/// A history that says "constant rates" (after initialization and re-initialization).
pub fn restart_history(st: &mut State) {
    st.zdd_last.copy_from_slice(&st.zdd);
    st.zdd_last2.copy_from_slice(&st.zdd);
    st.wd_last.copy_from_slice(&st.wd);
}

/// A joint coordinate whose chart changed (`charts::rechart`): its history, in the old
/// chart's angles, says nothing; its acceleration is held for the next step.
pub fn restart_joint_history(st: &mut State, i: usize) {
    st.zdd_last[i] = st.zdd[i];
    st.zdd_last2[i] = st.zdd[i];
}

/// Called with `sign = −1` before and `+1` after the rates at the step's start change for
/// new inputs: the history moves by the same jump (held as offsets in between, so no
/// buffer is needed).
pub fn shift_history(st: &mut State, sign: f64) {
    for (i, &a) in st.zdd.iter().enumerate() {
        st.zdd_last[i] += sign * a;
        st.zdd_last2[i] += sign * a;
    }
    for (k, &r) in st.wd.iter().enumerate() {
        st.wd_last[k] += sign * r;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Layout;

    fn layout(nz: usize, nw: usize) -> Layout {
        Layout {
            nz,
            nq: nz,
            nw,
            nc: 0,
            n_pressures: nw,
            n_spools: 0,
            n_displacements: 0,
            n_friction: 0,
            n_bristles: 0,
            n_ports: 0,
            n_charts: 0,
            n_near: 0,
        }
    }

    fn state(w: f64, wd: f64, wd_last: f64) -> State {
        let mut st = State::new_for(&layout(1, 1));
        (st.w[0], st.wd[0], st.wd_last[0]) = (w, wd, wd_last);
        st
    }

    #[test]
    fn a_trend_is_extrapolated_a_ringing_rate_repeated() {
        // Pressure rising ever faster, p = 1e6 + 2e7 t + 5e8 t² about t = 0 with the last
        // step's start at t = −1 ms (ṗ = 1.9e7): the parabola's value at 1 ms.
        let p = first_order(&state(1e6, 2e7, 1.9e7), 0, 1e-3);
        assert!((p - (1e6 + 2e4 + 500.0)).abs() < 1e-8, "{p}");
        // Rate alternating ±2.7e7 Pa/s (seed 002 rod at 10 ms): the last increment again.
        let p = first_order(&state(3.2e6, -2.7e7, 2.6e7), 0, 1e-2);
        assert!((p - (3.2e6 - 0.5e4)).abs() < 1e-6, "{p}");
    }

    #[test]
    fn joint_coordinates_land_on_the_trapezoidal_rule_for_a_quadratic_acceleration() {
        // z̈(t) = 6 + 30t + 100t², sampled at 0, −h, −2h: the predictor is the trapezoidal
        // rule's next point z + h ż + h²/4 (z̈ + z̈(h)) with the exact end acceleration;
        // the Taylor predictor z + h ż + h²/2 z̈ would be h²/4 (30h + 100h²) = 8.5e-3 away.
        let acc = |t: f64| 6.0 + 30.0 * t + 100.0 * t * t;
        let h = 0.1;
        let mut st = State::new_for(&layout(1, 0));
        (st.z[0], st.zd[0]) = (0.5, 2.0);
        (st.zdd[0], st.zdd_last[0], st.zdd_last2[0]) = (acc(0.0), acc(-h), acc(-2.0 * h));
        let trapezoidal = 0.5 + 2.0 * h + 0.25 * h * h * (acc(0.0) + acc(h));
        assert!((joint(&st, 0, h) - trapezoidal).abs() < 1e-14);
        // The acceleration two steps back of the other sign: linear, 2z̈ − z̈₋₁.
        st.zdd_last2[0] = -1.0;
        let linear = 0.5 + 2.0 * h + 0.25 * h * h * (3.0 * acc(0.0) - acc(-h));
        assert!((joint(&st, 0, h) - linear).abs() < 1e-14);
        // An acceleration that alternates in sign is held.
        (st.zdd[0], st.zdd_last[0]) = (-4.0, 4.0);
        assert!((joint(&st, 0, h) - (0.5 + 2.0 * h - 2.0 * h * h)).abs() < 1e-15);
    }

    #[test]
    fn a_jump_of_the_start_rates_shifts_the_history() {
        // An acceleration on a trend 1.0, 0.9, 0.8 jumps by +2 with a force input: the end
        // acceleration keeps the trend from the new value (3.1), where the unshifted history
        // would read the jump as a trend (3 · 2 = 6 more).
        let mut st = State::new_for(&layout(1, 1));
        (st.zdd[0], st.zdd_last[0], st.zdd_last2[0]) = (1.0, 0.9, 0.8);
        (st.wd[0], st.wd_last[0]) = (5.0, 4.0);
        shift_history(&mut st, -1.0);
        st.zdd[0] += 2.0;
        st.wd[0] -= 1.0;
        shift_history(&mut st, 1.0);
        assert!((st.zdd_last[0] - 2.9).abs() < 1e-15 && (st.zdd_last2[0] - 2.8).abs() < 1e-15);
        assert!((joint(&st, 0, 1.0) - 0.25 * (3.0 + 3.1)).abs() < 1e-12);
        // A pressure rate 4 → 5 that drops by 1 with a valve command: 4 → 3 keeps its trend.
        assert!((st.wd_last[0] - 3.0).abs() < 1e-15);
    }
}

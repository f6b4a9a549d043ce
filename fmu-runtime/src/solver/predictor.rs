//! The first iterate of a step: the state extrapolated from the step's start.
//!
//! A good first iterate is what lets Newton converge in one or two iterations (seed 001
//! Pub I predicts `z + h ż + h²/2 z̈` and `p + h ṗ`). The joint coordinates take that
//! second-order Taylor predictor. A first-order state is extrapolated to second order too
//! while its rate keeps its sign, `w + h ẇ + h²/2 ẅ` with `ẅ ≈ (ẇ − ẇ_last)/h` (the rates
//! at the starts of this and the last step: exact for a parabola at a constant step); on
//! Exudyn's one-arm boom at 1 ms it took the median step from 2 Newton iterations to 1,
//! where `w + h ẇ` leaves the pressure an `h²/2 ṗ̈` (hundreds of pascals) off. When the
//! rate alternates from step to step the trapezoidal rule is ringing on a mode far faster
//! than the step (a stiff volume at the seed 002 step of 10 ms), `ẇ` says nothing about the
//! next step and the state moves by the mean of its last two rates (the last step's own
//! trapezoidal increment, where the rate was not refreshed since).

use crate::instance::State;

/// Predicted joint coordinate `i` at the end of a step of `h`.
#[inline]
pub fn joint(st: &State, i: usize, h: f64) -> f64 {
    st.z[i] + h * st.zd[i] + 0.5 * h * h * st.zdd[i]
}

/// Predicted first-order state `k` at the end of a step of `h`.
#[inline]
pub fn first_order(st: &State, k: usize, h: f64) -> f64 {
    let (rate, last) = (st.wd[k], st.wd_last[k]);
    if rate * last > 0.0 {
        st.w[k] + h * (1.5 * rate - 0.5 * last)
    } else {
        st.w[k] + 0.5 * h * (rate + last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Layout;

    fn layout(nz: usize, nw: usize) -> Layout {
        Layout {
            nz,
            nw,
            nc: 0,
            n_pressures: nw,
            n_spools: 0,
            n_displacements: 0,
            n_friction: 0,
            n_ports: 0,
            n_charts: 0,
        }
    }

    fn state(w: f64, wd: f64, wd_last: f64) -> State {
        let mut st = State::new_for(&layout(1, 1));
        (st.w[0], st.wd[0], st.wd_last[0]) = (w, wd, wd_last);
        st
    }

    #[test]
    fn a_trend_is_extrapolated_a_ringing_rate_averaged() {
        // Pressure rising ever faster, p = 1e6 + 2e7 t + 5e8 t² about t = 0 with the last
        // step's start at t = −1 ms (ṗ = 1.9e7): the parabola's value at 1 ms.
        let p = first_order(&state(1e6, 2e7, 1.9e7), 0, 1e-3);
        assert!((p - (1e6 + 2e4 + 500.0)).abs() < 1e-8, "{p}");
        // Rate alternating ±2.7e7 Pa/s (seed 002 rod at 10 ms): the mean of the two.
        let p = first_order(&state(3.2e6, -2.7e7, 2.6e7), 0, 1e-2);
        assert!((p - (3.2e6 - 0.5e4)).abs() < 1e-6, "{p}");
    }

    #[test]
    fn joint_coordinates_take_the_second_order_taylor_predictor() {
        let mut st = State::new_for(&layout(1, 0));
        (st.z[0], st.zd[0], st.zdd[0]) = (0.5, 2.0, -4.0);
        // Exact for a parabola z(t) = 0.5 + 2t − 2t².
        let h = 0.1;
        assert!((joint(&st, 0, h) - (0.5 + 2.0 * h - 2.0 * h * h)).abs() < 1e-15);
    }
}

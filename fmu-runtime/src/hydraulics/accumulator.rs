//! Gas-charged (bladder or piston) accumulator: a gas volume `V0` at the precharge `p0`,
//! compressed polytropically, `p·V_g^n = p0·V0^n`, by the oil that enters once the pressure
//! exceeds the precharge. Below it the gas fills the shell and the accumulator holds no oil.

use super::orifice::smooth_opening;
use crate::math;

/// Share of the precharge over which the gas compliance is faded in above `p0` (our
/// choice): the compliance `V_g/(n·p)` jumps from 0 to `V0/(n·p0)` at the precharge, a
/// step in the pressure rate that would make Newton chatter; a smoothstep over 1 % of `p0`
/// keeps it continuous.
pub const FADE: f64 = 0.01;

/// Oil stored at pressure `p` [m³]: `V0·(1 − (p0/p)^(1/n))` above the precharge, else 0.
pub fn stored_oil(p: f64, v0: f64, p0: f64, n: f64) -> f64 {
    if p <= p0 {
        0.0
    } else {
        v0 * (1.0 - math::pow(p0 / p, 1.0 / n))
    }
}

/// `dV_oil/dp` [m³/Pa]: the gas compliance `V_g/(n·p)` above the precharge, faded in over
/// `FADE·p0`; 0 below.
pub fn compliance(p: f64, v0: f64, p0: f64, n: f64) -> f64 {
    if p <= p0 {
        return 0.0;
    }
    let gas = v0 * math::pow(p0 / p, 1.0 / n);
    smooth_opening(p - p0, FADE * p0) * gas / (n * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gas_law_and_its_compliance() {
        let (v0, p0, n) = (2e-3, 50e5, 1.4);
        assert_eq!(stored_oil(40e5, v0, p0, n), 0.0);
        assert_eq!(compliance(p0, v0, p0, n), 0.0);
        // p·V_g^n = p0·V0^n at any pressure above the precharge.
        for p in [60e5, 100e5, 250e5] {
            let gas = v0 - stored_oil(p, v0, p0, n);
            let invariant = p * math::pow(gas, n);
            assert!((invariant / (p0 * math::pow(v0, n)) - 1.0).abs() < 1e-12);
            // The compliance is the derivative of the stored oil (beyond the fade).
            let d = (stored_oil(p + 1.0, v0, p0, n) - stored_oil(p - 1.0, v0, p0, n)) / 2.0;
            assert!((compliance(p, v0, p0, n) / d - 1.0).abs() < 1e-6);
        }
        // Continuous through the fade, reaching the full compliance at 1 % above p0.
        let full = v0 * math::pow(1.0 / 1.01, 1.0 / n) / (n * 1.01 * p0);
        assert!((compliance(1.01 * p0, v0, p0, n) / full - 1.0).abs() < 1e-12);
        assert!(compliance(p0 * (1.0 + 1e-9), v0, p0, n) < 1e-12 * full);
    }
}

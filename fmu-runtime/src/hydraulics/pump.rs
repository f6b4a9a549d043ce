//! Variable-displacement pump with a load-sensing (LS) regulator and pressure cut-off.
//!
//! The flow controller of an LS pump compares the pump pressure with the LS pressure plus
//! its spring setting, the margin Δp_LS; the pressure controller (cut-off) compares it with
//! its own setting. Whichever asks for less displacement wins. As in the static
//! characteristic of Hopsan's `HydraulicPressureControlledPump` (displacement proportional
//! to the pressure error), the regulator here has a droop `band`: the displacement it asks
//! for is
//!
//! ```text
//! e  = min(p_LS + Δp_LS − p_out, p_cut − p_out)
//! ε* = sat(½ + e/band)          sat: 0 below 0, 1 above 1, C¹ corners
//! τ ε̇ = ε* − ε                  (swash plate and stroking piston as a first-order lag)
//! Q  = ε·D·ω/2π − G·(p_out − p_in)
//! ```
//!
//! so in steady delivery the pump pressure sits within `band/2` of `p_LS + Δp_LS`, and
//! with every section centred (the LS line drained to tank) it idles at the margin above
//! tank, delivering only its leakage, not dumping over a relief.

use super::orifice::cracking_ramp;
use crate::model::LoadSensingPump;
use std::f64::consts::TAU;

/// Width of the saturation corners, as a share of the band (our choice).
const CORNER: f64 = 0.05;

/// The relative displacement `ε*` the regulator asks for at the node pressures.
pub fn regulator_setting(pump: &LoadSensingPump, params: &[f64], pressure: &[f64]) -> f64 {
    saturate(regulator_signal(pump, params, pressure))
}

/// The regulator's signal `σ = ½ + e/band` before saturation.
pub fn regulator_signal(pump: &LoadSensingPump, params: &[f64], pressure: &[f64]) -> f64 {
    let value = |id: crate::model::ParamId| params[id.index()];
    let p_out = pressure[pump.outlet];
    let flow_control = pressure[pump.load_sense] + value(pump.margin) - p_out;
    let cut_off = value(pump.cutoff) - p_out;
    0.5 + flow_control.min(cut_off) / value(pump.band)
}

/// `sigma` held to [0, 1]: exactly 0 below 0 and 1 above `1 + CORNER`, the identity between
/// the corners, C¹ throughout (the relief valve's cracking ramp at each end).
fn saturate(sigma: f64) -> f64 {
    cracking_ramp(sigma, CORNER) - cracking_ramp(sigma - 1.0, CORNER)
}

/// Delivered flow from inlet to outlet at relative displacement `epsilon` [m³/s].
pub fn flow(pump: &LoadSensingPump, params: &[f64], pressure: &[f64], epsilon: f64) -> f64 {
    let value = |id: crate::model::ParamId| params[id.index()];
    let geometric = epsilon * value(pump.displacement) * value(pump.speed) / TAU;
    geometric - value(pump.leakage) * (pressure[pump.outlet] - pressure[pump.inlet])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParamId;

    /// Parameters: D 45 cm³/rev, 1800 rpm, margin 20 bar, cut-off 250 bar, band 1 bar,
    /// τ 40 ms, leakage 1e-12; nodes: tank, outlet, LS line.
    fn pump() -> (LoadSensingPump, Vec<f64>) {
        let pump = LoadSensingPump {
            name: "pump".into(),
            inlet: 0,
            outlet: 1,
            load_sense: 2,
            state: 0,
            displacement: ParamId(0),
            speed: ParamId(1),
            margin: ParamId(2),
            cutoff: ParamId(3),
            band: ParamId(4),
            time_constant: ParamId(5),
            leakage: ParamId(6),
        };
        let params = vec![45e-6, 1800.0 * TAU / 60.0, 20e5, 250e5, 1e5, 0.04, 1e-12];
        (pump, params)
    }

    #[test]
    fn holds_the_margin_above_the_load_pressure_within_half_the_band() {
        let (pump, params) = pump();
        // p_out = p_LS + margin: half stroke; ±band/2 around it: 0 and 1.
        let at = |p_out: f64| regulator_setting(&pump, &params, &[1e5, p_out, 100e5]);
        assert_eq!(at(120e5), 0.5);
        assert_eq!(at(120.5e5), 0.0);
        assert_eq!(at(119.5e5 - CORNER * 1e5), 1.0);
        assert_eq!(at(119.75e5), 0.75);
        assert!((at(119.5e5) - 1.0).abs() < CORNER);
    }

    #[test]
    fn cut_off_overrides_the_load_signal() {
        let (pump, params) = pump();
        // LS asks for full stroke (load 240 bar + 20 bar margin), cut-off at 250 bar wins.
        let at = |p_out: f64| regulator_setting(&pump, &params, &[1e5, p_out, 240e5]);
        assert_eq!(at(250e5), 0.5);
        assert_eq!(at(251e5), 0.0);
    }

    #[test]
    fn saturation_is_c1() {
        let h = 1e-7;
        for &x in &[0.0, CORNER, 1.0, 1.0 + CORNER, 0.02, 1.03] {
            let left = (saturate(x) - saturate(x - h)) / h;
            let right = (saturate(x + h) - saturate(x)) / h;
            assert!(
                (left - right).abs() < 1e-5,
                "kink at {x}: {left} vs {right}"
            );
        }
        assert_eq!(saturate(-0.3), 0.0);
        assert_eq!(saturate(1.3), 1.0);
    }

    #[test]
    fn delivers_the_geometric_flow_less_leakage() {
        let (pump, params) = pump();
        let q = flow(&pump, &params, &[1e5, 101e5, 0.0], 0.5);
        let expected = 0.5 * 45e-6 * 30.0 - 1e-12 * 100e5;
        assert!((q - expected).abs() < 1e-15);
    }
}

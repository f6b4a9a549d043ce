//! Assembles the flows of all elements into the pressure rates of the control volumes.

use super::accumulator;
use super::cylinder::CylinderState;
use super::fluid::{AirLaw, oil_compliance, volume_compliance};
use super::orifice::{cracking_ramp, smooth_opening, turbulent_flow};
use super::pump;
use super::valve::edge_coefficient;
use crate::model::{
    Circuit, EDGE_AT, EDGE_BT, EDGE_PA, EDGE_PB, EdgeLaw, Element, MeteringEdge, Node,
};
use std::f64::consts::TAU;

/// Volumes below this are clamped so a mis-specified chamber cannot divide by zero [m³].
pub const MIN_VOLUME: f64 = 1e-9;

/// Flow of every element for the given node pressures, spool positions and relative
/// displacements of the variable pumps.
/// Sign: from `from`/inlet to `to`/outlet; for valves, the net flow into port A.
/// Adds each element's flows into `inflow` (per node).
pub fn element_flows(
    circuit: &Circuit,
    params: &[f64],
    pressure: &[f64],
    spool: &[f64],
    displacement: &[f64],
    flow: &mut [f64],
    inflow: &mut [f64],
) {
    inflow.fill(0.0);
    for (i, e) in circuit.elements.iter().enumerate() {
        flow[i] = match e {
            Element::DirectionalValve(v) => {
                let u = spool[v.spool];
                let pl = params[v.laminar_pressure.index()];
                let (pp, pt, pa, pb) = (
                    pressure[v.port_p],
                    pressure[v.port_t],
                    pressure[v.port_a],
                    pressure[v.port_b],
                );
                // The P→A and P→B openings also gate the LS signal passages below.
                let k_pa = edge_coefficient(&v.edges[EDGE_PA], u);
                let k_pb = edge_coefficient(&v.edges[EDGE_PB], u);
                let q_pa = metered_flow(v.edges[EDGE_PA].law, k_pa, pp - pa, pl);
                let q_pb = metered_flow(v.edges[EDGE_PB].law, k_pb, pp - pb, pl);
                let q_at = edge_flow(&v.edges[EDGE_AT], u, pa - pt, pl);
                let q_bt = edge_flow(&v.edges[EDGE_BT], u, pb - pt, pl);
                inflow[v.port_p] -= q_pa + q_pb;
                inflow[v.port_a] += q_pa - q_at;
                inflow[v.port_b] += q_pb - q_bt;
                inflow[v.port_t] += q_at + q_bt;
                if let Some(neutral) = &v.neutral {
                    let q_pt = edge_flow(neutral, u, pp - pt, pl);
                    inflow[v.port_p] -= q_pt;
                    inflow[v.port_t] += q_pt;
                }
                if let Some(ls) = &v.load_sense {
                    let k = params[ls.coefficient.index()];
                    let p_ls = pressure[ls.node];
                    let gate_a = smooth_opening(k_pa, ls.gate[0]);
                    let gate_b = smooth_opening(k_pb, ls.gate[1]);
                    let q_a = gate_a * load_signal_flow(pa - p_ls, k, pl);
                    let q_b = gate_b * load_signal_flow(pb - p_ls, k, pl);
                    inflow[v.port_a] -= q_a;
                    inflow[v.port_b] -= q_b;
                    inflow[ls.node] += q_a + q_b;
                }
                q_pa - q_at
            }
            Element::Orifice(o) => {
                let k = params[o.coefficient.index()];
                let q = turbulent_flow(
                    k,
                    pressure[o.from] - pressure[o.to],
                    params[o.laminar_pressure.index()],
                );
                transfer(inflow, o.from, o.to, q)
            }
            Element::ReliefValve(r) => {
                let over = pressure[r.from] - pressure[r.to] - params[r.cracking_pressure.index()];
                let q = params[r.gain.index()] * cracking_ramp(over, r.smoothing);
                transfer(inflow, r.from, r.to, q)
            }
            Element::CheckValve(c) => {
                let dp = pressure[c.from] - pressure[c.to];
                let signal = match c.pilot {
                    Some((pilot, ratio)) => {
                        dp + params[ratio.index()] * (pressure[pilot] - pressure[c.from])
                    }
                    None => dp,
                };
                let q = check_valve_flow(
                    dp,
                    signal,
                    params[c.cracking_pressure.index()],
                    params[c.full_open_pressure.index()],
                    params[c.coefficient.index()],
                    params[c.laminar_pressure.index()],
                );
                transfer(inflow, c.from, c.to, q)
            }
            Element::CounterbalanceValve(c) => {
                let q = counterbalance_flow(c, params, pressure);
                transfer(inflow, c.load, c.valve, q)
            }
            Element::Pump(p) => {
                let q = params[p.displacement.index()] * params[p.speed.index()] / TAU
                    * params[p.volumetric_efficiency.index()];
                transfer(inflow, p.inlet, p.outlet, q)
            }
            Element::LoadSensingPump(p) => {
                let q = pump::flow(p, params, pressure, displacement[p.state]);
                transfer(inflow, p.inlet, p.outlet, q)
            }
            Element::Leakage(l) => {
                let q = params[l.conductance.index()] * (pressure[l.from] - pressure[l.to]);
                transfer(inflow, l.from, l.to, q)
            }
        };
    }
}

/// Drop over which a section's shuttle opens from shut to fully open (our choice: small
/// beside any LS margin, wide enough for a C¹ opening Newton follows).
pub const SHUTTLE_OPENING: f64 = 0.1e5;

/// Flow through a section's LS signal passage into the LS line at a drop `dp` (working
/// port − LS line): the shuttle passes it one way only, a check without cracking pressure.
fn load_signal_flow(dp: f64, k: f64, p_lam: f64) -> f64 {
    check_valve_flow(dp, dp, 0.0, SHUTTLE_OPENING, k, p_lam)
}

/// Flow through one valve edge at spool position `u` and pressure drop `dp`.
fn edge_flow(edge: &MeteringEdge, u: f64, dp: f64, p_lam: f64) -> f64 {
    metered_flow(edge.law, edge_coefficient(edge, u), dp, p_lam)
}

/// Flow through an edge whose table gives `value` at the spool position, read by `law`.
fn metered_flow(law: EdgeLaw, value: f64, dp: f64, p_lam: f64) -> f64 {
    match law {
        EdgeLaw::Orifice => turbulent_flow(value, dp, p_lam),
        EdgeLaw::Compensated { margin } => value * smooth_opening(dp, margin),
    }
}

/// Flow of a check valve at pressure drop `dp` (inlet − outlet) with the opening signal
/// `signal` (`dp` itself, plus the pilot's share for a pilot-operated valve): zero up to
/// `cracking`, then the orifice law `K·√Δp` (laminar near 0) times the opening, a
/// smoothstep of the signal from 0 at cracking to 1 at `full_open`; C¹. A plain check valve
/// never passes oil backwards; a piloted one does once the pilot lifts it (Hopsan's check
/// valves meter the same way: opening by the drop, plus φ·p_pilot when piloted).
pub fn check_valve_flow(
    dp: f64,
    signal: f64,
    cracking: f64,
    full_open: f64,
    k: f64,
    p_lam: f64,
) -> f64 {
    let opening = smooth_opening(signal - cracking, full_open - cracking);
    if opening == 0.0 {
        0.0
    } else {
        opening * turbulent_flow(k, dp, p_lam)
    }
}

/// Flow of a counterbalance valve from its load port to its valve port (negative: the
/// lifting flow through its check): the poppet opened by `(p_load − p_valve) + φ·(p_pilot −
/// p_valve)` over `setting`, a smoothstep over `opening_range`, times `K·√Δp`; the check
/// from the valve port as [`check_valve_flow`]. Both shut exactly below their openings.
pub fn counterbalance_flow(
    c: &crate::model::CounterbalanceValve,
    params: &[f64],
    pressure: &[f64],
) -> f64 {
    let value = |id: crate::model::ParamId| params[id.index()];
    let (p_valve, p_pilot) = (pressure[c.valve], pressure[c.pilot]);
    let dp = pressure[c.load] - p_valve;
    let (k, p_lam) = (value(c.coefficient), value(c.laminar_pressure));
    let signal = dp + value(c.pilot_ratio) * (p_pilot - p_valve);
    let opening = smooth_opening(signal - value(c.setting), value(c.opening_range));
    let poppet = if opening == 0.0 {
        0.0
    } else {
        opening * turbulent_flow(k, dp, p_lam)
    };
    let check = check_valve_flow(
        -dp,
        -dp,
        value(c.check_cracking_pressure),
        value(c.check_full_open_pressure),
        k,
        p_lam,
    );
    poppet - check
}

fn transfer(inflow: &mut [f64], from: usize, to: usize, q: f64) -> f64 {
    inflow[from] -= q;
    inflow[to] += q;
    q
}

/// `ṗ = β_e/V (Q_in − V̇)` of every control volume, in node order (`rates[k]` for the
/// k-th volume node).
pub fn pressure_rates(
    circuit: &Circuit,
    params: &[f64],
    pressure: &[f64],
    inflow: &[f64],
    cylinders: &[CylinderState],
    scratch: &mut VolumeScratch,
    rates: &mut [f64],
) {
    // Chamber volumes, volume rates and wall compliances Σ V_k/β_k per node, one pass over
    // the cylinders (O(volumes + cylinders), not their product).
    let VolumeScratch {
        sums,
        stored,
        compliance,
    } = scratch;
    sums.fill(NodeSums::default());
    // Accumulators: the oil they hold is oil of the node (compressible like the rest), their
    // gas a compliance dV/dp beside it.
    for (a, held) in circuit.accumulators.iter().zip(stored.iter_mut()) {
        let (p, v0, p0, n) = (
            pressure[a.node],
            params[a.volume.index()],
            params[a.precharge.index()],
            params[a.exponent.index()],
        );
        *held = accumulator::stored_oil(p, v0, p0, n);
        sums[a.node].chamber += *held;
        sums[a.node].gas += accumulator::compliance(p, v0, p0, n);
    }
    for (c, s) in circuit.cylinders.iter().zip(cylinders) {
        sums[c.cap_node].chamber += s.cap_volume;
        sums[c.cap_node].rate += params[c.cap_area.index()] * s.speed;
        sums[c.rod_node].chamber += s.rod_volume;
        sums[c.rod_node].rate -= params[c.rod_area.index()] * s.speed;
        if let Some(b) = c.wall_bulk_modulus {
            let b = params[b.index()];
            sums[c.cap_node].wall += s.cap_volume.max(0.0) / b;
            sums[c.rod_node].wall += s.rod_volume.max(0.0) / b;
        }
    }
    let air = AirLaw::of(&circuit.oil.air, params);
    let mut k = 0;
    for (n, node) in circuit.nodes.iter().enumerate() {
        let Node::Volume(cv) = node else { continue };
        let NodeSums {
            chamber,
            rate,
            wall,
            gas,
        } = sums[n];
        let hose = params[cv.hose_volume.index()];
        let volume = (hose + chamber).max(MIN_VOLUME);
        let liquid = oil_compliance(&circuit.oil.bulk_modulus, params, pressure[n]);
        let mut walls = wall;
        if let Some(b) = cv.hose_bulk_modulus {
            walls += hose / params[b.index()];
        }
        // Seed 001 eq 2.35 times V, V/β_e = V/β_oil + Σ V_k/β_k, with the accumulators' gas
        // beside it: ṗ = ΣQ / (V/β_e + dV_gas/dp). (In compliances, not moduli: a division
        // on each step of the chain was a tenth of a small machine's step.)
        let total =
            volume_compliance(volume, air.mixture_compliance(liquid, pressure[n]), walls) + gas;
        rates[k] = (inflow[n] - rate) / total;
        compliance[k] = total;
        k += 1;
    }
}

/// What [`pressure_rates`] sums per node over the cylinders and accumulators on it.
#[derive(Clone, Copy, Debug, Default)]
struct NodeSums {
    /// Chamber and accumulator oil volume [m³].
    chamber: f64,
    /// Volume rate of the chambers (growth) [m³/s].
    rate: f64,
    /// Wall compliance Σ V_k/β_k of the chambers [m³/Pa].
    wall: f64,
    /// Gas compliance of the accumulators [m³/Pa].
    gas: f64,
}

/// Per-node sums of [`pressure_rates`], allocated once (one array of records: one fill per
/// evaluation instead of four).
#[derive(Clone, Debug)]
pub struct VolumeScratch {
    sums: Vec<NodeSums>,
    /// Oil held by each accumulator [m³].
    stored: Vec<f64>,
    /// `dV_oil/dp` of each volume (in volume order) [m³/Pa]: `ṗ = ΣQ / compliance`.
    compliance: Vec<f64>,
}

impl VolumeScratch {
    pub fn new(circuit: &Circuit) -> VolumeScratch {
        let n = circuit.nodes.len();
        VolumeScratch {
            sums: vec![NodeSums::default(); n],
            stored: vec![0.0; circuit.accumulators.len()],
            compliance: vec![0.0; circuit.volumes()],
        }
    }

    /// Compliance `dV_oil/dp` of each volume at the last evaluation [m³/Pa].
    pub fn compliance(&self) -> &[f64] {
        &self.compliance
    }

    /// Oil held by each accumulator at the last evaluation [m³].
    pub fn stored_oil(&self) -> &[f64] {
        &self.stored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_valve_passes_nothing_backwards_and_follows_its_cracking_curve() {
        let (pc, pf, k, pl) = (2e5, 5e5, 1e-6, 1e4);
        // Reverse and below cracking: exactly nothing.
        for dp in [-3e7, -1e5, -1.0, 0.0, 1e5, pc] {
            assert_eq!(check_valve_flow(dp, dp, pc, pf, k, pl), 0.0, "{dp}");
        }
        // Half way up the opening: smoothstep(1/2) = 1/2 of the orifice flow.
        let dp = 0.5 * (pc + pf);
        assert!((check_valve_flow(dp, dp, pc, pf, k, pl) - 0.5 * k * dp.sqrt()).abs() < 1e-15);
        // A quarter: 3/16 · 2/4 = 0.15625.
        let dp = pc + 0.25 * (pf - pc);
        let expected = 0.15625 * k * dp.sqrt();
        assert!((check_valve_flow(dp, dp, pc, pf, k, pl) - expected).abs() < 1e-15);
        // Fully open: the orifice law.
        for dp in [pf, 2e6, 2e7] {
            assert_eq!(check_valve_flow(dp, dp, pc, pf, k, pl), k * dp.sqrt());
        }
        // Continuous slope at cracking and at full opening.
        let slope = |dp: f64| {
            (check_valve_flow(dp + 1.0, dp + 1.0, pc, pf, k, pl)
                - check_valve_flow(dp - 1.0, dp - 1.0, pc, pf, k, pl))
                / 2.0
        };
        assert!(slope(pc) < 1e-4 * 0.5 * k / pc.sqrt());
        let orifice_slope = 0.5 * k / pf.sqrt();
        assert!((slope(pf) - orifice_slope).abs() < 1e-3 * orifice_slope);
    }

    #[test]
    fn compensated_edge_delivers_its_flow_whatever_the_load() {
        let edge = MeteringEdge {
            table: vec![(2.6, 40.0 / 60000.0), (5.257, 0.0)],
            law: EdgeLaw::Compensated { margin: 1e5 },
        };
        let q0 = 40.0 / 60000.0;
        // Full command (u ≤ 2.6 V): 40 L/min at any pressure drop beyond the margin.
        for dp in [2e5, 5e6, 2e7] {
            assert_eq!(edge_flow(&edge, 2.0, dp, 2e5), q0);
        }
        // Half way through the table: half the flow; closed beyond its end.
        assert!((edge_flow(&edge, (2.6 + 5.257) / 2.0, 1e6, 2e5) - q0 / 2.0).abs() < 1e-15);
        assert_eq!(edge_flow(&edge, 5.4, 1e6, 2e5), 0.0);
        // No reverse flow, smooth fade-in below the margin.
        assert_eq!(edge_flow(&edge, 2.0, -1e6, 2e5), 0.0);
        assert!((edge_flow(&edge, 2.0, 5e4, 2e5) - q0 * 0.5).abs() < 1e-15);
    }
}

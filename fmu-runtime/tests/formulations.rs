//! The two formulations cross-checked (seed 001 Pub I): the augmented Lagrangian with
//! projections and the double-step coordinate partitioning must give the same motion
//! and pressures on the Pub I four-bar, the double-step one with constraints at machine
//! precision.

mod support;

use fmu_runtime::Instance;
use fmu_runtime::model::{Formulation, ParamId, Probe};
use std::sync::Arc;
use std::time::Instant;

fn u_ref(t: f64) -> f64 {
    if (1.0..2.5).contains(&t) {
        10.0
    } else if (5.0..8.0).contains(&t) {
        -10.0
    } else {
        0.0
    }
}

struct Trace {
    crank: Vec<f64>,
    pressures: Vec<[f64; 3]>,
    max_phi: f64,
    avg_it: f64,
    max_it: f64,
    seconds: f64,
    drift: f64,
}

fn run(formulation: Formulation) -> Trace {
    let mut m = support::jaiswal_fourbar(0.001);
    m.solver.formulation = formulation;
    let m = Arc::new(m);
    let cmd = ParamId(
        m.params
            .iter()
            .position(|p| p.name == "valve.command")
            .unwrap() as u32,
    );
    let mut inst = Instance::new(m);
    inst.initialize(0.0).unwrap();
    let mut t = Trace {
        crank: vec![],
        pressures: vec![],
        max_phi: 0.0,
        avg_it: 0.0,
        max_it: 0.0,
        seconds: 0.0,
        drift: 0.0,
    };
    let start = Instant::now();
    for k in 0..10000 {
        let time = k as f64 * 0.001;
        inst.set_param(cmd, u_ref(time + 0.001));
        inst.advance(time + 0.001).unwrap();
        let it = inst.probe(Probe::NewtonIterations);
        t.avg_it += it / 1e4;
        t.max_it = t.max_it.max(it);
        t.max_phi = t.max_phi.max(inst.probe(Probe::ConstraintNorm));
        t.drift = t.drift.max(inst.probe(Probe::EnergyBalanceError).abs());
        t.crank.push(inst.probe(Probe::JointPosition(0)));
        t.pressures
            .push([2, 3, 4].map(|n| inst.probe(Probe::NodePressure(n))));
    }
    t.seconds = start.elapsed().as_secs_f64();
    t
}

#[test]
fn augmented_lagrangian_and_double_step_agree_on_the_pub1_four_bar() {
    let al = run(Formulation::AugmentedLagrangian);
    let ds = run(Formulation::DoubleStep);
    let mut d_angle = 0.0f64;
    let mut d_p = 0.0f64;
    for k in 0..al.crank.len() {
        d_angle = d_angle.max((al.crank[k] - ds.crank[k]).abs());
        for j in 0..3 {
            let (a, b) = (al.pressures[k][j], ds.pressures[k][j]);
            d_p = d_p.max((a - b).abs() / a.abs().max(1e6));
        }
    }
    println!(
        "ALF: iterations {:.2}/{} |Φ| {:.2e} drift {:.3} J {:.3} s; DS: iterations {:.2}/{} |Φ| {:.2e} drift {:.3} J {:.3} s; ratio DS/ALF {:.2}",
        al.avg_it,
        al.max_it,
        al.max_phi,
        al.drift,
        al.seconds,
        ds.avg_it,
        ds.max_it,
        ds.max_phi,
        ds.drift,
        ds.seconds,
        ds.seconds / al.seconds
    );
    println!(
        "max |Δ crank| = {d_angle:.2e} rad, max relative |Δp| = {:.2e}",
        d_p
    );
    assert!(d_angle < 1e-4, "crank angles differ by {d_angle}");
    assert!(d_p < 1e-3, "pressures differ by {d_p}");
    assert!(ds.max_phi < 1e-12, "double-step |Φ| {}", ds.max_phi);
    assert!(al.max_phi < 1e-6, "ALF |Φ| {}", al.max_phi);
}

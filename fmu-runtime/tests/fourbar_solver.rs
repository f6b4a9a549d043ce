//! Seed 001 Publication I hydraulic four-bar: a closed loop (cut revolute at E) driven by
//! the Table 1 circuit; checks of the augmented-Lagrangian solver.

mod support;

use fmu_runtime::Instance;
use fmu_runtime::model::{ParamId, Probe};
use std::sync::Arc;

fn u_ref(t: f64) -> f64 {
    // Pub I: +10 V for 1 ≤ t < 2.5 s (lift), −10 V for 5 ≤ t < 8 s (lower), else 0.
    if (1.0..2.5).contains(&t) {
        10.0
    } else if (5.0..8.0).contains(&t) {
        -10.0
    } else {
        0.0
    }
}

#[test]
fn fourbar_static_start_and_cycle() {
    let m = Arc::new(support::jaiswal_fourbar(0.001));
    let cmd = ParamId(
        m.params
            .iter()
            .position(|p| p.name == "valve.command")
            .unwrap() as u32,
    );
    let mut inst = Instance::new(m.clone());
    inst.initialize(0.0).unwrap();
    let p_cap = inst.probe(Probe::NodePressure(3));
    let p_rod = inst.probe(Probe::NodePressure(4));
    let hose = inst.probe(Probe::NodePressure(2));
    println!(
        "t=0: p1 {hose:.1} p2 {p_cap:.1} p3 {p_rod:.1} length {}",
        inst.probe(Probe::CylinderLength(0))
    );
    // Digest §3.1: p1 = p2 = (F0 + A3 p3)/A2 = 5.024 MPa with F0 = 11029.4 N.
    assert!((p_rod - 3.5e6).abs() < 1.0);
    assert!((p_cap - 5.024e6).abs() / 5.024e6 < 1e-3, "{p_cap}");
    assert!((hose - p_cap).abs() < 1.0);
    let force = inst.probe(Probe::CylinderForce(0));
    assert!((force - 11029.4).abs() < 0.5, "static force {force}");
    let dt = 0.001;
    let (mut max_it, mut sum_it, mut steps) = (0.0f64, 0.0, 0);
    let (mut max_phi, mut max_dphi, mut max_bal, mut max_work) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut angle_at = vec![];
    for k in 0..10000 {
        let t = k as f64 * dt;
        inst.set_param(cmd, u_ref(t + dt));
        inst.advance((k + 1) as f64 * dt).unwrap();
        let it = inst.probe(Probe::NewtonIterations);
        max_it = max_it.max(it);
        sum_it += it;
        steps += 1;
        max_phi = max_phi.max(inst.probe(Probe::ConstraintNorm));
        max_dphi = max_dphi.max(inst.probe(Probe::ConstraintVelocityNorm));
        max_bal = max_bal.max(inst.probe(Probe::EnergyBalanceError).abs());
        max_work = max_work.max(inst.probe(Probe::ActuatorWork).abs());
        if (k + 1) % 500 == 0 {
            angle_at.push((
                t + dt,
                inst.probe(Probe::JointPosition(0)),
                inst.probe(Probe::NodePressure(3)),
                inst.probe(Probe::NodePressure(4)),
            ));
        }
    }
    for a in &angle_at {
        println!("t={:.1} crank={:.5} p2={:.0} p3={:.0}", a.0, a.1, a.2, a.3);
    }
    println!(
        "iterations avg {:.2} max {max_it}; |Φ| max {max_phi:.2e}; |Φ̇| max {max_dphi:.2e}; energy drift {max_bal:.3} J of max work {max_work:.1} J",
        sum_it / steps as f64
    );
    assert!(max_phi < 1e-6, "{max_phi}");
    assert!(max_bal < 5.0);
}

//! Hydraulic components against closed forms: a fixed-displacement pump filling a volume
//! (pressure ramp β Q / V), the relief valve's regulated pressure, and end cushions that
//! stop a cylinder driven into its end stop.

mod support;

use fmu_runtime::Instance;
use fmu_runtime::model::*;
use std::f64::consts::TAU;
use std::sync::Arc;
use support::*;

#[test]
fn pump_charges_volume_then_relief_regulates() {
    let mut b = Builder::new();
    let step = b.p("solver.step", 1e-3);
    let (v, beta, disp, speed, crack, gain) = (2e-3, 1.5e9, 10e-6, 150.0, 10e6, 1e-9);
    let mut circuit = empty_circuit(&mut b);
    circuit.oil.bulk_modulus = BulkModulus::Constant(b.p("oil.beta", beta));
    // Nearly air-free oil from a tank at 1 bar: the line stiffens as the liquid alone (the
    // default 0.1 % air would take 1.2 of the first 1.8 MPa's worth of compression).
    circuit.oil.air.fraction = b.p("oil.air", 1e-7);
    let tank = 1e5;
    circuit.nodes = vec![
        Node::Pressure {
            name: "tank".into(),
            pressure: b.p("tank.p", tank),
        },
        Node::Volume(ControlVolume {
            name: "line".into(),
            hose_volume: b.p("line.v", v),
            hose_bulk_modulus: None,
            precharge: Some(b.p("line.p0", tank)),
            initial_guess: tank,
        }),
    ];
    circuit.elements = vec![
        Element::Pump(Pump {
            name: "pump".into(),
            inlet: 0,
            outlet: 1,
            displacement: b.p("pump.d", disp),
            speed: b.p("pump.speed", speed),
            volumetric_efficiency: b.p("pump.eta", 1.0),
        }),
        Element::ReliefValve(ReliefValve {
            name: "relief".into(),
            from: 1,
            to: 0,
            cracking_pressure: b.p("relief.crack", crack),
            gain: b.p("relief.gain", gain),
            smoothing: 1e4,
        }),
    ];
    let mech = Mechanism {
        bodies: vec![],
        cut_joints: vec![],
        markers: vec![],
        forces: vec![],
        base: None,
        rotations: vec![],
        flexible: vec![],
        contacts: Default::default(),
    };
    let mut m = model(b, 1e-3, mech, circuit, vec![], step, None);
    m.init.static_equilibrium = false;
    let mut inst = Instance::new(Arc::new(m));
    inst.initialize(0.0).unwrap();
    let q = disp * speed / TAU;
    // Below the cracking pressure the relief is closed (up to its 1e4 Pa smoothing).
    inst.advance(0.01).unwrap();
    let ramp = beta * q / v * 0.01;
    let p = inst.probe(Probe::NodePressure(1)) - tank;
    assert!((p / ramp - 1.0).abs() < 1e-3, "pressure {p} vs ramp {ramp}");
    // Steady state: relief passes the pump flow, p = tank + crack + Q/G.
    for k in 2..=200 {
        inst.advance(k as f64 * 0.01).unwrap();
    }
    let p = inst.probe(Probe::NodePressure(1));
    let expected = tank + crack + q / gain;
    assert!(
        (p - expected).abs() < 2e3,
        "relief pressure {p} vs {expected}"
    );
    assert!((inst.probe(Probe::ElementFlow(0)) - q).abs() < 1e-15);
    assert!((inst.probe(Probe::ElementFlow(1)) - q).abs() / q < 1e-6);
    let power = inst.probe(Probe::PumpPower(0));
    assert!((power - (p - tank) * q).abs() / power < 1e-9);
}

#[test]
fn cushion_stops_a_cylinder_at_its_end() {
    // The seed 002 rod with the spool far open: the cylinder extends into its end stop.
    let m = support::naya_rod(0.30, 0.01);
    let stroke = 0.442;
    let retracted = 0.5 - 0.221;
    let mut inst = Instance::new(Arc::new(m));
    inst.initialize(0.0).unwrap();
    let mut max_len = 0.0f64;
    for k in 1..=500 {
        inst.advance(k as f64 * 0.01).unwrap();
        max_len = max_len.max(inst.probe(Probe::CylinderLength(0)));
    }
    let x = max_len - retracted;
    println!("max stroke position {x} of {stroke}");
    assert!(x > stroke - 0.005, "did not reach the cushion: {x}");
    assert!(x < stroke + 0.002, "overshot the end stop: {x}");
    assert!(
        inst.probe(Probe::CylinderSpeed(0)).abs() < 1e-3,
        "still moving at the end"
    );
}

//! Issue 6 item 1: the rigid PATU 655 crane (`models/patu-crane.toml`, the recommended
//! rebuild set of note §9) driven by the RECORDED operator inputs of the 2022-04-12
//! both-booms experiment (U1, U2, pP for 20 s at 1 kHz, note §8.2;
//! tests/data/patu-crane/patu_2022-04-12_measured_inputs_20s_1ms.csv).
//!
//! That experiment's outputs are public only as raster plots (note §8.2), so the angle
//! checks are qualitative: the measured (green) curves of
//! shared/data/patu-crane/measured-both-booms-inputs/plots/angle1.png and angle2.png, read
//! off at three instants to ±0.5°, against the model within 3.5° — the published rigid
//! model of that experiment (C, the black curves of the same plots) misses the measured
//! lift angle by 2–3° after the down stroke too (10.4° vs 8.3° at 15 s). The invariants
//! (loop closure, energy balance, static start) are asserted tightly.
//!
//! Input alignment: row i of the file holds the sample used at t = (i+1) ms (its
//! `t_exudyn_s` column, C `ControlSignals.py` L65, note §6.1); step k (ending at k ms) uses
//! row k−1.

mod common;

use common::Machine;

const FILE: &str = "patu-crane.toml";
const H: f64 = 0.001;
const DEG: f64 = 180.0 / std::f64::consts::PI;

fn recorded_inputs() -> Vec<[f64; 3]> {
    let path = common::workspace()
        .join("tests/data/patu-crane/patu_2022-04-12_measured_inputs_20s_1ms.csv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("inputs {} cannot be read: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        header,
        ["t_sample_s", "t_exudyn_s", "U1_V", "U2_V", "pP_Pa"],
        "columns of the recorded inputs"
    );
    lines
        .enumerate()
        .map(|(i, l)| {
            let v: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            assert!((v[1] - (i + 1) as f64 * H).abs() < 1e-9, "row {i}");
            [v[2], v[3], v[4]]
        })
        .collect()
}

#[test]
fn patu_crane_follows_the_2022_04_12_experiment() {
    let rows = recorded_inputs();
    assert_eq!(rows.len(), 20_000);
    let mut m = Machine::load(FILE);
    m.set("lift_valve.command", rows[0][0]);
    m.set("tilt_valve.command", rows[0][1]);
    m.set("supply.p", rows[0][2]);
    m.inst.initialize(0.0).unwrap();
    // Static start: the measured θ1(0) and rod-side pressures (note §8.2), piston sides
    // from the equilibrium. The plot shows p1(0) ≈ 123 bar (note §8.2).
    let (th1_0, th2_0) = (m.get("lift.angle") * DEG, m.get("tilt.angle") * DEG);
    let (p1_0, p2_0, p3_0, p4_0) = (
        m.get("lift_cylinder.p_cap"),
        m.get("lift_cylinder.p_rod"),
        m.get("tilt_cylinder.p_cap"),
        m.get("tilt_cylinder.p_rod"),
    );
    println!(
        "patu-crane start: θ1 {th1_0:.4}°, θ2 {th2_0:.4}°, s1 {:.5} m, s2 {:.5} m, p1 {:.2} bar, p2 {:.3}, p3 {:.2}, p4 {:.3} bar",
        m.get("lift_cylinder.length"),
        m.get("tilt_cylinder.length"),
        p1_0 / 1e5,
        p2_0 / 1e5,
        p3_0 / 1e5,
        p4_0 / 1e5
    );
    assert!((th1_0 - 14.2414062).abs() < 1e-6);
    assert!((th2_0 + 58.5).abs() < 1e-6);
    // Loop closure at the start reproduces note §2.4's check: s1 1.01435 m, s2 1.448 m.
    assert!((m.get("lift_cylinder.length") - 1.01435).abs() < 1e-5);
    assert!((m.get("tilt_cylinder.length") - 1.448).abs() < 1e-3);
    assert!((p2_0 - 3161621.09).abs() < 1.0 && (p4_0 - 10632324.21).abs() < 1.0);
    assert!((p1_0 / 1e5 - 123.0).abs() < 3.0, "p1(0) {} bar", p1_0 / 1e5);

    let mut samples = Vec::new();
    let (mut phi_max, mut e_err_max) = (0.0f64, 0.0f64);
    for (k, row) in rows.iter().enumerate() {
        let t = (k + 1) as f64 * H;
        m.set("lift_valve.command", row[0]);
        m.set("tilt_valve.command", row[1]);
        m.set("supply.p", row[2]);
        m.inst
            .advance(t)
            .unwrap_or_else(|e| panic!("t = {t:.3} s: {e}"));
        phi_max = phi_max.max(m.get("constraints.phi_norm"));
        e_err_max = e_err_max.max(m.get("energy.balance_error").abs());
        if [8.5, 15.0, 20.0].iter().any(|&s| (s - t).abs() < 1e-9) {
            samples.push((t, m.get("lift.angle") * DEG, m.get("tilt.angle") * DEG));
        }
    }
    let work = m.get("energy.actuator_work");
    println!(
        "  20 s: max |Φ| {phi_max:.2e}, max |energy balance error| {e_err_max:.3} J (actuator work {work:.0} J)"
    );
    assert!(phi_max < 1e-8, "loop closure {phi_max}");
    assert!(e_err_max < 1.0, "energy balance error {e_err_max} J");
    // Measured (plot read-off, green curves): θ1 28.5° / 8.3° / 15.3°, θ2 −20.3° / −56.5°
    // at 8.5 s / 15 s / 20 s (θ2 at 20 s is on a steep ramp, not compared).
    let measured = [
        (8.5, 28.5, Some(-20.3)),
        (15.0, 8.3, Some(-56.5)),
        (20.0, 15.3, None),
    ];
    for ((t, th1, th2), (tm, m1, m2)) in samples.iter().zip(measured) {
        assert_eq!(*t, tm);
        println!(
            "  t = {t:4.1} s: θ1 {th1:7.2}° (measured ≈{m1}°), θ2 {th2:7.2}° (measured ≈{})",
            m2.map_or("—".into(), |v| format!("{v}°"))
        );
        assert!((th1 - m1).abs() < 3.5, "θ1 at {t} s: {th1}°");
        if let Some(m2) = m2 {
            assert!((th2 - m2).abs() < 3.5, "θ2 at {t} s: {th2}°");
        }
    }
}

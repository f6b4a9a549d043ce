//! Issue 6 item 4: the hydraulic crane with a swinging load (`models/hydraulic-crane.toml`,
//! the Project Chrono demo on seed 002's geometry and seed 001's circuit), compiled by the
//! real compiler and run in-process through the `Instance` API the FMU wraps.

mod common;

use common::Machine;
use std::f64::consts::{FRAC_PI_6, PI};

const FILE: &str = "hydraulic-crane.toml";
const G: f64 = 9.81;
/// Pendulum length and the load's radius of gyration about its centre (a 40 mm solid
/// sphere: k² = 2/5 r²), from the model file.
const L: f64 = 0.3;
const K2: f64 = 0.4 * 0.04 * 0.04;
const H: f64 = 0.001;

/// Advances one output step of `H` with the command of the interval's end.
fn step(m: &mut Machine, k: usize, command: f64) {
    m.set("valve.command", command);
    m.inst
        .advance((k + 1) as f64 * H)
        .unwrap_or_else(|e| panic!("step {} (t = {:.3} s): {e}", k + 1, (k + 1) as f64 * H));
}

/// Times at which `x` crosses zero upwards (linear interpolation between samples).
fn upward_crossings(t: &[f64], x: &[f64]) -> Vec<f64> {
    (1..x.len())
        .filter(|&i| x[i - 1] < 0.0 && x[i] >= 0.0)
        .map(|i| t[i - 1] + (t[i] - t[i - 1]) * x[i - 1] / (x[i - 1] - x[i]))
        .collect()
}

/// Mean period between the first and the last upward zero crossing.
fn period(t: &[f64], x: &[f64]) -> (f64, usize) {
    let c = upward_crossings(t, x);
    assert!(c.len() >= 3, "too few zero crossings: {c:?}");
    ((c[c.len() - 1] - c[0]) / (c.len() - 1) as f64, c.len() - 1)
}

#[test]
fn hydraulic_crane_starts_in_static_equilibrium() {
    let mut m = Machine::load(FILE);
    assert_eq!(m.start("valve.command"), 0.0);
    m.inst.initialize(0.0).unwrap();
    // Closed form: the boom's weight at its midpoint and the load at the tip (hanging
    // straight down, same lever) about the pivot, over the cylinder's moment arm.
    let torque = (500.0 * 0.5 + 100.0 * 1.0) * G * FRAC_PI_6.cos();
    let (px, py, bx) = (
        0.5 * FRAC_PI_6.cos(),
        0.5 * FRAC_PI_6.sin(),
        3f64.sqrt() / 2.0,
    );
    let s = ((px - bx).powi(2) + py * py).sqrt();
    let arm = (px * py - py * (px - bx)) / s;
    let force = torque / arm;
    let cap = PI / 4.0 * 0.08f64.powi(2);
    let annulus = cap - PI / 4.0 * 0.035f64.powi(2);
    let p_cap = (force + annulus * 3.5e6) / cap;
    println!(
        "hydraulic-crane start: force {:.3} N (closed form {force:.3}), p_cap {:.4} MPa (closed form {:.4}), p_rod {:.4} MPa, length {:.6} m",
        m.get("cylinder.force"),
        m.get("cylinder.p_cap") / 1e6,
        p_cap / 1e6,
        m.get("cylinder.p_rod") / 1e6,
        m.get("cylinder.length"),
    );
    assert!((s - 0.5).abs() < 1e-12);
    assert!((m.get("cylinder.length") - 0.5).abs() < 1e-12);
    assert!((m.get("boom.angle") - FRAC_PI_6).abs() < 1e-12);
    assert!((m.get("cylinder.force") - force).abs() < 0.01);
    assert!((m.get("cylinder.p_rod") - 3.5e6).abs() < 1.0);
    assert!((m.get("cylinder.p_cap") - p_cap).abs() < 1.0);
    // The load hangs straight below the tip, the spherical joint at zero angles.
    let (x0, y0, z0) = (m.get("load.x"), m.get("load.y"), m.get("load.z"));
    assert!((x0 - FRAC_PI_6.cos()).abs() < 1e-12 && z0.abs() < 1e-12);
    assert!((y0 - (FRAC_PI_6.sin() - L)).abs() < 1e-12);
    for q in ["hook.yaw", "hook.pitch", "hook.roll"] {
        assert!(m.get(q).abs() < 1e-12, "{q} = {}", m.get(q));
    }
    // 2 s with the valve closed: nothing moves.
    let (mut drift, mut swing) = (0.0f64, 0.0f64);
    for k in 0..2000 {
        step(&mut m, k, 0.0);
        drift = drift.max((m.get("boom.angle") - FRAC_PI_6).abs());
        swing = swing
            .max((m.get("load.x") - x0).abs())
            .max((m.get("load.z") - z0).abs());
    }
    println!(
        "hydraulic-crane at rest for 2 s: boom drift {drift:.2e} rad, load drift {swing:.2e} m"
    );
    assert!(drift < 1e-6, "boom drift {drift} rad");
    assert!(swing < 1e-6, "load drift {swing} m");
}

/// Command of the 10 s manoeuvre: +1 for 1–2 s, −1 for 4–5 s, else 0 (closed).
fn manoeuvre(t: f64) -> f64 {
    if (1.0..2.0).contains(&t) {
        1.0
    } else if (4.0..5.0).contains(&t) {
        -1.0
    } else {
        0.0
    }
}

/// The Chrono demo's valve input (one 10 s period of its repeated sequence): 0 until
/// 0.5 s, ramp to 0.6 by 2 s, hold to 7 s, ramp to −1 by 9 s, back to 0 at 10 s. Held at
/// 0.6 the boom runs into the extension end cushion at about 3.7 s.
fn chrono_profile(t: f64) -> f64 {
    if t < 0.5 {
        0.0
    } else if t < 2.0 {
        0.4 * (t - 0.5)
    } else if t < 7.0 {
        0.6
    } else if t < 9.0 {
        0.6 - 0.8 * (t - 7.0)
    } else {
        -1.0 + (t - 9.0)
    }
}

#[test]
fn hydraulic_crane_energy_balance_over_a_manoeuvre() {
    for (name, command) in [
        ("±1 manoeuvre", manoeuvre as fn(f64) -> f64),
        ("Chrono demo profile", chrono_profile),
    ] {
        let mut m = Machine::load(FILE);
        m.inst.initialize(0.0).unwrap();
        let (mut balance, mut work, mut phi, mut max_it, mut sum_it) =
            (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0);
        let (mut top, mut longest, mut swing) = (FRAC_PI_6, 0.0f64, 0.0f64);
        let (mut p_min, mut p_max) = (f64::INFINITY, 0.0f64);
        for k in 0..10000 {
            let t = k as f64 * H;
            step(&mut m, k, command(t + H));
            balance = balance.max(m.get("energy.balance_error").abs());
            work = work.max(m.get("energy.actuator_work").abs());
            phi = phi.max(m.get("constraints.phi_norm"));
            let it = m.get("solver.iterations");
            max_it = max_it.max(it);
            sum_it += it;
            top = top.max(m.get("boom.angle"));
            longest = longest.max(m.get("cylinder.length"));
            swing = swing.max((m.get("load.x") - m.get("tip.x")).abs());
            for p in ["cylinder.p_cap", "cylinder.p_rod"] {
                p_min = p_min.min(m.get(p));
                p_max = p_max.max(m.get(p));
            }
        }
        let end = m.get("boom.angle");
        println!(
            "hydraulic-crane {name}: boom 30° → {:.2}° → {:.2}°, longest {longest:.4} m, load swing up to {:.1} mm, pressures {:.3} … {:.3} MPa",
            top.to_degrees(),
            end.to_degrees(),
            swing * 1e3,
            p_min / 1e6,
            p_max / 1e6
        );
        println!(
            "  energy: max |balance error| {balance:.4} J = {:.4} % of max |actuator work| {work:.1} J; max |Φ| {phi:.1e} (no cut joints: a tree, Φ is empty); iterations avg {:.2} max {max_it}",
            100.0 * balance / work,
            sum_it / 1e4
        );
        // The manoeuvre must actually move the machine: lift, then lower again.
        assert!(top > FRAC_PI_6 + 0.1 && end < top - 0.1, "{name}");
        assert!(swing > 0.005, "{name}: the load should swing");
        // The extension end cushion (stroke end 0.625 m, 8 mm, 1e7 N/m) holds the boom.
        assert!(longest < 0.625, "{name}: past the stroke end");
        assert!(
            balance < 0.01 * work,
            "{name}: energy balance error {balance} J of {work} J"
        );
        assert!(balance < 2.0, "{name}: energy balance error {balance} J");
        assert!(phi < 1e-7);
    }
}

/// Free swing with the valve closed from the initial spherical-joint angles (yaw, pitch):
/// time, load position relative to the tip (x, z) and boom angle, every `H` for 10 s.
fn free_swing(yaw0: f64, pitch0: f64) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut m = Machine::load(FILE);
    m.set("hook.yaw0", yaw0);
    m.set("hook.pitch0", pitch0);
    m.inst.initialize(0.0).unwrap();
    let (mut t, mut x, mut z, mut boom) = (vec![0.0], vec![], vec![], vec![]);
    let record = |m: &Machine, x: &mut Vec<f64>, z: &mut Vec<f64>, boom: &mut Vec<f64>| {
        x.push(m.get("load.x") - m.get("tip.x"));
        z.push(m.get("load.z"));
        boom.push(m.get("boom.angle"));
    };
    record(&m, &mut x, &mut z, &mut boom);
    let mut rod = 0.0f64;
    for k in 0..10000 {
        step(&mut m, k, 0.0);
        t.push((k + 1) as f64 * H);
        record(&m, &mut x, &mut z, &mut boom);
        let d = ((m.get("load.x") - m.get("tip.x")).powi(2)
            + (m.get("load.y") - m.get("tip.y")).powi(2)
            + m.get("load.z").powi(2))
        .sqrt();
        rod = rod.max((d - L).abs());
    }
    assert!(rod < 1e-12, "pendulum length changed by {rod} m");
    (t, x, z, boom)
}

#[test]
fn hydraulic_crane_pendulum_swings_at_sqrt_g_over_l() {
    let ideal = (G / L).sqrt();
    // The load is a 40 mm solid sphere, not a point: a compound pendulum,
    // ω² = g l/(l² + k²), 0.35 % below √(g/l).
    let compound = (G * L / (L * L + K2)).sqrt();
    let amplitude = 2f64.to_radians();
    // Finite amplitude: the period grows by θ0²/16 = 7.6e-5 at 2°.
    let finite = compound / (1.0 + amplitude * amplitude / 16.0);
    // Out of the boom's plane (pitch) the swing does not move the boom at all (the tip
    // force is along the pivot axis). In the plane (yaw) the horizontal tip force m g θ
    // turns the boom on its oil column: the tip's horizontal stiffness is
    // K_θ/y_tip² = 1.04e7 N·m/rad / 0.25 m² = 4.2e7 N/m (K_θ = k_cyl·arm², k_cyl = 5.6e7 N/m
    // from the chamber and hose volumes at mid-stroke and their bulk moduli, arm 0.433 m;
    // the boom's own mode is at 31 Hz, far above the swing's 0.9 Hz), which lengthens the
    // pendulum by m g/k_x = 24 µm: ω falls by 0.004 %.
    let mut omegas = vec![];
    for (plane, yaw0, pitch0) in [
        ("in-plane", amplitude, 0.0),
        ("out-of-plane", 0.0, amplitude),
    ] {
        let (t, x, z, boom) = free_swing(yaw0, pitch0);
        let signal = if yaw0 != 0.0 { &x } else { &z };
        let (period, n) = period(&t, signal);
        let omega = 2.0 * PI / period;
        let boom_motion = boom
            .iter()
            .map(|a| (a - FRAC_PI_6).abs())
            .fold(0.0, f64::max);
        println!(
            "hydraulic-crane {plane} swing (2°): period {period:.6} s over {n} periods (2π√(l/g) = {:.6} s), ω = {omega:.5} rad/s; √(g/l) = {ideal:.5} ({:+.4} %), compound pendulum {compound:.5} ({:+.4} %), with the 2° amplitude correction {finite:.5} ({:+.4} %); boom moves up to {boom_motion:.2e} rad",
            2.0 * PI / ideal,
            100.0 * (omega / ideal - 1.0),
            100.0 * (omega / compound - 1.0),
            100.0 * (omega / finite - 1.0),
        );
        assert!(
            (omega / ideal - 1.0).abs() < 0.01,
            "{plane}: ω = {omega}, √(g/l) = {ideal}"
        );
        assert!(
            (omega / finite - 1.0).abs() < 1e-4,
            "{plane}: ω = {omega}, expected {finite}"
        );
        omegas.push(omega);
    }
    let coupling = omegas[0] / omegas[1] - 1.0;
    println!(
        "hydraulic-crane: in-plane vs out-of-plane swing frequency {:+.4} % (boom compliance, estimate −0.0039 %)",
        100.0 * coupling
    );
    assert!(
        coupling < 0.0 && coupling > -2e-4,
        "boom coupling {coupling}"
    );
}

#[test]
fn hydraulic_crane_load_swings_in_3d() {
    let (_, x, z, _) = free_swing(3f64.to_radians(), 2f64.to_radians());
    let range = |v: &[f64]| {
        v.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
            - v.iter().cloned().fold(f64::INFINITY, f64::min)
    };
    let (rx, rz) = (range(&x), range(&z));
    println!(
        "hydraulic-crane 3D swing (yaw 3°, pitch 2°): load moves {:.2} mm in x, {:.2} mm in z",
        rx * 1e3,
        rz * 1e3
    );
    // Peak to peak about 2 l sin(amplitude).
    assert!(
        (rx / (2.0 * L * 3f64.to_radians().sin()) - 1.0).abs() < 0.05,
        "x range {rx}"
    );
    assert!(
        (rz / (2.0 * L * 2f64.to_radians().sin()) - 1.0).abs() < 0.05,
        "z range {rz}"
    );
}

/// Issue 16 item 5: the master changes the load's mass (a tunable parameter) twice during
/// the manoeuvre. Each change moves the mechanical energy of the unmoved state by
/// Δm·(g y + v²/2) of the load's centre (its inertia is given, not scaled), which
/// `energy.parameter_work` must count, so the balance stays what the integrator alone
/// makes it.
#[test]
fn hydraulic_crane_energy_balance_through_mass_changes() {
    let mut m = Machine::load(FILE);
    m.inst.initialize(0.0).unwrap();
    let changes = [(1500, 300.0), (3000, 150.0)];
    let (mut mass, mut jumps) = (100.0, vec![]);
    let (mut balance, mut work) = (0.0f64, 0.0f64);
    let mut centre = vec![[m.get("load.x"), m.get("load.y"), m.get("load.z")]];
    for k in 0..6000 {
        if let Some(&(_, new)) = changes.iter().find(|c| c.0 == k) {
            let before = m.get("energy.parameter_work");
            m.set("load.mass", new);
            // The outputs still show the state of the last step (the new mass acts on the
            // next one); the counted jump is in the state already.
            let (n, jump) = m.inst.parameter_work_events();
            assert_eq!(m.inst.state().parameter_work - before, jump);
            jumps.push((k, new - mass, jump, n));
            mass = new;
        }
        step(&mut m, k, manoeuvre(k as f64 * H + H));
        centre.push([m.get("load.x"), m.get("load.y"), m.get("load.z")]);
        balance = balance.max(m.get("energy.balance_error").abs());
        work = work.max(m.get("energy.actuator_work").abs());
    }
    for (i, &(k, dm, jump, n)) in jumps.iter().enumerate() {
        assert_eq!(n, i as u64 + 1);
        // Velocity of the load's centre by second-order backward differences (the
        // acceleration jumps with the mass at k).
        let v2: f64 = (0..3)
            .map(|a| {
                let x = |i: usize| centre[i][a];
                ((3.0 * x(k) - 4.0 * x(k - 1) + x(k - 2)) / (2.0 * H)).powi(2)
            })
            .sum();
        let expected = dm * (G * centre[k][1] + 0.5 * v2);
        println!(
            "mass change at {:.1} s by {dm:+} kg: parameter work {jump:.4} J, Δm·(g y + v²/2) = {expected:.4} J",
            k as f64 * H
        );
        assert!(
            (jump - expected).abs() < 1e-4 * expected.abs(),
            "{jump} J counted, {expected} J expected"
        );
    }
    println!(
        "  max |balance error| {balance:.4} J of max |actuator work| {work:.1} J; parameter work {:.2} J",
        m.get("energy.parameter_work")
    );
    assert!(
        balance < 2.0 && balance < 0.01 * work,
        "balance {balance} J"
    );
}

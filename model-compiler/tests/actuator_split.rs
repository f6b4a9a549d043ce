//! `hydromech build --split actuators` (issue 18): the machine cut at its cylinders into a
//! mechanics and a hydraulics model. Both start in the whole machine's equilibrium; driven
//! by each other in a Gauss–Seidel loop they converge to the whole machine as the
//! communication step falls (seed 002's co-simulated method on its own rod).

mod common;

use common::Machine;
use model_compiler::actuator_split;
use model_compiler::diagnostic::Source;
use std::path::Path;

fn source(file: &str) -> Source {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models")
        .join(file);
    Source::new(&path, std::fs::read_to_string(&path).unwrap())
}

/// The halves of `file`, each initialized.
fn halves(file: &str) -> (Machine, Machine) {
    let s = actuator_split::split(&source(file)).unwrap_or_else(|e| panic!("{e:?}"));
    let mut mech = Machine::from_model(s.mechanics.model);
    let mut hyd = Machine::from_model(s.hydraulics.model);
    mech.inst.initialize(0.0).unwrap();
    hyd.inst.initialize(0.0).unwrap();
    (mech, hyd)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

#[test]
fn the_halves_start_in_the_whole_machines_equilibrium() {
    let mut whole = Machine::load("naya-rod.toml");
    whole.inst.initialize(0.0).unwrap();
    let (mech, hyd) = halves("naya-rod.toml");
    let (force, length) = (whole.get("cylinder.force"), whole.get("cylinder.length"));
    println!(
        "whole: F {force} N, s {length} m, p1 {} p2 {} Pa, κ {}; mechanics: s {} m, F in {} N; hydraulics: F {} N, p1 {} p2 {} Pa, κ {}",
        whole.get("cylinder.p_a"),
        whole.get("cylinder.p_b"),
        whole.get("valve.command"),
        mech.get("cylinder.length"),
        mech.get("cylinder.force"),
        hyd.get("cylinder.force"),
        hyd.get("cylinder.p_a"),
        hyd.get("cylinder.p_b"),
        hyd.get("valve.command"),
    );
    assert!(rel(mech.get("cylinder.length"), length) < 1e-12);
    assert!(rel(mech.get("cylinder.force"), force) < 1e-12);
    assert!(rel(hyd.get("cylinder.force"), force) < 1e-9);
    assert!(rel(hyd.get("cylinder.motion.q"), length) < 1e-12);
    for p in ["cylinder.p_a", "cylinder.p_b"] {
        assert!(rel(hyd.get(p), whole.get(p)) < 1e-9, "{p}");
    }
    // seed 002's κ0 (solved by the whole machine's equilibrium) carried over.
    assert_eq!(hyd.get("valve.command"), whole.get("valve.command"));
}

#[test]
fn each_half_held_at_the_others_equilibrium_values_stays_at_rest() {
    let (mut mech, mut hyd) = halves("naya-rod.toml");
    let (angle, p_a) = (mech.get("rod.angle"), hyd.get("cylinder.p_a"));
    for k in 1..=200 {
        let t = k as f64 * 1e-3;
        mech.inst.advance(t).unwrap();
        hyd.inst.advance(t).unwrap();
    }
    let (da, dp) = (mech.get("rod.angle") - angle, hyd.get("cylinder.p_a") - p_a);
    println!("after 0.2 s: rod angle moved {da:.3e} rad, p1 {dp:.3e} Pa");
    assert!(da.abs() < 1e-9, "{da}");
    assert!(dp.abs() < 1e-3 * p_a.abs(), "{dp}");
}

/// Gauss–Seidel at communication step `h` over naya-rod's manoeuvre to `t_end` (κ0, then
/// κ0 − 0.01 from 2 s: seed 002 eq 38): hydraulics first on the mechanics' motion, then the
/// mechanics on the new force. Returns the cylinder length at every 10 ms.
fn cosimulate(h: f64, t_end: f64) -> Vec<f64> {
    let (mut mech, mut hyd) = halves("naya-rod.toml");
    let kappa0 = hyd.get("valve.command");
    let steps = (t_end / h).round() as usize;
    let every = (0.01 / h).round() as usize;
    let mut out = Vec::new();
    for k in 1..=steps {
        let t0 = (k - 1) as f64 * h;
        let t = k as f64 * h;
        if t0 >= 2.0 - 1e-12 {
            hyd.set("valve.command", kappa0 - 0.01);
        }
        hyd.set("cylinder.motion.q", mech.get("cylinder.length"));
        hyd.set("cylinder.motion.qd", mech.get("cylinder.speed"));
        hyd.inst.advance(t).unwrap();
        mech.set("cylinder.force", hyd.get("cylinder.force"));
        mech.inst.advance(t).unwrap();
        if k % every == 0 {
            out.push(mech.get("cylinder.length"));
        }
    }
    out
}

/// The whole machine on the same manoeuvre at communication step `h`.
fn whole(h: f64, t_end: f64) -> Vec<f64> {
    let mut m = Machine::load("naya-rod.toml");
    m.inst.initialize(0.0).unwrap();
    let kappa0 = m.get("valve.command");
    let steps = (t_end / h).round() as usize;
    let every = (0.01 / h).round() as usize;
    let mut out = Vec::new();
    for k in 1..=steps {
        if (k - 1) as f64 * h >= 2.0 - 1e-12 {
            m.set("valve.command", kappa0 - 0.01);
        }
        m.inst.advance(k as f64 * h).unwrap();
        if k % every == 0 {
            out.push(m.get("cylinder.length"));
        }
    }
    out
}

#[test]
fn the_cosimulated_halves_converge_to_the_whole_machine() {
    let t_end = 3.0;
    let reference = whole(1e-4, t_end);
    let mut errors = Vec::new();
    for h in [2e-3, 1e-3, 5e-4] {
        let split = cosimulate(h, t_end);
        let e = split
            .iter()
            .zip(&reference)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        let monolithic = whole(h, t_end)
            .iter()
            .zip(&reference)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        println!(
            "h = {:.1} ms: split max |Δs| {e:.3e} m, whole at the same step {monolithic:.3e} m",
            h * 1e3
        );
        errors.push(e);
    }
    let orders: Vec<f64> = errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    println!("observed orders {orders:?}");
    // The split converges: halving the step shrinks the error (first order or better).
    for o in &orders {
        assert!(*o > 0.8, "orders {orders:?}, errors {errors:?}");
    }
}

#[test]
fn every_shipped_machine_of_cylinders_splits_and_starts_at_rest() {
    // Two cylinders and a closed loop (the PATU tilt four-bar), a friction-held cylinder,
    // a spherical hook: each half starts where the whole stands, and held at the other
    // half's start values it stays there.
    for file in [
        "patu-pvg32.toml",
        "jaiswal-fourbar-friction.toml",
        "hydraulic-crane.toml",
    ] {
        let mut whole = Machine::load(file);
        whole.inst.initialize(0.0).unwrap();
        let s = actuator_split::split(&source(file)).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let cylinders = s.cylinders.clone();
        let (mut mech, mut hyd) = (
            Machine::from_model(s.mechanics.model),
            Machine::from_model(s.hydraulics.model),
        );
        mech.inst.initialize(0.0).unwrap();
        hyd.inst.initialize(0.0).unwrap();
        let model = whole.inst.model().clone();
        let mut lengths = Vec::new();
        for c in &cylinders {
            let i = model
                .circuit
                .cylinders
                .iter()
                .position(|k| &k.name == c)
                .unwrap();
            let force = whole
                .inst
                .probe(fmu_runtime::model::Probe::CylinderForce(i));
            let length = whole
                .inst
                .probe(fmu_runtime::model::Probe::CylinderLength(i));
            println!(
                "{file} {c}: whole F {force:.6} N, s {length:.9} m; mechanics F in {:.6}, s {:.9}; hydraulics F {:.6}",
                mech.get(&format!("{c}.force")),
                mech.get(&format!("{c}.length")),
                hyd.get(&format!("{c}.force")),
            );
            assert!(
                rel(mech.get(&format!("{c}.force")), force) < 1e-12,
                "{file} {c}"
            );
            assert!(
                rel(hyd.get(&format!("{c}.force")), force) < 1e-9,
                "{file} {c}"
            );
            assert!(
                rel(mech.get(&format!("{c}.length")), length) < 1e-12,
                "{file} {c}"
            );
            lengths.push(length);
        }
        for k in 1..=200 {
            let t = k as f64 * 1e-3;
            mech.inst.advance(t).unwrap();
            hyd.inst.advance(t).unwrap();
        }
        for (c, l) in cylinders.iter().zip(&lengths) {
            let moved = mech.get(&format!("{c}.length")) - l;
            let force = hyd.get(&format!("{c}.force")) - mech.get(&format!("{c}.force"));
            println!(
                "{file} {c} after 0.2 s held: length moved {moved:.3e} m, force {force:.3e} N"
            );
            assert!(moved.abs() < 1e-9, "{file} {c}: {moved}");
            assert!(force.abs() < 1e-6 * mech.get(&format!("{c}.force")).abs().max(1.0));
        }
    }
}

#[test]
fn what_cannot_be_cut_yet_is_refused_with_what_to_do() {
    for (file, what) in [
        ("excavator.toml", "rotary motors"),
        ("long-boom-crane.toml", "flexible bodies"),
        ("truck-crane.toml", "[carries]"),
    ] {
        let errors = match actuator_split::split(&source(file)) {
            Ok(_) => panic!("{file} was cut"),
            Err(e) => e,
        };
        let text: Vec<String> = errors
            .iter()
            .map(|d| format!("{} / {}", d.message, d.help))
            .collect();
        println!("{file}: {text:?}");
        assert!(
            text[0].contains(what) && text[0].contains("build it whole"),
            "{text:?}"
        );
    }
}

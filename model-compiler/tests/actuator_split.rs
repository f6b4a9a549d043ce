//! `hydromech build --split actuators` (issue 18): the machine cut at its cylinders and
//! rotary motors into a mechanics and a hydraulics model. Both start in the whole machine's equilibrium; driven
//! by each other in a Gauss–Seidel loop they converge to the whole machine as the
//! communication step falls (seed 002's co-simulated method on its own rod).

mod common;

use common::Machine;
use model_compiler::assembly::actuator_split;
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
    // Each half says what it is, what it exchanges and with which system.
    let s = actuator_split::split(&source("naya-rod.toml")).unwrap();
    for (half, partner) in [(&s.mechanics, "hydraulics"), (&s.hydraulics, "mechanics")] {
        let text = &half.model.metadata.description;
        println!("{text}");
        assert!(text.contains("naya-rod-actuators.ssp") && text.contains(partner));
    }
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
fn every_shipped_machine_splits_and_starts_at_rest() {
    // Every machine in models/ but the one carrying another ([carries]: refused, below):
    // two cylinders and a closed loop (the PATU tilt four-bar), a friction-held cylinder,
    // a spherical hook, a slewing motor and a winch motor under a rope's load (the knuckle
    // crane), the excavator's swing motor, flexible booms (their deformation solved again
    // by the mechanics at the whole's joint coordinates and forces): each half starts where
    // the whole stands, and held at the other half's start values it stays there. (The
    // ball drop has no actuator to cut at; the grapple's log has no rest to start from:
    // regularized friction holds it only while it creeps.)
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| {
            f.ends_with(".toml")
                && !["truck-crane.toml", "ball-drop.toml", "grapple-log.toml"].contains(&f.as_str())
        })
        .collect();
    files.sort();
    assert!(files.len() >= 11, "{files:?}");
    for file in files.iter().map(String::as_str) {
        let mut whole = Machine::load(file);
        whole.inst.initialize(0.0).unwrap();
        let s = actuator_split::split(&source(file)).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let cylinders = s.cylinders.clone();
        let (mut mech, mut hyd) = (
            Machine::from_model(s.mechanics.model.clone()),
            Machine::from_model(s.hydraulics.model.clone()),
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
        let mut angles = Vec::new();
        for (i, m) in s.motors.iter().enumerate() {
            let torque = whole.inst.probe(fmu_runtime::model::Probe::MotorTorque(i));
            let body = model.circuit.motors[i].body;
            let angle = whole
                .inst
                .probe(fmu_runtime::model::Probe::JointPosition(body));
            let (t_mech, t_hyd) = (
                mech.get(&format!("{m}.joint.torque")),
                hyd.get(&format!("{m}.torque")),
            );
            println!(
                "{file} {m}: whole torque {torque:.6} N·m, angle {angle:.9} rad; mechanics torque in {t_mech:.6}, angle {:.9}; hydraulics torque {t_hyd:.6}, shaft {:.9}",
                mech.get(&format!("{m}.joint.angle")),
                hyd.get(&format!("{m}.motion.q")),
            );
            let scale = torque.abs().max(1.0);
            assert!((t_mech - torque).abs() < 1e-12 * scale, "{file} {m}");
            assert!((t_hyd - torque).abs() < 1e-9 * scale, "{file} {m}");
            assert!((mech.get(&format!("{m}.joint.angle")) - angle).abs() < 1e-12);
            assert!((hyd.get(&format!("{m}.motion.q")) - angle).abs() < 1e-12);
            angles.push(angle);
        }
        for k in 1..=200 {
            let t = k as f64 * 1e-3;
            mech.inst.advance(t).unwrap();
            hyd.inst.advance(t).unwrap();
        }
        for (m, a) in s.motors.iter().zip(&angles) {
            let moved = mech.get(&format!("{m}.joint.angle")) - a;
            let torque = hyd.get(&format!("{m}.torque")) - mech.get(&format!("{m}.joint.torque"));
            println!(
                "{file} {m} after 0.2 s held: angle moved {moved:.3e} rad, torque {torque:.3e} N·m"
            );
            // A winch holds its load through a rope whose equilibrium is solved to a force
            // tolerance: 2.3e-9 rad (6e-10 m at the drum) in 0.2 s.
            assert!(moved.abs() < 1e-8, "{file} {m}: {moved}");
            let scale = mech.get(&format!("{m}.joint.torque")).abs().max(1.0);
            assert!(torque.abs() < 1e-6 * scale, "{file} {m}: {torque}");
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
    // seed 002's rod without its circuit: a mechanism with nothing to cut at.
    let mut rod: toml::Table = source("naya-rod.toml").text.parse().unwrap();
    for key in ["hydraulics", "interface", "init", "report"] {
        rod.remove(key);
    }
    let bare = Source::new(Path::new("bare-rod.toml"), toml::to_string(&rod).unwrap());
    for (src, what, help) in [
        (source("truck-crane.toml"), "[carries]", "build it whole"),
        (bare, "has none", "build it whole"),
    ] {
        let file = src.path.display().to_string();
        let errors = match actuator_split::split(&src) {
            Ok(_) => panic!("{file} was cut"),
            Err(e) => e,
        };
        let text: Vec<String> = errors
            .iter()
            .map(|d| format!("{} / {}", d.message, d.help))
            .collect();
        println!("{file}: {text:?}");
        assert!(text[0].contains(what) && text[0].contains(help), "{text:?}");
    }
}

/// Gauss–Seidel over any split: each step the hydraulics on the mechanics' motion and the
/// commands in force from `t ≥ start`, then the mechanics on the new forces and torques.
/// Returns the `observed` mechanics outputs every 10 ms.
fn gauss_seidel(
    file: &str,
    h: f64,
    t_end: f64,
    commands: &[(&str, f64, f64)],
    observed: &[&str],
) -> Vec<Vec<f64>> {
    let s = actuator_split::split(&source(file)).unwrap_or_else(|e| panic!("{e:?}"));
    let links = s.links();
    let mut halves = [
        Machine::from_model(s.mechanics.model),
        Machine::from_model(s.hydraulics.model),
    ];
    for m in &mut halves {
        m.inst.initialize(0.0).unwrap();
    }
    let every = (0.01 / h).round() as usize;
    let mut out = Vec::new();
    for k in 1..=(t_end / h).round() as usize {
        let t0 = (k - 1) as f64 * h;
        for &(name, start, value) in commands {
            if t0 >= start - 1e-12 {
                halves[1].set(name, value);
            }
        }
        for to in [1, 0] {
            for ((a, from_var), (b, to_var)) in &links {
                if *b == to {
                    let v = halves[*a].get(from_var);
                    halves[*b].set(to_var, v);
                }
            }
            halves[to].inst.advance(k as f64 * h).unwrap();
        }
        if k % every == 0 {
            out.push(observed.iter().map(|o| halves[0].get(o)).collect());
        }
    }
    out
}

/// The whole machine of `file` under the same commands: `observed` every 10 ms.
fn whole_run(
    file: &str,
    h: f64,
    t_end: f64,
    commands: &[(&str, f64, f64)],
    observed: &[&str],
) -> Vec<Vec<f64>> {
    let mut m = Machine::load(file);
    m.inst.initialize(0.0).unwrap();
    let every = (0.01 / h).round() as usize;
    let mut out = Vec::new();
    for k in 1..=(t_end / h).round() as usize {
        for &(name, start, value) in commands {
            if (k - 1) as f64 * h >= start - 1e-12 {
                m.set(name, value);
            }
        }
        m.inst.advance(k as f64 * h).unwrap();
        if k % every == 0 {
            out.push(observed.iter().map(|o| m.get(o)).collect());
        }
    }
    out
}

/// Per observed signal, the largest difference between two runs.
fn max_differences(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<f64> {
    (0..a[0].len())
        .map(|j| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x[j] - y[j]).abs())
                .fold(0.0, f64::max)
        })
        .collect()
}

/// Gauss–Seidel over the split of `file` against its whole at 0.1 ms, at each step of
/// `steps`: per observed signal the largest difference, and the whole's own at that step.
fn split_errors(
    file: &str,
    t_end: f64,
    commands: &[(&str, f64, f64)],
    observed: &[&str],
    steps: &[f64],
) -> Vec<Vec<f64>> {
    let reference = whole_run(file, 1e-4, t_end, commands, observed);
    let first = &whole_run(file, 1e-2, 1e-2, &[], observed)[0];
    println!(
        "{file}: whole at 0.1 ms {:?} after {t_end} s (from {first:?})",
        reference.last().unwrap()
    );
    steps
        .iter()
        .map(|&h| {
            let e = max_differences(
                &gauss_seidel(file, h, t_end, commands, observed),
                &reference,
            );
            let w = max_differences(&whole_run(file, h, t_end, commands, observed), &reference);
            println!(
                "{file} h = {:.2} ms: split {}, whole {}",
                h * 1e3,
                sci(&e),
                sci(&w)
            );
            e
        })
        .collect()
}

fn sci(values: &[f64]) -> String {
    let v: Vec<String> = values.iter().map(|x| format!("{x:.3e}")).collect();
    v.join(", ")
}

/// The split converges at first order or better on every observed signal, monotonically.
fn assert_first_order(errors: &[Vec<f64>], steps: &[f64], observed: &[&str]) {
    for (j, name) in observed.iter().enumerate() {
        let (e0, e1) = (errors[0][j], errors[errors.len() - 1][j]);
        let order = (e0 / e1).ln() / (steps[0] / steps[steps.len() - 1]).ln();
        println!("{name}: observed order {order:.2}");
        assert!(order > 0.7, "{name}: {errors:?}");
        assert!(
            errors.windows(2).all(|w| w[1][j] < w[0][j]),
            "{name}: {errors:?}"
        );
    }
}

#[test]
fn a_split_crane_turning_on_its_motors_converges_to_the_whole_crane() {
    // The knuckle crane slews on its geared motor through the brake valve's lines and pays
    // its winch in under the hook's weight: the motors' torques cross the cut. Measured:
    // slew 4.8e-4 → 2.8e-5 rad, rope 6.5e-4 → 6.1e-5 m from 5 to 0.25 ms (the whole at its
    // 1 ms solver step 8.9e-6 rad, 6.6e-5 m): first order, as the cylinders.
    let commands = [("slew.command", 0.1, 0.7), ("winch.command", 0.1, -0.6)];
    let observed = ["slew.angle", "rope.length"];
    let steps = [5e-3, 2e-3, 1e-3, 5e-4, 2.5e-4];
    let errors = split_errors("knuckle-crane.toml", 1.5, &commands, &observed, &steps);
    assert_first_order(&errors, &steps, &observed);
}

#[test]
fn a_split_flexible_boom_converges_to_the_whole_machine() {
    // The long-boom crane's flexible boom lifted by its cylinder, the valve opened at 0.1 s
    // and closed at 1 s (the boom rings on its oil column): angle and tip deflection.
    let commands = [("valve.command", 0.1, 1.0), ("valve.command", 1.0, 0.0)];
    let observed = ["boom.angle", "tip.deflection"];
    let steps = [2e-3, 1e-3, 5e-4, 2.5e-4];
    let errors = split_errors("long-boom-crane.toml", 1.5, &commands, &observed, &steps);
    assert_first_order(&errors, &steps, &observed);
}

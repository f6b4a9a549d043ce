//! Issue 6 validation: the PATU 655 crane with PVG32 valves (`models/patu-pvg32.toml`)
//! against the laboratory MEASUREMENT of the PVG32 lift experiment
//! (`tests/data/patu-crane/patu_pvg32_lift_measured_27s_5ms.csv`, a copy of
//! shared/data/patu-crane/measured-pvg32-lift/; note shared/reference/patu-crane.md §7,
//! §8.1), driven by the measured valve voltages U1, U2 and supply/tank pressures pP, pT.
//!
//! Alignment: the measurement is on a 5 ms grid from t = 0; the model runs at its 1 ms
//! step with the inputs linearly interpolated at each step's end and is compared at the
//! measurement's samples. Angles: z1 = `lift.angle` (absolute lift-boom angle),
//! z2 = `tilt.angle` (absolute tilt-boom angle); pressures p1/p2 lift cap/rod, p3/p4 tilt
//! cap/rod; s1/s2 pin-to-pin lengths.
//!
//! A second run builds the same file with the PUBLISHED parameters of note §7 (neutral
//! 5.6 V, Q0 40 L/min, τ 30 ms, no friction) and shows that it reproduces the published
//! shortfall (29° instead of 48.5°): the valve's neutral voltage is the cause.

mod common;

use common::Machine;
use common::pvg32::{Measurement, interp, load_measurement};

const FILE: &str = "patu-pvg32.toml";
const H: f64 = 0.001;
const DEG: f64 = 180.0 / std::f64::consts::PI;

/// The model's signals at the measurement's samples.
#[derive(Default)]
struct Run {
    z1: Vec<f64>,
    z2: Vec<f64>,
    s1: Vec<f64>,
    s2: Vec<f64>,
    p: [Vec<f64>; 4],
    p1_start: f64,
    p3_start: f64,
}

fn run(mut m: Machine, d: &Measurement) -> Run {
    let set_inputs = |m: &mut Machine, t: f64| {
        m.set("lift_valve.command", interp(&d.t, &d.u1, t));
        m.set("tilt_valve.command", interp(&d.t, &d.u2, t));
        m.set("supply.p", interp(&d.t, &d.pp, t));
        m.set("tank.p", interp(&d.t, &d.pt, t));
    };
    set_inputs(&mut m, 0.0);
    m.inst.initialize(0.0).unwrap();
    let mut r = Run {
        p1_start: m.get("lift_cylinder.p_cap"),
        p3_start: m.get("tilt_cylinder.p_cap"),
        ..Run::default()
    };
    let names = [
        "lift_cylinder.p_cap",
        "lift_cylinder.p_rod",
        "tilt_cylinder.p_cap",
        "tilt_cylinder.p_rod",
    ];
    let record = |m: &Machine, r: &mut Run| {
        r.z1.push(m.get("lift.angle") * DEG);
        r.z2.push(m.get("tilt.angle") * DEG);
        r.s1.push(m.get("lift_cylinder.length"));
        r.s2.push(m.get("tilt_cylinder.length"));
        for (k, n) in names.iter().enumerate() {
            r.p[k].push(m.get(n));
        }
    };
    record(&m, &mut r);
    let stop = *d.t.last().unwrap();
    let steps = (stop / H).round() as usize;
    let mut next_sample = 1;
    for k in 1..=steps {
        let t = k as f64 * H;
        set_inputs(&mut m, t);
        m.inst
            .advance(t)
            .unwrap_or_else(|e| panic!("t = {t:.3} s: {e}"));
        if next_sample < d.t.len() && (d.t[next_sample] - t).abs() < 1e-9 {
            record(&m, &mut r);
            next_sample += 1;
        }
    }
    assert_eq!(
        r.z1.len(),
        d.t.len(),
        "one model sample per measured sample"
    );
    r
}

/// RMS and max of |a − b|, optionally skipping samples.
fn errors(a: &[f64], b: &[f64], skip: impl Fn(usize) -> bool) -> (f64, f64) {
    let (mut sq, mut max, mut n) = (0.0, 0.0f64, 0usize);
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if skip(i) {
            continue;
        }
        sq += (x - y) * (x - y);
        max = max.max((x - y).abs());
        n += 1;
    }
    ((sq / n as f64).sqrt(), max)
}

#[test]
fn patu_pvg32_follows_the_lift_measurement() {
    let d = load_measurement();
    assert_eq!(d.t.len(), 5401, "27 s on a 5 ms grid");
    let m = Machine::load(FILE);
    let r = run(m, &d);
    let none = |_| false;
    let (z1_rms, z1_max) = errors(&r.z1, &d.z1, none);
    // The measured z2 has a 25° spike of 20 ms at 20.18 s (an extraction artefact of the
    // vector figure, note §8.1): the max is reported with and without those samples.
    let spike = |i: usize| (d.t[i] - 20.185).abs() < 0.015;
    let (z2_rms, z2_max_all) = errors(&r.z2, &d.z2, none);
    let (_, z2_max) = errors(&r.z2, &d.z2, spike);
    let (s1_rms, s1_max) = errors(&r.s1, &d.s1, none);
    let (s2_rms, s2_max) = errors(&r.s2, &d.s2, none);
    let pe: Vec<(f64, f64)> = (0..4).map(|k| errors(&r.p[k], &d.p[k], none)).collect();
    println!("patu-pvg32 vs the PVG32 lift measurement (27 s, model at 1 ms):");
    println!(
        "  z1 rms {z1_rms:.3}° max {z1_max:.3}°; z2 rms {z2_rms:.3}° max {z2_max:.3}° ({z2_max_all:.2}° with the artefact)"
    );
    println!(
        "  s1 rms {:.2} mm max {:.2} mm; s2 rms {:.2} mm max {:.2} mm",
        s1_rms * 1e3,
        s1_max * 1e3,
        s2_rms * 1e3,
        s2_max * 1e3
    );
    for (k, (rms, max)) in pe.iter().enumerate() {
        println!(
            "  p{} rms {:.3} bar max {:.3} bar",
            k + 1,
            rms / 1e5,
            max / 1e5
        );
    }
    let last = d.t.len() - 1;
    println!(
        "  end: z1 {:.2}° (measured {:.2}°), s1 {:.4} m (measured {:.4} m); start: p1 {:.3} bar (measured {:.3}), p3 {:.3} bar (measured {:.3})",
        r.z1[last],
        d.z1[last],
        r.s1[last],
        d.s1[last],
        r.p1_start / 1e5,
        d.p[0][0] / 1e5,
        r.p3_start / 1e5,
        d.p[2][0] / 1e5
    );
    // The static start confirms geometry and payload (note §7: 211.431 kg, "not confirmed
    // by any measurement note"): p1(0) from our equilibrium within 0.2 % of the measured
    // 66.11 bar (measured when written: 66.144 bar, +0.05 %).
    assert!(
        (r.p1_start - d.p[0][0]).abs() / d.p[0][0] < 2e-3,
        "p1(0) = {} Pa vs measured {} Pa",
        r.p1_start,
        d.p[0][0]
    );
    // The lift reaches the measured height (the published model stops at 29°).
    assert!(r.z1[last] > 47.0, "z1 end {}°", r.z1[last]);
    assert!(
        (r.s1[last] - d.s1[last]).abs() < 3e-3,
        "s1 end {}",
        r.s1[last]
    );
    // Regression guards at ~1.3× the agreement measured when the model was written:
    // s1 rms 1.11 mm max 2.49 mm; z1 rms 1.72° max 3.03° (see the kinematic test below for
    // why z1 cannot follow s1 closer); z2 rms 1.49°; s2 rms 1.15 mm; p1 rms 1.21 bar,
    // p2 rms 2.11 bar, p3 rms 5.23 bar (the tilt cylinder's static friction, see the model
    // header), p4 rms 0.58 bar.
    assert!(s1_rms < 1.5e-3 && s1_max < 3.3e-3, "s1 {s1_rms} {s1_max}");
    assert!(z1_rms < 2.2 && z1_max < 3.9, "z1 {z1_rms} {z1_max}");
    assert!(z2_rms < 2.0 && z2_max < 4.7, "z2 {z2_rms} {z2_max}");
    assert!(s2_rms < 1.5e-3 && s2_max < 2.5e-3, "s2 {s2_rms} {s2_max}");
    assert!(pe[0].0 < 1.6e5, "p1 rms {}", pe[0].0);
    assert!(pe[1].0 < 2.8e5, "p2 rms {}", pe[1].0);
    assert!(pe[2].0 < 6.8e5, "p3 rms {}", pe[2].0);
    assert!(pe[3].0 < 0.8e5, "p4 rms {}", pe[3].0);
}

/// The measured z1 and s1 are not related by the published geometry: the measured s1
/// mapped through the model's own lift-cylinder kinematics gives lift angles up to ~2.5°
/// above the measured z1 at the top of the lift (and the static p1(0) above confirms the
/// geometry). A model that follows the hydraulic displacement s1 therefore cannot follow
/// z1 closer than that.
#[test]
fn measured_lift_angle_and_cylinder_length_disagree_with_the_geometry() {
    let d = load_measurement();
    let mut m = Machine::load(FILE);
    m.inst.initialize(0.0).unwrap();
    // s1(θ) of the model: pin distance between the pillar point and the lift-boom point.
    let base = [0.17, 0.388113];
    let (joint, rod) = ([-0.09, 1.4261], [0.30419, -0.10001]);
    let s_of = |theta: f64| {
        let (c, s) = (theta.cos(), theta.sin());
        let x = joint[0] + c * rod[0] - s * rod[1] - base[0];
        let y = joint[1] + s * rod[0] + c * rod[1] - base[1];
        x.hypot(y)
    };
    // The formula is the model's: same length at the start.
    let z0 = m.get("lift.angle");
    assert!((s_of(z0) - m.get("lift_cylinder.length")).abs() < 1e-12);
    // Invert s1 → θ by bisection (s grows with θ over the range).
    let theta_of = |s: f64| {
        let (mut a, mut b) = (-0.5f64, 1.5f64);
        for _ in 0..80 {
            let c = 0.5 * (a + b);
            if s_of(c) < s {
                a = c;
            } else {
                b = c;
            }
        }
        0.5 * (a + b) * DEG
    };
    let late: Vec<usize> = (0..d.t.len()).filter(|&i| d.t[i] > 21.0).collect();
    let gap: f64 = late
        .iter()
        .map(|&i| theta_of(d.s1[i]) - d.z1[i])
        .sum::<f64>()
        / late.len() as f64;
    // Slopes over the lift: measured ds1/dz1 vs the geometry's.
    let (i0, i1) = (0, d.t.len() - 1);
    let measured_slope = (d.s1[i1] - d.s1[i0]) / (d.z1[i1] - d.z1[i0]) * 1e3;
    let model_slope = (s_of(d.z1[i1] / DEG) - s_of(d.z1[i0] / DEG)) / (d.z1[i1] - d.z1[i0]) * 1e3;
    println!(
        "measured s1 through the geometry − measured z1 after 21 s: {gap:.2}°; ds1/dz1 measured {measured_slope:.3} mm/°, geometry {model_slope:.3} mm/°"
    );
    assert!(gap > 1.5 && gap < 3.5, "gap {gap}°");
    assert!(
        measured_slope / model_slope > 1.03,
        "slopes {measured_slope} {model_slope}"
    );
}

/// Built with the published parameters of note §7 (neutral 5.6 V, Q0 = Q1 = 40 L/min,
/// τ = 30 ms, friction off), the same model stops where the published model stops:
/// z1 29°, s1 1.099 m (note §7) — so the shortfall is the valve's neutral voltage, not
/// the mechanics, the payload or the solver.
#[test]
fn published_pvg32_parameters_reproduce_the_published_shortfall() {
    let d = load_measurement();
    let path = common::workspace().join("models").join(FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    let published = [
        (r#"time_constant = "0.5 s""#, r#"time_constant = "30 ms""#),
        ("6.3667e-4", "6.6667e-4"),
        ("7.6096e-7", "7.9682e-7"),
        ("4.5019e-7", "4.7140e-7"),
        ("[2.8, ", "[2.6, "),
        ("5.457143", "5.257143"),
        ("6.142857", "5.942857"),
        ("[8.8, ", "[8.6, "),
        (
            r#"model = "brown-mcphee", coulomb = "2.5 kN", stiction = "2.5 kN", stribeck_velocity = "5 mm/s", viscous = "0 N s/m""#,
            r#"model = "viscous", coefficient = "0 N s/m""#,
        ),
    ];
    let mut variant = text.clone();
    for (ours, theirs) in published {
        assert!(
            variant.contains(ours),
            "the model no longer contains {ours}"
        );
        variant = variant.replace(ours, theirs);
    }
    let m = Machine::from_model(common::compile_text("patu-pvg32-published.toml", variant));
    let r = run(m, &d);
    let last = d.t.len() - 1;
    println!(
        "published PVG32 parameters: z1 end {:.2}° (published model 29°, measured {:.2}°), s1 end {:.4} m (published 1.099 m, measured {:.4} m)",
        r.z1[last], d.z1[last], r.s1[last], d.s1[last]
    );
    assert!((r.z1[last] - 29.0).abs() < 1.0, "z1 end {}", r.z1[last]);
    assert!((r.s1[last] - 1.099).abs() < 4e-3, "s1 end {}", r.s1[last]);
}

/// Issue 22: the same crane with its lift boom flexible (`models/patu-flexible.toml`, a box
/// beam of source E's section with four in-plane Craig–Bampton modes) against the same
/// measurement, side by side with the rigid model: does flexibility change the fit?
#[test]
fn a_flexible_lift_boom_against_the_rigid_model_and_the_measurement() {
    let d = load_measurement();
    let rigid = run(Machine::load(FILE), &d);
    let mut m = Machine::load("patu-flexible.toml");
    let deflection0 = {
        m.inst.initialize(0.0).unwrap();
        m.get("lift_boom.deflection")
    };
    let m = Machine::load("patu-flexible.toml");
    let flexible = run(m, &d);
    let none = |_| false;
    let spike = |i: usize| (d.t[i] - 20.185).abs() < 0.015;
    let report = |name: &str, r: &Run| {
        let (z1, z1m) = errors(&r.z1, &d.z1, none);
        let (z2, _) = errors(&r.z2, &d.z2, spike);
        let (s1, s1m) = errors(&r.s1, &d.s1, none);
        let p: Vec<f64> = (0..4)
            .map(|k| errors(&r.p[k], &d.p[k], none).0 / 1e5)
            .collect();
        println!(
            "  {name}: z1 rms {z1:.3}° max {z1m:.3}°; z2 rms {z2:.3}°; s1 rms {:.2} mm max {:.2} mm; p1..p4 rms {:.3} {:.3} {:.3} {:.3} bar; p1(0) {:.3} bar",
            s1 * 1e3,
            s1m * 1e3,
            p[0],
            p[1],
            p[2],
            p[3],
            r.p1_start / 1e5
        );
        (z1, z2, s1, p)
    };
    println!("rigid vs flexible lift boom against the PVG32 lift measurement (27 s, 1 ms):");
    let (z1_r, z2_r, s1_r, p_r) = report("rigid", &rigid);
    let (z1_f, z2_f, s1_f, p_f) = report("flexible", &flexible);
    let (dz1, dz1_max) = errors(&flexible.z1, &rigid.z1, none);
    let (dz2, dz2_max) = errors(&flexible.z2, &rigid.z2, none);
    let (dp1, dp1_max) = errors(&flexible.p[0], &rigid.p[0], none);
    let worst = (0..d.t.len())
        .max_by(|&a, &b| {
            let gap = |i: usize| (flexible.p[0][i] - rigid.p[0][i]).abs();
            gap(a).total_cmp(&gap(b))
        })
        .unwrap_or(0);
    println!(
        "  flexible − rigid: z1 rms {dz1:.4}° max {dz1_max:.4}°, z2 rms {dz2:.4}° max {dz2_max:.4}°, p1 rms {:.3} bar max {:.3} bar (at {:.3} s); static bending at the tilt joint {:.2} mm",
        dp1 / 1e5,
        dp1_max / 1e5,
        d.t[worst],
        deflection0 * 1e3
    );
    // The boom sags under the tilt boom and payload, about a centimetre at the tilt joint (a
    // 3 m box of EI ≈ 2.9 MN·m² under ≈ 3.4 kN at its end gives PL³/3EI ≈ 9 mm as a
    // cantilever; the tilt cylinder's and the four-bar's forces between the nodes add to it),
    // downwards in the boom's frame.
    assert!(
        deflection0 < -3e-3 && deflection0 > -25e-3,
        "static bending {deflection0} m"
    );
    // The static start: the same pressures within 0.5 % (the sag moves the loads by a few mm).
    assert!((flexible.p1_start / rigid.p1_start - 1.0).abs() < 5e-3);
    // The fit is not worse than the rigid model's, and flexibility changes it by little: the
    // boom's first mode (20 Hz) is far above the valve-driven motion (< 1 Hz).
    assert!(z1_f < 1.05 * z1_r && z2_f < 1.05 * z2_r && s1_f < 1.05 * s1_r);
    for k in 0..4 {
        assert!(
            p_f[k] < 1.05 * p_r[k] + 0.05,
            "p{} {} vs {}",
            k + 1,
            p_f[k],
            p_r[k]
        );
    }
}

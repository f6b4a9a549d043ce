//! The estimator (issue 19, seed 001 ch. 3): an error-state Kalman filter around the
//! unmodified model, on synthetic measurements: seed 001 Pub I's four-bar as a "truth" with
//! perturbed parameters (the load +20 %, the oil's bulk modulus −30 %; its cylinder has no
//! seal friction to double) driven by Pub II's valve; its sensors, with Gaussian noise,
//! drive the estimator of the nominal model; the nominal model alone is the open loop.

#![allow(clippy::needless_range_loop)] // per-state tables index several arrays at once

mod common;

use common::Machine;
use common::estimation::{Noise, estimator_machine, model_text, perturb};
use fmu_runtime::model::Probe;
use model_compiler::description::Description;

/// Seed 001 Pub I's hydraulic four-bar.
const FOURBAR: &str = "jaiswal-fourbar.toml";

/// The truth of the four-bar: the load +20 % (all three links), the oil and hoses −30 %
/// stiffer (Pub I's cylinder has no seal friction).
fn fourbar_truth() -> Machine {
    let mut m = Machine::load(FOURBAR);
    for body in ["crank", "coupler", "rocker"] {
        perturb(&mut m, &format!("{body}.mass"), |v| 1.2 * v);
    }
    for v in ["oil", "hose", "cap_side", "rod_side"] {
        perturb(&mut m, &format!("{v}.bulk_modulus"), |b| 0.7 * b);
    }
    m
}

use common::pub1_command as valve;

/// What is compared: the crank angle and rate, the three pressures.
fn states(m: &Machine) -> [f64; 5] {
    let p = |i| m.inst.probe(Probe::NodePressure(i));
    let nodes = &m.inst.model().circuit.nodes;
    let node = |name: &str| nodes.iter().position(|n| n.name() == name).unwrap();
    [
        m.inst.probe(Probe::JointPosition(0)),
        m.inst.probe(Probe::JointVelocity(0)),
        p(node("hose")),
        p(node("cap_side")),
        p(node("rod_side")),
    ]
}

struct Run {
    /// RMS error against the truth of each of `states`: open loop, estimator; and of the
    /// raw encoder.
    open: [f64; 5],
    estimated: [f64; 5],
    encoder: f64,
    corrections: u64,
    /// Samples the innovation gate skipped.
    rejected: u64,
    /// truth, open loop, estimator at the end.
    final_states: ([f64; 5], [f64; 5], [f64; 5]),
    /// When the estimator's step failed: the time and the FMU's message (the RMS errors
    /// are then over the steps before).
    failed: Option<(f64, String)>,
}

/// Ten seconds at 1 ms: truth (perturbed, or the nominal machine), open loop and
/// estimator side by side; the sensors sampled from the truth at `rate` Hz (0: never) with
/// their σ.
fn fourbar_run(estimator: &str, rate: f64, nominal: bool) -> Run {
    fourbar_attempt(estimator, rate, nominal, false)
}

/// [`fourbar_run`], the estimator's failure to step recorded (`tolerate`) instead of
/// panicking.
fn fourbar_attempt(estimator: &str, rate: f64, nominal: bool, tolerate: bool) -> Run {
    let (mut est, spec) = estimator_machine(FOURBAR, estimator);
    let mut truth = if nominal {
        Machine::load(FOURBAR)
    } else {
        fourbar_truth()
    };
    let mut open = Machine::load(FOURBAR);
    for m in [&mut truth, &mut open, &mut est] {
        m.inst.initialize(0.0).unwrap();
    }
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
    let (h, steps) = (1e-3, 10_000);
    let every = if rate > 0.0 {
        (1.0 / (rate * h)).round() as usize
    } else {
        usize::MAX
    };
    let (mut open_sq, mut est_sq, mut enc_sq, mut n) = ([0.0; 5], [0.0; 5], 0.0, 0.0f64);
    let mut final_states = ([0.0; 5], [0.0; 5], [0.0; 5]);
    let (mut failed, mut taken) = (None, 0);
    for k in 1..=steps {
        let t0 = (k - 1) as f64 * h;
        for m in [&mut truth, &mut open, &mut est] {
            m.set("valve.command", valve(t0));
        }
        truth.inst.advance(k as f64 * h).unwrap();
        open.inst.advance(k as f64 * h).unwrap();
        let sample = rate > 0.0 && k % every == 0;
        let mut encoder = f64::NAN;
        for s in &spec.sensors {
            let sigma = est.inst.params()[s.sigma.index()];
            let measured = truth.inst.probe(s.probe) + sigma * noise.normal();
            if s.probe == Probe::JointPosition(0) {
                encoder = measured;
            }
            est.inst.set_param(s.value, measured);
            est.inst.set_param(s.valid, if sample { 1.0 } else { 0.0 });
        }
        if let Err(e) = est.inst.advance(k as f64 * h) {
            if !tolerate {
                panic!("estimator at step {k}: {}", e.message);
            }
            failed = Some((k as f64 * h, e.message));
            break;
        }
        taken = k;
        if k == steps {
            final_states = (states(&truth), states(&open), states(&est));
        }
        let (x, o, e) = (states(&truth), states(&open), states(&est));
        for i in 0..5 {
            open_sq[i] += (o[i] - x[i]).powi(2);
            est_sq[i] += (e[i] - x[i]).powi(2);
        }
        if sample && encoder.is_finite() {
            enc_sq += (encoder - x[0]).powi(2);
            n += 1.0;
        }
    }
    let rms = |sq: [f64; 5]| sq.map(|s| (s / taken.max(1) as f64).sqrt());
    Run {
        open: rms(open_sq),
        estimated: rms(est_sq),
        encoder: (enc_sq / n.max(1.0)).sqrt(),
        corrections: est.inst.estimator().unwrap().corrections(),
        rejected: est.inst.estimator().unwrap().rejected(),
        final_states,
        failed,
    }
}

const NAMES: [&str; 5] = [
    "crank angle [rad]",
    "crank rate [rad/s]",
    "p1 hose [Pa]",
    "p2 cap side [Pa]",
    "p3 rod side [Pa]",
];

fn report(label: &str, r: &Run) {
    println!(
        "{label}: {} corrections, {} samples gated",
        r.corrections, r.rejected
    );
    if let Some((t, message)) = &r.failed {
        println!("  FAILED at t = {t:.3} s: {message}");
    }
    for i in 0..5 {
        println!(
            "  {:<20} open loop {:.3e}  estimator {:.3e}  ({:.1} %)",
            NAMES[i],
            r.open[i],
            r.estimated[i],
            100.0 * r.estimated[i] / r.open[i]
        );
    }
    println!("  raw encoder RMS error {:.3e} rad", r.encoder);
}

/// Our choice (the thesis gives no numbers, digest §2.9): a 0.05° encoder (a 13-bit
/// absolute encoder's resolution), 0.5 bar pressure transducers; plant noise 0.1 rad/s²·√s
/// and 1 bar/√s.
fn sensors(acceleration_noise: f64, pressures: bool) -> String {
    sensor_set(acceleration_noise, pressures, false, false, 0.0)
}

/// [`sensors`], with the shipped gyroscope on the crank (0.01 rad/s) when `gyro`, a load
/// error on the crank when `loads` (50 N·m/√s from 200 N·m: our choice, as in
/// tests/estimator_nees.rs), and an innovation gate of `gate` σ.
fn sensor_set(
    acceleration_noise: f64,
    pressures: bool,
    gyro: bool,
    loads: bool,
    gate: f64,
) -> String {
    let mut t = format!(
        r#"
[estimator]
acceleration_noise = {acceleration_noise}
pressure_noise = "1 bar"
initial_coordinate_sigma = 0.001

[[estimator.sensors]]
name = "crank"
measures = "O.q"
sigma = "0.05 deg"
"#
    );
    t = t.replacen(
        "[estimator]\n",
        &format!("[estimator]\ninnovation_gate = {gate}\n"),
        1,
    );
    if loads {
        t = t.replacen(
            "[estimator]\n",
            "[estimator]\nload_noise = 50\ninitial_load_sigma = 200\n",
            1,
        );
    }
    if gyro {
        t += "\n[[estimator.sensors]]\nname = \"crank_rate\"\nmeasures = \"crank.angular_velocity.z\"\nsigma = \"0.01 rad/s\"\n";
    }
    if pressures {
        for (name, volume) in [("p1", "hose"), ("p2", "cap_side"), ("p3", "rod_side")] {
            t += &format!(
                "\n[[estimator.sensors]]\nname = \"{name}\"\nmeasures = \"{volume}.p\"\nsigma = \"0.5 bar\"\n"
            );
        }
    }
    t
}

#[test]
fn without_samples_the_estimator_is_the_model_bit_for_bit() {
    // No sample: the Jacobians are taken on the twin and nothing corrects the instance,
    // whose sensor inputs change every step without counting as the machine's inputs.
    let r = fourbar_run(&sensors(0.1, true), 0.0, true);
    let (_, open, est) = r.final_states;
    assert_eq!(r.corrections, 0);
    assert_eq!(open, est);
    assert_eq!(r.estimated, [0.0; 5]);
}

#[test]
fn the_thesis_sensor_set_estimates_the_unmeasured_rate() {
    // Thesis Table 4.2 set 1: the crank encoder and p1, p2, p3, at 1 kHz, on a truth 20 %
    // heavier with 30 % softer oil. Measured: angle 3.2 %, rate 21 %, pressures 0.7–1.7 %
    // of the open loop's RMS error.
    let r = fourbar_run(&sensors(0.1, true), 1000.0, false);
    report("encoder + p1, p2, p3 at 1 kHz", &r);
    assert_eq!(r.corrections, 10_000);
    // The unmeasured state (the rate) at most 30 % of the open loop's error (issue 19);
    // the estimated angle more accurate than the raw encoder (the thesis's finding); the
    // pressures more accurate than their transducers' 0.5 bar.
    assert!(r.estimated[1] <= 0.3 * r.open[1], "{:?}", r.estimated);
    assert!(
        r.estimated[0] < r.encoder,
        "{} vs {}",
        r.estimated[0],
        r.encoder
    );
    for i in 2..5 {
        assert!(r.estimated[i] < 0.5e5, "{}: {}", NAMES[i], r.estimated[i]);
    }
}

#[test]
fn an_encoder_alone_gives_a_better_angle_than_the_encoder() {
    // With the valve closed the oil column holds the crank: a pressure error moves the
    // crank by far less than the encoder resolves, so the encoder alone says little of
    // the pressures (measured at 1 kHz, σ_z̈ = 1: p1, p2 at 73 % of the open loop's
    // error, p3 at 122 %; at σ_z̈ = 0.01 85–92 %), but its own angle it improves (4.5 %
    // of the open loop's error, 38 % of the encoder's).
    let r = fourbar_run(&sensors(1.0, false), 1000.0, false);
    report("encoder at 1 kHz", &r);
    assert!(
        r.estimated[0] < 0.5 * r.encoder,
        "{} vs {}",
        r.estimated[0],
        r.encoder
    );
    assert!(r.estimated[0] < 0.1 * r.open[0]);
}

#[test]
fn sensor_sets_and_sample_rates() {
    // The table of docs/estimator.md: the thesis's sets (encoder; + p1, p2, p3; +
    // gyroscope) at 1000, 100 and 10 Hz, with a load error on the crank (the truth's
    // heavier links are a load the model does not have) and a 10σ innovation gate.
    // 10 Hz is below twice the crank's oil-column mode (8.6–13.4 Hz while the valve is
    // open, 5.2 Hz closed: the eigenvalues of A): without the gyroscope the oscillation
    // aliases, the corrections pump it, the model's pressures collapse to vapour pressure
    // between samples; without the gate the encoder + pressures run then fails to step
    // at 9.006 s (Newton, 4 halvings).
    for (label, pressures, gyro) in [
        ("encoder", false, false),
        ("encoder + p1-p3", true, false),
        ("encoder + p1-p3 + gyroscope", true, true),
    ] {
        for rate in [1000.0, 100.0, 10.0] {
            let r = fourbar_attempt(
                &sensor_set(0.1, pressures, gyro, true, 10.0),
                rate,
                false,
                true,
            );
            report(&format!("{label} at {rate} Hz"), &r);
            assert!(r.failed.is_none(), "{label} at {rate} Hz: {:?}", r.failed);
            // The estimated angle more accurate than the raw encoder at every rate.
            assert!(
                rate < 100.0 || r.estimated[0] < r.encoder,
                "{} vs {}",
                r.estimated[0],
                r.encoder
            );
            if pressures && rate >= 100.0 {
                // The unmeasured rate within 30 % of the open loop's error.
                assert!(r.estimated[1] <= 0.3 * r.open[1], "{:?}", r.estimated);
            }
            if gyro {
                // The rate measured, the oscillation is seen at every rate: every state
                // better than the open loop's.
                for i in 0..5 {
                    assert!(
                        r.estimated[i] < r.open[i],
                        "{}: {:?}",
                        NAMES[i],
                        r.estimated
                    );
                }
            }
        }
    }
}

#[test]
fn an_fmu_state_restores_the_covariance_and_the_continuation_bit_for_bit() {
    let (mut est, spec) = estimator_machine(FOURBAR, &sensors(0.1, true));
    let mut truth = fourbar_truth();
    est.inst.initialize(0.0).unwrap();
    truth.inst.initialize(0.0).unwrap();
    let mut noise = Noise(7);
    let mut samples = Vec::new();
    for k in 1..=400 {
        let t = k as f64 * 1e-3;
        truth.set("valve.command", valve(t - 1e-3 + 1.0));
        truth.inst.advance(t).unwrap();
        samples.push(
            spec.sensors
                .iter()
                .map(|s| truth.inst.probe(s.probe) + 1e-3 * noise.normal())
                .collect::<Vec<f64>>(),
        );
    }
    let run = |m: &mut Machine, from: usize, to: usize| {
        for k in from..to {
            m.set("valve.command", valve(k as f64 * 1e-3 + 1.0));
            for (s, v) in spec.sensors.iter().zip(&samples[k]) {
                m.inst.set_param(s.value, *v);
                m.inst.set_param(s.valid, 1.0);
            }
            m.inst.advance((k + 1) as f64 * 1e-3).unwrap();
        }
    };
    run(&mut est, 0, 200);
    let snap = est.inst.snapshot();
    let p_at_save = est.inst.estimator().unwrap().covariance().to_vec();
    run(&mut est, 200, 400);
    let (first, p_first) = (
        states(&est),
        est.inst.estimator().unwrap().covariance().to_vec(),
    );
    assert_ne!(p_first, p_at_save);
    est.inst.restore(&snap).unwrap();
    assert_eq!(est.inst.estimator().unwrap().covariance(), &p_at_save[..]);
    run(&mut est, 200, 400);
    assert_eq!(states(&est), first);
    assert_eq!(est.inst.estimator().unwrap().covariance(), &p_first[..]);
}

#[test]
fn a_missing_sample_is_refused_unless_flagged_and_bad_sensors_are_located() {
    let (mut est, spec) = estimator_machine(FOURBAR, &sensors(0.1, false));
    est.inst.initialize(0.0).unwrap();
    let s = &spec.sensors[0];
    // NaN without the flag: skipped.
    est.inst.set_param(s.value, f64::NAN);
    est.inst.set_param(s.valid, 0.0);
    est.inst.advance(1e-3).unwrap();
    // NaN flagged as a sample: an error naming the input.
    est.inst.set_param(s.valid, 1.0);
    let e = est.inst.advance(2e-3).unwrap_err();
    println!("{}", e.message);
    assert!(e.message.contains("sensor.crank") && e.message.contains("valid"));
    // A negative gate set by the master: an error naming the parameter.
    let (mut est, spec) = estimator_machine(FOURBAR, &sensors(0.1, false));
    est.inst.initialize(0.0).unwrap();
    est.inst.set_param(spec.innovation_gate, -1.0);
    let e = est.inst.advance(1e-3).unwrap_err();
    assert!(
        e.message.contains("estimator.innovation_gate"),
        "{}",
        e.message
    );

    for (bad, expect) in [
        (
            "innovation_gate = -1",
            "innovation gate must not be negative",
        ),
        ("measures = \"nowhere.q\"", "nowhere"),
        (
            "measures = \"cylinder.force\"",
            "not a quantity a sensor measures",
        ),
        ("sigma = \"-1 deg\"", "must be positive"),
        ("sigma = \"2 bar\"", "angle"),
        ("rate = \"0 Hz\"", "must be positive"),
        ("bias_noise = \"-1 deg\"", "must be positive"),
        ("bias_noise = \"1 bar\"", "angle"),
        ("initial_bias_sigma = \"1 deg\"", "without bias_noise"),
    ] {
        let key = bad.split(' ').next().unwrap();
        let text = sensors(0.1, false)
            .lines()
            .map(|l| {
                if l.starts_with(&format!("{key} ")) {
                    bad.to_string()
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let present = sensors(0.1, false)
            .lines()
            .any(|l| l.starts_with(&format!("{key} ")));
        let text = if !present {
            format!("{text}\n{bad}\n")
        } else {
            text
        };
        let full = format!("{}\n{text}", model_text(FOURBAR));
        let d = Description::parse(&full).unwrap();
        let errors = model_compiler::compile_description(&d)
            .err()
            .unwrap_or_default();
        let found: Vec<String> = errors.iter().map(|d| d.message.clone()).collect();
        println!("{bad}: {found:?}");
        assert!(
            errors
                .iter()
                .any(|d| d.message.contains(expect) && d.span.is_some()),
            "{bad}: {found:?}"
        );
    }
}

/// The crank's estimate right after an encoder sample 10° off at 1 s (the nominal
/// machine as truth, the encoder otherwise exact, 1 kHz), against the truth; the samples
/// gated.
fn after_an_outlier(gate: f64) -> (f64, u64) {
    let (mut est, spec) = estimator_machine(FOURBAR, &sensor_set(0.1, false, false, false, gate));
    let mut truth = Machine::load(FOURBAR);
    for m in [&mut truth, &mut est] {
        m.inst.initialize(0.0).unwrap();
    }
    let crank = &spec.sensors[0];
    est.inst.set_param(crank.valid, 1.0);
    for k in 1..=1000 {
        let t = k as f64 * 1e-3;
        for m in [&mut truth, &mut est] {
            m.set("valve.command", valve(t - 1e-3));
        }
        truth.inst.advance(t).unwrap();
        let mut y = truth.inst.probe(crank.probe);
        if k == 1000 {
            y += 10f64.to_radians();
        }
        est.inst.set_param(crank.value, y);
        est.inst.advance(t).unwrap();
    }
    let error = est.inst.probe(crank.probe) - truth.inst.probe(crank.probe);
    (error, est.inst.estimator().unwrap().rejected())
}

#[test]
fn a_gate_skips_an_outlier() {
    // 10° off against an innovation σ of about 0.05°: a 10σ gate skips it (and the
    // innovation output shows it); without a gate the crank is pulled off.
    let (gated, rejected) = after_an_outlier(10.0);
    let (taken, none) = after_an_outlier(0.0);
    println!("crank error after the outlier: gated {gated:.2e} rad, taken {taken:.2e} rad");
    assert_eq!((rejected, none), (1, 0));
    assert!(gated.abs() < 1e-4, "{gated}");
    assert!(taken.abs() > 1e-3, "{taken}");
}

#[test]
fn an_encoder_offset_is_estimated_as_its_bias() {
    // The truth is the nominal four-bar, its crank encoder mounted 0.5° off. Estimated as
    // the encoder's bias (initial σ 1°), the offset is found and the model is left where it
    // is; without it the filter moves the crank towards the offset reading.
    let offset = 0.5f64.to_radians();
    let run = |bias: bool| {
        let mut text = sensors(0.1, true);
        if bias {
            text = text.replacen(
                "sigma = \"0.05 deg\"\n",
                "sigma = \"0.05 deg\"\nbias_noise = \"0.01 deg\"\ninitial_bias_sigma = \"1 deg\"\n",
                1,
            );
        }
        let (mut est, spec) = estimator_machine(FOURBAR, &text);
        let mut truth = Machine::load(FOURBAR);
        est.inst.initialize(0.0).unwrap();
        truth.inst.initialize(0.0).unwrap();
        let mut noise = Noise(11);
        let mut worst = 0.0f64;
        for k in 1..=3000 {
            let t = k as f64 * 1e-3;
            for m in [&mut truth, &mut est] {
                m.set("valve.command", valve(t - 1e-3));
            }
            truth.inst.advance(t).unwrap();
            for s in &spec.sensors {
                let sigma = est.inst.params()[s.sigma.index()];
                let mut v = truth.inst.probe(s.probe) + sigma * noise.normal();
                if s.name == "crank" {
                    v += offset;
                }
                est.inst.set_param(s.value, v);
                est.inst.set_param(s.valid, 1.0);
            }
            est.inst.advance(t).unwrap();
            worst = worst.max((states(&est)[0] - states(&truth)[0]).abs());
        }
        let bias = spec.sensors[0].bias.as_ref().map(|b| {
            let e = est.inst.estimator().unwrap();
            (est.inst.params()[b.value.index()], e.sigma(e.len() - 1))
        });
        (worst, bias)
    };
    let (worst, bias) = run(true);
    let (b, sigma) = bias.unwrap();
    println!(
        "with the bias: {:.4}° ± {:.4}° (truth 0.5°), crank off by at most {:.2e} rad",
        b.to_degrees(),
        sigma.to_degrees(),
        worst
    );
    assert!((b - offset).abs() < 3.0 * sigma.max(1e-4), "{b} ± {sigma}");
    assert!(worst < 0.1 * offset, "{worst}");
    let (worst_without, _) = run(false);
    println!("without: crank off by at most {worst_without:.2e} rad");
    assert!(worst_without > 10.0 * worst);
}

/// The estimator's A (its first `n` rows) against forward differences through the whole
/// ODE view of a copy of the instance (position and velocity problems, inverse dynamics,
/// mass matrix, each column from the base): the first-order states' and the load's
/// columns the estimator takes from the first-order re-evaluation at the base's
/// kinematics, the rates' without returning to the base between columns. Returns the worst
/// difference relative to the column's largest entry.
fn jacobian_error(m: &mut Machine, text: &str) -> f64 {
    let e = m.inst.estimator().unwrap();
    // (The first error is the first independent joint's load.)
    let (dim, a, load) = (e.len(), e.jacobian().to_vec(), e.error_slot(0));
    let n = dim - e.errors();
    let snap = m.inst.snapshot();
    let (mut r, _) = common::estimation::compiled_estimator(text);
    r.inst.initialize(0.0).unwrap();
    let len = r.inst.ode_len().unwrap();
    let (mut x, mut f0, mut fk) = (vec![0.0; len], vec![0.0; len], vec![0.0; len]);
    let mut worst = 0.0f64;
    for k in 0..=n {
        // Each column from the instance's own state: the base, then the perturbed point.
        r.inst.restore(&snap).unwrap();
        r.inst.ode_states(&mut x).unwrap();
        r.inst.set_ode_states(&x).unwrap();
        r.inst.ode_derivatives(&mut f0).unwrap();
        let mut xp = x.clone();
        let delta = if k < n {
            let d = 1e-6 * x[k].abs().max(if x[k].abs() > 1e3 { 1e6 } else { 1.0 });
            xp[k] += d;
            d
        } else {
            r.inst.set_param(load, r.inst.params()[load.index()] + 1.0);
            1.0
        };
        r.inst.set_ode_states(&xp).unwrap();
        r.inst.ode_derivatives(&mut fk).unwrap();
        let reference: Vec<f64> = (0..n).map(|i| (fk[i] - f0[i]) / delta).collect();
        let scale = reference.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        let column = (0..n)
            .map(|i| (a[i * dim + k] - reference[i]).abs() / scale.max(1e-300))
            .fold(0.0f64, f64::max);
        worst = worst.max(column);
    }
    worst
}

#[test]
fn the_jacobian_matches_differences_through_the_whole_model() {
    // Pub I's four-bar (one loop) 1.5 s into Pub II's valve: oil flowing, no sample (A is
    // taken at the state the step ended in).
    let text = format!(
        "{}\n{}",
        model_text(FOURBAR),
        sensors(0.1, true).replacen("[estimator]\n", "[estimator]\nload_noise = 10\n", 1)
    );
    let (mut m, _) = common::estimation::compiled_estimator(&text);
    m.inst.initialize(0.0).unwrap();
    for k in 1..=1500 {
        m.set("valve.command", valve((k - 1) as f64 * 1e-3));
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    let fourbar = jacobian_error(&mut m, &text);
    // The PATU crane (one loop, two independent joints) lifting at 5.0 V for 1 s.
    let text = toml::to_string(&common::estimation::model_table("patu-pvg32.toml")).unwrap();
    let (mut m, _) = common::estimation::compiled_estimator(&text);
    m.inst.initialize(0.0).unwrap();
    m.set("lift_valve.command", 5.0);
    for k in 1..=1000 {
        m.inst.advance(k as f64 * 1e-3).unwrap();
    }
    let patu = jacobian_error(&mut m, &text);
    println!("worst relative difference: four-bar {fourbar:.1e}, PATU {patu:.1e}");
    assert!(fourbar < 1e-4 && patu < 1e-4);
}

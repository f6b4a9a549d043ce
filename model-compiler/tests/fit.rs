//! Issue 20: `hydromech fit` — identification of description fields from a record.
//!
//! - The shipped `models/patu-pvg32-fitted.toml` (fitted on 0–14 s of the PVG32 lift
//!   measurement) follows the measured lift angle within 1.5° over the whole 27 s record,
//!   and is what the fit gives (refitting reproduces it).
//! - Synthetic recovery: a record simulated with known values plus white noise of known σ
//!   gives back each value within 2 standard errors, and a residual variance of 1.
//! - Bad input is refused, with the reason, before any simulation.

use model_compiler::fit::{self, Options, Setup};
use std::path::{Path, PathBuf};

const RECORD: &str = "tests/data/patu-crane/patu_pvg32_lift_measured_27s_5ms.csv";
const DEG: f64 = 180.0 / std::f64::consts::PI;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The PVG32 lift experiment: the measured inputs, the lift angle and pressures mapped,
/// fitted on 0–14 s with the shipped fit's weights.
fn pvg32(model: &str, free: &[&str]) -> Options {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    Options {
        model: workspace().join("models").join(model),
        data: workspace().join(RECORD),
        time: Some("t_s".into()),
        maps: s(&[
            "lift.angle=z1_deg[deg]",
            "lift_cylinder.p_cap=p1_Pa[Pa]",
            "lift_cylinder.p_rod=p2_Pa[Pa]",
        ]),
        inputs: s(&[
            "lift_valve.command=U1_V",
            "tilt_valve.command=U2_V",
            "supply.p=pP_Pa",
            "tank.p=pT_Pa",
        ]),
        free: s(free),
        weights: s(&[
            "lift.angle=0.25deg",
            "lift_cylinder.p_cap=1bar",
            "lift_cylinder.p_rod=1bar",
        ]),
        window: Some((0.0, 14.0)),
        ..Options::default()
    }
}

/// The shipped fit's free fields (models/patu-pvg32-fitted.toml's header).
const SHIPPED_FREE: [&str; 6] = [
    "lift_cylinder.friction.coulomb,lift_cylinder.friction.stiction=0.5..6kN",
    "lift_cylinder.rod.point[0]=0.25..0.36",
    "lift_cylinder.rod.point[1]=-0.15..-0.05",
    "lift_valve.edges.PA.flow[0][1]=5e-4..8e-4",
    "lift_valve.edges.BT.coefficient[0][1]=2e-7..1e-5",
    "lift_boom.joint.initial=-1..2deg",
];

fn full_run(a: &fit::Agreement, c: usize) -> (f64, f64) {
    let (w, h) = (a.window[c], a.holdout[c]);
    (w.max.max(h.max), w.rms.max(h.rms))
}

#[test]
fn fitted_patu_follows_the_measured_lift_angle_within_1_5_deg() {
    let fitted = Setup::prepare(&pvg32("patu-pvg32-fitted.toml", &SHIPPED_FREE)).unwrap();
    let hand = Setup::prepare(&pvg32("patu-pvg32.toml", &SHIPPED_FREE)).unwrap();
    let f = fitted.agreement(&fitted.start).unwrap();
    let h = hand.agreement(&hand.start).unwrap();
    assert!(f.trajectory.failure.is_none() && h.trajectory.failure.is_none());
    for (name, a) in [("hand-picked", &h), ("fitted", &f)] {
        println!("{name}:");
        for (c, ch) in fitted.fit.outputs.iter().enumerate() {
            let (unit, factor) = &fitted.units[c];
            let factor = if unit == "Pa" { 1e5 } else { *factor };
            let unit = if unit == "Pa" { "bar" } else { unit };
            println!(
                "  {ch:<22} window rms {:.3} max {:.3} {unit} (t = {:.2} s); hold-out rms {:.3} max {:.3} {unit} (t = {:.2} s)",
                a.window[c].rms / factor,
                a.window[c].max / factor,
                a.window[c].at,
                a.holdout[c].rms / factor,
                a.holdout[c].max / factor,
                a.holdout[c].at
            );
        }
    }
    // Issue 20's target: the full-run lift-angle error ≤ 1.5° max (hand-picked: 3.03°).
    let (z_max, _) = full_run(&f, 0);
    assert!(z_max * DEG <= 1.5, "fitted z1 max error {}°", z_max * DEG);
    // Hold-out (14–27 s: the rest of the lift, the stop, the hold) better than the
    // hand-picked set's on the angle (measured when written: 0.26° vs 2.23° RMS).
    assert!(f.holdout[0].rms < 0.25 * h.holdout[0].rms);
    // p1 no worse anywhere (written: window 0.68 vs 1.49 bar, hold-out 0.64 vs 0.81 bar).
    assert!(f.window[1].rms < h.window[1].rms && f.holdout[1].rms < h.holdout[1].rms);
}

#[test]
fn refitting_reproduces_the_shipped_fitted_values() {
    let setup = Setup::prepare(&pvg32("patu-pvg32.toml", &SHIPPED_FREE)).unwrap();
    let shipped = Setup::prepare(&pvg32("patu-pvg32-fitted.toml", &SHIPPED_FREE)).unwrap();
    let r = fit::fit(&setup, 2, 400, false);
    println!("{}", r.termination);
    for (j, s) in setup.free.iter().enumerate() {
        println!(
            "{}: refit {} ± {}, shipped {}",
            s.name, r.values[j], r.std_errors[j], shipped.start[j]
        );
        // The file carries 7 significant digits; the fit is deterministic.
        assert!(
            (r.values[j] - shipped.start[j]).abs() <= 0.05 * r.std_errors[j],
            "{}",
            s.name
        );
    }
}

/// xorshift64* and Box–Muller: reproducible Gaussian noise.
struct Noise(u64);

impl Noise {
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn gauss(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

#[test]
fn synthetic_record_gives_back_the_true_values_within_two_sigma() {
    // Truth: friction, flow gain, meter-out orifice and start angle away from the
    // description's values; the record: the measured inputs of 0–10 s, the model's lift
    // angle and pressures with white noise of σ 0.25° and 1 bar.
    let free = [
        "lift_cylinder.friction.coulomb,lift_cylinder.friction.stiction=0.5..6kN",
        "lift_valve.edges.PA.flow[0][1]=5e-4..8e-4",
        "lift_valve.edges.BT.coefficient[0][1]=2e-7..1e-5",
        "lift_boom.joint.initial=-1..2deg",
    ];
    let truth = [3.6e3, 6.05e-4, 1.6e-6, 0.6 / DEG];
    let mut o = pvg32("patu-pvg32.toml", &free);
    o.window = Some((0.0, 10.0));
    let setup = Setup::prepare(&o).unwrap();
    let clean = setup.fit.run(&truth).unwrap();
    assert!(clean.failure.is_none());
    let sigma = [0.25 / DEG, 1e5, 1e5];
    let mut noise = Noise(0x9E37_79B9_7F4A_7C15);
    let dir = std::env::temp_dir().join(format!("hydromech-fit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("synthetic.csv");
    let mut csv = String::from("t_s,U1_V,U2_V,pP_Pa,pT_Pa,z1_deg,p1_Pa,p2_Pa\n");
    for (i, t) in setup.fit.times.iter().enumerate() {
        let u = setup.fit.inputs.value_at(*t, true);
        let z = clean.values[0][i] + sigma[0] * noise.gauss();
        let p1 = clean.values[1][i] + sigma[1] * noise.gauss();
        let p2 = clean.values[2][i] + sigma[2] * noise.gauss();
        csv.push_str(&format!(
            "{t},{},{},{},{},{},{p1},{p2}\n",
            u[0],
            u[1],
            u[2],
            u[3],
            z * DEG
        ));
    }
    std::fs::write(&data, csv).unwrap();
    o.data = data;
    o.window = None;
    let setup = Setup::prepare(&o).unwrap();
    let at_truth = setup.fit.run(&truth).unwrap();
    let mut ss = 0.0;
    for (c, s) in sigma.iter().enumerate() {
        for i in 0..at_truth.reached {
            let e = (at_truth.values[c][i] - setup.measured[c][i]) / s;
            ss += e * e;
        }
    }
    let r = fit::fit(&setup, 2, 400, false);
    std::fs::remove_dir_all(&dir).ok();
    let m = r.residuals as f64;
    let variance = 2.0 * r.cost / (m - free.len() as f64);
    println!(
        "{}; {} simulations; residual variance {variance:.4}",
        r.termination, r.simulations
    );
    for (j, s) in setup.free.iter().enumerate() {
        let z = (r.values[j] - truth[j]) / r.std_errors[j];
        println!(
            "{}: true {:e}, start {:e}, fitted {:e} ± {:e} ({z:+.2} σ)",
            s.name, truth[j], setup.start[j], r.values[j], r.std_errors[j]
        );
        assert!(z.abs() <= 2.0, "{} off by {z} σ", s.name);
    }
    // The weights are the noise's σ: the weighted residuals are unit white noise at the
    // optimum (χ²/dof = 1 within its spread √(2/dof) ≈ 0.018 for 6003 residuals; this
    // noise's own: 1.035).
    assert!(
        (variance - 1.0).abs() < 0.06,
        "residual variance {variance}"
    );
    // The optimum: below the truth's sum of squares by about the number of fitted values
    // (a χ² with 4 degrees of freedom), never above it.
    let drop = ss - 2.0 * r.cost;
    println!(
        "Σr² at the truth {ss:.2}, at the fit {:.2}: drop {drop:.2}",
        2.0 * r.cost
    );
    assert!((0.0..20.0).contains(&drop), "Σr² drop {drop}");
}

#[test]
fn bad_input_is_refused_before_any_run() {
    let err = |o: Options| Setup::prepare(&o).unwrap_err();
    let free = |f: &str| pvg32("patu-pvg32.toml", &[f]);
    // An unknown field, with the closest one.
    let e = err(free("lift_valve.time_constant=0.1..1s"));
    assert!(
        e.contains("did you mean 'lift_valve.spool.time_constant'"),
        "{e}"
    );
    // An FMU parameter that is no field of the description (the payload's mass is the sum
    // of its parts'): the component's fields are named.
    let e = err(free("payload.mass=100..300"));
    assert!(
        e.contains("the numeric fields of 'payload'") && e.contains("payload.parts[0].mass"),
        "{e}"
    );
    // Bounds the description's own validation refuses (a negative friction force).
    let e = err(free(
        "lift_cylinder.friction.coulomb,lift_cylinder.friction.stiction=-1..4kN",
    ));
    assert!(e.contains("invalid with") && e.contains("-1000"), "{e}");
    // The description's value outside the bounds.
    let e = err(free("lift_valve.spool.time_constant=0.6..1s"));
    assert!(e.contains("outside 0.6..1"), "{e}");
    // Tied fields that differ.
    let e = err(free(
        "lift_cylinder.friction.coulomb,lift_cylinder.friction.stribeck_velocity=0..10kN",
    ));
    assert!(e.contains("tied fields differ"), "{e}");
    // A column the record does not have.
    let mut o = free("lift_valve.spool.time_constant=0.1..1s");
    o.maps[0] = "lift.angle=z1_degs[deg]".into();
    let e = err(o);
    assert!(
        e.contains("no column 'z1_degs'") && e.contains("did you mean 'z1_deg'"),
        "{e}"
    );
    // A model variable that does not exist, and an output given as an input.
    let mut o = free("lift_valve.spool.time_constant=0.1..1s");
    o.maps[0] = "lift.angel=z1_deg[deg]".into();
    let e = err(o);
    assert!(e.contains("did you mean 'lift.angle'"), "{e}");
    let mut o = free("lift_valve.spool.time_constant=0.1..1s");
    o.inputs[0] = "lift.angle=U1_V".into();
    let e = err(o);
    assert!(e.contains("Output") && e.contains("expected input"), "{e}");
    // Mismatched time bases: a record on a 2.5 ms grid against the model's 1 ms step.
    let dir = std::env::temp_dir().join(format!("hydromech-fit-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(workspace().join(RECORD)).unwrap();
    let mut lines = text.lines();
    let mut shifted = format!("{}\n", lines.next().unwrap());
    for (k, l) in lines.enumerate() {
        let (_, rest) = l.split_once(',').unwrap();
        shifted.push_str(&format!("{},{rest}\n", k as f64 * 0.0025));
    }
    std::fs::write(dir.join("shifted.csv"), shifted).unwrap();
    let mut o = free("lift_valve.spool.time_constant=0.1..1s");
    o.data = dir.join("shifted.csv");
    o.window = None;
    let e = err(o);
    assert!(
        e.contains("mismatched time bases") && e.contains("0.0025"),
        "{e}"
    );
    // A window outside the record.
    let mut o = free("lift_valve.spool.time_constant=0.1..1s");
    o.window = Some((0.0, 40.0));
    let e = err(o);
    assert!(e.contains("outside the record"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The command line end to end: a one-field fit over 0–4 s writes a description that
/// compiles, names the fitted value, its provenance and the new model name, and keeps
/// every other line of the source.
#[test]
fn the_command_writes_an_annotated_description_that_compiles() {
    let dir = std::env::temp_dir().join(format!("hydromech-fit-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("lift-fitted.toml");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .current_dir(workspace())
        .args([
            "fit",
            "models/patu-pvg32.toml",
            "--data",
            RECORD,
            "--time",
            "t_s",
            "--input",
            "lift_valve.command=U1_V",
            "--input",
            "supply.p=pP_Pa",
            "--map",
            "lift.angle=z1_deg[deg]",
            "--free",
            "lift_valve.edges.PA.flow[0][1]=5e-4..8e-4",
            "--window",
            "0..4",
            "--threads",
            "2",
        ])
        .arg("-o")
        .arg(&out)
        .arg("--plots")
        .arg(dir.join("plots"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("lift_valve.edges.PA.flow[0][1]") && stdout.contains("hold-out"));
    let text = std::fs::read_to_string(&out).unwrap();
    let source = std::fs::read_to_string(workspace().join("models/patu-pvg32.toml")).unwrap();
    assert!(
        text.starts_with("# FITTED by `hydromech fit` on "),
        "{text}"
    );
    assert!(text.contains("name = \"lift-fitted\""));
    // The fitted line is annotated; the tilt valve's identical table is untouched.
    let fitted_line = text
        .lines()
        .skip_while(|l| !l.starts_with("# FITTED 2"))
        .nth(1)
        .unwrap();
    assert!(
        fitted_line.starts_with("edges.PA = { flow = [[2.8, "),
        "{fitted_line}"
    );
    assert!(!fitted_line.contains("6.3667e-4"));
    let tilt =
        "edges.PA = { flow = [[2.8, 6.3667e-4], [5.457143, 0]], compensator_margin = \"1 bar\" }\n";
    assert_eq!(source.matches(tilt).count(), 1);
    assert_eq!(text.matches(tilt).count(), 1);
    // Every source line is still there but the changed ones.
    let kept = source.lines().filter(|l| text.contains(l)).count();
    assert_eq!(
        kept,
        source.lines().count() - 3,
        "model.name, description, the PA line"
    );
    let src = model_compiler::diagnostic::Source::new("fitted", text);
    let model = model_compiler::compile(&src).unwrap().model;
    assert_eq!(model.name, "lift-fitted");
    assert!(dir.join("plots/lift.angle.svg").exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// A field the record does not see (the tilt valve's P→B flow: the tilt valve stays in its
/// dead band, U2 = 5.8 V throughout) is
/// reported unidentified, not at a bound, and does not spoil the other field's error.
#[test]
fn a_field_the_record_does_not_see_is_unidentified() {
    let mut o = pvg32(
        "patu-pvg32.toml",
        &[
            "lift_valve.spool.time_constant=0.1..1s",
            "tilt_valve.edges.PB.flow[1][1]=5e-4..8e-4",
        ],
    );
    o.window = Some((0.0, 4.0));
    let setup = Setup::prepare(&o).unwrap();
    let r = fit::fit(&setup, 2, 100, false);
    println!("{:?} {:?} {:?}", r.values, r.std_errors, r.at_bound);
    assert!(r.std_errors[0].is_finite() && r.std_errors[0] > 0.0);
    assert!(r.std_errors[1].is_nan() && !r.at_bound[1]);
    // The unseen field stays where it was.
    assert_eq!(r.values[1], setup.start[1]);
}

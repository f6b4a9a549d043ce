//! `hydromech sweep` (issue 20): cases run in-process on one loaded FMU, on several
//! threads with the same rows as on one; the physics of a payload sweep; failures kept
//! with their reason; bad sweeps refused before any case runs.

mod common;

use model_compiler::host::fmi::Fmu;
use model_compiler::simulate;
use model_compiler::sweep::{self, grid::Range};

fn patu() -> (simulate::Prepared, Fmu) {
    let prepared = simulate::prepare(&common::workspace().join("models/patu-pvg32.toml")).unwrap();
    let fmu = Fmu::load(&prepared.fmu).unwrap();
    (prepared, fmu)
}

fn options(params: &[&str], threads: usize) -> sweep::Options {
    sweep::Options {
        ranges: params.iter().map(|p| Range::parse(p).unwrap()).collect(),
        sampling: None,
        run: simulate::Options {
            stop_time: 1.0,
            vars: vec!["lift_cylinder.p_cap".into(), "lift.angle".into()],
            ..Default::default()
        },
        threads,
        progress: false,
        trajectories: false,
        variants: None,
    }
}

#[test]
fn two_threads_give_the_rows_of_one_and_the_payload_weighs_linearly() {
    let (_p, fmu) = patu();
    let o = options(&["payload.mass=100..400:7"], 1);
    let one = sweep::run(&fmu, &o).unwrap();
    let two = sweep::run(&fmu, &sweep::Options { threads: 2, ..o }).unwrap();
    assert_eq!((one.threads, two.threads), (1, 2));
    assert_eq!(one.failures(), 0);
    // Bit for bit: each case is its own instance, whatever thread ran it.
    assert_eq!(one.to_csv(), two.to_csv());
    println!(
        "7 cases of 1 s: {:.3} s on 1 thread, {:.3} s on 2; {:.1} ms per case",
        one.wall.as_secs_f64(),
        two.wall.as_secs_f64(),
        1e3 * one.median_case_seconds()
    );
    // The crane held still by its oil: the lift cap pressure carries the payload's weight,
    // so it grows linearly with the mass (equal steps of 50 kg, equal steps of pressure;
    // the pose moves by the oil's compliance only).
    let p: Vec<f64> = one.cases.iter().map(|c| c.statistics[0][0]).collect();
    let steps: Vec<f64> = p.windows(2).map(|w| w[1] - w[0]).collect();
    println!(
        "p_cap at the end [bar]: {:?}",
        p.iter().map(|v| v / 1e5).collect::<Vec<_>>()
    );
    assert!(steps.iter().all(|d| *d > 0.0), "{steps:?}");
    let mean = steps.iter().sum::<f64>() / steps.len() as f64;
    assert!(
        steps.iter().all(|d| (d - mean).abs() < 0.02 * mean),
        "{steps:?}"
    );
}

#[test]
fn monte_carlo_payloads_lie_on_the_grid_line() {
    use model_compiler::sweep::grid::{Distribution, Sampling};
    // The grid's two ends give the line p_cap(m); 8 payloads drawn from normal(250, 50)
    // on 2 threads, reproducibly, fall on it (the held crane is linear in its payload).
    let (_p, fmu) = patu();
    let ends = sweep::run(&fmu, &options(&["payload.mass=100,400"], 2)).unwrap();
    let (p100, p400) = (
        ends.cases[0].statistics[0][0],
        ends.cases[1].statistics[0][0],
    );
    let mut o = options(&["payload.mass=normal(250, 50)"], 2);
    o.sampling = Some(Sampling {
        samples: 8,
        distribution: Distribution::Uniform,
        seed: 3,
    });
    let a = sweep::run(&fmu, &o).unwrap();
    assert_eq!(a.to_csv(), sweep::run(&fmu, &o).unwrap().to_csv());
    for c in &a.cases {
        let m = c.values[0];
        let line = p100 + (p400 - p100) * (m - 100.0) / 300.0;
        let p = c.statistics[0][0];
        println!(
            "m {m:.1} kg: p_cap {:.3} bar, line {:.3} bar",
            p / 1e5,
            line / 1e5
        );
        assert!((p - line).abs() < 0.005 * line, "{m}: {p} vs {line}");
    }
}

#[test]
fn the_csv_has_a_row_per_case_with_its_values_and_statistics() {
    let (_p, fmu) = patu();
    let s = sweep::run(&fmu, &options(&["payload.mass=150,250"], 2)).unwrap();
    let csv = s.to_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].starts_with(
        "\"case\",\"payload.mass\",\"status\",\"message\",\"lift_cylinder.p_cap.final\""
    ));
    assert!(lines[1].starts_with("0,150.0,ok,\"\","));
    assert!(lines[2].starts_with("1,250.0,ok,\"\","));
    // min ≤ rms-free checks: final within [min, max].
    for c in &s.cases {
        for [last, min, max, rms] in &c.statistics {
            assert!(min <= last && last <= max && *rms >= 0.0);
        }
    }
}

#[test]
fn a_failing_case_keeps_its_row_and_reason() {
    // A communication step the FMU refuses for one case only: the solver's own step made
    // larger than the master's step is fine; a step of zero is refused at set time.
    let (_p, fmu) = patu();
    let s = sweep::run(&fmu, &options(&["solver.step=0,0.001"], 2)).unwrap();
    println!("{:?}", s.cases[0].failure);
    assert_eq!(s.failures(), 1);
    assert!(s.cases[0].failure.is_some() && s.cases[1].failure.is_none());
    assert!(s.cases[0].statistics.iter().flatten().all(|v| v.is_nan()));
}

#[test]
fn bad_sweeps_are_refused_before_any_case() {
    let (_p, fmu) = patu();
    for (param, expect) in [
        ("payload.mas=100,200", "did you mean 'payload.mass'"),
        ("lift.angle=1,2", "only parameters and inputs"),
        ("lift_valve.command=0..12V:3", "above the maximum 11.6"),
        // A mass declares min 0 by its nature (the description gives no bounds).
        ("payload.mass=-100..100:3", "below the minimum 0"),
    ] {
        let e = sweep::run(&fmu, &options(&[param], 1)).unwrap_err();
        println!("{param}: {e}");
        assert!(e.contains(expect), "{param}: {e}");
    }
    // The FMU itself refuses it at fmi2SetReal (another master need not check bounds).
    let run = simulate::Options {
        stop_time: 0.1,
        set: vec!["payload.mass=-5".into()],
        ..Default::default()
    };
    let (_, e) = simulate::run_loaded(&fmu, &run).unwrap_err();
    println!("--set payload.mass=-5: {e}");
    assert!(e.contains("fmi2SetReal") && e.contains("Error"), "{e}");
    let mut o = options(&["payload.mass=100,200"], 1);
    o.ranges.push(Range::parse("payload.mass=300").unwrap());
    assert!(sweep::run(&fmu, &o).unwrap_err().contains("given twice"));
}

/// Design variants: `--param lift_cylinder.bore=90..110mm:3` on the description (no FMU
/// parameter reaches a bore). Each case runs the same loaded FMU with a variant model file;
/// the held crane's cylinder force p1·A1 − p2·A2 is the same for every bore (the load and
/// the pose do not change), and the variant with the description's own bore gives the
/// plain FMU's row bit for bit.
#[test]
fn description_fields_are_swept_as_design_variants() {
    use model_compiler::fit::field::Document;
    use model_compiler::sweep::variants::Variants;
    let (_p, fmu) = patu();
    let path = common::workspace().join("models/patu-pvg32.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = Document::parse(&path.display().to_string(), &text).unwrap();
    let variants = std::sync::Arc::new(Variants::new(doc, &fmu.description.guid).unwrap());
    let mut o = options(
        &["lift_cylinder.bore=90..110mm:3", "payload.mass=211.431"],
        2,
    );
    o.run.vars.push("lift_cylinder.p_rod".into());
    o.variants = Some(variants.clone());
    let s = sweep::run(&fmu, &o).unwrap();
    assert_eq!(s.failures(), 0, "{:?}", s.cases[0].failure);
    let rod = 0.056f64;
    let forces: Vec<f64> = s
        .cases
        .iter()
        .map(|c| {
            let bore = c.values[0];
            let a1 = std::f64::consts::PI / 4.0 * bore * bore;
            let a2 = a1 - std::f64::consts::PI / 4.0 * rod * rod;
            c.statistics[0][0] * a1 - c.statistics[2][0] * a2
        })
        .collect();
    println!(
        "bores {:?}: p1 {:?} Pa, force {forces:?} N",
        s.cases.iter().map(|c| c.values[0]).collect::<Vec<_>>(),
        s.cases
            .iter()
            .map(|c| c.statistics[0][0])
            .collect::<Vec<_>>()
    );
    for f in &forces {
        assert!((f - forces[1]).abs() < 1e-6 * forces[1], "{forces:?}");
    }
    // p1 falls with the bore (0.09 → 0.11 m: 81.5 → 54.8 bar).
    assert!(s.cases[0].statistics[0][0] > s.cases[2].statistics[0][0]);
    // The description's own bore through a variant file = the FMU as built.
    let plain = sweep::run(&fmu, &options(&["payload.mass=211.431"], 1)).unwrap();
    let mut o = options(&["lift_cylinder.bore=100mm", "payload.mass=211.431"], 1);
    o.variants = Some(variants.clone());
    let variant = sweep::run(&fmu, &o).unwrap();
    assert_eq!(variant.cases[0].statistics, plain.cases[0].statistics);
    // Bad variants are refused before any case: a zero bore (the description's own
    // check), a field that does not exist.
    let mut o = options(&["lift_cylinder.bore=0..100mm:2"], 1);
    o.variants = Some(variants.clone());
    let e = sweep::run(&fmu, &o).unwrap_err();
    assert!(e.contains("with 0") && e.contains("bore"), "{e}");
    let mut o = options(&["lift_cylinder.bor=90mm"], 1);
    o.variants = Some(variants);
    let e = sweep::run(&fmu, &o).unwrap_err();
    assert!(e.contains("did you mean 'lift_cylinder.bore'"), "{e}");
}

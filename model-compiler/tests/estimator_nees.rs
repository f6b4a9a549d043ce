//! Consistency of the estimator (issue 19): the normalized estimation error squared
//! NEES = eᵀ P⁻¹ e over Monte Carlo runs, against its χ² bounds (Bar-Shalom, Li,
//! Kirubarajan, "Estimation with Applications to Tracking and Navigation", §5.4).
//!
//! The truth must be what the filter assumes: the nominal model whose only unknown is a
//! load on the crank that wanders as a random walk of the filter's own intensity, from a
//! start drawn with the filter's initial σ. It is the Pub I four-bar compiled with the
//! same `[estimator]` but no sensor (nothing to estimate: its load slot is a plant
//! disturbance the test sets). A filter whose covariance is right gives an average NEES
//! over N runs that stays, at 95 % of the instants, inside the two-sided 95 % interval of
//! χ²(N·n)/N.

mod common;

use common::Machine;
use common::estimation::{Noise, compiled_estimator, model_text};
use fmu_runtime::model::ParamId;
use nalgebra::{DMatrix, DVector};

const FOURBAR: &str = "jaiswal-fourbar.toml";
const H: f64 = 1e-3;
/// Load intensity [N·m/√s] and initial σ [N·m] (our choice: a few % of the crank's
/// gravity torque).
const LOAD_NOISE: f64 = 50.0;
const LOAD_SIGMA: f64 = 200.0;

/// The estimator: the thesis's set 1 (encoder + p1–p3) and the load error, with the other
/// plant noise tiny (the truth has none) but for `pressure_noise` [bar/√s], and the initial
/// state known (the truth starts where the model does).
fn estimator_text(sensors: bool, pressure_noise: f64) -> String {
    let mut t = format!(
        r#"
[estimator]
acceleration_noise = 1e-6
pressure_noise = "{pressure_noise} bar"
initial_coordinate_sigma = 1e-9
initial_rate_sigma = 1e-9
initial_pressure_sigma = "1 Pa"
load_noise = {LOAD_NOISE}
initial_load_sigma = {LOAD_SIGMA}
"#
    );
    if sensors {
        for (name, measures, sigma) in [
            ("crank", "O.q", "0.05 deg"),
            ("p1", "hose.p", "0.5 bar"),
            ("p2", "cap_side.p", "0.5 bar"),
            ("p3", "rod_side.p", "0.5 bar"),
        ] {
            t += &format!(
                "\n[[estimator.sensors]]\nname = \"{name}\"\nmeasures = \"{measures}\"\nsigma = \"{sigma}\"\n"
            );
        }
    }
    format!("{}\n{t}", model_text(FOURBAR))
}

/// The filter's state of a machine: its ODE states (the estimator's first `n`) and its
/// load.
fn state(m: &mut Machine, n: usize, load: ParamId) -> DVector<f64> {
    let len = m.inst.ode_len().unwrap();
    let mut x = vec![0.0; len];
    m.inst.ode_states(&mut x).unwrap();
    let mut v: Vec<f64> = x[..n].to_vec();
    v.push(m.inst.params()[load.index()]);
    DVector::from_vec(v)
}

/// eᵀ P⁻¹ e over the states `keep`, scaled to P's unit diagonal (radians and pascals).
fn nees(p: &DMatrix<f64>, e: &DVector<f64>, keep: &[usize]) -> f64 {
    let m = keep.len();
    let d: Vec<f64> = keep.iter().map(|&i| p[(i, i)].sqrt()).collect();
    let ps = DMatrix::from_fn(m, m, |a, b| p[(keep[a], keep[b])] / (d[a] * d[b]));
    let es = DVector::from_fn(m, |a, _| e[keep[a]] / d[a]);
    let chol = ps.cholesky().expect("a positive definite covariance");
    es.dot(&chol.solve(&es))
}

/// One Monte Carlo run: per instant the NEES of the crank's angle, rate and load, and of
/// every state with a variance (the spool has none, in the truth as in the filter) and
/// how many those are.
fn run(seed: u64, steps: usize, pressure_noise: f64) -> Vec<(f64, f64, usize)> {
    let (mut est, spec) = compiled_estimator(&estimator_text(true, pressure_noise));
    let (mut truth, _) = compiled_estimator(&estimator_text(false, pressure_noise));
    est.inst.initialize(0.0).unwrap();
    truth.inst.initialize(0.0).unwrap();
    assert!(truth.inst.estimator().is_none());
    // The load on the independent coordinate the estimator chose, in both.
    let e = est.inst.estimator().unwrap();
    assert_eq!(e.errors(), 1);
    let (dim, load_est) = (e.len(), e.error_slot(0));
    let n = dim - 1;
    let name = &est.inst.model().params[load_est.index()].name;
    let load_truth = truth
        .inst
        .model()
        .params
        .iter()
        .position(|p| &p.name == name)
        .map(|i| ParamId(i as u32))
        .unwrap();
    let mechanical = [0, 1, n];
    let mut noise = Noise(seed);
    let mut tau = LOAD_SIGMA * noise.normal();
    let mut out = Vec::with_capacity(steps);
    for k in 1..=steps {
        let t = k as f64 * H;
        for m in [&mut truth, &mut est] {
            m.set("valve.command", common::pub1_command(t - H));
        }
        truth.inst.set_param(load_truth, tau);
        truth.inst.advance(t).unwrap();
        for s in &spec.sensors {
            let sigma = est.inst.params()[s.sigma.index()];
            let v = truth.inst.probe(s.probe) + sigma * noise.normal();
            est.inst.set_param(s.value, v);
            est.inst.set_param(s.valid, 1.0);
        }
        est.inst.advance(t).unwrap();
        let err = state(&mut truth, n, load_truth) - state(&mut est, n, load_est);
        let p = DMatrix::from_row_slice(dim, dim, est.inst.estimator().unwrap().covariance());
        let all: Vec<usize> = (0..dim).filter(|&i| p[(i, i)] > 0.0).collect();
        out.push((nees(&p, &err, &mechanical), nees(&p, &err, &all), all.len()));
        tau += LOAD_NOISE * H.sqrt() * noise.normal();
    }
    out
}

/// The p-quantile of χ²(k) (Wilson–Hilferty; within 0.1 % for k ≥ 50).
fn chi2_quantile(k: f64, z: f64) -> f64 {
    let a = 2.0 / (9.0 * k);
    k * (1.0 - a + z * a.sqrt()).powi(3)
}

/// Average NEES over the runs at each instant: its mean over time, the number of states,
/// and the fractions of instants below, inside and above the 95 % interval.
fn statistics(runs: &[Vec<(f64, f64, usize)>], mechanical: bool) -> (f64, f64, [f64; 3]) {
    let (r, steps) = (runs.len() as f64, runs[0].len());
    let pick = |x: &(f64, f64, usize)| if mechanical { (x.0, 3) } else { (x.1, x.2) };
    let n = pick(&runs[0][0]).1 as f64;
    let (lo, hi) = (
        chi2_quantile(r * n, -1.959964) / r,
        chi2_quantile(r * n, 1.959964) / r,
    );
    let (mut mean, mut count) = (0.0, [0.0; 3]);
    for k in 0..steps {
        let avg = runs.iter().map(|run| pick(&run[k]).0).sum::<f64>() / r;
        mean += avg / steps as f64;
        count[if avg < lo {
            0
        } else if avg > hi {
            2
        } else {
            1
        }] += 1.0 / steps as f64;
    }
    println!(
        "{} runs, {n} states: average NEES {mean:.2}; below / inside / above [{lo:.2}, {hi:.2}]: {:.1} / {:.1} / {:.1} % of {steps} instants",
        runs.len(),
        100.0 * count[0],
        100.0 * count[1],
        100.0 * count[2]
    );
    (mean, n, count)
}

#[test]
fn nees_of_the_crank_and_its_load_stays_within_its_chi2_bounds() {
    // Measured: 24 runs of 2 s, average NEES 2.89 for 3 states; inside the 95 % interval
    // at 92.2 % of the instants, below at 4.4 %, above at 3.4 %.
    let runs: Vec<_> = (0..24).map(|r| run(0x1000 + r, 2000, 1e-6)).collect();
    let (mean, n, [_, inside, _]) = statistics(&runs, true);
    assert!(inside > 0.9, "{inside}");
    assert!((mean - n).abs() < 0.15 * n, "{mean}");
}

#[test]
fn with_a_little_pressure_noise_the_whole_state_is_never_overconfident() {
    // Over every state with a variance, with no pressure plant noise the filter is
    // consistent while the valve is closed (average NEES 4.2–5.7 for 6 states over the
    // first second) but overconfident while oil flows through it (up to 155): what the
    // linearised orifice misses over a 1 ms step, in pressures the filter then knows to a
    // fraction of a pascal. σ_p = 0.01 bar/√s (not in the truth) covers it: NEES 3.48 for
    // 6 states, conservative, above the interval at no instant.
    let runs: Vec<_> = (0..24).map(|r| run(0x2000 + r, 2000, 0.01)).collect();
    let (mean, n, [_, _, above]) = statistics(&runs, false);
    assert!(mean < n, "{mean}");
    assert!(above < 0.05, "{above}");
}

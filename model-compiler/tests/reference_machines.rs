//! Physics validation of the shipped reference machines (`models/*.toml`), compiled by the
//! real compiler and run in-process through the same `Instance` API the FMU wraps.
//! Numbers quoted from the seeds are marked with their source.

mod common;

use common::{Machine, compile};
use fmu_runtime::model::{CompiledModel, TangentMethod};

/// Largest |a_i − b_i|.
fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

fn with_step(file: &str, step: f64) -> CompiledModel {
    let mut m = compile(file);
    let id = m.solver.step;
    m.params[id.index()].default = step;
    m
}

// ---------------------------------------------------------------------------------------
// Seed 002 (Naya et al. 2011) rod
// ---------------------------------------------------------------------------------------

/// Spool schedule of seed 002 eq 38.
fn naya_kappa(k0: f64, t: f64) -> f64 {
    if t <= 2.0 + 1e-9 {
        k0
    } else if t <= 6.0 + 1e-9 {
        k0 - 0.01
    } else {
        k0 + 0.01
    }
}

struct NayaRun {
    length: Vec<f64>,
    p_a: Vec<f64>,
    p_b: Vec<f64>,
    iterations: Vec<f64>,
    balance: Vec<f64>,
    phi: Vec<f64>,
}

/// 10 s of the paper's manoeuvre, sampled every 10 ms, with internal step `step`.
fn naya_run(step: f64) -> NayaRun {
    naya_run_with(with_step("naya-rod.toml", step))
}

fn naya_run_with(model: CompiledModel) -> NayaRun {
    let mut m = Machine::from_model(model);
    let k0 = m.start("valve.command");
    m.inst.initialize(0.0).unwrap();
    let mut r = NayaRun {
        length: vec![],
        p_a: vec![],
        p_b: vec![],
        iterations: vec![],
        balance: vec![],
        phi: vec![],
    };
    for k in 0..=1000 {
        r.length.push(m.get("cylinder.length"));
        r.p_a.push(m.get("cylinder.p_a"));
        r.p_b.push(m.get("cylinder.p_b"));
        r.iterations.push(m.get("solver.iterations"));
        r.balance.push(m.get("energy.balance_error"));
        r.phi.push(m.get("constraints.phi_norm"));
        if k < 1000 {
            let t = k as f64 * 0.01;
            m.set("valve.command", naya_kappa(k0, t + 0.01));
            m.inst.advance(t + 0.01).unwrap();
        }
    }
    r
}

/// Independent reference: the same machine in its one minimal coordinate θ with the two
/// chamber pressures (seed 002 eqs 29, 34 rewritten for θ), integrated by classical RK4
/// at 10 µs. Shares nothing with the solver but the orifice law.
fn naya_reference(k0: f64) -> Vec<(f64, f64, f64)> {
    let (m, mt, l, g) = (200.0, 250.0, 1.0, 9.81);
    let (area, c, cd, rho, pp, pt) = (0.0065, 1e5, 0.67, 850.0f64, 7.6e6, 0.1e6);
    let i_a = m * l * l / 3.0 + mt * l * l;
    let bx = 3f64.sqrt() / 2.0;
    let (a, b) = (6.53e-10, -1.19e-18);
    let beta = |p: f64| (1.0 + a * p + b * p * p) / (a + 2.0 * b * p);
    let kq = cd * (2.0 / rho).sqrt();
    let q = |ar: f64, dp: f64| fmu_runtime::hydraulics::orifice::turbulent_flow(ar * kq, dp, 2e5);
    let f = |t: f64, y: [f64; 4]| -> [f64; 4] {
        let [th, w, p1, p2] = y;
        let kappa = naya_kappa(k0, t);
        let (ai, ao) = (0.0005 * kappa, 0.0005 * (1.0 - kappa));
        let (px, py) = (0.5 * th.cos(), 0.5 * th.sin());
        let (dx, dy) = (px - bx, py);
        let s = (dx * dx + dy * dy).sqrt();
        let (vx, vy) = (-py * w, px * w);
        let sd = (dx * vx + dy * vy) / s;
        let force = (p2 - p1) * area - c * sd;
        let torque = (px * dy - py * dx) * force / s - (m * 0.5 + mt) * g * th.cos();
        let (l1, l2) = (0.221 + 0.5 - s, 0.221 + s - 0.5);
        let dp1 = beta(p1) / (area * l1) * (area * sd + q(ai, pp - p1) - q(ao, p1 - pt));
        let dp2 = beta(p2) / (area * l2) * (-area * sd + q(ao, pp - p2) - q(ai, p2 - pt));
        [w, torque / i_a, dp1, dp2]
    };
    // Closed-form equilibrium of eq 32 (β drops out): r = κ/(1 − κ).
    let r2 = (k0 / (1.0 - k0)).powi(2);
    let mut y = [
        std::f64::consts::FRAC_PI_6,
        0.0,
        (r2 * pp + pt) / (1.0 + r2),
        (pp + r2 * pt) / (1.0 + r2),
    ];
    let dt = 1e-5;
    let length = |th: f64| ((0.5 * th.cos() - bx).powi(2) + (0.5 * th.sin()).powi(2)).sqrt();
    let mut out = vec![];
    for i in 0..=1_000_000usize {
        if i % 1000 == 0 {
            out.push((length(y[0]), y[2], y[3]));
        }
        // The command of the interval (t, t + dt] is the one at its end, as in the FMU run.
        let te = (i + 1) as f64 * dt;
        let add = |y: [f64; 4], k: [f64; 4], h: f64| {
            std::array::from_fn::<f64, 4, _>(|j| y[j] + h * k[j])
        };
        let k1 = f(te, y);
        let k2 = f(te, add(y, k1, dt / 2.0));
        let k3 = f(te, add(y, k2, dt / 2.0));
        let k4 = f(te, add(y, k3, dt));
        for j in 0..4 {
            y[j] += dt / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]);
        }
    }
    out
}

#[test]
fn naya_rod_equilibrium_matches_closed_form() {
    // Seed 002 eq 32, closed form (digest §3.3): κ0 = 0.4646082, p1 = 3.321769 MPa,
    // p2 = 4.378231 MPa, (2M + m) g = 6867 N.
    let mut m = Machine::load("naya-rod.toml");
    let k0 = m.start("valve.command");
    assert!((k0 - 0.4646082).abs() < 1e-7, "κ0 = {k0}");
    m.inst.initialize(0.0).unwrap();
    assert!((m.get("cylinder.p_a") - 3.321769e6).abs() < 1.0);
    assert!((m.get("cylinder.p_b") - 4.378231e6).abs() < 1.0);
    assert!(
        (m.get("cylinder.force") - 6867.0).abs() < 0.01,
        "{}",
        m.get("cylinder.force")
    );
    assert!((m.get("cylinder.length") - 0.5).abs() < 1e-12);
    assert!((m.get("rod.angle") - std::f64::consts::FRAC_PI_6).abs() < 1e-12);
}

#[test]
fn naya_rod_manoeuvre_at_the_papers_step() {
    // Newton as in the paper: a fresh tangent every step, exact (forward differences).
    let mut paper = with_step("naya-rod.toml", 0.01);
    paper.solver.reuse_tangent = false;
    paper.solver.tangent = TangentMethod::FiniteDifference;
    let r = naya_run_with(paper.clone());
    // Static equilibrium holds over the first 2 s.
    let drift = r.length[..=200]
        .iter()
        .map(|s| (s - 0.5).abs())
        .fold(0.0, f64::max);
    assert!(drift <= 1e-6, "equilibrium drift {drift} m");
    println!(
        "naya-rod length at 2, 6, 10 s: {:.5} {:.5} {:.5} m",
        r.length[200], r.length[600], r.length[1000]
    );
    // Rises between 2 and 6 s, lowers after (eq 38 directions).
    assert!(r.length[600] > r.length[200] + 0.01 && r.length[1000] < r.length[600] - 0.01);
    // Newton: seed 002 reports 1 iteration in steady phases and 2–3 at the spool steps.
    let max_it = r.iterations.iter().cloned().fold(0.0, f64::max);
    let steady = r.iterations[100..200].iter().cloned().fold(0.0, f64::max);
    // Energy: seed 002 Fig 8 shows about 1 J of drift; the issue allows 2 J.
    let energy = r.balance.iter().map(|v| v.abs()).fold(0.0, f64::max);
    let phi = r.phi.iter().cloned().fold(0.0, f64::max);
    println!(
        "naya-rod 10 ms, fresh tangent: equilibrium drift {drift:.2e} m, iterations steady {steady} max {max_it}, energy drift {energy:.3} J, |Φ| {phi:.1e}"
    );
    assert!(max_it <= 3.0 && steady <= 1.0);
    assert!(energy <= 2.0);
    assert!(phi < 1e-7);
    // The assembled tangent is the paper's own approximate one (seed 002 eq 26: M, the
    // penalty term, C and K of the actuator; no geometric terms): one iteration in steady
    // phases as the paper reports, at most one more than the exact tangent at the spool
    // steps (our per-unknown tolerances are tighter than the paper's ‖Δx‖₂ < 1e-5), and the
    // same motion to within the tolerances.
    paper.solver.tangent = TangentMethod::Assembled;
    let assembled = naya_run_with(paper);
    let max_assembled = assembled.iterations.iter().cloned().fold(0.0, f64::max);
    let steady_assembled = assembled.iterations[100..200]
        .iter()
        .cloned()
        .fold(0.0, f64::max);
    let diff = max_difference(&assembled.length, &r.length);
    println!(
        "naya-rod 10 ms, fresh assembled tangent: iterations steady {steady_assembled} max \
         {max_assembled}, max |Δ length| vs the exact tangent {diff:.2e} m"
    );
    assert!(max_assembled <= max_it + 1.0 && steady_assembled <= 1.0);
    assert!(diff < 1e-7);
    // The shipped default keeps the tangent across steps: same motion, a few more (cheap)
    // iterations at the spool steps.
    let fast = naya_run(0.01);
    let max_fast = fast.iterations.iter().cloned().fold(0.0, f64::max);
    let diff = max_difference(&fast.length, &r.length);
    println!(
        "naya-rod 10 ms, reused tangent: iterations max {max_fast}, max |Δ length| vs fresh tangent {diff:.2e} m"
    );
    assert!(max_fast <= 8.0);
    // Each step converges to within the tolerances either way; over 1000 steps that
    // accumulates to ~1e-8 m, four orders below the discretisation error.
    assert!(
        diff < 1e-7,
        "the tangent policy must not change the solution beyond the tolerances"
    );
}

#[test]
fn naya_rod_converges_and_matches_the_reference() {
    let k0 = compile("naya-rod.toml")
        .variables
        .iter()
        .find(|v| v.name == "valve.command")
        .unwrap()
        .start
        .unwrap();
    let reference = naya_reference(k0);
    let mut errors = vec![];
    let runs: Vec<NayaRun> = [0.01, 0.001, 0.0001].iter().map(|&h| naya_run(h)).collect();
    for (run, h) in runs.iter().zip([0.01, 0.001, 0.0001]) {
        let (mut el, mut ep) = (0.0f64, 0.0f64);
        for (i, (s, p1, p2)) in reference.iter().enumerate() {
            el = el.max((run.length[i] - s).abs());
            ep = ep.max((run.p_a[i] - p1).abs()).max((run.p_b[i] - p2).abs());
        }
        println!(
            "naya-rod step {h}: max |Δ cylinder.length| = {el:.3e} m, max |Δp| = {ep:.3e} Pa vs the RK4 reference"
        );
        errors.push((el, ep));
    }
    let d = |a: &NayaRun, b: &NayaRun| {
        a.length
            .iter()
            .zip(&b.length)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    };
    println!(
        "naya-rod self-convergence: |10 ms − 1 ms| = {:.3e} m, |1 ms − 0.1 ms| = {:.3e} m",
        d(&runs[0], &runs[1]),
        d(&runs[1], &runs[2])
    );
    // The error is dominated by the spool steps of eq 38 (a jump inside a trapezoidal
    // step), so it falls like h, and steadily.
    assert!(
        errors[0].0 < 2e-4 && errors[0].1 < 5e4,
        "10 ms: {:?}",
        errors[0]
    );
    assert!(
        errors[1].0 < 2e-5 && errors[1].1 < 5e3,
        "1 ms: {:?}",
        errors[1]
    );
    assert!(
        errors[2].0 < errors[1].0 / 5.0,
        "0.1 ms does not converge further: {errors:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Seed 001 Publication I four-bar
// ---------------------------------------------------------------------------------------

use common::pub1_command;

#[test]
fn jaiswal_fourbar_pub1_cycle() {
    // Newton as in the thesis (a fresh tangent every step) for the iteration comparison.
    // An iteration is one residual evaluation, one solve and one update; the step has
    // converged when that update is within the tolerances, and the count includes it (the
    // thesis' "1 iteration" steps are a predictor and one converged correction).
    let mut fresh = compile("jaiswal-fourbar.toml");
    fresh.solver.reuse_tangent = false;
    let mut f = Machine::from_model(fresh);
    f.inst.initialize(0.0).unwrap();
    let e0 = f.get("energy.total");
    let (mut sum_f, mut max_f, mut drift_f) = (0.0, 0.0f64, 0.0f64);
    for k in 0..10000 {
        let t = k as f64 * 0.001;
        f.set("valve.command", pub1_command(t + 0.001));
        f.inst.advance(t + 0.001).unwrap();
        let it = f.get("solver.iterations");
        sum_f += it;
        max_f = max_f.max(it);
        let balance = f.get("energy.total") - e0 - f.get("energy.actuator_work");
        drift_f = drift_f.max(balance.abs());
    }
    println!(
        "jaiswal-fourbar, fresh tangent per step: iterations avg {:.3} max {max_f} (thesis \
         1.56/4), peak energy drift {drift_f:.4} J",
        sum_f / 1e4
    );
    // Issue 16: mean ≤ 2.0 (3.13 through the FMU before the multiplier coupling and the
    // second-order predictor), max ≤ 5, energy drift ≤ 0.1 J.
    assert!(sum_f / 1e4 <= 2.0 && max_f <= 5.0);
    assert!(drift_f <= 0.1, "energy drift {drift_f} J");
    // …and the shipped default (tangent kept across steps: more but cheaper iterations).
    let mut m = Machine::load("jaiswal-fourbar.toml");
    m.inst.initialize(0.0).unwrap();
    // Static start (seed 001 digest §3.1): F0 = 11029.4 N, p1 = p2 = (F0 + A3 p3)/A2 = 5.024 MPa.
    assert!((m.get("cylinder.p_rod") - 3.5e6).abs() < 1.0);
    assert!(
        (m.get("cylinder.p_cap") - 5.0243e6).abs() < 100.0,
        "{}",
        m.get("cylinder.p_cap")
    );
    assert!((m.get("hose.p") - m.get("cylinder.p_cap")).abs() < 1e-3);
    assert!((m.get("cylinder.length") - 2f64.sqrt()).abs() < 1e-12);
    let e0 = m.get("energy.total");
    let (mut sum_it, mut max_it, mut drift, mut max_work, mut phi) =
        (0.0, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut switching = vec![];
    let mut lift_top = 0.0f64;
    for k in 0..10000 {
        let t = k as f64 * 0.001;
        let before = pub1_command(t);
        let u = pub1_command(t + 0.001);
        m.set("valve.command", u);
        m.inst.advance(t + 0.001).unwrap();
        let it = m.get("solver.iterations");
        sum_it += it;
        max_it = max_it.max(it);
        let balance = m.get("energy.total") - e0 - m.get("energy.actuator_work");
        drift = drift.max(balance.abs());
        max_work = max_work.max(m.get("energy.actuator_work").abs());
        phi = phi.max(m.get("constraints.phi_norm"));
        if u != before {
            switching.push((
                t + 0.001,
                u,
                m.get("hose.p"),
                m.get("cylinder.p_cap"),
                m.get("cylinder.p_rod"),
                it,
            ));
        }
        if (2.4..2.5).contains(&t) {
            lift_top = lift_top.max(m.get("crank.angle"));
        }
    }
    println!(
        "jaiswal-fourbar, kept tangent: iterations avg {:.2} max {max_it}; peak energy drift {drift:.3} J = {:.3} % of max |actuator work| {max_work:.1} J (thesis 0.84 J = 0.09 % of 982.95 J); max |Φ| {phi:.2e}; crank lifted {lift_top:.4} rad",
        sum_it / 1e4,
        100.0 * drift / max_work
    );
    for (t, u, p1, p2, p3, it) in &switching {
        println!(
            "  valve switch to {u:+} V at {t:.3} s: p1 {:.3} MPa, p2 {:.3} MPa, p3 {:.3} MPa, {it} iterations",
            p1 / 1e6,
            p2 / 1e6,
            p3 / 1e6
        );
    }
    // Issue 16: mean ≤ 2.0 on the shipped default too (2.21 before the trapezoidal
    // predictor and the loop refresh of a kept tangent's first update).
    assert!(
        sum_it / 1e4 <= 2.0,
        "kept tangent: {} iterations per step",
        sum_it / 1e4
    );
    // …and max ≤ 5 (7 before a volume's compliance change and the step's iteration budget
    // formed the kept tangent again, `solver/newton.rs`).
    assert!(
        max_it <= 5.0,
        "kept tangent: worst step {max_it} iterations"
    );
    assert!(drift < 0.01 * max_work, "energy drift {drift} J");
    assert!(phi < 1e-6);
    assert!(lift_top > 0.05, "the crank should lift (Pub I work cycle)");
}

// ---------------------------------------------------------------------------------------
// Seed 001 Publication II four-bar with the four seal-friction models
// ---------------------------------------------------------------------------------------

#[test]
fn jaiswal_fourbar_friction_models_pub2() {
    let names = ["Bengisu–Akay", "Brown–McPhee", "LuGre", "modified LuGre"];
    let mut cranks = vec![];
    for (k, name) in names.iter().enumerate() {
        let mut m = Machine::load("jaiswal-fourbar-friction.toml");
        assert_eq!(
            m.start("cylinder.friction_model"),
            1.0,
            "Brown–McPhee is the default"
        );
        m.set("cylinder.friction_model", k as f64);
        m.inst.initialize(0.0).unwrap();
        // Static start: the printed geometry holds the linkage in tension (see the model
        // file: Pub II's printed 681.23 N does not belong to this geometry).
        assert!(
            (m.get("cylinder.force") + 386.07).abs() < 0.05,
            "{}",
            m.get("cylinder.force")
        );
        assert!((m.get("cylinder.p_cap") - 2.7533e6).abs() < 100.0);
        let (mut sum, mut max_it, mut drift, mut work, mut peak_friction) =
            (0.0, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
        let mut crank = vec![];
        let start = std::time::Instant::now();
        for s in 0..10000 {
            let t = s as f64 * 0.001;
            m.set("valve.command", pub1_command(t + 0.001));
            m.inst
                .advance(t + 0.001)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let it = m.get("solver.iterations");
            sum += it;
            max_it = max_it.max(it);
            drift = drift.max(m.get("energy.balance_error").abs());
            work = work.max(m.get("energy.actuator_work").abs());
            peak_friction = peak_friction.max(m.get("cylinder.friction").abs());
            if (s + 1) % 1000 == 0 {
                crank.push(m.get("crank.angle"));
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "{name:>15}: iterations avg {:.2} max {max_it}, energy drift {drift:.3} J of max work {work:.1} J, peak friction {peak_friction:.0} N, {seconds:.3} s wall for 10 s",
            sum / 1e4
        );
        // The stiction event at t = 1.69 s takes the rod side through 1.2 bar, where the
        // entrained air (issue 14) makes it ten times softer: 8–12 iterations in that one
        // step, depending on where the event falls in it (12 for Bengisu–Akay since a new
        // valve command acts from the start of its step, issue 16; 8 before).
        assert!(max_it <= 12.0, "{name}");
        assert!(
            drift < 0.01 * work.max(10.0),
            "{name}: energy drift {drift} J"
        );
        // Stiction around 830 N must show up while the piston starts and stops.
        assert!(
            peak_friction > 500.0 && peak_friction < 2000.0,
            "{name}: peak friction {peak_friction}"
        );
        cranks.push(crank);
    }
    // Pub II: differences between the friction models are "relatively small".
    for c in &cranks[1..] {
        for (a, b) in c.iter().zip(&cranks[0]) {
            assert!((a - b).abs() < 0.01, "crank angles differ by {} rad", a - b);
        }
    }
}

#[test]
#[ignore = "cost probe, run by hand"]
fn probe_step_cost() {
    // Pub I cycle on the shipped four-bar: evaluations per step and the worst steps.
    let mut m = Machine::load("jaiswal-fourbar.toml");
    m.inst.initialize(0.0).unwrap();
    let mut worst = vec![];
    let e0 = m.inst.evaluations();
    for k in 0..10000 {
        let t = k as f64 * 0.001;
        m.set("valve.command", pub1_command(t + 0.001));
        let before = m.inst.evaluations();
        let t0 = std::time::Instant::now();
        m.inst.advance(t + 0.001).unwrap();
        let us = t0.elapsed().as_secs_f64() * 1e6;
        worst.push((
            m.inst.evaluations() - before,
            us,
            t + 0.001,
            m.get("solver.iterations"),
        ));
    }
    println!(
        "evaluations per step {:.2}",
        (m.inst.evaluations() - e0) as f64 / 1e4
    );
    let mut hist = std::collections::BTreeMap::new();
    for w in &worst {
        *hist.entry(w.0).or_insert(0) += 1;
    }
    println!("evaluations histogram {hist:?}");
    worst.sort_by_key(|w| std::cmp::Reverse(w.0));
    for w in worst.iter().take(8) {
        println!(
            "  {} evaluations, {:.1} µs at t = {:.3} s, {} iterations",
            w.0, w.1, w.2, w.3
        );
    }
}

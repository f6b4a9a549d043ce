//! Seed 002 (Naya et al. 2011) rod: equilibrium, spool steps, energy, and agreement with
//! an independent minimal-coordinate reference integrated by RK4 at a tiny step.

mod support;

use fmu_runtime::model::{ParamId, Probe};
use fmu_runtime::{CompiledModel, Instance};
use std::sync::Arc;

const A: f64 = 0.0065;

fn kappa0() -> f64 {
    let m = support::naya_rod(0.5, 0.01);
    let id = param(&m, "valve.command");
    fmu_runtime::solver::solve_equilibrium_parameters(&m, &[id]).unwrap()[0]
}

fn param(m: &CompiledModel, name: &str) -> ParamId {
    ParamId(m.params.iter().position(|p| p.name == name).unwrap() as u32)
}

/// Paper's schedule (eq 38).
fn schedule(k0: f64, t: f64) -> f64 {
    if t <= 2.0 + 1e-9 {
        k0
    } else if t <= 6.0 + 1e-9 {
        k0 - 0.01
    } else {
        k0 + 0.01
    }
}

struct Run {
    t: Vec<f64>,
    length: Vec<f64>,
    pa: Vec<f64>,
    pb: Vec<f64>,
    iterations: Vec<f64>,
    balance: Vec<f64>,
}

fn simulate(step: f64, comm: f64, stop: f64) -> Run {
    let k0 = kappa0();
    let m = Arc::new(support::naya_rod(k0, step));
    let cmd = param(&m, "valve.command");
    let mut inst = Instance::new(m.clone());
    inst.initialize(0.0).unwrap();
    let mut r = Run {
        t: vec![],
        length: vec![],
        pa: vec![],
        pb: vec![],
        iterations: vec![],
        balance: vec![],
    };
    let n = (stop / comm).round() as usize;
    for k in 0..=n {
        let t = k as f64 * comm;
        r.t.push(t);
        r.length.push(inst.probe(Probe::CylinderLength(0)));
        r.pa.push(inst.probe(Probe::NodePressure(2)));
        r.pb.push(inst.probe(Probe::NodePressure(3)));
        r.iterations.push(inst.probe(Probe::NewtonIterations));
        r.balance.push(inst.probe(Probe::EnergyBalanceError));
        if k < n {
            inst.set_param(cmd, schedule(k0, t + comm));
            inst.advance((k + 1) as f64 * comm).unwrap();
        }
    }
    r
}

#[test]
fn equilibrium_spool_matches_closed_form() {
    // Seed 002 §3.3 (derived closed form): κ0 = 0.4646082, p1 = 3.321769 MPa, p2 = 4.378231 MPa.
    let k0 = kappa0();
    assert!((k0 - 0.4646082).abs() < 2e-7, "κ0 = {k0}");
    let m = Arc::new(support::naya_rod(k0, 0.01));
    let mut inst = Instance::new(m);
    inst.initialize(0.0).unwrap();
    let (pa, pb) = (
        inst.probe(Probe::NodePressure(2)),
        inst.probe(Probe::NodePressure(3)),
    );
    assert!((pa - 3.321769e6).abs() < 10.0, "p1 = {pa}");
    assert!((pb - 4.378231e6).abs() < 10.0, "p2 = {pb}");
    assert!(((pb - pa) * A - 6867.0).abs() < 0.1);
    assert!((inst.probe(Probe::CylinderLength(0)) - 0.5).abs() < 1e-12);
}

#[test]
fn rod_holds_then_rises_and_lowers() {
    let r = simulate(0.01, 0.01, 10.0);
    for (t, s) in r.t.iter().zip(&r.length) {
        if *t <= 2.0 {
            assert!((s - 0.5).abs() < 1e-6, "drift {} at {t}", s - 0.5);
        }
    }
    let at = |t: f64| r.length[(t / 0.01).round() as usize];
    assert!(
        at(6.0) > at(2.0) + 0.01,
        "extends: {} → {}",
        at(2.0),
        at(6.0)
    );
    assert!(
        at(10.0) < at(6.0) - 0.01,
        "retracts: {} → {}",
        at(6.0),
        at(10.0)
    );
    let max_it = r.iterations.iter().cloned().fold(0.0, f64::max);
    let mut hist = [0usize; 30];
    for v in &r.iterations {
        hist[*v as usize] += 1;
    }
    println!("iteration histogram {:?}", &hist[..10]);
    for (i, v) in r.iterations.iter().enumerate() {
        if *v > 3.0 {
            println!("t={} it={}", r.t[i], v);
        }
    }
    assert!(max_it <= 4.0, "max iterations {max_it}");
    let drift = r.balance.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    println!("max iterations {max_it}, energy balance drift {drift} J");
    assert!(drift < 2.0, "energy drift {drift} J");
}

/// Minimal-coordinate model of the same machine: θ, ω, p1, p2, integrated by RK4.
fn reference(k0: f64, dt: f64, stop: f64, every: f64) -> Vec<(f64, f64, f64, f64)> {
    let (m, mt, l, g) = (200.0, 250.0, 1.0, 9.81);
    let i_a = m * l * l / 3.0 + mt * l * l;
    let bx = 3f64.sqrt() / 2.0;
    let (c, cd, rho, pp, pt) = (1e5, 0.67, 850.0, 7.6e6, 0.1e6);
    let (a, b) = (6.53e-10, -1.19e-18);
    let beta = |p: f64| (1.0 + a * p + b * p * p) / (a + 2.0 * b * p);
    let k = cd * (2.0f64 / rho).sqrt();
    let q =
        |area: f64, dp: f64| fmu_runtime::hydraulics::orifice::turbulent_flow(area * k, dp, 2e5);
    let f = |t: f64, y: [f64; 4]| -> [f64; 4] {
        let [th, w, p1, p2] = y;
        let kappa = schedule(k0, t);
        let (ai, ao) = (0.0005 * kappa, 0.0005 * (1.0 - kappa));
        let (px, py) = (0.5 * th.cos(), 0.5 * th.sin());
        let (dx, dy) = (px - bx, py);
        let s = (dx * dx + dy * dy).sqrt();
        let (vx, vy) = (-0.5 * th.sin() * w, 0.5 * th.cos() * w);
        let sd = (dx * vx + dy * vy) / s;
        let force = (p2 - p1) * A - c * sd;
        let torque = px * (force * dy / s) - py * (force * dx / s) - (m * 0.5 + mt) * g * th.cos();
        let l1 = 0.221 + 0.5 - s;
        let l2 = 0.221 + s - 0.5;
        let dp1 = beta(p1) / (A * l1) * (A * sd + q(ai, pp - p1) - q(ao, p1 - pt));
        let dp2 = beta(p2) / (A * l2) * (-A * sd + q(ao, pp - p2) - q(ai, p2 - pt));
        [w, torque / i_a, dp1, dp2]
    };
    let mut y = [std::f64::consts::PI / 6.0, 0.0, 3.321769e6, 4.378231e6];
    // Exact equilibrium pressures for κ0 from the closed form.
    let r2 = (k0 / (1.0 - k0)).powi(2);
    y[2] = (r2 * pp + pt) / (1.0 + r2);
    y[3] = (pp + r2 * pt) / (1.0 + r2);
    let mut out = vec![];
    let n = (stop / dt).round() as usize;
    let stride = (every / dt).round() as usize;
    let length = |th: f64| ((0.5 * th.cos() - bx).powi(2) + (0.5 * th.sin()).powi(2)).sqrt();
    for i in 0..=n {
        let t = i as f64 * dt;
        if i % stride == 0 {
            out.push((t, length(y[0]), y[2], y[3]));
        }
        // Keep the spool switch on a step boundary: schedule at the step's end time.
        let te = t + dt;
        let add = |y: [f64; 4], k: [f64; 4], h: f64| {
            [
                y[0] + h * k[0],
                y[1] + h * k[1],
                y[2] + h * k[2],
                y[3] + h * k[3],
            ]
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
fn agrees_with_minimal_coordinate_reference() {
    let k0 = kappa0();
    let refr = reference(k0, 1e-5, 10.0, 0.01);
    for (step, tol_len, tol_p) in [(0.01, 2e-4, 5e4), (0.001, 2e-5, 5e3)] {
        let run = simulate(step, 0.01, 10.0);
        let (mut el, mut ep) = (0.0f64, 0.0f64);
        for (i, (_, s, p1, p2)) in refr.iter().enumerate() {
            el = el.max((run.length[i] - s).abs());
            ep = ep.max((run.pa[i] - p1).abs()).max((run.pb[i] - p2).abs());
        }
        println!("step {step}: max |Δ length| = {el:.3e} m, max |Δp| = {ep:.3e} Pa");
        assert!(el < tol_len, "length error {el} at step {step}");
        assert!(ep < tol_p, "pressure error {ep} at step {step}");
    }
}

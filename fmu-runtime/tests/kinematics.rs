//! Mechanics against closed-form results: pendulum period, slider-crank and Grashof
//! four-bar position analysis, gyroscopic precession of a spinning top.

// Test-side references may use the platform libm: only the runtime must be bit-identical.
#![allow(clippy::disallowed_methods)]

mod support;

use fmu_runtime::Instance;
use fmu_runtime::mechanics::Kinematics;
use fmu_runtime::mechanics::constraints::{self, ConstraintEval};
use fmu_runtime::model::*;
use std::f64::consts::PI;
use std::sync::Arc;
use support::*;

fn mechanism_only(
    b: Builder,
    step: f64,
    bodies: Vec<Body>,
    cuts: Vec<CutJoint>,
    step_id: ParamId,
) -> CompiledModel {
    let mut b = b;
    let circuit = empty_circuit(&mut b);
    let mech = Mechanism {
        bodies,
        cut_joints: cuts,
        markers: vec![],
        forces: vec![],
        base: None,
        rotations: vec![],
        flexible: vec![],
        contacts: Default::default(),
    };
    model(b, step, mech, circuit, vec![], step_id, None)
}

#[test]
fn compound_pendulum_small_amplitude_period() {
    // Uniform rod of length L pivoted at one end: T = 2π √(2L/(3g)).
    let (l, m, g) = (1.2, 3.0, 9.81);
    let h = 1e-3;
    let mut b = Builder::new();
    let step = b.p("solver.step", h);
    let i = m * l * l / 12.0;
    // Hanging along −y at rest: body x axis points down through a −90° joint coordinate.
    let rod = body(
        &mut b,
        "rod",
        None,
        REV_Z,
        [0.0; 3],
        -PI / 2.0 + 0.01,
        m,
        [l / 2.0, 0.0, 0.0],
        [1e-9, i, i, 0.0, 0.0, 0.0],
    );
    let mut model = mechanism_only(b, h, vec![rod], vec![], step);
    // Released from 0.01 rad: held there by `init.hold`, not settled to hanging.
    model.init.hold = vec![0];
    let mut inst = Instance::new(Arc::new(model));
    inst.initialize(0.0).unwrap();
    let mut crossings = vec![];
    let mut prev = inst.probe(Probe::JointPosition(0)) + PI / 2.0;
    for k in 1..=6000 {
        inst.advance(k as f64 * h).unwrap();
        let x = inst.probe(Probe::JointPosition(0)) + PI / 2.0;
        if prev > 0.0 && x <= 0.0 {
            let t = (k as f64 - x / (x - prev)) * h; // linear interpolation of the crossing
            crossings.push(t);
        }
        prev = x;
    }
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let exact = 2.0 * PI * (2.0 * l / (3.0 * g)).sqrt();
    // Finite amplitude (0.01 rad) lengthens the period by θ0²/16 ≈ 6e-6 relative.
    assert!(
        (period / exact - 1.0).abs() < 2e-5,
        "period {period}, exact {exact}"
    );
    // Trapezoidal rule conserves energy of the linearised oscillator.
    assert!(inst.probe(Probe::EnergyBalanceError).abs() < 1e-6);
}

/// Slider-crank: crank r on ground, rod l on the crank, slider on a prismatic joint
/// along x, closed by a spherical cut at the crank-pin.
fn slider_crank(theta: f64, r: f64, l: f64) -> (CompiledModel, Vec<f64>) {
    let mut b = Builder::new();
    let step = b.p("solver.step", 1e-3);
    let crank = body(
        &mut b,
        "crank",
        None,
        REV_Z,
        [0.0; 3],
        theta,
        1.0,
        [r / 2.0, 0.0, 0.0],
        [1e-3; 6].map(|_| 0.01),
    );
    let slider = body(
        &mut b,
        "slider",
        None,
        JointKind::Prismatic {
            axis: [1.0, 0.0, 0.0],
        },
        [0.0; 3],
        0.0,
        1.0,
        [0.0; 3],
        [0.01, 0.01, 0.01, 0.0, 0.0, 0.0],
    );
    let rod = body(
        &mut b,
        "rod",
        Some(1),
        REV_Z,
        [0.0; 3],
        0.0,
        1.0,
        [l / 2.0, 0.0, 0.0],
        [0.01, 0.01, 0.01, 0.0, 0.0, 0.0],
    );
    // Closed form: x = r cosθ + √(l² − r² sin²θ); rod angle φ from the slider to the pin.
    let x = r * theta.cos() + (l * l - (r * theta.sin()).powi(2)).sqrt();
    let phi = (r * theta.sin()).atan2(r * theta.cos() - x);
    let cut = CutJoint {
        name: "pin".into(),
        kind: CutKind::Spherical,
        a: PointRef {
            body: Some(0),
            point: [r, 0.0, 0.0],
        },
        b: PointRef {
            body: Some(2),
            point: [l, 0.0, 0.0],
        },
    };
    (
        mechanism_only(b, 1e-3, vec![crank, slider, rod], vec![cut], step),
        vec![theta, x, phi],
    )
}

fn constraint_values(m: &CompiledModel, z: &[f64], zd: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut kin = Kinematics::new(&m.mechanism);
    let zero = vec![0.0; z.len()];
    let refs = vec![constraints::PrismaticReference::default(); m.mechanism.cut_joints.len()];
    kin.update(&m.mechanism, |b| m.default_param(b.mass), z, zd, &zero);
    let nc = m.mechanism.constraint_equations();
    let (mut phi, mut jac, mut bias) = (vec![0.0; nc], vec![0.0; nc * z.len()], vec![0.0; nc]);
    constraints::evaluate(
        &m.mechanism,
        &kin,
        z.len(),
        &refs,
        ConstraintEval {
            phi: &mut phi,
            jacobian: &mut jac,
            bias: &mut bias,
        },
    );
    (phi, jac, bias)
}

#[test]
fn slider_crank_closed_form_position_and_jacobian() {
    for theta in [0.3, 1.2, 2.5, 4.0] {
        let (m, z) = slider_crank(theta, 0.4, 1.3);
        let (phi, jac, _) = constraint_values(&m, &z, &[0.0; 3]);
        assert!(phi.iter().all(|v| v.abs() < 1e-14), "θ={theta}: Φ={phi:?}");
        // Jacobian against central differences.
        for c in 0..3 {
            let e = 1e-6;
            let mut zp = z.clone();
            zp[c] += e;
            let mut zm = z.clone();
            zm[c] -= e;
            let (pp, _, _) = constraint_values(&m, &zp, &[0.0; 3]);
            let (pm, _, _) = constraint_values(&m, &zm, &[0.0; 3]);
            for r in 0..3 {
                let fd = (pp[r] - pm[r]) / (2.0 * e);
                assert!(
                    (jac[r * 3 + c] - fd).abs() < 1e-8,
                    "Φ_z[{r},{c}] {} vs {fd}",
                    jac[r * 3 + c]
                );
            }
        }
    }
}

#[test]
fn constraint_velocity_term_matches_finite_differences() {
    // Φ̈ = Φ_z z̈ + Φ̇_z ż: with z̈ = 0, d/dt(Φ_z ż) along z(t) = z + t ż must equal the bias.
    let (m, z) = slider_crank(1.0, 0.4, 1.3);
    let zd = [0.7, -0.3, 1.1];
    let (_, _, bias) = constraint_values(&m, &z, &zd);
    let e = 1e-6;
    let at = |s: f64| -> Vec<f64> {
        let zs: Vec<f64> = z.iter().zip(&zd).map(|(a, b)| a + s * b).collect();
        let (_, jac, _) = constraint_values(&m, &zs, &zd);
        (0..3)
            .map(|r| (0..3).map(|c| jac[r * 3 + c] * zd[c]).sum())
            .collect()
    };
    let (p, q) = (at(e), at(-e));
    for r in 0..3 {
        let fd = (p[r] - q[r]) / (2.0 * e);
        assert!((bias[r] - fd).abs() < 1e-7, "row {r}: {} vs {fd}", bias[r]);
    }
}

#[test]
fn grashof_four_bar_closed_form_positions() {
    // Crank a, coupler b, rocker c, ground d (a + d < b + c: crank-rocker). The closed-form
    // angles (law of cosines) must close the loop exactly.
    let dims = [1.0, 3.0, 2.5, 3.2];
    assert!(dims[0] + dims[3] <= dims[1] + dims[2]);
    for theta in [0.0, 0.8, 2.0, 3.5, 5.5] {
        let (m, z) = support::planar_fourbar(theta, dims, [1.0; 3]);
        let (phi, _, _) = constraint_values(&m, &z, &[0.0; 3]);
        assert!(phi.iter().all(|v| v.abs() < 1e-13), "θ={theta}: Φ={phi:?}");
    }
}

#[test]
fn spinning_top_precession_rate() {
    // Symmetric heavy top on a fixed point (spherical joint = yaw–pitch–spin revolutes
    // through massless gimbal bodies). Steady precession Ω at tilt θ with spin rate ψ̇:
    // m g d = Ω I3 ψ̇ + Ω² cosθ (I3 − I1)   (θ from the vertical, I1 about the fixed point).
    let (m, d, i1, i3, g) = (2.0, 0.1, 0.02, 0.03, 9.81);
    let (theta, spin) = (0.5, 150.0);
    let h = 2e-4;
    let mut b = Builder::new();
    let step = b.p("solver.step", h);
    let mut yaw = body(
        &mut b, "yaw", None, REV_Z, [0.0; 3], 0.0, 0.0, [0.0; 3], [0.0; 6],
    );
    yaw.mass = b.p("yaw.mass", 0.0);
    let pitch = body(
        &mut b,
        "pitch",
        Some(0),
        JointKind::Revolute {
            axis: [1.0, 0.0, 0.0],
        },
        [0.0; 3],
        theta,
        0.0,
        [0.0; 3],
        [0.0; 6],
    );
    let top = body(
        &mut b,
        "top",
        Some(1),
        REV_Z,
        [0.0; 3],
        0.0,
        m,
        [0.0, 0.0, d],
        [i1, i1, i3, 0.0, 0.0, 0.0],
    );
    let mut model = mechanism_only(b, h, vec![yaw, pitch, top], vec![], step);
    model.gravity = [0.0, 0.0, -g];
    model.init.static_equilibrium = false;
    // I1 of the formula is about the fixed point: I1 + m d².
    let qa = (i3 - (i1 + m * d * d)) * theta.cos();
    let omega_steady =
        (-i3 * spin + ((i3 * spin).powi(2) + 4.0 * qa * m * g * d).sqrt()) / (2.0 * qa);
    let mut inst = Instance::new(Arc::new(model));
    inst.initialize(0.0).unwrap();
    // Sign of the precession follows from the joint conventions: try both, keep the one
    // that holds the tilt (the other nutates strongly).
    let mut best = (f64::INFINITY, 0.0);
    for sign in [1.0, -1.0] {
        let mut run = Instance::new(inst.model_arc().clone());
        run.initialize(0.0).unwrap();
        run.set_joint_rates(&[sign * omega_steady, 0.0, spin])
            .unwrap();
        let mut tilt_dev = 0.0f64;
        let t_end = 0.5;
        let n = (t_end / h) as usize;
        for k in 1..=n {
            run.advance(k as f64 * h).unwrap();
            tilt_dev = tilt_dev.max((run.probe(Probe::JointPosition(1)) - theta).abs());
        }
        let rate = run.probe(Probe::JointPosition(0)) / t_end;
        if tilt_dev < best.0 {
            best = (tilt_dev, rate);
        }
        println!(
            "sign {sign}: tilt deviation {tilt_dev:.2e} rad, mean precession {rate:.6} rad/s (steady {omega_steady:.6})"
        );
    }
    assert!(best.0 < 1e-3, "tilt not held: {}", best.0);
    assert!(
        (best.1.abs() / omega_steady - 1.0).abs() < 1e-5,
        "precession {} vs {omega_steady}",
        best.1
    );
}

#[test]
fn prismatic_cut_jacobian_and_velocity_term_in_3d() {
    // A 3-revolute spatial chain whose last body slides on a line of the ground: all five
    // prismatic-cut rows (two line, two parallel-axis, one twist) are generic here.
    let mut b = Builder::new();
    let step = b.p("solver.step", 1e-3);
    let b1 = body(
        &mut b,
        "b1",
        None,
        REV_Z,
        [0.0; 3],
        0.3,
        1.0,
        [0.5, 0.0, 0.0],
        [0.1, 0.1, 0.1, 0.0, 0.0, 0.0],
    );
    let b2 = body(
        &mut b,
        "b2",
        Some(0),
        JointKind::Revolute {
            axis: [0.0, 1.0, 0.0],
        },
        [1.0, 0.0, 0.0],
        -0.4,
        1.0,
        [0.4, 0.0, 0.0],
        [0.1, 0.1, 0.1, 0.0, 0.0, 0.0],
    );
    let b3 = body(
        &mut b,
        "b3",
        Some(1),
        JointKind::Revolute {
            axis: [1.0, 0.0, 0.0],
        },
        [0.8, 0.2, 0.1],
        0.7,
        1.0,
        [0.2, 0.0, 0.0],
        [0.1, 0.1, 0.1, 0.0, 0.0, 0.0],
    );
    let cut = CutJoint {
        name: "slide".into(),
        kind: CutKind::Prismatic {
            axis_b: [1.0, 0.2, 0.1],
        },
        a: PointRef {
            body: Some(2),
            point: [0.3, 0.0, 0.0],
        },
        b: PointRef {
            body: None,
            point: [1.5, 0.2, 0.3],
        },
    };
    let m = mechanism_only(b, 1e-3, vec![b1, b2, b3], vec![cut], step);
    let z0 = [0.3, -0.4, 0.7];
    let mut kin = Kinematics::new(&m.mechanism);
    kin.update(&m.mechanism, |_| 1.0, &z0, &[0.0; 3], &[0.0; 3]);
    let mut refs = vec![constraints::PrismaticReference::default()];
    constraints::prismatic_references(&m.mechanism, &kin, &mut refs);
    let eval = |z: &[f64], zd: &[f64]| {
        let mut kin = Kinematics::new(&m.mechanism);
        kin.update(&m.mechanism, |_| 1.0, z, zd, &[0.0; 3]);
        let (mut phi, mut jac, mut bias) = (vec![0.0; 5], vec![0.0; 15], vec![0.0; 5]);
        constraints::evaluate(
            &m.mechanism,
            &kin,
            3,
            &refs,
            ConstraintEval {
                phi: &mut phi,
                jacobian: &mut jac,
                bias: &mut bias,
            },
        );
        (phi, jac, bias)
    };
    // At the reference configuration the orientation rows vanish.
    let (phi0, _, _) = eval(&z0, &[0.0; 3]);
    assert!(phi0[2..].iter().all(|v| v.abs() < 1e-14), "{phi0:?}");
    let z = [0.35, -0.3, 0.9];
    let zd = [0.6, -1.1, 0.8];
    let (_, jac, bias) = eval(&z, &zd);
    let e = 1e-6;
    for c in 0..3 {
        let (mut zp, mut zm) = (z, z);
        zp[c] += e;
        zm[c] -= e;
        let (pp, _, _) = eval(&zp, &zd);
        let (pm, _, _) = eval(&zm, &zd);
        for r in 0..5 {
            let fd = (pp[r] - pm[r]) / (2.0 * e);
            assert!(
                (jac[r * 3 + c] - fd).abs() < 1e-8,
                "Φ_z[{r},{c}] {} vs {fd}",
                jac[r * 3 + c]
            );
        }
    }
    let along = |s: f64| -> Vec<f64> {
        let zs: Vec<f64> = z.iter().zip(&zd).map(|(a, b)| a + s * b).collect();
        let (_, j, _) = eval(&zs, &zd);
        (0..5)
            .map(|r| (0..3).map(|c| j[r * 3 + c] * zd[c]).sum())
            .collect()
    };
    let (p, q) = (along(e), along(-e));
    for r in 0..5 {
        let fd = (p[r] - q[r]) / (2.0 * e);
        assert!(
            (bias[r] - fd).abs() < 1e-7,
            "row {r}: bias {} vs {fd}",
            bias[r]
        );
    }
}

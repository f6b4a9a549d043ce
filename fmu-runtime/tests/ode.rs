//! The explicit-ODE view of Model Exchange (`solver::ode`) against the monolithic
//! trapezoidal solver: the same machine, integrated by classical RK4 from the ODE's
//! derivatives, follows the fine-step trapezoidal solution, keeps the loop closed, and the
//! derivatives at a consistent state are those the solver's own state carries.

mod support;

use fmu_runtime::Instance;
use fmu_runtime::model::{CompiledModel, ParamId, Probe};
use std::sync::Arc;

fn slot(m: &CompiledModel, name: &str) -> ParamId {
    ParamId(m.params.iter().position(|p| p.name == name).unwrap() as u32)
}

/// RK4 on the ODE of `inst` from its time to `t_end` in `n` steps.
fn rk4(inst: &mut Instance, t_end: f64, n: usize) {
    let len = inst.ode_len().unwrap();
    let (mut x, mut k1, mut k2, mut k3, mut k4, mut y) = (
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
    );
    inst.ode_states(&mut x).unwrap();
    let t0 = inst.time();
    let h = (t_end - t0) / n as f64;
    let eval = |inst: &mut Instance, t: f64, x: &[f64], k: &mut [f64]| {
        inst.set_time(t);
        inst.set_ode_states(x).unwrap();
        inst.ode_derivatives(k).unwrap();
    };
    for s in 0..n {
        let t = t0 + s as f64 * h;
        eval(inst, t, &x, &mut k1);
        for i in 0..len {
            y[i] = x[i] + 0.5 * h * k1[i];
        }
        eval(inst, t + 0.5 * h, &y, &mut k2);
        for i in 0..len {
            y[i] = x[i] + 0.5 * h * k2[i];
        }
        eval(inst, t + 0.5 * h, &y, &mut k3);
        for i in 0..len {
            y[i] = x[i] + h * k3[i];
        }
        eval(inst, t + h, &y, &mut k4);
        for i in 0..len {
            x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    inst.set_time(t_end);
    inst.set_ode_states(&x).unwrap();
    inst.ode_derivatives(&mut k1).unwrap();
}

/// Two instances of `m`, initialized, with the input `input` set to `value` (a step).
fn pair(m: CompiledModel, input: &str, value: f64) -> (Instance, Instance) {
    let cmd = slot(&m, input);
    let m = Arc::new(m);
    let mut a = Instance::new(m.clone());
    let mut b = Instance::new(m);
    for i in [&mut a, &mut b] {
        i.initialize(0.0).unwrap();
        i.set_param(cmd, value);
    }
    (a, b)
}

#[test]
fn naya_rod_ode_is_the_limit_of_the_trapezoidal_solution() {
    // seed 002's rod with the spool stepped 0.01 off κ0 (its eq 38 manoeuvre). The spool is
    // ideal (τ = 0), so it is algebraic: the states are the rod angle, its rate and the two
    // chamber pressures, then the actuator work.
    let model = |h| support::naya_rod(0.4646082, h);
    let (_, mut me) = pair(model(1e-4), "valve.command", 0.4546082);
    let len = me.ode_len().unwrap();
    let mut nominal = vec![0.0; len];
    me.ode_nominals(&mut nominal).unwrap();
    assert_eq!(nominal, [1.0, 1.0, 1e7, 1e7, 1.0]);
    let t_end = 0.5;
    rk4(&mut me, t_end, 25_000);
    let ode = me.probe(Probe::JointPosition(0));
    // RK4 at 20 µs is converged: at 10 µs it gives the same angle to 1e-10 rad.
    let (_, mut finer) = pair(model(1e-4), "valve.command", 0.4546082);
    rk4(&mut finer, t_end, 50_000);
    assert!((finer.probe(Probe::JointPosition(0)) - ode).abs() < 1e-10);
    // The trapezoidal solution approaches it as its step halves.
    let mut errors = Vec::new();
    for h in [1e-4, 5e-5, 2.5e-5] {
        let (mut cs, _) = pair(model(h), "valve.command", 0.4546082);
        cs.advance(t_end).unwrap();
        errors.push((cs.probe(Probe::JointPosition(0)) - ode).abs());
        for n in [0, 1] {
            let (p_cs, p_me) = (
                cs.probe(Probe::NodePressure(n)),
                me.probe(Probe::NodePressure(n)),
            );
            assert!(
                (p_cs - p_me).abs() < 2e3,
                "h = {h}, node {n}: {p_cs} vs {p_me} Pa"
            );
        }
    }
    eprintln!(
        "naya-rod at {t_end} s: |trapezoidal − ODE| = {errors:?} rad for h = 0.1, 0.05, 0.025 ms; ODE angle {ode:.10}"
    );
    assert!(
        errors[0] > 1.8 * errors[1] && errors[1] > 1.8 * errors[2],
        "{errors:?}"
    );
    assert!(errors[2] < 6e-7, "{errors:?}");
    assert!((ode - 0.5235987755982988).abs() > 0.01, "the rod moved");
}

#[test]
fn jaiswal_fourbar_ode_keeps_the_loop_closed_and_follows_the_trapezoidal_solution() {
    let (mut cs, mut me) = pair(support::jaiswal_fourbar(1e-4), "valve.command", 10.0);
    let len = me.ode_len().unwrap();
    let t_end = 0.3;
    cs.advance(t_end).unwrap();
    rk4(&mut me, t_end, 30_000);
    let (a_cs, a_me) = (
        cs.probe(Probe::JointPosition(0)),
        me.probe(Probe::JointPosition(0)),
    );
    eprintln!(
        "four-bar ({len} states) at {t_end} s: crank {a_cs:.9} (CS 0.1 ms) vs {a_me:.9} rad (ODE RK4 10 µs)"
    );
    assert!((a_cs - a_me).abs() < 1e-5, "crank {a_cs} vs {a_me}");
    assert!(
        (a_cs - support_start_crank()).abs() > 1e-3,
        "the crank moved"
    );
    assert!(
        me.probe(Probe::ConstraintNorm) < 1e-10,
        "Φ = {}",
        me.probe(Probe::ConstraintNorm)
    );
}

fn support_start_crank() -> f64 {
    let mut i = Instance::new(Arc::new(support::jaiswal_fourbar(1e-4)));
    i.initialize(0.0).unwrap();
    i.probe(Probe::JointPosition(0))
}

#[test]
fn derivatives_at_rest_are_the_solvers_consistent_rates() {
    // At the static equilibrium every rate is zero; the ODE must say so too.
    let m = Arc::new(support::jaiswal_fourbar(1e-3));
    let mut inst = Instance::new(m);
    inst.initialize(0.0).unwrap();
    let len = inst.ode_len().unwrap();
    let (mut dx, mut nominal) = (vec![f64::NAN; len], vec![0.0; len]);
    inst.ode_nominals(&mut nominal).unwrap();
    inst.ode_derivatives(&mut dx).unwrap();
    eprintln!("ẋ at rest: {dx:?}");
    for (i, (d, n)) in dx.iter().zip(&nominal).enumerate() {
        assert!(d.abs() < 1e-6 * n, "ẋ[{i}] = {d} at rest ({dx:?})");
    }
}

/// The step event of Model Exchange: a Grashof crank-rocker spun through full turns with no
/// gravity and no load. Each integrator step ends as `fmi2CompletedIntegratorStep` does:
/// if Φ_z of the dependent coordinates has become ill-conditioned, the independent
/// coordinate is chosen again (`fmi2NewDiscreteStates`) and x re-read. Every 500 steps a
/// re-choice is also forced (a master may enter Event Mode at any time): it must leave a
/// well-conditioned partition, the same configuration, and a trajectory that goes on with
/// the loop closed and the kinetic energy constant.
#[test]
fn the_partition_is_rechosen_as_a_step_event_through_full_crank_turns() {
    use fmu_runtime::model::Formulation;
    let (a, bl, c, d) = (1.0, 3.0, 2.5, 3.2);
    for theta in [0.0f64, 1.6, 4.8] {
        let (mut m, _) = support::planar_fourbar(theta, [a, bl, c, d], [5.0, 1.0, 1.0]);
        m.gravity = [0.0; 3];
        m.init.static_equilibrium = false;
        m.solver.formulation = Formulation::DoubleStep;
        let mut inst = Instance::new(Arc::new(m));
        inst.initialize(0.0).unwrap();
        let len = inst.ode_len().unwrap();
        // Spin: the independent rate set, the others follow from the velocity problem.
        let mut x = vec![0.0; len];
        inst.ode_states(&mut x).unwrap();
        x[1] = 12.0;
        inst.set_ode_states(&x).unwrap();
        let mut dx = vec![0.0; len];
        inst.ode_derivatives(&mut dx).unwrap();
        let energy = inst.probe(Probe::KineticEnergy);
        let (mut events, mut kinds, mut max_phi, mut drift) = (0, Vec::new(), 0.0f64, 0.0f64);
        let h = 2e-4;
        for s in 1..=5000 {
            rk4(&mut inst, s as f64 * h, 1);
            if inst.ode_needs_rechoice().unwrap() || s % 500 == 0 {
                let crank = inst.probe(Probe::JointPosition(0));
                inst.ode_rechoose().unwrap();
                inst.ode_derivatives(&mut dx).unwrap();
                assert!(
                    !inst.ode_needs_rechoice().unwrap(),
                    "a fresh choice is the best one"
                );
                assert!((inst.probe(Probe::JointPosition(0)) - crank).abs() < 1e-12);
                kinds.push(inst.ode_kind(0).unwrap());
                events += 1;
            }
            max_phi = max_phi.max(inst.probe(Probe::ConstraintNorm));
            drift = drift.max((inst.probe(Probe::KineticEnergy) - energy).abs());
        }
        let turns = (inst.probe(Probe::JointPosition(0)) - theta).abs() / std::f64::consts::TAU;
        kinds.dedup();
        println!(
            "θ0 {theta}: {events} re-choices (independent: {kinds:?}), {turns:.2} crank turns, |Φ| max {max_phi:.1e}, energy drift {drift:.1e} J of {energy:.1}"
        );
        assert!(turns > 1.0, "the crank turns");
        assert!(events >= 10);
        assert!(max_phi < 1e-11, "{max_phi}");
        assert!(drift < 1e-7 * energy, "{drift}");
    }
}

/// A master's step far ahead: the crank of a crank-rocker set 1, 2 and 3 rad on from where
/// it was. The dependent coordinates follow on the same assembly branch as when the crank
/// turns there in small steps (continuation when Newton from the old configuration fails).
#[test]
fn a_far_step_of_the_independent_coordinate_stays_on_the_branch() {
    use fmu_runtime::model::Formulation;
    use fmu_runtime::solver::ode::StateKind;
    let (mut m, _) = support::planar_fourbar(1.6, [1.0, 3.0, 2.5, 3.2], [5.0, 1.0, 1.0]);
    m.gravity = [0.0; 3];
    m.init.static_equilibrium = false;
    m.solver.formulation = Formulation::DoubleStep;
    let m = Arc::new(m);
    for jump in [1.0, 2.0, 3.0] {
        let (mut far, mut near) = (Instance::new(m.clone()), Instance::new(m.clone()));
        let mut ends = Vec::new();
        for (inst, pieces) in [(&mut far, 1), (&mut near, 200)] {
            inst.initialize(0.0).unwrap();
            let len = inst.ode_len().unwrap();
            assert_eq!(
                inst.ode_kind(0),
                Some(StateKind::Coordinate(0)),
                "the crank"
            );
            let mut x = vec![0.0; len];
            inst.ode_states(&mut x).unwrap();
            let start = x[0];
            for s in 1..=pieces {
                x[0] = start + jump * s as f64 / pieces as f64;
                inst.set_ode_states(&x).unwrap();
            }
            assert!(inst.probe(Probe::ConstraintNorm) < 1e-12);
            ends.push((
                inst.probe(Probe::JointPosition(1)),
                inst.probe(Probe::JointPosition(2)),
            ));
        }
        println!("jump {jump}: far {:?}, near {:?}", ends[0], ends[1]);
        assert!((ends[0].0 - ends[1].0).abs() < 1e-9 && (ends[0].1 - ends[1].1).abs() < 1e-9);
    }
}

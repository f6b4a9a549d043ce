//! The step loop allocates nothing: a counting global allocator sees zero allocations
//! while instances of the seed 002 rod and the seed 001 four-bar (closed loop, projections;
//! with the double-step formulation; on the sparse solver path; with the assembled and the
//! finite-difference tangent) advance, including output reads, snapshots and the spool
//! commands changing, with and without input derivatives.

#[path = "support/counting.rs"]
mod counting;
mod support;

use counting::count_during;

use fmu_runtime::Instance;
use fmu_runtime::model::{ParamId, Probe};
use std::sync::Arc;

/// The four-bar's crank: its first one-coordinate body.
fn crank(m: &fmu_runtime::CompiledModel) -> usize {
    m.mechanism
        .bodies
        .iter()
        .position(|b| b.joint.dof() == 1)
        .unwrap()
}

#[test]
fn stepping_does_not_allocate() {
    for (model, command, values) in [
        (
            support::naya_rod(0.4646082, 0.01),
            "valve.command",
            [0.4546082, 0.4746082],
        ),
        (
            support::jaiswal_fourbar(0.001),
            "valve.command",
            [10.0, -10.0],
        ),
        (
            {
                // The double-step formulation: partition check, position problem, R_z.
                let mut m = support::jaiswal_fourbar(0.001);
                m.solver.formulation = fmu_runtime::model::Formulation::DoubleStep;
                m
            },
            "valve.command",
            [10.0, -10.0],
        ),
        (
            // A fresh tangent every step: the multipliers corrected by Newton (Schur
            // complement of the constraint rows), the second-order predictor.
            {
                let mut m = support::jaiswal_fourbar(0.001);
                m.solver.reuse_tangent = false;
                m
            },
            "valve.command",
            [10.0, -10.0],
        ),
        (
            // The finite-difference tangent (the default assembles its joint columns).
            {
                let mut m = support::jaiswal_fourbar(0.001);
                m.solver.tangent = fmu_runtime::model::TangentMethod::FiniteDifference;
                m
            },
            "valve.command",
            [10.0, -10.0],
        ),
        (
            // The sparse path: fixed-pattern factorisation of tangent and projection.
            {
                let mut m = support::jaiswal_fourbar(0.001);
                m.solver.linear_solver = fmu_runtime::model::LinearSolver::Sparse;
                m
            },
            "valve.command",
            [10.0, -10.0],
        ),
        (
            {
                let mut m = support::naya_rod(0.4646082, 0.01);
                m.solver.linear_solver = fmu_runtime::model::LinearSolver::Sparse;
                m
            },
            "valve.command",
            [0.4546082, 0.4746082],
        ),
        (
            // A torque input on the crank, stepped: the accelerations and loop multipliers
            // jump with it (`solver::input_change`: mass matrix, Schur block).
            {
                let mut m = support::jaiswal_fourbar(0.001);
                let crank = crank(&m);
                m.params.push(fmu_runtime::model::ParamSlot {
                    name: "servo.torque".into(),
                    default: 0.0,
                });
                let force = ParamId(m.params.len() as u32 - 1);
                m.ports.push(fmu_runtime::model::Port {
                    name: "servo".into(),
                    kind: fmu_runtime::model::PortKind::JointForce { body: crank, force },
                });
                m
            },
            "servo.torque",
            [2e3, -2e3],
        ),
        (
            // A prescribed-motion crank (its rate stepped) inside the loop.
            {
                let mut m = support::jaiswal_fourbar(0.001);
                let crank = crank(&m);
                let q0 = m.params[m.mechanism.bodies[crank].q0.index()].default;
                let mut slot = |name: &str, default: f64| {
                    m.params.push(fmu_runtime::model::ParamSlot {
                        name: name.into(),
                        default,
                    });
                    ParamId(m.params.len() as u32 - 1)
                };
                let kind = fmu_runtime::model::PortKind::JointMotion {
                    body: crank,
                    position: slot("servo.q", q0),
                    velocity: slot("servo.qd", 0.0),
                    acceleration: slot("servo.qdd", 0.0),
                };
                m.ports.push(fmu_runtime::model::Port {
                    name: "servo".into(),
                    kind,
                });
                m
            },
            "servo.qdd",
            [0.5, -0.5],
        ),
    ] {
        let cmd = ParamId(model.params.iter().position(|p| p.name == command).unwrap() as u32);
        let sparse = model.solver.linear_solver == fmu_runtime::model::LinearSolver::Sparse;
        let mut inst = Instance::new(Arc::new(model));
        inst.initialize(0.0).unwrap();
        let mut snap = inst.snapshot();
        let mut sink = 0.0;
        let n = count_during(|| {
            for k in 1..=400 {
                if k == 50 {
                    inst.set_param(cmd, values[0]);
                }
                if k == 250 {
                    inst.set_param(cmd, values[1]);
                }
                // Interpolated inputs (fmi2SetRealInputDerivatives) in some steps.
                if k % 3 == 0 {
                    inst.set_input_derivative(cmd, 1, 1e-3).unwrap();
                    inst.set_input_derivative(cmd, 2, -1e-2).unwrap();
                }
                // Uneven communication steps force sub-stepping with a short last step.
                inst.advance(k as f64 * 0.0037).unwrap();
                sink +=
                    inst.probe(Probe::CylinderLength(0)) + inst.probe(Probe::EnergyBalanceError);
                inst.snapshot_into(&mut snap);
            }
        });
        assert!(sink.is_finite());
        assert_eq!(
            inst.state().tangent_sparse,
            sparse,
            "the path under test was used"
        );
        assert_eq!(
            n,
            0,
            "{n} allocations in the step loop of {}",
            inst.model().name
        );
    }
}

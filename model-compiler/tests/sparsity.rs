//! The Newton tangent's structural pattern (derived from the topology) and the sparse
//! solver path (issue 7, item 2).
//!
//! - Every entry that full forward differences of the whole residual find nonzero lies in
//!   the pattern, on every shipped machine and on members of the scaling families, in
//!   motion: the grouped columns (several unknowns perturbed in one evaluation) and the
//!   sparse factorisation both rely on it.
//! - The tangent the solver forms with grouped columns equals the full differences (the
//!   finite-difference tangent; the assembled one is compared in `tests/tangent.rs`).
//! - The sparse and the dense path integrate the same motion (they differ by the Newton
//!   tolerance, not more).

mod common;

use common::Machine;
use fmu_runtime::model::{CompiledModel, LinearSolver, TangentMethod};
use fmu_runtime::solver::plan::SolverPath;
use model_compiler::bench::family::{self, Family};

/// Checks pattern ⊇ nonzeros of the full tangent and grouped = full; returns
/// (unknowns, pattern entries, full-evaluation groups).
fn check(name: &str, m: &mut Machine, h: f64) -> (usize, usize, usize) {
    let probe = m.inst.tangent_probe(h).expect("tangent");
    let (solver, full) = (probe.solver, probe.forward);
    let plan = m.inst.tangent_plan();
    let n = plan.pattern.n;
    assert_eq!(n * n, full.len());
    let mut worst = 0.0f64;
    for k in 0..n {
        let scale = (0..n).map(|i| full[i * n + k].abs()).fold(0.0, f64::max);
        for i in 0..n {
            assert!(
                full[i * n + k] == 0.0 || plan.pattern.contains(i, k),
                "{name}: J[{i}][{k}] = {:e} lies outside the structural pattern",
                full[i * n + k]
            );
            if scale > 0.0 {
                worst = worst.max((solver[i * n + k] - full[i * n + k]).abs() / scale);
            }
        }
    }
    assert!(worst < 1e-6, "{name}: grouped tangent differs by {worst:e}");
    let (z_groups, w_groups) = plan.refresh_evaluations();
    println!(
        "{name}: n = {n}, pattern {} of {} entries, {z_groups} full + {w_groups} partial \
         evaluations per refresh, path {}, grouped vs full {worst:.1e}",
        plan.pattern.nonzeros(),
        n * n,
        plan.path.name()
    );
    (n, plan.pattern.nonzeros(), z_groups)
}

#[test]
fn the_pattern_covers_the_full_tangent_of_every_shipped_machine() {
    for file in common::SHIPPED_MODELS {
        let mut model = common::compile(file);
        model.solver.tangent = TangentMethod::FiniteDifference;
        let mut m = Machine::from_model(model);
        m.drive(0.3, 1e-3);
        check(file, &mut m, 1e-3);
    }
}

fn family_model(f: Family, n: usize, solver: LinearSolver) -> CompiledModel {
    let mut model = common::compile_text(&f.model_name(n), family::description(f, n));
    model.solver.linear_solver = solver;
    model
}

#[test]
fn the_pattern_covers_the_scaling_families_and_groups_their_columns() {
    for f in Family::ALL {
        for n in [1, 3, 6] {
            let mut model = family_model(f, n, LinearSolver::Auto);
            model.solver.tangent = TangentMethod::FiniteDifference;
            let mut m = Machine::from_model(model);
            m.drive(0.05, 1e-3);
            let (unknowns, entries, groups) = check(&f.model_name(n), &mut m, 1e-3);
            assert!(entries < unknowns * unknowns || n == 1);
            if f == Family::Branches {
                // Independent arms on one base: their columns share evaluations.
                assert_eq!(groups, 1, "{}: {groups} groups", f.model_name(n));
            }
        }
    }
}

/// The same manoeuvre on both paths: the trajectories agree to the Newton tolerance.
#[test]
fn sparse_and_dense_paths_integrate_the_same_motion() {
    for (f, n) in [
        (Family::Chain, 8),
        (Family::Loops, 4),
        (Family::Branches, 8),
    ] {
        let mut runs = Vec::new();
        for solver in [LinearSolver::Dense, LinearSolver::Sparse] {
            let mut m = Machine::from_model(family_model(f, n, solver));
            let expected = match solver {
                LinearSolver::Sparse => SolverPath::Sparse,
                _ => SolverPath::Dense,
            };
            assert_eq!(m.inst.tangent_plan().path, expected);
            m.drive(0.5, 1e-3);
            runs.push((m.inst.state().z.clone(), m.inst.state().w.clone()));
            assert!(m.inst.state().tangent_sparse == (solver == LinearSolver::Sparse));
        }
        let (dz, dp) = (
            runs[0]
                .0
                .iter()
                .zip(&runs[1].0)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max),
            runs[0]
                .1
                .iter()
                .zip(&runs[1].1)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max),
        );
        println!(
            "{}: dense vs sparse after 0.5 s: {dz:.1e} rad, {dp:.1e} (Pa or state)",
            f.model_name(n)
        );
        assert!(
            dz < 1e-7,
            "{}: joint coordinates differ by {dz:e}",
            f.model_name(n)
        );
        assert!(
            dp < 1.0,
            "{}: pressures differ by {dp:e} Pa",
            f.model_name(n)
        );
        // The motion is real (the check above is not comparing two rest states).
        assert!(runs[0].0.iter().any(|z| z.abs() > 1e-3));
    }
}

/// The automatic choice follows the predicted factorisation cost: dense for the small
/// seeds' machines, sparse for a large machine.
#[test]
fn the_automatic_path_is_dense_for_small_machines_and_sparse_for_large_ones() {
    let rod = Machine::load("naya-rod.toml");
    assert_eq!(rod.inst.tangent_plan().path, SolverPath::Dense);
    let big = Machine::from_model(family_model(Family::Chain, 32, LinearSolver::Auto));
    assert_eq!(big.inst.tangent_plan().path, SolverPath::Sparse);
}

//! The beam mesher against Euler–Bernoulli closed forms (issue 22's first checks).

use super::beam::{Beam, NODE_DOFS, Section};
use super::dofs::NodeDofs;
use super::modal::{frequencies, static_displacement};
use nalgebra::DVector;
use std::f64::consts::PI;

/// A steel box boom, 6 m long, 20 elements: bending about y is the stiff plane.
fn boom(elements: usize) -> Beam {
    Beam {
        length: 6.0,
        elements,
        section: Section::Box {
            width: 0.2,
            height: 0.3,
            wall: 0.008,
        },
        young: 210e9,
        poisson: 0.3,
        density: 7850.0,
    }
}

/// The DOFs of node 0 (a clamped root).
fn clamped() -> Vec<usize> {
    (0..NODE_DOFS).collect()
}

/// Euler–Bernoulli bending frequency [Hz] for β L.
fn bending(beam: &Beam, beta_l: f64, i: f64) -> f64 {
    let s = beam.section.properties().unwrap();
    let l = beam.length;
    (beta_l / l).powi(2) * (beam.young * i / (beam.density * s.area)).sqrt() / (2.0 * PI)
}

/// The computed frequency nearest to `target`, and its relative error.
fn nearest(found: &[f64], target: f64) -> (f64, f64) {
    let f = found
        .iter()
        .copied()
        .min_by(|a, b| (a - target).abs().total_cmp(&(b - target).abs()))
        .unwrap();
    (f, (f - target).abs() / target)
}

#[test]
fn cantilever_bending_frequencies_within_one_percent_of_euler_bernoulli() {
    let beam = boom(20);
    let model = beam.mesh().unwrap();
    let found = frequencies(&model.mass, &model.stiffness, &clamped()).unwrap();
    let s = model.section;
    // Clamped–free: β L = 1.87510, 4.69409, 7.85476 (Blevins, Formulas for natural
    // frequency and mode shape, table 8-1).
    for (beta_l, mode) in [(1.87510, 1), (4.69409, 2), (7.85476, 3)] {
        for (plane, i) in [("y", s.iy), ("z", s.iz)] {
            let target = bending(&beam, beta_l, i);
            let (f, err) = nearest(&found, target);
            println!(
                "mode {mode} about {plane}: {f:.4} Hz vs {target:.4} Hz ({:.2e})",
                err
            );
            assert!(err < 0.01, "mode {mode} about {plane}: {f} vs {target}");
        }
    }
}

#[test]
fn cantilever_tip_deflection_is_p_l3_over_3_e_i() {
    let beam = boom(10);
    let model = beam.mesh().unwrap();
    let p = 10e3;
    let n = model.nodes.len();
    let mut f = DVector::zeros(n * NODE_DOFS);
    f[(n - 1) * NODE_DOFS + 2] = p; // w at the tip
    let u = static_displacement(&model.stiffness, &f, &clamped()).unwrap();
    let expected = p * beam.length.powi(3) / (3.0 * beam.young * model.section.iy);
    let tip = u[(n - 1) * NODE_DOFS + 2];
    assert!(
        (tip - expected).abs() < 0.01 * expected,
        "{tip} vs {expected}"
    );
    // And the tip slope PL²/2EI, with θy = −dw/dx.
    let slope = u[(n - 1) * NODE_DOFS + 4];
    let expected = -p * beam.length.powi(2) / (2.0 * beam.young * model.section.iy);
    assert!(
        (slope - expected).abs() < 0.01 * expected.abs(),
        "{slope} vs {expected}"
    );
}

#[test]
fn free_free_first_elastic_frequency_within_one_percent() {
    let beam = boom(20);
    let model = beam.mesh().unwrap();
    let found = frequencies(&model.mass, &model.stiffness, &[]).unwrap();
    // Six rigid-body modes at (numerically) zero, then the first elastic one: bending in
    // the soft plane, β L = 4.73004 (Blevins, table 8-1, free–free).
    let rigid = found.iter().filter(|f| **f < 1e-3).count();
    assert_eq!(rigid, 6, "{:?}", &found[..8]);
    let target = bending(&beam, 4.73004, model.section.iz.min(model.section.iy));
    let first = found[6];
    assert!(
        (first - target).abs() < 0.01 * target,
        "{first} vs {target}"
    );
}

#[test]
fn bad_beams_are_refused_with_a_reason() {
    let mut b = boom(4);
    b.section = Section::Box {
        width: 0.2,
        height: 0.3,
        wall: 0.15,
    };
    assert!(b.mesh().unwrap_err().contains("wall"));
    let mut b = boom(0);
    assert!(b.mesh().unwrap_err().contains("at least one element"));
    b = boom(4);
    b.poisson = 0.7;
    assert!(b.mesh().unwrap_err().contains("Poisson"));
    b = boom(4);
    b.section = Section::Tube {
        outer_diameter: 0.1,
        wall: 0.06,
    };
    assert!(b.mesh().unwrap_err().contains("thicker"));
}

/// Rigid-body motions of a beam along x (columns: translations x, y, z; rotations about x,
/// y, z at the root), node DOFs (u, v, w, θx, θy, θz).
fn rigid_modes(nodes: &[f64]) -> nalgebra::DMatrix<f64> {
    let n = nodes.len();
    let mut r = nalgebra::DMatrix::zeros(n * NODE_DOFS, 6);
    for (k, &x) in nodes.iter().enumerate() {
        let at = k * NODE_DOFS;
        r[(at, 0)] = 1.0;
        r[(at + 1, 1)] = 1.0;
        r[(at + 2, 2)] = 1.0;
        r[(at + 3, 3)] = 1.0;
        r[(at + 2, 4)] = -x; // about y: w = −x, θy = 1
        r[(at + 4, 4)] = 1.0;
        r[(at + 1, 5)] = x; // about z: v = x, θz = 1
        r[(at + 5, 5)] = 1.0;
    }
    r
}

/// Craig–Bampton with the root and tip nodes as the interface and 12 fixed-interface modes:
/// the kept free-free modes reproduce the full model's lowest elastic frequencies, are
/// mass-orthonormal, and carry no rigid-body motion.
#[test]
fn craig_bampton_keeps_the_lowest_free_free_modes_without_rigid_body_content() {
    use super::reduction::craig_bampton;
    let beam = boom(20);
    let model = beam.mesh().unwrap();
    let last = model.nodes.len() - 1;
    let interface: Vec<usize> = (0..NODE_DOFS)
        .chain(last * NODE_DOFS..(last + 1) * NODE_DOFS)
        .collect();
    let r = craig_bampton(&model.mass, &model.stiffness, &interface, 12, 4).unwrap();
    let full = frequencies(&model.mass, &model.stiffness, &[]).unwrap();
    for (k, f) in r.frequencies.iter().enumerate() {
        let err = (f - full[6 + k]).abs() / full[6 + k];
        println!(
            "elastic mode {}: {f:.4} Hz (full model {:.4} Hz, {err:.1e})",
            k + 1,
            full[6 + k]
        );
        assert!(err < 2e-3, "mode {}: {f} vs {}", k + 1, full[6 + k]);
    }
    let gram = r.modes.transpose() * &model.mass * &r.modes;
    let identity = nalgebra::DMatrix::<f64>::identity(4, 4);
    assert!((gram - identity).amax() < 1e-9, "mass-orthonormal");
    let rigid = rigid_modes(&model.nodes);
    let coupling = rigid.transpose() * &model.mass * &r.modes;
    let rigid_mass = (rigid.transpose() * &model.mass * &rigid).amax();
    assert!(
        coupling.amax() < 1e-9 * rigid_mass.sqrt(),
        "{}",
        coupling.amax()
    );
    assert!(r.constrained_frequencies.iter().all(|f| *f > 0.0));
    // Bad input: more modes than the model has, an interface DOF outside it, a body whose
    // interface does not hold it.
    let n = model.mass.nrows();
    assert!(
        craig_bampton(&model.mass, &model.stiffness, &interface, 6, 500)
            .unwrap_err()
            .contains("elastic modes asked for")
    );
    assert!(
        craig_bampton(&model.mass, &model.stiffness, &[n + 3], 2, 1)
            .unwrap_err()
            .contains("not in the model")
    );
    assert!(
        craig_bampton(&model.mass, &model.stiffness, &[0, 1], 2, 1)
            .unwrap_err()
            .contains("do not hold the body")
    );
}

/// The cantilever's bending modes carry 61.31 %, 18.83 % and 6.47 % of its mass under a
/// base motion (the effective modal masses of a uniform clamped–free beam, e.g. Chopra,
/// *Dynamics of Structures*, §17.6, or Blevins).
#[test]
fn cantilever_modes_carry_their_closed_form_mass_shares() {
    use super::reduction::mass_shares;
    let beam = boom(40);
    let model = beam.mesh().unwrap();
    let shares = mass_shares(
        &model.mass,
        &model.stiffness,
        &clamped(),
        12,
        &NodeDofs::uniform(model.nodes.len(), NODE_DOFS),
    )
    .unwrap();
    for (d, expected) in [(1, [0.6131, 0.1883, 0.0647]), (2, [0.6131, 0.1883, 0.0647])] {
        let mut along: Vec<f64> = shares.iter().map(|s| s[d]).collect();
        along.sort_by(|a, b| b.total_cmp(a));
        println!("direction {d}: {:?}", &along[..3]);
        for (got, want) in along.iter().zip(expected) {
            assert!((got - want).abs() < 0.01 * want, "{got} vs {want}");
        }
    }
    // Axial: the first axial mode carries 8/π² = 81.06 %.
    let axial = shares.iter().map(|s| s[0]).fold(0.0, f64::max);
    assert!((axial - 8.0 / (PI * PI)).abs() < 0.01 * 0.8106, "{axial}");
}

mod ffrf {
    //! The reduction for the floating frame: clamped at the reference node (the root),
    //! against the cantilever's closed forms, and the invariants against the FE model's own
    //! kinetic energy `½ wᵀ M w`.

    use super::super::ffrf::{Damping, FeModel, reduce};
    use super::*;
    use fmu_runtime::mechanics::ffrf::{ModalState, kinetic_energy};
    use fmu_runtime::mechanics::spatial::Vec3;
    use nalgebra::{DMatrix, Vector3};

    fn fe(elements: usize) -> (Beam, FeModel) {
        let beam = boom(elements);
        let model = beam.mesh().unwrap();
        let fe = FeModel {
            mass: model.mass,
            stiffness: model.stiffness,
            positions: model.nodes.iter().map(|x| [*x, 0.0, 0.0]).collect(),
            dofs: NodeDofs::uniform(model.nodes.len(), NODE_DOFS),
            held: vec![],
        };
        (beam, fe)
    }

    fn tip(fe: &FeModel) -> Vec<(String, usize)> {
        vec![("tip".into(), fe.positions.len() - 1)]
    }

    #[test]
    fn clamped_modes_are_the_cantilevers() {
        let (beam, fe) = fe(20);
        let r = reduce(&fe, 0, &tip(&fe), 4, &Damping::Ratio(0.02)).unwrap();
        let s = beam.section.properties().unwrap();
        // The two lowest bending modes in each plane (β L = 1.87510, 4.69409).
        let mut targets = vec![
            bending(&beam, 1.87510, s.iy),
            bending(&beam, 1.87510, s.iz),
            bending(&beam, 4.69409, s.iy),
            bending(&beam, 4.69409, s.iz),
        ];
        targets.sort_by(f64::total_cmp);
        for (f, target) in r.frequencies.iter().zip(&targets) {
            let err = (f - target).abs() / target;
            println!("{f:.4} Hz vs Euler–Bernoulli {target:.4} Hz ({err:.1e})");
            assert!(err < 0.01, "{f} vs {target}");
        }
        // ω² on the diagonal, 2 ζ ω the damping, mass-normalised modes.
        for (k, f) in r.frequencies.iter().enumerate() {
            let w = 2.0 * PI * f;
            let fb = &r.flexible;
            assert!((fb.stiffness[k] / (w * w) - 1.0).abs() < 1e-6);
            assert!((fb.damping[k] / (0.04 * w) - 1.0).abs() < 1e-6);
            for l in 0..4 {
                let expected = if k == l { 1.0 } else { 0.0 };
                assert!((fb.invariants.modal_mass[k * 4 + l] - expected).abs() < 1e-9);
            }
        }
        // The first bending mode of a uniform cantilever carries 61.3 % of the mass.
        let share = r.mass_shares[0].iter().fold(0.0f64, |a, b| a.max(*b));
        assert!(
            (share - 0.6131).abs() < 0.005,
            "first mode's mass share {share}"
        );
        // Free–free: β L = 4.73004 in the weak plane first.
        let free = bending(&beam, 4.73004, s.iy.min(s.iz));
        assert!((r.free_frequencies[0] / free - 1.0).abs() < 0.01);
        assert!(r.flexible.check().is_ok());
    }

    #[test]
    fn tip_deflection_through_four_modes_is_p_l3_over_3_e_i() {
        let (beam, fe) = fe(20);
        let r = reduce(&fe, 0, &tip(&fe), 4, &Damping::Ratio(0.0)).unwrap();
        let s = beam.section.properties().unwrap();
        let (p, l) = (1e4, beam.length);
        let node = &r.flexible.nodes[0];
        // K η = Ψ_Rᵀ P with P along −z at the tip: bending in x–z, about y.
        let deflection: f64 = (0..4)
            .map(|k| {
                node.translation[k][2] * (node.translation[k][2] * -p) / r.flexible.stiffness[k]
            })
            .sum();
        let exact = -p * l.powi(3) / (3.0 * beam.young * s.iy);
        let err = (deflection / exact - 1.0).abs();
        println!("tip deflection {deflection:.6e} m vs PL³/3EI {exact:.6e} m ({err:.1e})");
        assert!(err < 0.01);
    }

    #[test]
    fn invariants_hold_the_rigid_beam_and_its_kinetic_energy() {
        let (beam, fe) = fe(20);
        let r = reduce(&fe, 0, &tip(&fe), 4, &Damping::Ratio(0.02)).unwrap();
        let inv = &r.flexible.invariants;
        let s = beam.section.properties().unwrap();
        let (m, l) = (beam.density * s.area * beam.length, beam.length);
        assert!((inv.mass / m - 1.0).abs() < 1e-12);
        assert!((inv.first_moment[0] / (m * l / 2.0) - 1.0).abs() < 1e-12);
        // About y and z through the end: m L²/3 (Euler–Bernoulli: no rotary inertia of
        // the section); about the axis: ρ J_p L.
        assert!((inv.inertia[1] / (m * l * l / 3.0) - 1.0).abs() < 1e-9);
        assert!((inv.inertia[2] / (m * l * l / 3.0) - 1.0).abs() < 1e-9);
        let polar = beam.density * (s.iy + s.iz) * l;
        assert!((inv.inertia[0] / polar - 1.0).abs() < 1e-9);

        // T = ½ wᵀ M w, w = Φ_t v + Θ(η) ω + Φ η̇: exact where the v–ω block is not
        // replaced by −[S(η)]× (η = 0, or v = 0).
        let phi = &r.shapes;
        for (eta, v) in [
            ([0.0; 4], Vector3::new(0.3, -1.2, 0.7)),
            ([0.4, -0.3, 0.2, 0.1], Vector3::zeros()),
        ] {
            let w = Vector3::new(0.5, 1.1, -0.8);
            let eta_d = [1.5, -2.0, 0.7, 3.0];
            let mut state = ModalState::new(inv);
            state.update(inv, &eta, &eta_d, &[0.0; 4]);
            let t = kinetic_energy(inv, &state, &Vec3::from(v), &Vec3::from(w));
            let reference = fe_kinetic_energy(&fe, phi, &eta, &eta_d, &v, &w);
            println!("T = {t} J, FE {reference} J");
            assert!((t / reference - 1.0).abs() < 1e-10, "{t} vs FE {reference}");
        }
    }

    fn fe_kinetic_energy(
        fe: &FeModel,
        phi: &DMatrix<f64>,
        eta: &[f64; 4],
        eta_d: &[f64; 4],
        v: &Vector3<f64>,
        w: &Vector3<f64>,
    ) -> f64 {
        let u = phi * nalgebra::DVector::from_column_slice(eta);
        let mut vel = phi * nalgebra::DVector::from_column_slice(eta_d);
        for (i, x) in fe.positions.iter().enumerate() {
            let t = fe.dofs.start(i);
            let pos = Vector3::new(x[0] + u[t], x[1] + u[t + 1], x[2] + u[t + 2]);
            let rot = Vector3::new(u[t + 3], u[t + 4], u[t + 5]);
            let (vt, vr) = (v + w.cross(&pos), w + w.cross(&rot));
            for d in 0..3 {
                vel[t + d] += vt[d];
                vel[t + 3 + d] += vr[d];
            }
        }
        0.5 * (vel.transpose() * &fe.mass * &vel)[(0, 0)]
    }
}

/// The sparse path (faer's Cholesky, subspace iteration) gives the dense path's body, and
/// reduces a 20,000-DOF model in seconds.
mod sparse {
    use super::super::ffrf::{Damping, FeModel, Reduction, reduce};
    use super::super::sparse::Sparse;
    use super::*;
    use std::time::Instant;

    fn positions(nodes: &[f64]) -> Vec<[f64; 3]> {
        nodes.iter().map(|x| [*x, 0.0, 0.0]).collect()
    }

    /// Nodes `tip` and the middle one as interface nodes.
    fn interface(nodes: usize) -> Vec<(String, usize)> {
        vec![("mid".into(), nodes / 2), ("tip".into(), nodes - 1)]
    }

    /// |x| of each mode's largest entry sign-aligned: modes are unique up to sign.
    fn aligned(r: &Reduction) -> nalgebra::DMatrix<f64> {
        let mut s = r.shapes.clone();
        for mut c in s.column_iter_mut() {
            let k = c.iamax();
            if c[k] < 0.0 {
                c *= -1.0;
            }
        }
        s
    }

    #[test]
    fn the_sparse_reduction_is_the_dense_one() {
        let beam = boom(20);
        let m = beam.mesh().unwrap();
        let dense = FeModel {
            mass: m.mass.clone(),
            stiffness: m.stiffness.clone(),
            positions: positions(&m.nodes),
            dofs: NodeDofs::uniform(m.nodes.len(), NODE_DOFS),
            held: vec![1, 3, 5],
        };
        let sparse = FeModel {
            mass: Sparse::from_dense(&m.mass),
            stiffness: Sparse::from_dense(&m.stiffness),
            positions: dense.positions.clone(),
            dofs: dense.dofs.clone(),
            held: dense.held.clone(),
        };
        let iface = interface(m.nodes.len());
        let d = reduce(&dense, 0, &iface, 4, &Damping::Ratio(0.02)).unwrap();
        let s = reduce(&sparse, 0, &iface, 4, &Damping::Ratio(0.02)).unwrap();
        let rel = |a: f64, b: f64| (a - b).abs() / b.abs().max(1e-300);
        for k in 0..4 {
            println!(
                "mode {}: {:.9} Hz dense, {:.9} Hz sparse; free–free {:.6} / {:.6} Hz",
                k + 1,
                d.frequencies[k],
                s.frequencies[k],
                d.free_frequencies[k],
                s.free_frequencies[k]
            );
            assert!(rel(s.frequencies[k], d.frequencies[k]) < 1e-9);
            assert!(rel(s.flexible.stiffness[k], d.flexible.stiffness[k]) < 1e-9);
            assert!(rel(s.free_frequencies[k], d.free_frequencies[k]) < 1e-8);
            assert!((s.mass_shares[k][2] - d.mass_shares[k][2]).abs() < 1e-9);
        }
        let gap = (aligned(&s) - aligned(&d)).amax() / aligned(&d).amax();
        println!("mode shapes differ by {gap:.1e} of their largest entry");
        assert!(gap < 1e-7, "{gap}");
        let (a, b) = (&s.flexible.invariants, &d.flexible.invariants);
        assert!(rel(a.mass, b.mass) < 1e-12);
        for i in 0..3 {
            assert!(rel(a.inertia[i], b.inertia[i]) < 1e-12);
        }
    }

    #[test]
    fn a_20000_dof_beam_reduces_in_seconds() {
        // 3,400 elements of the 6 m box: 3,401 nodes × 6 = 20,406 DOFs.
        let beam = boom(3400);
        let nodes: Vec<f64> = (0..=3400).map(|k| k as f64 * 6.0 / 3400.0).collect();
        let started = Instant::now();
        let (mass, stiffness) = beam.triplets(&nodes).unwrap();
        let fe = FeModel {
            mass: Sparse::from_triplets(&mass).unwrap(),
            stiffness: Sparse::from_triplets(&stiffness).unwrap(),
            positions: positions(&nodes),
            dofs: NodeDofs::uniform(nodes.len(), NODE_DOFS),
            held: vec![],
        };
        let r = reduce(&fe, 0, &interface(nodes.len()), 4, &Damping::Ratio(0.02)).unwrap();
        let seconds = started.elapsed().as_secs_f64();
        let s = beam.section.properties().unwrap();
        let mut targets = vec![
            bending(&beam, 1.87510, s.iy),
            bending(&beam, 1.87510, s.iz),
            bending(&beam, 4.69409, s.iy),
            bending(&beam, 4.69409, s.iz),
        ];
        targets.sort_by(f64::total_cmp);
        println!(
            "{} DOFs: assembled and reduced in {seconds:.2} s (target < 10 s)",
            mass.size
        );
        for (f, target) in r.frequencies.iter().zip(&targets) {
            let err = (f - target).abs() / target;
            println!("  {f:.5} Hz vs Euler–Bernoulli {target:.5} Hz ({err:.1e})");
            assert!(err < 0.01, "{f} vs {target}");
        }
        let free = bending(&beam, 4.73004, s.iy.min(s.iz));
        println!(
            "  free–free {:.5} Hz vs {free:.5} Hz",
            r.free_frequencies[0]
        );
        assert!((r.free_frequencies[0] / free - 1.0).abs() < 0.01);
        assert!(r.flexible.check().is_ok());
    }
}

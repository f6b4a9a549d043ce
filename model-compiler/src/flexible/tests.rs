//! The beam mesher against Euler–Bernoulli closed forms (issue 22's first checks).

use super::beam::{Beam, NODE_DOFS, Section};
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
    let shares = mass_shares(&model.mass, &model.stiffness, &clamped(), 12, NODE_DOFS).unwrap();
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

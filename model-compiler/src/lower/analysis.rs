//! Checks of the machine at its initial configuration, with the runtime's own kinematics:
//! the loops close (as the FMU's initialization will try), the degrees of freedom
//! (coordinates − rank Φ_z), a mass matrix that is regular on the free motions, and
//! cylinders whose initial pin distance lies within their stroke.

use super::Ctx;
use crate::description::Description;
use crate::diagnostic::Diagnostic;
use fmu_runtime::mechanics::Kinematics;
use fmu_runtime::mechanics::constraints::{self, ConstraintEval, PrismaticReference};
use fmu_runtime::mechanics::dynamics::mass_matrix;
use fmu_runtime::model::{CompiledModel, CutKind, Mechanism};
use nalgebra::{DMatrix, DVector, SymmetricEigen};
use std::ops::Range;

/// Mobility of the mechanism at its (assembled) initial configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    /// Joint coordinates z.
    pub coordinates: usize,
    /// Loop-closure equations Φ.
    pub constraint_equations: usize,
    /// Independent equations: rank Φ_z.
    pub rank: usize,
    /// Degrees of freedom: coordinates − rank.
    pub dof: usize,
    /// Equations that repeat others (constraint_equations − rank).
    pub redundant: usize,
    /// Largest loop-closure residual after assembly [m or rad].
    pub closure: f64,
}

/// Relative threshold of the singular values counted in the rank.
const RANK_TOLERANCE: f64 = 1e-9;

fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// Runs the checks; errors and warnings go to `cx`. Call only on a model without errors.
pub(super) fn analyse(cx: &mut Ctx, d: &Description, model: &CompiledModel) -> Analysis {
    let mech = &model.mechanism;
    let p: Vec<f64> = model.params.iter().map(|s| s.default).collect();
    let nz = mech.coordinates();
    let nc = mech.constraint_equations();
    let mut out = Analysis {
        coordinates: nz,
        constraint_equations: nc,
        dof: nz,
        ..Analysis::default()
    };
    let mut z = mech.initial_coordinates(&p);
    let zeros = vec![0.0; nz];
    let mut kin = Kinematics::new(mech);
    let mass = |b: &fmu_runtime::model::Body| p[b.mass.index()];
    let (mut phi, mut jac, mut bias) = (vec![0.0; nc], vec![0.0; nc * nz], vec![0.0; nc]);
    // Prismatic cuts keep the relative orientation they have at the initial coordinates,
    // as in the runtime.
    kin.update(mech, mass, &z, &zeros, &zeros);
    let mut prismatic = vec![PrismaticReference::default(); mech.cut_joints.len()];
    constraints::prismatic_references(mech, &kin, &mut prismatic);
    let mut eval = |kin: &mut Kinematics, z: &[f64], phi: &mut [f64], jac: &mut [f64]| {
        kin.update(mech, mass, z, &zeros, &zeros);
        constraints::evaluate(
            mech,
            kin,
            nz,
            &prismatic,
            ConstraintEval {
                phi,
                jacobian: jac,
                bias: &mut bias,
            },
        );
    };
    let cut_span = |i: usize| d.cut_joints.get(i).map(|c| c.name.span());
    let numbers_fail = |cx: &mut Ctx| {
        cx.errors.push(Diagnostic::global(
            "the initial configuration cannot be evaluated: the kinematics give non-finite numbers",
            "check for absurdly large lengths, angles or masses",
        ));
    };

    // Assembly: minimum-norm damped Gauss–Newton, as the FMU's initialization does.
    eval(&mut kin, &z, &mut phi, &mut jac);
    if nc > 0 {
        for _ in 0..50 {
            if !finite(&phi) || !finite(&jac) {
                numbers_fail(cx);
                return out;
            }
            if max_abs(&phi) < 1e-13 {
                break;
            }
            let j = DMatrix::from_row_slice(nc, nz, &jac);
            let mut a = &j * j.transpose();
            let mu = 1e-10 * (1.0 + a.trace() / nc as f64);
            for i in 0..nc {
                a[(i, i)] += mu;
            }
            let Some(y) = a.lu().solve(&DVector::from_column_slice(&phi)) else {
                break;
            };
            let dz = j.transpose() * y;
            for (zk, dk) in z.iter_mut().zip(dz.iter()) {
                *zk -= dk;
            }
            eval(&mut kin, &z, &mut phi, &mut jac);
        }
        if !finite(&phi) || !finite(&jac) {
            numbers_fail(cx);
            return out;
        }
        out.closure = max_abs(&phi);
        if out.closure >= 1e-9 {
            let (cut, row) = worst_cut(mech, &phi);
            let name = mech.cut_joints.get(cut).map_or("?", |c| c.name.as_str());
            cx.errors.push(Diagnostic::new(
                cut_span(cut),
                format!(
                    "the loops cannot be closed from the initial joint coordinates: cut joint '{name}' stays {:.3e} apart (equation {} of its {})",
                    phi[row].abs(),
                    row - first_row(mech, cut) + 1,
                    mech.cut_joints.get(cut).map_or(0, |c| c.equations())
                ),
                "check the cut joint's points and axes and the joints' `initial` values: the initial configuration must be close to one where the loop closes",
            ));
            return out;
        }
    }

    // Rank of Φ_z and the free motions (null space of Φ_z).
    let j = DMatrix::from_row_slice(nc, nz, &jac);
    let null_space = if nc > 0 && nz > 0 {
        let Some(svd) = j.clone().try_svd(false, true, 1e-15, 10_000) else {
            numbers_fail(cx);
            return out;
        };
        let s_max = svd.singular_values.max();
        let tol = RANK_TOLERANCE * s_max.max(f64::MIN_POSITIVE);
        let v_t = svd.v_t.expect("asked for V");
        // try_svd gives min(nc, nz) singular values; the rows of Vᵀ beyond them span the
        // rest of the null space only when Vᵀ is square, so complete it explicitly.
        out.rank = svd.singular_values.iter().filter(|s| **s > tol).count();
        null_basis(&v_t, &svd.singular_values, tol, nz)
    } else {
        DMatrix::identity(nz, nz)
    };
    out.dof = nz - out.rank;
    out.redundant = nc - out.rank;
    if nc > 0 && out.dof == 0 && nz > 0 {
        cx.errors.push(Diagnostic::new(
            cut_span(0),
            format!(
                "the mechanism is locked: {nz} joint coordinates and {} independent loop-closure equations leave 0 degrees of freedom",
                out.rank
            ),
            "a loop needs fewer constraints than coordinates: remove a cut joint, use a spherical instead of a revolute cut joint, or add a joint to the loop",
        ));
        return out;
    }
    if out.redundant > 0 {
        cx.warnings.push(
            Diagnostic::new(
                cut_span(0),
                format!(
                    "{} of the {nc} loop-closure equations are redundant at the initial configuration ({} degree{} of freedom)",
                    out.redundant,
                    out.dof,
                    if out.dof == 1 { "" } else { "s" }
                ),
                format!(
                    "fine for the solver (the augmented Lagrangian and the double-step formulation both handle redundant equations); typical of a planar loop closed by a cut joint written in 3D, whose equations a plane needs only 2 of: {}",
                    cut_joint_kinds(mech)
                ),
            )
            .warning(),
        );
    }

    // Mass matrix on the free motions.
    if nz > 0 {
        let mut composite = vec![Default::default(); mech.bodies.len()];
        let mut m = vec![0.0; nz * nz];
        mass_matrix(mech, &kin, &mut composite, &mut m);
        if !finite(&m) {
            numbers_fail(cx);
            return out;
        }
        let m = DMatrix::from_row_slice(nz, nz, &m);
        let scale = (0..nz).map(|i| m[(i, i)].abs()).fold(0.0, f64::max);
        let reduced = null_space.transpose() * &m * &null_space;
        let regular =
            scale > 0.0
                && match SymmetricEigen::try_new(reduced / scale, 1e-15, 10_000) {
                    Some(e) => {
                        let (k, lambda) = e.eigenvalues.iter().enumerate().fold(
                            (0, f64::INFINITY),
                            |b, (i, v)| if *v < b.1 { (i, *v) } else { b },
                        );
                        if lambda > 1e-10 {
                            true
                        } else {
                            let motion = &null_space * e.eigenvectors.column(k);
                            singular_motion(cx, mech, motion.as_slice());
                            return out;
                        }
                    }
                    None => true,
                };
        if !regular {
            singular_motion(cx, mech, &vec![1.0; nz]);
            return out;
        }
    }

    // Cylinders within their stroke.
    let cylinder_spans: Vec<Range<usize>> = d
        .hydraulics
        .as_ref()
        .map(|h| h.cylinders.iter().map(|c| c.name.span()).collect())
        .unwrap_or_default();
    for (i, c) in model.circuit.cylinders.iter().enumerate() {
        let (a, _) = kin.point(&c.cap_point);
        let (b, _) = kin.point(&c.rod_point);
        let length = (b - a).norm();
        let lo = p[c.retracted_length.index()];
        let hi = lo + p[c.stroke.index()];
        let tol = 1e-9 * hi.abs().max(1.0);
        if length < lo - tol || length > hi + tol {
            let (side, fix) = if length < lo {
                (
                    "shorter than its retracted length",
                    "increase the distance between the pins or reduce `retracted_length`",
                )
            } else {
                (
                    "longer than fully extended",
                    "reduce the distance between the pins or increase `retracted_length` or `stroke`",
                )
            };
            cx.errors.push(Diagnostic::new(
                cylinder_spans.get(i).cloned(),
                format!(
                    "cylinder '{}' is {} m pin to pin at the initial configuration, {side} (stroke range [{}, {}] m)",
                    c.name,
                    short(length),
                    short(lo),
                    short(hi)
                ),
                format!("{fix}; or change the joints' initial coordinates (the pins are at {} and {} in world coordinates)", point(a), point(b)),
            ));
        }
    }
    out
}

fn short(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn point(v: nalgebra::Vector3<f64>) -> String {
    format!("[{}, {}, {}]", short(v.x), short(v.y), short(v.z))
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |s, x| s.max(x.abs()))
}

fn first_row(mech: &Mechanism, cut: usize) -> usize {
    mech.cut_joints[..cut].iter().map(|c| c.equations()).sum()
}

/// The cut joint holding the largest residual, and that row.
fn worst_cut(mech: &Mechanism, phi: &[f64]) -> (usize, usize) {
    let row = (0..phi.len())
        .max_by(|a, b| phi[*a].abs().total_cmp(&phi[*b].abs()))
        .unwrap_or(0);
    let mut start = 0;
    for (i, c) in mech.cut_joints.iter().enumerate() {
        if row < start + c.equations() {
            return (i, row);
        }
        start += c.equations();
    }
    (0, row)
}

/// An orthonormal basis of the null space of Φ_z from its SVD (columns, nz × dof).
fn null_basis(v_t: &DMatrix<f64>, s: &DVector<f64>, tol: f64, nz: usize) -> DMatrix<f64> {
    // Rows of Vᵀ with a significant singular value span the row space; the null space is
    // its orthogonal complement, built by Gram–Schmidt against the unit vectors.
    let row_space: Vec<DVector<f64>> = (0..s.len())
        .filter(|&i| s[i] > tol)
        .map(|i| v_t.row(i).transpose())
        .collect();
    let mut basis: Vec<DVector<f64>> = row_space.clone();
    let mut null = Vec::new();
    for k in 0..nz {
        let mut e = DVector::zeros(nz);
        e[k] = 1.0;
        for b in &basis {
            let c = b.dot(&e);
            e -= b * c;
        }
        for b in &basis {
            let c = b.dot(&e);
            e -= b * c;
        }
        let n = e.norm();
        if n > 1e-8 {
            e /= n;
            basis.push(e.clone());
            null.push(e);
        }
    }
    if null.is_empty() {
        DMatrix::zeros(nz, 0)
    } else {
        DMatrix::from_columns(&null)
    }
}

/// Reports the joint whose coordinate dominates a motion that moves no mass.
fn singular_motion(cx: &mut Ctx, mech: &Mechanism, motion: &[f64]) {
    let coordinate = (0..motion.len())
        .max_by(|a, b| motion[*a].abs().total_cmp(&motion[*b].abs()))
        .unwrap_or(0);
    let body = mech
        .bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| b.joint.dof() == 1)
        .nth(coordinate)
        .map(|(i, _)| i)
        .unwrap_or(0);
    let Some(b) = mech.bodies.get(body) else {
        return;
    };
    let info = cx.body_info.get(body).cloned();
    let generated = info.as_ref().is_some_and(|i| i.generated);
    let help = if generated || b.joint_name.contains('.') {
        "the body turned by this joint needs rotational inertia about all its axes (a point mass at a spherical joint has none): use `inertia` or `parts` with a box or cylinder"
    } else {
        "give the bodies moved by this joint mass and inertia about its axis (a point mass on the axis or a slender rod along it has none); a `massless = true` body needs a massive body further out"
    };
    cx.errors.push(Diagnostic::new(
        info.map(|i| i.span),
        format!(
            "the mass matrix is singular at the initial configuration: moving joint '{}' moves no mass",
            b.joint_name
        ),
        help,
    ));
}

/// The cut joints as "'name' (kind, n equations)", for messages about the loops.
fn cut_joint_kinds(mech: &Mechanism) -> String {
    mech.cut_joints
        .iter()
        .map(|c| {
            let kind = match c.kind {
                CutKind::Spherical => "spherical",
                CutKind::Revolute { .. } => "revolute",
                CutKind::Prismatic { .. } => "prismatic",
            };
            format!("'{}' ({kind}, {} equations)", c.name, c.equations())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

//! Loop-closure constraints of cut joints: Φ(z), the Jacobian Φ_z and the velocity term
//! Φ̇_z ż (constraint acceleration with z̈ = 0).

use super::kinematics::Kinematics;
use super::spatial::{Vec3, ang, lin, vec3};
use crate::model::{CutJoint, CutKind, Mechanism, PointRef};

/// Two unit vectors orthogonal to `n` (and to each other).
pub fn orthonormal_pair(n: &Vec3) -> (Vec3, Vec3) {
    let helper = if n.x.abs() < 0.9 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let t1 = n.cross(&helper).normalize();
    let t2 = n.cross(&t1);
    (t1, t2)
}

/// Body-fixed reference vectors of a prismatic cut, taken at the initial configuration:
/// `axis_a`, `ref_a` in body a and `ref_b` in body b, such that initially
/// `R_a axis_a = R_b axis_b` and `R_a ref_a = R_b ref_b ⊥ axis_b`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PrismaticReference {
    pub axis_a: Vec3,
    pub ref_a: Vec3,
    pub ref_b: Vec3,
}

/// Reference vectors of every prismatic cut (others get a default entry), from the
/// current kinematics (the caller places the mechanism at its initial coordinates).
pub fn prismatic_references(mech: &Mechanism, kin: &Kinematics, out: &mut [PrismaticReference]) {
    for (cut, r) in mech.cut_joints.iter().zip(out.iter_mut()) {
        if let CutKind::Prismatic { axis_b } = cut.kind {
            let ka = kin.of(cut.a.body);
            let kb = kin.of(cut.b.body);
            let nb = vec3(axis_b).normalize();
            let rb = orthonormal_pair(&nb).0;
            let (nw, rw) = (kb.rotation * nb, kb.rotation * rb);
            *r = PrismaticReference {
                axis_a: ka.rotation.transpose() * nw,
                ref_a: ka.rotation.transpose() * rw,
                ref_b: rb,
            };
        }
    }
}

/// Outputs of one constraint evaluation (row-major Jacobian, nc × nz).
pub struct ConstraintEval<'a> {
    pub phi: &'a mut [f64],
    pub jacobian: &'a mut [f64],
    pub bias: &'a mut [f64],
}

/// Evaluates every cut joint. Rows of a cut joint are contiguous, in model order.
/// `prismatic` holds the reference vectors of [`prismatic_references`] (one per cut).
pub fn evaluate(
    mech: &Mechanism,
    kin: &Kinematics,
    nz: usize,
    prismatic: &[PrismaticReference],
    out: ConstraintEval<'_>,
) {
    out.jacobian.fill(0.0);
    let mut row = 0;
    for (i, cut) in mech.cut_joints.iter().enumerate() {
        let reference = prismatic.get(i).copied().unwrap_or_default();
        evaluate_cut(
            mech,
            kin,
            nz,
            cut,
            &reference,
            row,
            out.phi,
            out.jacobian,
            out.bias,
        );
        row += cut.equations();
    }
}

#[allow(clippy::too_many_arguments)]
fn evaluate_cut(
    mech: &Mechanism,
    kin: &Kinematics,
    nz: usize,
    cut: &CutJoint,
    reference: &PrismaticReference,
    row: usize,
    phi: &mut [f64],
    jac: &mut [f64],
    bias: &mut [f64],
) {
    // Point coincidence: Φ = p_a − p_b.
    let (pa, ba) = point_terms(kin, &cut.a);
    let (pb, bb) = point_terms(kin, &cut.b);
    let point_rows = match cut.kind {
        CutKind::Spherical | CutKind::Revolute { .. } => 3,
        CutKind::Prismatic { .. } => 0,
    };
    if point_rows == 3 {
        let d = pa - pb;
        for r in 0..3 {
            phi[row + r] = d[r];
            bias[row + r] = ba[r] - bb[r];
        }
        point_jacobian(mech, kin, nz, &cut.a, &pa, 1.0, row, jac);
        point_jacobian(mech, kin, nz, &cut.b, &pb, -1.0, row, jac);
    }
    let ka = kin.of(cut.a.body);
    let kb = kin.of(cut.b.body);
    match cut.kind {
        CutKind::Spherical => {}
        CutKind::Revolute { axis_a, axis_b } => {
            let n = ka.rotation * vec3(axis_a).normalize();
            let nb = kb.rotation * vec3(axis_b).normalize();
            let (t1, t2) = orthonormal_pair(&nb);
            // Body-fixed t1, t2 on b: Φ = n·t (parallel axes), rows row+3, row+4.
            for (r, t) in [(row + 3, t1), (row + 4, t2)] {
                dot_constraint(mech, kin, nz, cut, &n, &t, r, phi, jac, bias);
            }
        }
        CutKind::Prismatic { axis_b } => {
            let nb = kb.rotation * vec3(axis_b).normalize();
            let t1 = kb.rotation * reference.ref_b;
            let t2 = nb.cross(&t1);
            // Point a on the line through b along the axis: (p_a − p_b)·t = 0.
            for (r, t) in [(row, t1), (row + 1, t2)] {
                line_constraint(mech, kin, nz, cut, &t, r, phi, jac, bias);
            }
            // Parallel axes and no twist: body-a vectors orthogonal to body-b ones.
            let na = ka.rotation * reference.axis_a;
            let ra = ka.rotation * reference.ref_a;
            dot_constraint(mech, kin, nz, cut, &na, &t1, row + 2, phi, jac, bias);
            dot_constraint(mech, kin, nz, cut, &na, &t2, row + 3, phi, jac, bias);
            dot_constraint(mech, kin, nz, cut, &ra, &t2, row + 4, phi, jac, bias);
        }
    }
}

/// Row `r`: Φ = u·t with `u` fixed on body a and `t` fixed on body b (world vectors).
#[allow(clippy::too_many_arguments)]
fn dot_constraint(
    mech: &Mechanism,
    kin: &Kinematics,
    nz: usize,
    cut: &CutJoint,
    u: &Vec3,
    t: &Vec3,
    r: usize,
    phi: &mut [f64],
    jac: &mut [f64],
    bias: &mut [f64],
) {
    let (ka, kb) = (kin.of(cut.a.body), kin.of(cut.b.body));
    let (wa, wb) = (ka.angular_velocity(), kb.angular_velocity());
    let (aa, ab) = (ang(&ka.bias), ang(&kb.bias));
    let u_dot = wa.cross(u);
    let u_dd = aa.cross(u) + wa.cross(&u_dot);
    let t_dot = wb.cross(t);
    let t_dd = ab.cross(t) + wb.cross(&t_dot);
    phi[r] = u.dot(t);
    bias[r] = u_dd.dot(t) + 2.0 * u_dot.dot(&t_dot) + u.dot(&t_dd);
    kin.path(mech, cut.a.body, |c, b, _| {
        jac[r * nz + c] += ang(b).cross(u).dot(t)
    });
    kin.path(mech, cut.b.body, |c, b, _| {
        jac[r * nz + c] += u.dot(&ang(b).cross(t))
    });
}

/// Row `r`: Φ = (p_a − p_b)·t with `t` fixed on body b (a point on a line of body b).
#[allow(clippy::too_many_arguments)]
fn line_constraint(
    mech: &Mechanism,
    kin: &Kinematics,
    nz: usize,
    cut: &CutJoint,
    t: &Vec3,
    r: usize,
    phi: &mut [f64],
    jac: &mut [f64],
    bias: &mut [f64],
) {
    let (pa, acc_a) = point_terms(kin, &cut.a);
    let (pb, acc_b) = point_terms(kin, &cut.b);
    let (ka, kb) = (kin.of(cut.a.body), kin.of(cut.b.body));
    let d = pa - pb;
    let d_dot = ka.velocity_at(&pa) - kb.velocity_at(&pb);
    let wb = kb.angular_velocity();
    let t_dot = wb.cross(t);
    let t_dd = ang(&kb.bias).cross(t) + wb.cross(&t_dot);
    phi[r] = d.dot(t);
    bias[r] = (acc_a - acc_b).dot(t) + 2.0 * d_dot.dot(&t_dot) + d.dot(&t_dd);
    kin.path(mech, cut.a.body, |c, b, _| {
        jac[r * nz + c] += (lin(b) + ang(b).cross(&pa)).dot(t)
    });
    kin.path(mech, cut.b.body, |c, b, _| {
        jac[r * nz + c] += -(lin(b) + ang(b).cross(&pb)).dot(t) + d.dot(&ang(b).cross(t))
    });
}

/// World position of a point and its acceleration with z̈ = 0.
fn point_terms(kin: &Kinematics, p: &PointRef) -> (Vec3, Vec3) {
    let k = kin.of(p.body);
    let x = k.point(&vec3(p.point));
    (x, k.acceleration_at(&x, &k.bias))
}

/// Adds `sign · ∂x/∂z` of a point to three Jacobian rows.
#[allow(clippy::too_many_arguments)]
fn point_jacobian(
    mech: &Mechanism,
    kin: &Kinematics,
    nz: usize,
    p: &PointRef,
    x: &Vec3,
    sign: f64,
    row: usize,
    jac: &mut [f64],
) {
    kin.path(mech, p.body, |c, b, _| {
        let col = lin(b) + ang(b).cross(x);
        for r in 0..3 {
            jac[(row + r) * nz + c] += sign * col[r];
        }
    });
}

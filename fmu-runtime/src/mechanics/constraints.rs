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

/// Outputs of one constraint evaluation (row-major Jacobian, nc × nz).
pub struct ConstraintEval<'a> {
    pub phi: &'a mut [f64],
    pub jacobian: &'a mut [f64],
    pub bias: &'a mut [f64],
}

/// Evaluates every cut joint. Rows of a cut joint are contiguous, in model order.
pub fn evaluate(mech: &Mechanism, kin: &Kinematics, nz: usize, out: ConstraintEval<'_>) {
    out.jacobian.fill(0.0);
    let mut row = 0;
    for cut in &mech.cut_joints {
        evaluate_cut(mech, kin, nz, cut, row, out.phi, out.jacobian, out.bias);
        row += cut.equations();
    }
}

#[allow(clippy::too_many_arguments)]
fn evaluate_cut(
    mech: &Mechanism,
    kin: &Kinematics,
    nz: usize,
    cut: &CutJoint,
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
    match cut.kind {
        CutKind::Spherical => {}
        CutKind::Revolute { axis_a, axis_b } => {
            let ka = kin.of(cut.a.body);
            let kb = kin.of(cut.b.body);
            let n = ka.rotation * vec3(axis_a).normalize();
            let nb = kb.rotation * vec3(axis_b).normalize();
            let (t1, t2) = orthonormal_pair(&nb);
            // Body-fixed t1, t2 on b: Φ = n·t (parallel axes), rows row+3, row+4.
            let (wa, wb) = (ka.angular_velocity(), kb.angular_velocity());
            let (aa, ab) = (ang(&ka.bias), ang(&kb.bias));
            let n_dot = wa.cross(&n);
            let n_dd = aa.cross(&n) + wa.cross(&n_dot);
            for (r, t) in [(row + 3, t1), (row + 4, t2)] {
                phi[r] = n.dot(&t);
                let t_dot = wb.cross(&t);
                let t_dd = ab.cross(&t) + wb.cross(&t_dot);
                bias[r] = n_dd.dot(&t) + 2.0 * n_dot.dot(&t_dot) + n.dot(&t_dd);
                kin.path(mech, cut.a.body, |c, k| {
                    jac[r * nz + c] += ang(&k.b).cross(&n).dot(&t)
                });
                kin.path(mech, cut.b.body, |c, k| {
                    jac[r * nz + c] += n.dot(&ang(&k.b).cross(&t))
                });
            }
        }
        CutKind::Prismatic { .. } => {
            // Rejected by model validation; nothing to evaluate.
        }
    }
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
    kin.path(mech, p.body, |c, k| {
        let col = lin(&k.b) + ang(&k.b).cross(x);
        for r in 0..3 {
            jac[(row + r) * nz + c] += sign * col[r];
        }
    });
}

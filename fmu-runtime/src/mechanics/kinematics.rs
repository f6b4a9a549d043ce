//! Forward recursion from the root to the leaves: poses, Z twists and accelerations; the
//! Jacobian of a distance between two body points.

use super::ffrf::{self, ModalState};
use super::spatial::{
    Mat3, Vec3, Vec6, ang, axis_angle, inertia_matrix, join, lin, quat_matrix, vec3,
};
use crate::model::{Body, JointKind, Mechanism, PointRef};

/// Kinematic state of one body, all in world axes.
#[derive(Clone, Copy, Debug)]
pub struct BodyKinematics {
    /// Body → world rotation.
    pub rotation: Mat3,
    /// Origin of the body frame.
    pub origin: Vec3,
    /// Centre of mass.
    pub com: Vec3,
    /// Inertia about the centre of mass in body axes (constant: the dynamics turn the
    /// rates into body axes instead of the tensor into world axes, which cost more).
    pub inertia: Mat3,
    pub mass: f64,
    /// Twist column of the body's joint: `Z_body = Z_parent + b ż`.
    pub b: Vec6,
    /// Its time derivative (the joint axis moves with the parent).
    pub b_dot: Vec6,
    /// Z twist `[ṡ; ω]`.
    pub twist: Vec6,
    /// Time derivative of the twist with all joint accelerations set to zero.
    pub bias: Vec6,
    /// Time derivative of the twist.
    pub accel: Vec6,
    /// Index of the joint coordinate, if the joint has one.
    pub coordinate: Option<usize>,
}

impl BodyKinematics {
    /// The fixed ground (and a body at rest at the origin).
    pub const GROUND: BodyKinematics = BodyKinematics {
        rotation: Mat3::new(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0),
        origin: Vec3::new(0.0, 0.0, 0.0),
        com: Vec3::new(0.0, 0.0, 0.0),
        inertia: Mat3::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        mass: 0.0,
        b: Vec6::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        b_dot: Vec6::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        twist: Vec6::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        bias: Vec6::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        accel: Vec6::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        coordinate: None,
    };

    /// World position of a body-fixed point.
    #[inline]
    pub fn point(&self, local: &Vec3) -> Vec3 {
        self.origin + self.rotation * local
    }

    /// Velocity of the body point at world position `p`.
    #[inline]
    pub fn velocity_at(&self, p: &Vec3) -> Vec3 {
        lin(&self.twist) + ang(&self.twist).cross(p)
    }

    /// Acceleration of the body point at world position `p`, from a twist derivative.
    pub fn acceleration_at(&self, p: &Vec3, twist_dot: &Vec6) -> Vec3 {
        let w = ang(&self.twist);
        lin(twist_dot) + ang(twist_dot).cross(p) + w.cross(&self.velocity_at(p))
    }

    pub fn angular_velocity(&self) -> Vec3 {
        ang(&self.twist)
    }

    /// Inertia about the centre of mass in world axes, `R I Rᵀ`.
    pub fn world_inertia(&self) -> Mat3 {
        self.rotation * self.inertia * self.rotation.transpose()
    }
}

/// Kinematics of the whole tree; index = body index.
#[derive(Clone, Debug)]
pub struct Kinematics {
    pub bodies: Vec<BodyKinematics>,
    /// Joint-frame rotations in the parent frame, converted once from the model's
    /// quaternions (they are constant).
    frame_rotations: Vec<Mat3>,
    /// Per flexible body (as [`Mechanism::flexible`]): modal coordinates and inertia.
    pub modal: Vec<ModalState>,
    /// Per body: its index among the flexible bodies, if it is one.
    flexible_of: Vec<Option<usize>>,
    /// Per body: for an interface node, the z index of its flexible body's first modal
    /// coordinate and the node's Z-twist column per mode with its rate.
    node_columns: Vec<Option<NodeColumns>>,
}

/// The z index of a flexible body's first modal coordinate, and per mode the Z-twist
/// column of one of its interface nodes with the column's rate.
type NodeColumns = (usize, Vec<(Vec6, Vec6)>);

/// Frame of a joint and its parent data, as needed by the recursion.
struct JointFrame {
    rotation: Mat3,
    origin: Vec3,
}

impl Kinematics {
    pub fn new(mech: &Mechanism) -> Kinematics {
        let bodies = mech
            .coordinate_indices()
            .into_iter()
            .zip(&mech.bodies)
            .map(|(coordinate, b)| BodyKinematics {
                coordinate,
                inertia: inertia_matrix(b.inertia),
                ..BodyKinematics::GROUND
            })
            .collect();
        let frame_rotations = mech
            .bodies
            .iter()
            .map(|b| quat_matrix(b.joint_frame.rotation))
            .collect();
        let mut flexible_of = vec![None; mech.bodies.len()];
        for (f, fb) in mech.flexible.iter().enumerate() {
            if let Some(slot) = flexible_of.get_mut(fb.body) {
                *slot = Some(f);
            }
        }
        let node_columns = mech
            .bodies
            .iter()
            .map(|b| match b.joint {
                JointKind::Node { flexible, .. } => mech.flexible.get(flexible).map(|fb| {
                    (
                        mech.modal_start(flexible),
                        vec![(Vec6::zeros(), Vec6::zeros()); fb.modes()],
                    )
                }),
                _ => None,
            })
            .collect();
        Kinematics {
            bodies,
            frame_rotations,
            modal: mech
                .flexible
                .iter()
                .map(|f| ModalState::new(&f.invariants))
                .collect(),
            flexible_of,
            node_columns,
        }
    }

    /// For an interface node: the z index of its flexible body's first modal coordinate
    /// and the node's Z-twist column per mode with its rate.
    pub fn node_columns(&self, body: usize) -> Option<(usize, &[(Vec6, Vec6)])> {
        self.node_columns[body]
            .as_ref()
            .map(|(start, columns)| (*start, &columns[..]))
    }

    /// The flexible body index of `body`, if it is one.
    pub fn flexible_of(&self, body: usize) -> Option<usize> {
        self.flexible_of[body]
    }

    /// Turns the joint frame of `body` further by `chart` (after its constant rotation):
    /// the reference frame of a re-charted z-y-x rotation (see `solver::charts`).
    pub fn set_chart(&mut self, mech: &Mechanism, body: usize, chart: &Mat3) {
        self.frame_rotations[body] = quat_matrix(mech.bodies[body].joint_frame.rotation) * chart;
    }

    /// Kinematics of `body`, or the fixed ground for `None`.
    #[inline]
    pub fn of(&self, body: Option<usize>) -> &BodyKinematics {
        match body {
            Some(i) => &self.bodies[i],
            None => &BodyKinematics::GROUND,
        }
    }

    /// World position and velocity of a point.
    #[inline]
    pub fn point(&self, p: &PointRef) -> (Vec3, Vec3) {
        let k = self.of(p.body);
        let x = k.point(&vec3(p.point));
        (x, k.velocity_at(&x))
    }

    /// Recomputes every body from the joint coordinates, rates and accelerations.
    /// `mass` gives each body's current mass (masses are tunable parameters).
    pub fn update(
        &mut self,
        mech: &Mechanism,
        mass: impl Fn(&Body) -> f64,
        z: &[f64],
        zd: &[f64],
        zdd: &[f64],
    ) {
        for (i, body) in mech.bodies.iter().enumerate() {
            // Parents come before their children (the compiler orders the tree so).
            let (done, rest) = self.bodies.split_at_mut(i);
            let (parent, frame) = match body.parent {
                Some(j) => {
                    let parent = &done[j];
                    let frame = JointFrame {
                        // An interface node turns between parent and frame (below).
                        rotation: match body.joint {
                            JointKind::Node { .. } => Mat3::identity(),
                            _ => parent.rotation * self.frame_rotations[i],
                        },
                        origin: parent.point(&vec3(body.joint_frame.origin)),
                    };
                    (parent, frame)
                }
                // On the ground the joint frame is its own (no product with the identity).
                None => (
                    &BodyKinematics::GROUND,
                    JointFrame {
                        rotation: self.frame_rotations[i],
                        origin: vec3(body.joint_frame.origin),
                    },
                ),
            };
            let coordinate = rest[0].coordinate;
            // An interface node: its translation, turn and their rates, computed once for
            // pose and columns.
            let node = match body.joint {
                JointKind::Node { flexible, node } => {
                    let (n, state) = (&mech.flexible[flexible].nodes[node], &self.modal[flexible]);
                    let (shift, turn) = ffrf::node_deformation(n, &state.eta);
                    let (shift_rate, turn_rate) = ffrf::node_deformation(n, &state.eta_d);
                    Some((shift, shift_rate, ffrf::NodeTurn::new(&turn, &turn_rate)))
                }
                _ => None,
            };
            let (q, qd, qdd) = match coordinate {
                Some(c) => (z[c], zd[c], zdd[c]),
                None => (0.0, 0.0, 0.0),
            };
            // A joint on the ground has a fixed axis: its column does not change (b_dot = 0)
            // and the parent adds no motion (a tenth of a one-body machine's evaluation).
            let on_ground = body.parent.is_none();
            let w_parent = ang(&parent.twist);
            let (rotation, origin, b, b_dot) = match body.joint {
                JointKind::Revolute { axis } => {
                    let a = vec3(axis);
                    let n = frame.rotation * a;
                    let r = frame.origin;
                    let b = join(r.cross(&n), n);
                    let b_dot = if on_ground {
                        Vec6::zeros()
                    } else {
                        // The joint point moves with the parent.
                        let r_dot = lin(&parent.twist) + w_parent.cross(&r);
                        let n_dot = w_parent.cross(&n);
                        join(r_dot.cross(&n) + r.cross(&n_dot), n_dot)
                    };
                    (frame.rotation * axis_angle(&a, q), r, b, b_dot)
                }
                JointKind::Prismatic { axis } => {
                    let u = frame.rotation * vec3(axis);
                    let b = join(u, Vec3::zeros());
                    let b_dot = join(w_parent.cross(&u), Vec3::zeros());
                    (frame.rotation, frame.origin + u * q, b, b_dot)
                }
                JointKind::Fixed => (frame.rotation, frame.origin, Vec6::zeros(), Vec6::zeros()),
                JointKind::Node { .. } => {
                    let (shift, _, turn) = node.as_ref().unwrap_or_else(|| unreachable!());
                    let frame_rotation = &self.frame_rotations[i];
                    let turned = if *frame_rotation == Mat3::identity() {
                        turn.rotation
                    } else {
                        turn.rotation * frame_rotation
                    };
                    (
                        parent.rotation * turned,
                        frame.origin + parent.rotation * shift,
                        Vec6::zeros(),
                        Vec6::zeros(),
                    )
                }
            };
            let k = &mut rest[0];
            k.rotation = rotation;
            k.origin = origin;
            k.com = origin + rotation * vec3(body.com);
            k.mass = mass(body);
            k.b = b;
            k.b_dot = b_dot;
            if on_ground {
                k.twist = b * qd;
                k.bias = Vec6::zeros();
                k.accel = b * qdd;
            } else {
                k.twist = parent.twist + b * qd;
                k.bias = parent.bias + b_dot * qd;
                k.accel = parent.accel + b * qdd + b_dot * qd;
            }
            if let Some(f) = self.flexible_of[i] {
                let fb = &mech.flexible[f];
                let start = mech.modal_start(f);
                let range = start..start + fb.modes();
                let state = &mut self.modal[f];
                state.update(
                    &fb.invariants,
                    &z[range.clone()],
                    &zd[range.clone()],
                    &zdd[range],
                );
                k.mass = fb.invariants.mass;
                k.com = origin + rotation * (state.first_moment / fb.invariants.mass);
            }
            if let (
                JointKind::Node { flexible, node: n },
                Some((_, columns)),
                Some((_, shift_rate, turn)),
            ) = (body.joint, self.node_columns[i].as_mut(), node.as_ref())
            {
                let n = &mech.flexible[flexible].nodes[n];
                let state = &self.modal[flexible];
                let (r, w) = (parent.rotation, ang(&parent.twist));
                let (rj, rj_dot) = (r * turn.jacobian, r * turn.jacobian_rate);
                let x = origin;
                let x_dot = parent.velocity_at(&x) + r * shift_rate;
                for (kk, col) in columns.iter_mut().enumerate() {
                    *col = ffrf::node_column(
                        &r,
                        &w,
                        &rj,
                        &rj_dot,
                        &vec3(n.translation[kk]),
                        &vec3(n.rotation[kk]),
                        &x,
                        &x_dot,
                    );
                    let (ed, edd) = (state.eta_d[kk], state.eta_dd[kk]);
                    k.twist += col.0 * ed;
                    k.bias += col.1 * ed;
                    k.accel += col.0 * edd + col.1 * ed;
                }
            }
        }
    }

    /// `J = ∂ℓ/∂z` of the distance ℓ between two body points, `e·(∂x_b/∂z − ∂x_a/∂z)`, into
    /// `row`, and its time derivative `J̇` into `rate` (so that `∂ℓ̇/∂z = J̇` at fixed joint
    /// rates).
    pub fn line_jacobian(
        &self,
        mech: &Mechanism,
        a: &PointRef,
        b: &PointRef,
        row: &mut [f64],
        rate: &mut [f64],
    ) {
        row.fill(0.0);
        rate.fill(0.0);
        let (xa, va) = self.point(a);
        let (xb, vb) = self.point(b);
        let d = xb - xa;
        let length = d.norm();
        if length <= 1e-12 {
            return;
        }
        let e = d / length;
        let dv = vb - va;
        let e_dot = (dv - e * e.dot(&dv)) / length;
        for (x, xv, body, sign) in [(xb, vb, b.body, 1.0), (xa, va, a.body, -1.0)] {
            self.path(mech, body, |k, col, col_dot| {
                let v = lin(col) + ang(col).cross(&x);
                let v_dot = lin(col_dot) + ang(col_dot).cross(&x) + ang(col).cross(&xv);
                row[k] += sign * e.dot(&v);
                rate[k] += sign * (e_dot.dot(&v) + e.dot(&v_dot));
            });
        }
    }

    /// `∂(d·x)/∂z` of the body point at world position `x` (velocity `xv`) along a fixed
    /// world direction `d`, added into `row`, and its time derivative at fixed `d` added
    /// into `rate` (a contact's normal and slip directions).
    #[allow(clippy::too_many_arguments)]
    pub fn direction_jacobian(
        &self,
        mech: &Mechanism,
        body: usize,
        x: &Vec3,
        xv: &Vec3,
        d: &Vec3,
        row: &mut [f64],
        rate: &mut [f64],
    ) {
        self.path(mech, Some(body), |k, col, col_dot| {
            let v = lin(col) + ang(col).cross(x);
            let v_dot = lin(col_dot) + ang(col_dot).cross(x) + ang(col).cross(xv);
            row[k] += d.dot(&v);
            rate[k] += d.dot(&v_dot);
        });
    }

    /// The coordinates that move `body`, from it to the root, each with its Z-twist column
    /// and the column's rate: `visit(coordinate, column, rate)`. An interface node of a
    /// flexible body is moved by that body's modal coordinates (the body's own frame is not).
    pub fn path(
        &self,
        mech: &Mechanism,
        body: Option<usize>,
        mut visit: impl FnMut(usize, &Vec6, &Vec6),
    ) {
        let mut cur = body;
        while let Some(i) = cur {
            let k = &self.bodies[i];
            if let Some(c) = k.coordinate {
                visit(c, &k.b, &k.b_dot);
            }
            if let Some((start, columns)) = &self.node_columns[i] {
                for (kk, (col, col_dot)) in columns.iter().enumerate() {
                    visit(start + kk, col, col_dot);
                }
            }
            cur = mech.bodies[i].parent;
        }
    }
}

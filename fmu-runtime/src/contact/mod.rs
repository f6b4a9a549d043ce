//! Contact between bodies' collision shapes, the ground and each other, as forces inside
//! the implicit step (seed 000 §2.12: detection, then a penalty response).
//!
//! Each evaluation finds every candidate point of every shape pair ([`ground`] against the
//! ground, [`pairwise`] between two bodies after a bounding-sphere test: each shape's
//! sphere is placed once per evaluation, and a pair found apart again leaves its point
//! slots as they are, so that a pile's thousands of far pairs cost a distance each), and
//! where one penetrates applies the normal force of [`law`] along the contact normal and
//! friction against the relative slip, at that point of the body (and the reaction on the
//! other).
//! Forces are continuous in the coordinates and rates, so the Newton step, the Model
//! Exchange derivatives and the FMU state need nothing beyond the mechanism's; the tangent
//! takes each active point's slopes along its Jacobians (`solver::assembled`). Buffers are
//! sized from the model once.

pub mod bristle;
pub mod ground;
pub mod law;
pub mod pairwise;
pub mod polytope;

use crate::mechanics::Kinematics;
use crate::mechanics::base::BaseMotion;
use crate::mechanics::dynamics::add_point_force;
use crate::mechanics::spatial::{Vec3, Vec6, join};
use crate::model::{
    BRISTLE_STATES, Bristles, Contacts, MAX_POINTS, Material, Mechanism, REFERENCE_DEPTH,
};
use bristle::{BristlePoint, Lugre};
use ground::Candidate;
use pairwise::Solid;
use polytope::PlacedHull;

/// One candidate contact point at the last evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactPoint {
    /// The body it is on, and the other body it touches (none: the ground).
    pub body: usize,
    pub other: Option<usize>,
    /// World position, unit normal pushing the body out (of the ground or the other body).
    pub point: Vec3,
    pub normal: Vec3,
    /// Slip speed across the normal [m/s] and its direction (zero when not slipping).
    pub speed: f64,
    pub direction: Vec3,
    pub normal_law: law::Normal,
    pub friction_law: law::Friction,
    /// The regularized law's stiction speed v_ε [m/s] (what the slip limiter reads).
    pub stiction_velocity: f64,
    /// LuGre's bristles at this point (none: regularized Coulomb friction).
    pub bristle: Option<BristlePoint>,
}

impl ContactPoint {
    /// Whether the point carries force (the tangent's active set).
    pub fn active(&self) -> bool {
        self.normal_law.force > 0.0
    }
}

/// What one pair's outputs report.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairSummary {
    /// Total normal force [N], deepest penetration [m] (≤ 0: apart), normal-force-weighted
    /// slip speed [m/s], magnitude of the total friction force [N], points in contact.
    pub normal_force: f64,
    pub penetration: f64,
    pub slip_speed: f64,
    pub friction_force: f64,
    pub points: usize,
    /// Between two bodies: the smallest gap between the bounding spheres of their shapes
    /// over the sum of the spheres' radii (≤ 0: overlapping; what `solver::near_pairs`
    /// reads); against the ground +∞.
    pub nearness: f64,
}

/// Buffers of the contact evaluation, allocated once.
#[derive(Clone, Debug)]
pub struct ContactScratch {
    pub points: Vec<ContactPoint>,
    pub pairs: Vec<PairSummary>,
    candidates: Vec<Candidate>,
    /// Each shape's bounding sphere at this evaluation (centre, radius), and per shape
    /// contact (pair then shape order) whether its point slots hold the apart points.
    bounds: Vec<(Vec3, f64)>,
    apart: Vec<bool>,
    /// The slots of the points carrying force, ascending.
    active_points: Vec<usize>,
    /// The two shapes' hulls of a body pair placed in world coordinates.
    placed: [PlacedHull; 2],
    /// Elastic energy stored [J], power the contacts take out of the mechanism [W] (≤ 0
    /// up to the clamp's release of stored energy), points carrying force.
    pub energy: f64,
    pub power: f64,
    pub active: usize,
    /// Total wrench of the contact forces about the world origin `[F; M]` (external to
    /// the machine).
    pub wrench: Vec6,
}

impl ContactScratch {
    pub fn new(c: &Contacts) -> ContactScratch {
        ContactScratch {
            points: vec![ContactPoint::default(); c.points()],
            pairs: vec![PairSummary::default(); c.pairs.len()],
            candidates: vec![Candidate::default(); MAX_POINTS.max(c.most_points())],
            bounds: vec![(Vec3::zeros(), 0.0); c.shapes.len()],
            apart: vec![false; c.pairs.iter().map(|p| p.shapes.len()).sum()],
            active_points: Vec::with_capacity(c.points()),
            placed: std::array::from_fn(|_| {
                let most = |f: fn(&crate::model::Hull) -> usize| c.hulls.iter().map(f).max();
                PlacedHull::with_capacity(
                    most(|h| h.vertices.len()).unwrap_or(0),
                    most(|h| h.planes.len()).unwrap_or(0),
                )
            }),
            energy: 0.0,
            power: 0.0,
            active: 0,
            wrench: Vec6::zeros(),
        }
    }

    /// Detects every contact at the current kinematics, computes its forces with the
    /// parameters `p` and the bristle deflections `z` (the bristle states of w), and adds
    /// them to the bodies' applied wrenches. The kinematics are relative to the `base`;
    /// the ground is fixed in the world (where a carrier moves the base, the shapes are
    /// placed in the world to meet it, and the ground moves under them).
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate(
        &mut self,
        c: &Contacts,
        kin: &Kinematics,
        base: &BaseMotion,
        p: &[f64],
        z: &[f64],
        applied: &mut [Vec6],
    ) {
        self.energy = 0.0;
        self.power = 0.0;
        self.active = 0;
        self.active_points.clear();
        self.wrench = Vec6::zeros();
        for (bound, shape) in self.bounds.iter_mut().zip(&c.shapes) {
            *bound = pairwise::bounds(&shape.geometry, &kin.bodies[shape.body], &c.hulls);
        }
        let mut next = 0;
        let mut bristles = 0;
        let mut contact_index = 0;
        for (pi, pair) in c.pairs.iter().enumerate() {
            let body = &kin.bodies[pair.body];
            let other = pair.other.map(|o| (o.body, &kin.bodies[o.body]));
            let own_mass = p[pair.mass.index()];
            let mass = match pair.other {
                // The reduced mass: what one impact's restitution depends on.
                Some(o) => {
                    let m = p[o.mass.index()];
                    own_mass * m / (own_mass + m)
                }
                None => own_mass,
            };
            let mut sum = PairSummary {
                penetration: f64::NEG_INFINITY,
                nearness: f64::INFINITY,
                ..PairSummary::default()
            };
            let (mut friction_total, mut weighted_speed) = (Vec3::zeros(), 0.0);
            for sc in &pair.shapes {
                let count = c.points_of(sc);
                let shape = &c.shapes[sc.shape];
                let first_bristle = bristles;
                if sc.bristles.is_some() {
                    bristles += BRISTLE_STATES * count;
                }
                let bristle_of = |k: usize| first_bristle + BRISTLE_STATES * k;
                let slot = contact_index;
                contact_index += 1;
                let was_apart = std::mem::replace(&mut self.apart[slot], false);
                let (stiffness, coulomb) = match (sc.other, other) {
                    (Some(b), Some((_, kb))) => {
                        let ((ca, ra), (cb, rb)) = (self.bounds[sc.shape], self.bounds[b]);
                        let (gap, reach) = ((ca - cb).norm() - ra - rb, ra + rb);
                        sum.nearness = sum.nearness.min(gap / reach);
                        // (A NaN gap is not apart: the narrow phase meets it.)
                        if gap > 0.0 {
                            sum.penetration = sum.penetration.max(-gap);
                            if !was_apart {
                                for k in 0..count {
                                    self.points[next + k] = ContactPoint {
                                        bristle: sc
                                            .bristles
                                            .map(|_| BristlePoint::apart(bristle_of(k))),
                                        ..ContactPoint::default()
                                    };
                                }
                            }
                            self.apart[slot] = true;
                            next += count;
                            continue;
                        }
                        let [placed_a, placed_b] = &mut self.placed;
                        pairwise::candidates(
                            &Solid::placed(&shape.geometry, body, &c.hulls, placed_a),
                            &Solid::placed(&c.shapes[b].geometry, kb, &c.hulls, placed_b),
                            &mut self.candidates[..count],
                        );
                        combined(&shape.material, &c.shapes[b].material, p)
                    }
                    _ => {
                        let Some(ground) = &c.ground else { return };
                        let out = &mut self.candidates[..count];
                        if base.fixed {
                            ground::candidates(&shape.geometry, body, ground, &c.hulls, out);
                        } else {
                            let world = base.world_pose(body);
                            ground::candidates(&shape.geometry, &world, ground, &c.hulls, out);
                            for cand in out.iter_mut() {
                                cand.point = base.point_to_base(&cand.point);
                                cand.normal = base.to_base(&cand.normal);
                            }
                        }
                        (
                            p[shape.material.stiffness.index()],
                            coulomb_of(&shape.material, p),
                        )
                    }
                };
                let big_k = law::coefficient(stiffness, sc.exponent, REFERENCE_DEPTH);
                let lugre = sc.bristles.map(|b| lugre_of(&b, &coulomb, p));
                for (k, cand) in self.candidates[..count].iter().enumerate() {
                    let v = match other {
                        Some((_, kb)) => {
                            body.velocity_at(&cand.point) - kb.velocity_at(&cand.point)
                        }
                        // The ground is still in the world: it moves against a carried base.
                        None if !base.fixed => {
                            body.velocity_at(&cand.point) + base.velocity_at(&cand.point)
                        }
                        None => body.velocity_at(&cand.point),
                    };
                    let n = cand.normal;
                    let depth_rate = -n.dot(&v);
                    let slip = v + n * depth_rate;
                    let speed = slip.norm();
                    let normal_law =
                        law::normal(cand.depth, depth_rate, big_k, sc.exponent, sc.damping, mass);
                    let (friction, friction_law, direction, bristle) = match &lugre {
                        None => {
                            let law = law::friction(speed, normal_law.force, &coulomb);
                            let direction = if speed > 0.0 {
                                slip / speed
                            } else {
                                Vec3::zeros()
                            };
                            (-direction * law.force, law, direction, None)
                        }
                        Some(lugre) => {
                            let state = bristle_of(k);
                            let mut b = if normal_law.force > 0.0 {
                                BristlePoint::touching(state, n, slip, normal_law.force, lugre)
                            } else {
                                BristlePoint::apart(state)
                            };
                            b.force = b.force_at(&deflection(z, state));
                            let (law, direction) = bristle_law(&b, normal_law.force);
                            (b.force, law, direction, Some(b))
                        }
                    };
                    let point = ContactPoint {
                        body: pair.body,
                        other: other.map(|(b, _)| b),
                        point: cand.point,
                        normal: n,
                        speed,
                        direction,
                        normal_law,
                        friction_law,
                        stiction_velocity: coulomb.stiction_velocity,
                        bristle,
                    };
                    sum.penetration = sum.penetration.max(cand.depth);
                    self.energy += normal_law.energy;
                    if point.active() {
                        let force = n * normal_law.force + friction;
                        add_point_force(applied, Some(pair.body), &cand.point, &force);
                        match other {
                            // Action and reaction at one point: no net wrench.
                            Some((b, _)) => add_point_force(applied, Some(b), &cand.point, &-force),
                            None => self.wrench += join(force, cand.point.cross(&force)),
                        }
                        sum.normal_force += normal_law.force;
                        sum.points += 1;
                        friction_total += friction;
                        weighted_speed += normal_law.force * speed;
                        self.active += 1;
                        self.active_points.push(next);
                    }
                    // The damper's power and the friction's; the spring's goes into the
                    // stored energy (all of it where the clamp holds the force at zero).
                    // The bristles' elastic energy is counted as dissipated: the power is
                    // the work their force does on the slip.
                    let friction_power = match bristle {
                        Some(_) => -friction.dot(&slip),
                        None => friction_law.force * speed,
                    };
                    self.power -=
                        (normal_law.force - normal_law.elastic) * depth_rate + friction_power;
                    self.points[next] = point;
                    next += 1;
                }
            }
            sum.friction_force = friction_total.norm();
            if sum.normal_force > 0.0 {
                sum.slip_speed = weighted_speed / sum.normal_force;
            }
            self.pairs[pi] = sum;
        }
    }

    /// The points carrying force at the last evaluation (what the tangent, the slip
    /// limiter and the stick projection visit), in slot order.
    pub fn active_points(&self) -> impl Iterator<Item = (usize, &ContactPoint)> + '_ {
        self.active_points.iter().map(|&i| (i, &self.points[i]))
    }

    /// The bristle states' residuals `ż − f(z)` at deflections `z` and rates `zd` (the
    /// bristle states of w and ẇ) into `r`.
    pub fn bristle_residuals(&self, z: &[f64], zd: &[f64], r: &mut [f64]) {
        for b in self.points.iter().filter_map(|p| p.bristle.as_ref()) {
            let f = b.rate(&deflection(z, b.state));
            let k = b.state;
            r[k] = zd[k] - f.x;
            r[k + 1] = zd[k + 1] - f.y;
            r[k + 2] = zd[k + 2] - f.z;
        }
    }

    /// The change of the inverse-dynamics residual `r_mech` when the deflections move
    /// from those of the last [`ContactScratch::evaluate`] to `z`, at its kinematics (the
    /// first-order re-evaluation: `r` is linear in the applied forces).
    pub fn bristle_change(
        &self,
        mech: &Mechanism,
        kin: &Kinematics,
        z: &[f64],
        r_mech: &mut [f64],
    ) {
        for point in &self.points {
            let Some(b) = &point.bristle else { continue };
            let change = b.force_at(&deflection(z, b.state)) - b.force;
            if change == Vec3::zeros() {
                continue;
            }
            let wrench = join(change, point.point.cross(&change));
            kin.path(mech, Some(point.body), |k, col, _| {
                r_mech[k] -= col.dot(&wrench)
            });
            if let Some(o) = point.other {
                kin.path(mech, Some(o), |k, col, _| r_mech[k] += col.dot(&wrench));
            }
        }
    }
}

/// A point's three deflection states.
fn deflection(z: &[f64], state: usize) -> Vec3 {
    Vec3::new(z[state], z[state + 1], z[state + 2])
}

fn lugre_of(b: &Bristles, c: &law::Coulomb, p: &[f64]) -> Lugre {
    Lugre {
        sigma0: p[b.stiffness.index()],
        sigma1: p[b.damping.index()],
        static_: c.static_,
        kinetic: c.kinetic,
        stribeck_velocity: c.stribeck_velocity,
    }
}

/// What the tangent reads of a bristle point's friction: its magnitude, share of the
/// normal force and direction, and the damper `F_n σ1` as the slope along and across.
fn bristle_law(b: &BristlePoint, normal_force: f64) -> (law::Friction, Vec3) {
    let magnitude = b.force.norm();
    let direction = if magnitude > 0.0 {
        -b.force / magnitude
    } else {
        Vec3::zeros()
    };
    let law = law::Friction {
        force: magnitude,
        slope: b.damping,
        secant: b.damping,
        per_normal: if normal_force > 0.0 {
            magnitude / normal_force
        } else {
            0.0
        },
    };
    (law, direction)
}

fn coulomb_of(m: &Material, p: &[f64]) -> law::Coulomb {
    law::Coulomb {
        static_: p[m.static_friction.index()],
        kinetic: p[m.kinetic_friction.index()],
        stiction_velocity: p[m.stiction_velocity.index()],
        stribeck_velocity: p[m.stribeck_velocity.index()],
    }
}

/// Two shapes' materials in contact: the stiffnesses in series, the smaller friction
/// coefficients, the wider regularization (our choice, as Chrono's SMC takes the
/// smaller friction).
fn combined(a: &Material, b: &Material, p: &[f64]) -> (f64, law::Coulomb) {
    let (ka, kb) = (p[a.stiffness.index()], p[b.stiffness.index()]);
    let (fa, fb) = (coulomb_of(a, p), coulomb_of(b, p));
    let coulomb = law::Coulomb {
        static_: fa.static_.min(fb.static_),
        kinetic: fa.kinetic.min(fb.kinetic),
        stiction_velocity: fa.stiction_velocity.max(fb.stiction_velocity),
        stribeck_velocity: fa.stribeck_velocity.max(fb.stribeck_velocity),
    };
    (ka * kb / (ka + kb), coulomb)
}

//! Contact between bodies' collision shapes and the ground, as forces inside the implicit
//! step (seed 000 §2.12: detection, then a penalty response).
//!
//! Each evaluation finds every candidate point of every shape ([`plane`]), and where one
//! penetrates applies the normal force of [`law`] along the ground normal and friction
//! against its slip, at that point of the body. Forces are continuous in the coordinates
//! and rates, so the Newton step, the Model Exchange derivatives and the FMU state need
//! nothing beyond the mechanism's; the tangent takes each active point's slopes along
//! its Jacobians (`solver::assembled`). Buffers are sized from the model once.

pub mod law;
pub mod plane;

use crate::mechanics::Kinematics;
use crate::mechanics::dynamics::add_point_force;
use crate::mechanics::spatial::{Vec3, Vec6, join, vec3};
use crate::model::{Contacts, MAX_POINTS, REFERENCE_DEPTH, points_of};
use plane::Candidate;

/// One candidate contact point at the last evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactPoint {
    /// The body it is on.
    pub body: usize,
    /// World position on the shape's surface, unit normal out of the ground.
    pub point: Vec3,
    pub normal: Vec3,
    /// Slip speed in the ground plane [m/s] and its direction (zero when not slipping).
    pub speed: f64,
    pub direction: Vec3,
    pub normal_law: law::Normal,
    pub friction_law: law::Friction,
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
}

/// Buffers of the contact evaluation, allocated once.
#[derive(Clone, Debug)]
pub struct ContactScratch {
    pub points: Vec<ContactPoint>,
    pub pairs: Vec<PairSummary>,
    candidates: Vec<Candidate>,
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
            candidates: vec![Candidate::default(); MAX_POINTS],
            energy: 0.0,
            power: 0.0,
            active: 0,
            wrench: Vec6::zeros(),
        }
    }

    /// Detects every contact at the current kinematics, computes its forces with the
    /// parameters `p`, and adds them to the bodies' applied wrenches.
    pub fn evaluate(&mut self, c: &Contacts, kin: &Kinematics, p: &[f64], applied: &mut [Vec6]) {
        self.energy = 0.0;
        self.power = 0.0;
        self.active = 0;
        self.wrench = Vec6::zeros();
        let Some(ground) = &c.ground else { return };
        let n = vec3(ground.normal);
        let mut next = 0;
        for (pi, pair) in c.pairs.iter().enumerate() {
            let body = &kin.bodies[pair.body];
            let mass = p[pair.mass.index()];
            let mut sum = PairSummary {
                penetration: f64::NEG_INFINITY,
                ..PairSummary::default()
            };
            let (mut friction_total, mut weighted_speed) = (Vec3::zeros(), 0.0);
            for &si in &pair.shapes {
                let shape = &c.shapes[si];
                let m = &shape.material;
                let count = points_of(&shape.geometry);
                plane::candidates(&shape.geometry, body, ground, &mut self.candidates[..count]);
                let big_k = law::coefficient(p[m.stiffness.index()], m.exponent, REFERENCE_DEPTH);
                let coulomb = law::Coulomb {
                    static_: p[m.static_friction.index()],
                    kinetic: p[m.kinetic_friction.index()],
                    stiction_velocity: p[m.stiction_velocity.index()],
                    stribeck_velocity: p[m.stribeck_velocity.index()],
                };
                for cand in &self.candidates[..count] {
                    let v = body.velocity_at(&cand.point);
                    let depth_rate = -n.dot(&v);
                    let slip = v + n * depth_rate;
                    let speed = slip.norm();
                    let normal_law =
                        law::normal(cand.depth, depth_rate, big_k, m.exponent, m.damping, mass);
                    let friction_law = law::friction(speed, normal_law.force, &coulomb);
                    let direction = if speed > 0.0 {
                        slip / speed
                    } else {
                        Vec3::zeros()
                    };
                    let friction = -direction * friction_law.force;
                    let point = ContactPoint {
                        body: pair.body,
                        point: cand.point,
                        normal: n,
                        speed,
                        direction,
                        normal_law,
                        friction_law,
                    };
                    sum.penetration = sum.penetration.max(cand.depth);
                    self.energy += normal_law.energy;
                    if point.active() {
                        let force = n * normal_law.force + friction;
                        add_point_force(applied, Some(pair.body), &cand.point, &force);
                        self.wrench += join(force, cand.point.cross(&force));
                        sum.normal_force += normal_law.force;
                        sum.points += 1;
                        friction_total += friction;
                        weighted_speed += normal_law.force * speed;
                        self.active += 1;
                    }
                    // The damper's power and the friction's; the spring's goes into the
                    // stored energy (all of it where the clamp holds the force at zero).
                    self.power -= (normal_law.force - normal_law.elastic) * depth_rate
                        + friction_law.force * speed;
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
}

//! Narrow phase between two bodies' shapes: where they overlap, how deep, and along which
//! normal.
//!
//! Spheres and capsules are a core (a point, a segment) swollen by a radius; a box is an
//! oriented box with its signed distance in closed form. Every pair of kinds offers a
//! fixed number of candidate points ([`crate::model::pair_points`]), each the middle of
//! the two surfaces' deepest points with the normal pushing the first shape out of the
//! second:
//! - a core point against a core (sphere–sphere, –capsule) or a box: the closest points;
//! - capsule–capsule: each end of one against the other's segment and the segments'
//!   closest inner points (a crossing), the second capsule's ends and the crossing only
//!   where no end of the first already carries the contact (so two parallel capsules
//!   touch at their overlap's ends, once each);
//! - capsule–box: both ends, and the middle of the segment's chord through the box where
//!   deeper than both ends (a capsule across a box's face);
//! - box–box: the face of least overlap (separating axes of the six faces) is the
//!   reference; the other box's corners over it and the reference box's corners inside
//!   the other push along its normal, and each box's edges crossing the other touch at
//!   their chord's middle where no corner carries them (two equal boxes stacked with a
//!   twist touch along an octagon whose corners are edge crossings).
//!
//! - a hull against anything: as a convex polytope ([`super::polytope`]), a box meeting
//!   it as one.
//!
//! Slots a pair does not use have no depth (`-∞`) and carry no force. Closed forms only:
//! no iteration, no allocation; cylinders touch the ground only.

use super::ground::Candidate;
use super::polytope::{self, BoxPolytope, END, NONE, PlacedHull, Polytope};
use crate::mechanics::BodyKinematics;
use crate::mechanics::spatial::{Mat3, Vec3, quat_matrix, vec3};
use crate::model::{Geometry, Hull};

/// A shape in world coordinates.
#[derive(Clone, Copy, Debug)]
pub enum Solid<'a> {
    /// The points within `radius` of the segment `a`–`b` (a sphere: `a == b`).
    Core { a: Vec3, b: Vec3, radius: f64 },
    /// An oriented box: centre, axes as columns, half edge lengths.
    Box {
        center: Vec3,
        axes: Mat3,
        half: Vec3,
    },
    /// A convex hull placed in world coordinates.
    Hull(Polytope<'a>),
}

/// A shape's bounding sphere on a body at its current pose: centre and radius (the broad
/// phase; a hull's is the compiler's).
pub fn bounds(g: &Geometry, body: &BodyKinematics, hulls: &[Hull]) -> (Vec3, f64) {
    match *g {
        Geometry::Hull { hull, .. } => {
            let h = &hulls[hull];
            (body.point(&vec3(h.center)), h.radius)
        }
        _ => Solid::of(g, body).bounds(),
    }
}

impl<'a> Solid<'a> {
    /// The shape on a body at its current pose, a hull placed into `buffer`.
    pub fn placed(
        g: &Geometry,
        body: &BodyKinematics,
        hulls: &'a [Hull],
        buffer: &'a mut PlacedHull,
    ) -> Solid<'a> {
        match *g {
            Geometry::Hull { hull, .. } => Solid::Hull(buffer.place(&hulls[hull], body)),
            _ => Solid::of(g, body),
        }
    }

    /// The shape on a body at its current pose (a cylinder, which no body pair takes, as
    /// the capsule around it; a hull, which needs its buffer, as a point touching
    /// nothing).
    fn of(g: &Geometry, body: &BodyKinematics) -> Solid<'a> {
        let world = |x: [f64; 3]| body.point(&vec3(x));
        match *g {
            Geometry::Sphere { center, radius } => {
                let c = world(center);
                Solid::Core { a: c, b: c, radius }
            }
            Geometry::Capsule { from, to, radius } | Geometry::Cylinder { from, to, radius } => {
                Solid::Core {
                    a: world(from),
                    b: world(to),
                    radius,
                }
            }
            Geometry::Box {
                center,
                rotation,
                half,
            } => Solid::Box {
                center: world(center),
                axes: body.rotation * quat_matrix(rotation),
                half: vec3(half),
            },
            // Placed by `Solid::placed`.
            Geometry::Hull { .. } => Solid::Core {
                a: body.point(&Vec3::zeros()),
                b: body.point(&Vec3::zeros()),
                radius: 0.0,
            },
        }
    }

    /// Whether every coordinate is a number: a pose gone to infinity (a diverging run)
    /// touches nothing, rather than reaching the closed forms with NaN (where a sphere's
    /// `a == b` fails and a segment's candidates would be taken).
    pub fn is_finite(&self) -> bool {
        match *self {
            Solid::Core { a, b, radius } => {
                a.iter().chain(b.iter()).all(|x| x.is_finite()) && radius.is_finite()
            }
            Solid::Box { center, axes, half } => center
                .iter()
                .chain(axes.iter())
                .chain(half.iter())
                .all(|x| x.is_finite()),
            Solid::Hull(h) => h.vertices.iter().flatten().all(|x| x.is_finite()),
        }
    }

    /// A sphere around the shape: centre and radius (the broad phase).
    pub fn bounds(&self) -> (Vec3, f64) {
        match *self {
            Solid::Core { a, b, radius } => ((a + b) * 0.5, 0.5 * (b - a).norm() + radius),
            Solid::Box { center, half, .. } => (center, half.norm()),
            Solid::Hull(h) => {
                let center = h.vertices.iter().sum::<Vec3>() / h.vertices.len() as f64;
                let radius = h
                    .vertices
                    .iter()
                    .map(|v| (v - center).norm())
                    .fold(0.0, f64::max);
                (center, radius)
            }
        }
    }

    /// A box or a hull as a convex polytope (a box's corners and faces into `buffer`).
    fn polytope<'b>(&'b self, buffer: &'b mut Option<BoxPolytope>) -> Option<Polytope<'b>> {
        match *self {
            Solid::Hull(h) => Some(h),
            Solid::Box { center, axes, half } => {
                Some(buffer.insert(BoxPolytope::new(center, axes, half)).view())
            }
            Solid::Core { .. } => None,
        }
    }
}

/// Writes the candidates of `a` against `b` into `out` (exactly
/// [`crate::model::pair_points`] entries; normals push `a` out of `b`).
pub fn candidates(a: &Solid, b: &Solid, out: &mut [Candidate]) {
    out.fill(NONE);
    if !(a.is_finite() && b.is_finite()) {
        return;
    }
    match (*a, *b) {
        (Solid::Core { a: p, b: q, radius }, _) if p == q => out[0] = point_against(p, radius, b),
        (_, Solid::Core { a: p, b: q, radius }) if p == q => {
            out[0] = flipped(point_against(p, radius, a));
        }
        (
            Solid::Core {
                a: a0,
                b: a1,
                radius: ra,
            },
            Solid::Core {
                a: b0,
                b: b1,
                radius: rb,
            },
        ) => {
            for (k, end) in [a0, a1].into_iter().enumerate() {
                let t = segment_parameter(end, b0, b1);
                out[k] = between_cores(end, b0 + (b1 - b0) * t, ra, rb);
            }
            for (k, end) in [b0, b1].into_iter().enumerate() {
                let s = segment_parameter(end, a0, a1);
                if s > END && s < 1.0 - END {
                    out[2 + k] = between_cores(a0 + (a1 - a0) * s, end, ra, rb);
                }
            }
            let (s, t) = closest_parameters(a0, a1, b0, b1);
            let inner = |x: f64| x > END && x < 1.0 - END;
            if inner(s) && inner(t) {
                out[4] = between_cores(a0 + (a1 - a0) * s, b0 + (b1 - b0) * t, ra, rb);
            }
        }
        (Solid::Core { a: p, b: q, radius }, Solid::Box { .. }) => {
            segment_against_box(p, q, radius, b, out);
        }
        (Solid::Box { .. }, Solid::Core { a: p, b: q, radius }) => {
            segment_against_box(p, q, radius, a, out);
            for c in out.iter_mut().take(3) {
                *c = flipped(*c);
            }
        }
        (Solid::Box { .. }, Solid::Box { .. }) => box_against_box(a, b, out),
        (Solid::Core { a: p, b: q, radius }, Solid::Hull(h)) => {
            polytope::segment_against(p, q, radius, &h, out);
        }
        (Solid::Hull(h), Solid::Core { a: p, b: q, radius }) => {
            polytope::segment_against(p, q, radius, &h, out);
            for c in out.iter_mut().take(3) {
                *c = flipped(*c);
            }
        }
        (Solid::Hull(_), _) | (_, Solid::Hull(_)) => {
            let (mut box_a, mut box_b) = (None, None);
            if let (Some(pa), Some(pb)) = (a.polytope(&mut box_a), b.polytope(&mut box_b)) {
                polytope::against(&pa, &pb, out);
            }
        }
    }
}

/// The same contact seen from the other shape.
fn flipped(c: Candidate) -> Candidate {
    Candidate {
        normal: -c.normal,
        ..c
    }
}

/// A ball of `radius` about `p` against a shape.
fn point_against(p: Vec3, radius: f64, other: &Solid) -> Candidate {
    match *other {
        Solid::Core { a, b, radius: rb } => {
            let t = segment_parameter(p, a, b);
            between_cores(p, a + (b - a) * t, radius, rb)
        }
        Solid::Box { .. } => {
            let (distance, normal, surface) = box_distance(p, other);
            let on_ball = p - normal * radius;
            Candidate {
                point: (on_ball + surface) * 0.5,
                normal,
                depth: radius - distance,
            }
        }
        Solid::Hull(h) => polytope::point_against(p, radius, &h),
    }
}

/// Two balls about the core points `p` (first shape) and `q`.
fn between_cores(p: Vec3, q: Vec3, rp: f64, rq: f64) -> Candidate {
    let d = p - q;
    let distance = d.norm();
    // Coincident cores (a contact deeper than a radius): any normal is as good; up.
    let normal = if distance > 0.0 {
        d / distance
    } else {
        Vec3::z()
    };
    let (on_p, on_q) = (p - normal * rp, q + normal * rq);
    Candidate {
        point: (on_p + on_q) * 0.5,
        normal,
        depth: rp + rq - distance,
    }
}

/// A capsule's segment `p`–`q` of `radius` against a box: its ends, and its deepest
/// inner point where deeper than both.
fn segment_against_box(p: Vec3, q: Vec3, radius: f64, boxed: &Solid, out: &mut [Candidate]) {
    out[0] = point_against(p, radius, boxed);
    out[1] = point_against(q, radius, boxed);
    out[2] = inner_point(p, q, radius, boxed, out[0].depth.max(out[1].depth));
}

/// The middle of the chord of segment `p`–`q` (swollen by `radius`) through a box, where
/// it lies inside the segment and is deeper than `ends` (the ends' own depth) by more
/// than round-off: a segment across a face, an edge crossing the other box. The chord's
/// middle moves continuously with the poses (a deepest point would jump along a segment
/// level with a face, and Newton with it).
fn inner_point(p: Vec3, q: Vec3, radius: f64, boxed: &Solid, ends: f64) -> Candidate {
    let Some((lo, hi)) = clip(p, q, radius, boxed) else {
        return NONE;
    };
    let t = 0.5 * (lo + hi);
    let inner = point_against(p + (q - p) * t, radius, boxed);
    if t > END && t < 1.0 - END && inner.depth > ends + 1e-12 * (1.0 + radius) {
        inner
    } else {
        NONE
    }
}

/// The parameters in [0, 1] where segment `p`–`q` lies within the box's slabs widened by
/// `radius` (none: it misses the box).
fn clip(p: Vec3, q: Vec3, radius: f64, boxed: &Solid) -> Option<(f64, f64)> {
    let Solid::Box { center, axes, half } = *boxed else {
        unreachable!("clip against a box")
    };
    let a = axes.transpose() * (p - center);
    let d = axes.transpose() * (q - p);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for k in 0..3 {
        let h = half[k] + radius;
        if d[k] == 0.0 {
            if a[k].abs() > h {
                return None;
            }
            continue;
        }
        let (t0, t1) = ((-h - a[k]) / d[k], (h - a[k]) / d[k]);
        lo = lo.max(t0.min(t1));
        hi = hi.min(t0.max(t1));
        if lo > hi {
            return None;
        }
    }
    Some((lo, hi))
}

/// Box `a` against box `b`. The face of least overlap (of the six face axes, the
/// separating-axis test's) is the reference: the other box's corners over that face touch
/// it along its normal, the reference box's corners strictly inside the other box push out
/// along the same normal, and each box's edges crossing the other touch at their chord's
/// middle where no corner carries them (two equal boxes stacked with a twist).
fn box_against_box(a: &Solid, b: &Solid, out: &mut [Candidate]) {
    let Some(face) = reference_face(a, b) else {
        return;
    };
    let (ca, cb) = (corners(a), corners(b));
    let (r, i) = if face.on_a { (a, b) } else { (b, a) };
    let (cr, ci) = if face.on_a { (&ca, &cb) } else { (&cb, &ca) };
    // The reference's normal points at the other box; the candidates' push `a` out of `b`.
    let normal = if face.on_a { -face.normal } else { face.normal };
    let (r_slots, i_slots) = if face.on_a { (0, 8) } else { (8, 0) };
    for (k, p) in ci.iter().enumerate() {
        out[i_slots + k] = over_face(*p, r, &face, normal);
    }
    for (k, q) in cr.iter().enumerate() {
        out[r_slots + k] = inside_along(*q, i, &face, normal);
    }
    for (k, (e0, e1)) in EDGES.into_iter().enumerate() {
        let ends = out[e0].depth.max(out[e1].depth);
        out[16 + k] = inner_point(ca[e0], ca[e1], 0.0, b, ends);
        let ends = out[8 + e0].depth.max(out[8 + e1].depth);
        out[28 + k] = flipped(inner_point(cb[e0], cb[e1], 0.0, a, ends));
    }
}

/// The reference face of two overlapping boxes: whose it is, its axis, its outward
/// normal (towards the other box).
struct Face {
    on_a: bool,
    axis: usize,
    normal: Vec3,
}

/// The face axis of least overlap, or none where a face axis separates the boxes.
fn reference_face(a: &Solid, b: &Solid) -> Option<Face> {
    let (
        Solid::Box {
            center: c_a,
            axes: x_a,
            half: h_a,
        },
        Solid::Box {
            center: c_b,
            axes: x_b,
            half: h_b,
        },
    ) = (*a, *b)
    else {
        unreachable!("reference face of two boxes")
    };
    let radius = |axes: &Mat3, half: &Vec3, u: &Vec3| -> f64 {
        (0..3).map(|j| half[j] * axes.column(j).dot(u).abs()).sum()
    };
    let mut best: Option<(f64, Face)> = None;
    for (on_a, own, half, other, other_half, towards) in [
        (true, &x_a, &h_a, &x_b, &h_b, c_b - c_a),
        (false, &x_b, &h_b, &x_a, &h_a, c_a - c_b),
    ] {
        for axis in 0..3 {
            let u: Vec3 = own.column(axis).into();
            let d = u.dot(&towards);
            let overlap = half[axis] + radius(other, other_half, &u) - d.abs();
            if overlap < 0.0 {
                return None;
            }
            if best.as_ref().is_none_or(|(o, _)| overlap < *o) {
                let normal = if d < 0.0 { -u } else { u };
                best = Some((overlap, Face { on_a, axis, normal }));
            }
        }
    }
    best.map(|(_, f)| f)
}

/// A corner `p` of the other box over the reference face of box `r`: within the face's
/// rectangle, its depth below the face along the normal.
fn over_face(p: Vec3, r: &Solid, face: &Face, normal: Vec3) -> Candidate {
    let Solid::Box { center, axes, half } = *r else {
        unreachable!("a reference face is a box's")
    };
    let local = axes.transpose() * (p - center);
    let within = (0..3).all(|j| j == face.axis || local[j].abs() <= half[j] * (1.0 + 1e-12));
    if !within {
        return NONE;
    }
    let depth = half[face.axis] - face.normal.dot(&(p - center));
    Candidate {
        point: p + face.normal * (0.5 * depth),
        normal,
        depth,
    }
}

/// A corner `q` of the reference box strictly inside box `i`: how far it must move back
/// along the normal to leave `i`.
fn inside_along(q: Vec3, i: &Solid, face: &Face, normal: Vec3) -> Candidate {
    let Solid::Box { center, axes, half } = *i else {
        unreachable!("the incident shape is a box")
    };
    let local = axes.transpose() * (q - center);
    if (0..3).any(|j| local[j].abs() >= half[j] * (1.0 - 1e-12)) {
        return NONE;
    }
    let back = axes.transpose() * -face.normal;
    let mut depth = f64::INFINITY;
    for j in 0..3 {
        if back[j] != 0.0 {
            let wall = if back[j] > 0.0 { half[j] } else { -half[j] };
            depth = depth.min((wall - local[j]) / back[j]);
        }
    }
    Candidate {
        point: q - face.normal * (0.5 * depth),
        normal,
        depth,
    }
}

/// A box's twelve edges as pairs of corner indices (corner bits: 1 x, 2 y, 4 z).
const EDGES: [(usize, usize); 12] = [
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7),
    (0, 2),
    (1, 3),
    (4, 6),
    (5, 7),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
];

/// Signed distance of `p` to a box (negative inside), the outward normal there and the
/// nearest point of the surface.
fn box_distance(p: Vec3, boxed: &Solid) -> (f64, Vec3, Vec3) {
    let Solid::Box { center, axes, half } = *boxed else {
        unreachable!("box_distance takes a box")
    };
    let local = axes.transpose() * (p - center);
    let clamped = Vec3::new(
        local.x.clamp(-half.x, half.x),
        local.y.clamp(-half.y, half.y),
        local.z.clamp(-half.z, half.z),
    );
    let outside = local - clamped;
    let gap = outside.norm();
    if gap > 0.0 {
        let surface = center + axes * clamped;
        return (gap, (p - surface) / gap, surface);
    }
    // Inside: out through the nearest face.
    let mut axis = 0;
    let mut least = f64::INFINITY;
    for k in 0..3 {
        let room = half[k] - local[k].abs();
        if room < least {
            least = room;
            axis = k;
        }
    }
    let sign = if local[axis] < 0.0 { -1.0 } else { 1.0 };
    let normal = axes.column(axis) * sign;
    (-least, normal, p + normal * least)
}

/// A box's eight corners.
fn corners(boxed: &Solid) -> [Vec3; 8] {
    let Solid::Box { center, axes, half } = *boxed else {
        unreachable!("corners of a box")
    };
    std::array::from_fn(|k| {
        let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
        center + axes * Vec3::new(sign(1) * half.x, sign(2) * half.y, sign(4) * half.z)
    })
}

/// Parameter in [0, 1] of the point of segment `a`–`b` closest to `p`.
fn segment_parameter(p: Vec3, a: Vec3, b: Vec3) -> f64 {
    let d = b - a;
    let dd = d.dot(&d);
    if dd > 0.0 {
        ((p - a).dot(&d) / dd).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Parameters of the closest points of segments `a0`–`a1` and `b0`–`b1` (Ericson,
/// Real-Time Collision Detection §5.1.9; parallel segments give an end of the first).
fn closest_parameters(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> (f64, f64) {
    let (d1, d2, r) = (a1 - a0, b1 - b0, a0 - b0);
    let (aa, ee, f) = (d1.dot(&d1), d2.dot(&d2), d2.dot(&r));
    let c = d1.dot(&r);
    let b = d1.dot(&d2);
    let denom = aa * ee - b * b;
    let mut s = if denom > 1e-14 * aa * ee {
        ((b * f - c * ee) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / ee;
    if t < 0.0 {
        t = 0.0;
        s = (-c / aa).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / aa).clamp(0.0, 1.0);
    }
    (s, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::spatial::axis_angle;

    fn ball(c: [f64; 3], r: f64) -> Solid<'static> {
        Solid::Core {
            a: vec3(c),
            b: vec3(c),
            radius: r,
        }
    }

    fn capsule(a: [f64; 3], b: [f64; 3], r: f64) -> Solid<'static> {
        Solid::Core {
            a: vec3(a),
            b: vec3(b),
            radius: r,
        }
    }

    fn unit_box(c: [f64; 3], axes: Mat3) -> Solid<'static> {
        Solid::Box {
            center: vec3(c),
            axes,
            half: Vec3::new(0.5, 0.5, 0.5),
        }
    }

    fn run(a: &Solid, b: &Solid, n: usize) -> Vec<Candidate> {
        let mut out = vec![Candidate::default(); n];
        candidates(a, b, &mut out);
        out
    }

    fn touching(c: &[Candidate]) -> Vec<Candidate> {
        c.iter().copied().filter(|c| c.depth > 0.0).collect()
    }

    #[test]
    fn two_balls_overlap_by_their_radii_less_their_distance() {
        let c = run(&ball([0.0, 0.0, 0.25], 0.2), &ball([0.0; 3], 0.1), 1);
        assert!((c[0].depth - 0.05).abs() < 1e-15);
        assert_eq!(c[0].normal, Vec3::z());
        assert!((c[0].point - Vec3::new(0.0, 0.0, 0.075)).norm() < 1e-15);
        // Seen from the other side: the same point and depth, the normal turned.
        let d = run(&ball([0.0; 3], 0.1), &ball([0.0, 0.0, 0.25], 0.2), 1);
        assert_eq!(
            (d[0].depth, d[0].point, d[0].normal),
            (c[0].depth, c[0].point, -c[0].normal)
        );
    }

    #[test]
    fn a_ball_on_a_box_face_and_on_its_edge() {
        let b = unit_box([0.0; 3], Mat3::identity());
        let face = run(&ball([0.1, 0.2, 0.59], 0.1), &b, 1);
        assert!((face[0].depth - 0.01).abs() < 1e-12);
        assert_eq!(face[0].normal, Vec3::z());
        // Over the edge x = y = 0.5 at 45°: the distance is to the edge.
        let r = 0.1;
        let off = 0.5 + 0.09 / 2f64.sqrt();
        let edge = run(&ball([off, 0.0, off], r), &b, 1);
        assert!((edge[0].depth - 0.01).abs() < 1e-12);
        assert!((edge[0].normal - Vec3::new(1.0, 0.0, 1.0).normalize()).norm() < 1e-12);
        // Centre inside the box: pushed out through the nearest face.
        let inside = run(&ball([0.0, 0.45, 0.0], r), &b, 1);
        assert!((inside[0].depth - 0.15).abs() < 1e-12);
        assert_eq!(inside[0].normal, Vec3::y());
    }

    #[test]
    fn crossing_capsules_touch_once_between_their_middles() {
        let a = capsule([-1.0, 0.0, 0.18], [1.0, 0.0, 0.18], 0.1);
        let b = capsule([0.0, -1.0, 0.0], [0.0, 1.0, 0.0], 0.1);
        let t = touching(&run(&a, &b, 5));
        assert_eq!(t.len(), 1);
        assert!((t[0].depth - 0.02).abs() < 1e-12);
        assert!((t[0].point - Vec3::new(0.0, 0.0, 0.09)).norm() < 1e-12);
    }

    #[test]
    fn parallel_capsules_touch_at_the_ends_of_their_overlap_once_each() {
        // Overlap from x = 0 to 1: a's start and b's end, each once.
        let a = capsule([0.0, 0.0, 0.19], [2.0, 0.0, 0.19], 0.1);
        let b = capsule([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], 0.1);
        let t = touching(&run(&a, &b, 5));
        assert_eq!(t.len(), 2);
        let mut xs: Vec<f64> = t.iter().map(|c| c.point.x).collect();
        xs.sort_by(f64::total_cmp);
        assert!((xs[0] - 0.0).abs() < 1e-12 && (xs[1] - 1.0).abs() < 1e-12);
        assert!(t.iter().all(|c| (c.depth - 0.01).abs() < 1e-12));
        // Equal and aligned: two points, not four.
        let c = capsule([-1.0, 0.0, 0.19], [1.0, 0.0, 0.19], 0.1);
        assert_eq!(touching(&run(&c, &b, 5)).len(), 2);
    }

    #[test]
    fn a_capsule_across_a_narrow_box_touches_at_its_deepest_inner_point() {
        let b = unit_box([0.0; 3], Mat3::identity());
        // Lying across the top face, tilted so its middle is lowest? A straight segment
        // over a face is level: its ends overhang and do not touch.
        let a = capsule([-2.0, 0.0, 0.58], [2.0, 0.0, 0.58], 0.1);
        let t = touching(&run(&a, &b, 3));
        assert_eq!(t.len(), 1);
        assert!((t[0].depth - 0.02).abs() < 1e-9);
        assert_eq!(t[0].normal, Vec3::z());
        // Its ends over the face: they carry it, no third point.
        let short = capsule([-0.3, 0.0, 0.58], [0.3, 0.0, 0.58], 0.1);
        assert_eq!(touching(&run(&short, &b, 3)).len(), 2);
    }

    #[test]
    fn a_box_resting_on_a_box_touches_at_its_four_lower_corners() {
        let below = Solid::Box {
            center: Vec3::zeros(),
            axes: Mat3::identity(),
            half: Vec3::new(2.0, 2.0, 0.5),
        };
        let above = unit_box([0.0, 0.0, 0.99], Mat3::identity());
        let t = touching(&run(&above, &below, 40));
        assert_eq!(t.len(), 4);
        assert!(
            t.iter()
                .all(|c| (c.depth - 0.01).abs() < 1e-12 && c.normal == Vec3::z())
        );
        // An equal box turned 0.3 rad about z: no corner of either is inside the other;
        // the eight edge crossings carry it, all as deep, around the middle.
        let turned = unit_box([0.0, 0.0, 0.99], axis_angle(&Vec3::z(), 0.3));
        let small = unit_box([0.0; 3], Mat3::identity());
        let t = touching(&run(&turned, &small, 40));
        assert_eq!(t.len(), 8);
        assert!(t.iter().all(|c| (c.depth - 0.01).abs() < 1e-9));
        let centre: Vec3 = t.iter().map(|c| c.point).sum::<Vec3>() / 8.0;
        assert!(
            (centre - Vec3::new(0.0, 0.0, 0.495)).norm() < 0.05,
            "{centre}"
        );
    }
}

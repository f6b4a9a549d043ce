//! Convex polytopes — collision hulls, and a box where it meets one — against points,
//! segments and each other: the narrow phase of [`super::pairwise`] for hulls.
//!
//! A polytope is its world vertices, face planes, edges and surface triangles. Inside, a
//! point's distance to the surface is that to the nearest face plane (exact for a convex
//! solid); outside, that to the nearest surface triangle (Ericson, Real-Time Collision
//! Detection §5.1.5). Two polytopes touch as two boxes do in [`super::pairwise`]: the face
//! of least overlap (the separating-axis test over both solids' faces) is the reference;
//! the other solid's vertices inside the reference touch it along its normal, the
//! reference's vertices inside the other push back along the same normal, and an edge
//! crossing the other solid touches at its chord's middle where neither end carries it.
//! A candidate's depth is always measured, so a pair that only an edge–edge axis would
//! separate offers no point. Cost: faces × vertices per pair evaluation, which is why a
//! hull is meant to be a part's outline (a few dozen vertices), not its detail.

use super::ground::Candidate;
use crate::mechanics::BodyKinematics;
use crate::mechanics::spatial::{Mat3, Vec3, vec3};
use crate::model::Hull;

/// A face plane: inside where `normal·x ≤ offset`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Plane {
    pub normal: Vec3,
    pub offset: f64,
}

/// A convex polytope in world coordinates.
#[derive(Clone, Copy, Debug)]
pub struct Polytope<'a> {
    pub vertices: &'a [Vec3],
    pub planes: &'a [Plane],
    pub edges: &'a [[u32; 2]],
    pub triangles: &'a [[u32; 3]],
}

/// A hull's vertices and planes placed in world coordinates (buffers sized once).
#[derive(Clone, Debug, Default)]
pub struct PlacedHull {
    vertices: Vec<Vec3>,
    planes: Vec<Plane>,
}

impl PlacedHull {
    /// Buffers for hulls of up to `vertices` vertices and `planes` faces.
    pub fn with_capacity(vertices: usize, planes: usize) -> PlacedHull {
        PlacedHull {
            vertices: Vec::with_capacity(vertices),
            planes: Vec::with_capacity(planes),
        }
    }

    /// `hull` on `body` at its current pose (no allocation within the capacity).
    pub fn place<'a>(&'a mut self, hull: &'a Hull, body: &BodyKinematics) -> Polytope<'a> {
        self.vertices.clear();
        self.vertices
            .extend(hull.vertices.iter().map(|v| body.point(&vec3(*v))));
        self.planes.clear();
        self.planes.extend(hull.planes.iter().map(|p| {
            let normal = body.rotation * Vec3::new(p[0], p[1], p[2]);
            Plane {
                normal,
                offset: p[3] + normal.dot(&body.origin),
            }
        }));
        Polytope {
            vertices: &self.vertices,
            planes: &self.planes,
            edges: &hull.edges,
            triangles: &hull.triangles,
        }
    }
}

/// A box's corners (bits 1 x, 2 y, 4 z) and faces, to meet a hull as a polytope.
#[derive(Clone, Copy, Debug)]
pub struct BoxPolytope {
    vertices: [Vec3; 8],
    planes: [Plane; 6],
}

/// A box's twelve edges as pairs of corner indices.
pub const BOX_EDGES: [[u32; 2]; 12] = [
    [0, 1],
    [2, 3],
    [4, 5],
    [6, 7],
    [0, 2],
    [1, 3],
    [4, 6],
    [5, 7],
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
];

/// A box's six faces as two triangles each.
const BOX_TRIANGLES: [[u32; 3]; 12] = [
    [0, 2, 6],
    [0, 6, 4],
    [1, 3, 7],
    [1, 7, 5],
    [0, 1, 5],
    [0, 5, 4],
    [2, 3, 7],
    [2, 7, 6],
    [0, 1, 3],
    [0, 3, 2],
    [4, 5, 7],
    [4, 7, 6],
];

impl BoxPolytope {
    pub fn new(center: Vec3, axes: Mat3, half: Vec3) -> BoxPolytope {
        let vertices = std::array::from_fn(|k| {
            let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
            center + axes * Vec3::new(sign(1) * half.x, sign(2) * half.y, sign(4) * half.z)
        });
        let planes = std::array::from_fn(|f| {
            let axis: Vec3 = axes.column(f / 2).into();
            let normal = if f % 2 == 0 { -axis } else { axis };
            Plane {
                normal,
                offset: normal.dot(&center) + half[f / 2],
            }
        });
        BoxPolytope { vertices, planes }
    }

    pub fn view(&self) -> Polytope<'_> {
        Polytope {
            vertices: &self.vertices,
            planes: &self.planes,
            edges: &BOX_EDGES,
            triangles: &BOX_TRIANGLES,
        }
    }
}

/// No candidate in this slot (shared with `pairwise`).
pub(super) const NONE: Candidate = Candidate {
    point: Vec3::new(0.0, 0.0, 0.0),
    normal: Vec3::new(0.0, 0.0, 1.0),
    depth: f64::NEG_INFINITY,
};

/// Slack below which a segment parameter counts as an end (the end's own candidate
/// carries that contact).
pub(super) const END: f64 = 1e-9;

impl Polytope<'_> {
    /// The largest signed distance of `p` beyond a face plane (≤ 0: inside) and that
    /// face.
    pub fn height(&self, p: &Vec3) -> (f64, usize) {
        let mut best = (f64::NEG_INFINITY, 0);
        for (k, f) in self.planes.iter().enumerate() {
            let h = f.normal.dot(p) - f.offset;
            if h > best.0 {
                best = (h, k);
            }
        }
        best
    }

    /// Signed distance of `p` to the surface (negative inside), the outward normal there
    /// and the nearest surface point.
    pub fn distance(&self, p: Vec3) -> (f64, Vec3, Vec3) {
        let (h, k) = self.height(&p);
        let normal = self.planes[k].normal;
        if h <= 0.0 {
            return (h, normal, p - normal * h);
        }
        let v = |i: u32| self.vertices[i as usize];
        let mut best = (f64::INFINITY, p);
        for t in self.triangles {
            let q = closest_on_triangle(p, v(t[0]), v(t[1]), v(t[2]));
            let d2 = (p - q).norm_squared();
            if d2 < best.0 {
                best = (d2, q);
            }
        }
        let gap = best.0.sqrt();
        if gap > 0.0 {
            (gap, (p - best.1) / gap, best.1)
        } else {
            (0.0, normal, p)
        }
    }

    /// The parameters in [0, 1] where segment `p`–`q` lies within the face planes moved
    /// out by `radius` (none: it misses).
    pub fn clip(&self, p: Vec3, q: Vec3, radius: f64) -> Option<(f64, f64)> {
        let d = q - p;
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for f in self.planes {
            // Inside where a + t b ≤ 0.
            let (a, b) = (f.normal.dot(&p) - f.offset - radius, f.normal.dot(&d));
            if b == 0.0 {
                if a > 0.0 {
                    return None;
                }
                continue;
            }
            let t = -a / b;
            if b > 0.0 {
                hi = hi.min(t);
            } else {
                lo = lo.max(t);
            }
            if lo > hi {
                return None;
            }
        }
        Some((lo, hi))
    }

    /// How far `q`, inside, moves along unit `direction` to leave.
    fn exit_along(&self, q: &Vec3, direction: &Vec3) -> f64 {
        let mut exit = f64::INFINITY;
        for f in self.planes {
            let rate = f.normal.dot(direction);
            if rate > 0.0 {
                exit = exit.min((f.offset - f.normal.dot(q)) / rate);
            }
        }
        exit
    }

    /// A size for round-off tolerances: the largest vertex distance from the first.
    fn scale(&self) -> f64 {
        let first = self.vertices[0];
        self.vertices
            .iter()
            .map(|v| (v - first).norm())
            .fold(0.0, f64::max)
    }
}

/// A ball of `radius` about `p` against polytope `s`; the normal pushes the ball out.
pub fn point_against(p: Vec3, radius: f64, s: &Polytope) -> Candidate {
    let (distance, normal, surface) = s.distance(p);
    let on_ball = p - normal * radius;
    Candidate {
        point: (on_ball + surface) * 0.5,
        normal,
        depth: radius - distance,
    }
}

/// A capsule's segment `p`–`q` of `radius` against polytope `s`: its ends, and its
/// deepest inner point where deeper than both (three slots).
pub fn segment_against(p: Vec3, q: Vec3, radius: f64, s: &Polytope, out: &mut [Candidate]) {
    out[0] = point_against(p, radius, s);
    out[1] = point_against(q, radius, s);
    out[2] = inner_point(p, q, radius, s, out[0].depth.max(out[1].depth));
}

/// The middle of the chord of segment `p`–`q` (swollen by `radius`) through `s`, where it
/// lies inside the segment and is deeper than `ends` by more than round-off (as
/// `pairwise`'s for a box: the chord's middle moves continuously with the poses).
fn inner_point(p: Vec3, q: Vec3, radius: f64, s: &Polytope, ends: f64) -> Candidate {
    let Some((lo, hi)) = s.clip(p, q, radius) else {
        return NONE;
    };
    let t = 0.5 * (lo + hi);
    let inner = point_against(p + (q - p) * t, radius, s);
    if t > END && t < 1.0 - END && inner.depth > ends + 1e-12 * (1.0 + radius) {
        inner
    } else {
        NONE
    }
}

/// The reference face of two polytopes: whose it is and its outward normal and offset.
struct Face {
    on_a: bool,
    normal: Vec3,
    offset: f64,
}

/// The face of least overlap over both solids' faces, or none where a face separates them.
fn reference_face(a: &Polytope, b: &Polytope) -> Option<Face> {
    let mut best: Option<(f64, Face)> = None;
    for (on_a, own, other) in [(true, a, b), (false, b, a)] {
        for f in own.planes {
            let lowest = other
                .vertices
                .iter()
                .map(|v| f.normal.dot(v))
                .fold(f64::INFINITY, f64::min);
            let overlap = f.offset - lowest;
            if overlap < 0.0 {
                return None;
            }
            if best.as_ref().is_none_or(|(o, _)| overlap < *o) {
                let face = Face {
                    on_a,
                    normal: f.normal,
                    offset: f.offset,
                };
                best = Some((overlap, face));
            }
        }
    }
    best.map(|(_, f)| f)
}

/// Polytope `a` against polytope `b`: slots for `a`'s vertices, `b`'s vertices, `a`'s
/// edges, `b`'s edges, in that order; normals push `a` out of `b`.
pub fn against(a: &Polytope, b: &Polytope, out: &mut [Candidate]) {
    let Some(face) = reference_face(a, b) else {
        return;
    };
    let (na, nb) = (a.vertices.len(), b.vertices.len());
    let (r, i, r_first, i_first) = if face.on_a {
        (a, b, 0, na)
    } else {
        (b, a, na, 0)
    };
    // The reference's normal points at the other solid; the candidates' push `a` out of `b`.
    let normal = if face.on_a { -face.normal } else { face.normal };
    let (slack_r, slack_i) = (1e-12 * r.scale(), 1e-12 * i.scale());
    for (k, p) in i.vertices.iter().enumerate() {
        // A vertex of the other solid within the reference: its depth below the face.
        if r.height(p).0 <= slack_r {
            let depth = face.offset - face.normal.dot(p);
            out[i_first + k] = Candidate {
                point: p + face.normal * (0.5 * depth),
                normal,
                depth,
            };
        }
    }
    for (k, q) in r.vertices.iter().enumerate() {
        // A reference vertex strictly inside the other: how far back along the normal.
        if i.height(q).0 < -slack_i {
            let depth = i.exit_along(q, &-face.normal);
            out[r_first + k] = Candidate {
                point: q - face.normal * (0.5 * depth),
                normal,
                depth,
            };
        }
    }
    let first_a = na + nb;
    let first_b = first_a + a.edges.len();
    for (k, e) in a.edges.iter().enumerate() {
        let (e0, e1) = (e[0] as usize, e[1] as usize);
        let ends = out[e0].depth.max(out[e1].depth);
        out[first_a + k] = inner_point(a.vertices[e0], a.vertices[e1], 0.0, b, ends);
    }
    for (k, e) in b.edges.iter().enumerate() {
        let (e0, e1) = (e[0] as usize, e[1] as usize);
        let ends = out[na + e0].depth.max(out[na + e1].depth);
        let c = inner_point(b.vertices[e0], b.vertices[e1], 0.0, a, ends);
        out[first_b + k] = Candidate {
            normal: -c.normal,
            ..c
        };
    }
}

/// The point of triangle `a`, `b`, `c` nearest to `p` (Ericson §5.1.5, by Voronoi
/// regions).
fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Vec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = va + vb + vc;
    if denom <= 0.0 {
        // A sliver: its nearest vertex.
        return [a, b, c]
            .into_iter()
            .min_by(|x, y| (p - x).norm_squared().total_cmp(&(p - y).norm_squared()))
            .unwrap_or(a);
    }
    a + ab * (vb / denom) + ac * (vc / denom)
}

#[cfg(test)]
#[path = "polytope_tests.rs"]
mod tests;

//! Narrow phase against the ground: where each shape can touch it and how deep.
//!
//! Every shape offers a fixed number of candidate points ([`crate::model::points_of`]),
//! each a world point on the shape's surface with its depth below the ground (positive:
//! penetrating) and the ground's normal there. The deepest points of these shapes are
//! known in closed form against a plane, so no iterative search (GJK/EPA) runs: a
//! sphere's lowest point, a capsule's two end spheres', a box's eight corners (a face or
//! an edge on the ground is carried by its corners), and a cylinder's rim. A cylinder on
//! its side touches along a line, which its two end circles' lowest points carry;
//! standing on an end face it rests on three rim points 120° apart (the lowest point of
//! the circle and two more), so it stands, tips and rolls on exact geometry.
//!
//! On a heightfield "lowest" is along the surface's normal under the shape's centre (or
//! each end's), and each point's depth is to the tangent plane of the surface below it:
//! exact on planar patches, and close where a cell is large against the shape's
//! curvature of contact (a sphere smaller than a cell, the usual case of a terrain).

use crate::mechanics::BodyKinematics;
use crate::mechanics::spatial::{Vec3, quat_matrix, vec3};
use crate::model::{Geometry, Ground, Hull};

/// A candidate contact point: world position, the unit normal pushing the shape out
/// (the ground's, or out of the other shape) and the depth of penetration [m] (negative:
/// apart).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Candidate {
    pub point: Vec3,
    pub normal: Vec3,
    pub depth: f64,
}

/// The candidate at world point `point` on the ground.
fn at(ground: &Ground, point: Vec3) -> Candidate {
    let (depth, normal) = ground.depth_at(&[point.x, point.y, point.z]);
    Candidate {
        point,
        normal: vec3(normal),
        depth,
    }
}

/// The ground's normal under world point `x`.
fn normal_under(ground: &Ground, x: &Vec3) -> Vec3 {
    vec3(ground.depth_at(&[x.x, x.y, x.z]).1)
}

/// Fixed-point steps towards a ball's point of contact on a heightfield: (r/R)³, 1e-4
/// for a ball a twentieth of the terrain's radius of curvature.
const LOWEST_POINT_STEPS: usize = 2;

/// Writes the candidates of a shape on a body at its current pose into `out` (exactly
/// [`crate::model::points_of`] entries).
pub fn candidates(
    geometry: &Geometry,
    body: &BodyKinematics,
    ground: &Ground,
    hulls: &[Hull],
    out: &mut [Candidate],
) {
    let world = |local: [f64; 3]| body.point(&vec3(local));
    // The lowest point of a ball along the normal where it touches: found by fixed-point
    // steps from the normal under the centre (each step's error is r/R of the last, R the
    // terrain's radius of curvature; on a plane the first is exact).
    let steps = match ground {
        Ground::Plane(_) => 0,
        Ground::Heightfield(_) => LOWEST_POINT_STEPS,
    };
    let lowest_of_sphere = |c: Vec3, r: f64| {
        let mut n = normal_under(ground, &c);
        for _ in 0..steps {
            n = normal_under(ground, &(c - n * r));
        }
        at(ground, c - n * r)
    };
    match *geometry {
        Geometry::Sphere { center, radius } => out[0] = lowest_of_sphere(world(center), radius),
        Geometry::Capsule { from, to, radius } => {
            out[0] = lowest_of_sphere(world(from), radius);
            out[1] = lowest_of_sphere(world(to), radius);
        }
        Geometry::Box {
            center,
            rotation,
            half,
        } => {
            let axes = body.rotation * quat_matrix(rotation);
            let c = world(center);
            for (k, slot) in out.iter_mut().take(8).enumerate() {
                let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
                let local = Vec3::new(sign(1) * half[0], sign(2) * half[1], sign(4) * half[2]);
                *slot = at(ground, c + axes * local);
            }
        }
        Geometry::Hull { hull, .. } => {
            for (slot, &v) in out.iter_mut().zip(&hulls[hull].vertices) {
                *slot = at(ground, world(v));
            }
        }
        Geometry::Cylinder { from, to, radius } => {
            let (a, b) = (world(from), world(to));
            let axis = (b - a).normalize();
            let n = normal_under(ground, &((a + b) * 0.5));
            // Lowest direction in the end planes: −n without its axial part. Standing
            // upright that vanishes; any direction across the axis will do (the three
            // points are then equally deep).
            let across = -(n - axis * axis.dot(&n));
            let u = if across.norm() > 1e-9 {
                across.normalize()
            } else {
                let e = body.rotation * Vec3::x();
                let e = if (e - axis * axis.dot(&e)).norm() > 0.5 {
                    e
                } else {
                    body.rotation * Vec3::y()
                };
                (e - axis * axis.dot(&e)).normalize()
            };
            let v = axis.cross(&u);
            let half_root3 = 0.5 * 3f64.sqrt();
            let dirs = [u, -0.5 * u + half_root3 * v, -0.5 * u - half_root3 * v];
            for (e, centre) in [a, b].into_iter().enumerate() {
                for (k, d) in dirs.iter().enumerate() {
                    out[3 * e + k] = at(ground, centre + d * radius);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::spatial::{Mat3, axis_angle};
    use crate::model::{GroundPlane, Heightfield};

    fn at_pose(origin: Vec3, rotation: Mat3) -> BodyKinematics {
        BodyKinematics {
            rotation,
            origin,
            ..BodyKinematics::GROUND
        }
    }

    const FLOOR: Ground = Ground::Plane(GroundPlane {
        point: [0.0, 0.0, 0.0],
        normal: [0.0, 0.0, 1.0],
    });

    #[test]
    fn a_sphere_touches_with_its_lowest_point() {
        let mut out = [Candidate::default()];
        let g = Geometry::Sphere {
            center: [0.0, 0.0, 0.0],
            radius: 0.1,
        };
        candidates(
            &g,
            &at_pose(Vec3::new(1.0, 2.0, 0.09), Mat3::identity()),
            &FLOOR,
            &[],
            &mut out,
        );
        assert!((out[0].depth - 0.01).abs() < 1e-15);
        assert_eq!(out[0].point, Vec3::new(1.0, 2.0, 0.09 - 0.1));
    }

    #[test]
    fn a_tilted_box_rests_on_its_lowest_corner() {
        let mut out = [Candidate::default(); 8];
        let g = Geometry::Box {
            center: [0.0; 3],
            rotation: [1.0, 0.0, 0.0, 0.0],
            half: [0.5, 0.5, 0.5],
        };
        // Turned 45° about x: the lowest edge is √2/2 below the centre.
        let r = axis_angle(&Vec3::x(), std::f64::consts::FRAC_PI_4);
        candidates(
            &g,
            &at_pose(Vec3::new(0.0, 0.0, 0.7), r),
            &FLOOR,
            &[],
            &mut out,
        );
        let deepest = out.iter().map(|c| c.depth).fold(f64::MIN, f64::max);
        assert!((deepest - (0.5f64.sqrt() - 0.7)).abs() < 1e-12);
        assert_eq!(
            out.iter()
                .filter(|c| (c.depth - deepest).abs() < 1e-12)
                .count(),
            2
        );
    }

    #[test]
    fn a_cylinder_on_its_side_touches_along_a_line() {
        let mut out = [Candidate::default(); 6];
        let g = Geometry::Cylinder {
            from: [0.0, -0.5, 0.0],
            to: [0.0, 0.5, 0.0],
            radius: 0.2,
        };
        candidates(
            &g,
            &at_pose(Vec3::new(0.0, 0.0, 0.19), Mat3::identity()),
            &FLOOR,
            &[],
            &mut out,
        );
        for k in [0, 3] {
            assert!((out[k].depth - 0.01).abs() < 1e-15);
        }
        assert!(out.iter().filter(|c| c.depth > 0.0).count() == 2);
        // Standing on its end face: three rim points, equally deep.
        let up = axis_angle(&Vec3::x(), std::f64::consts::FRAC_PI_2);
        candidates(
            &g,
            &at_pose(Vec3::new(0.0, 0.0, 0.49), up),
            &FLOOR,
            &[],
            &mut out,
        );
        let touching: Vec<f64> = out.iter().map(|c| c.depth).filter(|d| *d > 0.0).collect();
        assert_eq!(touching.len(), 3);
        assert!(touching.iter().all(|d| (d - 0.01).abs() < 1e-12));
    }

    /// A heightfield sampling the plane z = 0.1 + 0.2 x − 0.1 y: bilinear cells reproduce
    /// it, so a sphere's candidate is the plane's (depth to the plane, its normal).
    #[test]
    fn a_heightfield_of_a_plane_is_that_plane() {
        let h = |x: f64, y: f64| 0.1 + 0.2 * x - 0.1 * y;
        let (columns, rows, step) = (5, 4, 0.5);
        let heights = (0..rows)
            .flat_map(|j| {
                (0..columns).map(move |i| h(i as f64 * step - 1.0, j as f64 * step - 1.0) - 0.05)
            })
            .collect();
        let field = Ground::Heightfield(Heightfield {
            origin: [-1.0, -1.0, 0.05],
            spacing: [step, step],
            columns,
            rows,
            heights,
        });
        let n = Vec3::new(-0.2, 0.1, 1.0).normalize();
        let plane = Ground::Plane(GroundPlane {
            point: [0.0, 0.0, 0.1],
            normal: [n.x, n.y, n.z],
        });
        let g = Geometry::Sphere {
            center: [0.0; 3],
            radius: 0.1,
        };
        for c in [[0.3, 0.2, 0.1], [-0.7, 0.4, 0.05], [0.9, -0.9, 0.2]] {
            let body = at_pose(Vec3::new(c[0], c[1], c[2]), Mat3::identity());
            let (mut a, mut b) = ([Candidate::default()], [Candidate::default()]);
            candidates(&g, &body, &field, &[], &mut a);
            candidates(&g, &body, &plane, &[], &mut b);
            assert!((a[0].depth - b[0].depth).abs() < 1e-14, "{c:?}");
            assert!((a[0].normal - b[0].normal).norm() < 1e-14);
            assert!((a[0].point - b[0].point).norm() < 1e-14);
        }
        // Beyond the grid the edge heights go on, level.
        let Ground::Heightfield(hf) = &field else {
            unreachable!()
        };
        let (edge, hx, hy) = hf.surface(5.0, 0.0);
        assert_eq!(hx, 0.0);
        assert!((hy + 0.1).abs() < 1e-14);
        assert!((edge - h(1.0, 0.0)).abs() < 1e-14);
    }
}

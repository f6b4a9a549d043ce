//! A box seen as a polytope must touch as the box's own closed forms do; a tetrahedron
//! and a ball check the faces that are not a box's.

use super::super::pairwise::{Solid, candidates};
use super::*;
use crate::mechanics::spatial::axis_angle;

fn boxed(c: [f64; 3], axes: Mat3, half: [f64; 3]) -> Solid<'static> {
    Solid::Box {
        center: vec3(c),
        axes,
        half: vec3(half),
    }
}

/// The touching candidates of `a` against `b`, sorted by point.
fn touching(a: &Solid, b: &Solid, n: usize) -> Vec<Candidate> {
    let mut out = vec![Candidate::default(); n];
    candidates(a, b, &mut out);
    let mut t: Vec<Candidate> = out.into_iter().filter(|c| c.depth > 0.0).collect();
    t.sort_by(|x, y| {
        (x.point.x, x.point.y, x.point.z)
            .partial_cmp(&(y.point.x, y.point.y, y.point.z))
            .unwrap()
    });
    t
}

/// The same candidates within round-off (a normal from a nearly touching surface point
/// turns by round-off over the gap: 1e-9 allows gaps down to 1e-7 m).
fn same(a: &[Candidate], b: &[Candidate], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: {a:?} against {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x.point - y.point).norm() < 1e-12,
            "{what}: {x:?} against {y:?}"
        );
        assert!(
            (x.normal - y.normal).norm() < 1e-9,
            "{what}: {x:?} against {y:?}"
        );
        assert!(
            (x.depth - y.depth).abs() < 1e-12,
            "{what}: {x:?} against {y:?}"
        );
    }
}

/// A box's corners and faces as a hull would give them.
fn hull_of(b: &BoxPolytope) -> Solid<'_> {
    Solid::Hull(b.view())
}

#[test]
fn a_box_as_a_polytope_touches_a_box_where_the_closed_forms_do() {
    let below = boxed([0.0; 3], Mat3::identity(), [0.5, 0.5, 0.5]);
    let poses = [
        ("stacked", [0.1, -0.05, 0.99], Mat3::identity()),
        ("twisted", [0.0, 0.0, 0.99], axis_angle(&Vec3::z(), 0.3)),
        (
            "tilted onto an edge",
            [0.2, 0.0, 1.18],
            axis_angle(&Vec3::y(), 0.6),
        ),
        (
            "corner first",
            [0.3, 0.2, 1.3],
            axis_angle(&Vec3::new(1.0, 1.0, 0.3).normalize(), 0.9),
        ),
    ];
    for (what, c, axes) in poses {
        let above = boxed(c, axes, [0.5, 0.5, 0.5]);
        let expected = touching(&above, &below, 40);
        assert!(!expected.is_empty(), "{what}");
        let Solid::Box { center, axes, half } = above else {
            unreachable!()
        };
        let hull = BoxPolytope::new(center, axes, half);
        // Hull on box and box on hull, each way round (20 + 20 slots).
        same(&touching(&hull_of(&hull), &below, 40), &expected, what);
        let seen = touching(&below, &hull_of(&hull), 40);
        let flipped: Vec<Candidate> = seen
            .iter()
            .map(|c| Candidate {
                normal: -c.normal,
                ..*c
            })
            .collect();
        same(&flipped, &expected, what);
        // Both as hulls.
        let base = BoxPolytope::new(Vec3::zeros(), Mat3::identity(), vec3([0.5; 3]));
        same(
            &touching(&hull_of(&hull), &hull_of(&base), 40),
            &expected,
            what,
        );
    }
}

#[test]
fn a_ball_and_a_capsule_meet_a_box_polytope_as_the_box() {
    let axes = axis_angle(&Vec3::new(0.2, 1.0, 0.4).normalize(), 0.7);
    let solid = boxed([0.1, 0.2, 0.3], axes, [0.4, 0.3, 0.2]);
    let hull = BoxPolytope::new(vec3([0.1, 0.2, 0.3]), axes, vec3([0.4, 0.3, 0.2]));
    let mut seen = 0;
    // Balls all around: over faces, edges and corners, and inside.
    for i in 0..9 {
        for j in 0..9 {
            for k in 0..9 {
                let p = [
                    -0.5 + 0.15 * i as f64,
                    -0.4 + 0.125 * j as f64,
                    -0.3 + 0.125 * k as f64,
                ];
                let ball = Solid::Core {
                    a: vec3(p),
                    b: vec3(p),
                    radius: 0.15,
                };
                let expected = touching(&ball, &solid, 1);
                seen += expected.len();
                same(&touching(&ball, &hull_of(&hull), 1), &expected, "ball");
            }
        }
    }
    assert!(seen > 100, "{seen} balls touched");
    // Capsules across the box, along it and over a corner.
    for (a, b) in [
        ([-1.0, 0.2, 0.55], [1.0, 0.2, 0.5]),
        ([0.1, 0.2, 0.6], [0.1, 0.6, 0.5]),
        ([0.6, 0.6, 0.7], [-0.2, 0.3, 0.1]),
    ] {
        let capsule = Solid::Core {
            a: vec3(a),
            b: vec3(b),
            radius: 0.2,
        };
        let expected = touching(&capsule, &solid, 3);
        assert!(!expected.is_empty());
        same(
            &touching(&capsule, &hull_of(&hull), 3),
            &expected,
            "capsule",
        );
    }
}

/// A tetrahedron of vertices `v` and face planes `planes`.
fn tetrahedron<'a>(v: &'a [Vec3; 4], planes: &'a [Plane]) -> Polytope<'a> {
    const EDGES: [[u32; 2]; 6] = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];
    const TRIANGLES: [[u32; 3]; 4] = [[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]];
    Polytope {
        vertices: v,
        planes,
        edges: &EDGES,
        triangles: &TRIANGLES,
    }
}

#[test]
fn a_tetrahedron_touches_a_slab_at_its_apex_and_rests_on_its_base() {
    // Apex down at z = -0.01 into the slab's top face z = 0; base 0.3 above.
    let tetra = |apex_z: f64, up: bool| -> [Vec3; 4] {
        let s = if up { -1.0 } else { 1.0 };
        [
            Vec3::new(0.0, 0.0, apex_z),
            Vec3::new(0.2, 0.0, apex_z + s * 0.3),
            Vec3::new(-0.1, 0.17, apex_z + s * 0.3),
            Vec3::new(-0.1, -0.17, apex_z + s * 0.3),
        ]
    };
    let planes_of = |v: &[Vec3; 4]| -> Vec<Plane> {
        [[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]]
            .iter()
            .map(|t| {
                let n = (v[t[1]] - v[t[0]]).cross(&(v[t[2]] - v[t[0]])).normalize();
                let inner = v.iter().sum::<Vec3>() / 4.0;
                let n = if n.dot(&(v[t[0]] - inner)) < 0.0 {
                    -n
                } else {
                    n
                };
                Plane {
                    normal: n,
                    offset: n.dot(&v[t[0]]),
                }
            })
            .collect()
    };
    let slab = boxed([0.0, 0.0, -0.5], Mat3::identity(), [1.0, 1.0, 0.5]);
    let v = tetra(-0.01, false);
    let planes = planes_of(&v);
    let t = Solid::Hull(tetrahedron(&v, &planes));
    let c = touching(&t, &slab, 4 + 8 + 6 + 12);
    assert_eq!(c.len(), 1, "{c:?}");
    assert!((c[0].depth - 0.01).abs() < 1e-12 && (c[0].normal - Vec3::z()).norm() < 1e-12);
    // Upside down, on its base: three corners.
    let v = tetra(0.29, true);
    let planes = planes_of(&v);
    let t = Solid::Hull(tetrahedron(&v, &planes));
    let c = touching(&t, &slab, 4 + 8 + 6 + 12);
    assert_eq!(c.len(), 3, "{c:?}");
    assert!(c.iter().all(|c| (c.depth - 0.01).abs() < 1e-12));
    // A ball just off a slanted face, and just off the apex: the nearest features.
    let v = tetra(0.5, false);
    let planes = planes_of(&v);
    let h = tetrahedron(&v, &planes);
    let below = Vec3::new(0.0, 0.0, 0.45);
    let c = point_against(below, 0.06, &h);
    assert!((c.depth - 0.01).abs() < 1e-12 && (c.normal + Vec3::z()).norm() < 1e-12);
    let inner = v.iter().sum::<Vec3>() / 4.0;
    let on_face = (v[0] + v[1] + v[2]) / 3.0;
    let (d, n, _) = h.distance(on_face + planes[0].normal * 0.05);
    assert!((d - 0.05).abs() < 1e-12 && (n - planes[0].normal).norm() < 1e-12);
    let (d, _, q) = h.distance(inner);
    assert!(d < 0.0 && (h.height(&q).0).abs() < 1e-12);
}

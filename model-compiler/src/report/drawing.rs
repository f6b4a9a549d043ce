//! The machine at its initial pose as an SVG drawing, projected onto a world plane: body
//! visuals (boxes, cylinders, spheres as their projected outlines), bodies without visuals
//! as links through their attachment points, hydraulic cylinders as barrel and rod,
//! joints as circles, markers as dots, ground anchors hatched, axes and a scale bar.

use crate::bench::svg::{begin, esc};
use crate::lower::{Lowered, VisualGeometry};
use fmu_runtime::mechanics::Kinematics;
use fmu_runtime::model::{CutKind, ForceElement, JointKind, PointRef};
use nalgebra::Vector3;
use std::fmt::Write;

const W: f64 = 720.0;
const MARGIN: f64 = 56.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 64.0;
const AXES: [&str; 3] = ["x", "y", "z"];
/// Fill colours of bodies that have no visual colour.
const BODY_COLOURS: [&str; 6] = [
    "#f2c14e", "#8fb8de", "#a8d5a2", "#f4a582", "#c9b3e6", "#d9c5a0",
];

/// What the drawing is made of, in world coordinates [m].
enum Item {
    /// A filled outline (convex hull of the points) of a body.
    Outline {
        points: Vec<[f64; 3]>,
        fill: String,
        /// Drawn with a wide round stroke (a link through its points).
        link: bool,
    },
    Disc {
        center: [f64; 3],
        radius: f64,
        fill: String,
    },
}

/// Convex hull (monotone chain) of 2-D points, counter-clockwise.
pub fn convex_hull(points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut p: Vec<[f64; 2]> = points.to_vec();
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup_by(|a, b| (a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12);
    if p.len() < 3 {
        return p;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(p.iter())
        } else {
            Box::new(p.iter().rev())
        };
        for &q in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], q) <= 0.0
            {
                hull.pop();
            }
            hull.push(q);
        }
        hull.pop();
    }
    hull
}

/// Unit vectors perpendicular to `a` (and to each other).
fn perpendiculars(a: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let a = Vector3::from(a);
    let n = a.norm();
    if n < 1e-15 {
        return ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    }
    let a = a / n;
    let helper = if a.x.abs() < 0.9 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    let u = a.cross(&helper).normalize();
    let v = a.cross(&u);
    (u.into(), v.into())
}

/// A "nice" length near `x` (1, 2 or 5 × 10^k).
fn nice_length(x: f64) -> f64 {
    let mag = 10f64.powf(x.log10().floor());
    [5.0, 2.0, 1.0]
        .iter()
        .map(|m| m * mag)
        .find(|v| *v <= x)
        .unwrap_or(mag)
}

fn fmt_len(x: f64) -> String {
    if x >= 1.0 {
        format!("{x} m")
    } else {
        format!("{} mm", (x * 1000.0).round())
    }
}

/// The SVG drawing of the machine at joint coordinates `z` (the initial state),
/// projected onto the world axes `view = [horizontal, vertical]`. `user_bodies` are the
/// bodies of the description (the others are links generated for composite joints).
pub fn machine(l: &Lowered, z: &[f64], view: [usize; 2], user_bodies: &[String]) -> String {
    let m = &l.model;
    let mech = &m.mechanism;
    let mut kin = Kinematics::new(mech);
    let zero = vec![0.0; z.len()];
    kin.update(mech, |_| 1.0, z, &zero, &zero);
    let world = |body: Option<usize>, p: [f64; 3]| -> [f64; 3] {
        kin.of(body).point(&Vector3::from(p)).into()
    };
    let at = |r: &PointRef| world(r.body, r.point);
    let [h, v] = view;
    let n = 3 - h - v;
    // Depth towards the viewer: (e_h × e_v) · e_n is +1 or −1.
    let toward = {
        let mut eh = Vector3::zeros();
        eh[h] = 1.0;
        let mut ev = Vector3::zeros();
        ev[v] = 1.0;
        eh.cross(&ev)[n]
    };
    let depth = |p: &[f64; 3]| toward * p[n];
    let user = |i: usize| user_bodies.contains(&mech.bodies[i].name);

    // Body items.
    let mut items: Vec<(usize, Item)> = Vec::new();
    for (i, body) in mech.bodies.iter().enumerate() {
        if !user(i) {
            continue;
        }
        let visuals: Vec<_> = l.visuals.iter().filter(|x| x.body == body.name).collect();
        let colour = BODY_COLOURS[i % BODY_COLOURS.len()].to_string();
        let mut drawn = false;
        for x in visuals {
            let fill = x.color.clone().unwrap_or_else(|| colour.clone());
            let w = |p: [f64; 3]| world(Some(i), p);
            match &x.shape {
                VisualGeometry::Box { center, size } => {
                    let mut points = Vec::new();
                    for k in 0..8 {
                        let mut p = *center;
                        for (a, pa) in p.iter_mut().enumerate() {
                            let sign = if k & (1 << a) == 0 { -0.5 } else { 0.5 };
                            *pa += sign * size[a];
                        }
                        points.push(w(p));
                    }
                    items.push((
                        i,
                        Item::Outline {
                            points,
                            fill,
                            link: false,
                        },
                    ));
                }
                VisualGeometry::Cylinder { from, to, radius } => {
                    let axis = [to[0] - from[0], to[1] - from[1], to[2] - from[2]];
                    let (u, vv) = perpendiculars(axis);
                    let mut points = Vec::new();
                    for end in [from, to] {
                        for k in 0..24 {
                            let a = k as f64 * std::f64::consts::TAU / 24.0;
                            let (c, s) = (radius * a.cos(), radius * a.sin());
                            points.push(w([
                                end[0] + c * u[0] + s * vv[0],
                                end[1] + c * u[1] + s * vv[1],
                                end[2] + c * u[2] + s * vv[2],
                            ]));
                        }
                    }
                    items.push((
                        i,
                        Item::Outline {
                            points,
                            fill,
                            link: false,
                        },
                    ));
                }
                VisualGeometry::Sphere { center, radius } => items.push((
                    i,
                    Item::Disc {
                        center: w(*center),
                        radius: *radius,
                        fill,
                    },
                )),
                VisualGeometry::Mesh { .. } => continue,
            }
            drawn = true;
        }
        if !drawn {
            // A link through the body's origin, centre of mass and attachment points.
            let mut local = vec![[0.0; 3], body.com];
            for c in mech.bodies.iter().filter(|c| c.parent == Some(i)) {
                local.push(c.joint_frame.origin);
            }
            let mut add = |r: &PointRef| {
                if r.body == Some(i) {
                    local.push(r.point);
                }
            };
            for c in &mech.cut_joints {
                add(&c.a);
                add(&c.b);
            }
            for c in &m.circuit.cylinders {
                add(&c.cap_point);
                add(&c.rod_point);
            }
            for mk in &mech.markers {
                add(&mk.point);
            }
            for f in &mech.forces {
                match f {
                    ForceElement::SpringDamper(s) => {
                        add(&s.a);
                        add(&s.b);
                    }
                    ForceElement::PointForce(p) => add(&p.point),
                    ForceElement::JointLimit(_) => {}
                    ForceElement::Rope(r) => r.path.iter().for_each(&mut add),
                    ForceElement::ForceActuator(a) => {
                        add(&a.a);
                        add(&a.b);
                    }
                }
            }
            items.push((
                i,
                Item::Outline {
                    points: local.into_iter().map(|p| world(Some(i), p)).collect(),
                    fill: colour,
                    link: true,
                },
            ));
        }
    }

    // Joints (world), cylinders, springs, markers, ground anchors.
    let mut joints: Vec<([f64; 3], bool)> = Vec::new(); // (point, prismatic)
    let mut ground: Vec<[f64; 3]> = Vec::new();
    for b in &mech.bodies {
        if b.joint == JointKind::Fixed {
            continue;
        }
        let p = world(b.parent, b.joint_frame.origin);
        let prismatic = matches!(b.joint, JointKind::Prismatic { .. });
        if !joints.iter().any(|(q, _)| dist(q, &p) < 1e-9) {
            joints.push((p, prismatic));
        }
        if b.parent.is_none() {
            ground.push(p);
        }
    }
    let mut cut_points = Vec::new();
    for c in &mech.cut_joints {
        let p = at(&c.a);
        if !matches!(c.kind, CutKind::Prismatic { .. }) {
            cut_points.push(p);
        }
        for r in [&c.a, &c.b] {
            if r.body.is_none() {
                ground.push(at(r));
            }
        }
    }
    let cylinders: Vec<([f64; 3], [f64; 3], f64)> = m
        .circuit
        .cylinders
        .iter()
        .map(|c| {
            let retracted = m.default_param(c.retracted_length);
            (at(&c.cap_point), at(&c.rod_point), retracted)
        })
        .collect();
    for c in &m.circuit.cylinders {
        for r in [&c.cap_point, &c.rod_point] {
            if r.body.is_none() {
                ground.push(at(r));
            }
        }
    }
    let springs: Vec<([f64; 3], [f64; 3])> = mech
        .forces
        .iter()
        .flat_map(|f| match f {
            ForceElement::SpringDamper(s) => vec![(at(&s.a), at(&s.b))],
            ForceElement::ForceActuator(a) => vec![(at(&a.a), at(&a.b))],
            // Rope segments drawn as lines like springs.
            ForceElement::Rope(r) => r.path.windows(2).map(|w| (at(&w[0]), at(&w[1]))).collect(),
            _ => Vec::new(),
        })
        .collect();
    let markers: Vec<(String, [f64; 3])> = mech
        .markers
        .iter()
        .map(|mk| (mk.name.clone(), at(&mk.point)))
        .collect();
    ground.dedup_by(|a, b| dist(a, b) < 1e-9);

    // Bounding box of everything, then the pixel transform.
    let mut all: Vec<[f64; 3]> = Vec::new();
    for (_, it) in &items {
        match it {
            Item::Outline { points, .. } => all.extend(points),
            Item::Disc { center, radius, .. } => {
                let mut a = *center;
                let mut b = *center;
                a[h] -= radius;
                a[v] -= radius;
                b[h] += radius;
                b[v] += radius;
                all.push(a);
                all.push(b);
            }
        }
    }
    all.extend(joints.iter().map(|j| j.0));
    all.extend(cylinders.iter().flat_map(|c| [c.0, c.1]));
    all.extend(markers.iter().map(|mk| mk.1));
    all.extend(&ground);
    if all.is_empty() {
        all.push([0.0; 3]);
    }
    let (mut hmin, mut hmax, mut vmin, mut vmax) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for p in &all {
        hmin = hmin.min(p[h]);
        hmax = hmax.max(p[h]);
        vmin = vmin.min(p[v]);
        vmax = vmax.max(p[v]);
    }
    let span = (hmax - hmin).max(vmax - vmin).max(1e-3);
    let (hw, vw) = (
        (hmax - hmin).max(0.05 * span),
        (vmax - vmin).max(0.05 * span),
    );
    let scale = ((W - 2.0 * MARGIN) / hw).min(460.0 / vw);
    let height = TOP + vw * scale + BOTTOM + 2.0 * MARGIN * 0.5;
    let ox = MARGIN + 0.5 * ((W - 2.0 * MARGIN) - (hmax - hmin) * scale);
    let oy = TOP + MARGIN * 0.5 + 0.5 * (vw - (vmax - vmin)) * scale;
    let px =
        |p: &[f64; 3]| -> [f64; 2] { [ox + (p[h] - hmin) * scale, oy + (vmax - p[v]) * scale] };

    let mut s = String::new();
    begin(
        &mut s,
        W,
        height.round(),
        W / 2.0,
        &format!(
            "{} at its initial pose ({}–{} plane)",
            m.name, AXES[h], AXES[v]
        ),
    );
    // Bodies, far ones first.
    let centroid = |pts: &[[f64; 3]]| -> [f64; 3] {
        let k = pts.len().max(1) as f64;
        let mut c = [0.0; 3];
        for p in pts {
            for a in 0..3 {
                c[a] += p[a] / k;
            }
        }
        c
    };
    let mut order: Vec<(f64, usize)> = items
        .iter()
        .enumerate()
        .map(|(k, (_, it))| {
            let d = match it {
                Item::Outline { points, .. } => depth(&centroid(points)),
                Item::Disc { center, .. } => depth(center),
            };
            (d, k)
        })
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut labels: Vec<(usize, [f64; 2])> = Vec::new();
    for (_, k) in order {
        let (body, it) = &items[k];
        match it {
            Item::Outline { points, fill, link } => {
                let flat: Vec<[f64; 2]> = points.iter().map(px).collect();
                let hull = convex_hull(&flat);
                let path: Vec<String> = hull
                    .iter()
                    .map(|p| format!("{:.1},{:.1}", p[0], p[1]))
                    .collect();
                let c = centroid2(&hull);
                labels.push((*body, c));
                if *link {
                    let _ = writeln!(
                        s,
                        r##"<polygon points="{}" fill="{fill}" stroke="{fill}" stroke-width="14" stroke-linejoin="round"/><polygon points="{}" fill="none" stroke="#00000040" stroke-width="1"/>"##,
                        path.join(" "),
                        path.join(" ")
                    );
                } else {
                    let _ = writeln!(
                        s,
                        r##"<polygon points="{}" fill="{fill}" fill-opacity="0.9" stroke="#333" stroke-width="1" stroke-linejoin="round"/>"##,
                        path.join(" ")
                    );
                }
            }
            Item::Disc {
                center,
                radius,
                fill,
            } => {
                let [x, y] = px(center);
                labels.push((*body, [x, y]));
                let _ = writeln!(
                    s,
                    r##"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="{fill}" stroke="#333"/>"##,
                    (radius * scale).max(2.0)
                );
            }
        }
    }
    // Ground anchors: a short hatched line under each ground point.
    for g in &ground {
        let [x, y] = px(g);
        let _ = writeln!(
            s,
            r##"<path d="M{:.1},{:.1} l-7,11 h14 z" fill="#ddd" stroke="#555"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#555"/>"##,
            x,
            y,
            x - 12.0,
            y + 11.0,
            x + 12.0,
            y + 11.0
        );
        for k in 0..5 {
            let hx = x - 10.0 + 5.0 * k as f64;
            let _ = writeln!(
                s,
                r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#555"/>"##,
                hx,
                y + 11.0,
                hx - 4.0,
                y + 16.0
            );
        }
    }
    // Springs (dashed), cylinders (barrel and rod).
    for (a, b) in &springs {
        let ([x1, y1], [x2, y2]) = (px(a), px(b));
        let _ = writeln!(
            s,
            r##"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="#2a7a2a" stroke-width="2" stroke-dasharray="5,3"/>"##
        );
    }
    for (cap, rod, retracted) in &cylinders {
        let ([x1, y1], [x2, y2]) = (px(cap), px(rod));
        let len = dist(cap, rod);
        if len < 1e-12 {
            continue;
        }
        // The barrel covers most of the retracted length; the rod runs from inside the
        // barrel to the rod eye.
        let fb = (0.85 * retracted / len).clamp(0.2, 0.85);
        let fr = (0.35 * retracted / len).clamp(0.1, fb);
        let lerp = |f: f64| (x1 + f * (x2 - x1), y1 + f * (y2 - y1));
        let (bx, by) = lerp(fb);
        let (rx, ry) = lerp(fr);
        let _ = writeln!(
            s,
            r##"<line x1="{rx:.1}" y1="{ry:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="#b8bec6" stroke-width="5" stroke-linecap="round"/><line x1="{x1:.1}" y1="{y1:.1}" x2="{bx:.1}" y2="{by:.1}" stroke="#3c4650" stroke-width="10" stroke-linecap="round"/>"##
        );
        for (x, y) in [(x1, y1), (x2, y2)] {
            let _ = writeln!(
                s,
                r##"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="white" stroke="#222"/>"##
            );
        }
    }
    // Joints.
    for (p, prismatic) in &joints {
        let [x, y] = px(p);
        if *prismatic {
            let _ = writeln!(
                s,
                r##"<rect x="{:.1}" y="{:.1}" width="10" height="10" fill="white" stroke="#222" stroke-width="1.5"/>"##,
                x - 5.0,
                y - 5.0
            );
        } else {
            let _ = writeln!(
                s,
                r##"<circle cx="{x:.1}" cy="{y:.1}" r="5" fill="white" stroke="#222" stroke-width="1.5"/>"##
            );
        }
    }
    for p in &cut_points {
        let [x, y] = px(p);
        let _ = writeln!(
            s,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="5" fill="white" stroke="#222" stroke-width="1.5" stroke-dasharray="2,1.5"/>"##
        );
    }
    // Body names (one label per body, at its first outline).
    let mut named = Vec::new();
    for (body, [x, y]) in labels {
        if named.contains(&body) {
            continue;
        }
        named.push(body);
        let _ = writeln!(
            s,
            r##"<text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="11" font-weight="bold" stroke="white" stroke-width="3" paint-order="stroke">{}</text>"##,
            y + 4.0,
            esc(&mech.bodies[body].name)
        );
    }
    // Markers.
    for (name, p) in &markers {
        let [x, y] = px(p);
        let _ = writeln!(
            s,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="#d62728"/><text x="{:.1}" y="{:.1}" font-size="10" fill="#d62728" stroke="white" stroke-width="3" paint-order="stroke">{}</text>"##,
            x + 6.0,
            y - 6.0,
            esc(name)
        );
    }
    // Axes (bottom left) and scale bar (bottom right).
    let yb = height.round() - 22.0;
    let _ = writeln!(
        s,
        r##"<g stroke="#333" stroke-width="1.5" fill="none"><path d="M20,{yb} h40 m-6,-4 l6,4 l-6,4"/><path d="M20,{yb} v-40 m-4,6 l4,-6 l4,6"/></g><text x="64" y="{}">{}</text><text x="16" y="{}">{}</text>"##,
        yb + 4.0,
        AXES[h],
        yb - 44.0,
        AXES[v]
    );
    let bar = nice_length(0.25 * (W - 2.0 * MARGIN) / scale);
    let bw = bar * scale;
    let bx = W - MARGIN - bw;
    let _ = writeln!(
        s,
        r##"<g stroke="#333" stroke-width="1.5"><line x1="{bx:.1}" y1="{yb}" x2="{:.1}" y2="{yb}"/><line x1="{bx:.1}" y1="{}" x2="{bx:.1}" y2="{}"/><line x1="{:.1}" y1="{}" x2="{:.1}" y2="{}"/></g><text x="{:.1}" y="{}" text-anchor="middle">{}</text>"##,
        bx + bw,
        yb - 5.0,
        yb + 5.0,
        bx + bw,
        yb - 5.0,
        bx + bw,
        yb + 5.0,
        bx + bw / 2.0,
        yb - 8.0,
        fmt_len(bar)
    );
    s.push_str("</svg>\n");
    s
}

fn dist(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn centroid2(p: &[[f64; 2]]) -> [f64; 2] {
    let k = p.len().max(1) as f64;
    [
        p.iter().map(|q| q[0]).sum::<f64>() / k,
        p.iter().map(|q| q[1]).sum::<f64>() / k,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_of_a_square_with_an_inner_point() {
        let h = convex_hull(&[[0.0, 0.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0], [0.0, 1.0]]);
        assert_eq!(h.len(), 4);
        assert!(!h.contains(&[0.5, 0.5]));
    }

    #[test]
    fn scale_bar_lengths_are_round() {
        assert_eq!(nice_length(0.37), 0.2);
        assert_eq!(nice_length(0.6), 0.5);
        assert_eq!(nice_length(1.4), 1.0);
        assert_eq!(fmt_len(0.2), "200 mm");
        assert_eq!(fmt_len(2.0), "2 m");
    }
}

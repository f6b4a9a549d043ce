//! `[contact] pairs` and `groups`: which bodies' shapes touch each other.

use super::super::Ctx;
use super::Calibrations;
use crate::description::{ContactSection, Description, Name};
use fmu_runtime::model::{ContactPair, Contacts, Material, Mechanism, OtherBody, ShapeContact};

/// `[contact] pairs` and `groups`: the pairs of bodies whose shapes touch each other,
/// each with the combined law of every pair of their shapes.
pub(super) fn body_pairs(
    cx: &mut Ctx,
    d: &Description,
    s: &ContactSection,
    mech: &Mechanism,
    out: &mut Contacts,
    calibrations: &mut Calibrations,
) {
    // Each pair once, explicit when any `pairs` entry names it.
    let mut wanted: Vec<((usize, usize), bool)> = Vec::new();
    let lists = [(&s.pairs, true), (&s.groups, false)];
    for (lists, explicit) in lists {
        for list in lists.iter().flatten() {
            let names = list.get_ref().bodies.get_ref();
            let span = list.get_ref().bodies.span();
            if explicit && names.len() != 2 {
                cx.error(
                    span,
                    format!("a contact pair names two bodies, got {}", names.len()),
                    "write pairs = [{ bodies = [\"left_jaw\", \"log\"] }]; list more bodies in `groups`",
                );
                continue;
            }
            if !explicit && names.len() < 2 {
                cx.error(
                    span,
                    "a contact group needs two bodies or more",
                    "list the bodies whose shapes touch each other",
                );
                continue;
            }
            let mut bodies = Vec::new();
            for n in names {
                match contact_body(cx, d, n, out) {
                    Some(b) if bodies.contains(&b) => cx.error(
                        n.span(),
                        format!("body '{}' is named twice", n.get_ref()),
                        "name each body once",
                    ),
                    Some(b) => bodies.push(b),
                    None => {}
                }
            }
            for (i, &a) in bodies.iter().enumerate() {
                for &b in &bodies[i + 1..] {
                    let joined = joint_parent(cx, mech, a) == Some(b)
                        || joint_parent(cx, mech, b) == Some(a);
                    let key = (a.min(b), a.max(b));
                    match wanted.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, named)) => *named |= explicit,
                        None if explicit || !joined => wanted.push((key, explicit)),
                        None => {}
                    }
                }
            }
        }
    }
    for ((a, b), explicit) in wanted {
        let (pa, pb) = (ground_pair(out, a), ground_pair(out, b));
        let mut shapes = Vec::new();
        for sa in &out.pairs[pa].shapes {
            for sb in &out.pairs[pb].shapes {
                let (ma, mb) = (
                    &out.shapes[sa.shape].material,
                    &out.shapes[sb.shape].material,
                );
                let exponent = ma.exponent.max(mb.exponent);
                let restitution = ma.restitution.min(mb.restitution);
                shapes.push(ShapeContact {
                    shape: sa.shape,
                    other: Some(sb.shape),
                    exponent,
                    restitution,
                    damping: damping_of(ma, mb, restitution, exponent, calibrations),
                    bristles: ma.bristles.or(mb.bristles),
                });
            }
        }
        let name = format!("{}.{}", out.pairs[pa].name, out.pairs[pb].name);
        let other = OtherBody {
            body: b,
            mass: out.pairs[pb].mass,
        };
        out.pairs.push(ContactPair {
            name,
            body: a,
            shapes,
            mass: out.pairs[pa].mass,
            other: Some(other),
            grouped: !explicit,
        });
    }
}

/// The described body a joint joins `body` to: its parent, past the massless bodies a
/// spherical, universal or free joint is made of (none: the ground).
fn joint_parent(cx: &Ctx, mech: &Mechanism, body: usize) -> Option<usize> {
    let described = |b: usize| cx.bodies.values().any(|&v| v == b);
    let mut parent = mech.bodies[body].parent;
    while let Some(p) = parent
        && !described(p)
    {
        parent = mech.bodies[p].parent;
    }
    parent
}

/// The ground pair of a body (every body with shapes has one).
fn ground_pair(out: &Contacts, body: usize) -> usize {
    out.pairs
        .iter()
        .position(|p| p.body == body && p.other.is_none())
        .expect("a body in a pair has its ground pair")
}

/// A body named in a pair or group: known, with collision shapes that can touch bodies.
fn contact_body(cx: &mut Ctx, d: &Description, n: &Name, out: &Contacts) -> Option<usize> {
    let Some(&body) = cx.bodies.get(n.get_ref()) else {
        let names: Vec<&str> = d
            .bodies
            .iter()
            .filter(|b| b.collision.is_some())
            .map(|b| b.name.get_ref().as_str())
            .collect();
        cx.error(
            n.span(),
            format!("no body is named '{}'", n.get_ref()),
            format!("the bodies with collision shapes: {}", names.join(", ")),
        );
        return None;
    };
    let Some(pair) = out.pairs.iter().find(|p| p.body == body) else {
        cx.error(
            n.span(),
            format!("body '{}' has no collision shapes", n.get_ref()),
            "give it `collision = [...]` shapes to touch other bodies with",
        );
        return None;
    };
    if pair
        .shapes
        .iter()
        .any(|s| !out.shapes[s.shape].geometry.pairs_with_bodies())
    {
        cx.error(
            n.span(),
            format!(
                "body '{}' has a collision cylinder, which touches only the ground so far",
                n.get_ref()
            ),
            "use a capsule, a box or a mesh of its outline for contact between bodies",
        );
        return None;
    }
    Some(body)
}

/// The damping factor for the pair's law: a shape's own where its law is the pair's
/// (calibrated once per material already), else the one calibrated for that law.
fn damping_of(
    a: &Material,
    b: &Material,
    restitution: f64,
    exponent: f64,
    calibrations: &mut Calibrations,
) -> f64 {
    [a, b]
        .into_iter()
        .find(|m| m.restitution == restitution && m.exponent == exponent)
        .map_or_else(
            || calibrations.damping(restitution, exponent),
            |m| m.damping,
        )
}

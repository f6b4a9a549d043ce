//! `collision = [...]` on bodies and `[contact]`: the shapes, the ground and each shape's
//! material, checked and lowered into [`Contacts`].

mod ground;
mod mesh;
mod pairs;
mod shapes;

use super::{Ctx, Expect};
use crate::description::{
    CollisionShapeDesc, CollisionShapeKind, ContactFrictionDesc, ContactFrictionModel,
    ContactSection, Description, Located, Quantity,
};
use crate::units::Dim;
use fmu_runtime::contact::law::damping_for_restitution;
use fmu_runtime::model::{
    Bristles, CollisionShape, ContactPair, Contacts, Geometry, Material, Mechanism, ShapeContact,
};
use ground::ground;
use pairs::body_pairs;
use shapes::{geometry, shapes_of};
use std::ops::Range;

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);
const NONE: Expect = Expect::Dim(Dim::NONE);
const VELOCITY: Expect = Expect::Dim(Dim::VELOCITY);

/// Our defaults: a stiff rubber-on-steel contact (1e6 N/m at 1 mm), a restitution of 0.5,
/// dry friction μ_s = 0.6, μ_k = 0.5, stiction below 0.1 mm/s, Stribeck speed 10 mm/s.
pub const DEFAULT_STIFFNESS: f64 = 1e6;
pub const DEFAULT_RESTITUTION: f64 = 0.5;
pub const DEFAULT_FRICTION: (f64, f64) = (0.6, 0.5);
pub const DEFAULT_STICTION_VELOCITY: f64 = 1e-4;
pub const DEFAULT_STRIBECK_VELOCITY: f64 = 1e-2;
/// LuGre's σ0: 10 µm of presliding at μ = 1, the normalized value of Canudas de Wit et
/// al. (1995; σ0 = 1e5 N/m for F_c = 1 N). Lower values let a released load reach the
/// Stribeck speed before the bristles hold it (`g sin θ/√(g σ0)` on an incline).
pub const DEFAULT_BRISTLE_STIFFNESS: f64 = 1e5;

/// The material fields of a shape or of the `[contact]` section.
struct MaterialFields<'a> {
    stiffness: Option<&'a Quantity>,
    exponent: Option<&'a Quantity>,
    restitution: Option<&'a Quantity>,
    friction: Option<&'a Located<ContactFrictionDesc>>,
    stiction_velocity: Option<&'a Quantity>,
    stribeck_velocity: Option<&'a Quantity>,
    friction_model: Option<&'a toml::Spanned<ContactFrictionModel>>,
    bristle_stiffness: Option<&'a Quantity>,
    bristle_damping: Option<&'a Quantity>,
}

impl<'a> MaterialFields<'a> {
    fn of_shape(s: &'a CollisionShapeDesc) -> Self {
        MaterialFields {
            stiffness: s.stiffness.as_ref(),
            exponent: s.exponent.as_ref(),
            restitution: s.restitution.as_ref(),
            friction: s.friction.as_ref(),
            stiction_velocity: s.stiction_velocity.as_ref(),
            stribeck_velocity: s.stribeck_velocity.as_ref(),
            friction_model: s.friction_model.as_ref(),
            bristle_stiffness: s.bristle_stiffness.as_ref(),
            bristle_damping: s.bristle_damping.as_ref(),
        }
    }

    fn of_section(c: Option<&'a ContactSection>) -> Self {
        MaterialFields {
            stiffness: c.and_then(|c| c.stiffness.as_ref()),
            exponent: c.and_then(|c| c.exponent.as_ref()),
            restitution: c.and_then(|c| c.restitution.as_ref()),
            friction: c.and_then(|c| c.friction.as_ref()),
            stiction_velocity: c.and_then(|c| c.stiction_velocity.as_ref()),
            stribeck_velocity: c.and_then(|c| c.stribeck_velocity.as_ref()),
            friction_model: c.and_then(|c| c.friction_model.as_ref()),
            bristle_stiffness: c.and_then(|c| c.bristle_stiffness.as_ref()),
            bristle_damping: c.and_then(|c| c.bristle_damping.as_ref()),
        }
    }

    /// The shape's field, else the section's.
    fn or(self, section: &MaterialFields<'a>) -> Self {
        MaterialFields {
            stiffness: self.stiffness.or(section.stiffness),
            exponent: self.exponent.or(section.exponent),
            restitution: self.restitution.or(section.restitution),
            friction: self.friction.or(section.friction),
            stiction_velocity: self.stiction_velocity.or(section.stiction_velocity),
            stribeck_velocity: self.stribeck_velocity.or(section.stribeck_velocity),
            friction_model: self.friction_model.or(section.friction_model),
            bristle_stiffness: self.bristle_stiffness.or(section.bristle_stiffness),
            bristle_damping: self.bristle_damping.or(section.bristle_damping),
        }
    }
}

/// A shape as the lowering sees it, from `collision` or from a reused visual.
struct ShapeIn<'a> {
    kind: CollisionShapeKind,
    span: Range<usize>,
    desc: Option<&'a CollisionShapeDesc>,
    geometry: Option<Geometry>,
}

pub(super) fn lower_contacts(
    cx: &mut Ctx,
    d: &Description,
    mech: &Mechanism,
    gravity: [f64; 3],
) -> Contacts {
    let section = d.contact.as_ref();
    let defaults = MaterialFields::of_section(section);
    let mut calibrations = Calibrations::default();
    let mut out = Contacts::default();
    for b in &d.bodies {
        let Some(collision) = &b.collision else {
            continue;
        };
        let Some(&body) = cx.bodies.get(b.name.get_ref()) else {
            continue;
        };
        let span = collision.span_or(b.name.span());
        let name = b.name.get_ref().clone();
        let mass = mech.bodies[body].mass;
        let mut shapes = Vec::new();
        let listed = shapes_of(cx, b, collision, &mut out.hulls);
        for (k, shape) in listed.into_iter().enumerate() {
            let Some(geometry) = shape
                .geometry
                .or_else(|| shape.desc.and_then(|s| geometry(cx, s, &mut out.hulls)))
            else {
                continue;
            };
            let own = shape.desc.map(MaterialFields::of_shape);
            let fields = match own {
                Some(f) => f.or(&defaults),
                None => MaterialFields::of_section(section),
            };
            let component = format!("{name}.collision{}", k + 1);
            // A bad `[contact]` default is reported once, not for every shape inheriting it.
            let before = cx.errors.len();
            let g = gravity.iter().map(|x| x * x).sum::<f64>().sqrt();
            let material = material(
                cx,
                &component,
                &fields,
                (shape.kind, &shape.span),
                g,
                &mut calibrations,
            );
            let mut k = before;
            while k < cx.errors.len() {
                if cx.errors[..before].contains(&cx.errors[k]) {
                    cx.errors.remove(k);
                } else {
                    k += 1;
                }
            }
            shapes.push(out.shapes.len());
            out.shapes.push(CollisionShape {
                body,
                geometry,
                material,
            });
        }
        if shapes.is_empty() {
            continue;
        }
        if cx
            .params
            .get(mass.index())
            .is_some_and(|s| s.default <= 0.0)
        {
            cx.error(
                span,
                format!("body '{name}' has collision shapes but no mass"),
                "put the shapes on a body that carries mass (the restitution is calibrated for it)",
            );
            continue;
        }
        let own = shapes
            .iter()
            .map(|&shape| {
                let m = &out.shapes[shape].material;
                ShapeContact {
                    shape,
                    other: None,
                    exponent: m.exponent,
                    restitution: m.restitution,
                    damping: m.damping,
                    bristles: m.bristles,
                }
            })
            .collect();
        out.pairs.push(ContactPair {
            name,
            body,
            shapes: own,
            mass,
            other: None,
            grouped: false,
        });
    }
    if out.pairs.is_empty() {
        if let Some(s) = section {
            for list in [&s.pairs, &s.groups].into_iter().flatten().flatten() {
                cx.error(
                    list.span_or(0..0),
                    "no body has collision shapes for these bodies to touch with",
                    "give the bodies `collision = [...]` shapes",
                );
            }
        }
        return out;
    }
    out.ground = ground(cx, section, gravity);
    if let Some(s) = section {
        body_pairs(cx, d, s, mech, &mut out, &mut calibrations);
    }
    out
}

/// The damping factors calibrated so far (shapes' and body pairs' laws), by restitution and exponent: each calibration is
/// an RK4 root search (about 10 ms), and a pile of a hundred equal balls needs one, not a
/// hundred (`hydromech check` of the 100-ball pile: 1.49 → 0.12 s).
#[derive(Default)]
struct Calibrations(Vec<(f64, f64, f64)>);

impl Calibrations {
    fn damping(&mut self, restitution: f64, exponent: f64) -> f64 {
        let known = self
            .0
            .iter()
            .find(|(e, n, _)| *e == restitution && *n == exponent);
        if let Some(&(_, _, damping)) = known {
            return damping;
        }
        let damping = damping_for_restitution(restitution, exponent);
        self.0.push((restitution, exponent, damping));
        damping
    }
}

/// A shape's material: its slots `<component>.stiffness|static_friction|...` and the
/// restitution's damping factor. `g` [m/s²] sets the default bristle damping.
fn material(
    cx: &mut Ctx,
    component: &str,
    f: &MaterialFields<'_>,
    (kind, span): (CollisionShapeKind, &Range<usize>),
    g: f64,
    calibrations: &mut Calibrations,
) -> Material {
    let stiffness = cx.value_or(f.stiffness, Expect::Dim(Dim::STIFFNESS), DEFAULT_STIFFNESS);
    if let Some(q) = f.stiffness {
        cx.require_positive(q, stiffness, "the contact stiffness");
    }
    let curved = matches!(
        kind,
        CollisionShapeKind::Sphere | CollisionShapeKind::Capsule
    );
    let exponent = cx.value_or(f.exponent, NONE, if curved { 1.5 } else { 1.0 });
    if let Some(q) = f.exponent
        && !(1.0..=3.0).contains(&exponent)
        && !exponent.is_nan()
    {
        cx.error(
            q.span(),
            format!("the contact exponent must be from 1 to 3, got {exponent}"),
            "use 1.5 (Hertz, curved surfaces) or 1 (a linear spring)",
        );
    }
    let restitution = cx.value_or(f.restitution, NONE, DEFAULT_RESTITUTION);
    if let Some(q) = f.restitution
        && !(restitution > 0.0 && restitution <= 1.0)
        && !restitution.is_nan()
    {
        cx.error(
            q.span(),
            format!("the coefficient of restitution must be in (0, 1], got {restitution}"),
            "give e between 0 (exclusive: a dead impact) and 1 (elastic), e.g. 0.5",
        );
    }
    let (mu_s, mu_k) = match f.friction {
        None => DEFAULT_FRICTION,
        Some(fr) => {
            let span = fr.span_or(span.clone());
            let (s, k) = match fr.get_ref() {
                ContactFrictionDesc::Both(mu) => (*mu, *mu),
                ContactFrictionDesc::Pair { static_, kinetic } => {
                    let s = cx.value_or(static_.as_ref(), NONE, f64::NAN);
                    let k = cx.value_or(kinetic.as_ref(), NONE, s);
                    (if static_.is_none() { k } else { s }, k)
                }
            };
            if s.is_nan() && k.is_nan() {
                cx.error(
                    span.clone(),
                    "friction needs a coefficient",
                    "write friction = 0.5 or friction = { static = 0.7, kinetic = 0.5 }",
                );
            } else if !(s >= 0.0 && k >= 0.0 && s.is_finite() && k.is_finite()) {
                cx.error(
                    span.clone(),
                    format!(
                        "friction coefficients must be finite and not negative, got {s} and {k}"
                    ),
                    "give coefficients of zero or more, e.g. friction = 0.5",
                );
            } else if k > s {
                cx.error(
                    span.clone(),
                    format!("kinetic friction {k} exceeds static friction {s}"),
                    "static friction is the larger (or equal): swap them or give one number",
                );
            }
            (s, k)
        }
    };
    let stiction = cx.value_or(f.stiction_velocity, VELOCITY, DEFAULT_STICTION_VELOCITY);
    if let Some(q) = f.stiction_velocity {
        cx.require_positive(q, stiction, "the stiction velocity");
    }
    let stribeck = cx.value_or(f.stribeck_velocity, VELOCITY, DEFAULT_STRIBECK_VELOCITY);
    if let Some(q) = f.stribeck_velocity {
        cx.require_positive(q, stribeck, "the Stribeck velocity");
    }
    let usable = restitution > 0.0 && restitution <= 1.0 && (1.0..=3.0).contains(&exponent);
    let damping = if usable {
        calibrations.damping(restitution, exponent)
    } else {
        0.0
    };
    let bristles = bristles(cx, component, f, g);
    let mut slot = |field: &str, value: f64, expect: Expect, what: &str| {
        cx.field_slot(component, field, value, expect, what)
    };
    Material {
        stiffness: slot(
            "stiffness",
            stiffness,
            Expect::Dim(Dim::STIFFNESS),
            "Contact stiffness (secant at 1 mm of penetration)",
        ),
        exponent: if exponent.is_finite() { exponent } else { 1.0 },
        restitution: if usable { restitution } else { 1.0 },
        damping,
        static_friction: slot("static_friction", mu_s, NONE, "Static friction coefficient"),
        kinetic_friction: slot(
            "kinetic_friction",
            mu_k,
            NONE,
            "Kinetic friction coefficient",
        ),
        stiction_velocity: slot(
            "stiction_velocity",
            stiction,
            VELOCITY,
            "Slip speed below which friction is regularized",
        ),
        stribeck_velocity: slot(
            "stribeck_velocity",
            stribeck,
            VELOCITY,
            "Speed over which static friction falls to kinetic",
        ),
        bristles,
    }
}

/// LuGre's bristles where the friction model is `"lugre"`, their slots
/// `<component>.bristle_stiffness|bristle_damping`; bristle keys without it are an error.
fn bristles(cx: &mut Ctx, component: &str, f: &MaterialFields<'_>, g: f64) -> Option<Bristles> {
    let lugre = f
        .friction_model
        .is_some_and(|m| *m.get_ref() == ContactFrictionModel::Lugre);
    if !lugre {
        for q in [f.bristle_stiffness, f.bristle_damping]
            .into_iter()
            .flatten()
        {
            cx.error(
                q.span(),
                "bristle parameters belong to LuGre friction, which this contact does not use",
                "add friction_model = \"lugre\" beside them, or remove them",
            );
        }
        return None;
    }
    let sigma0 = cx.value_or(
        f.bristle_stiffness,
        Expect::Dim(Dim::INVERSE_LENGTH),
        DEFAULT_BRISTLE_STIFFNESS,
    );
    if let Some(q) = f.bristle_stiffness {
        cx.require_positive(q, sigma0, "the bristle stiffness");
    }
    // Critical damping of the bristles under a body resting on its weight: the tangential
    // spring σ0 m g with the mass m, c = 2√(σ0 m g · m) = m g σ1.
    let critical = if sigma0 > 0.0 && g > 0.0 {
        2.0 * (sigma0 / g).sqrt()
    } else {
        0.0
    };
    let sigma1 = cx.value_or(
        f.bristle_damping,
        Expect::Dim(Dim::INVERSE_VELOCITY),
        critical,
    );
    if let Some(q) = f.bristle_damping {
        cx.require_non_negative(q, sigma1, "the bristle damping");
    }
    Some(Bristles {
        stiffness: cx.field_slot(
            component,
            "bristle_stiffness",
            sigma0,
            Expect::Dim(Dim::INVERSE_LENGTH),
            "LuGre bristle stiffness σ0 per newton of normal force",
        ),
        damping: cx.field_slot(
            component,
            "bristle_damping",
            sigma1,
            Expect::Dim(Dim::INVERSE_VELOCITY),
            "LuGre bristle damping σ1 per newton of normal force",
        ),
    })
}

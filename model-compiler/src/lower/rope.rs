//! `[[ropes]]`: winch ropes from a drum over sheaves to a hook.

use super::{Ctx, Expect};
use crate::description::RopeDesc;
use crate::units::Dim;
use fmu_runtime::model::{Body, JointKind, Rope};

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);
const FORCE: Expect = Expect::Dim(Dim::FORCE);
const DAMPING: Expect = Expect::Dim(Dim::DAMPING);

/// A rope, or `None` after an error.
pub(super) fn lower_rope(cx: &mut Ctx, r: &RopeDesc, bodies: &[Body]) -> Option<Rope> {
    cx.declare(&r.name, "rope");
    let name = r.name.get_ref().clone();
    let drum = cx.body_ref(&r.drum);
    let drum_body = drum.map(|i| &bodies[i]);
    if let Some(b) = drum_body
        && !matches!(b.joint, JointKind::Revolute { .. })
    {
        cx.error(
            r.drum.span(),
            format!(
                "rope '{name}': the drum '{}' is not on a revolute joint",
                b.name
            ),
            "give the drum its own body on a revolute joint (its angle pays the rope out)",
        );
    } else if drum.is_none() && r.drum.get_ref() == "ground" {
        cx.error(
            r.drum.span(),
            format!("rope '{name}': the ground cannot be a drum"),
            "give the drum its own body on a revolute joint (its angle pays the rope out)",
        );
    }
    let path: Vec<_> = r.path.get_ref().iter().map(|p| cx.point_ref(p)).collect();
    if path.len() < 2 {
        cx.error(
            r.path.span(),
            format!("rope '{name}' needs a path of at least two points"),
            "list where it leaves the drum, the sheaves, and the hook point, e.g. `path = [{ body = \"column\", point = [0, 0.2, 0] }, { body = \"hook\", point = [0, 0, 0] }]`",
        );
    } else if let Some(b) = drum_body
        && path[0].body != b.parent
    {
        let parent = b.parent.map_or("ground", |p| bodies[p].name.as_str());
        cx.error(
            r.path.get_ref()[0].body.span(),
            format!(
                "rope '{name}' must leave its drum at a point of the drum's mount, '{parent}'"
            ),
            format!(
                "make the first point of `path` a point on '{parent}', where the rope leaves the drum"
            ),
        );
    }
    let radius = cx.value(&r.drum_radius, LENGTH);
    cx.require_positive(&r.drum_radius, radius, "drum_radius");
    let length = cx.value(&r.length, LENGTH);
    cx.require_positive(&r.length, length, "length");
    let ea = cx.value(&r.axial_stiffness, FORCE);
    cx.require_positive(&r.axial_stiffness, ea, "axial_stiffness");
    let c = cx.value_or(r.damping.as_ref(), DAMPING, 0.0);
    if let Some(q) = &r.damping {
        cx.require_non_negative(q, c, "damping");
    }
    let mut slot = |field: &str, value: f64, expect: Expect, what: &str| {
        cx.field_slot(&name, field, value, expect, what)
    };
    let rope = Rope {
        drum_radius: slot("drum_radius", radius, LENGTH, "Drum radius"),
        length: slot(
            "length",
            length,
            LENGTH,
            "Unstretched length out at drum angle 0",
        ),
        axial_stiffness: slot("axial_stiffness", ea, FORCE, "Axial stiffness EA"),
        damping: slot("damping", c, DAMPING, "Damping"),
        name,
        drum: drum?,
        path,
    };
    (rope.path.len() >= 2).then_some(rope)
}

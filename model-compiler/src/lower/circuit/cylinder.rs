//! Hydraulic cylinders: chambers, pins, end cushions, leakage.

use super::friction::lower_friction;
use super::passage::P;
use crate::description::CylinderDesc;
use crate::lower::{Ctx, Expect};
use crate::units::Dim;
use fmu_runtime::model::{Cushion, Cylinder, Friction, Node};

pub(super) fn lower_cylinder(cx: &mut Ctx, c: &CylinderDesc, nodes: &[Node]) -> Cylinder {
    cx.declare(&c.name, "cylinder");
    let name = c.name.get_ref().clone();
    let cap_point = cx.point_ref(&c.cap);
    let rod_point = cx.point_ref(&c.rod);
    if cap_point == rod_point {
        cx.error(
            c.rod.point.span(),
            "the cylinder's two ends are the same point",
            "attach the cap and rod ends at different points",
        );
    }
    let area = Expect::Dim(Dim::AREA);
    let len = Expect::Dim(Dim::LENGTH);
    let (cap_area, rod_area) = match (&c.bore, &c.rod_diameter, &c.cap_area, &c.rod_area) {
        (Some(bq), Some(rq), None, None) => {
            let bore = cx.value(bq, len);
            let rod = cx.value(rq, len);
            cx.require_positive(bq, bore, "bore");
            cx.require_positive(rq, rod, "rod_diameter");
            if rod >= bore {
                cx.error(
                    rq.span(),
                    format!("the rod ({rod} m) is not thinner than the bore ({bore} m)"),
                    "check bore and rod_diameter",
                );
            }
            let quarter_pi = std::f64::consts::PI / 4.0;
            (
                quarter_pi * bore * bore,
                quarter_pi * (bore * bore - rod * rod),
            )
        }
        (None, None, Some(aq), Some(rq)) => {
            let a = cx.value(aq, area);
            let r = cx.value(rq, area);
            cx.require_positive(aq, a, "cap_area");
            cx.require_positive(rq, r, "rod_area");
            (a, r)
        }
        _ => {
            cx.error(
                c.name.span(),
                format!("cylinder '{name}' needs either `bore` and `rod_diameter`, or `cap_area` and `rod_area`"),
                "give bore = \"80 mm\" and rod_diameter = \"35 mm\" (or the two areas, the rod side as the annulus)",
            );
            (1.0, 1.0)
        }
    };
    let stroke = cx.value(&c.stroke, len);
    cx.require_positive(&c.stroke, stroke, "stroke");
    let retracted = cx.value(&c.retracted_length, len);
    cx.require_positive(&c.retracted_length, retracted, "retracted_length");
    let vol = Expect::Dim(Dim::VOLUME);
    let cap_dead = cx.value_or(c.cap_dead_volume.as_ref(), vol, 0.0);
    let rod_dead = cx.value_or(c.rod_dead_volume.as_ref(), vol, 0.0);
    for (q, v, what) in [
        (&c.cap_dead_volume, cap_dead, "cap_dead_volume"),
        (&c.rod_dead_volume, rod_dead, "rod_dead_volume"),
    ] {
        if let Some(q) = q {
            cx.require_non_negative(q, v, what);
        }
    }
    let chamber = |cx: &mut Ctx, n: &crate::description::Name| -> usize {
        let Some(&i) = cx.nodes.get(n.get_ref()) else {
            let candidates: Vec<String> = nodes
                .iter()
                .filter(|n| matches!(n, Node::Volume(_)))
                .map(|n| n.name().to_string())
                .collect();
            cx.unknown(n, "volume", candidates.iter().map(String::as_str).collect());
            return 0;
        };
        i
    };
    // A chamber may be vented to a pressure source (a single-acting or plunger cylinder: the
    // other side open to tank); one of the two must be a volume, or nothing drives it.
    let cap_node = chamber(cx, &c.cap_volume);
    let rod_node = chamber(cx, &c.rod_volume);
    let vented = |i: usize| matches!(nodes.get(i), Some(Node::Pressure { .. }));
    if vented(cap_node)
        && vented(rod_node)
        && cx.nodes.contains_key(c.cap_volume.get_ref())
        && cx.nodes.contains_key(c.rod_volume.get_ref())
    {
        cx.error(
            c.rod_volume.span(),
            format!(
                "cylinder '{}' has both chambers on pressure sources ('{}', '{}'): nothing meters it",
                c.name.get_ref(),
                c.cap_volume.get_ref(),
                c.rod_volume.get_ref()
            ),
            "put the working chamber on a [[hydraulics.volumes]] entry (volume = 0 if the chamber is the whole volume); a vented side may name the tank",
        );
    }
    if cap_node == rod_node && cx.nodes.contains_key(c.rod_volume.get_ref()) {
        cx.error(
            c.rod_volume.span(),
            "both chambers belong to the same volume",
            "give the rod chamber its own volume",
        );
    }
    let wall = c.wall_bulk_modulus.as_ref().map(|q| {
        let b = cx.value(q, P);
        cx.require_positive(q, b, "wall_bulk_modulus");
        b
    });
    let damping = Expect::Dim(Dim::DAMPING);
    let friction = match &c.friction {
        None => Friction::Viscous {
            coefficient: cx.slot(
                format!("{name}.friction.coefficient"),
                0.0,
                damping,
                format!("Viscous seal friction of {name}"),
            ),
        },
        Some(f) => lower_friction(cx, &name, f),
    };
    let cushion = c.cushion.as_ref();
    // our choice of defaults: 5 mm, 1e8 N/m, 1e4 N·s/m.
    let cl = cx.value_or(cushion.and_then(|c| c.length.as_ref()), len, 5e-3);
    let ck = cx.value_or(
        cushion.and_then(|c| c.stiffness.as_ref()),
        Expect::Dim(Dim::STIFFNESS),
        1e8,
    );
    let cd = cx.value_or(cushion.and_then(|c| c.damping.as_ref()), damping, 1e4);
    if let Some(cu) = cushion {
        for (q, v, what) in [
            (&cu.length, cl, "cushion length"),
            (&cu.stiffness, ck, "cushion stiffness"),
            (&cu.damping, cd, "cushion damping"),
        ] {
            if let Some(q) = q {
                cx.require_non_negative(q, v, what);
            }
        }
    }
    Cylinder {
        cap_point,
        rod_point,
        cap_area: cx.slot(
            format!("{name}.cap_area"),
            cap_area,
            area,
            format!("Piston area of {name}"),
        ),
        rod_area: cx.slot(
            format!("{name}.rod_area"),
            rod_area,
            area,
            format!("Annulus (rod-side) area of {name}"),
        ),
        stroke: cx.slot(
            format!("{name}.stroke"),
            stroke,
            len,
            format!("Stroke of {name}"),
        ),
        retracted_length: cx.slot(
            format!("{name}.retracted_length"),
            retracted,
            len,
            format!("Pin-to-pin length of {name} at zero stroke"),
        ),
        cap_dead_volume: cx.slot(
            format!("{name}.cap_dead_volume"),
            cap_dead,
            vol,
            format!("Cap-side dead volume of {name}"),
        ),
        rod_dead_volume: cx.slot(
            format!("{name}.rod_dead_volume"),
            rod_dead,
            vol,
            format!("Rod-side dead volume of {name}"),
        ),
        wall_bulk_modulus: wall.map(|b| {
            cx.slot(
                format!("{name}.wall_bulk_modulus"),
                b,
                P,
                format!("Bulk modulus of the wall of {name}"),
            )
        }),
        cap_node,
        rod_node,
        friction,
        cushion: Cushion {
            length: cx.slot(
                format!("{name}.cushion.length"),
                cl,
                len,
                format!("End-of-stroke cushion length of {name}"),
            ),
            stiffness: cx.slot(
                format!("{name}.cushion.stiffness"),
                ck,
                Expect::Dim(Dim::STIFFNESS),
                format!("Cushion stiffness of {name}"),
            ),
            damping: cx.slot(
                format!("{name}.cushion.damping"),
                cd,
                damping,
                format!("Cushion damping of {name}"),
            ),
        },
        name,
    }
}

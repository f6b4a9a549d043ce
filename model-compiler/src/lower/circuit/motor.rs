//! Hydraulic rotary motors on a revolute joint (displacement, leakage, friction).

use super::passage::{PLAIN, same_node_check};
use crate::lower::{Ctx, Expect};
use crate::units::Dim;
use fmu_runtime::model::RotaryMotor;

/// Torsional viscous friction N·m·s/rad.
pub(super) const ROTARY_DAMPING: Dim = Dim([1, 2, -1, 0, 0, 0, 0, -1]);

pub(super) fn lower_motor(
    cx: &mut Ctx,
    mech: &fmu_runtime::model::Mechanism,
    mo: &crate::description::MotorDesc,
) -> Option<RotaryMotor> {
    cx.declare(&mo.name, "motor");
    let name = mo.name.get_ref().clone();
    let port_a = cx.node_ref(&mo.a);
    let port_b = cx.node_ref(&mo.b);
    same_node_check(cx, &mo.b, port_a, port_b);
    let body = match cx.joints.get(mo.joint.get_ref()) {
        Some(&b) => b,
        None => {
            let names: Vec<String> = cx.joints.keys().cloned().collect();
            cx.unknown(
                &mo.joint,
                "tree joint",
                names.iter().map(String::as_str).collect(),
            );
            return None;
        }
    };
    let revolute = matches!(
        mech.bodies[body].joint,
        fmu_runtime::model::JointKind::Revolute { .. }
    );
    if !revolute {
        cx.error(
            mo.joint.span(),
            format!(
                "motor {name} must drive a revolute joint; '{}' is not one",
                mo.joint.get_ref()
            ),
            "name the revolute joint the motor turns (e.g. the swing joint)",
        );
    }
    let disp = cx.value(&mo.displacement, Expect::Dim(Dim::VOLUME));
    cx.require_positive(&mo.displacement, disp, "displacement");
    let gear = cx.value_or(mo.gear_ratio.as_ref(), PLAIN, 1.0);
    if let Some(q) = &mo.gear_ratio {
        cx.require_positive(q, gear, "gear_ratio");
    }
    let leak = cx.value_or(mo.leakage.as_ref(), Expect::Dim(Dim::FLOW_GAIN), 0.0);
    if let Some(q) = &mo.leakage {
        cx.require_non_negative(q, leak, "leakage");
    }
    let fric = cx.value_or(mo.friction.as_ref(), Expect::Dim(ROTARY_DAMPING), 0.0);
    if let Some(q) = &mo.friction {
        cx.require_non_negative(q, fric, "friction");
    }
    cx.motors.insert(name.clone(), cx.motors.len());
    Some(RotaryMotor {
        displacement: cx.slot(
            format!("{name}.displacement"),
            disp,
            Expect::Dim(Dim::VOLUME),
            format!("Displacement of motor {name} per revolution"),
        ),
        gear_ratio: cx.slot(
            format!("{name}.gear_ratio"),
            gear,
            PLAIN,
            format!("Motor turns per joint turn of {name}"),
        ),
        leakage: cx.slot(
            format!("{name}.leakage"),
            leak,
            Expect::Dim(Dim::FLOW_GAIN),
            format!("Internal leakage conductance of motor {name}"),
        ),
        friction: cx.slot(
            format!("{name}.friction"),
            fric,
            Expect::Dim(ROTARY_DAMPING),
            format!("Viscous shaft friction of motor {name}"),
        ),
        name,
        body,
        port_a,
        port_b,
    })
}

//! What every orifice-like element shares: its flow coefficient (or area and C_d),
//! its laminar transition pressure, two distinct end nodes.

use crate::lower::{Ctx, Expect};
use crate::units::Dim;

pub(super) const P: Expect = Expect::Dim(Dim::PRESSURE);
pub(super) const PLAIN: Expect = Expect::Dim(Dim::NONE);
pub(super) const FLOW_COEFFICIENT: Expect = Expect::Plain("m3/(s·sqrt(Pa))");
/// Laminar/turbulent transition of valves and orifices when not given (seed 001: 2 bar).
pub(super) const DEFAULT_LAMINAR_PRESSURE: f64 = 2e5;

pub(super) fn same_node_check(cx: &mut Ctx, second: &crate::description::Name, a: usize, b: usize) {
    if a == b && !cx.nodes.is_empty() && cx.nodes.contains_key(second.get_ref()) {
        cx.error(
            second.span(),
            "both ends connect to the same node",
            "connect the element between two different nodes",
        );
    }
}

/// The full-open flow coefficient of an orifice-like element: `coefficient` [m³/(s·√Pa)],
/// or `area` and `discharge_coefficient` (`K = C_d·A·√(2/ρ)`); a missing or doubled size
/// is an error at the element.
pub(super) fn flow_coefficient(
    cx: &mut Ctx,
    kind: &str,
    name: &crate::description::Name,
    (coefficient, area, cd): (
        &Option<crate::description::Quantity>,
        &Option<crate::description::Quantity>,
        &Option<crate::description::Quantity>,
    ),
) -> f64 {
    let n = name.get_ref();
    match (coefficient, area, cd) {
        (Some(c), None, None) => {
            let k = cx.value(c, FLOW_COEFFICIENT);
            cx.require_positive(c, k, "coefficient");
            k
        }
        (None, Some(a), Some(cd)) => {
            let area = cx.value(a, Expect::Dim(Dim::AREA));
            cx.require_positive(a, area, "area");
            let cd_v = cx.value(cd, PLAIN);
            cx.require_positive(cd, cd_v, "discharge_coefficient");
            cd_v * area * (2.0 / cx.density).sqrt()
        }
        (None, Some(a), None) => {
            cx.error(
                a.span(),
                format!("{kind} '{n}' gives `area` without `discharge_coefficient`"),
                "add e.g. `discharge_coefficient = 0.7`",
            );
            0.0
        }
        (Some(c), _, _) => {
            cx.error(
                c.span(),
                format!(
                    "{kind} '{n}' gives `coefficient` together with `area`/`discharge_coefficient`"
                ),
                "give either `coefficient` [m3/(s·sqrt(Pa))] or `area` and `discharge_coefficient`",
            );
            0.0
        }
        (None, None, _) => {
            cx.error(
                name.span(),
                format!("{kind} '{n}' has no size"),
                "add `area` and `discharge_coefficient`, or `coefficient`",
            );
            0.0
        }
    }
}

pub(super) fn laminar(
    cx: &mut Ctx,
    name: &str,
    q: Option<&crate::description::Quantity>,
) -> fmu_runtime::model::ParamId {
    laminar_or(cx, name, q, DEFAULT_LAMINAR_PRESSURE)
}

/// [`laminar`] with another default.
pub(super) fn laminar_or(
    cx: &mut Ctx,
    name: &str,
    q: Option<&crate::description::Quantity>,
    default: f64,
) -> fmu_runtime::model::ParamId {
    let v = cx.value_or(q, P, default);
    if let Some(q) = q {
        cx.require_positive(q, v, "laminar_pressure");
    }
    cx.slot(
        format!("{name}.laminar_pressure"),
        v,
        P,
        format!("Laminar/turbulent transition pressure of {name}"),
    )
}

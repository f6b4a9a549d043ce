//! Make-up (anti-cavitation) valves and check valves, plain or pilot-operated.

use super::passage::{FLOW_COEFFICIENT, P, laminar_or, same_node_check};
use crate::lower::Ctx;
use fmu_runtime::model::{CheckValve, Node};
use toml::Spanned;

/// Make-up check valves (our choices): cracking 0.2 bar, fully open 1 bar above, K = 3e-6
/// m³/(s·√Pa) (57 L/min at 1 bar), laminar below 0.1 bar — a valve sized to refill a
/// chamber as fast as a load can empty it, not to meter.
pub(super) const MAKE_UP_CRACKING: f64 = 0.2e5;
pub(super) const MAKE_UP_FULL_OPEN: f64 = 1.2e5;
pub(super) const MAKE_UP_COEFFICIENT: f64 = 3e-6;
pub(super) const MAKE_UP_LAMINAR: f64 = 0.1e5;

/// The make-up check valve `<owner>_make_up_<port>` from `from` into `node`, if `node` is a
/// volume (a port on a pressure source needs none).
pub(super) fn make_up_valve(
    cx: &mut Ctx,
    owner: &crate::description::Name,
    from: &crate::description::Name,
    port: &str,
    node: &crate::description::Name,
    nodes: &[Node],
) -> Option<CheckValve> {
    let source = cx.node_ref(from);
    if !cx.nodes.contains_key(node.get_ref())
        || matches!(
            nodes.get(cx.nodes[node.get_ref()]),
            Some(Node::Pressure { .. })
        )
    {
        return None;
    }
    let to = cx.nodes[node.get_ref()];
    let name = Spanned::new(from.span(), format!("{}_make_up_{port}", owner.get_ref()));
    if !cx.declare(&name, "check valve") {
        return None;
    }
    same_node_check(cx, node, source, to);
    let name = name.into_inner();
    let laminar_pressure = laminar_or(cx, &name, None, MAKE_UP_LAMINAR);
    Some(check_valve(
        cx,
        name,
        (source, to),
        (MAKE_UP_CRACKING, MAKE_UP_FULL_OPEN, MAKE_UP_COEFFICIENT),
        laminar_pressure,
        None,
    ))
}

/// A check valve `name` from `from` to `to` with its slots: cracking and full-open drops,
/// full-open flow coefficient.
pub(super) fn check_valve(
    cx: &mut Ctx,
    name: String,
    (from, to): (usize, usize),
    (cracking, full_open, k): (f64, f64, f64),
    laminar_pressure: fmu_runtime::model::ParamId,
    pilot: Option<(usize, fmu_runtime::model::ParamId)>,
) -> CheckValve {
    CheckValve {
        pilot,
        cracking_pressure: cx.slot(
            format!("{name}.cracking_pressure"),
            cracking,
            P,
            format!("Cracking pressure (drop) of {name}"),
        ),
        full_open_pressure: cx.slot(
            format!("{name}.full_open_pressure"),
            full_open,
            P,
            format!("Pressure drop at which {name} is fully open"),
        ),
        coefficient: cx.slot(
            format!("{name}.coefficient"),
            k,
            FLOW_COEFFICIENT,
            format!("Flow coefficient K of {name} fully open (Q = K·sqrt(Δp))"),
        ),
        laminar_pressure,
        name,
        from,
        to,
    }
}

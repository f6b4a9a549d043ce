//! Gas-charged accumulators: precharge, volume, polytropic exponent.

use super::passage::{P, PLAIN};
use crate::lower::{Ctx, Expect};
use crate::units::Dim;
use fmu_runtime::model::{Accumulator, Node};

/// Polytropic exponent of an accumulator's gas when none is given (our choice: adiabatic
/// nitrogen, the usual sizing assumption for fast cycles; give 1 for slow, isothermal use).
pub(super) const DEFAULT_POLYTROPIC_EXPONENT: f64 = 1.4;

pub(super) fn lower_accumulator(
    cx: &mut Ctx,
    a: &crate::description::AccumulatorDesc,
    nodes: &[Node],
) -> Option<Accumulator> {
    cx.declare(&a.name, "accumulator");
    let name = a.name.get_ref().clone();
    let node = cx.node_ref(&a.node);
    if let Some(Node::Pressure { .. }) = nodes.get(node)
        && cx.nodes.contains_key(a.node.get_ref())
    {
        cx.error(
            a.node.span(),
            format!(
                "accumulator '{name}' must sit on a volume; '{}' is a pressure source, whose pressure it could not change",
                a.node.get_ref()
            ),
            "name a [[hydraulics.volumes]] entry (the line or chamber the accumulator is plumbed to)",
        );
        return None;
    }
    let volume = cx.value(&a.volume, Expect::Dim(Dim::VOLUME));
    cx.require_positive(&a.volume, volume, "volume");
    let precharge = cx.value(&a.precharge, P);
    cx.require_positive(&a.precharge, precharge, "precharge");
    let n = cx.value_or(
        a.polytropic_exponent.as_ref(),
        PLAIN,
        DEFAULT_POLYTROPIC_EXPONENT,
    );
    if let Some(q) = &a.polytropic_exponent
        && !(1.0..=2.0).contains(&n)
    {
        cx.error(
            q.span(),
            format!("polytropic_exponent {n} is outside 1 (isothermal) … 2"),
            "give 1.0 for slow (isothermal) compression, 1.4 for fast (adiabatic) nitrogen",
        );
    }
    Some(Accumulator {
        volume: cx.slot(
            format!("{name}.volume"),
            volume,
            Expect::Dim(Dim::VOLUME),
            format!("Gas volume of {name} at its precharge"),
        ),
        precharge: cx.slot(
            format!("{name}.precharge"),
            precharge,
            P,
            format!("Gas precharge pressure of {name}"),
        ),
        exponent: cx.slot(
            format!("{name}.polytropic_exponent"),
            n,
            PLAIN,
            format!("Polytropic exponent of the gas of {name}"),
        ),
        name,
        node,
    })
}

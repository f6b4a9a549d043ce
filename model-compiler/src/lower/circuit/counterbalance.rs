//! Counterbalance (overcentre) valves: pilot-assisted relief with a free-flow check.

use super::passage::{FLOW_COEFFICIENT, P, PLAIN, flow_coefficient, laminar, same_node_check};
use crate::lower::{Ctx, Expect};
use fmu_runtime::model::CounterbalanceValve;

/// Opening range of a counterbalance valve's poppet when none is given (our choice: 20 bar,
/// the pressure rise over the full flow of a typical catalogue curve).
pub(super) const DEFAULT_CBV_OPENING_RANGE: f64 = 20e5;
/// Cracking pressure of its built-in check valve when none is given (our choice: 0.5 bar,
/// full open 2 bar above it).
pub(super) const DEFAULT_CBV_CHECK_CRACKING: f64 = 0.5e5;
pub(super) const DEFAULT_CBV_CHECK_SPAN: f64 = 2e5;

pub(super) fn lower_counterbalance(
    cx: &mut Ctx,
    c: &crate::description::CounterbalanceValveDesc,
) -> CounterbalanceValve {
    cx.declare(&c.name, "counterbalance valve");
    let name = c.name.get_ref().clone();
    let load = cx.node_ref(&c.load);
    let valve = cx.node_ref(&c.valve);
    let pilot = cx.node_ref(&c.pilot);
    same_node_check(cx, &c.valve, load, valve);
    same_node_check(cx, &c.pilot, load, pilot);
    let setting = cx.value(&c.setting, P);
    cx.require_positive(&c.setting, setting, "setting");
    let ratio = cx.value(&c.pilot_ratio, PLAIN);
    cx.require_positive(&c.pilot_ratio, ratio, "pilot_ratio");
    let range = cx.value_or(c.opening_range.as_ref(), P, DEFAULT_CBV_OPENING_RANGE);
    if let Some(q) = &c.opening_range {
        cx.require_positive(q, range, "opening_range");
    }
    let crack = cx.value_or(
        c.check_cracking_pressure.as_ref(),
        P,
        DEFAULT_CBV_CHECK_CRACKING,
    );
    if let Some(q) = &c.check_cracking_pressure {
        cx.require_non_negative(q, crack, "check_cracking_pressure");
    }
    let full = cx.value_or(
        c.check_full_open_pressure.as_ref(),
        P,
        crack + DEFAULT_CBV_CHECK_SPAN,
    );
    if let Some(q) = &c.check_full_open_pressure
        && (full.is_nan() || full <= crack)
    {
        cx.error(
            q.span(),
            format!(
                "counterbalance valve '{name}': check_full_open_pressure {full} Pa must be above check_cracking_pressure {crack} Pa"
            ),
            "give the drop at which the check is fully open, e.g. cracking + 2 bar",
        );
    }
    let k = flow_coefficient(
        cx,
        "counterbalance valve",
        &c.name,
        (&c.coefficient, &c.area, &c.discharge_coefficient),
    );
    let laminar_pressure = laminar(cx, &name, c.laminar_pressure.as_ref());
    let mut slot = |field: &str, v: f64, expect: Expect, what: &str| {
        cx.slot(
            format!("{name}.{field}"),
            v,
            expect,
            format!("{what} of {name}"),
        )
    };
    CounterbalanceValve {
        setting: slot("setting", setting, P, "Opening pressure (setting)"),
        pilot_ratio: slot("pilot_ratio", ratio, PLAIN, "Pilot ratio φ"),
        opening_range: slot(
            "opening_range",
            range,
            P,
            "Pressure rise from shut to fully open",
        ),
        coefficient: slot(
            "coefficient",
            k,
            FLOW_COEFFICIENT,
            "Flow coefficient K fully open (Q = K·sqrt(Δp))",
        ),
        check_cracking_pressure: slot(
            "check_cracking_pressure",
            crack,
            P,
            "Cracking pressure of the built-in check",
        ),
        check_full_open_pressure: slot(
            "check_full_open_pressure",
            full,
            P,
            "Drop at which the built-in check is fully open",
        ),
        laminar_pressure,
        name,
        load,
        valve,
        pilot,
    }
}

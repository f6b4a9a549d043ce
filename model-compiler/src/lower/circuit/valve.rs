//! Directional valves: spools, metering edges, tables, relief and leakage paths.

use super::load_sensing;
use super::passage::{FLOW_COEFFICIENT, PLAIN, laminar};
use crate::description::{EdgeDesc, Located, Table, ValveDesc};
use crate::lower::{Ctx, Expect};
use crate::units::{self, Dim};
use fmu_runtime::model::{DirectionalValve, EdgeLaw, MeteringEdge, Spool};

pub(super) fn lower_valve(
    cx: &mut Ctx,
    v: &ValveDesc,
    spools: &mut Vec<Spool>,
) -> DirectionalValve {
    cx.declare(&v.name, "valve");
    let name = v.name.get_ref().clone();
    let ports = [&v.p, &v.t, &v.a, &v.b].map(|n| cx.node_ref(n));
    for i in 1..4 {
        if ports[..i].contains(&ports[i])
            && cx.nodes.contains_key([&v.p, &v.t, &v.a, &v.b][i].get_ref())
        {
            let n = [&v.p, &v.t, &v.a, &v.b][i];
            cx.error(
                n.span(),
                format!(
                    "valve '{name}' connects node '{}' to two ports",
                    n.get_ref()
                ),
                "connect P, T, A and B to four different nodes",
            );
        }
    }

    let s = &v.spool;
    let [lo_q, hi_q] = s.range.get_ref();
    let lo = cx.value(lo_q, Expect::Signal);
    let hi = cx.value(hi_q, Expect::Signal);
    if lo >= hi {
        cx.error(
            s.range.span(),
            format!("the spool range [{lo}, {hi}] is empty"),
            "write the range as [min, max] with min < max",
        );
    }
    let signal_unit = [lo_q, hi_q].iter().find_map(|q| match q.get_ref() {
        crate::description::QValue::Text(t) => units::parse_quantity(t.as_str())
            .ok()
            .filter(|(_, u)| u.dim != Dim::NONE)
            .map(|(_, u)| u.dim.si_name()),
        _ => None,
    });
    let tau = cx.value_or(s.time_constant.as_ref(), Expect::Dim(Dim::TIME), 0.0);
    if let Some(q) = &s.time_constant {
        cx.require_non_negative(q, tau, "time_constant");
    }
    let dead_band = cx.value_or(s.dead_band.as_ref(), Expect::Signal, 0.0);
    if let Some(q) = &s.dead_band {
        cx.require_non_negative(q, dead_band, "dead_band");
    }
    let centre = cx.value_or(s.dead_band_centre.as_ref(), Expect::Signal, (lo + hi) / 2.0);
    let command = cx.value_or(s.command.as_ref(), Expect::Signal, centre);
    if let Some(q) = &s.command
        && (command < lo || command > hi)
    {
        cx.error(
            q.span(),
            format!("the command {command} is outside the spool range [{lo}, {hi}]"),
            "give a command within the range",
        );
    }
    let spool_index = spools.len();
    cx.spools.insert(name.clone(), spool_index);
    let command = cx.slot(
        format!("{name}.command"),
        command,
        Expect::Signal,
        format!("Command of valve {name} (spool reference)"),
    );
    let time_constant = cx.slot(
        format!("{name}.time_constant"),
        tau,
        Expect::Dim(Dim::TIME),
        format!("Spool time constant of {name}"),
    );
    let dead_band = cx.slot(
        format!("{name}.dead_band"),
        dead_band,
        Expect::Signal,
        format!("Dead band of valve {name}"),
    );
    if let Some(u) = &signal_unit {
        cx.signal_units.insert(command, u.clone());
        cx.signal_units.insert(dead_band, u.clone());
    }
    cx.spool_units.push(signal_unit);
    spools.push(Spool {
        name: name.clone(),
        command,
        time_constant,
        dead_band,
        dead_band_centre: centre,
        min: lo,
        max: hi,
    });

    let edges_desc = v.edges.as_ref();
    let get = |e: Option<&Located<EdgeDesc>>| e.cloned();
    let list = [
        ("PA", get(edges_desc.and_then(|e| e.pa.as_ref()))),
        ("PB", get(edges_desc.and_then(|e| e.pb.as_ref()))),
        ("AT", get(edges_desc.and_then(|e| e.at.as_ref()))),
        ("BT", get(edges_desc.and_then(|e| e.bt.as_ref()))),
    ];
    let errors_before = cx.errors.len();
    let edges = list.map(|(key, e)| match e {
        None => MeteringEdge {
            table: vec![(lo, 0.0), (hi.max(lo + 1.0), 0.0)],
            law: EdgeLaw::Orifice,
        },
        Some(e) => lower_edge(cx, &name, v.name.span(), key, &e),
    });
    if cx.errors.len() == errors_before
        && edges.iter().all(|e| e.table.iter().all(|(_, k)| *k == 0.0))
    {
        cx.error(
            v.name.span(),
            format!("valve '{name}' has no flow path: its four edges are closed at every spool position"),
            "give at least one edge an opening, e.g. edges.PA = { area = [[0, 0], [1, \"20 mm2\"]], discharge_coefficient = 0.7 }",
        );
    }
    let neutral = edges_desc
        .and_then(|e| e.pt.as_ref())
        .map(|e| lower_edge(cx, &name, v.name.span(), "PT", e));
    let laminar_pressure = laminar(cx, &name, v.laminar_pressure.as_ref());
    let load_sense = load_sensing::load_sense_port(cx, v, &name, [ports[2], ports[3]], &edges);
    DirectionalValve {
        load_sense,
        neutral,
        name,
        spool: spool_index,
        port_p: ports[0],
        port_t: ports[1],
        port_a: ports[2],
        port_b: ports[3],
        edges,
        laminar_pressure,
    }
}

pub(super) fn lower_edge(
    cx: &mut Ctx,
    valve: &str,
    valve_span: std::ops::Range<usize>,
    key: &str,
    e: &Located<EdgeDesc>,
) -> MeteringEdge {
    let span = e.span_or(valve_span);
    let e = e.get_ref();
    if let Some(t) = &e.flow {
        if e.coefficient.is_some() || e.area.is_some() || e.discharge_coefficient.is_some() {
            cx.error(
                t.span(),
                format!("edge {key} of valve '{valve}' gives `flow` together with an orifice table"),
                "a pressure-compensated edge takes `flow = [[u, Q], ...]` (and `compensator_margin`) only",
            );
        }
        let margin = cx.value_or(
            e.compensator_margin.as_ref(),
            Expect::Dim(Dim::PRESSURE),
            1e5,
        );
        if let Some(q) = &e.compensator_margin {
            cx.require_non_negative(q, margin, "compensator_margin");
        }
        let table = read_table(cx, valve, key, t, Expect::Dim(Dim::VOLUME_FLOW), 1.0);
        return MeteringEdge {
            table,
            law: EdgeLaw::Compensated { margin },
        };
    }
    if let Some(q) = &e.compensator_margin {
        cx.error(
            q.span(),
            format!("edge {key} of valve '{valve}': `compensator_margin` needs a `flow` table"),
            "remove it, or give the edge's compensated flow as `flow = [[u, Q], ...]`",
        );
    }
    let (table, factor, y_expect): (&Table, f64, Expect) = match (
        &e.coefficient,
        &e.area,
        &e.discharge_coefficient,
    ) {
        (Some(t), None, None) => (t, 1.0, FLOW_COEFFICIENT),
        (None, Some(t), Some(cd)) => {
            let cd_v = cx.value(cd, PLAIN);
            cx.require_positive(cd, cd_v, "discharge_coefficient");
            (t, cd_v * (2.0 / cx.density).sqrt(), Expect::Dim(Dim::AREA))
        }
        (None, Some(t), None) => {
            cx.error(
                t.span(),
                format!(
                    "edge {key} of valve '{valve}' gives `area` without `discharge_coefficient`"
                ),
                "add e.g. `discharge_coefficient = 0.67`",
            );
            (t, 0.0, Expect::Dim(Dim::AREA))
        }
        (Some(t), _, _) => {
            cx.error(
                t.span(),
                format!("edge {key} of valve '{valve}' gives `coefficient` together with `area`/`discharge_coefficient`"),
                "give either `coefficient = [[u, K], ...]` or `area = [[u, A], ...]` with `discharge_coefficient`",
            );
            (t, 0.0, FLOW_COEFFICIENT)
        }
        (None, None, _) => {
            cx.error(
                span,
                format!("edge {key} of valve '{valve}' has no table"),
                "add `coefficient = [[u, K], ...]` or `area = [[u, A], ...]`",
            );
            return MeteringEdge {
                table: vec![(0.0, 0.0), (1.0, 0.0)],
                law: EdgeLaw::Orifice,
            };
        }
    };
    MeteringEdge {
        table: read_table(cx, valve, key, table, y_expect, factor),
        law: EdgeLaw::Orifice,
    }
}

/// Reads an edge table `[[u, y], ...]`: `y` of kind `y_expect` scaled by `factor`;
/// positions must increase and openings be non-negative.
pub(super) fn read_table(
    cx: &mut Ctx,
    valve: &str,
    key: &str,
    table: &Table,
    y_expect: Expect,
    factor: f64,
) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(table.get_ref().len());
    for row in table.get_ref() {
        let [u, y] = row.get_ref();
        let u = cx.value(u, Expect::Signal);
        let yv = cx.value(y, y_expect);
        if yv < 0.0 {
            cx.error(
                row.span(),
                format!("edge {key} of valve '{valve}': a negative opening ({yv})"),
                "openings must be zero or positive",
            );
        }
        out.push((u, yv * factor));
    }
    if out.len() < 2 {
        cx.error(
            table.span(),
            format!("edge {key} of valve '{valve}' needs at least two points"),
            "give [[u0, y0], [u1, y1], ...] with increasing u",
        );
    } else if let Some(i) = out.windows(2).position(|w| w[1].0 <= w[0].0) {
        cx.error(
            table.get_ref()[i + 1].span(),
            format!(
                "edge {key} of valve '{valve}': spool positions must increase ({} after {})",
                out[i + 1].0,
                out[i].0
            ),
            "sort the table by spool position, without repeats",
        );
    }
    if out.len() < 2 || out.windows(2).any(|w| w[1].0 <= w[0].0) {
        out = vec![(0.0, 0.0), (1.0, 0.0)];
    }
    out
}

//! Load sensing: the LS ports of valve sections and the LS variable-displacement pump.

use super::passage::{FLOW_COEFFICIENT, P, same_node_check};
use crate::description::{LoadSensingPumpDesc, ValveDesc};
use crate::lower::{Ctx, Expect};
use crate::units::Dim;
use fmu_runtime::model::{LoadSensePort, LoadSensingPump, MeteringEdge};

/// Default LS signal passage: 10 mm² at C_d 0.7 (our choice: at a 1 L/min bleed it drops
/// about 0.2 bar, small beside any LS margin).
const DEFAULT_SIGNAL_AREA: f64 = 10e-6;
const DEFAULT_SIGNAL_CD: f64 = 0.7;
/// The signal passage opens over the first 5 % of the P→A (P→B) edge's largest value (our
/// choice: the LS land opens just before the metering edge does on real spools).
const GATE_SHARE: f64 = 0.05;
/// Regulator droop, swash-plate lag and internal leakage when not given (our choices: a
/// tight regulator; the stroking times of mid-size axial-piston pumps are 30–100 ms; a
/// leakage of 1.2 L/min at 200 bar).
const DEFAULT_BAND: f64 = 1e5;
const DEFAULT_TIME_CONSTANT: f64 = 0.04;
const DEFAULT_LEAKAGE: f64 = 1e-12;

/// The LS port of a valve section, if it has one.
pub(super) fn load_sense_port(
    cx: &mut Ctx,
    v: &ValveDesc,
    name: &str,
    working_ports: [usize; 2],
    edges: &[MeteringEdge; 4],
) -> Option<LoadSensePort> {
    let Some(line) = &v.load_sense else {
        if let Some(q) = &v.load_sense_coefficient {
            cx.error(
                q.span(),
                format!("valve '{name}' sizes an LS passage but has no `load_sense` line"),
                "add the LS line it signals to, e.g. `load_sense = \"ls\"`, or drop `load_sense_coefficient`",
            );
        }
        return None;
    };
    let node = cx.node_ref(line);
    if working_ports.contains(&node) && cx.nodes.contains_key(line.get_ref()) {
        cx.error(
            line.span(),
            format!("valve '{name}' signals its load pressure to its own working port"),
            "give the LS line a volume of its own, e.g. `[[hydraulics.volumes]] name = \"ls\"`",
        );
    }
    let default = DEFAULT_SIGNAL_CD * DEFAULT_SIGNAL_AREA * (2.0 / cx.density).sqrt();
    let k = cx.value_or(v.load_sense_coefficient.as_ref(), FLOW_COEFFICIENT, default);
    if let Some(q) = &v.load_sense_coefficient {
        cx.require_positive(q, k, "load_sense_coefficient");
    }
    let coefficient = cx.slot(
        format!("{name}.load_sense_coefficient"),
        k,
        FLOW_COEFFICIENT,
        format!("Flow coefficient K of the LS signal passage of {name}"),
    );
    let gate = [0, 1].map(|i| {
        let largest = edges[i].table.iter().fold(0.0f64, |m, &(_, k)| m.max(k));
        // A direction that never opens never signals; any positive width will do.
        if largest > 0.0 {
            GATE_SHARE * largest
        } else {
            1.0
        }
    });
    Some(LoadSensePort {
        node,
        coefficient,
        gate,
    })
}

/// An LS pump; `state` is its index among the pumps' displacement states.
pub(super) fn lower_load_sensing_pump(
    cx: &mut Ctx,
    d: &LoadSensingPumpDesc,
    state: usize,
) -> LoadSensingPump {
    cx.declare(&d.name, "pump");
    let name = d.name.get_ref().clone();
    let inlet = cx.node_ref(&d.inlet);
    let outlet = cx.node_ref(&d.outlet);
    same_node_check(cx, &d.outlet, inlet, outlet);
    let load_sense = cx.node_ref(&d.load_sense);
    same_node_check(cx, &d.load_sense, outlet, load_sense);
    let volume = Expect::Dim(Dim::VOLUME);
    let speed_unit = Expect::Dim(Dim::ANGULAR_VELOCITY);
    let gain = Expect::Dim(Dim::FLOW_GAIN);
    let displacement = cx.value(&d.displacement, volume);
    cx.require_positive(&d.displacement, displacement, "displacement");
    let speed = cx.value(&d.speed, speed_unit);
    let margin = cx.value(&d.margin, P);
    cx.require_positive(&d.margin, margin, "margin");
    let cutoff = cx.value(&d.cutoff, P);
    cx.require_positive(&d.cutoff, cutoff, "cutoff");
    if cutoff <= margin {
        cx.error(
            d.cutoff.span(),
            format!("pump '{name}': the cut-off {cutoff} Pa must be above the margin {margin} Pa"),
            "the cut-off is the highest absolute pump pressure, e.g. `cutoff = \"250 bar\"`",
        );
    }
    let band = cx.value_or(d.regulator_band.as_ref(), P, DEFAULT_BAND);
    if let Some(q) = &d.regulator_band {
        cx.require_positive(q, band, "regulator_band");
    }
    let tau = cx.value_or(
        d.time_constant.as_ref(),
        Expect::Dim(Dim::TIME),
        DEFAULT_TIME_CONSTANT,
    );
    if let Some(q) = &d.time_constant {
        cx.require_non_negative(q, tau, "time_constant");
    }
    let leakage = cx.value_or(d.leakage.as_ref(), gain, DEFAULT_LEAKAGE);
    if let Some(q) = &d.leakage {
        // Without leakage a destroked pump leaves its outlet pressure undetermined.
        cx.require_positive(q, leakage, "leakage");
    }
    let mut slot = |field: &str, value: f64, expect: Expect, what: &str| {
        cx.field_slot(&name, field, value, expect, what)
    };
    LoadSensingPump {
        displacement: slot(
            "displacement",
            displacement,
            volume,
            "Maximum displacement per revolution",
        ),
        speed: slot("speed", speed, speed_unit, "Shaft speed"),
        margin: slot("margin", margin, P, "LS margin (flow controller setting)"),
        cutoff: slot("cutoff", cutoff, P, "Pressure cut-off (absolute)"),
        band: slot(
            "regulator_band",
            band,
            P,
            "Regulator droop (pressure error from zero to full displacement)",
        ),
        time_constant: slot(
            "time_constant",
            tau,
            Expect::Dim(Dim::TIME),
            "Swash-plate time constant",
        ),
        leakage: slot("leakage", leakage, gain, "Internal leakage conductance"),
        name,
        inlet,
        outlet,
        load_sense,
        state,
    }
}

//! The hydraulic circuit: oil, nodes, spools, flow elements, cylinders.

use super::{Ctx, Expect};
use crate::description::{Description, HydraulicsDesc};
use crate::units::Dim;
use fmu_runtime::model::{
    Circuit, ControlVolume, Cylinder, Element, Leakage, Node, Orifice, Pump, ReliefValve,
    RotaryMotor,
};

mod accumulator;
mod check_valve;
mod counterbalance;
mod cylinder;
mod fluid;
mod friction;
mod load_sensing;
mod motor;
mod passage;
mod valve;

use accumulator::lower_accumulator;
use check_valve::{check_valve, make_up_valve};
use counterbalance::lower_counterbalance;
use cylinder::lower_cylinder;
use fluid::{lower_oil, require_above_vapour};
use motor::lower_motor;
use passage::{FLOW_COEFFICIENT, P, PLAIN, flow_coefficient, laminar, same_node_check};
use valve::lower_valve;

pub(super) fn lower_circuit(
    cx: &mut Ctx,
    d: &Description,
    mech: &fmu_runtime::model::Mechanism,
) -> Circuit {
    let empty = HydraulicsDesc::default();
    let h = d.hydraulics.as_ref().unwrap_or(&empty);
    let oil = lower_oil(cx, h);

    let mut nodes = Vec::new();
    let vapour = cx.params[oil.air.vapour_pressure.index()].default;
    for s in &h.pressure_sources {
        cx.declare(&s.name, "pressure source");
        let name = s.name.get_ref().clone();
        let p = cx.value(&s.pressure, P);
        require_above_vapour(
            cx,
            &s.pressure,
            p,
            vapour,
            &format!("pressure source '{name}'"),
        );
        cx.nodes.insert(name.clone(), nodes.len());
        let pressure = cx.slot(
            format!("{name}.pressure"),
            p,
            P,
            format!("Pressure of source {name}"),
        );
        nodes.push(Node::Pressure { name, pressure });
    }
    for v in &h.volumes {
        cx.declare(&v.name, "volume");
        let name = v.name.get_ref().clone();
        let vol = cx.value(&v.volume, Expect::Dim(Dim::VOLUME));
        cx.require_non_negative(&v.volume, vol, "volume");
        cx.nodes.insert(name.clone(), nodes.len());
        let hose_volume = cx.slot(
            format!("{name}.volume"),
            vol,
            Expect::Dim(Dim::VOLUME),
            format!("Hose volume of {name}"),
        );
        let hose_bulk_modulus = v.bulk_modulus.as_ref().map(|q| {
            let b = cx.value(q, P);
            cx.require_positive(q, b, "bulk_modulus");
            cx.slot(
                format!("{name}.bulk_modulus"),
                b,
                P,
                format!("Bulk modulus of the hose wall of {name}"),
            )
        });
        let precharge = v.precharge.as_ref().map(|q| {
            let p = cx.value(q, P);
            require_above_vapour(cx, q, p, vapour, &format!("the precharge of '{name}'"));
            cx.slot(
                format!("{name}.precharge"),
                p,
                P,
                format!("Pre-charge pressure of {name} for the equilibrium solve"),
            )
        });
        let initial_guess = cx.value_or(v.initial_guess.as_ref(), P, 1e6);
        nodes.push(Node::Volume(ControlVolume {
            name,
            hose_volume,
            hose_bulk_modulus,
            precharge,
            initial_guess,
        }));
    }

    let mut spools = Vec::new();
    let mut elements = Vec::new();
    for v in &h.valves {
        let e = lower_valve(cx, v, &mut spools);
        cx.elements.insert(v.name.get_ref().clone(), elements.len());
        elements.push(Element::DirectionalValve(e));
    }
    for o in &h.orifices {
        cx.declare(&o.name, "orifice");
        let name = o.name.get_ref().clone();
        let from = cx.node_ref(&o.from);
        let to = cx.node_ref(&o.to);
        same_node_check(cx, &o.to, from, to);
        let k = flow_coefficient(
            cx,
            "orifice",
            &o.name,
            (&o.coefficient, &o.area, &o.discharge_coefficient),
        );
        let coefficient = cx.slot(
            format!("{name}.coefficient"),
            k,
            FLOW_COEFFICIENT,
            format!("Flow coefficient K of {name} (Q = K·sqrt(Δp))"),
        );
        let laminar_pressure = laminar(cx, &name, o.laminar_pressure.as_ref());
        cx.elements.insert(name.clone(), elements.len());
        elements.push(Element::Orifice(Orifice {
            name,
            from,
            to,
            coefficient,
            laminar_pressure,
        }));
    }
    for r in &h.relief_valves {
        cx.declare(&r.name, "relief valve");
        let name = r.name.get_ref().clone();
        let from = cx.node_ref(&r.from);
        let to = cx.node_ref(&r.to);
        same_node_check(cx, &r.to, from, to);
        let cracking = cx.value(&r.cracking_pressure, P);
        let gain = cx.value(&r.gain, Expect::Dim(Dim::FLOW_GAIN));
        cx.require_positive(&r.gain, gain, "gain");
        // our choice: the opening is smoothed over 1 bar.
        let smoothing = cx.value_or(r.smoothing.as_ref(), P, 1e5);
        if let Some(q) = &r.smoothing {
            cx.require_positive(q, smoothing, "smoothing");
        }
        cx.elements.insert(name.clone(), elements.len());
        elements.push(Element::ReliefValve(ReliefValve {
            cracking_pressure: cx.slot(
                format!("{name}.cracking_pressure"),
                cracking,
                P,
                format!("Cracking pressure of {name}"),
            ),
            gain: cx.slot(
                format!("{name}.gain"),
                gain,
                Expect::Dim(Dim::FLOW_GAIN),
                format!("Flow gain of {name} above cracking"),
            ),
            name,
            from,
            to,
            smoothing,
        }));
    }
    for c in &h.check_valves {
        cx.declare(&c.name, "check valve");
        let name = c.name.get_ref().clone();
        let from = cx.node_ref(&c.from);
        let to = cx.node_ref(&c.to);
        same_node_check(cx, &c.to, from, to);
        let cracking = cx.value(&c.cracking_pressure, P);
        cx.require_non_negative(&c.cracking_pressure, cracking, "cracking_pressure");
        let full_open = cx.value(&c.full_open_pressure, P);
        if full_open.is_nan() || full_open <= cracking {
            cx.error(
                c.full_open_pressure.span(),
                format!(
                    "check valve '{name}': full_open_pressure {full_open} Pa must be above cracking_pressure {cracking} Pa"
                ),
                "give the pressure drop at which the valve is fully open, e.g. cracking + 2 bar",
            );
        }
        let k = flow_coefficient(
            cx,
            "check valve",
            &c.name,
            (&c.coefficient, &c.area, &c.discharge_coefficient),
        );
        let laminar_pressure = laminar(cx, &name, c.laminar_pressure.as_ref());
        let pilot = match (&c.pilot, &c.pilot_ratio) {
            (Some(node), Some(ratio)) => {
                let node = cx.node_ref(node);
                let r = cx.value(ratio, PLAIN);
                cx.require_positive(ratio, r, "pilot_ratio");
                let slot = cx.slot(
                    format!("{name}.pilot_ratio"),
                    r,
                    PLAIN,
                    format!("Pilot ratio of {name} (pilot piston area / seat area)"),
                );
                Some((node, slot))
            }
            (None, None) => None,
            (Some(node), None) => {
                cx.error(
                    node.span(),
                    format!("check valve '{name}' has a `pilot` but no `pilot_ratio`"),
                    "add the pilot ratio (pilot piston area over seat area), e.g. `pilot_ratio = 3`",
                );
                None
            }
            (None, Some(ratio)) => {
                cx.error(
                    ratio.span(),
                    format!("check valve '{name}' has a `pilot_ratio` but no `pilot`"),
                    "add the node whose pressure opens it, e.g. `pilot = \"lower_line\"`",
                );
                None
            }
        };
        cx.elements.insert(name.clone(), elements.len());
        elements.push(Element::CheckValve(check_valve(
            cx,
            name,
            (from, to),
            (cracking, full_open, k),
            laminar_pressure,
            pilot,
        )));
    }
    // Make-up (anti-cavitation) check valves the cylinders and motors ask for.
    let make_ups = h
        .cylinders
        .iter()
        .filter_map(|c| {
            let from = c.make_up.as_ref()?;
            Some((
                &c.name,
                from,
                [("cap", &c.cap_volume), ("rod", &c.rod_volume)],
            ))
        })
        .chain(h.motors.iter().filter_map(|m| {
            let from = m.make_up.as_ref()?;
            Some((&m.name, from, [("a", &m.a), ("b", &m.b)]))
        }));
    for (owner, from, ports) in make_ups {
        for (port, node) in ports {
            if let Some(valve) = make_up_valve(cx, owner, from, port, node, &nodes) {
                cx.elements.insert(valve.name.clone(), elements.len());
                elements.push(Element::CheckValve(valve));
            }
        }
    }
    for c in &h.counterbalance_valves {
        let valve = lower_counterbalance(cx, c);
        cx.elements.insert(valve.name.clone(), elements.len());
        elements.push(Element::CounterbalanceValve(valve));
    }
    for p in &h.pumps {
        cx.declare(&p.name, "pump");
        let name = p.name.get_ref().clone();
        let inlet = cx.node_ref(&p.inlet);
        let outlet = cx.node_ref(&p.outlet);
        same_node_check(cx, &p.outlet, inlet, outlet);
        let disp = cx.value(&p.displacement, Expect::Dim(Dim::VOLUME));
        cx.require_non_negative(&p.displacement, disp, "displacement");
        let speed = cx.value(&p.speed, Expect::Dim(Dim::ANGULAR_VELOCITY));
        let eta = cx.value_or(p.volumetric_efficiency.as_ref(), PLAIN, 1.0);
        if let Some(q) = &p.volumetric_efficiency
            && !(eta > 0.0 && eta <= 1.0)
        {
            cx.error(
                q.span(),
                format!("volumetric_efficiency must be in (0, 1], got {eta}"),
                "give e.g. 0.95",
            );
        }
        cx.elements.insert(name.clone(), elements.len());
        elements.push(Element::Pump(Pump {
            displacement: cx.slot(
                format!("{name}.displacement"),
                disp,
                Expect::Dim(Dim::VOLUME),
                format!("Displacement of {name} per revolution"),
            ),
            speed: cx.slot(
                format!("{name}.speed"),
                speed,
                Expect::Dim(Dim::ANGULAR_VELOCITY),
                format!("Shaft speed of {name}"),
            ),
            volumetric_efficiency: cx.slot(
                format!("{name}.volumetric_efficiency"),
                eta,
                PLAIN,
                format!("Volumetric efficiency of {name}"),
            ),
            name,
            inlet,
            outlet,
        }));
    }
    for (state, d) in h.load_sensing_pumps.iter().enumerate() {
        let pump = load_sensing::lower_load_sensing_pump(cx, d, state);
        cx.elements.insert(pump.name.clone(), elements.len());
        elements.push(Element::LoadSensingPump(pump));
    }
    for l in &h.leakages {
        cx.declare(&l.name, "leakage");
        let name = l.name.get_ref().clone();
        let from = cx.node_ref(&l.from);
        let to = cx.node_ref(&l.to);
        same_node_check(cx, &l.to, from, to);
        let g = cx.value(&l.conductance, Expect::Dim(Dim::FLOW_GAIN));
        cx.require_non_negative(&l.conductance, g, "conductance");
        cx.elements.insert(name.clone(), elements.len());
        elements.push(Element::Leakage(Leakage {
            conductance: cx.slot(
                format!("{name}.conductance"),
                g,
                Expect::Dim(Dim::FLOW_GAIN),
                format!("Leakage conductance of {name}"),
            ),
            name,
            from,
            to,
        }));
    }

    let mut cylinders = Vec::new();
    for c in &h.cylinders {
        let cyl = lower_cylinder(cx, c, &nodes);
        cx.cylinders
            .insert(c.name.get_ref().clone(), cylinders.len());
        cylinders.push(cyl);
    }

    let motors = h
        .motors
        .iter()
        .filter_map(|mo| lower_motor(cx, mech, mo))
        .collect::<Vec<_>>();

    let mut accumulators = Vec::new();
    for a in &h.accumulators {
        if let Some(acc) = lower_accumulator(cx, a, &nodes) {
            cx.accumulators
                .insert(a.name.get_ref().clone(), accumulators.len());
            accumulators.push(acc);
        }
    }

    check_connections(cx, h, &nodes, &elements, &cylinders, &motors);
    Circuit {
        oil,
        nodes,
        spools,
        elements,
        cylinders,
        motors,
        accumulators,
    }
}

/// Every control volume must be connected to something, and have a volume.
fn check_connections(
    cx: &mut Ctx,
    h: &HydraulicsDesc,
    nodes: &[Node],
    elements: &[Element],
    cylinders: &[Cylinder],
    motors: &[RotaryMotor],
) {
    let touched = |n: usize| {
        elements.iter().any(|e| e.nodes().contains(&n))
            || cylinders.iter().any(|c| c.cap_node == n || c.rod_node == n)
            || motors.iter().any(|m| m.port_a == n || m.port_b == n)
    };
    let first_volume = h.pressure_sources.len();
    for (k, v) in h.volumes.iter().enumerate() {
        let n = first_volume + k;
        if cx.nodes.get(v.name.get_ref()) != Some(&n)
            || !matches!(nodes.get(n), Some(Node::Volume(_)))
        {
            continue;
        }
        let name = v.name.get_ref();
        if !touched(n) {
            cx.error(
                v.name.span(),
                format!("volume '{name}' is not connected: no valve, orifice, relief valve, pump, leakage or cylinder chamber touches it"),
                "connect it (as a valve port, an element's `from`/`to`, or a cylinder's cap_volume/rod_volume) or remove it",
            );
            continue;
        }
        let has_chamber = cylinders.iter().any(|c| c.cap_node == n || c.rod_node == n);
        let hose = match &nodes[n] {
            Node::Volume(cv) => cx.params[cv.hose_volume.index()].default,
            Node::Pressure { .. } => 1.0,
        };
        if hose == 0.0 && !has_chamber {
            cx.error(
                v.volume.span(),
                format!("volume '{name}' holds no oil: `volume` is 0 and no cylinder chamber belongs to it"),
                "give the hose or pipe volume, e.g. volume = \"0.5 L\" (its pressure needs a compressible volume)",
            );
        }
    }
    for (k, s) in h.pressure_sources.iter().enumerate() {
        if cx.nodes.get(s.name.get_ref()) == Some(&k) && !touched(k) {
            cx.warnings.push(
                crate::diagnostic::Diagnostic::at(
                    s.name.span(),
                    format!(
                        "pressure source '{}' is not connected to anything",
                        s.name.get_ref()
                    ),
                    "connect it or remove it",
                )
                .warning(),
            );
        }
    }
}

//! The text `hydromech check` prints for a valid description: counts, the kinematic tree,
//! the circuit and the FMU interface.

use crate::lower::Lowered;
use fmu_runtime::model::{Binding, Causality, Element, JointKind, Node};
use std::fmt::Write;

/// One line of counts: `hydromech check` prints `<file>: ok (<headline>)`.
pub fn headline(l: &Lowered) -> String {
    let m = &l.model;
    let a = &l.analysis;
    let count = |c: Causality| m.variables.iter().filter(|v| v.causality == c).count();
    let tree = m.mechanism.bodies.len();
    let nodes: usize = l.flexible.iter().map(|f| f.nodes.len()).sum();
    let links = tree - l.declared_bodies - nodes;
    let mut generated = Vec::new();
    if links > 0 {
        generated.push(format!(
            "+{links} massless links of spherical/universal joints"
        ));
    }
    if nodes > 0 {
        generated.push(format!("+{nodes} interface nodes of flexible bodies"));
    }
    let bodies = if generated.is_empty() {
        format!("{tree} bodies")
    } else {
        format!("{} bodies ({})", l.declared_bodies, generated.join(", "))
    };
    format!(
        "{bodies}, {} coordinates, {} constraints, {} pressures, {} DOF, {} variables ({} inputs, {} parameters, {} outputs), {} parameter slots",
        a.coordinates,
        a.constraint_equations,
        m.circuit.volumes(),
        a.dof,
        m.variables.len(),
        count(Causality::Input),
        count(Causality::Parameter),
        count(Causality::Output),
        m.params.len(),
    )
}

/// The lines after the headline: degrees of freedom, tree, circuit, interface.
pub fn report(l: &Lowered) -> String {
    let m = &l.model;
    let a = &l.analysis;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  degrees of freedom: {} = {} coordinates − {} independent loop-closure equations{}",
        a.dof,
        a.coordinates,
        a.rank,
        if a.redundant > 0 {
            format!(" ({} of {} redundant)", a.redundant, a.constraint_equations)
        } else {
            String::new()
        }
    );
    let bodies = &m.mechanism.bodies;
    if !bodies.is_empty() {
        out.push_str("  tree:\n    ground\n");
        fn walk(
            out: &mut String,
            m: &fmu_runtime::model::Mechanism,
            parent: Option<usize>,
            depth: usize,
        ) {
            for (i, b) in m
                .bodies
                .iter()
                .enumerate()
                .filter(|(_, b)| b.parent == parent)
            {
                let joint = match b.joint {
                    JointKind::Revolute { axis } => {
                        format!("revolute {} about {axis:?}", b.joint_name)
                    }
                    JointKind::Prismatic { axis } => {
                        format!("prismatic {} along {axis:?}", b.joint_name)
                    }
                    JointKind::Fixed => format!("fixed {}", b.joint_name),
                    JointKind::Node { .. } => format!("interface node {}", b.joint_name),
                };
                let _ = writeln!(out, "    {}└─ {}  ({joint})", "   ".repeat(depth), b.name);
                walk(out, m, Some(i), depth + 1);
            }
        }
        walk(&mut out, &m.mechanism, None, 0);
        for f in &m.mechanism.forces {
            if let fmu_runtime::model::ForceElement::Rope(r) = f {
                let name = |b: Option<usize>| b.map_or("ground", |i| bodies[i].name.as_str());
                let over: Vec<&str> = r.path[1..r.path.len() - 1]
                    .iter()
                    .map(|p| name(p.body))
                    .collect();
                let _ = writeln!(
                    out,
                    "    rope {}: drum {}, over [{}] to {}",
                    r.name,
                    bodies[r.drum].name,
                    over.join(", "),
                    name(r.path[r.path.len() - 1].body)
                );
            }
        }
        for c in &m.mechanism.cut_joints {
            let name = |b: Option<usize>| b.map_or("ground", |i| bodies[i].name.as_str());
            let _ = writeln!(
                out,
                "    cut joint {}: {} – {} ({} equations)",
                c.name,
                name(c.a.body),
                name(c.b.body),
                c.equations()
            );
        }
    }
    for f in &l.flexible {
        flexible_lines(&mut out, f);
    }
    let c = &m.circuit;
    if !c.nodes.is_empty() {
        out.push_str("  circuit:\n");
        for n in &c.nodes {
            let kind = match n {
                Node::Volume(_) => "volume",
                Node::Pressure { .. } => "pressure source",
            };
            let _ = writeln!(out, "    {kind} {}", n.name());
        }
        let node = |i: usize| c.nodes.get(i).map_or("?", |n| n.name());
        for e in &c.elements {
            let text = match e {
                Element::DirectionalValve(v) => format!(
                    "valve {}: P {}, T {}, A {}, B {}{}{}",
                    v.name,
                    node(v.port_p),
                    node(v.port_t),
                    node(v.port_a),
                    node(v.port_b),
                    if v.neutral.is_some() {
                        ", open centre (P→T)"
                    } else {
                        ""
                    },
                    v.load_sense
                        .as_ref()
                        .map_or(String::new(), |ls| format!(", LS → {}", node(ls.node)))
                ),
                Element::Orifice(o) => {
                    format!("orifice {}: {} → {}", o.name, node(o.from), node(o.to))
                }
                Element::CheckValve(k) => {
                    format!("check valve {}: {} → {}", k.name, node(k.from), node(k.to))
                }
                Element::CounterbalanceValve(k) => format!(
                    "counterbalance valve {}: {} → {}, pilot {}",
                    k.name,
                    node(k.load),
                    node(k.valve),
                    node(k.pilot)
                ),
                Element::ReliefValve(r) => {
                    format!("relief valve {}: {} → {}", r.name, node(r.from), node(r.to))
                }
                Element::Pump(p) => {
                    format!("pump {}: {} → {}", p.name, node(p.inlet), node(p.outlet))
                }
                Element::LoadSensingPump(p) => format!(
                    "load-sensing pump {}: {} → {}, LS {}",
                    p.name,
                    node(p.inlet),
                    node(p.outlet),
                    node(p.load_sense)
                ),
                Element::Leakage(k) => {
                    format!("leakage {}: {} → {}", k.name, node(k.from), node(k.to))
                }
            };
            let _ = writeln!(out, "    {text}");
        }
        for cy in &c.cylinders {
            let _ = writeln!(
                out,
                "    cylinder {}: cap {}, rod {}",
                cy.name,
                node(cy.cap_node),
                node(cy.rod_node)
            );
        }
        for a in &c.accumulators {
            let _ = writeln!(out, "    accumulator {} on {}", a.name, node(a.node));
        }
        for mo in &c.motors {
            let joint = m
                .mechanism
                .bodies
                .get(mo.body)
                .map_or("?", |b| b.joint_name.as_str());
            let _ = writeln!(
                out,
                "    motor {}: A {}, B {}, on joint {joint}",
                mo.name,
                node(mo.port_a),
                node(mo.port_b)
            );
        }
    }
    initial_state(l, &mut out);
    out.push_str("  interface:\n");
    for v in &m.variables {
        let causality = match v.causality {
            Causality::Input => "input",
            Causality::Parameter => "parameter",
            Causality::Output => "output",
            Causality::Local => "local",
        };
        let unit = v
            .unit
            .as_deref()
            .map(|u| format!(" [{u}]"))
            .unwrap_or_default();
        let _ = writeln!(out, "    {causality:<9} {}{unit}", v.name);
    }
    // Every slot by name: what `target` of an input or parameter can name.
    let bound: Vec<usize> = m
        .variables
        .iter()
        .filter_map(|v| match v.binding {
            Binding::Param(p) => Some(p.index()),
            Binding::Probe(_) => None,
        })
        .collect();
    let _ = writeln!(
        out,
        "  parameter slots ({}; `target` of [[interface.inputs]] / [[interface.parameters]], * = in the interface):",
        m.params.len()
    );
    let width = m.params.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for (i, p) in m.params.iter().enumerate() {
        let unit = l
            .slots
            .get(i)
            .map(|s| s.expect.describe_unit())
            .unwrap_or_default();
        let mark = if bound.contains(&i) { "*" } else { " " };
        let value = p.default;
        let value = if value != 0.0 && !(1e-3..1e7).contains(&value.abs()) {
            format!("{value:e}")
        } else {
            format!("{value}")
        };
        let _ = writeln!(out, "   {mark}{:<width$}  {value} [{unit}]", p.name);
    }
    out
}

/// The state the FMU's initialization computes (from the description's start values and
/// its `[init]`): the pressure every volume starts from and why (trapped oil held at the
/// make-up pressure, a stated precharge, the static equilibrium, or the starting guess), the
/// coordinates the static equilibrium settled, and how well it was met.
fn initial_state(l: &Lowered, out: &mut String) {
    let m = &l.model;
    if m.circuit.volumes() == 0 && !m.init.static_equilibrium {
        return;
    }
    // As the FMU will start: with the inputs `init.solve_for` names at their solved values.
    let mut model = m.clone();
    if !l.solve_for.is_empty()
        && let Ok(values) = crate::equilibrium::solve_parameters(&model, &l.solve_for)
    {
        crate::lower::apply_parameter_values(&mut model, &l.solve_for, &values);
    }
    let m = &model;
    let mut inst = fmu_runtime::Instance::new(std::sync::Arc::new(m.clone()));
    let t0 = m.default_experiment.start_time;
    let how = if m.init.static_equilibrium {
        "static equilibrium"
    } else {
        "no static equilibrium: precharge or initial_guess"
    };
    if let Err(e) = inst.initialize(if t0.is_finite() { t0 } else { 0.0 }) {
        let _ = writeln!(
            out,
            "  initial state: the initialization fails: {}",
            e.message
        );
        return;
    }
    if m.circuit.volumes() > 0 {
        let _ = writeln!(out, "  initial pressures ({how}):");
    }
    let volumes = m.circuit.nodes.iter().filter_map(|n| match n {
        Node::Volume(v) => Some(v),
        Node::Pressure { .. } => None,
    });
    for (k, v) in volumes.enumerate() {
        let p = inst.state().w[k];
        let why = if inst.held_at_make_up().contains(&k) {
            " (trapped: held at the make-up pressure)"
        } else if v.precharge.is_some() {
            " (precharge)"
        } else {
            ""
        };
        let _ = writeln!(out, "    {} {:.4} bar{why}", v.name, p / 1e5);
    }
    settled_lines(m, &inst, out);
    if let Some(r) = inst.equilibrium_report() {
        let joint = m
            .mechanism
            .coordinate_indices()
            .iter()
            .position(|c| *c == Some(r.coordinate))
            .map_or("?", |b| m.mechanism.bodies[b].joint_name.as_str());
        let volume = m
            .circuit
            .nodes
            .iter()
            .filter(|n| matches!(n, Node::Volume(_)))
            .nth(r.volume)
            .map_or("?", |n| n.name());
        if r.reached() {
            let _ = writeln!(
                out,
                "  static equilibrium met: largest unbalanced force {:.3e} (load {:.3e}) on {joint}, largest net inflow {:.3e} m3/s",
                r.force, r.load, r.inflow
            );
        } else {
            let _ = writeln!(
                out,
                "  warning: the static equilibrium is not met: {:.4e} unbalanced on {joint} (load {:.4e}; N or N·m), net inflow {:.4e} m3/s into {volume}; the run starts with a transient (a load that cannot be held where it starts, or a solve that stalled)",
                r.force, r.load, r.inflow
            );
        }
    }
}

/// The joint coordinates the static equilibrium settled, where they start and how far that
/// is from their `initial`.
fn settled_lines(
    m: &fmu_runtime::model::CompiledModel,
    inst: &fmu_runtime::Instance,
    out: &mut String,
) {
    let settled = inst.settled_coordinates();
    if settled.is_empty() {
        return;
    }
    let p: Vec<f64> = m.params.iter().map(|s| s.default).collect();
    let initial = m.mechanism.initial_coordinates(&p);
    let _ = writeln!(
        out,
        "  settled by the static equilibrium (no pressure, loop or solved-for input holds them; \
         [init] hold keeps one at its initial):"
    );
    let bodies = m
        .mechanism
        .bodies
        .iter()
        .zip(m.mechanism.coordinate_indices());
    for (b, c) in bodies {
        let Some(c) = c.filter(|c| settled.contains(c)) else {
            continue;
        };
        let (q, q0) = (inst.state().z[c], initial[c]);
        let line = match b.joint {
            JointKind::Revolute { .. } => format!(
                "{} deg (initial {} deg)",
                fixed(q.to_degrees()),
                fixed(q0.to_degrees())
            ),
            _ => format!("{} m (initial {} m)", fixed(q), fixed(q0)),
        };
        let _ = writeln!(out, "    {} {line}", b.joint_name);
    }
}

/// Six decimals, without the sign of a value that rounds to zero.
fn fixed(v: f64) -> String {
    let s = format!("{v:.6}");
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => s,
    }
}

/// A flexible body's reduction: its nodes, and per mode the frequency clamped at the joint
/// and free–free, the share of mass it carries and its damping.
fn flexible_lines(out: &mut String, f: &crate::lower::flexible::FlexibleLowered) {
    let r = &f.reduction;
    let fb = &r.flexible;
    let nodes = f.node_list();
    let _ = writeln!(
        out,
        "  flexible body {}: {:.1} kg, {} from x = {} m to {} m, {} modes clamped at its joint; interface nodes: {}",
        f.name,
        fb.invariants.mass,
        if f.by_station { "beam" } else { "FE model" },
        f.extent.0,
        f.extent.1,
        fb.modes(),
        if nodes.is_empty() {
            "none".into()
        } else {
            nodes.join(", ")
        }
    );
    if !f.defaults.is_empty() {
        let _ = writeln!(out, "    defaults used: {}", f.defaults.join(", "));
    }
    if let Some((_, count)) = f.spiders.iter().find(|(n, _)| n.is_none()) {
        let _ = writeln!(
            out,
            "    its joint holds a rigid spider (RBE2) of {count} mesh nodes"
        );
    }
    for (k, freq) in r.frequencies.iter().enumerate() {
        let share = r.mass_shares[k];
        let zeta = fb.damping_ratio(k);
        let free = r
            .free_frequencies
            .get(k)
            .map_or(String::new(), |f| format!(" (free–free {f:.2} Hz)"));
        let _ = writeln!(
            out,
            "    mode {}: {freq:.2} Hz{free}, mass share x {:.1} %, y {:.1} %, z {:.1} %, damping ratio {zeta:.3}",
            k + 1,
            100.0 * share[0],
            100.0 * share[1],
            100.0 * share[2],
        );
    }
}

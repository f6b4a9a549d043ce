//! The continuous states of a Model Exchange FMU (`hydromech build --interface me|both`).
//!
//! x = [z_i; ż_i; w; W] (`fmu_runtime::solver::ode`): a minimal set — the independent
//! joint coordinates of the double-step partition and their rates, then the dynamic
//! first-order states (pressures, spools with a time constant, pump displacements,
//! friction states) — and the work integrals the energy outputs report.
//! How many there are is fixed by the description (the mobility, which spools are ideal);
//! *which* joints are independent is chosen from the configuration, so the compiler asks
//! the runtime itself: it initializes the machine at the default start and declares what
//! the runtime's ODE has there. The runtime checks the count again at initialization.
//!
//! Names: `ode.x[k]` and `der(ode.x[k])` (1-based, FMI 2.0 structured naming); each
//! description says what the state is at the default start. A step event may re-choose
//! the independent coordinates during a run, so the joint named for a coordinate entry is
//! the initial choice.

use crate::Lowered;
use fmu_runtime::instance::Instance;
use fmu_runtime::model::{
    BRISTLE_STATES, Binding, Causality, CompiledModel, Initial, Probe, VarType, Variability,
    Variable,
};
use fmu_runtime::solver::Layout;
use fmu_runtime::solver::ode::StateKind;
use std::sync::Arc;

/// Prefix of the state variables' names.
pub const PREFIX: &str = "ode.x";

/// Appends x\[k\] and der(x\[k\]) to the model's variables and computes its GUID again.
pub fn declare_states(l: &mut Lowered) -> Result<usize, String> {
    let m = &l.model;
    let start = m.default_experiment.start_time;
    let mut inst = Instance::new(Arc::new(m.clone()));
    inst.initialize(start)
        .map_err(|e| format!("the initial state at t = {start} s: {}", e.message))?;
    let n = inst
        .ode_len()
        .map_err(|e| format!("the continuous states: {e}"))?;
    if n == 0 {
        return Err("the machine has no continuous states".into());
    }
    let mut nominal = vec![0.0; n];
    inst.ode_nominals(&mut nominal)?;
    if let Some(v) = m
        .variables
        .iter()
        .find(|v| v.name.starts_with("ode.") || v.name.starts_with("der("))
    {
        return Err(format!(
            "variable {} takes a name reserved for the continuous states (ode.x[k], der(ode.x[k]))",
            v.name
        ));
    }
    let first_vr = m
        .variables
        .iter()
        .map(|v| v.value_reference + 1)
        .max()
        .unwrap_or(0);
    let mut states = Vec::with_capacity(2 * n);
    for (k, &nominal) in nominal.iter().enumerate() {
        let kind = inst
            .ode_kind(k)
            .ok_or("the continuous states are not defined")?;
        let (what, unit) = describe(m, kind);
        let name = format!("{PREFIX}[{}]", k + 1);
        let state = Variable {
            name: name.clone(),
            value_reference: first_vr + k as u32,
            description: format!("continuous state: {what}"),
            causality: Causality::Local,
            variability: Variability::Continuous,
            initial: Some(Initial::Calculated),
            var_type: VarType::Real,
            unit: unit.map(str::to_string),
            display_unit: None,
            start: None,
            min: None,
            max: None,
            nominal: Some(nominal),
            binding: Binding::Probe(Probe::ContinuousState(k)),
        };
        let derivative = Variable {
            name: format!("der({name})"),
            value_reference: first_vr + (n + k) as u32,
            description: format!("time derivative of {what}"),
            unit: None,
            nominal: None,
            binding: Binding::Probe(Probe::StateDerivative(k)),
            ..state.clone()
        };
        states.push(state);
        states.push(derivative);
    }
    // States first, then derivatives, each in k order (what masters list them by).
    states.sort_by_key(|v| matches!(v.binding, Binding::Probe(Probe::StateDerivative(_))));
    l.model.variables.extend(states);
    l.model
        .validate()
        .map_err(|e| format!("the model with its continuous states: {e}"))?;
    l.model.guid = crate::lower::compute_guid(&l.model);
    Ok(n)
}

/// What a state is (for its description) and its unit when it has a fixed one.
pub(crate) fn describe(m: &CompiledModel, kind: StateKind) -> (String, Option<&'static str>) {
    let joint = |c: usize| {
        let indices = m.mechanism.coordinate_indices();
        indices
            .iter()
            .position(|i| *i == Some(c))
            .map(|b| format!("joint {}", m.mechanism.bodies[b].joint_name))
            .unwrap_or_else(|| format!("joint coordinate {c}"))
    };
    match kind {
        StateKind::Coordinate(c) => (
            format!(
                "independent coordinate, at the start {} (re-chosen at a step event near a singular configuration)",
                joint(c)
            ),
            None,
        ),
        StateKind::Rate(c) => (
            format!(
                "rate of the independent coordinate, at the start {}",
                joint(c)
            ),
            None,
        ),
        StateKind::ActuatorWork => (
            "work done on the mechanism by the actuators (energy.actuator_work)".into(),
            Some("J"),
        ),
        StateKind::BaseWork => ("work done by the base (base.work)".into(), Some("J")),
        StateKind::PortWork(i) => (
            format!("work delivered through port {}", m.ports[i].name),
            Some("J"),
        ),
        StateKind::FirstOrder(j) => {
            let volumes: Vec<&str> = m
                .circuit
                .nodes
                .iter()
                .filter(|n| matches!(n, fmu_runtime::model::Node::Volume(_)))
                .map(|n| n.name())
                .collect();
            let spools = m.circuit.spools.len();
            if j < volumes.len() {
                (format!("pressure of volume {}", volumes[j]), Some("Pa"))
            } else if j < volumes.len() + spools {
                (
                    format!(
                        "position of spool {}",
                        m.circuit.spools[j - volumes.len()].name
                    ),
                    None,
                )
            } else if let Some(b) = j.checked_sub(Layout::of(m).first_bristle()) {
                (bristle_state(m, b), Some("m"))
            } else {
                (
                    format!("first-order state {j} (pump displacement or friction state)"),
                    None,
                )
            }
        }
    }
}

/// Which contact point's bristle deflection bristle state `b` is.
fn bristle_state(m: &CompiledModel, b: usize) -> String {
    let c = &m.mechanism.contacts;
    let (point, axis) = (b / BRISTLE_STATES, ["x", "y", "z"][b % BRISTLE_STATES]);
    let mut first = 0;
    for pair in &c.pairs {
        // Numbered within the pair, over its shape contacts.
        let pair_first = first;
        for sc in pair.shapes.iter().filter(|sc| sc.bristles.is_some()) {
            let count = c.points_of(sc);
            if point < first + count {
                return format!(
                    "LuGre bristle deflection along world {axis} at candidate point {} of contact.{}",
                    point - pair_first + 1,
                    pair.name
                );
            }
            first += count;
        }
    }
    format!("LuGre bristle deflection {b}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Source;
    use crate::emit::model_description::render_for;
    use quick_xml::Reader;
    use quick_xml::events::Event;

    fn lowered(name: &str) -> Lowered {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../models")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        crate::compile(&Source::new(&path, text)).unwrap_or_else(|e| panic!("{e:?}"))
    }

    type Attributes = Vec<(String, String)>;

    /// (element name, its attributes, the enclosing element) of every element.
    fn elements(xml: &str) -> Vec<(String, Attributes, String)> {
        let mut r = Reader::from_str(xml);
        let (mut out, mut stack) = (Vec::new(), vec![String::new()]);
        loop {
            match r.read_event().unwrap() {
                Event::Start(e) => {
                    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                    out.push((name.clone(), attributes(&e), stack.last().unwrap().clone()));
                    stack.push(name);
                }
                Event::Empty(e) => {
                    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                    out.push((name, attributes(&e), stack.last().unwrap().clone()));
                }
                Event::End(_) => {
                    stack.pop();
                }
                Event::Eof => return out,
                _ => {}
            }
        }
    }

    fn attributes(e: &quick_xml::events::BytesStart) -> Vec<(String, String)> {
        e.attributes()
            .map(|a| {
                let a = a.unwrap();
                (
                    String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                    a.unescape_value().unwrap().into_owned(),
                )
            })
            .collect()
    }

    fn get<'a>(a: &'a [(String, String)], key: &str) -> Option<&'a str> {
        a.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// LuGre contact bristles are declared states, each described by its own point: the
    /// grapple with bristles on every contact (jaw tines against the log, each other and
    /// the ground) has 150 of them, no two descriptions alike.
    #[test]
    fn lugre_bristles_are_states_each_named_by_its_contact_point() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/grapple-log.toml");
        let text = std::fs::read_to_string(&path).unwrap().replace(
            "friction = 0.4 ",
            "friction_model = \"lugre\"\nfriction = 0.4 ",
        );
        let mut l = crate::compile(&Source::new(&path, text)).unwrap_or_else(|e| panic!("{e:?}"));
        declare_states(&mut l).unwrap();
        let xml = render_for(
            &l.model,
            "2026-01-01T00:00:00Z",
            crate::Interface::ModelExchange,
        );
        let described: Vec<String> = elements(&xml)
            .into_iter()
            .filter(|e| e.0 == "ScalarVariable")
            .filter_map(|e| get(&e.1, "description").map(str::to_string))
            .filter(|d| d.starts_with("continuous state: LuGre bristle deflection"))
            .collect();
        let mut unique = described.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(described.len(), 150);
        assert_eq!(unique.len(), 150, "{described:?}");
    }

    /// The Pub I four-bar: 3 joint coordinates, 2 loop equations → one independent
    /// coordinate and its rate, the 3 volumes' pressures, the spool (a time constant), the
    /// actuator work.
    #[test]
    fn the_fourbar_declares_a_minimal_set_with_derivatives_and_nominals() {
        let mut l = lowered("jaiswal-fourbar.toml");
        let cs_guid = l.model.guid.clone();
        assert_eq!(declare_states(&mut l).unwrap(), 7);
        assert_ne!(l.model.guid, cs_guid, "the GUID covers the interface");
        let xml = render_for(
            &l.model,
            "2026-01-01T00:00:00Z",
            crate::Interface::ModelExchange,
        );
        let el = elements(&xml);
        let top: Vec<&str> = el
            .iter()
            .filter(|e| e.2 == "fmiModelDescription")
            .map(|e| e.0.as_str())
            .collect();
        assert_eq!(top[0], "ModelExchange");
        assert!(!top.contains(&"CoSimulation"));
        // ScalarVariable i (1-based) and its type element.
        let vars: Vec<(&Attributes, &Attributes)> = el
            .iter()
            .enumerate()
            .filter(|(_, e)| e.0 == "ScalarVariable")
            .map(|(i, e)| (&e.1, &el[i + 1].1))
            .collect();
        let index = |name: &str| {
            1 + vars
                .iter()
                .position(|v| get(v.0, "name") == Some(name))
                .unwrap()
        };
        let unknowns = |list: &str| -> Vec<usize> {
            el.iter()
                .filter(|e| e.0 == "Unknown" && e.2 == list)
                .map(|e| get(&e.1, "index").unwrap().parse().unwrap())
                .collect()
        };
        let derivatives = unknowns("Derivatives");
        assert_eq!(derivatives.len(), 7);
        let initial = unknowns("InitialUnknowns");
        for k in 1..=7 {
            let x = index(&format!("ode.x[{k}]"));
            let dx = index(&format!("der(ode.x[{k}])"));
            assert_eq!(
                get(vars[dx - 1].1, "derivative"),
                Some(x.to_string().as_str())
            );
            assert!(derivatives.contains(&dx) && initial.contains(&x) && initial.contains(&dx));
            assert_eq!(get(vars[x - 1].0, "initial"), Some("calculated"));
        }
        let nominal = |k: usize| get(vars[index(&format!("ode.x[{k}]")) - 1].1, "nominal");
        assert_eq!(nominal(1), Some("1.0"), "the crank angle");
        assert_eq!(nominal(3), Some("10000000.0"), "a pressure");
        assert_eq!(nominal(7), Some("1.0"), "the actuator work");
        // Outputs of Model Exchange declare the states and inputs they depend on
        // (`emit::dependencies`): a chamber's pressure its own state, the crank angle the
        // independent coordinate, the kinetic energy the coordinate and its rate.
        let depends = |output: &str| -> Vec<usize> {
            let o = index(output).to_string();
            let u = el
                .iter()
                .find(|e| e.0 == "Unknown" && e.2 == "Outputs" && get(&e.1, "index") == Some(&o))
                .unwrap();
            let list = get(&u.1, "dependencies").expect("dependencies declared");
            list.split_whitespace()
                .map(|k| k.parse().unwrap())
                .collect()
        };
        let x = |k: usize| index(&format!("ode.x[{k}]"));
        assert_eq!(depends("cylinder.p_cap"), [x(4)]);
        assert_eq!(depends("crank.angle"), [x(1)]);
        assert_eq!(depends("energy.kinetic"), [x(1), x(2)]);
        assert_eq!(depends("energy.actuator_work"), [x(7)]);
        let both = render_for(&l.model, "2026-01-01T00:00:00Z", crate::Interface::Both);
        let top: Vec<String> = elements(&both)
            .into_iter()
            .filter(|e| e.2 == "fmiModelDescription")
            .map(|e| e.0)
            .collect();
        assert_eq!(&top[..2], ["ModelExchange", "CoSimulation"]);
    }

    /// FMI 3.0: derivatives name their state by value reference, listed as
    /// `<ContinuousStateDerivative>`; the step event needs `fmi3CompletedIntegratorStep`.
    #[test]
    fn fmi3_declares_the_derivatives_by_value_reference() {
        let mut l = lowered("jaiswal-fourbar.toml");
        declare_states(&mut l).unwrap();
        let xml = crate::emit::model_description::fmi3::render_for(
            &l.model,
            "2026-01-01T00:00:00Z",
            crate::Interface::ModelExchange,
        )
        .unwrap();
        let el = elements(&xml);
        let me = el.iter().find(|e| e.0 == "ModelExchange").unwrap();
        assert_eq!(get(&me.1, "needsCompletedIntegratorStep"), Some("true"));
        assert!(!el.iter().any(|e| e.0 == "CoSimulation"));
        let vr = |name: &str| {
            let v = el.iter().find(|e| get(&e.1, "name") == Some(name)).unwrap();
            get(&v.1, "valueReference").unwrap().to_string()
        };
        let listed: Vec<&str> = el
            .iter()
            .filter(|e| e.0 == "ContinuousStateDerivative")
            .map(|e| get(&e.1, "valueReference").unwrap())
            .collect();
        assert_eq!(listed.len(), 7);
        for k in 1..=7 {
            let dx = vr(&format!("der(ode.x[{k}])"));
            assert!(listed.contains(&dx.as_str()));
            let e = el
                .iter()
                .find(|e| get(&e.1, "valueReference") == Some(dx.as_str()))
                .unwrap();
            assert_eq!(
                get(&e.1, "derivative"),
                Some(vr(&format!("ode.x[{k}]")).as_str())
            );
        }
    }

    #[test]
    fn a_reserved_name_is_refused() {
        let mut l = lowered("naya-rod.toml");
        l.model.variables[0].name = "ode.x[1]".into();
        let e = declare_states(&mut l).unwrap_err();
        assert!(e.contains("reserved"), "{e}");
    }
}

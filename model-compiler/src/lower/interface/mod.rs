//! The FMI interface: user variables bound to slots or probes, plus the variables every
//! model gets.

mod builder;
mod exposure;
mod ports;
mod quantities;

pub(crate) use exposure::{Exposure, exposure};
pub(super) use quantities::sensor_quantity;

use builder::{Builder, output, slot_display_unit};
use exposure::inline_field;
use quantities::{GLOBAL_QUANTITIES, global_quantity, resolve_quantity};

use crate::description::{Description, Name, Quantity};
use crate::lower::{Ctx, Expect};
use crate::names;
use crate::units::{self, Dim};
use fmu_runtime::model::{
    Binding, Causality, CompiledModel, Initial, ParamId, VarType, Variability, Variable,
};
use std::collections::HashMap;

/// Checks a user variable name: structured syntax and uniqueness.
fn check_name(cx: &mut Ctx, b: &mut Builder, name: &Name, description: Option<&String>) -> bool {
    let text = name.get_ref();
    if description.is_some_and(|d| super::has_control_chars(d)) {
        cx.error(
            name.span(),
            format!("the description of '{text}' contains control characters"),
            "remove them; XML cannot hold them",
        );
    }
    if let Err(e) = names::check_structured(text) {
        cx.error(
            name.span(),
            format!("'{text}' is not a valid FMI structured name: {e}"),
            "use identifiers separated by '.', optionally with [index], e.g. \"boom.cylinder.p_cap\"",
        );
        return false;
    }
    if b.names.contains_key(text) {
        cx.error(
            name.span(),
            format!("duplicate interface variable '{text}'"),
            "give every interface variable a unique name",
        );
        return false;
    }
    b.names.insert(text.clone(), name.span());
    true
}

/// Resolves a slot target and checks that it is not bound twice.
fn target(cx: &mut Ctx, b: &Builder, t: &Name) -> Option<ParamId> {
    let Some(&id) = cx.slot_ids.get(t.get_ref()) else {
        if let Some(why) = inline_field(cx, t.get_ref()) {
            // The slots the same component does have (a cylinder's bore lives on as its
            // `cap_area` and `rod_area`; an orifice's area as its `coefficient`).
            let head = t.get_ref().split('.').next().unwrap_or_default();
            let mut own: Vec<&str> = cx
                .slot_ids
                .keys()
                .map(String::as_str)
                .filter(|k| k.strip_prefix(head).is_some_and(|r| r.starts_with('.')))
                .collect();
            own.sort_unstable();
            let help = if own.is_empty() {
                "only the numbers the runtime keeps as parameters can be exposed; `hydromech check` lists every slot".to_string()
            } else {
                format!(
                    "target one of the slots of '{head}' instead: {}; `hydromech check` lists every slot",
                    own.iter()
                        .map(|k| format!("'{k}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            cx.error(
                t.span(),
                format!("'{}' cannot be exposed yet: {why}", t.get_ref()),
                help,
            );
            return None;
        }
        let slots: Vec<String> = cx.slot_ids.keys().cloned().collect();
        cx.unknown(
            t,
            "parameter slot",
            slots.iter().map(String::as_str).collect(),
        );
        return None;
    };
    if let Some(other) = b.bound.get(&id) {
        cx.error(
            t.span(),
            format!(
                "the slot '{}' is already exposed as interface variable '{other}'",
                t.get_ref()
            ),
            "expose each slot through one variable only",
        );
        return None;
    }
    Some(id)
}

/// FMI unit of a slot variable: the user's (coherent SI, fitting the slot), else the slot's.
fn slot_unit(cx: &mut Ctx, id: ParamId, user: Option<&Name>) -> Option<String> {
    let expect = cx.slots[id.index()].expect;
    let Some(u) = user else {
        return cx
            .signal_units
            .get(&id)
            .cloned()
            .or_else(|| expect.unit_name());
    };
    let parsed = match units::parse_unit(u.get_ref()) {
        Ok(p) => p,
        Err(e) => {
            cx.error(
                u.span(),
                e.0,
                format!(
                    "known unit symbols: {}",
                    units::known_symbols().collect::<Vec<_>>().join(" ")
                ),
            );
            return expect.unit_name();
        }
    };
    if !expect.accepts(parsed.dim) {
        let wanted = match expect {
            Expect::Dim(d) => d.describe(),
            Expect::Signal => "a signal (V, A or none)".into(),
            Expect::Plain(p) => format!("{p}, which has no unit name"),
            Expect::Choice(n) => format!("a choice 0…{}, which has no unit", n - 1),
        };
        cx.error(
            u.span(),
            format!(
                "unit '{}' does not fit this slot, which holds {wanted}",
                u.get_ref()
            ),
            "remove `unit` to use the slot's SI unit",
        );
        return expect.unit_name();
    }
    if (parsed.factor - 1.0).abs() > 1e-12 {
        cx.error(
            u.span(),
            format!("unit '{}' is not a coherent SI unit (factor {})", u.get_ref(), parsed.factor),
            format!("FMU variables carry SI values: use '{}' (display units such as bar, deg, mm, L/min are added automatically)", parsed.dim.si_name()),
        );
        return expect.unit_name();
    }
    if parsed.dim == Dim::NONE {
        None
    } else {
        Some(parsed.dim.si_name())
    }
}

fn bound(cx: &mut Ctx, q: Option<&Quantity>, expect: Expect) -> Option<f64> {
    q.map(|q| cx.value(q, expect))
}

/// The lower bound a quantity has by its nature, declared when the description gives
/// none: a mass, a volume or a duration is never negative, so an importer (and the FMU's
/// own `fmi2SetReal` check) refuses -5 kg instead of running a machine with it.
fn physical_min(expect: Expect) -> Option<f64> {
    match expect {
        Expect::Dim(d) if [Dim::MASS, Dim::VOLUME, Dim::TIME].contains(&d) => Some(0.0),
        _ => None,
    }
}

/// Checks min ≤ start ≤ max.
fn check_range(cx: &mut Ctx, name: &Name, start: f64, min: Option<f64>, max: Option<f64>) {
    if let (Some(lo), Some(hi)) = (min, max)
        && lo > hi
    {
        cx.error(
            name.span(),
            format!("min ({lo}) is greater than max ({hi})"),
            "swap min and max",
        );
        return;
    }
    if min.is_some_and(|lo| start < lo) || max.is_some_and(|hi| start > hi) {
        cx.error(
            name.span(),
            format!(
                "the start value {start} of '{}' is outside [min, max]",
                name.get_ref()
            ),
            "widen min/max or change the slot's default",
        );
    }
}

/// The spool range of a valve-command slot (default min/max of its variable).
fn spool_range(model: &CompiledModel, id: ParamId) -> Option<(f64, f64)> {
    model
        .circuit
        .spools
        .iter()
        .find(|s| s.command == id)
        .map(|s| (s.min, s.max))
}

pub(super) fn lower_interface(
    cx: &mut Ctx,
    d: &Description,
    model: &CompiledModel,
) -> Vec<Variable> {
    let mut b = Builder {
        vars: Vec::new(),
        names: HashMap::new(),
        bound: HashMap::new(),
    };
    let empty = Default::default();
    let iface = d.interface.as_ref().unwrap_or(&empty);

    for i in &iface.inputs {
        let ok = check_name(cx, &mut b, &i.name, i.description.as_ref());
        let Some(id) = target(cx, &b, &i.target) else {
            continue;
        };
        match exposure(cx, id) {
            Exposure::Tunable => {}
            Exposure::Fixed(why) => {
                cx.error(
                    i.target.span(),
                    format!("'{}' cannot be an input: {why}", i.target.get_ref()),
                    "inputs change while the FMU runs; expose it under [[interface.parameters]] (fixed: set before initialization) instead",
                );
                continue;
            }
            Exposure::Hidden(why) => {
                cx.error(
                    i.target.span(),
                    format!("'{}' cannot be exposed: {why}", i.target.get_ref()),
                    "remove this input",
                );
                continue;
            }
        }
        let expect = cx.slots[id.index()].expect;
        let unit = slot_unit(cx, id, i.unit.as_ref());
        let start = cx.params[id.index()].default;
        let range = spool_range(model, id);
        let min = bound(cx, i.min.as_ref(), expect)
            .or(range.map(|r| r.0))
            .or(physical_min(expect));
        let max = bound(cx, i.max.as_ref(), expect).or(range.map(|r| r.1));
        check_range(cx, &i.name, start, min, max);
        if !ok {
            continue;
        }
        let description = i
            .description
            .clone()
            .unwrap_or_else(|| cx.slots[id.index()].description.clone());
        b.push(Variable {
            name: i.name.get_ref().clone(),
            value_reference: 0,
            description,
            causality: Causality::Input,
            variability: Variability::Continuous,
            initial: None,
            var_type: VarType::Real,
            display_unit: slot_display_unit(cx, id, unit.as_deref()),
            unit,
            start: Some(start),
            min,
            max,
            nominal: None,
            binding: Binding::Param(id),
        });
    }
    for p in &iface.parameters {
        let ok = check_name(cx, &mut b, &p.name, p.description.as_ref());
        let Some(id) = target(cx, &b, &p.target) else {
            continue;
        };
        let tunable = p
            .variability
            .as_ref()
            .filter(|v| *v.get_ref() == crate::description::VariabilityDesc::Tunable);
        match (exposure(cx, id), tunable) {
            (Exposure::Hidden(why), _) => {
                cx.error(
                    p.target.span(),
                    format!("'{}' cannot be exposed: {why}", p.target.get_ref()),
                    "remove this parameter",
                );
                continue;
            }
            (Exposure::Fixed(why), Some(v)) => {
                cx.error(
                    v.span(),
                    format!("'{}' cannot be tunable: {why}", p.target.get_ref()),
                    "remove `variability = \"tunable\"`: as a fixed parameter it can still be set before initialization",
                );
            }
            _ => {}
        }
        let expect = cx.slots[id.index()].expect;
        let unit = slot_unit(cx, id, p.unit.as_ref());
        let start = cx.params[id.index()].default;
        let min = bound(cx, p.min.as_ref(), expect).or(physical_min(expect));
        let max = bound(cx, p.max.as_ref(), expect);
        check_range(cx, &p.name, start, min, max);
        if !ok {
            continue;
        }
        let description = p
            .description
            .clone()
            .unwrap_or_else(|| cx.slots[id.index()].description.clone());
        let variability = if tunable.is_some() {
            Variability::Tunable
        } else {
            Variability::Fixed
        };
        // A choice slot (e.g. a friction model) is an FMI Integer with its range.
        let (var_type, unit, min, max) = match expect {
            Expect::Choice(n) => (VarType::Integer, None, Some(0.0), Some((n - 1) as f64)),
            _ => (VarType::Real, unit, min, max),
        };
        b.push(Variable {
            name: p.name.get_ref().clone(),
            value_reference: 0,
            description,
            causality: Causality::Parameter,
            variability,
            initial: Some(Initial::Exact),
            var_type,
            display_unit: slot_display_unit(cx, id, unit.as_deref()),
            unit,
            start: Some(start),
            min,
            max,
            nominal: None,
            binding: Binding::Param(id),
        });
    }

    // Units of spool signals as the interface exposes them (for `<valve>.spool` outputs).
    let mut spool_units: HashMap<usize, String> = HashMap::new();
    for (i, s) in model.circuit.spools.iter().enumerate() {
        let from_var = b
            .vars
            .iter()
            .find(|v| v.binding == Binding::Param(s.command))
            .and_then(|v| v.unit.clone());
        if let Some(u) = from_var.or_else(|| cx.spool_units.get(i).cloned().flatten()) {
            spool_units.insert(i, u);
        }
    }

    for o in &iface.outputs {
        let ok = check_name(cx, &mut b, &o.name, o.description.as_ref());
        let Some(r) = resolve_quantity(cx, &o.quantity, model, &spool_units) else {
            continue;
        };
        if !ok {
            continue;
        }
        b.push(output(
            o.name.get_ref(),
            o.description.clone().unwrap_or(r.description),
            r.probe,
            r.var_type,
            r.unit,
        ));
    }

    if let Some(port) = &model.mechanism.base {
        ports::base(cx, &mut b, d, port);
    }
    ports::ports(cx, &mut b, model);

    // Always present (seed-independent diagnostics of every FMU).
    let step = model.solver.step;
    if !b.names.contains_key("solver.step") && !b.bound.contains_key(&step) {
        let start = cx.params[step.index()].default;
        b.push(Variable {
            name: "solver.step".into(),
            value_reference: 0,
            description: "Internal fixed integration step of the monolithic solver".into(),
            causality: Causality::Parameter,
            variability: Variability::Fixed,
            initial: Some(Initial::Exact),
            var_type: VarType::Real,
            unit: Some("s".into()),
            display_unit: None,
            start: Some(start),
            min: None,
            max: None,
            nominal: None,
            binding: Binding::Param(step),
        });
    }
    for (name, probe) in GLOBAL_QUANTITIES {
        if b.names.contains_key(*name) {
            continue;
        }
        let r = global_quantity(probe);
        b.push(output(name, r.description, r.probe, r.var_type, r.unit));
    }
    prefix_collisions(cx, &b);
    b.vars
}

/// A structured name cannot also be the record holding another (`a` and `a.b`): tools
/// that show the interface as a tree cannot have both a value and members at `a`.
fn prefix_collisions(cx: &mut Ctx, b: &Builder) {
    let user = |n: &str| b.names.get(n).is_some_and(|s| *s != (0..0));
    let mut found: Vec<(String, String)> = Vec::new();
    for v in &b.vars {
        let name = v.name.as_str();
        for (i, c) in name.char_indices() {
            if c != '.' && c != '[' {
                continue;
            }
            let prefix = &name[..i];
            if b.names.contains_key(prefix) && !found.iter().any(|(p, _)| p == prefix) {
                found.push((prefix.to_string(), name.to_string()));
            }
        }
    }
    for (prefix, name) in found {
        // Point at the user's variable: the longer name if it is the user's, else the prefix.
        let (at, other) = if user(&name) {
            (name.as_str(), prefix.as_str())
        } else {
            (prefix.as_str(), name.as_str())
        };
        let span = b.names.get(at).cloned().unwrap_or(0..0);
        cx.error(
            span,
            format!("interface names collide: '{prefix}' is a variable and also the start of '{name}'"),
            format!("rename '{at}' so that it is not '{other}' nor starts with it followed by '.' (e.g. '{prefix}.value')"),
        );
    }
}

//! The FMI interface: user variables bound to slots or probes, plus the variables every
//! model gets.

use super::{Ctx, Expect};
use crate::description::{Description, Name, Quantity};
use crate::names;
use crate::units::{self, Dim};
use fmu_runtime::model::{
    Axis, Binding, Causality, CompiledModel, Element, Initial, JointKind, ParamId, Probe, VarType,
    Variability, Variable,
};
use std::collections::HashMap;
use std::ops::Range;

pub(super) struct Builder {
    pub(super) vars: Vec<Variable>,
    pub(super) names: HashMap<String, Range<usize>>,
    pub(super) bound: HashMap<ParamId, String>,
}

impl Builder {
    pub(super) fn push(&mut self, mut v: Variable) {
        v.value_reference = self.vars.len() as u32 + 1;
        if let Binding::Param(p) = v.binding {
            self.bound.insert(p, v.name.clone());
        }
        self.names.entry(v.name.clone()).or_insert(0..0);
        self.vars.push(v);
    }
}

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

/// Whether a slot may change while the FMU runs (`tunable` parameters and inputs), only
/// before initialization (`fixed` parameters), or not be exposed at all.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Exposure {
    Tunable,
    /// Why it cannot be tunable.
    Fixed(&'static str),
    /// Why it cannot be exposed.
    Hidden(String),
}

/// The rule: operating conditions and loads that change on a real machine while it runs
/// or that calibration adjusts are tunable (masses/payload, supply and tank pressures,
/// valve commands, external forces, pump speed, displacement and regulator settings
/// (LS margin, cut-off), relief settings,
/// throttle and leakage coefficients, friction coefficients, spring stiffness and
/// damping); geometry, volumes, areas, stroke, fluid and wall properties, initial
/// conditions, valve characteristics, friction model choice and solver settings are fixed.
pub(crate) fn exposure(cx: &Ctx, id: ParamId) -> Exposure {
    use Exposure::*;
    if let Some(reason) = cx.hidden.get(&id) {
        return Hidden(reason.clone());
    }
    let name = cx.params[id.index()].name.as_str();
    let (head, field) = name.split_once('.').unwrap_or((name, ""));
    const GEOMETRY: &str = "it is geometry or a component property, which is fixed for a run";
    const INITIAL: &str = "it only acts when the FMU initializes";
    if head == "solver" {
        return Fixed("solver settings set up the integrator when the FMU initializes");
    }
    if head == "oil" {
        if field == "density" {
            return Hidden(
                "the oil density only converts valve and orifice areas into flow coefficients when the FMU is built; the solver does not read it, so exposing it would change nothing".into(),
            );
        }
        return Fixed("oil properties are fixed for a run");
    }
    let kind = cx.components.get(head).map(|(k, _)| *k).unwrap_or("");
    let tunable = match kind {
        "body" if field == "q0" || field.starts_with("q0.") => return Fixed(INITIAL),
        "body" => field == "mass",
        "pressure source" => field == "pressure",
        "volume" if field == "precharge" => return Fixed(INITIAL),
        "valve" => field == "command",
        "orifice" => field == "coefficient",
        "relief valve" => matches!(field, "cracking_pressure" | "gain"),
        "check valve" => matches!(field, "cracking_pressure" | "coefficient"),
        "counterbalance valve" => matches!(field, "setting" | "pilot_ratio" | "coefficient"),
        "pump" => matches!(
            field,
            "speed" | "displacement" | "volumetric_efficiency" | "margin" | "cutoff"
        ),
        "leakage" => field == "conductance",
        "cylinder" if field == "friction.model" => {
            return Fixed(
                "the friction model chooses the friction states when the FMU initializes",
            );
        }
        "cylinder" => field.starts_with("friction."),
        "spring-damper" => matches!(field, "stiffness" | "damping"),
        "point force" => field.starts_with("force."),
        "force actuator" => field == "force",
        _ => false,
    };
    if tunable { Tunable } else { Fixed(GEOMETRY) }
}

/// Numeric fields of the description that the compiled model stores inline (geometry the
/// kinematics are built from, tables, solver tolerances), so they have no slot.
fn inline_field(cx: &Ctx, target: &str) -> Option<&'static str> {
    let (head, field) = target.split_once('.')?;
    let field = field.split('.').next().unwrap_or(field);
    if head == "model" && field == "gravity" || head == "solver" {
        return Some("it is a setting of the compiled model, not a parameter of the runtime");
    }
    let kind = cx.components.get(head).map(|(k, _)| *k)?;
    let inline = match kind {
        "body" => &[
            "com", "inertia", "parts", "joint", "origin", "axis", "axes", "rotation",
        ][..],
        "marker" => &["point", "body"][..],
        "cylinder" => &["cap", "rod", "bore", "rod_diameter"][..],
        "spring-damper" => &["a", "b"][..],
        "rope" => &["path", "drum"][..],
        "point force" => &["point", "body"][..],
        "valve" => &["spool", "edges", "range", "dead_band_centre"][..],
        "relief valve" => &["smoothing"][..],
        "volume" => &["initial_guess"][..],
        "orifice" | "check valve" | "counterbalance valve" => {
            &["area", "discharge_coefficient"][..]
        }
        _ => &[][..],
    };
    inline
        .contains(&field)
        .then_some("the runtime stores this field inline in the compiled model (geometry, tables, settings), not as a parameter")
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
        super::port_variables::base(cx, &mut b, d, port);
    }
    super::port_variables::ports(cx, &mut b, model);

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

pub(super) fn output(
    name: &str,
    description: String,
    probe: Probe,
    var_type: VarType,
    unit: Option<String>,
) -> Variable {
    Variable {
        name: name.to_string(),
        value_reference: 0,
        description,
        causality: Causality::Output,
        variability: if var_type == VarType::Real {
            Variability::Continuous
        } else {
            Variability::Discrete
        },
        initial: None,
        var_type,
        display_unit: display_unit(unit.as_deref()),
        unit,
        start: None,
        min: None,
        max: None,
        nominal: None,
        binding: Binding::Probe(probe),
    }
}

fn display_unit(unit: Option<&str>) -> Option<String> {
    unit.and_then(|u| units::display_units(u).first())
        .map(|(name, _, _)| name.to_string())
}

/// Display unit of a slot variable: shaft speeds in rpm, otherwise by unit.
pub(super) fn slot_display_unit(cx: &Ctx, id: ParamId, unit: Option<&str>) -> Option<String> {
    let name = cx.params[id.index()].name.as_str();
    let pump_speed = name.split_once('.').is_some_and(|(head, field)| {
        field == "speed" && cx.components.get(head).is_some_and(|(k, _)| *k == "pump")
    });
    if pump_speed && unit == Some("rad/s") {
        return Some("rpm".into());
    }
    display_unit(unit)
}

/// Quantities of the whole model, added to every interface in this order.
const GLOBAL_QUANTITIES: &[(&str, Probe)] = &[
    ("energy.kinetic", Probe::KineticEnergy),
    ("energy.potential", Probe::PotentialEnergy),
    ("energy.total", Probe::TotalEnergy),
    ("energy.actuator_work", Probe::ActuatorWork),
    ("energy.parameter_work", Probe::ParameterWork),
    ("energy.balance_error", Probe::EnergyBalanceError),
    ("constraints.phi_norm", Probe::ConstraintNorm),
    ("constraints.dphi_norm", Probe::ConstraintVelocityNorm),
    ("constraints.ddphi_norm", Probe::ConstraintAccelerationNorm),
    ("solver.iterations", Probe::NewtonIterations),
    ("solver.steps", Probe::StepCount),
];

struct Resolved {
    probe: Probe,
    var_type: VarType,
    unit: Option<String>,
    description: String,
}

fn real(probe: Probe, unit: &str, description: String) -> Resolved {
    Resolved {
        probe,
        var_type: VarType::Real,
        unit: Some(unit.to_string()),
        description,
    }
}

fn global_quantity(probe: &Probe) -> Resolved {
    let (unit, text) = match probe {
        Probe::KineticEnergy => (Some("J"), "Kinetic energy of the mechanism"),
        Probe::PotentialEnergy => (Some("J"), "Gravitational potential energy of the mechanism"),
        Probe::TotalEnergy => (Some("J"), "Kinetic plus potential energy"),
        Probe::ActuatorWork => (
            Some("J"),
            "Work done on the mechanism by actuators, applied forces and dampers",
        ),
        Probe::ParameterWork => (
            Some("J"),
            "Energy added at once by changes of tunable parameters (a mass, a stiffness) between steps",
        ),
        Probe::EnergyBalanceError => (
            Some("J"),
            "Total energy minus initial energy minus actuator and parameter work (0 for an exact integrator)",
        ),
        Probe::ConstraintNorm => (None, "Norm of the loop-closure constraint violation Φ"),
        Probe::ConstraintVelocityNorm => (None, "Norm of the constraint velocity violation dΦ/dt"),
        Probe::ConstraintAccelerationNorm => (
            None,
            "Norm of the constraint acceleration violation d²Φ/dt²",
        ),
        Probe::NewtonIterations => (None, "Newton iterations of the last internal step"),
        Probe::StepCount => (None, "Internal steps taken since initialization"),
        _ => (None, ""),
    };
    let integer = matches!(probe, Probe::NewtonIterations | Probe::StepCount);
    Resolved {
        probe: *probe,
        var_type: if integer {
            VarType::Integer
        } else {
            VarType::Real
        },
        unit: unit.map(str::to_string),
        description: text.to_string(),
    }
}

/// The probe of a sensor's quantity (`[[estimator.sensors]] measures`), named as an
/// interface output's.
pub(super) fn sensor_quantity(cx: &mut Ctx, q: &Name, model: &CompiledModel) -> Option<Probe> {
    resolve_quantity(cx, q, model, &HashMap::new()).map(|r| r.probe)
}

/// `<component>.<quantity>` → probe, type, unit and description.
fn resolve_quantity(
    cx: &mut Ctx,
    q: &Name,
    model: &CompiledModel,
    spool_units: &HashMap<usize, String>,
) -> Option<Resolved> {
    let text = q.get_ref().as_str();
    if let Some((name, probe)) = GLOBAL_QUANTITIES.iter().find(|(n, _)| *n == text) {
        let _ = name;
        return Some(global_quantity(probe));
    }
    let Some((head, tail)) = text.split_once('.') else {
        cx.error(
            q.span(),
            format!("'{text}' is not a quantity"),
            "write <component>.<quantity>, e.g. \"cylinder.length\" or \"pivot.q\"",
        );
        return None;
    };
    // A flexible body's own quantities (its name may also be its joint's).
    if let Some(&body) = cx.bodies.get(head)
        && let Some(f) = model
            .mechanism
            .flexible
            .iter()
            .position(|fb| fb.body == body)
        && let Some(r) = flexible_quantity(cx, q, head, tail, f, model)
    {
        return r;
    }
    let bad = |cx: &mut Ctx, kind: &str, valid: &[&str]| {
        cx.error(
            q.span(),
            format!("{kind} '{head}' has no quantity '{tail}'"),
            format!(
                "a {kind} offers: {}",
                valid
                    .iter()
                    .map(|v| format!("{head}.{v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        None
    };
    if let Some(parts) = cx.composite_joints.get(head) {
        let (part, kind) = tail.split_once('.').unwrap_or((tail, ""));
        let offers: Vec<String> = parts
            .iter()
            .flat_map(|(p, _)| ["q", "qd", "qdd"].map(|k| format!("{p}.{k}")))
            .collect();
        let Some(&(_, body)) = parts.iter().find(|(p, _)| p == part) else {
            let offers: Vec<&str> = offers.iter().map(String::as_str).collect();
            return bad(cx, "composite joint", &offers);
        };
        // A free joint's x, y, z are slides: lengths, not angles.
        let slide = matches!(
            model.mechanism.bodies[body].joint,
            JointKind::Prismatic { .. }
        );
        let text = match (kind, slide) {
            ("q", false) => "Angle",
            ("q", true) => "Position",
            ("qd", _) => "Rate",
            ("qdd", _) => "Acceleration",
            _ => {
                let offers: Vec<&str> = offers.iter().map(String::as_str).collect();
                return bad(cx, "composite joint", &offers);
            }
        };
        let (probe, unit) = match (kind, slide) {
            ("q", false) => (Probe::JointPosition(body), "rad"),
            ("qd", false) => (Probe::JointVelocity(body), "rad/s"),
            (_, false) => (Probe::JointAcceleration(body), "rad/s2"),
            ("q", true) => (Probe::JointPosition(body), "m"),
            ("qd", true) => (Probe::JointVelocity(body), "m/s"),
            (_, true) => (Probe::JointAcceleration(body), "m/s2"),
        };
        return Some(real(probe, unit, format!("{text} {part} of joint {head}")));
    }
    if let Some(&body) = cx.joints.get(head) {
        let b = &model.mechanism.bodies[body];
        let (pos, vel, acc) = match b.joint {
            JointKind::Revolute { .. } => ("rad", "rad/s", "rad/s2"),
            JointKind::Prismatic { .. } => ("m", "m/s", "m/s2"),
            JointKind::Fixed | JointKind::Node { .. } => {
                cx.error(
                    q.span(),
                    format!("joint '{head}' is fixed and has no coordinate"),
                    "pick a revolute or prismatic joint",
                );
                return None;
            }
        };
        return match tail {
            "q" => Some(real(
                Probe::JointPosition(body),
                pos,
                format!("Coordinate of joint {head}"),
            )),
            "qd" => Some(real(
                Probe::JointVelocity(body),
                vel,
                format!("Rate of joint {head}"),
            )),
            "qdd" => Some(real(
                Probe::JointAcceleration(body),
                acc,
                format!("Acceleration of joint {head}"),
            )),
            _ => bad(cx, "joint", &["q", "qd", "qdd"]),
        };
    }
    if let Some(&i) = cx.motors.get(head) {
        return match tail {
            "speed" => Some(real(
                Probe::MotorSpeed(i),
                "rad/s",
                format!("Shaft speed of motor {head}"),
            )),
            "torque" => Some(real(
                Probe::MotorTorque(i),
                "N.m",
                format!("Torque of motor {head} on its joint"),
            )),
            "flow" => Some(real(
                Probe::MotorFlow(i),
                "m3/s",
                format!("Flow of motor {head} from A to B"),
            )),
            "p_a" | "p_b" => {
                let m = &model.circuit.motors[i];
                let (node, port) = if tail == "p_a" {
                    (m.port_a, "A")
                } else {
                    (m.port_b, "B")
                };
                Some(real(
                    Probe::NodePressure(node),
                    "Pa",
                    format!("Pressure at port {port} of motor {head}"),
                ))
            }
            _ => bad(cx, "motor", &["speed", "torque", "flow", "p_a", "p_b"]),
        };
    }
    if let Some(&i) = cx.actuators.get(head) {
        return match tail {
            "length" => Some(real(
                Probe::ActuatorLength(i),
                "m",
                format!("Pin-to-pin length of actuator {head}"),
            )),
            "speed" => Some(real(
                Probe::ActuatorSpeed(i),
                "m/s",
                format!("Extension speed of actuator {head}"),
            )),
            _ => bad(cx, "force actuator", &["length", "speed"]),
        };
    }
    if let Some(&i) = cx.ropes.get(head) {
        return match tail {
            "length" => Some(real(
                Probe::RopeLength(i),
                "m",
                format!("Length of rope {head}'s path from the drum to the hook"),
            )),
            "out" => Some(real(
                Probe::RopeOut(i),
                "m",
                format!("Unstretched rope {head} paid out"),
            )),
            "tension" => Some(real(
                Probe::RopeTension(i),
                "N",
                format!("Tension of rope {head} (0 when slack)"),
            )),
            _ => bad(cx, "rope", &["length", "out", "tension"]),
        };
    }
    if let Some(&i) = cx.accumulators.get(head) {
        return match tail {
            "volume" => Some(real(
                Probe::AccumulatorVolume(i),
                "m3",
                format!("Oil held by accumulator {head}"),
            )),
            "p" => Some(real(
                Probe::NodePressure(model.circuit.accumulators[i].node),
                "Pa",
                format!("Pressure of accumulator {head}"),
            )),
            _ => bad(cx, "accumulator", &["volume", "p"]),
        };
    }
    if let Some(&i) = cx.cylinders.get(head) {
        return match tail {
            "length" => Some(real(
                Probe::CylinderLength(i),
                "m",
                format!("Pin-to-pin length of cylinder {head}"),
            )),
            "speed" => Some(real(
                Probe::CylinderSpeed(i),
                "m/s",
                format!("Extension speed of cylinder {head}"),
            )),
            "force" => Some(real(
                Probe::CylinderForce(i),
                "N",
                format!(
                    "Force of cylinder {head} on the mechanism (positive pushes the pins apart)"
                ),
            )),
            "friction" => Some(real(
                Probe::CylinderFriction(i),
                "N",
                format!("Seal friction force of cylinder {head}"),
            )),
            "p_cap" | "p_rod" => {
                let c = &model.circuit.cylinders[i];
                let (node, side) = if tail == "p_cap" {
                    (c.cap_node, "cap (piston)")
                } else {
                    (c.rod_node, "rod")
                };
                Some(real(
                    Probe::NodePressure(node),
                    "Pa",
                    format!("Pressure of the {side} side of cylinder {head}"),
                ))
            }
            _ => bad(
                cx,
                "cylinder",
                &["length", "speed", "force", "friction", "p_cap", "p_rod"],
            ),
        };
    }
    if let Some(&i) = cx.nodes.get(head) {
        return match tail {
            "p" => Some(real(
                Probe::NodePressure(i),
                "Pa",
                format!("Pressure of {head}"),
            )),
            _ => bad(cx, "hydraulic node", &["p"]),
        };
    }
    if let Some(&i) = cx.elements.get(head) {
        let flow = real(Probe::ElementFlow(i), "m3/s", String::new());
        return match (&model.circuit.elements[i], tail) {
            (Element::DirectionalValve(_), "flow") => Some(Resolved {
                description: format!("Flow of valve {head} into port A"),
                ..flow
            }),
            (Element::DirectionalValve(_), "spool") => {
                let s = cx.spools[head];
                Some(Resolved {
                    probe: Probe::SpoolPosition(s),
                    var_type: VarType::Real,
                    unit: spool_units.get(&s).cloned(),
                    description: format!("Spool position of valve {head}"),
                })
            }
            (Element::DirectionalValve(_), _) => bad(cx, "valve", &["spool", "flow"]),
            (Element::Pump(_) | Element::LoadSensingPump(_), "power") => Some(real(
                Probe::PumpPower(i),
                "W",
                format!("Hydraulic power delivered by pump {head}"),
            )),
            (Element::Pump(_) | Element::LoadSensingPump(_), "flow") => Some(Resolved {
                description: format!("Flow of pump {head}"),
                ..flow
            }),
            (Element::Pump(p), "p") => Some(real(
                Probe::NodePressure(p.outlet),
                "Pa",
                format!("Outlet pressure of pump {head}"),
            )),
            (Element::LoadSensingPump(p), "p") => Some(real(
                Probe::NodePressure(p.outlet),
                "Pa",
                format!("Outlet pressure of pump {head}"),
            )),
            (Element::LoadSensingPump(_), "displacement") => Some(Resolved {
                probe: Probe::PumpDisplacement(i),
                var_type: VarType::Real,
                unit: None,
                description: format!(
                    "Relative displacement of pump {head} (0 destroked, 1 full displacement)"
                ),
            }),
            (Element::LoadSensingPump(_), _) => {
                bad(cx, "pump", &["p", "displacement", "flow", "power"])
            }
            (Element::Pump(_), _) => bad(cx, "pump", &["p", "flow", "power"]),
            (_, "flow") => Some(Resolved {
                description: format!("Flow through {head}"),
                ..flow
            }),
            (_, _) => bad(cx, "hydraulic element", &["flow"]),
        };
    }
    if let Some(&i) = cx.markers.get(head) {
        let (kind, axis) = split_axis(tail);
        return match (kind, axis) {
            ("deflection", Some(a)) => Some(real(
                Probe::MarkerDeflection(i, a),
                "m",
                format!(
                    "Deflection of marker {head} relative to its flexible body's frame, body {} axis",
                    &tail[tail.len() - 1..]
                ),
            )),
            ("position", Some(a)) => Some(real(
                Probe::MarkerPosition(i, a),
                "m",
                format!(
                    "World {} position of marker {head}",
                    &tail[tail.len() - 1..]
                ),
            )),
            ("velocity", Some(a)) => Some(real(
                Probe::MarkerVelocity(i, a),
                "m/s",
                format!(
                    "World {} velocity of marker {head}",
                    &tail[tail.len() - 1..]
                ),
            )),
            _ => bad(
                cx,
                "marker",
                &[
                    "position.x",
                    "position.y",
                    "position.z",
                    "velocity.x",
                    "velocity.y",
                    "velocity.z",
                ],
            ),
        };
    }
    if let Some(&body) = cx.bodies.get(head) {
        let (kind, axis) = split_axis(tail);
        let a = &tail[tail.len() - 1..];
        return match (kind, axis) {
            ("angle", Some(ax)) => Some(real(
                Probe::BodyAngle(body, ax),
                "rad",
                format!(
                    "Absolute rotation of body {head} about the world {a} axis (planar angle, −π..π)"
                ),
            )),
            ("angular_velocity", Some(ax)) => Some(real(
                Probe::BodyAngularVelocity(body, ax),
                "rad/s",
                format!("World {a} angular velocity of body {head}"),
            )),
            _ => {
                let joint = &model.mechanism.bodies[body].joint_name;
                cx.error(
                    q.span(),
                    format!("'{head}' is a body: its quantities are angle.x|y|z and angular_velocity.x|y|z; joint quantities are named after the joint"),
                    format!("write \"{joint}.{tail}\" (the joint of body {head}), \"{head}.angle.z\", or add a [[markers]] entry for point quantities"),
                );
                None
            }
        };
    }
    let mut candidates: Vec<&str> = Vec::new();
    for t in [
        &cx.joints.keys().collect::<Vec<_>>(),
        &cx.composite_joints.keys().collect(),
        &cx.cylinders.keys().collect(),
        &cx.nodes.keys().collect(),
        &cx.elements.keys().collect(),
        &cx.markers.keys().collect(),
    ] {
        candidates.extend(t.iter().map(|s| s.as_str()));
    }
    let help = match names::closest(head, candidates.iter().copied()) {
        Some(c) => format!("did you mean '{c}.{tail}'?"),
        None => "quantities are <joint>.q|qd|qdd, <cylinder>.length|speed|force|friction, <node>.p, <valve>.spool, <element>.flow, <pump>.power, <marker>.position.x, energy.total, ...".into(),
    };
    cx.error(
        q.span(),
        format!("unknown component '{head}' in quantity '{text}'"),
        help,
    );
    None
}

/// `init.solve_for`: interface variable names (inputs/parameters) or slot names.
pub(super) fn solve_for_targets(
    cx: &mut Ctx,
    d: &Description,
    model: &CompiledModel,
) -> Vec<ParamId> {
    let Some(list) = d.init.as_ref().and_then(|i| i.solve_for.as_ref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for n in list {
        let text = n.get_ref();
        let by_var = model.variables.iter().find(|v| &v.name == text);
        let id = match by_var {
            Some(v) => {
                match (v.causality, v.binding) {
                    (Causality::Input | Causality::Parameter, Binding::Param(p)) => Some(p),
                    _ => {
                        cx.error(n.span(), format!("'{text}' is an output; only inputs and parameters can be solved for"), "name an input, a parameter or a parameter slot");
                        None
                    }
                }
            }
            None => match cx.slot_ids.get(text) {
                Some(&p) => Some(p),
                None => {
                    let mut c: Vec<String> = model
                        .variables
                        .iter()
                        .filter(|v| v.causality != Causality::Output)
                        .map(|v| v.name.clone())
                        .collect();
                    c.extend(cx.slot_ids.keys().cloned());
                    cx.unknown(
                        n,
                        "input, parameter or slot",
                        c.iter().map(String::as_str).collect(),
                    );
                    None
                }
            },
        };
        if let Some(id) = id {
            if out.contains(&id) {
                cx.error(
                    n.span(),
                    format!("'{text}' is listed twice"),
                    "list each unknown once",
                );
            } else {
                out.push(id);
            }
        }
    }
    out
}

/// `position.x` → (`position`, Some(X)); no or another suffix → None.
/// `mode<k>`, `mode<k>.rate` and `strain_energy` of flexible body `f`; `None` for other
/// tails (the rigid-body quantities), `Some(None)` after an error.
fn flexible_quantity(
    cx: &mut Ctx,
    q: &Name,
    head: &str,
    tail: &str,
    f: usize,
    model: &CompiledModel,
) -> Option<Option<Resolved>> {
    let modes = model.mechanism.flexible[f].modes();
    if tail == "strain_energy" {
        return Some(Some(real(
            Probe::StrainEnergy(f),
            "J",
            format!("Strain energy of flexible body {head}"),
        )));
    }
    let (mode, rate) = match tail.strip_suffix(".rate") {
        Some(m) => (m, true),
        None => (tail, false),
    };
    let k: usize = mode.strip_prefix("mode")?.parse().ok()?;
    if k == 0 || k > modes {
        cx.error(
            q.span(),
            format!("flexible body '{head}' has modes 1 to {modes}, not {k}"),
            format!("write {head}.mode1 … {head}.mode{modes}"),
        );
        return Some(None);
    }
    let (probe, what) = if rate {
        (Probe::ModalVelocity(f, k - 1), "Rate of modal coordinate")
    } else {
        (Probe::ModalCoordinate(f, k - 1), "Modal coordinate")
    };
    // m·√kg (mass-normalised modes) has no FMI unit: declared dimensionless.
    Some(Some(Resolved {
        probe,
        var_type: VarType::Real,
        unit: None,
        description: format!(
            "{what} {k} of flexible body {head} (mass-normalised mode: m·√kg{})",
            if rate { "/s" } else { "" }
        ),
    }))
}

fn split_axis(tail: &str) -> (&str, Option<Axis>) {
    let (kind, axis) = tail.split_once('.').unwrap_or((tail, ""));
    let axis = match axis {
        "x" => Some(Axis::X),
        "y" => Some(Axis::Y),
        "z" => Some(Axis::Z),
        _ => None,
    };
    (kind, axis)
}

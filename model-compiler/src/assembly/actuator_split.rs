//! `hydromech build --split actuators`: one description as two FMUs cut at its cylinders
//! and rotary motors, and the SSP system joining them — seed 002's co-simulated method (a multibody and a
//! hydraulic solver exchanging actuator force and motion), Project Chrono's crane and
//! actuator FMU pair.
//!
//! - **Mechanics** (`<stem>.mechanics.fmu`): the mechanism with a force actuator where each
//!   cylinder was, between the same eyes: input `<cylinder>.force` (positive pushes the eyes
//!   apart), outputs `<cylinder>.length` and `<cylinder>.speed`. The length does not depend
//!   on the force within a communication step (no direct feedthrough). Each rotary motor's
//!   joint gets a `joint-force` port `<motor>.joint`: input `<motor>.joint.torque`, outputs
//!   `<motor>.joint.angle` and `<motor>.joint.speed` — the joint's, not the motor shaft's,
//!   which turns `gear_ratio` times faster.
//! - **Hydraulics** (`<stem>.hydraulics.fmu`): the circuit with each cylinder between the
//!   ground and a slider whose travel is the pin distance, driven by a `joint-motion` port
//!   `<cylinder>.motion` (inputs `.q`, `.qd`, `.qdd`: distance, rate, acceleration); output
//!   `<cylinder>.force`, the cylinder's force on its eyes (friction included), and the
//!   pressures. Each motor turns a shaft on the ground driven by a `joint-motion` port
//!   `<motor>.motion` along its joint's angle; output `<motor>.torque`, the motor's torque on
//!   its joint (gear and shaft friction included).
//! - **The system** (`<model>-actuators.ssp`): length → `motion.q`, speed → `motion.qd`,
//!   force → force; joint angle → `motion.q`, joint speed → `motion.qd`, torque → torque.
//!
//! Both halves start where the whole machine's static equilibrium put it: the compiler
//! solves the whole machine once, then gives the mechanics its joint coordinates and each
//! actuator the cylinder's force (each motor's joint its torque), and the hydraulics each
//! chamber's pressure, the pin distances and the motors' joint angles; the slots the
//! equilibrium solved for (`init.solve_for`, seed 002's κ0) carry its values. A flexible
//! body's deformation the mechanics solves again at those joint coordinates and forces.
//! Each half is a description of its own, compiled and checked like any other.

use crate::assembly::system::System;
use crate::description::Description;
use crate::diagnostic::{Diagnostic, Source};
use crate::lower::{self, Lowered};
use fmu_runtime::instance::Instance;
use fmu_runtime::model::{Node, ParamId, Probe};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::{Table, Value};

/// Component names in the system and the FMU file names.
pub const MECHANICS: &str = "mechanics";
pub const HYDRAULICS: &str = "hydraulics";

/// The two halves of a machine cut at its cylinders, and their connections.
pub struct ActuatorSplit {
    pub mechanics: Lowered,
    pub hydraulics: Lowered,
    /// The cylinders cut, in the description's order.
    pub cylinders: Vec<String>,
    /// The rotary motors cut, in the description's order.
    pub motors: Vec<String>,
    /// The whole machine's name.
    pub model: String,
}

impl ActuatorSplit {
    /// `(from, to)` variable pairs: `0` the mechanics, `1` the hydraulics.
    pub fn links(&self) -> Vec<((usize, String), (usize, String))> {
        let cylinders = self.cylinders.iter().flat_map(|c| {
            [
                ((0, format!("{c}.length")), (1, format!("{c}.motion.q"))),
                ((0, format!("{c}.speed")), (1, format!("{c}.motion.qd"))),
                ((1, format!("{c}.force")), (0, format!("{c}.force"))),
            ]
        });
        let motors = self.motors.iter().flat_map(|m| {
            [
                (
                    (0, format!("{m}.joint.angle")),
                    (1, format!("{m}.motion.q")),
                ),
                (
                    (0, format!("{m}.joint.speed")),
                    (1, format!("{m}.motion.qd")),
                ),
                ((1, format!("{m}.torque")), (0, format!("{m}.joint.torque"))),
            ]
        });
        cylinders.chain(motors).collect()
    }
}

/// What the whole machine's static equilibrium gives the halves.
struct Equilibrium {
    /// Joint name → its coordinate, in tree order (a composite joint's parts are
    /// `<joint>.<part>`: `hook.yaw`, `hook.pitch`, `hook.roll`), in the description's
    /// chart (a re-charted rotation's angles, not the solver's).
    joints: Vec<(String, f64)>,
    /// Cylinder name → its force on the eyes and its pin distance.
    cylinders: Vec<(String, f64, f64)>,
    /// Volume name → pressure.
    pressures: Vec<(String, f64)>,
    /// Motor name → its joint's name, its torque on the joint and the joint's angle.
    motors: Vec<Motor>,
}

struct Motor {
    name: String,
    joint: String,
    torque: f64,
    angle: f64,
}

fn global(message: impl Into<String>, help: impl Into<String>) -> Vec<Diagnostic> {
    vec![Diagnostic::global(message, help)]
}

/// The machine of `top` cut at its cylinders.
pub fn split(top: &Source) -> Result<ActuatorSplit, Vec<Diagnostic>> {
    let d = Description::parse(&top.text).map_err(|e| vec![e])?;
    let table: Table = top
        .text
        .parse()
        .map_err(|e: toml::de::Error| global(e.to_string(), "fix the TOML syntax"))?;
    refuse_what_cannot_be_cut(&d)?;
    let whole = crate::compile_description(&d)?;
    let eq = equilibrium(&whole)?;
    let cylinders: Vec<String> = d
        .hydraulics
        .iter()
        .flat_map(|h| &h.cylinders)
        .map(|c| c.name.get_ref().clone())
        .collect();
    let motors: Vec<String> = eq.motors.iter().map(|m| m.name.clone()).collect();
    let hydraulic = hydraulic_names(&table);
    let name = d.model.name.get_ref().clone();

    let mechanics = mechanics_table(&table, &eq, &cylinders, &hydraulic, &name);
    let hydraulics = hydraulics_table(&table, &eq, &cylinders, &hydraulic, &name)?;
    let mut mechanics = compile_half(&mechanics, MECHANICS, &name)?;
    let mut hydraulics = compile_half(&hydraulics, HYDRAULICS, &name)?;
    // The slots the whole machine's equilibrium solved for (`init.solve_for`, seed 002's
    // κ0) take its values in both halves; each motor's joint its torque. No other slot is
    // carried: the halves' chamber pre-charges and joint coordinates are the equilibrium's
    // already, and a closed chamber's pre-charge slot would put its pressure back.
    let shared = || {
        whole.solve_for.iter().map(|id| {
            let slot = &whole.model.params[id.index()];
            (slot.name.clone(), slot.default)
        })
    };
    let torques = eq
        .motors
        .iter()
        .map(|m| (format!("{}.joint.torque", m.name), m.torque));
    set_slot_values(&mut mechanics, shared().chain(torques));
    set_slot_values(&mut hydraulics, shared());
    Ok(ActuatorSplit {
        mechanics,
        hydraulics,
        cylinders,
        motors,
        model: name,
    })
}

fn refuse_what_cannot_be_cut(d: &Description) -> Result<(), Vec<Diagnostic>> {
    if d.carries.is_some() {
        return Err(global(
            "--split actuators does not cut a machine with [carries] yet",
            "build it whole (one FMU), or split it at the base (--split base)",
        ));
    }
    if !d
        .hydraulics
        .as_ref()
        .is_some_and(|h| !h.cylinders.is_empty() || !h.motors.is_empty())
    {
        return Err(global(
            "--split actuators cuts a machine at its cylinders and motors, and this one has none",
            "build it whole, or add [[hydraulics.cylinders]]",
        ));
    }
    Ok(())
}

/// Compiles the whole machine and solves its static equilibrium as the FMU would.
fn equilibrium(whole: &Lowered) -> Result<Equilibrium, Vec<Diagnostic>> {
    let model = Arc::new(whole.model.clone());
    let mut inst = Instance::new(Arc::clone(&model));
    inst.initialize(0.0).map_err(|e| {
        global(
            format!("the whole machine does not initialize: {e}"),
            "fix the description so that `hydromech build` of the whole machine runs",
        )
    })?;
    let joints = model
        .mechanism
        .bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| b.joint.dof() == 1)
        .map(|(i, b)| (b.joint_name.clone(), inst.probe(Probe::JointPosition(i))))
        .collect();
    let cylinders = model
        .circuit
        .cylinders
        .iter()
        .enumerate()
        .map(|(i, c)| {
            (
                c.name.clone(),
                inst.probe(Probe::CylinderForce(i)),
                inst.probe(Probe::CylinderLength(i)),
            )
        })
        .collect();
    let pressures = model
        .circuit
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| matches!(n, Node::Volume(_)))
        .map(|(i, n)| (n.name().to_string(), inst.probe(Probe::NodePressure(i))))
        .collect();
    let motors = model
        .circuit
        .motors
        .iter()
        .enumerate()
        .map(|(i, m)| Motor {
            name: m.name.clone(),
            joint: model.mechanism.bodies[m.body].joint_name.clone(),
            torque: inst.probe(Probe::MotorTorque(i)),
            angle: inst.probe(Probe::JointPosition(m.body)),
        })
        .collect();
    Ok(Equilibrium {
        joints,
        cylinders,
        pressures,
        motors,
    })
}

/// Every name declared under `[hydraulics]` (and `oil`, whose slots are the circuit's).
fn hydraulic_names(table: &Table) -> BTreeSet<String> {
    let mut names = BTreeSet::from(["oil".to_string()]);
    if let Some(Value::Table(h)) = table.get("hydraulics") {
        for v in h.values() {
            if let Value::Array(items) = v {
                for item in items {
                    if let Some(Value::String(n)) = item.get("name") {
                        names.insert(n.clone());
                    }
                }
            }
        }
    }
    names
}

/// Which half an interface entry belongs to, from the component its quantity or target
/// names: a cylinder's length and speed are the mechanics' (its force actuator's), the rest
/// of a cylinder and every other circuit component the hydraulics'.
fn is_hydraulic(reference: &str, hydraulic: &BTreeSet<String>, cylinders: &[String]) -> bool {
    let (head, tail) = reference.split_once('.').unwrap_or((reference, ""));
    if cylinders.iter().any(|c| c == head) {
        return !matches!(tail, "length" | "speed");
    }
    hydraulic.contains(head)
}

/// Keeps the entries of `iface[key]` whose `field` names the wanted half.
fn keep_interface(
    iface: &mut Table,
    key: &str,
    field: &str,
    wanted: impl Fn(&str) -> bool,
) -> BTreeSet<String> {
    let mut kept = BTreeSet::new();
    if let Some(Value::Array(items)) = iface.get_mut(key) {
        items.retain(|item| item.get(field).and_then(Value::as_str).is_some_and(&wanted));
        for item in items.iter() {
            if let Some(Value::String(n)) = item.get("name") {
                kept.insert(n.clone());
            }
        }
    }
    kept
}

fn push(table: &mut Table, key: &str, item: Table) {
    match table.entry(key).or_insert_with(|| Value::Array(Vec::new())) {
        Value::Array(items) => items.push(Value::Table(item)),
        other => *other = Value::Array(vec![Value::Table(item)]),
    }
}

fn entry(pairs: &[(&str, Value)]) -> Table {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

/// Both halves start from the given state (the whole machine's equilibrium), not from a
/// solve of their own — except a flexible body's deformation, which the description cannot
/// give: the mechanics solves it again, at the given joint coordinates and actuator forces,
/// where it is the whole's.
fn start_as_given(t: &mut Table) {
    let flexible = matches!(t.get("bodies"), Some(Value::Array(bodies))
        if bodies.iter().any(|b| b.get("flexible").is_some()));
    // The joints stay at the given coordinates (the mechanics' would otherwise settle:
    // its actuators are inputs, no unknowns of its solve).
    let joints: Vec<Value> = match t.get("bodies") {
        Some(Value::Array(bodies)) => bodies.iter().filter_map(held_joint).collect(),
        _ => Vec::new(),
    };
    let init = t
        .entry("init")
        .or_insert_with(|| Value::Table(Table::new()));
    if let Value::Table(init) = init {
        init.insert("static_equilibrium".into(), Value::Boolean(flexible));
        init.remove("solve_for");
        init.remove("hold");
        if flexible && !joints.is_empty() {
            init.insert("hold".into(), Value::Array(joints));
        }
    }
    t.remove("report");
    t.remove("carries");
    // The sensors of an estimator read both halves' quantities: an estimator of a split
    // machine is not built (`hydromech build --estimator` builds the whole machine's).
    t.remove("estimator");
}

/// The name of a body's joint if it has coordinates (a `name`, else the body's).
fn held_joint(body: &Value) -> Option<Value> {
    let joint = body.get("joint")?;
    let kind = joint.get("type")?.as_str()?;
    let moves = ["revolute", "prismatic", "spherical", "universal", "free"].contains(&kind);
    let name = joint.get("name").or_else(|| body.get("name"))?.as_str()?;
    moves.then(|| Value::String(name.to_string()))
}

/// The half's name, and a description that says which half of what it is and what it
/// exchanges with its partner (shown by importers and on its documentation page).
fn renamed(t: &mut Table, name: &str, half: &str) {
    let role = if half == MECHANICS {
        "the mechanism, each cylinder a force actuator and each rotary motor a joint torque, \
         from the hydraulics FMU; gives it each actuator's length and speed (joint angle and \
         speed)"
    } else {
        "the circuit, each cylinder and motor driven along the length and speed (joint angle \
         and speed) from the mechanics FMU; gives it each actuator's force (torque)"
    };
    if let Some(Value::Table(model)) = t.get_mut("model") {
        let whole = model
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!(" The whole machine: {d}"))
            .unwrap_or_default();
        let text = format!(
            "The {half} of {name} split at its actuators (hydromech build --split actuators, \
             coupled by {name}-actuators.ssp): {role}.{whole}"
        );
        model.insert("name".into(), Value::String(format!("{name}-{half}")));
        model.insert("description".into(), Value::String(text));
    }
}

fn mechanics_table(
    whole: &Table,
    eq: &Equilibrium,
    cylinders: &[String],
    hydraulic: &BTreeSet<String>,
    name: &str,
) -> Table {
    let mut t = whole.clone();
    renamed(&mut t, name, MECHANICS);
    start_as_given(&mut t);
    let circuit = t.remove("hydraulics");
    // The joints where the equilibrium holds them (a composite joint's list in its parts'
    // order).
    if let Some(Value::Array(bodies)) = t.get_mut("bodies") {
        for body in bodies {
            let Some(Value::Table(joint)) = body.get("joint").cloned() else {
                continue;
            };
            let joint_name = joint
                .get("name")
                .or_else(|| body.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let parts = format!("{joint_name}.");
            let values: Vec<f64> = eq
                .joints
                .iter()
                .filter(|(n, _)| *n == joint_name || n.starts_with(&parts))
                .map(|(_, q)| *q)
                .collect();
            let initial = match (
                values.as_slice(),
                eq.joints.iter().any(|(n, _)| *n == joint_name),
            ) {
                ([], _) => continue,
                ([q], true) => Value::Float(*q),
                (qs, _) => Value::Array(qs.iter().map(|q| Value::Float(*q)).collect()),
            };
            if let Some(Value::Table(joint)) = body.get_mut("joint") {
                joint.insert("initial".into(), initial);
            }
        }
    }
    // A force actuator between each cylinder's eyes, at the cylinder's force.
    let circuit_cylinders = circuit
        .as_ref()
        .and_then(|h| h.get("cylinders"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for c in &circuit_cylinders {
        let (Some(cap), Some(rod), Some(cname)) = (c.get("cap"), c.get("rod"), c.get("name"))
        else {
            continue;
        };
        let Some((_, force, _)) = eq
            .cylinders
            .iter()
            .find(|(n, ..)| Some(n.as_str()) == cname.as_str())
        else {
            continue;
        };
        push(
            &mut t,
            "force_actuators",
            entry(&[
                ("name", cname.clone()),
                ("a", cap.clone()),
                ("b", rod.clone()),
                ("force", Value::Float(*force)),
            ]),
        );
    }
    let mut iface = match t.remove("interface") {
        Some(Value::Table(i)) => i,
        _ => Table::new(),
    };
    let mech = |r: &str| !is_hydraulic(r, hydraulic, cylinders);
    let inputs = keep_interface(&mut iface, "inputs", "target", mech);
    keep_interface(&mut iface, "parameters", "target", mech);
    let outputs = keep_interface(&mut iface, "outputs", "quantity", mech);
    keep_interface(&mut iface, "ports", "on", mech);
    for c in cylinders {
        let force = format!("{c}.force");
        if !inputs.contains(&force) {
            push(
                &mut iface,
                "inputs",
                entry(&[
                    ("name", text(&force)),
                    ("target", text(&force)),
                    ("unit", text("N")),
                    (
                        "description",
                        text(&format!(
                            "Force of cylinder {c} on its eyes (positive pushes them apart), from the hydraulics"
                        )),
                    ),
                ]),
            );
        }
        for tail in ["length", "speed"] {
            let var = format!("{c}.{tail}");
            if !outputs.contains(&var) {
                push(
                    &mut iface,
                    "outputs",
                    entry(&[("name", text(&var)), ("quantity", text(&var))]),
                );
            }
        }
    }
    for m in &eq.motors {
        let port = format!("{}.joint", m.name);
        push(
            &mut iface,
            "ports",
            entry(&[
                ("name", text(&port)),
                ("type", text("joint-force")),
                ("on", text(&m.joint)),
            ]),
        );
        push(
            &mut iface,
            "outputs",
            entry(&[
                ("name", text(&format!("{port}.angle"))),
                ("quantity", text(&format!("{}.q", m.joint))),
            ]),
        );
    }
    t.insert("interface".into(), Value::Table(iface));
    t
}

fn hydraulics_table(
    whole: &Table,
    eq: &Equilibrium,
    cylinders: &[String],
    hydraulic: &BTreeSet<String>,
    name: &str,
) -> Result<Table, Vec<Diagnostic>> {
    let mut t = whole.clone();
    renamed(&mut t, name, HYDRAULICS);
    for key in [
        "bodies",
        "markers",
        "cut_joints",
        "spring_dampers",
        "point_forces",
        "ropes",
        "force_actuators",
        "contact",
    ] {
        t.remove(key);
    }
    start_as_given(&mut t);
    // Each cylinder between the ground and a slider whose travel is its pin distance.
    for (c, _, length) in &eq.cylinders {
        let body = format!("{c}_eye");
        if hydraulic.contains(&body) {
            return Err(global(
                format!(
                    "--split actuators names the slider of cylinder '{c}' '{body}', which the circuit already uses"
                ),
                format!("rename the circuit's '{body}'"),
            ));
        }
        let stroke = format!("{c}_stroke");
        push(
            &mut t,
            "bodies",
            driven_body(&body, &stroke, "prismatic", [1.0, 0.0, 0.0], *length),
        );
    }
    // Each motor on a shaft turning on the ground along its joint's angle.
    for m in &eq.motors {
        let (body, joint) = (format!("{}_shaft", m.name), format!("{}_turn", m.name));
        for taken in [&body, &joint] {
            if hydraulic.contains(taken) {
                return Err(global(
                    format!(
                        "--split actuators names the shaft of motor '{}' '{taken}', which the circuit already uses",
                        m.name
                    ),
                    format!("rename the circuit's '{taken}'"),
                ));
            }
        }
        push(
            &mut t,
            "bodies",
            driven_body(&body, &joint, "revolute", [0.0, 0.0, 1.0], m.angle),
        );
    }
    if let Some(Value::Table(h)) = t.get_mut("hydraulics") {
        if let Some(Value::Array(motors)) = h.get_mut("motors") {
            for m in motors.iter_mut() {
                if let Value::Table(m) = m
                    && let Some(Value::String(name)) = m.get("name")
                {
                    let joint = text(&format!("{name}_turn"));
                    m.insert("joint".into(), joint);
                }
            }
        }
        if let Some(Value::Array(cyls)) = h.get_mut("cylinders") {
            for c in cyls.iter_mut() {
                let Some(cname) = c.get("name").and_then(Value::as_str).map(str::to_string) else {
                    continue;
                };
                if let Value::Table(c) = c {
                    let origin = || Value::Array(vec![Value::Float(0.0); 3]);
                    c.insert(
                        "cap".into(),
                        Value::Table(entry(&[("body", text("ground")), ("point", origin())])),
                    );
                    c.insert(
                        "rod".into(),
                        Value::Table(entry(&[
                            ("body", text(&format!("{cname}_eye"))),
                            ("point", origin()),
                        ])),
                    );
                }
            }
        }
        // Each chamber at the whole machine's equilibrium pressure.
        if let Some(Value::Array(volumes)) = h.get_mut("volumes") {
            for v in volumes.iter_mut() {
                let Some(vname) = v.get("name").and_then(Value::as_str) else {
                    continue;
                };
                if let Some((_, p)) = eq.pressures.iter().find(|(n, _)| n == vname) {
                    let p = *p;
                    if let Value::Table(v) = v {
                        v.insert("precharge".into(), Value::Float(p));
                    }
                }
            }
        }
    }
    let mut iface = match t.remove("interface") {
        Some(Value::Table(i)) => i,
        _ => Table::new(),
    };
    let hyd = |r: &str| is_hydraulic(r, hydraulic, cylinders);
    keep_interface(&mut iface, "inputs", "target", hyd);
    keep_interface(&mut iface, "parameters", "target", hyd);
    let outputs = keep_interface(&mut iface, "outputs", "quantity", hyd);
    keep_interface(&mut iface, "ports", "on", hyd);
    iface.remove("base");
    iface.remove("mount");
    for c in cylinders {
        push(
            &mut iface,
            "ports",
            entry(&[
                ("name", text(&format!("{c}.motion"))),
                ("type", text("joint-motion")),
                ("on", text(&format!("{c}_stroke"))),
            ]),
        );
        let force = format!("{c}.force");
        if !outputs.contains(&force) {
            push(
                &mut iface,
                "outputs",
                entry(&[("name", text(&force)), ("quantity", text(&force))]),
            );
        }
    }
    for m in &eq.motors {
        push(
            &mut iface,
            "ports",
            entry(&[
                ("name", text(&format!("{}.motion", m.name))),
                ("type", text("joint-motion")),
                ("on", text(&format!("{}_turn", m.name))),
            ]),
        );
        let torque = format!("{}.torque", m.name);
        if !outputs.contains(&torque) {
            push(
                &mut iface,
                "outputs",
                entry(&[("name", text(&torque)), ("quantity", text(&torque))]),
            );
        }
    }
    t.insert("interface".into(), Value::Table(iface));
    Ok(t)
}

/// A body on the ground whose one joint (`kind` along `axis`, starting at `initial`) a
/// `joint-motion` port drives: a cylinder's rod eye, a motor's shaft.
fn driven_body(body: &str, joint: &str, kind: &str, axis: [f64; 3], initial: f64) -> Table {
    let vector = |v: [f64; 3]| Value::Array(v.map(Value::Float).to_vec());
    entry(&[
        ("name", text(body)),
        ("parent", text("ground")),
        (
            "joint",
            Value::Table(entry(&[
                ("type", text(kind)),
                ("name", text(joint)),
                ("origin", vector([0.0; 3])),
                ("axis", vector(axis)),
                ("initial", Value::Float(initial)),
            ])),
        ),
        // Our choice: the drive moves it as prescribed, so its mass shows only in the
        // drive's own force output, never in the actuator's.
        ("mass", Value::Float(1.0)),
        ("com", vector([0.0; 3])),
        (
            "inertia",
            Value::Array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0].map(Value::Float).to_vec()),
        ),
    ])
}

/// Compiles one half; its errors have no place in the user's file, so they name the half.
fn compile_half(t: &Table, half: &str, model: &str) -> Result<Lowered, Vec<Diagnostic>> {
    let context = format!("{model} split at its actuators, the {half}");
    let unplaced = |ds| Diagnostic::unplaced(ds, &context);
    let text = toml::to_string(t)
        .map_err(|e| global(format!("{context}: {e}"), "report this as a hydromech bug"))?;
    let d = Description::parse(&text).map_err(|e| unplaced(vec![e]))?;
    let mut lowered = crate::compile_description(&d).map_err(unplaced)?;
    lowered.warnings = unplaced(std::mem::take(&mut lowered.warnings));
    Ok(lowered)
}

/// Gives the half's slots of these names these values (names it lacks are skipped).
fn set_slot_values(half: &mut Lowered, values: impl Iterator<Item = (String, f64)>) {
    let (ids, values): (Vec<ParamId>, Vec<f64>) = values
        .filter_map(|(name, v)| {
            let i = half
                .model
                .params
                .iter()
                .position(|slot| slot.name == name)?;
            Some((ParamId(i as u32), v))
        })
        .unzip();
    lower::apply_parameter_values(&mut half.model, &ids, &values);
    half.model.guid = lower::compute_guid(&half.model);
}

/// `hydromech build --split actuators`: writes `<stem>.mechanics.fmu`,
/// `<stem>.hydraulics.fmu` and `<model>-actuators.ssp`; returns their paths. The system's
/// step and stop time are the whole machine's default experiment's.
pub fn write_split(
    top: &Source,
    out_dir: &Path,
    platforms: &[String],
) -> Result<Vec<PathBuf>, Vec<String>> {
    let rendered = |ds: Vec<Diagnostic>| ds.iter().map(|d| top.render(d)).collect::<Vec<_>>();
    let s = split(top).map_err(rendered)?;
    let stem = top.file_stem().unwrap_or_else(|| "machine".into());
    let mechanics_fmu = crate::write_fmu(
        &s.mechanics,
        &format!("{stem}.{MECHANICS}"),
        out_dir,
        platforms,
    )
    .map_err(rendered)?;
    let hydraulics_fmu = crate::write_fmu(
        &s.hydraulics,
        &format!("{stem}.{HYDRAULICS}"),
        out_dir,
        platforms,
    )
    .map_err(rendered)?;
    let experiment = &s.mechanics.model.default_experiment;
    let links = s.links();
    let model = s.model.clone();
    let system = System::pair(
        &format!("{model}-actuators"),
        format!(
            "{model} split at its actuators: the mechanism with force actuators and joint torques, the circuit with driven cylinders and motor shafts"
        ),
        experiment.step_size,
        Some(experiment.stop_time),
        (MECHANICS, s.mechanics),
        (HYDRAULICS, s.hydraulics),
        links,
    );
    let ssp = crate::assembly::system::write(&system, out_dir, platforms)?;
    Ok(vec![mechanics_fmu, hydraulics_fmu, ssp])
}

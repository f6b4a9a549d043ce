//! Shared helper of the model tests: a shipped description (`models/*.toml`) compiled by
//! the real compiler and run in-process through the same `Instance` API the FMU wraps,
//! addressed by FMI variable names.

#![allow(dead_code)]

pub mod estimation;
pub mod hex;
pub mod plots;
pub mod pvg32;

use fmu_runtime::Instance;
use fmu_runtime::model::{Binding, CompiledModel, Variable};
use model_compiler::diagnostic::Source;
use std::path::Path;
use std::sync::Arc;

/// Every machine description in `models/`.
pub const SHIPPED_MODELS: [&str; 15] = [
    "naya-rod.toml",
    "jaiswal-fourbar.toml",
    "jaiswal-fourbar-friction.toml",
    "hydraulic-crane.toml",
    "patu-lift-boom.toml",
    "patu-crane.toml",
    "patu-pvg32.toml",
    "patu-pvg32-fitted.toml",
    "patu-flexible.toml",
    "long-boom-crane.toml",
    "excavator.toml",
    "knuckle-crane.toml",
    "truck-crane.toml",
    "ball-drop.toml",
    "grapple-log.toml",
];

/// The rendered errors (file:line:column, message, help) of compiling `text` as `file`;
/// panics when it compiles.
pub fn compile_errors(file: &str, text: String) -> String {
    let source = Source::new(file, text);
    match model_compiler::compile(&source) {
        Ok(_) => panic!("{file} compiled; errors were expected"),
        Err(d) => d
            .iter()
            .map(|d| source.render(d))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// U_ref of seed 001 Pub I (and Pub II): +10 V for 1 ≤ t < 2.5 s, −10 V for 5 ≤ t < 8 s,
/// else 0.
pub fn pub1_command(t: f64) -> f64 {
    if (1.0..2.5).contains(&t) {
        10.0
    } else if (5.0..8.0).contains(&t) {
        -10.0
    } else {
        0.0
    }
}

pub struct Machine {
    pub inst: Instance,
}

impl Machine {
    pub fn load(file: &str) -> Machine {
        Machine::from_model(compile(file))
    }

    pub fn from_model(model: CompiledModel) -> Machine {
        Machine {
            inst: Instance::new(Arc::new(model)),
        }
    }

    pub fn var(&self, name: &str) -> Variable {
        self.inst
            .model()
            .variables
            .iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("no variable {name}"))
            .clone()
    }

    pub fn get(&self, name: &str) -> f64 {
        let v = self.var(name);
        self.inst.value(&v)
    }

    pub fn set(&mut self, name: &str, value: f64) {
        match self.var(name).binding {
            Binding::Param(p) => self.inst.set_param(p, value),
            Binding::Probe(_) => panic!("{name} is not settable"),
        }
    }

    pub fn start(&self, name: &str) -> f64 {
        self.var(name).start.expect("start value")
    }

    /// The bench's generic manoeuvre: initialised, every input stepped halfway to the
    /// farther bound of its range, then `t_end` s at `h`.
    pub fn drive(&mut self, t_end: f64, h: f64) {
        let inputs: Vec<_> = self
            .inst
            .model()
            .variables
            .iter()
            .filter(|v| v.causality == fmu_runtime::model::Causality::Input)
            .cloned()
            .collect();
        self.inst.initialize(0.0).unwrap();
        for v in inputs {
            let target = model_compiler::bench::schedule::generic_target(
                v.start.unwrap_or(0.0),
                v.min,
                v.max,
            );
            self.set(&v.name, target);
        }
        let steps = (t_end / h).round() as usize;
        for k in 1..=steps {
            self.inst.advance(k as f64 * h).unwrap();
        }
    }
}

/// `models/<file>` compiled; compile errors are rendered and panic.
pub fn compile(file: &str) -> CompiledModel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let source = Source::new(&path, text);
    match model_compiler::compile(&source) {
        Ok(l) => l.model,
        Err(diags) => panic!(
            "{}",
            diags
                .iter()
                .map(|d| source.render(d))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

/// A description given as text (tests of single components), compiled; errors panic with
/// their rendering.
/// A description compiled, its variables `names` looked up, and an instance of it
/// initialized at t = 0 (for the component tests that drive the `Instance` directly).
pub fn started(file: &str, text: String, names: &[&str]) -> (Instance, Vec<Variable>) {
    let model = compile_text(file, text);
    let vars = names
        .iter()
        .map(|n| {
            model
                .variables
                .iter()
                .find(|v| v.name == *n)
                .unwrap_or_else(|| panic!("{file}: no variable {n}"))
                .clone()
        })
        .collect();
    let mut inst = Instance::new(Arc::new(model));
    inst.initialize(0.0).unwrap();
    (inst, vars)
}

/// The slot an input or parameter variable sets.
pub fn slot_of(v: &Variable) -> fmu_runtime::model::ParamId {
    match v.binding {
        Binding::Param(p) => p,
        Binding::Probe(_) => panic!("{} is not a slot", v.name),
    }
}

/// `source` compiled, with its warnings; its errors rendered on failure.
fn lowered(source: &Source) -> model_compiler::lower::Lowered {
    match model_compiler::compile(source) {
        Ok(l) => l,
        Err(d) => panic!(
            "{}",
            d.iter()
                .map(|d| source.render(d))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

/// `text` written to `path` and compiled from there (files it names are found beside it),
/// with its warnings.
pub fn compile_at(path: &Path, text: String) -> model_compiler::lower::Lowered {
    std::fs::write(path, &text).unwrap();
    lowered(&Source::new(path, text))
}

/// [`compile_at`]'s model.
pub fn compile_file(path: &Path, text: String) -> CompiledModel {
    compile_at(path, text).model
}

pub fn compile_text(name: &str, text: String) -> CompiledModel {
    lowered(&Source::new(name, text)).model
}

/// The hydromech workspace root.
pub fn workspace() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// A fresh temporary directory for one test.
pub fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hydromech-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the `hydromech` binary in the workspace: (success, stdout, stderr).
pub fn hydromech(args: &[&std::ffi::OsStr]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .current_dir(workspace())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A circuit of one supply (`supply`, an FMI input `supply.p`) and what `body` adds, with a
/// 1 ms step, started not at rest (`static_equilibrium = false`): the pressures start at the
/// volumes' `initial_guess`.
pub fn supplied_circuit(name: &str, supply: &str, body: &str) -> String {
    format!(
        r#"[model]
name = "{name}"
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[hydraulics.oil]
density = "850 kg/m3"
bulk_modulus = "1500 MPa"
[[hydraulics.pressure_sources]]
name = "supply"
pressure = "{supply}"
[[interface.inputs]]
name = "supply.p"
target = "supply.pressure"
{body}"#
    )
}

/// A 1 L volume filled from the supply through a check valve (and guarded by a second one
/// back to the supply, cracking at 100 bar), starting at 10 bar: not at rest, where a volume
/// behind a shut check valve could hold any pressure above the supply's less the cracking
/// drop (issue 14, item 4).
pub fn check_valve_circuit() -> String {
    supplied_circuit(
        "check-valve-test",
        "50 bar",
        r#"[[hydraulics.volumes]]
name = "held"
volume = "1 L"
initial_guess = "10 bar"
[[hydraulics.check_valves]]
name = "check"
from = "supply"
to = "held"
cracking_pressure = "2 bar"
full_open_pressure = "5 bar"
coefficient = 1e-7
# Back to the supply above 100 bar (shut throughout the tests: the volume stays below it).
[[hydraulics.check_valves]]
name = "overpressure"
from = "held"
to = "supply"
cracking_pressure = "100 bar"
full_open_pressure = "110 bar"
area = "10 mm2"
discharge_coefficient = 0.7
[[interface.outputs]]
name = "held.p"
quantity = "held.p"
[[interface.outputs]]
name = "check.flow"
quantity = "check.flow"
"#,
    )
}

/// A line with a 2 L accumulator (precharge 50 bar, n = 1.4), fed from the supply through
/// an orifice, starting at 55 bar.
pub fn accumulator_circuit() -> String {
    supplied_circuit(
        "accumulator-test",
        "55 bar",
        r#"[[hydraulics.volumes]]
name = "line"
volume = "0.1 L"
initial_guess = "55 bar"
[[hydraulics.orifices]]
name = "feed"
from = "supply"
to = "line"
coefficient = 2e-6
[[hydraulics.accumulators]]
name = "acc"
node = "line"
volume = "2 L"
precharge = "50 bar"
polytropic_exponent = 1.4
[[interface.outputs]]
name = "acc.p"
quantity = "acc.p"
[[interface.outputs]]
name = "acc.volume"
quantity = "acc.volume"
[[interface.outputs]]
name = "feed.flow"
quantity = "feed.flow"
"#,
    )
}

/// A 500 kg slide on a vertical prismatic joint `lift` with end stops at 0 and 200 mm
/// (1e8 N/m, 2e5 N·s/m), started at `initial` (not at rest) under `gravity` along y.
pub fn end_stop_slide(initial: &str, gravity: f64) -> String {
    format!(
        r#"[model]
name = "end-stop-test"
gravity = [0, {gravity}, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "slide"
parent = "ground"
joint = {{ type = "prismatic", name = "lift", axis = [0, 1, 0], initial = "{initial}", limits = ["0 mm", "200 mm"], limit_stiffness = "1e8 N/m", limit_damping = "2e5 N s/m" }}
mass = 500
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[[interface.outputs]]
name = "lift.q"
quantity = "lift.q"
"#
    )
}

/// A slide of `mass` on a vertical prismatic joint on a cylinder (bore 63, rod 40 mm); the
/// cap side (`cap_side`) is held by the counterbalance valve `cbv` (setting 100 bar, 3:1)
/// towards `line_a`; the rod side is `line_b`, the pilot. Supply 200 bar, tank 1 bar. The
/// return edges are ten times the meter-in edges, as in a counterbalance circuit: the valve's
/// spring chamber sits at its valve port, so back pressure there would add to the setting.
pub fn counterbalance_lift(mass: f64) -> String {
    format!(
        r#"[model]
name = "counterbalance-lift"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = true
[[bodies]]
name = "carriage"
parent = "ground"
joint = {{ type = "prismatic", name = "lift", origin = [0, 0, 0], axis = [0, 1, 0], initial = 0 }}
mass = {mass}
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[hydraulics.oil]
density = "850 kg/m3"
bulk_modulus = "1500 MPa"
[[hydraulics.pressure_sources]]
name = "supply"
pressure = "200 bar"
[[hydraulics.pressure_sources]]
name = "tank"
pressure = "1 bar"
[[hydraulics.volumes]]
name = "cap_side"
volume = "0.3 L"
[[hydraulics.volumes]]
name = "line_a"
volume = "0.3 L"
[[hydraulics.volumes]]
name = "line_b"
volume = "0.3 L"
[[hydraulics.valves]]
name = "valve"
P = "supply"
T = "tank"
A = "line_a"
B = "line_b"
spool = {{ range = [-1, 1], time_constant = "20 ms", command = 0 }}
edges.PA = {{ coefficient = [[-1, 0], [0.1, 0], [1, 8.8e-8]] }}
edges.PB = {{ coefficient = [[-1, 8.8e-8], [-0.1, 0], [1, 0]] }}
edges.AT = {{ coefficient = [[-1, 1e-6], [-0.1, 1e-8], [0, 1e-8], [0.1, 0], [1, 0]] }}
edges.BT = {{ coefficient = [[-1, 0], [-0.1, 0], [0, 1e-8], [0.1, 1e-8], [1, 1e-6]] }}
# The pilot through a damping orifice into a small pilot chamber, as counterbalance valves
# are built: without it the valve and the load's oil spring hunt.
[[hydraulics.volumes]]
name = "pilot"
volume = "10 mL"
[[hydraulics.orifices]]
name = "pilot_damping"
from = "line_b"
to = "pilot"
coefficient = 1e-10                  # ≈ 0.3 mm
[[hydraulics.counterbalance_valves]]
name = "cbv"
load = "cap_side"
valve = "line_a"
pilot = "pilot"
setting = "100 bar"
pilot_ratio = 3                      # 3:1, the ratio catalogues give for loads prone to oscillate
opening_range = "50 bar"

coefficient = 3e-7
[[hydraulics.cylinders]]
name = "lift_cyl"
cap = {{ body = "ground", point = [0, -1.0, 0] }}
rod = {{ body = "carriage", point = [0, 0, 0] }}
bore = "63 mm"
rod_diameter = "40 mm"
stroke = "0.8 m"
retracted_length = "0.5 m"
cap_volume = "cap_side"
rod_volume = "line_b"
friction = {{ model = "viscous", coefficient = "2000 N s/m" }}
[[interface.inputs]]
name = "valve.command"
target = "valve.command"
[[interface.outputs]]
name = "height"
quantity = "lift.q"
[[interface.outputs]]
name = "speed"
quantity = "lift.qd"
[[interface.outputs]]
name = "p_cap"
quantity = "cap_side.p"
[[interface.outputs]]
name = "p_b"
quantity = "line_b.p"
[[interface.outputs]]
name = "cbv.flow"
quantity = "cbv.flow"
"#
    )
}

/// A vertical slide of `mass` kg lifted by a 63/40 mm cylinder fed by LS section
/// `valve_<name>`; the section's A line is the cap side.
fn ls_section(name: &str, mass: f64, x: f64, pa: &str) -> String {
    format!(
        r#"[[bodies]]
name = "{name}"
parent = "ground"
joint = {{ type = "prismatic", name = "{name}_lift", origin = [{x}, 0, 0], axis = [0, 1, 0], initial = 0 }}
mass = {mass}
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[[hydraulics.volumes]]
name = "{name}_cap"
volume = "0.3 L"
[[hydraulics.volumes]]
name = "{name}_rod"
volume = "0.3 L"
[[hydraulics.valves]]
name = "valve_{name}"
P = "pump_line"
T = "tank"
A = "{name}_cap"
B = "{name}_rod"
load_sense = "ls"
spool = {{ range = [-1, 1], time_constant = "20 ms", command = 0 }}
edges.PA = {pa}
edges.PB = {{ coefficient = [[-1, 8.8e-8], [-0.1, 0], [1, 0]] }}
edges.AT = {{ coefficient = [[-1, 1e-6], [-0.1, 0], [1, 0]] }}
edges.BT = {{ coefficient = [[-1, 0], [0.1, 0], [1, 1e-6]] }}
[[hydraulics.cylinders]]
name = "{name}_cyl"
cap = {{ body = "ground", point = [{x}, -1.0, 0] }}
rod = {{ body = "{name}", point = [0, 0, 0] }}
bore = "63 mm"
rod_diameter = "40 mm"
stroke = "0.8 m"
retracted_length = "0.5 m"
cap_volume = "{name}_cap"
rod_volume = "{name}_rod"
friction = {{ model = "viscous", coefficient = "2000 N s/m" }}
[[interface.inputs]]
name = "valve_{name}.command"
target = "valve_{name}.command"
[[interface.outputs]]
name = "{name}.p_cap"
quantity = "{name}_cyl.p_cap"
[[interface.outputs]]
name = "{name}.p_rod"
quantity = "{name}_cyl.p_rod"
[[interface.outputs]]
name = "{name}.speed"
quantity = "{name}_lift.qd"
"#
    )
}

/// Two sections (2 t and 1 t) on a 28 cm³/rev LS pump at 1500 rpm, margin 20 bar, cut-off
/// 250 bar; the LS line (50 mL) bleeds to tank through a 0.5 L/min-class orifice.
pub fn load_sensing_machine() -> String {
    load_sensing_machine_with(
        "250 bar",
        "{ coefficient = [[-1, 0], [0.1, 0], [1, 8.8e-8]] }",
    )
}

/// [`load_sensing_machine`] with another pump cut-off and P→A edge of both sections (e.g.
/// a compensated edge: a pre-compensated section).
pub fn load_sensing_machine_with(cutoff: &str, pa: &str) -> String {
    format!(
        r#"[model]
name = "ls-two-sections"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
[init]
static_equilibrium = true
[hydraulics.oil]
density = "850 kg/m3"
bulk_modulus = "1500 MPa"
[[hydraulics.pressure_sources]]
name = "tank"
pressure = "1 bar"
[[hydraulics.volumes]]
name = "pump_line"
volume = "0.5 L"
[[hydraulics.volumes]]
name = "ls"
volume = "50 mL"
[[hydraulics.orifices]]
name = "ls_bleed"
from = "ls"
to = "tank"
coefficient = 3.4e-9
[[hydraulics.load_sensing_pumps]]
name = "pump"
inlet = "tank"
outlet = "pump_line"
load_sense = "ls"
displacement = "28 cm3/rev"
speed = "1500 rpm"
margin = "20 bar"
cutoff = "{cutoff}"
regulator_band = "1 bar"
time_constant = "40 ms"
[[interface.outputs]]
name = "pump.p"
quantity = "pump.p"
[[interface.outputs]]
name = "pump.displacement"
quantity = "pump.displacement"
[[interface.outputs]]
name = "pump.power"
quantity = "pump.power"
[[interface.outputs]]
name = "ls.p"
quantity = "ls.p"
[[interface.outputs]]
name = "iterations"
quantity = "solver.iterations"
{}{}"#,
        ls_section("heavy", 2000.0, 0.0, pa),
        ls_section("light", 1000.0, 1.0, pa)
    )
}

/// A 500 kg hook on a vertical slide hung by a rope (EA 10 MN, 5000 N·s/m) from a drum of
/// radius 0.2 m over a sheave at (2, 3); the drum held by a motor (100 cm³/rev, gear 10)
/// with blocked lines (tests/rope.rs).
pub fn winch(length: f64, tangent: &str) -> String {
    format!(
        r#"[model]
name = "winch"
gravity = [0, -9.81, 0]
[solver]
step = "1 ms"
tangent = "{tangent}"
[init]
static_equilibrium = true
[hydraulics.oil]
density = "850 kg/m3"
bulk_modulus = "1500 MPa"
[[hydraulics.pressure_sources]]
name = "tank"
pressure = "1 bar"
[[hydraulics.volumes]]
name = "line_a"
volume = "0.5 L"
[[hydraulics.volumes]]
name = "line_b"
volume = "0.5 L"
[[bodies]]
name = "drum"
parent = "ground"
joint = {{ type = "revolute", name = "drum_angle", origin = [0, 0, 0], axis = [0, 0, 1], initial = 0 }}
mass = 50
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[[bodies]]
name = "hook"
parent = "ground"
joint = {{ type = "prismatic", name = "hook_y", origin = [2, 0, 0], axis = [0, 1, 0], initial = 0 }}
mass = 500
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[[hydraulics.motors]]
name = "winch_motor"
joint = "drum_angle"
A = "line_a"
B = "line_b"
displacement = "100 cm3/rev"
gear_ratio = 10
friction = "2 N m s/rad"
[[ropes]]
name = "hoist"
drum = "drum"
drum_radius = "0.2 m"
path = [{{ body = "ground", point = [0, 0.2, 0] }}, {{ body = "ground", point = [2, 3, 0] }}, {{ body = "hook", point = [0, 0, 0] }}]
length = "{length} m"
axial_stiffness = "10000000 N"
damping = "5000 N s/m"
[[interface.outputs]]
name = "hook.y"
quantity = "hook_y.q"
[[interface.outputs]]
name = "hook.a"
quantity = "hook_y.qdd"
[[interface.outputs]]
name = "drum.angle"
quantity = "drum_angle.q"
[[interface.outputs]]
name = "hoist.length"
quantity = "hoist.length"
[[interface.outputs]]
name = "hoist.tension"
quantity = "hoist.tension"
[[interface.outputs]]
name = "p_a"
quantity = "winch_motor.p_a"
[[interface.outputs]]
name = "p_b"
quantity = "winch_motor.p_b"
[[interface.outputs]]
name = "energy_error"
quantity = "energy.balance_error"
[[interface.outputs]]
name = "iterations"
quantity = "solver.iterations"
"#
    )
}

/// A boom on a cylinder (issue 22): a light steel box, pinned at the root, held at 1 m by a cylinder
/// with a closed cap chamber (the rod side on a 10 bar line), 2 t at its 4 m tip, a force
/// input `push` on the tip. Rigid (`parts`) or flexible; starts in static equilibrium.
pub fn flexible_lift(flexible: bool) -> String {
    let boom = if flexible {
        r#"[bodies.flexible]
beam = { length = "4 m", section = { shape = "box", width = "200 mm", height = "300 mm", wall = "8 mm" }, young = "210 GPa", poisson = 0.3, density = "785 kg/m3" }
damping = 0.0
nodes = [{ name = "eye", at = "1 m" }, { name = "tip", at = "4 m" }]"#
            .to_string()
    } else {
        // The beam's 785 kg/m³ × (200 × 300 − 184 × 284 mm²) × 4 m.
        let m = 785.0 * (0.2 * 0.3 - 0.184 * 0.284) * 4.0;
        format!("parts = [{{ shape = \"rod\", mass = {m}, from = [0, 0, 0], to = [4, 0, 0] }}]")
    };
    format!(
        r#"[model]
name = "flexible-lift"
gravity = [0, 0, -9.81]
[solver]
step = "1 ms"
[hydraulics.oil]
density = "850 kg/m3"
bulk_modulus = "1500 MPa"
[[hydraulics.volumes]]
name = "cap_side"
volume = "0.5 L"
initial_guess = "130 bar"
[[hydraulics.pressure_sources]]
name = "rod_side"
pressure = "10 bar"
[[bodies]]
name = "boom"
parent = "ground"
joint = {{ type = "revolute", name = "pivot", axis = [0, -1, 0] }}
{boom}
[[bodies]]
name = "load"
parent = "boom"
joint = {{ type = "fixed", origin = [4, 0, 0] }}
mass = 2000
com = [0, 0, 0]
inertia = [1, 1, 1, 0, 0, 0]
[[hydraulics.cylinders]]
name = "lift"
cap = {{ body = "ground", point = [1, 0, -1] }}
rod = {{ body = "boom", point = [1, 0, 0] }}
cap_area = "50 cm2"
rod_area = "25 cm2"
stroke = "0.6 m"
retracted_length = "0.7 m"
cap_volume = "cap_side"
rod_volume = "rod_side"
[[point_forces]]
name = "push"
body = "load"
point = [0, 0, 0]
[[markers]]
name = "tip"
body = "load"
point = [0, 0, 0]
[[interface.inputs]]
name = "push"
target = "push.force.z"
[[interface.outputs]]
name = "tip.z"
quantity = "tip.position.z"
"#
    )
}

/// Two equal 0.2 m cubes of 1 kg: `low` on the ground, `top` on it turned by `twist`
/// about the vertical; `contact` adds keys to `[contact]` (contact between bodies).
pub fn cube_stack(twist_deg: f64, contact: &str) -> String {
    let shape = r#"{ shape = "box", size = [0.2, 0.2, 0.2] }"#;
    cube_stack_of(twist_deg, contact, [shape, shape])
}

/// [`cube_stack`] with the lower and upper cubes' collision shapes given.
pub fn cube_stack_of(twist_deg: f64, contact: &str, shapes: [&str; 2]) -> String {
    let cube = |name: &str, z: f64, yaw: f64, shape: &str| {
        format!(
            r#"[[bodies]]
name = "{name}"
parent = "ground"
joint = {{ type = "free", name = "{name}_free", origin = [0, 0, 0], initial = [0, 0, {z}, "{yaw} deg", 0, 0] }}
mass = "1 kg"
com = [0, 0, 0]
inertia = [0.006667, 0.006667, 0.006667, 0, 0, 0]
collision = [{shape}]
[[markers]]
name = "{name}_center"
body = "{name}"
point = [0, 0, 0]
[[interface.outputs]]
name = "{name}_z"
quantity = "{name}_center.position.z"
"#
        )
    };
    format!(
        r#"[model]
name = "stack"
gravity = [0, 0, -9.81]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[contact]
stiffness = "1e6 N/m"
restitution = 0.2
groups = [{{ bodies = ["low", "top"] }}]
{contact}
{}{}
[[interface.outputs]]
name = "points"
quantity = "contact.low.top.points"
"#,
        cube("low", 0.1, 0.0, shapes[0]),
        cube("top", 0.3, twist_deg, shapes[1])
    )
}

/// A 1 kg, 0.2 m cube (its shapes `collision`, each of 1e6 N/m) on a plane tilted by
/// `slope_deg` about y, resting flat on it at its corners' static penetration; `contact`
/// adds keys to `[contact]`. Outputs x, z, vx, vz of its centre, and its contact's points,
/// friction and normal force.
pub fn cube_on_incline(slope_deg: f64, collision: &str, contact: &str) -> String {
    let (s, c) = slope_deg.to_radians().sin_cos();
    // The cube's centre 0.1 m above the plane, less the corners' static penetration.
    let depth = 1.0 * 9.81 * c / (4.0 * 1e6);
    let d = 0.1 - depth;
    format!(
        r#"[model]
name = "block-incline"
gravity = [0, 0, -9.81]
[solver]
step = "1 ms"
[init]
static_equilibrium = false
[[bodies]]
name = "block"
parent = "ground"
joint = {{ type = "free", name = "slide", origin = [0, 0, 0], initial = [{x}, 0, {z}, 0, "{pitch} deg", 0] }}
mass = "1 kg"
com = [0, 0, 0]
inertia = [0.006667, 0.006667, 0.006667, 0, 0, 0]
collision = [{collision}]
[contact]
ground = {{ shape = "plane", point = [0, 0, 0], normal = [{nx}, 0, {nz}] }}
{contact}
[[markers]]
name = "center"
body = "block"
point = [0, 0, 0]
[[interface.outputs]]
name = "x"
quantity = "center.position.x"
[[interface.outputs]]
name = "z"
quantity = "center.position.z"
[[interface.outputs]]
name = "vx"
quantity = "center.velocity.x"
[[interface.outputs]]
name = "vz"
quantity = "center.velocity.z"
[[interface.outputs]]
name = "points"
quantity = "contact.block.points"
[[interface.outputs]]
name = "friction"
quantity = "contact.block.friction_force"
[[interface.outputs]]
name = "normal"
quantity = "contact.block.normal_force"
"#,
        x = -s * d,
        z = c * d,
        pitch = -slope_deg,
        nx = -s,
        nz = c,
    )
}

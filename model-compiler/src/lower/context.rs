//! The lowering context: what every lowering step reads and writes — quantities checked
//! against the dimension a field expects, names declared and resolved, parameter slots,
//! the diagnostics collected so far.

use crate::description::{Name, PointDesc, QValue, Quantity, Vec3};
use crate::diagnostic::Diagnostic;
use crate::names;
use crate::units::{self, Dim};
use fmu_runtime::model::{ParamId, ParamSlot, PointRef};
use std::collections::HashMap;
use std::ops::Range;

use super::flexible::FlexibleLowered;

/// What a numeric field accepts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expect {
    /// A quantity of this dimension (plain numbers are SI).
    Dim(Dim),
    /// A valve command signal: a plain number, or volts / amperes.
    Signal,
    /// Only a plain number in the SI unit described (for units such as m³/(s·√Pa) that the
    /// unit syntax cannot write).
    Plain(&'static str),
    /// An integer choice among this many options (0-based), e.g. a friction model; exposed
    /// as an FMI Integer.
    Choice(usize),
}

impl Expect {
    /// The FMI unit of a variable bound to a slot of this kind (`None` = no unit).
    pub fn unit_name(self) -> Option<String> {
        match self {
            Expect::Dim(d) if d != Dim::NONE => Some(d.si_name()),
            _ => None,
        }
    }

    /// Human-readable unit for documentation.
    pub fn describe_unit(self) -> String {
        match self {
            Expect::Dim(d) if d == Dim::NONE => "1".into(),
            Expect::Dim(d) => d.si_name(),
            Expect::Signal => "signal".into(),
            Expect::Plain(u) => u.into(),
            Expect::Choice(n) => format!("choice 0…{}", n - 1),
        }
    }

    pub(crate) fn accepts(self, dim: Dim) -> bool {
        match self {
            Expect::Dim(d) => d == dim,
            Expect::Signal => [Dim::NONE, Dim::VOLTAGE, Dim::CURRENT].contains(&dim),
            Expect::Plain(_) | Expect::Choice(_) => false,
        }
    }
}

/// Compile-time information about a parameter slot (parallel to `CompiledModel::params`).
#[derive(Clone, Debug, PartialEq)]
pub struct SlotInfo {
    pub expect: Expect,
    pub description: String,
}

/// Compile-time facts about a body of the lowered mechanism (parallel to its bodies).
#[derive(Clone, Debug)]
pub(crate) struct BodyInfo {
    /// Where errors about the body point.
    pub span: Range<usize>,
    /// A massless link generated for a spherical or universal joint.
    pub generated: bool,
    #[allow(dead_code)]
    pub massless: bool,
}

/// The mount's name (its FMI prefix) when `[interface.mount]` gives none.
pub const MOUNT_DEFAULT_NAME: &str = "mount";

/// Names reserved for the global quantities and sections.
const RESERVED: &[&str] = &[
    "ground",
    "oil",
    "solver",
    "energy",
    "constraints",
    "init",
    "model",
    "interface",
];

/// Lowering context: diagnostics, the parameter vector and the name tables.
pub(crate) struct Ctx {
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    /// Slots that cannot be exposed in the interface, with the reason.
    pub hidden: HashMap<ParamId, String>,
    /// Per lowered body, in mechanism order.
    pub body_info: Vec<BodyInfo>,
    /// Spherical and universal joints: name → (part, body index) of each coordinate.
    pub composite_joints: HashMap<String, Vec<(String, usize)>>,
    /// The z-y-x rotations of spherical and free joints.
    pub rotations: Vec<fmu_runtime::model::ZyxRotation>,
    pub params: Vec<ParamSlot>,
    pub slots: Vec<SlotInfo>,
    pub slot_ids: HashMap<String, ParamId>,
    /// Component namespace (bodies, markers, nodes, hydraulic elements, cylinders, forces).
    pub components: HashMap<String, (&'static str, Range<usize>)>,
    /// Joint namespace (tree joints and cut joints).
    pub joint_names: HashMap<String, (&'static str, Range<usize>)>,
    pub bodies: HashMap<String, usize>,
    /// Tree joint name → body index.
    pub joints: HashMap<String, usize>,
    pub markers: HashMap<String, usize>,
    pub nodes: HashMap<String, usize>,
    /// Hydraulic element name → element index.
    pub elements: HashMap<String, usize>,
    /// Valve name → spool index.
    pub spools: HashMap<String, usize>,
    pub cylinders: HashMap<String, usize>,
    pub motors: HashMap<String, usize>,
    pub accumulators: HashMap<String, usize>,
    /// Rope name → index among the ropes.
    pub ropes: HashMap<String, usize>,
    /// Force actuator name → its index among the force elements.
    pub actuators: HashMap<String, usize>,
    /// Unit of each spool's signal when its range was written with one (`V`, `A`).
    pub spool_units: Vec<Option<String>>,
    /// Units of signal slots whose values were written with a unit (`V`, `A`).
    pub signal_units: HashMap<ParamId, String>,
    /// Default oil density, for area → flow-coefficient conversions.
    pub density: f64,
    /// The flexible bodies lowered so far.
    pub flexible: Vec<FlexibleLowered>,
    /// The description's folder, for the files it names (FE matrices); `None` for a
    /// description given as text.
    pub base_dir: Option<std::path::PathBuf>,
}

impl Ctx {
    pub(crate) fn new() -> Ctx {
        Ctx {
            errors: Vec::new(),
            warnings: Vec::new(),
            hidden: HashMap::new(),
            body_info: Vec::new(),
            composite_joints: HashMap::new(),
            rotations: Vec::new(),
            params: Vec::new(),
            slots: Vec::new(),
            slot_ids: HashMap::new(),
            components: HashMap::new(),
            joint_names: HashMap::new(),
            bodies: HashMap::new(),
            joints: HashMap::new(),
            markers: HashMap::new(),
            nodes: HashMap::new(),
            elements: HashMap::new(),
            spools: HashMap::new(),
            cylinders: HashMap::new(),
            motors: HashMap::new(),
            accumulators: HashMap::new(),
            ropes: HashMap::new(),
            actuators: HashMap::new(),
            spool_units: Vec::new(),
            signal_units: HashMap::new(),
            density: 850.0,
            flexible: Vec::new(),
            base_dir: None,
        }
    }

    pub fn error(
        &mut self,
        span: Range<usize>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.errors.push(Diagnostic::at(span, message, help));
    }

    /// The SI value of a quantity, checked against what the field expects.
    /// On error the problem is recorded and NaN is returned, which makes every later
    /// range check on the value pass silently (no cascades of follow-up errors).
    pub fn value(&mut self, q: &Quantity, expect: Expect) -> f64 {
        let span = q.span();
        match q.get_ref() {
            QValue::Number(v) => {
                if v.is_finite() {
                    *v
                } else {
                    self.error(
                        span,
                        format!("{v} is not a finite number"),
                        "give a finite value",
                    );
                    f64::NAN
                }
            }
            QValue::Text(text) => {
                let parsed = units::split_number(text)
                    .and_then(|(_, unit_text)| Ok((units::parse_quantity(text)?, unit_text)));
                match parsed {
                    Err(e) => {
                        self.error(span, e.0, unit_help(expect));
                        f64::NAN
                    }
                    Ok((_, "")) => {
                        // Always a slip: "0.6" meant either 0.6 (SI) or "0.6 mm".
                        let number = text.trim();
                        self.error(
                            span,
                            format!("\"{number}\" is a string without a unit"),
                            format!(
                                "write the number bare for SI units ({number}, in {}) or add its unit inside the quotes",
                                expect.describe_unit()
                            ),
                        );
                        f64::NAN
                    }
                    Ok(((si, unit), unit_text)) => {
                        if expect.accepts(unit.dim) {
                            si
                        } else {
                            let expected = match expect {
                                Expect::Dim(d) => d.describe(),
                                Expect::Signal => "a command signal (plain number, V or A)".into(),
                                Expect::Plain(u) => format!("a plain number in {u}"),
                                Expect::Choice(n) => format!("a whole number from 0 to {}", n - 1),
                            };
                            self.error(
                                span,
                                format!("expected {expected}, got '{unit_text}'"),
                                unit_help(expect),
                            );
                            f64::NAN
                        }
                    }
                }
            }
        }
    }

    pub fn value_or(&mut self, q: Option<&Quantity>, expect: Expect, default: f64) -> f64 {
        q.map_or(default, |q| self.value(q, expect))
    }

    pub fn vec3(&mut self, v: &Vec3, expect: Expect) -> [f64; 3] {
        let [a, b, c] = v.get_ref();
        [
            self.value(a, expect),
            self.value(b, expect),
            self.value(c, expect),
        ]
    }

    pub fn vec3_or(&mut self, v: Option<&Vec3>, expect: Expect, default: [f64; 3]) -> [f64; 3] {
        v.map_or(default, |v| self.vec3(v, expect))
    }

    /// A unit vector from `v`; a zero vector is an error.
    pub fn direction(&mut self, v: &Vec3, what: &str) -> [f64; 3] {
        let a = self.vec3(v, Expect::Dim(Dim::NONE));
        let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        if n.is_nan() {
            [0.0, 0.0, 1.0]
        } else if n > 0.0 && n.is_finite() {
            [a[0] / n, a[1] / n, a[2] / n]
        } else {
            self.error(
                v.span(),
                format!("{what} must not be the zero vector"),
                "give a direction such as [0, 0, 1]",
            );
            [0.0, 0.0, 1.0]
        }
    }

    pub fn require_positive(&mut self, q: &Quantity, v: f64, what: &str) {
        if v <= 0.0 {
            self.error(
                q.span(),
                format!("{what} must be positive, got {v}"),
                format!("give {what} a value greater than zero"),
            );
        }
    }

    pub fn require_non_negative(&mut self, q: &Quantity, v: f64, what: &str) {
        if v < 0.0 {
            self.error(
                q.span(),
                format!("{what} must not be negative, got {v}"),
                format!("give {what} a value of zero or more"),
            );
        }
    }

    /// Adds the slot `<component>.<field>`, described as "<what> of <component>".
    pub fn field_slot(
        &mut self,
        component: &str,
        field: &str,
        default: f64,
        expect: Expect,
        what: &str,
    ) -> ParamId {
        self.slot(
            format!("{component}.{field}"),
            default,
            expect,
            format!("{what} of {component}"),
        )
    }

    /// Adds a parameter slot.
    pub fn slot(
        &mut self,
        name: String,
        default: f64,
        expect: Expect,
        description: impl Into<String>,
    ) -> ParamId {
        if let Some(&id) = self.slot_ids.get(&name) {
            // Only reachable through an internal naming clash; names are checked first.
            self.errors.push(Diagnostic::global(
                format!("two fields map to the parameter slot '{name}'"),
                "rename one of the components",
            ));
            return id;
        }
        let id = ParamId(self.params.len() as u32);
        self.params.push(ParamSlot {
            name: name.clone(),
            default,
        });
        self.slots.push(SlotInfo {
            expect,
            description: description.into(),
        });
        self.slot_ids.insert(name, id);
        id
    }

    /// Registers a component name (checks syntax, reserved words and duplicates).
    pub fn declare(&mut self, name: &Name, kind: &'static str) -> bool {
        self.declare_in(name, kind, false)
    }

    pub fn declare_joint(&mut self, name: &Name, kind: &'static str) -> bool {
        self.declare_in(name, kind, true)
    }

    fn declare_in(&mut self, name: &Name, kind: &'static str, joint: bool) -> bool {
        let text = name.get_ref();
        if !names::is_identifier(text) {
            self.error(
                name.span(),
                format!("'{text}' is not a valid {kind} name"),
                "use letters, digits and '_' (not starting with a digit), e.g. \"boom_cylinder\"",
            );
            return false;
        }
        if RESERVED.contains(&text.as_str()) {
            self.error(
                name.span(),
                format!("'{text}' is a reserved name"),
                format!("choose another {kind} name"),
            );
            return false;
        }
        let table = if joint {
            &mut self.joint_names
        } else {
            &mut self.components
        };
        if let Some((other_kind, _)) = table.get(text) {
            let other_kind = *other_kind;
            let help = if kind == "body" && other_kind == "body" {
                "give this body a unique name; a body has exactly one parent, so to attach a body to a second one, close the loop with a [[cut_joints]] entry instead of declaring the body twice".to_string()
            } else {
                format!("give this {kind} a unique name")
            };
            self.error(
                name.span(),
                format!("duplicate name '{text}': already used by a {other_kind}"),
                help,
            );
            return false;
        }
        table.insert(text.clone(), (kind, name.span()));
        true
    }

    /// Reports an unknown reference with a suggestion.
    pub fn unknown(&mut self, name: &Name, kind: &str, candidates: Vec<&str>) {
        let text = name.get_ref();
        let message = format!("unknown {kind} '{text}'");
        let help = match names::closest(text, candidates.iter().copied()) {
            Some(c) => format!("did you mean '{c}'?"),
            None if candidates.is_empty() => format!("no {kind} is defined; define it first"),
            None => {
                let mut sorted = candidates.clone();
                sorted.sort();
                let list: Vec<String> = sorted.iter().take(12).map(|c| format!("'{c}'")).collect();
                format!("defined names of this kind: {}", list.join(", "))
            }
        };
        self.error(name.span(), message, help);
    }

    /// A body reference: `None` for ground (and, after an error, also `None`).
    pub fn body_ref(&mut self, name: &Name) -> Option<usize> {
        let text = name.get_ref();
        if text == "ground" {
            return None;
        }
        match self.bodies.get(text) {
            Some(&i) => Some(i),
            None => {
                let mut c: Vec<&str> = self.bodies.keys().map(String::as_str).collect();
                c.push("ground");
                let c: Vec<String> = c.into_iter().map(str::to_owned).collect();
                self.unknown(name, "body", c.iter().map(String::as_str).collect());
                None
            }
        }
    }

    /// A point on a body (or on ground), in the body frame.
    pub fn point_ref(&mut self, p: &PointDesc) -> PointRef {
        PointRef {
            body: self.body_ref(&p.body),
            point: self.vec3(&p.point, Expect::Dim(Dim::LENGTH)),
        }
    }

    /// A hydraulic node reference (0 after an error).
    pub fn node_ref(&mut self, name: &Name) -> usize {
        match self.nodes.get(name.get_ref()) {
            Some(&i) => i,
            None => {
                let c: Vec<String> = self.nodes.keys().cloned().collect();
                self.unknown(
                    name,
                    "hydraulic node",
                    c.iter().map(String::as_str).collect(),
                );
                0
            }
        }
    }
}

fn unit_help(expect: Expect) -> String {
    match expect {
        Expect::Dim(d) if d == Dim::NONE => "give a plain number, e.g. 0.5".into(),
        Expect::Dim(d) => format!(
            "give {} as a number in {} (SI) or as a string with a unit, e.g. \"{}\"",
            d.describe(),
            d.si_name(),
            example(d)
        ),
        Expect::Signal => "give a plain number or a string in V or A, e.g. \"5 V\"".into(),
        Expect::Plain(u) => format!("give a plain number in {u}"),
        Expect::Choice(n) => format!("give a whole number from 0 to {}", n - 1),
    }
}

fn example(d: Dim) -> String {
    let e = match d {
        _ if d == Dim::PRESSURE => "200 bar",
        _ if d == Dim::LENGTH => "80 mm",
        _ if d == Dim::TIME => "10 ms",
        _ if d == Dim::ANGLE => "30 deg",
        _ if d == Dim::MASS => "450 kg",
        _ if d == Dim::VOLUME => "1.5 L",
        _ if d == Dim::VOLUME_FLOW => "40 L/min",
        _ if d == Dim::AREA => "2.8e-5 m2",
        _ if d == Dim::DENSITY => "850 kg/m3",
        _ if d == Dim::DAMPING => "1e4 N s/m",
        _ if d == Dim::STIFFNESS => "1e7 N/m",
        _ if d == Dim::ANGULAR_VELOCITY => "1500 rpm",
        _ if d == Dim::FORCE => "10 kN",
        _ => return format!("1 {}", d.si_name()),
    };
    e.into()
}

/// The SI value of a quantity of dimension `dim` outside a description (a system file's
/// step), or the located error.
pub fn quantity_value(q: &Quantity, dim: Dim) -> Result<f64, Diagnostic> {
    let mut cx = Ctx::new();
    let v = cx.value(q, Expect::Dim(dim));
    match cx.errors.pop() {
        Some(d) => Err(d),
        None => Ok(v),
    }
}

//! `documentation/index.html`: a self-contained description of the FMU, generated from
//! the compiled model (no external style sheets or scripts).

use crate::lower::{Analysis, Lowered, SlotInfo, Visual};
use crate::model_description::real;
use fmu_runtime::model::{
    Binding, BulkModulus, Causality, CompiledModel, CutKind, Element, ForceElement, Friction,
    JointKind, Node, ParamId, Variability,
};
use std::fmt::Write;

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn vec3(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", g(v[0]), g(v[1]), g(v[2]))
}

/// Compact number for tables: fixed notation for ordinary magnitudes, otherwise the
/// shortest exponent form (`7.6e6`).
fn g(x: f64) -> String {
    if x == 0.0 || (1e-3..1e6).contains(&x.abs()) {
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" { "0".into() } else { s.to_string() }
    } else {
        format!("{x:e}")
    }
}

struct Doc<'a> {
    m: &'a CompiledModel,
    slots: &'a [SlotInfo],
    out: String,
}

impl Doc<'_> {
    fn p(&self, id: ParamId) -> String {
        let v = self.m.params[id.index()].default;
        let unit = self
            .slots
            .get(id.index())
            .map(|s| s.expect.describe_unit())
            .unwrap_or_default();
        match unit.as_str() {
            "1" | "signal" => g(v),
            // Engineering units for reading (the slot table lists the SI values).
            "Pa" => format!("{} bar", g(v * 1e-5)),
            "rad" => format!("{} deg", g(v.to_degrees())),
            "m3/s" => format!("{} L/min", g(v * 6e4)),
            _ => format!("{} {}", g(v), escape(&unit)),
        }
    }

    fn body_name(&self, b: Option<usize>) -> String {
        b.map_or("ground".to_string(), |i| {
            self.m.mechanism.bodies[i].name.clone()
        })
    }

    fn node_name(&self, n: usize) -> String {
        self.m
            .circuit
            .nodes
            .get(n)
            .map_or("?".to_string(), |n| n.name().to_string())
    }

    fn h2(&mut self, title: &str) {
        let _ = writeln!(self.out, "<h2>{}</h2>", escape(title));
    }

    fn table(&mut self, header: &[&str], rows: Vec<Vec<String>>) {
        self.out.push_str("<table>\n<tr>");
        for h in header {
            let _ = write!(self.out, "<th>{}</th>", escape(h));
        }
        self.out.push_str("</tr>\n");
        for row in rows {
            self.out.push_str("<tr>");
            for cell in row {
                let _ = write!(self.out, "<td>{cell}</td>");
            }
            self.out.push_str("</tr>\n");
        }
        self.out.push_str("</table>\n");
    }
}

/// Renders the page. Cell contents are escaped where they come from the description.
pub fn render(model: &CompiledModel, slots: &[SlotInfo]) -> String {
    render_with(model, slots, &[], None, &[], crate::Flavour::default())
}

/// The page of a lowered description: with the degrees of freedom and the bodies'
/// visual geometry.
pub fn render_lowered(l: &Lowered) -> String {
    render_lowered_for(l, crate::Flavour::default())
}

/// [`render_lowered`] for the FMU of an FMI version and interface (the page names them).
pub fn render_lowered_for(l: &Lowered, flavour: crate::Flavour) -> String {
    render_with(
        &l.model,
        &l.slots,
        &l.visuals,
        Some(&l.analysis),
        &l.flexible,
        flavour,
    )
}

fn render_with(
    model: &CompiledModel,
    slots: &[SlotInfo],
    visuals: &[Visual],
    analysis: Option<&Analysis>,
    flexible: &[crate::lower::flexible::FlexibleLowered],
    flavour: crate::Flavour,
) -> String {
    let version = flavour.version;
    let mut d = Doc {
        m: model,
        slots,
        out: String::new(),
    };
    let m = model;
    let md = &m.metadata;
    let title = escape(&m.name);
    let _ = write!(
        d.out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n<style>\n\
body {{ font-family: sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; color: #222; }}\n\
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; }}\n\
th, td {{ border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }}\n\
th {{ background: #eee; }} code {{ background: #f4f4f4; }}\n\
</style>\n</head>\n<body>\n<h1>{title}</h1>\n"
    );
    if !md.description.is_empty() {
        let _ = writeln!(d.out, "<p>{}</p>", escape(&md.description));
    }
    let mut meta = vec![
        vec![
            "Model identifier".into(),
            format!("<code>{}</code>", escape(&m.model_identifier)),
        ],
        vec![
            match version {
                crate::FmiVersion::Fmi2 => "GUID".into(),
                crate::FmiVersion::Fmi3 => "Instantiation token".into(),
            },
            format!("<code>{}</code>", escape(&m.guid)),
        ],
    ];
    for (k, v) in [
        ("Author", &md.author),
        ("Version", &md.version),
        ("License", &md.license),
        ("Copyright", &md.copyright),
    ] {
        if !v.is_empty() {
            meta.push(vec![k.into(), escape(v)]);
        }
    }
    meta.push(vec![
        "Generated by".into(),
        escape(&format!("hydromech {}", env!("CARGO_PKG_VERSION"))),
    ]);
    meta.push(vec!["FMI".into(), flavour.label()]);
    d.table(&["", ""], meta);

    // The machine.
    d.h2("Machine");
    let _ = writeln!(
        d.out,
        "<p>{} bodies with {} joint coordinates, {} cut joints ({} constraint equations); {} hydraulic nodes ({} control volumes), {} flow elements, {} cylinders, {} rotary motors. Gravity {} m/s².</p>",
        m.mechanism.bodies.len(),
        m.mechanism.coordinates(),
        m.mechanism.cut_joints.len(),
        m.mechanism.constraint_equations(),
        m.circuit.nodes.len(),
        m.circuit.volumes(),
        m.circuit.elements.len(),
        m.circuit.cylinders.len(),
        m.circuit.motors.len(),
        vec3(m.gravity)
    );
    if let Some(a) = analysis {
        let _ = writeln!(
            d.out,
            "<p>Degrees of freedom: {} ({} coordinates − {} independent loop-closure equations{}).</p>",
            a.dof,
            a.coordinates,
            a.rank,
            if a.redundant > 0 {
                format!("; {} redundant equations", a.redundant)
            } else {
                String::new()
            }
        );
    }
    if !m.mechanism.bodies.is_empty() {
        d.h2("Bodies");
        let rows = m
            .mechanism
            .bodies
            .iter()
            .map(|b| {
                let joint = match b.joint {
                    JointKind::Revolute { axis } => format!(
                        "revolute <code>{}</code>, axis {}",
                        escape(&b.joint_name),
                        vec3(axis)
                    ),
                    JointKind::Prismatic { axis } => format!(
                        "prismatic <code>{}</code>, axis {}",
                        escape(&b.joint_name),
                        vec3(axis)
                    ),
                    JointKind::Fixed => format!("fixed <code>{}</code>", escape(&b.joint_name)),
                    JointKind::Node { .. } => format!(
                        "interface node <code>{}</code> (moves with the modes)",
                        escape(&b.joint_name)
                    ),
                };
                vec![
                    escape(&b.name),
                    escape(&d.body_name(b.parent)),
                    joint,
                    vec3(b.joint_frame.origin),
                    d.p(b.q0),
                    d.p(b.mass),
                    vec3(b.com),
                    format!(
                        "[{}]",
                        b.inertia
                            .iter()
                            .map(|x| g(*x))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ]
            })
            .collect();
        d.table(
            &[
                "body",
                "parent",
                "joint",
                "joint origin [m]",
                "initial q",
                "mass",
                "CoM [m]",
                "inertia about CoM [kg·m²]",
            ],
            rows,
        );
    }
    for f in flexible {
        flexible_section(&mut d, f);
    }
    if !m.mechanism.cut_joints.is_empty() {
        d.h2("Cut joints");
        let rows = m
            .mechanism
            .cut_joints
            .iter()
            .map(|c| {
                let kind = match c.kind {
                    CutKind::Spherical => "spherical".to_string(),
                    CutKind::Revolute { axis_a, axis_b } => {
                        format!("revolute, axes {} / {}", vec3(axis_a), vec3(axis_b))
                    }
                    CutKind::Prismatic { axis_b } => format!("prismatic along {}", vec3(axis_b)),
                };
                vec![
                    escape(&c.name),
                    kind,
                    format!("{} {}", escape(&d.body_name(c.a.body)), vec3(c.a.point)),
                    format!("{} {}", escape(&d.body_name(c.b.body)), vec3(c.b.point)),
                ]
            })
            .collect();
        d.table(&["name", "type", "point a", "point b"], rows);
    }
    if !m.mechanism.markers.is_empty() {
        d.h2("Markers");
        let rows = m
            .mechanism
            .markers
            .iter()
            .map(|mk| {
                vec![
                    escape(&mk.name),
                    escape(&d.body_name(mk.point.body)),
                    vec3(mk.point.point),
                ]
            })
            .collect();
        d.table(&["name", "body", "point [m]"], rows);
    }
    if !visuals.is_empty() {
        d.h2("Visual geometry");
        let _ = writeln!(
            d.out,
            "<p>For illustration only; the dynamics use the mass properties above.</p>"
        );
        let rows = visuals
            .iter()
            .map(|v| {
                let color = v
                    .color
                    .as_ref()
                    .map(|c| {
                        format!(
                            "<span style=\"display:inline-block;width:1em;height:1em;background:{}\"></span> {}",
                            escape(c),
                            escape(c)
                        )
                    })
                    .unwrap_or_default();
                vec![escape(&v.body), escape(&v.shape.describe()), color]
            })
            .collect();
        d.table(&["body", "shape (body coordinates)", "colour"], rows);
    }
    if !m.mechanism.forces.is_empty() {
        d.h2("Force elements");
        let rows = m
            .mechanism
            .forces
            .iter()
            .map(|f| match f {
                ForceElement::SpringDamper(s) => vec![
                    escape(&s.name),
                    "spring-damper".into(),
                    format!(
                        "k = {}, c = {}, free length {}",
                        d.p(s.stiffness),
                        d.p(s.damping),
                        d.p(s.free_length)
                    ),
                ],
                ForceElement::PointForce(p) => vec![
                    escape(&p.name),
                    "point force".into(),
                    format!(
                        "on {} at {}, F = [{}, {}, {}]",
                        escape(&d.body_name(p.point.body)),
                        vec3(p.point.point),
                        d.p(p.force[0]),
                        d.p(p.force[1]),
                        d.p(p.force[2])
                    ),
                ],
                ForceElement::ForceActuator(a) => vec![
                    escape(&a.name),
                    "force actuator".into(),
                    format!(
                        "between {} and {}, force {} (an input slot; positive pushes apart)",
                        escape(&d.body_name(a.a.body)),
                        escape(&d.body_name(a.b.body)),
                        d.p(a.force)
                    ),
                ],
                ForceElement::JointLimit(j) => vec![
                    escape(&m.mechanism.bodies[j.body].joint_name),
                    "end stops".into(),
                    format!(
                        "[{}, {}], k = {}, c = {}",
                        d.p(j.lower),
                        d.p(j.upper),
                        d.p(j.stiffness),
                        d.p(j.damping)
                    ),
                ],
                ForceElement::Rope(r) => vec![
                    escape(&r.name),
                    "rope (winch)".into(),
                    format!(
                        "drum {} (radius {}), over {} point(s) to the hook on {}; unstretched {} out at drum angle 0, EA = {}, c = {}; slack carries nothing",
                        escape(&m.mechanism.bodies[r.drum].name),
                        d.p(r.drum_radius),
                        r.path.len() - 2,
                        escape(&d.body_name(r.path[r.path.len() - 1].body)),
                        d.p(r.length),
                        d.p(r.axial_stiffness),
                        d.p(r.damping)
                    ),
                ],
            })
            .collect();
        d.table(&["name", "kind", "data"], rows);
    }

    if !m.circuit.nodes.is_empty() {
        d.h2("Hydraulics");
        let oil = match m.circuit.oil.bulk_modulus {
            BulkModulus::Constant(b) => format!("bulk modulus {}", d.p(b)),
            BulkModulus::PressureDependent { a, b } => {
                format!(
                    "bulk modulus β(p) = (1 + a p + b p²)/(a + 2 b p) with a = {}, b = {}",
                    d.p(a),
                    d.p(b)
                )
            }
        };
        let _ = writeln!(
            d.out,
            "<p>Oil: density {}, {}.</p>",
            d.p(m.circuit.oil.density),
            oil
        );
        let rows = m
            .circuit
            .nodes
            .iter()
            .map(|n| match n {
                Node::Pressure { name, pressure } => {
                    vec![escape(name), "fixed pressure".into(), d.p(*pressure)]
                }
                Node::Volume(v) => {
                    let mut s = format!("hose volume {}", d.p(v.hose_volume));
                    if let Some(b) = v.hose_bulk_modulus {
                        let _ = write!(s, ", wall bulk modulus {}", d.p(b));
                    }
                    if let Some(p) = v.precharge {
                        let _ = write!(s, ", pre-charge {}", d.p(p));
                    }
                    vec![escape(&v.name), "control volume".into(), s]
                }
            })
            .collect();
        d.table(&["node", "kind", "data"], rows);
    }
    if !m.circuit.elements.is_empty() {
        d.h2("Valves and flow elements");
        let rows = m
            .circuit
            .elements
            .iter()
            .map(|e| match e {
                Element::DirectionalValve(v) => {
                    let s = &m.circuit.spools[v.spool];
                    vec![
                        escape(&v.name),
                        format!(
                            "4/3 directional valve{}{}",
                            if v.neutral.is_some() { ", open centre (P→T)" } else { "" },
                            if v.load_sense.is_some() { ", load-sensing section" } else { "" }
                        ),
                        format!(
                            "P = {}, T = {}, A = {}, B = {}; spool range [{}, {}], τ = {}, command {}, laminar below {}{}",
                            escape(&d.node_name(v.port_p)),
                            escape(&d.node_name(v.port_t)),
                            escape(&d.node_name(v.port_a)),
                            escape(&d.node_name(v.port_b)),
                            g(s.min),
                            g(s.max),
                            d.p(s.time_constant),
                            d.p(s.command),
                            d.p(v.laminar_pressure),
                            v.load_sense.as_ref().map_or(String::new(), |ls| format!(
                                "; LS line {} through a shuttle, K = {}",
                                escape(&d.node_name(ls.node)),
                                d.p(ls.coefficient)
                            ))
                        ),
                    ]
                }
                Element::Orifice(o) => vec![
                    escape(&o.name),
                    "orifice".into(),
                    format!("{} → {}, K = {}", escape(&d.node_name(o.from)), escape(&d.node_name(o.to)), d.p(o.coefficient)),
                ],
                Element::ReliefValve(r) => vec![
                    escape(&r.name),
                    "relief valve".into(),
                    format!("{} → {}, cracking {}, gain {}", escape(&d.node_name(r.from)), escape(&d.node_name(r.to)), d.p(r.cracking_pressure), d.p(r.gain)),
                ],
                Element::CheckValve(c) => vec![
                    escape(&c.name),
                    "check valve".into(),
                    format!("{} → {}, cracking {}, full open {}, K = {}", escape(&d.node_name(c.from)), escape(&d.node_name(c.to)), d.p(c.cracking_pressure), d.p(c.full_open_pressure), d.p(c.coefficient)),
                ],
                Element::CounterbalanceValve(c) => vec![
                    escape(&c.name),
                    "counterbalance valve".into(),
                    format!("{} → {}, pilot {}, setting {}, pilot ratio {}, K = {}", escape(&d.node_name(c.load)), escape(&d.node_name(c.valve)), escape(&d.node_name(c.pilot)), d.p(c.setting), d.p(c.pilot_ratio), d.p(c.coefficient)),
                ],
                Element::Pump(p) => vec![
                    escape(&p.name),
                    "fixed-displacement pump".into(),
                    format!("{} → {}, {} per rev at {}", escape(&d.node_name(p.inlet)), escape(&d.node_name(p.outlet)), d.p(p.displacement), d.p(p.speed)),
                ],
                Element::LoadSensingPump(p) => vec![
                    escape(&p.name),
                    "load-sensing variable pump".into(),
                    format!(
                        "{} → {}, LS line {}; up to {} per rev at {}, margin {}, cut-off {}, droop {}, τ = {}, leakage {}",
                        escape(&d.node_name(p.inlet)),
                        escape(&d.node_name(p.outlet)),
                        escape(&d.node_name(p.load_sense)),
                        d.p(p.displacement),
                        d.p(p.speed),
                        d.p(p.margin),
                        d.p(p.cutoff),
                        d.p(p.band),
                        d.p(p.time_constant),
                        d.p(p.leakage)
                    ),
                ],
                Element::Leakage(l) => vec![
                    escape(&l.name),
                    "leakage".into(),
                    format!("{} → {}, G = {}", escape(&d.node_name(l.from)), escape(&d.node_name(l.to)), d.p(l.conductance)),
                ],
            })
            .collect();
        d.table(&["name", "kind", "data"], rows);
    }
    if !m.circuit.cylinders.is_empty() {
        d.h2("Cylinders");
        let rows = m
            .circuit
            .cylinders
            .iter()
            .map(|c| {
                let kind = match c.friction {
                    Friction::Viscous { .. } => "viscous",
                    Friction::BengisuAkay { .. } => "Bengisu–Akay",
                    Friction::BrownMcPhee { .. } => "Brown–McPhee",
                    Friction::LuGre { .. } => "LuGre",
                    Friction::ModifiedLuGre { .. } => "modified LuGre",
                    Friction::Selectable { .. } => "selectable (Pub II models, see the parameter)",
                };
                let values: Vec<String> = c
                    .friction
                    .params()
                    .into_iter()
                    .map(|id| {
                        let slot = &m.params[id.index()].name;
                        let key = slot.rsplit('.').next().unwrap_or(slot);
                        format!("{} {}", escape(key), d.p(id))
                    })
                    .collect();
                let friction = format!("{kind}: {}", values.join(", "));
                vec![
                    escape(&c.name),
                    format!(
                        "cap on {} {}, rod on {} {}",
                        escape(&d.body_name(c.cap_point.body)),
                        vec3(c.cap_point.point),
                        escape(&d.body_name(c.rod_point.body)),
                        vec3(c.rod_point.point)
                    ),
                    format!("cap {}, rod side {}", d.p(c.cap_area), d.p(c.rod_area)),
                    format!(
                        "stroke {}, retracted {}",
                        d.p(c.stroke),
                        d.p(c.retracted_length)
                    ),
                    format!(
                        "cap → {}, rod → {}",
                        escape(&d.node_name(c.cap_node)),
                        escape(&d.node_name(c.rod_node))
                    ),
                    friction,
                ]
            })
            .collect();
        d.table(
            &[
                "name",
                "attachment",
                "areas",
                "lengths",
                "chambers",
                "friction",
            ],
            rows,
        );
    }

    if !m.circuit.accumulators.is_empty() {
        d.h2("Accumulators");
        let rows = m
            .circuit
            .accumulators
            .iter()
            .map(|a| {
                vec![
                    escape(&a.name),
                    escape(&d.node_name(a.node)),
                    format!(
                        "gas {} at precharge {}, p·V^n with n = {}",
                        d.p(a.volume),
                        d.p(a.precharge),
                        d.p(a.exponent)
                    ),
                ]
            })
            .collect();
        d.table(&["name", "on", "data"], rows);
    }
    if !m.circuit.motors.is_empty() {
        d.h2("Rotary motors");
        let rows = m
            .circuit
            .motors
            .iter()
            .map(|mo| {
                let joint = m
                    .mechanism
                    .bodies
                    .get(mo.body)
                    .map_or("?", |b| b.joint_name.as_str());
                vec![
                    escape(&mo.name),
                    format!("joint {}", escape(joint)),
                    format!(
                        "A → {}, B → {}",
                        escape(&d.node_name(mo.port_a)),
                        escape(&d.node_name(mo.port_b))
                    ),
                    format!(
                        "displacement {} per rev, gear {}, leakage {}, friction {}",
                        d.p(mo.displacement),
                        d.p(mo.gear_ratio),
                        d.p(mo.leakage),
                        d.p(mo.friction)
                    ),
                ]
            })
            .collect();
        d.table(&["name", "drives", "ports", "data"], rows);
    }

    d.h2("Interface");
    let rows = m
        .variables
        .iter()
        .map(|v| {
            let causality = match v.causality {
                Causality::Parameter => "parameter",
                Causality::Input => "input",
                Causality::Output => "output",
                Causality::Local => "local",
            };
            let variability = match v.variability {
                Variability::Constant => "constant",
                Variability::Fixed => "fixed",
                Variability::Tunable => "tunable",
                Variability::Discrete => "discrete",
                Variability::Continuous => "continuous",
            };
            let bound = match v.binding {
                Binding::Param(p) => {
                    format!(" (slot <code>{}</code>)", escape(&m.params[p.index()].name))
                }
                Binding::Probe(_) => String::new(),
            };
            vec![
                format!("<code>{}</code>", escape(&v.name)),
                v.value_reference.to_string(),
                causality.into(),
                variability.into(),
                escape(v.unit.as_deref().unwrap_or("")),
                v.start.map(real).unwrap_or_default(),
                format!("{}{}", escape(&v.description), bound),
            ]
        })
        .collect();
    d.table(
        &[
            "name",
            "value reference",
            "causality",
            "variability",
            "unit",
            "start",
            "description",
        ],
        rows,
    );

    d.h2("Solver");
    let s = &m.solver;
    let mut rows = vec![
        vec![
            "formulation".into(),
            match s.formulation {
                fmu_runtime::model::Formulation::AugmentedLagrangian => "index-3 augmented Lagrangian with projections, implicit trapezoidal rule, monolithic Newton loop",
                fmu_runtime::model::Formulation::DoubleStep => "double-step semi-recursive (coordinate partitioning: independent coordinates integrated, dependent ones from the position problem), implicit trapezoidal rule, monolithic Newton loop",
            }
            .into(),
        ],
        vec!["internal step".into(), d.p(s.step)],
        vec![
            "penalty α".into(),
            match s.penalty {
                Some(p) => d.p(p),
                None => format!("scaled with the step: penalty_ratio · m_ref · 4/h², penalty_ratio = {}", g(s.penalty_ratio)),
            },
        ],
        vec!["tolerance on positions".into(), g(s.tol_position)],
        vec!["tolerance on pressures".into(), format!("{} Pa", g(s.tol_pressure))],
        vec!["tolerance on other states".into(), g(s.tol_state)],
        vec!["Newton iteration cap".into(), s.max_iterations.to_string()],
        vec!["step halvings on failure".into(), s.max_step_halvings.to_string()],
        vec!["start from static equilibrium".into(), m.init.static_equilibrium.to_string()],
    ];
    let e = &m.default_experiment;
    rows.push(vec![
        "default experiment".into(),
        format!(
            "{} s to {} s, communication step {} s",
            g(e.start_time),
            g(e.stop_time),
            g(e.step_size)
        ),
    ]);
    d.table(&["setting", "value"], rows);

    d.h2("All parameter slots");
    d.out.push_str("<p>Every numeric field of the description is a slot; those listed in the interface can be set through FMI.</p>\n");
    let rows = m
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            vec![
                format!("<code>{}</code>", escape(&p.name)),
                real(p.default),
                escape(
                    &slots
                        .get(i)
                        .map(|s| s.expect.describe_unit())
                        .unwrap_or_default(),
                ),
                escape(
                    &slots
                        .get(i)
                        .map(|s| s.description.clone())
                        .unwrap_or_default(),
                ),
            ]
        })
        .collect();
    d.table(&["slot", "default (SI)", "unit", "description"], rows);
    d.out.push_str("</body>\n</html>\n");
    d.out
}

/// A flexible body: its reduction, interface nodes and, per mode, the frequency clamped at
/// its joint and free–free, the share of mass it carries and its damping.
fn flexible_section(d: &mut Doc, f: &crate::lower::flexible::FlexibleLowered) {
    let r = &f.reduction;
    let fb = &r.flexible;
    d.h2(&format!("Flexible body {}", f.name));
    let _ = writeln!(
        d.out,
        "<p>Floating frame of reference: {}</p>",
        escape(&f.summary(g))
    );
    let rows = (0..fb.modes())
        .map(|k| {
            let share = r.mass_shares[k];
            vec![
                format!("{}", k + 1),
                format!("{:.3}", r.frequencies[k]),
                r.free_frequencies
                    .get(k)
                    .map_or("–".into(), |v| format!("{v:.3}")),
                format!("{:.1}", 100.0 * share[0]),
                format!("{:.1}", 100.0 * share[1]),
                format!("{:.1}", 100.0 * share[2]),
                format!("{:.4}", fb.damping_ratio(k)),
            ]
        })
        .collect();
    d.table(
        &[
            "mode",
            "clamped at the joint [Hz]",
            "free–free [Hz]",
            "mass share x [%]",
            "y [%]",
            "z [%]",
            "damping ratio",
        ],
        rows,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(
            escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn compact_numbers() {
        assert_eq!(g(0.0), "0");
        assert_eq!(g(450.0), "450");
        assert_eq!(g(0.5), "0.5");
        assert_eq!(g(1e10), "1e10");
        assert_eq!(g(7.6e6), "7.6e6");
        assert_eq!(g(-0.0000001), "-1e-7");
    }
}

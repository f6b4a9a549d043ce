//! Multi-FMU systems: a description with a `[system]` table names machine descriptions and
//! connects their ports; `hydromech build` writes one SSP 1.0 archive `<name>.ssp`
//! (`SystemStructure.ssd`, the FMUs in `resources/`) that SSP tools (ecos, OMSimulator,
//! libcosim via its SSP loader) simulate as it is.
//!
//! ```toml
//! [system]
//! name = "carrier-boom-split"
//! step = "1 ms"               # the master's communication step
//! stop_time = "3 s"
//! [[system.components]]
//! name = "carrier"
//! model = "carrier.toml"      # relative to this file
//! [[system.components]]
//! name = "boom"
//! model = "boom.toml"
//! [[system.connections]]
//! from = "carrier.deck"       # a mount ...
//! to = "boom.base"            # ... to a base port: motion one way, wrench back
//! ```
//!
//! A connection joins two ports (a mount and a base port; a flow port and a pressure port,
//! the flow's sign turned by an SSP linear transformation) or an output to an input
//! (`component.variable`). SSD rules followed (SSP 1.0 schemas; ecos reads the prefixes
//! literally): the `ssd:`/`ssc:` prefixes, every connector typed `ssc:Real` with its unit,
//! every unit defined in `ssd:Units`, the fixed step as the OSP `FixedStepAlgorithm`
//! annotation of `ssd:DefaultExperiment`.

use crate::description::{Name, Quantity};
use crate::diagnostic::{Diagnostic, Source, from_toml_error};
use crate::emit::archive::{self, Entry};
use crate::emit::documentation::escape;
use crate::lower::Lowered;
use crate::units::{self, Dim};
use fmu_runtime::model::{Axis, Binding, Causality, CompiledModel, PortKind, Probe, VarType};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SystemFile {
    system: SystemDesc,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SystemDesc {
    name: Name,
    description: Option<String>,
    /// Communication step of the master.
    step: Quantity,
    stop_time: Option<Quantity>,
    #[serde(default)]
    components: Vec<ComponentDesc>,
    #[serde(default)]
    connections: Vec<ConnectionDesc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ComponentDesc {
    name: Name,
    /// A machine description, relative to the system file.
    model: Name,
    /// Values of the component's FMI parameters (SI numbers or quantities with units),
    /// written to `resources/<name>.ssv` and bound to the component.
    #[serde(default)]
    parameters: BTreeMap<String, Quantity>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConnectionDesc {
    from: Name,
    to: Name,
}

/// Whether a description text is a system (has a top-level `[system]` table).
pub fn is_system(text: &str) -> bool {
    text.parse::<toml::Table>()
        .is_ok_and(|t| t.contains_key("system"))
}

struct Component {
    name: String,
    /// Compiled once; its FMU is written from this.
    lowered: Lowered,
    /// Parameter values for its `.ssv`.
    parameters: Vec<ParameterValue>,
}

impl Component {
    fn model(&self) -> &CompiledModel {
        &self.lowered.model
    }
}

/// One checked parameter value of a component.
struct ParameterValue {
    name: String,
    /// SI value.
    value: f64,
    /// The FMI variable's unit.
    unit: Option<String>,
    integer: bool,
}

/// One scalar connection: (component, variable) → (component, variable), and the factor
/// the value is multiplied by on the way (an SSP linear transformation when not 1).
type Link = ((usize, String), (usize, String), f64);

/// A checked system: every component compiled, every connection resolved.
pub struct System {
    name: String,
    description: Option<String>,
    step: f64,
    stop: Option<f64>,
    components: Vec<Component>,
    links: Vec<Link>,
}

impl System {
    /// A carrier and the machine on its mount as a system of two components joined mount →
    /// base port (`hydromech build --split base`, [`crate::assembly::compose`]).
    pub fn carrier_and_carried(
        name: &str,
        description: String,
        step: f64,
        stop: Option<f64>,
        carrier: (&str, Lowered, &str),
        carried: (&str, Lowered, &str),
    ) -> System {
        let links = mount_links((0, carrier.2), (1, carried.2))
            .into_iter()
            .map(|(from, to, _)| (from, to))
            .collect();
        System::pair(
            name,
            description,
            step,
            stop,
            (carrier.0, carrier.1),
            (carried.0, carried.1),
            links,
        )
    }

    /// Two components joined output → input by `links` (`0` the first component, `1` the
    /// second): `hydromech build --split actuators` ([`crate::assembly::actuator_split`]).
    pub fn pair(
        name: &str,
        description: String,
        step: f64,
        stop: Option<f64>,
        first: (&str, Lowered),
        second: (&str, Lowered),
        links: Vec<((usize, String), (usize, String))>,
    ) -> System {
        let component = |(name, lowered): (&str, Lowered)| Component {
            name: name.to_string(),
            lowered,
            parameters: Vec::new(),
        };
        System {
            name: name.to_string(),
            description: Some(description),
            step,
            stop,
            components: vec![component(first), component(second)],
            links: links.into_iter().map(|(a, b)| (a, b, 1.0)).collect(),
        }
    }

    /// One line for `hydromech check`.
    pub fn summary(&self) -> String {
        format!(
            "system {}: {} components ({}), {} scalar connections, step {} s",
            self.name,
            self.components.len(),
            self.components
                .iter()
                .map(|c| format!("{} = {}", c.name, c.model().name))
                .collect::<Vec<_>>()
                .join(", "),
            self.links.len(),
            self.step
        )
    }
}

/// Reads and checks a system description: its components' descriptions compiled, its
/// connections resolved. Errors are located in the system file (or in the component
/// description they come from), rendered.
pub fn load(source: &Source) -> Result<System, Vec<String>> {
    let located = |d: Diagnostic| vec![source.render(&d)];
    let file: SystemFile =
        toml::from_str(&source.text).map_err(|e| located(from_toml_error(&e)))?;
    let sys = file.system;
    let base_dir = source.path.parent().unwrap_or(Path::new("."));
    let seconds = |q: &Quantity| -> Result<f64, Vec<String>> {
        crate::lower::quantity_value(q, Dim::TIME).map_err(&located)
    };
    let step = seconds(&sys.step)?;
    if !(step > 0.0 && step.is_finite()) {
        return Err(located(Diagnostic::at(
            sys.step.span(),
            format!("the communication step must be positive, got {step}"),
            "give the master's step, e.g. step = \"1 ms\"",
        )));
    }
    let stop = sys.stop_time.as_ref().map(seconds).transpose()?;

    // Each component: compile its description.
    let mut components: Vec<Component> = Vec::new();
    for c in &sys.components {
        if components.iter().any(|k| k.name == *c.name.get_ref()) {
            return Err(located(Diagnostic::at(
                c.name.span(),
                format!("duplicate component '{}'", c.name.get_ref()),
                "give every component a unique name",
            )));
        }
        if crate::names::check_structured(c.name.get_ref()).is_err()
            || c.name.get_ref().contains('.')
        {
            return Err(located(Diagnostic::at(
                c.name.span(),
                format!("'{}' is not a component name", c.name.get_ref()),
                "use an identifier such as \"carrier\"",
            )));
        }
        let path = base_dir.join(c.model.get_ref());
        let text = std::fs::read_to_string(&path).map_err(|e| {
            located(Diagnostic::at(
                c.model.span(),
                format!("cannot read {}: {e}", path.display()),
                "give the path of a machine description, relative to this file",
            ))
        })?;
        let component_source = Source::new(&path, text);
        let lowered = crate::compile(&component_source).map_err(|ds| {
            ds.iter()
                .map(|d| component_source.render(d))
                .collect::<Vec<_>>()
        })?;
        let parameters = parameter_values(&lowered.model, &c.parameters).map_err(located)?;
        components.push(Component {
            name: c.name.get_ref().clone(),
            lowered,
            parameters,
        });
    }
    let mut links: Vec<Link> = Vec::new();
    for conn in &sys.connections {
        links.extend(resolve(&components, conn).map_err(located)?);
    }
    // An input fed twice is ambiguous.
    let mut fed = BTreeSet::new();
    for (_, to, _) in &links {
        if !fed.insert(to.clone()) {
            return Err(vec![format!(
                "{}: the input {}.{} is connected twice",
                source.path.display(),
                components[to.0].name,
                to.1
            )]);
        }
    }

    Ok(System {
        name: sys.name.get_ref().clone(),
        description: sys.description.clone(),
        step,
        stop,
        components,
        links,
    })
}

/// Builds `<out_dir>/<system name>.ssp`: [`load`], then each component's FMU.
pub fn build(
    source: &Source,
    out_dir: &Path,
    platforms: &[String],
) -> Result<PathBuf, Vec<String>> {
    write(&load(source)?, out_dir, platforms)
}

/// Writes `<out_dir>/<system name>.ssp` of a checked system, each component's FMU inside.
pub fn write(sys: &System, out_dir: &Path, platforms: &[String]) -> Result<PathBuf, Vec<String>> {
    // One scratch directory per build (builds may run side by side in one process).
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let scratch = std::env::temp_dir().join(format!(
        "hydromech-ssp-{}-{}-{nanos}",
        std::process::id(),
        sys.name
    ));
    let mut fmus = Vec::new();
    for c in &sys.components {
        let built = crate::write_fmu(&c.lowered, &c.name, &scratch, platforms)
            .map_err(|ds| {
                ds.iter()
                    .map(|d| format!("{}: {}\nhelp: {}", c.name, d.message, d.help))
                    .collect::<Vec<_>>()
            })
            .and_then(|fmu_path| {
                std::fs::read(&fmu_path)
                    .map_err(|e| vec![format!("cannot read {}: {e}", fmu_path.display())])
            });
        match built {
            Ok(fmu) => fmus.push(fmu),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&scratch);
                return Err(e);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let (name, components, links) = (&sys.name, &sys.components, &sys.links);

    let ssd = ssd(
        name,
        sys.description.as_deref(),
        components,
        links,
        sys.step,
        sys.stop,
    );
    let mut entries = vec![Entry {
        name: "SystemStructure.ssd".into(),
        data: ssd.into_bytes(),
        executable: false,
    }];
    for (c, fmu) in components.iter().zip(fmus) {
        entries.push(Entry {
            name: format!("resources/{}.fmu", c.name),
            data: fmu,
            executable: false,
        });
        if !c.parameters.is_empty() {
            entries.push(Entry {
                name: format!("resources/{}.ssv", c.name),
                data: ssv(c).into_bytes(),
                executable: false,
            });
        }
    }
    let path = out_dir.join(format!("{name}.ssp"));
    archive::write_zip(&path, &entries, crate::emit::timestamp::build_time())
        .map_err(|e| vec![format!("{}: {e}", path.display())])?;
    Ok(path)
}

/// The checked SI values of a component's parameter table: every key an FMI parameter of
/// the model, every value of its unit and within its range.
fn parameter_values(
    model: &CompiledModel,
    given: &BTreeMap<String, Quantity>,
) -> Result<Vec<ParameterValue>, Diagnostic> {
    let mut out = Vec::new();
    for (name, q) in given {
        let Some(v) = model
            .variables
            .iter()
            .find(|v| v.name == *name && v.causality == Causality::Parameter)
        else {
            let mut known: Vec<&str> = model
                .variables
                .iter()
                .filter(|v| v.causality == Causality::Parameter)
                .map(|v| v.name.as_str())
                .collect();
            known.sort_unstable();
            return Err(Diagnostic::at(
                q.span(),
                format!("'{name}' is not a parameter of model {}", model.name),
                format!("its parameters: {}", known.join(", ")),
            ));
        };
        let dim = v
            .unit
            .as_deref()
            .and_then(|u| units::parse_unit(u).ok())
            .map_or(Dim::NONE, |u| u.dim);
        let value = crate::lower::quantity_value(q, dim)?;
        let integer = v.var_type == VarType::Integer;
        let out_of_range = v.min.is_some_and(|m| value < m) || v.max.is_some_and(|m| value > m);
        if out_of_range || (integer && value.fract() != 0.0) {
            return Err(Diagnostic::at(
                q.span(),
                format!(
                    "{value} is not a valid value of '{name}' (range {} … {}{})",
                    v.min.map_or("−∞".into(), |m| m.to_string()),
                    v.max.map_or("∞".into(), |m| m.to_string()),
                    if integer { ", whole numbers" } else { "" }
                ),
                "give a value in its range",
            ));
        }
        out.push(ParameterValue {
            name: name.clone(),
            value,
            unit: v.unit.clone(),
            integer,
        });
    }
    Ok(out)
}

/// Name of every component's parameter set: one name, so that a tool applying sets by name
/// (ecos: `--parameterSet initial`) applies them all.
pub const PARAMETER_SET: &str = "initial";

/// `resources/<component>.ssv`: its parameter values, units defined.
fn ssv(c: &Component) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ssv:ParameterSet xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\" xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" version=\"1.0\" name=\"{PARAMETER_SET}\">\n  <ssv:Parameters>\n"
    );
    let mut used = BTreeSet::new();
    for p in &c.parameters {
        out += &format!("    <ssv:Parameter name=\"{}\">", escape(&p.name));
        if p.integer {
            out += &format!("<ssv:Integer value=\"{}\"/>", p.value as i64);
        } else {
            out += &format!("<ssv:Real value=\"{:?}\"", p.value);
            if let Some(u) = &p.unit {
                used.insert(u.clone());
                out += &format!(" unit=\"{}\"", escape(u));
            }
            out += "/>";
        }
        out += "</ssv:Parameter>\n";
    }
    out += "  </ssv:Parameters>\n";
    if !used.is_empty() {
        out += "  <ssv:Units>\n";
        out += &unit_definitions(&used, "    ");
        out += "  </ssv:Units>\n";
    }
    out += "</ssv:ParameterSet>\n";
    out
}

/// `ssc:Unit` definitions of `units` (SI base-unit exponents), one per line.
fn unit_definitions(units: &BTreeSet<String>, indent: &str) -> String {
    let mut out = String::new();
    for u in units {
        out += &format!("{indent}<ssc:Unit name=\"{}\"><ssc:BaseUnit", escape(u));
        for (key, value) in units::base_unit_attributes(u) {
            out += &format!(" {key}=\"{value}\"");
        }
        out += "/></ssc:Unit>\n";
    }
    out
}

/// A mount `(component, port)` to a carried machine's base port: the 19 motion values one
/// way, the 6 wrench values back.
fn mount_links(mount: (usize, &str), base: (usize, &str)) -> Vec<Link> {
    let ((m, mp), (c, cp)) = (mount, base);
    let motion = crate::lower::base::MOTION
        .iter()
        .map(|(s, _, _)| ((m, format!("{mp}.{s}")), (c, format!("{cp}.{s}")), 1.0));
    let wrench = crate::lower::base::WRENCH
        .iter()
        .map(|s| ((c, format!("{cp}.{s}")), (m, format!("{mp}.{s}")), 1.0));
    motion.chain(wrench).collect()
}

/// The scalar links of one connection.
fn resolve(components: &[Component], conn: &ConnectionDesc) -> Result<Vec<Link>, Diagnostic> {
    let split = |n: &Name| -> Result<(usize, String), Diagnostic> {
        let (c, rest) = n.get_ref().split_once('.').ok_or_else(|| {
            Diagnostic::at(
                n.span(),
                format!("'{}' names no component", n.get_ref()),
                "write component.port or component.variable",
            )
        })?;
        let i = components.iter().position(|k| k.name == c).ok_or_else(|| {
            Diagnostic::at(
                n.span(),
                format!("unknown component '{c}'"),
                format!(
                    "components: {}",
                    components
                        .iter()
                        .map(|k| k.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        Ok((i, rest.to_string()))
    };
    let (a, pa) = split(&conn.from)?;
    let (b, pb) = split(&conn.to)?;
    // A mount to a base port (either way round).
    let mount = |i: usize, p: &str| {
        components[i]
            .model()
            .ports
            .iter()
            .enumerate()
            .find(|(_, port)| port.name == p && matches!(port.kind, PortKind::Mount { .. }))
            .map(|(k, _)| k)
    };
    let base = |i: usize, p: &str| {
        let m = components[i].model();
        m.mechanism.base.is_some()
            && m.variables.iter().any(|v| {
                v.binding == Binding::Probe(Probe::BaseForce(Axis::X))
                    && v.name == format!("{p}.force.x")
            })
    };
    let pair = match (mount(a, &pa), base(b, &pb), mount(b, &pb), base(a, &pa)) {
        (Some(_), true, _, _) => Some(((a, pa.clone()), (b, pb.clone()))),
        (_, _, Some(_), true) => Some(((b, pb.clone()), (a, pa.clone()))),
        _ => None,
    };
    if let Some(((m, mp), (c, cp))) = pair {
        return Ok(mount_links((m, &mp), (c, &cp)));
    }
    // A flow port (a volume) to a pressure port (a pressure source), either way round: the
    // volume's pressure drives the source, and what the source's side draws flows out of
    // the volume (both ports count flow into their own machine, hence the factor −1).
    let hydraulic = |i: usize, p: &str, flow: bool| {
        components[i].model().ports.iter().any(|port| {
            port.name == p
                && if flow {
                    matches!(port.kind, PortKind::Flow { .. })
                } else {
                    matches!(port.kind, PortKind::Pressure { .. })
                }
        })
    };
    let pair = if hydraulic(a, &pa, true) && hydraulic(b, &pb, false) {
        Some(((a, pa.clone()), (b, pb.clone())))
    } else if hydraulic(b, &pb, true) && hydraulic(a, &pa, false) {
        Some(((b, pb.clone()), (a, pa.clone())))
    } else {
        None
    };
    if let Some(((v, vp), (s, sp))) = pair {
        return Ok(vec![
            (
                (v, format!("{vp}.pressure")),
                (s, format!("{sp}.pressure")),
                1.0,
            ),
            ((s, format!("{sp}.flow")), (v, format!("{vp}.flow")), -1.0),
        ]);
    }
    // Output → input.
    let var = |i: usize, name: &str| {
        components[i]
            .model()
            .variables
            .iter()
            .find(|v| v.name == name)
    };
    match (var(a, &pa), var(b, &pb)) {
        (Some(x), Some(y))
            if x.causality == Causality::Output
                && y.causality == Causality::Input
                && x.var_type == VarType::Real
                && y.var_type == VarType::Real =>
        {
            if x.unit != y.unit {
                return Err(Diagnostic::at(
                    conn.to.span(),
                    format!(
                        "'{}' is in {} but '{}' in {}",
                        conn.from.get_ref(),
                        x.unit.as_deref().unwrap_or("1"),
                        conn.to.get_ref(),
                        y.unit.as_deref().unwrap_or("1")
                    ),
                    "connect variables of the same unit",
                ));
            }
            Ok(vec![((a, pa), (b, pb), 1.0)])
        }
        _ => Err(Diagnostic::at(
            conn.from.span(),
            format!(
                "'{}' → '{}' is neither a mount and a base port, a flow and a pressure port, nor a Real output and input",
                conn.from.get_ref(),
                conn.to.get_ref()
            ),
            "connect a mount to a base port, or an output variable to an input variable",
        )),
    }
}

fn ssd(
    name: &str,
    description: Option<&str>,
    components: &[Component],
    links: &[Link],
    step: f64,
    stop: Option<f64>,
) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ssd:SystemStructureDescription xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" xmlns:osp=\"http://opensimulationplatform.com/SSP/OSPAnnotations\" name=\"{}\" version=\"1.0\">\n",
        escape(name)
    );
    out += &format!("  <ssd:System name=\"{}\"", escape(name));
    if let Some(d) = description {
        out += &format!(" description=\"{}\"", escape(d));
    }
    out += ">\n    <ssd:Elements>\n";
    let mut units = BTreeSet::new();
    for c in components {
        out += &format!(
            "      <ssd:Component name=\"{}\" source=\"resources/{}.fmu\" type=\"application/x-fmu-sharedlibrary\">\n        <ssd:Connectors>\n",
            escape(&c.name),
            escape(&c.name)
        );
        // Every Real input and output: the connections use some, tools may add others.
        for v in &c.model().variables {
            let kind = match v.causality {
                Causality::Input => "input",
                Causality::Output => "output",
                _ => continue,
            };
            if v.var_type != VarType::Real {
                continue;
            }
            out += &format!(
                "          <ssd:Connector name=\"{}\" kind=\"{kind}\">",
                escape(&v.name)
            );
            match &v.unit {
                Some(u) => {
                    units.insert(u.clone());
                    out += &format!("<ssc:Real unit=\"{}\"/>", escape(u));
                }
                None => out += "<ssc:Real/>",
            }
            out += "</ssd:Connector>\n";
        }
        out += "        </ssd:Connectors>\n";
        if !c.parameters.is_empty() {
            out += &format!(
                "        <ssd:ParameterBindings>\n          <ssd:ParameterBinding source=\"resources/{}.ssv\"/>\n        </ssd:ParameterBindings>\n",
                escape(&c.name)
            );
        }
        out += "      </ssd:Component>\n";
    }
    out += "    </ssd:Elements>\n";
    if !links.is_empty() {
        out += "    <ssd:Connections>\n";
        for ((a, va), (b, vb), factor) in links {
            out += &format!(
                "      <ssd:Connection startElement=\"{}\" startConnector=\"{}\" endElement=\"{}\" endConnector=\"{}\"",
                escape(&components[*a].name),
                escape(va),
                escape(&components[*b].name),
                escape(vb)
            );
            if *factor == 1.0 {
                out += "/>\n";
            } else {
                out += &format!(
                    ">\n        <ssc:LinearTransformation factor=\"{factor:?}\" offset=\"0.0\"/>\n      </ssd:Connection>\n"
                );
            }
        }
        out += "    </ssd:Connections>\n";
    }
    out += "  </ssd:System>\n";
    if !units.is_empty() {
        out += "  <ssd:Units>\n";
        out += &unit_definitions(&units, "    ");
        out += "  </ssd:Units>\n";
    }
    out += "  <ssd:DefaultExperiment startTime=\"0.0\"";
    if let Some(s) = stop {
        out += &format!(" stopTime=\"{s:?}\"");
    }
    out += &format!(
        ">\n    <ssd:Annotations>\n      <ssc:Annotation type=\"com.opensimulationplatform\">\n        <osp:Algorithm>\n          <osp:FixedStepAlgorithm baseStepSize=\"{step:?}\"/>\n        </osp:Algorithm>\n      </ssc:Annotation>\n    </ssd:Annotations>\n  </ssd:DefaultExperiment>\n</ssd:SystemStructureDescription>\n"
    );
    out
}

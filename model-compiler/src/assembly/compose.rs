//! A machine on a carrier from two descriptions: the carrier's `[carries]` names the carried
//! machine's description, which stands on the carrier's `[interface.mount]`.
//!
//! ```toml
//! [interface.mount]            # in truck-crane.toml: the deck
//! body = "chassis"
//! origin = [1.5, 1.2, 0]
//! name = "deck"
//! [carries]
//! model = "knuckle-crane.toml" # its ground frame is the deck frame
//! name = "crane"
//! ```
//!
//! - **One machine** ([`whole`]): the carried description is merged into the carrier's. Its
//!   ground becomes a massless body named after the mount, fixed to the mount body at the
//!   mount origin (axes of the mount body, as a mount frame has), so the carried machine's
//!   points keep their coordinates. Lists are joined, tables merged; the carrier's
//!   `[model]`, `[experiment]`, `[solver]`, `[init]` and `[report]` win (the carried
//!   machine's where the carrier has none); gravity must agree. The mount, having nothing
//!   to couple to, is left out.
//! - **Split at the base** ([`split`]): the carrier alone (its mount a port) and the carried
//!   machine on a carrier-driven base port, the two FMUs of a co-simulation, and the system
//!   joining mount and base.
//!
//! Each description is validated alone first, so an error points into its own file; what
//! can go wrong only when they meet (a name used in both) is reported by name.

use crate::assembly::system::System;
use crate::description::{BaseMotionDesc, BasePortDesc, Description, InterfaceDesc, Name};
use crate::diagnostic::{Diagnostic, Source};
use crate::lower::{self, Lowered};
use std::path::{Path, PathBuf};
use toml::{Spanned, Table, Value};

/// The carrier's component name in a split.
pub const CARRIER: &str = "carrier";
/// The carried machine's component name when `[carries]` gives none.
pub const DEFAULT_CARRIED: &str = "carried";

/// Keys whose value names a body (`ground` allowed).
const BODY_KEYS: [&str; 4] = ["parent", "body", "body_a", "body_b"];

/// The carried machine of a description with `[carries]`.
struct Carried {
    /// Component name in the split.
    name: String,
    source: Source,
    description: Description,
}

/// The carrier's mount: the frame the carried machine stands on.
struct Mount {
    body: String,
    origin: Option<Value>,
    /// The mount's name: its FMI prefix, and the body the carried ground becomes.
    name: String,
}

/// A machine split at its carried machine's base.
pub struct Split {
    /// The carrier alone (model `<model>-carrier`), its mount a port.
    pub carrier: Lowered,
    /// The carried machine on a carrier-driven base (model `<model>-<name>`).
    pub carried: Lowered,
    /// The carried machine's component name.
    pub carried_name: String,
    /// The mount's port name on the carrier; the carried machine's base port is `base`.
    pub mount: String,
    /// The whole machine's model name.
    pub model: String,
}

/// A located error at `[carries] model`.
fn at_model(d: &Description, message: String, help: &str) -> Vec<Diagnostic> {
    let span = d.carries.as_ref().map(|c| c.model.span());
    vec![Diagnostic::new(span, message, help)]
}

/// Diagnostics of another file as position-free ones that name it (they are printed
/// against the carrier's file).
fn foreign(source: &Source, ds: Vec<Diagnostic>) -> Vec<Diagnostic> {
    ds.into_iter()
        .map(|d| {
            let at = match &d.span {
                Some(s) => {
                    let (line, column) = source.line_column(s.start);
                    format!("{}:{line}:{column}", source.path.display())
                }
                None => source.path.display().to_string(),
            };
            Diagnostic {
                span: None,
                message: format!("{at}: {}", d.message),
                ..d
            }
        })
        .collect()
}

/// Reads and checks the carried description (it must stand alone).
fn carried(top: &Source, d: &Description) -> Result<Carried, Vec<Diagnostic>> {
    let c = d
        .carries
        .as_ref()
        .expect("called for a description with [carries]");
    let name = c
        .name
        .as_ref()
        .map_or(DEFAULT_CARRIED.to_string(), |n| n.get_ref().clone());
    if let Some(n) = &c.name
        && (crate::names::check_structured(&name).is_err() || name.contains('.') || name == CARRIER)
    {
        return Err(vec![Diagnostic::at(
            n.span(),
            format!("'{name}' is not a component name"),
            "use an identifier other than \"carrier\", such as \"crane\"",
        )]);
    }
    if d.interface
        .as_ref()
        .and_then(|i| i.mount.as_ref())
        .is_none()
    {
        return Err(at_model(
            d,
            "a carrier needs [interface.mount]: the frame the carried machine stands on".into(),
            "add [interface.mount] with the carrier body and the origin of the frame",
        ));
    }
    let path: PathBuf = top
        .path
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .join(c.model.get_ref());
    let text = std::fs::read_to_string(&path).map_err(|e| {
        at_model(
            d,
            format!("cannot read {}: {e}", path.display()),
            "give the path of a machine description, relative to this file",
        )
    })?;
    let source = Source::new(&path, text);
    let description = Description::parse(&source.text).map_err(|e| foreign(&source, vec![e]))?;
    let interface = description.interface.as_ref();
    let why = if description.carries.is_some() {
        Some("carries a machine itself (one level of carrying is supported)")
    } else if interface.is_some_and(|i| i.base.is_some()) {
        Some("has a base port of its own (its base is the mount)")
    } else if interface.is_some_and(|i| i.mount.is_some()) {
        Some("has a mount (one level of carrying is supported)")
    } else {
        None
    };
    if let Some(why) = why {
        return Err(at_model(
            d,
            format!("the carried machine {} {why}", path.display()),
            "carry a description without [carries], [interface.base] or [interface.mount]",
        ));
    }
    lower::lower(&description).map_err(|e| foreign(&source, e))?;
    Ok(Carried {
        name,
        source,
        description,
    })
}

/// The carrier's description alone: no `[carries]`, no `[report]` (its manoeuvre may drive
/// the carried machine's inputs), the model renamed `<model>-<suffix>` if a suffix is given.
fn carrier_alone(d: &Description, suffix: Option<&str>) -> Description {
    let mut alone = d.clone();
    alone.carries = None;
    alone.report = None;
    if let Some(suffix) = suffix {
        alone.model.name = renamed(&d.model.name, suffix);
    }
    alone
}

fn renamed(name: &Name, suffix: &str) -> Name {
    Spanned::new(name.span(), format!("{}-{suffix}", name.get_ref()))
}

/// The carrier with the carried machine on its mount, as one machine.
pub fn whole(top: &Source, d: &Description) -> Result<(Description, Lowered), Vec<Diagnostic>> {
    let carried = carried(top, d)?;
    // The carrier alone: its own errors, located in its own text.
    lower::lower(&carrier_alone(d, None))?;
    let parse = |s: &Source| {
        s.text
            .parse::<Table>()
            .map_err(|e| vec![Diagnostic::global(e.to_string(), "fix the TOML syntax")])
    };
    let (carrier_table, carried_table) = (parse(top)?, parse(&carried.source)?);
    let context = format!(
        "{} carrying {}",
        top.path.display(),
        carried.source.path.display()
    );
    let merged = merge(carrier_table, carried_table).map_err(|(message, help)| {
        vec![Diagnostic::global(format!("{context}: {message}"), help)]
    })?;
    let text = toml::to_string(&merged).map_err(|e| {
        vec![Diagnostic::global(
            format!("{context}: {e}"),
            "report this as a hydromech bug",
        )]
    })?;
    // Errors of the merged text have no place in either file: by name, without position.
    let unplaced = |ds| Diagnostic::unplaced(ds, &context);
    let description = Description::parse(&text).map_err(|e| unplaced(vec![e]))?;
    let mut lowered = lower::lower(&description).map_err(unplaced)?;
    lowered.warnings = unplaced(std::mem::take(&mut lowered.warnings));
    Ok((description, lowered))
}

/// The carrier and the carried machine as two compiled models, to be joined mount → base.
pub fn split(top: &Source) -> Result<Split, Vec<Diagnostic>> {
    let d = Description::parse(&top.text).map_err(|e| vec![e])?;
    if d.carries.is_none() {
        return Err(vec![Diagnostic::global(
            "only a description with [carries] can be split at a base",
            "add [carries] (the machine on this one's [interface.mount]), or build without --split",
        )]);
    }
    let carried = carried(top, &d)?;
    let carrier = crate::compile_description(&carrier_alone(&d, Some(CARRIER)))?;
    let mut on_base = carried.description.clone();
    on_base.model.name = renamed(&d.model.name, &carried.name);
    on_base
        .interface
        .get_or_insert_with(InterfaceDesc::default)
        .base = Some(BasePortDesc {
        motion: Spanned::new(0..0, BaseMotionDesc::Carrier),
        reference: None,
        name: None,
    });
    let carried_lowered =
        crate::compile_description(&on_base).map_err(|e| foreign(&carried.source, e))?;
    Ok(Split {
        carrier,
        carried: carried_lowered,
        carried_name: carried.name,
        mount: mount_name(&d),
        model: d.model.name.get_ref().clone(),
    })
}

/// `hydromech build --split base`: writes `<stem>.carrier.fmu`, `<stem>.<name>.fmu` (with
/// their OSP model descriptions) and `<model>-split.ssp` joining them; returns the paths.
/// The system's step and stop time are the carrier's default experiment's.
pub fn write_split(
    top: &Source,
    out_dir: &Path,
    platforms: &[String],
) -> Result<Vec<PathBuf>, Vec<String>> {
    let rendered = |ds: Vec<Diagnostic>| ds.iter().map(|d| top.render(d)).collect::<Vec<_>>();
    let s = split(top).map_err(rendered)?;
    let stem = top.file_stem().unwrap_or_else(|| "machine".into());
    let carrier_fmu =
        crate::write_fmu(&s.carrier, &format!("{stem}.{CARRIER}"), out_dir, platforms)
            .map_err(rendered)?;
    let carried_fmu = crate::write_fmu(
        &s.carried,
        &format!("{stem}.{}", s.carried_name),
        out_dir,
        platforms,
    )
    .map_err(rendered)?;
    let experiment = &s.carrier.model.default_experiment;
    let model = &s.model;
    let system = System::carrier_and_carried(
        &format!("{model}-split"),
        format!(
            "{model} split at the base of its carried machine: {CARRIER}.{} to {}.base",
            s.mount, s.carried_name
        ),
        experiment.step_size,
        Some(experiment.stop_time),
        (CARRIER, s.carrier, &s.mount),
        (&s.carried_name, s.carried, "base"),
    );
    let ssp = crate::assembly::system::write(&system, out_dir, platforms)?;
    Ok(vec![carrier_fmu, carried_fmu, ssp])
}

fn mount_name(d: &Description) -> String {
    d.interface
        .as_ref()
        .and_then(|i| i.mount.as_ref())
        .and_then(|m| m.name.as_ref())
        .map_or(lower::MOUNT_DEFAULT_NAME.to_string(), |n| {
            n.get_ref().clone()
        })
}

type MergeError = (String, &'static str);

/// The carried table merged into the carrier's (see the module documentation).
fn merge(mut carrier: Table, mut carried: Table) -> Result<Table, MergeError> {
    carrier.remove("carries");
    let mount = take_mount(&mut carrier)?;
    // The carrier's settings win; the carried machine's fill in.
    for key in ["experiment", "solver", "init", "report"] {
        if let Some(v) = carried.remove(key)
            && !carrier.contains_key(key)
        {
            carrier.insert(key.into(), v);
        }
    }
    if let Some(Value::Table(model)) = carried.remove("model") {
        let gravity = |t: Option<&Value>| t.and_then(|m| m.get("gravity")).cloned();
        let own = gravity(carrier.get("model"));
        if own != model.get("gravity").cloned() {
            return Err((
                format!(
                    "the two descriptions give different gravity ({} and {})",
                    own.map_or("the default".into(), |v| v.to_string()),
                    model
                        .get("gravity")
                        .map_or("the default".into(), |v| v.to_string())
                ),
                "give both descriptions the same [model] gravity",
            ));
        }
    }
    // The carried ground: a massless body on the mount.
    rename_ground(&mut carried, &mount.name);
    let mut joint = Table::new();
    joint.insert("type".into(), "fixed".into());
    if let Some(origin) = mount.origin {
        joint.insert("origin".into(), origin);
    }
    let mut deck = Table::new();
    deck.insert("name".into(), mount.name.clone().into());
    deck.insert("parent".into(), mount.body.into());
    deck.insert("joint".into(), joint.into());
    deck.insert("massless".into(), true.into());
    let bodies = carrier
        .entry("bodies")
        .or_insert_with(|| Value::Array(Vec::new()));
    match bodies {
        Value::Array(list) => list.push(deck.into()),
        _ => return Err(("`bodies` is not a list".into(), "write [[bodies]] tables")),
    }
    merge_tables(&mut carrier, carried, "")?;
    Ok(carrier)
}

/// Removes `[interface.mount]` from the carrier (the carried machine takes its place).
fn take_mount(carrier: &mut Table) -> Result<Mount, MergeError> {
    let mount = carrier
        .get_mut("interface")
        .and_then(Value::as_table_mut)
        .and_then(|i| i.remove("mount"))
        .and_then(|m| m.as_table().cloned())
        .ok_or(("no [interface.mount]".to_string(), "add [interface.mount]"))?;
    let text = |k: &str| mount.get(k).and_then(Value::as_str).map(String::from);
    Ok(Mount {
        body: text("body").ok_or(("[interface.mount] has no body".to_string(), "add body"))?,
        origin: mount.get("origin").cloned(),
        name: text("name").unwrap_or(lower::MOUNT_DEFAULT_NAME.into()),
    })
}

/// Every body reference to `ground` becomes a reference to `to`.
fn rename_ground(v: &mut Table, to: &str) {
    for (k, x) in v.iter_mut() {
        match x {
            Value::String(s) if BODY_KEYS.contains(&k.as_str()) && s == "ground" => {
                *s = to.to_string()
            }
            Value::Table(t) => rename_ground(t, to),
            Value::Array(list) => {
                for item in list {
                    if let Value::Table(t) = item {
                        rename_ground(t, to);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `from` merged into `into`: lists joined, tables merged, equal values kept; a value
/// given differently in both is an error.
fn merge_tables(into: &mut Table, from: Table, path: &str) -> Result<(), MergeError> {
    for (k, v) in from {
        let here = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        match (into.get_mut(&k), v) {
            (None, v) => {
                into.insert(k, v);
            }
            (Some(Value::Array(a)), Value::Array(b)) => a.extend(b),
            (Some(Value::Table(a)), Value::Table(b)) => merge_tables(a, b, &here)?,
            (Some(a), b) if *a == b => {}
            (Some(_), _) => {
                return Err((
                    format!("both descriptions set `{here}`, differently"),
                    "set it in one of them (the carrier's [model], [solver], [init] and [report] are the ones used)",
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Table {
        text.parse().unwrap()
    }

    #[test]
    fn the_carried_ground_becomes_a_massless_body_on_the_mount() {
        let carrier = table(
            "[model]\nname = \"truck\"\n[[bodies]]\nname = \"chassis\"\nparent = \"ground\"\n\
             [interface.mount]\nbody = \"chassis\"\norigin = [1, 2, 0]\nname = \"deck\"\n\
             [carries]\nmodel = \"crane.toml\"\n",
        );
        let carried = table(
            "[model]\nname = \"crane\"\n[[bodies]]\nname = \"column\"\nparent = \"ground\"\n\
             [[spring_dampers]]\nname = \"s\"\na = { body = \"ground\", point = [0, 0, 0] }\n\
             b = { body = \"column\", point = [0, 1, 0] }\n[solver]\nstep = \"1 ms\"\n",
        );
        let m = merge(carrier, carried).unwrap();
        let bodies = m["bodies"].as_array().unwrap();
        let names: Vec<_> = bodies.iter().map(|b| b["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["chassis", "deck", "column"]);
        assert_eq!(bodies[1]["parent"].as_str(), Some("chassis"));
        assert_eq!(bodies[1]["massless"].as_bool(), Some(true));
        assert_eq!(bodies[1]["joint"]["type"].as_str(), Some("fixed"));
        assert_eq!(
            bodies[1]["joint"]["origin"],
            Value::Array(vec![1.into(), 2.into(), 0.into()])
        );
        assert_eq!(bodies[2]["parent"].as_str(), Some("deck"));
        assert_eq!(m["spring_dampers"][0]["a"]["body"].as_str(), Some("deck"));
        assert_eq!(m["spring_dampers"][0]["b"]["body"].as_str(), Some("column"));
        assert_eq!(m["model"]["name"].as_str(), Some("truck"));
        assert_eq!(m["solver"]["step"].as_str(), Some("1 ms"), "filled in");
        assert!(m["interface"].get("mount").is_none() && m.get("carries").is_none());
    }

    #[test]
    fn a_value_set_differently_in_both_is_an_error_that_names_it() {
        let mut a = table("[hydraulics.oil]\ndensity = 850\n");
        let b = table("[hydraulics.oil]\ndensity = 870\n");
        let (message, _) = merge_tables(&mut a, b, "").unwrap_err();
        assert!(message.contains("hydraulics.oil.density"), "{message}");
        let mut a = table("[hydraulics.oil]\ndensity = 850\n");
        merge_tables(&mut a, table("[hydraulics.oil]\ndensity = 850\n"), "").unwrap();
    }

    #[test]
    fn different_gravity_is_an_error() {
        let carrier = table(
            "[model]\nname = \"a\"\ngravity = [0, 0, -9.81]\n[interface.mount]\nbody = \"b\"\n",
        );
        let carried = table("[model]\nname = \"c\"\ngravity = [0, -9.81, 0]\n");
        let (message, _) = merge(carrier, carried).unwrap_err();
        assert!(message.contains("gravity"), "{message}");
    }
}

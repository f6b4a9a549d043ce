//! `hydromech inspect X.fmu`: the interface of a built FMU, read from the
//! `modelDescription.xml` in its zip (no binary is loaded).

use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

/// One `ScalarVariable` with the attributes of its type element.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Variable {
    pub name: String,
    pub value_reference: String,
    pub causality: String,
    pub variability: String,
    /// `Real`, `Integer`, `Boolean`, `String` or `Enumeration`.
    pub type_name: String,
    pub unit: Option<String>,
    pub display_unit: Option<String>,
    pub start: Option<String>,
    pub description: Option<String>,
}

/// What `inspect` prints.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Interface {
    pub fmi_version: String,
    pub model_name: String,
    pub guid: String,
    pub description: Option<String>,
    pub generation_tool: Option<String>,
    pub generation_date: Option<String>,
    /// The attributes of `<CoSimulation>` (modelIdentifier and the capability flags), in
    /// file order.
    pub co_simulation: Vec<(String, String)>,
    /// The attributes of `<DefaultExperiment>`, in file order.
    pub default_experiment: Vec<(String, String)>,
    pub variables: Vec<Variable>,
}

fn attributes(e: &BytesStart<'_>) -> Result<Vec<(String, String)>, String> {
    e.attributes()
        .map(|a| {
            let a = a.map_err(|err| format!("malformed attribute: {err}"))?;
            let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
            let value = a
                .unescape_value()
                .map_err(|err| format!("malformed value of {key}: {err}"))?
                .into_owned();
            Ok((key, value))
        })
        .collect()
}

fn get(attrs: &[(String, String)], key: &str) -> Option<String> {
    attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

/// Parses an FMI 2.0 `modelDescription.xml`.
pub fn parse(text: &str) -> Result<Interface, String> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().trim_text(true);
    let mut out = Interface::default();
    let mut root_seen = false;
    let mut current: Option<Variable> = None;
    loop {
        let event = reader.read_event().map_err(|e| {
            format!(
                "modelDescription.xml is not well-formed XML at byte {}: {e}",
                reader.error_position()
            )
        })?;
        let (e, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(e) => {
                if e.name().as_ref() == b"ScalarVariable"
                    && let Some(v) = current.take()
                {
                    out.variables.push(v);
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let attrs = attributes(e)?;
        match e.name().as_ref() {
            b"fmiModelDescription" => {
                root_seen = true;
                out.fmi_version = get(&attrs, "fmiVersion").unwrap_or_default();
                out.model_name = get(&attrs, "modelName").unwrap_or_default();
                out.guid = get(&attrs, "guid").unwrap_or_default();
                out.description = get(&attrs, "description");
                out.generation_tool = get(&attrs, "generationTool");
                out.generation_date = get(&attrs, "generationDateAndTime");
            }
            b"CoSimulation" => out.co_simulation = attrs,
            b"DefaultExperiment" => out.default_experiment = attrs,
            b"ScalarVariable" => {
                let v = Variable {
                    name: get(&attrs, "name").unwrap_or_default(),
                    value_reference: get(&attrs, "valueReference").unwrap_or_default(),
                    causality: get(&attrs, "causality").unwrap_or_else(|| "local".into()),
                    variability: get(&attrs, "variability").unwrap_or_else(|| "continuous".into()),
                    description: get(&attrs, "description"),
                    ..Variable::default()
                };
                if empty {
                    out.variables.push(v);
                } else {
                    current = Some(v);
                }
            }
            name @ (b"Real" | b"Integer" | b"Boolean" | b"String" | b"Enumeration") => {
                if let Some(v) = current.as_mut() {
                    v.type_name = String::from_utf8_lossy(name).into_owned();
                    v.unit = get(&attrs, "unit");
                    v.display_unit = get(&attrs, "displayUnit");
                    v.start = get(&attrs, "start");
                }
            }
            _ => {}
        }
    }
    if !root_seen {
        return Err("modelDescription.xml has no <fmiModelDescription> element".into());
    }
    Ok(out)
}

/// Reads `modelDescription.xml` from the FMU's zip.
pub fn read_fmu(path: &Path) -> Result<Interface, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut zip = zip::ZipArchive::new(file)
        .map_err(|e| format!("{}: not a zip archive (an FMU is one): {e}", path.display()))?;
    let mut entry = zip.by_name("modelDescription.xml").map_err(|e| {
        format!(
            "{}: no modelDescription.xml in the FMU: {e}",
            path.display()
        )
    })?;
    let mut text = String::new();
    entry
        .read_to_string(&mut text)
        .map_err(|e| format!("{}: modelDescription.xml: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The report printed by `hydromech inspect`.
pub fn render(i: &Interface) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "model:        {}", i.model_name);
    if let Some(d) = &i.description {
        let _ = writeln!(s, "description:  {d}");
    }
    let _ = writeln!(s, "FMI version:  {}", i.fmi_version);
    let _ = writeln!(s, "GUID:         {}", i.guid);
    if let Some(t) = &i.generation_tool {
        let _ = writeln!(s, "generated by: {t}");
    }
    if let Some(t) = &i.generation_date {
        let _ = writeln!(s, "generated at: {t}");
    }
    if i.co_simulation.is_empty() {
        let _ = writeln!(
            s,
            "Co-Simulation: not supported (no <CoSimulation> element)"
        );
    } else {
        let _ = writeln!(s, "Co-Simulation:");
        for (k, v) in &i.co_simulation {
            let _ = writeln!(s, "  {k} = {v}");
        }
    }
    if i.default_experiment.is_empty() {
        let _ = writeln!(s, "default experiment: none");
    } else {
        let list: Vec<String> = i
            .default_experiment
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let _ = writeln!(s, "default experiment: {}", list.join(", "));
    }
    let count = |c: &str| i.variables.iter().filter(|v| v.causality == c).count();
    let _ = writeln!(
        s,
        "\n{} variables ({} inputs, {} outputs, {} parameters, {} calculated parameters, {} local):",
        i.variables.len(),
        count("input"),
        count("output"),
        count("parameter"),
        count("calculatedParameter"),
        count("local")
    );
    let header = [
        "name",
        "causality",
        "variability",
        "type",
        "unit",
        "start",
        "description",
    ];
    let rows: Vec<[String; 7]> = i
        .variables
        .iter()
        .map(|v| {
            let unit = match (&v.unit, &v.display_unit) {
                (Some(u), Some(d)) if d != u => format!("{u} ({d})"),
                (Some(u), _) => u.clone(),
                (None, _) => String::new(),
            };
            [
                v.name.clone(),
                v.causality.clone(),
                v.variability.clone(),
                v.type_name.clone(),
                unit,
                v.start.clone().unwrap_or_default(),
                v.description.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let mut width = header.map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut l = String::new();
        for (k, c) in cells.iter().enumerate() {
            if k + 1 == cells.len() {
                l.push_str(c);
            } else {
                let pad = width[k] - c.chars().count();
                let _ = write!(l, "{c}{}  ", " ".repeat(pad));
            }
        }
        l.trim_end().to_string()
    };
    let _ = writeln!(s, "{}", line(&header.map(String::from)));
    let _ = writeln!(
        s,
        "{}",
        line(&width.map(|w| "-".repeat(w)).map(|d| d.to_string()))
    );
    for r in &rows {
        let _ = writeln!(s, "{}", line(r));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="m" guid="{abc}" description="a &amp; b">
  <CoSimulation modelIdentifier="m" canHandleVariableCommunicationStepSize="true"/>
  <DefaultExperiment startTime="0" stopTime="10" stepSize="0.01"/>
  <ModelVariables>
    <ScalarVariable name="x" valueReference="0" causality="output" variability="continuous" description="position">
      <Real unit="m" displayUnit="mm"/>
    </ScalarVariable>
    <ScalarVariable name="k" valueReference="1" causality="parameter" variability="fixed">
      <Real start="2.5"/>
    </ScalarVariable>
    <ScalarVariable name="n" valueReference="0"><Integer start="3"/></ScalarVariable>
  </ModelVariables>
</fmiModelDescription>"#;

    #[test]
    fn parses_identity_capabilities_and_variables() {
        let i = parse(XML).unwrap();
        assert_eq!(
            (
                i.fmi_version.as_str(),
                i.model_name.as_str(),
                i.guid.as_str()
            ),
            ("2.0", "m", "{abc}")
        );
        assert_eq!(i.description.as_deref(), Some("a & b"));
        assert_eq!(i.co_simulation.len(), 2);
        assert_eq!(i.default_experiment[1], ("stopTime".into(), "10".into()));
        assert_eq!(i.variables.len(), 3);
        let x = &i.variables[0];
        assert_eq!(
            (
                x.unit.as_deref(),
                x.display_unit.as_deref(),
                x.type_name.as_str()
            ),
            (Some("m"), Some("mm"), "Real")
        );
        assert_eq!(i.variables[1].start.as_deref(), Some("2.5"));
        assert_eq!(
            (
                i.variables[2].causality.as_str(),
                i.variables[2].type_name.as_str()
            ),
            ("local", "Integer")
        );
        let r = render(&i);
        assert!(r.contains("GUID:         {abc}"), "{r}");
        assert!(
            r.contains("canHandleVariableCommunicationStepSize = true"),
            "{r}"
        );
        assert!(r.contains("x     output"), "{r}");
        assert!(r.contains("m (mm)"), "{r}");
    }

    #[test]
    fn rejects_what_is_not_a_model_description() {
        assert!(parse("<other/>").is_err());
        assert!(parse("<fmiModelDescription").is_err());
        let e = read_fmu(Path::new("/nonexistent.fmu")).unwrap_err();
        assert!(e.contains("/nonexistent.fmu"), "{e}");
    }
}

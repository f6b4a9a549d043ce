//! The one reader of a `modelDescription.xml`: the elements a master or a reader of the
//! interface uses (root, `CoSimulation`, `DefaultExperiment`, the variables with their type
//! attributes), as written: attributes unescaped, in file order, with no checks beyond
//! well-formed XML.
//!
//! FMI 3.0 documents are read into the same shape: a `<Float64>` (`<Int32>`, `<Boolean>`,
//! ...) variable becomes a [`Variable`] whose type element is `Real` (`Integer`,
//! `Boolean`, ...) holding the type's attributes, with `unit` and `displayUnit` taken from
//! its `declaredType` when the variable does not carry them (so are an FMI 2.0 variable's
//! from its `SimpleType`).
//!
//! Two views are built on it: [`crate::host::xml`] (typed and checked, what a master
//! needs to run the FMU) and [`crate::inspect`] (the text as written, for display).

use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The attributes of one element, unescaped, in file order.
pub type Attributes = Vec<(String, String)>;

/// The value of attribute `key` (the first one if it is repeated).
pub fn get<'a>(attributes: &'a [(String, String)], key: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// One `ScalarVariable`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Variable {
    pub attributes: Attributes,
    /// The type element (`Real`, `Integer`, `Boolean`, `String` or `Enumeration`) and its
    /// attributes; `None` when the variable has none.
    pub type_element: Option<(String, Attributes)>,
}

/// The parts of a model description that are read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    /// The attributes of `<fmiModelDescription>`; `None` when there is no such element.
    pub root: Option<Attributes>,
    /// The attributes of `<CoSimulation>`; `None` when the FMU does not support it.
    pub co_simulation: Option<Attributes>,
    /// The attributes of `<ModelExchange>`; `None` when the FMU does not support it.
    pub model_exchange: Option<Attributes>,
    /// The attributes of `<DefaultExperiment>`; `None` when there is none.
    pub default_experiment: Option<Attributes>,
    /// `<UnitDefinitions>`: each `<Unit>`'s attributes and its `<DisplayUnit>`s'.
    pub units: Vec<(Attributes, Vec<Attributes>)>,
    pub variables: Vec<Variable>,
}

fn attributes(e: &BytesStart<'_>) -> Result<Attributes, String> {
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

/// Reads the text of a `modelDescription.xml`; fails only on malformed XML.
pub fn read(text: &str) -> Result<Document, String> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().trim_text(true);
    let mut doc = Document::default();
    // The ScalarVariable being read (its type element follows as a child).
    let mut current: Option<Variable> = None;
    // Inside <ModelVariables> (where FMI 3.0 variables are elements of their own), and the
    // FMI 3.0 <Float64Type> (...) definitions by name.
    let mut in_variables = false;
    let mut declared: Vec<(String, Attributes)> = Vec::new();
    // Inside a <Unit> (its <DisplayUnit>s follow) or an FMI 2.0 <SimpleType> (its type
    // element follows).
    let mut in_unit = false;
    let mut simple_type: Option<String> = None;
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
                match e.name().as_ref() {
                    b"ScalarVariable" => {
                        if let Some(v) = current.take() {
                            doc.variables.push(v);
                        }
                    }
                    b"ModelVariables" => in_variables = false,
                    b"Unit" => in_unit = false,
                    b"SimpleType" => simple_type = None,
                    _ => {}
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        match e.name().as_ref() {
            b"fmiModelDescription" => doc.root = Some(attributes(e)?),
            b"CoSimulation" => doc.co_simulation = Some(attributes(e)?),
            b"ModelExchange" => doc.model_exchange = Some(attributes(e)?),
            b"DefaultExperiment" => doc.default_experiment = Some(attributes(e)?),
            b"ModelVariables" => in_variables = !empty,
            b"Unit" if !in_variables => {
                doc.units.push((attributes(e)?, Vec::new()));
                in_unit = !empty;
            }
            b"DisplayUnit" if in_unit => {
                if let Some((_, display)) = doc.units.last_mut() {
                    display.push(attributes(e)?);
                }
            }
            b"SimpleType" if !in_variables => {
                let a = attributes(e)?;
                simple_type = get(&a, "name").map(str::to_string).filter(|_| !empty);
            }
            name if name.ends_with(b"Type") && !in_variables => {
                let a = attributes(e)?;
                if let Some(n) = get(&a, "name") {
                    declared.push((n.to_string(), a));
                }
            }
            name if in_variables && current.is_none() && name != b"ScalarVariable" => {
                if let Some(v) = fmi3_variable(name, attributes(e)?, &declared) {
                    doc.variables.push(v);
                }
            }
            b"ScalarVariable" => {
                let v = Variable {
                    attributes: attributes(e)?,
                    type_element: None,
                };
                if empty {
                    doc.variables.push(v);
                } else {
                    current = Some(v);
                }
            }
            name @ (b"Real" | b"Integer" | b"Boolean" | b"String" | b"Enumeration") => {
                if let Some(v) = current.as_mut() {
                    let name = String::from_utf8_lossy(name).into_owned();
                    let mut a = attributes(e)?;
                    inherit_units(&mut a, &declared);
                    v.type_element = Some((name, a));
                } else if let Some(t) = simple_type.take() {
                    declared.push((t, attributes(e)?));
                }
            }
            _ => {}
        }
    }
    Ok(doc)
}

/// An FMI 3.0 variable element as a [`Variable`] with an FMI 2.0-style type element.
fn fmi3_variable(tag: &[u8], a: Attributes, declared: &[(String, Attributes)]) -> Option<Variable> {
    let base = match tag {
        b"Float64" | b"Float32" => "Real",
        b"Int8" | b"UInt8" | b"Int16" | b"UInt16" | b"Int32" | b"UInt32" | b"Int64" | b"UInt64" => {
            "Integer"
        }
        b"Boolean" => "Boolean",
        b"String" => "String",
        b"Enumeration" => "Enumeration",
        _ => return None,
    };
    const COMMON: [&str; 6] = [
        "name",
        "valueReference",
        "description",
        "causality",
        "variability",
        "initial",
    ];
    let (common, mut typed): (Attributes, Attributes) = a
        .into_iter()
        .partition(|(k, _)| COMMON.contains(&k.as_str()));
    inherit_units(&mut typed, declared);
    Some(Variable {
        attributes: common,
        type_element: Some((base.to_string(), typed)),
    })
}

/// `unit` and `displayUnit` of the type named by `declaredType`, where the variable's type
/// attributes `typed` do not carry them.
fn inherit_units(typed: &mut Attributes, declared: &[(String, Attributes)]) {
    let from_type = get(typed, "declaredType")
        .and_then(|t| declared.iter().find(|(n, _)| n == t))
        .map(|(_, ta)| ta.clone());
    if let Some(ta) = from_type {
        for key in ["unit", "displayUnit"] {
            if get(typed, key).is_none()
                && let Some(v) = get(&ta, key)
            {
                typed.push((key.to_string(), v.to_string()));
            }
        }
    }
}

/// Opens the zip of the FMU at `path`.
pub fn open_fmu(path: &Path) -> Result<zip::ZipArchive<File>, String> {
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    zip::ZipArchive::new(file)
        .map_err(|e| format!("{}: not a zip archive (an FMU is one): {e}", path.display()))
}

/// The text of `modelDescription.xml` in the zip of the FMU at `path`.
pub fn model_description_text(
    zip: &mut zip::ZipArchive<File>,
    path: &Path,
) -> Result<String, String> {
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
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_elements_as_written() {
        let doc = read(
            r#"<fmiModelDescription fmiVersion="2.0" guid="{g}">
              <CoSimulation modelIdentifier="m"/>
              <TypeDefinitions><SimpleType name="t"><Real unit="N"/></SimpleType></TypeDefinitions>
              <ModelVariables>
                <ScalarVariable name="a &amp; b" valueReference="3"><Real unit="m"/></ScalarVariable>
                <ScalarVariable name="e" valueReference="4"/>
              </ModelVariables>
            </fmiModelDescription>"#,
        )
        .unwrap();
        assert_eq!(get(doc.root.as_deref().unwrap(), "guid"), Some("{g}"));
        assert_eq!(doc.co_simulation.unwrap().len(), 1);
        assert_eq!(doc.default_experiment, None);
        assert_eq!(doc.variables.len(), 2);
        let a = &doc.variables[0];
        assert_eq!(get(&a.attributes, "name"), Some("a & b"));
        assert_eq!(
            a.type_element,
            Some(("Real".into(), vec![("unit".into(), "m".into())]))
        );
        assert_eq!(doc.variables[1].type_element, None);
        assert!(read("<fmiModelDescription").is_err());
        assert_eq!(read("<other/>").unwrap().root, None);
    }

    #[test]
    fn reads_fmi3_variables_with_their_declared_units() {
        let doc = read(
            r#"<fmiModelDescription fmiVersion="3.0" instantiationToken="{t}">
              <CoSimulation modelIdentifier="m"/>
              <TypeDefinitions><Float64Type name="Pa_in_bar" unit="Pa" displayUnit="bar"/></TypeDefinitions>
              <ModelVariables>
                <Float64 name="time" valueReference="0" causality="independent"/>
                <Float64 name="p" valueReference="1" causality="output" declaredType="Pa_in_bar" min="0"/>
                <Int32 name="n" valueReference="2" causality="parameter" start="3"/>
                <Boolean name="b" valueReference="3" causality="parameter" start="true"/>
              </ModelVariables>
              <ModelStructure><Output valueReference="1"/></ModelStructure>
            </fmiModelDescription>"#,
        )
        .unwrap();
        assert_eq!(doc.variables.len(), 4);
        let p = &doc.variables[1];
        assert_eq!(get(&p.attributes, "name"), Some("p"));
        let (tag, ta) = p.type_element.as_ref().unwrap();
        assert_eq!(tag, "Real");
        assert_eq!(get(ta, "unit"), Some("Pa"));
        assert_eq!(get(ta, "displayUnit"), Some("bar"));
        assert_eq!(get(ta, "min"), Some("0"));
        assert_eq!(doc.variables[2].type_element.as_ref().unwrap().0, "Integer");
        assert_eq!(doc.variables[3].type_element.as_ref().unwrap().0, "Boolean");
    }
}

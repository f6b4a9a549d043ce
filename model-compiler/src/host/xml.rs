//! What a master reads from `modelDescription.xml`: identity, GUID, default experiment
//! and the scalar variables with their value references, typed and checked (the XML is
//! read by [`crate::host::fmu_xml`]).

use crate::host::fmu_xml::{self, get};

/// FMI base type of a scalar variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    Real,
    Integer,
    Boolean,
    String,
    Enumeration,
}

/// One `ScalarVariable`.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarVariable {
    pub name: String,
    pub value_reference: u32,
    /// `parameter`, `calculatedParameter`, `input`, `output`, `local`, `independent`
    /// (default `local`).
    pub causality: String,
    /// Default `continuous`.
    pub variability: String,
    pub var_type: VarType,
    pub start: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// `unit` and `displayUnit` (own or of the declared type).
    pub unit: Option<String>,
    pub display_unit: Option<String>,
}

/// A unit a value is shown in: `shown = factor · value + offset` (FMI `<DisplayUnit>`;
/// the SI unit itself has factor 1, offset 0).
#[derive(Clone, Debug, PartialEq)]
pub struct DisplayUnit {
    pub name: String,
    pub factor: f64,
    pub offset: f64,
}

impl DisplayUnit {
    pub fn show(&self, value: f64) -> f64 {
        if self.factor == 1.0 && self.offset == 0.0 {
            value
        } else {
            self.factor * value + self.offset
        }
    }
}

/// A `<Unit>` of `<UnitDefinitions>` with its display units.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitDefinition {
    pub name: String,
    pub display: Vec<DisplayUnit>,
}

/// The parts of the model description the harness needs.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelDescription {
    pub model_name: String,
    pub guid: String,
    /// `generationTool` ("hydromech" for ours).
    pub generation_tool: String,
    /// `CoSimulation/@modelIdentifier`: the name of the shared library.
    pub model_identifier: String,
    pub start_time: f64,
    pub stop_time: Option<f64>,
    pub step_size: Option<f64>,
    pub units: Vec<UnitDefinition>,
    pub variables: Vec<ScalarVariable>,
}

impl ModelDescription {
    pub fn variable(&self, name: &str) -> Option<&ScalarVariable> {
        self.variables.iter().find(|v| v.name == name)
    }

    /// Real inputs, in file order.
    pub fn real_inputs(&self) -> Vec<&ScalarVariable> {
        self.variables
            .iter()
            .filter(|v| v.causality == "input" && v.var_type == VarType::Real)
            .collect()
    }

    /// Real outputs, in file order.
    pub fn real_outputs(&self) -> Vec<&ScalarVariable> {
        self.variables
            .iter()
            .filter(|v| v.causality == "output" && v.var_type == VarType::Real)
            .collect()
    }

    /// The unit `v` is shown in: its `displayUnit` as defined in `<UnitDefinitions>`, else
    /// its `unit` (also when the display unit is not defined there); `None` without a unit.
    pub fn display_unit(&self, v: &ScalarVariable) -> Option<DisplayUnit> {
        let unit = v.unit.as_deref()?;
        let defined = v.display_unit.as_deref().and_then(|d| {
            self.units
                .iter()
                .find(|u| u.name == unit)
                .and_then(|u| u.display.iter().find(|x| x.name == d))
        });
        Some(defined.cloned().unwrap_or(DisplayUnit {
            name: unit.to_string(),
            factor: 1.0,
            offset: 0.0,
        }))
    }

    /// The internal solver step: start of the `solver.step` parameter, else the default
    /// experiment's step size.
    pub fn internal_step(&self) -> Option<f64> {
        self.variable("solver.step")
            .and_then(|v| v.start)
            .or(self.step_size)
    }
}

fn number(attributes: &[(String, String)], key: &str) -> Result<Option<f64>, String> {
    match get(attributes, key) {
        None => Ok(None),
        Some(s) => match s.trim() {
            "true" => Ok(Some(1.0)),
            "false" => Ok(Some(0.0)),
            t => t
                .parse::<f64>()
                .map(Some)
                .map_err(|_| format!("{key}=\"{s}\" is not a number")),
        },
    }
}

fn variable(v: &fmu_xml::Variable) -> Result<ScalarVariable, String> {
    let a = &v.attributes;
    let name = get(a, "name").ok_or("a ScalarVariable has no name")?;
    let vr =
        get(a, "valueReference").ok_or_else(|| format!("variable {name} has no valueReference"))?;
    let value_reference = vr
        .trim()
        .parse::<u32>()
        .map_err(|_| format!("variable {name}: valueReference \"{vr}\" is not an unsigned int"))?;
    let (ty, t) = v
        .type_element
        .as_ref()
        .ok_or_else(|| format!("variable {name} has no type element"))?;
    let var_type = match ty.as_str() {
        "Real" => VarType::Real,
        "Integer" => VarType::Integer,
        "Boolean" => VarType::Boolean,
        "String" => VarType::String,
        _ => VarType::Enumeration,
    };
    let (start, min, max) = if var_type == VarType::String {
        (None, None, None)
    } else {
        (number(t, "start")?, number(t, "min")?, number(t, "max")?)
    };
    let text = |key: &str| match var_type {
        VarType::Real => get(t, key).map(str::to_string),
        _ => None,
    };
    Ok(ScalarVariable {
        unit: text("unit"),
        display_unit: text("displayUnit"),
        name: name.to_string(),
        value_reference,
        causality: get(a, "causality").unwrap_or("local").to_string(),
        variability: get(a, "variability").unwrap_or("continuous").to_string(),
        var_type,
        start,
        min,
        max,
    })
}

/// A `<Unit>` and its `<DisplayUnit>`s. An FMI 3.0 `inverse="true"` display unit is left
/// out (its variables are shown in the unit itself rather than wrong).
fn unit_definition(
    (unit, display): &(fmu_xml::Attributes, Vec<fmu_xml::Attributes>),
) -> Result<UnitDefinition, String> {
    let name = get(unit, "name").ok_or("a Unit in UnitDefinitions has no name")?;
    let mut shown = Vec::new();
    for d in display.iter().filter(|d| get(d, "inverse") != Some("true")) {
        let n =
            get(d, "name").ok_or_else(|| format!("a DisplayUnit of unit {name} has no name"))?;
        let what = |e: String| format!("DisplayUnit {n} of unit {name}: {e}");
        let factor = number(d, "factor").map_err(what)?.unwrap_or(1.0);
        let offset = number(d, "offset").map_err(what)?.unwrap_or(0.0);
        if !(factor.is_finite() && factor != 0.0 && offset.is_finite()) {
            return Err(what(format!(
                "factor {factor} and offset {offset} must be finite, the factor non-zero"
            )));
        }
        shown.push(DisplayUnit {
            name: n.to_string(),
            factor,
            offset,
        });
    }
    Ok(UnitDefinition {
        name: name.to_string(),
        display: shown,
    })
}

/// Parses a model description (FMI 2.0) and checks that a master can use it.
pub fn parse(text: &str) -> Result<ModelDescription, String> {
    let doc = fmu_xml::read(text)?;
    let root = doc
        .root
        .ok_or("not an FMI model description (no fmiModelDescription element)")?;
    let version = get(&root, "fmiVersion").unwrap_or_default();
    if !version.starts_with("2.") {
        return Err(format!(
            "fmiVersion \"{version}\" is not FMI 2.0 (hydromech simulate and bench run FMI 2.0 FMUs: build this one without --fmi 3)"
        ));
    }
    let guid = get(&root, "guid").ok_or("the root element has no guid")?;
    let model_identifier = match &doc.co_simulation {
        Some(c) => get(c, "modelIdentifier").ok_or("CoSimulation has no modelIdentifier")?,
        None => "",
    };
    let experiment = doc.default_experiment.unwrap_or_default();
    let md = ModelDescription {
        model_name: get(&root, "modelName").unwrap_or_default().to_string(),
        generation_tool: get(&root, "generationTool").unwrap_or_default().to_string(),
        guid: guid.to_string(),
        model_identifier: model_identifier.to_string(),
        start_time: number(&experiment, "startTime")?.unwrap_or(0.0),
        stop_time: number(&experiment, "stopTime")?,
        step_size: number(&experiment, "stepSize")?,
        units: doc
            .units
            .iter()
            .map(unit_definition)
            .collect::<Result<_, _>>()?,
        variables: doc
            .variables
            .iter()
            .map(variable)
            .collect::<Result<_, _>>()?,
    };
    if md.model_identifier.is_empty() {
        return Err("the FMU does not support Co-Simulation (no CoSimulation element)".into());
    }
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="naya-rod" guid="{44c0fc14-7959}" generationTool="hydromech">
  <CoSimulation modelIdentifier="naya_rod" canHandleVariableCommunicationStepSize="true"/>
  <DefaultExperiment startTime="0.0" stopTime="10.0" tolerance="0.0001" stepSize="0.01"/>
  <ModelVariables>
    <!-- index 1 -->
    <ScalarVariable name="valve.command" valueReference="1" description="κ &amp; more" causality="input" variability="continuous">
      <Real start="0.46460817485749223" min="0.0" max="1.0"/>
    </ScalarVariable>
    <ScalarVariable name="cylinder.length" valueReference="2" causality="output" variability="continuous">
      <Real unit="m" displayUnit="mm"/>
    </ScalarVariable>
    <ScalarVariable name="solver.step" valueReference="11" causality="parameter" variability="fixed" initial="exact">
      <Real unit="s" start="0.01"/>
    </ScalarVariable>
    <ScalarVariable name="solver.iterations" valueReference="20" causality="output" variability="discrete">
      <Integer/>
    </ScalarVariable>
    <ScalarVariable name="cylinder.friction_model" valueReference="7" causality="parameter" variability="fixed">
      <Integer start="1" min="0" max="3"/>
    </ScalarVariable>
    <ScalarVariable name="x.flag" valueReference="8">
      <Boolean start="true"/>
    </ScalarVariable>
  </ModelVariables>
</fmiModelDescription>"#;

    #[test]
    fn reads_identity_experiment_and_value_references() {
        let md = parse(XML).unwrap();
        assert_eq!(md.model_name, "naya-rod");
        assert_eq!(md.generation_tool, "hydromech");
        assert_eq!(md.guid, "{44c0fc14-7959}");
        assert_eq!(md.model_identifier, "naya_rod");
        assert_eq!(md.start_time, 0.0);
        assert_eq!(md.stop_time, Some(10.0));
        assert_eq!(md.step_size, Some(0.01));
        assert_eq!(md.variables.len(), 6);
        let cmd = md.variable("valve.command").unwrap();
        assert_eq!(cmd.value_reference, 1);
        assert_eq!(cmd.causality, "input");
        assert_eq!(cmd.var_type, VarType::Real);
        assert_eq!(cmd.start, Some(0.46460817485749223));
        assert_eq!((cmd.min, cmd.max), (Some(0.0), Some(1.0)));
        let it = md.variable("solver.iterations").unwrap();
        assert_eq!((it.value_reference, it.var_type), (20, VarType::Integer));
        assert_eq!(it.variability, "discrete");
        let fm = md.variable("cylinder.friction_model").unwrap();
        assert_eq!((fm.start, fm.max), (Some(1.0), Some(3.0)));
        let flag = md.variable("x.flag").unwrap();
        assert_eq!(flag.causality, "local");
        assert_eq!(flag.variability, "continuous");
        assert_eq!((flag.var_type, flag.start), (VarType::Boolean, Some(1.0)));
        assert_eq!(md.internal_step(), Some(0.01));
        let ins: Vec<u32> = md.real_inputs().iter().map(|v| v.value_reference).collect();
        let outs: Vec<u32> = md
            .real_outputs()
            .iter()
            .map(|v| v.value_reference)
            .collect();
        assert_eq!((ins, outs), (vec![1], vec![2]));
    }

    #[test]
    fn display_units_come_from_the_unit_definitions() {
        let md = parse(
            r#"<fmiModelDescription fmiVersion="2.0" guid="x"><CoSimulation modelIdentifier="m"/>
            <UnitDefinitions>
              <Unit name="Pa"><BaseUnit kg="1" m="-1" s="-2"/><DisplayUnit name="bar" factor="1e-5"/></Unit>
              <Unit name="K"><BaseUnit K="1"/><DisplayUnit name="degC" offset="-273.15"/></Unit>
            </UnitDefinitions>
            <TypeDefinitions><SimpleType name="Temperature"><Real unit="K" displayUnit="degC"/></SimpleType></TypeDefinitions>
            <ModelVariables>
              <ScalarVariable name="p" valueReference="1"><Real unit="Pa" displayUnit="bar"/></ScalarVariable>
              <ScalarVariable name="T" valueReference="2"><Real declaredType="Temperature"/></ScalarVariable>
              <ScalarVariable name="F" valueReference="3"><Real unit="N" displayUnit="kN"/></ScalarVariable>
              <ScalarVariable name="x" valueReference="4"><Real/></ScalarVariable>
            </ModelVariables></fmiModelDescription>"#,
        )
        .unwrap();
        let shown = |n: &str| md.display_unit(md.variable(n).unwrap());
        let p = shown("p").unwrap();
        assert_eq!((p.name.as_str(), p.show(2e7)), ("bar", 1e-5 * 2e7));
        // From the SimpleType; FMI's display = factor · value + offset.
        let t = shown("T").unwrap();
        assert_eq!((t.name.as_str(), t.show(293.15)), ("degC", 293.15 - 273.15));
        // A display unit the definitions lack: shown in the unit itself.
        let f = shown("F").unwrap();
        assert_eq!((f.name.as_str(), f.show(5.0)), ("N", 5.0));
        assert_eq!(shown("x"), None);
        let bad = r#"<fmiModelDescription fmiVersion="2.0" guid="x"><CoSimulation modelIdentifier="m"/>
            <UnitDefinitions><Unit name="Pa"><DisplayUnit name="bar" factor="0"/></Unit></UnitDefinitions>
            </fmiModelDescription>"#;
        assert!(
            parse(bad)
                .unwrap_err()
                .contains("DisplayUnit bar of unit Pa")
        );
    }

    #[test]
    fn rejects_what_a_master_cannot_use() {
        assert!(parse("<a/>").is_err());
        assert!(
            parse(r#"<fmiModelDescription fmiVersion="3.0" guid="x"><CoSimulation modelIdentifier="m"/></fmiModelDescription>"#)
                .unwrap_err()
                .contains("FMI 2.0")
        );
        assert!(
            parse(r#"<fmiModelDescription fmiVersion="2.0" guid="x"/>"#)
                .unwrap_err()
                .contains("Co-Simulation")
        );
        let bad_vr = r#"<fmiModelDescription fmiVersion="2.0" guid="x"><CoSimulation modelIdentifier="m"/>
            <ModelVariables><ScalarVariable name="a" valueReference="-1"><Real/></ScalarVariable></ModelVariables></fmiModelDescription>"#;
        assert!(parse(bad_vr).unwrap_err().contains("valueReference"));
    }

    #[test]
    fn reads_the_generated_description_of_a_compiled_model() {
        // The XML writer of this crate and this reader agree on every value reference.
        let l = crate::compile_shipped("naya-rod.toml");
        let xml = crate::emit::model_description::render(&l.model, "2000-01-01T00:00:00Z");
        let md = parse(&xml).unwrap();
        assert_eq!(md.guid, l.model.guid);
        assert_eq!(md.model_identifier, l.model.model_identifier);
        assert_eq!(md.variables.len(), l.model.variables.len());
        for (a, b) in md.variables.iter().zip(&l.model.variables) {
            assert_eq!(
                (a.name.as_str(), a.value_reference),
                (b.name.as_str(), b.value_reference)
            );
        }
        assert!(md.variable("solver.iterations").is_some());
    }
}

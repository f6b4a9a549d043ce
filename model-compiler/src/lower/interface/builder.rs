//! The variable list being built: value references in order, names taken, slots bound;
//! output variables and display units.

use crate::lower::Ctx;
use crate::units::{self};
use fmu_runtime::model::{Binding, Causality, ParamId, Probe, VarType, Variability, Variable};
use std::collections::HashMap;
use std::ops::Range;

pub(in crate::lower) struct Builder {
    pub(in crate::lower) vars: Vec<Variable>,
    pub(in crate::lower) names: HashMap<String, Range<usize>>,
    pub(in crate::lower) bound: HashMap<ParamId, String>,
}

impl Builder {
    pub(in crate::lower) fn push(&mut self, mut v: Variable) {
        v.value_reference = self.vars.len() as u32 + 1;
        if let Binding::Param(p) = v.binding {
            self.bound.insert(p, v.name.clone());
        }
        self.names.entry(v.name.clone()).or_insert(0..0);
        self.vars.push(v);
    }
}

pub(in crate::lower) fn output(
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
pub(in crate::lower) fn slot_display_unit(
    cx: &Ctx,
    id: ParamId,
    unit: Option<&str>,
) -> Option<String> {
    let name = cx.params[id.index()].name.as_str();
    let pump_speed = name.split_once('.').is_some_and(|(head, field)| {
        field == "speed" && cx.components.get(head).is_some_and(|(k, _)| *k == "pump")
    });
    if pump_speed && unit == Some("rad/s") {
        return Some("rpm".into());
    }
    display_unit(unit)
}

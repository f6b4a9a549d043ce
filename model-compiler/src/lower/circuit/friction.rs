//! Cylinder friction: the models, their keys and defaults.

use crate::description::{FrictionDesc, FrictionModel, Quantity};
use crate::lower::{Ctx, Expect};
use crate::units::Dim;
use fmu_runtime::model::Friction;

/// One key of a friction model: name, what it accepts, description, default (`None` =
/// required), whether it must be strictly positive.
pub(super) struct FrictionKey(&'static str, Expect, &'static str, Option<f64>, bool);

pub(super) const F_COULOMB: FrictionKey = FrictionKey(
    "coulomb",
    Expect::Dim(Dim::FORCE),
    "Coulomb friction force F_c",
    None,
    false,
);
pub(super) const F_STICTION: FrictionKey = FrictionKey(
    "stiction",
    Expect::Dim(Dim::FORCE),
    "Static friction force F_s",
    None,
    false,
);
pub(super) const F_STRIBECK: FrictionKey = FrictionKey(
    "stribeck_velocity",
    Expect::Dim(Dim::VELOCITY),
    "Stribeck velocity v_s",
    None,
    true,
);
pub(super) const F_VISCOUS: FrictionKey = FrictionKey(
    "viscous",
    Expect::Dim(Dim::DAMPING),
    "Viscous friction coefficient σ2",
    None,
    false,
);
pub(super) const F_EXPONENT: FrictionKey = FrictionKey(
    "exponent",
    Expect::Dim(Dim::NONE),
    "Stribeck exponent n",
    None,
    true,
);
pub(super) const F_SIGMA0: FrictionKey = FrictionKey(
    "bristle_stiffness",
    Expect::Dim(Dim::STIFFNESS),
    "Bristle stiffness σ0",
    None,
    true,
);
pub(super) const F_SIGMA1: FrictionKey = FrictionKey(
    "bristle_damping",
    Expect::Dim(Dim::DAMPING),
    "Bristle damping σ1",
    None,
    false,
);

/// The keys of each friction model, in the order of the runtime's enum fields
/// (seed 001 §2.3, digest §2.8).
pub(super) fn friction_keys(model: FrictionModel) -> Vec<FrictionKey> {
    match model {
        // Its options' keys are collected by `lower_friction`.
        FrictionModel::Selectable => vec![],
        FrictionModel::Viscous => vec![FrictionKey(
            "coefficient",
            Expect::Dim(Dim::DAMPING),
            "Viscous seal friction coefficient",
            None,
            false,
        )],
        FrictionModel::BengisuAkay => vec![
            F_COULOMB,
            F_STICTION,
            F_STRIBECK,
            FrictionKey(
                "shape",
                Expect::Dim(Dim::INVERSE_VELOCITY),
                "Curve-shape parameter ξ of the Stribeck decay",
                None,
                false,
            ),
            F_VISCOUS,
        ],
        FrictionModel::BrownMcphee => vec![F_COULOMB, F_STICTION, F_STRIBECK, F_VISCOUS],
        FrictionModel::Lugre => vec![
            F_COULOMB, F_STICTION, F_STRIBECK, F_EXPONENT, F_SIGMA0, F_SIGMA1, F_VISCOUS,
        ],
        FrictionModel::ModifiedLugre => vec![
            F_COULOMB,
            F_STICTION,
            F_STRIBECK,
            F_EXPONENT,
            F_SIGMA0,
            F_SIGMA1,
            F_VISCOUS,
            FrictionKey(
                "threshold_velocity",
                Expect::Dim(Dim::VELOCITY),
                "Threshold velocity v_b of the film model",
                None,
                true,
            ),
            FrictionKey(
                "tau_acceleration",
                Expect::Dim(Dim::TIME),
                "Film time constant while accelerating τ_hp",
                None,
                true,
            ),
            FrictionKey(
                "tau_deceleration",
                Expect::Dim(Dim::TIME),
                "Film time constant while decelerating τ_hn",
                None,
                true,
            ),
            FrictionKey(
                "tau_dwell",
                Expect::Dim(Dim::TIME),
                "Film time constant at rest τ_h0",
                None,
                true,
            ),
            // our choice: "v = 0" of the paper read as |v| below 0.1 mm/s.
            FrictionKey(
                "dwell_velocity",
                Expect::Dim(Dim::VELOCITY),
                "Speed below which the piston dwells",
                Some(1e-4),
                true,
            ),
        ],
    }
}

/// Options of a selectable friction, in the order of its selector (seed 001 Pub II).
pub(super) const SELECTABLE: [FrictionModel; 4] = [
    FrictionModel::BengisuAkay,
    FrictionModel::BrownMcphee,
    FrictionModel::Lugre,
    FrictionModel::ModifiedLugre,
];

pub(super) fn model_name(model: FrictionModel) -> &'static str {
    match model {
        FrictionModel::Viscous => "viscous",
        FrictionModel::BengisuAkay => "bengisu-akay",
        FrictionModel::BrownMcphee => "brown-mcphee",
        FrictionModel::Lugre => "lugre",
        FrictionModel::ModifiedLugre => "modified-lugre",
        FrictionModel::Selectable => "selectable",
    }
}

/// Every key a `[friction]` table can give, with its value (the fields of `FrictionDesc`
/// after `model` and `default`).
fn given_keys(f: &FrictionDesc) -> [(&'static str, &Option<Quantity>); 14] {
    [
        ("coefficient", &f.coefficient),
        ("coulomb", &f.coulomb),
        ("stiction", &f.stiction),
        ("stribeck_velocity", &f.stribeck_velocity),
        ("viscous", &f.viscous),
        ("shape", &f.shape),
        ("exponent", &f.exponent),
        ("bristle_stiffness", &f.bristle_stiffness),
        ("bristle_damping", &f.bristle_damping),
        ("threshold_velocity", &f.threshold_velocity),
        ("tau_acceleration", &f.tau_acceleration),
        ("tau_deceleration", &f.tau_deceleration),
        ("tau_dwell", &f.tau_dwell),
        ("dwell_velocity", &f.dwell_velocity),
    ]
}

pub(super) fn lower_friction(cx: &mut Ctx, cylinder: &str, f: &FrictionDesc) -> Friction {
    let span = f.model.span();
    let model = *f.model.get_ref();
    let name = model_name(model);
    let given = given_keys(f);
    // The keys this model takes (a selectable one: the union over its options).
    let mut keys = Vec::new();
    let models: Vec<FrictionModel> = if model == FrictionModel::Selectable {
        SELECTABLE.to_vec()
    } else {
        vec![model]
    };
    for m in &models {
        for k in friction_keys(*m) {
            if !keys.iter().any(|e: &FrictionKey| e.0 == k.0) {
                keys.push(k);
            }
        }
    }
    let wanted: Vec<&str> = keys.iter().map(|k| k.0).collect();
    for (key, q) in given {
        if let (false, Some(q)) = (wanted.contains(&key), q) {
            cx.error(
                q.span(),
                format!("{name} friction has no `{key}`"),
                format!(
                    "{name} friction takes {}",
                    wanted
                        .iter()
                        .map(|w| format!("`{w}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
    match (&f.default, model) {
        (Some(d), m) if m != FrictionModel::Selectable => cx.error(
            d.span(),
            format!("`default` only applies to selectable friction, this one is {name}"),
            "remove `default`, or write model = \"selectable\"",
        ),
        _ => {}
    }
    let mut slots: Vec<(&str, fmu_runtime::model::ParamId)> = Vec::with_capacity(keys.len());
    for FrictionKey(key, expect, text, default, positive) in keys {
        let q = given
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, q)| q.as_ref());
        let v = match (q, default) {
            (Some(q), _) => {
                let v = cx.value(q, expect);
                if positive {
                    cx.require_positive(q, v, key);
                } else {
                    cx.require_non_negative(q, v, key);
                }
                v
            }
            (None, Some(d)) => d,
            (None, None) => {
                cx.error(
                    span.clone(),
                    format!("{name} friction needs `{key}`"),
                    format!("add `{key} = ...` ({text})"),
                );
                0.0
            }
        };
        slots.push((
            key,
            cx.slot(
                format!("{cylinder}.friction.{key}"),
                v,
                expect,
                format!("{text} of {cylinder}"),
            ),
        ));
    }
    let p = |key: &str| {
        slots
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, id)| *id)
            .expect("key lowered")
    };
    let build = |m: FrictionModel| match m {
        FrictionModel::Viscous => Friction::Viscous {
            coefficient: p("coefficient"),
        },
        FrictionModel::BengisuAkay => Friction::BengisuAkay {
            coulomb: p("coulomb"),
            stiction: p("stiction"),
            stribeck_velocity: p("stribeck_velocity"),
            shape: p("shape"),
            viscous: p("viscous"),
        },
        FrictionModel::BrownMcphee => Friction::BrownMcPhee {
            coulomb: p("coulomb"),
            stiction: p("stiction"),
            stribeck_velocity: p("stribeck_velocity"),
            viscous: p("viscous"),
        },
        FrictionModel::Lugre => Friction::LuGre {
            coulomb: p("coulomb"),
            stiction: p("stiction"),
            stribeck_velocity: p("stribeck_velocity"),
            exponent: p("exponent"),
            bristle_stiffness: p("bristle_stiffness"),
            bristle_damping: p("bristle_damping"),
            viscous: p("viscous"),
        },
        FrictionModel::ModifiedLugre | FrictionModel::Selectable => Friction::ModifiedLuGre {
            coulomb: p("coulomb"),
            stiction: p("stiction"),
            stribeck_velocity: p("stribeck_velocity"),
            exponent: p("exponent"),
            bristle_stiffness: p("bristle_stiffness"),
            bristle_damping: p("bristle_damping"),
            viscous: p("viscous"),
            threshold_velocity: p("threshold_velocity"),
            tau_acceleration: p("tau_acceleration"),
            tau_deceleration: p("tau_deceleration"),
            tau_dwell: p("tau_dwell"),
            dwell_velocity: p("dwell_velocity"),
        },
    };
    if model != FrictionModel::Selectable {
        return build(model);
    }
    let default = match &f.default {
        Some(d) => match SELECTABLE.iter().position(|m| m == d.get_ref()) {
            Some(i) => i,
            None => {
                cx.error(
                    d.span(),
                    format!(
                        "`{}` is not one of the selectable models",
                        model_name(*d.get_ref())
                    ),
                    "choose bengisu-akay, brown-mcphee, lugre or modified-lugre",
                );
                0
            }
        },
        None => {
            cx.error(
                span.clone(),
                "selectable friction needs `default`",
                "add e.g. default = \"brown-mcphee\"",
            );
            0
        }
    };
    let options = SELECTABLE.iter().map(|m| build(*m)).collect();
    let selector = cx.slot(
        format!("{cylinder}.friction.model"),
        default as f64,
        Expect::Choice(SELECTABLE.len()),
        format!("Seal friction model of {cylinder}: 0 Bengisu–Akay, 1 Brown–McPhee, 2 LuGre, 3 modified LuGre"),
    );
    Friction::Selectable { selector, options }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const MODELS: [FrictionModel; 6] = [
        FrictionModel::Viscous,
        FrictionModel::BengisuAkay,
        FrictionModel::BrownMcphee,
        FrictionModel::Lugre,
        FrictionModel::ModifiedLugre,
        FrictionModel::Selectable,
    ];

    /// One list of friction keys: the keys the models take (the table above), the keys a
    /// `[friction]` table can give (`given_keys`, the fields of `FrictionDesc`) and the
    /// schema's `$defs/friction` are the same set; the model names are the description's
    /// (serde) names and the schema's.
    #[test]
    fn friction_keys_are_one_list() {
        let taken: BTreeSet<&str> = MODELS
            .iter()
            .flat_map(|&m| friction_keys(m).into_iter().map(|k| k.0))
            .collect();
        let f: FrictionDesc = toml::from_str("model = \"viscous\"").unwrap();
        let given: BTreeSet<&str> = given_keys(&f).iter().map(|(k, _)| *k).collect();
        assert_eq!(taken, given, "friction_keys vs given_keys");
        let schema = crate::schema::schema();
        let def = &schema["$defs"]["friction"];
        let mut in_schema: BTreeSet<&str> = def["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert!(in_schema.remove("model") && in_schema.remove("default"));
        assert_eq!(given, in_schema, "given_keys vs $defs/friction");
        let names: Vec<&str> = MODELS.iter().map(|&m| model_name(m)).collect();
        let enum_values: Vec<&str> = def["properties"]["model"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(names, enum_values, "model names vs the schema's");
        for &m in &MODELS {
            let text = format!("model = \"{}\"", model_name(m));
            let parsed: FrictionDesc = toml::from_str(&text).unwrap();
            assert_eq!(*parsed.model.get_ref(), m, "{text}");
        }
    }
}

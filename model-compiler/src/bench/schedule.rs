//! The fixed manoeuvre of each model: a piecewise-constant input schedule, looked up by
//! model name, with a generic fallback for models the table does not know.

use crate::host::xml::ScalarVariable;

/// A value of an input during one segment of a schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    /// The start value from the model description (e.g. seed 002's equilibrium κ0).
    Start,
    /// Start value plus an offset.
    StartPlus(f64),
    /// An absolute value.
    Value(f64),
}

/// One input's schedule: the level from `t` on, for each `(t, level)` in time order.
#[derive(Clone, Debug, PartialEq)]
pub struct InputSchedule {
    pub input: &'static str,
    pub segments: &'static [(f64, Level)],
}

/// A named manoeuvre of a known model.
#[derive(Clone, Debug, PartialEq)]
pub struct Manoeuvre {
    pub model: &'static str,
    /// Where the schedule comes from.
    pub source: &'static str,
    pub inputs: &'static [InputSchedule],
}

/// Seed 001 Pub I eq 46 / Pub II: U_ref = 0, +10 V from 1 s to 2.5 s, 0, −10 V from 5 s
/// to 8 s, 0.
const FOURBAR_VALVE: &[(f64, Level)] = &[
    (0.0, Level::Value(0.0)),
    (1.0, Level::Value(10.0)),
    (2.5, Level::Value(0.0)),
    (5.0, Level::Value(-10.0)),
    (8.0, Level::Value(0.0)),
];

/// The schedule table.
pub const TABLE: &[Manoeuvre] = &[
    Manoeuvre {
        model: "naya-rod",
        source: "seed 002 eq 38: κ0, κ0 − 0.01 from 2 s, κ0 + 0.01 from 6 s",
        inputs: &[InputSchedule {
            input: "valve.command",
            segments: &[
                (0.0, Level::Start),
                (2.0, Level::StartPlus(-0.01)),
                (6.0, Level::StartPlus(0.01)),
            ],
        }],
    },
    Manoeuvre {
        model: "jaiswal-fourbar",
        source: "seed 001 Pub I eq 46: U_ref 0, +10 V 1–2.5 s, 0, −10 V 5–8 s, 0",
        inputs: &[InputSchedule {
            input: "valve.command",
            segments: FOURBAR_VALVE,
        }],
    },
    Manoeuvre {
        model: "jaiswal-fourbar-friction",
        source: "seed 001 Pub II: U_ref 0, +10 V 1–2.5 s, 0, −10 V 5–8 s, 0",
        inputs: &[InputSchedule {
            input: "valve.command",
            segments: FOURBAR_VALVE,
        }],
    },
    // The machine of bench/exudyn, timed against Exudyn on the same manoeuvre: its
    // `one_arm.py` holds the valve at the description's opening throughout.
    Manoeuvre {
        model: "one-arm-exudyn",
        source: "bench/exudyn: the valve held at its start opening, as one_arm.py holds Exudyn's",
        inputs: &[InputSchedule {
            input: "valve.command",
            segments: &[(0.0, Level::Start)],
        }],
    },
];

/// The table entry of a model, if any: its own, else that of the longest table name
/// `base` with `model = "<base>-<variant>"` (a variant such as
/// `jaiswal-fourbar-double-step` runs the manoeuvre of `jaiswal-fourbar`).
pub fn lookup(model: &str) -> Option<&'static Manoeuvre> {
    TABLE.iter().find(|m| m.model == model).or_else(|| {
        TABLE
            .iter()
            .filter(|m| {
                model
                    .strip_prefix(m.model)
                    .is_some_and(|rest| rest.starts_with('-'))
            })
            .max_by_key(|m| m.model.len())
    })
}

/// The resolved schedule of one input: value from each switch time on.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub name: String,
    pub value_reference: u32,
    /// `(t, value)` in time order; the first entry holds from the start.
    pub segments: Vec<(f64, f64)>,
}

impl Resolved {
    /// Value at time `t` (sample and hold; a switch at `t_s` applies from the step that
    /// starts at `t_s`, with a tolerance of `tol` for round-off in `t`).
    pub fn value_at(&self, t: f64, tol: f64) -> f64 {
        let mut v = self.segments[0].1;
        for &(ts, vs) in &self.segments[1..] {
            if t + tol >= ts {
                v = vs;
            }
        }
        v
    }
}

/// The complete manoeuvre for one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// `table` or `generic`.
    pub kind: &'static str,
    pub description: String,
    pub inputs: Vec<Resolved>,
}

impl Plan {
    /// Switch times (after the start), sorted and deduplicated.
    pub fn switch_times(&self) -> Vec<f64> {
        let mut t: Vec<f64> = self
            .inputs
            .iter()
            .flat_map(|i| i.segments.iter().skip(1).map(|s| s.0))
            .collect();
        t.sort_by(f64::total_cmp);
        t.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
        t
    }

    /// The switch time closest to `t`.
    pub fn nearest_switch(&self, t: f64) -> Option<f64> {
        self.switch_times()
            .into_iter()
            .min_by(|a, b| (a - t).abs().total_cmp(&(b - t).abs()))
    }
}

/// Generic step target: halfway from the start value to the farther bound of the range
/// (ties go to `max`): κ ∈ [0, 1] from 0 steps to 0.5, U ∈ [−10, 10] from 0 to +5.
/// Without a range: +10 % of |start| (0.1 when the start is 0).
pub fn generic_target(start: f64, min: Option<f64>, max: Option<f64>) -> f64 {
    match (min, max) {
        (Some(lo), Some(hi)) if hi > lo => {
            let far = if (hi - start) >= (start - lo) { hi } else { lo };
            start + 0.5 * (far - start)
        }
        (_, Some(hi)) if hi > start => start + 0.5 * (hi - start),
        (Some(lo), _) if lo < start => start + 0.5 * (lo - start),
        _ => start + if start == 0.0 { 0.1 } else { 0.1 * start.abs() },
    }
}

/// The manoeuvre of `model` over `[t0, t0 + span]`: the table's, or the generic one (every
/// Real input at its start value, stepped to [`generic_target`] at `t0 + span/2`).
/// Inputs the table does not mention stay at their start values.
pub fn plan(model: &str, inputs: &[&ScalarVariable], t0: f64, span: f64) -> Plan {
    let start = |v: &ScalarVariable| v.start.unwrap_or(0.0);
    if let Some(m) = lookup(model) {
        let resolved = inputs
            .iter()
            .map(|v| {
                let segments = match m.inputs.iter().find(|s| s.input == v.name) {
                    Some(s) => s
                        .segments
                        .iter()
                        .map(|&(t, level)| {
                            let value = match level {
                                Level::Start => start(v),
                                Level::StartPlus(d) => start(v) + d,
                                Level::Value(x) => x,
                            };
                            (t0 + t, value)
                        })
                        .collect(),
                    None => vec![(t0, start(v))],
                };
                Resolved {
                    name: v.name.clone(),
                    value_reference: v.value_reference,
                    segments,
                }
            })
            .collect();
        return Plan {
            kind: "table",
            description: m.source.to_string(),
            inputs: resolved,
        };
    }
    let mid = t0 + 0.5 * span;
    Plan {
        kind: "generic",
        description: format!(
            "generic: inputs at their start values, each stepped halfway to its farther bound at t = {mid} s"
        ),
        inputs: inputs
            .iter()
            .map(|v| Resolved {
                name: v.name.clone(),
                value_reference: v.value_reference,
                segments: vec![
                    (t0, start(v)),
                    (mid, generic_target(start(v), v.min, v.max)),
                ],
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::xml::VarType;

    fn input(name: &str, vr: u32, start: f64, range: Option<(f64, f64)>) -> ScalarVariable {
        ScalarVariable {
            name: name.into(),
            value_reference: vr,
            causality: "input".into(),
            variability: "continuous".into(),
            var_type: VarType::Real,
            start: Some(start),
            min: range.map(|r| r.0),
            max: range.map(|r| r.1),
            unit: None,
            display_unit: None,
        }
    }

    #[test]
    fn table_knows_the_seed_models() {
        for m in ["naya-rod", "jaiswal-fourbar", "jaiswal-fourbar-friction"] {
            assert!(lookup(m).is_some(), "{m}");
        }
        assert!(lookup("excavator").is_none());
        // Variants inherit the manoeuvre of their base model; the longest base wins.
        assert_eq!(
            lookup("jaiswal-fourbar-double-step").unwrap().model,
            "jaiswal-fourbar"
        );
        assert_eq!(
            lookup("jaiswal-fourbar-friction-lugre").unwrap().model,
            "jaiswal-fourbar-friction"
        );
        assert!(lookup("naya-rodent").is_none());
        // Every table schedule starts at 0 and is sorted.
        for m in TABLE {
            for s in m.inputs {
                assert_eq!(s.segments[0].0, 0.0);
                assert!(s.segments.windows(2).all(|w| w[0].0 < w[1].0));
            }
        }
    }

    #[test]
    fn naya_rod_steps_the_spool_around_kappa0() {
        let k0 = 0.46460817485749223;
        let v = input("valve.command", 1, k0, Some((0.0, 1.0)));
        let p = plan("naya-rod", &[&v], 0.0, 10.0);
        assert_eq!(p.kind, "table");
        let s = &p.inputs[0];
        assert_eq!(s.value_reference, 1);
        let tol = 1e-9;
        assert_eq!(s.value_at(0.0, tol), k0);
        assert_eq!(s.value_at(1.99, tol), k0);
        assert_eq!(s.value_at(2.0, tol), k0 - 0.01);
        // 200 steps of 10 ms do not add up to exactly 2.0.
        assert_eq!(s.value_at(199.0 * 0.01 + 0.01, tol), k0 - 0.01);
        assert_eq!(s.value_at(5.99, tol), k0 - 0.01);
        assert_eq!(s.value_at(6.0, tol), k0 + 0.01);
        assert_eq!(s.value_at(9.99, tol), k0 + 0.01);
        assert_eq!(p.switch_times(), vec![2.0, 6.0]);
        assert_eq!(p.nearest_switch(5.0), Some(6.0));
    }

    #[test]
    fn fourbar_runs_the_pub_i_voltage_profile() {
        for model in ["jaiswal-fourbar", "jaiswal-fourbar-friction"] {
            let v = input("valve.command", 1, 0.0, Some((-10.0, 10.0)));
            let p = plan(model, &[&v], 0.0, 10.0);
            let s = &p.inputs[0];
            let at = |t| s.value_at(t, 1e-9);
            assert_eq!(
                [
                    at(0.5),
                    at(1.0),
                    at(2.4),
                    at(2.5),
                    at(4.9),
                    at(5.0),
                    at(7.9),
                    at(8.0),
                    at(9.9)
                ],
                [0.0, 10.0, 10.0, 0.0, 0.0, -10.0, -10.0, 0.0, 0.0]
            );
            assert_eq!(p.switch_times(), vec![1.0, 2.5, 5.0, 8.0]);
        }
    }

    #[test]
    fn unknown_models_get_the_generic_midway_step() {
        let a = input("a", 3, 0.0, Some((0.0, 1.0)));
        let b = input("b", 4, 0.0, Some((-10.0, 10.0)));
        let c = input("c", 5, 0.8, Some((0.0, 1.0)));
        let d = input("d", 6, 2.0, None);
        let p = plan("boom-chain-4", &[&a, &b, &c, &d], 1.0, 4.0);
        assert_eq!(p.kind, "generic");
        let vals: Vec<(f64, f64)> = p
            .inputs
            .iter()
            .map(|s| (s.value_at(2.9, 1e-9), s.value_at(3.0, 1e-9)))
            .collect();
        assert_eq!(vals, vec![(0.0, 0.5), (0.0, 5.0), (0.8, 0.4), (2.0, 2.2)]);
        assert_eq!(p.switch_times(), vec![3.0]);
        assert_eq!(generic_target(0.0, None, None), 0.1);
    }

    #[test]
    fn inputs_the_table_does_not_name_stay_at_start() {
        let v = input("valve.command", 1, 0.3, Some((0.0, 1.0)));
        let w = input("pump.speed", 2, 150.0, None);
        let p = plan("naya-rod", &[&v, &w], 0.0, 10.0);
        assert_eq!(p.inputs[1].segments, vec![(0.0, 150.0)]);
        assert_eq!(p.inputs[1].value_at(9.0, 1e-9), 150.0);
    }
}

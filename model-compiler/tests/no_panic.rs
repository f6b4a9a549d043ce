//! No input makes the compiler panic: property-based mutations of the shipped models
//! (lines deleted, duplicated and swapped, values replaced by garbage, NaN, huge numbers,
//! wrong types and wrong units, names swapped, characters injected) must give `Ok` or
//! errors with positions inside the file.

mod common;

use model_compiler::diagnostic::Source;
use proptest::prelude::*;
use std::path::Path;

fn model(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

const MODELS: [&str; 3] = [
    "naya-rod.toml",
    "jaiswal-fourbar.toml",
    "jaiswal-fourbar-friction.toml",
];

/// The newer tables, which no shipped model uses yet: the check-valve and accumulator
/// circuits, the end-stop slide, ... and a flexible body, of the component tests.
fn circuits() -> Vec<(&'static str, String)> {
    vec![
        ("check valve circuit", common::check_valve_circuit()),
        ("accumulator circuit", common::accumulator_circuit()),
        ("end-stop slide", common::end_stop_slide("10 mm", -9.81)),
        ("counterbalance lift", common::counterbalance_lift(1000.0)),
        ("load-sensing machine", common::load_sensing_machine()),
        ("winch and rope", common::winch(6.5, "assembled")),
        ("flexible boom on a cylinder", common::flexible_lift(true)),
        ("contact shapes", contact_shapes()),
    ]
}

/// Every collision shape and `[contact]` key (issue 49): a ball, a tilted box, a capsule
/// and a cylinder on free joints above a ground plane, materials given per shape and in
/// `[contact]`, pairs and groups of bodies, contact outputs.
fn contact_shapes() -> String {
    let body = |name: &str, z: f64, collision: &str| {
        format!(
            r#"[[bodies]]
name = "{name}"
parent = "ground"
joint = {{ type = "free", name = "{name}_joint", initial = [0, 0, {z}, 0, 0.1, 0.2] }}
mass = 2
com = [0, 0, 0]
inertia = [0.1, 0.1, 0.1, 0, 0, 0]
visual = [{{ shape = "box", center = [0, 0, 0], size = [0.2, 0.2, 0.2] }}]
collision = {collision}
"#
        )
    };
    let mut text = String::from(
        "[model]\nname = \"contacts\"\ngravity = [0, 0, -9.81]\n[solver]\nstep = \"1 ms\"\n[init]\nstatic_equilibrium = false\n",
    );
    text += &body(
        "ball",
        0.11,
        r#"[{ shape = "sphere", radius = "0.1 m", stiffness = "1e6 N/m", restitution = 0.5, friction = { static = 0.7, kinetic = 0.5 } }]"#,
    );
    text += &body(
        "brick",
        0.3,
        r#"[{ shape = "box", size = [0.2, 0.1, 0.1], rotation = { axis = [0, 0, 1], angle = "30 deg" }, exponent = 1 }]"#,
    );
    text += &body(
        "pin",
        0.5,
        r#"[{ shape = "capsule", from = [0, 0, -0.1], to = [0, 0, 0.1], radius = 0.02, stiction_velocity = "1 mm/s", friction_model = "lugre", bristle_stiffness = "1e5 1/m", bristle_damping = "200 s/m" }, { shape = "cylinder", from = [0, 0, 0], to = [0.1, 0, 0], radius = 0.05, stribeck_velocity = "20 mm/s" }]"#,
    );
    text += &body("crate", 0.8, r#""visual""#);
    text += r#"[contact]
ground = { shape = "plane", point = [0, 0, 0], normal = [0, 0, 1] }
stiffness = "1e5 N/m"
restitution = 0.6
friction = 0.4
friction_model = "lugre"
pairs = [{ bodies = ["ball", "brick"] }]
groups = [{ bodies = ["ball", "brick", "crate"] }]
[[interface.outputs]]
name = "ball_force"
quantity = "contact.ball.normal_force"
[[interface.outputs]]
name = "ball_on_brick"
quantity = "contact.ball.brick.normal_force"
[[interface.outputs]]
name = "points"
quantity = "contact.points"
"#;
    text
}

/// Values that replace a value of the file.
const GARBAGE: &[&str] = &[
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e-308",
    "0",
    "-0.0",
    "-1",
    "9223372036854775807",
    "-9223372036854775808",
    "\"1e400 bar\"",
    "\"nan deg\"",
    "\"5 bar\"",
    "\"80 mm\"",
    "\"30 deg\"",
    "\"-7 kg\"",
    "\"\"",
    "\"ground\"",
    "\"tank\"",
    "\"x.y\"",
    "\"😀\"",
    "\"\\u0001\"",
    "true",
    "[]",
    "[0, 0, 0]",
    "[1e308, 1e308, 1e308]",
    "[0, 0, 0, 0]",
    "[[0, 0]]",
    "[[1, 0], [0, 1]]",
    "{}",
    "{ a = 1 }",
    "\"spherical\"",
    "\"universal\"",
    "\"massless\"",
    "1979-05-27",
    "\"sphere\"",
    "\"plane\"",
    "{ static = 0.3, kinetic = 0.9 }",
    "[{ bodies = [\"ball\", \"pin\"] }]",
    "[{ bodies = [\"crate\"] }]",
    "\"coulomb\"",
    "\"lugre\"",
];

/// Lines injected into the file.
const LINES: &[&str] = &[
    "collision = \"visual\"",
    "collision = [{ shape = \"sphere\", radius = 0 }]",
    "[contact]",
    "pairs = [{ bodies = [\"ball\", \"crate\"] }]",
    "groups = [{ bodies = [\"ball\", \"brick\", \"pin\", \"nobody\"] }]",
    "[[bodies]]",
    "[[cut_joints]]",
    "[[hydraulics.volumes]]",
    "[[interface.outputs]]",
    "massless = true",
    "limits = [0, 1]",
    "name = \"crank\"",
    "parent = \"rocker\"",
    "type = \"spherical\"",
    "joint = { type = \"universal\", axes = [[0, 0, 1], [0, 0, 1]] }",
    "joint = { type = \"spherical\", initial = [0, \"90 deg\", 0] }",
    "parts = [{ shape = \"cylinder\", mass = 1, from = [0, 0, 0], to = [0, 0, 0], radius = 0 }]",
    "visual = [{ shape = \"mesh\", file = \"\" }]",
    "inertia = [1, 1, 3, 0, 0, 0]",
    "inertia = [1e308, 1e308, 1e308, 1e308, 0, 0]",
    "com = [1e308, 0, 0]",
    "quantity = \"O.q\"",
    "variability = \"tunable\"",
    "[model",
    "= = =",
    "\"",
];

#[derive(Clone, Debug)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    ReplaceValue(usize, usize),
    InjectLine(usize, usize),
    InjectChar(usize, char),
    Truncate(usize),
    SwapNames(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (any::<usize>(), 0..GARBAGE.len()).prop_map(|(a, b)| Mutation::ReplaceValue(a, b)),
        (any::<usize>(), 0..LINES.len()).prop_map(|(a, b)| Mutation::InjectLine(a, b)),
        (any::<usize>(), any::<char>()).prop_map(|(a, c)| Mutation::InjectChar(a, c)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapNames(a, b)),
    ]
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let n = lines.len().max(1);
    match *m {
        Mutation::DeleteLine(i) => {
            if !lines.is_empty() {
                lines.remove(i % n);
            }
        }
        Mutation::DuplicateLine(i) => {
            if !lines.is_empty() {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
        }
        Mutation::SwapLines(a, b) => {
            if !lines.is_empty() {
                lines.swap(a % n, b % n);
            }
        }
        Mutation::ReplaceValue(i, g) => {
            // The value after the first `=` of a line (or the first array element).
            let candidates: Vec<usize> = (0..lines.len())
                .filter(|&k| lines[k].contains('='))
                .collect();
            if !candidates.is_empty() {
                let k = candidates[i % candidates.len()];
                let line = &lines[k];
                let eq = line.find('=').unwrap();
                let rest = &line[eq + 1..];
                // Replace one whitespace/comma-delimited token of the value.
                let tokens: Vec<(usize, &str)> = rest
                    .split([',', ' ', '[', ']', '{', '}'])
                    .scan(0usize, |pos, t| {
                        let start = *pos;
                        *pos += t.len() + 1;
                        Some((start, t))
                    })
                    .filter(|(_, t)| !t.is_empty() && *t != "=")
                    .collect();
                if !tokens.is_empty() {
                    let (start, t) = tokens[(i / 7) % tokens.len()];
                    let at = eq + 1 + start;
                    let new = format!("{}{}{}", &line[..at], GARBAGE[g], &line[at + t.len()..]);
                    lines[k] = new;
                }
            }
        }
        Mutation::InjectLine(i, l) => lines.insert(i % (lines.len() + 1), LINES[l].to_string()),
        Mutation::InjectChar(i, c) => {
            let mut s = lines.join("\n");
            let mut at = i % (s.len() + 1);
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            s.insert(at, c);
            return s;
        }
        Mutation::Truncate(i) => {
            let s = lines.join("\n");
            let mut at = i % (s.len() + 1);
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            return s[..at].to_string();
        }
        Mutation::SwapNames(a, b) => {
            // Exchange two quoted strings of the file (references become wrong).
            let s = lines.join("\n");
            let quoted: Vec<(usize, usize)> = s
                .match_indices('"')
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
                .chunks(2)
                .filter(|c| c.len() == 2)
                .map(|c| (c[0], c[1] + 1))
                .collect();
            if quoted.len() >= 2 {
                let (x, y) = (quoted[a % quoted.len()], quoted[b % quoted.len()]);
                let (x, y) = if x.0 <= y.0 { (x, y) } else { (y, x) };
                if x.1 <= y.0 {
                    return format!(
                        "{}{}{}{}{}",
                        &s[..x.0],
                        &s[y.0..y.1],
                        &s[x.1..y.0],
                        &s[x.0..x.1],
                        &s[y.1..]
                    );
                }
            }
            return s;
        }
    }
    lines.join("\n")
}

/// Checks one text: no panic, and every error position lies inside the file.
fn check_text(text: &str) {
    let source = Source::new("m.toml", text);
    match model_compiler::check(&source) {
        Ok((_, lowered)) => {
            // The later stages must take whatever check accepted.
            let _ = model_compiler::emit::model_description::render(
                &lowered.model,
                "2026-01-01T00:00:00Z",
            );
            let _ = model_compiler::emit::documentation::render_lowered(&lowered);
            let _ = model_compiler::summary::report(&lowered);
            for w in &lowered.warnings {
                let _ = source.render(w);
            }
            // Equilibrium solve (init.solve_for) and GUID.
            if let Err(errors) = model_compiler::compile(&source) {
                assert!(!errors.is_empty());
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in &errors {
                if let Some(span) = &e.span {
                    assert!(span.start <= text.len(), "{e:?} outside the file");
                }
                let _ = source.render(e);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn mutated_models_never_panic(
        which in 0..MODELS.len() + 8,
        mutations in proptest::collection::vec(mutation(), 1..6),
    ) {
        let mut text = MODELS.get(which).map_or_else(
            || circuits().swap_remove(which - MODELS.len()).1,
            |m| model(m),
        );
        for m in &mutations {
            text = apply(&text, m);
        }
        check_text(&text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        check_text(&text);
    }

    /// The cross-check files a receiver hands to `hydromech verify`: mutated CSVs and
    /// `_ref.opt` files read to a table or an error naming a line, never a panic.
    #[test]
    fn cross_check_files_never_panic(
        cells in proptest::collection::vec(
            prop_oneof![
                Just("\"time\"".to_string()), Just("\"x\"".to_string()), Just("0".to_string()),
                Just("1e308".to_string()), Just("-inf".to_string()), Just("nan".to_string()),
                Just("".to_string()), Just("\"".to_string()), Just("0.5".to_string()),
                "\\PC{0,8}",
            ],
            0..24,
        ),
        breaks in proptest::collection::vec(0usize..24, 0..6),
    ) {
        use model_compiler::crosscheck::{csv, opt::RefOpt};
        let mut text = String::new();
        for (k, c) in cells.iter().enumerate() {
            text.push_str(c);
            text.push(if breaks.contains(&k) { '\n' } else { ',' });
        }
        for kind in [csv::Kind::Inputs, csv::Kind::Reference] {
            if let Err(e) = csv::parse(&text, kind) {
                prop_assert!(e.starts_with("line "), "{e}");
            }
        }
        let opt = text.replace("\"time\"", "StopTime").replace("\"x\"", "StepSize");
        let _ = RefOpt::parse(&opt);
    }
}

/// Every single-value replacement of every model, deterministically.
#[test]
fn every_value_replaced_by_every_garbage_value() {
    let texts = MODELS
        .iter()
        .map(|m| model(m))
        .chain(circuits().into_iter().map(|(_, text)| text));
    for text in texts {
        let lines = text.lines().count();
        for line in 0..lines {
            for g in 0..GARBAGE.len() {
                let mutated = apply(&text, &Mutation::ReplaceValue(line, g));
                check_text(&mutated);
            }
        }
    }
}

/// The shipped models still compile completely (equilibrium solve included).
#[test]
fn shipped_models_compile() {
    let texts = MODELS.iter().map(|m| (*m, model(m))).chain(circuits());
    for (name, text) in texts {
        let source = Source::new(name, text);
        if let Err(e) = model_compiler::compile(&source) {
            panic!("{name}: {e:?}");
        }
    }
}

/// Every single-value replacement of the contact description that compiles also runs
/// (issue 49): its model file decoded as an FMU's binary decodes it (the runtime's own
/// validation), instantiated, initialized and stepped for 0.1 s — errors allowed, a panic
/// never (the C ABI would turn one into `fmi2Error`, hiding it).
#[test]
fn mutated_contact_descriptions_run_without_a_panic() {
    use fmu_runtime::model::file;
    let text = contact_shapes();
    let (mut ran, mut stepped) = (0, 0);
    for line in 0..text.lines().count() {
        for (g, garbage) in GARBAGE.iter().enumerate() {
            let mutated = apply(&text, &Mutation::ReplaceValue(line, g));
            let Ok(lowered) = model_compiler::compile(&Source::new("m.toml", mutated)) else {
                continue;
            };
            let bytes = file::encode(&lowered.model);
            let result = std::panic::catch_unwind(|| {
                let Ok(model) = file::decode(&bytes, &lowered.model.guid) else {
                    return false;
                };
                let mut m = common::Machine::from_model(model);
                if m.inst.initialize(0.0).is_err() {
                    return false;
                }
                (1..=100).all(|k| m.inst.advance(k as f64 * 1e-3).is_ok())
            });
            match result {
                Ok(all) => stepped += usize::from(all),
                Err(_) => panic!("line {} with {garbage}: a panic", line + 1),
            }
            ran += 1;
        }
    }
    println!(
        "{ran} mutated contact descriptions compiled and ran, {stepped} for 0.1 s without an error"
    );
    assert!(ran > 100 && stepped > 100, "{ran} {stepped}");
}

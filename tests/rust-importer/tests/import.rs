//! Third importer: load every `fmus/*.fmu` in-process through the `fmi` crate 0.8.0
//! (jondo2010/rust-fmi) and run it as a Co-Simulation master would.
//!
//! The FMUs are build products: `cargo run --release -p model-compiler -- build` writes them
//! (`bash tests/run.sh` does that before `cargo test`). A missing FMU is a FAILURE here, never a
//! silent pass.

mod support;

use std::path::{Path, PathBuf};
use support::{fmus_dir, import};

use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::fmi2::schema::{Causality, Fmi2ModelDescription, ScalarVariableElement};
use fmi::traits::{FmiImport, FmiStatus};

const BUILD_HINT: &str = "run `cargo run --release -p model-compiler -- build` first \
                          (or `bash tests/run.sh`, which builds the FMUs before testing)";

/// Upper bound of communication steps per run, so that a model with a long DefaultExperiment
/// does not make `cargo test` slow.
const MAX_STEPS: usize = 20_000;

fn fmu_path(name: &str) -> PathBuf {
    let p = fmus_dir().join(format!("{name}.fmu"));
    assert!(p.is_file(), "{} does not exist: {BUILD_HINT}", p.display());
    p
}

fn real_vr(md: &Fmi2ModelDescription, name: &str) -> u32 {
    let v = md
        .model_variable_by_name(name)
        .unwrap_or_else(|e| panic!("{}: no variable {name:?}: {e}", md.model_name));
    assert!(
        matches!(v.elem, ScalarVariableElement::Real(_)),
        "{name} is not Real"
    );
    v.value_reference
}

fn real_start(md: &Fmi2ModelDescription, name: &str) -> Option<f64> {
    match &md.model_variable_by_name(name).ok()?.elem {
        ScalarVariableElement::Real(r) => r.start,
        _ => None,
    }
}

/// (name, value reference) of every Real output.
fn real_outputs(md: &Fmi2ModelDescription) -> Vec<(String, u32)> {
    md.get_model_variables()
        .filter(|v| v.causality == Causality::Output)
        .filter(|v| matches!(v.elem, ScalarVariableElement::Real(_)))
        .map(|v| (v.name.clone(), v.value_reference))
        .collect()
}

/// Input values that make the machine move (so that state tests compare a transient):
/// a spool step for naya-rod, +10 V for the four-bar, +1 % of the start value otherwise.
fn moving_inputs(md: &Fmi2ModelDescription) -> Vec<(u32, f64)> {
    md.get_model_variables()
        .filter(|v| v.causality == Causality::Input)
        .filter_map(|v| match &v.elem {
            ScalarVariableElement::Real(r) => {
                let start = r.start.unwrap_or(0.0);
                let value = match (md.model_name.as_str(), v.name.as_str()) {
                    ("naya-rod", "valve.command") => start - 0.01,
                    ("jaiswal-fourbar", "valve.command") => 10.0,
                    _ if start != 0.0 => start * 1.01,
                    _ => 0.01,
                };
                Some((v.value_reference, value))
            }
            _ => None,
        })
        .collect()
}

struct Run {
    /// outputs after initialisation, then after every step (rows), in `real_outputs` order
    rows: Vec<Vec<f64>>,
    names: Vec<String>,
    times: Vec<f64>,
}

fn instantiate(imp: &Fmi2Import, name: &str) -> InstanceCS {
    imp.instantiate_cs(name, false, false).unwrap_or_else(|e| {
        panic!(
            "{}: instantiate_cs failed: {e}",
            imp.model_description().model_name
        )
    })
}

fn init(inst: &mut InstanceCS, t0: f64, stop: f64) {
    inst.setup_experiment(None, t0, Some(stop))
        .expect("fmi2SetupExperiment");
    inst.enter_initialization_mode()
        .expect("fmi2EnterInitializationMode");
    inst.exit_initialization_mode()
        .expect("fmi2ExitInitializationMode");
}

fn read(inst: &mut InstanceCS, vrs: &[u32]) -> Vec<f64> {
    let mut v = vec![f64::NAN; vrs.len()];
    if !vrs.is_empty() {
        inst.get_real(vrs, &mut v)
            .expect("fmi2GetReal of the outputs");
    }
    v
}

/// Simulate with the DefaultExperiment (inputs at their start values), reading every Real output.
fn simulate(path: &Path) -> Run {
    let imp = import(path);
    let md = imp.model_description();
    assert_eq!(md.fmi_version, "2.0");
    let cs = md
        .co_simulation
        .as_ref()
        .expect("no <CoSimulation> element");
    assert!(!cs.model_identifier.is_empty());

    let de = md.default_experiment.as_ref();
    let t0 = de.and_then(|d| d.start_time).unwrap_or(0.0);
    let stop = de.and_then(|d| d.stop_time).unwrap_or(1.0);
    let h = de.and_then(|d| d.step_size).unwrap_or(0.01);
    assert!(h > 0.0 && stop > t0, "bad DefaultExperiment");
    let n = (((stop - t0) / h).round() as usize).min(MAX_STEPS);

    let outs = real_outputs(md);
    assert!(!outs.is_empty(), "{}: no Real outputs", md.model_name);
    let vrs: Vec<u32> = outs.iter().map(|(_, vr)| *vr).collect();

    let mut inst = instantiate(&imp, "rust-importer");
    init(&mut inst, t0, stop);
    let mut rows = vec![read(&mut inst, &vrs)];
    let mut times = vec![t0];
    // Communication points on the grid t0 + i*h, each step from the previous point
    // (as FMPy does: t + (t_next - t) == t_next exactly, so the FMU's time stays on the grid).
    let mut t = t0;
    for i in 0..n {
        let t_next = t0 + (i + 1) as f64 * h;
        inst.do_step(t, t_next - t, true)
            .unwrap_or_else(|e| panic!("{}: fmi2DoStep at t={t} failed: {e}", md.model_name));
        t = t_next;
        rows.push(read(&mut inst, &vrs));
        times.push(t);
    }
    inst.terminate().expect("fmi2Terminate");
    Run {
        rows,
        names: outs.into_iter().map(|(n, _)| n).collect(),
        times,
    }
}

fn assert_finite(model: &str, run: &Run) {
    for (row, t) in run.rows.iter().zip(&run.times) {
        for (v, name) in row.iter().zip(&run.names) {
            assert!(v.is_finite(), "{model}: {name} = {v} at t = {t}");
        }
    }
}

#[test]
fn naya_rod_imports_and_starts_at_half_a_metre() {
    let path = fmu_path("naya-rod");
    let imp = import(&path);
    let md = imp.model_description();
    for name in [
        "valve.command",
        "cylinder.length",
        "cylinder.speed",
        "cylinder.p_a",
        "cylinder.p_b",
        "cylinder.force",
        "rod.angle",
    ] {
        real_vr(md, name);
    }
    let kappa0 = real_start(md, "valve.command").expect("valve.command has no start value");
    assert!(
        (kappa0 - 0.4646082).abs() < 1e-6,
        "valve.command start = {kappa0}, expected the equilibrium 0.4646082"
    );
    drop(imp);

    let run = simulate(&path);
    assert_finite("naya-rod", &run);
    let il = run
        .names
        .iter()
        .position(|n| n == "cylinder.length")
        .unwrap();
    let ia = run.names.iter().position(|n| n == "rod.angle").unwrap();
    let l0 = run.rows[0][il];
    assert!(
        (l0 - 0.5).abs() <= 1e-9,
        "cylinder.length(0) = {l0}, expected 0.5 m"
    );
    let a0 = run.rows[0][ia];
    assert!(
        (a0 - std::f64::consts::FRAC_PI_6).abs() <= 1e-9,
        "rod.angle(0) = {a0}, expected pi/6"
    );
    // inputs at the equilibrium start value: the rod stays in static equilibrium
    // (checked over the first 2 s, as in the paper's schedule, eq. 38)
    for (row, t) in run
        .rows
        .iter()
        .zip(&run.times)
        .filter(|(_, t)| **t <= 2.0 + 1e-9)
    {
        assert!(
            (row[il] - 0.5).abs() <= 1e-6,
            "naya-rod drifts from equilibrium: cylinder.length = {} at t = {t}",
            row[il]
        );
    }
}

#[test]
fn every_fmu_runs_its_default_experiment() {
    for path in support::fmus_in(&fmus_dir(), BUILD_HINT) {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let run = simulate(&path);
        assert_finite(&name, &run);
        eprintln!(
            "{name}: {} outputs x {} communication points, all finite",
            run.names.len(),
            run.rows.len()
        );
    }
}

/// Rollback through the fmi crate's own state API (allocator callbacks = calloc/free here,
/// unlike FMPy): get state, step, restore, step again: identical bits.
#[test]
fn every_fmu_rolls_back_bit_identically() {
    for path in support::fmus_in(&fmus_dir(), BUILD_HINT) {
        let imp = import(&path);
        let md = imp.model_description();
        let cs = md.co_simulation.as_ref().unwrap();
        if cs.can_get_and_set_fmu_state != Some(true) {
            panic!("{}: canGetAndSetFMUstate is false", md.model_name);
        }
        let h = md
            .default_experiment
            .as_ref()
            .and_then(|d| d.step_size)
            .unwrap_or(0.01);
        let vrs: Vec<u32> = real_outputs(md).iter().map(|(_, vr)| *vr).collect();
        let mut inst = instantiate(&imp, "rollback");
        init(&mut inst, 0.0, 1.0e6);
        let (in_vrs, in_vals): (Vec<u32>, Vec<f64>) = moving_inputs(md).into_iter().unzip();
        if !in_vrs.is_empty() {
            inst.set_real(&in_vrs, &in_vals)
                .expect("fmi2SetReal of the inputs");
        }
        let mut t = 0.0;
        for _ in 0..10 {
            inst.do_step(t, h, false).expect("doStep");
            t += h;
        }
        let state = inst.get_fmu_state().expect("fmi2GetFMUstate");
        let bytes = inst
            .serialize_fmu_state(&state)
            .expect("fmi2SerializeFMUstate");
        assert!(!bytes.is_empty());
        let t1 = t;
        let mut first = Vec::new();
        for _ in 0..20 {
            inst.do_step(t, h, false).expect("doStep");
            t += h;
            first.push(read(&mut inst, &vrs));
        }
        inst.set_fmu_state(&state).ok().expect("fmi2SetFMUstate");
        t = t1;
        let mut second = Vec::new();
        for _ in 0..20 {
            inst.do_step(t, h, false).expect("doStep after rollback");
            t += h;
            second.push(read(&mut inst, &vrs));
        }
        assert_bits_eq(&md.model_name, &first, &second);

        // serialized state into a fresh instance of the same import
        let mut fresh = instantiate(&imp, "deserialized");
        init(&mut fresh, 0.0, 1.0e6);
        let st2 = fresh
            .deserialize_fmu_state(&bytes)
            .expect("fmi2DeSerializeFMUstate");
        fresh.set_fmu_state(&st2).ok().expect("fmi2SetFMUstate");
        t = t1;
        let mut third = Vec::new();
        for _ in 0..20 {
            fresh
                .do_step(t, h, false)
                .expect("doStep after deserialize");
            t += h;
            third.push(read(&mut fresh, &vrs));
        }
        assert_bits_eq(&md.model_name, &first, &third);
    }
}

fn assert_bits_eq(model: &str, a: &[Vec<f64>], b: &[Vec<f64>]) {
    for (i, (ra, rb)) in a.iter().zip(b).enumerate() {
        let ba: Vec<u64> = ra.iter().map(|x| x.to_bits()).collect();
        let bb: Vec<u64> = rb.iter().map(|x| x.to_bits()).collect();
        assert_eq!(
            ba, bb,
            "{model}: step {i} after restore differs: {ra:?} vs {rb:?}"
        );
    }
}

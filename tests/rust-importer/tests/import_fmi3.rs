//! The FMI 3.0 Co-Simulation FMUs (`fmus/fmi3/*.fmu`, `hydromech build --fmi 3`) in-process
//! through the `fmi` crate 0.8.0's FMI 3.0 importer: every model runs, and gives the FMI 2.0
//! FMU's outputs bit for bit (the same crate's FMI 2.0 importer) over the same manoeuvre.
//!
//! A missing FMU is a FAILURE here, never a silent pass.
//!
//! One workaround, for an importer bug: fmi-schema 0.8.0 declares the `<BaseUnit>` exponents
//! of ampere and kelvin as attributes `a` and `k`, and its strict parser refuses the
//! standard's `A` and `K` (fmi3Unit.xsd), so an FMU with a volt-valued valve command cannot be
//! imported by the `fmi` crate at all. The test hands the crate a copy whose model description
//! spells those two attributes its way; the binary and everything else are the FMU's own.

mod support;

use std::path::{Path, PathBuf};
use support::fmus_dir;

use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation as _, Common as _};
use fmi::fmi3::import::Fmi3Import;
use fmi::fmi3::schema::{AbstractVariableTrait, Causality, Variable};
use fmi::fmi3::{CoSimulation as _, Common as _, Fmi3Model as _, GetSet as _};
use fmi::traits::FmiImport;

const BUILD_HINT: &str = "run `cargo run --release --bin hydromech -- build --fmi 3 -o fmus/fmi3` \
                          (`bash tests/run.sh` does, before `cargo test`)";

/// Simulated time per model and the step of the input change.
const SPAN: f64 = 10.0;
const SWITCH: f64 = 0.05;

/// Float64 outputs (name, value reference).
type Outputs = Vec<(String, u32)>;
/// Continuous inputs (value reference, start).
type Inputs = Vec<(u32, f64)>;

fn interface(imp: &Fmi3Import) -> (Outputs, Inputs) {
    let md = imp.model_description();
    let mut outputs = Vec::new();
    let mut inputs = Vec::new();
    for v in &md.model_variables.variables {
        if let Variable::Float64(f) = v {
            match f.causality() {
                Causality::Output => outputs.push((f.name().to_string(), f.value_reference())),
                Causality::Input => {
                    let start = f.start.as_ref().and_then(|s| s.first().copied());
                    inputs.push((f.value_reference(), start.unwrap_or(0.0)))
                }
                _ => {}
            }
        }
    }
    (outputs, inputs)
}

/// The input after the switch: +1 % of its start value (0.01 from zero).
fn moved(start: f64) -> f64 {
    if start != 0.0 { start * 1.01 } else { 0.01 }
}

/// A copy of the FMU at `path` whose `<BaseUnit A=… K=…>` read `a=`, `k=` (module docs).
fn importable_copy(path: &Path) -> PathBuf {
    use std::io::{Read, Write};
    let mut zin = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("hydromech-fmi3-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(path.file_name().unwrap());
    let mut zout = zip::ZipWriter::new(std::fs::File::create(&out).unwrap());
    for i in 0..zin.len() {
        let mut entry = zin.by_index(i).unwrap();
        let name = entry.name().to_string();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        if name == "modelDescription.xml" {
            let text = String::from_utf8(data).unwrap();
            let fixed: Vec<String> = text
                .lines()
                .map(|l| {
                    if l.trim_start().starts_with("<BaseUnit") {
                        l.replace(" A=\"", " a=\"").replace(" K=\"", " k=\"")
                    } else {
                        l.to_string()
                    }
                })
                .collect();
            data = (fixed.join("\n") + "\n").into_bytes();
        }
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(entry.unix_mode().unwrap_or(0o644));
        zout.start_file(name, options).unwrap();
        zout.write_all(&data).unwrap();
    }
    zout.finish().unwrap();
    out
}

fn run_fmi3(path: &Path) -> (Vec<String>, Vec<Vec<f64>>, f64) {
    let path = &importable_copy(path);
    let imp: Fmi3Import = fmi::import::from_path(path)
        .unwrap_or_else(|e| panic!("fmi crate cannot import {}: {e}", path.display()));
    let md = imp.model_description();
    assert_eq!(md.fmi_version, "3.0");
    let h = md
        .default_experiment
        .as_ref()
        .and_then(|d| d.step_size)
        .unwrap_or(0.01);
    let (outputs, inputs) = interface(&imp);
    let vrs: Vec<u32> = outputs.iter().map(|(_, vr)| *vr).collect();
    let mut inst = imp
        .instantiate_cs("rust-fmi3", false, false, false, false, &[])
        .unwrap_or_else(|e| panic!("{}: instantiate_cs: {e}", path.display()));
    inst.enter_initialization_mode(None, 0.0, Some(SPAN))
        .expect("fmi3EnterInitializationMode");
    inst.exit_initialization_mode()
        .expect("fmi3ExitInitializationMode");
    let n = (SPAN / h).round() as usize;
    let mut rows = Vec::with_capacity(n);
    let mut t = 0.0;
    for i in 0..n {
        for (vr, start) in &inputs {
            let u = if t < SWITCH { *start } else { moved(*start) };
            inst.set_float64(&[*vr], &[u]).expect("fmi3SetFloat64");
        }
        let t_next = (i + 1) as f64 * h;
        let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
        inst.do_step(
            t,
            t_next - t,
            true,
            &mut event,
            &mut terminate,
            &mut early,
            &mut last,
        )
        .unwrap_or_else(|e| panic!("{}: fmi3DoStep at t = {t}: {e}", path.display()));
        assert!(!event && !terminate && !early, "plain step returned early");
        assert_eq!(last, t_next);
        t = t_next;
        let mut row = vec![f64::NAN; vrs.len()];
        inst.get_float64(&vrs, &mut row).expect("fmi3GetFloat64");
        rows.push(row);
    }
    inst.terminate().expect("fmi3Terminate");
    (outputs.into_iter().map(|(n, _)| n).collect(), rows, h)
}

fn run_fmi2(path: &Path, names: &[String], inputs: &[(u32, f64)], h: f64) -> Vec<Vec<f64>> {
    let imp: Fmi2Import = fmi::import::from_path(path)
        .unwrap_or_else(|e| panic!("fmi crate cannot import {}: {e}", path.display()));
    let md = imp.model_description();
    let vrs: Vec<u32> = names
        .iter()
        .map(|n| {
            md.model_variable_by_name(n)
                .expect("the same outputs")
                .value_reference
        })
        .collect();
    let mut inst = imp
        .instantiate_cs("rust-fmi2", false, false)
        .expect("instantiate");
    inst.setup_experiment(None, 0.0, Some(SPAN)).unwrap();
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    let n = (SPAN / h).round() as usize;
    let mut rows = Vec::with_capacity(n);
    let mut t = 0.0;
    for i in 0..n {
        for (vr, start) in inputs {
            let u = if t < SWITCH { *start } else { moved(*start) };
            inst.set_real(&[*vr], &[u]).unwrap();
        }
        let t_next = (i + 1) as f64 * h;
        inst.do_step(t, t_next - t, true).unwrap();
        t = t_next;
        let mut row = vec![f64::NAN; vrs.len()];
        inst.get_real(&vrs, &mut row).unwrap();
        rows.push(row);
    }
    rows
}

#[test]
fn every_fmi3_fmu_runs_and_equals_its_fmi2_twin_bit_for_bit() {
    let mut checked = Vec::new();
    for path in support::fmus_in(&fmus_dir().join("fmi3"), BUILD_HINT) {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (names, rows3, h) = run_fmi3(&path);
        let imp: Fmi3Import = fmi::import::from_path(importable_copy(&path)).unwrap();
        let (_, inputs) = interface(&imp);
        let fmi2 = fmus_dir().join(format!("{stem}.fmu"));
        assert!(
            fmi2.is_file(),
            "{} is missing: build the FMI 2.0 FMUs too",
            fmi2.display()
        );
        let rows2 = run_fmi2(&fmi2, &names, &inputs, h);
        assert_eq!(rows2.len(), rows3.len());
        for (k, (a, b)) in rows2.iter().zip(&rows3).enumerate() {
            for ((x, y), name) in a.iter().zip(b).zip(&names) {
                assert!(
                    x.to_bits() == y.to_bits(),
                    "{stem}: {name} at step {k}: FMI 2.0 {x} vs FMI 3.0 {y}"
                );
                assert!(y.is_finite(), "{stem}: {name} = {y} at step {k}");
            }
        }
        checked.push(format!(
            "{stem} ({} steps × {} outputs)",
            rows3.len(),
            names.len()
        ));
    }
    eprintln!(
        "FMI 3.0 = FMI 2.0 bit for bit through the fmi crate: {}",
        checked.join(", ")
    );
}

//! The supplier package (`hydromech package`, issue 23) imported by the `fmi` crate: every
//! linux64 FMU of `target/package` run over its `_in.csv` and `_ref.opt`, at the
//! communication points of its `_ref.csv`, reproduces `_ref.csv` inside the cross-check's
//! tolerance tube — and bit for bit, since the inputs and points are the reference's.
//!
//! The tree is a build product (`bash tests/run.sh` writes it before `cargo test`); a missing
//! tree is a FAILURE.

use std::path::{Path, PathBuf};

use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common};
use fmi::traits::FmiImport;
use model_compiler::crosscheck::csv::{self, Kind, Table};
use model_compiler::crosscheck::opt::RefOpt;
use model_compiler::crosscheck::tube;
use model_compiler::simulate::InputSeries;

fn package_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HYDROMECH_PACKAGE_DIR") {
        return PathBuf::from(dir);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root).join("target/package")
}

fn model_dirs() -> Vec<PathBuf> {
    let base = package_dir().join("fmus/2.0/cs/linux64/hydromech");
    let mut dirs = Vec::new();
    for version in std::fs::read_dir(&base).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run `target/release/hydromech package -o target/package` (tests/run.sh does)",
            base.display()
        )
    }) {
        for model in std::fs::read_dir(version.unwrap().path()).unwrap() {
            dirs.push(model.unwrap().path());
        }
    }
    dirs.sort();
    assert!(!dirs.is_empty(), "no model in {}", base.display());
    dirs
}

fn table(path: &Path, kind: Kind) -> Table {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    csv::parse(&text, kind).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn vr(imp: &Fmi2Import, name: &str) -> u32 {
    imp.model_description()
        .model_variable_by_name(name)
        .unwrap_or_else(|e| panic!("no variable {name}: {e}"))
        .value_reference
}

#[test]
fn every_packaged_fmu_reproduces_its_reference_through_the_fmi_crate() {
    for dir in model_dirs() {
        let model = dir.file_name().unwrap().to_string_lossy().into_owned();
        let file = |suffix: &str| dir.join(format!("{model}{suffix}"));
        let opt = RefOpt::parse(&std::fs::read_to_string(file("_ref.opt")).unwrap()).unwrap();
        let inputs = table(&file("_in.csv"), Kind::Inputs);
        let reference = table(&file("_ref.csv"), Kind::Reference);
        let series = InputSeries {
            names: inputs.names.clone(),
            time: inputs.time.clone(),
            values: inputs.rows.clone(),
        };

        let imp: Fmi2Import = fmi::import::from_path(file(".fmu"))
            .unwrap_or_else(|e| panic!("{model}: fmi crate cannot import: {e}"));
        let in_vr: Vec<u32> = inputs.names.iter().map(|n| vr(&imp, n)).collect();
        let out_vr: Vec<u32> = reference.names.iter().map(|n| vr(&imp, n)).collect();
        let mut inst = imp.instantiate_cs("crosscheck", false, false).unwrap();
        inst.setup_experiment(Some(opt.rel_tol), opt.start_time, Some(opt.stop_time))
            .unwrap();
        inst.set_real(&in_vr, &series.value_at(opt.start_time, false))
            .unwrap();
        inst.enter_initialization_mode().unwrap();
        inst.exit_initialization_mode().unwrap();
        let mut rows = Vec::new();
        let mut row = vec![0.0; out_vr.len()];
        inst.get_real(&out_vr, &mut row).unwrap();
        rows.push(row.clone());
        for w in reference.time.windows(2) {
            let (t, next) = (w[0], w[1]);
            inst.set_real(&in_vr, &series.at(t)).unwrap();
            inst.do_step(t, next - t, true)
                .unwrap_or_else(|e| panic!("{model}: fmi2DoStep at {t}: {e}"));
            inst.get_real(&out_vr, &mut row).unwrap();
            rows.push(row.clone());
        }
        inst.terminate().unwrap();

        for (j, name) in reference.names.iter().enumerate() {
            let y: Vec<f64> = rows.iter().map(|r| r[j]).collect();
            let c = tube::compare(&reference.time, &y, &reference.time, &reference.column(j));
            assert!(c.passed(), "{model}: {name}: {c:?}");
            let differ = y
                .iter()
                .zip(&reference.rows)
                .filter(|(a, r)| a.to_bits() != r[j].to_bits())
                .count();
            assert_eq!(
                differ, 0,
                "{model}: {name}: {differ} values differ from _ref.csv"
            );
        }
        println!(
            "{model}: {} points × {} outputs, bit-identical to _ref.csv",
            reference.time.len(),
            reference.names.len()
        );
    }
}

//! `hydromech package`: a model's FMU with its cross-check files, in the FMI Cross-Check
//! tree `fmus/2.0/cs/<platform>/hydromech/<version>/<Model>/`, one directory per platform
//! the FMU carries.
//!
//! The experiment is the one FMPy runs when it imports the FMU for the cross-check: FMPy's
//! co-simulation ignores a step size it is given and takes the FMU's default experiment
//! step, doubled until the run has at most 1000 steps; `_ref.opt` states that step, so that
//! FMPy, any other importer and `hydromech verify` all run the same communication points.
//! The FMU's internal solver step is unchanged; only the inputs are sampled more coarsely
//! than on the model's page.

use super::csv;
use super::opt::RefOpt;
use super::readme;
use crate::diagnostic::Source;
use crate::lower::report::{ReportSpec, is_automatic};
use crate::report;
use crate::simulate::{self, InputSeries, communication_points, isclose, step_times};
use fmu_runtime::model::{Causality, VarType};
use std::path::{Path, PathBuf};

/// The cross-check's limit on every file but the FMU.
pub const MAX_CSV_BYTES: usize = 1_000_000;
/// FMPy's cross-check report marks a CSV of more rows with a warning.
const MAX_ROWS: usize = 1000;
/// FMPy's limit on the number of communication steps of an imported run.
const MAX_STEPS: f64 = 1000.0;
/// The tool folder of the tree.
pub const TOOL: &str = "hydromech";

/// What was written for one model.
#[derive(Debug)]
pub struct Packaged {
    pub model: String,
    /// One directory per platform.
    pub directories: Vec<PathBuf>,
    pub opt: RefOpt,
    /// Rows and columns of `_in.csv` and `_ref.csv`.
    pub inputs: (usize, usize),
    pub reference: (usize, usize),
    /// The inputs were resampled onto the communication points (over 1000 rows or 1 MB).
    pub resampled: bool,
    /// Real outputs not in `_ref.csv` (not plotted by `[report]`; the computed `solver.`,
    /// `energy.` and `constraints.` outputs when nothing is plotted).
    pub left_out: Vec<String>,
}

/// The folder of `model` for `platform` under `root`.
pub fn model_dir(root: &Path, platform: &str, model: &str) -> PathBuf {
    root.join("fmus")
        .join("2.0")
        .join("cs")
        .join(platform)
        .join(TOOL)
        .join(env!("CARGO_PKG_VERSION"))
        .join(model)
}

/// FMPy's communication step for a co-simulation import (`simulate_fmu`, 0.3.32): the
/// default experiment's step size, doubled while the run would take over 1000 steps.
pub fn fmpy_step(default_step: f64, start: f64, stop: f64) -> f64 {
    let mut h = default_step;
    while (stop - start) / h > MAX_STEPS {
        h *= 2.0;
    }
    h
}

/// Every Real input of the model as one table: the manoeuvre's series on the union of
/// their times (two rows at a step), inputs without a series at their start value.
fn merge(names: &[(String, f64)], series: &[InputSeries], at: Option<&[f64]>) -> InputSeries {
    let events = step_times(series);
    let times: Vec<f64> = match at {
        Some(points) => points.to_vec(),
        None => {
            let mut t: Vec<f64> = series.iter().flat_map(|s| s.time.clone()).collect();
            t.sort_by(f64::total_cmp);
            t.dedup();
            t
        }
    };
    let value = |name: &str, t: f64, after: bool, default: f64| {
        series
            .iter()
            .find(|s| s.names.first().is_some_and(|n| n == name))
            .map_or(default, |s| s.value_at(t, after)[0])
    };
    let mut table = InputSeries {
        names: names.iter().map(|(n, _)| n.clone()).collect(),
        time: Vec::new(),
        values: Vec::new(),
    };
    for &t in &times {
        let sides: &[bool] = if events.iter().any(|&e| isclose(e, t)) {
            &[false, true]
        } else {
            &[true]
        };
        for &after in sides {
            table.time.push(t);
            table.values.push(
                names
                    .iter()
                    .map(|(n, start)| value(n, t, after, *start))
                    .collect(),
            );
        }
    }
    table
}

/// Writes the cross-check directories of one description under `root`.
pub fn package(
    source: &Source,
    root: &Path,
    platforms: &[String],
    allow_idle: bool,
) -> Result<Packaged, String> {
    let render = |errors: Vec<crate::diagnostic::Diagnostic>| {
        errors
            .iter()
            .map(|e| source.render(e))
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let l = crate::compile(source).map_err(render)?;
    let spec: &ReportSpec = &l.report;
    let loaded = report::load(spec, &source.path).map_err(render)?;
    let binaries = crate::emit::runtime::select(platforms)?;
    let model = source
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| l.model.model_identifier.clone());
    let experiment = &l.model.default_experiment;
    let (start, stop) = (experiment.start_time, spec.stop_time);
    if spec.start_time != start {
        return Err(format!(
            "{}: the standard manoeuvre starts at {} s, the FMU's default experiment at {start} s; an importer starts there (set [report] start_time to {start})",
            source.path.display(),
            spec.start_time
        ));
    }
    let h = fmpy_step(experiment.step_size, start, stop);
    let opt = RefOpt {
        start_time: start,
        stop_time: stop,
        step_size: h,
        rel_tol: experiment.tolerance,
    };

    // _in.csv: the manoeuvre's inputs (every Real input, so that no importer warns of a
    // missing one), resampled onto the communication points if the full series has more
    // than 1000 rows or 1 MB (what an importer at StepSize sees is unchanged).
    let inputs: Vec<(String, f64)> = l
        .model
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Input && v.var_type == VarType::Real)
        .map(|v| (v.name.clone(), v.start.unwrap_or(0.0)))
        .collect();
    // A reference run with every input held proves nothing of the circuit: refused unless
    // asked for (issue 48, item 3).
    if spec.inputs.is_empty() && !inputs.is_empty() && !allow_idle {
        return Err(format!(
            "{}: no manoeuvre: [report] gives no inputs, so the reference run would hold every input ({}) at its start value\nhelp: add a manoeuvre to the description, e.g.\n  [report]\n  stop_time = 10.0\n  inputs.\"{}\" = [[0, 0], [1, 0], [1.05, 1], [6, 1]]\n(docs/description-format.md, `[report]`), or package the idle run with --allow-idle",
            source.path.display(),
            inputs
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            inputs[0].0
        ));
    }
    let mut table = merge(&inputs, &loaded.inputs, None);
    if table.time.is_empty() {
        table = merge(&inputs, &[], Some(&[start, stop]));
    }
    let mut in_csv = csv::write(&table.names, &table.time, &table.values);
    let mut resampled = false;
    if in_csv.len() >= MAX_CSV_BYTES || table.time.len() > MAX_ROWS {
        let events = step_times(&loaded.inputs);
        let points = communication_points(start, stop, h, &events);
        table = merge(&inputs, &loaded.inputs, Some(&points));
        in_csv = csv::write(&table.names, &table.time, &table.values);
        resampled = true;
        if in_csv.len() >= MAX_CSV_BYTES {
            return Err(format!(
                "{model}_in.csv would be {} bytes even on the communication points; the cross-check allows {MAX_CSV_BYTES}",
                in_csv.len()
            ));
        }
    }
    // The reference run reads what an importer reads.
    let shipped = csv::parse(&in_csv, csv::Kind::Inputs)
        .map_err(|e| format!("{model}_in.csv as written: {e}"))?;

    // _ref.csv: the outputs the model's page plots.
    let mut outputs: Vec<String> = Vec::new();
    let mut not_outputs: Vec<String> = Vec::new();
    for s in spec.plots.iter().flat_map(|p| &p.signals) {
        let v = l.model.variables.iter().find(|v| &v.name == s);
        match v {
            Some(v) if v.causality == Causality::Output && v.var_type == VarType::Real => {
                if !outputs.contains(s) {
                    outputs.push(s.clone());
                }
            }
            _ => not_outputs.push(s.clone()),
        }
    }
    if outputs.is_empty() {
        outputs = l
            .model
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Output && v.var_type == VarType::Real)
            .filter(|v| !is_automatic(&v.name))
            .map(|v| v.name.clone())
            .collect();
    }

    let left_out: Vec<String> = l
        .model
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Output && v.var_type == VarType::Real)
        .filter(|v| !outputs.contains(&v.name))
        .map(|v| v.name.clone())
        .collect();
    let temp =
        std::env::temp_dir().join(format!("hydromech-package-{}-{model}", std::process::id()));
    let _ = std::fs::remove_dir_all(&temp);
    std::fs::create_dir_all(&temp).map_err(|e| format!("{}: {e}", temp.display()))?;
    let result = (|| {
        let fmu = crate::build_for(source, &temp, platforms).map_err(render)?;
        let options = simulate::Options {
            stop_time: stop,
            step: Some(h),
            input_series: vec![InputSeries {
                names: shipped.names.clone(),
                time: shipped.time.clone(),
                values: shipped.rows.clone(),
            }],
            vars: outputs.clone(),
            progress: true,
            ..Default::default()
        };
        let results = simulate::run(&fmu, &options).map_err(|(r, e)| {
            format!(
                "the reference run stopped at t = {:?} s: {e}",
                r.time.last()
            )
        })?;
        let ref_csv = csv::write(&results.names, &results.time, &results.rows);
        if ref_csv.len() >= MAX_CSV_BYTES {
            return Err(format!(
                "{model}_ref.csv would be {} bytes; the cross-check allows {MAX_CSV_BYTES} (plot fewer signals)",
                ref_csv.len()
            ));
        }
        let fmu_bytes = std::fs::read(&fmu).map_err(|e| format!("{}: {e}", fmu.display()))?;
        let opt_text = opt.write();
        let mut directories = Vec::new();
        for b in &binaries {
            let dir = model_dir(root, b.platform, &model);
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let text = readme::render(&readme::Facts {
                model: &model,
                platform: b.platform,
                lowered: &l,
                source_text: &source.text,
                spec,
                opt: &opt,
                outputs: &outputs,
                not_outputs: &not_outputs,
                left_out: &left_out,
                inputs: &table,
                resampled,
                reference_rows: results.time.len(),
            });
            let files: [(String, &[u8]); 5] = [
                (format!("{model}.fmu"), &fmu_bytes),
                (format!("{model}_in.csv"), in_csv.as_bytes()),
                (format!("{model}_ref.csv"), ref_csv.as_bytes()),
                (format!("{model}_ref.opt"), opt_text.as_bytes()),
                ("README.md".to_string(), text.as_bytes()),
            ];
            for (name, data) in files {
                let p = dir.join(&name);
                std::fs::write(&p, data).map_err(|e| format!("{}: {e}", p.display()))?;
            }
            directories.push(dir);
        }
        Ok(Packaged {
            model: model.clone(),
            directories,
            opt,
            inputs: (table.time.len(), table.names.len()),
            reference: (results.time.len(), results.names.len()),
            resampled,
            left_out,
        })
    })();
    let _ = std::fs::remove_dir_all(&temp);
    result
}

/// Writes `<root>/README.md`: every model folder of the tree (whatever runs wrote them) with
/// its platforms and experiment, and how a receiver checks an import.
pub fn write_index(root: &Path) -> Result<PathBuf, String> {
    use std::collections::BTreeMap;
    use std::fmt::Write as _;
    let cs = root.join("fmus").join("2.0").join("cs");
    let list = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .map(|r| {
                r.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    // model -> (version, platforms, experiment)
    let mut models: BTreeMap<String, (String, Vec<String>, String)> = BTreeMap::new();
    for platform in list(&cs) {
        for version in list(&platform.join(TOOL)) {
            for dir in list(&version) {
                let model = dir
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                let opt = std::fs::read_to_string(dir.join(format!("{model}_ref.opt")))
                    .ok()
                    .and_then(|t| RefOpt::parse(&t).ok())
                    .map_or("—".into(), |o| {
                        format!(
                            "{:?} … {:?} s, step {:?} s",
                            o.start_time, o.stop_time, o.step_size
                        )
                    });
                let e = models.entry(model).or_insert_with(|| {
                    (
                        version
                            .file_name()
                            .unwrap_or_default()
                            .to_string_lossy()
                            .into_owned(),
                        Vec::new(),
                        opt,
                    )
                });
                e.1.push(
                    platform
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    let mut s = format!(
        "# FMUs exported by hydromech {}, with their cross-check files\n\n",
        env!("CARGO_PKG_VERSION")
    );
    s.push_str(
        "The FMI Cross-Check layout: `fmus/2.0/cs/<platform>/hydromech/<version>/<Model>/` holds the FMU, its inputs (`_in.csv`), its reference results (`_ref.csv`, computed by the FMU itself), the settings that reproduce them (`_ref.opt`) and a README on the machine and the comparison.\n\n",
    );
    s.push_str("| model | version | platforms | experiment |\n|---|---|---|---|\n");
    for (model, (version, platforms, opt)) in &models {
        let _ = writeln!(
            s,
            "| {model} | {version} | {} | {opt} |",
            platforms.join(", ")
        );
    }
    s.push_str(
        "\nCheck an import:\n\n```sh\npython -m fmpy.cross_check.validate_vendor_repo .     # the files: 0 problems\npython -m fmpy.cross_check --fmus_dir fmus --simulate --result_dir results   # FMPy as the importer (scipy; plots need plotly + kaleido)\nhydromech verify . --exact                            # re-run every FMU (win64 under wine), tube and bit for bit\n```\n",
    );
    let path = root.join("README.md");
    std::fs::write(&path, s).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmpy_doubles_the_default_step_to_at_most_1000_steps() {
        assert_eq!(fmpy_step(0.01, 0.0, 10.0), 0.01);
        assert_eq!(fmpy_step(0.001, 0.0, 10.0), 0.016);
        assert_eq!(fmpy_step(0.001, 0.0, 27.0), 0.032);
    }

    #[test]
    fn inputs_merge_on_the_union_of_times_with_two_rows_at_a_step() {
        let a = InputSeries {
            names: vec!["a".into()],
            time: vec![0.0, 1.0, 1.0, 2.0],
            values: vec![vec![0.0], vec![0.0], vec![5.0], vec![5.0]],
        };
        let b = InputSeries {
            names: vec!["b".into()],
            time: vec![0.0, 2.0],
            values: vec![vec![0.0], vec![4.0]],
        };
        let names = [
            ("a".to_string(), 9.0),
            ("b".to_string(), 9.0),
            ("c".to_string(), 7.0),
        ];
        let m = merge(&names, &[a, b], None);
        assert_eq!(m.time, [0.0, 1.0, 1.0, 2.0]);
        assert_eq!(
            m.values,
            [
                [0.0, 0.0, 7.0],
                [0.0, 2.0, 7.0],
                [5.0, 2.0, 7.0],
                [5.0, 4.0, 7.0]
            ]
        );
    }
}

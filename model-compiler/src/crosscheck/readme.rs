//! The `README.md` beside each packaged FMU: what the machine is, the manoeuvre, what the
//! reference is and how it was made, the comparison and its tolerance, and how to reproduce
//! it with FMPy, with hydromech and in a modelling tool.

use super::opt::RefOpt;
use crate::lower::Lowered;
use crate::lower::report::{InputSource, ReportSpec};
use crate::simulate::InputSeries;
use std::fmt::Write as _;

/// What the README states.
pub struct Facts<'a> {
    pub model: &'a str,
    pub platform: &'a str,
    pub lowered: &'a Lowered,
    pub source_text: &'a str,
    pub spec: &'a ReportSpec,
    pub opt: &'a RefOpt,
    pub outputs: &'a [String],
    /// Plotted signals that are not outputs (not in `_ref.csv`).
    pub not_outputs: &'a [String],
    /// Outputs not in `_ref.csv` (not plotted).
    pub left_out: &'a [String],
    /// `_in.csv` as written.
    pub inputs: &'a InputSeries,
    pub resampled: bool,
    pub reference_rows: usize,
}

fn unit(l: &Lowered, name: &str) -> String {
    l.model
        .variables
        .iter()
        .find(|v| v.name == name)
        .and_then(|v| v.unit.clone())
        .unwrap_or_else(|| "1".into())
}

fn description(l: &Lowered, name: &str) -> String {
    l.model
        .variables
        .iter()
        .find(|v| v.name == name)
        .map(|v| v.description.replace('|', "\\|"))
        .unwrap_or_default()
}

pub fn render(f: &Facts) -> String {
    let l = f.lowered;
    let m = &l.model;
    let o = f.opt;
    let version = env!("CARGO_PKG_VERSION");
    let mut s = String::new();
    let _ = writeln!(s, "# {}: FMI 2.0 Co-Simulation, {}\n", f.model, f.platform);
    let _ = writeln!(
        s,
        "Exported by hydromech {version}, in the FMI Cross-Check layout (`fmus/2.0/cs/{}/hydromech/{version}/{}/`).\n",
        f.platform, f.model
    );
    if !m.metadata.description.is_empty() {
        let _ = writeln!(s, "> {}\n", m.metadata.description);
    }
    let what = crate::report::leading_paragraph(f.source_text);
    if !what.is_empty() {
        let _ = writeln!(s, "{what}\n");
    }

    let _ = writeln!(s, "## Files\n");
    let _ = writeln!(s, "| file | what |\n|---|---|");
    let _ = writeln!(
        s,
        "| `{0}.fmu` | the FMU (model identifier `{1}`, GUID `{2}`): one runtime binary per platform in `binaries/`, the compiled machine in `resources/hydromech-model.bin` |",
        f.model, m.model_identifier, m.guid
    );
    let _ = writeln!(
        s,
        "| `{}_in.csv` | the inputs: {} rows × {} inputs, linear between rows, a repeated time is a step |",
        f.model,
        f.inputs.time.len(),
        f.inputs.names.len()
    );
    let _ = writeln!(
        s,
        "| `{}_ref.csv` | the reference results: {} communication points × {} outputs, computed by this FMU through its C ABI on linux64 |",
        f.model,
        f.reference_rows,
        f.outputs.len()
    );
    let _ = writeln!(
        s,
        "| `{}_ref.opt` | the experiment: StartTime {:?} s, StopTime {:?} s, StepSize {:?} s, RelTol {:?} |\n",
        f.model, o.start_time, o.stop_time, o.step_size, o.rel_tol
    );

    let _ = writeln!(s, "## The manoeuvre\n");
    let _ = writeln!(
        s,
        "From {:?} s to {:?} s with communication step {:?} s. The FMU's default experiment step is {:?} s; FMPy, when it imports a co-simulation FMU, takes that step doubled until the run has at most 1000 steps, and the reference uses the same, so that every importer runs the same communication points. Inside each communication step the FMU integrates with its own internal step (parameter `solver.step`, start {} s); the inputs are applied at the start of each communication step and held over it.\n",
        o.start_time,
        o.stop_time,
        o.step_size,
        m.default_experiment.step_size,
        m.variables
            .iter()
            .find(|v| v.name == "solver.step")
            .and_then(|v| v.start)
            .map_or("—".into(), |v| format!("{v:?}"))
    );
    for name in &f.inputs.names {
        let how = match f.spec.inputs.iter().find(|i| &i.name == name) {
            Some(i) => match &i.source {
                InputSource::Schedule(points) => format!(
                    "piecewise linear through (t, value) = {}",
                    points
                        .iter()
                        .map(|(t, v)| format!("({t}, {v})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                InputSource::Csv(c) => format!(
                    "column `{}` of `{}`, the file the description's `[report]` names (path relative to the description); resampled into `_in.csv`",
                    c.column, c.file
                ),
            },
            None => "held at its start value".into(),
        };
        let _ = writeln!(s, "- `{name}` [{}]: {how}", unit(l, name));
    }
    s.push('\n');
    if f.resampled {
        let _ = writeln!(
            s,
            "The inputs are written at the communication points (the full series has more rows than the cross-check's 1000 or bytes than its 1 MB); an importer that runs the reference's communication points sees exactly the values the reference saw.\n"
        );
    }
    if !f.spec.parameters.is_empty() {
        let _ = writeln!(
            s,
            "The model's documentation page also sets {}; the cross-check format has no place for parameters, so this run keeps every parameter at its start value.\n",
            f.spec
                .parameters
                .iter()
                .map(|(n, v)| format!("`{n}` = {v:?} (SI)"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    let _ = writeln!(s, "## Reference outputs\n");
    let _ = writeln!(s, "| variable | unit | description |\n|---|---|---|");
    for n in f.outputs {
        let _ = writeln!(s, "| `{n}` | {} | {} |", unit(l, n), description(l, n));
    }
    s.push('\n');
    if !f.left_out.is_empty() {
        let _ = writeln!(
            s,
            "Outputs of the FMU not in `_ref.csv` ({} of {}; the reference holds those the description's `[report]` plots — add a signal to a `[[report.plots]]` entry to include it): {}.\n",
            f.left_out.len(),
            f.left_out.len() + f.outputs.len(),
            f.left_out
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if !f.not_outputs.is_empty() {
        let _ = writeln!(
            s,
            "Not in `_ref.csv` (plotted on the model page but not FMU outputs): {}.\n",
            f.not_outputs
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    let _ = writeln!(s, "## Comparison\n");
    let _ = writeln!(
        s,
        "An import reproduces the reference when every output passes the cross-check's tolerance tube (FMPy's `fmpy.util.validate_signal`): the reference is resampled onto 1000 points over the run, the tube is the running minimum and maximum over 20 of those points (±1 % of the run in time) widened by 10 % of the output's range, and fewer than 10 % of the result's points may fall outside it. The FMU is deterministic: the same communication points and inputs give the reference bit for bit, on linux64 and on win64 alike (`hydromech verify --exact`).\n"
    );

    let _ = writeln!(s, "## Reproduce\n");
    let _ = writeln!(s, "With FMPy (the cross-check's importer):\n");
    let _ = writeln!(
        s,
        "```python\nfrom fmpy import simulate_fmu\nfrom fmpy.util import read_csv, read_ref_opt_file, validate_result\n\nopt = read_ref_opt_file(\"{m}_ref.opt\")\nref = read_csv(\"{m}_ref.csv\")\nres = simulate_fmu(\"{m}.fmu\", fmi_type=\"CoSimulation\",\n                   start_time=opt[\"StartTime\"], stop_time=opt[\"StopTime\"],\n                   output_interval=opt[\"StepSize\"], input=read_csv(\"{m}_in.csv\"),\n                   output=ref.dtype.names[1:])\nprint(\"share of points outside the tube:\", validate_result(res, ref))  # < 0.1 passes\n```\n",
        m = f.model
    );
    let _ = writeln!(
        s,
        "or the whole tree: `python -m fmpy.cross_check --fmus_dir <tree>/fmus --simulate --result_dir results` (needs scipy, and plotly with kaleido for its plots).\n"
    );
    let _ = writeln!(
        s,
        "With hydromech (runs the FMU's {} binary{}, compares with the tube and reports, per output, the share outside it and the largest deviation with its time and `_ref.csv` line): `hydromech verify .`\n",
        f.platform,
        if f.platform == "win64" {
            " under wine on Linux"
        } else {
            ""
        }
    );
    let _ = writeln!(
        s,
        "In Dymola, Simulink, SimulationX or another tool: import `{m}.fmu` as a co-simulation FMU, drive each input from the column of `{m}_in.csv` with the same name (linear interpolation; at a repeated time the later row), run from StartTime to StopTime with the fixed communication step StepSize of `{m}_ref.opt`, and compare the outputs with `{m}_ref.csv`.",
        m = f.model
    );
    s
}

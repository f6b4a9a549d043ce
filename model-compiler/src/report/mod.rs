//! `hydromech report`: one Markdown page per model (`docs/models/<name>.md`) with a drawing
//! of the machine at its initial pose, the FMU interface, the standard manoeuvre of the
//! description's `[report]` table run through the FMU's C ABI, its plots (SVG), and — where
//! a plot has reference curves from a CSV — the RMS and maximum difference between model
//! and reference.

mod compare;
mod data;
pub mod drawing;
pub mod flexible;
pub mod plot;
mod tables;

pub use compare::{Difference, compare, interpolate};
pub use data::{Csv, Loaded, load, parse_csv};
pub use tables::leading_paragraph;
use tables::{cell, interface_tables, leading_comment, num};

use crate::description::Description;
use crate::diagnostic::{Diagnostic, Source};
use crate::lower::Lowered;
use crate::lower::report::{InputSource, variable_dim};
use crate::simulate::{self};
use fmu_runtime::model::{Causality, VarType, Variable};
use plot::Series;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What `report` did for one model.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub page: PathBuf,
    /// Files written (page and pictures).
    pub files: Vec<PathBuf>,
    /// The run failed part-way (the page shows what was computed).
    pub failure: Option<String>,
    pub seconds: f64,
}

/// Writes `<out_dir>/<stem>.md` and `<out_dir>/<stem>/*.svg` for one description.
/// `command` is how the page says to regenerate it. Errors are rendered with positions.
pub fn report(source: &Source, out_dir: &Path, command: &str) -> Result<Outcome, String> {
    let started = Instant::now();
    let render = |errors: Vec<Diagnostic>| {
        errors
            .iter()
            .map(|e| source.render(e))
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let d = Description::parse(&source.text).map_err(|e| render(vec![e]))?;
    let l = crate::compile(source).map_err(render)?;
    let spec = &l.report;
    let loaded = load(spec, &source.path).map_err(render)?;
    let stem = source
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| l.model.name.clone());
    let pictures = out_dir.join(&stem);
    std::fs::create_dir_all(&pictures).map_err(|e| format!("{}: {e}", pictures.display()))?;
    let mut files = Vec::new();
    let mut write = |name: &str, content: &str| -> Result<(), String> {
        let p = pictures.join(name);
        std::fs::write(&p, content).map_err(|e| format!("{}: {e}", p.display()))?;
        files.push(p);
        Ok(())
    };

    // Drawing at the initial pose (the parameters of the manoeuvre applied).
    let user_bodies: Vec<String> = d.bodies.iter().map(|b| b.name.get_ref().clone()).collect();
    let z = initial_coordinates(&l);
    write(
        "drawing.svg",
        &drawing::machine(&l, &z, spec.view, &user_bodies),
    )?;

    // The run, through the FMU's C ABI.
    let temp = std::env::temp_dir().join(format!("hydromech-report-{}-{stem}", std::process::id()));
    let _ = std::fs::remove_dir_all(&temp);
    std::fs::create_dir_all(&temp).map_err(|e| format!("{}: {e}", temp.display()))?;
    // With flexible bodies, the run records their modal coordinates for the bending lines.
    let built = if l.flexible.is_empty() {
        crate::build(source, &temp)
    } else {
        let with_modes = flexible::with_modal_outputs(&d, &l.flexible);
        crate::compile_at(&with_modes, source.path.parent())
            .and_then(|lm| crate::write_fmu(&lm, &stem, &temp, &[]))
    }
    .map_err(render);
    let fmu = match built {
        Ok(f) => f,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&temp);
            return Err(e);
        }
    };
    let inputs: Vec<&Variable> = l
        .model
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Input && v.var_type == VarType::Real)
        .collect();
    let mut vars: Vec<String> = inputs.iter().map(|v| v.name.clone()).collect();
    for p in &spec.plots {
        for s in &p.signals {
            if !vars.contains(s) {
                vars.push(s.clone());
            }
        }
    }
    for f in &l.flexible {
        vars.extend((1..=f.reduction.flexible.modes()).map(|k| flexible::modal_output(&f.name, k)));
    }
    let options = simulate::Options {
        stop_time: spec.stop_time,
        step: Some(spec.step),
        input_series: loaded.inputs.clone(),
        set: spec
            .parameters
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect(),
        vars,
        progress: true,
        ..Default::default()
    };
    let (results, failure) = match simulate::run(&fmu, &options) {
        Ok(r) => (r, None),
        Err((r, e)) => (r, Some(e)),
    };
    let _ = std::fs::remove_dir_all(&temp);
    let column = |name: &str| -> Vec<f64> {
        match results.names.iter().position(|n| n == name) {
            Some(k) => results.rows.iter().map(|r| r[k]).collect(),
            None => Vec::new(),
        }
    };
    let var = |name: &str| l.model.variables.iter().find(|v| v.name == name);

    // The page.
    let m = &l.model;
    let mut page = String::new();
    let _ = writeln!(page, "# {}\n", m.name);
    if !m.metadata.description.is_empty() {
        let _ = writeln!(page, "> {}\n", cell(&m.metadata.description));
    }
    let what = leading_paragraph(&source.text);
    if !what.is_empty() {
        let _ = writeln!(page, "{what}\n");
    }
    let user_count = l.declared_bodies;
    let motors = match m.circuit.motors.len() {
        0 => String::new(),
        1 => "1 rotary motor, ".to_string(),
        n => format!("{n} rotary motors, "),
    };
    // The description this page was built from, as a link from the page.
    let source_file = source
        .path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let source_link = relative_link(&source.path, &source_file, out_dir);
    let source_name = match source.path.parent().and_then(|p| p.file_name()) {
        Some(dir) => format!("{}/{source_file}", dir.to_string_lossy()),
        None => source_file.clone(),
    };
    let _ = writeln!(
        page,
        "**Structure:** {user_count} bod{}, {} degree{} of freedom ({} joint coordinates, {} independent loop-closure equations), {} hydraulic cylinder{}, {motors}{} valve{}, {} pressure volume{}. Source: [`{source_name}`]({source_link}).\n",
        if user_count == 1 { "y" } else { "ies" },
        l.analysis.dof,
        if l.analysis.dof == 1 { "" } else { "s" },
        l.analysis.coordinates,
        l.analysis.rank,
        m.circuit.cylinders.len(),
        if m.circuit.cylinders.len() == 1 {
            ""
        } else {
            "s"
        },
        m.circuit.spools.len(),
        if m.circuit.spools.len() == 1 { "" } else { "s" },
        m.circuit.volumes(),
        if m.circuit.volumes() == 1 { "" } else { "s" },
    );
    let _ = writeln!(
        page,
        "![{} at its initial pose]({stem}/drawing.svg)\n",
        m.name
    );
    let _ = writeln!(
        page,
        "*The machine at its initial pose, projected onto the {}–{} plane: bodies (visual geometry, or links through their joints and attachment points), joints ○ (cut joints dashed), hydraulic cylinders as barrel (dark) and rod (light), markers in red, ground anchors hatched.*\n",
        ["x", "y", "z"][spec.view[0]],
        ["x", "y", "z"][spec.view[1]]
    );

    let _ = writeln!(page, "## FMU interface\n");
    interface_tables(&mut page, &m.variables);

    let _ = writeln!(page, "## Standard manoeuvre\n");
    let _ = writeln!(
        page,
        "{} s to {} s, communication step {} ms{}.\n",
        num(spec.start_time),
        num(spec.stop_time),
        num(spec.step * 1e3),
        if spec.declared {
            " (the description's `[report]` table)"
        } else {
            " (the description has no `[report]` table: the default experiment with the inputs at their start values)"
        }
    );
    let mut manoeuvre_lines = Vec::new();
    for i in &spec.inputs {
        let unit = var(&i.name)
            .and_then(|v| v.unit.clone())
            .map(|u| format!(" [{u}]"))
            .unwrap_or_default();
        let text = match &i.source {
            InputSource::Schedule(points) if points.len() <= 12 => format!(
                "piecewise linear through (t, value{unit}) = {}",
                points
                    .iter()
                    .map(|(t, v)| format!("({}, {})", num(*t), num(*v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            InputSource::Schedule(points) => {
                format!("piecewise linear through {} points", points.len())
            }
            InputSource::Csv(c) => format!(
                "column `{}` of [`{}`]({}){}",
                c.column,
                c.file,
                relative_link(&source.path, &c.file, out_dir),
                if c.factor != 1.0 {
                    format!(" × {}", num(c.factor))
                } else {
                    String::new()
                }
            ),
        };
        manoeuvre_lines.push(format!("- `{}`: {text}", i.name));
    }
    for v in &inputs {
        if !spec.inputs.iter().any(|i| i.name == v.name) {
            manoeuvre_lines.push(format!(
                "- `{}`: held at its start value {}",
                v.name,
                v.start.map_or("—".into(), num)
            ));
        }
    }
    for (n, v) in &spec.parameters {
        manoeuvre_lines.push(format!("- parameter `{n}` = {} (SI)", num(*v)));
    }
    if !manoeuvre_lines.is_empty() {
        let _ = writeln!(page, "{}\n", manoeuvre_lines.join("\n"));
    }
    if !inputs.is_empty() {
        // One panel per input unit would be nicer; inputs share one when their units agree.
        let mut groups: Vec<(Option<String>, Vec<&Variable>)> = Vec::new();
        for v in &inputs {
            match groups.iter_mut().find(|g| g.0 == v.unit) {
                Some(g) => g.1.push(v),
                None => groups.push((v.unit.clone(), vec![v])),
            }
        }
        for (k, (unit, vs)) in groups.iter().enumerate() {
            let series: Vec<Series> = vs
                .iter()
                .enumerate()
                .map(|(c, v)| Series {
                    label: v.name.clone(),
                    time: results.time.clone(),
                    values: column(&v.name),
                    colour: c,
                    reference: false,
                })
                .collect();
            let name = if k == 0 {
                "inputs.svg".to_string()
            } else {
                format!("inputs-{}.svg", k + 1)
            };
            let label = match unit {
                Some(u) => format!("input [{u}]"),
                None => "input".into(),
            };
            write(&name, &plot::line_plot("Inputs", &label, &series))?;
            let _ = writeln!(page, "![inputs]({stem}/{name})\n");
        }
    }
    if let Some(e) = &failure {
        let _ = writeln!(
            page,
            "**The run stopped early** (t = {} s): {}\n",
            results.time.last().map_or("—".into(), |t| num(*t)),
            cell(e)
        );
    }

    let _ = writeln!(page, "## Results\n");
    for (k, p) in spec.plots.iter().enumerate() {
        let mut series = Vec::new();
        for (c, s) in p.signals.iter().enumerate() {
            series.push(Series {
                label: if p.references.is_empty() {
                    s.clone()
                } else {
                    format!("{s} (model)")
                },
                time: results.time.clone(),
                values: column(s).iter().map(|v| v / p.factor).collect(),
                colour: c,
                reference: false,
            });
        }
        let mut rows = Vec::new();
        for (r, (rt, rv)) in p.references.iter().zip(&loaded.references[k]) {
            let c = p.signals.iter().position(|s| *s == r.signal).unwrap_or(0);
            series.push(Series {
                label: r.label.clone(),
                time: rt.clone(),
                values: rv.clone(),
                colour: c,
                reference: true,
            });
            let mv: Vec<f64> = column(&r.signal).iter().map(|v| v / p.factor).collect();
            let d = compare(&results.time, &mv, rt, rv);
            rows.push(format!(
                "| `{}` | {} | {} | {} | {} | {} |",
                r.signal,
                cell(&r.label),
                num(d.mean),
                num(d.rms),
                num(d.max),
                d.points
            ));
        }
        let unit = if p.unit.is_empty() {
            String::new()
        } else {
            format!(" [{}]", p.unit)
        };
        let y_label = if p.signals.len() == 1 {
            format!("{}{unit}", p.signals[0])
        } else {
            let what = var(&p.signals[0])
                .map(|v| variable_dim(v).describe())
                .unwrap_or_default();
            let what = what
                .strip_prefix("an ")
                .or_else(|| what.strip_prefix("a "))
                .filter(|w| !w.starts_with("quantity"))
                .unwrap_or("value");
            format!("{what}{unit}")
        };
        let name = format!("plot-{}.svg", k + 1);
        write(&name, &plot::line_plot(&p.title, &y_label, &series))?;
        let _ = writeln!(page, "### {}\n", p.title);
        let _ = writeln!(page, "![{}]({stem}/{name})\n", cell(&p.title));
        if !rows.is_empty() {
            let u = if p.unit.is_empty() { "1" } else { &p.unit };
            let _ = writeln!(
                page,
                "Model − reference (Δ) on the reference's time points, in {u}:\n"
            );
            let _ = writeln!(
                page,
                "| signal | reference | mean Δ | RMS Δ | max \\|Δ\\| | points |"
            );
            let _ = writeln!(page, "|---|---|---|---|---|---|");
            let _ = writeln!(page, "{}\n", rows.join("\n"));
        }
    }

    flexible::section(
        &mut page,
        &l.flexible,
        &results.time,
        &column,
        &stem,
        &mut write,
    )?;

    let notes = leading_comment(&source.text);
    if !notes.trim().is_empty() {
        let _ = writeln!(
            page,
            "## Notes from the description\n\n<details><summary>The leading comment of <code>{source_name}</code></summary>\n\n```text\n{}\n```\n\n</details>\n",
            notes.trim_end()
        );
    }
    let _ = writeln!(page, "---\n\nRegenerate: `{command}`");
    let page_path = out_dir.join(format!("{stem}.md"));
    std::fs::write(&page_path, &page).map_err(|e| format!("{}: {e}", page_path.display()))?;
    files.insert(0, page_path.clone());
    Ok(Outcome {
        page: page_path,
        files,
        failure,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The link from a page in `out_dir` to a file named relative to the description.
fn relative_link(description: &Path, file: &str, out_dir: &Path) -> String {
    let target = description.parent().unwrap_or(Path::new("")).join(file);
    let abs = |p: &Path| {
        std::path::absolute(p)
            .ok()
            .map(|p| normalise(&p))
            .unwrap_or_else(|| p.to_path_buf())
    };
    let (target, from) = (abs(&target), abs(out_dir));
    let t: Vec<_> = target.components().collect();
    let f: Vec<_> = from.components().collect();
    let common = t.iter().zip(&f).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); f.len() - common];
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// `a/b/../c` → `a/c` (no file system access).
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The joint coordinates at the start of the manoeuvre (the runtime assembles the
/// mechanism from the initial values, with the report's parameters applied).
fn initial_coordinates(l: &Lowered) -> Vec<f64> {
    let model = Arc::new(l.model.clone());
    let mut inst = fmu_runtime::Instance::new(model.clone());
    for (name, value) in &l.report.parameters {
        if let Some(v) = model.variables.iter().find(|v| v.name == *name)
            && let fmu_runtime::model::Binding::Param(id) = v.binding
        {
            inst.set_param(id, *value);
        }
    }
    let _ = inst.initialize(l.report.start_time);
    inst.state().z.clone()
}

/// `<out_dir>/README.md`: every page in the directory, with its description.
pub fn write_index(out_dir: &Path) -> Result<PathBuf, String> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(out_dir)
        .map_err(|e| format!("{}: {e}", out_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "md")
                && p.file_name().is_some_and(|n| n != "README.md")
        })
        .collect();
    pages.sort();
    let mut s = String::from(
        "# Model pages\n\nOne page per machine description in `models/`: what it is, a drawing of the machine, its FMU interface and plots of a standard manoeuvre run through the FMU (with comparisons against reference data where the description gives them). Generated by `cargo run --release -p model-compiler -- report` (all models) or `... report models/<name>.toml`.\n\n| model | description |\n|---|---|\n",
    );
    for p in &pages {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        let title = text
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .unwrap_or("")
            .to_string();
        let description = text
            .lines()
            .find_map(|l| l.strip_prefix("> "))
            .unwrap_or("");
        let file = p.file_name().unwrap_or_default().to_string_lossy();
        let stem = p.file_stem().unwrap_or_default().to_string_lossy();
        let _ = writeln!(
            s,
            "| [{title}]({file}) <br> <img src=\"{stem}/drawing.svg\" width=\"240\" alt=\"{title}\"> | {description} |",
        );
    }
    let path = out_dir.join("README.md");
    std::fs::write(&path, s).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// Reads the CSV columns of `[report]` (files, columns, time order): `hydromech check`.
pub fn check_csv(source: &Source, l: &Lowered) -> Result<(), Vec<Diagnostic>> {
    load(&l.report, &source.path).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_columns_and_interpolation() {
        let c = parse_csv("# comment\n\"t\",a,b\n0,1,\n1,3,2\n").unwrap();
        assert_eq!(c.names, ["t", "a", "b"]);
        assert_eq!(c.columns[1], [1.0, 3.0]);
        assert!(c.columns[2][0].is_nan());
        assert!(parse_csv("t,a\n0,x\n").unwrap_err().contains("line 2"));
        assert_eq!(interpolate(&[0.0, 1.0], &[1.0, 3.0], 0.25), 1.5);
        assert!(interpolate(&[0.0, 1.0], &[1.0, 3.0], 1.5).is_nan());
        let d = compare(
            &[0.0, 1.0, 2.0],
            &[0.0, 1.0, 2.0],
            &[0.5, 1.5, 9.0],
            &[0.0, 2.0, 0.0],
        );
        assert_eq!(d.points, 2);
        assert!((d.rms - 0.5).abs() < 1e-12 && (d.max - 0.5).abs() < 1e-12);
        assert!(d.mean.abs() < 1e-12);
        assert!(compare(&[0.0], &[0.0], &[5.0], &[0.0]).rms.is_nan());
    }

    #[test]
    fn the_first_comment_paragraph_says_what_it_is() {
        let t = "# A crane.\n# Two lines.\n#\n# Details.\n[model]\n";
        assert_eq!(leading_paragraph(t), "A crane. Two lines.");
        assert_eq!(leading_comment(t), "A crane.\nTwo lines.\n\nDetails.");
    }
}

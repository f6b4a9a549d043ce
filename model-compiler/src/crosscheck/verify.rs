//! `hydromech verify`: re-runs a packaged FMU against its `_in.csv` and `_ref.opt` and
//! compares the outputs with `_ref.csv` using the cross-check's tolerance tube
//! ([`super::tube`]); with `exact`, every value must also match the reference bit for bit.
//!
//! Every file is checked before the run, and a fault is a verdict that names the file and
//! line, never a crash: a missing `_ref.opt`, a column naming a variable the FMU lacks, a
//! time column that does not increase, a number that is not one.

use super::csv::{self, Table};
use super::opt::RefOpt;
use super::tube;
use super::wine;
use crate::host::fmu_xml;
use crate::host::xml::{self, ModelDescription, VarType};
use crate::simulate::{self, InputSeries, Results, communication_points, isclose, step_times};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One FMU with its cross-check files.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub dir: PathBuf,
    pub model: String,
    pub fmu: PathBuf,
    /// The platform folder of the cross-check tree (`linux64` outside one).
    pub platform: String,
}

impl Case {
    fn file(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("{}{suffix}", self.model))
    }
}

/// The cases under `path`: an `.fmu` (its files beside it), or a directory searched for
/// model directories (`<Model>/<Model>.fmu`, as FMPy's cross-check walks a tree).
pub fn cases(path: &Path) -> Result<Vec<Case>, String> {
    let case = |fmu: &Path| {
        let dir = fmu.parent().unwrap_or(Path::new(".")).to_path_buf();
        let model = fmu
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parts: Vec<String> = dir
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let platform = parts
            .iter()
            .position(|p| p == "cs" || p == "me")
            .and_then(|i| parts.get(i + 1))
            .cloned()
            .unwrap_or_else(|| "linux64".into());
        Case {
            dir,
            model,
            fmu: fmu.to_path_buf(),
            platform,
        }
    };
    if path.is_file() {
        if path.extension().is_none_or(|x| x != "fmu") {
            return Err(format!(
                "{}: not an .fmu; give an FMU (with its _in.csv, _ref.csv and _ref.opt beside it) or a directory",
                path.display()
            ));
        }
        return Ok(vec![case(path)]);
    }
    if !path.is_dir() {
        return Err(format!("{}: no such file or directory", path.display()));
    }
    let mut found = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut fmus = Vec::new();
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "fmu") {
                fmus.push(p);
            }
        }
        fmus.sort();
        found.extend(fmus.iter().map(|f| case(f)));
    }
    found.sort_by(|a, b| a.fmu.cmp(&b.fmu));
    if found.is_empty() {
        return Err(format!("{}: no .fmu below it", path.display()));
    }
    Ok(found)
}

/// How to verify.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Also require every value to equal the reference bit for bit.
    pub exact: bool,
    /// The binary to run (`linux64`, `win64`); default: the case's platform folder, and
    /// linux64 where that platform's binary cannot run here (the report says so).
    pub platform: Option<String>,
}

/// The outcome of one case: its report lines and whether it passed.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub passed: bool,
    pub report: String,
    /// Per reference variable: name, tube comparison, values that differ in any bit.
    pub signals: Vec<(String, tube::Comparison, usize)>,
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!("{}: missing", path.display())
        } else {
            format!("{}: cannot read it: {e}", path.display())
        }
    })
}

/// `path:line: message` from a parser's `line N: message`.
fn located(path: &Path, e: String) -> String {
    match e.strip_prefix("line ") {
        Some(rest) => {
            let end = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            format!("{}:{}{}", path.display(), &rest[..end], &rest[end..])
        }
        None => format!("{}: {e}", path.display()),
    }
}

/// The columns of `table` must be Real variables of the FMU with the causality wanted.
fn check_columns(
    path: &Path,
    table: &Table,
    md: &ModelDescription,
    wanted: &[&str],
) -> Result<(), String> {
    for (j, name) in table.names.iter().enumerate() {
        let line = 1;
        let column = j + 2;
        let Some(v) = md.variable(name) else {
            let names = md.variables.iter().map(|v| v.name.as_str());
            let hint = match crate::names::closest(name, names) {
                Some(s) => format!("; did you mean \"{s}\"?"),
                None => String::new(),
            };
            return Err(format!(
                "{}:{line}: column {column}: the FMU has no variable \"{name}\"{hint}",
                path.display()
            ));
        };
        if v.var_type != VarType::Real || !wanted.contains(&v.causality.as_str()) {
            return Err(format!(
                "{}:{line}: column {column}: \"{name}\" is a {:?} {} variable; this file takes Real {} variables",
                path.display(),
                v.var_type,
                v.causality,
                wanted.join(" or ")
            ));
        }
    }
    Ok(())
}

/// The reference's experiment and tables, checked against the FMU.
struct Prepared {
    md: ModelDescription,
    opt: RefOpt,
    inputs: Option<Table>,
    reference: Table,
}

fn prepare(case: &Case) -> Result<Prepared, String> {
    let opt_path = case.file("_ref.opt");
    let opt = RefOpt::parse(&read(&opt_path)?).map_err(|e| located(&opt_path, e))?;
    let mut zip = fmu_xml::open_fmu(&case.fmu)?;
    let text = fmu_xml::model_description_text(&mut zip, &case.fmu)?;
    let md = xml::parse(&text).map_err(|e| format!("{}: {e}", case.fmu.display()))?;
    if !isclose(opt.start_time, md.start_time) {
        return Err(format!(
            "{}: StartTime {} differs from the FMU's default experiment start {}",
            opt_path.display(),
            opt.start_time,
            md.start_time
        ));
    }
    let ref_path = case.file("_ref.csv");
    let reference =
        csv::parse(&read(&ref_path)?, csv::Kind::Reference).map_err(|e| located(&ref_path, e))?;
    check_columns(
        &ref_path,
        &reference,
        &md,
        &[
            "output",
            "local",
            "parameter",
            "calculatedParameter",
            "input",
        ],
    )?;
    if reference.time.len() < 2 {
        return Err(format!("{}: needs at least two rows", ref_path.display()));
    }
    let (first, last) = (reference.time[0], reference.time[reference.time.len() - 1]);
    if first > opt.start_time && !isclose(first, opt.start_time) {
        return Err(format!(
            "{}:{}: starts at {first} s, after StartTime {} s",
            ref_path.display(),
            reference.lines[0],
            opt.start_time
        ));
    }
    if last < opt.stop_time && !isclose(last, opt.stop_time) {
        return Err(format!(
            "{}:{}: ends at {last} s, before StopTime {} s",
            ref_path.display(),
            reference.lines[reference.lines.len() - 1],
            opt.stop_time
        ));
    }
    let in_path = case.file("_in.csv");
    let inputs = if in_path.exists() {
        let t =
            csv::parse(&read(&in_path)?, csv::Kind::Inputs).map_err(|e| located(&in_path, e))?;
        check_columns(&in_path, &t, &md, &["input"])?;
        Some(t)
    } else if !md.real_inputs().is_empty() {
        return Err(format!(
            "{}: missing; the FMU has inputs ({})",
            in_path.display(),
            md.real_inputs()
                .iter()
                .map(|v| v.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    } else {
        None
    };
    Ok(Prepared {
        md,
        opt,
        inputs,
        reference,
    })
}

/// The index of the reference row nearest to `t`.
fn nearest(time: &[f64], t: f64) -> usize {
    let i = time.partition_point(|&x| x < t);
    if i == 0 {
        0
    } else if i == time.len() || t - time[i - 1] <= time[i] - t {
        i - 1
    } else {
        i
    }
}

/// Values of reference column `j` that differ in any bit from the result at the same time
/// (a reference time with no result point counts as differing).
fn differing(results: &Results, k: usize, reference: &Table, j: usize) -> usize {
    let mut n = 0;
    for (i, &t) in reference.time.iter().enumerate() {
        let r = results
            .time
            .partition_point(|&x| x < t - 1e-9 * t.abs().max(1.0));
        let same = results
            .time
            .get(r)
            .is_some_and(|&x| isclose(x, t) || x == t)
            && results.rows[r][k].to_bits() == reference.rows[i][j].to_bits();
        if !same {
            n += 1;
        }
    }
    n
}

/// Which binary runs a case, and why when it is not the case's own platform.
fn choose_binary(case: &Case, o: &Options) -> Result<(&'static str, String), String> {
    let wanted = o.platform.as_deref().unwrap_or(&case.platform);
    let forced = o.platform.is_some();
    match wanted {
        "linux64" => Ok(("linux64", String::new())),
        "win64" => match wine::unavailable() {
            None => Ok(("win64", String::new())),
            Some(why) if !forced => Ok(("linux64", format!("; {why}: ran the linux64 binary"))),
            Some(why) => Err(format!("cannot run the win64 binary: {why}")),
        },
        other if !forced => Ok((
            "linux64",
            format!("; {other} binaries cannot run here: ran the linux64 binary"),
        )),
        other => Err(format!(
            "cannot run {other} binaries here (linux64 natively, win64 under wine)"
        )),
    }
}

/// The run through the win64 binary under wine, on the communication points and with the
/// inputs of [`simulate::run`].
fn run_win64(case: &Case, p: &Prepared, series: &[InputSeries]) -> Result<Results, String> {
    let events = step_times(series);
    let points = communication_points(p.opt.start_time, p.opt.stop_time, p.opt.step_size, &events);
    let vr = |n: &String| p.md.variable(n).map(|v| v.value_reference).unwrap_or(0);
    let empty = InputSeries {
        names: Vec::new(),
        time: vec![0.0],
        values: vec![Vec::new()],
    };
    let s = series.first().unwrap_or(&empty);
    let plan = wine::Plan {
        description: &p.md,
        inputs: &s.names.iter().map(vr).collect::<Vec<_>>(),
        outputs: &p.reference.names.iter().map(vr).collect::<Vec<_>>(),
        names: &p.reference.names,
        initial: s.value_at(p.opt.start_time, false),
        points: &points,
        values: points[..points.len() - 1]
            .iter()
            .map(|&t| s.at(t))
            .collect(),
    };
    wine::run(&case.fmu, &plan)
}

/// Runs and compares one case.
pub fn verify(case: &Case, o: &Options) -> Verdict {
    let mut report = String::new();
    let fail = |mut report: String, e: String| {
        let _ = writeln!(report, "  FAIL  {e}");
        Verdict {
            passed: false,
            report,
            signals: Vec::new(),
        }
    };
    let (binary, note) = match choose_binary(case, o) {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(report, "{} ({}):", case.fmu.display(), case.model);
            return fail(report, e);
        }
    };
    let _ = writeln!(
        report,
        "{} ({}, {binary} binary{}{note}):",
        case.fmu.display(),
        case.model,
        if binary == "win64" { " under wine" } else { "" }
    );
    let p = match prepare(case) {
        Ok(p) => p,
        Err(e) => return fail(report, e),
    };
    let series: Vec<InputSeries> = p
        .inputs
        .iter()
        .map(|t| InputSeries {
            names: t.names.clone(),
            time: t.time.clone(),
            values: t.rows.clone(),
        })
        .collect();
    let run = if binary == "win64" {
        run_win64(case, &p, &series).map_err(|e| (Results::default(), e))
    } else {
        let options = simulate::Options {
            start_time: Some(p.opt.start_time),
            stop_time: p.opt.stop_time,
            step: Some(p.opt.step_size),
            input_series: series,
            vars: p.reference.names.clone(),
            ..Default::default()
        };
        simulate::run(&case.fmu, &options)
    };
    let results = match run {
        Ok(r) => r,
        Err((r, e)) => {
            return fail(
                report,
                format!(
                    "the run stopped at t = {} s: {e}",
                    r.time.last().map_or("—".into(), |t| t.to_string())
                ),
            );
        }
    };
    let ref_name = format!("{}_ref.csv", case.model);
    let width = p.reference.names.iter().map(String::len).max().unwrap_or(0);
    let mut passed = true;
    let mut signals = Vec::new();
    for (j, name) in p.reference.names.iter().enumerate() {
        let k = results
            .names
            .iter()
            .position(|n| n == name)
            .expect("the run records every reference column");
        let y: Vec<f64> = results.rows.iter().map(|r| r[k]).collect();
        let c = tube::compare(&results.time, &y, &p.reference.time, &p.reference.column(j));
        let diff = differing(&results, k, &p.reference, j);
        let ok = c.passed() && (!o.exact || diff == 0);
        passed &= ok;
        let deviation = if c.max_deviation == 0.0 {
            "max |Δ| 0".to_string()
        } else {
            let at = results.time[c.max_at];
            format!(
                "max |Δ| {:.3e} at t = {at} s (line {})",
                c.max_deviation,
                p.reference.lines[nearest(&p.reference.time, at)]
            )
        };
        // Two comparisons, each named (issue 48, item 4): the cross-check's tolerance tube
        // around the reference, and the values themselves against the reference's.
        let _ = write!(
            report,
            "  {}  {name:width$}  tube: {:5.1} % of {} points outside ({} of them; passes below {:.0} %)  |  values against {ref_name}: {deviation}, {}",
            if ok { "PASS" } else { "FAIL" },
            100.0 * c.fraction(),
            c.samples,
            c.outliers,
            100.0 * tube::PASS_FRACTION,
            if diff == 0 {
                "bit-identical".to_string()
            } else {
                format!("{diff} of {} values differ", p.reference.time.len())
            }
        );
        if let Some(i) = c.non_finite {
            let _ = write!(report, "; non-finite value at t = {} s", results.time[i]);
        } else if let Some(i) = c.first_outlier {
            let t = results.time[i];
            let _ = write!(
                report,
                "; first outside at t = {t} s ({ref_name} line {})",
                p.reference.lines[nearest(&p.reference.time, t)]
            );
        }
        report.push('\n');
        signals.push((name.clone(), c, diff));
    }
    let _ = writeln!(
        report,
        "  {}: {} of {} outputs pass{}",
        if passed { "PASS" } else { "FAIL" },
        signals
            .iter()
            .filter(|s| s.1.passed() && (!o.exact || s.2 == 0))
            .count(),
        signals.len(),
        if o.exact {
            " (tube and bit for bit)"
        } else {
            " the tube"
        }
    );
    Verdict {
        passed,
        report,
        signals,
    }
}

//! `hydromech simulate`: runs an FMU through its own C ABI, as a co-simulation master
//! would (the `dlopen` master of [`crate::host::fmi`]), with inputs and results in the CSV
//! convention of FMPy and the FMI cross-check: a header row with `time` first and the
//! variable names (quoted or plain), one row per communication point.
//!
//! The run follows FMPy's co-simulation loop (`fmpy.simulation.simulateCS`, 0.3.32) so that
//! a result of ours and an FMPy import of the same FMU with the same `_in.csv` agree to the
//! last bit: communication points on the grid `start + k·h`, plus the input's step times
//! (two rows with the same time) where they fall between grid points; inputs interpolated
//! linearly between rows by FMPy's own formula and applied at the start of each step; at a
//! step time the later row holds (the earlier one before initialization); before the first
//! row and after the last the first and last values hold.

use crate::host::fmi::{FMI2_OK, FMI2_WARNING, Fmu, status_name};
use crate::host::xml::{DisplayUnit, ScalarVariable, VarType};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub mod plot;

/// What `hydromech simulate` was asked for.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Start of the run; default: the FMU's default experiment start time.
    pub start_time: Option<f64>,
    pub stop_time: f64,
    /// Communication step; default: the FMU's default experiment step size.
    pub step: Option<f64>,
    pub inputs: Option<PathBuf>,
    /// Further input series (each on its own time grid), e.g. from `hydromech report`.
    pub input_series: Vec<InputSeries>,
    /// `name=value` pairs applied before initialization.
    pub set: Vec<String>,
    pub output: PathBuf,
    pub plot: Option<PathBuf>,
    /// The plotted variables: names or globs (`boom_cylinder.*`); default: all recorded.
    pub plot_vars: Vec<String>,
    /// Recorded variables; default: every Real output.
    pub vars: Vec<String>,
    /// Show a progress indicator on stderr when the run takes longer than 2 s.
    pub progress: bool,
    /// Instantiate with this resources folder instead of the FMU's own (a sweep's
    /// description variant).
    pub resources: Option<PathBuf>,
}

/// Input time series: `time` and one column per input.
#[derive(Clone, Debug, PartialEq)]
pub struct InputSeries {
    pub names: Vec<String>,
    pub time: Vec<f64>,
    /// `values[row][column]`.
    pub values: Vec<Vec<f64>>,
}

/// A CSV cell without its surrounding quotes (`""` inside is one `"`).
pub fn unquote(s: &str) -> String {
    let s = s.trim();
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        s[1..s.len() - 1].replace("\"\"", "\"")
    } else {
        s.to_string()
    }
}

/// A CSV's lines with their 0-based numbers, without blank lines and `#` comments.
pub(crate) fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// Parses an input CSV (`time` first, then variable names; numbers below).
pub fn parse_inputs(text: &str) -> Result<InputSeries, String> {
    let mut lines = data_lines(text);
    let (_, header) = lines
        .next()
        .ok_or("the input file is empty: expected a header row `time,<input>,...`")?;
    let names: Vec<String> = header.split(',').map(unquote).collect();
    if names.first().map(String::as_str) != Some("time") {
        return Err(format!(
            "line 1: the first column must be `time`, got `{}`",
            names.first().cloned().unwrap_or_default()
        ));
    }
    let names = names[1..].to_vec();
    let mut time = Vec::new();
    let mut values = Vec::new();
    for (k, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != names.len() + 1 {
            return Err(format!(
                "line {}: {} values, expected {} (time and {} inputs)",
                k + 1,
                cells.len(),
                names.len() + 1,
                names.len()
            ));
        }
        let mut row = Vec::with_capacity(cells.len());
        for c in &cells {
            let v: f64 = unquote(c)
                .parse()
                .map_err(|_| format!("line {}: '{c}' is not a number", k + 1))?;
            if !v.is_finite() {
                return Err(format!("line {}: '{c}' is not a finite number", k + 1));
            }
            row.push(v);
        }
        let t = row.remove(0);
        if time.last().is_some_and(|&last| t < last) {
            return Err(format!(
                "line {}: time {t} is earlier than the row before; times must not decrease",
                k + 1
            ));
        }
        time.push(t);
        values.push(row);
    }
    if time.is_empty() {
        return Err("the input file has a header but no rows".into());
    }
    Ok(InputSeries {
        names,
        time,
        values,
    })
}

/// `math.isclose` with its defaults (relative tolerance 1e-9): how FMPy matches times.
pub(crate) fn isclose(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

impl InputSeries {
    /// The inputs at time `t` as FMPy's `Input.interpolate` gives them during a step
    /// (`after_event = true`): linear between rows, the later row at a repeated time.
    pub fn at(&self, t: f64) -> Vec<f64> {
        self.value_at(t, true)
    }

    /// FMPy's `Input.interpolate` for continuous inputs: at a repeated time (a step) the
    /// last of the repeated rows when `after_event`, else the first; the weights
    /// `w0 = (t1 - t)/(t1 - t0)`, `w1 = 1 - w0` as FMPy forms them, so that both give the
    /// same bits.
    pub fn value_at(&self, t: f64, after_event: bool) -> Vec<f64> {
        let time = &self.time;
        let n = time.len();
        if n < 2 {
            return self.values[0].clone();
        }
        // numpy.searchsorted(time, t), side "left": the first row with time >= t.
        let mut i0 = time.partition_point(|&ti| ti < t);
        if i0 == 0 {
            return self.values[0].clone();
        }
        if i0 == n {
            return self.values[n - 1].clone();
        }
        if isclose(t, time[i0]) && i0 < n - 1 && isclose(time[i0], time[i0 + 1]) {
            if after_event {
                while i0 < n - 1 && isclose(time[i0], time[i0 + 1]) {
                    i0 += 1;
                }
            }
            return self.values[i0].clone();
        }
        let (t0, t1) = (time[i0 - 1], time[i0]);
        let w0 = (t1 - t) / (t1 - t0);
        let w1 = 1.0 - w0;
        self.values[i0 - 1]
            .iter()
            .zip(&self.values[i0])
            .map(|(a, b)| w0 * a + w1 * b)
            .collect()
    }

    /// The step times (times that repeat), as FMPy's `Input.findEvents` finds them.
    pub fn events(&self) -> Vec<f64> {
        self.time
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect()
    }
}

/// The step times of all `series` (FMPy's input events), sorted, each once.
pub fn step_times<'a>(series: impl IntoIterator<Item = &'a InputSeries>) -> Vec<f64> {
    let mut events: Vec<f64> = series.into_iter().flat_map(InputSeries::events).collect();
    events.sort_by(f64::total_cmp);
    events.dedup();
    events
}

/// The communication points of FMPy's co-simulation loop over `[start, stop]`: the grid
/// `start + (n + 1)·h`, with an input step time (from `events`) inserted where it falls
/// before the next grid point (the grid goes on from where it was), and the stop time last.
/// Times within `isclose` of each other are the same point, as in FMPy.
pub fn communication_points(start: f64, stop: f64, h: f64, events: &[f64]) -> Vec<f64> {
    let mut points = vec![start];
    let (mut time, mut n) = (start, 0_u64);
    while !(time > stop || isclose(time, stop)) {
        let regular = start + (n + 1) as f64 * h;
        let mut next = regular;
        if let Some(&e) = events.iter().find(|&&e| e > time && !isclose(e, time))
            && next > e
            && !isclose(next, e)
        {
            next = e;
        }
        if next > stop && !isclose(next, stop) {
            next = stop;
        }
        time = next;
        points.push(time);
        if isclose(time, regular) {
            n += 1;
        }
    }
    points
}

/// The results: `time` and one column per recorded variable.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    pub names: Vec<String>,
    /// The unit each column is shown in (its `displayUnit`, else its `unit`); `None`
    /// without a unit. The values are in SI.
    pub display: Vec<Option<DisplayUnit>>,
    pub time: Vec<f64>,
    pub rows: Vec<Vec<f64>>,
}

impl Results {
    /// The CSV in SI units (FMPy's and the cross-check's convention).
    pub fn to_csv(&self) -> String {
        self.csv(false)
    }

    /// The CSV with every column in its display unit, named in the header (`"p [bar]"`):
    /// for reading, not for feeding back as inputs.
    pub fn to_display_csv(&self) -> String {
        self.csv(true)
    }

    fn csv(&self, shown: bool) -> String {
        let unit = |k: usize| {
            self.display
                .get(k)
                .and_then(|d| d.as_ref())
                .filter(|_| shown)
        };
        let mut s = String::from(if shown { "\"time [s]\"" } else { "\"time\"" });
        for (k, n) in self.names.iter().enumerate() {
            let n = match unit(k) {
                Some(d) => format!("{n} [{}]", d.name),
                None => n.clone(),
            };
            let _ = write!(s, ",\"{}\"", n.replace('"', "\"\""));
        }
        s.push('\n');
        for (t, row) in self.time.iter().zip(&self.rows) {
            let _ = write!(s, "{t}");
            for (k, v) in row.iter().enumerate() {
                // 15 significant digits: 1.5e5 Pa shows as 1.5 bar, not 1.5000000000000002.
                let v = unit(k).map_or(*v, |d| {
                    let shown = d.show(*v);
                    format!("{shown:.14e}").parse().unwrap_or(shown)
                });
                let _ = write!(s, ",{v}");
            }
            s.push('\n');
        }
        s
    }
}

pub(crate) fn real_variable<'a>(
    fmu: &'a Fmu,
    name: &str,
    what: &str,
) -> Result<&'a ScalarVariable, String> {
    let v = named_variable(fmu, name, what)?;
    if v.var_type != VarType::Real {
        return Err(format!(
            "{what}: '{name}' is a {:?} variable; only Real variables are supported",
            v.var_type
        ));
    }
    Ok(v)
}

/// A variable `--vars` can record: a Real, or an Integer (contact points, Newton
/// iterations), written as a number.
fn recorded_variable<'a>(fmu: &'a Fmu, name: &str) -> Result<&'a ScalarVariable, String> {
    let v = named_variable(fmu, name, "--vars")?;
    if !matches!(v.var_type, VarType::Real | VarType::Integer) {
        return Err(format!(
            "--vars: '{name}' is a {:?} variable; only Real and Integer variables can be recorded",
            v.var_type
        ));
    }
    Ok(v)
}

/// The FMU's variable `name`, or an error naming the closest one.
fn named_variable<'a>(fmu: &'a Fmu, name: &str, what: &str) -> Result<&'a ScalarVariable, String> {
    let md = &fmu.description;
    let v = md.variable(name).ok_or_else(|| {
        let names: Vec<&str> = md.variables.iter().map(|v| v.name.as_str()).collect();
        match crate::names::closest(name, names) {
            Some(s) => format!("{what}: the FMU has no variable '{name}'; did you mean '{s}'?"),
            None => {
                format!("{what}: the FMU has no variable '{name}' (`hydromech inspect` lists them)")
            }
        }
    })?;
    Ok(v)
}

/// Runs the FMU; the results are returned even when a step fails (with the error).
pub fn run(fmu_path: &Path, o: &Options) -> Result<Results, (Results, String)> {
    let fmu = Fmu::load(fmu_path).map_err(|e| (Results::default(), e))?;
    run_loaded(&fmu, o)
}

/// [`run`] on an FMU already loaded: one instance of it, from instantiation to the stop
/// time (`hydromech sweep` runs many on one load, from several threads).
pub fn run_loaded(fmu: &Fmu, o: &Options) -> Result<Results, (Results, String)> {
    let fail = |e: String| (Results::default(), e);
    let md = &fmu.description;
    let start = o.start_time.unwrap_or(md.start_time);
    let stop = o.stop_time;
    if !(stop.is_finite() && stop > start) {
        return Err(fail(format!(
            "--stop-time {stop} must be a number after the start time {start}"
        )));
    }
    let h = o.step.or(md.step_size).unwrap_or((stop - start) / 500.0);
    if !(h.is_finite() && h > 0.0) {
        return Err(fail(format!("--step {h} must be a positive number")));
    }

    // Parameters set before initialization.
    let mut set_vr = Vec::new();
    let mut set_values = Vec::new();
    for s in &o.set {
        let (name, value) = s
            .split_once('=')
            .ok_or_else(|| fail(format!("--set {s}: expected name=value")))?;
        let v = real_variable(fmu, name.trim(), &format!("--set {s}")).map_err(fail)?;
        if !matches!(v.causality.as_str(), "parameter" | "input") {
            return Err(fail(format!(
                "--set {s}: '{}' is an {} variable; only parameters and inputs can be set",
                v.name, v.causality
            )));
        }
        let value: f64 = value.trim().parse().map_err(|_| {
            fail(format!(
                "--set {s}: '{}' is not a number (give the value in SI units)",
                value.trim()
            ))
        })?;
        set_vr.push(v.value_reference);
        set_values.push(value);
    }

    let mut all_series = Vec::new();
    if let Some(p) = &o.inputs {
        let text = std::fs::read_to_string(p)
            .map_err(|e| fail(format!("{}: cannot read the inputs: {e}", p.display())))?;
        let series = parse_inputs(&text).map_err(|e| fail(format!("{}: {e}", p.display())))?;
        all_series.push((p.display().to_string(), series));
    }
    for series in &o.input_series {
        all_series.push(("inputs".to_string(), series.clone()));
    }
    let mut inputs = Vec::new();
    for (what, series) in all_series {
        let mut vr = Vec::new();
        for n in &series.names {
            let v = real_variable(fmu, n, &what).map_err(fail)?;
            if v.causality != "input" {
                return Err(fail(format!(
                    "{what}: column '{n}' is a {} variable, not an input",
                    v.causality
                )));
            }
            vr.push(v.value_reference);
        }
        inputs.push((series, vr));
    }
    let events = step_times(inputs.iter().map(|(s, _)| s));

    let mut results = Results::default();
    let recorded: Vec<&ScalarVariable> = if o.vars.is_empty() {
        md.real_outputs()
    } else {
        o.vars
            .iter()
            .map(|n| recorded_variable(fmu, n.trim()))
            .collect::<Result<_, _>>()
            .map_err(fail)?
    };
    // Reals and Integers are read by their own calls and put back in the order asked.
    let (mut real_at, mut integer_at) = (Vec::new(), Vec::new());
    for (k, v) in recorded.iter().enumerate() {
        match v.var_type {
            VarType::Integer => integer_at.push((k, v.value_reference)),
            _ => real_at.push((k, v.value_reference)),
        }
    }
    let real_vr: Vec<u32> = real_at.iter().map(|r| r.1).collect();
    let integer_vr: Vec<u32> = integer_at.iter().map(|r| r.1).collect();
    results.names = recorded.iter().map(|v| v.name.clone()).collect();
    results.display = recorded.iter().map(|v| md.display_unit(v)).collect();
    plot::select(&results.names, &o.plot_vars).map_err(fail)?;

    let inst = fmu
        .instantiate_at("simulate", o.resources.as_deref())
        .map_err(fail)?;
    let check = |what: &str, s| inst.check(what, s);
    if !set_vr.is_empty() {
        check("fmi2SetReal (--set)", inst.set_real(&set_vr, &set_values)).map_err(fail)?;
    }
    let apply_inputs = |t: f64, after_event: bool| -> Result<(), String> {
        for (series, vr) in &inputs {
            check(
                "fmi2SetReal (inputs)",
                inst.set_real(vr, &series.value_at(t, after_event)),
            )?;
        }
        Ok(())
    };
    apply_inputs(start, false).map_err(fail)?;
    inst.initialize(start, Some(stop)).map_err(fail)?;
    let (mut reals, mut integers) = (vec![0.0; real_vr.len()], vec![0; integer_vr.len()]);
    let mut record = |t: f64, results: &mut Results| -> Result<(), String> {
        check("fmi2GetReal", inst.get_real(&real_vr, &mut reals))?;
        if !integer_vr.is_empty() {
            check(
                "fmi2GetInteger",
                inst.get_integer(&integer_vr, &mut integers),
            )?;
        }
        let mut row = vec![0.0; recorded.len()];
        for (&(k, _), v) in real_at.iter().zip(&reals) {
            row[k] = *v;
        }
        for (&(k, _), v) in integer_at.iter().zip(&integers) {
            row[k] = *v as f64;
        }
        results.time.push(t);
        results.rows.push(row);
        Ok(())
    };
    record(start, &mut results).map_err(fail)?;

    let began = Instant::now();
    let mut progress = Progress::new(o.progress);
    let points = communication_points(start, stop, h, &events);
    for w in points.windows(2) {
        let (time, next) = (w[0], w[1]);
        let step = (|| {
            apply_inputs(time, true)?;
            let s = inst.do_step(time, next - time);
            if s != FMI2_OK && s != FMI2_WARNING {
                return Err(format!(
                    "fmi2DoStep at t = {time} returned {}{}",
                    status_name(s),
                    match inst.messages() {
                        m if m.is_empty() => String::new(),
                        m => format!(": {}", m.join("; ")),
                    }
                ));
            }
            record(next, &mut results)
        })();
        if let Err(e) = step {
            progress.finish();
            return Err((results, e));
        }
        progress.update(began.elapsed(), (next - start) / (stop - start), next, stop);
    }
    progress.finish();
    Ok(results)
}

/// The progress line on stderr, shown once a run has taken 2 s.
struct Progress {
    enabled: bool,
    terminal: bool,
    shown: bool,
    last: Duration,
}

impl Progress {
    fn new(enabled: bool) -> Progress {
        Progress {
            enabled,
            terminal: std::io::stderr().is_terminal(),
            shown: false,
            last: Duration::ZERO,
        }
    }

    fn update(&mut self, elapsed: Duration, fraction: f64, t: f64, stop: f64) {
        let interval = if self.terminal { 0.2 } else { 5.0 };
        if !self.enabled
            || elapsed < Duration::from_secs(2)
            || (elapsed - self.last).as_secs_f64() < interval
        {
            return;
        }
        self.last = elapsed;
        self.shown = true;
        let width = 30;
        let done = ((fraction * width as f64).round() as usize).min(width);
        let eta = elapsed.as_secs_f64() * (1.0 - fraction) / fraction.max(1e-9);
        let line = format!(
            "[{}{}] {:5.1}%  t = {t:.3} / {stop} s  elapsed {:.1} s, about {:.0} s left",
            "#".repeat(done),
            "-".repeat(width - done),
            100.0 * fraction,
            elapsed.as_secs_f64(),
            eta
        );
        let mut err = std::io::stderr();
        let _ = if self.terminal {
            write!(err, "\r{line}\x1b[K")
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
    }

    fn finish(&mut self) {
        if self.shown && self.terminal {
            eprintln!();
        }
        self.shown = false;
    }
}

/// A description or an FMU: descriptions are built into a temporary directory first
/// (removed on drop).
pub struct Prepared {
    pub fmu: PathBuf,
    temp: Option<PathBuf>,
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some(d) = &self.temp {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// `X.fmu` is used as is; `X.toml` is built first (errors are rendered with positions).
pub fn prepare(path: &Path) -> Result<Prepared, String> {
    if path.extension().is_some_and(|x| x == "fmu") {
        return Ok(Prepared {
            fmu: path.to_path_buf(),
            temp: None,
        });
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read the file: {e}", path.display()))?;
    let source = crate::diagnostic::Source::new(path, text);
    // One directory per call: several threads of one process may prepare at once.
    static PREPARED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "hydromech-simulate-{}-{}",
        std::process::id(),
        PREPARED.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    match crate::build(&source, &dir) {
        Ok(fmu) => Ok(Prepared {
            fmu,
            temp: Some(dir),
        }),
        Err(errors) => {
            let _ = std::fs::remove_dir_all(&dir);
            Err(errors
                .iter()
                .map(|e| source.render(e))
                .collect::<Vec<_>>()
                .join("\n\n"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_read_in_the_fmpy_convention_and_interpolated_linearly() {
        let s = parse_inputs("\"time\",\"a\",b\n0,0,5\n1,10,5\n1,20,6\n2,20,6\n").unwrap();
        assert_eq!(s.names, ["a", "b"]);
        assert_eq!(s.at(-1.0), [0.0, 5.0]);
        assert_eq!(s.at(0.25), [2.5, 5.0]);
        // A repeated time is a step: the later row holds from then on.
        assert_eq!(s.at(1.0), [20.0, 6.0]);
        assert_eq!(s.at(1.5), [20.0, 6.0]);
        assert_eq!(s.at(9.0), [20.0, 6.0]);
        // Before initialization FMPy applies the earlier row of a step.
        assert_eq!(s.value_at(1.0, false), [10.0, 5.0]);
        // A time within FMPy's isclose of the step is the step.
        assert_eq!(s.at(1.0 - 1e-12), [20.0, 6.0]);
        assert_eq!(s.events(), [1.0]);
    }

    #[test]
    fn communication_points_follow_fmpy_grid_and_input_steps() {
        // Grid 0.3: the step at 1.0 falls between 0.9 and 1.2 and becomes a point; the grid
        // goes on at 1.2; the last point is the stop time.
        let p = communication_points(0.0, 2.0, 0.3, &[1.0]);
        assert_eq!(p.len(), 9);
        assert_eq!((p[3], p[4], p[5]), (0.3 * 3.0, 1.0, 1.2));
        assert_eq!(*p.last().unwrap(), 2.0);
        // A grid point within isclose of the stop time is kept as computed (FMPy does).
        let p = communication_points(0.0, 0.7, 0.1, &[]);
        assert_eq!((p.len(), p[7]), (8, 7.0 * 0.1));
        assert_ne!(p[7], 0.7);
        // A step time on the grid adds no point.
        assert_eq!(communication_points(0.0, 1.0, 0.25, &[0.5]).len(), 5);
    }

    #[test]
    fn malformed_inputs_are_explained() {
        assert!(parse_inputs("").unwrap_err().contains("empty"));
        assert!(parse_inputs("t,a\n0,1\n").unwrap_err().contains("`time`"));
        assert!(parse_inputs("time,a\n0\n").unwrap_err().contains("line 2"));
        assert!(parse_inputs("time,a\n0,x\n").unwrap_err().contains("'x'"));
        assert!(
            parse_inputs("time,a\n1,0\n0,0\n")
                .unwrap_err()
                .contains("must not decrease")
        );
        assert!(parse_inputs("time,a\n").unwrap_err().contains("no rows"));
    }

    #[test]
    fn results_are_csv_with_time_first_in_si_or_display_units() {
        let r = Results {
            names: vec!["x".into(), "y\"z".into()],
            display: vec![
                Some(DisplayUnit {
                    name: "bar".into(),
                    factor: 1e-5,
                    offset: 0.0,
                }),
                None,
            ],
            time: vec![0.0, 0.5],
            rows: vec![vec![1e5, 2.0], vec![1.5e5, f64::NAN]],
        };
        assert_eq!(
            r.to_csv(),
            "\"time\",\"x\",\"y\"\"z\"\n0,100000,2\n0.5,150000,NaN\n"
        );
        assert_eq!(
            r.to_display_csv(),
            "\"time [s]\",\"x [bar]\",\"y\"\"z\"\n0,1,2\n0.5,1.5,NaN\n"
        );
    }
}

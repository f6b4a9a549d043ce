//! Output of the harness: the terminal table, CSV and JSON.

use super::run::{ModelResult, RunResult};
use super::scaling::{ScalingRow, exponents};
use super::stats::Stats;
use std::fmt::Write;

/// Where and when a result was measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Environment {
    pub date: String,
    pub commit: String,
    pub dirty: bool,
    pub cpu: String,
    pub nproc: usize,
    pub rustc: String,
    pub hydromech: String,
}

impl Environment {
    /// Reads the machine (`/proc/cpuinfo`, available parallelism), `rustc -V` and the git
    /// commit of the hydromech workspace (best effort: empty when unavailable).
    pub fn detect() -> Environment {
        let run = |cmd: &str, args: &[&str]| {
            std::process::Command::new(cmd)
                .args(args)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_default()
        };
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_default();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
        // The source tree this hydromech was built from, when it is still there.
        let ws = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        Environment {
            date: crate::emit::timestamp::Utc::from_unix(now).to_xml(),
            commit: run("git", &["-C", ws, "rev-parse", "--short", "HEAD"]),
            dirty: !run(
                "git",
                &["-C", ws, "status", "--porcelain", "--untracked-files=no"],
            )
            .is_empty(),
            cpu,
            nproc: std::thread::available_parallelism().map_or(1, |n| n.get()),
            rustc: run(&rustc, &["-V"]),
            hydromech: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

fn us(s: f64) -> f64 {
    s * 1e6
}

/// A number with ~3 significant digits, for the table.
fn g(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else if a >= 0.01 {
        format!("{x:.3}")
    } else if a == 0.0 {
        "0".into()
    } else {
        format!("{x:.2e}")
    }
}

fn iters(r: &RunResult) -> String {
    r.iterations
        .map_or("-".into(), |s| format!("{}/{}", g(s.median), g(s.max)))
}

fn kib(b: Option<i64>) -> String {
    b.map_or("-".into(), |b| format!("{:.1}", b as f64 / 1024.0))
}

/// The terminal table: one row per model and communication step.
pub fn table(results: &[ModelResult]) -> String {
    let mut s = String::new();
    let w = results
        .iter()
        .map(|m| m.model.chars().count())
        .max()
        .unwrap_or(0)
        .max(24);
    let _ = writeln!(
        s,
        "{:<w$} {:>18} {:>6} {:>9} {:>9} {:>9} {:>11} {:>8} {:>9} {:>8} {:>9} {:>9}",
        "model",
        "comm. step",
        "steps",
        "median µs",
        "p99 µs",
        "max µs",
        "CPU max µs",
        "iter m/x",
        "RTF",
        "FMI µs",
        "heap KiB",
        "RSS KiB"
    );
    for m in results {
        for (k, r) in m.runs.iter().enumerate() {
            let first = k == 0;
            let _ = writeln!(
                s,
                "{:<w$} {:>18} {:>6} {:>9} {:>9} {:>9} {:>11} {:>8} {:>9} {:>8} {:>9} {:>9}",
                if first { m.model.as_str() } else { "" },
                if r.label == "internal" {
                    format!("{} ms (internal)", r.comm_step * 1e3)
                } else {
                    r.label.clone()
                },
                r.steps,
                g(us(r.step.median)),
                g(us(r.step.p99)),
                g(us(r.step.max)),
                g(us(r.cpu.max)),
                iters(r),
                g(r.rtf),
                if first {
                    m.fmi_overhead.map_or("-".into(), |o| g(us(o.median)))
                } else {
                    String::new()
                },
                if first {
                    kib(m.heap_bytes)
                } else {
                    String::new()
                },
                if first {
                    kib(m.rss_bytes)
                } else {
                    String::new()
                },
            );
        }
    }
    s
}

/// Notes under the table: manoeuvre, worst step, outliers, failures, heap growth.
pub fn notes(results: &[ModelResult]) -> String {
    let mut s = String::new();
    for m in results {
        let _ = writeln!(
            s,
            "{}: {} input(s), {} output(s) read per step; manoeuvre: {}",
            m.model, m.inputs, m.outputs, m.manoeuvre
        );
        let _ = writeln!(
            s,
            "  fmi2Instantiate {} µs, initialization {} µs",
            g(us(m.instantiate_time)),
            g(us(m.initialize_time))
        );
        for r in &m.runs {
            if let Some(w) = &r.worst {
                let _ = writeln!(
                    s,
                    "  {}: worst step {} µs at t = {:.4} s (step {}, {} iterations{}); first step {} µs; {} step(s) > 10× median; heap growth while stepping: {} B",
                    r.label,
                    g(us(w.seconds)),
                    w.time,
                    w.index,
                    w.iterations.map_or("?".into(), |i| i.to_string()),
                    w.nearest_switch.map_or(String::new(), |t| format!(
                        ", nearest input switch at {t} s"
                    )),
                    g(us(r.first_step)),
                    r.outlier_count,
                    r.heap_growth.map_or("?".into(), |b| b.to_string()),
                );
            }
            if let Some(f) = &r.failure {
                let _ = writeln!(s, "  {}: FAILED after {} steps: {f}", r.label, r.steps);
            }
        }
    }
    s
}

/// The scaling table (`*` marks the path the automatic rule picks).
pub fn scaling_table(rows: &[ScalingRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<8} {:>3} {:>6} {:>5} {:>7} {:>4} {:>8} {:>10} {:>7} {:>9} {:>9} {:>9} {:>8}",
        "family",
        "N",
        "bodies",
        "loops",
        "volumes",
        "DOF",
        "unknowns",
        "path",
        "refresh",
        "median µs",
        "p99 µs",
        "max µs",
        "iter m/x"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<8} {:>3} {:>6} {:>5} {:>7} {:>4} {:>8} {:>10} {:>7} {:>9} {:>9} {:>9} {:>8}",
            r.family,
            r.stages,
            r.bodies,
            r.loops,
            r.volumes,
            r.dof,
            r.unknowns,
            format!("{}{}", r.solver_path, if r.automatic { "*" } else { "" }),
            format!("{}+{}", r.refresh_full, r.refresh_partial),
            g(us(r.step.median)),
            g(us(r.step.p99)),
            g(us(r.step.max)),
            format!("{}/{}", g(r.iterations.median), g(r.iterations.max)),
        );
        if let Some(f) = &r.failure {
            let _ = writeln!(s, "       FAILED: {f}");
        }
    }
    for (fam, by_n, by_unknowns) in exponents(rows) {
        let f = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.2}"));
        let _ = writeln!(
            s,
            "{fam}: median step time ∝ N^{} ∝ unknowns^{} (fit over N ≥ 4)",
            f(by_n),
            f(by_unknowns)
        );
    }
    s
}

// ---------------------------------------------------------------------------------------
// CSV

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

fn opt<T: ToString>(x: Option<T>) -> String {
    x.map_or(String::new(), |v| v.to_string())
}

/// One CSV row per model and communication step; times in µs.
pub fn csv(results: &[ModelResult], env: &Environment) -> String {
    let mut s = String::from(
        "date,commit,model,run,comm_step_s,internal_step_s,steps,simulated_s,median_us,p99_us,max_us,mean_us,min_us,first_step_us,iterations_median,iterations_max,internal_steps_per_call,rtf,worst_step_time_s,worst_step_iterations,worst_nearest_switch_s,steps_over_10x_median,fmi_overhead_median_us,fmi_overhead_p99_us,instance_heap_bytes,instance_rss_bytes,heap_growth_while_stepping_bytes,cpu_median_us,cpu_p99_us,cpu_max_us,failure\n",
    );
    for m in results {
        for r in &m.runs {
            let w = r.worst.as_ref();
            let row = [
                csv_field(&env.date),
                csv_field(&env.commit),
                csv_field(&m.model),
                csv_field(&r.label),
                num(r.comm_step),
                num(m.internal_step),
                r.steps.to_string(),
                num(r.simulated),
                num(us(r.step.median)),
                num(us(r.step.p99)),
                num(us(r.step.max)),
                num(us(r.step.mean)),
                num(us(r.step.min)),
                num(us(r.first_step)),
                opt(r.iterations.map(|i| i.median)),
                opt(r.iterations.map(|i| i.max)),
                opt(r.internal_steps),
                num(r.rtf),
                opt(w.map(|w| w.time)),
                opt(w.and_then(|w| w.iterations)),
                opt(w.and_then(|w| w.nearest_switch)),
                r.outlier_count.to_string(),
                opt(m.fmi_overhead.map(|o| us(o.median))),
                opt(m.fmi_overhead.map(|o| us(o.p99))),
                opt(m.heap_bytes),
                opt(m.rss_bytes),
                opt(r.heap_growth),
                num(us(r.cpu.median)),
                num(us(r.cpu.p99)),
                num(us(r.cpu.max)),
                csv_field(r.failure.as_deref().unwrap_or("")),
            ];
            s.push_str(&row.join(","));
            s.push('\n');
        }
    }
    s
}

// ---------------------------------------------------------------------------------------
// JSON (written by hand: flat records, no serde_json dependency needed)

/// A JSON value under construction.
pub enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(&'static str, J)>),
}

impl J {
    fn write(&self, out: &mut String, indent: usize) {
        let pad = |n: usize| "  ".repeat(n);
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Num(x) if x.is_finite() => {
                let _ = write!(out, "{x}");
            }
            J::Num(_) => out.push_str("null"),
            J::Str(s) => {
                out.push('"');
                for c in s.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        '\r' => out.push_str("\\r"),
                        '\t' => out.push_str("\\t"),
                        c if (c as u32) < 0x20 => {
                            let _ = write!(out, "\\u{:04x}", c as u32);
                        }
                        c => out.push(c),
                    }
                }
                out.push('"');
            }
            J::Arr(v) if v.is_empty() => out.push_str("[]"),
            J::Arr(v) => {
                out.push_str("[\n");
                for (i, x) in v.iter().enumerate() {
                    out.push_str(&pad(indent + 1));
                    x.write(out, indent + 1);
                    out.push_str(if i + 1 < v.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(indent));
                out.push(']');
            }
            J::Obj(v) => {
                out.push_str("{\n");
                for (i, (k, x)) in v.iter().enumerate() {
                    let _ = write!(out, "{}\"{k}\": ", pad(indent + 1));
                    x.write(out, indent + 1);
                    out.push_str(if i + 1 < v.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(indent));
                out.push('}');
            }
        }
    }

    pub fn render(&self) -> String {
        let mut s = String::new();
        self.write(&mut s, 0);
        s.push('\n');
        s
    }
}

fn jopt(x: Option<f64>) -> J {
    x.map_or(J::Null, J::Num)
}

/// Step-time statistics in µs.
fn jstats_us(s: &Stats) -> J {
    J::Obj(vec![
        ("n", J::Num(s.n as f64)),
        ("min_us", J::Num(us(s.min))),
        ("median_us", J::Num(us(s.median))),
        ("p99_us", J::Num(us(s.p99))),
        ("max_us", J::Num(us(s.max))),
        ("mean_us", J::Num(us(s.mean))),
    ])
}

fn jstats(s: &Stats) -> J {
    J::Obj(vec![
        ("median", J::Num(s.median)),
        ("p99", J::Num(s.p99)),
        ("max", J::Num(s.max)),
        ("mean", J::Num(s.mean)),
    ])
}

fn jenv(env: &Environment) -> J {
    J::Obj(vec![
        ("date", J::Str(env.date.clone())),
        ("commit", J::Str(env.commit.clone())),
        ("dirty", J::Bool(env.dirty)),
        ("cpu", J::Str(env.cpu.clone())),
        ("nproc", J::Num(env.nproc as f64)),
        ("rustc", J::Str(env.rustc.clone())),
        ("hydromech", J::Str(env.hydromech.clone())),
    ])
}

fn jrun(r: &RunResult) -> J {
    J::Obj(vec![
        ("run", J::Str(r.label.clone())),
        ("comm_step_s", J::Num(r.comm_step)),
        ("steps", J::Num(r.steps as f64)),
        ("simulated_s", J::Num(r.simulated)),
        ("do_step", jstats_us(&r.step)),
        ("do_step_thread_cpu", jstats_us(&r.cpu)),
        ("first_step_us", J::Num(us(r.first_step))),
        ("iterations", r.iterations.as_ref().map_or(J::Null, jstats)),
        ("internal_steps_per_call", jopt(r.internal_steps)),
        ("rtf", J::Num(r.rtf)),
        (
            "worst",
            r.worst.as_ref().map_or(J::Null, |w| {
                J::Obj(vec![
                    ("step", J::Num(w.index as f64)),
                    ("time_s", J::Num(w.time)),
                    ("us", J::Num(us(w.seconds))),
                    ("iterations", jopt(w.iterations.map(f64::from))),
                    ("nearest_switch_s", jopt(w.nearest_switch)),
                ])
            }),
        ),
        ("steps_over_10x_median", J::Num(r.outlier_count as f64)),
        (
            "slow_steps",
            J::Arr(
                r.outliers
                    .iter()
                    .map(|&(t, s)| J::Obj(vec![("time_s", J::Num(t)), ("us", J::Num(us(s)))]))
                    .collect(),
            ),
        ),
        (
            "heap_growth_while_stepping_bytes",
            jopt(r.heap_growth.map(|b| b as f64)),
        ),
        (
            "failure",
            r.failure.as_ref().map_or(J::Null, |f| J::Str(f.clone())),
        ),
    ])
}

fn jmodel(m: &ModelResult) -> J {
    J::Obj(vec![
        ("model", J::Str(m.model.clone())),
        (
            "parameters",
            J::Arr(
                m.parameters
                    .iter()
                    .map(|(n, v)| J::Obj(vec![("name", J::Str(n.clone())), ("value", J::Num(*v))]))
                    .collect(),
            ),
        ),
        ("fmu", J::Str(m.fmu.clone())),
        ("guid", J::Str(m.guid.clone())),
        ("fmi_version", J::Str(m.fmi_version.clone())),
        ("internal_step_s", J::Num(m.internal_step)),
        ("inputs", J::Num(m.inputs as f64)),
        ("outputs_read", J::Num(m.outputs as f64)),
        ("manoeuvre", J::Str(m.manoeuvre.clone())),
        (
            "fmi_overhead_per_set_get_pair",
            m.fmi_overhead.as_ref().map_or(J::Null, jstats_us),
        ),
        ("instance_heap_bytes", jopt(m.heap_bytes.map(|b| b as f64))),
        ("instance_rss_bytes", jopt(m.rss_bytes.map(|b| b as f64))),
        ("instantiate_us", J::Num(us(m.instantiate_time))),
        ("initialize_us", J::Num(us(m.initialize_time))),
        ("runs", J::Arr(m.runs.iter().map(jrun).collect())),
    ])
}

fn jscaling(r: &ScalingRow) -> J {
    J::Obj(vec![
        ("family", J::Str(r.family.into())),
        ("stages", J::Num(r.stages as f64)),
        ("model", J::Str(r.model.clone())),
        ("bodies", J::Num(r.bodies as f64)),
        ("joints", J::Num(r.joints as f64)),
        ("loops", J::Num(r.loops as f64)),
        ("cylinders", J::Num(r.cylinders as f64)),
        ("volumes", J::Num(r.volumes as f64)),
        ("dof", J::Num(r.dof as f64)),
        ("nz", J::Num(r.nz as f64)),
        ("nw", J::Num(r.nw as f64)),
        ("nc", J::Num(r.nc as f64)),
        ("unknowns", J::Num(r.unknowns as f64)),
        ("solver_path", J::Str(r.solver_path.into())),
        ("automatic", J::Bool(r.automatic)),
        ("refresh_full_evaluations", J::Num(r.refresh_full as f64)),
        (
            "refresh_partial_evaluations",
            J::Num(r.refresh_partial as f64),
        ),
        ("pattern_nonzeros", J::Num(r.pattern_nonzeros as f64)),
        ("lu_nonzeros", J::Num(r.lu_nonzeros as f64)),
        ("lu_flops", J::Num(r.lu_flops)),
        ("step_s", J::Num(r.step_size)),
        ("steps", J::Num(r.steps as f64)),
        ("step", jstats_us(&r.step)),
        ("iterations", jstats(&r.iterations)),
        ("compile_s", J::Num(r.compile_time)),
        (
            "failure",
            r.failure.as_ref().map_or(J::Null, |f| J::Str(f.clone())),
        ),
    ])
}

/// The whole report as JSON: environment, models, scaling study.
pub fn json(env: &Environment, results: &[ModelResult], scaling: &[ScalingRow]) -> String {
    let exps = exponents(scaling);
    J::Obj(vec![
        ("environment", jenv(env)),
        ("models", J::Arr(results.iter().map(jmodel).collect())),
        ("scaling", J::Arr(scaling.iter().map(jscaling).collect())),
        (
            "scaling_exponents",
            J::Arr(
                exps.into_iter()
                    .filter(|_| !scaling.is_empty())
                    .map(|(f, a, b)| {
                        J::Obj(vec![
                            ("family", J::Str(f)),
                            ("median_vs_stages", jopt(a)),
                            ("median_vs_unknowns", jopt(b)),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
    .render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_and_nulls() {
        let j = J::Obj(vec![
            ("a", J::Str("x\"y\\\n\u{1}".into())),
            ("b", J::Num(f64::NAN)),
            ("c", J::Arr(vec![J::Num(1.5), J::Bool(true), J::Null])),
            ("d", J::Arr(vec![])),
        ]);
        let s = j.render();
        assert!(s.contains(r#""a": "x\"y\\\n\u0001""#), "{s}");
        assert!(s.contains(r#""b": null"#));
        assert!(s.contains("1.5,") && s.contains("true,"));
        assert!(s.contains(r#""d": []"#));
    }

    #[test]
    fn csv_quotes_fields() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}

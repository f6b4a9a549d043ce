//! Runs an FMU's win64 binary on Linux: the small C master `driver/fmu_driver.c`, built for
//! win64 with mingw when hydromech was built, runs under wine with the plan of a run (the
//! communication points, the inputs before each step, as bit patterns) and writes every
//! output's bit pattern, so the result is exactly what the win64 binary computed.

use crate::host::xml::ModelDescription;
use crate::simulate::Results;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The win64 master and the `bcryptprimitives.dll` stand-in it needs under wine: Rust's std
/// in the FMU imports `ProcessPrng` from it, which Windows 10 has and Debian's wine 8 lacks.
pub struct WindowsDriver {
    pub exe: &'static [u8],
    pub shim: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/drivers.rs"));

/// Why win64 binaries cannot be run here, or `None` when they can.
pub fn unavailable() -> Option<String> {
    if WIN64_DRIVER.is_none() {
        return Some(
            "this hydromech has no win64 master (it was built without mingw; `hydromech --version` lists its platforms)".into(),
        );
    }
    match Command::new("wine").arg("--version").output() {
        Ok(o) if o.status.success() => None,
        _ => Some("wine is not installed (apt-get install wine wine64)".into()),
    }
}

/// One run: what the driver sets and reads.
pub struct Plan<'a> {
    pub description: &'a ModelDescription,
    pub inputs: &'a [u32],
    pub outputs: &'a [u32],
    pub names: &'a [String],
    /// Inputs set before initialization.
    pub initial: Vec<f64>,
    /// Communication points; `values[k]` is set before the step from `points[k]`.
    pub points: &'a [f64],
    pub values: Vec<Vec<f64>>,
}

fn hex(x: f64) -> String {
    format!("{:016x}", x.to_bits())
}

/// `Z:\...`: how wine's default drive maps the Linux root.
fn windows_path(p: &Path) -> String {
    format!("Z:{}", p.display()).replace('/', "\\")
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `fmu`'s win64 binary through `plan` under wine.
pub fn run(fmu: &Path, plan: &Plan) -> Result<Results, String> {
    if let Some(why) = unavailable() {
        return Err(format!("cannot run the win64 binary: {why}"));
    }
    let driver = WIN64_DRIVER.as_ref().expect("checked by unavailable()");
    let dir = TempDir(std::env::temp_dir().join(format!(
        "hydromech-wine-{}-{}",
        std::process::id(),
        fmu.file_stem().unwrap_or_default().to_string_lossy()
    )));
    let _ = std::fs::remove_dir_all(&dir.0);
    let fail = |e: std::io::Error| format!("{}: {e}", dir.0.display());
    std::fs::create_dir_all(&dir.0).map_err(fail)?;
    let root = dir.0.join("fmu");
    crate::host::fmu_xml::open_fmu(fmu)?
        .extract(&root)
        .map_err(|e| format!("{}: cannot unpack: {e}", fmu.display()))?;
    let md = plan.description;
    let dll = root
        .join("binaries/win64")
        .join(format!("{}.dll", md.model_identifier));
    if !dll.is_file() {
        return Err(format!(
            "{}: has no binaries/win64/{}.dll",
            fmu.display(),
            md.model_identifier
        ));
    }
    std::fs::write(dir.0.join("driver.exe"), driver.exe).map_err(fail)?;
    std::fs::write(dir.0.join("bcryptprimitives.dll"), driver.shim).map_err(fail)?;

    let steps = plan.points.len() - 1;
    let mut text = format!(
        "binary {}\nresources file:///Z:{}\nguid {}\nexperiment {} {} {steps}\nset 0\ninputs {}",
        windows_path(&dll),
        root.join("resources").display(),
        md.guid,
        hex(plan.points[0]),
        hex(0.0),
        plan.inputs.len()
    );
    for vr in plan.inputs {
        let _ = write!(text, " {vr}");
    }
    let _ = write!(text, "\noutputs {}", plan.outputs.len());
    for vr in plan.outputs {
        let _ = write!(text, " {vr}");
    }
    let none = windows_path(&dir.0.join("none"));
    let _ = write!(text, "\nsave -1 {none}\nrestore -1 {none}\ninitial");
    for v in &plan.initial {
        let _ = write!(text, " {}", hex(*v));
    }
    text.push_str("\npoints");
    for t in plan.points {
        let _ = write!(text, " {}", hex(*t));
    }
    text.push_str("\nvalues\n");
    for row in &plan.values {
        for v in row {
            let _ = write!(text, "{} ", hex(*v));
        }
        text.push('\n');
    }
    let plan_file = dir.0.join("plan.txt");
    let out_file = dir.0.join("out.txt");
    std::fs::write(&plan_file, text).map_err(fail)?;
    let output = Command::new("wine")
        .arg(dir.0.join("driver.exe"))
        .arg(windows_path(&plan_file))
        .arg(windows_path(&out_file))
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
        .output()
        .map_err(|e| format!("cannot run wine: {e}"))?;
    let log = String::from_utf8_lossy(&output.stderr);
    let text = std::fs::read_to_string(&out_file).unwrap_or_default();
    let mut results = Results {
        names: plan.names.to_vec(),
        ..Default::default()
    };
    for line in text.lines() {
        let mut cells = line.split_whitespace();
        let k: usize = cells
            .next()
            .and_then(|k| k.parse().ok())
            .filter(|&k| k <= steps)
            .ok_or_else(|| format!("the win64 master wrote a bad line: {line}"))?;
        let row: Vec<f64> = cells
            .map(|c| u64::from_str_radix(c, 16).map(f64::from_bits))
            .collect::<Result<_, _>>()
            .map_err(|_| format!("the win64 master wrote a bad line: {line}"))?;
        if row.len() != plan.outputs.len() {
            return Err(format!("the win64 master wrote a bad line: {line}"));
        }
        results.time.push(plan.points[k]);
        results.rows.push(row);
    }
    if !output.status.success() || results.time.len() != plan.points.len() {
        return Err(format!(
            "the win64 binary under wine stopped after {} of {} communication points (exit {}): {}",
            results.time.len(),
            plan.points.len(),
            output.status,
            log.lines()
                .filter(|l| !l.trim().is_empty())
                .take(5)
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    Ok(results)
}

//! `hydromech sweep --dask ADDRESS`: the cases, checked here, run on a Dask cluster by the
//! Python package `hydromech` (`python -m hydromech.dask_sweep`), whose workers run them
//! with this crate's engine (the wheel's `hydromech._native`) and return the rows the
//! in-process sweep writes. The FMU travels to the workers with the cases (no shared file
//! system needed); Dask schedules, nothing here does.

use super::{Options, cases_csv};
use crate::host::fmi::Fmu;
use std::path::Path;
use std::process::Command;

/// The Python with the `hydromech` package: `HYDROMECH_PYTHON` (the wheel's `hydromech`
/// command sets it to its own Python), else `python3`.
fn python() -> String {
    std::env::var("HYDROMECH_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Runs the sweep `o` of `fmu` (loaded from `fmu_path`) on the cluster at `scheduler`,
/// writing the rows to `output`; returns the runner's summary line.
pub fn run(
    fmu_path: &Path,
    fmu: &Fmu,
    o: &Options,
    inputs: Option<&Path>,
    scheduler: &str,
    output: &Path,
) -> Result<String, String> {
    if o.trajectories {
        return Err("--trajectories: not available with --dask (the workers return rows)".into());
    }
    let outputs = super::recorded_outputs(fmu, &o.run.vars)?;
    let py = python();
    // The package and Dask are there, or say how to get them before anything runs.
    let probe = Command::new(&py)
        .args(["-c", "import hydromech.dask_sweep, distributed"])
        .output()
        .map_err(|e| format!("--dask: cannot run {py}: {e}; set HYDROMECH_PYTHON to a Python with the hydromech package installed"))?;
    if !probe.status.success() {
        return Err(format!(
            "--dask: {py} cannot import the hydromech package and Dask ({}); install them \
             with `{py} -m pip install \"hydromech[dask]\"` (docs/python.md) or set \
             HYDROMECH_PYTHON",
            String::from_utf8_lossy(&probe.stderr)
                .trim()
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    let dir = std::env::temp_dir().join(format!(
        "hydromech-dask-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let cases = dir.join("cases.csv");
    let written = cases_csv(fmu, o).and_then(|csv| {
        std::fs::write(&cases, csv).map_err(|e| format!("{}: {e}", cases.display()))
    });
    let result = written.and_then(|()| {
        let mut cmd = Command::new(&py);
        cmd.args(["-m", "hydromech.dask_sweep"])
            .arg(fmu_path)
            .arg("--cases")
            .arg(&cases)
            .arg("--stop-time")
            .arg(format!("{:?}", o.run.stop_time))
            .arg("--vars")
            .arg(outputs.join(","))
            .arg("--scheduler")
            .arg(scheduler)
            .arg("-o")
            .arg(output);
        if let Some(h) = o.run.step {
            cmd.arg("--step").arg(format!("{h:?}"));
        }
        if let Some(i) = inputs {
            cmd.arg("--inputs").arg(i);
        }
        let out = cmd
            .output()
            .map_err(|e| format!("--dask: cannot run {py}: {e}"))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        } else {
            Err(format!(
                "--dask: hydromech.dask_sweep failed:\n{}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    });
    std::fs::remove_dir_all(&dir).ok();
    result
}

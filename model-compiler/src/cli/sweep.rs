//! `hydromech sweep`: a case per row, in-process, as cases only, or on Dask.

use super::args::RunArgs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where `hydromech sweep` runs its cases.
pub(crate) enum SweepMode {
    InProcess { trajectories: Option<PathBuf> },
    CasesOnly,
    Dask(String),
}

/// `hydromech sweep`.
pub(crate) fn sweep(
    run: RunArgs,
    params: &[String],
    sampling: Option<crate::sweep::grid::Sampling>,
    threads: Option<usize>,
    mode: SweepMode,
    output: &Path,
) -> ExitCode {
    use crate::{simulate, sweep};
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(1)
    };
    let ranges = match params
        .iter()
        .map(|p| sweep::grid::Range::parse(p))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let mut input_series = Vec::new();
    if let Some(p) = &run.inputs {
        match std::fs::read_to_string(p)
            .map_err(|e| format!("{}: cannot read the inputs: {e}", p.display()))
            .and_then(|t| simulate::parse_inputs(&t).map_err(|e| format!("{}: {e}", p.display())))
        {
            Ok(s) => input_series.push(s),
            Err(e) => return fail(e),
        }
    }
    let prepared = match simulate::prepare(&run.model) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let fmu = match crate::host::fmi::Fmu::load(&prepared.fmu) {
        Ok(f) => f,
        Err(e) => return fail(e),
    };
    let options = sweep::Options {
        ranges,
        sampling,
        run: simulate::Options {
            stop_time: run.stop_time,
            step: run.step,
            input_series,
            vars: run.vars,
            ..Default::default()
        },
        threads: threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        progress: true,
        trajectories: matches!(
            &mode,
            SweepMode::InProcess {
                trajectories: Some(_)
            }
        ),
        variants: None,
    };
    // A description: its fields can be swept too (in-process).
    let is_description = run.model.extension().is_some_and(|e| e == "toml");
    let options = if is_description && matches!(mode, SweepMode::InProcess { .. }) {
        let file = run.model.display().to_string();
        let variants = std::fs::read_to_string(&run.model)
            .map_err(|e| format!("{file}: {e}"))
            .and_then(|text| {
                sweep::variants::Variants::new(
                    crate::fit::field::Document::parse(&file, &text)?,
                    &fmu.description.guid,
                )
            });
        match variants {
            Ok(v) => sweep::Options {
                variants: Some(std::sync::Arc::new(v)),
                ..options
            },
            Err(e) => return fail(e),
        }
    } else {
        options
    };
    let trajectories = match mode {
        SweepMode::CasesOnly => {
            return match sweep::cases_csv(&fmu, &options) {
                Ok(csv) => match std::fs::write(output, csv) {
                    Ok(()) => {
                        println!("{}", output.display());
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(format!("{}: {e}", output.display())),
                },
                Err(e) => fail(e),
            };
        }
        SweepMode::Dask(address) => {
            let inputs = run.inputs.as_deref();
            return match sweep::dask::run(&prepared.fmu, &fmu, &options, inputs, &address, output) {
                Ok(summary) => {
                    println!("{summary}");
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            };
        }
        SweepMode::InProcess { trajectories } => trajectories,
    };
    let sweep = match sweep::run(&fmu, &options) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if let Err(e) = sweep.to_table().write(output) {
        return fail(e);
    }
    if let Some(Err(e)) = trajectories.map(|path| sweep.trajectories().write(&path)) {
        return fail(e);
    }
    println!(
        "{}  ({} cases, {} failed; {} thread(s), {:.2} s, {:.1} ms per case median)",
        output.display(),
        sweep.cases.len(),
        sweep.failures(),
        sweep.threads,
        sweep.wall.as_secs_f64(),
        1e3 * sweep.median_case_seconds()
    );
    ExitCode::SUCCESS
}

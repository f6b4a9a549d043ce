//! `hydromech fit`: least squares on a record.

use super::args::FitArgs;
use std::process::ExitCode;
use std::time::Instant;

/// `hydromech fit`.
pub(crate) fn fit(a: FitArgs) -> ExitCode {
    use crate::fit;
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(1)
    };
    let window = match a.window.as_deref().map(|w| {
        w.split_once("..")
            .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)))
            .ok_or_else(|| format!("--window {w}: expected FROM..TO in seconds, e.g. 0..14"))
    }) {
        None => None,
        Some(Ok(w)) => Some(w),
        Some(Err(e)) => return fail(e),
    };
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let o = fit::Options {
        model: a.model.clone(),
        data: a.data.clone(),
        time: a.time,
        maps: a.maps,
        inputs: a.inputs,
        free: a.free,
        weights: a.weights,
        window,
        step: a.step,
    };
    let setup = match fit::Setup::prepare(&o) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    eprintln!(
        "fitting {} field(s) to {} channel(s) × {} samples on {threads} thread(s)",
        setup.free.len(),
        setup.fit.outputs.len(),
        setup.fit.times.len()
    );
    let began = Instant::now();
    let result = fit::fit(&setup, threads, a.max_simulations, true);
    let (before, after) = match (
        setup.agreement(&setup.start),
        setup.agreement(&result.values),
    ) {
        (Ok(b), Ok(f)) => (b, f),
        (Err(e), _) | (_, Err(e)) => return fail(e),
    };
    print!("{}", fit::report::summary(&setup, &result, &before, &after));
    println!("({:.1} s)", began.elapsed().as_secs_f64());
    if let Some(dir) = &a.plots {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return fail(format!("{}: {e}", dir.display()));
        }
        for (file, svg) in fit::report::plots(&setup, &before, &after) {
            if let Err(e) = std::fs::write(dir.join(&file), svg) {
                return fail(format!("{}: {e}", dir.join(&file).display()));
            }
        }
    }
    if let Some(path) = &a.results {
        let csv = fit::report::trajectories_csv(&setup, &before, &after);
        if let Err(e) = std::fs::write(path, csv) {
            return fail(format!("{}: {e}", path.display()));
        }
    }
    if let Some(out) = &a.output {
        let name = a
            .name
            .or_else(|| out.file_stem().map(|s| s.to_string_lossy().into_owned()));
        let date = crate::emit::timestamp::build_time().to_xml();
        let command: Vec<String> = std::iter::once("hydromech".to_string())
            .chain(std::env::args().skip(1))
            .map(|x| if x.contains(' ') { format!("'{x}'") } else { x })
            .collect();
        let text = fit::report::fitted_description(
            &setup,
            &result,
            &before,
            &after,
            name.as_deref(),
            &a.data.display().to_string(),
            &date[..10],
            &command.join(" "),
        );
        if let Err(e) = std::fs::write(out, text) {
            return fail(format!("{}: {e}", out.display()));
        }
        eprintln!("wrote {}", out.display());
    }
    ExitCode::SUCCESS
}

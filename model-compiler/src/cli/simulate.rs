//! `hydromech simulate`: one run through the FMU's C ABI.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `--plot` values: the SVG file (one ending in `.svg`, else next to the CSV) and the
/// variables' names or globs. `None` when there are none.
fn plot_request(
    values: &[String],
    output: &Path,
) -> Result<Option<(PathBuf, Vec<String>)>, String> {
    if values.is_empty() {
        return Ok(None);
    }
    let (files, patterns): (Vec<&String>, Vec<&String>) = values
        .iter()
        .filter(|v| !v.trim().is_empty())
        .partition(|v| v.to_ascii_lowercase().ends_with(".svg"));
    let file = match files.as_slice() {
        [] => output.with_extension("svg"),
        [f] => PathBuf::from(f.as_str()),
        more => {
            return Err(format!(
                "--plot names {} SVG files ({}); give one",
                more.len(),
                more.iter()
                    .map(|f| f.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    };
    Ok(Some((
        file,
        patterns.iter().map(|p| p.trim().to_string()).collect(),
    )))
}

pub(crate) fn simulate(
    model: &Path,
    mut options: crate::simulate::Options,
    plot: &[String],
    display_units: bool,
) -> ExitCode {
    use crate::simulate;
    match plot_request(plot, &options.output) {
        Ok(Some((file, patterns))) => {
            options.plot = Some(file);
            options.plot_vars = patterns;
        }
        Ok(None) => {}
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    let prepared = match simulate::prepare(model) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    let (results, error) = match simulate::run(&prepared.fmu, &options) {
        Ok(r) => (r, None),
        Err((r, e)) => (r, Some(e)),
    };
    let mut failed = false;
    if !results.time.is_empty() {
        let csv = if display_units {
            results.to_display_csv()
        } else {
            results.to_csv()
        };
        if let Err(e) = std::fs::write(&options.output, csv) {
            eprintln!("error: {}: {e}", options.output.display());
            failed = true;
        } else {
            println!(
                "{}  ({} rows, {} variables{})",
                options.output.display(),
                results.time.len(),
                results.names.len(),
                if display_units {
                    ", in display units"
                } else {
                    ""
                }
            );
        }
        if let Some(p) = &options.plot {
            let title = model
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            // The patterns were checked before the run.
            let columns =
                simulate::plot::select(&results.names, &options.plot_vars).unwrap_or_default();
            let svg = simulate::plot::plot(&results, &title, &columns);
            if let Err(e) = std::fs::write(p, svg) {
                eprintln!("error: {}: {e}", p.display());
                failed = true;
            } else {
                println!("{}  ({} variables)", p.display(), columns.len());
            }
        }
    }
    if let Some(e) = error {
        eprintln!("error: {e}");
        failed = true;
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_values_are_a_file_and_patterns() {
        let out = Path::new("run/out.csv");
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(plot_request(&[], out).unwrap(), None);
        assert_eq!(
            plot_request(&v(&["p.svg"]), out).unwrap(),
            Some((PathBuf::from("p.svg"), vec![]))
        );
        assert_eq!(
            plot_request(&v(&["*.p_*", "boom.angle"]), out).unwrap(),
            Some((PathBuf::from("run/out.svg"), v(&["*.p_*", "boom.angle"])))
        );
        let e = plot_request(&v(&["a.svg", "b.SVG"]), out).unwrap_err();
        assert!(e.contains("2 SVG files (a.svg, b.SVG)"), "{e}");
    }
}

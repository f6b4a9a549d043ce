//! `hydromech simulate`: one run through the FMU's C ABI.

use std::path::Path;
use std::process::ExitCode;

pub(crate) fn simulate(model: &Path, options: model_compiler::simulate::Options) -> ExitCode {
    use model_compiler::simulate;
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
        if let Err(e) = std::fs::write(&options.output, results.to_csv()) {
            eprintln!("error: {}: {e}", options.output.display());
            failed = true;
        } else {
            println!(
                "{}  ({} rows, {} variables)",
                options.output.display(),
                results.time.len(),
                results.names.len()
            );
        }
        if let Some(p) = &options.plot {
            let title = model
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Err(e) = std::fs::write(p, simulate::plot(&results, &title)) {
                eprintln!("error: {}: {e}", p.display());
                failed = true;
            } else {
                println!("{}", p.display());
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

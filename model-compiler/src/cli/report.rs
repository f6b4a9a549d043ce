//! `hydromech report`: the model pages of docs/models.

use super::models::{exit_code, models_or_default, read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

pub(crate) fn report_pages(models: Vec<PathBuf>, output: &Path) -> ExitCode {
    let Ok(models) = models_or_default(models) else {
        return ExitCode::from(1);
    };
    if let Err(e) = std::fs::create_dir_all(output) {
        eprintln!("error: {}: {e}", output.display());
        return ExitCode::from(1);
    }
    let started = Instant::now();
    let mut failed = 0;
    for path in &models {
        let Ok(source) = read(path) else {
            failed += 1;
            continue;
        };
        let command = format!(
            "cargo run --release -p model-compiler -- report {}",
            path.display()
        );
        match crate::report::report(&source, output, &command) {
            Ok(o) => {
                println!(
                    "{}  ({} files, {:.1} s)",
                    o.page.display(),
                    o.files.len(),
                    o.seconds
                );
                if let Some(e) = o.failure {
                    eprintln!("{}: error: the run stopped early: {e}", path.display());
                    failed += 1;
                }
            }
            Err(e) => {
                eprintln!("{e}\n");
                eprintln!("{}: the page was not written", path.display());
                failed += 1;
            }
        }
    }
    match crate::report::write_index(output) {
        Ok(p) => println!(
            "{}  ({:.1} s in all)",
            p.display(),
            started.elapsed().as_secs_f64()
        ),
        Err(e) => {
            eprintln!("error: {e}");
            failed += 1;
        }
    }
    exit_code(failed)
}

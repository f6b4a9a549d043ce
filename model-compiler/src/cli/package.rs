//! `hydromech package` and `hydromech verify`: the supplier package and its re-run.

use super::models::{each_model, exit_code};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub(crate) fn package(
    models: Vec<PathBuf>,
    output: &Path,
    platforms: &[String],
    allow_idle: bool,
) -> ExitCode {
    use crate::crosscheck::package;
    let code = each_model(models, |source, started| {
        match package::package(source, output, platforms, allow_idle) {
            Ok(p) => {
                for d in &p.directories {
                    println!("{}", d.display());
                }
                println!(
                    "  StepSize {:?} s, _in.csv {} × {}{}, _ref.csv {} × {}  ({:.1} s)",
                    p.opt.step_size,
                    p.inputs.0,
                    p.inputs.1,
                    if p.resampled {
                        " (on the communication points)"
                    } else {
                        ""
                    },
                    p.reference.0,
                    p.reference.1,
                    started.elapsed().as_secs_f64()
                );
                if !p.left_out.is_empty() {
                    println!(
                        "  _ref.csv leaves out {} of the {} outputs (not plotted by [report]; add them to a [[report.plots]] entry to include them): {}",
                        p.left_out.len(),
                        p.left_out.len() + p.reference.1 - 1,
                        p.left_out.join(", ")
                    );
                }
                true
            }
            Err(e) => {
                eprintln!("{e}\n");
                eprintln!("{}: not packaged", source.path.display());
                false
            }
        }
    });
    match package::write_index(output) {
        Ok(p) => {
            println!("{}", p.display());
            code
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

pub(crate) fn verify(paths: &[PathBuf], exact: bool, platform: Option<String>) -> ExitCode {
    use crate::crosscheck::verify;
    let options = verify::Options { exact, platform };
    let (mut passed, mut failed) = (0, 0);
    for path in paths {
        let cases = match verify::cases(path) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
                continue;
            }
        };
        for case in &cases {
            let v = verify::verify(case, &options);
            print!("{}", v.report);
            if v.passed {
                passed += 1;
            } else {
                failed += 1;
            }
        }
    }
    println!("verify: {passed} passed, {failed} failed");
    exit_code(failed)
}

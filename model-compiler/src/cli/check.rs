//! `hydromech check` and `hydromech inspect`: a description, a built FMU.

use super::models::{exit_code, read, report};
use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) fn check(models: &[PathBuf], warnings: crate::Warnings) -> ExitCode {
    let mut failed = 0;
    for path in models {
        let Ok(source) = read(path) else {
            failed += 1;
            continue;
        };
        if crate::assembly::system::is_system(&source.text) {
            match crate::assembly::system::load(&source) {
                Ok(sys) => println!("{}: ok ({})", path.display(), sys.summary()),
                Err(errors) => {
                    for e in errors {
                        eprintln!("{e}\n");
                    }
                    failed += 1;
                }
            }
            continue;
        }
        match crate::check(&source) {
            Ok((_, l)) => {
                // The [report] files' errors and the warnings in one run, in file order.
                let mut errors = crate::report::check_csv(&source, &l)
                    .err()
                    .unwrap_or_default();
                if warnings == crate::Warnings::Deny {
                    errors.extend(crate::denied(&l.warnings));
                } else if !errors.is_empty() {
                    errors.extend(l.warnings.iter().cloned());
                }
                if !errors.is_empty() {
                    errors.sort_by_key(|e| e.span.as_ref().map(|s| s.start));
                    report(&source, &errors);
                    failed += 1;
                    continue;
                }
                for w in &l.warnings {
                    eprintln!("{}\n", source.render(w));
                }
                print!(
                    "{}: ok ({})\n{}",
                    path.display(),
                    crate::summary::headline(&l),
                    crate::summary::report(&l)
                );
            }
            Err(errors) => {
                report(&source, &errors);
                failed += 1;
            }
        }
    }
    exit_code(failed)
}

pub(crate) fn inspect(fmus: &[PathBuf]) -> ExitCode {
    let mut failed = false;
    for (k, path) in fmus.iter().enumerate() {
        match crate::inspect::read_fmu(path) {
            Ok(i) => {
                if k > 0 {
                    println!();
                }
                println!("{}:", path.display());
                print!("{}", crate::inspect::render(&i));
            }
            Err(e) => {
                eprintln!("error: {e}");
                eprintln!(
                    "help: give the path of an FMI 2.0 .fmu file (a zip with modelDescription.xml)"
                );
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

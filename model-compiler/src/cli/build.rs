//! `hydromech build`: FMUs of descriptions, with `--split` and `--estimator`.

use super::args::SplitAt;
use super::models::{each_model, report};
use crate::diagnostic::Source;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub(crate) fn build(
    models: Vec<PathBuf>,
    output: &Path,
    platforms: &[String],
    (split, estimator): (Option<SplitAt>, bool),
    flavour: crate::Flavour,
    warnings: crate::Warnings,
) -> ExitCode {
    if flavour != crate::Flavour::default() && (split.is_some() || estimator) {
        eprintln!(
            "error: --split and --estimator build FMI 2.0 Co-Simulation FMUs (and SSP files) only"
        );
        eprintln!("help: leave out --fmi 3 and --interface, or --split and --estimator");
        return ExitCode::from(1);
    }
    // Named descriptions without [carries] get a note; models/ is split where it can be.
    let named = !models.is_empty();
    each_model(models, |source, started| {
        // A system description becomes one SSP archive with its components' FMUs.
        if crate::assembly::system::is_system(&source.text) {
            if flavour != crate::Flavour::default() {
                eprintln!(
                    "{}: a system description builds an SSP of FMI 2.0 Co-Simulation FMUs; build it without --fmi 3 and --interface",
                    source.path.display()
                );
                return false;
            }
            return match crate::assembly::system::build(source, output, platforms) {
                Ok(ssp) => {
                    println!(
                        "{}  ({:.2} s)",
                        ssp.display(),
                        started.elapsed().as_secs_f64()
                    );
                    true
                }
                Err(errors) => {
                    for e in errors {
                        eprintln!("{e}\n");
                    }
                    eprintln!("{}: the system was not built", source.path.display());
                    false
                }
            };
        }
        match crate::build_version(source, output, platforms, flavour, warnings) {
            Ok(built) => {
                for w in &built.warnings {
                    eprintln!("{}\n", source.render(w));
                }
                println!(
                    "{}  ({:.2} s)",
                    built.fmu.display(),
                    started.elapsed().as_secs_f64()
                );
                let split = match split {
                    Some(SplitAt::Base) => split_at_base(source, output, platforms, named),
                    Some(SplitAt::Actuators) => {
                        split_at_actuators(source, output, platforms, named)
                    }
                    None => true,
                };
                split && (!estimator || with_estimator(source, output, platforms, named))
            }
            Err(errors) => {
                report(source, &errors);
                false
            }
        }
    })
}

/// `--split base` of one description.
pub(crate) fn split_at_base(
    source: &Source,
    output: &Path,
    platforms: &[String],
    named: bool,
) -> bool {
    let carries =
        crate::description::Description::parse(&source.text).is_ok_and(|d| d.carries.is_some());
    if !carries {
        if !named {
            return true;
        }
        eprintln!(
            "{}: note: no [carries], nothing to split at a base",
            source.path.display()
        );
        return true;
    }
    built_split(
        source,
        crate::assembly::compose::write_split(source, output, platforms),
    )
}

/// `--split actuators` of one description (one without cylinders or motors is left whole,
/// with a note when it was named).
pub(crate) fn split_at_actuators(
    source: &Source,
    output: &Path,
    platforms: &[String],
    named: bool,
) -> bool {
    let actuators = crate::description::Description::parse(&source.text).is_ok_and(|d| {
        d.hydraulics
            .is_some_and(|h| !h.cylinders.is_empty() || !h.motors.is_empty())
    });
    if !actuators {
        if named {
            eprintln!(
                "{}: note: no cylinders or motors, nothing to split at actuators",
                source.path.display()
            );
        }
        return true;
    }
    built_split(
        source,
        crate::assembly::actuator_split::write_split(source, output, platforms),
    )
}

/// `--estimator` of one description (one without [estimator] is left alone, with a note
/// when it was named).
pub(crate) fn with_estimator(
    source: &Source,
    output: &Path,
    platforms: &[String],
    named: bool,
) -> bool {
    let declared =
        crate::description::Description::parse(&source.text).is_ok_and(|d| d.estimator.is_some());
    if !declared {
        if named {
            eprintln!(
                "{}: note: no [estimator], no estimator FMU",
                source.path.display()
            );
        }
        return true;
    }
    match crate::build_estimator(source, output, platforms) {
        Ok(fmu) => {
            println!("{}", fmu.display());
            true
        }
        Err(errors) => {
            report(source, &errors);
            false
        }
    }
}

/// Prints the files a split wrote, or its errors; whether it was built.
pub(crate) fn built_split(source: &Source, result: Result<Vec<PathBuf>, Vec<String>>) -> bool {
    match result {
        Ok(paths) => {
            for p in paths {
                println!("{}", p.display());
            }
            true
        }
        Err(errors) => {
            for e in errors {
                eprintln!("{e}\n");
            }
            eprintln!("{}: the split was not built", source.path.display());
            false
        }
    }
}

//! # model-compiler (`hydromech`)
//!
//! Compiles a TOML machine description into FMI 2.0 and 3.0 FMUs, as a pipeline:
//!
//! 1. [`description`]: parse with serde (unknown keys and type errors have positions);
//! 2. [`lower`]: check names and quantities ([`units`]) and build the
//!    [`fmu_runtime::model::CompiledModel`] (flexible bodies reduced by [`flexible`]);
//!    solve `init.solve_for` ([`equilibrium`]) and derive the GUID from the content;
//!    machines of several FMUs and FMUs derived from a description: [`assembly`] (a
//!    carried machine, the actuator split, the estimator FMU, SSP systems);
//! 3. [`emit`]: `modelDescription.xml`, the HTML page, the OSP file and the `.fmu` zip
//!    with the generic runtime binary of each platform (compiled when hydromech was) and
//!    the model file in `resources/`.
//!
//! The commands work on what the pipeline writes: [`host`] loads a built FMU through its
//! C ABI for [`simulate`], [`bench`] (the performance harness), [`report`] (model
//! pages), [`crosscheck`] (`hydromech package` and `verify`), [`sweep`] and [`fit`];
//! [`inspect`], [`schema`] and [`summary`] (`hydromech check`) read and print. The
//! executable's argument parsing is `src/cli/`, one module per command.

pub mod assembly;
pub mod bench;
pub mod cli;
pub mod crosscheck;
pub mod description;
pub mod diagnostic;
pub mod emit;
pub mod equilibrium;
pub mod fit;
pub mod flexible;
pub mod host;
pub mod inspect;
pub mod lower;
pub mod names;
pub mod report;
pub mod schema;
pub mod simulate;
pub mod summary;
pub mod sweep;
pub mod units;

use description::Description;
use diagnostic::{Diagnostic, Source};
use lower::Lowered;
use std::path::{Path, PathBuf};

/// Parse, validate and lower (no equilibrium solve, no GUID): `hydromech check`.
/// Warnings of a valid description are in [`Lowered::warnings`]. A description with
/// `[carries]` is lowered as one machine with the carried one on its mount ([`assembly::compose`]).
pub fn check(source: &Source) -> Result<(Description, Lowered), Vec<Diagnostic>> {
    let d = Description::parse(&source.text).map_err(|e| vec![e])?;
    if d.carries.is_some() {
        return assembly::compose::whole(source, &d);
    }
    let lowered = lower::lower_at(&d, source.path.parent())?;
    Ok((d, lowered))
}

/// The complete compiled model: checked, `init.solve_for` solved, GUID set.
pub fn compile(source: &Source) -> Result<Lowered, Vec<Diagnostic>> {
    let (d, l) = check(source)?;
    finish(&d, l)
}

/// A shipped machine (`models/<file>`) compiled, for unit tests.
#[cfg(test)]
pub(crate) fn compile_shipped(file: &str) -> Lowered {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    compile(&Source::new(file, text)).unwrap_or_else(|e| panic!("{file}: {e:?}"))
}

/// [`compile`] of a parsed description whose files (FE matrices) are relative to `base`.
pub fn compile_at(d: &Description, base: Option<&Path>) -> Result<Lowered, Vec<Diagnostic>> {
    finish(d, lower::lower_at(d, base)?)
}

/// [`compile`] of a parsed description (one machine; `[carries]` is not looked at).
pub fn compile_description(d: &Description) -> Result<Lowered, Vec<Diagnostic>> {
    finish(d, lower::lower(d)?)
}

/// `init.solve_for` solved, GUID set.
fn finish(d: &Description, mut l: Lowered) -> Result<Lowered, Vec<Diagnostic>> {
    if !l.solve_for.is_empty() {
        let entries = d.init.as_ref().and_then(|i| i.solve_for.as_ref());
        let span = entries.and_then(|s| s.first()).map(|n| n.span());
        let fail = |message: String| {
            vec![Diagnostic::new(
                span.clone(),
                message,
                "check that the listed inputs can hold the machine at rest (or remove init.solve_for and give their values)",
            )]
        };
        let values =
            equilibrium::solve_parameters(&l.model, &l.solve_for).map_err(|e| {
                match e {
            equilibrium::ParameterSolveError::Unused(unused) => unused
                .iter()
                .map(|&k| {
                    let entry = entries.and_then(|s| s.get(k));
                    let name = entry.map_or("?", |n| n.get_ref().as_str());
                    Diagnostic::new(
                        entry.map(|n| n.span()),
                        format!(
                            "'{name}' cannot be solved for: no force, flow or set-point of the \
                             machine at rest depends on it (a damping, a start value or a limit \
                             acts only in motion or at the start)"
                        ),
                        "remove it from solve_for; name what holds the machine at rest (a valve \
                         command, a pressure setting, a spring's free length)",
                    )
                })
                .collect(),
            equilibrium::ParameterSolveError::Failed(e) => {
                fail(format!("the equilibrium solve of init.solve_for failed: {e}"))
            }
        }
            })?;
        if values.len() != l.solve_for.len() || values.iter().any(|v| !v.is_finite()) {
            return Err(fail(format!(
                "the equilibrium solve returned {} values ({values:?}) for {} unknowns",
                values.len(),
                l.solve_for.len()
            )));
        }
        lower::apply_parameter_values(&mut l.model, &l.solve_for, &values);
    }
    l.model.guid = lower::compute_guid(&l.model);
    Ok(l)
}

/// Builds `<out_dir>/<file stem>.fmu` with the runtime of every platform this hydromech
/// carries; returns its path.
pub fn build(source: &Source, out_dir: &Path) -> Result<PathBuf, Vec<Diagnostic>> {
    build_for(source, out_dir, &[])
}

/// [`build`] for the named FMI platforms (`linux64`, ...; empty = all this hydromech
/// carries). No compiler runs: the FMU is the generic runtime binary per platform
/// ([`emit::runtime`]) and the model file ([`fmu_runtime::model::file`]) in `resources/`.
pub fn build_for(
    source: &Source,
    out_dir: &Path,
    platforms: &[String],
) -> Result<PathBuf, Vec<Diagnostic>> {
    build_version(
        source,
        out_dir,
        platforms,
        Flavour::default(),
        Warnings::Allow,
    )
    .map(|built| built.fmu)
}

/// What a build does with the warnings of a description (implausible values, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warnings {
    /// Build, and hand them back ([`Built::warnings`]).
    Allow,
    /// Build nothing: they are errors (`--deny-warnings`, for CI).
    Deny,
}

/// A built FMU and the warnings of its description.
#[derive(Debug)]
pub struct Built {
    pub fmu: PathBuf,
    pub warnings: Vec<Diagnostic>,
}

/// The warnings of a description as errors (`--deny-warnings`).
pub fn denied(warnings: &[Diagnostic]) -> Vec<Diagnostic> {
    warnings
        .iter()
        .map(|w| Diagnostic {
            severity: diagnostic::Severity::Error,
            help: format!("{} (an error under --deny-warnings)", w.help),
            ..w.clone()
        })
        .collect()
}

/// [`build_for`] for an FMI version and interface type.
pub fn build_version(
    source: &Source,
    out_dir: &Path,
    platforms: &[String],
    flavour: Flavour,
    warnings: Warnings,
) -> Result<Built, Vec<Diagnostic>> {
    // The platforms first: a missing one is reported before any compile error.
    match flavour.version {
        FmiVersion::Fmi2 => emit::runtime::select(platforms).map(drop),
        FmiVersion::Fmi3 => emit::runtime::select_fmi3(platforms).map(drop),
    }
    .map_err(platform_error)?;
    let mut l = compile(source)?;
    if warnings == Warnings::Deny && !l.warnings.is_empty() {
        return Err(denied(&l.warnings));
    }
    if flavour.interface.model_exchange() {
        emit::model_exchange::declare_states(&mut l).map_err(|e| {
            vec![Diagnostic::global(
                format!("Model Exchange: {e}"),
                "build for Co-Simulation (--interface cs), which covers every machine",
            )]
        })?;
    }
    let stem = source
        .file_stem()
        .unwrap_or_else(|| l.model.model_identifier.clone());
    let fmu = write_fmu_version(&l, &stem, out_dir, platforms, flavour)?;
    Ok(Built {
        fmu,
        warnings: l.warnings,
    })
}

/// `hydromech build --estimator`: `<out_dir>/<stem>.estimator.fmu`, the machine of a
/// description with `[estimator]` and its error-state Kalman filter (model
/// `<name>-estimator`, FMI 2.0 Co-Simulation); returns its path.
pub fn build_estimator(
    source: &Source,
    out_dir: &Path,
    platforms: &[String],
) -> Result<PathBuf, Vec<Diagnostic>> {
    emit::runtime::select(platforms)
        .map(drop)
        .map_err(platform_error)?;
    let mut l = compile(source)?;
    l.model.name = format!("{}-{}", l.model.name, assembly::estimator_fmu::SUFFIX);
    l.model.model_identifier = names::model_identifier(&l.model.name);
    assembly::estimator_fmu::declare_estimator(&mut l).map_err(|e| {
        vec![Diagnostic::global(
            format!("the estimator: {e}"),
            "add [estimator] with its [[estimator.sensors]] (docs/description-format.md), or build without --estimator",
        )]
    })?;
    let stem = source
        .file_stem()
        .unwrap_or_else(|| l.model.model_identifier.clone());
    write_fmu(
        &l,
        &format!("{stem}.{}", assembly::estimator_fmu::SUFFIX),
        out_dir,
        platforms,
    )
}

fn platform_error(e: String) -> Vec<Diagnostic> {
    vec![Diagnostic::global(
        e,
        format!(
            "list the platforms this hydromech carries with `hydromech --version` ({})",
            emit::runtime::platforms().join(", ")
        ),
    )]
}

/// Writes `<out_dir>/<stem>.fmu` of a compiled model (and `<stem>_OspModelDescription.xml`
/// when it has ports) for the named platforms; returns the FMU's path.
pub fn write_fmu(
    l: &Lowered,
    stem: &str,
    out_dir: &Path,
    platforms: &[String],
) -> Result<PathBuf, Vec<Diagnostic>> {
    write_fmu_version(l, stem, out_dir, platforms, Flavour::default())
}

/// The FMI version of a built FMU (`hydromech build --fmi 2|3`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FmiVersion {
    /// FMI 2.0 Co-Simulation (the default).
    #[default]
    Fmi2,
    /// FMI 3.0 Co-Simulation (intermediate update, early return).
    Fmi3,
}

impl FmiVersion {
    pub fn label(self) -> &'static str {
        match self {
            FmiVersion::Fmi2 => "2.0",
            FmiVersion::Fmi3 => "3.0",
        }
    }
}

/// The interface types of a built FMU (`hydromech build --interface cs|me|both`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interface {
    /// Co-Simulation: hydromech's own solver steps (the default).
    #[default]
    CoSimulation,
    /// Model Exchange: the importer's integrator, on the continuous states.
    ModelExchange,
    /// Both in one FMU.
    Both,
}

impl Interface {
    pub fn co_simulation(self) -> bool {
        self != Interface::ModelExchange
    }

    pub fn model_exchange(self) -> bool {
        self != Interface::CoSimulation
    }

    pub fn label(self) -> &'static str {
        match self {
            Interface::CoSimulation => "Co-Simulation",
            Interface::ModelExchange => "Model Exchange",
            Interface::Both => "Co-Simulation and Model Exchange",
        }
    }
}

/// What an FMU is: its FMI version and interface types.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flavour {
    pub version: FmiVersion,
    pub interface: Interface,
}

impl Flavour {
    pub fn new(version: FmiVersion, interface: Interface) -> Flavour {
        Flavour { version, interface }
    }

    /// "2.0 Co-Simulation and Model Exchange".
    pub fn label(self) -> String {
        format!("{} {}", self.version.label(), self.interface.label())
    }
}

/// [`write_fmu`] for an FMI version: the model description and the platform folders of
/// that version; the runtime binary (which exports both `fmi2*` and `fmi3*`) and the model
/// file are the same.
pub fn write_fmu_version(
    l: &Lowered,
    stem: &str,
    out_dir: &Path,
    platforms: &[String],
    flavour: Flavour,
) -> Result<PathBuf, Vec<Diagnostic>> {
    let global = |message: String, help: &str| vec![Diagnostic::global(message, help)];
    let time = emit::timestamp::build_time();
    let (xml, binaries) = match flavour.version {
        FmiVersion::Fmi2 => {
            let binaries = emit::runtime::select(platforms).map_err(platform_error)?;
            let xml =
                emit::model_description::render_for(&l.model, &time.to_xml(), flavour.interface);
            (
                xml,
                binaries
                    .into_iter()
                    .map(|b| (b.platform, b))
                    .collect::<Vec<_>>(),
            )
        }
        FmiVersion::Fmi3 => {
            let binaries = emit::runtime::select_fmi3(platforms).map_err(platform_error)?;
            let xml = emit::model_description::fmi3::render_for(
                &l.model,
                &time.to_xml(),
                flavour.interface,
            )
            .map_err(|e| global(e, "rename the variable or build for FMI 2.0"))?;
            (xml, binaries)
        }
    };
    let html = emit::documentation::render_lowered_for(l, flavour);
    let fmu = out_dir.join(format!("{stem}.fmu"));
    let model_file = fmu_runtime::model::file::encode(&l.model);
    let mut entries =
        emit::archive::fmu_entries(xml, &l.model.model_identifier, &binaries, model_file, html);
    let icon = emit::icon::png(l).map_err(|e| global(e, "report this as a bug of hydromech"))?;
    let entry = |name: &str, data: Vec<u8>| emit::archive::Entry {
        name: name.into(),
        data,
        executable: false,
    };
    match flavour.version {
        FmiVersion::Fmi2 => entries.push(entry("model.png", icon)),
        FmiVersion::Fmi3 => {
            entries.push(entry("terminalsAndIcons/icon.png", icon));
            if let Some(xml) = emit::terminals::render(&l.model, true) {
                entries.push(entry(
                    "terminalsAndIcons/terminalsAndIcons.xml",
                    xml.into_bytes(),
                ));
            }
        }
    }
    emit::archive::write_zip(&fmu, &entries, time)
        .map_err(|e| global(e, "check that the output directory is writable"))?;
    // OSP tools look for the ports next to the FMU.
    if let Some(osp) = emit::osp::render(&l.model) {
        let path = out_dir.join(format!("{stem}_OspModelDescription.xml"));
        std::fs::write(&path, osp).map_err(|e| {
            global(
                format!("cannot write {}: {e}", path.display()),
                "check that the output directory is writable",
            )
        })?;
    }
    Ok(fmu)
}

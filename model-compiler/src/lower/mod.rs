//! Lowering: a checked [`Description`] becomes an [`fmu_runtime::model::CompiledModel`].
//!
//! Every numeric field becomes a parameter slot named by its path (`rod.mass`,
//! `valve.command`, `oil.density`, ...); components refer to slots by [`ParamId`], and the
//! interface binds FMI variables to slots or to computed quantities. Errors are collected
//! (not stopped at the first) and point at the offending text.

pub mod analysis;
pub mod base;
mod circuit;
mod contact;
mod context;
mod estimator;
pub mod flexible;
mod flexible_files;
mod flexible_source;
mod init;
mod interface;
pub mod mass;
mod mechanism;
mod plausibility;
mod ports;
pub mod report;
mod rope;
mod visual;

pub use analysis::Analysis;
pub(crate) use context::{BodyInfo, Ctx};
pub use context::{Expect, MOUNT_DEFAULT_NAME, SlotInfo, quantity_value};
pub use report::ReportSpec;
pub use visual::{Visual, VisualGeometry};

use crate::description::{Description, LinearSolverDesc, Quantity, TangentDesc};
use crate::diagnostic::Diagnostic;
use crate::names;
use crate::units::Dim;
use fmu_runtime::model::{
    CompiledModel, DefaultExperiment, Formulation, InitSettings, LinearSolver,
    MODEL_FORMAT_VERSION, Metadata, ParamId, SolverSettings, TangentMethod,
};
use sha2::{Digest, Sha256};

/// The result of lowering.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub model: CompiledModel,
    /// Bodies the description declares (the tree adds a massless link per extra axis of a
    /// spherical or universal joint).
    pub declared_bodies: usize,
    /// Their names, in the description's order (the drawings leave out generated bodies).
    pub body_names: Vec<String>,
    pub slots: Vec<SlotInfo>,
    /// Slots to be computed by the equilibrium solve (`init.solve_for`).
    pub solve_for: Vec<ParamId>,
    /// Degrees of freedom and loop closure at the initial configuration.
    pub analysis: Analysis,
    /// Problems that do not stop the build.
    pub warnings: Vec<Diagnostic>,
    /// Visual geometry of the bodies (documentation only).
    pub visuals: Vec<Visual>,
    /// `[report]`, or its defaults (`hydromech report`).
    pub report: ReportSpec,
    /// The flexible bodies' reductions, in the order of `Mechanism::flexible`.
    pub flexible: Vec<flexible::FlexibleLowered>,
    /// The description's `[estimator]`: what `hydromech build --estimator` puts into the
    /// model (the machine's own FMU leaves it out).
    pub estimator: Option<fmu_runtime::model::estimator::EstimatorSpec>,
}

/// Lowers a description; collects every error it finds.
pub fn lower(d: &Description) -> Result<Lowered, Vec<Diagnostic>> {
    lower_at(d, None)
}

/// [`lower`] of a description read from a file in `base_dir`, whose relative file names
/// (FE matrices) are read from there.
pub fn lower_at(
    d: &Description,
    base_dir: Option<&std::path::Path>,
) -> Result<Lowered, Vec<Diagnostic>> {
    let mut cx = Ctx::new();
    cx.base_dir = base_dir.map(std::path::Path::to_path_buf);
    let m = &d.model;
    let model_name = m.name.get_ref().clone();
    let model_identifier = names::model_identifier(&model_name);
    if model_name.trim().is_empty() {
        cx.error(
            m.name.span(),
            "the model name is empty",
            "give the model a name, e.g. name = \"my-crane\"",
        );
    } else if names::RESERVED_IDENTIFIERS
        .iter()
        .any(|r| r.eq_ignore_ascii_case(&model_identifier))
    {
        cx.error(
            m.name.span(),
            format!(
                "the model identifier '{model_identifier}' is reserved (a Windows device name: binaries/win64/{model_identifier}.dll cannot exist)"
            ),
            "rename the model, e.g. with a prefix such as \"my-\"",
        );
    }
    let metadata = [
        &m.description,
        &m.author,
        &m.version,
        &m.license,
        &m.copyright,
    ];
    if std::iter::once(model_name.as_str())
        .chain(metadata.iter().filter_map(|s| s.as_deref()))
        .any(has_control_chars)
    {
        cx.error(
            m.name.span(),
            "the [model] texts contain control characters, which XML cannot hold",
            "remove escapes such as \\u0001 from name, description, author, version, license and copyright",
        );
    }
    let gravity = cx.vec3_or(
        m.gravity.as_ref(),
        Expect::Dim(Dim::ACCELERATION),
        [0.0, -9.81, 0.0],
    );

    let default_experiment = experiment(&mut cx, d);
    let solver = solver_settings(&mut cx, d);
    let mut mechanism = mechanism::lower_mechanism(&mut cx, d);
    mechanism.base = base::lower_base(&mut cx, d);
    mechanism.contacts = contact::lower_contacts(&mut cx, d, &mechanism, gravity);
    let circuit = circuit::lower_circuit(&mut cx, d, &mechanism);
    let ports = ports::lower_ports(&mut cx, d, &mechanism, &circuit);

    let init = d.init.as_ref();
    let static_equilibrium = init.and_then(|i| i.static_equilibrium).unwrap_or(true);

    let mut model = CompiledModel {
        format_version: MODEL_FORMAT_VERSION,
        name: model_name,
        model_identifier,
        guid: String::new(),
        metadata: Metadata {
            description: m.description.clone().unwrap_or_default(),
            author: m.author.clone().unwrap_or_default(),
            version: m.version.clone().unwrap_or_default(),
            license: m.license.clone().unwrap_or_default(),
            copyright: m.copyright.clone().unwrap_or_default(),
        },
        default_experiment,
        gravity,
        solver,
        init: InitSettings {
            static_equilibrium,
            hold: Vec::new(),
        },
        params: Vec::new(),
        mechanism,
        circuit,
        ports,
        variables: Vec::new(),
        estimator: None,
    };
    // Points on flexible bodies move onto their interface nodes before anything reads them.
    let flexible_bodies = std::mem::take(&mut cx.flexible);
    flexible::attach(&mut cx, &flexible_bodies, &mut model);
    model.variables = interface::lower_interface(&mut cx, d, &model);
    let solve_for = init::solve_for_targets(&mut cx, d, &model);
    model.init.hold = init::held_coordinates(&mut cx, d, &model);
    let estimator = estimator::lower_estimator(&mut cx, d, &model);
    model.params = std::mem::take(&mut cx.params);
    // The errors so far leave the model unusable; those of the model page's visuals and
    // manoeuvre below do not, so the checks at the initial configuration still run beside
    // them: every independent error in one run (issue 48, item 7).
    let mut model_ok = cx.errors.is_empty();

    let visuals = visual::lower_visuals(&mut cx, d);
    let report = report::lower_report(&mut cx, d, &model);

    if model_ok && let Err(e) = model.validate() {
        model_ok = false;
        cx.errors.push(Diagnostic::global(
            format!("internal error: the lowered model is inconsistent: {e}"),
            "please report this with the description file",
        ));
    }
    // The checks at the initial configuration need a complete, valid model.
    let analysis = if model_ok {
        analysis::analyse(&mut cx, d, &model)
    } else {
        Analysis::default()
    };
    // Implausible values (unit slips) are warned about first, and beside the errors when
    // there are any: a slip is often what the errors come from.
    let implausible = plausibility::check(d);
    if !cx.errors.is_empty() {
        cx.errors.extend(implausible);
        return Err(cx.errors);
    }
    cx.warnings.splice(0..0, implausible);
    Ok(Lowered {
        declared_bodies: d.bodies.len(),
        body_names: d.bodies.iter().map(|b| b.name.get_ref().clone()).collect(),
        model,
        slots: cx.slots,
        solve_for,
        analysis,
        warnings: cx.warnings,
        visuals,
        report,
        flexible: flexible_bodies,
        estimator,
    })
}

/// Characters XML 1.0 cannot represent even escaped.
pub(crate) fn has_control_chars(s: &str) -> bool {
    s.chars()
        .any(|c| (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r'))
}

fn experiment(cx: &mut Ctx, d: &Description) -> DefaultExperiment {
    let Some(e) = &d.experiment else {
        // our choice: 10 s at 10 ms communication steps
        return DefaultExperiment {
            start_time: 0.0,
            stop_time: 10.0,
            step_size: 0.01,
            tolerance: 1e-4,
        };
    };
    let t = Expect::Dim(Dim::TIME);
    let start_time = cx.value_or(e.start_time.as_ref(), t, 0.0);
    let stop_time = cx.value(&e.stop_time, t);
    let step_size = cx.value(&e.step_size, t);
    let tolerance = cx.value_or(e.tolerance.as_ref(), Expect::Dim(Dim::NONE), 1e-4);
    if stop_time <= start_time {
        cx.error(
            e.stop_time.span(),
            format!("stop_time ({stop_time} s) must be after start_time ({start_time} s)"),
            "increase stop_time",
        );
    }
    cx.require_positive(&e.step_size, step_size, "step_size");
    if let Some(q) = &e.tolerance {
        cx.require_positive(q, tolerance, "tolerance");
    }
    DefaultExperiment {
        start_time,
        stop_time,
        step_size,
        tolerance,
    }
}

fn count(cx: &mut Ctx, v: Option<&toml::Spanned<i64>>, default: u32, min: i64, what: &str) -> u32 {
    match v {
        None => default,
        Some(s) => {
            let x = *s.get_ref();
            if x < min || x > u32::MAX as i64 {
                cx.error(
                    s.span(),
                    format!("{what} must be an integer of at least {min}, got {x}"),
                    format!("set {what} to e.g. {default}"),
                );
                default
            } else {
                x as u32
            }
        }
    }
}

fn solver_settings(cx: &mut Ctx, d: &Description) -> SolverSettings {
    let s = d.solver.as_ref();
    let t = Expect::Dim(Dim::TIME);
    // our choice: 1 ms when the description gives no step (seed 001 uses 1 ms).
    let step_value = cx.value_or(s.and_then(|s| s.step.as_ref()), t, 1e-3);
    if let Some(q) = s.and_then(|s| s.step.as_ref()) {
        cx.require_positive(q, step_value, "solver.step");
    }
    let step = cx.slot(
        "solver.step".into(),
        step_value,
        t,
        "Internal fixed integration step",
    );
    let penalty = s.and_then(|s| s.penalty.as_ref()).map(|q| {
        let v = cx.value(q, Expect::Dim(Dim::NONE));
        cx.require_positive(q, v, "solver.penalty");
        cx.slot(
            "solver.penalty".into(),
            v,
            Expect::Dim(Dim::NONE),
            "Penalty factor α of the augmented Lagrangian",
        )
    });
    let plain = Expect::Dim(Dim::NONE);
    let positive =
        |cx: &mut Ctx, q: Option<&Quantity>, expect: Expect, default: f64, what: &str| {
            let v = cx.value_or(q, expect, default);
            if let Some(q) = q {
                cx.require_positive(q, v, what);
            }
            v
        };
    let penalty_ratio = positive(
        cx,
        s.and_then(|s| s.penalty_ratio.as_ref()),
        plain,
        1e3,
        "penalty_ratio",
    );
    let tol_position = positive(
        cx,
        s.and_then(|s| s.tol_position.as_ref()),
        Expect::Plain("m or rad"),
        1e-10,
        "tol_position",
    );
    let tol_pressure = positive(
        cx,
        s.and_then(|s| s.tol_pressure.as_ref()),
        Expect::Dim(Dim::PRESSURE),
        // Our choice: 1 Pa is 1e-7 of working pressures, far below the discretisation error;
        // seed 001 used 1e-2 Pa, which costs about one more Newton iteration per step.
        1.0,
        "tol_pressure",
    );
    let tol_state = positive(
        cx,
        s.and_then(|s| s.tol_state.as_ref()),
        Expect::Plain("the state's SI unit"),
        1e-9,
        "tol_state",
    );
    let max_iterations = count(
        cx,
        s.and_then(|s| s.max_iterations.as_ref()),
        25,
        1,
        "max_iterations",
    );
    let max_step_halvings = count(
        cx,
        s.and_then(|s| s.max_step_halvings.as_ref()),
        4,
        0,
        "max_step_halvings",
    );
    let formulation = match s.and_then(|s| s.formulation.as_ref()) {
        Some(crate::description::FormulationDesc::DoubleStep) => Formulation::DoubleStep,
        _ => Formulation::AugmentedLagrangian,
    };
    SolverSettings {
        formulation,
        step,
        penalty,
        penalty_ratio,
        tol_position,
        tol_pressure,
        tol_state,
        max_iterations,
        max_step_halvings,
        reuse_tangent: s.and_then(|s| s.reuse_tangent).unwrap_or(true),
        linear_solver: match s.and_then(|s| s.linear_solver) {
            Some(LinearSolverDesc::Dense) => LinearSolver::Dense,
            Some(LinearSolverDesc::Sparse) => LinearSolver::Sparse,
            Some(LinearSolverDesc::Auto) | None => LinearSolver::Auto,
        },
        tangent: match s.and_then(|s| s.tangent) {
            Some(TangentDesc::FiniteDifference) => TangentMethod::FiniteDifference,
            Some(TangentDesc::Assembled) | None => TangentMethod::Assembled,
        },
    }
}

/// FMI GUID: SHA-256 of the serialized model (with an empty GUID), first 16 bytes as
/// `{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}`. Stable for the same content.
pub fn compute_guid(model: &CompiledModel) -> String {
    let mut m = model.clone();
    m.guid.clear();
    let digest = Sha256::digest(m.to_bytes());
    let h: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{{{}-{}-{}-{}-{}}}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// Writes equilibrium results into slot defaults and the start values of the variables
/// bound to those slots.
pub fn apply_parameter_values(model: &mut CompiledModel, ids: &[ParamId], values: &[f64]) {
    for (id, v) in ids.iter().zip(values) {
        model.params[id.index()].default = *v;
        for var in &mut model.variables {
            if var.binding == fmu_runtime::model::Binding::Param(*id) {
                var.start = Some(*v);
            }
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod validation_tests;

//! The object behind an `fmi2Component` pointer (and inside an `fmi3Instance`), and the
//! per-variable access rules.
//!
//! One `Component` per `fmi2Instantiate`; it owns everything it uses (its own decoded
//! model, the instance, the copied callbacks), so instances never share mutable state.

use super::call_state::FmiState;
use super::fmu_state::{Experiment, FmuState, Progress, Tag};
use super::logging::{Category, Logger};
use super::me_state::ModelExchange;
use crate::fmi2::types::{fmi2CallbackFunctions, fmi2Component, fmi2Status};
use crate::instance::{Instance, Snapshot};
use crate::model::{
    Binding, Causality, CompiledModel, Initial, ParamId, VarType, Variability, Variable,
};
use std::ffi::CStr;
use std::sync::Arc;

const COMPONENT_MAGIC: u64 = u64::from_le_bytes(*b"HMFMI2C\0");
/// The tag of a component inside an FMI 3.0 instance: an `fmi2Component` handed to an
/// `fmi3*` function (or the reverse) is rejected.
pub const COMPONENT_MAGIC_FMI3: u64 = u64::from_le_bytes(*b"HMFMI3C\0");

/// Value reference → index into `model.variables`, one sorted table per base type.
#[derive(Debug, Default)]
struct VrTable {
    entries: Vec<(u32, u32)>,
}

impl VrTable {
    fn find(&self, vr: u32) -> Option<usize> {
        self.entries
            .binary_search_by_key(&vr, |e| e.0)
            .ok()
            .map(|i| self.entries[i].1 as usize)
    }
}

#[derive(Debug, Default)]
struct VrTables {
    real: VrTable,
    integer: VrTable,
    boolean: VrTable,
}

impl VrTables {
    /// Several variables may share a value reference only if they are aliases (same
    /// binding); the first one in model order answers.
    fn build(model: &CompiledModel) -> Result<VrTables, String> {
        let mut t = VrTables::default();
        for (i, v) in model.variables.iter().enumerate() {
            t.table_mut(v.var_type)
                .entries
                .push((v.value_reference, i as u32));
        }
        for ty in [VarType::Real, VarType::Integer, VarType::Boolean] {
            let entries = &mut t.table_mut(ty).entries;
            entries.sort_by_key(|e| e.0); // stable: model order within one vr
            for w in entries.windows(2) {
                let (a, b) = (
                    &model.variables[w[0].1 as usize],
                    &model.variables[w[1].1 as usize],
                );
                if w[0].0 == w[1].0 && a.binding != b.binding {
                    return Err(format!(
                        "variables \"{}\" and \"{}\" share the {ty:?} value reference {} but are not aliases",
                        a.name, b.name, w[0].0
                    ));
                }
            }
            entries.dedup_by_key(|e| e.0);
        }
        Ok(t)
    }

    fn table_mut(&mut self, ty: VarType) -> &mut VrTable {
        match ty {
            VarType::Real => &mut self.real,
            VarType::Integer => &mut self.integer,
            VarType::Boolean => &mut self.boolean,
        }
    }

    fn table(&self, ty: VarType) -> &VrTable {
        match ty {
            VarType::Real => &self.real,
            VarType::Integer => &self.integer,
            VarType::Boolean => &self.boolean,
        }
    }
}

/// An FMU instance as the master sees it.
#[repr(C)]
pub struct Component {
    /// First field: lets every entry point reject pointers that are not (or no longer) ours.
    tag: Tag,
    pub logger: Logger,
    /// Logging switches right after `fmi2Instantiate`; `fmi2Reset` restores them.
    initial_logging: [bool; super::logging::LOG_CATEGORIES.len()],
    pub state: FmiState,
    pub experiment: Experiment,
    pub last_successful_time: f64,
    pub terminated: bool,
    pub last_step_status: fmi2Status,
    /// The same model as `instance.model()`, held separately so that a `&Variable` can be
    /// borrowed while the instance is mutated.
    pub model: Arc<CompiledModel>,
    pub instance: Instance,
    /// The Model Exchange side (`None`: instantiated for Co-Simulation).
    pub model_exchange: Option<ModelExchange>,
    /// The instance as the master set it before a provisional initialization (a getter of
    /// a computed value in Initialization Mode, [`super::initialization`]).
    pub(super) pre_init: Option<Snapshot>,
    vrs: VrTables,
    /// Test hook: the next guarded call panics (checks the panic → `fmi2Fatal` path).
    #[cfg(test)]
    pub panic_on_next_call: bool,
}

impl Component {
    /// Builds an instance in state `Instantiated`. `callbacks` is copied (its pointer is only
    /// valid during `fmi2Instantiate`).
    pub fn new(
        model: Arc<CompiledModel>,
        instance_name: &CStr,
        callbacks: &fmi2CallbackFunctions,
        logging_on: bool,
    ) -> Result<Component, String> {
        let logger = Logger::new(
            callbacks.logger,
            callbacks.componentEnvironment,
            instance_name,
            logging_on,
        );
        Component::with_logger(model, logger, COMPONENT_MAGIC)
    }

    /// Builds an instance in state `Instantiated` that logs through `logger` and carries
    /// the tag `magic` (of the FMI version whose functions may use it).
    pub fn with_logger(
        model: Arc<CompiledModel>,
        logger: Logger,
        magic: u64,
    ) -> Result<Component, String> {
        let vrs = VrTables::build(&model)?;
        let instance = Instance::new(model.clone());
        Ok(Component {
            tag: Tag::new(magic),
            initial_logging: logger.enabled_flags(),
            logger,
            state: FmiState::Instantiated,
            experiment: Experiment::default_for(&model),
            last_successful_time: 0.0,
            terminated: false,
            last_step_status: fmi2Status::fmi2OK,
            model,
            instance,
            model_exchange: None,
            pre_init: None,
            vrs,
            #[cfg(test)]
            panic_on_next_call: false,
        })
    }

    /// Our component behind `c`, or `None` for NULL and pointers we did not make (or
    /// already freed, as far as that can be detected).
    ///
    /// # Safety
    /// `c` must be NULL or point to at least `size_of::<Tag>()` readable bytes; the master
    /// must not call functions of one instance concurrently (FMI 2.0 §2.1.5).
    pub unsafe fn from_handle<'a>(c: fmi2Component) -> Option<&'a mut Component> {
        // SAFETY: forwarded contract.
        unsafe { Component::from_handle_tagged(c, COMPONENT_MAGIC) }
    }

    /// [`Component::from_handle`] for a handle whose object starts with a component
    /// tagged `magic`.
    ///
    /// # Safety
    /// As [`Component::from_handle`].
    pub unsafe fn from_handle_tagged<'a>(
        c: *mut std::ffi::c_void,
        magic: u64,
    ) -> Option<&'a mut Component> {
        if c.is_null() || !c.cast::<Component>().is_aligned() {
            return None;
        }
        // SAFETY: see the function contract; `tag` is the first field (repr(C)).
        let tag = unsafe { std::ptr::read(c.cast::<Tag>()) };
        if tag != Tag::new(magic) {
            return None;
        }
        // SAFETY: the tag proves that `c` came from `Box::into_raw(Box<Component>)`.
        Some(unsafe { &mut *c.cast::<Component>() })
    }

    /// Frees a component made by `Box::into_raw`, poisoning the tag first.
    ///
    /// # Safety
    /// `c` must come from `Box::into_raw(Box<Component>)` and not be used afterwards.
    pub unsafe fn free(c: *mut Component) {
        // SAFETY: see the function contract.
        unsafe {
            (*c).tag = Tag::DEAD;
            drop(Box::from_raw(c));
        }
    }

    /// Whether the object's tag is `magic` (the component is alive and of that version).
    pub fn has_tag(&self, magic: u64) -> bool {
        self.tag == Tag::new(magic)
    }

    /// Poisons the tag of a component about to be dropped (by its owner).
    pub fn kill_tag(&mut self) {
        self.tag = Tag::DEAD;
    }

    /// `fmi2Reset`: the same state as right after `fmi2Instantiate`, including the logging
    /// switches (FMI 2.0: "as if fmi2Instantiate had been called").
    pub fn reset(&mut self) {
        self.instance.reset();
        self.pre_init = None;
        self.state = FmiState::Instantiated;
        self.experiment = Experiment::default_for(&self.model);
        self.last_successful_time = 0.0;
        self.terminated = false;
        self.last_step_status = fmi2Status::fmi2OK;
        self.logger.set_enabled_flags(self.initial_logging);
        if let Some(me) = self.model_exchange.as_mut() {
            *me = ModelExchange::new(self.model.continuous_states());
        }
    }

    pub fn progress(&self) -> Progress {
        Progress {
            state: self.state,
            experiment: self.experiment,
            last_successful_time: self.last_successful_time,
            terminated: self.terminated,
            last_step_status: self.last_step_status,
        }
    }

    /// The FMU state; in Initialization Mode what the master set, not a provisional
    /// initialization (which is a cache of the getters).
    pub fn capture(&self) -> FmuState {
        let snapshot = match &self.pre_init {
            Some(before) => before.clone(),
            None => self.instance.snapshot(),
        };
        FmuState::new(self.model.clone(), snapshot, self.progress())
    }

    /// `fmi2GetFMUstate` into an existing object (no allocation when the shapes match).
    pub fn capture_into(&self, st: &mut FmuState) {
        match &self.pre_init {
            Some(before) => st.snapshot.clone_from(before),
            None => self.instance.snapshot_into(&mut st.snapshot),
        }
        st.model = self.model.clone();
        st.progress = self.progress();
    }

    /// `fmi2SetFMUstate`.
    pub fn restore(&mut self, st: &FmuState) -> Result<(), String> {
        if !Arc::ptr_eq(&st.model, &self.model) && st.model.guid != self.model.guid {
            return Err(format!(
                "the FMU state belongs to another model (GUID {} instead of {})",
                st.model.guid, self.model.guid
            ));
        }
        let p = st.progress;
        let me_state = matches!(p.state, FmiState::EventMode | FmiState::ContinuousTimeMode);
        let cs_state = matches!(
            p.state,
            FmiState::StepComplete
                | FmiState::StepInProgress
                | FmiState::StepFailed
                | FmiState::StepCanceled
                | FmiState::IntermediateUpdate
        );
        if (self.model_exchange.is_some() && cs_state)
            || (self.model_exchange.is_none() && me_state)
        {
            return Err(format!(
                "the FMU state was taken in state {} of an instance of the other interface type (Co-Simulation / Model Exchange)",
                p.state
            ));
        }
        self.instance.restore(&st.snapshot)?;
        self.pre_init = None;
        if let Some(me) = self.model_exchange.as_mut() {
            me.invalidate();
        }
        self.state = p.state;
        self.experiment = p.experiment;
        self.last_successful_time = p.last_successful_time;
        self.terminated = p.terminated;
        self.last_step_status = p.last_step_status;
        Ok(())
    }

    /// The start and (optional) stop time of the experiment (`fmi2SetupExperiment`,
    /// `fmi3EnterInitializationMode`): finite, the stop not before the start.
    pub fn set_experiment(&mut self, start: f64, stop: Option<f64>) -> Result<(), String> {
        if !start.is_finite() {
            return Err(format!("startTime must be finite, is {start}"));
        }
        if let Some(stop) = stop
            && !(stop.is_finite() && stop >= start)
        {
            return Err(format!(
                "stopTime {stop} must be finite and not before startTime {start}"
            ));
        }
        self.experiment.start_time = start;
        self.experiment.stop_time = stop;
        Ok(())
    }

    pub fn terminate(&mut self) {
        self.state = FmiState::Terminated;
        self.terminated = true;
        let evaluations = match &self.model_exchange {
            Some(me) => format!(" after {} evaluations of the derivatives", me.evaluations),
            None => String::new(),
        };
        self.log(
            fmi2Status::fmi2OK,
            Category::Events,
            &format!("terminated at t = {} s{evaluations}", self.instance.time()),
        );
    }

    /// Writes a value [`Component::check_set`] accepted; a tunable parameter changed during
    /// the run is logged with the energy it moved.
    pub fn set_value(
        &mut self,
        ty: VarType,
        vr: u32,
        slot: ParamId,
        value: f64,
    ) -> Result<(), String> {
        self.undo_provisional_initialization()?;
        let (changes, _) = self.instance.parameter_work_events();
        self.instance.set_param(slot, value);
        if let Some(me) = self.model_exchange.as_mut() {
            me.invalidate();
        }
        let (now, jump) = self.instance.parameter_work_events();
        if now != changes && self.logger.would_log(fmi2Status::fmi2OK, Category::Events) {
            let name = &self.variable(ty, vr)?.name;
            let msg = format!(
                "{name} changed during the run: the mechanical energy of the state moved by {jump:.6e} J at once, counted in energy.parameter_work"
            );
            self.log(fmi2Status::fmi2OK, Category::Events, &msg);
        }
        Ok(())
    }

    /// Get FMU state into the master's slot: a new object for NULL, else the given one
    /// (which must be ours) is overwritten.
    pub fn capture_to_slot(&self, slot: &mut *mut std::ffi::c_void) -> Result<(), String> {
        if slot.is_null() {
            *slot = Box::into_raw(Box::new(self.capture())).cast();
        } else {
            // SAFETY: a non-NULL state pointer from the master is ours or detected by its
            // tag (FmuState::from_ptr's contract).
            let st = unsafe { FmuState::from_ptr(*slot) }
                .ok_or("the FMU state is neither NULL nor an FMU state of this FMU")?;
            self.capture_into(st);
        }
        Ok(())
    }

    /// [`Component::restore`], logged as an event.
    pub fn restore_logged(&mut self, st: &FmuState) -> Result<(), String> {
        self.restore(st)?;
        if self.logger.would_log(fmi2Status::fmi2OK, Category::Events) {
            let msg = format!(
                "FMU state restored (t = {} s, state {})",
                self.instance.time(),
                self.state
            );
            self.log(fmi2Status::fmi2OK, Category::Events, &msg);
        }
        Ok(())
    }

    /// Checks the arguments of a communication step from `t` by `h` and returns where it
    /// ends: `h` finite and positive, `t` the FMU's time, the end not past the stop time.
    pub fn check_step(&self, t: f64, h: f64) -> Result<f64, String> {
        if !(h.is_finite() && h > 0.0) {
            return Err(format!(
                "communicationStepSize must be finite and > 0, is {h}"
            ));
        }
        let now = self.instance.time();
        if !t.is_finite() || (t - now).abs() > 1e-9 * now.abs().max(1.0) {
            return Err(format!(
                "currentCommunicationPoint {t} s differs from the FMU time {now} s"
            ));
        }
        let target = t + h;
        if let Some(stop) = self.experiment.stop_time
            && target > stop + 1e-9 * stop.abs().max(1.0)
        {
            return Err(format!(
                "the step to {target} s goes past the stop time {stop} s"
            ));
        }
        Ok(target)
    }

    /// Counts of the solver's rare events (partition re-choices, re-charts) before a step,
    /// for [`Component::log_step_events`].
    pub fn event_counts(&self) -> (u64, u64) {
        (
            self.instance.partition_reselections(),
            self.instance.recharts(),
        )
    }

    /// Logs the rare solver events of a step from `t` to `target` (only formatted when one
    /// happened, so a normal step allocates nothing).
    pub fn log_step_events(&self, before: (u64, u64), t: f64, target: f64) {
        let (reselections, recharts) = self.event_counts();
        let recharted = recharts - before.1;
        if recharted > 0 && self.logger.would_log(fmi2Status::fmi2OK, Category::Events) {
            self.log(
                fmi2Status::fmi2OK,
                Category::Events,
                &format!(
                    "spherical joints: angles re-charted {recharted} time(s) between {t} s and {target} s (a pitch passed ±60°; the joints' yaw, pitch and roll outputs stay those of the whole orientation)"
                ),
            );
        }
        let changed = reselections - before.0;
        if changed > 0 {
            self.log(
                fmi2Status::fmi2OK,
                Category::Events,
                &format!(
                    "double-step formulation: independent coordinates re-chosen {changed} time(s) between {t} s and {target} s (Φ_z of the dependent ones had become ill-conditioned)"
                ),
            );
        }
    }

    pub fn log(&self, status: fmi2Status, category: Category, message: &str) {
        self.logger.log(status, category, message);
    }

    /// The variable with this value reference and base type.
    pub fn variable(&self, ty: VarType, vr: u32) -> Result<&Variable, String> {
        Ok(&self.model.variables[self.variable_index(ty, vr)?])
    }

    /// The index in `model.variables` of the variable with this value reference and type.
    pub fn variable_index(&self, ty: VarType, vr: u32) -> Result<usize, String> {
        self.vrs
            .table(ty)
            .find(vr)
            .ok_or_else(|| format!("no {} variable has value reference {vr}", type_name(ty)))
    }

    /// Checks that `value` may be written to variable (`ty`, `vr`) now and returns the
    /// parameter slot to write and the value to write there. Implements conditions 1, 3
    /// and 6 of the CS state table and the value checks (finite, within min/max).
    ///
    /// A value beyond a bound by rounding only (at most [`BOUND_ROUNDING`] of the bound)
    /// is written as the bound: a master interpolating between two samples at `max` may
    /// hand over `max` plus an ulp (FMPy's `w0·a + w1·b` gives 10.000000000000002 between
    /// two 10 V samples), and failing a run for that helps nobody.
    pub fn check_set(&self, ty: VarType, vr: u32, value: f64) -> Result<(ParamId, f64), String> {
        let var = self.variable(ty, vr)?;
        let who = || format!("variable \"{}\" ({} vr {vr})", var.name, type_name(ty));
        settable_now(var, self.state)
            .map_err(|why| format!("{} cannot be set in state {}: {why}", who(), self.state))?;
        let Binding::Param(slot) = var.binding else {
            return Err(format!(
                "{} cannot be set: it is computed by the model",
                who()
            ));
        };
        if !value.is_finite() {
            return Err(format!(
                "{} cannot be set to {value}: the value must be finite",
                who()
            ));
        }
        let (lo, hi) = (
            var.min.unwrap_or(f64::NEG_INFINITY),
            var.max.unwrap_or(f64::INFINITY),
        );
        let value = if value < lo && lo - value <= BOUND_ROUNDING * lo.abs() {
            lo
        } else if value > hi && value - hi <= BOUND_ROUNDING * hi.abs() {
            hi
        } else {
            value
        };
        if value < lo || value > hi {
            return Err(format!(
                "{} cannot be set to {value}: outside its range [{lo}, {hi}]",
                who()
            ));
        }
        Ok((slot, value))
    }
}

/// How far beyond `min` or `max`, relative to the bound, a set value is taken as the
/// bound (rounding of an interpolating master: a few ulps).
pub const BOUND_ROUNDING: f64 = 4.0 * f64::EPSILON;

pub fn type_name(ty: VarType) -> &'static str {
    match ty {
        VarType::Real => "Real",
        VarType::Integer => "Integer",
        VarType::Boolean => "Boolean",
    }
}

/// `initial` as FMI 2.0 defines it when the attribute is omitted (tables in §2.2.7).
pub fn effective_initial(var: &Variable) -> Option<Initial> {
    var.initial.or(match (var.causality, var.variability) {
        (Causality::Input, _) => None,
        (_, Variability::Constant) | (Causality::Parameter, _) => Some(Initial::Exact),
        _ => Some(Initial::Calculated),
    })
}

/// Which variables `fmi2Set*` may write in which state (CS state table, conditions 1, 3, 6;
/// §2.2.7 "Variables that can be set"). Outputs never: our outputs are computed
/// quantities with no storage, even if a model declared one with `initial=exact`.
fn settable_now(var: &Variable, state: FmiState) -> Result<(), &'static str> {
    if var.variability == Variability::Constant {
        return Err("it is a constant");
    }
    if var.causality == Causality::Output {
        return Err("it is an output");
    }
    let initial = effective_initial(var);
    let ok = match state {
        // Inputs too. FMI 2.0.1+ says inputs may not be set before initialization
        // (fmi-standard#440), but common masters do it (fmusim: Reference-FMUs#511; FMPy's
        // simulate_fmu with input start values) and FMI 3.0 allows it (fmi-standard#369).
        // A start value for an input is harmless, so we accept it rather than fail.
        FmiState::Instantiated => {
            matches!(initial, Some(Initial::Exact | Initial::Approx))
                || var.causality == Causality::Input
        }
        FmiState::InitializationMode => {
            initial == Some(Initial::Exact) || var.causality == Causality::Input
        }
        // Model Exchange Event Mode: condition 4, the same set.
        FmiState::StepComplete | FmiState::EventMode => {
            var.causality == Causality::Input
                || (var.causality == Causality::Parameter
                    && var.variability == Variability::Tunable)
        }
        // FMI 3.0 intermediate update: continuous inputs only (`intermediateUpdate="true"`);
        // Model Exchange Continuous-Time Mode: condition 5, the same.
        FmiState::IntermediateUpdate | FmiState::ContinuousTimeMode => {
            var.causality == Causality::Input && var.variability == Variability::Continuous
        }
        _ => false,
    };
    if ok {
        return Ok(());
    }
    Err(match state {
        FmiState::Instantiated => {
            "before initialization only inputs and variables with initial=\"exact\" or \"approx\" can be set"
        }
        FmiState::InitializationMode => {
            "in initialization mode only inputs and variables with initial=\"exact\" can be set"
        }
        FmiState::StepComplete => {
            "at a communication point only inputs and tunable parameters can be set"
        }
        FmiState::IntermediateUpdate => {
            "in an intermediate update only continuous inputs can be set"
        }
        FmiState::EventMode => "in event mode only inputs and tunable parameters can be set",
        FmiState::ContinuousTimeMode => {
            "in continuous-time mode only continuous inputs can be set (tunable parameters in event mode)"
        }
        _ => "no variable can be set in this state",
    })
}

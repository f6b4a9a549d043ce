//! Per-run state of a machine and the public stepping API used by the FMI layer.

use crate::estimator::Estimator;
use crate::mechanics::BaseMotion;
use crate::model::{Binding, Causality, CompiledModel, ParamId, Variability};
use crate::solver::{self, Data, Layout, Model, State, Workspace};
use std::sync::Arc;

mod ode;
mod outputs;
mod plant;
mod snapshot;
mod step;

pub use snapshot::Snapshot;
pub use step::{StepPlan, sub_steps};

/// Why an internal step (or the initialisation) failed.
#[derive(Debug, Clone, PartialEq)]
pub struct StepError {
    pub message: String,
    /// Time of the last state that was successfully reached (the state is left there).
    pub last_successful_time: f64,
}

impl std::fmt::Display for StepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (last successful time {} s)",
            self.message, self.last_successful_time
        )
    }
}

/// One simulation of a compiled model.
pub struct Instance {
    model: Arc<CompiledModel>,
    layout: Layout,
    params: Vec<f64>,
    state: State,
    /// State at the start of the current step attempt (for retries and failures).
    saved: State,
    work: Workspace,
    initialized: bool,
    /// Input time derivatives for the next [`Instance::advance`] (FMI
    /// `fmi2SetRealInputDerivatives`): per slot, first and second derivative at the start
    /// of the step. `advance` uses and then clears them.
    input_slopes: Vec<[f64; 2]>,
    /// Slot values at the start of the step while extrapolated inputs overwrite `params`.
    held_inputs: Vec<f64>,
    /// The parameters as the master had set them for the last step (NaN: unknown): a step
    /// whose inputs differ starts from rates recomputed for them. (With input derivatives
    /// the step ended on extrapolated values; comparing with what was set keeps a restored
    /// FMU state, which holds the set values, bit for bit on the path of the original.)
    rates_params: Vec<f64>,
    /// `rates_params` was copied from `params` and neither has been written since: the next
    /// step need not compare them (a comparison of every parameter cost a small machine's
    /// step 2 %).
    rates_current: bool,
    has_slopes: bool,
    /// Per slot: a tunable parameter (whose change between steps is counted in
    /// `State::parameter_work`).
    tunable: Vec<bool>,
    /// Slot values with the tunable one about to change (energy before the change).
    energy_scratch: Vec<f64>,
    /// Tunable changes counted so far and the energy the last one added [J] (for the log).
    parameter_changes: u64,
    last_parameter_work: f64,
    /// Re-charts of z-y-x rotations so far (for the log).
    recharts: u64,
    /// The explicit-ODE view for Model Exchange, made when first asked for.
    ode: Option<Box<solver::ode::OdeWork>>,
    /// The error-state Kalman filter of a model with sensors, made at initialization.
    estimator: Option<Box<Estimator<Instance>>>,
    /// This instance is an estimator's twin (the copy its Jacobians are taken on): it has
    /// no estimator of its own.
    twin: bool,
    /// Test hook: the internal step after this many more fails (checks failure paths that
    /// a small test model cannot reach by physics).
    #[cfg(test)]
    pub fail_after_internal_steps: Option<u64>,
}

/// Highest input derivative order [`Instance::set_input_derivative`] takes.
pub const MAX_INPUT_DERIVATIVE_ORDER: i32 = 2;

impl Instance {
    /// Allocates everything the step loop will ever need.
    pub fn new(model: Arc<CompiledModel>) -> Instance {
        let layout = Layout::of(&model);
        let params = model.params.iter().map(|p| p.default).collect();
        let state = State::new(&layout);
        let work = Workspace::new(&model, &layout);
        let n_params = model.params.len();
        let mut tunable = vec![false; n_params];
        for v in &model.variables {
            if let (Binding::Param(p), Causality::Parameter, Variability::Tunable) =
                (v.binding, v.causality, v.variability)
            {
                tunable[p.index()] = true;
            }
        }
        let mut inst = Instance {
            saved: state.clone(),
            model,
            layout,
            params,
            state,
            work,
            initialized: false,
            input_slopes: vec![[0.0; 2]; n_params],
            held_inputs: vec![0.0; n_params],
            rates_params: vec![f64::NAN; n_params],
            rates_current: false,
            has_slopes: false,
            tunable,
            energy_scratch: vec![0.0; n_params],
            parameter_changes: 0,
            last_parameter_work: 0.0,
            recharts: 0,
            ode: None,
            estimator: None,
            twin: false,
            #[cfg(test)]
            fail_after_internal_steps: None,
        };
        inst.place_at_initial_configuration();
        inst
    }

    /// The solver's two sides of this instance: the model it reads, the data it writes.
    fn sides(&mut self) -> (Model<'_>, Data<'_>) {
        (
            Model::new(&self.model, &self.layout, &self.params),
            Data::new(&mut self.state, &mut self.work),
        )
    }

    pub fn model(&self) -> &CompiledModel {
        &self.model
    }

    pub fn model_arc(&self) -> &Arc<CompiledModel> {
        &self.model
    }

    /// Back to the just-constructed state: default parameters, time 0, not initialized.
    pub fn reset(&mut self) {
        for (v, p) in self.params.iter_mut().zip(&self.model.params) {
            *v = p.default;
        }
        self.rates_current = false;
        self.state = State::new(&self.layout);
        self.apply_charts();
        self.initialized = false;
        self.ode = None;
        self.clear_input_derivatives();
        self.place_at_initial_configuration();
    }

    /// Sets the `order`-th time derivative (1 or 2) of the input in slot `id` for the next
    /// [`Instance::advance`]: inside it the input follows
    /// `u + u̇ τ + ü τ²/2` (τ from the start of the step) instead of being held.
    pub fn set_input_derivative(
        &mut self,
        id: ParamId,
        order: i32,
        value: f64,
    ) -> Result<(), String> {
        if !(1..=MAX_INPUT_DERIVATIVE_ORDER).contains(&order) {
            return Err(format!(
                "derivative order {order} is not supported (1…{MAX_INPUT_DERIVATIVE_ORDER})"
            ));
        }
        if !value.is_finite() {
            return Err(format!("the derivative must be finite, is {value}"));
        }
        self.input_slopes[id.index()][order as usize - 1] = value;
        self.has_slopes = true;
        Ok(())
    }

    /// Drops the input derivatives (inputs are held until new ones are set).
    pub fn clear_input_derivatives(&mut self) {
        if self.has_slopes {
            self.input_slopes.fill([0.0; 2]);
            self.has_slopes = false;
        }
    }

    /// Writes the inputs extrapolated to `tau` after the step's start into `params`.
    fn extrapolate_inputs(&mut self, tau: f64) {
        for ((p, held), [d1, d2]) in self
            .params
            .iter_mut()
            .zip(&self.held_inputs)
            .zip(&self.input_slopes)
        {
            if *d1 != 0.0 || *d2 != 0.0 {
                *p = held + tau * (d1 + 0.5 * tau * d2);
            }
        }
    }

    pub fn param(&self, id: ParamId) -> f64 {
        self.params[id.index()]
    }

    pub fn set_param(&mut self, id: ParamId, value: f64) {
        let k = id.index();
        if self.initialized && self.tunable[k] && self.params[k] != value {
            self.count_parameter_work(k, value);
        }
        // (A master sets every input every step, most often to the value it had.)
        if self.params[k] != value {
            self.rates_current = false;
        }
        self.params[k] = value;
        if !self.initialized {
            self.place_at_initial_configuration();
        }
    }

    /// A tunable parameter changed between steps (a mass, a stiffness): the mechanical
    /// energy of the unmoved state changes at once by what no actuator did. That jump is
    /// counted as parameter work, so the energy balance stays a measure of the integrator.
    fn count_parameter_work(&mut self, k: usize, value: f64) {
        self.energy_scratch.copy_from_slice(&self.params);
        let before = solver::mechanical_energy(
            Model::new(&self.model, &self.layout, &self.energy_scratch),
            &self.state,
            &mut self.work,
        );
        self.energy_scratch[k] = value;
        let after = solver::mechanical_energy(
            Model::new(&self.model, &self.layout, &self.energy_scratch),
            &self.state,
            &mut self.work,
        );
        let jump = after - before;
        // (A value that breaks the evaluation fails the next step with its own message.)
        if jump.is_finite() {
            self.state.parameter_work += jump;
            if jump != 0.0 {
                self.parameter_changes += 1;
                self.last_parameter_work = jump;
                // The accelerations change with the energy (a heavier load falls slower):
                // the next step starts from the new ones.
                let saved = (self.state.zdd.clone(), self.state.wd.clone());
                if solver::equilibrium::retuned_rates(
                    Model::new(&self.model, &self.layout, &self.energy_scratch),
                    Data::new(&mut self.state, &mut self.work),
                )
                .is_err()
                {
                    (self.state.zdd, self.state.wd) = saved;
                } else {
                    // The rates are those of every parameter as set now: the next step's
                    // input-change pass (`solver::input_change`) must not add this change
                    // to the accelerations again.
                    self.rates_params.copy_from_slice(&self.energy_scratch);
                    self.rates_current = false;
                }
            }
        }
    }

    /// The state's rates are those of the parameters as set now.
    fn rates_follow_inputs(&mut self) {
        self.rates_params.copy_from_slice(&self.params);
        self.rates_current = true;
    }

    /// Tunable parameter changes that moved the mechanical energy so far, and the energy the
    /// last one added [J].
    pub fn parameter_work_events(&self) -> (u64, f64) {
        (self.parameter_changes, self.last_parameter_work)
    }

    pub fn params(&self) -> &[f64] {
        &self.params
    }

    pub fn time(&self) -> f64 {
        self.state.time
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    /// How often the double-step formulation re-chose its independent coordinates
    /// (the FMI layer logs changes under `logEvents`).
    pub fn partition_reselections(&self) -> u64 {
        self.work.partition_reselections()
    }

    /// How often a spherical (or free) joint's angles were re-charted near gimbal lock.
    pub fn recharts(&self) -> u64 {
        self.recharts
    }

    /// Turns the kinematics' joint frames as the state's charts say.
    fn apply_charts(&mut self) {
        let w = &mut self.work;
        solver::charts::apply(&self.model, &w.charts, &self.state, &mut w.eval.kin);
    }

    /// How the Newton tangent is formed and factored: pattern, column groups, solver path.
    pub fn tangent_plan(&self) -> &solver::plan::TangentPlan {
        self.work.plan()
    }

    /// Test hook: the Newton tangent of the next step as the solver forms it, by full
    /// forward and by central differences (see [`crate::solver::newton::TangentProbe`]).
    #[doc(hidden)]
    pub fn tangent_probe(&mut self, h: f64) -> Result<solver::newton::TangentProbe, String> {
        let (model, data) = self.sides();
        solver::newton::tangent_probe(model, data, h)
    }

    /// Model evaluations performed by this instance so far (a cost measure).
    pub fn evaluations(&self) -> u64 {
        self.work.eval.count
    }

    /// Volumes (indices among the pressure unknowns, in node order) that the static
    /// equilibrium left free and the initialization held at the make-up pressure as trapped
    /// oil (`solver::trapped_oil`).
    pub fn held_at_make_up(&self) -> &[usize] {
        &self.work.held_at_make_up
    }

    /// Joint coordinates (indices in z) that the static equilibrium settled: nothing but
    /// their own forces held them (a chassis on its springs, a hook on its rope).
    pub fn settled_coordinates(&self) -> &[usize] {
        &self.work.settled
    }

    /// How well the last initialization met the static equilibrium (`None` without one).
    pub fn equilibrium_report(&self) -> Option<crate::solver::equilibrium::EquilibriumReport> {
        self.work.equilibrium
    }

    /// Steps so far in which some pressure stepped by backward Euler near vapour pressure,
    /// and how many of them were solved a second time because the trapezoidal solution ended
    /// there (`solver::cavitation`).
    pub fn backward_euler_steps(&self) -> (u64, u64) {
        (self.work.euler_steps, self.work.resolved_steps)
    }

    /// Partial (first-order-only) evaluations performed so far, each about a third of a
    /// full one (they skip kinematics, inverse dynamics and constraints).
    pub fn partial_evaluations(&self) -> u64 {
        self.work.eval.partial_count
    }

    pub fn is_initialized(&self) -> bool {
        self.initialized
    }

    /// Port inputs that are finite but still unusable (each value was checked when set).
    /// The carrier's orientation at initialization must be a unit quaternion to 1e-3. Later
    /// steps only need it usable (norm 0.5…2, normalized): extrapolated inputs drift off
    /// unit length, but a master that starts with, say, roll/pitch/yaw angles in x, y, z
    /// (norm √(1 + φ² + θ² + ψ²) with w = 1) has sent a different rotation, and the
    /// equilibrium, the initial wrench and the handshake would all be computed for it.
    fn check_initial_base_motion(&self, time: f64) -> Result<(), StepError> {
        let Some(base) = &self.model.mechanism.base else {
            return Ok(());
        };
        let q = base.orientation.map(|id| self.params[id.index()]);
        let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        if (norm - 1.0).abs() <= 1e-3 {
            return Ok(());
        }
        Err(StepError {
            message: format!(
                "the base orientation at initialization is not a unit quaternion: [w, x, y, z] = {q:?} has norm {norm}; send the carrier's rotation as a normalized quaternion (roll, pitch and yaw angles are not its components)"
            ),
            last_successful_time: time,
        })
    }

    fn check_port_inputs(&self, time: f64) -> Result<(), StepError> {
        let fail = |message: String| {
            Err(StepError {
                message,
                last_successful_time: time,
            })
        };
        if let Some(port) = &self.model.mechanism.base
            && let Err(message) = BaseMotion::carried(port, &self.params, self.model.gravity)
        {
            return fail(message.into());
        }
        for port in &self.model.ports {
            if let crate::model::PortKind::Tlm { impedance, .. } = port.kind {
                let zc = self.params[impedance.index()];
                if zc.is_nan() || zc <= 0.0 {
                    return fail(format!(
                        "{}.impedance must be positive (a line's Zc = ρ a / A), is {zc}",
                        port.name
                    ));
                }
            }
        }
        Ok(())
    }

    /// Assembles the mechanism from the initial joint coordinates and solves the static
    /// equilibrium (pressures, spools, multipliers) so the machine starts at rest.
    pub fn initialize(&mut self, start_time: f64) -> Result<(), StepError> {
        self.check_port_inputs(start_time)?;
        self.check_initial_base_motion(start_time)?;
        self.place_at_initial_configuration();
        self.state.time = start_time;
        let (model, data) = self.sides();
        solver::initialize(model, data).map_err(|message| StepError {
            message,
            last_successful_time: start_time,
        })?;
        self.initialized = true;
        self.rates_follow_inputs();
        // Model Exchange: the partition is chosen at the initial state.
        self.ode = None;
        if self.model.continuous_states() > 0 {
            self.ode_len().map_err(|message| StepError {
                message,
                last_successful_time: start_time,
            })?;
        }
        self.estimator = None;
        let model = Arc::clone(&self.model);
        // (A model with no sensor has nothing to estimate: a plant whose model errors a
        // test sets, for one.)
        if let (Some(spec), false) = (&model.estimator, self.twin)
            && !spec.sensors.is_empty()
        {
            let e = Estimator::new(self, spec).map_err(|message| StepError {
                message: format!("the estimator: {message}"),
                last_successful_time: start_time,
            })?;
            self.estimator = Some(Box::new(e));
        }
        Ok(())
    }

    /// An initialized copy of this initialized instance without an estimator, for the
    /// estimator's Jacobians (allocated once, at initialization).
    pub(crate) fn twin(&self) -> Result<Instance, String> {
        let mut t = Instance::new(Arc::clone(&self.model));
        t.twin = true;
        t.params.copy_from_slice(&self.params);
        t.initialize(self.state.time).map_err(|e| e.message)?;
        // Its ODE view now, not at the first step's Jacobians (the step loop allocates
        // nothing: `hydromech bench` counted 2.5 KiB of heap growth while stepping).
        t.ode_len()?;
        t.mirror(self);
        Ok(t)
    }

    /// Takes `other`'s state and parameters (same model): a twin following its instance.
    pub(crate) fn mirror(&mut self, other: &Instance) {
        self.mirror_state(other);
        self.params.copy_from_slice(&other.params);
    }

    /// Takes `other`'s state only (its parameters already taken this step).
    pub(crate) fn mirror_state(&mut self, other: &Instance) {
        self.state.copy_from(&other.state);
    }

    /// A copy of the state (allocated once), and back into it: what an estimator keeps of
    /// its twin at the Jacobian's base point.
    pub(crate) fn state_copy(&self) -> State {
        self.state.clone()
    }

    pub(crate) fn save_state(&self, to: &mut State) {
        to.copy_from(&self.state);
    }

    pub(crate) fn load_state(&mut self, from: &State) {
        self.state.copy_from(from);
    }

    /// The estimator of a model with sensors (after initialization).
    pub fn estimator(&self) -> Option<&Estimator<Instance>> {
        self.estimator.as_deref()
    }

    /// The estimator's prediction and correction after a successful communication step.
    fn estimate(&mut self) -> Result<(), StepError> {
        let Some(mut e) = self.estimator.take() else {
            return Ok(());
        };
        let model = Arc::clone(&self.model);
        let result = match &model.estimator {
            Some(spec) => e.update(self, spec),
            None => Ok(()),
        };
        self.estimator = Some(e);
        result.map_err(|message| StepError {
            message: format!("the estimator at t = {} s: {message}", self.state.time),
            last_successful_time: self.state.time,
        })
    }

    /// Number of pressure states (the first entries of w).
    pub fn pressure_states(&self) -> usize {
        self.layout.n_pressures
    }

    /// After the estimator overwrote the state (and its rates from the ODE view): the
    /// integrator's extrapolation starts again from the new rates.
    pub(crate) fn restart_after_correction(&mut self) {
        solver::predictor::restart_history(&mut self.state);
    }

    /// Gives the initialized machine initial joint rates (e.g. a spinning rotor); the
    /// accelerations and multipliers are recomputed to be consistent with them.
    pub fn set_joint_rates(&mut self, zd: &[f64]) -> Result<(), String> {
        if zd.len() != self.layout.nz || zd.iter().any(|v| !v.is_finite()) {
            return Err(format!("expected {} finite joint rates", self.layout.nz));
        }
        self.state.zd.copy_from_slice(zd);
        let (model, data) = self.sides();
        solver::equilibrium::restart_from_state(model, data)?;
        self.rates_follow_inputs();
        self.refresh_outputs();
        Ok(())
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            state: self.state.clone(),
            params: self.params.clone(),
            rates_params: self.rates_params.clone(),
            initialized: self.initialized,
            estimator: self.estimator.as_ref().and_then(|e| {
                let mut s = None;
                e.save(&mut s);
                s
            }),
        }
    }

    /// Overwrites `snap` without reallocating when it already has this model's shape.
    pub fn snapshot_into(&self, snap: &mut Snapshot) {
        if snap.params.len() == self.params.len() && snap.state.z.len() == self.state.z.len() {
            snap.state.copy_from(&self.state);
            snap.params.copy_from_slice(&self.params);
            snap.rates_params.copy_from_slice(&self.rates_params);
            snap.initialized = self.initialized;
            match &self.estimator {
                Some(e) => e.save(&mut snap.estimator),
                None => snap.estimator = None,
            }
        } else {
            *snap = self.snapshot();
        }
    }

    pub fn restore(&mut self, snap: &Snapshot) -> Result<(), String> {
        self.restore_keeping_input_derivatives(snap)?;
        self.clear_input_derivatives();
        Ok(())
    }

    /// [`Instance::restore`] without dropping the input derivatives the master set: a
    /// provisional initialization undone (the master's calls before it all stand).
    pub fn restore_keeping_input_derivatives(&mut self, snap: &Snapshot) -> Result<(), String> {
        if snap.params.len() != self.params.len()
            || snap.rates_params.len() != self.params.len()
            || snap.state.z.len() != self.layout.nz
            || snap.state.w.len() != self.layout.nw
            || snap.state.lambda.len() != self.layout.nc
        {
            return Err("the FMU state does not belong to this model".into());
        }
        if snap.state.tangent_sparse && self.work.plan.sparse.is_none() {
            return Err(
                "the FMU state holds sparse factors but this model has no sparse path".into(),
            );
        }
        let estimating = self.model.estimator.is_some() && snap.initialized;
        match (&self.estimator, &snap.estimator) {
            (_, None) if estimating => {
                return Err(
                    "the FMU state holds no estimator covariance for this estimator".into(),
                );
            }
            (Some(e), Some(s)) if !e.fits(s) => {
                return Err("the FMU state holds another estimator's covariance".into());
            }
            _ => {}
        }
        self.state.copy_from(&snap.state);
        self.apply_charts();
        self.params.copy_from_slice(&snap.params);
        self.initialized = snap.initialized;
        self.rates_params.copy_from_slice(&snap.rates_params);
        self.rates_current = false;
        // The ODE view belongs to an initialized state (its partition is chosen there).
        if !snap.initialized {
            self.ode = None;
        }
        solver::cut_references(
            Model::new(&self.model, &self.layout, &self.params),
            &mut self.work,
        );
        self.refresh_outputs();
        // An estimator's filter: made here when the instance restored into had none yet (a
        // fresh instance taking a serialized state), then given the saved covariance.
        match &snap.estimator {
            Some(s) if estimating => {
                if self.estimator.is_none() {
                    let model = Arc::clone(&self.model);
                    if let Some(spec) = &model.estimator {
                        self.estimator = Some(Box::new(Estimator::new(self, spec)?));
                    }
                }
                if let Some(e) = &mut self.estimator {
                    e.load(s)?;
                }
            }
            _ => self.estimator = None,
        }
        Ok(())
    }

    fn place_at_initial_configuration(&mut self) {
        solver::cut_references(
            Model::new(&self.model, &self.layout, &self.params),
            &mut self.work,
        );
        solver::place_at_initial_configuration(
            Model::new(&self.model, &self.layout, &self.params),
            &mut self.state,
        );
        let t = self.state.time;
        solver::drives::anchor(&mut self.work, &self.params, t);
        solver::drives::place(&self.work, &mut self.state, t);
        self.refresh_outputs();
    }
}

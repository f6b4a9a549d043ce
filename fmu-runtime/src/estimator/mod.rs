//! The estimator: an error-state extended Kalman filter around the unmodified model (seed
//! 001, thesis ch. 3, eqs 3.1–3.19), run by the instance after every communication step
//! when its model declares sensors ([`crate::model::estimator::EstimatorSpec`]).
//!
//! The filter's state is the error of the model's minimal continuous states — the
//! independent joint coordinates z_i, their rates ż_i and the first-order states w
//! (pressures, spools, friction states), the explicit-ODE view of [`crate::solver::ode`] —
//! the thesis's x = [Δz_i; Δż_i; Δp] (eq 3.1) with the spools and friction states added.
//! Per step:
//!
//! 1. the model advances unmodified (the instance's trapezoidal Newton loop);
//! 2. **Jacobians** at the step's end, by forward differences through the ODE view: each
//!    state perturbed in turn gives a column of A = ∂ẋ/∂x (the coupled mechanics and
//!    hydraulics, the cross blocks the thesis left at zero included) and of H, the sensors'
//!    ∂h/∂x. Each perturbed state solves the exact position problem for the dependent
//!    coordinates, so H of a sensor on a dependent joint is exact to first order;
//! 3. **predict** P with the trapezoidal transition of A and the plant noise Q (eqs
//!    3.17–3.18: σ_z̈² [h³/3 h²/2; h²/2 h] per independent coordinate and its rate, σ_p² h
//!    per pressure; none on spools and friction states) — [`filter`];
//! 4. **correct** with the sensors that have a sample: innovation y = o − h(x) (eq 3.5),
//!    gain, Δx (eqs 3.6–3.9); the model is overwritten with x + Δx: the independent
//!    coordinates, rates and first-order states set, the dependent coordinates by the
//!    exact position problem and their rates by the velocity problem (not the thesis's
//!    linearisation, eqs 3.11–3.16), the accelerations and state rates recomputed, the
//!    integrator's extrapolation history restarted at them.
//!
//! With `loads` declared, the state also carries a generalized force per independent
//! coordinate (seed 001 Pub III: "modeling errors in the force model"): a random walk the
//! model applies on the coordinate's joint, so that a persistent error (a heavier payload,
//! friction the model lacks) is carried by the model instead of being corrected again at
//! every sample — without it the correction of a stiff oil column's pressure or of a joint
//! angle is undone by the model's own forces between samples. A sensor with a `bias`
//! adds its offset, a random walk the sensor reads on top of the model's value.
//!
//! Every buffer is allocated when the instance initializes; a step allocates nothing.

pub mod filter;
mod plant;

pub use plant::Plant;

use crate::model::ParamId;
use crate::model::estimator::EstimatorSpec;
use crate::solver::ode::StateKind;
use filter::ErrorStateFilter;

/// A sensor's sample was not usable.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimationError(pub String);

/// What an FMU state keeps of an estimator: the covariance, the sample clocks, the last
/// innovations.
#[derive(Clone, Debug, PartialEq)]
pub struct EstimatorState {
    pub covariance: Vec<f64>,
    pub next_sample: Vec<f64>,
    pub time: f64,
    pub innovation: Vec<f64>,
    pub innovation_sigma: Vec<f64>,
    pub corrections: u64,
    pub rejected: u64,
}

/// A model or sensor error estimated as a state: the slot it is kept in, and what it is.
#[derive(Clone, Copy, Debug)]
struct ErrorState {
    slot: ParamId,
    kind: ErrorKind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum ErrorKind {
    /// A generalized force the model applies on an independent joint (its coordinate).
    Load(usize),
    /// Sensor `i`'s offset: the sensor reads the model's value plus it.
    Bias(usize),
}

/// The filter of one instance and its buffers.
pub struct Estimator<P> {
    filter: ErrorStateFilter,
    /// Filter states: the first `n` of the `len` ODE states (the work integrals after them
    /// are bookkeeping, not estimated), then the model errors; `nf` independent
    /// coordinates; `dim` = n + errors.
    n: usize,
    nf: usize,
    dim: usize,
    /// The estimated errors: the loads of the independent coordinates, then the sensors'
    /// biases.
    errors: Vec<ErrorState>,
    /// Filter states that are pressures (plant noise σ_p).
    pressure: Vec<bool>,
    x: Vec<f64>,
    xp: Vec<f64>,
    f0: Vec<f64>,
    fk: Vec<f64>,
    /// Sensor values at x and their first-order change per state (ns × n).
    y0: Vec<f64>,
    h: Vec<f64>,
    /// The step's corrections: sensor indices, innovations and variances.
    rows: Vec<usize>,
    y: Vec<f64>,
    r: Vec<f64>,
    /// A copy of the instance the Jacobians are taken on, so that the instance itself
    /// continues bit for bit as the model alone where no sample corrects it, and its
    /// state at the base point (each coordinate's column starts from it).
    twin: Box<P>,
    base: crate::solver::State,
    /// The next sample instant of each sensor [s].
    next_sample: Vec<f64>,
    /// The time the covariance was last carried to [s].
    time: f64,
    /// Per sensor: the innovation of its last sample and its predicted standard deviation
    /// (0 before the first: an output an importer reads from the start must be a number).
    innovation: Vec<f64>,
    innovation_sigma: Vec<f64>,
    /// Corrections made since initialization, and samples the innovation gate skipped.
    corrections: u64,
    rejected: u64,
}

impl<P: Plant> Estimator<P> {
    /// The filter of an initialized instance whose model declares `spec`.
    pub fn new(inst: &mut P, spec: &EstimatorSpec) -> Result<Estimator<P>, String> {
        let len = inst.ode_len()?;
        let kinds: Vec<StateKind> = (0..len).filter_map(|k| inst.ode_kind(k)).collect();
        let n = kinds
            .iter()
            .take_while(|k| {
                matches!(
                    k,
                    StateKind::Coordinate(_) | StateKind::Rate(_) | StateKind::FirstOrder(_)
                )
            })
            .count();
        let nf = kinds
            .iter()
            .filter(|k| matches!(k, StateKind::Coordinate(_)))
            .count();
        let n_pressures = inst.pressure_states();
        let pressure: Vec<bool> = kinds[..n]
            .iter()
            .map(|k| matches!(k, StateKind::FirstOrder(j) if *j < n_pressures))
            .collect();
        let [sz, szd, sp] = spec.initial_sigma;
        let mut errors: Vec<ErrorState> = match &spec.loads {
            Some(l) => kinds[..nf]
                .iter()
                .filter_map(|k| match k {
                    StateKind::Coordinate(c) => l.on.iter().find(|(on, _)| on == c),
                    _ => None,
                })
                .map(|&(c, slot)| ErrorState {
                    slot,
                    kind: ErrorKind::Load(c),
                })
                .collect(),
            None => Vec::new(),
        };
        for (i, s) in spec.sensors.iter().enumerate() {
            if let Some(b) = &s.bias {
                errors.push(ErrorState {
                    slot: b.value,
                    kind: ErrorKind::Bias(i),
                });
            }
        }
        let initial = |e: &ErrorState| match e.kind {
            ErrorKind::Load(_) => spec.loads.as_ref().map_or(0.0, |l| l.initial_sigma),
            ErrorKind::Bias(i) => spec.sensors[i]
                .bias
                .as_ref()
                .map_or(0.0, |b| b.initial_sigma),
        };
        let dim = n + errors.len();
        let p0: Vec<f64> = (0..dim)
            .map(|k| {
                let s = if k >= n {
                    initial(&errors[k - n])
                } else if k < nf {
                    sz
                } else if k < 2 * nf {
                    szd
                } else if pressure[k] {
                    sp
                } else {
                    0.0
                };
                s * s
            })
            .collect();
        let ns = spec.sensors.len();
        // A bias's column of H: its sensor reads it one to one (set once).
        let mut h = vec![0.0; ns * dim];
        for (j, e) in errors.iter().enumerate() {
            if let ErrorKind::Bias(i) = e.kind {
                h[i * dim + n + j] = 1.0;
            }
        }
        let time = inst.time();
        Ok(Estimator {
            filter: ErrorStateFilter::new(dim, ns, &p0),
            n,
            nf,
            dim,
            errors,
            pressure,
            x: vec![0.0; len],
            xp: vec![0.0; len],
            f0: vec![0.0; len],
            fk: vec![0.0; len],
            y0: vec![0.0; ns],
            h,
            rows: Vec::with_capacity(ns),
            y: Vec::with_capacity(ns),
            r: Vec::with_capacity(ns),
            base: inst.state_copy(),
            twin: Box::new(inst.twin()?),
            next_sample: vec![time; ns],
            time,
            innovation: vec![0.0; ns],
            innovation_sigma: vec![0.0; ns],
            corrections: 0,
            rejected: 0,
        })
    }

    /// Number of estimated states.
    pub fn len(&self) -> usize {
        self.dim
    }

    pub fn is_empty(&self) -> bool {
        self.dim == 0
    }

    /// Number of estimated errors (the last states: the loads, then the sensors' biases).
    pub fn errors(&self) -> usize {
        self.errors.len()
    }

    /// Number of estimated loads (the first of the errors).
    pub fn loads(&self) -> usize {
        self.errors
            .iter()
            .filter(|e| matches!(e.kind, ErrorKind::Load(_)))
            .count()
    }

    /// The slot of estimated model error `j` (state `len() − errors() + j`).
    pub fn error_slot(&self, j: usize) -> ParamId {
        self.errors[j].slot
    }

    /// The standard deviation of estimated state `k` (of x = [z_i; ż_i; w; loads]).
    pub fn sigma(&self, k: usize) -> f64 {
        self.filter.variance(k).max(0.0).sqrt()
    }

    /// The innovation (measured − predicted) of sensor `i`'s last sample, and its
    /// predicted standard deviation √(H P⁻ Hᵀ + R); 0 before its first sample.
    pub fn innovation(&self, i: usize) -> (f64, f64) {
        (self.innovation[i], self.innovation_sigma[i])
    }

    /// Saves what an FMU state keeps (into `to`, reusing its buffers when it has them).
    pub fn save(&self, to: &mut Option<EstimatorState>) {
        match to {
            Some(s) if s.covariance.len() == self.dim * self.dim => {
                s.covariance.copy_from_slice(self.filter.covariance());
                s.next_sample.copy_from_slice(&self.next_sample);
                s.time = self.time;
                s.innovation.copy_from_slice(&self.innovation);
                s.innovation_sigma.copy_from_slice(&self.innovation_sigma);
                s.corrections = self.corrections;
                s.rejected = self.rejected;
            }
            _ => {
                *to = Some(EstimatorState {
                    covariance: self.filter.covariance().to_vec(),
                    next_sample: self.next_sample.clone(),
                    time: self.time,
                    innovation: self.innovation.clone(),
                    innovation_sigma: self.innovation_sigma.clone(),
                    corrections: self.corrections,
                    rejected: self.rejected,
                })
            }
        }
    }

    /// Whether a saved state has this estimator's dimensions.
    pub fn fits(&self, s: &EstimatorState) -> bool {
        s.covariance.len() == self.dim * self.dim && s.next_sample.len() == self.next_sample.len()
    }

    /// Takes a saved state; `Err` when it belongs to another estimator.
    pub fn load(&mut self, s: &EstimatorState) -> Result<(), String> {
        if !self.fits(s) {
            return Err("the FMU state holds another estimator's covariance".into());
        }
        self.filter.set_covariance(&s.covariance);
        self.next_sample.copy_from_slice(&s.next_sample);
        self.time = s.time;
        self.innovation.copy_from_slice(&s.innovation);
        self.innovation_sigma.copy_from_slice(&s.innovation_sigma);
        self.corrections = s.corrections;
        self.rejected = s.rejected;
        Ok(())
    }

    /// Corrections made since initialization.
    pub fn corrections(&self) -> u64 {
        self.corrections
    }

    /// Samples skipped by the innovation gate since initialization.
    pub fn rejected(&self) -> u64 {
        self.rejected
    }

    /// A = ∂ẋ/∂x of the last step (row-major, `len()` squared).
    pub fn jacobian(&self) -> &[f64] {
        self.filter.jacobian()
    }

    /// The error covariance (row-major, `len()` squared).
    pub fn covariance(&self) -> &[f64] {
        self.filter.covariance()
    }

    /// Carries the covariance to the instance's time and corrects the model with the
    /// sensors that have a sample (after a communication step).
    pub fn update(&mut self, inst: &mut P, spec: &EstimatorSpec) -> Result<(), String> {
        let dt = inst.time() - self.time;
        self.time = inst.time();
        if dt <= 0.0 || dt.is_nan() {
            return Ok(());
        }
        self.jacobians(inst, spec)?;
        self.plant_noise(inst, spec, dt);
        self.filter.predict(dt);
        self.samples(inst, spec, dt)?;
        self.gate(inst, spec)?;
        if self.rows.is_empty() {
            return Ok(());
        }
        for (row, &i) in self.rows.iter().enumerate() {
            self.filter
                .measurement_row(row)
                .copy_from_slice(&self.h[i * self.dim..(i + 1) * self.dim]);
        }
        self.filter.correct(&self.y, &self.r)?;
        for (row, &i) in self.rows.iter().enumerate() {
            self.innovation[i] = self.y[row];
            self.innovation_sigma[i] = self.filter.innovation_variance(row).sqrt();
        }
        // x̂ = x + Δx: the model overwritten, its rates made consistent again.
        // No pressure below the oil's vapour pressure: the correction is projected there.
        let vapour = inst.params()[inst.model().circuit.oil.air.vapour_pressure.index()];
        self.xp.copy_from_slice(&self.x);
        let dx = self.filter.correction();
        for (k, x) in self.xp[..self.n].iter_mut().enumerate() {
            *x += dx[k];
            if self.pressure[k] {
                *x = x.max(vapour);
            }
        }
        // The model errors first: the rates below are computed with them.
        for (j, e) in self.errors.iter().enumerate() {
            let f = inst.params()[e.slot.index()] + dx[self.n + j];
            inst.set_param(e.slot, f);
        }
        inst.set_ode_states(&self.xp)?;
        inst.ode_derivatives(&mut self.fk)?;
        inst.restart_after_correction();
        self.corrections += 1;
        Ok(())
    }

    /// A and H by forward differences at the instance's state, on its twin.
    fn jacobians(&mut self, inst: &P, spec: &EstimatorSpec) -> Result<(), String> {
        let (n, dim) = (self.n, self.dim);
        let twin = &mut self.twin;
        twin.mirror(inst);
        twin.ode_states(&mut self.x)?;
        // The base point through the same position solve as the perturbed ones: the
        // instance's dependent coordinates close the loops to the step's tolerance, the
        // solve to its own, and the difference, divided by δ, filled every column of the
        // accelerations' row alike (∂θ̈/∂θ = ∂θ̈/∂ω = ∂θ̈/∂spool = 565 /s² on the four-bar).
        twin.set_ode_states(&self.x)?;
        twin.ode_rates(&mut self.f0)?;
        twin.save_state(&mut self.base);
        for (y, s) in self.y0.iter_mut().zip(&spec.sensors) {
            *y = twin.probe(s.probe);
        }
        let nf = self.nf;
        // The first-order states and the loads leave the configuration and the rates
        // alone: their columns by the first-order re-evaluation at the base's kinematics
        // and reduced mass matrix (no kinematics, inverse dynamics or mass matrix; a
        // column costs a few hydraulic evaluations instead of four full ones).
        for k in 2 * nf..n {
            let delta = 1e-6
                * self.x[k]
                    .abs()
                    .max(if self.pressure[k] { 1e6 } else { 1.0 });
            self.xp.copy_from_slice(&self.x);
            self.xp[k] += delta;
            self.twin
                .ode_first_order_change(&self.xp, &self.f0, &mut self.fk)?;
            self.columns(spec, k, delta);
        }
        // A load's column: the accelerations' change per unit of force, through the reduced
        // mass matrix (the model is linear in it); its row is zero (a random walk), and no
        // sensor reads one (H's column is zero). A bias moves no rate (A's column is zero).
        for j in 0..self.errors.len() {
            let ErrorKind::Load(c) = self.errors[j].kind else {
                continue;
            };
            self.twin.ode_load_column(c, &mut self.fk)?;
            let a = self.filter.jacobian_mut();
            for i in 0..n {
                a[i * dim + n + j] = self.fk[i];
            }
        }
        // The rates: the configuration is the base's (the position problem is solved where
        // it starts), each through the velocity problem.
        for k in nf..2 * nf {
            let delta = 1e-6 * self.x[k].abs().max(1.0);
            self.xp.copy_from_slice(&self.x);
            self.xp[k] += delta;
            self.twin.set_ode_rates(&self.xp)?;
            self.twin.ode_rates(&mut self.fk)?;
            self.columns(spec, k, delta);
        }
        // The coordinates: each through the position problem from the base's solution
        // (the same solve as the base's, not one from the instance's configuration).
        for k in 0..nf {
            // δ: 1e-6 of the state's scale, far above the noise the position solve leaves
            // in the dependent coordinates (a column within 1e-12 rad of the consistent
            // configuration read through δ = 1.5e-8 × 5 MPa gave H a pressure column of
            // 1e-9 rad/Pa where the exact one is 0, and the gain drove the pressures off).
            let delta = 1e-6 * self.x[k].abs().max(1.0);
            let twin = &mut self.twin;
            twin.load_state(&self.base);
            self.xp.copy_from_slice(&self.x);
            self.xp[k] += delta;
            twin.set_ode_states(&self.xp)?;
            twin.ode_rates(&mut self.fk)?;
            self.columns(spec, k, delta);
        }
        Ok(())
    }

    /// Column k of A and H from the twin's rates `fk` and sensors, perturbed by δ.
    fn columns(&mut self, spec: &EstimatorSpec, k: usize, delta: f64) {
        let (n, dim) = (self.n, self.dim);
        let a = self.filter.jacobian_mut();
        for i in 0..n {
            a[i * dim + k] = (self.fk[i] - self.f0[i]) / delta;
        }
        for (i, s) in spec.sensors.iter().enumerate() {
            self.h[i * dim + k] = (self.twin.probe(s.probe) - self.y0[i]) / delta;
        }
    }

    /// Q over a step dt (thesis eqs 3.17–3.18, continuous-time intensities).
    fn plant_noise(&mut self, inst: &P, spec: &EstimatorSpec, dt: f64) {
        let (n, nf, dim) = (self.n, self.nf, self.dim);
        let p = inst.params();
        let sa = p[spec.acceleration_noise.index()];
        let sp = p[spec.pressure_noise.index()];
        let q = self.filter.noise_mut();
        q.fill(0.0);
        let qa = sa * sa;
        for k in 0..nf {
            let (z, v) = (k, nf + k);
            q[z * dim + z] = qa * dt * dt * dt / 3.0;
            q[z * dim + v] = qa * dt * dt / 2.0;
            q[v * dim + z] = qa * dt * dt / 2.0;
            q[v * dim + v] = qa * dt;
        }
        for k in 2 * nf..n {
            if self.pressure[k] {
                q[k * dim + k] = sp * sp * dt;
            }
        }
        for (j, e) in self.errors.iter().enumerate() {
            let noise = match e.kind {
                ErrorKind::Load(_) => spec.loads.as_ref().map(|l| l.noise),
                ErrorKind::Bias(i) => spec.sensors[i].bias.as_ref().map(|b| b.noise),
            };
            let s = noise.map_or(0.0, |id| p[id.index()]);
            let k = n + j;
            q[k * dim + k] = s * s * dt;
        }
    }

    /// Skips the samples whose innovation exceeds `innovation_gate` predicted standard
    /// deviations √(h P⁻ hᵀ + r) (each judged alone); their innovation outputs show why.
    fn gate(&mut self, inst: &P, spec: &EstimatorSpec) -> Result<(), String> {
        let g = inst.params()[spec.innovation_gate.index()];
        if !(g.is_finite() && g >= 0.0) {
            return Err(format!("estimator.innovation_gate must be ≥ 0, is {g}"));
        }
        if g == 0.0 {
            return Ok(());
        }
        let (dim, p) = (self.dim, self.filter.covariance());
        let mut kept = 0;
        for row in 0..self.rows.len() {
            let i = self.rows[row];
            let h = &self.h[i * dim..(i + 1) * dim];
            let hph: f64 = (0..dim)
                .map(|a| h[a] * (0..dim).map(|b| p[a * dim + b] * h[b]).sum::<f64>())
                .sum();
            let sigma = (hph + self.r[row]).sqrt();
            if self.y[row].abs() > g * sigma {
                self.innovation[i] = self.y[row];
                self.innovation_sigma[i] = sigma;
                self.rejected += 1;
                continue;
            }
            self.rows[kept] = i;
            self.y[kept] = self.y[row];
            self.r[kept] = self.r[row];
            kept += 1;
        }
        self.rows.truncate(kept);
        self.y.truncate(kept);
        self.r.truncate(kept);
        Ok(())
    }

    /// The sensors with a sample at this step: valid flag set, sample instant reached.
    fn samples(&mut self, inst: &P, spec: &EstimatorSpec, dt: f64) -> Result<(), String> {
        self.rows.clear();
        self.y.clear();
        self.r.clear();
        let p = inst.params();
        let t = inst.time();
        for (i, s) in spec.sensors.iter().enumerate() {
            if p[s.valid.index()] < 0.5 || t < self.next_sample[i] - 0.5 * dt {
                continue;
            }
            let (value, sigma) = (p[s.value.index()], p[s.sigma.index()]);
            if !value.is_finite() {
                return Err(format!(
                    "sensor.{} is {value} while sensor.{}.valid is set: clear the flag for a missing sample",
                    s.name, s.name
                ));
            }
            if !(sigma.is_finite() && sigma > 0.0) {
                return Err(format!(
                    "sensor.{}.sigma must be positive, is {sigma}",
                    s.name
                ));
            }
            if s.period > 0.0 {
                while self.next_sample[i] <= t + 0.5 * dt {
                    self.next_sample[i] += s.period;
                }
            }
            self.rows.push(i);
            // The sensor reads the model's value plus its bias.
            let bias = s.bias.as_ref().map_or(0.0, |b| p[b.value.index()]);
            self.y.push(value - self.y0[i] - bias);
            self.r.push(sigma * sigma);
        }
        Ok(())
    }
}

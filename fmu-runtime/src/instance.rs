//! Per-run state of a machine and the public stepping API used by the FMI layer.

use crate::estimator::{Estimator, EstimatorState};
use crate::mechanics::BaseMotion;
use crate::model::{Binding, Causality, CompiledModel, ParamId, Probe, Variability, Variable};
use crate::solver::{self, Layout, Workspace};
use std::sync::Arc;

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

/// The integrator state: everything that determines the continuation of a simulation.
/// It is plain data (no pointers), so it can be copied and serialized.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub time: f64,
    /// Joint coordinates and their first two derivatives.
    pub z: Vec<f64>,
    pub zd: Vec<f64>,
    pub zdd: Vec<f64>,
    /// The joint accelerations the last two steps started from (z̈ one and two steps
    /// back): the predictor extrapolates the step's end acceleration from them (`predictor`).
    pub zdd_last: Vec<f64>,
    pub zdd_last2: Vec<f64>,
    /// First-order states (pressures, spool positions, friction states) and their rates.
    pub w: Vec<f64>,
    pub wd: Vec<f64>,
    /// The first-order rates the last step started from (ẇ one step back; the rates at the
    /// start after initialization): the predictor extrapolates the end rate from them and
    /// tells a rate that alternates in sign from step to step (a stiff volume ringing
    /// under the trapezoidal rule) from a trend.
    pub wd_last: Vec<f64>,
    /// Augmented-Lagrangian multipliers, carried across steps.
    pub lambda: Vec<f64>,
    /// Accumulated work of actuators and applied forces [J] and its current power [W].
    pub work: f64,
    pub power: f64,
    /// The part of it delivered through the base port [J], [W].
    pub base_work: f64,
    pub base_power: f64,
    /// The same for each of the other ports.
    pub port_work: Vec<f64>,
    pub port_power: Vec<f64>,
    /// Mechanical energy at initialization [J].
    pub energy0: f64,
    /// Mechanical energy the master's changes of tunable parameters added at once (a mass
    /// or a spring stiffness set between steps changes the energy of a state that did not
    /// move) [J]: a term of the energy balance next to `work`.
    pub parameter_work: f64,
    /// Largest diagonal entry of the mass matrix at initialization: the inertia scale of
    /// the default penalty factor.
    pub mass_scale: f64,
    /// Double-step partition: joint coordinates ordered dependent-first (`nz` entries),
    /// then constraint rows ordered independent-first (`nc` entries); `rank` = number of
    /// dependent coordinates (0 = not chosen yet). Part of the state because the choice
    /// has hysteresis.
    pub partition: Vec<u32>,
    pub rank: u32,
    /// Turn of each re-charted z-y-x rotation's reference frame from the description's,
    /// `[w, x, y, z]` per rotation (`solver::charts`).
    pub charts: Vec<f64>,
    /// LU factors of the Newton tangent (n × n, scales 2n, pivots n) and of the projection
    /// matrix (nz × nz), kept across steps while Newton contracts well (modified Newton);
    /// `tangent_step` is the step they were formed for (0 = none). They are part of the
    /// state so that a restored snapshot continues bit for bit.
    pub tangent: Vec<f64>,
    /// The tangent as last formed, unfactored (same layout as `tangent`): the
    /// joint-coordinate columns a first-order refresh keeps.
    pub tangent_raw: Vec<f64>,
    pub tangent_scale: Vec<f64>,
    pub tangent_pivots: Vec<usize>,
    pub projection: Vec<f64>,
    pub projection_scale: Vec<f64>,
    pub projection_pivots: Vec<usize>,
    pub tangent_step: f64,
    /// The loop multipliers' coupling to the tangent, `G = J⁻¹ h²/4 Φ_zᵀ` (column-major, n
    /// per constraint row), and the Φ_z it was formed with (`solver::multipliers`).
    pub coupling: Vec<f64>,
    pub coupling_phi_z: Vec<f64>,
    /// `∂ẇ/∂w` of each first-order state the tangent was formed with (2/h trapezoidal, 1/h
    /// backward Euler near vapour pressure): a kept tangent must match the step's.
    pub tangent_gain: Vec<f64>,
    /// `dV/dp` of each volume where the tangent was formed: entrained air makes it grow
    /// tenfold as a pressure falls towards vapour pressure, and a kept tangent of the
    /// stiffer volume contracts slowly (`solver::newton`, `COMPLIANCE_DRIFT`).
    pub tangent_compliance: Vec<f64>,
    /// Entries of `tangent`/`tangent_raw` and of `projection` in use (the sparse path's
    /// value buffers are shorter than n²); every entry beyond is zero, so copies of the
    /// state (once per internal step, for the rollback) move only the used part.
    pub tangent_used: usize,
    pub projection_used: usize,
    /// The factors above are the sparse path's (values of the plan's filled pattern at the
    /// start of `tangent` and `projection`); false: dense LU.
    pub tangent_sparse: bool,
    /// Newton iterations of the last internal step; internal steps so far.
    pub iterations: u32,
    pub steps: u64,
}

impl State {
    pub(crate) fn new_for(layout: &Layout) -> State {
        State::new(layout)
    }

    fn new(layout: &Layout) -> State {
        State {
            time: 0.0,
            z: vec![0.0; layout.nz],
            zd: vec![0.0; layout.nz],
            zdd: vec![0.0; layout.nz],
            zdd_last: vec![0.0; layout.nz],
            zdd_last2: vec![0.0; layout.nz],
            w: vec![0.0; layout.nw],
            wd: vec![0.0; layout.nw],
            wd_last: vec![0.0; layout.nw],
            lambda: vec![0.0; layout.nc],
            work: 0.0,
            power: 0.0,
            base_work: 0.0,
            base_power: 0.0,
            port_work: vec![0.0; layout.n_ports],
            port_power: vec![0.0; layout.n_ports],
            energy0: 0.0,
            parameter_work: 0.0,
            mass_scale: 1.0,
            partition: vec![0; layout.nz + layout.nc],
            rank: 0,
            charts: solver::charts::identity(layout.n_charts),
            tangent: vec![0.0; (layout.nz + layout.nw).pow(2)],
            tangent_raw: vec![0.0; (layout.nz + layout.nw).pow(2)],
            tangent_scale: vec![0.0; 2 * (layout.nz + layout.nw)],
            tangent_pivots: vec![0; layout.nz + layout.nw],
            projection: vec![0.0; layout.nz * layout.nz],
            projection_scale: vec![0.0; 2 * layout.nz],
            projection_pivots: vec![0; layout.nz],
            tangent_step: 0.0,
            coupling: vec![0.0; layout.nc * (layout.nz + layout.nw)],
            coupling_phi_z: vec![0.0; layout.nc * layout.nz],
            tangent_gain: vec![0.0; layout.nw],
            tangent_compliance: vec![0.0; layout.n_pressures],
            tangent_used: 0,
            projection_used: 0,
            tangent_sparse: false,
            iterations: 0,
            steps: 0,
        }
    }

    pub(crate) fn copy_from(&mut self, other: &State) {
        self.time = other.time;
        self.z.copy_from_slice(&other.z);
        self.zd.copy_from_slice(&other.zd);
        self.zdd.copy_from_slice(&other.zdd);
        self.zdd_last.copy_from_slice(&other.zdd_last);
        self.zdd_last2.copy_from_slice(&other.zdd_last2);
        self.w.copy_from_slice(&other.w);
        self.wd.copy_from_slice(&other.wd);
        self.wd_last.copy_from_slice(&other.wd_last);
        self.lambda.copy_from_slice(&other.lambda);
        self.work = other.work;
        self.power = other.power;
        self.base_work = other.base_work;
        self.base_power = other.base_power;
        self.port_work.copy_from_slice(&other.port_work);
        self.port_power.copy_from_slice(&other.port_power);
        self.energy0 = other.energy0;
        self.parameter_work = other.parameter_work;
        self.mass_scale = other.mass_scale;
        self.partition.copy_from_slice(&other.partition);
        self.rank = other.rank;
        self.charts.copy_from_slice(&other.charts);
        copy_used(
            &mut self.tangent,
            self.tangent_used,
            &other.tangent,
            other.tangent_used,
        );
        copy_used(
            &mut self.tangent_raw,
            self.tangent_used,
            &other.tangent_raw,
            other.tangent_used,
        );
        self.tangent_used = other.tangent_used;
        self.tangent_scale.copy_from_slice(&other.tangent_scale);
        self.tangent_pivots.copy_from_slice(&other.tangent_pivots);
        copy_used(
            &mut self.projection,
            self.projection_used,
            &other.projection,
            other.projection_used,
        );
        self.projection_used = other.projection_used;
        self.projection_scale
            .copy_from_slice(&other.projection_scale);
        self.projection_pivots
            .copy_from_slice(&other.projection_pivots);
        self.tangent_step = other.tangent_step;
        self.coupling.copy_from_slice(&other.coupling);
        self.coupling_phi_z.copy_from_slice(&other.coupling_phi_z);
        self.tangent_gain.copy_from_slice(&other.tangent_gain);
        self.tangent_compliance
            .copy_from_slice(&other.tangent_compliance);
        self.tangent_sparse = other.tangent_sparse;
        self.iterations = other.iterations;
        self.steps = other.steps;
    }
}

/// Copies the used prefix of `src` into `dst` and zeroes what `dst` used beyond it (both
/// keep zero tails).
fn copy_used(dst: &mut [f64], dst_used: usize, src: &[f64], src_used: usize) {
    dst[..src_used].copy_from_slice(&src[..src_used]);
    if dst_used > src_used {
        dst[src_used..dst_used].fill(0.0);
    }
}

/// A saved instance: state plus parameter values (inputs and tunables are part of what
/// determines the continuation, so they are saved too).
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub(crate) state: State,
    pub(crate) params: Vec<f64>,
    /// The inputs the state's rates belong to (those of the last step's end; NaN after a
    /// failed step): the next step's input change is counted from them.
    pub(crate) rates_params: Vec<f64>,
    pub(crate) initialized: bool,
    /// The estimator's covariance and sample clocks (an estimator FMU).
    pub(crate) estimator: Option<EstimatorState>,
}

const SNAPSHOT_MAGIC: &[u8; 8] = b"HMSTATE\0";
const SNAPSHOT_VERSION: u32 = 15;

impl Snapshot {
    /// Pointer-free little-endian encoding: magic, version, model GUID, sizes, then the
    /// f64 data. Restoring it in another process reproduces the continuation bit for bit.
    pub fn encode(&self, guid: &str, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(SNAPSHOT_MAGIC);
        out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        out.extend_from_slice(&(guid.len() as u32).to_le_bytes());
        out.extend_from_slice(guid.as_bytes());
        let s = &self.state;
        for n in [s.z.len(), s.w.len(), s.lambda.len(), self.params.len()] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        out.push(self.initialized as u8);
        out.push(s.tangent_sparse as u8);
        out.extend_from_slice(&s.iterations.to_le_bytes());
        out.extend_from_slice(&s.steps.to_le_bytes());
        out.extend_from_slice(&s.rank.to_le_bytes());
        for v in &s.partition {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in s.tangent_pivots.iter().chain(&s.projection_pivots) {
            out.extend_from_slice(&(*v as u32).to_le_bytes());
        }
        let scalars = [
            s.time,
            s.work,
            s.power,
            s.base_work,
            s.base_power,
            s.energy0,
            s.parameter_work,
            s.mass_scale,
            s.tangent_step,
        ];
        let vectors: [&[f64]; 24] = [
            &scalars,
            &s.z,
            &s.zd,
            &s.zdd,
            &s.zdd_last,
            &s.zdd_last2,
            &s.w,
            &s.wd,
            &s.wd_last,
            &s.lambda,
            &self.params,
            &self.rates_params,
            &s.tangent,
            &s.tangent_raw,
            &s.tangent_scale,
            &s.projection,
            &s.projection_scale,
            &s.tangent_gain,
            &s.tangent_compliance,
            &s.port_work,
            &s.port_power,
            &s.charts,
            &s.coupling,
            &s.coupling_phi_z,
        ];
        for v in vectors {
            for x in v {
                out.extend_from_slice(&x.to_bits().to_le_bytes());
            }
        }
        // An estimator's covariance, sample clocks and innovations.
        match &self.estimator {
            None => out.push(0),
            Some(e) => {
                out.push(1);
                out.extend_from_slice(&(e.covariance.len() as u32).to_le_bytes());
                out.extend_from_slice(&(e.next_sample.len() as u32).to_le_bytes());
                out.extend_from_slice(&e.corrections.to_le_bytes());
                out.extend_from_slice(&e.rejected.to_le_bytes());
                let vectors: [&[f64]; 5] = [
                    &e.covariance,
                    &e.next_sample,
                    &[e.time],
                    &e.innovation,
                    &e.innovation_sigma,
                ];
                for x in vectors.into_iter().flatten() {
                    out.extend_from_slice(&x.to_bits().to_le_bytes());
                }
            }
        }
        let sum = checksum(out);
        out.extend_from_slice(&sum.to_le_bytes());
    }

    pub fn encoded_len(&self, guid: &str) -> usize {
        let s = &self.state;
        let floats = 9
            + 5 * s.z.len()
            + 3 * s.w.len()
            + s.lambda.len()
            + 2 * self.params.len()
            + s.tangent.len()
            + s.tangent_raw.len()
            + s.tangent_scale.len()
            + s.projection.len()
            + s.projection_scale.len()
            + s.tangent_gain.len()
            + s.tangent_compliance.len()
            + s.port_work.len()
            + s.port_power.len()
            + s.charts.len()
            + s.coupling.len()
            + s.coupling_phi_z.len();
        let words = s.partition.len() + s.tangent_pivots.len() + s.projection_pivots.len();
        let estimator = self.estimator.as_ref().map_or(1, |e| {
            1 + 4 + 4 + 8 + 8 + 8 * (e.covariance.len() + 3 * e.next_sample.len() + 1)
        });
        8 + 4 + 4 + guid.len() + 16 + 2 + 4 + 8 + 4 + 4 * words + 8 * floats + estimator + 8
    }

    /// Decodes and checks bytes produced by [`Snapshot::encode`] for `model`.
    pub fn decode(bytes: &[u8], model: &CompiledModel) -> Result<Snapshot, String> {
        let mut r = Reader { bytes, pos: 0 };
        if bytes.len() < 8 + 8 || &bytes[..8] != SNAPSHOT_MAGIC {
            return Err("the bytes are not a hydromech FMU state".into());
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        if checksum(body).to_le_bytes() != tail {
            return Err("the FMU state is corrupted (checksum mismatch)".into());
        }
        r.pos = 8;
        let version = r.u32()?;
        if version != SNAPSHOT_VERSION {
            return Err(format!(
                "FMU state format {version} is not supported (expects {SNAPSHOT_VERSION})"
            ));
        }
        let glen = r.u32()? as usize;
        let guid = r.take(glen)?;
        if guid != model.guid.as_bytes() {
            return Err("the FMU state belongs to another model (GUID mismatch)".into());
        }
        let layout = Layout::of(model);
        let (nz, nw, nc, np) = (
            r.u32()? as usize,
            r.u32()? as usize,
            r.u32()? as usize,
            r.u32()? as usize,
        );
        if (nz, nw, nc, np) != (layout.nz, layout.nw, layout.nc, model.params.len()) {
            return Err("the FMU state does not match this model's dimensions".into());
        }
        let initialized = match r.take(1)?[0] {
            0 => false,
            1 => true,
            _ => return Err("the FMU state is corrupted (flag)".into()),
        };
        let mut state = State::new(&layout);
        state.tangent_sparse = match r.take(1)?[0] {
            0 => false,
            1 => true,
            _ => return Err("the FMU state is corrupted (flag)".into()),
        };
        state.iterations = r.u32()?;
        state.steps = r.u64()?;
        state.rank = r.u32()?;
        for v in state.partition.iter_mut() {
            *v = r.u32()?;
            if *v as usize >= nz.max(nc) {
                return Err("the FMU state is corrupted (partition)".into());
            }
        }
        if state.rank as usize > nz.min(nc) {
            return Err("the FMU state is corrupted (partition rank)".into());
        }
        let n = nz + nw;
        for (pivots, len) in [
            (&mut state.tangent_pivots, n),
            (&mut state.projection_pivots, nz),
        ] {
            for v in pivots.iter_mut() {
                *v = r.u32()? as usize;
                if *v >= len {
                    return Err("the FMU state is corrupted (pivot)".into());
                }
            }
        }
        state.time = r.f64()?;
        state.work = r.f64()?;
        state.power = r.f64()?;
        state.base_work = r.f64()?;
        state.base_power = r.f64()?;
        state.energy0 = r.f64()?;
        state.parameter_work = r.f64()?;
        state.mass_scale = r.f64()?;
        state.tangent_step = r.f64()?;
        for v in [
            &mut state.z,
            &mut state.zd,
            &mut state.zdd,
            &mut state.zdd_last,
            &mut state.zdd_last2,
            &mut state.w,
            &mut state.wd,
            &mut state.wd_last,
            &mut state.lambda,
        ] {
            r.fill(v)?;
        }
        let mut params = vec![0.0; np];
        r.fill(&mut params)?;
        // NaN marks an input the rates belong to no known value of (`solver::input_change`).
        let mut rates_params = vec![0.0; np];
        for v in rates_params.iter_mut() {
            *v = f64::from_bits(r.u64()?);
            if v.is_infinite() {
                return Err("the FMU state holds a non-finite number".into());
            }
        }
        for v in [
            &mut state.tangent,
            &mut state.tangent_raw,
            &mut state.tangent_scale,
            &mut state.projection,
            &mut state.projection_scale,
            &mut state.tangent_gain,
            &mut state.tangent_compliance,
            &mut state.port_work,
            &mut state.port_power,
            &mut state.charts,
            &mut state.coupling,
            &mut state.coupling_phi_z,
        ] {
            r.fill(v)?;
        }
        for turn in state.charts.chunks(4) {
            let norm = turn.iter().map(|v| v * v).sum::<f64>().sqrt();
            // (NaN fails the comparison too.)
            if (norm - 1.0).abs().partial_cmp(&1e-9) != Some(std::cmp::Ordering::Less) {
                return Err("the FMU state is corrupted (a joint chart is not a rotation)".into());
            }
        }
        let estimator = match r.take(1)?[0] {
            0 => None,
            1 => Some(decode_estimator(&mut r, model)?),
            _ => return Err("the FMU state is corrupted (estimator flag)".into()),
        };
        if r.pos != body.len() {
            return Err("the FMU state has trailing bytes".into());
        }
        // Which prefix the factors use is not stored; the whole buffers are (their tails
        // are zero when encoded).
        state.tangent_used = state.tangent.len();
        state.projection_used = state.projection.len();
        Ok(Snapshot {
            state,
            params,
            rates_params,
            initialized,
            estimator,
        })
    }
}

/// The estimator part of an encoded FMU state: sizes checked against the model's sensors
/// and against each other (the covariance is n × n), every number finite.
fn decode_estimator(r: &mut Reader, model: &CompiledModel) -> Result<EstimatorState, String> {
    let (nn, ns) = (r.u32()? as usize, r.u32()? as usize);
    let n = (nn as f64).sqrt().round() as usize;
    let sensors = model.estimator.as_ref().map_or(0, |e| e.sensors.len());
    if model.estimator.is_none() || n * n != nn || ns != sensors || n > 4096 {
        return Err("the FMU state's estimator does not match this model".into());
    }
    let corrections = r.u64()?;
    let rejected = r.u64()?;
    let mut e = EstimatorState {
        covariance: vec![0.0; nn],
        next_sample: vec![0.0; ns],
        time: 0.0,
        innovation: vec![0.0; ns],
        innovation_sigma: vec![0.0; ns],
        corrections,
        rejected,
    };
    r.fill(&mut e.covariance)?;
    if (0..n).any(|i| e.covariance[i * n + i] < 0.0) {
        return Err("the FMU state's estimator covariance has a negative variance".into());
    }
    r.fill(&mut e.next_sample)?;
    e.time = r.f64()?;
    r.fill(&mut e.innovation)?;
    r.fill(&mut e.innovation_sigma)?;
    Ok(e)
}

/// FNV-1a 64: detects truncation and bit flips in serialized states.
fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| "the FMU state is truncated".to_string())?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn f64(&mut self) -> Result<f64, String> {
        let x = f64::from_bits(self.u64()?);
        if x.is_finite() {
            Ok(x)
        } else {
            Err("the FMU state holds a non-finite number".into())
        }
    }
    fn fill(&mut self, v: &mut [f64]) -> Result<(), String> {
        for x in v {
            *x = self.f64()?;
        }
        Ok(())
    }
}

/// Splits `span` into internal steps: as many steps of `h` as fit (with a relative
/// tolerance, so 0.01/0.001 gives 10, not 11) and a last one that lands exactly on the
/// end. A remainder shorter than h/10 is merged into the previous step instead: a sliver
/// of a step (1e-15 s from rounding) makes the trapezoidal formulas 2/h, 4/h² amplify
/// round-off into garbage.
pub fn sub_steps(span: f64, h: f64) -> (u64, f64) {
    let ratio = span / h;
    let mut n = (ratio - 1e-6).ceil().max(1.0) as u64;
    let last = span - (n - 1) as f64 * h;
    if n > 1 && last < 0.1 * h {
        n -= 1;
    }
    (n, h)
}

/// A communication step split into internal steps ([`Instance::begin_step`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepPlan {
    t0: f64,
    to_time: f64,
    h: f64,
    n: u64,
    taken: u64,
}

impl StepPlan {
    /// Where the communication step ends.
    pub fn to_time(&self) -> f64 {
        self.to_time
    }

    /// Internal steps in the plan, and how many of them are taken.
    pub fn progress(&self) -> (u64, u64) {
        (self.taken, self.n)
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
    estimator: Option<Box<Estimator>>,
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
            &self.model,
            &self.layout,
            &self.energy_scratch,
            &self.state,
            &mut self.work,
        );
        self.energy_scratch[k] = value;
        let after = solver::mechanical_energy(
            &self.model,
            &self.layout,
            &self.energy_scratch,
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
                    &self.model,
                    &self.layout,
                    &self.energy_scratch,
                    &mut self.state,
                    &mut self.work,
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
        solver::newton::tangent_probe(
            &self.model,
            &self.layout,
            &self.params,
            &mut self.state,
            &mut self.work,
            h,
        )
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
        solver::initialize(
            &self.model,
            &self.layout,
            &self.params,
            &mut self.state,
            &mut self.work,
        )
        .map_err(|message| StepError {
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
    pub fn estimator(&self) -> Option<&Estimator> {
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
        solver::equilibrium::restart_from_state(
            &self.model,
            &self.layout,
            &self.params,
            &mut self.state,
            &mut self.work,
        )?;
        self.rates_follow_inputs();
        self.refresh_outputs();
        Ok(())
    }

    /// Integrates from the current time to exactly `to_time` with the model's internal
    /// step (a shorter last sub-step when needed). On failure the state is left at the last
    /// successful internal step.
    ///
    /// The same as [`Instance::begin_step`], [`Instance::internal_step`] until it is done,
    /// and [`Instance::finish_step`]; FMI 3 takes those pieces one at a time to call the
    /// master between internal steps.
    pub fn advance(&mut self, to_time: f64) -> Result<(), StepError> {
        let result = self.begin_step(to_time).and_then(|mut plan| {
            while !self.internal_step(&mut plan)? {}
            Ok(())
        });
        self.finish_step(result)
    }

    /// Starts a communication step to `to_time`: anchors prescribed motions and input
    /// rates at the inputs as they stand, and splits the span into internal steps. An
    /// error here still needs [`Instance::finish_step`].
    pub fn begin_step(&mut self, to_time: f64) -> Result<StepPlan, StepError> {
        // Prescribed motions follow the inputs as they stand at this communication point.
        solver::drives::anchor(&mut self.work, &self.params, self.state.time);
        // Inputs changed since the last step: its rates are those of the old inputs. (What
        // only an estimator reads, or writes and makes the rates consistent with itself, is
        // no input of the machine; without an estimator a load slot is a disturbance the
        // master sets, an input like any other.)
        if let (Some(spec), Some(_)) = (&self.model.estimator, &self.estimator) {
            for id in spec.slots() {
                self.rates_params[id.index()] = self.params[id.index()];
            }
        }
        if self.initialized && !self.rates_current && self.params != self.rates_params {
            solver::input_change::rates_for_new_inputs(
                &self.model,
                &self.layout,
                &self.rates_params,
                &self.params,
                &mut self.state,
                &mut self.work,
            );
        }
        if self.has_slopes {
            // Inputs with derivatives move inside the step; afterwards they read as set.
            self.held_inputs.copy_from_slice(&self.params);
        }
        let h_nominal = self.params[self.model.solver.step.index()];
        if !(h_nominal.is_finite() && h_nominal > 0.0) {
            return Err(StepError {
                message: format!("solver.step must be positive, is {h_nominal}"),
                last_successful_time: self.state.time,
            });
        }
        self.check_port_inputs(self.state.time)?;
        let t0 = self.state.time;
        let span = to_time - t0;
        let (n, h) = if span > 0.0 {
            sub_steps(span, h_nominal)
        } else {
            (0, h_nominal)
        };
        Ok(StepPlan {
            t0,
            to_time,
            h,
            n,
            taken: 0,
        })
    }

    /// Takes the next internal step of `plan`; `Ok(true)` when the plan is complete (the
    /// outputs are then those of its end). On failure the state is back at the last
    /// successful internal step.
    pub fn internal_step(&mut self, plan: &mut StepPlan) -> Result<bool, StepError> {
        if plan.taken >= plan.n {
            return Ok(true);
        }
        let k = plan.taken;
        let t_end = if k + 1 == plan.n {
            plan.to_time
        } else {
            plan.t0 + (k + 1) as f64 * plan.h
        };
        let dt = t_end - self.state.time;
        if self.has_slopes {
            self.extrapolate_inputs(t_end - plan.t0);
        }
        #[cfg(test)]
        if let Some(n) = self.fail_after_internal_steps.as_mut() {
            if *n == 0 {
                return Err(StepError {
                    message: "failure injected by a test".into(),
                    last_successful_time: self.state.time,
                });
            }
            *n -= 1;
        }
        if let Err(message) = solver::step_with_retries(
            &self.model,
            &self.layout,
            &self.params,
            &mut self.state,
            &mut self.saved,
            &mut self.work,
            dt,
        ) {
            // The state is back at the last successful internal step (its rates are
            // recomputed before the next one).
            self.rates_params.fill(f64::NAN);
            self.rates_current = false;
            self.refresh_outputs();
            return Err(StepError {
                message,
                last_successful_time: self.state.time,
            });
        }
        self.state.time = t_end;
        // A joint near gimbal lock continues on a turned chart.
        if !self.work.charts.is_empty() {
            self.recharts +=
                solver::charts::rechart(&self.model, &mut self.state, &mut self.work) as u64;
        }
        plan.taken = k + 1;
        if plan.taken < plan.n {
            return Ok(false);
        }
        self.capture_outputs();
        Ok(true)
    }

    /// Ends a communication step begun by [`Instance::begin_step`] with the result of its
    /// internal steps: the input rates follow the inputs, input derivatives are used up.
    pub fn finish_step(&mut self, result: Result<(), StepError>) -> Result<(), StepError> {
        let result = result.and_then(|()| self.estimate());
        if !self.has_slopes {
            if result.is_ok() {
                self.rates_follow_inputs();
            }
            return result;
        }
        if result.is_ok() {
            // An input the master interpolates is a smooth signal: its next value corrects
            // this extrapolation without a jump (NaN: see `solver::input_change`).
            for ((r, p), slope) in self
                .rates_params
                .iter_mut()
                .zip(&self.params)
                .zip(&self.input_slopes)
            {
                *r = if *slope != [0.0; 2] { f64::NAN } else { *p };
            }
        }
        self.params.copy_from_slice(&self.held_inputs);
        self.rates_current = false;
        self.clear_input_derivatives();
        result
    }

    /// Takes the outputs of the state as it stands: at the end of a step, inside one (after
    /// [`Instance::internal_step`] returned `Ok(false)`, for a master's intermediate
    /// update; the step's result is not changed by it), after an ODE evaluation.
    pub fn capture_outputs(&mut self) {
        solver::capture_outputs(&self.model, &self.layout, &self.state, &mut self.work);
    }

    /// The explicit-ODE view (Model Exchange, [`solver::ode`]) of the initialized state,
    /// made at the first call (the partition is chosen at the configuration then).
    fn ode(&mut self) -> Result<Box<solver::ode::OdeWork>, String> {
        if !self.initialized {
            return Err("the continuous states exist after initialization".into());
        }
        if !self.work.drives.is_empty() || self.model.mechanism.base.is_some() {
            return Err(
                "Model Exchange does not cover prescribed joint motions or a moving base yet"
                    .into(),
            );
        }
        if let Some(o) = self.ode.take() {
            return Ok(o);
        }
        let o = solver::ode::OdeWork::new(
            &self.model,
            &self.layout,
            &self.params,
            &mut self.state,
            &mut self.work,
        )?;
        let declared = self.model.continuous_states();
        if declared > 0 && o.len() != declared {
            return Err(format!(
                "the parameters give {} continuous states ({} independent joint coordinates, their rates and {} first-order states) where the FMU declares {declared}: a parameter made a spool ideal (time constant 0) or dynamic; rebuild the FMU with those parameter values",
                o.len(),
                o.independent(),
                o.len() - 2 * o.independent()
            ));
        }
        Ok(Box::new(o))
    }

    /// What continuous state `k` is (after [`Instance::ode_len`]).
    pub fn ode_kind(&self, k: usize) -> Option<solver::ode::StateKind> {
        self.ode.as_ref().map(|o| o.kind(k))
    }

    /// Runs `f` on the ODE view (made at the first call) with the instance's model,
    /// layout, parameters, state and workspace.
    fn with_ode<R>(
        &mut self,
        f: impl FnOnce(
            &mut solver::ode::OdeWork,
            &CompiledModel,
            &Layout,
            &[f64],
            &mut State,
            &mut Workspace,
        ) -> R,
    ) -> Result<R, String> {
        let mut o = self.ode()?;
        let (m, l, p) = (&self.model, &self.layout, &self.params);
        let r = f(&mut o, m, l, p, &mut self.state, &mut self.work);
        self.ode = Some(o);
        Ok(r)
    }

    /// Model Exchange, at the end of an integrator step: whether the independent
    /// coordinates should be re-chosen ([`solver::ode::OdeWork::needs_rechoice`]).
    pub fn ode_needs_rechoice(&mut self) -> Result<bool, String> {
        self.with_ode(|o, _, l, _, _, ws| o.needs_rechoice(ws, l))
    }

    /// Re-chooses the independent coordinates at the current configuration.
    pub fn ode_rechoose(&mut self) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.rechoose(m, l, p, st, ws))?
    }

    /// Number of continuous states x = [z_i; ż_i; w; W].
    pub fn ode_len(&mut self) -> Result<usize, String> {
        self.with_ode(|o, _, _, _, _, _| o.len())
    }

    /// The continuous states of the current state.
    pub fn ode_states(&mut self, x: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, _, _, _, st, _| o.states(st, x))
    }

    /// Sets the continuous states (the dependent coordinates and rates follow).
    pub fn set_ode_states(&mut self, x: &[f64]) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.set_states(m, l, p, st, ws, x, false))?
    }

    /// ẋ at the current state and time; the outputs are refreshed to it.
    pub fn ode_derivatives(&mut self, dx: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.derivatives(m, l, p, st, ws, dx, true))??;
        self.capture_outputs();
        Ok(())
    }

    /// ẋ as [`Instance::ode_derivatives`], the outputs refreshed at position and velocity
    /// level only (accelerations, forces and powers not at the consistent point): what an
    /// estimator's Jacobian reads, one evaluation cheaper.
    pub(crate) fn ode_rates(&mut self, dx: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.derivatives(m, l, p, st, ws, dx, false))??;
        self.capture_outputs();
        Ok(())
    }

    /// x into the state where only rates and first-order states differ from the last
    /// [`Instance::set_ode_states`] (its configuration kept, no position solve).
    pub(crate) fn set_ode_rates(&mut self, x: &[f64]) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.set_states(m, l, p, st, ws, x, true))?
    }

    /// ẋ at x whose first-order states alone differ from those of the last
    /// [`Instance::ode_derivatives`] (`base` its ẋ)
    /// ([`solver::ode::OdeWork::first_order_change`]); the outputs are refreshed.
    pub(crate) fn ode_first_order_change(
        &mut self,
        x: &[f64],
        base: &[f64],
        dx: &mut [f64],
    ) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.first_order_change(m, l, p, st, ws, x, base, dx))??;
        self.capture_outputs();
        Ok(())
    }

    /// ∂ẋ/∂f of a generalized force on coordinate `c` at the last
    /// [`Instance::ode_derivatives`] ([`solver::ode::OdeWork::load_column`]).
    pub(crate) fn ode_load_column(&mut self, c: usize, column: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, _, _, _, _, _| o.load_column(c, column))
    }

    /// Typical magnitudes of the continuous states ([`solver::ode::OdeWork::nominals`]).
    pub fn ode_nominals(&mut self, nominal: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, _, l, _, _, _| o.nominals(l, nominal))
    }

    /// Model Exchange: the time of the state (the master's integrator owns it).
    pub fn set_time(&mut self, t: f64) {
        self.state.time = t;
    }

    /// Current value of an FMI variable.
    pub fn value(&self, var: &Variable) -> f64 {
        match var.binding {
            Binding::Param(p) => self.params[p.index()],
            Binding::Probe(p) => self.probe(p),
        }
    }

    /// A quantity computed from the current state.
    pub fn probe(&self, probe: Probe) -> f64 {
        match (probe, &self.ode) {
            (Probe::ContinuousState(k), Some(o)) => o.value(&self.state, k, false),
            (Probe::StateDerivative(k), Some(o)) => o.value(&self.state, k, true),
            (Probe::EstimateSigma(k), _) => self
                .estimator
                .as_ref()
                .filter(|e| k < e.len())
                .map_or(f64::NAN, |e| e.sigma(k)),
            (Probe::Innovation(i), _) => self
                .estimator
                .as_ref()
                .map_or(f64::NAN, |e| e.innovation(i).0),
            (Probe::InnovationSigma(i), _) => self
                .estimator
                .as_ref()
                .map_or(f64::NAN, |e| e.innovation(i).1),
            (Probe::RejectedSamples, _) => {
                self.estimator.as_ref().map_or(0.0, |e| e.rejected() as f64)
            }
            (Probe::EstimatedLoad(i), _) => self
                .model
                .estimator
                .as_ref()
                .and_then(|e| e.loads.as_ref())
                .and_then(|l| l.on.get(i))
                .map_or(f64::NAN, |&(_, slot)| self.params[slot.index()]),
            (Probe::SensorBias(i), _) => self
                .model
                .estimator
                .as_ref()
                .and_then(|e| e.sensors.get(i)?.bias.as_ref())
                .map_or(f64::NAN, |b| self.params[b.value.index()]),
            (Probe::SensorEstimate(i), _) => {
                let Some(s) = self.model.estimator.as_ref().and_then(|e| e.sensors.get(i)) else {
                    return f64::NAN;
                };
                let bias = s
                    .bias
                    .as_ref()
                    .map_or(0.0, |b| self.params[b.value.index()]);
                self.probe(s.probe) + bias
            }
            _ => solver::probe(&self.model, &self.layout, &self.state, &self.work, probe),
        }
    }

    /// Whether the continuous states are defined (after initialization of a model that
    /// declares them).
    pub fn has_ode(&self) -> bool {
        self.ode.is_some()
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
        self.clear_input_derivatives();
        solver::cut_references(&self.model, &self.layout, &self.params, &mut self.work);
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
        solver::cut_references(&self.model, &self.layout, &self.params, &mut self.work);
        solver::place_at_initial_configuration(
            &self.model,
            &self.layout,
            &self.params,
            &mut self.state,
        );
        let t = self.state.time;
        solver::drives::anchor(&mut self.work, &self.params, t);
        solver::drives::place(&self.work, &mut self.state, t);
        self.refresh_outputs();
    }

    fn refresh_outputs(&mut self) {
        solver::refresh_outputs(
            &self.model,
            &self.layout,
            &self.params,
            &self.state,
            &mut self.work,
        );
    }
}

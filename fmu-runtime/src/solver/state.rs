//! The integrator state of one instance: everything that determines the continuation of a
//! simulation (coordinates, first-order states, multipliers, work), as plain data. The
//! solver reads and advances it against the immutable compiled model.

use super::Layout;
use crate::solver;

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
    /// The near-only contact pairs whose blocks the sparse factors' pattern holds
    /// (`solver::near_pairs`).
    pub tangent_near: Vec<bool>,
    /// Newton iterations of the last internal step; internal steps so far.
    pub iterations: u32,
    pub steps: u64,
}

impl State {
    pub(crate) fn new_for(layout: &Layout) -> State {
        State::new(layout)
    }

    pub(crate) fn new(layout: &Layout) -> State {
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
            tangent_near: vec![false; layout.n_near],
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
        self.tangent_near.copy_from_slice(&other.tangent_near);
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

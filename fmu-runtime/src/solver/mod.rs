//! Time integration: implicit trapezoidal rule with every primary unknown (joint
//! coordinates, pressures, spool and friction states) in one Newton loop.

use crate::instance::State;
use crate::model::{CompiledModel, Probe};

/// Sizes of the unknown vectors of a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Joint coordinates.
    pub nz: usize,
    /// First-order states: pressures, then spool positions.
    pub nw: usize,
    /// Constraint equations.
    pub nc: usize,
    pub n_pressures: usize,
    pub n_spools: usize,
}

impl Layout {
    pub fn of(m: &CompiledModel) -> Layout {
        let n_pressures = m.circuit.volumes();
        let n_spools = m.circuit.spools.len();
        Layout {
            nz: m.mechanism.coordinates(),
            nw: n_pressures + n_spools,
            nc: m.mechanism.constraint_equations(),
            n_pressures,
            n_spools,
        }
    }
}

/// Preallocated buffers of the step loop.
pub struct Workspace {}

impl Workspace {
    pub fn new(_m: &CompiledModel, _l: &Layout) -> Workspace {
        Workspace {}
    }
}

pub fn place_at_initial_configuration(_m: &CompiledModel, _l: &Layout, _p: &[f64], _s: &mut State) {}

pub fn initialize(_m: &CompiledModel, _l: &Layout, _p: &[f64], _s: &mut State, _w: &mut Workspace) -> Result<(), String> {
    Ok(())
}

pub fn step_with_retries(
    _m: &CompiledModel,
    _l: &Layout,
    _p: &[f64],
    _s: &mut State,
    _saved: &State,
    _w: &mut Workspace,
    _h: f64,
) -> Result<(), String> {
    Ok(())
}

pub fn probe(_m: &CompiledModel, _l: &Layout, _p: &[f64], _s: &State, _probe: Probe) -> f64 {
    0.0
}

//! The projections' matrix of a kept tangent on a closed loop, formed every step.
//!
//! Seed 001 (eqs 2.21–2.22) projects velocities and accelerations onto the constraint
//! manifold with `P = W + h²/4 αΦ_zᵀΦ_z`, `W` the tangent's joint-coordinate block, formed
//! at the iterate. A tangent kept across steps was formed where the loop stood steps ago:
//! its penalty block has turned with the loop, and at the full α it turned part of a
//! velocity violation into motion along the loop (the spatial RSSR linkage ended 1e-3 rad
//! off the double-step solution). A kept tangent carries the penalty only at the inertias'
//! scale (`newton::Penalty`), so its block cannot serve either. So the state's projection
//! matrix is formed again at every accepted step from this step's mass matrix and `Φ_z`,
//! `P = M + h²/4 αΦ_zᵀΦ_z`, in the tangent's layout (dense, or the sparse plan's pattern of
//! the joint block, which holds M's and Φ_zᵀΦ_z's). The metric is the mass matrix: the
//! velocity projection then changes the kinetic energy only to second order in the
//! violation (with the kept block as the metric instead, the RSSR linkage's energy drift
//! grew from 1.7e-4 to 9.3e-3 J).

use super::Workspace;
use super::linalg::lu_factor;
use crate::mechanics::dynamics::{CompositeInertia, mass_matrix};
use crate::model::Mechanism;
use crate::solver::State;

/// Buffers of the mass matrix and `P` (allocated once per instance).
#[derive(Clone, Debug)]
pub struct MassProjection {
    matrix: Vec<f64>,
    composite: Vec<CompositeInertia>,
}

impl MassProjection {
    pub fn new(mech: &Mechanism, nz: usize) -> MassProjection {
        MassProjection {
            matrix: vec![0.0; nz * nz],
            composite: vec![CompositeInertia::default(); mech.bodies.len()],
        }
    }
}

/// Forms and factors the state's projection matrix `M + s_alpha Φ_zᵀΦ_z` at the
/// coordinates and constraint Jacobian the evaluation holds (`s_alpha = h²/4 α`), on the
/// tangent's path. A driven coordinate's row is its own pin (the inertia scale on the
/// diagonal, as in the tangent): the projections do not move it.
pub fn form(
    mech: &Mechanism,
    st: &mut State,
    ws: &mut Workspace,
    nz: usize,
    s_alpha: f64,
) -> Result<(), String> {
    let Workspace {
        projection: Some(work),
        eval,
        plan,
        lu_at,
        drives,
        ..
    } = ws
    else {
        return Ok(());
    };
    let p = &mut work.matrix;
    mass_matrix(mech, &eval.kin, &mut work.composite, p);
    let nc = eval.phi_z.len().checked_div(nz).unwrap_or(0);
    for r in 0..nc {
        let row = &eval.phi_z[r * nz..(r + 1) * nz];
        for (i, a) in row.iter().enumerate() {
            if *a != 0.0 {
                let c = s_alpha * a;
                for (v, b) in p[i * nz..(i + 1) * nz].iter_mut().zip(row) {
                    *v += c * b;
                }
            }
        }
    }
    for d in drives.iter() {
        let c = d.coordinate;
        p[c * nz..(c + 1) * nz].fill(0.0);
        p[c * nz + c] = st.mass_scale;
    }
    match (&plan.sparse, st.tangent_sparse) {
        (Some(s), true) => {
            let Some(pr) = &s.projection else {
                return Err("no sparse projection plan".into());
            };
            st.projection[..pr.nonzeros()].fill(0.0);
            for (k, column) in s.entries[..nz].iter().enumerate() {
                for &(i, _, at) in column {
                    if at != usize::MAX {
                        st.projection[at] = p[i * nz + k];
                    }
                }
            }
            pr.factor(
                &mut st.projection,
                &mut st.projection_scale,
                &mut lu_at[..nz],
            )
        }
        _ => {
            st.projection[..nz * nz].copy_from_slice(p);
            lu_factor(
                &mut st.projection,
                nz,
                &mut st.projection_pivots,
                &mut st.projection_scale,
            )
        }
    }
    .map_err(|e| format!("projection matrix M + h²/4 αΦ_zᵀΦ_z: {e}"))
}

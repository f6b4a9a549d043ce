//! Flexible bodies (issue 22), compiler side: from an FE model (the beam mesher's, or
//! matrices from files) to the runtime's floating-frame body. Each piece is checked against
//! closed forms:
//!
//! - [`dofs`]: where each FE node's DOFs sit (3 or 6 per node);
//! - [`beam`]: the built-in beam mesher (3-D Euler–Bernoulli frame elements, consistent
//!   mass) for booms of box, tube or rectangular section;
//! - [`matrix_market`]: FE mass and stiffness matrices from Matrix Market files, with
//!   located errors, and the mass matrix's checks;
//! - [`modal`]: natural frequencies and static deflections of an FE model;
//! - [`reduction`]: Craig–Bampton at the interface DOFs, orthonormalised through the
//!   reduced eigenproblem, rigid-body content removed;
//! - [`ffrf`]: the reduction clamped at the reference node (the body's joint), modal
//!   stiffness and damping, the interface nodes' shapes, what `check` reports;
//! - [`invariants`]: the inertia invariants the runtime works with;
//! - [`matrix`], [`sparse`]: the same reduction on sparse matrices for large FE models
//!   (faer's sparse Cholesky, subspace iteration).
//! - [`spider`]: rigid spiders (RBE2) tying a solid mesh's pin bores to 6-DOF masters.
//!
//! Descriptions reach these through `lower::flexible`.

pub mod beam;
pub mod dofs;
pub mod ffrf;
pub mod invariants;
pub mod matrix;
pub mod matrix_market;
pub mod modal;
pub mod reduction;
pub mod sparse;
pub mod spider;

#[cfg(test)]
mod tests;

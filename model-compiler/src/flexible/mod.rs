//! Flexible bodies (issue 22), compiler side. So far the pieces the reduction will build on,
//! each checked against closed forms:
//!
//! - [`beam`]: the built-in beam mesher (3-D Euler–Bernoulli frame elements, consistent
//!   mass) for booms of box, tube or rectangular section;
//! - [`matrix_market`]: FE mass and stiffness matrices from Matrix Market files, with
//!   located errors, and the mass matrix's checks;
//! - [`modal`]: natural frequencies and static deflections of an FE model;
//! - [`reduction`]: Craig–Bampton at the interface DOFs, orthonormalised through the
//!   reduced eigenproblem, rigid-body content removed.
//!
//! Not yet: descriptions, the FFRF inertia invariants, the FFRF body in the runtime.

pub mod beam;
pub mod ffrf;
pub mod invariants;
pub mod matrix_market;
pub mod modal;
pub mod reduction;

#[cfg(test)]
mod tests;

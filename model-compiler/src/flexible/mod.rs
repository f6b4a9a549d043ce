//! Flexible bodies (issue 22), compiler side. So far the pieces the reduction will build on,
//! each checked against closed forms:
//!
//! - [`beam`]: the built-in beam mesher (3-D Euler–Bernoulli frame elements, consistent
//!   mass) for booms of box, tube or rectangular section;
//! - [`modal`]: natural frequencies and static deflections of an FE model.
//!
//! Not yet: descriptions, Craig–Bampton reduction, the FFRF body in the runtime.

pub mod beam;
pub mod modal;

#[cfg(test)]
mod tests;

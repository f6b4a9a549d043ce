//! Semi-recursive multibody mechanics in relative joint coordinates (seed 001 §2.1).
//!
//! Velocities are "Z" twists `[ṡ; ω]`: ṡ is the velocity of the body point that momentarily
//! coincides with the world origin. With this choice a joint adds `b ż` to its parent's
//! twist, the recursion is a plain sum, and the dynamics of a subtree accumulate as
//! 6×6 composite inertias from the leaves to the root.

pub mod base;
pub mod constraints;
pub mod dynamics;
pub mod end_stop;
pub mod ffrf;
pub mod kinematics;
pub mod rope;
pub mod spatial;
pub mod zyx;

pub use base::BaseMotion;
pub use kinematics::{BodyKinematics, Kinematics};

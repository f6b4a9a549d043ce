//! Lumped-fluid hydraulics (seed 001 §2.2, seed 002 §1): each control volume has one
//! pressure, `ṗ = β_e/V (ΣQ − V̇)`; flows come from orifice laws of valves and throttles,
//! pumps and reliefs; cylinders couple chamber volumes to the mechanism.

pub mod accumulator;
pub mod cylinder;
pub mod fluid;
pub mod friction;
pub mod motor;
pub mod network;
pub mod orifice;
pub mod pump;
pub mod valve;

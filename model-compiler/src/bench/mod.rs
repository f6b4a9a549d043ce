//! `hydromech bench`: the performance harness (issue 7).
pub mod family;

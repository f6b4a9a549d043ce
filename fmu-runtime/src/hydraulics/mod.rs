//! Lumped-fluid hydraulics.

//! Test-only crate: see tests/import.rs.

//! FMI 2.0 Co-Simulation C ABI.

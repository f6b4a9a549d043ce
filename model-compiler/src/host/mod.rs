//! Host: hydromech as an FMI master of its own FMUs — reading a built FMU's
//! `modelDescription.xml` ([`fmu_xml`], typed in [`xml`]) and loading its binary through
//! the C ABI ([`fmi`], loaded by [`dylib`]), as `simulate`, `bench`, `report`, `sweep`,
//! `fit` and `verify` do.

pub mod dylib;
pub mod fmi;
pub mod fmu_xml;
pub mod xml;

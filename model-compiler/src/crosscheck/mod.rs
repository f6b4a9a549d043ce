//! The supplier package: every FMU with the files of the FMI Cross-Check
//! (`modelica/fmi-cross-check`, `FMI-CROSS-CHECK-RULES.md` v4.1) so that its receiver can
//! show that an import reproduces the exporter's results on their tool and platform.
//!
//! ```text
//! <root>/fmus/2.0/cs/<platform>/hydromech/<version>/<Model>/
//!     <Model>.fmu       the FMU
//!     <Model>_in.csv    its inputs over the standard manoeuvre
//!     <Model>_ref.csv   the reference results, computed by the FMU through its C ABI
//!     <Model>_ref.opt   StartTime, StopTime, StepSize, RelTol
//!     README.md         the machine, the manoeuvre, the tolerance, how to reproduce it
//! ```
//!
//! [`package`] writes the tree (`hydromech package`), [`verify`] re-runs an FMU against its
//! files (`hydromech verify`); [`csv`] and [`opt`] read and write the files with the line
//! of every fault; [`tube`] is the cross-check's comparison; [`wine`] runs a win64 binary
//! under wine for `verify`.

pub mod csv;
pub mod opt;
pub mod package;
pub mod readme;
pub mod tube;
pub mod verify;
pub mod wine;

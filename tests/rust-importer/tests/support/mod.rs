//! What the importer tests share: where the built FMUs are, listing them, importing one.
//! (Each test file uses a part of it.)
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use fmi::fmi2::import::Fmi2Import;

/// `fmus/` of the repository, or `$HYDROMECH_FMU_DIR`.
pub fn fmus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HYDROMECH_FMU_DIR") {
        return PathBuf::from(dir);
    }
    // tests/rust-importer -> repository root
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root).join("fmus")
}

/// The `*.fmu` files in `dir`, sorted; none is a failure that says how to build them.
pub fn fmus_in(dir: &Path, hint: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}; {hint}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "fmu"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no *.fmu in {}: {hint}", dir.display());
    v
}

/// An FMI 2.0 FMU through the `fmi` crate.
pub fn import(path: &Path) -> Fmi2Import {
    fmi::import::from_path::<Fmi2Import>(path)
        .unwrap_or_else(|e| panic!("fmi crate cannot import {}: {e}", path.display()))
}

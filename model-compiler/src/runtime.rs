//! The FMU runtime binaries this hydromech carries.
//!
//! `fmu-runtime` is compiled once per platform when hydromech itself is built (`build.rs`);
//! every FMU gets a copy as `binaries/<platform>/<modelIdentifier>.<ext>` next to its own
//! model file in `resources/`. Building an FMU therefore needs no compiler and no source
//! tree.

/// One platform's runtime shared library.
#[derive(Debug)]
pub struct RuntimeBinary {
    /// FMI 2.0 platform folder (`linux64`, `win64`, ...).
    pub platform: &'static str,
    /// Rust target triple it was built for.
    pub target: &'static str,
    /// File extension of a shared library there (`so`, `dll`).
    pub extension: &'static str,
    pub bytes: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/runtimes.rs"));

/// Every FMI 2.0 platform hydromech knows, with how to get a hydromech that carries it.
pub const KNOWN_PLATFORMS: &[(&str, &str)] = &[(
    "linux64",
    "build hydromech on x86-64 Linux, or set HYDROMECH_RUNTIME_LINUX64 to a prebuilt libfmu_runtime.so when building it",
)];

/// The runtime binaries of the given platforms (all embedded ones for an empty list), or a
/// message naming each platform that is unknown or missing and how to get it.
pub fn select(platforms: &[String]) -> Result<Vec<&'static RuntimeBinary>, String> {
    if platforms.is_empty() {
        if EMBEDDED.is_empty() {
            return Err(
                "this hydromech carries no FMU runtime binary for any platform; rebuild it on x86-64 Linux"
                    .into(),
            );
        }
        return Ok(EMBEDDED.iter().collect());
    }
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for name in platforms {
        match EMBEDDED.iter().find(|r| r.platform == name) {
            Some(r)
                if !out
                    .iter()
                    .any(|o: &&RuntimeBinary| o.platform == r.platform) =>
            {
                out.push(r)
            }
            Some(_) => {}
            None => match KNOWN_PLATFORMS.iter().find(|(p, _)| p == name) {
                Some((p, how)) => problems.push(format!(
                    "this hydromech was built without the {p} runtime: {how}"
                )),
                None => problems.push(format!(
                    "unknown platform '{name}' (known: {})",
                    KNOWN_PLATFORMS
                        .iter()
                        .map(|(p, _)| *p)
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            },
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems.join("; "))
    }
}

/// Names of the embedded platforms, for `hydromech --version` and error messages.
pub fn platforms() -> Vec<&'static str> {
    EMBEDDED.iter().map(|r| r.platform).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_runtime_is_embedded_and_is_a_shared_library() {
        let linux = select(&["linux64".into()]).unwrap();
        assert_eq!(linux[0].extension, "so");
        assert_eq!(&linux[0].bytes[..4], b"\x7fELF");
        for f in fmu_runtime::fmi2::EXPORTED_FUNCTIONS {
            assert!(
                linux[0].bytes.windows(f.len()).any(|w| w == f.as_bytes()),
                "{f} is not exported"
            );
        }
    }

    #[test]
    fn unknown_or_missing_platforms_are_named() {
        let e = select(&["linux64".into(), "beos".into()]).unwrap_err();
        assert!(e.contains("unknown platform 'beos'"), "{e}");
        assert!(e.contains("known: linux64"), "{e}");
        assert_eq!(
            select(&["linux64".into(), "linux64".into()]).unwrap().len(),
            1
        );
    }
}

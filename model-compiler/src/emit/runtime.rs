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
    /// File extension of a shared library there (`so`, `dll`).
    pub extension: &'static str,
    pub bytes: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/runtimes.rs"));

const GET_CROSS: &str = "install the cross toolchains (apt-get install rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross; tests/run.sh does) and rebuild hydromech";

/// Every platform hydromech can build a runtime for, with how to get a hydromech that
/// carries it.
pub const KNOWN_PLATFORMS: &[(&str, &str)] = &[
    (
        "linux64",
        "build hydromech on x86-64 Linux, or set HYDROMECH_RUNTIME_LINUX64 to a prebuilt libfmu_runtime.so when building it",
    ),
    ("win64", GET_CROSS),
    ("aarch64-linux", GET_CROSS),
];

/// The platform folders FMI 2.0 defines (`2_3_fmu_distribution.adoc`). ARM64 Linux has
/// none: its runtime is built and tested, and goes into FMI 3.0 FMUs as `aarch64-linux`.
pub const FMI2_PLATFORMS: &[&str] = &[
    "win32", "win64", "linux32", "linux64", "darwin32", "darwin64",
];

/// The FMI 2.0 runtime binaries of the given platforms (every embedded one with an FMI 2.0
/// folder for an empty list), or a message naming each platform that is unknown, missing
/// or not an FMI 2.0 platform, and how to get it.
pub fn select(platforms: &[String]) -> Result<Vec<&'static RuntimeBinary>, String> {
    if platforms.is_empty() {
        let all: Vec<_> = EMBEDDED
            .iter()
            .filter(|r| FMI2_PLATFORMS.contains(&r.platform))
            .collect();
        if all.is_empty() {
            return Err(
                "this hydromech carries no FMI 2.0 runtime binary for any platform; rebuild it on x86-64 Linux"
                    .into(),
            );
        }
        return Ok(all);
    }
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for name in platforms {
        let known = KNOWN_PLATFORMS.iter().find(|(p, _)| p == name);
        match (EMBEDDED.iter().find(|r| r.platform == name), known) {
            (_, Some(_)) if !FMI2_PLATFORMS.contains(&name.as_str()) => problems.push(format!(
                "FMI 2.0 has no platform folder for '{name}' (it goes into FMI 3.0 FMUs)"
            )),
            (Some(r), _) => {
                if !out
                    .iter()
                    .any(|o: &&RuntimeBinary| o.platform == r.platform)
                {
                    out.push(r)
                }
            }
            (None, Some((p, how))) => problems.push(format!(
                "this hydromech was built without the {p} runtime: {how}"
            )),
            (None, None) => problems.push(format!(
                "unknown platform '{name}' (known: {})",
                KNOWN_PLATFORMS
                    .iter()
                    .map(|(p, _)| *p)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems.join("; "))
    }
}

/// The FMI 3.0 platform tuple (`<arch>-<sys>`, `2_5_fmu_distribution.adoc`) of a runtime
/// platform.
pub fn fmi3_folder(platform: &str) -> Option<&'static str> {
    match platform {
        "linux64" | "x86_64-linux" => Some("x86_64-linux"),
        "win64" | "x86_64-windows" => Some("x86_64-windows"),
        "aarch64-linux" => Some("aarch64-linux"),
        _ => None,
    }
}

/// The runtime binaries of an FMI 3.0 FMU, each with its platform folder: every embedded
/// one for an empty list, else the named ones (by runtime name, `linux64`, or by FMI 3.0
/// tuple, `x86_64-linux`), or a message naming each that is unknown or missing.
pub fn select_fmi3(
    platforms: &[String],
) -> Result<Vec<(&'static str, &'static RuntimeBinary)>, String> {
    let with_folder = |r: &'static RuntimeBinary| fmi3_folder(r.platform).map(|f| (f, r));
    if platforms.is_empty() {
        let all: Vec<_> = EMBEDDED.iter().filter_map(with_folder).collect();
        if all.is_empty() {
            return Err(
                "this hydromech carries no runtime binary for any platform; rebuild it on x86-64 Linux"
                    .into(),
            );
        }
        return Ok(all);
    }
    let mut out: Vec<(&'static str, &'static RuntimeBinary)> = Vec::new();
    let mut problems = Vec::new();
    for name in platforms {
        let Some(folder) = fmi3_folder(name) else {
            problems.push(format!(
                "unknown platform '{name}' (known: x86_64-linux, x86_64-windows, aarch64-linux, or linux64, win64)"
            ));
            continue;
        };
        match EMBEDDED
            .iter()
            .find(|r| fmi3_folder(r.platform) == Some(folder))
        {
            Some(r) if !out.iter().any(|(f, _)| *f == folder) => out.push((folder, r)),
            Some(_) => {}
            None => {
                let how = KNOWN_PLATFORMS
                    .iter()
                    .find(|(p, _)| fmi3_folder(p) == Some(folder))
                    .map(|(_, how)| *how)
                    .unwrap_or(GET_CROSS);
                problems.push(format!(
                    "this hydromech was built without the {folder} runtime: {how}"
                ))
            }
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems.join("; "))
    }
}

/// The runtime binary of one platform, FMI 2.0 or not (tests run the ARM64 one).
pub fn binary(platform: &str) -> Option<&'static RuntimeBinary> {
    EMBEDDED.iter().find(|r| r.platform == platform)
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
    fn fmi3_folders_are_platform_tuples() {
        let all = select_fmi3(&[]).unwrap();
        assert!(
            all.iter()
                .any(|(f, r)| *f == "x86_64-linux" && r.platform == "linux64")
        );
        let one = select_fmi3(&["linux64".into(), "x86_64-linux".into()]).unwrap();
        assert_eq!(one.len(), 1);
        let e = select_fmi3(&["linux32".into()]).unwrap_err();
        assert!(e.contains("unknown platform 'linux32'"), "{e}");
    }

    #[test]
    fn unknown_or_missing_platforms_are_named() {
        let e = select(&["linux64".into(), "beos".into(), "aarch64-linux".into()]).unwrap_err();
        assert!(e.contains("unknown platform 'beos'"), "{e}");
        assert!(e.contains("known: linux64, win64, aarch64-linux"), "{e}");
        assert!(e.contains("no platform folder for 'aarch64-linux'"), "{e}");
        assert!(
            select(&[])
                .unwrap()
                .iter()
                .all(|r| r.platform != "aarch64-linux")
        );
        assert_eq!(
            select(&["linux64".into(), "linux64".into()]).unwrap().len(),
            1
        );
    }
}

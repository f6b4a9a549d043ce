//! Builds the generic FMU runtime once, when hydromech itself is built.
//!
//! Every FMU carries the same `fmu-runtime` shared library (copied as
//! `binaries/<platform>/<modelIdentifier>.<ext>`) and its own model file in `resources/`, so
//! `hydromech build` needs no compiler. This script compiles `fmu-runtime` as a cdylib with a
//! nested cargo into `<target>/hydromech-runtime` (a target directory of its own: the outer
//! cargo holds the lock of the main one) and writes `$OUT_DIR/runtimes.rs`, which embeds
//! each binary with `include_bytes!`.
//!
//! The other platforms are cross-compiled when their toolchain is on this machine: a Rust
//! toolchain with the standard library's source (Debian's `rustc-web`, `cargo-web`,
//! `rust-web-src`: `-Zbuild-std`, since no prebuilt std for those targets can be installed
//! here) and the target's C linker (`gcc-mingw-w64-x86-64`; `gcc-aarch64-linux-gnu` with
//! `libc6-dev-arm64-cross`). `tests/run.sh` installs them. A platform without its toolchain
//! is left out with a warning, and `hydromech build --platform` then says how to get it.
//!
//! The Linux runtimes are linked by zig through `cargo-zigbuild` (both from PyPI:
//! `cargo-zigbuild`, `ziglang`; `tests/run.sh` installs them into `.venv`) against glibc
//! 2.17's symbol versions, the manylinux2014 baseline: an FMU then loads on RHEL 7/8, Ubuntu
//! 18.04+ and the clusters sweeps run on. zig only links (rustc compiles as before, and the
//! solver's arithmetic is the pure-Rust `libm`), so the results stay bit-identical. Without
//! cargo-zigbuild the host's `cc` links against this machine's glibc (2.34+ symbols), with a
//! warning.
//!
//! With the win64 runtime it also builds, with mingw, the small FMI master
//! `driver/fmu_driver.c` for win64 (`$OUT_DIR/drivers.rs`): `hydromech verify` runs a win64
//! FMU binary with it under wine.
//!
//! Environment:
//! - `HYDROMECH_RUNTIME_<PLATFORM>=<path>` (`LINUX64`, `WIN64`, `AARCH64_LINUX`) supplies a
//!   prebuilt binary instead (release packaging);
//! - `HYDROMECH_PLATFORMS=linux64,win64,...` limits the platforms built (default: every one
//!   whose toolchain is here);
//! - `HYDROMECH_CROSS_CARGO`, `HYDROMECH_CROSS_RUSTC`: the cross toolchain (default
//!   `/usr/bin/cargo`, `/usr/bin/rustc`);
//! - `HYDROMECH_ZIGBUILD=<path>`: the `cargo-zigbuild` to link the Linux runtimes with
//!   (default: on PATH, else `.venv/bin/`); `HYDROMECH_ZIGBUILD=none` links with `cc`.

use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A platform the runtime can be built for: FMI platform name (the FMI 2.0 folder where
/// FMI 2.0 has one, else the FMI 3.0 tuple), Rust target, file name, C linker.
struct Platform {
    fmi_name: &'static str,
    target: &'static str,
    library: &'static str,
    linker: &'static str,
}

const LINUX64: Platform = Platform {
    fmi_name: "linux64",
    target: "x86_64-unknown-linux-gnu",
    library: "libfmu_runtime.so",
    linker: "cc",
};

const WIN64: Platform = Platform {
    fmi_name: "win64",
    target: "x86_64-pc-windows-gnu",
    library: "fmu_runtime.dll",
    linker: "x86_64-w64-mingw32-gcc",
};

/// The glibc whose symbol versions the Linux runtimes may use (manylinux2014).
const GLIBC: &str = "2.17";

/// FMI 2.0 has no name for ARM64 Linux; FMI 3.0 calls it `aarch64-linux`.
const AARCH64_LINUX: Platform = Platform {
    fmi_name: "aarch64-linux",
    target: "aarch64-unknown-linux-gnu",
    library: "libfmu_runtime.so",
    linker: "aarch64-linux-gnu-gcc",
};

/// The shipped binaries keep only what a loader needs (the exported `fmi2*` functions):
/// 0.9 instead of 1.1 MB on Linux, 1.6 instead of 2.3 MB on Windows.
const STRIP: &str = "symbols";

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets it"));
    let runtime = manifest_dir.join("..").join("fmu-runtime");
    for p in [
        runtime.join("src"),
        runtime.join("Cargo.toml"),
        manifest_dir.join("..").join("Cargo.toml"),
        manifest_dir.join("..").join("Cargo.lock"),
    ] {
        println!("cargo:rerun-if-changed={}", p.display());
    }

    let host = env::var("HOST").unwrap_or_default();
    println!("cargo:rerun-if-env-changed=HYDROMECH_PLATFORMS");
    let wanted = env::var("HYDROMECH_PLATFORMS")
        .ok()
        .filter(|s| !s.trim().is_empty());
    let zig = zigbuild(&manifest_dir.join(".."));
    // The FMU documentation states the baseline (emit/documentation/loading.rs).
    println!(
        "cargo:rustc-env=HYDROMECH_GLIBC_BASELINE={}",
        if zig.program.is_some() { GLIBC } else { "" }
    );
    let mut embedded = Vec::new();
    for platform in [LINUX64, WIN64, AARCH64_LINUX] {
        if let Some(w) = &wanted
            && !w.split(',').any(|p| p.trim() == platform.fmi_name)
        {
            continue;
        }
        let var = format!(
            "HYDROMECH_RUNTIME_{}",
            platform.fmi_name.to_uppercase().replace('-', "_")
        );
        println!("cargo:rerun-if-env-changed={var}");
        let built = match env::var_os(&var) {
            Some(path) if !path.is_empty() => {
                // A given binary is embedded as it is now: rebuild when it changes.
                println!("cargo:rerun-if-changed={}", Path::new(&path).display());
                Ok(PathBuf::from(path))
            }
            _ if host == platform.target => Ok(build_native(&runtime, &out_dir, &platform, &zig)),
            _ => build_cross(&runtime, &out_dir, &platform, &zig),
        };
        let library = match built {
            Ok(library) => library,
            Err(why) => {
                println!(
                    "cargo:warning=hydromech is built without the {} FMU runtime: {why}",
                    platform.fmi_name
                );
                watch_for_install();
                continue;
            }
        };
        let copy = out_dir.join(format!("runtime-{}", platform.fmi_name));
        std::fs::copy(&library, &copy)
            .unwrap_or_else(|e| panic!("cannot copy {}: {e}", library.display()));
        embedded.push((platform, copy));
    }

    let mut code = String::from(
        "/// The runtime binaries built with this hydromech (generated by build.rs).\npub static EMBEDDED: &[RuntimeBinary] = &[\n",
    );
    for (platform, path) in &embedded {
        let ext = Path::new(platform.library)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("so");
        let _ = writeln!(
            code,
            "    RuntimeBinary {{ platform: {:?}, extension: {:?}, bytes: include_bytes!({:?}) }},",
            platform.fmi_name,
            ext,
            path.display().to_string()
        );
    }
    code.push_str("];\n");
    let names: Vec<&str> = embedded.iter().map(|(p, _)| p.fmi_name).collect();
    println!("cargo:rustc-env=HYDROMECH_PLATFORMS={}", names.join(", "));
    std::fs::write(out_dir.join("runtimes.rs"), code).expect("OUT_DIR is writable");

    let win64 = embedded.iter().any(|(p, _)| p.fmi_name == WIN64.fmi_name);
    let driver = if win64 {
        build_win64_driver(&manifest_dir.join("driver"), &out_dir)
    } else {
        Err("no win64 runtime".into())
    };
    let code = match driver {
        Ok((exe, shim)) => format!(
            "/// The win64 master of `hydromech verify` (generated by build.rs).\npub static WIN64_DRIVER: Option<WindowsDriver> = Some(WindowsDriver {{ exe: include_bytes!({:?}), shim: include_bytes!({:?}) }});\n",
            exe.display().to_string(),
            shim.display().to_string()
        ),
        Err(why) => {
            if win64 {
                println!("cargo:warning=hydromech verify cannot run win64 binaries: {why}");
            }
            "/// Built without mingw: no win64 master.\npub static WIN64_DRIVER: Option<WindowsDriver> = None;\n".into()
        }
    };
    std::fs::write(out_dir.join("drivers.rs"), code).expect("OUT_DIR is writable");
}

/// The FMI master `driver/fmu_driver.c` for win64 and the `bcryptprimitives.dll` stand-in
/// that wine needs beside it, built with mingw: `hydromech verify` runs win64 FMU binaries
/// with them under wine.
fn build_win64_driver(sources: &Path, out_dir: &Path) -> Result<(PathBuf, PathBuf), String> {
    let driver = sources.join("fmu_driver.c");
    let shim_source = sources.join("bcryptprimitives_shim.c");
    for p in [&driver, &shim_source] {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    let exe = out_dir.join("fmu_driver.exe");
    let shim = out_dir.join("bcryptprimitives.dll");
    let mut c = Command::new(WIN64.linker);
    c.args(["-std=c99", "-O2", "-s", "-o"])
        .arg(&exe)
        .arg(&driver);
    run(c, "compiling driver/fmu_driver.c for win64")
        .map_err(|e| format!("cannot run {}: {e}", WIN64.linker))??;
    let mut c = Command::new(WIN64.linker);
    c.args(["-shared", "-s", "-o"])
        .arg(&shim)
        .arg(&shim_source)
        .arg("-ladvapi32");
    run(c, "compiling driver/bcryptprimitives_shim.c")
        .map_err(|e| format!("cannot run {}: {e}", WIN64.linker))??;
    Ok((exe, shim))
}

/// `cargo-zigbuild`, or `None` (a warning is printed when a Linux runtime is built).
struct Zig {
    program: Option<PathBuf>,
}

fn zigbuild(workspace: &Path) -> Zig {
    println!("cargo:rerun-if-env-changed=HYDROMECH_ZIGBUILD");
    let on_path = |name: &str| {
        env::split_paths(&env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    };
    let chosen = env::var("HYDROMECH_ZIGBUILD").unwrap_or_default();
    let venv = workspace.join(".venv").join("bin").join("cargo-zigbuild");
    let program = match chosen.as_str() {
        "none" => None,
        "" => on_path("cargo-zigbuild").or_else(|| venv.is_file().then(|| venv.clone())),
        given => Some(PathBuf::from(given)),
    };
    let program = program.filter(|p| p.is_file());
    match &program {
        Some(p) => println!("cargo:rerun-if-changed={}", p.display()),
        None if chosen == "none" => {}
        // Not there yet (tests/run.sh installs it into .venv): build again once it is.
        None => {
            watch_for_install();
            println!("cargo:rerun-if-changed={}", venv.display());
        }
    }
    Zig { program }
}

/// A build that left something out for a missing tool (a cross toolchain, a linker,
/// cargo-zigbuild) runs this script again when tools are installed: cargo compares the
/// newest file in each watched directory, and a watched path that does not exist keeps the
/// script running on every build until it does. Without this, a hydromech built once
/// before `tests/run.sh` installed its toolchains stayed without the win64 and aarch64
/// runtimes for good (found on a fresh machine, 2026-12-07).
fn watch_for_install() {
    for dir in ["/usr/bin", "/usr/lib/rustlib"] {
        if Path::new(dir).is_dir() {
            println!("cargo:rerun-if-changed={dir}");
        }
    }
}

impl Zig {
    /// Makes `command` (a nested `cargo build`) a `cargo-zigbuild build` for `target` at the
    /// glibc baseline; `false` (and a warning) when there is no cargo-zigbuild.
    fn link(&self, command: &mut Command, target: &str, fmi_name: &str) -> bool {
        let Some(program) = &self.program else {
            println!(
                "cargo:warning=the {fmi_name} FMU runtime is linked against this machine's glibc, not {GLIBC}: its FMUs will not load on older Linux. `pip install cargo-zigbuild ziglang` (tests/run.sh installs them into .venv) for the glibc {GLIBC} baseline"
            );
            return false;
        };
        // Its folder first on PATH: there `python3 -m ziglang` finds zig (a venv).
        let mut path: Vec<PathBuf> = program
            .parent()
            .map(Path::to_path_buf)
            .into_iter()
            .collect();
        let inherited = command
            .get_envs()
            .find(|(k, _)| *k == "PATH")
            .and_then(|(_, v)| v.map(|v| v.to_os_string()))
            .or_else(|| env::var_os("PATH"))
            .unwrap_or_default();
        path.extend(env::split_paths(&inherited));
        // The same arguments, but the target carries the glibc version; cargo-zigbuild sets
        // the linker.
        let mut args = Vec::new();
        let mut given = command.get_args();
        while let Some(a) = given.next() {
            if a == "--target" {
                given.next();
            } else {
                args.push(a.to_os_string());
            }
        }
        let mut zig = Command::new(program);
        zig.args(args)
            .args(["--target", &format!("{target}.{GLIBC}")]);
        let linker = format!(
            "CARGO_TARGET_{}_LINKER",
            target.to_uppercase().replace('-', "_")
        );
        for (k, v) in command.get_envs() {
            match v {
                Some(_) if k == linker.as_str() => zig.env_remove(k),
                Some(v) => zig.env(k, v),
                None => zig.env_remove(k),
            };
        }
        zig.env("PATH", env::join_paths(path).unwrap_or_default());
        *command = zig;
        true
    }
}

/// `cargo build --release --lib` of fmu-runtime for the host (linked at the glibc baseline
/// when cargo-zigbuild is there); returns the cdylib.
fn build_native(runtime: &Path, out_dir: &Path, platform: &Platform, zig: &Zig) -> PathBuf {
    let target_dir = main_target_dir(out_dir).join("hydromech-runtime");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = cargo_build(Path::new(&cargo), runtime, &target_dir);
    let linked = zig.link(&mut command, platform.target, platform.fmi_name);
    run(command, "building the FMU runtime (fmu-runtime)")
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", Path::new(&cargo).display()))
        .unwrap_or_else(|e| panic!("{e}"));
    if linked {
        target_dir
            .join(platform.target)
            .join("release")
            .join(platform.library)
    } else {
        target_dir.join("release").join(platform.library)
    }
}

/// The nested `cargo build --release --lib` of fmu-runtime shared by the native and the
/// cross builds: stripped, and without the outer build's settings (clippy's wrapper, the
/// outer package's identity, target and target directory).
fn cargo_build(cargo: &Path, runtime: &Path, target_dir: &Path) -> Command {
    let mut command = Command::new(cargo);
    command
        .args(["build", "--release", "--lib", "--quiet", "--manifest-path"])
        .arg(runtime.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir)
        .env("CARGO_PROFILE_RELEASE_STRIP", STRIP);
    for var in [
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_BUILD_TARGET",
    ] {
        command.env_remove(var);
    }
    command
}

/// Runs a nested cargo: `Err` if it cannot be started, `Ok(Err(..))` with its output if the
/// build failed (`what` names the build in the message).
fn run(mut command: Command, what: &str) -> std::io::Result<Result<(), String>> {
    let output = command.output()?;
    Ok(if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ))
    })
}

/// Cross-compiles fmu-runtime for `platform` with the cross toolchain; `Err` says what is
/// missing (then the platform is left out, with a warning).
fn build_cross(
    runtime: &Path,
    out_dir: &Path,
    platform: &Platform,
    zig: &Zig,
) -> Result<PathBuf, String> {
    for v in ["HYDROMECH_CROSS_CARGO", "HYDROMECH_CROSS_RUSTC"] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    let cargo = env::var_os("HYDROMECH_CROSS_CARGO").unwrap_or_else(|| "/usr/bin/cargo".into());
    let rustc = env::var_os("HYDROMECH_CROSS_RUSTC").unwrap_or_else(|| "/usr/bin/rustc".into());
    let install = "apt-get install rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross (tests/run.sh does), then rebuild hydromech";
    if !Path::new(&cargo).is_file() || !Path::new(&rustc).is_file() {
        return Err(format!(
            "no cross Rust toolchain ({} / {}): {install}",
            Path::new(&cargo).display(),
            Path::new(&rustc).display()
        ));
    }
    // Rustup's proxies must not stand in for the cross toolchain's rustc and cargo.
    let path: Vec<PathBuf> = env::split_paths(&env::var_os("PATH").unwrap_or_default())
        .filter(|p| !p.ends_with(".cargo/bin"))
        .collect();
    let path = env::join_paths(path).unwrap_or_default();
    // zig links the Linux runtimes itself (no cross gcc needed then).
    let by_zig = platform.target.contains("linux") && zig.program.is_some();
    let linker_found = env::split_paths(&path).any(|d| d.join(platform.linker).is_file());
    if !linker_found && !by_zig {
        return Err(format!(
            "no C linker {} on PATH: {install}",
            platform.linker
        ));
    }
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", Path::new(&rustc).display()))?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    let rustlib = sysroot.join("lib").join("rustlib");
    let prebuilt_std = rustlib.join(platform.target).join("lib").is_dir();
    let std_source = rustlib.join("src/rust/library/std").is_dir();
    if !prebuilt_std && !std_source {
        return Err(format!(
            "{} has neither a {} standard library nor its source: {install}",
            Path::new(&rustc).display(),
            platform.target
        ));
    }
    let target_dir = main_target_dir(out_dir).join("hydromech-runtime-cross");
    let mut command = cargo_build(Path::new(&cargo), runtime, &target_dir);
    command
        .args(["--target", platform.target])
        .env("PATH", &path)
        .env("RUSTC", &rustc)
        .env(
            format!(
                "CARGO_TARGET_{}_LINKER",
                platform.target.to_uppercase().replace('-', "_")
            ),
            platform.linker,
        );
    // Rustup's and the host build's settings are not the cross toolchain's.
    for var in [
        "RUSTC_WRAPPER",
        "RUSTDOC",
        "RUSTUP_TOOLCHAIN",
        "CARGO_ENCODED_RUSTFLAGS",
    ] {
        command.env_remove(var);
    }
    if !prebuilt_std {
        // panic_unwind: the FMI entry points catch panics (panic_abort could not).
        command
            .arg("-Zbuild-std=std,panic_unwind")
            .env("RUSTC_BOOTSTRAP", "1");
    }
    if platform.target.contains("linux") {
        zig.link(&mut command, platform.target, platform.fmi_name);
    }
    // A toolchain that is there but fails to build the runtime is an error, not a
    // platform quietly left out.
    let what = format!("cross-building the FMU runtime for {}", platform.target);
    run(command, &what)
        .map_err(|e| format!("cannot run {}: {e}", Path::new(&cargo).display()))?
        .unwrap_or_else(|e| panic!("{e}"));
    Ok(target_dir
        .join(platform.target)
        .join("release")
        .join(platform.library))
}

/// The outer build's target directory: the ancestor of OUT_DIR that cargo marked with
/// `CACHEDIR.TAG` (OUT_DIR itself if there is none).
fn main_target_dir(out_dir: &Path) -> PathBuf {
    out_dir
        .ancestors()
        .find(|d| d.join("CACHEDIR.TAG").is_file())
        .unwrap_or(out_dir)
        .to_path_buf()
}

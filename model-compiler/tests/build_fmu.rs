//! End-to-end: `hydromech build` of the seed 002 rod into a temporary directory, then the
//! archive is checked against the FMI 2.0 packaging rules (notes §1.5).
//! The binary is the generic runtime that `build.rs` compiled with hydromech; the model is
//! the file in `resources/`.

mod common;

use common::{temp_dir, workspace};

use std::fs::File;
use std::io::Read;
use std::process::Command;

fn contents_of(zip: &mut zip::ZipArchive<File>, name: &str) -> Option<Vec<u8>> {
    let mut f = zip.by_name(name).ok()?;
    let mut data = Vec::new();
    f.read_to_end(&mut data).ok()?;
    Some(data)
}

/// Files in `dir` whose name ends in `.ext`.
fn count_files(dir: &std::path::Path, ext: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == ext)
        })
        .count()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn builds_the_naya_rod_fmu() {
    let out = temp_dir("build");
    let model = workspace().join("models").join("naya-rod.toml");
    let run = Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .arg("build")
        .arg(&model)
        .arg("-o")
        .arg(&out)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "hydromech build failed:\n{stdout}\n{stderr}"
    );
    let fmu = out.join("naya-rod.fmu");
    assert!(stdout.contains(&fmu.display().to_string()), "{stdout}");
    // No temporary file left next to the FMU.
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["naya-rod.fmu"]);

    let mut zip = zip::ZipArchive::new(File::open(&fmu).unwrap()).unwrap();
    let mut names: Vec<String> = zip.file_names().map(str::to_string).collect();
    names.sort();
    // One binary per FMI 2.0 platform this hydromech carries (linux64 always; win64 where
    // the cross toolchain was there when it was built).
    let mut expected: Vec<String> = model_compiler::emit::runtime::select(&[])
        .unwrap()
        .iter()
        .map(|r| format!("binaries/{}/naya_rod.{}", r.platform, r.extension))
        .collect();
    assert!(expected.contains(&"binaries/linux64/naya_rod.so".to_string()));
    expected.extend(
        [
            "documentation/index.html",
            "modelDescription.xml",
            "model.png",
            "resources/hydromech-model.bin",
        ]
        .map(String::from),
    );
    expected.sort();
    assert_eq!(names, expected);
    if let Some(dll) = contents_of(&mut zip, "binaries/win64/naya_rod.dll") {
        assert_eq!(&dll[..2], b"MZ", "win64 binary is not a PE file");
    }
    let mut contents = std::collections::HashMap::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let name = f.name().to_string();
        assert_eq!(f.compression(), zip::CompressionMethod::Deflated, "{name}");
        assert!(
            !name.starts_with('/') && !name.starts_with("./") && !name.contains('\\'),
            "{name}"
        );
        let mut data = Vec::new();
        f.read_to_end(&mut data).unwrap();
        assert_eq!(data.len() as u64, f.size());
        contents.insert(name, data);
    }
    // No ZIP64 records, "version needed to extract" ≤ 2.0 (FMI 2.0 §2.3).
    let raw = std::fs::read(&fmu).unwrap();
    assert!(
        !contains(&raw, b"PK\x06\x06") && !contains(&raw, b"PK\x06\x07"),
        "ZIP64 end records present"
    );
    for (i, w) in raw.windows(4).enumerate() {
        if w == b"PK\x03\x04" {
            let version = u16::from_le_bytes([raw[i + 4], raw[i + 5]]);
            assert!(version <= 20, "version needed to extract {version}");
        }
    }

    let xml = String::from_utf8(contents["modelDescription.xml"].clone()).unwrap();
    assert!(xml.contains("fmiVersion=\"2.0\""));
    assert!(xml.contains("modelIdentifier=\"naya_rod\""));
    assert!(
        xml.contains("generationDateAndTime=\"2023-11-14T22:13:20Z\""),
        "SOURCE_DATE_EPOCH ignored"
    );
    // The equilibrium command of seed 002 eq 32 (κ0 ≈ 0.4646082) is the input's start.
    let start = xml
        .split("name=\"valve.command\"")
        .nth(1)
        .unwrap()
        .split("start=\"")
        .nth(1)
        .unwrap();
    let kappa0: f64 = start.split('"').next().unwrap().parse().unwrap();
    assert!((kappa0 - 0.4646082).abs() < 1e-6, "κ0 = {kappa0}");

    // The binary is the generic runtime (an ELF shared library exporting every FMI
    // function); the model is the file in resources/, with the XML's GUID.
    let so = &contents["binaries/linux64/naya_rod.so"];
    assert_eq!(&so[..4], b"\x7fELF");
    for f in fmu_runtime::fmi2::EXPORTED_FUNCTIONS {
        assert!(contains(so, f.as_bytes()), "{f} is not in the binary");
    }
    let runtime = model_compiler::emit::runtime::select(&["linux64".into()]).unwrap();
    assert!(
        so == runtime[0].bytes,
        "the binary is not the embedded runtime"
    );
    let guid = xml
        .split("guid=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let model_file = &contents["resources/hydromech-model.bin"];
    let compiled = fmu_runtime::model::file::decode(model_file, guid).unwrap();
    assert_eq!(compiled.model_identifier, "naya_rod");
    assert!(fmu_runtime::model::file::decode(model_file, "{x}").is_err());

    let html = String::from_utf8(contents["documentation/index.html"].clone()).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>")
            && html.contains("naya-rod")
            && html.contains("valve.command")
    );
    // The platforms section states the glibc the Linux binaries were linked for
    // (tests/python/test_glibc_baseline.py reads the binaries themselves).
    let baseline = env!("HYDROMECH_GLIBC_BASELINE");
    assert!(html.contains("<h2>Platforms and loading</h2>"), "{html}");
    assert!(
        html.contains("<img src=\"../model.png\""),
        "the page shows the icon"
    );
    if baseline.is_empty() {
        assert!(html.contains("linked against the glibc of the machine that built hydromech"));
    } else {
        assert!(html.contains(&format!("need glibc {baseline} or newer")));
    }
    assert!(html.contains("64 instances of 8 FMUs on 2 threads"));

    // A second build of unchanged content gives the same GUID (content hash).
    let again = Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .arg("build")
        .arg(&model)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(again.status.success());
    let mut zip = zip::ZipArchive::new(File::open(&fmu).unwrap()).unwrap();
    let mut xml2 = String::new();
    zip.by_name("modelDescription.xml")
        .unwrap()
        .read_to_string(&mut xml2)
        .unwrap();
    assert!(xml2.contains(&format!("guid=\"{guid}\"")));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn errors_have_positions_help_and_exit_code_1() {
    let dir = temp_dir("errors");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[model]\nname = \"x\"\n\n[[bodies]]\nname = \"arm\"\nparent = \"grond\"\njoint = { type = \"revolute\", axis = [0, 0, 1] }\nparts = [{ shape = \"point\", mass = \"1 kg\", at = [1, 0, 0] }]\n").unwrap();
    for command in ["check", "build"] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hydromech"));
        cmd.arg(command).arg(&bad);
        if command == "build" {
            cmd.arg("-o").arg(&dir);
        }
        let run = cmd.output().unwrap();
        assert_eq!(run.status.code(), Some(1), "{command}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        let expected = format!("{}:6:10: error: unknown body 'grond'", bad.display());
        assert!(stderr.contains(&expected), "{command}: {stderr}");
        assert!(stderr.contains("help: did you mean 'ground'?"), "{stderr}");
    }
    // Garbage never panics.
    for text in [
        "",
        "[model",
        "model = 3",
        "[model]\nname = 1",
        "\u{0}\u{1}",
        "[[bodies]]\n[[bodies]]\n",
    ] {
        std::fs::write(&bad, text).unwrap();
        let run = Command::new(env!("CARGO_BIN_EXE_hydromech"))
            .arg("check")
            .arg(&bad)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(1), "{text:?}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            stderr.contains("error:") && stderr.contains("help:") && !stderr.contains("panicked"),
            "{text:?}: {stderr}"
        );
    }
    // A missing file.
    let run = Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .arg("check")
        .arg(dir.join("none.toml"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A unit slip (issue 48, item 1): `check` and `build` warn where the value is written,
/// with the unit meant, and succeed; under `--deny-warnings` both fail (exit 1) and
/// `build` writes no FMU.
#[test]
fn implausible_values_are_warned_and_denied_on_request() {
    let dir = temp_dir("deny-warnings");
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/descriptions");
    let slip = dir.join("slip.toml");
    std::fs::copy(corpus.join("unit-bare-bore.toml"), &slip).unwrap();
    let expected = format!(
        "{}:50:8: warning: bore = 140 is read as 140 m, implausible for a cylinder bore (5 mm … 1 m)",
        slip.display()
    );
    for deny in [false, true] {
        for command in ["check", "build"] {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_hydromech"));
            cmd.arg(command).arg(&slip);
            if command == "build" {
                cmd.arg("-o").arg(&dir).arg("--platform").arg("linux64");
            }
            if deny {
                cmd.arg("--deny-warnings");
            }
            let run = cmd.output().unwrap();
            let stderr = String::from_utf8_lossy(&run.stderr);
            let fmu = dir.join("slip.fmu");
            if deny {
                assert_eq!(run.status.code(), Some(1), "{command}: {stderr}");
                let as_error = expected.replace(": warning: ", ": error: ");
                assert!(stderr.contains(&as_error), "{command}: {stderr}");
                assert!(
                    stderr.contains("(an error under --deny-warnings)"),
                    "{stderr}"
                );
                assert!(stderr.contains("slip.toml: 1 error"), "{stderr}");
                assert!(!fmu.exists(), "{command}: an FMU was written");
            } else {
                assert_eq!(run.status.code(), Some(0), "{command}: {stderr}");
                assert!(stderr.contains(&expected), "{command}: {stderr}");
                assert!(
                    stderr.contains("help: did you mean \"140 mm\"?"),
                    "{stderr}"
                );
                if command == "build" {
                    assert!(fmu.exists());
                    std::fs::remove_file(&fmu).unwrap();
                }
            }
        }
    }
    // With a [report] input from a missing file too: the error and the warning in one run
    // (issue 48, item 7), in file order.
    let text = std::fs::read_to_string(&slip).unwrap();
    std::fs::write(
        &slip,
        format!("{text}\n[[interface.inputs]]\nname = \"dcv.command\"\ntarget = \"dcv.command\"\n\n[report]\ninputs.\"dcv.command\" = {{ csv = \"missing.csv\", column = \"u\" }}\n"),
    )
    .unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .arg("check")
        .arg(&slip)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    let (warning, error) = (stderr.find(&expected), stderr.find("error: cannot read"));
    assert!(
        warning.is_some() && error.is_some() && warning < error,
        "{stderr}"
    );
    assert!(stderr.contains("slip.toml: 1 error, 1 warning"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// No compiler at FMU build time: every model of models/ builds with an empty PATH (no
/// cargo, no cc) from a directory outside the source tree.
#[test]
fn builds_every_model_without_cargo_on_path() {
    let out = temp_dir("no-cargo");
    let empty = out.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .arg("build")
        .arg("-o")
        .arg(&out)
        .current_dir(workspace())
        .env("PATH", &empty)
        .env_remove("CARGO")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let models = count_files(&workspace().join("models"), "toml");
    let fmus = count_files(&out, "fmu");
    assert_eq!(fmus, models);
    let _ = std::fs::remove_dir_all(&out);
}

/// A platform this hydromech does not carry is an error naming it, never an FMU without it.
#[test]
fn a_missing_platform_is_an_error_not_a_silent_linux_only_fmu() {
    let out = temp_dir("platform");
    let model = workspace().join("models").join("naya-rod.toml");
    let run = Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .args(["build", "--platform", "linux64,win32"])
        .arg(&model)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("platform 'win32'"), "{stderr}");
    assert!(!out.join("naya-rod.fmu").exists());
    let version = Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(version.contains("FMU runtime for: linux64"), "{version}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn check_accepts_the_reference_models() {
    let models = workspace().join("models");
    let run = Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .arg("check")
        .arg(models.join("naya-rod.toml"))
        .arg(models.join("jaiswal-fourbar.toml"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains(
            "naya-rod.toml: ok (1 bodies, 1 coordinates, 0 constraints, 2 pressures, 1 DOF"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "jaiswal-fourbar.toml: ok (3 bodies, 3 coordinates, 5 constraints, 3 pressures, 1 DOF"
        ),
        "{stdout}"
    );
    // The details: degrees of freedom, tree, circuit, interface; the redundant loop
    // equations of the planar four-bar are a warning on stderr.
    assert!(
        stdout.contains("degrees of freedom: 1 = 3 coordinates − 2 independent loop-closure equations (3 of 5 redundant)"),
        "{stdout}"
    );
    assert!(stdout.contains("    └─ rod  (revolute pivot"), "{stdout}");
    assert!(
        stdout.contains("    valve valve: P pump, T tank, A chamber_a, B chamber_b"),
        "{stdout}"
    );
    assert!(stdout.contains("    input     valve.command"), "{stdout}");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("warning: 3 of the 5 loop-closure equations are redundant"),
        "{stderr}"
    );
}

/// `hydromech check x.toml | head -1`: a reader that closes the pipe early ends hydromech
/// by SIGPIPE, like any Unix filter, never with a panic ("failed printing to stdout").
#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::os::fd::FromRawFd;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let model = workspace().join("models").join("excavator.toml");
    for args in [vec!["check", model.to_str().unwrap()], vec!["schema"]] {
        // A pipe whose reader is already gone: the first line written meets it closed.
        let mut fds = [0; 2];
        // SAFETY: a fresh pipe; the read end is closed and the write end handed to the child.
        let stdout = unsafe {
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            libc::close(fds[0]);
            Stdio::from_raw_fd(fds[1])
        };
        let out = Command::new(env!("CARGO_BIN_EXE_hydromech"))
            .args(&args)
            .stdout(stdout)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(
            out.status.signal(),
            Some(libc::SIGPIPE),
            "{args:?}: {:?} {stderr}",
            out.status
        );
    }
}

/// `hydromech check` names every parameter slot (what `target` can name, with default and
/// unit, `*` for those in the interface) and lists rotary motors in the circuit.
#[test]
fn check_lists_every_slot_and_the_motors() {
    let run = |model: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_hydromech"))
            .arg("check")
            .arg(workspace().join("models").join(model))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let rod = run("naya-rod.toml");
    assert!(rod.contains("  parameter slots (28; "), "{rod}");
    let slot_lines: Vec<&str> = rod
        .lines()
        .skip_while(|l| !l.starts_with("  parameter slots"))
        .skip(1)
        .collect();
    assert_eq!(slot_lines.len(), 28, "{rod}");
    assert!(
        slot_lines
            .iter()
            .any(|l| l.starts_with("   *valve.command ") && l.ends_with("[signal]"))
    );
    assert!(
        slot_lines
            .iter()
            .any(|l| l.starts_with("    cylinder.cap_area ") && l.contains("0.0065 [m2]"))
    );
    assert!(
        slot_lines
            .iter()
            .any(|l| l.contains("oil.bulk_modulus.a") && l.contains("6.53e-10 [1/Pa]"))
    );
    assert!(
        slot_lines
            .iter()
            .any(|l| l.starts_with("    oil.vapour_pressure ") && l.contains("1000 [Pa]"))
    );
    // Bodies counted as the report counts them: the declared ones, the generated links apart.
    let crane = run("hydraulic-crane.toml");
    assert!(
        crane.contains(
            ": ok (2 bodies (+2 massless links of spherical/universal joints), 4 coordinates,"
        ),
        "{crane}"
    );
    let excavator = run("excavator.toml");
    assert!(
        excavator.contains("    motor swing_motor: A swing_a, B swing_b, on joint swing\n"),
        "{excavator}"
    );
}

//! Every shipped FMU gives bit-identical results on linux64, win64 (under wine) and ARM64
//! Linux (under qemu-aarch64), and a state serialized on one platform restores on another
//! (issue 13); so do the test machines of `tests/machines/` (meshes touching each other).
//!
//! A portable C master (`model-compiler/driver/fmu_driver.c`), compiled natively and cross-compiled
//! with mingw and aarch64-gcc, runs each model's standard manoeuvre (its `[report]` table:
//! inputs at every communication point, parameters) and writes every output as its bit
//! pattern; the files are compared byte for byte. Half-way it serializes the FMU state; each
//! platform then restores the state another one wrote and must continue bit for bit. The
//! same plan runs through the `fmi3*` functions too and must give the FMI 2.0 results.
//!
//! Needs the win64 and aarch64-linux runtimes in this hydromech, wine, qemu-user and the
//! cross C compilers (tests/run.sh installs them and sets `HYDROMECH_CROSS_REQUIRED=1`, so
//! that there their absence fails the test; elsewhere it is reported and skipped).
//!
//! `HYDROMECH_COMPARE_FMUS=<dir>` also runs the FMUs of that directory (e.g. built by an
//! older hydromech) on linux64 with the same plans and prints the largest change of each
//! model's outputs: how reference results moved.

mod common;

use common::{temp_dir, workspace};
use fmu_runtime::model::{Causality, VarType};
use model_compiler::diagnostic::Source;
use model_compiler::emit::runtime;
use model_compiler::report;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How one platform runs the driver.
struct Platform {
    name: &'static str,
    driver: PathBuf,
    /// Runs `driver plan output` (with wine or qemu in front where needed).
    launcher: Vec<String>,
    /// The binary's path and the resources URI, as the driver on that platform sees them.
    windows_paths: bool,
}

impl Platform {
    fn path(&self, p: &Path) -> String {
        if self.windows_paths {
            format!("Z:{}", p.display()).replace('/', "\\")
        } else {
            p.display().to_string()
        }
    }

    fn uri(&self, p: &Path) -> String {
        if self.windows_paths {
            format!("file:///Z:{}", p.display())
        } else {
            format!("file://{}", p.display())
        }
    }

    /// Runs the driver; returns (exit code, stderr).
    fn run(&self, plan: &Path, output: &Path) -> (i32, String) {
        self.run_with(plan, output, &[])
    }

    /// [`Platform::run`] with extra driver arguments (`fmi3`).
    fn run_with(&self, plan: &Path, output: &Path, extra: &[&str]) -> (i32, String) {
        let mut command = Command::new(&self.launcher[0]);
        command.args(&self.launcher[1..]);
        command
            .arg(&self.driver)
            .arg(self.path(plan))
            .arg(self.path(output))
            .args(extra);
        command.env("WINEDEBUG", "-all");
        let out = command
            .output()
            .unwrap_or_else(|e| panic!("{}: cannot run {:?}: {e}", self.name, self.launcher));
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

fn tool(name: &str) -> bool {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|d| d.join(name).is_file())
}

fn compile_c(compiler: &str, args: &[&str], out: &Path) {
    let run = Command::new(compiler)
        .args(["-O2", "-Wall", "-Werror", "-o"])
        .arg(out)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    assert!(
        run.status.success(),
        "{compiler} failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// The platforms to compare, or why they cannot be run here.
fn platforms(dir: &Path) -> Result<Vec<Platform>, String> {
    let mut missing = Vec::new();
    for p in ["win64", "aarch64-linux"] {
        if runtime::binary(p).is_none() {
            missing.push(format!("the {p} runtime (hydromech --version)"));
        }
    }
    for t in [
        "cc",
        "x86_64-w64-mingw32-gcc",
        "aarch64-linux-gnu-gcc",
        "wine",
        "qemu-aarch64",
    ] {
        if !tool(t) {
            missing.push(t.to_string());
        }
    }
    if !missing.is_empty() {
        return Err(missing.join(", "));
    }
    let source = workspace().join("model-compiler/driver/fmu_driver.c");
    let source = source.to_str().unwrap();
    let linux = dir.join("driver-linux64");
    compile_c(
        "cc",
        &["-std=c99", "-D_POSIX_C_SOURCE=200809L", source, "-ldl"],
        &linux,
    );
    let arm = dir.join("driver-aarch64");
    compile_c(
        "aarch64-linux-gnu-gcc",
        &["-std=c99", "-D_POSIX_C_SOURCE=200809L", source, "-ldl"],
        &arm,
    );
    let exe = dir.join("driver.exe");
    compile_c("x86_64-w64-mingw32-gcc", &["-std=c99", source], &exe);
    let shim = workspace().join("model-compiler/driver/bcryptprimitives_shim.c");
    compile_c(
        "x86_64-w64-mingw32-gcc",
        &["-shared", shim.to_str().unwrap(), "-ladvapi32"],
        &dir.join("bcryptprimitives.dll"),
    );
    Ok(vec![
        Platform {
            name: "linux64",
            driver: linux.clone(),
            launcher: vec!["env".into()],
            windows_paths: false,
        },
        Platform {
            name: "win64",
            driver: exe,
            launcher: vec!["wine".into()],
            windows_paths: true,
        },
        Platform {
            name: "aarch64-linux",
            driver: arm,
            launcher: vec![
                "qemu-aarch64".into(),
                "-L".into(),
                "/usr/aarch64-linux-gnu".into(),
            ],
            windows_paths: false,
        },
    ])
}

fn hex(x: f64) -> String {
    format!("{:016x}", x.to_bits())
}

/// One model, built and extracted, with its plan ingredients.
#[derive(Clone)]
struct Case {
    stem: String,
    root: PathBuf,
    guid: String,
    identifier: String,
    steps: usize,
    head: String,
    values: String,
    outputs: Vec<String>,
}

impl Case {
    fn new(path: &Path, dir: &Path) -> Case {
        let text = std::fs::read_to_string(path).unwrap();
        let source = Source::new(path, text);
        let l = model_compiler::compile(&source).unwrap_or_else(|e| panic!("{e:?}"));
        let spec = &l.report;
        let loaded = report::load(spec, path).unwrap_or_else(|e| panic!("{e:?}"));
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let root = dir.join(&stem);
        let fmu = model_compiler::build(&source, dir).unwrap_or_else(|e| panic!("{e:?}"));
        extract(&fmu, &root);
        let m = &l.model;
        let arm = runtime::binary("aarch64-linux").unwrap();
        let arm_dir = root.join("binaries/aarch64-linux");
        std::fs::create_dir_all(&arm_dir).unwrap();
        std::fs::write(
            arm_dir.join(format!("{}.so", m.model_identifier)),
            arm.bytes,
        )
        .unwrap();

        let vr = |name: &str| {
            m.variables
                .iter()
                .find(|v| v.name == name)
                .unwrap_or_else(|| panic!("{stem}: no variable {name}"))
                .value_reference
        };
        let steps = ((spec.stop_time - spec.start_time) / spec.step).round() as usize;
        let mut head = format!(
            "experiment {} {} {steps}\nset {}",
            hex(spec.start_time),
            hex(spec.step),
            spec.parameters.len()
        );
        for (name, value) in &spec.parameters {
            head += &format!(" {} {}", vr(name), hex(*value));
        }
        let series: Vec<_> = loaded.inputs.iter().collect();
        head += &format!("\ninputs {}", series.len());
        for s in &series {
            head += &format!(" {}", vr(&s.names[0]));
        }
        let outputs: Vec<_> = m
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Output && v.var_type == VarType::Real)
            .collect();
        head += &format!("\noutputs {}", outputs.len());
        for v in &outputs {
            head += &format!(" {}", v.value_reference);
        }
        let mut values = String::new();
        for k in 0..steps {
            let t = spec.start_time + k as f64 * spec.step;
            for s in &series {
                // As `hydromech simulate` and the report run it: linear, held outside.
                values += &hex(s.at(t)[0]);
                values.push(' ');
            }
            values.push('\n');
        }
        Case {
            stem,
            root,
            guid: m.guid.clone(),
            identifier: m.model_identifier.clone(),
            steps,
            head,
            values,
            outputs: outputs.iter().map(|v| v.name.clone()).collect(),
        }
    }

    /// Writes the plan for `platform` and returns its path.
    fn plan(&self, p: &Platform, save: Option<&Path>, restore: Option<&Path>) -> PathBuf {
        self.plan_with(p, &p.uri(&self.root.join("resources")), save, restore)
    }

    /// [`Case::plan`] with the given `fmuResourceLocation` (`NULL` for a null pointer).
    fn plan_with(
        &self,
        p: &Platform,
        resources: &str,
        save: Option<&Path>,
        restore: Option<&Path>,
    ) -> PathBuf {
        let (folder, ext) = match p.name {
            "win64" => ("win64", "dll"),
            "aarch64-linux" => ("aarch64-linux", "so"),
            _ => ("linux64", "so"),
        };
        let binary = self
            .root
            .join(format!("binaries/{folder}/{}.{ext}", self.identifier));
        let half = self.steps / 2;
        let none = self.root.join("none");
        let text = format!(
            "binary {}\nresources {}\nguid {}\n{}\nsave {} {}\nrestore {} {}\nvalues\n{}",
            p.path(&binary),
            resources,
            self.guid,
            self.head,
            if save.is_some() { half as i64 } else { -1 },
            p.path(save.unwrap_or(&none)),
            if restore.is_some() { half as i64 } else { -1 },
            p.path(restore.unwrap_or(&none)),
            self.values
        );
        let plan = self.root.join(format!(
            "plan-{}-{}.txt",
            p.name,
            if restore.is_some() { "restore" } else { "run" }
        ));
        std::fs::write(&plan, text).unwrap();
        plan
    }
}

fn extract(fmu: &Path, to: &Path) {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(fmu).unwrap()).unwrap();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let path = to.join(f.name());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut data = Vec::new();
        f.read_to_end(&mut data).unwrap();
        std::fs::write(path, data).unwrap();
    }
}

/// The first differing output of two result files: (row, output index).
fn first_difference(a: &str, b: &str) -> Option<(usize, usize)> {
    for (row, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            let col = x
                .split(' ')
                .zip(y.split(' '))
                .position(|(p, q)| p != q)
                .unwrap_or(0);
            return Some((row, col.saturating_sub(1)));
        }
    }
    (a.lines().count() != b.lines().count())
        .then_some((a.lines().count().min(b.lines().count()), 0))
}

/// The shipped models, and the test machines of `tests/machines/` that exercise what no
/// shipped model has (meshes touching each other).
fn models() -> Vec<PathBuf> {
    let toml_in = |dir: PathBuf| {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        found.sort();
        found
    };
    let mut models = toml_in(workspace().join("models"));
    models.extend(toml_in(workspace().join("model-compiler/tests/machines")));
    models
}

#[test]
fn every_fmu_is_bit_identical_on_linux64_win64_and_arm64() {
    let dir = temp_dir("cross");
    let platforms = match platforms(&dir) {
        Ok(p) => p,
        Err(missing) => {
            assert!(
                std::env::var_os("HYDROMECH_CROSS_REQUIRED").is_none(),
                "cannot run the cross-platform comparison; missing: {missing}"
            );
            eprintln!("skipped: missing {missing} (tests/run.sh installs them)");
            return;
        }
    };
    let mut report = Vec::new();
    for model in models() {
        let case = Case::new(&model, &dir);
        let started = std::time::Instant::now();
        let mut results = Vec::new();
        for p in &platforms {
            let state = case.root.join(format!("state-{}.bin", p.name));
            let out = case.root.join(format!("out-{}.txt", p.name));
            let (code, stderr) = p.run(&case.plan(p, Some(&state), None), &out);
            assert_eq!(code, 0, "{} on {}: {stderr}", case.stem, p.name);
            let text = std::fs::read_to_string(&out).unwrap();
            assert_eq!(text.lines().count(), case.steps + 1, "{}", case.stem);
            results.push((text, std::fs::read(&state).unwrap()));
        }
        let (linux, linux_state) = &results[0];
        // The same plan through the fmi3* functions (resourcePath a file path): the FMI 2.0
        // results on linux64, bit for bit, on every platform.
        for p in &platforms {
            let separator = if p.windows_paths { "\\" } else { "/" };
            let resources = format!("{}{separator}", p.path(&case.root.join("resources")));
            let plan = case.plan_with(p, &resources, None, None);
            let out = case.root.join(format!("out3-{}.txt", p.name));
            let (code, stderr) = p.run_with(&plan, &out, &["fmi3"]);
            assert_eq!(
                code, 0,
                "{} through FMI 3.0 on {}: {stderr}",
                case.stem, p.name
            );
            let text = std::fs::read_to_string(&out).unwrap();
            if let Some((row, col)) = first_difference(linux, &text) {
                panic!(
                    "{}: FMI 3.0 on {} differs from FMI 2.0 on linux64 at step {row} in {}",
                    case.stem, p.name, case.outputs[col]
                );
            }
        }
        for (p, (text, state)) in platforms.iter().zip(&results).skip(1) {
            if let Some((row, col)) = first_difference(linux, text) {
                panic!(
                    "{}: {} differs from linux64 at step {row} in {}",
                    case.stem, p.name, case.outputs[col]
                );
            }
            assert!(
                state == linux_state,
                "{}: the state serialized on {} differs from linux64's",
                case.stem,
                p.name
            );
        }
        // Cross-platform restore: each platform continues from the state the next wrote.
        let half = case.steps / 2;
        let tail: Vec<&str> = linux.lines().skip(half).collect();
        for (i, p) in platforms.iter().enumerate() {
            let from = &platforms[(i + 1) % platforms.len()];
            let state = case.root.join(format!("state-{}.bin", from.name));
            let out = case.root.join(format!("restored-{}.txt", p.name));
            let (code, stderr) = p.run(&case.plan(p, None, Some(&state)), &out);
            assert_eq!(
                code, 0,
                "{}: {} restoring {}'s state: {stderr}",
                case.stem, p.name, from.name
            );
            let text = std::fs::read_to_string(&out).unwrap();
            let got: Vec<&str> = text.lines().collect();
            assert!(
                got == tail,
                "{}: {} restoring {}'s state does not continue bit for bit",
                case.stem,
                p.name,
                from.name
            );
        }
        report.push(format!(
            "{}: {} steps x {} outputs, bit-identical on {} through FMI 2.0 and 3.0; state {} bytes restores across platforms ({:.1} s)",
            case.stem,
            case.steps,
            case.outputs.len(),
            platforms.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
            linux_state.len(),
            started.elapsed().as_secs_f64()
        ));
        if let Some(old) = std::env::var_os("HYDROMECH_COMPARE_FMUS") {
            report.push(compare_with(&case, &platforms[0], Path::new(&old), linux));
        }
    }
    eprintln!("{}", report.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `<old>/<stem>.fmu` on linux64 with the same plan; the largest change of each output
/// relative to its range over the run.
fn compare_with(case: &Case, linux: &Platform, old: &Path, new: &str) -> String {
    let fmu = old.join(format!("{}.fmu", case.stem));
    let root = case.root.with_extension("old");
    extract(&fmu, &root);
    let old_case = Case {
        root: root.clone(),
        ..case.clone()
    };
    let out = root.join("out.txt");
    let (code, stderr) = linux.run(&old_case.plan(linux, None, None), &out);
    if code != 0 {
        return format!("{}: the old FMU did not run: {stderr}", case.stem);
    }
    let parse = |text: &str| -> Vec<Vec<f64>> {
        text.lines()
            .map(|l| {
                l.split(' ')
                    .skip(1)
                    .map(|h| f64::from_bits(u64::from_str_radix(h, 16).unwrap()))
                    .collect()
            })
            .collect()
    };
    let (a, b) = (parse(&std::fs::read_to_string(&out).unwrap()), parse(new));
    // Physical outputs relative to their range over the run; the solver's round-off
    // diagnostics (constraint norms, energy balance error) in absolute terms.
    let diagnostic =
        |name: &str| name.starts_with("constraints.") || name == "energy.balance_error";
    let mut worst = (0.0f64, String::new());
    let mut worst_diagnostic = (0.0f64, String::new());
    for j in 0..case.outputs.len() {
        let column: Vec<f64> = b.iter().map(|r| r[j]).collect();
        let range = column.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
            - column.iter().cloned().fold(f64::INFINITY, f64::min);
        let scale = range
            .max(column.iter().map(|x| x.abs()).fold(0.0, f64::max) * 1e-3)
            .max(1e-300);
        for (ra, rb) in a.iter().zip(&b) {
            let d = (ra[j] - rb[j]).abs();
            let name = &case.outputs[j];
            if diagnostic(name) {
                if d > worst_diagnostic.0 {
                    worst_diagnostic = (d, name.clone());
                }
            } else if d / scale > worst.0 {
                worst = (d / scale, name.clone());
            }
        }
    }
    format!(
        "{}: largest change against {}: {:.2e} of the output's range ({}); diagnostics {:.2e} absolute ({})",
        case.stem,
        fmu.display(),
        worst.0,
        worst.1,
        worst_diagnostic.0,
        worst_diagnostic.1
    )
}

/// The win64 DLL imports only Windows system DLLs (no libgcc_s, libwinpthread, msvcr1xx
/// redistributables) and exports the 44 `fmi2*` and 75 `fmi3*` functions and nothing else;
/// the ARM64 library exports the same 119 functions.
#[test]
fn binaries_import_only_system_libraries_and_export_only_fmi_functions() {
    let (Some(dll), Some(arm)) = (runtime::binary("win64"), runtime::binary("aarch64-linux"))
    else {
        assert!(std::env::var_os("HYDROMECH_CROSS_REQUIRED").is_none());
        eprintln!("skipped: this hydromech carries no win64/aarch64-linux runtime");
        return;
    };
    let dir = temp_dir("cross-imports");
    let dll_path = dir.join("runtime.dll");
    std::fs::write(&dll_path, dll.bytes).unwrap();
    let dump = Command::new("x86_64-w64-mingw32-objdump")
        .arg("-p")
        .arg(&dll_path)
        .output()
        .expect("x86_64-w64-mingw32-objdump (binutils-mingw-w64-x86-64)");
    let dump = String::from_utf8_lossy(&dump.stdout);
    let imports: Vec<&str> = dump
        .lines()
        .filter_map(|l| l.trim().strip_prefix("DLL Name: "))
        .collect();
    const SYSTEM: &[&str] = &[
        "kernel32.dll",
        "msvcrt.dll",
        "ntdll.dll",
        "userenv.dll",
        "ws2_32.dll",
        "advapi32.dll",
        "bcrypt.dll",
        "bcryptprimitives.dll",
        "api-ms-win-core-synch-l1-2-0.dll",
    ];
    assert!(!imports.is_empty(), "no import table found:\n{dump}");
    for i in &imports {
        assert!(
            SYSTEM.contains(&i.to_ascii_lowercase().as_str()),
            "the win64 runtime imports {i}, which is not a Windows system DLL"
        );
    }
    // The export table: "[   n] fmi2DoStep" lines after "[Ordinal/Name Pointer] Table".
    let table = dump
        .split("[Ordinal/Name Pointer] Table")
        .nth(1)
        .expect("an export table");
    let exports: Vec<&str> = table
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    let mut expected: Vec<&str> = fmu_runtime::fmi2::EXPORTED_FUNCTIONS.to_vec();
    expected.extend(fmu_runtime::fmi3::EXPORTED_FUNCTIONS);
    let mut got = exports.clone();
    expected.sort();
    got.sort();
    assert_eq!(got, expected, "win64 exports");

    let so_path = dir.join("runtime-arm64.so");
    std::fs::write(&so_path, arm.bytes).unwrap();
    let nm = Command::new("aarch64-linux-gnu-nm")
        .args(["-D", "--defined-only"])
        .arg(&so_path)
        .output()
        .expect("aarch64-linux-gnu-nm (binutils-aarch64-linux-gnu)");
    let nm = String::from_utf8_lossy(&nm.stdout);
    let mut functions: Vec<&str> = nm
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("T"))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    functions.sort();
    assert_eq!(functions, expected, "aarch64-linux exported functions");
    eprintln!(
        "win64 imports: {}; 44 fmi2 and 75 fmi3 exports on win64 and aarch64-linux",
        imports.join(", ")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A missing, corrupted or foreign model file: NULL from fmi2Instantiate with the reason
/// logged, no crash, on every platform.
#[test]
fn bad_model_files_are_refused_on_every_platform() {
    let dir = temp_dir("cross-bad");
    let Ok(platforms) = platforms(&dir) else {
        assert!(std::env::var_os("HYDROMECH_CROSS_REQUIRED").is_none());
        eprintln!("skipped: cross toolchains missing");
        return;
    };
    let case = Case::new(&workspace().join("models/naya-rod.toml"), &dir);
    // Masters that pass NULL or a wrong location: the binary finds resources/ beside
    // itself (dladdr on Linux, GetModuleHandleExW under Windows).
    for p in &platforms {
        for location in ["NULL", "file:///nonexistent/resources"] {
            let out = case.root.join("out.txt");
            let (code, stderr) = p.run(&case.plan_with(p, location, None, None), &out);
            assert_eq!(
                code, 0,
                "{} with fmuResourceLocation {location}: {stderr}",
                p.name
            );
        }
    }
    let file = case.root.join("resources/hydromech-model.bin");
    let good = std::fs::read(&file).unwrap();
    let mut corrupted = good.clone();
    let n = corrupted.len();
    corrupted[n / 2] ^= 1;
    let mut foreign = case;
    foreign.guid = "{00000000-0000-0000-0000-000000000000}".into();
    for (bytes, why) in [
        (None, "hydromech-model.bin was not found"),
        (Some(corrupted), "is corrupted"),
        (Some(good.clone()), "belongs to the model with GUID"),
    ] {
        match &bytes {
            None => std::fs::remove_file(&file).unwrap(),
            Some(b) => std::fs::write(&file, b).unwrap(),
        }
        for p in &platforms {
            let out = foreign.root.join("out.txt");
            let (code, stderr) = p.run(&foreign.plan(p, None, None), &out);
            assert_eq!(
                code, 3,
                "{}: expected NULL from fmi2Instantiate ({why}): {stderr}",
                p.name
            );
            assert!(
                stderr.contains(why),
                "{}: '{why}' not logged: {stderr}",
                p.name
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

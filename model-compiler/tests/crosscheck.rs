//! `hydromech package` and `hydromech verify` end to end: the tree of the FMI Cross-Check,
//! a bit-for-bit re-run of the reference through the FMU's C ABI, and a verdict naming the
//! file and line for every kind of bad package (issue 23).

mod common;

use common::{temp_dir, workspace};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hydromech(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hydromech"))
        .args(args)
        .current_dir(workspace())
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Packages `models/<name>.toml` (linux64 only) into a fresh directory; the model folder.
fn package(name: &str, tag: &str) -> PathBuf {
    package_for(name, tag, "linux64")
}

/// Packages `models/<name>.toml` for `platforms` (`linux64,win64`); the linux64 model folder.
fn package_for(name: &str, tag: &str, platforms: &str) -> PathBuf {
    let root = temp_dir(tag);
    let model = workspace().join("models").join(format!("{name}.toml"));
    let o = hydromech(&[
        "package",
        model.to_str().unwrap(),
        "-o",
        root.to_str().unwrap(),
        "--platform",
        platforms,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let dir = root
        .join("fmus/2.0/cs/linux64/hydromech")
        .join(env!("CARGO_PKG_VERSION"))
        .join(name);
    for f in [".fmu", "_in.csv", "_ref.csv", "_ref.opt"] {
        assert!(
            dir.join(format!("{name}{f}")).is_file(),
            "{name}{f} missing"
        );
    }
    assert!(dir.join("README.md").is_file());
    // The tree's index lists the model with its platforms.
    let index = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        index.contains(&format!(
            "| {name} | {} | {} |",
            env!("CARGO_PKG_VERSION"),
            platforms.replace(',', ", ")
        )),
        "{index}"
    );
    dir
}

fn verify(path: &Path, exact: bool) -> (bool, String) {
    let mut args = vec!["verify", path.to_str().unwrap()];
    if exact {
        args.push("--exact");
    }
    let o = hydromech(&args);
    (o.status.success(), text(&o))
}

fn edit(path: &Path, f: impl FnOnce(String) -> String) {
    let s = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, f(s)).unwrap();
}

#[test]
fn the_naya_rod_package_reproduces_its_reference_bit_for_bit() {
    let dir = package("naya-rod", "xc-rod");
    let opt = std::fs::read_to_string(dir.join("naya-rod_ref.opt")).unwrap();
    // The rod's default step (10 ms) already gives 1000 steps over 10 s: FMPy keeps it.
    assert_eq!(
        opt,
        "StartTime, 0.0\nStopTime, 10.0\nStepSize, 0.01\nRelTol, 0.0001\n"
    );
    let reference = std::fs::read_to_string(dir.join("naya-rod_ref.csv")).unwrap();
    let header = reference.lines().next().unwrap();
    assert_eq!(
        header,
        "\"time\",\"rod.angle\",\"cylinder.p_a\",\"cylinder.p_b\",\"cylinder.length\",\"cylinder.speed\""
    );
    assert_eq!(reference.lines().count(), 1 + 1001);
    // The spool steps of eq. 38 (t = 2 s and 6 s) are two rows each in _in.csv.
    let inputs = std::fs::read_to_string(dir.join("naya-rod_in.csv")).unwrap();
    assert_eq!(inputs.lines().filter(|l| l.starts_with("2.0,")).count(), 2);
    assert_eq!(inputs.lines().filter(|l| l.starts_with("6.0,")).count(), 2);

    let (ok, out) = verify(&dir, true);
    assert!(ok, "{out}");
    assert_eq!(out.matches("bit-identical").count(), 5, "{out}");
    // Each number says which comparison it belongs to (issue 48, item 4).
    let line = out.lines().find(|l| l.contains("rod.angle")).unwrap();
    assert!(
        line.contains("tube:   0.0 % of ")
            && line.contains(" points outside (0 of them; passes below 10 %)")
            && line.contains("|  values against naya-rod_ref.csv: max |Δ| 0, bit-identical"),
        "{line}"
    );
    assert!(out.contains("verify: 1 passed, 0 failed"), "{out}");
    // An .fmu path finds its files beside it.
    let (ok, out) = verify(&dir.join("naya-rod.fmu"), true);
    assert!(ok, "{out}");
}

#[test]
fn a_tampered_reference_fails_with_the_variable_time_and_line() {
    let dir = package("naya-rod", "xc-tamper");
    let file = dir.join("naya-rod_ref.csv");
    // Line 502 is t = 5 s: move the rod angle there and on the 199 rows after it by half its
    // range over the run: 20 % of the run far outside the tube (10 % of the range).
    let angles: Vec<f64> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    let range = angles.iter().cloned().fold(f64::MIN, f64::max)
        - angles.iter().cloned().fold(f64::MAX, f64::min);
    assert!(range > 0.01, "the rod moves: {range}");
    edit(&file, |s| {
        s.lines()
            .enumerate()
            .map(|(k, l)| {
                let mut cells: Vec<String> = l.split(',').map(String::from).collect();
                if (501..701).contains(&k) {
                    let v: f64 = cells[1].parse().unwrap();
                    cells[1] = format!("{:?}", v + 0.5 * range);
                }
                cells.join(",") + "\n"
            })
            .collect()
    });
    let (ok, out) = verify(&dir, false);
    assert!(!ok, "{out}");
    let line = out.lines().find(|l| l.contains("rod.angle")).unwrap();
    assert!(line.contains("FAIL"), "{line}");
    // The tube's window reaches 10 points back: the first point outside is just after 5 s.
    assert!(line.contains("first outside at t = 5.1"), "{line}");
    assert!(line.contains("(naya-rod_ref.csv line 51"), "{line}");
    assert!(
        line.contains(&format!("max |Δ| {:.3e}", 0.5 * range)),
        "{line}"
    );
    // The other outputs still pass.
    assert!(
        out.lines()
            .find(|l| l.contains("cylinder.p_a"))
            .unwrap()
            .contains("PASS")
    );
    assert!(out.contains("verify: 0 passed, 1 failed"), "{out}");

    // One value moved a little: inside the tube, but no longer bit for bit.
    let dir = package("naya-rod", "xc-tamper-small");
    let file = dir.join("naya-rod_ref.csv");
    edit(&file, |s| {
        let mut lines: Vec<String> = s.lines().map(String::from).collect();
        let mut cells: Vec<String> = lines[101].split(',').map(String::from).collect();
        let v: f64 = cells[3].parse().unwrap();
        cells[3] = format!("{:?}", v * (1.0 + 1e-12));
        lines[101] = cells.join(",");
        lines.join("\n") + "\n"
    });
    let (ok, out) = verify(&dir, false);
    assert!(ok, "{out}");
    let (ok, out) = verify(&dir, true);
    assert!(!ok, "{out}");
    assert!(out.contains("1 of 1001 values differ"), "{out}");
}

#[test]
fn bad_package_files_give_a_verdict_with_file_and_line() {
    let dir = package("naya-rod", "xc-bad");
    let in_csv = dir.join("naya-rod_in.csv");
    let ref_csv = dir.join("naya-rod_ref.csv");
    let opt = dir.join("naya-rod_ref.opt");
    let keep = |p: &Path| std::fs::read_to_string(p).unwrap();
    let (input, reference, options) = (keep(&in_csv), keep(&ref_csv), keep(&opt));
    let restore = || {
        std::fs::write(&in_csv, &input).unwrap();
        std::fs::write(&ref_csv, &reference).unwrap();
        std::fs::write(&opt, &options).unwrap();
    };
    let expect = |what: &str, needle: &str| {
        let (ok, out) = verify(&dir, false);
        assert!(!ok, "{what}: {out}");
        assert!(
            out.contains(needle),
            "{what}: expected `{needle}` in\n{out}"
        );
        assert!(!out.contains("panicked"), "{what}: {out}");
    };

    // An input column the FMU lacks.
    edit(&in_csv, |s| {
        s.replacen("\"valve.command\"", "\"valve.comand\"", 1)
    });
    expect(
        "unknown input",
        &format!(
            "{}:1: column 2: the FMU has no variable \"valve.comand\"; did you mean \"valve.command\"?",
            in_csv.display()
        ),
    );
    restore();
    // An output in the inputs.
    edit(&in_csv, |s| {
        s.replacen("\"valve.command\"", "\"rod.angle\"", 1)
    });
    expect("output as input", "\"rod.angle\" is a Real output variable");
    restore();
    // A reference time that goes back.
    edit(&ref_csv, |s| s.replacen("\n0.03,", "\n0.01,", 1));
    expect(
        "non-increasing time",
        &format!("{}:5: time 0.01 after 0.02 on line 4", ref_csv.display()),
    );
    restore();
    // Not a number.
    edit(&ref_csv, |s| s.replacen("\n0.03,", "\n0.03x,", 1));
    expect(
        "not a number",
        &format!("{}:5, column 1", ref_csv.display()),
    );
    restore();
    // A reference that stops early.
    edit(&ref_csv, |s| {
        s.lines().take(500).collect::<Vec<_>>().join("\n") + "\n"
    });
    expect("short reference", "ends at 4.98 s, before StopTime 10 s");
    restore();
    // A misspelt key, then a missing _ref.opt.
    edit(&opt, |s| s.replace("StepSize", "Stepsize"));
    expect(
        "bad key",
        &format!("{}:3: unknown key `Stepsize`", opt.display()),
    );
    std::fs::remove_file(&opt).unwrap();
    expect("missing opt", &format!("{}: missing", opt.display()));
    restore();
    // A missing _in.csv for an FMU with inputs.
    std::fs::remove_file(&in_csv).unwrap();
    expect(
        "missing inputs",
        "missing; the FMU has inputs (valve.command)",
    );
    restore();
    let (ok, out) = verify(&dir, true);
    assert!(ok, "restored: {out}");

    // Not an FMU, nothing there.
    let o = hydromech(&["verify", opt.to_str().unwrap()]);
    assert!(
        !o.status.success() && text(&o).contains("not an .fmu"),
        "{}",
        text(&o)
    );
    let o = hydromech(&["verify", "/nonexistent/package"]);
    assert!(
        !o.status.success() && text(&o).contains("no such file"),
        "{}",
        text(&o)
    );
}

#[test]
fn the_win64_binary_under_wine_reproduces_the_linux64_reference_bit_for_bit() {
    if let Some(why) = model_compiler::crosscheck::wine::unavailable() {
        assert!(
            std::env::var_os("HYDROMECH_CROSS_REQUIRED").is_none(),
            "HYDROMECH_CROSS_REQUIRED is set but win64 binaries cannot run: {why}"
        );
        eprintln!("skipped: {why}");
        return;
    }
    // The four-bar's valve steps (1, 2.5, 5, 8 s) fall between FMPy's 16 ms points: the run
    // has extra communication points, which the win64 master must take too.
    let linux = package_for("jaiswal-fourbar", "xc-win64", "linux64,win64");
    let win = linux
        .to_str()
        .unwrap()
        .replace("/cs/linux64/", "/cs/win64/");
    let win = Path::new(&win);
    assert_eq!(
        std::fs::read(win.join("jaiswal-fourbar_ref.csv")).unwrap(),
        std::fs::read(linux.join("jaiswal-fourbar_ref.csv")).unwrap()
    );
    let (ok, out) = verify(win, true);
    assert!(ok, "{out}");
    assert!(out.contains("win64 binary under wine"), "{out}");
    assert_eq!(out.matches("bit-identical").count(), 5, "{out}");
    assert!(out.contains("629"), "{out}");

    // An FMU without a win64 binary, forced to win64: a verdict, not a crash.
    let only_linux = package("jaiswal-fourbar", "xc-no-win64");
    let o = hydromech(&[
        "verify",
        only_linux.to_str().unwrap(),
        "--platform",
        "win64",
    ]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("has no binaries/win64/jaiswal_fourbar.dll"),
        "{}",
        text(&o)
    );
    let o = hydromech(&[
        "verify",
        only_linux.to_str().unwrap(),
        "--platform",
        "darwin64",
    ]);
    assert!(
        text(&o).contains("cannot run darwin64 binaries here"),
        "{}",
        text(&o)
    );
}

/// A description without a `[report]` manoeuvre is not packaged as an idle run unless asked
/// (issue 48, item 3): the refusal names the table to add; with `--allow-idle` the package
/// is written, and the terminal and the README name the outputs `_ref.csv` leaves out.
#[test]
fn a_package_without_a_manoeuvre_is_refused_unless_idle_is_allowed() {
    let root = temp_dir("idle");
    let naya = std::fs::read_to_string(workspace().join("models/naya-rod.toml")).unwrap();
    let without_report = &naya[..naya.find("\n[report]").unwrap()];
    let model = root.join("idle-rod.toml");
    std::fs::write(&model, without_report).unwrap();
    let out = root.join("package");
    let args = [
        "package",
        model.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--platform",
        "linux64",
    ];
    let o = hydromech(&args);
    let said = text(&o);
    assert!(!o.status.success(), "{said}");
    assert!(
        said.contains("no manoeuvre: [report] gives no inputs, so the reference run would hold every input (valve.command) at its start value"),
        "{said}"
    );
    assert!(
        said.contains("inputs.\"valve.command\" = [[0, 0]") && said.contains("--allow-idle"),
        "{said}"
    );
    assert!(said.contains("idle-rod.toml: not packaged"), "{said}");

    let mut idle = args.to_vec();
    idle.push("--allow-idle");
    let o = hydromech(&idle);
    let said = text(&o);
    assert!(o.status.success(), "{said}");
    // Nothing plotted: every output but the computed solver/energy/constraint ones.
    let line = said
        .lines()
        .find(|l| l.contains("_ref.csv leaves out"))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(line.contains("energy.balance_error"), "{line}");
    let readme = std::fs::read_to_string(
        out.join("fmus/2.0/cs/linux64/hydromech")
            .join(env!("CARGO_PKG_VERSION"))
            .join("idle-rod/README.md"),
    )
    .unwrap();
    assert!(
        readme.contains("Outputs of the FMU not in `_ref.csv`"),
        "{readme}"
    );
    assert!(readme.contains("`energy.balance_error`"), "{readme}");
    let _ = std::fs::remove_dir_all(&root);
}

//! `hydromech inspect` and `hydromech simulate` on the seed 002 rod: the FMU is built by the
//! real compiler into a temporary directory (the first run compiles fmu-runtime, minutes
//! on 2 cores; later runs only link).

mod common;

use common::{hydromech, temp_dir, workspace};

use model_compiler::diagnostic::Source;
use std::path::PathBuf;

fn naya() -> PathBuf {
    workspace().join("models").join("naya-rod.toml")
}

#[test]
fn inspect_prints_the_interface_of_a_built_fmu() {
    let out = temp_dir("inspect");
    let path = naya();
    let source = Source::new(&path, std::fs::read_to_string(&path).unwrap());
    let fmu = model_compiler::build(&source, &out).unwrap_or_else(|e| {
        panic!(
            "building {} failed:\n{}",
            path.display(),
            e.iter()
                .map(|d| source.render(d))
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let i = model_compiler::inspect::read_fmu(&fmu).unwrap();
    assert_eq!(
        (i.model_name.as_str(), i.fmi_version.as_str()),
        ("naya-rod", "2.0")
    );
    assert!(i.guid.starts_with('{'), "{}", i.guid);
    let length = i
        .variables
        .iter()
        .find(|v| v.name == "cylinder.length")
        .expect("cylinder.length");
    assert_eq!(
        (
            length.causality.as_str(),
            length.type_name.as_str(),
            length.unit.as_deref()
        ),
        ("output", "Real", Some("m"))
    );
    assert_eq!(
        length.description.as_deref(),
        Some("Actuator length s (pin to pin)")
    );

    let (ok, stdout, stderr) = hydromech(&["inspect".as_ref(), fmu.as_os_str()]);
    assert!(ok, "{stderr}");
    for needle in [
        "model:        naya-rod",
        "FMI version:  2.0",
        &format!("GUID:         {}", i.guid),
        "canGetAndSetFMUstate = true",
        "default experiment: startTime = 0",
        "stopTime = 10",
        "name ",
        "causality",
        "valve.command",
        "Actuator length s (pin to pin)",
    ] {
        assert!(stdout.contains(needle), "no {needle:?} in\n{stdout}");
    }
    let (ok, _, stderr) = hydromech(&["inspect".as_ref(), path.as_os_str()]);
    assert!(!ok && stderr.contains("not a zip archive"), "{stderr}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn simulate_runs_a_description_with_inputs() {
    let dir = temp_dir("simulate");
    let inputs = dir.join("in.csv");
    std::fs::write(
        &inputs,
        "\"time\",\"valve.command\"\n0,0.47\n0.5,0.47\n1,0.5\n",
    )
    .unwrap();
    let csv = dir.join("out.csv");
    let svg = dir.join("out.svg");
    let (ok, stdout, stderr) = hydromech(&[
        "simulate".as_ref(),
        naya().as_os_str(),
        "--stop-time".as_ref(),
        "1".as_ref(),
        "--step".as_ref(),
        "0.01".as_ref(),
        "--inputs".as_ref(),
        inputs.as_os_str(),
        "-o".as_ref(),
        csv.as_os_str(),
        "--plot".as_ref(),
        svg.as_os_str(),
    ]);
    assert!(ok, "hydromech simulate failed:\n{stdout}\n{stderr}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[0], "\"time\"");
    assert!(header.contains(&"\"cylinder.length\""), "{header:?}");
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 101);
    assert_eq!(rows[0][0], 0.0);
    assert!((rows[100][0] - 1.0).abs() < 1e-12, "{}", rows[100][0]);
    let k = header
        .iter()
        .position(|h| *h == "\"cylinder.length\"")
        .unwrap();
    assert!(
        (rows[0][k] - 0.5).abs() < 1e-6,
        "cylinder.length(0) = {}",
        rows[0][k]
    );
    assert!(rows.iter().all(|r| r.iter().all(|v| v.is_finite())));
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg") && plot.contains(">cylinder<") && plot.contains(">length<"));

    // --set before initialization, --vars choose the columns.
    let (ok, _, stderr) = hydromech(&[
        "simulate".as_ref(),
        naya().as_os_str(),
        "--stop-time".as_ref(),
        "0.1".as_ref(),
        "--set".as_ref(),
        "valve.command=0.48".as_ref(),
        "--vars".as_ref(),
        "valve.spool,cylinder.length".as_ref(),
        "-o".as_ref(),
        csv.as_os_str(),
    ]);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(
        text.starts_with("\"time\",\"valve.spool\",\"cylinder.length\"\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 12, "header + 11 rows");
    // Unknown names are errors with a suggestion.
    let (ok, _, stderr) = hydromech(&[
        "simulate".as_ref(),
        naya().as_os_str(),
        "--stop-time".as_ref(),
        "0.1".as_ref(),
        "--vars".as_ref(),
        "cylinder.lenght".as_ref(),
        "-o".as_ref(),
        csv.as_os_str(),
    ]);
    assert!(
        !ok && stderr.contains("did you mean 'cylinder.length'"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--vars` records Integer outputs beside Reals, in the order asked: the ball drop's
/// contact points (1 while its centre is within its radius of the ground — the first
/// touch-down, 0.45 s after release, lasts about 6 ms — 0 in the air) and the internal
/// steps taken (0.1 ms each).
#[test]
fn simulate_records_integer_outputs() {
    let dir = temp_dir("simulate-integers");
    let csv = dir.join("out.csv");
    let ball = workspace().join("models").join("ball-drop.toml");
    let (ok, _, stderr) = hydromech(&[
        "simulate".as_ref(),
        ball.as_os_str(),
        "--stop-time".as_ref(),
        "0.5".as_ref(),
        "--step".as_ref(),
        "0.001".as_ref(),
        "--vars".as_ref(),
        "contact_points,height,solver.steps".as_ref(),
        "-o".as_ref(),
        csv.as_os_str(),
    ]);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("\"time\",\"contact_points\",\"height\",\"solver.steps\"")
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 501);
    let (mut touching, mut flying) = (0, 0);
    for r in &rows {
        let expected = if r[2] < 0.1 { 1.0 } else { 0.0 };
        assert_eq!(r[1], expected, "points at t = {}: height {}", r[0], r[2]);
        if expected == 1.0 {
            touching += 1;
        } else {
            flying += 1;
        }
        assert_eq!(r[3], (r[0] / 1e-4).round(), "steps at t = {}", r[0]);
    }
    assert!(
        touching > 0 && flying > 0,
        "{touching} touching, {flying} flying"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--plot` with globs and `--display-units` on the excavator: its pressures in bar (as its
/// modelDescription declares them), one curve per matched variable, and a pattern that
/// matches nothing refused before the run.
#[test]
fn simulate_plots_and_writes_in_display_units() {
    let dir = temp_dir("simulate-display");
    let excavator = workspace().join("models").join("excavator.toml");
    let (csv, svg) = (dir.join("out.csv"), dir.join("p.svg"));
    let (ok, stdout, stderr) = hydromech(&[
        "simulate".as_ref(),
        excavator.as_os_str(),
        "--stop-time".as_ref(),
        "0.2".as_ref(),
        "--step".as_ref(),
        "0.01".as_ref(),
        "-o".as_ref(),
        csv.as_os_str(),
        "--plot".as_ref(),
        "*.p_*,boom.angle".as_ref(),
        "--plot".as_ref(),
        svg.as_os_str(),
        "--display-units".as_ref(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    assert_eq!(header[0], "\"time [s]\"");
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == format!("\"{name}\""))
            .unwrap_or_else(|| panic!("no {name} in {header:?}"))
    };
    let first: Vec<f64> = text
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .map(|c| c.parse().unwrap())
        .collect();
    // The boom holds the arm at rest: its cap side carries ~200 bar (1e7..4e7 Pa); the
    // angle is tens of degrees, not a fraction of a radian.
    let p_cap = first[column("boom_cylinder.p_cap [bar]")];
    assert!((100.0..400.0).contains(&p_cap), "p_cap = {p_cap} bar");
    let angle = first[column("boom.angle [deg]")];
    assert!(angle.abs() > 5.0 && angle.abs() < 90.0, "{angle} deg");
    column("boom_cylinder.length [mm]");
    let plot = std::fs::read_to_string(&svg).unwrap();
    // 8 pressures (3 cylinders and the swing motor, two each) and the angle.
    assert_eq!(plot.matches("<polyline").count(), 9, "{plot}");
    assert!(plot.contains("[bar]") && plot.contains("[deg]") && !plot.contains("[Pa]"));
    assert!(!plot.contains("length"), "only the matched variables");

    let (ok, _, stderr) = hydromech(&[
        "simulate".as_ref(),
        excavator.as_os_str(),
        "--stop-time".as_ref(),
        "0.2".as_ref(),
        "-o".as_ref(),
        csv.as_os_str(),
        "--plot".as_ref(),
        "boom_cylinder.p_kap".as_ref(),
    ]);
    assert!(
        !ok && stderr.contains(
            "--plot 'boom_cylinder.p_kap' matches none of the recorded variables; did you mean 'boom_cylinder.p_cap'?"
        ),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

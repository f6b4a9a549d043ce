//! `hydromech bench` in its short mode: the harness works end to end (build, unzip,
//! dlopen, the manoeuvre through the C ABI, table, CSV, JSON, scaling study, SVG). Checks
//! correctness of the harness, never timing.

mod common;

use common::{hydromech, temp_dir, workspace};

#[test]
fn bench_builds_and_drives_an_fmu_through_the_c_abi() {
    let dir = temp_dir("bench");
    let model = workspace().join("models").join("naya-rod.toml");
    let json = dir.join("b.json");
    let csv = dir.join("b.csv");
    let (ok, stdout, stderr) = hydromech(&[
        "bench".as_ref(),
        model.as_os_str(),
        "--steps".as_ref(),
        "30".as_ref(),
        "--warmup".as_ref(),
        "5".as_ref(),
        "-o".as_ref(),
        dir.as_os_str(),
        "--json".as_ref(),
        json.as_os_str(),
        "--csv".as_ref(),
        csv.as_os_str(),
    ]);
    assert!(ok, "hydromech bench failed:\n{stdout}\n{stderr}");
    assert!(dir.join("naya-rod.fmu").exists(), "the FMU is kept with -o");
    // Two runs: the internal 10 ms step and 1 ms.
    assert!(stdout.contains("10 ms (internal)"), "{stdout}");
    assert!(stdout.contains("1 ms"), "{stdout}");
    assert!(stdout.contains("seed 002 eq 38"), "{stdout}");
    assert!(!stdout.contains("FAILED"), "{stdout}");

    let j = std::fs::read_to_string(&json).unwrap();
    for needle in [
        "\"model\": \"naya-rod\"",
        "\"steps\": 30",
        "\"comm_step_s\": 0.01",
        "\"comm_step_s\": 0.001",
        "\"fmi_overhead_per_set_get_pair\": {",
        "\"instance_heap_bytes\":",
        "\"median_us\":",
        "\"do_step_thread_cpu\": {",
        "\"failure\": null",
    ] {
        assert!(j.contains(needle), "{needle} missing in\n{j}");
    }
    // Newton iterations are read through fmi2GetInteger(solver.iterations).
    assert!(!j.contains("\"iterations\": null"), "{j}");
    assert!(!j.contains("\"failure\": \""), "{j}");

    let c = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = c.lines().collect();
    assert_eq!(lines.len(), 3, "{c}");
    let header: Vec<&str> = lines[0].split(',').collect();
    for row in &lines[1..] {
        assert_eq!(row.split(',').count(), header.len(), "{row}");
        assert!(row.contains(",naya-rod,"), "{row}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_scaling_short_mode_writes_table_json_and_svg() {
    let dir = temp_dir("scaling");
    let json = dir.join("s.json");
    let svg = dir.join("s.svg");
    let (ok, stdout, stderr) = hydromech(&[
        "bench".as_ref(),
        "--scaling".as_ref(),
        "--stages".as_ref(),
        "1,2".as_ref(),
        "--steps".as_ref(),
        "10".as_ref(),
        "--json".as_ref(),
        json.as_os_str(),
        "--svg".as_ref(),
        svg.as_os_str(),
    ]);
    assert!(ok, "hydromech bench --scaling failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("unknowns"), "{stdout}");
    let j = std::fs::read_to_string(&json).unwrap();
    for needle in [
        "\"model\": \"boom-chain-1\"",
        "\"model\": \"boom-loops-2\"",
        "\"solver_path\": \"dense LU\"",
        "\"loops\": 2",
        "\"dof\": 2",
    ] {
        assert!(j.contains(needle), "{needle} missing in\n{j}");
    }
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(
        s.starts_with("<svg") && s.trim_end().ends_with("</svg>"),
        "{s}"
    );
    assert!(s.contains("<polyline"), "{s}");
    let _ = std::fs::remove_dir_all(&dir);
}

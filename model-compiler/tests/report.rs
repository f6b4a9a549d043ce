//! `hydromech report` on a small model: the page, its pictures, the comparison with a
//! reference curve, and the errors of a bad `[report]` table (CSV files and columns; the
//! name and key errors are in the corpus `tests/descriptions/report-*.toml`).

mod common;

use common::{hydromech, temp_dir, workspace};
use model_compiler::diagnostic::Source;
use model_compiler::simulate::{self, InputSeries};
use std::path::Path;

/// The seed 002 rod without its own `[report]` table, plus `report`.
fn naya_with(report: &str) -> String {
    let text = std::fs::read_to_string(workspace().join("models/naya-rod.toml")).unwrap();
    let cut = text
        .find("\n[report]")
        .expect("naya-rod.toml has a [report] table");
    // Drop the comment block just above the table too.
    let head = text[..cut].trim_end();
    let head = head
        .rfind("\n\n")
        .filter(|&k| head[k..].trim_start().starts_with('#'))
        .map_or(head, |k| &head[..k]);
    format!("{head}\n\n{report}")
}

/// Every SVG file of `dir` is well-formed XML with an `<svg>` root; returns their names.
fn parse_svgs(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "svg") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let mut reader = quick_xml::Reader::from_str(&text);
        let mut root = None;
        loop {
            match reader.read_event() {
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(quick_xml::events::Event::Start(s)) if root.is_none() => {
                    root = Some(String::from_utf8_lossy(s.name().as_ref()).into_owned());
                }
                Ok(_) => {}
                Err(e) => panic!("{}: not well-formed XML: {e}", p.display()),
            }
        }
        assert_eq!(root.as_deref(), Some("svg"), "{}", p.display());
        assert!(
            text.len() < 200_000,
            "{}: {} bytes",
            p.display(),
            text.len()
        );
        names.push(p.file_name().unwrap().to_string_lossy().into_owned());
    }
    names.sort();
    names
}

#[test]
fn report_writes_the_page_pictures_and_the_comparison_with_a_reference() {
    let dir = temp_dir("report");
    let k0 = 0.4646082;
    let report = format!(
        r#"[report]
stop_time = 1.0
step = 0.01
inputs."valve.command" = [[0, {k0}], [0.5, {k0}], [0.5, 0.47]]

[[report.plots]]
title = "Rod angle"
signals = ["rod.angle"]
unit = "deg"
references = [{{ csv = "ref.csv", time = "t", column = "angle", unit = "deg", label = "shifted" }}]

[[report.plots]]
signals = ["cylinder.p_a", "cylinder.p_b"]
unit = "bar"
"#
    );
    let path = dir.join("rod.toml");
    std::fs::write(&path, naya_with(&report)).unwrap();
    let source = Source::new(&path, std::fs::read_to_string(&path).unwrap());

    // The reference: the model's own rod angle (same manoeuvre) shifted by +0.25 deg.
    let fmu_dir = dir.join("fmu");
    std::fs::create_dir_all(&fmu_dir).unwrap();
    let fmu = model_compiler::build(&source, &fmu_dir).unwrap_or_else(|e| {
        panic!(
            "{}",
            e.iter()
                .map(|d| source.render(d))
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let options = simulate::Options {
        stop_time: 1.0,
        step: Some(0.01),
        input_series: vec![InputSeries {
            names: vec!["valve.command".into()],
            time: vec![0.0, 0.5, 0.5],
            values: vec![vec![k0], vec![k0], vec![0.47]],
        }],
        vars: vec!["rod.angle".into()],
        ..Default::default()
    };
    let r = simulate::run(&fmu, &options).unwrap_or_else(|(_, e)| panic!("{e}"));
    let angles: Vec<f64> = r.rows.iter().map(|row| row[0].to_degrees()).collect();
    assert!(
        angles.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
            - angles.iter().cloned().fold(f64::INFINITY, f64::min)
            > 0.01,
        "the manoeuvre should move the rod"
    );
    let mut csv = String::from("t,angle\n");
    for (t, a) in r.time.iter().zip(&angles) {
        csv.push_str(&format!("{t},{}\n", a + 0.25));
    }
    std::fs::write(dir.join("ref.csv"), csv).unwrap();

    let out = dir.join("docs");
    std::fs::create_dir_all(&out).unwrap();
    let o = model_compiler::report::report(&source, &out, "regenerate-me")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(o.failure.is_none(), "{:?}", o.failure);
    let page = std::fs::read_to_string(out.join("rod.md")).unwrap();
    for needle in [
        "# naya-rod\n",
        "> Seed 002 (Naya et al. 2011)",
        "![naya-rod at its initial pose](rod/drawing.svg)",
        "## FMU interface",
        "| name | unit | start | range | description |",
        "| `valve.command` |",
        "| `cylinder.p_a` | Pa (bar) |",
        "| `rod.angle` | rad (deg) | Rod angle to the ground |",
        "## Standard manoeuvre",
        "![inputs](rod/inputs.svg)",
        "### Rod angle",
        "![Rod angle](rod/plot-1.svg)",
        "| signal | reference | mean Δ | RMS Δ | max \\|Δ\\| | points |",
        "Regenerate: `regenerate-me`",
    ] {
        assert!(page.contains(needle), "no {needle:?} in\n{page}");
    }
    // The page names the description it was built from (here outside models/), linked.
    let folder = dir.file_name().unwrap().to_string_lossy();
    let source_link = format!("Source: [`{folder}/rod.toml`](../rod.toml).");
    assert!(page.contains(&source_link), "no {source_link:?} in\n{page}");
    assert!(
        page.contains(&format!("<code>{folder}/rod.toml</code>")),
        "{page}"
    );
    // RMS and max of model − reference: exactly the shift, on all 101 points.
    let row = page
        .lines()
        .find(|l| l.starts_with("| `rod.angle` | shifted |"))
        .unwrap_or_else(|| panic!("no comparison row in\n{page}"));
    let cells: Vec<&str> = row.split(" | ").collect();
    let mean: f64 = cells[2].parse().unwrap();
    let rms: f64 = cells[3].parse().unwrap();
    let max: f64 = cells[4].parse().unwrap();
    assert!(
        (mean + 0.25).abs() < 1e-6,
        "mean {mean} (model − reference = −0.25)"
    );
    assert!((rms - 0.25).abs() < 1e-6, "RMS {rms}");
    assert!((max - 0.25).abs() < 1e-6, "max {max}");
    assert_eq!(cells[5].trim_end_matches(" |"), "101");

    assert_eq!(
        parse_svgs(&out.join("rod")),
        ["drawing.svg", "inputs.svg", "plot-1.svg", "plot-2.svg"]
    );
    let drawing = std::fs::read_to_string(out.join("rod/drawing.svg")).unwrap();
    assert!(drawing.contains(">rod</text>") && drawing.contains(">tip</text>"));
    assert!(drawing.contains(" mm</text>") || drawing.contains(" m</text>"));

    let index = model_compiler::report::write_index(&out).unwrap();
    let index = std::fs::read_to_string(index).unwrap();
    assert!(index.contains("| [naya-rod](rod.md)"), "{index}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The (line, column) of the first occurrence of `needle` in `text`.
fn position(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).unwrap_or_else(|| panic!("no {needle}"));
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |k| k + 1) + 1;
    (line, column)
}

#[test]
fn bad_csv_references_are_errors_with_positions() {
    let dir = temp_dir("report-errors");
    std::fs::write(dir.join("ref.csv"), "t,angle_deg\n0,30\n1,31\n").unwrap();
    let report = r#"[report]
inputs."valve.command" = { csv = "missing.csv", column = "u" }

[[report.plots]]
signals = ["rod.angle"]
unit = "deg"
references = [{ csv = "ref.csv", time = "t", column = "angle_dg" }]
"#;
    let path = dir.join("bad.toml");
    let text = naya_with(report);
    std::fs::write(&path, &text).unwrap();
    let source = Source::new(&path, text.clone());
    let (_, l) = model_compiler::check(&source).unwrap_or_else(|e| panic!("{e:?}"));
    let errors = model_compiler::report::check_csv(&source, &l).unwrap_err();
    let rendered: Vec<String> = errors.iter().map(|e| source.render(e)).collect();
    let file = path.display().to_string();
    let (line, col) = position(&text, "\"angle_dg\"");
    let column_error = format!("{file}:{line}:{col}: error: 'ref.csv' has no column 'angle_dg'");
    assert!(
        rendered
            .iter()
            .any(|r| r.starts_with(&column_error) && r.contains("did you mean 'angle_deg'?")),
        "{rendered:#?}"
    );
    let (line, col) = position(&text, "\"missing.csv\"");
    let file_error = format!("{file}:{line}:{col}: error: cannot read");
    assert!(
        rendered.iter().any(|r| r.starts_with(&file_error)),
        "{rendered:#?}"
    );

    // `hydromech check` reports them too, and `report` writes no page.
    let (ok, _, stderr) = hydromech(&["check".as_ref(), path.as_os_str()]);
    assert!(!ok && stderr.contains(&column_error), "{stderr}");
    let out = dir.join("docs");
    let (ok, _, stderr) = hydromech(&[
        "report".as_ref(),
        path.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(!ok && stderr.contains(&column_error), "{stderr}");
    assert!(!out.join("bad.md").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

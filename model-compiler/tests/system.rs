//! `[system]` descriptions (issue 15, item 8): `hydromech build` writes an SSP 1.0 archive
//! with the components' FMUs and the connections of their ports; bad systems are located
//! errors. (The SSD was validated against the SSP 1.0 schemas with lxml, and ecos runs it:
//! tests/python/test_cosimulation.py.)

mod common;

use model_compiler::diagnostic::Source;
use std::io::Read;

fn cosim(file: &str) -> std::path::PathBuf {
    common::workspace().join("tests/cosim").join(file)
}

/// Builds in a directory of its own (`tag`): the tests run side by side.
fn build(text: &str, tag: &str) -> Result<std::path::PathBuf, Vec<String>> {
    let dir = common::temp_dir(tag);
    let source = Source::new(cosim("test-system.toml"), text.to_string());
    model_compiler::assembly::system::build(&source, &dir, &["linux64".to_string()])
}

#[test]
fn a_split_machine_becomes_an_ssp_archive_with_its_port_connections() {
    let text = std::fs::read_to_string(cosim("split.toml")).unwrap();
    assert!(model_compiler::assembly::system::is_system(&text));
    // `hydromech check` of a system: loaded and resolved, nothing built.
    let sys =
        model_compiler::assembly::system::load(&Source::new(cosim("split.toml"), text.clone()))
            .unwrap();
    assert_eq!(
        sys.summary(),
        "system carrier-boom-split: 2 components (carrier = carrier, boom = boom), 25 scalar connections, step 0.001 s"
    );
    let ssp = build(&text, "system-split").unwrap();
    assert!(ssp.ends_with("carrier-boom-split.ssp"));
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&ssp).unwrap()).unwrap();
    let names: Vec<String> = zip.file_names().map(str::to_string).collect();
    for n in [
        "SystemStructure.ssd",
        "resources/carrier.fmu",
        "resources/boom.fmu",
    ] {
        assert!(names.contains(&n.to_string()), "{n} in {names:?}");
    }
    let mut ssd = String::new();
    zip.by_name("SystemStructure.ssd")
        .unwrap()
        .read_to_string(&mut ssd)
        .unwrap();
    // The mount ↔ base connection: 19 motion values to the boom, 6 wrench values back.
    let connections: Vec<&str> = ssd
        .lines()
        .filter(|l| l.contains("<ssd:Connection "))
        .collect();
    assert_eq!(connections.len(), 25);
    let to_boom = connections
        .iter()
        .filter(|l| l.contains("startElement=\"carrier\"") && l.contains("endElement=\"boom\""))
        .count();
    assert_eq!(to_boom, 19);
    assert!(ssd.contains(
        "<ssd:Connection startElement=\"boom\" startConnector=\"base.moment.z\" endElement=\"carrier\" endConnector=\"deck.moment.z\"/>"
    ));
    // Every connector of a connection is declared, output → input, with a defined unit.
    for c in &connections {
        let attr = |key: &str| {
            let start = c.find(&format!("{key}=\"")).unwrap() + key.len() + 2;
            c[start..start + c[start..].find('"').unwrap()].to_string()
        };
        for (element, connector, kind) in [
            (attr("startElement"), attr("startConnector"), "output"),
            (attr("endElement"), attr("endConnector"), "input"),
        ] {
            let block = &ssd[ssd
                .find(&format!("<ssd:Component name=\"{element}\""))
                .unwrap()..];
            let block = &block[..block.find("</ssd:Component>").unwrap()];
            let line = block
                .lines()
                .find(|l| l.contains(&format!("name=\"{connector}\" ")))
                .unwrap_or_else(|| panic!("{element}.{connector} not declared"));
            assert!(line.contains(&format!("kind=\"{kind}\"")), "{line}");
            if let Some(i) = line.find("unit=\"") {
                let unit = &line[i + 6..i + 6 + line[i + 6..].find('"').unwrap()];
                assert!(
                    ssd.contains(&format!("<ssc:Unit name=\"{unit}\">")),
                    "unit {unit}"
                );
            }
        }
    }
    assert!(ssd.contains("<osp:FixedStepAlgorithm baseStepSize=\"0.001\"/>"));
    // The boom's parameter values: a bound .ssv with its unit defined.
    assert!(ssd.contains("<ssd:ParameterBinding source=\"resources/boom.ssv\"/>"));
    let mut ssv = String::new();
    zip.by_name("resources/boom.ssv")
        .unwrap()
        .read_to_string(&mut ssv)
        .unwrap();
    assert!(ssv.contains("<ssv:Parameter name=\"solver.step\"><ssv:Real value=\"0.0005\" unit=\"s\"/></ssv:Parameter>"), "{ssv}");
    assert!(
        ssv.contains("<ssc:Unit name=\"s\"><ssc:BaseUnit s=\"1\"/></ssc:Unit>"),
        "{ssv}"
    );
    assert!(ssd.contains("stopTime=\"3.0\""));
}

#[test]
fn a_hydraulic_cut_turns_the_flow_sign_in_its_connection() {
    let text = std::fs::read_to_string(cosim("hydraulic-split.toml")).unwrap();
    let ssp = build(&text, "system-hydraulic").unwrap();
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&ssp).unwrap()).unwrap();
    let mut ssd = String::new();
    zip.by_name("SystemStructure.ssd")
        .unwrap()
        .read_to_string(&mut ssd)
        .unwrap();
    assert!(ssd.contains(
        "<ssd:Connection startElement=\"supply\" startConnector=\"outlet.pressure\" endElement=\"load\" endConnector=\"inlet.pressure\"/>"
    ));
    assert!(ssd.contains(
        "<ssd:Connection startElement=\"load\" startConnector=\"inlet.flow\" endElement=\"supply\" endConnector=\"outlet.flow\">\n        <ssc:LinearTransformation factor=\"-1.0\" offset=\"0.0\"/>"
    ));
}

const HEAD: &str = "[system]\nname = \"s\"\nstep = \"1 ms\"\n[[system.components]]\nname = \"carrier\"\nmodel = \"carrier.toml\"\n[[system.components]]\nname = \"boom\"\nmodel = \"boom.toml\"\n";

#[test]
fn bad_systems_are_located_errors() {
    let cases = [
        (
            format!("{HEAD}[[system.connections]]\nfrom = \"crane.deck\"\nto = \"boom.base\"\n"),
            "11:8: error: unknown component 'crane'",
        ),
        (
            format!("{HEAD}[[system.connections]]\nfrom = \"carrier.roll\"\nto = \"boom.luff\"\n"),
            "is neither a mount and a base port, a flow and a pressure port, nor a Real output and input",
        ),
        (
            format!(
                "{HEAD}[[system.connections]]\nfrom = \"carrier.roll\"\nto = \"boom.base.position.x\"\n"
            ),
            "'carrier.roll' is in rad but 'boom.base.position.x' in m",
        ),
        (
            format!(
                "{HEAD}[[system.connections]]\nfrom = \"carrier.deck\"\nto = \"boom.base\"\n[[system.connections]]\nfrom = \"carrier.roll\"\nto = \"boom.base.orientation.w\"\n"
            ),
            "is in rad but",
        ),
        (
            HEAD.replace("step = \"1 ms\"", "step = \"-1 ms\""),
            "3:8: error: the communication step must be positive",
        ),
        (
            HEAD.replace("model = \"boom.toml\"", "model = \"no-such.toml\""),
            "9:9: error: cannot read",
        ),
        (
            HEAD.replace(
                "model = \"boom.toml\"",
                "model = \"boom.toml\"\nparameters = { \"boom.mass\" = 3 }",
            ),
            "10:30: error: 'boom.mass' is not a parameter of model boom",
        ),
        (
            HEAD.replace(
                "model = \"boom.toml\"",
                "model = \"boom.toml\"\nparameters = { \"solver.step\" = \"2 m\" }",
            ),
            "10:32: error: expected a time, got 'm'",
        ),
        (
            HEAD.replace("name = \"boom\"", "name = \"carrier\""),
            "8:8: error: duplicate component 'carrier'",
        ),
        (
            format!(
                "{HEAD}[[system.connections]]\nfrom = \"carrier.deck\"\nto = \"boom.base\"\n[[system.connections]]\nfrom = \"carrier.deck.position.x\"\nto = \"boom.base.position.x\"\n"
            ),
            "the input boom.base.position.x is connected twice",
        ),
    ];
    for (i, (text, needle)) in cases.into_iter().enumerate() {
        let errors = build(&text, &format!("system-bad-{i}")).unwrap_err();
        let all = errors.join("\n");
        assert!(all.contains(needle), "{needle:?} not in:\n{all}");
    }
}

//! Open-centre valves (issue 14, item 3): a fixed pump idles through the neutral P→T edge
//! at the pressure that edge's orifice law gives, not at the relief setting as behind a
//! closed centre; shifting the spool closes the bypass and sends the whole flow to A.

mod common;

/// A 40 L/min fixed pump into `pump_line` (0.5 L) with a 200 bar relief, a 4/3 valve whose
/// A and B drain to tank through loads (orifices), and `neutral` as its P→T edge (empty:
/// closed centre).
fn circuit(neutral: &str) -> String {
    common::supplied_circuit(
        "open-centre-test",
        "1 bar",
        &format!(
            r#"[[hydraulics.volumes]]
name = "pump_line"
volume = "0.5 L"
initial_guess = "5 bar"
[[hydraulics.volumes]]
name = "line_a"
volume = "0.2 L"
initial_guess = "1 bar"
[[hydraulics.volumes]]
name = "line_b"
volume = "0.2 L"
initial_guess = "1 bar"
[[hydraulics.pumps]]
name = "pump"
inlet = "supply"
outlet = "pump_line"
displacement = "20 cm3/rev"
speed = "2000 rpm"
[[hydraulics.relief_valves]]
name = "relief"
from = "pump_line"
to = "supply"
cracking_pressure = "200 bar"
gain = 1e-9
[[hydraulics.valves]]
name = "valve"
P = "pump_line"
T = "supply"
A = "line_a"
B = "line_b"
spool = {{ range = [-1, 1], time_constant = "10 ms", command = 0 }}
edges.PA = {{ coefficient = [[-1, 0], [0.1, 0], [1, 2e-6]] }}
edges.PB = {{ coefficient = [[-1, 2e-6], [-0.1, 0], [1, 0]] }}
edges.AT = {{ coefficient = [[-1, 2e-6], [-0.1, 0], [1, 0]] }}
edges.BT = {{ coefficient = [[-1, 0], [0.1, 0], [1, 2e-6]] }}
{neutral}
[[hydraulics.orifices]]
name = "load_a"
from = "line_a"
to = "supply"
coefficient = 1e-6
[[hydraulics.orifices]]
name = "load_b"
from = "line_b"
to = "supply"
coefficient = 1e-6
[[interface.inputs]]
name = "valve.command"
target = "valve.command"
[[interface.outputs]]
name = "p_pump"
quantity = "pump_line.p"
[[interface.outputs]]
name = "pump.power"
quantity = "pump.power"
[[interface.outputs]]
name = "valve.flow"
quantity = "valve.flow"
"#
        ),
    )
}

/// 20 cm³/rev at 2000 rpm [m³/s].
const Q: f64 = 20e-6 * 2000.0 / 60.0;
const K_NEUTRAL: f64 = 9.43e-7;

fn settle(text: String, command: f64) -> (f64, f64, f64) {
    let (mut inst, v) = common::started(
        "open-centre.toml",
        text,
        &["p_pump", "pump.power", "valve.flow", "valve.command"],
    );
    inst.set_param(common::slot_of(&v[3]), command);
    for k in 1..=2000 {
        inst.advance(k as f64 * 1e-3).unwrap();
    }
    (inst.value(&v[0]), inst.value(&v[1]), inst.value(&v[2]))
}

#[test]
fn a_fixed_pump_idles_through_the_neutral_edge_not_over_the_relief() {
    let open = format!(
        "edges.PT = {{ coefficient = [[-1, 0], [-0.3, 0], [0, {K_NEUTRAL}], [0.3, 0], [1, 0]] }}"
    );
    let (p_open, power_open, _) = settle(circuit(&open), 0.0);
    let (p_closed, power_closed, _) = settle(circuit(""), 0.0);
    // Neutral: Δp = (Q/K)² = 5.0 bar over the 1 bar tank.
    let expected = 1e5 + (Q / K_NEUTRAL).powi(2);
    println!(
        "centred, open centre: {:.3} bar, {:.0} W (closed form {:.3} bar); closed centre: {:.2} bar, {:.0} W",
        p_open / 1e5,
        power_open,
        expected / 1e5,
        p_closed / 1e5,
        power_closed
    );
    assert!(
        (p_open / expected - 1.0).abs() < 1e-3,
        "{p_open} vs {expected}"
    );
    // Closed centre: the whole flow over the relief, p = 200 bar + Q/gain above the tank.
    let relief = 1e5 + 200e5 + Q / 1e-9;
    assert!(
        (p_closed / relief - 1.0).abs() < 1e-3,
        "{p_closed} vs {relief}"
    );
    assert!(power_open < 0.05 * power_closed);
}

#[test]
fn shifting_the_spool_closes_the_bypass() {
    let open = format!(
        "edges.PT = {{ coefficient = [[-1, 0], [-0.3, 0], [0, {K_NEUTRAL}], [0.3, 0], [1, 0]] }}"
    );
    let (p, _, into_a) = settle(circuit(&open), 1.0);
    println!(
        "u = 1: pump line {:.3} bar, valve flow into A {into_a:.4e} m3/s (pump {Q:.4e})",
        p / 1e5
    );
    // The whole pump flow reaches A (the relief stays shut: p well below 200 bar).
    assert!((into_a / Q - 1.0).abs() < 1e-6, "{into_a} vs {Q}");
    assert!(p < 50e5);
}

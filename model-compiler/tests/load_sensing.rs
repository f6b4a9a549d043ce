//! Load sensing (issue 14, item 3): two LS sections lifting different loads signal through
//! their shuttles to one LS line; the LS variable pump holds its outlet the margin above
//! the highest load pressure, and idles at the margin over tank (not at a relief setting)
//! with every section centred.

mod common;

/// LS margin and regulator droop of the pump below [Pa].
const MARGIN: f64 = 20e5;
const BAND: f64 = 1e5;
const TANK: f64 = 1e5;

const NAMES: [&str; 13] = [
    "pump.p",
    "pump.displacement",
    "pump.power",
    "ls.p",
    "heavy.p_cap",
    "heavy.speed",
    "light.p_cap",
    "light.speed",
    "valve_heavy.command",
    "valve_light.command",
    "iterations",
    "heavy.p_rod",
    "light.p_rod",
];

#[test]
fn the_pump_idles_at_the_margin_with_every_section_centred() {
    let (mut inst, v) = common::started("ls.toml", common::load_sensing_machine(), &NAMES);
    let mut max_iterations = 0.0f64;
    for k in 1..=1000 {
        inst.advance(k as f64 * 1e-3).unwrap();
        max_iterations = max_iterations.max(inst.value(&v[10]));
    }
    let (p, eps, power, ls) = (
        inst.value(&v[0]),
        inst.value(&v[1]),
        inst.value(&v[2]),
        inst.value(&v[3]),
    );
    println!(
        "centred: pump {:.4} bar, ε {eps:.5}, {power:.2} W, LS line {:.4} bar; max {max_iterations} iterations",
        p / 1e5,
        ls / 1e5
    );
    // The LS line drains to tank; the pump stands the margin above it, within half the
    // regulator's droop, delivering only its leakage.
    assert!((ls - TANK).abs() < 100.0, "LS line {ls}");
    assert!((p - (TANK + MARGIN)).abs() <= 0.5 * BAND, "pump at {p} Pa");
    assert!(eps > 0.0 && eps < 0.01, "displacement {eps}");
    assert!(power < 10.0, "idle power {power} W");
}

#[test]
fn the_pump_follows_the_highest_load_plus_the_margin() {
    let (mut inst, v) = common::started("ls.toml", common::load_sensing_machine(), &NAMES);
    inst.set_param(common::slot_of(&v[8]), 1.0);
    inst.set_param(common::slot_of(&v[9]), 1.0);
    let mut max_iterations = 0.0f64;
    let (mut worst, mut worst_ls) = (0.0f64, 0.0f64);
    for k in 1..=2000 {
        let t = k as f64 * 1e-3;
        inst.advance(t).unwrap();
        max_iterations = max_iterations.max(inst.value(&v[10]));
        if t >= 1.0 {
            let (p, ls, heavy) = (inst.value(&v[0]), inst.value(&v[3]), inst.value(&v[4]));
            worst = worst.max((p / (heavy + MARGIN) - 1.0).abs());
            worst_ls = worst_ls.max((heavy - ls).abs());
        }
    }
    let values: Vec<f64> = v.iter().map(|x| inst.value(x)).collect();
    println!(
        "rod sides {:.3} / {:.3} bar",
        values[11] / 1e5,
        values[12] / 1e5
    );
    println!(
        "both sections open: pump {:.3} bar (heavy load {:.3} + margin = {:.3}), LS {:.3} bar, light load {:.3} bar, ε {:.4}, speeds {:.4} / {:.4} m/s; worst pump error {:.3} %, worst LS − load {:.3} bar after 1 s; max {max_iterations} iterations",
        values[0] / 1e5,
        values[4] / 1e5,
        (values[4] + MARGIN) / 1e5,
        values[3] / 1e5,
        values[6] / 1e5,
        values[1],
        values[5],
        values[7],
        worst * 100.0,
        worst_ls / 1e5
    );
    // The shuttle network picks the heavier load (about 63 bar, the lighter one 32 bar).
    assert!(values[4] > values[6] + 20e5);
    assert!(
        worst_ls < 0.5e5,
        "LS line {worst_ls} Pa from the highest load"
    );
    assert!(worst < 0.02, "pump pressure off by {} %", worst * 100.0);
    // Both loads rise steadily; the pump is neither destroked nor at full displacement.
    assert!(values[5] > 0.01 && values[7] > 0.01);
    assert!(values[1] > 0.05 && values[1] < 0.95);
}

/// Opens both sections of `text` fully and runs 2 s; returns the outputs averaged over the
/// last second (the loads ride on their oil springs) and the largest deviation of the pump
/// pressure from `target(outputs)` there.
fn open_both(text: String, target: impl Fn(&[f64]) -> f64) -> (Vec<f64>, f64) {
    let (mut inst, v) = common::started("ls.toml", text, &NAMES);
    inst.set_param(common::slot_of(&v[8]), 1.0);
    inst.set_param(common::slot_of(&v[9]), 1.0);
    let (mut worst, mut mean) = (0.0f64, vec![0.0; v.len()]);
    for k in 1..=2000 {
        let t = k as f64 * 1e-3;
        inst.advance(t).unwrap();
        if k > 1000 {
            let values: Vec<f64> = v.iter().map(|x| inst.value(x)).collect();
            worst = worst.max((values[0] - target(&values)).abs());
            for (m, x) in mean.iter_mut().zip(&values) {
                *m += x / 1000.0;
            }
        }
    }
    (mean, worst)
}

#[test]
fn the_cut_off_caps_the_pump_below_the_load_signal() {
    // Cut-off 75 bar: the heavy load (≈ 63 bar) plus the margin would ask for 83 bar.
    let cutoff = 75e5;
    let text = common::load_sensing_machine_with(
        "75 bar",
        "{ coefficient = [[-1, 0], [0.1, 0], [1, 8.8e-8]] }",
    );
    let (values, worst) = open_both(text, |_| cutoff);
    println!(
        "cut-off 75 bar: pump {:.3} bar (LS {:.3} + margin = {:.3}), worst |p − cut-off| {:.3} bar after 1 s, ε {:.4}, speeds {:.4} / {:.4} m/s",
        values[0] / 1e5,
        values[3] / 1e5,
        (values[3] + MARGIN) / 1e5,
        worst / 1e5,
        values[1],
        values[5],
        values[7]
    );
    assert!(
        values[3] + MARGIN > cutoff + 5e5,
        "the LS signal should ask for more"
    );
    assert!(worst <= 0.5 * BAND, "pump {worst} Pa from the cut-off");
    // Both loads still rise, on a smaller pressure drop over the heavy section.
    assert!(values[5] > 0.005 && values[7] > values[5]);
}

#[test]
fn pre_compensated_sections_share_the_flow_whatever_their_loads() {
    // Compensated P→A edges: 15 L/min at full spool once Δp exceeds 10 bar (less than the
    // pump's 20 bar margin), so both loads rise at Q/A_cap whatever they weigh.
    let q = 15e-3 / 60.0;
    let text = common::load_sensing_machine_with(
        "250 bar",
        &format!("{{ flow = [[-1, 0], [0.1, 0], [1, {q}]], compensator_margin = \"10 bar\" }}"),
    );
    let (values, worst) = open_both(text, |v| v[4].max(v[6]) + MARGIN);
    let a_cap = std::f64::consts::PI / 4.0 * 0.063f64.powi(2);
    let speed = q / a_cap;
    // The heavier section also feeds the LS line, which bleeds K·√Δp to tank.
    let bleed = 3.4e-9 * (values[3] - TANK).sqrt();
    let heavy = (q - bleed) / a_cap;
    println!(
        "compensated: mean speeds {:.5} / {:.5} m/s (closed forms {heavy:.5} / {speed:.5}: Q/A, the heavy less the LS bleed), loads {:.2} / {:.2} bar, pump {:.3} bar, worst pump error {:.3} bar",
        values[5],
        values[7],
        values[4] / 1e5,
        values[6] / 1e5,
        values[0] / 1e5,
        worst / 1e5
    );
    assert!(values[4] > values[6] + 20e5);
    // Within 0.5 %: the flow-fed loads ride on their oil springs (±15 % speed ripple, lightly
    // damped), and a one-second mean does not span whole periods.
    for (s, expected) in [(values[5], heavy), (values[7], speed)] {
        assert!((s / expected - 1.0).abs() < 5e-3, "speed {s} vs {expected}");
    }
    assert!(worst < 0.02 * (values[4] + MARGIN));
}

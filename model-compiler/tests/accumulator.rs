//! Gas-charged accumulator (issue 14, item 3): in a slow compression the gas volume that
//! follows from the oil that flowed in obeys `p·V^n = p0·V0^n` within 0.1 %.

mod common;

use fmu_runtime::model::Variable;

#[test]
fn a_slow_compression_follows_the_gas_law() {
    let (mut inst, v) = common::started(
        "accumulator.toml",
        common::accumulator_circuit(),
        &["supply.p", "acc.p", "acc.volume", "feed.flow"],
    );
    let [supply, p, held, flow] = <[Variable; 4]>::try_from(v).unwrap();
    let supply = common::slot_of(&supply);
    let (v0, p0, n, beta, line): (f64, f64, f64, f64, f64) = (2e-3, 50e5, 1.4, 1.5e9, 1e-4);
    // The supply rises from 55 to 200 bar over 20 s: slow against the line's time constant.
    // A ramp, sent as a ramp (its value at the step's start and its slope), so that the
    // flows are continuous and their trapezoid below is the oil that went in.
    let h = 1e-3;
    let mut samples = vec![(inst.value(&p), inst.value(&held), inst.value(&flow))];
    let slope = 145e5 / 20.0;
    for k in 1..=20_000 {
        let t = k as f64 * h;
        inst.set_param(supply, 55e5 + slope * (t - h));
        inst.set_input_derivative(supply, 1, slope).unwrap();
        inst.advance(t).unwrap();
        samples.push((inst.value(&p), inst.value(&held), inst.value(&flow)));
    }
    // Oil that flowed in (trapezoid in time) = the oil the accumulator took + the
    // compression of the oil in the line and the accumulator, ∫ (V_line + V_held)/β dp.
    let (mut inflow, mut compression, mut worst) = (0.0, 0.0, 0.0f64);
    let gas_law = p0 * v0.powf(n);
    for w in samples.windows(2) {
        let ((pa, va, qa), (pb, vb, qb)) = (w[0], w[1]);
        inflow += 0.5 * h * (qa + qb);
        compression += 0.5 * ((line + va) + (line + vb)) / beta * (pb - pa);
        let taken = inflow - compression;
        // The gas volume the flows imply, from the start's held oil on.
        let gas = v0 - samples[0].1 - taken;
        worst = worst.max((pb * gas.powf(n) / gas_law - 1.0).abs());
    }
    let (p_end, v_end, _) = *samples.last().unwrap();
    println!(
        "200 bar: {:.1} bar, held {:.4} L; p·V^n off the gas law by at most {worst:.2e}",
        p_end / 1e5,
        v_end * 1e3
    );
    assert!(p_end > 199e5, "the line follows the supply: {p_end}");
    // The accumulator took most of its gas volume: (1 − (50/200)^(1/1.4)) of 2 L.
    let expected = v0 * (1.0 - (p0 / p_end).powf(1.0 / n));
    assert!((v_end / expected - 1.0).abs() < 1e-12);
    assert!(worst < 1e-3, "p·V^n off by {worst}");
}

#[test]
fn an_accumulator_must_sit_on_a_volume() {
    let text = common::accumulator_circuit().replace("node = \"line\"", "node = \"supply\"");
    let source = model_compiler::diagnostic::Source::new("a.toml", text.clone());
    let errors = model_compiler::compile(&source).unwrap_err();
    let e = source.render(&errors[0]);
    assert!(
        e.contains("accumulator 'acc' must sit on a volume; 'supply' is a pressure source"),
        "{e}"
    );
    let text = common::accumulator_circuit()
        .replace("polytropic_exponent = 1.4", "polytropic_exponent = 3");
    let source = model_compiler::diagnostic::Source::new("a.toml", text);
    let e = source.render(&model_compiler::compile(&source).unwrap_err()[0]);
    assert!(
        e.contains("polytropic_exponent 3 is outside 1 (isothermal) … 2"),
        "{e}"
    );
}

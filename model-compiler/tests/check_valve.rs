//! Check valve (issue 14, item 3): a 1 L volume filled from a supply through a check valve
//! holds its pressure exactly when the supply falls away (no reverse flow at all), and
//! fills again to the supply pressure less the cracking drop when it rises.

mod common;

use fmu_runtime::Instance;
use fmu_runtime::model::Variable;

struct Rig {
    inst: Instance,
    supply: Variable,
    held: Variable,
    flow: Variable,
}

impl Rig {
    fn new() -> Rig {
        let (inst, v) = common::started(
            "check-valve.toml",
            common::check_valve_circuit(),
            &["supply.p", "held.p", "check.flow"],
        );
        let [supply, held, flow] = <[Variable; 3]>::try_from(v).unwrap();
        Rig {
            inst,
            supply,
            held,
            flow,
        }
    }

    fn set_supply(&mut self, p: f64) {
        self.inst.set_param(common::slot_of(&self.supply), p);
    }

    /// Runs for `seconds` in 1 ms communication steps; every pressure and flow seen.
    fn run(&mut self, seconds: f64) -> Vec<(f64, f64)> {
        let t0 = self.inst.time();
        let steps = (seconds * 1e3).round() as usize;
        (1..=steps)
            .map(|k| {
                self.inst.advance(t0 + k as f64 * 1e-3).unwrap();
                (self.inst.value(&self.held), self.inst.value(&self.flow))
            })
            .collect()
    }
}

#[test]
fn a_check_valve_fills_holds_exactly_and_refills() {
    let bar = 1e5;
    let mut rig = Rig::new();
    // Filling from 10 bar: only forward flow, up to the supply less the cracking drop.
    let fill = rig.run(2.0);
    assert!(fill.iter().all(|&(_, q)| q >= 0.0));
    let held = fill.last().unwrap().0;
    assert!(
        held > 50.0 * bar - 2.2 * bar && held <= 50.0 * bar - 2.0 * bar,
        "filled to {} bar",
        held / bar
    );
    // The supply falls away: the volume keeps every bit of its pressure, the valve passes
    // exactly nothing back.
    rig.set_supply(1.0 * bar);
    let hold = rig.run(5.0);
    // The first step still carries half of the last forward rate (the trapezoidal rule),
    // a trickle as the valve was just above cracking; from then on the flow is exactly zero
    // and the pressure moves only within Newton's tolerance (no leak that drains it).
    let kept = hold[0].0;
    assert!((kept - held).abs() < 1e-6 * held, "{kept} vs {held}");
    for &(p, q) in &hold {
        assert_eq!(q, 0.0);
        assert!((p - kept).abs() < 1e-7 * kept, "{p} vs {kept}");
    }
    let drift = hold.last().unwrap().0 - kept;
    println!("held {kept} Pa; after 5 s with the supply at 1 bar: {drift:+.3e} Pa");
    // The supply rises above: it fills again, to 60 bar less the cracking drop.
    rig.set_supply(60.0 * bar);
    let refill = rig.run(2.0);
    let p = refill.last().unwrap().0;
    assert!(
        p > 57.8 * bar && p <= 58.0 * bar,
        "refilled to {} bar",
        p / bar
    );
}

/// A pilot-operated check valve holding a load chamber at 100 bar: with the pilot at tank
/// pressure nothing flows back; a 40 bar pilot (ratio 3) lifts the poppet, the chamber
/// drains back to the 1 bar line, and closing the pilot seals it again.
#[test]
fn a_pilot_opens_the_check_valve_backwards() {
    let text = common::supplied_circuit(
        "pilot-check",
        "1 bar",
        r#"[[hydraulics.pressure_sources]]
name = "line"
pressure = "1 bar"
[[hydraulics.volumes]]
name = "load_side"
volume = "1 L"
initial_guess = "100 bar"
[[hydraulics.check_valves]]
name = "holding"
from = "line"
to = "load_side"
cracking_pressure = "2 bar"
full_open_pressure = "5 bar"
coefficient = 1e-7
pilot = "supply"
pilot_ratio = 3
[[interface.outputs]]
name = "load_side.p"
quantity = "load_side.p"
[[interface.outputs]]
name = "holding.flow"
quantity = "holding.flow"
"#,
    );
    let (mut inst, v) = common::started(
        "pilot-check.toml",
        text,
        &["supply.p", "load_side.p", "holding.flow"],
    );
    let [pilot, held, flow] = <[Variable; 3]>::try_from(v).unwrap();
    let pilot = common::slot_of(&pilot);
    let bar = 1e5;
    let run = |inst: &mut Instance, seconds: f64| -> Vec<(f64, f64)> {
        let t0 = inst.time();
        (1..=(seconds * 1e3).round() as usize)
            .map(|k| {
                inst.advance(t0 + k as f64 * 1e-3).unwrap();
                (inst.value(&held), inst.value(&flow))
            })
            .collect()
    };
    // Pilot at 1 bar: the signal (1 − 100) + 3·(1 − 1) bar is far below cracking.
    for (p, q) in run(&mut inst, 1.0) {
        assert_eq!(q, 0.0);
        assert_eq!(p, 100.0 * bar);
    }
    // Pilot at 40 bar: (1 − 100) + 3·39 = 18 bar > full opening: the load side drains back.
    inst.set_param(pilot, 40.0 * bar);
    let drain = run(&mut inst, 2.0);
    assert!(drain.iter().all(|&(_, q)| q <= 0.0));
    assert!(drain.iter().any(|&(_, q)| q < -1e-5), "it flows back");
    let low = drain.last().unwrap().0;
    assert!(low < 1.5 * bar, "drained to {} bar", low / bar);
    // Pilot off again: sealed.
    inst.set_param(pilot, 1.0 * bar);
    let sealed = run(&mut inst, 1.0);
    let kept = sealed[5].0;
    for &(p, q) in &sealed[5..] {
        assert_eq!(q, 0.0);
        assert!((p - kept).abs() < 1e-7 * bar);
    }
}

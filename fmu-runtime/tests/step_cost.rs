//! Timing probe of the step loop on the hand-built seed models (run by hand:
//! `cargo test --release -p fmu-runtime --test step_cost -- --ignored --nocapture`).
//! Benchmarks through the C ABI live in `hydromech bench`; this isolates the solver.

mod support;

use fmu_runtime::Instance;
use fmu_runtime::model::{ParamId, Probe};
use std::sync::Arc;

#[test]
#[ignore = "timing probe, run by hand"]
fn step_cost() {
    for (name, model, h, values) in [
        (
            "naya-rod",
            support::naya_rod(0.4646082, 0.01),
            0.01,
            [0.4546082, 0.4746082],
        ),
        (
            "jaiswal-fourbar",
            support::jaiswal_fourbar(0.001),
            0.001,
            [10.0, -10.0],
        ),
    ] {
        let cmd = ParamId(
            model
                .params
                .iter()
                .position(|p| p.name == "valve.command")
                .unwrap() as u32,
        );
        let mut inst = Instance::new(Arc::new(model));
        inst.initialize(0.0).unwrap();
        let n = 4000;
        let e0 = inst.evaluations();
        let (mut times, mut its) = (vec![], vec![]);
        for k in 0..n {
            if k == 500 {
                inst.set_param(cmd, values[0]);
            }
            if k == 2500 {
                inst.set_param(cmd, values[1]);
            }
            let t0 = std::time::Instant::now();
            inst.advance((k + 1) as f64 * h).unwrap();
            times.push(t0.elapsed().as_secs_f64() * 1e6);
            its.push(inst.probe(Probe::NewtonIterations));
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let avg = its.iter().sum::<f64>() / n as f64;
        let max = its.iter().cloned().fold(0.0, f64::max);
        println!(
            "{name}: {:.2} evaluations per step",
            (inst.evaluations() - e0) as f64 / n as f64
        );
        println!(
            "{name}: median {:.2} µs, p99 {:.2} µs, max {:.2} µs; iterations avg {avg:.2} max {max}",
            times[n / 2],
            times[n * 99 / 100],
            times[n - 1]
        );
    }
}

//! The estimator's step loop allocates nothing, corrections included: the shipped PATU
//! crane and Pub I four-bar estimators stepped through the bench's generic manoeuvre with
//! every sensor sampled at its rate (fed the estimator's own `sensor.<name>.estimate`,
//! as `hydromech bench` does), the outputs and a snapshot read every step.

mod common;
#[path = "../../fmu-runtime/tests/support/counting.rs"]
mod counting;

use common::Machine;
use common::estimation::compiled_estimator;
use fmu_runtime::model::Probe;

fn shipped(file: &str) -> String {
    std::fs::read_to_string(common::workspace().join("models").join(file)).unwrap()
}

/// The bench's span for PATU (27 s at 1 ms), the inputs stepped halfway.
const STEPS: usize = 27_000;

#[test]
fn corrections_do_not_allocate() {
    for file in ["patu-pvg32.toml", "jaiswal-fourbar.toml"] {
        let (mut m, spec) = compiled_estimator(&shipped(file));
        let inputs: Vec<_> = m
            .inst
            .model()
            .variables
            .iter()
            .filter(|v| {
                v.causality == fmu_runtime::model::Causality::Input
                    && !v.name.starts_with("sensor.")
            })
            .map(|v| {
                let target = model_compiler::bench::schedule::generic_target(
                    v.start.unwrap_or(0.0),
                    v.min,
                    v.max,
                );
                (common::slot_of(v), target)
            })
            .collect();
        m.inst.initialize(0.0).unwrap();
        for s in &spec.sensors {
            m.inst.set_param(s.valid, 1.0);
        }
        let outputs: Vec<_> = m
            .inst
            .model()
            .variables
            .iter()
            .filter(|v| v.causality == fmu_runtime::model::Causality::Output)
            .cloned()
            .collect();
        let mut snap = m.inst.snapshot();
        let (h, mut sink) = (1e-3, 0.0);
        let mut step = |m: &mut Machine, k: usize| {
            for (i, s) in spec.sensors.iter().enumerate() {
                let y = m.inst.probe(Probe::SensorEstimate(i));
                m.inst.set_param(s.value, y);
            }
            m.inst.advance(k as f64 * h).unwrap();
            sink += outputs.iter().map(|v| m.inst.value(v)).sum::<f64>();
            m.inst.snapshot_into(&mut snap);
        };
        // Warm-up: the first samples of every sensor.
        for k in 1..=20 {
            step(&mut m, k);
        }
        let corrections = m.inst.estimator().unwrap().corrections();
        let n = counting::count_during(|| {
            for k in 21..=STEPS {
                if k == STEPS / 2 {
                    for &(slot, target) in &inputs {
                        m.inst.set_param(slot, target);
                    }
                }
                step(&mut m, k);
            }
        });
        let corrections = m.inst.estimator().unwrap().corrections() - corrections;
        assert!(sink.is_finite());
        // PATU's sensors sample at 200 Hz, the four-bar's at 1 kHz.
        assert!(corrections >= 5000, "{file}: {corrections} corrections");
        assert_eq!(n, 0, "{file}: {n} allocations in the estimator's steps");
    }
}

//! Many instances in one process (issue 54, item 2): 64 instances of 8 different FMUs,
//! stepped in lockstep on 2 threads (each thread 4 instances of every FMU, interleaved
//! step by step) through the FMUs' C ABI, give bit for bit the results of each FMU run
//! alone. The runtime keeps no global mutable state: everything an instance changes is in
//! its own data, so neither another instance of the same FMU nor the same runtime binary
//! loaded for another FMU can move its results.

mod common;

use common::{temp_dir, workspace};
use model_compiler::diagnostic::Source;
use model_compiler::host::fmi::{FMI2_OK, Fmu, Instance};

const MODELS: [&str; 8] = [
    "naya-rod",
    "jaiswal-fourbar",
    "hydraulic-crane",
    "patu-crane",
    "patu-pvg32",
    "excavator",
    "knuckle-crane",
    "long-boom-crane",
];
const STEPS: usize = 25;
const H: f64 = 0.01;
const THREADS: usize = 2;
const PER_THREAD_AND_FMU: usize = 4;

/// Every real output at every communication point, as bits.
type Trace = Vec<Vec<u64>>;

/// A run in progress: its instance, the outputs' value references, what it recorded.
struct Run<'a> {
    instance: Instance<'a>,
    outputs: Vec<u32>,
    trace: Trace,
}

impl<'a> Run<'a> {
    /// Instantiated and initialized, its inputs moved off their start values (a quarter of
    /// the way to their maximum) so that every machine moves.
    fn start(fmu: &'a Fmu, name: &str) -> Run<'a> {
        let md = &fmu.description;
        let instance = fmu.instantiate(name).unwrap();
        instance.initialize(0.0, None).unwrap();
        let (mut vr, mut values) = (Vec::new(), Vec::new());
        for v in md.real_inputs() {
            if let (Some(start), Some(max)) = (v.start, v.max) {
                vr.push(v.value_reference);
                values.push(start + 0.25 * (max - start));
            }
        }
        assert_eq!(instance.set_real(&vr, &values), FMI2_OK, "{name}");
        let outputs = md
            .real_outputs()
            .iter()
            .map(|v| v.value_reference)
            .collect();
        let mut run = Run {
            instance,
            outputs,
            trace: Vec::new(),
        };
        run.record();
        run
    }

    fn record(&mut self) {
        let mut row = vec![0.0; self.outputs.len()];
        assert_eq!(self.instance.get_real(&self.outputs, &mut row), FMI2_OK);
        self.trace.push(row.iter().map(|v| v.to_bits()).collect());
    }

    fn step(&mut self, k: usize) {
        let s = self.instance.do_step(k as f64 * H, H);
        assert_eq!(s, FMI2_OK, "{:?}", self.instance.messages());
        self.record();
    }
}

#[test]
fn sixty_four_instances_of_eight_fmus_on_two_threads_match_single_runs() {
    let dir = temp_dir("many-instances");
    let fmus: Vec<Fmu> = MODELS
        .iter()
        .map(|m| {
            let path = workspace().join("models").join(format!("{m}.toml"));
            let source = Source::new(&path, std::fs::read_to_string(&path).unwrap());
            let built = model_compiler::build_for(&source, &dir, &["linux64".into()])
                .unwrap_or_else(|_| panic!("{m} does not build"));
            Fmu::load(&built).unwrap()
        })
        .collect();

    // Each FMU alone: one instance in the process at a time.
    let alone: Vec<Trace> = fmus
        .iter()
        .map(|fmu| {
            let mut run = Run::start(fmu, "alone");
            for k in 0..STEPS {
                run.step(k);
            }
            run.trace
        })
        .collect();
    for (m, trace) in MODELS.iter().zip(&alone) {
        assert_ne!(
            trace[0], trace[STEPS],
            "{m} does not move: a weak comparison"
        );
    }

    // 64 at once: on each thread every FMU 4 times, all stepped in lockstep.
    let traces: Vec<Vec<(usize, Trace)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let fmus = &fmus;
                scope.spawn(move || {
                    let mut runs: Vec<(usize, Run<'_>)> = Vec::new();
                    for copy in 0..PER_THREAD_AND_FMU {
                        for (f, fmu) in fmus.iter().enumerate() {
                            runs.push((f, Run::start(fmu, &format!("t{t}-{copy}-{f}"))));
                        }
                    }
                    for k in 0..STEPS {
                        for (_, run) in runs.iter_mut() {
                            run.step(k);
                        }
                    }
                    runs.into_iter().map(|(f, r)| (f, r.trace)).collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut compared = 0;
    for (t, thread) in traces.iter().enumerate() {
        for (f, trace) in thread {
            assert!(
                *trace == alone[*f],
                "{} on thread {t}: results differ from the run alone",
                MODELS[*f]
            );
            compared += 1;
        }
    }
    assert_eq!(compared, THREADS * PER_THREAD_AND_FMU * MODELS.len());
    assert_eq!(compared, 64);
    drop(fmus);
    let _ = std::fs::remove_dir_all(&dir);
}

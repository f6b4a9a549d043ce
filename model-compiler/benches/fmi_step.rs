//! `cargo bench -p model-compiler --bench fmi_step`: one `fmi2DoStep` of every model in
//! `models/` through the FMU's C ABI (unzip, `dlopen`, `fmi2*`), exactly as
//! `hydromech bench` does, under criterion's statistics (warm-up, outlier classification,
//! confidence intervals, change against the previous run).
//!
//! Each model runs its fixed manoeuvre (`model_compiler::bench::schedule`) in a loop: the
//! inputs are set before every step (untimed), only `fmi2DoStep` is timed
//! (`iter_custom`), and when the manoeuvre's span is used up the instance is re-created
//! outside the timed region. Missing `fmus/<model>.fmu` files are built first.
//! Kept short on purpose: 10 samples, 3 s per benchmark.

use criterion::{Criterion, criterion_group, criterion_main};
use model_compiler::bench::schedule::{self, Plan};
use model_compiler::diagnostic::Source;
use model_compiler::host::fmi::{FMI2_OK, Fmu, Instance};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn workspace() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `fmus/<stem>.fmu` for every `models/*.toml`, built when missing.
fn fmus() -> Vec<PathBuf> {
    let ws = workspace();
    let mut models: Vec<PathBuf> = std::fs::read_dir(ws.join("models"))
        .expect("models/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    models.sort();
    let out = ws.join("fmus");
    models
        .iter()
        .filter_map(|m| {
            let fmu = out.join(m.with_extension("fmu").file_name()?);
            if !fmu.exists() {
                eprintln!("building {}", fmu.display());
                let source = Source::new(m, std::fs::read_to_string(m).ok()?);
                if let Err(e) = model_compiler::build(&source, &out) {
                    eprintln!("{}: {}", m.display(), e[0].message);
                    return None;
                }
            }
            Some(fmu)
        })
        .collect()
}

/// One instance running the model's manoeuvre at communication step `h`.
struct Run<'a> {
    fmu: &'a Fmu,
    inst: Instance<'a>,
    plan: Plan,
    in_vr: Vec<u32>,
    in_val: Vec<f64>,
    out_vr: Vec<u32>,
    out_val: Vec<f64>,
    t0: f64,
    h: f64,
    k: usize,
    n: usize,
}

impl<'a> Run<'a> {
    fn new(fmu: &'a Fmu, h: f64) -> Run<'a> {
        let md = &fmu.description;
        let inputs = md.real_inputs();
        let t0 = md.start_time;
        let span = md.stop_time.map_or(10.0, |s| s - t0);
        let n = (span / h * (1.0 + 1e-9)).floor() as usize;
        let outputs: Vec<u32> = md
            .real_outputs()
            .iter()
            .take(model_compiler::bench::run::MAX_OUTPUTS)
            .map(|v| v.value_reference)
            .collect();
        let inst = Self::fresh(fmu, t0);
        Run {
            fmu,
            inst,
            plan: schedule::plan(&md.model_name, &inputs, t0, n as f64 * h),
            in_vr: inputs.iter().map(|v| v.value_reference).collect(),
            in_val: inputs.iter().map(|v| v.start.unwrap_or(0.0)).collect(),
            out_val: vec![0.0; outputs.len()],
            out_vr: outputs,
            t0,
            h,
            k: 0,
            n,
        }
    }

    fn fresh(fmu: &'a Fmu, t0: f64) -> Instance<'a> {
        let inst = fmu.instantiate("criterion").expect("fmi2Instantiate");
        inst.initialize(t0, None).expect("initialization");
        inst
    }

    /// One step of the manoeuvre; returns the time spent in `fmi2DoStep`.
    fn step(&mut self) -> Duration {
        if self.k >= self.n {
            self.inst = Self::fresh(self.fmu, self.t0);
            self.k = 0;
        }
        let t = self.t0 + self.k as f64 * self.h;
        for (v, s) in self.in_val.iter_mut().zip(&self.plan.inputs) {
            *v = s.value_at(t, 1e-6 * self.h);
        }
        self.inst.set_real(&self.in_vr, &self.in_val);
        let started = Instant::now();
        let status = self.inst.do_step(black_box(t), self.h);
        let dt = started.elapsed();
        assert_eq!(
            status,
            FMI2_OK,
            "fmi2DoStep at t = {t}: {:?}",
            self.inst.messages()
        );
        self.k += 1;
        dt
    }
}

fn bench(c: &mut Criterion) {
    let loaded: Vec<Fmu> = fmus()
        .iter()
        .map(|p| Fmu::load(p).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let mut group = c.benchmark_group("fmi2DoStep");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for fmu in &loaded {
        let md = &fmu.description;
        let internal = md.internal_step().expect("solver.step");
        let mut steps = vec![internal];
        if (internal - 1e-3).abs() > 1e-12 {
            steps.push(1e-3);
        }
        for h in steps {
            let mut run = Run::new(fmu, h);
            let id = format!("{}/{}ms", md.model_name, h * 1e3);
            group.bench_function(id, |b| {
                b.iter_custom(|iters| (0..iters).map(|_| run.step()).sum())
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("fmi2SetReal+fmi2GetReal");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1));
    for fmu in &loaded {
        let mut run = Run::new(fmu, fmu.description.internal_step().unwrap_or(1e-3));
        run.step();
        group.bench_function(fmu.description.model_name.as_str(), |b| {
            b.iter(|| {
                black_box(run.inst.set_real(&run.in_vr, &run.in_val));
                black_box(run.inst.get_real(&run.out_vr, &mut run.out_val));
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

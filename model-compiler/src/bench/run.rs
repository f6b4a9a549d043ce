//! The FMU benchmark: a fixed manoeuvre through the C ABI, timed per `fmi2DoStep`.

use super::schedule::{self, Plan};
use super::stats::{Stats, stats};
use crate::host::fmi::{FMI2_OK, Fmu, Instance, heap_bytes, rss_bytes, status_name};
use crate::host::xml::VarType;
use std::ffi::c_int;
use std::hint::black_box;
use std::time::Instant;

/// At most this many Real outputs are read per step (issue 7: "get of 20 outputs").
pub const MAX_OUTPUTS: usize = 20;

/// Settings of one model's benchmark.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Communication steps to time; `None` = the default experiment's whole span.
    pub steps: Option<usize>,
    /// Untimed steps on a separate instance before each timed run.
    pub warmup: usize,
    /// Communication step sizes to run: `None` stands for the model's internal step.
    pub comm_steps: Vec<Option<f64>>,
    /// Batches × calls of the get/set overhead measurement.
    pub overhead_batches: usize,
    pub overhead_calls: usize,
    /// Parameters set after `fmi2Instantiate`, before initialization (`--set NAME=VALUE`),
    /// e.g. `cylinder.friction_model=2`.
    pub parameters: Vec<(String, f64)>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            steps: None,
            warmup: 200,
            comm_steps: vec![None, Some(1e-3)],
            overhead_batches: 200,
            overhead_calls: 50,
            parameters: Vec::new(),
        }
    }
}

/// The slowest step of a run and what happened around it.
#[derive(Clone, Debug, PartialEq)]
pub struct Worst {
    pub index: usize,
    /// Communication point at which the step starts [s].
    pub time: f64,
    pub seconds: f64,
    pub iterations: Option<i32>,
    /// Closest input switch of the manoeuvre [s].
    pub nearest_switch: Option<f64>,
}

/// One timed run at one communication step.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// `internal` or e.g. `1 ms`.
    pub label: String,
    pub comm_step: f64,
    pub steps: usize,
    pub simulated: f64,
    /// Wall time of one `fmi2DoStep` [s].
    pub step: Stats,
    /// CPU time of the calling thread in one `fmi2DoStep` [s]: the wall time without the
    /// intervals the OS ran something else (`CLOCK_THREAD_CPUTIME_ID`), i.e. what the step
    /// costs on a core of its own. On a shared machine the wall maximum is set by
    /// preemption; this maximum is the solver's worst step.
    pub cpu: Stats,
    /// Newton iterations of the last internal step of each `fmi2DoStep`.
    pub iterations: Option<Stats>,
    /// Internal steps per communication step (from `solver.steps`).
    pub internal_steps: Option<f64>,
    /// Sum of the `fmi2DoStep` wall times / simulated time.
    pub rtf: f64,
    pub first_step: f64,
    pub worst: Option<Worst>,
    /// Steps slower than 10 × the median, with their start times (at most 10 listed).
    pub outliers: Vec<(f64, f64)>,
    pub outlier_count: usize,
    /// Malloc heap growth over the timed stepping [bytes] (0 for an allocation-free loop).
    pub heap_growth: Option<i64>,
    /// `Some(message)` if a step failed (the run stops there).
    pub failure: Option<String>,
}

/// Everything measured for one model.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelResult {
    /// Model name, with the `--set` parameters in brackets when there are any.
    pub model: String,
    pub parameters: Vec<(String, f64)>,
    pub fmu: String,
    pub guid: String,
    pub fmi_version: String,
    pub internal_step: f64,
    pub inputs: usize,
    /// Real outputs read per step (≤ MAX_OUTPUTS).
    pub outputs: usize,
    pub manoeuvre: String,
    pub runs: Vec<RunResult>,
    /// `fmi2SetReal`(inputs) + `fmi2GetReal`(outputs), per call pair [s]: statistics
    /// over batches.
    pub fmi_overhead: Option<Stats>,
    /// Heap and RSS growth around `fmi2Instantiate` + initialization [bytes].
    pub heap_bytes: Option<i64>,
    pub rss_bytes: Option<i64>,
    /// Wall time of `fmi2Instantiate` and of the initialization [s].
    pub instantiate_time: f64,
    pub initialize_time: f64,
}

/// Value references and buffers of the interface, resolved once.
struct Io {
    in_vr: Vec<u32>,
    in_val: Vec<f64>,
    out_vr: Vec<u32>,
    out_val: Vec<f64>,
    iter_vr: Option<u32>,
    steps_vr: Option<u32>,
    sensors: Sensors,
}

/// An estimator FMU's sensors, fed back: each `sensor.<name>` gets the estimator's own
/// `sensor.<name>.estimate` of the step before, flagged valid, so every sample costs a
/// full correction (and the innovations stay small: the estimate is not driven off).
#[derive(Default)]
struct Sensors {
    /// Index of each sensor's input in `Io::in_vr`.
    input: Vec<usize>,
    valid_vr: Vec<u32>,
    estimate_vr: Vec<u32>,
    estimate: Vec<f64>,
}

impl Sensors {
    fn of(
        md: &crate::host::xml::ModelDescription,
        inputs: &[&crate::host::xml::ScalarVariable],
    ) -> Sensors {
        let mut s = Sensors::default();
        for (k, v) in inputs.iter().enumerate() {
            let Some(name) = v.name.strip_prefix("sensor.") else {
                continue;
            };
            let valid = md.variable(&format!("sensor.{name}.valid"));
            let estimate = md.variable(&format!("sensor.{name}.estimate"));
            if let (Some(valid), Some(estimate)) = (valid, estimate) {
                s.input.push(k);
                s.valid_vr.push(valid.value_reference);
                s.estimate_vr.push(estimate.value_reference);
                s.estimate.push(0.0);
            }
        }
        s
    }

    /// After initialization: every sensor valid from now on, its first sample the
    /// initial estimate.
    fn start(&mut self, inst: &Instance<'_>) -> Result<(), String> {
        if self.input.is_empty() {
            return Ok(());
        }
        inst.check(
            "fmi2SetBoolean",
            inst.set_boolean(&self.valid_vr, &vec![1; self.valid_vr.len()]),
        )?;
        self.read(inst);
        Ok(())
    }

    fn read(&mut self, inst: &Instance<'_>) {
        if !self.input.is_empty() {
            inst.get_real(&self.estimate_vr, &mut self.estimate);
        }
    }
}

fn label_of(h: Option<f64>, internal: f64) -> String {
    match h {
        None => "internal".into(),
        Some(h) => {
            let ms = h * 1e3;
            if (h - internal).abs() <= 1e-12 * internal {
                format!("{ms} ms (= internal)")
            } else {
                format!("{ms} ms")
            }
        }
    }
}

/// A `--set` parameter resolved against the model description.
struct Parameter {
    name: String,
    vr: u32,
    value: f64,
    integer: bool,
}

fn resolve_parameters(fmu: &Fmu, sets: &[(String, f64)]) -> Result<Vec<Parameter>, String> {
    sets.iter()
        .map(|(name, value)| {
            let v = fmu
                .description
                .variable(name)
                .ok_or_else(|| format!("--set {name}: the FMU has no such variable"))?;
            let integer = match v.var_type {
                VarType::Real => false,
                VarType::Integer | VarType::Enumeration => true,
                _ => return Err(format!("--set {name}: only Real and Integer variables")),
            };
            if integer && value.fract() != 0.0 {
                return Err(format!("--set {name}: {value} is not an integer"));
            }
            Ok(Parameter {
                name: name.clone(),
                vr: v.value_reference,
                value: *value,
                integer,
            })
        })
        .collect()
}

/// `fmi2Instantiate` + the `--set` parameters.
fn instantiate<'a>(fmu: &'a Fmu, name: &str, params: &[Parameter]) -> Result<Instance<'a>, String> {
    let inst = fmu.instantiate(name)?;
    for p in params {
        let what = format!("setting {} = {}", p.name, p.value);
        if p.integer {
            inst.check(&what, inst.set_integer(&[p.vr], &[p.value as c_int]))?;
        } else {
            inst.check(&what, inst.set_real(&[p.vr], &[p.value]))?;
        }
    }
    Ok(inst)
}

/// Runs the benchmark of one loaded FMU.
pub fn bench_fmu(fmu: &Fmu, settings: &Settings) -> Result<ModelResult, String> {
    let md = &fmu.description;
    let params = resolve_parameters(fmu, &settings.parameters)?;
    let (version, platform) = fmu.library.version();
    if platform != "default" {
        return Err(format!(
            "fmi2GetTypesPlatform is \"{platform}\", not \"default\""
        ));
    }
    let internal = md
        .internal_step()
        .ok_or("the FMU has neither a solver.step parameter nor a default step size")?;
    let inputs = md.real_inputs();
    let outputs = md.real_outputs();
    let var = |name: &str| {
        md.variable(name)
            .filter(|v| v.var_type == VarType::Integer)
            .map(|v| v.value_reference)
    };
    let mut io = Io {
        in_vr: inputs.iter().map(|v| v.value_reference).collect(),
        in_val: inputs.iter().map(|v| v.start.unwrap_or(0.0)).collect(),
        out_vr: outputs
            .iter()
            .take(MAX_OUTPUTS)
            .map(|v| v.value_reference)
            .collect(),
        out_val: vec![0.0; outputs.len().min(MAX_OUTPUTS)],
        iter_vr: var("solver.iterations"),
        steps_vr: var("solver.steps"),
        sensors: Sensors::of(md, &inputs),
    };
    let t0 = md.start_time;
    let span = md
        .stop_time
        .map(|s| s - t0)
        .filter(|s| *s > 0.0)
        .unwrap_or(10.0);

    let mut label = md.model_name.clone();
    if !params.is_empty() {
        let list: Vec<String> = params
            .iter()
            .map(|p| format!("{}={}", p.name, p.value))
            .collect();
        label = format!("{label} [{}]", list.join(", "));
    }
    let mut result = ModelResult {
        model: label,
        parameters: settings.parameters.clone(),
        fmu: fmu.path.display().to_string(),
        guid: md.guid.clone(),
        fmi_version: version,
        internal_step: internal,
        inputs: io.in_vr.len(),
        outputs: io.out_vr.len(),
        manoeuvre: String::new(),
        runs: Vec::new(),
        fmi_overhead: None,
        heap_bytes: None,
        rss_bytes: None,
        instantiate_time: f64::NAN,
        initialize_time: f64::NAN,
    };

    for (k, &comm) in settings.comm_steps.iter().enumerate() {
        let h = comm.unwrap_or(internal);
        let full = (span / h * (1.0 + 1e-9)).floor().max(1.0) as usize;
        let n = settings.steps.map_or(full, |s| s.min(full).max(1));
        let run_span = n as f64 * h;
        let plan = schedule::plan(&md.model_name, &inputs, t0, run_span);
        if k == 0 {
            result.manoeuvre = plan.description.clone();
            if !io.sensors.input.is_empty() {
                result.manoeuvre += &format!(
                    "; {} estimator sensor(s) fed their own estimate, valid at every sample",
                    io.sensors.input.len()
                );
            }
        }

        // Warm-up: code, caches and the allocator, on an instance of its own.
        {
            let inst = instantiate(fmu, "warmup", &params)?;
            inst.initialize(t0, None)?;
            io.sensors.start(&inst)?;
            let w = settings.warmup.min(n);
            for i in 0..w {
                let t = t0 + i as f64 * h;
                apply(&plan, &mut io, t, h);
                inst.check("fmi2SetReal", inst.set_real(&io.in_vr, &io.in_val))?;
                let s = inst.do_step(t, h);
                if s != FMI2_OK {
                    break;
                }
                inst.get_real(&io.out_vr, &mut io.out_val);
                io.sensors.read(&inst);
            }
        }

        // The timed instance; its creation is measured for memory on the first run.
        let heap0 = heap_bytes();
        let rss0 = rss_bytes();
        let started = Instant::now();
        let inst = instantiate(fmu, "bench", &params)?;
        let instantiated = started.elapsed().as_secs_f64();
        let started = Instant::now();
        inst.initialize(t0, None)?;
        let initialized = started.elapsed().as_secs_f64();
        io.sensors.start(&inst)?;
        if k == 0 {
            result.heap_bytes = heap0.zip(heap_bytes()).map(|(a, b)| b as i64 - a as i64);
            result.rss_bytes = rss0.zip(rss_bytes()).map(|(a, b)| b as i64 - a as i64);
            result.instantiate_time = instantiated;
            result.initialize_time = initialized;
        }

        let run = timed_run(&inst, &plan, &mut io, t0, h, n, label_of(comm, internal))?;
        result.runs.push(run);

        if k == 0 {
            result.fmi_overhead = Some(overhead(&inst, &mut io, settings)?);
        }
    }
    Ok(result)
}

fn apply(plan: &Plan, io: &mut Io, t: f64, h: f64) {
    for (slot, s) in io.in_val.iter_mut().zip(&plan.inputs) {
        *slot = s.value_at(t, 1e-6 * h);
    }
    for (&k, &y) in io.sensors.input.iter().zip(&io.sensors.estimate) {
        io.in_val[k] = y;
    }
}

fn timed_run(
    inst: &Instance<'_>,
    plan: &Plan,
    io: &mut Io,
    t0: f64,
    h: f64,
    n: usize,
    label: String,
) -> Result<RunResult, String> {
    let mut times = Vec::with_capacity(n);
    let mut cpu_times = Vec::with_capacity(n);
    let mut iters: Vec<i32> = Vec::with_capacity(n);
    let mut internal_steps_total: Option<i64> = None;
    let mut int_buf: [c_int; 1] = [0];
    let mut failure = None;
    if let Some(vr) = io.steps_vr {
        inst.get_integer(&[vr], &mut int_buf);
        internal_steps_total = Some(-(int_buf[0] as i64));
    }
    let heap0 = heap_bytes();
    for i in 0..n {
        // As a master: inputs at t, one communication step, outputs at t + h.
        let t = t0 + i as f64 * h;
        apply(plan, io, t, h);
        let s = inst.set_real(&io.in_vr, &io.in_val);
        if s != FMI2_OK {
            failure = Some(format!("fmi2SetReal at t = {t} s: {}", status_name(s)));
            break;
        }
        let cpu0 = thread_cpu_time();
        let started = Instant::now();
        let s = inst.do_step(t, h);
        let dt = started.elapsed().as_secs_f64();
        let cpu = thread_cpu_time() - cpu0;
        if s != FMI2_OK {
            failure = Some(format!(
                "fmi2DoStep({t} s, {h} s) returned {}: {}",
                status_name(s),
                inst.messages().join("; ")
            ));
            break;
        }
        times.push(dt);
        cpu_times.push(cpu);
        inst.get_real(&io.out_vr, &mut io.out_val);
        io.sensors.read(inst);
        if let Some(vr) = io.iter_vr {
            inst.get_integer(&[vr], &mut int_buf);
            iters.push(int_buf[0]);
        }
    }
    let heap_growth = heap0.zip(heap_bytes()).map(|(a, b)| b as i64 - a as i64);
    if let (Some(vr), Some(total)) = (io.steps_vr, internal_steps_total.as_mut()) {
        inst.get_integer(&[vr], &mut int_buf);
        *total += int_buf[0] as i64;
    }
    let step = stats(&times);
    let wall: f64 = times.iter().sum();
    let simulated = times.len() as f64 * h;
    let worst = times
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, &s)| {
            let time = t0 + i as f64 * h;
            Worst {
                index: i,
                time,
                seconds: s,
                iterations: iters.get(i).copied(),
                nearest_switch: plan.nearest_switch(time),
            }
        });
    let slow: Vec<(f64, f64)> = times
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > 10.0 * step.median)
        .map(|(i, &s)| (t0 + i as f64 * h, s))
        .collect();
    let iterations =
        (!iters.is_empty()).then(|| stats(&iters.iter().map(|&i| i as f64).collect::<Vec<_>>()));
    Ok(RunResult {
        label,
        comm_step: h,
        steps: times.len(),
        simulated,
        step,
        cpu: stats(&cpu_times),
        iterations,
        internal_steps: internal_steps_total
            .filter(|_| !times.is_empty())
            .map(|t| t as f64 / times.len() as f64),
        rtf: if simulated > 0.0 {
            wall / simulated
        } else {
            f64::NAN
        },
        first_step: times.first().copied().unwrap_or(f64::NAN),
        worst,
        outlier_count: slow.len(),
        outliers: slow.into_iter().take(10).collect(),
        heap_growth,
        failure,
    })
}

/// CPU time consumed by the calling thread [s] (`CLOCK_THREAD_CPUTIME_ID`; on Windows
/// `GetThreadTimes`, user + kernel).
#[cfg(unix)]
fn thread_cpu_time() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant of the platform.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[cfg(windows)]
fn thread_cpu_time() -> f64 {
    use std::ffi::c_void;
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn GetCurrentThread() -> *mut c_void;
        fn GetThreadTimes(
            thread: *mut c_void,
            creation: *mut u64,
            exit: *mut u64,
            kernel: *mut u64,
            user: *mut u64,
        ) -> i32;
    }
    let (mut creation, mut exit, mut kernel, mut user) = (0u64, 0u64, 0u64, 0u64);
    // SAFETY: the pseudo-handle of the calling thread; four writable FILETIMEs (two 32-bit
    // halves, little-endian: one u64 of 100 ns ticks each).
    let ok = unsafe {
        GetThreadTimes(
            GetCurrentThread(),
            &mut creation,
            &mut exit,
            &mut kernel,
            &mut user,
        )
    };
    if ok == 0 {
        return f64::NAN;
    }
    (kernel + user) as f64 * 1e-7
}

/// `fmi2SetReal` of every input + `fmi2GetReal` of the outputs, `overhead_calls` pairs per
/// batch; statistics of the per-pair time over the batches (one `Instant` pair per batch,
/// so the clock's own cost is spread over the calls).
fn overhead(inst: &Instance<'_>, io: &mut Io, settings: &Settings) -> Result<Stats, String> {
    let calls = settings.overhead_calls.max(1);
    let mut per_pair = Vec::with_capacity(settings.overhead_batches);
    // Warm-up batch.
    for _ in 0..calls {
        inst.check("fmi2SetReal", inst.set_real(&io.in_vr, &io.in_val))?;
        inst.check("fmi2GetReal", inst.get_real(&io.out_vr, &mut io.out_val))?;
    }
    for _ in 0..settings.overhead_batches.max(1) {
        let started = Instant::now();
        for _ in 0..calls {
            black_box(inst.set_real(black_box(&io.in_vr), black_box(&io.in_val)));
            black_box(inst.get_real(black_box(&io.out_vr), black_box(&mut io.out_val)));
        }
        per_pair.push(started.elapsed().as_secs_f64() / calls as f64);
    }
    Ok(stats(&per_pair))
}

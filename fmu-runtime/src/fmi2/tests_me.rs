//! Model Exchange through the exported functions, on the test pendulum with its continuous
//! states declared: the calling sequence, the master's integrator against the
//! Co-Simulation solver, and the errors of malformed calls.

use super::*;
use crate::instance::Instance;

const VR_X: u32 = 100;
const VR_DX: u32 = 200;

/// The test pendulum with x\[k\] and der(x\[k\]) declared, as the compiler does.
fn me_model() -> (CompiledModel, usize) {
    with_states(test_model(GUID), VR_X, VR_DX)
}

/// `m` with its continuous states declared at value references `vr_x + k` and their
/// derivatives at `vr_dx + k` (FMI 3.0 tests move them clear of their Integer ones).
pub(crate) fn with_states(mut m: CompiledModel, vr_x: u32, vr_dx: u32) -> (CompiledModel, usize) {
    let mut inst = Instance::new(Arc::new(m.clone()));
    inst.initialize(0.0).unwrap();
    let n = inst.ode_len().unwrap();
    let mut nominal = vec![0.0; n];
    inst.ode_nominals(&mut nominal).unwrap();
    for k in 0..n {
        for (vr, probe, name) in [
            (vr_x, Probe::ContinuousState(k), format!("x[{}]", k + 1)),
            (
                vr_dx,
                Probe::StateDerivative(k),
                format!("der(x[{}])", k + 1),
            ),
        ] {
            let mut v = var(
                &name,
                vr + k as u32,
                VarType::Real,
                Causality::Local,
                Variability::Continuous,
                Some(Initial::Calculated),
                Binding::Probe(probe),
                None,
                (None, None),
            );
            v.nominal = Some(nominal[k]);
            m.variables.push(v);
        }
    }
    m.validate().unwrap();
    (m, n)
}

fn me_fmu() -> (Fmu, usize) {
    let (m, n) = me_model();
    let log: Box<Log> = Box::default();
    let c = super::super::exports::instantiate_model_exchange(
        Arc::new(m),
        c"me",
        &callbacks(&log),
        true,
    );
    assert!(!c.is_null());
    (Fmu { c: c.cast(), log }, n)
}

impl Fmu {
    /// Setup, initialization, the initial event update; ends in Continuous-Time Mode.
    fn start_me(&self) {
        assert_eq!(self.setup(Some(10.0)), fmi2OK);
        assert_eq!(unsafe { fmi2EnterInitializationMode(self.c) }, fmi2OK);
        assert_eq!(unsafe { fmi2ExitInitializationMode(self.c) }, fmi2OK);
        assert_eq!(self.state(), FmiState::EventMode);
        let mut info = fmi2EventInfo::default();
        assert_eq!(unsafe { fmi2NewDiscreteStates(self.c, &mut info) }, fmi2OK);
        assert_eq!(info.newDiscreteStatesNeeded, fmi2False);
        assert_eq!(info.terminateSimulation, fmi2False);
        assert_eq!(info.nextEventTimeDefined, fmi2False);
        assert_eq!(unsafe { fmi2EnterContinuousTimeMode(self.c) }, fmi2OK);
        assert_eq!(self.state(), FmiState::ContinuousTimeMode);
    }

    fn derivatives(&self, t: f64, x: &[f64]) -> Vec<f64> {
        let mut dx = vec![f64::NAN; x.len()];
        unsafe {
            assert_eq!(fmi2SetTime(self.c, t), fmi2OK);
            assert_eq!(fmi2SetContinuousStates(self.c, x.as_ptr(), x.len()), fmi2OK);
            assert_eq!(
                fmi2GetDerivatives(self.c, dx.as_mut_ptr(), dx.len()),
                fmi2OK
            );
        }
        dx
    }
}

#[test]
fn a_co_simulation_model_refuses_model_exchange() {
    let log: Box<Log> = Box::default();
    let c = super::super::exports::instantiate_model_exchange(
        Arc::new(test_model(GUID)),
        c"me",
        &callbacks(&log),
        true,
    );
    assert!(c.is_null());
    if LOGGER_WORKS {
        assert!(last_message(&log).contains("--interface me"));
    }
}

/// RK4 with the master's calls against the trapezoidal Co-Simulation solver: both at
/// 1 ms over 0.5 s of the swinging pendulum. RK4's error is O(h⁴), the trapezoidal rule's
/// O(h²), so the gap is the Co-Simulation's own error (~1e-6 rad here).
#[test]
fn the_master_integrates_what_co_simulation_integrates() {
    let (me, n) = me_fmu();
    me.start_me();
    assert_eq!(n, 3, "the pendulum: angle, rate, actuator work");
    let mut x = vec![0.0; n];
    let mut nominal = vec![0.0; n];
    unsafe {
        assert_eq!(fmi2GetContinuousStates(me.c, x.as_mut_ptr(), n), fmi2OK);
        assert_eq!(
            fmi2GetNominalsOfContinuousStates(me.c, nominal.as_mut_ptr(), n),
            fmi2OK
        );
    }
    assert_eq!(nominal, [1.0, 1.0, 1.0]);
    let cs = Fmu::new();
    cs.init();
    assert_eq!(x[0], cs.get_real(VR_ANGLE).1, "same initial state");
    let h = 1e-3;
    let mut t = 0.0;
    let mut gap = 0.0f64;
    for _ in 0..500 {
        let k1 = me.derivatives(t, &x);
        let at =
            |k: &[f64], s: f64| -> Vec<f64> { x.iter().zip(k).map(|(a, b)| a + s * b).collect() };
        let k2 = me.derivatives(t + h / 2.0, &at(&k1, h / 2.0));
        let k3 = me.derivatives(t + h / 2.0, &at(&k2, h / 2.0));
        let k4 = me.derivatives(t + h, &at(&k3, h));
        for i in 0..n {
            x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        t += h;
        unsafe {
            assert_eq!(fmi2SetTime(me.c, t), fmi2OK);
            assert_eq!(fmi2SetContinuousStates(me.c, x.as_ptr(), n), fmi2OK);
            let (mut enter, mut stop) = (fmi2True, fmi2True);
            assert_eq!(
                fmi2CompletedIntegratorStep(me.c, fmi2True, &mut enter, &mut stop),
                fmi2OK
            );
            assert_eq!(
                (enter, stop),
                (fmi2False, fmi2False),
                "an open chain has no step event"
            );
        }
        assert_eq!(cs.do_step(t - h, h), fmi2OK);
        // The outputs and x[k] are those of the states as set.
        assert_eq!(me.get_real(VR_ANGLE).1, x[0]);
        assert_eq!(me.get_real(VR_X).1, x[0]);
        assert_eq!(me.get_real(VR_X + 1).1, x[1]);
        gap = gap.max((x[0] - cs.get_real(VR_ANGLE).1).abs());
    }
    assert!((x[0] - 0.1).abs() > 0.5, "the pendulum fell: {}", x[0]);
    eprintln!("angle {} rad, RK4 against trapezoidal {gap:e} rad", x[0]);
    assert!(gap < 1e-5, "RK4 against trapezoidal: {gap:e} rad");
    // der(x) variables are ẋ.
    let dx = me.derivatives(t, &x);
    assert_eq!(me.get_real(VR_DX).1, dx[0]);
    assert_eq!(me.get_real(VR_DX + 1).1, dx[1]);
    assert_eq!(dx[0], x[1]);
    // In Co-Simulation the same variables read the step end's state.
    assert_eq!(unsafe { fmi2Terminate(me.c) }, fmi2OK);
}

#[test]
fn model_exchange_calls_out_of_sequence_are_errors() {
    let (me, n) = me_fmu();
    let mut x = vec![0.0; n];
    unsafe {
        assert_eq!(fmi2GetContinuousStates(me.c, x.as_mut_ptr(), n), fmi2Error);
    }
    me.assert_logged(
        fmi2Error,
        &[
            "fmi2GetContinuousStates",
            "Illegal call sequence (state Instantiated)",
        ],
    );
    let (me, _) = me_fmu();
    me.start_me();
    let mut info = fmi2EventInfo::default();
    unsafe {
        // Co-Simulation functions are not for a Model Exchange instance.
        assert_eq!(fmi2DoStep(me.c, 0.0, 1e-3, fmi2True), fmi2Error);
    }
    me.assert_logged(fmi2Error, &["fmi2DoStep", "ContinuousTimeMode"]);
    let (me, _) = me_fmu();
    me.start_me();
    unsafe {
        assert_eq!(fmi2NewDiscreteStates(me.c, &mut info), fmi2Error);
    }
    me.assert_logged(
        fmi2Error,
        &["fmi2NewDiscreteStates", "Illegal call sequence"],
    );
    // The instance is in Error now: only reset and free help.
    assert_eq!(me.state(), FmiState::Error);
    assert_eq!(unsafe { fmi2Reset(me.c) }, fmi2OK);
    me.start_me();
}

#[test]
fn malformed_model_exchange_calls_are_errors() {
    type Call = dyn Fn(&Fmu, usize) -> fmi2Status;
    let cases: [(&str, &Call); 7] = [
        ("x[] has 1 elements; this FMU has 3", &|f, _| unsafe {
            fmi2SetContinuousStates(f.c, [0.0].as_ptr(), 1)
        }),
        ("x[1] is NaN", &|f, n| unsafe {
            fmi2SetContinuousStates(f.c, [0.0, f64::NAN, 0.0].as_ptr(), n)
        }),
        ("x[] is NULL", &|f, n| unsafe {
            fmi2SetContinuousStates(f.c, null(), n)
        }),
        ("derivatives[] has 4 elements", &|f, _| unsafe {
            fmi2GetDerivatives(f.c, [0.0; 4].as_mut_ptr(), 4)
        }),
        ("time must be finite", &|f, _| unsafe {
            fmi2SetTime(f.c, f64::INFINITY)
        }),
        ("no event indicators", &|f, _| unsafe {
            fmi2GetEventIndicators(f.c, [0.0].as_mut_ptr(), 1)
        }),
        ("enterEventMode is NULL", &|f, _| unsafe {
            let mut stop = fmi2False;
            fmi2CompletedIntegratorStep(f.c, fmi2True, null_mut(), &mut stop)
        }),
    ];
    for (needle, call) in cases {
        let (me, n) = me_fmu();
        me.start_me();
        assert_eq!(call(&me, n), fmi2Error, "{needle}");
        me.assert_logged(fmi2Error, &[needle]);
    }
}

#[test]
fn fmu_states_round_trip_in_model_exchange_and_stay_with_their_interface() {
    let (me, n) = me_fmu();
    me.start_me();
    let x0 = {
        let mut x = vec![0.0; n];
        unsafe { fmi2GetContinuousStates(me.c, x.as_mut_ptr(), n) };
        x
    };
    let st = me.get_state();
    let moved = [x0[0] + 0.05, 0.3, 0.0];
    let dx_moved = me.derivatives(0.1, &moved);
    assert_eq!(unsafe { fmi2SetFMUstate(me.c, st) }, fmi2OK);
    let mut x = vec![0.0; n];
    unsafe { fmi2GetContinuousStates(me.c, x.as_mut_ptr(), n) };
    assert_eq!(x, x0);
    assert_eq!(me.time(), 0.0);
    // The derivatives are evaluated again at the restored state, not the moved one.
    let mut dx = vec![0.0; n];
    unsafe { fmi2GetDerivatives(me.c, dx.as_mut_ptr(), n) };
    assert_ne!(dx, dx_moved);
    assert_eq!(dx[0], x0[1]);
    // Serialized and back.
    let bytes = me.serialize(st);
    let (status, copy) = me.deserialize(&bytes);
    assert_eq!(status, fmi2OK);
    assert_eq!(unsafe { fmi2SetFMUstate(me.c, copy) }, fmi2OK);
    me.free_state(copy);
    me.free_state(st);
    // A Co-Simulation instance's state (same GUID) is not a Model Exchange state.
    let cs = Fmu::new();
    cs.init();
    let cs_state = cs.get_state();
    let bytes = cs.serialize(cs_state);
    cs.free_state(cs_state);
    let (status, foreign) = me.deserialize(&bytes);
    assert_eq!(status, fmi2OK);
    assert_eq!(unsafe { fmi2SetFMUstate(me.c, foreign) }, fmi2Error);
    me.assert_logged(fmi2Error, &["other interface type"]);
    me.free_state(foreign);
}

#[test]
fn inputs_set_in_continuous_time_mode_change_the_derivatives() {
    let (me, n) = me_fmu();
    me.start_me();
    let mut x = vec![0.0; n];
    unsafe { fmi2GetContinuousStates(me.c, x.as_mut_ptr(), n) };
    let before = me.derivatives(0.0, &x);
    assert_eq!(me.set_real(VR_FORCE, 5.0), fmi2OK);
    let mut after = vec![0.0; n];
    unsafe { fmi2GetDerivatives(me.c, after.as_mut_ptr(), n) };
    assert_ne!(
        before[1], after[1],
        "the load acts at once in Model Exchange"
    );
    // A tunable parameter only in Event Mode.
    assert_eq!(me.set_real(VR_GAIN, 2.0), fmi2Error);
    me.assert_logged(fmi2Error, &["continuous-time mode only continuous inputs"]);
}

/// Directional derivatives against what they must be: der(angle) = rate exactly, the load
/// acts linearly (so any difference quotient is exact), a combined seed is the sum, and the
/// state, time and inputs are left as they were.
#[test]
fn directional_derivatives_of_the_derivatives() {
    let (me, n) = me_fmu();
    me.start_me();
    let mut x = vec![0.0; n];
    unsafe { fmi2GetContinuousStates(me.c, x.as_mut_ptr(), n) };
    x[1] = 0.4; // swinging
    let before = me.derivatives(0.2, &x);
    let dd = |unknown: u32, knowns: &[u32], seed: &[f64]| {
        let mut out = f64::NAN;
        let s = unsafe {
            fmi2GetDirectionalDerivative(
                me.c,
                &unknown,
                1,
                knowns.as_ptr(),
                knowns.len(),
                seed.as_ptr(),
                &mut out,
            )
        };
        assert_eq!(s, fmi2OK);
        out
    };
    // d(angle)/dt = rate: ∂/∂rate = 1, ∂/∂angle = 0.
    assert!((dd(VR_DX, &[VR_X + 1], &[1.0]) - 1.0).abs() < 1e-9);
    assert!(dd(VR_DX, &[VR_X], &[1.0]).abs() < 1e-9);
    // The load: angular acceleration per newton, against a plain difference of two
    // evaluations (exact: the load enters linearly).
    let per_newton = dd(VR_DX + 1, &[VR_FORCE], &[1.0]);
    assert_eq!(me.set_real(VR_FORCE, 10.0), fmi2OK);
    let loaded = me.derivatives(0.2, &x);
    assert_eq!(me.set_real(VR_FORCE, 0.0), fmi2OK);
    let reference = (loaded[1] - before[1]) / 10.0;
    assert!(per_newton != 0.0);
    assert!(
        (per_newton - reference).abs() < 1e-7 * reference.abs(),
        "{per_newton} vs {reference}"
    );
    // Linear in the seed.
    let angle = dd(VR_DX + 1, &[VR_X], &[1.0]);
    let both = dd(VR_DX + 1, &[VR_X, VR_FORCE], &[2.0, -3.0]);
    assert!((both - (2.0 * angle - 3.0 * per_newton)).abs() < 1e-6 * both.abs().max(1.0));
    // Nothing moved.
    let mut after = vec![0.0; n];
    unsafe { fmi2GetDerivatives(me.c, after.as_mut_ptr(), n) };
    assert_eq!(after, before);
    // Knowns must be states or continuous inputs; unknowns derivatives or outputs.
    let mut out = 0.0;
    let s = unsafe { fmi2GetDirectionalDerivative(me.c, &VR_DX, 1, &VR_ANGLE, 1, &1.0, &mut out) };
    assert_eq!(s, fmi2Error);
    me.assert_logged(
        fmi2Error,
        &["neither a continuous state nor a continuous input"],
    );
}

/// FMI 2.0 allows `fmi2GetContinuousStates` (and outputs) in Initialization Mode: they
/// answer with the initial state for the values set so far, a later set is honoured, and
/// the run after `fmi2ExitInitializationMode` is the run of a master that read nothing.
#[test]
fn continuous_states_and_outputs_answer_in_initialization_mode() {
    let (reader, n) = me_fmu();
    let (silent, _) = me_fmu();
    let mut x = vec![f64::NAN; n];
    for fmu in [&reader, &silent] {
        assert_eq!(fmu.setup(Some(10.0)), fmi2OK);
        assert_eq!(unsafe { fmi2EnterInitializationMode(fmu.c) }, fmi2OK);
    }
    unsafe {
        assert_eq!(fmi2GetContinuousStates(reader.c, x.as_mut_ptr(), n), fmi2OK);
    }
    assert_eq!(x[0], reader.get_real(VR_ANGLE).1);
    assert_eq!(x[0], reader.get_real(VR_X).1);
    let first = x[0];
    // A start value set after a read: the next read is at the new initial state.
    for fmu in [&reader, &silent] {
        assert_eq!(fmu.set_real(VR_Q0, first + 0.2), fmi2OK);
    }
    unsafe {
        assert_eq!(fmi2GetContinuousStates(reader.c, x.as_mut_ptr(), n), fmi2OK);
    }
    assert!((x[0] - first - 0.2).abs() < 1e-12, "{} after {first}", x[0]);
    let in_init = x.clone();
    // fmi2GetDerivatives is not in the table for Initialization Mode.
    let mut dx = vec![0.0; n];
    let (strict, _) = me_fmu();
    assert_eq!(strict.setup(Some(10.0)), fmi2OK);
    assert_eq!(unsafe { fmi2EnterInitializationMode(strict.c) }, fmi2OK);
    assert_eq!(
        unsafe { fmi2GetDerivatives(strict.c, dx.as_mut_ptr(), n) },
        fmi2Error
    );
    strict.assert_logged(fmi2Error, &["fmi2GetDerivatives", "InitializationMode"]);
    for fmu in [&reader, &silent] {
        assert_eq!(unsafe { fmi2ExitInitializationMode(fmu.c) }, fmi2OK);
    }
    let mut after = vec![0.0; n];
    unsafe { fmi2GetContinuousStates(reader.c, after.as_mut_ptr(), n) };
    assert_eq!(
        after, in_init,
        "the states read in Initialization Mode are kept"
    );
    unsafe { fmi2GetContinuousStates(silent.c, x.as_mut_ptr(), n) };
    assert_eq!(
        x, in_init,
        "bit for bit what a master that read nothing gets"
    );
    // Going back to the state as set counts no parameter work, and both runs go on alike.
    for t in [0.0, 0.01] {
        assert_eq!(reader.derivatives(t, &after), silent.derivatives(t, &after));
    }
    for vr in [VR_ANGLE, VR_X + 1, VR_DX] {
        assert_eq!(reader.get_real(vr).1, silent.get_real(vr).1, "vr {vr}");
    }
    // An FMU state taken in Initialization Mode holds what was set, not the solution.
    let (st_fmu, _) = me_fmu();
    assert_eq!(st_fmu.setup(Some(10.0)), fmi2OK);
    assert_eq!(unsafe { fmi2EnterInitializationMode(st_fmu.c) }, fmi2OK);
    unsafe { fmi2GetContinuousStates(st_fmu.c, x.as_mut_ptr(), n) };
    let st = st_fmu.get_state();
    assert_eq!(st_fmu.set_real(VR_Q0, first + 0.2), fmi2OK);
    assert_eq!(unsafe { fmi2SetFMUstate(st_fmu.c, st) }, fmi2OK);
    assert_eq!(st_fmu.state(), FmiState::InitializationMode);
    unsafe { fmi2GetContinuousStates(st_fmu.c, x.as_mut_ptr(), n) };
    assert_eq!(x[0], first);
    st_fmu.free_state(st);
}

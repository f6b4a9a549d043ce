//! Tests of the `fmi3*` functions, called through their Rust names with the pendulum of
//! the FMI 2.0 tests (value references made unique across types, as FMI 3.0 wants), and
//! compared with the same run through `fmi2*`.

#![allow(non_snake_case)]

use super::component::Fmi3Component;
use super::do_step::*;
use super::exports::*;
use super::model_exchange::*;
use super::types::*;
use super::unsupported::*;
use crate::component::call::Handle;
use crate::component::call_state::FmiState;
use crate::component::logging::Logger;
use crate::fmi2::tests::{GUID, VR_ANGLE, VR_FORCE, VR_GAIN, VR_MASS, VR_STEP, test_model};
use crate::model::{CompiledModel, VarType};
use std::ffi::{CStr, c_char, c_void};
use std::ptr::{null, null_mut};
use std::sync::{Arc, Mutex};

use fmi3Status::{fmi3Discard, fmi3Error, fmi3OK};

/// Integer and Boolean value references moved above the Real ones.
fn model() -> CompiledModel {
    let mut m = test_model(GUID);
    for v in &mut m.variables {
        match v.var_type {
            VarType::Integer => v.value_reference += 100,
            VarType::Boolean => v.value_reference += 200,
            VarType::Real => {}
        }
    }
    m
}

#[derive(Clone, Debug)]
struct Record {
    status: fmi3Status,
    category: String,
    message: String,
}

/// What the test master records: log messages and intermediate-update calls, and what it
/// does in them.
#[derive(Default)]
struct Master {
    log: Mutex<Vec<Record>>,
    updates: Mutex<Vec<f64>>,
    /// In each intermediate update: set `load.force` to this value (if any).
    set_force: Mutex<Option<f64>>,
    /// Request an early return at this time at the first intermediate update.
    early_return_at: Mutex<Option<f64>>,
    /// The handle, to call back into the FMU from the callback.
    instance: Mutex<usize>,
    /// What fmi3GetFloat64 of the angle returned in the callback.
    angles: Mutex<Vec<(fmi3Status, f64)>>,
}

unsafe extern "C" fn logger(
    env: *mut c_void,
    status: fmi3Status,
    category: *const c_char,
    message: *const c_char,
) {
    let text = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    let master = unsafe { &*(env as *const Master) };
    master.log.lock().unwrap().push(Record {
        status,
        category: text(category),
        message: text(message),
    });
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn intermediate_update(
    env: *mut c_void,
    time: f64,
    set_requested: bool,
    get_allowed: bool,
    step_finished: bool,
    can_return_early: bool,
    early_return_requested: *mut bool,
    early_return_time: *mut f64,
) {
    let master = unsafe { &*(env as *const Master) };
    master.updates.lock().unwrap().push(time);
    assert!(step_finished);
    let c = *master.instance.lock().unwrap() as fmi3Instance;
    if get_allowed {
        let mut angle = f64::NAN;
        let s = unsafe { fmi3GetFloat64(c, &VR_ANGLE, 1, &mut angle, 1) };
        master.angles.lock().unwrap().push((s, angle));
    }
    if let (true, Some(f)) = (set_requested, *master.set_force.lock().unwrap()) {
        assert_eq!(unsafe { fmi3SetFloat64(c, &VR_FORCE, 1, &f, 1) }, fmi3OK);
    }
    if let Some(te) = master.early_return_at.lock().unwrap().take() {
        assert!(can_return_early);
        unsafe {
            *early_return_requested = true;
            *early_return_time = te;
        }
    }
}

struct Fmu3 {
    c: fmi3Instance,
    master: Box<Master>,
}

impl Fmu3 {
    fn with(callback: bool, early_return: bool, required: &[u32]) -> Fmu3 {
        let master: Box<Master> = Box::default();
        let env = &*master as *const Master as *mut c_void;
        let c = instantiate_with_model(
            Arc::new(model()),
            c"inst3",
            Logger::new_fmi3(Some(logger), env, c"inst3", false),
            early_return,
            callback.then_some(intermediate_update as _),
            env,
            required,
        );
        assert!(!c.is_null());
        *master.instance.lock().unwrap() = c as usize;
        Fmu3 { c, master }
    }

    fn new() -> Fmu3 {
        Fmu3::with(false, false, &[])
    }

    /// The instance behind the handle, as the FMU sees it (the handle is a raw pointer
    /// the test master holds; no other borrow of it is alive while a test uses this).
    #[allow(clippy::mut_from_ref)]
    fn fmu(&self) -> &mut Fmi3Component {
        unsafe { Fmi3Component::from_handle(self.c) }.unwrap()
    }

    fn state(&self) -> FmiState {
        self.fmu().comp.state
    }

    fn init(&self) {
        let s = unsafe { fmi3EnterInitializationMode(self.c, false, 0.0, 0.0, true, 10.0) };
        assert_eq!(s, fmi3OK);
        assert_eq!(unsafe { fmi3ExitInitializationMode(self.c) }, fmi3OK);
        assert_eq!(self.state(), FmiState::StepComplete, "Step Mode");
    }

    fn get(&self, vr: u32) -> (fmi3Status, f64) {
        let mut v = f64::NAN;
        let s = unsafe { fmi3GetFloat64(self.c, &vr, 1, &mut v, 1) };
        (s, v)
    }

    fn set(&self, vr: u32, v: f64) -> fmi3Status {
        unsafe { fmi3SetFloat64(self.c, &vr, 1, &v, 1) }
    }

    /// `fmi3DoStep`: status, earlyReturn, lastSuccessfulTime.
    fn step(&self, t: f64, h: f64) -> (fmi3Status, bool, f64) {
        let (mut event, mut terminate, mut early, mut last) = (true, true, true, f64::NAN);
        let s = unsafe {
            fmi3DoStep(
                self.c,
                t,
                h,
                true,
                &mut event,
                &mut terminate,
                &mut early,
                &mut last,
            )
        };
        if s == fmi3OK {
            assert!(!event && !terminate);
        }
        (s, early, last)
    }

    fn last(&self, status: fmi3Status) -> Record {
        let log = self.master.log.lock().unwrap();
        log.iter()
            .rev()
            .find(|r| r.status == status)
            .cloned()
            .unwrap_or_else(|| panic!("no message with status {status:?}: {log:?}"))
    }

    fn assert_logged(&self, status: fmi3Status, needles: &[&str]) {
        let r = self.last(status);
        for n in needles {
            assert!(r.message.contains(n), "{n:?} not in {:?}", r.message);
        }
    }
}

impl Drop for Fmu3 {
    fn drop(&mut self) {
        unsafe { fmi3FreeInstance(self.c) }
    }
}

/// The same manoeuvre through FMI 2.0: the angle after each 10 ms step.
fn fmi2_angles(forces: &[f64]) -> Vec<f64> {
    use crate::fmi2::exports as e;
    use crate::fmi2::types::*;
    let callbacks = fmi2CallbackFunctions {
        logger: None,
        allocateMemory: None,
        freeMemory: None,
        stepFinished: None,
        componentEnvironment: null_mut(),
    };
    let c = e::instantiate_with_model(Arc::new(model()), c"two", &callbacks, false).cast();
    let mut out = Vec::new();
    unsafe {
        assert_eq!(
            e::fmi2SetupExperiment(c, 0, 0.0, 0.0, 1, 10.0),
            fmi2Status::fmi2OK
        );
        assert_eq!(e::fmi2EnterInitializationMode(c), fmi2Status::fmi2OK);
        assert_eq!(e::fmi2ExitInitializationMode(c), fmi2Status::fmi2OK);
        for (k, f) in forces.iter().enumerate() {
            assert_eq!(e::fmi2SetReal(c, &VR_FORCE, 1, f), fmi2Status::fmi2OK);
            let t = k as f64 * 0.01;
            assert_eq!(e::fmi2DoStep(c, t, 0.01, 1), fmi2Status::fmi2OK);
            let mut a = f64::NAN;
            assert_eq!(e::fmi2GetReal(c, &VR_ANGLE, 1, &mut a), fmi2Status::fmi2OK);
            out.push(a);
        }
        e::fmi2FreeInstance(c);
    }
    out
}

const FORCES: [f64; 8] = [0.0, 20.0, 20.0, -35.0, 5.0, 0.0, 60.0, 60.0];

fn fmi3_angles(fmu: &Fmu3) -> Vec<f64> {
    fmu.init();
    FORCES
        .iter()
        .enumerate()
        .map(|(k, f)| {
            assert_eq!(fmu.set(VR_FORCE, *f), fmi3OK);
            let t = k as f64 * 0.01;
            assert_eq!(fmu.step(t, 0.01), (fmi3OK, false, t + 0.01));
            let (s, a) = fmu.get(VR_ANGLE);
            assert_eq!(s, fmi3OK);
            a
        })
        .collect()
}

#[test]
fn version_and_symbol_list() {
    assert_eq!(unsafe { CStr::from_ptr(fmi3GetVersion()) }, c"3.0");
    let mut names = EXPORTED_FUNCTIONS.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 75, "75 distinct names, as in fmi3Functions.h");
}

#[test]
fn results_are_bit_identical_to_fmi2() {
    let two = fmi2_angles(&FORCES);
    let three = fmi3_angles(&Fmu3::new());
    assert_eq!(two, three);
    assert!(two.iter().any(|a| *a != two[0]), "the pendulum moved");
}

#[test]
fn intermediate_updates_without_sets_change_nothing() {
    // 10 ms steps of a 1 ms solver: 9 intermediate updates per step.
    let fmu = Fmu3::with(true, false, &[VR_ANGLE]);
    let three = fmi3_angles(&fmu);
    assert_eq!(
        three,
        fmi2_angles(&FORCES),
        "the callback does not perturb the run"
    );
    let updates = fmu.master.updates.lock().unwrap().clone();
    assert_eq!(updates.len(), 9 * FORCES.len());
    for w in updates.windows(2) {
        assert!(w[1] > w[0], "update times increase: {w:?}");
    }
    let (t0, t8) = (updates[0], updates[8]);
    assert!((t0 - 0.001).abs() < 1e-15 && (t8 - 0.009).abs() < 1e-15);
    // The angle read inside the step is that of the internal step (it moves).
    let angles = fmu.master.angles.lock().unwrap().clone();
    assert!(angles.iter().all(|(s, a)| *s == fmi3OK && a.is_finite()));
    assert!(angles[20].1 != angles[40].1);
}

#[test]
fn inputs_set_in_an_update_act_as_a_communication_point_there() {
    // FMI 3: 10 ms steps, the force set to 30 N at every intermediate update.
    let fmu = Fmu3::with(true, false, &[VR_FORCE]);
    *fmu.master.set_force.lock().unwrap() = Some(30.0);
    fmu.init();
    assert_eq!(fmu.step(0.0, 0.01), (fmi3OK, false, 0.01));
    let three = fmu.get(VR_ANGLE).1;
    // FMI 2: 1 ms steps, 0 N in the first, 30 N from then on.
    let mut forces = vec![0.0];
    forces.extend([30.0; 9]);
    let two = {
        use crate::fmi2::exports as e;
        use crate::fmi2::types::*;
        let callbacks = fmi2CallbackFunctions {
            logger: None,
            allocateMemory: None,
            freeMemory: None,
            stepFinished: None,
            componentEnvironment: null_mut(),
        };
        let c = e::instantiate_with_model(Arc::new(model()), c"two", &callbacks, false).cast();
        let mut a = f64::NAN;
        unsafe {
            e::fmi2SetupExperiment(c, 0, 0.0, 0.0, 1, 10.0);
            e::fmi2EnterInitializationMode(c);
            e::fmi2ExitInitializationMode(c);
            for (k, f) in forces.iter().enumerate() {
                e::fmi2SetReal(c, &VR_FORCE, 1, f);
                let t = 0.01 * k as f64 / 10.0;
                let target = 0.01 * (k + 1) as f64 / 10.0;
                assert_eq!(e::fmi2DoStep(c, t, target - t, 1), fmi2Status::fmi2OK);
            }
            e::fmi2GetReal(c, &VR_ANGLE, 1, &mut a);
            e::fmi2FreeInstance(c);
        }
        a
    };
    assert!(
        (three - two).abs() <= 1e-12 * two.abs().max(1e-6),
        "{three} vs {two}"
    );
    assert_eq!(fmu.get(VR_FORCE), (fmi3OK, 30.0), "the set value stays");
}

#[test]
fn early_return_lands_on_the_requested_time() {
    let fmu = Fmu3::with(true, true, &[]);
    fmu.init();
    *fmu.master.early_return_at.lock().unwrap() = Some(0.0045);
    let (s, early, last) = fmu.step(0.0, 0.01);
    assert_eq!((s, early), (fmi3OK, true));
    assert_eq!(last, 0.0045);
    assert_eq!(fmu.fmu().comp.instance.time(), 0.0045);
    // The master continues from there.
    assert_eq!(fmu.step(0.0045, 0.0055), (fmi3OK, false, 0.0045 + 0.0055));
    // A request for a time already passed returns at once.
    *fmu.master.early_return_at.lock().unwrap() = Some(0.0);
    let (s, early, last) = fmu.step(0.01, 0.01);
    assert_eq!((s, early), (fmi3OK, true));
    assert!((last - 0.011).abs() < 1e-15, "{last}");
}

#[test]
fn early_return_needs_the_masters_consent() {
    // earlyReturnAllowed = false: canReturnEarly is false, so the test master's callback
    // (which asserts it) would fail; none is requested and the step completes.
    let fmu = Fmu3::with(true, false, &[]);
    fmu.init();
    assert_eq!(fmu.step(0.0, 0.01), (fmi3OK, false, 0.01));
}

#[test]
fn a_failed_step_is_a_discard_back_at_its_start() {
    for callback in [false, true] {
        let fmu = Fmu3::with(callback, false, &[]);
        fmu.init();
        assert_eq!(fmu.set(VR_FORCE, 25.0), fmi3OK);
        assert_eq!(fmu.step(0.0, 0.01).0, fmi3OK);
        let before = fmu.fmu().comp.instance.snapshot();
        let angle = fmu.get(VR_ANGLE).1;
        // The 6th of the 10 internal steps fails.
        fmu.fmu().comp.instance.fail_after_internal_steps = Some(5);
        let (s, early, last) = fmu.step(0.01, 0.01);
        assert_eq!((s, early, last), (fmi3Discard, false, 0.01));
        assert_eq!(fmu.fmu().comp.instance.time(), 0.01);
        let after = fmu.fmu().comp.instance.snapshot();
        assert_eq!(after.state.z, before.state.z, "back where the step began");
        assert_eq!(after.state.zd, before.state.zd);
        assert_eq!(fmu.get(VR_ANGLE), (fmi3OK, angle));
        assert_eq!(fmu.state(), FmiState::StepComplete, "still in Step Mode");
        fmu.assert_logged(fmi3Discard, &["fmi3DoStep", "injected", "back at 0.01 s"]);
        // The retry (the master's next move) continues as if nothing had happened.
        fmu.fmu().comp.instance.fail_after_internal_steps = None;
        assert_eq!(fmu.step(0.01, 0.01).0, fmi3OK);
        let reference = Fmu3::new();
        reference.init();
        assert_eq!(reference.set(VR_FORCE, 25.0), fmi3OK);
        reference.step(0.0, 0.01);
        reference.step(0.01, 0.01);
        assert_eq!(
            fmu.get(VR_ANGLE),
            reference.get(VR_ANGLE),
            "callback {callback}"
        );
        if callback {
            assert_eq!(fmu.master.updates.lock().unwrap().len(), 9 + 5 + 9);
        }
    }
}

#[test]
fn a_solver_setting_that_fails_the_step_is_a_discard() {
    let fmu = Fmu3::new();
    assert_eq!(fmu.set(VR_STEP, 0.0), fmi3OK); // makes Instance::advance fail
    fmu.init();
    let (s, early, last) = fmu.step(0.0, 0.1);
    assert_eq!((s, early, last), (fmi3Discard, false, 0.0));
    assert_eq!(fmu.state(), FmiState::StepComplete);
    fmu.assert_logged(fmi3Discard, &["solver.step must be positive"]);
    assert_eq!(fmu.last(fmi3Discard).category, "logStatusDiscard");
}

#[test]
fn illegal_calls_are_errors_that_terminate() {
    let fmu = Fmu3::new();
    assert_eq!(
        fmu.step(0.0, 0.01).0,
        fmi3Error,
        "DoStep before initialization"
    );
    fmu.assert_logged(
        fmi3Error,
        &["fmi3DoStep", "Illegal call sequence", "Instantiated"],
    );
    assert_eq!(fmu.state(), FmiState::Terminated);
    assert_eq!(
        fmu.get(VR_MASS),
        (fmi3OK, 2.0),
        "getters work in Terminated"
    );
    assert_eq!(fmu.set(VR_MASS, 3.0), fmi3Error, "setters do not");
    assert_eq!(unsafe { fmi3Reset(fmu.c) }, fmi3OK);
    assert_eq!(fmu.state(), FmiState::Instantiated);
    fmu.init();
    let s = unsafe { fmi3EnterInitializationMode(fmu.c, false, 0.0, 0.0, false, 0.0) };
    assert_eq!(s, fmi3Error);
    fmu.assert_logged(fmi3Error, &["Illegal call sequence", "StepMode"]);
}

#[test]
fn bad_values_are_errors_with_reasons() {
    let fmu = Fmu3::new();
    fmu.init();
    assert_eq!(fmu.set(VR_FORCE, f64::NAN), fmi3Error);
    fmu.assert_logged(fmi3Error, &["fmi3SetFloat64", "load.force", "finite"]);
    unsafe { fmi3Reset(fmu.c) };
    fmu.init();
    assert_eq!(fmu.set(VR_FORCE, 2e4), fmi3Error);
    fmu.assert_logged(fmi3Error, &["outside its range"]);
    unsafe { fmi3Reset(fmu.c) };
    fmu.init();
    let mut v = [0.0; 2];
    let s = unsafe { fmi3GetFloat64(fmu.c, &VR_ANGLE, 1, v.as_mut_ptr(), 2) };
    assert_eq!(s, fmi3Error);
    fmu.assert_logged(fmi3Error, &["nValues = 2", "nValueReferences = 1"]);
    unsafe { fmi3Reset(fmu.c) };
    fmu.init();
    let s = unsafe { fmi3GetFloat32(fmu.c, &VR_ANGLE, 1, null_mut(), 1) };
    assert_eq!(s, fmi3Error);
    fmu.assert_logged(fmi3Error, &["no Float32 variable"]);
    unsafe { fmi3Reset(fmu.c) };
    fmu.init();
    let s = unsafe { fmi3GetFloat64(fmu.c, null(), 1, v.as_mut_ptr(), 1) };
    assert_eq!(s, fmi3Error);
    fmu.assert_logged(fmi3Error, &["valueReferences[] is NULL"]);
    unsafe { fmi3Reset(fmu.c) };
    fmu.init();
    let (mut a, mut b, mut e) = (false, false, false);
    let s = unsafe { fmi3DoStep(fmu.c, 0.0, 0.01, true, &mut a, &mut b, &mut e, null_mut()) };
    assert_eq!(s, fmi3Error);
    fmu.assert_logged(fmi3Error, &["lastSuccessfulTime is NULL"]);
}

#[test]
fn reading_unrequired_variables_in_an_update_is_an_error() {
    // The callback reads the angle, which was not required.
    let fmu = Fmu3::with(true, false, &[VR_FORCE]);
    fmu.fmu().gets_allowed = true; // as if outputs had been required
    fmu.init();
    assert_eq!(fmu.step(0.0, 0.01).0, fmi3Error);
    let angles = fmu.master.angles.lock().unwrap().clone();
    assert_eq!(angles[0].0, fmi3Error);
    let log = fmu.master.log.lock().unwrap().clone();
    let errors: Vec<&str> = log
        .iter()
        .filter(|r| r.status == fmi3Error)
        .map(|r| r.message.as_str())
        .collect();
    assert!(
        errors[0].contains("fmi3GetFloat64") && errors[0].contains("requiredIntermediateVariables"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("abandoned at t = 0.001 s") && errors[1].contains("Terminated"),
        "{errors:?}"
    );
    assert_eq!(fmu.state(), FmiState::Terminated);
}

#[test]
fn instantiation_checks_its_arguments() {
    let master: Box<Master> = Box::default();
    let env = &*master as *const Master as *mut c_void;
    let inst = |event_mode: bool, required: &[u32], name: &CStr| unsafe {
        fmi3InstantiateCoSimulation(
            name.as_ptr(),
            c"{wrong}".as_ptr(),
            null(),
            false,
            false,
            event_mode,
            false,
            required.as_ptr(),
            required.len(),
            env,
            Some(logger),
            None,
        )
    };
    assert!(inst(true, &[], c"x").is_null());
    let last = master.log.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last.status, fmi3Error);
    assert!(last.message.contains("eventModeUsed"), "{}", last.message);
    assert!(inst(false, &[], c"  ").is_null());
    let last = master.log.lock().unwrap().last().cloned().unwrap();
    assert!(last.message.contains("instanceName"), "{}", last.message);
    assert!(inst(false, &[], c"x").is_null(), "no model file anywhere");
    let last = master.log.lock().unwrap().last().cloned().unwrap();
    assert!(last.message.contains("resourcePath"), "{}", last.message);
    // A required intermediate variable must be a continuous input or output.
    let bad = instantiate_with_model(
        Arc::new(model()),
        c"x",
        Logger::new_fmi3(None, null_mut(), c"x", false),
        false,
        None,
        null_mut(),
        &[VR_GAIN],
    );
    assert!(bad.is_null());
    // FMI 2.0-style shared value references are refused.
    let shared = instantiate_with_model(
        Arc::new(test_model(GUID)),
        c"x",
        Logger::new_fmi3(None, null_mut(), c"x", false),
        false,
        None,
        null_mut(),
        &[],
    );
    assert!(shared.is_null());
    assert!(
        unsafe {
            fmi3InstantiateModelExchange(
                c"m".as_ptr(),
                c"t".as_ptr(),
                null(),
                false,
                false,
                env,
                Some(logger),
            )
        }
        .is_null()
    );
    // Model Exchange reads the model file as Co-Simulation does (none here).
    let last = master.log.lock().unwrap().last().cloned().unwrap();
    assert!(
        last.message.contains("fmi3InstantiateModelExchange: ")
            && last.message.contains("hydromech-model.bin"),
        "{}",
        last.message
    );
}

#[test]
fn fmu_states_roll_back_and_survive_serialization() {
    let fmu = Fmu3::new();
    fmu.init();
    assert_eq!(fmu.set(VR_FORCE, 40.0), fmi3OK);
    assert_eq!(fmu.step(0.0, 0.01).0, fmi3OK);
    let mut st: fmi3FMUState = null_mut();
    assert_eq!(unsafe { fmi3GetFMUState(fmu.c, &mut st) }, fmi3OK);
    assert_eq!(fmu.step(0.01, 0.01).0, fmi3OK);
    let reference = fmu.get(VR_ANGLE).1;
    let mut n = 0;
    assert_eq!(
        unsafe { fmi3SerializedFMUStateSize(fmu.c, st, &mut n) },
        fmi3OK
    );
    let mut bytes = vec![0u8; n];
    let s = unsafe { fmi3SerializeFMUState(fmu.c, st, bytes.as_mut_ptr(), n) };
    assert_eq!(s, fmi3OK);
    assert_eq!(unsafe { fmi3FreeFMUState(fmu.c, &mut st) }, fmi3OK);
    assert!(st.is_null());
    // A fresh instance continues from the bytes bit for bit.
    let other = Fmu3::new();
    let mut restored: fmi3FMUState = null_mut();
    let s = unsafe { fmi3DeserializeFMUState(other.c, bytes.as_ptr(), n, &mut restored) };
    assert_eq!(s, fmi3OK);
    assert_eq!(unsafe { fmi3SetFMUState(other.c, restored) }, fmi3OK);
    assert_eq!(other.state(), FmiState::StepComplete);
    assert_eq!(other.step(0.01, 0.01).0, fmi3OK);
    assert_eq!(other.get(VR_ANGLE).1, reference);
    unsafe { fmi3FreeFMUState(other.c, &mut restored) };
    // Corrupt bytes: an error with a reason.
    bytes[n / 2] ^= 0x40;
    let mut bad: fmi3FMUState = null_mut();
    let s = unsafe { fmi3DeserializeFMUState(other.c, bytes.as_ptr(), n, &mut bad) };
    assert_eq!(s, fmi3Error);
    assert!(bad.is_null());
    other.assert_logged(fmi3Error, &["fmi3DeserializeFMUState", "checksum"]);
}

#[test]
fn unsupported_capabilities_are_errors_with_reasons() {
    type Call = Box<dyn Fn(fmi3Instance) -> fmi3Status>;
    let calls: Vec<(Call, &str)> = vec![
        (
            Box::new(|c| unsafe { fmi3EnterConfigurationMode(c) }),
            "structural",
        ),
        (Box::new(|c| unsafe { fmi3EnterStepMode(c) }), "Event Mode"),
        (
            Box::new(|c| unsafe {
                fmi3GetDirectionalDerivative(c, null(), 0, null(), 0, null(), 0, null_mut(), 0)
            }),
            "providesDirectionalDerivatives",
        ),
        (
            Box::new(|c| unsafe { fmi3GetOutputDerivatives(c, null(), 0, null(), null_mut(), 0) }),
            "maxOutputDerivativeOrder",
        ),
    ];
    for (call, why) in calls {
        let fmu = Fmu3::new();
        fmu.init();
        assert_eq!(call(fmu.c), fmi3Error, "{why}");
        fmu.assert_logged(fmi3Error, &["not supported", why]);
    }
    // Model Exchange functions on a Co-Simulation instance: never in its states.
    let me: Vec<(Call, &str)> = vec![
        (
            Box::new(|c| unsafe { fmi3EnterEventMode(c) }),
            "fmi3EnterEventMode",
        ),
        (
            Box::new(|c| unsafe { fmi3EnterContinuousTimeMode(c) }),
            "fmi3EnterContinuousTimeMode",
        ),
        (Box::new(|c| unsafe { fmi3SetTime(c, 0.0) }), "fmi3SetTime"),
    ];
    for (call, name) in me {
        let fmu = Fmu3::new();
        fmu.init();
        assert_eq!(call(fmu.c), fmi3Error, "{name}");
        fmu.assert_logged(fmi3Error, &[name, "Illegal call sequence (state StepMode)"]);
    }
}

#[test]
fn time_is_the_independent_variable() {
    // The pendulum uses value reference 0 (solver.step): time gets one past the largest
    // (the Boolean's 200); a model numbered from 1, as hydromech's are, gets 0.
    let time = super::time_value_reference(&model());
    assert_eq!(time, 201);
    let mut from_one = model();
    for v in &mut from_one.variables {
        v.value_reference += 1;
    }
    assert_eq!(super::time_value_reference(&from_one), 0);
    let fmu = Fmu3::new();
    fmu.init();
    fmu.step(0.0, 0.01);
    assert_eq!(fmu.get(time), (fmi3OK, 0.01));
    assert_eq!(fmu.set(time, 1.0), fmi3Error);
    fmu.assert_logged(fmi3Error, &["independent variable time"]);
}

#[test]
fn fmi2_and_fmi3_handles_are_not_interchangeable() {
    let fmu = Fmu3::new();
    let mut v = 0.0;
    let s = unsafe { crate::fmi2::exports::fmi2GetReal(fmu.c, &VR_MASS, 1, &mut v) };
    assert_eq!(s, crate::fmi2::types::fmi2Status::fmi2Error);
    assert_eq!(
        fmu.state(),
        FmiState::Instantiated,
        "nothing happened to it"
    );
}

/// Model Exchange through the fmi3* functions: the calling sequence, and the same numbers
/// as through fmi2* (both drive the one component side, `component::model_exchange`).
#[test]
fn model_exchange_runs_as_through_fmi2() {
    use crate::component::me_state::ModelExchange;
    use crate::fmi2::exports as e2;
    use crate::fmi2::exports_me as me2;
    use crate::fmi2::types::{fmi2EventInfo, fmi2Status};
    let (m, n) = crate::fmi2::tests::model_exchange::with_states(model(), 300, 400);
    let m = Arc::new(m);
    let master: Box<Master> = Box::default();
    let env = &*master as *const Master as *mut c_void;
    let logger3 = Logger::new_fmi3(Some(logger), env, c"me3", false);
    let mut fmu = Fmi3Component::new(m.clone(), logger3, false, None, env, &[]).unwrap();
    fmu.comp.model_exchange = Some(ModelExchange::new(n));
    let c3: fmi3Instance = Box::into_raw(Box::new(fmu)).cast();
    let c2 = e2::instantiate_model_exchange(
        m,
        c"me2",
        // No logger: every callback NULL.
        &unsafe { std::mem::zeroed::<crate::fmi2::types::fmi2CallbackFunctions>() },
        false,
    )
    .cast::<c_void>();
    assert!(!c2.is_null());
    let mut count = 0;
    unsafe {
        assert_eq!(fmi3GetNumberOfContinuousStates(c3, &mut count), fmi3OK);
        assert_eq!(count, n);
        assert_eq!(fmi3GetNumberOfEventIndicators(c3, &mut count), fmi3OK);
        assert_eq!(count, 0);
        assert_eq!(
            fmi3EnterInitializationMode(c3, false, 0.0, 0.0, false, 0.0),
            fmi3OK
        );
        assert_eq!(fmi3ExitInitializationMode(c3), fmi3OK);
        let mut flags = [true; 5];
        let mut next = 1.0;
        let [need, stop, nominals, values, defined] = &mut flags;
        assert_eq!(
            fmi3UpdateDiscreteStates(c3, need, stop, nominals, values, defined, &mut next),
            fmi3OK
        );
        assert_eq!(flags, [false; 5]);
        assert_eq!(fmi3EnterContinuousTimeMode(c3), fmi3OK);
        assert_eq!(
            e2::fmi2SetupExperiment(c2, 0, 0.0, 0.0, 0, 0.0),
            fmi2Status::fmi2OK
        );
        assert_eq!(e2::fmi2EnterInitializationMode(c2), fmi2Status::fmi2OK);
        assert_eq!(e2::fmi2ExitInitializationMode(c2), fmi2Status::fmi2OK);
        let mut info = fmi2EventInfo::default();
        assert_eq!(
            me2::fmi2NewDiscreteStates(c2, &mut info),
            fmi2Status::fmi2OK
        );
        assert_eq!(me2::fmi2EnterContinuousTimeMode(c2), fmi2Status::fmi2OK);
        // Explicit Euler at 1 ms through both, 200 steps.
        let (mut x3, mut x2) = (vec![0.0; n], vec![0.0; n]);
        assert_eq!(fmi3GetContinuousStates(c3, x3.as_mut_ptr(), n), fmi3OK);
        assert_eq!(
            me2::fmi2GetContinuousStates(c2, x2.as_mut_ptr(), n),
            fmi2Status::fmi2OK
        );
        let mut nominal = vec![0.0; n];
        assert_eq!(
            fmi3GetNominalsOfContinuousStates(c3, nominal.as_mut_ptr(), n),
            fmi3OK
        );
        assert_eq!(nominal, vec![1.0; n]);
        let (mut d3, mut d2) = (vec![0.0; n], vec![0.0; n]);
        for k in 1..=200 {
            let t = k as f64 * 1e-3;
            assert_eq!(
                fmi3GetContinuousStateDerivatives(c3, d3.as_mut_ptr(), n),
                fmi3OK
            );
            assert_eq!(
                me2::fmi2GetDerivatives(c2, d2.as_mut_ptr(), n),
                fmi2Status::fmi2OK
            );
            for i in 0..n {
                x3[i] += 1e-3 * d3[i];
                x2[i] += 1e-3 * d2[i];
            }
            assert_eq!(fmi3SetTime(c3, t), fmi3OK);
            assert_eq!(fmi3SetContinuousStates(c3, x3.as_ptr(), n), fmi3OK);
            assert_eq!(me2::fmi2SetTime(c2, t), fmi2Status::fmi2OK);
            assert_eq!(
                me2::fmi2SetContinuousStates(c2, x2.as_ptr(), n),
                fmi2Status::fmi2OK
            );
            let (mut enter, mut terminate) = (true, true);
            assert_eq!(
                fmi3CompletedIntegratorStep(c3, true, &mut enter, &mut terminate),
                fmi3OK
            );
            assert!(!enter && !terminate);
        }
        assert_eq!(x3, x2, "fmi3* and fmi2* integrate the same machine");
        let (mut a3, mut a2) = (0.0, 0.0);
        assert_eq!(fmi3GetFloat64(c3, &VR_ANGLE, 1, &mut a3, 1), fmi3OK);
        assert_eq!(
            e2::fmi2GetReal(c2, &VR_ANGLE, 1, &mut a2),
            fmi2Status::fmi2OK
        );
        assert_eq!((a3, a2), (x3[0], x2[0]));
        // Out of sequence and malformed: fmi3Error with a reason, the instance Terminated.
        assert_eq!(
            fmi3UpdateDiscreteStates(
                c3,
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut()
            ),
            fmi3Error
        );
        assert!(
            master
                .log
                .lock()
                .unwrap()
                .last()
                .unwrap()
                .message
                .contains("Illegal call sequence (state ContinuousTimeMode)")
        );
        fmi3FreeInstance(c3);
        e2::fmi2FreeInstance(c2);
    }
}

//! Tests of the exported functions, called through their Rust names with a small model
//! built by hand (one pendulum body on a revolute joint).
//!
//! The logger: Rust cannot define a C-variadic function on stable, so the test logger is a
//! plain 6-argument `extern "C"` function transmuted to the variadic `fmi2CallbackLogger`
//! type. We always call the logger with exactly one variadic argument (the message for
//! `"%s"`), and on x86-64 (System V and Windows) and on non-Apple AArch64 a variadic
//! argument is passed exactly where a sixth fixed argument would be. This is test-only;
//! on other targets the tests run without a logger and skip the log assertions.

#![allow(non_snake_case)]

use super::exports::*;
use super::exports_me::*;
use super::types::*;
use crate::component::call_state::FmiState;
use crate::component::fmu_instance::Component;
use crate::model::*;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::ptr::{null, null_mut};
use std::sync::{Arc, Mutex};

use fmi2Status::{fmi2Discard, fmi2Error, fmi2Fatal, fmi2OK};

const LOGGER_WORKS: bool = cfg!(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", not(target_vendor = "apple"))
));

pub(crate) const GUID: &str = "{8c4e810f-3df3-4a00-8276-176fa3c9f000}";

// Value references of the test model.
pub(crate) const VR_STEP: u32 = 0;
pub(crate) const VR_MASS: u32 = 1;
pub(crate) const VR_Q0: u32 = 2;
pub(crate) const VR_FORCE: u32 = 3;
pub(crate) const VR_GAIN: u32 = 4;
pub(crate) const VR_ANGLE: u32 = 5;
pub(crate) const VR_G: u32 = 6;
pub(crate) const VRI_ITERATIONS: u32 = 0;
pub(crate) const VRI_MAX_ITER: u32 = 1;
pub(crate) const VRB_BRAKE: u32 = 0;

fn slot(name: &str, default: f64) -> ParamSlot {
    ParamSlot {
        name: name.into(),
        default,
    }
}

#[allow(clippy::too_many_arguments)]
fn var(
    name: &str,
    vr: u32,
    var_type: VarType,
    causality: Causality,
    variability: Variability,
    initial: Option<Initial>,
    binding: Binding,
    start: Option<f64>,
    range: (Option<f64>, Option<f64>),
) -> Variable {
    Variable {
        name: name.into(),
        value_reference: vr,
        description: String::new(),
        causality,
        variability,
        initial,
        var_type,
        unit: None,
        display_unit: None,
        start,
        min: range.0,
        max: range.1,
        nominal: None,
        binding,
    }
}

pub(crate) fn test_model(guid: &str) -> CompiledModel {
    use Causality::*;
    use Variability::*;
    let p = ParamId;
    let free = (None, None);
    CompiledModel {
        format_version: MODEL_FORMAT_VERSION,
        name: "Pendulum".into(),
        model_identifier: "Pendulum".into(),
        guid: guid.into(),
        metadata: Metadata {
            description: "test pendulum".into(),
            author: String::new(),
            version: "1".into(),
            license: String::new(),
            copyright: String::new(),
        },
        default_experiment: DefaultExperiment {
            start_time: 0.0,
            stop_time: 1.0,
            step_size: 0.01,
            tolerance: 1e-6,
        },
        gravity: [0.0, 0.0, -9.81],
        solver: SolverSettings {
            formulation: Formulation::AugmentedLagrangian,
            step: p(0),
            penalty: None,
            penalty_ratio: 1e3,
            tol_position: 1e-9,
            tol_pressure: 1.0,
            tol_state: 1e-9,
            max_iterations: 10,
            max_step_halvings: 3,
            reuse_tangent: true,
            linear_solver: LinearSolver::Auto,
            tangent: TangentMethod::Assembled,
        },
        init: InitSettings {
            static_equilibrium: false,
            hold: Vec::new(),
        },
        params: vec![
            slot("solver.step", 1e-3),
            slot("arm.mass", 2.0),
            slot("arm.q0", 0.1),
            slot("oil.density", 850.0),
            slot("oil.bulk_modulus", 1.5e9),
            slot("load.force", 0.0),
            slot("controller.gain", 1.0),
            slot("zero", 0.0),
            slot("brake.enabled", 0.0),
            slot("g", 9.81),
            slot("solver.max_iter", 10.0),
            slot("oil.air_fraction", 1e-3),
            slot("oil.air_polytropic_index", 1.0),
            slot("oil.vapour_pressure", 1e3),
        ],
        mechanism: Mechanism {
            bodies: vec![Body {
                name: "arm".into(),
                parent: None,
                joint: JointKind::Revolute {
                    axis: [0.0, 1.0, 0.0],
                },
                joint_name: "hinge".into(),
                joint_frame: Frame::IDENTITY,
                q0: p(2),
                mass: p(1),
                com: [0.5, 0.0, 0.0],
                inertia: [0.01, 0.1, 0.1, 0.0, 0.0, 0.0],
            }],
            cut_joints: vec![],
            markers: vec![Marker {
                name: "tip".into(),
                point: PointRef {
                    body: Some(0),
                    point: [1.0, 0.0, 0.0],
                },
            }],
            forces: vec![ForceElement::PointForce(PointForce {
                name: "load".into(),
                point: PointRef {
                    body: Some(0),
                    point: [1.0, 0.0, 0.0],
                },
                force: [p(7), p(7), p(5)],
            })],
            base: None,
            rotations: vec![],
            flexible: vec![],
            contacts: Default::default(),
        },
        circuit: Circuit {
            oil: Oil {
                density: p(3),
                bulk_modulus: BulkModulus::Constant(p(4)),
                air: EntrainedAir {
                    fraction: p(11),
                    polytropic_index: p(12),
                    vapour_pressure: p(13),
                },
            },
            nodes: vec![],
            spools: vec![],
            elements: vec![],
            cylinders: vec![],
            motors: vec![],
            accumulators: vec![],
        },
        ports: vec![],
        variables: vec![
            // No min on the step: the tests set it to 0 to make the (stub) solver fail.
            var(
                "solver.step",
                VR_STEP,
                VarType::Real,
                Parameter,
                Fixed,
                Some(Initial::Exact),
                Binding::Param(p(0)),
                Some(1e-3),
                free,
            ),
            var(
                "arm.mass",
                VR_MASS,
                VarType::Real,
                Parameter,
                Fixed,
                None,
                Binding::Param(p(1)),
                Some(2.0),
                (Some(0.0), None),
            ),
            var(
                "arm.q0",
                VR_Q0,
                VarType::Real,
                Parameter,
                Fixed,
                Some(Initial::Exact),
                Binding::Param(p(2)),
                Some(0.1),
                free,
            ),
            var(
                "load.force",
                VR_FORCE,
                VarType::Real,
                Input,
                Continuous,
                None,
                Binding::Param(p(5)),
                Some(0.0),
                (Some(-1e4), Some(1e4)),
            ),
            var(
                "controller.gain",
                VR_GAIN,
                VarType::Real,
                Parameter,
                Tunable,
                Some(Initial::Exact),
                Binding::Param(p(6)),
                Some(1.0),
                free,
            ),
            var(
                "arm.angle",
                VR_ANGLE,
                VarType::Real,
                Output,
                Continuous,
                Some(Initial::Calculated),
                Binding::Probe(Probe::JointPosition(0)),
                None,
                free,
            ),
            var(
                "g",
                VR_G,
                VarType::Real,
                Local,
                Constant,
                Some(Initial::Exact),
                Binding::Param(p(9)),
                Some(9.81),
                free,
            ),
            var(
                "solver.iterations",
                VRI_ITERATIONS,
                VarType::Integer,
                Output,
                Discrete,
                Some(Initial::Calculated),
                Binding::Probe(Probe::NewtonIterations),
                None,
                free,
            ),
            var(
                "solver.max_iter",
                VRI_MAX_ITER,
                VarType::Integer,
                Parameter,
                Fixed,
                Some(Initial::Exact),
                Binding::Param(p(10)),
                Some(10.0),
                (Some(1.0), Some(100.0)),
            ),
            var(
                "brake.enabled",
                VRB_BRAKE,
                VarType::Boolean,
                Parameter,
                Fixed,
                Some(Initial::Exact),
                Binding::Param(p(8)),
                Some(0.0),
                free,
            ),
        ],
        estimator: None,
    }
}

#[derive(Clone, Debug)]
struct Record {
    instance: String,
    status: c_int,
    category: String,
    format: String,
    message: String,
}

type Log = Mutex<Vec<Record>>;

/// See the module docs: non-variadic stand-in for a variadic C logger.
unsafe extern "C" fn test_logger(
    env: *mut c_void,
    instance: *const c_char,
    status: c_int,
    category: *const c_char,
    format: *const c_char,
    arg: *const c_char,
) {
    let text = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    let log = unsafe { &*(env as *const Log) };
    let record = Record {
        instance: text(instance),
        status,
        category: text(category),
        format: text(format),
        message: text(arg),
    };
    log.lock().unwrap().push(record);
}

type PlainLogger = unsafe extern "C" fn(
    *mut c_void,
    *const c_char,
    c_int,
    *const c_char,
    *const c_char,
    *const c_char,
);

fn callbacks(log: &Log) -> fmi2CallbackFunctions {
    let logger = if LOGGER_WORKS {
        // SAFETY: same size (function pointers); the call is ABI-compatible on the targets of
        // LOGGER_WORKS, see the module docs.
        unsafe {
            std::mem::transmute::<Option<PlainLogger>, fmi2CallbackLogger>(Some(
                test_logger as PlainLogger,
            ))
        }
    } else {
        None
    };
    fmi2CallbackFunctions {
        logger,
        allocateMemory: None,
        freeMemory: None,
        stepFinished: None,
        componentEnvironment: log as *const Log as *mut c_void,
    }
}

/// One instance plus its log; frees the instance on drop.
struct Fmu {
    c: fmi2Component,
    log: Box<Log>,
}

impl Fmu {
    fn with_model(model: Arc<CompiledModel>, logging_on: bool) -> Fmu {
        let log: Box<Log> = Box::default();
        let c = super::exports::instantiate_with_model(
            model,
            c"inst%s#1",
            &callbacks(&log),
            logging_on,
        );
        assert!(!c.is_null());
        Fmu { c: c.cast(), log }
    }

    fn new() -> Fmu {
        Fmu::with_model(Arc::new(test_model(GUID)), false)
    }

    fn comp(&self) -> &Component {
        unsafe { Component::from_handle(self.c) }.unwrap()
    }

    fn comp_mut(&mut self) -> &mut Component {
        unsafe { Component::from_handle(self.c) }.unwrap()
    }

    fn state(&self) -> FmiState {
        self.comp().state
    }

    fn records(&self) -> Vec<Record> {
        self.log.lock().unwrap().clone()
    }

    fn clear_log(&self) {
        self.log.lock().unwrap().clear();
    }

    /// The last message with this status (panics if there is none while the logger works).
    fn last(&self, status: fmi2Status) -> Option<Record> {
        let r = self
            .records()
            .into_iter()
            .rev()
            .find(|r| r.status == status as c_int);
        assert!(
            r.is_some() || !LOGGER_WORKS,
            "no message with status {status:?}: {:?}",
            self.records()
        );
        r
    }

    fn assert_logged(&self, status: fmi2Status, needles: &[&str]) {
        if let Some(r) = self.last(status) {
            for n in needles {
                assert!(r.message.contains(n), "{n:?} not in {:?}", r.message);
            }
            assert_eq!(r.format, "%s");
        }
    }

    fn setup(&self, stop: Option<f64>) -> fmi2Status {
        unsafe {
            fmi2SetupExperiment(
                self.c,
                fmi2False,
                0.0,
                0.0,
                stop.is_some() as i32,
                stop.unwrap_or(0.0),
            )
        }
    }

    fn init(&self) {
        assert_eq!(self.setup(Some(10.0)), fmi2OK);
        assert_eq!(unsafe { fmi2EnterInitializationMode(self.c) }, fmi2OK);
        assert_eq!(unsafe { fmi2ExitInitializationMode(self.c) }, fmi2OK);
        assert_eq!(self.state(), FmiState::StepComplete);
    }

    fn get_real(&self, vr: u32) -> (fmi2Status, f64) {
        let mut v = f64::NAN;
        let s = unsafe { fmi2GetReal(self.c, &vr, 1, &mut v) };
        (s, v)
    }

    fn set_real(&self, vr: u32, v: f64) -> fmi2Status {
        unsafe { fmi2SetReal(self.c, &vr, 1, &v) }
    }

    fn get_integer(&self, vr: u32) -> (fmi2Status, i32) {
        let mut v = -1;
        let s = unsafe { fmi2GetInteger(self.c, &vr, 1, &mut v) };
        (s, v)
    }

    fn do_step(&self, t: f64, h: f64) -> fmi2Status {
        unsafe { fmi2DoStep(self.c, t, h, fmi2True) }
    }

    fn time(&self) -> f64 {
        self.comp().instance.time()
    }

    fn get_state(&self) -> fmi2FMUstate {
        let mut st: fmi2FMUstate = null_mut();
        assert_eq!(unsafe { fmi2GetFMUstate(self.c, &mut st) }, fmi2OK);
        assert!(!st.is_null());
        st
    }

    fn serialize(&self, st: fmi2FMUstate) -> Vec<u8> {
        let mut n = 0usize;
        assert_eq!(
            unsafe { fmi2SerializedFMUstateSize(self.c, st, &mut n) },
            fmi2OK
        );
        let mut bytes = vec![0u8; n];
        assert_eq!(
            unsafe { fmi2SerializeFMUstate(self.c, st, bytes.as_mut_ptr().cast(), n) },
            fmi2OK
        );
        bytes
    }

    /// Deserializes into a new state object; returns the status and the object (NULL on error).
    fn deserialize(&self, bytes: &[u8]) -> (fmi2Status, fmi2FMUstate) {
        let mut st: fmi2FMUstate = null_mut();
        let s =
            unsafe { fmi2DeSerializeFMUstate(self.c, bytes.as_ptr().cast(), bytes.len(), &mut st) };
        (s, st)
    }

    fn free_state(&self, mut st: fmi2FMUstate) {
        assert_eq!(unsafe { fmi2FreeFMUstate(self.c, &mut st) }, fmi2OK);
        assert!(st.is_null());
    }
}

impl Drop for Fmu {
    fn drop(&mut self) {
        unsafe { fmi2FreeInstance(self.c) }
    }
}

#[test]
fn version_and_platform() {
    let v = unsafe { CStr::from_ptr(fmi2GetVersion()) };
    let p = unsafe { CStr::from_ptr(fmi2GetTypesPlatform()) };
    assert_eq!(
        (v.to_str().unwrap(), p.to_str().unwrap()),
        ("2.0", "default")
    );
}

#[test]
fn full_run_and_outputs() {
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.set_real(VR_FORCE, 12.5), fmi2OK);
    let mut t = 0.0;
    for _ in 0..10 {
        assert_eq!(fmu.do_step(t, 0.01), fmi2OK);
        t += 0.01;
    }
    assert!((fmu.time() - 0.1).abs() < 1e-12);
    assert_eq!(fmu.get_real(VR_FORCE), (fmi2OK, 12.5));
    assert_eq!(fmu.get_real(VR_ANGLE).0, fmi2OK);
    assert_eq!(fmu.get_integer(VRI_ITERATIONS).0, fmi2OK);
    let vrs = [VR_STEP, VR_MASS, VR_G];
    let mut out = [0.0; 3];
    assert_eq!(
        unsafe { fmi2GetReal(fmu.c, vrs.as_ptr(), 3, out.as_mut_ptr()) },
        fmi2OK
    );
    assert_eq!(out, [1e-3, 2.0, 9.81]);
    assert_eq!(unsafe { fmi2Terminate(fmu.c) }, fmi2OK);
    assert_eq!(fmu.state(), FmiState::Terminated);
    assert_eq!(
        fmu.get_real(VR_FORCE).0,
        fmi2OK,
        "Get is allowed after Terminate"
    );
}

#[test]
fn illegal_call_sequence_then_only_reset_works() {
    let fmu = Fmu::new();
    assert_eq!(fmu.do_step(0.0, 0.01), fmi2Error);
    assert_eq!(fmu.state(), FmiState::Error);
    fmu.assert_logged(
        fmi2Error,
        &["fmi2DoStep: Illegal call sequence (state Instantiated)."],
    );
    if let Some(r) = fmu.last(fmi2Error) {
        assert_eq!(r.category, "logStatusError");
        assert_eq!(r.instance, "inst%s#1");
    }
    // In state Error only Reset, FreeInstance, SetFMUstate and debugging gets are accepted.
    assert_eq!(fmu.setup(None), fmi2Error);
    assert_eq!(unsafe { fmi2EnterInitializationMode(fmu.c) }, fmi2Error);
    assert_eq!(fmu.set_real(VR_MASS, 3.0), fmi2Error);
    fmu.assert_logged(
        fmi2Error,
        &["fmi2SetReal: Illegal call sequence (state Error)."],
    );
    assert_eq!(
        fmu.get_real(VR_MASS),
        (fmi2OK, 2.0),
        "debugging get in state Error"
    );
    assert_eq!(unsafe { fmi2Reset(fmu.c) }, fmi2OK);
    assert_eq!(fmu.state(), FmiState::Instantiated);
    fmu.init();
    assert_eq!(fmu.do_step(0.0, 0.01), fmi2OK);
}

#[test]
fn calls_out_of_order_are_errors() {
    let fmu = Fmu::new();
    assert_eq!(
        fmu.get_real(VR_MASS).0,
        fmi2Error,
        "no Get before initialization mode"
    );
    assert_eq!(unsafe { fmi2Reset(fmu.c) }, fmi2OK);
    assert_eq!(unsafe { fmi2ExitInitializationMode(fmu.c) }, fmi2Error);
    assert_eq!(unsafe { fmi2Reset(fmu.c) }, fmi2OK);
    fmu.init();
    assert_eq!(
        fmu.setup(None),
        fmi2Error,
        "SetupExperiment after initialization"
    );
    assert_eq!(unsafe { fmi2Reset(fmu.c) }, fmi2OK);
    fmu.init();
    assert_eq!(unsafe { fmi2CancelStep(fmu.c) }, fmi2Error);
    fmu.assert_logged(
        fmi2Error,
        &[
            "fmi2CancelStep",
            "Illegal call sequence (state StepComplete)",
        ],
    );
}

#[test]
fn set_output_and_constant_are_errors() {
    let fmu = Fmu::new();
    assert_eq!(fmu.set_real(VR_G, 10.0), fmi2Error);
    fmu.assert_logged(fmi2Error, &["\"g\"", "constant"]);
    assert_eq!(unsafe { fmi2Reset(fmu.c) }, fmi2OK);
    fmu.init();
    assert_eq!(fmu.set_real(VR_ANGLE, 1.0), fmi2Error);
    fmu.assert_logged(fmi2Error, &["fmi2SetReal", "\"arm.angle\"", "output"]);
    assert_eq!(fmu.state(), FmiState::Error);
}

#[test]
fn non_finite_and_out_of_range_values_are_errors() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 2e4] {
        let fmu = Fmu::new();
        fmu.init();
        assert_eq!(fmu.set_real(VR_FORCE, bad), fmi2Error, "{bad}");
        fmu.assert_logged(fmi2Error, &["\"load.force\""]);
        assert_eq!(
            fmu.comp().instance.params()[5],
            0.0,
            "a failed set changes nothing"
        );
    }
    // A failing element makes the whole call fail without writing the good ones.
    let fmu = Fmu::new();
    fmu.init();
    let vrs = [VR_GAIN, VR_FORCE];
    let vals = [5.0, f64::NAN];
    assert_eq!(
        unsafe { fmi2SetReal(fmu.c, vrs.as_ptr(), 2, vals.as_ptr()) },
        fmi2Error
    );
    assert_eq!(fmu.comp().instance.params()[6], 1.0);
}

#[test]
fn unknown_value_references_are_errors() {
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.get_real(99).0, fmi2Error);
    fmu.assert_logged(
        fmi2Error,
        &["fmi2GetReal", "no Real variable has value reference 99"],
    );
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.get_integer(2).0, fmi2Error);
    fmu.assert_logged(fmi2Error, &["no Integer variable has value reference 2"]);
    let fmu = Fmu::new();
    fmu.init();
    let vr = 0u32;
    let mut s: fmi2String = null();
    assert_eq!(unsafe { fmi2GetString(fmu.c, &vr, 1, &mut s) }, fmi2Error);
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(
        unsafe { fmi2GetString(fmu.c, null(), 0, null_mut()) },
        fmi2OK,
        "nvr = 0 is fine"
    );
    assert_eq!(fmu.set_real(1234, 1.0), fmi2Error);
    fmu.assert_logged(fmi2Error, &["1234"]);
}

#[test]
fn set_rules_follow_the_state_table() {
    let fmu = Fmu::new();
    // Instantiated (condition 1): initial exact/approx, and (tolerated, see
    // `settable_now`) inputs' start values.
    assert_eq!(
        fmu.set_real(VR_MASS, 3.0),
        fmi2OK,
        "initial omitted = exact for parameters"
    );
    assert_eq!(fmu.set_real(VR_FORCE, 1.0), fmi2OK);
    assert_eq!(unsafe { fmi2Reset(fmu.c) }, fmi2OK);
    assert_eq!(
        fmu.comp().instance.params()[1],
        2.0,
        "reset restores parameter defaults"
    );
    // Initialization mode (condition 3): exact parameters and inputs.
    assert_eq!(fmu.setup(None), fmi2OK);
    assert_eq!(unsafe { fmi2EnterInitializationMode(fmu.c) }, fmi2OK);
    assert_eq!(fmu.set_real(VR_MASS, 3.0), fmi2OK);
    assert_eq!(fmu.set_real(VR_FORCE, 1.0), fmi2OK);
    assert_eq!(
        fmu.get_real(VR_ANGLE).0,
        fmi2OK,
        "outputs can be read in initialization mode"
    );
    assert_eq!(unsafe { fmi2ExitInitializationMode(fmu.c) }, fmi2OK);
    // StepComplete (condition 6): inputs and tunable parameters only.
    assert_eq!(fmu.set_real(VR_FORCE, -3.0), fmi2OK);
    assert_eq!(fmu.set_real(VR_GAIN, 2.0), fmi2OK);
    assert_eq!(fmu.get_real(VR_GAIN), (fmi2OK, 2.0));
    assert_eq!(fmu.set_real(VR_Q0, 0.2), fmi2Error);
    fmu.assert_logged(fmi2Error, &["\"arm.q0\"", "StepComplete", "tunable"]);
}

#[test]
fn integer_and_boolean_variables() {
    let fmu = Fmu::new();
    let vr = VRI_MAX_ITER;
    assert_eq!(unsafe { fmi2SetInteger(fmu.c, &vr, 1, &20) }, fmi2OK);
    let b = VRB_BRAKE;
    assert_eq!(unsafe { fmi2SetBoolean(fmu.c, &b, 1, &fmi2True) }, fmi2OK);
    fmu.init();
    assert_eq!(fmu.get_integer(VRI_MAX_ITER), (fmi2OK, 20));
    assert_eq!(fmu.get_integer(VRI_ITERATIONS), (fmi2OK, 0));
    let mut flag = -1;
    assert_eq!(unsafe { fmi2GetBoolean(fmu.c, &b, 1, &mut flag) }, fmi2OK);
    assert_eq!(flag, fmi2True);
    assert_eq!(
        unsafe { fmi2SetInteger(fmu.c, &vr, 1, &20) },
        fmi2Error,
        "fixed parameter after init"
    );
    let fmu = Fmu::new();
    assert_eq!(unsafe { fmi2SetInteger(fmu.c, &vr, 1, &200) }, fmi2Error);
    fmu.assert_logged(
        fmi2Error,
        &["\"solver.max_iter\"", "outside its range [1, 100]"],
    );
}

#[test]
fn a_value_beyond_its_bound_by_rounding_is_the_bound_and_beyond_that_an_error() {
    // load.force is an input in [-1e4, 1e4]; FMPy's interpolation between two samples at
    // 1e4 hands over 1e4 plus an ulp.
    let fmu = Fmu::new();
    fmu.init();
    let up = f64::from_bits(1e4f64.to_bits() + 1);
    assert_eq!(fmu.set_real(VR_FORCE, up), fmi2OK);
    assert_eq!(fmu.get_real(VR_FORCE), (fmi2OK, 1e4));
    let down = -f64::from_bits(1e4f64.to_bits() + 2);
    assert_eq!(fmu.set_real(VR_FORCE, down), fmi2OK);
    assert_eq!(fmu.get_real(VR_FORCE), (fmi2OK, -1e4));
    // A millionth beyond is a real excursion: an error, and the value is unchanged.
    assert_eq!(fmu.set_real(VR_FORCE, 1e4 * (1.0 + 1e-6)), fmi2Error);
    fmu.assert_logged(
        fmi2Error,
        &["\"load.force\"", "outside its range [-10000, 10000]"],
    );
    assert_eq!(fmu.get_real(VR_FORCE), (fmi2OK, -1e4));
    // A bound at zero takes nothing beyond it (arm.mass ≥ 0, set before initialization).
    let fmu = Fmu::new();
    assert_eq!(fmu.set_real(VR_MASS, -f64::MIN_POSITIVE), fmi2Error);
}

#[test]
fn null_pointers_are_errors_not_crashes() {
    unsafe {
        fmi2FreeInstance(null_mut());
        assert_eq!(fmi2DoStep(null_mut(), 0.0, 0.1, 0), fmi2Error);
        assert_eq!(fmi2Reset(null_mut()), fmi2Error);
        assert_eq!(fmi2GetReal(null_mut(), null(), 0, null_mut()), fmi2Error);
        assert_eq!(fmi2SetTime(null_mut(), 0.0), fmi2Error);
        let mut garbage = [0u64; 8];
        assert_eq!(
            fmi2Reset(garbage.as_mut_ptr().cast()),
            fmi2Error,
            "not one of our components"
        );
    }
    let fmu = Fmu::new();
    fmu.init();
    unsafe {
        assert_eq!(fmi2GetReal(fmu.c, null(), 0, null_mut()), fmi2OK);
        let mut v = 0.0;
        assert_eq!(fmi2GetReal(fmu.c, null(), 1, &mut v), fmi2Error);
    }
    fmu.assert_logged(fmi2Error, &["vr[] is NULL"]);
    unsafe {
        let mut st: fmi2FMUstate = null_mut();
        assert_eq!(
            fmi2FreeFMUstate(fmu.c, &mut st),
            fmi2OK,
            "freeing NULL is a no-op"
        );
        assert_eq!(fmi2FreeFMUstate(fmu.c, null_mut()), fmi2OK);
        assert_eq!(fmi2GetFMUstate(fmu.c, null_mut()), fmi2Error);
        assert_eq!(fmi2SetFMUstate(fmu.c, null_mut()), fmi2Error);
        let mut garbage = [7u64; 8];
        assert_eq!(
            fmi2SetFMUstate(fmu.c, garbage.as_mut_ptr().cast()),
            fmi2Error
        );
        let mut n = 0;
        assert_eq!(
            fmi2SerializedFMUstateSize(fmu.c, null_mut(), &mut n),
            fmi2Error
        );
        assert_eq!(fmi2SetDebugLogging(fmu.c, fmi2True, 1, null()), fmi2Error);
    }
}

#[test]
fn a_panic_becomes_fatal() {
    let mut fmu = Fmu::new();
    fmu.init();
    fmu.comp_mut().panic_on_next_call = true;
    assert_eq!(fmu.do_step(0.0, 0.01), fmi2Fatal);
    assert_eq!(fmu.state(), FmiState::Fatal);
    fmu.assert_logged(fmi2Fatal, &["fmi2DoStep", "panic injected by a test"]);
    if let Some(r) = fmu.last(fmi2Fatal) {
        assert_eq!(r.category, "logStatusFatal");
    }
    assert_eq!(
        unsafe { fmi2Reset(fmu.c) },
        fmi2Error,
        "nothing but FreeInstance after Fatal"
    );
    assert_eq!(
        fmu.state(),
        FmiState::Fatal,
        "an illegal call does not downgrade Fatal"
    );
    assert_eq!(fmu.get_real(VR_MASS).0, fmi2Error);
    // Drop frees the instance even in state Fatal.
}

#[test]
fn logger_gets_percent_and_hash_intact() {
    let fmu = Fmu::new();
    let names = [c"logEvents".as_ptr(), c"bogus%s%n#1".as_ptr()];
    assert_eq!(
        unsafe { fmi2SetDebugLogging(fmu.c, fmi2True, 2, names.as_ptr()) },
        fmi2Error
    );
    fmu.assert_logged(
        fmi2Error,
        &[
            "fmi2SetDebugLogging",
            "unknown log category \"bogus%s%n##1\"",
            "logAll",
        ],
    );
    if let Some(r) = fmu.last(fmi2Error) {
        assert_eq!(r.format, "%s", "the message is never the format");
        assert_eq!(r.instance, "inst%s#1");
    }
    assert!(
        !fmu.comp()
            .logger
            .is_enabled(crate::component::logging::Category::Events),
        "nothing changed"
    );
}

#[test]
fn an_unmet_static_equilibrium_is_logged_as_a_warning() {
    // The test pendulum swings about y under gravity along −z, held where it starts
    // (`init.hold`, a pendulum released from an angle): its static equilibrium cannot be
    // met. The run still starts (fmi2OK), and the log says why the first steps move; a
    // balanced start logs nothing of the kind.
    let mut model = test_model(GUID);
    model.init.static_equilibrium = true;
    model.init.hold = vec![0];
    let fmu = Fmu::with_model(Arc::new(model), false);
    fmu.init();
    if LOGGER_WORKS {
        let recs = fmu.records();
        let warning = recs
            .iter()
            .find(|r| r.category == "logStatusWarning")
            .unwrap_or_else(|| panic!("no warning: {recs:?}"));
        assert_eq!(warning.status, fmi2Status::fmi2Warning as c_int);
        assert!(
            warning
                .message
                .contains("the static equilibrium is not met"),
            "{}",
            warning.message
        );
    }
    let mut held = test_model(GUID);
    held.init.static_equilibrium = true;
    held.gravity = [0.0, -9.81, 0.0]; // along the hinge axis: no torque
    let fmu = Fmu::with_model(Arc::new(held), false);
    fmu.init();
    assert!(fmu.records().is_empty(), "{:?}", fmu.records());
}

#[test]
fn a_tunable_change_during_the_run_is_counted_and_logged() {
    // The pendulum's mass made tunable: changing it after a step moves the mechanical
    // energy of the unmoved state; the state counts the jump, the Events log says it.
    let mut model = test_model(GUID);
    model
        .variables
        .iter_mut()
        .find(|v| v.name == "arm.mass")
        .unwrap()
        .variability = Variability::Tunable;
    let fmu = Fmu::with_model(Arc::new(model), false);
    fmu.init();
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2OK);
    let names = [c"logEvents".as_ptr()];
    assert_eq!(
        unsafe { fmi2SetDebugLogging(fmu.c, fmi2True, 1, names.as_ptr()) },
        fmi2OK
    );
    let energy = |mass: f64| {
        let inst = &fmu.comp().instance;
        let mut params = inst.params().to_vec();
        params[1] = mass;
        let l = crate::solver::Layout::of(inst.model());
        let mut ws = crate::solver::Workspace::new(inst.model(), &l);
        let model = crate::solver::Model::new(inst.model(), &l, &params);
        crate::solver::mechanical_energy(model, inst.state(), &mut ws)
    };
    let expected = energy(3.0) - energy(2.0);
    assert_eq!(fmu.set_real(VR_MASS, 3.0), fmi2OK);
    let counted = fmu.comp().instance.state().parameter_work;
    assert!(expected.abs() > 1e-3 && (counted - expected).abs() <= 1e-12 * expected.abs());
    // Setting the same value again counts nothing.
    assert_eq!(fmu.set_real(VR_MASS, 3.0), fmi2OK);
    assert_eq!(fmu.comp().instance.state().parameter_work, counted);
    if LOGGER_WORKS {
        let recs = fmu.records();
        assert_eq!(
            recs.iter()
                .filter(|r| r.category == "logEvents" && r.message.contains("arm.mass changed"))
                .count(),
            1,
            "{recs:?}"
        );
    }
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2OK);
}

#[test]
fn debug_logging_categories_filter_ok_messages() {
    let fmu = Fmu::new();
    fmu.init();
    assert!(
        fmu.records().is_empty(),
        "loggingOn=false: no OK messages, {:?}",
        fmu.records()
    );
    assert_eq!(unsafe { fmi2Reset(fmu.c) }, fmi2OK);
    let names = [c"logEvents".as_ptr()];
    assert_eq!(
        unsafe { fmi2SetDebugLogging(fmu.c, fmi2True, 1, names.as_ptr()) },
        fmi2OK
    );
    fmu.init();
    let recs = fmu.records();
    if LOGGER_WORKS {
        assert!(
            recs.iter()
                .any(|r| r.category == "logEvents" && r.message.contains("initialized at t = 0"))
        );
        assert!(recs.iter().all(|r| r.category != "logAll"));
    }
    fmu.clear_log();
    // nCategories = 0 switches everything on: now calls are traced.
    assert_eq!(
        unsafe { fmi2SetDebugLogging(fmu.c, fmi2True, 0, null()) },
        fmi2OK
    );
    assert_eq!(fmu.do_step(0.0, 0.5), fmi2OK);
    if LOGGER_WORKS {
        let recs = fmu.records();
        assert!(recs.iter().any(|r| {
            r.category == "logAll"
                && r.message
                    .starts_with("fmi2DoStep(currentCommunicationPoint=0")
        }));
    }
    // Reset restores the switches of fmi2Instantiate (all off).
    assert_eq!(unsafe { fmi2Reset(fmu.c) }, fmi2OK);
    assert!(
        !fmu.comp()
            .logger
            .is_enabled(crate::component::logging::Category::All)
    );
    // Logging on at instantiation.
    let fmu = Fmu::with_model(Arc::new(test_model(GUID)), true);
    if LOGGER_WORKS {
        assert!(
            fmu.records()
                .iter()
                .any(|r| r.message.contains("instantiated model Pendulum"))
        );
    }
}

#[test]
fn do_step_argument_checks() {
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.do_step(0.0, 0.0), fmi2Error);
    fmu.assert_logged(
        fmi2Error,
        &["communicationStepSize must be finite and > 0, is 0"],
    );
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.do_step(0.0, f64::NAN), fmi2Error);
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.do_step(0.5, 0.1), fmi2Error);
    fmu.assert_logged(
        fmi2Error,
        &["currentCommunicationPoint 0.5 s differs from the FMU time 0 s"],
    );
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(
        fmu.do_step(1e-12, 0.1),
        fmi2OK,
        "rounding noise in t is tolerated"
    );
    // Stop time 10 s (set by init()): 9.9 + 0.1 is fine, 10 + 0.1 is not.
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.do_step(0.0, 9.9), fmi2OK);
    assert_eq!(fmu.do_step(9.9, 0.1), fmi2OK);
    assert_eq!(fmu.do_step(10.0, 0.1), fmi2Error);
    fmu.assert_logged(fmi2Error, &["past the stop time 10 s"]);
}

#[test]
fn failed_step_is_discard_with_status_queries() {
    let fmu = Fmu::new();
    assert_eq!(fmu.set_real(VR_STEP, 0.0), fmi2OK); // makes Instance::advance fail
    fmu.init();
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2Discard);
    assert_eq!(fmu.state(), FmiState::StepFailed);
    fmu.assert_logged(fmi2Discard, &["fmi2DoStep", "solver.step must be positive"]);
    if let Some(r) = fmu.last(fmi2Discard) {
        assert_eq!(r.category, "logStatusDiscard");
    }
    unsafe {
        let mut t = -1.0;
        assert_eq!(
            fmi2GetRealStatus(fmu.c, fmi2StatusKind::fmi2LastSuccessfulTime, &mut t),
            fmi2OK
        );
        assert_eq!(t, 0.0);
        let mut term = -1;
        assert_eq!(
            fmi2GetBooleanStatus(fmu.c, fmi2StatusKind::fmi2Terminated, &mut term),
            fmi2OK
        );
        assert_eq!(term, fmi2False);
        let mut s = fmi2OK;
        assert_eq!(
            fmi2GetStatus(fmu.c, fmi2StatusKind::fmi2DoStepStatus, &mut s),
            fmi2OK
        );
        assert_eq!(s, fmi2Discard);
    }
    assert_eq!(fmu.get_real(VR_ANGLE).0, fmi2OK);
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2Error, "no DoStep in StepFailed");
    assert_eq!(unsafe { fmi2Reset(fmu.c) }, fmi2OK);
    fmu.init();
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2OK, "reset restored solver.step");
}

#[test]
fn status_queries() {
    let fmu = Fmu::new();
    let mut t = 0.0;
    unsafe {
        assert_eq!(
            fmi2GetRealStatus(fmu.c, fmi2StatusKind::fmi2LastSuccessfulTime, &mut t),
            fmi2Error
        );
    }
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.do_step(0.0, 0.25), fmi2OK);
    unsafe {
        assert_eq!(
            fmi2GetRealStatus(fmu.c, fmi2StatusKind::fmi2LastSuccessfulTime, &mut t),
            fmi2OK
        );
        assert_eq!(t, 0.25);
        let mut i = 0;
        assert_eq!(
            fmi2GetIntegerStatus(fmu.c, fmi2StatusKind::fmi2DoStepStatus, &mut i),
            fmi2Discard
        );
        let mut s: fmi2String = null();
        assert_eq!(
            fmi2GetStringStatus(fmu.c, fmi2StatusKind::fmi2PendingStatus, &mut s),
            fmi2Discard
        );
        let mut st = fmi2OK;
        assert_eq!(
            fmi2GetStatus(fmu.c, fmi2StatusKind::fmi2PendingStatus, &mut st),
            fmi2Discard
        );
        assert_eq!(
            fmi2GetStatus(fmu.c, fmi2StatusKind(42), &mut st),
            fmi2Discard,
            "unknown kind, no UB"
        );
        assert_eq!(
            fmu.state(),
            FmiState::StepComplete,
            "Discard does not change the state"
        );
        assert_eq!(fmi2Terminate(fmu.c), fmi2OK);
        let mut term = fmi2False;
        assert_eq!(
            fmi2GetBooleanStatus(fmu.c, fmi2StatusKind::fmi2Terminated, &mut term),
            fmi2OK
        );
        assert_eq!(term, fmi2True);
    }
}

#[test]
fn unsupported_functions_are_errors() {
    // Model Exchange functions on a Co-Simulation instance: never in its states.
    let fmu = Fmu::new();
    assert_eq!(unsafe { fmi2SetTime(fmu.c, 0.0) }, fmi2Error);
    fmu.assert_logged(
        fmi2Error,
        &["fmi2SetTime: Illegal call sequence (state Instantiated)"],
    );
    let vr = VR_FORCE;
    let fmu = Fmu::new();
    fmu.init();
    let mut d = 0.0;
    unsafe {
        assert_eq!(
            fmi2GetDirectionalDerivative(fmu.c, &vr, 1, &vr, 1, &1.0, &mut d),
            fmi2Error
        );
    }
    fmu.assert_logged(fmi2Error, &["providesDirectionalDerivative"]);
    let fmu = Fmu::new();
    fmu.init();
    unsafe {
        assert_eq!(
            fmi2GetRealOutputDerivatives(fmu.c, &vr, 1, &1, &mut d),
            fmi2Error
        );
        let mut info = fmi2EventInfo::default();
        assert_eq!(fmi2NewDiscreteStates(fmu.c, &mut info), fmi2Error);
    }
}

/// The newest logged message (empty if none).
fn last_message(log: &Log) -> String {
    log.lock()
        .unwrap()
        .last()
        .map(|r| r.message.clone())
        .unwrap_or_default()
}

#[test]
fn instantiate_checks_its_arguments() {
    let log: Box<Log> = Box::default();
    let cb = callbacks(&log);
    let guid = CString::new(GUID).unwrap();
    let last = || last_message(&log);
    unsafe {
        // No resource location, and this test binary is not inside an FMU: no model file.
        let c = fmi2Instantiate(
            c"a".as_ptr(),
            fmi2Type::fmi2CoSimulation,
            guid.as_ptr(),
            null(),
            &cb,
            0,
            0,
        );
        assert!(c.is_null());
        if LOGGER_WORKS {
            assert!(
                last().contains("hydromech-model.bin was not found"),
                "{}",
                last()
            );
        }
        let c = fmi2Instantiate(
            c"a".as_ptr(),
            fmi2Type::fmi2ModelExchange,
            guid.as_ptr(),
            null(),
            &cb,
            0,
            0,
        );
        assert!(c.is_null());
        if LOGGER_WORKS {
            assert!(last().contains("was not found"), "{}", last());
        }
        let c = fmi2Instantiate(c"a".as_ptr(), fmi2Type(7), guid.as_ptr(), null(), &cb, 0, 0);
        assert!(c.is_null());
        let c = fmi2Instantiate(
            c"".as_ptr(),
            fmi2Type::fmi2CoSimulation,
            guid.as_ptr(),
            null(),
            &cb,
            0,
            0,
        );
        assert!(c.is_null());
        if LOGGER_WORKS {
            assert!(last().contains("instanceName"), "{}", last());
        }
        let c = fmi2Instantiate(
            null(),
            fmi2Type::fmi2CoSimulation,
            guid.as_ptr(),
            null(),
            &cb,
            0,
            0,
        );
        assert!(c.is_null());
        let c = fmi2Instantiate(
            c"a".as_ptr(),
            fmi2Type::fmi2CoSimulation,
            guid.as_ptr(),
            null(),
            null(),
            0,
            0,
        );
        assert!(c.is_null());
    }
    // Duplicate value references that are not aliases are rejected at instantiation.
    let mut model = test_model(GUID);
    model.variables[1].value_reference = VR_STEP;
    let c = super::exports::instantiate_with_model(Arc::new(model), c"dup", &cb, false);
    assert!(c.is_null());
    if LOGGER_WORKS {
        assert!(
            last().contains("share the Real value reference 0"),
            "{}",
            last()
        );
    }
}

#[test]
fn fmu_state_get_set_rolls_back_exactly() {
    let mut fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.set_real(VR_FORCE, 3.0), fmi2OK);
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2OK);
    let st = fmu.get_state();
    let saved = fmu.serialize(st);
    assert_eq!(fmu.set_real(VR_FORCE, -7.0), fmi2OK);
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2OK);
    assert_eq!(unsafe { fmi2SetFMUstate(fmu.c, st) }, fmi2OK);
    assert_eq!(fmu.time(), 0.1);
    assert_eq!(
        fmu.get_real(VR_FORCE),
        (fmi2OK, 3.0),
        "inputs are part of the state"
    );
    // Reusing the object: GetFMUstate with *state != NULL overwrites it in place.
    let mut same = st;
    assert_eq!(unsafe { fmi2GetFMUstate(fmu.c, &mut same) }, fmi2OK);
    assert_eq!(same, st);
    assert_eq!(fmu.serialize(st), saved);
    // Rollback from StepFailed brings back StepComplete.
    assert_eq!(fmu.set_real(VR_GAIN, 4.0), fmi2OK);
    fmu.comp_mut().instance.set_param(ParamId(0), 0.0); // make the next step fail
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2Discard);
    assert_eq!(unsafe { fmi2SetFMUstate(fmu.c, st) }, fmi2OK);
    assert_eq!(fmu.state(), FmiState::StepComplete);
    assert_eq!(fmu.get_real(VR_GAIN), (fmi2OK, 1.0));
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2OK);
    // A state also restores into state Error (SetFMUstate is allowed there).
    assert_eq!(fmu.set_real(VR_ANGLE, 0.0), fmi2Error);
    assert_eq!(unsafe { fmi2SetFMUstate(fmu.c, st) }, fmi2OK);
    assert_eq!(fmu.state(), FmiState::StepComplete);
    fmu.free_state(st);
}

#[test]
fn serialized_state_continues_bit_for_bit_in_a_fresh_instance() {
    let model = Arc::new(test_model(GUID));
    let a = Fmu::with_model(model.clone(), false);
    a.init();
    assert_eq!(a.set_real(VR_FORCE, 2.5), fmi2OK);
    assert_eq!(a.set_real(VR_GAIN, 0.75), fmi2OK);
    for k in 0..3 {
        assert_eq!(a.do_step(k as f64 * 0.1, 0.1), fmi2OK);
    }
    let st = a.get_state();
    let bytes = a.serialize(st);
    a.free_state(st);

    // Another instance, decoded from its own copy of the model as in another process.
    let b = Fmu::with_model(Arc::new(test_model(GUID)), false);
    let (s, st_b) = b.deserialize(&bytes);
    assert_eq!(s, fmi2OK);
    assert_eq!(unsafe { fmi2SetFMUstate(b.c, st_b) }, fmi2OK);
    assert_eq!(b.state(), FmiState::StepComplete);
    assert_eq!(b.time().to_bits(), a.time().to_bits());
    assert_eq!(b.serialize(st_b), bytes, "decode → encode is the identity");
    // DeSerialize into an existing object reuses it.
    let mut reused = st_b;
    assert_eq!(
        unsafe { fmi2DeSerializeFMUstate(b.c, bytes.as_ptr().cast(), bytes.len(), &mut reused) },
        fmi2OK
    );
    assert_eq!(reused, st_b);
    b.free_state(st_b);

    let t = a.time();
    for k in 0..5 {
        let tk = t + k as f64 * 0.05;
        assert_eq!(a.do_step(tk, 0.05), fmi2OK);
        assert_eq!(b.do_step(tk, 0.05), fmi2OK);
    }
    let (sa, sb) = (a.get_state(), b.get_state());
    assert_eq!(a.serialize(sa), b.serialize(sb));
    for vr in [VR_STEP, VR_FORCE, VR_GAIN, VR_ANGLE] {
        assert_eq!(a.get_real(vr).1.to_bits(), b.get_real(vr).1.to_bits());
    }
    a.free_state(sa);
    b.free_state(sb);
}

#[test]
fn corrupted_truncated_and_foreign_states_are_rejected() {
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2OK);
    let st = fmu.get_state();
    let bytes = fmu.serialize(st);

    // Wrong size argument.
    let mut buf = vec![0u8; bytes.len() + 1];
    assert_eq!(
        unsafe { fmi2SerializeFMUstate(fmu.c, st, buf.as_mut_ptr().cast(), buf.len()) },
        fmi2Error
    );
    fmu.assert_logged(fmi2Error, &["size is", "fmi2SerializedFMUstateSize"]);
    fmu.free_state(st); // FreeFMUstate is allowed in state Error

    // Every single flipped byte is detected (header, snapshot, checksums).
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x40;
        let (s, st) = fmu.deserialize(&bad);
        assert_eq!(s, fmi2Error, "flipped byte {i}");
        assert!(st.is_null());
    }
    fmu.assert_logged(fmi2Error, &["fmi2DeSerializeFMUstate"]);
    for n in [0, 1, 8, 56, bytes.len() / 2, bytes.len() - 1] {
        let (s, _) = fmu.deserialize(&bytes[..n]);
        assert_eq!(s, fmi2Error, "truncated to {n}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(fmu.deserialize(&longer).0, fmi2Error);

    // A state of another model (other GUID) is refused with the reason.
    let other = Fmu::with_model(Arc::new(test_model("{another-guid}")), false);
    other.init();
    let st_other = other.get_state();
    let foreign = other.serialize(st_other);
    assert_eq!(fmu.deserialize(&foreign).0, fmi2Error);
    fmu.assert_logged(fmi2Error, &["another model"]);
    // ... and so is the in-memory object.
    assert_eq!(unsafe { fmi2SetFMUstate(fmu.c, st_other) }, fmi2Error);
    fmu.assert_logged(fmi2Error, &["another model"]);
    other.free_state(st_other);

    // The original bytes still restore (state Error allows DeSerialize and SetFMUstate).
    let (s, st) = fmu.deserialize(&bytes);
    assert_eq!(s, fmi2OK);
    assert_eq!(unsafe { fmi2SetFMUstate(fmu.c, st) }, fmi2OK);
    assert_eq!(fmu.state(), FmiState::StepComplete);
    assert_eq!(fmu.time(), 0.1);
    fmu.free_state(st);
}

#[test]
fn instances_are_independent() {
    let model = Arc::new(test_model(GUID));
    let a = Fmu::with_model(model.clone(), false);
    let b = Fmu::with_model(model, false);
    assert_eq!(a.set_real(VR_MASS, 5.0), fmi2OK);
    a.init();
    b.init();
    assert_eq!(a.get_real(VR_MASS).1, 5.0);
    assert_eq!(b.get_real(VR_MASS).1, 2.0);
    assert_eq!(a.do_step(0.0, 0.3), fmi2OK);
    assert_eq!(b.time(), 0.0);
    // A state of instance a restores into instance b (same model).
    let st = a.get_state();
    assert_eq!(unsafe { fmi2SetFMUstate(b.c, st) }, fmi2OK);
    assert_eq!(b.get_real(VR_MASS).1, 5.0);
    assert_eq!(b.time(), 0.3);
    a.free_state(st);
}

#[test]
fn exported_symbol_list_is_complete() {
    assert_eq!(EXPORTED_FUNCTIONS.len(), 44);
    let mut sorted = EXPORTED_FUNCTIONS.to_vec();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 44);
}

/// `fmi2Instantiate` reading the model file from `resources/`: every URI form masters send,
/// and every way the file can be bad gives NULL with a logged reason.
#[test]
fn instantiate_reads_and_checks_the_model_file() {
    use crate::model::file;
    let log: Box<Log> = Box::default();
    let cb = callbacks(&log);
    let last = || last_message(&log);
    let root = std::env::temp_dir().join(format!("hydromech model {}", std::process::id()));
    let resources = root.join("resources");
    std::fs::create_dir_all(&resources).unwrap();
    let good = file::encode(&test_model(GUID));
    let write = |bytes: &[u8]| std::fs::write(resources.join(file::FILE_NAME), bytes).unwrap();
    let escaped = resources.to_string_lossy().replace(' ', "%20");
    let instantiate = |location: &str, guid: &str| {
        let location = CString::new(location).unwrap();
        let guid = CString::new(guid).unwrap();
        // SAFETY: valid C strings and callbacks.
        unsafe {
            fmi2Instantiate(
                c"m".as_ptr(),
                fmi2Type::fmi2CoSimulation,
                guid.as_ptr(),
                location.as_ptr(),
                &cb,
                0,
                1,
            )
        }
    };
    write(&good);
    let root_uri = format!("file://{}", root.to_string_lossy().replace(' ', "%20"));
    for location in [
        format!("file://{escaped}"),
        format!("file:{escaped}"),
        format!("file://localhost{escaped}"),
        resources.to_string_lossy().into_owned(),
        root_uri.clone(),
    ] {
        let c = instantiate(&location, GUID);
        assert!(!c.is_null(), "{location}: {}", last());
        let found = log
            .lock()
            .unwrap()
            .drain(..)
            .any(|r| r.message.contains("model read from"));
        assert!(found, "which model file was used is not logged");
        // SAFETY: a live component.
        unsafe { fmi2FreeInstance(c) };
    }
    let rejects = |bytes: &[u8], guid: &str, why: &str| {
        write(bytes);
        let c = instantiate(&root_uri, guid);
        assert!(c.is_null(), "accepted although {why}");
        assert!(last().contains(why), "expected '{why}' in: {}", last());
    };
    rejects(&good, "{another}", "belongs to the model with GUID");
    let mut corrupted = good.clone();
    let n = corrupted.len();
    corrupted[n - 3] ^= 0x40;
    rejects(&corrupted, GUID, "is corrupted");
    rejects(&good[..n - 1], GUID, "truncated");
    rejects(
        b"PK\x03\x04 a zip, not a model",
        GUID,
        "is not a hydromech model file",
    );
    let mut newer = good.clone();
    newer[20] = newer[20].wrapping_add(1);
    rejects(&newer, GUID, "rebuild the FMU with one hydromech");
    // A header that is right around a payload that is not a model.
    let mut hand_made = test_model(GUID);
    hand_made.mechanism.bodies[0].parent = Some(7);
    rejects(&file::encode(&hand_made), GUID, "parent");
    std::fs::remove_dir_all(&root).unwrap();
    let c = instantiate(&root_uri, GUID);
    assert!(c.is_null());
    assert!(last().contains("was not found"), "{}", last());
}

/// `fmi2SetRealInputDerivatives`: an input with a first and second derivative follows
/// `u + u̇ τ + ü τ²/2` inside the next step — the trapezoidal rule sees the polynomial at
/// both ends of every internal step, a second-order integration of the moving input — and
/// afterwards it reads as set and is held again.
#[test]
fn input_derivatives_move_the_input_inside_the_step() {
    let (u, du, ddu) = (3.0, 40.0, -900.0);
    let interpolated = Fmu::new();
    interpolated.init();
    assert_eq!(interpolated.set_real(VR_FORCE, u), fmi2OK);
    let (vrs, orders, values) = ([VR_FORCE, VR_FORCE], [1, 2], [du, ddu]);
    let status = unsafe {
        fmi2SetRealInputDerivatives(
            interpolated.c,
            vrs.as_ptr(),
            2,
            orders.as_ptr(),
            values.as_ptr(),
        )
    };
    assert_eq!(status, fmi2OK);
    assert_eq!(interpolated.do_step(0.0, 0.01), fmi2OK);
    assert_eq!(interpolated.get_real(VR_FORCE), (fmi2OK, u), "reads as set");

    // The polynomial held piecewise by a master: over each step the value at its end
    // (an input set between steps acts from that point on, `solver::input_change`), at the
    // 1 ms internal step (first order in the sampling) and at 10 µs (the reference).
    let sampled = |dt: f64| {
        let fmu = Fmu::new();
        fmu.init();
        let n = (0.01 / dt).round() as usize;
        for k in 1..=n {
            let tau = k as f64 * dt;
            assert_eq!(
                fmu.set_real(VR_FORCE, u + du * tau + 0.5 * ddu * tau * tau),
                fmi2OK
            );
            assert_eq!(fmu.do_step(tau - dt, dt), fmi2OK);
        }
        fmu
    };
    let (by_hand, reference) = (sampled(1e-3), sampled(1e-5));
    let held = Fmu::new();
    held.init();
    assert_eq!(held.set_real(VR_FORCE, u), fmi2OK);
    assert_eq!(held.do_step(0.0, 0.01), fmi2OK);
    let (a, b, c) = (
        interpolated.get_real(VR_ANGLE).1,
        by_hand.get_real(VR_ANGLE).1,
        held.get_real(VR_ANGLE).1,
    );
    let r = reference.get_real(VR_ANGLE).1;
    println!(
        "angle after 10 ms against 10 µs sampling: interpolated {:.3e}, sampled at 1 ms {:.3e}, held {:.3e}",
        (a - r).abs(),
        (b - r).abs(),
        (c - r).abs()
    );
    assert!(
        (a - r).abs() < 0.1 * (b - r).abs() && (b - r).abs() < 0.5 * (c - r).abs(),
        "interpolated {a}, sampled {b}, held {c}, reference {r}"
    );

    // Consumed by the step: the next one holds the input, as a run restored from this
    // state that never had derivatives.
    let before = interpolated.get_real(VR_ANGLE).1;
    let saved = interpolated.get_state();
    let bytes = interpolated.serialize(saved);
    interpolated.free_state(saved);
    let twin = Fmu::new();
    twin.init();
    let (status, restored) = twin.deserialize(&bytes);
    assert_eq!(status, fmi2OK);
    assert_eq!(unsafe { fmi2SetFMUstate(twin.c, restored) }, fmi2OK);
    twin.free_state(restored);
    for fmu in [&interpolated, &twin] {
        assert_eq!(fmu.set_real(VR_FORCE, u), fmi2OK);
        assert_eq!(fmu.do_step(0.01, 0.01), fmi2OK);
    }
    assert_eq!(
        interpolated.get_real(VR_ANGLE).1.to_bits(),
        twin.get_real(VR_ANGLE).1.to_bits(),
        "held after the step (from {before})"
    );
}

#[test]
fn bad_input_derivatives_are_errors() {
    let cases: [(u32, i32, f64, &str); 6] = [
        (VR_ANGLE, 1, 1.0, "is not a continuous Real input"),
        (VR_MASS, 1, 1.0, "is not a continuous Real input"),
        (
            VR_FORCE,
            0,
            1.0,
            "derivative order 0 with value 1; orders 1…2",
        ),
        (VR_FORCE, 3, 1.0, "derivative order 3"),
        (VR_FORCE, 1, f64::NAN, "with value NaN"),
        (999, 1, 1.0, "no Real variable has value reference 999"),
    ];
    for (vr, order, value, needle) in cases {
        let fmu = Fmu::new();
        fmu.init();
        let status = unsafe { fmi2SetRealInputDerivatives(fmu.c, &vr, 1, &order, &value) };
        assert_eq!(status, fmi2Error, "vr {vr} order {order} value {value}");
        fmu.assert_logged(fmi2Error, &["fmi2SetRealInputDerivatives", needle]);
    }
}

/// The model description declares every output without direct feedthrough
/// (`dependencies=""`): setting an input at a communication point changes no output until
/// the next step.
#[test]
fn outputs_do_not_feed_through_inputs_between_steps() {
    let fmu = Fmu::new();
    fmu.init();
    assert_eq!(fmu.do_step(0.0, 0.01), fmi2OK);
    let before = fmu.get_real(VR_ANGLE).1;
    assert_eq!(fmu.set_real(VR_FORCE, 500.0), fmi2OK);
    assert_eq!(fmu.get_real(VR_ANGLE).1.to_bits(), before.to_bits());
    assert_eq!(fmu.do_step(0.01, 0.01), fmi2OK);
    assert_ne!(
        fmu.get_real(VR_ANGLE).1,
        before,
        "the input acts in the next step"
    );
}

#[path = "tests_me.rs"]
pub(crate) mod model_exchange;

//! `fmi3DoStep` allocates nothing either: the FMI 3.0 path adds the copy of the state a
//! discarded step returns to (into a buffer made at instantiation) and, with an
//! intermediate-update callback, the step taken one internal step at a time with the
//! master reading outputs and setting inputs in between. A counting global allocator sees
//! every allocation of the test thread while seed 002's rod runs through the C ABI, as a
//! master would call it, with the model file on disk.

#[path = "support/counting.rs"]
mod counting;
mod support;

use counting::count_during;

use fmu_runtime::fmi3::do_step::fmi3DoStep;
use fmu_runtime::fmi3::exports::*;
use fmu_runtime::fmi3::types::*;
use std::ffi::{CString, c_void};
use std::ptr::{null, null_mut};

/// What the callback reads and sets (the master's side).
struct Master {
    instance: fmi3Instance,
    output: u32,
    input: u32,
    value: f64,
    calls: usize,
    sink: f64,
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn update(
    env: *mut c_void,
    _time: f64,
    set_requested: bool,
    get_allowed: bool,
    _finished: bool,
    _can_return_early: bool,
    _requested: *mut bool,
    _when: *mut f64,
) {
    let m = unsafe { &mut *(env as *mut Master) };
    m.calls += 1;
    if get_allowed {
        let mut v = 0.0;
        unsafe { fmi3GetFloat64(m.instance, &m.output, 1, &mut v, 1) };
        m.sink += v;
    }
    if set_requested {
        unsafe { fmi3SetFloat64(m.instance, &m.input, 1, &m.value, 1) };
    }
}

#[test]
fn fmi3_do_step_does_not_allocate() {
    use fmu_runtime::model::{Binding, Causality, ParamId, Probe, VarType, Variability, Variable};
    let mut model = support::naya_rod(0.4646082, 0.001);
    // The interface a master needs: the spool command in, the cylinder length out.
    let command = model
        .params
        .iter()
        .position(|p| p.name == "valve.command")
        .unwrap();
    let variable = |name: &str, vr, causality, binding, start| Variable {
        name: name.into(),
        value_reference: vr,
        description: String::new(),
        causality,
        variability: Variability::Continuous,
        initial: None,
        var_type: VarType::Real,
        unit: None,
        display_unit: None,
        start,
        min: None,
        max: None,
        nominal: None,
        binding,
    };
    model.variables = vec![
        variable(
            "valve.command",
            1,
            Causality::Input,
            Binding::Param(ParamId(command as u32)),
            Some(0.4646082),
        ),
        variable(
            "cylinder.length",
            2,
            Causality::Output,
            Binding::Probe(Probe::CylinderLength(0)),
            None,
        ),
    ];
    let dir = std::env::temp_dir().join(format!("hydromech-fmi3-alloc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(fmu_runtime::model::file::FILE_NAME),
        fmu_runtime::model::file::encode(&model),
    )
    .unwrap();
    let vr = |name: &str| {
        model
            .variables
            .iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("no variable {name}"))
            .value_reference
    };
    let (input, output) = (vr("valve.command"), vr("cylinder.length"));
    let resources = CString::new(format!("{}/", dir.display())).unwrap();
    let token = CString::new(model.guid.clone()).unwrap();
    for with_callback in [false, true] {
        let mut master = Box::new(Master {
            instance: null_mut(),
            output,
            input,
            value: 0.4546082,
            calls: 0,
            sink: 0.0,
        });
        let required = [input, output];
        let c = unsafe {
            fmi3InstantiateCoSimulation(
                c"alloc".as_ptr(),
                token.as_ptr(),
                resources.as_ptr(),
                false,
                false,
                false,
                true,
                if with_callback {
                    required.as_ptr()
                } else {
                    null()
                },
                if with_callback { 2 } else { 0 },
                &mut *master as *mut Master as *mut c_void,
                None,
                if with_callback { Some(update) } else { None },
            )
        };
        assert!(!c.is_null(), "instantiation failed");
        master.instance = c;
        unsafe {
            assert_eq!(
                fmi3EnterInitializationMode(c, false, 0.0, 0.0, false, 0.0),
                fmi3Status::fmi3OK
            );
            assert_eq!(fmi3ExitInitializationMode(c), fmi3Status::fmi3OK);
        }
        let (mut a, mut b, mut e, mut last) = (false, false, false, 0.0);
        let mut t = 0.0;
        let mut step = |t: &mut f64, k: usize| unsafe {
            // 10 ms communication steps of a 1 ms solver: nine callbacks each.
            let u = if k % 40 < 20 { 0.4546082 } else { 0.4746082 };
            assert_eq!(fmi3SetFloat64(c, &input, 1, &u, 1), fmi3Status::fmi3OK);
            let s = fmi3DoStep(c, *t, 0.01, true, &mut a, &mut b, &mut e, &mut last);
            assert_eq!(s, fmi3Status::fmi3OK);
            *t = last;
            let mut v = 0.0;
            assert_eq!(fmi3GetFloat64(c, &output, 1, &mut v, 1), fmi3Status::fmi3OK);
        };
        for k in 0..5 {
            step(&mut t, k);
        }
        let n = count_during(|| {
            for k in 5..200 {
                step(&mut t, k);
            }
        });
        assert_eq!(
            n, 0,
            "allocations in fmi3DoStep (callback: {with_callback})"
        );
        if with_callback {
            assert_eq!(master.calls, 9 * 200, "callbacks");
            assert!(master.sink.is_finite() && master.sink > 0.0);
        }
        unsafe { fmi3FreeInstance(c) };
    }
    let _ = std::fs::remove_dir_all(&dir);
}

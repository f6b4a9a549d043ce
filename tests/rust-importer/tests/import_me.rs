//! The FMI 2.0 Model Exchange FMUs (`fmus/me/*.fmu`, `hydromech build --interface me`)
//! through the `fmi` crate 0.8.0's Model Exchange importer, a second importer beside FMPy:
//!
//! - every model: the calling sequence to Continuous-Time Mode, the continuous states, their
//!   nominals and derivatives (finite), a step event never asked for at rest;
//! - naya-rod and the Pub I four-bar integrated by classical RK4 at 0.1 ms through the
//!   crate's calls, against the Co-Simulation FMU (the same crate) at its default step over
//!   the same valve step: issue 17's 0.05 mm and 1e-4 rad, and the energy balance.
//!
//! A missing FMU is a FAILURE here, never a silent pass.

mod support;

use support::{fmus_dir, import};

use fmi::EventFlags;
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation as _, Common as _, ModelExchange as _};
use fmi::traits::FmiImport;

const BUILD_HINT: &str = "run `cargo run --release --bin hydromech -- build --interface me -o fmus/me` \
                          (`bash tests/run.sh` does, before `cargo test`)";

fn vr(imp: &Fmi2Import, name: &str) -> u32 {
    imp.model_description()
        .model_variable_by_name(name)
        .unwrap_or_else(|_| panic!("no variable {name}"))
        .value_reference
}

/// The number of continuous states: the variables `ode.x[k]`.
fn states(imp: &Fmi2Import) -> usize {
    imp.model_description()
        .get_model_variables()
        .filter(|v| v.name.starts_with("ode.x["))
        .count()
}

type Me = fmi::fmi2::instance::InstanceME;

/// Instantiates for Model Exchange and brings the instance to Continuous-Time Mode.
fn start(imp: &'static Fmi2Import) -> Me {
    let mut inst = imp
        .instantiate_me("me", false, false)
        .expect("fmi2Instantiate(fmi2ModelExchange)");
    inst.setup_experiment(None, 0.0, None)
        .expect("fmi2SetupExperiment");
    inst.enter_initialization_mode()
        .expect("fmi2EnterInitializationMode");
    inst.exit_initialization_mode()
        .expect("fmi2ExitInitializationMode");
    let mut flags = EventFlags::default();
    inst.new_discrete_states(&mut flags)
        .expect("fmi2NewDiscreteStates");
    assert!(!flags.discrete_states_need_update && !flags.terminate_simulation);
    inst.enter_continuous_time_mode()
        .expect("fmi2EnterContinuousTimeMode");
    inst
}

#[test]
fn every_model_exchange_fmu_reaches_continuous_time_mode() {
    for path in support::fmus_in(&fmus_dir().join("me"), BUILD_HINT) {
        let imp: &'static Fmi2Import = Box::leak(Box::new(import(&path)));
        let n = states(imp);
        assert!(n > 0, "{}", path.display());
        let mut inst = start(imp);
        let (mut x, mut dx, mut nominal) = (vec![0.0; n], vec![f64::NAN; n], vec![0.0; n]);
        inst.get_continuous_states(&mut x)
            .expect("fmi2GetContinuousStates");
        inst.get_nominals_of_continuous_states(&mut nominal)
            .expect("fmi2GetNominalsOfContinuousStates");
        inst.set_time(0.0).expect("fmi2SetTime");
        inst.set_continuous_states(&x)
            .expect("fmi2SetContinuousStates");
        inst.get_derivatives(&mut dx).expect("fmi2GetDerivatives");
        assert!(
            dx.iter().all(|v| v.is_finite()),
            "{}: {dx:?}",
            path.display()
        );
        assert!(nominal.iter().all(|v| *v == 1.0 || *v == 1e7 || *v == 1e-4));
        let (mut enter, mut stop) = (true, true);
        inst.completed_integrator_step(true, &mut enter, &mut stop)
            .expect("fmi2CompletedIntegratorStep");
        assert!(!enter && !stop, "{}: no step event at rest", path.display());
        println!(
            "{}: {n} continuous states, max |ẋ| at the initial equilibrium {:.2e}",
            path.file_stem().unwrap().to_string_lossy(),
            dx.iter().fold(0.0f64, |a, v| a.max(v.abs()))
        );
    }
}

/// RK4 at `h` to `t_end` through the crate's Model Exchange calls, with `input` set to
/// `value` from t = 0; returns the final value of each of `read`.
fn rk4(
    imp: &'static Fmi2Import,
    input: (&str, f64),
    read: &[&str],
    h: f64,
    t_end: f64,
) -> Vec<f64> {
    let n = states(imp);
    let mut inst = start(imp);
    inst.set_real(&[vr(imp, input.0)], &[input.1])
        .expect("fmi2SetReal");
    let mut x = vec![0.0; n];
    inst.get_continuous_states(&mut x).unwrap();
    let steps = (t_end / h).round() as usize;
    let mut f = |t: f64, y: &[f64]| {
        let mut k = vec![0.0; n];
        inst.set_time(t).unwrap();
        inst.set_continuous_states(y).unwrap();
        inst.get_derivatives(&mut k).unwrap();
        k
    };
    for s in 0..steps {
        let t = s as f64 * h;
        let k1 = f(t, &x);
        let y: Vec<f64> = x.iter().zip(&k1).map(|(a, b)| a + 0.5 * h * b).collect();
        let k2 = f(t + 0.5 * h, &y);
        let y: Vec<f64> = x.iter().zip(&k2).map(|(a, b)| a + 0.5 * h * b).collect();
        let k3 = f(t + 0.5 * h, &y);
        let y: Vec<f64> = x.iter().zip(&k3).map(|(a, b)| a + h * b).collect();
        let k4 = f(t + h, &y);
        for i in 0..n {
            x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    f(t_end, &x);
    let vrs: Vec<u32> = read.iter().map(|name| vr(imp, name)).collect();
    let mut out = vec![f64::NAN; vrs.len()];
    inst.get_real(&vrs, &mut out).expect("fmi2GetReal");
    out
}

/// The Co-Simulation FMU of the same model at its default step over the same input step.
fn co_simulation(name: &str, input: (&str, f64), read: &[&str], t_end: f64) -> Vec<f64> {
    let imp = import(&fmus_dir().join(format!("{name}.fmu")));
    let mut inst = imp
        .instantiate_cs("cs", false, false)
        .expect("instantiate_cs");
    inst.setup_experiment(None, 0.0, None).unwrap();
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    inst.set_real(&[vr(&imp, input.0)], &[input.1]).unwrap();
    let steps = (t_end / 1e-3).round() as usize;
    for s in 0..steps {
        inst.do_step(s as f64 * 1e-3, 1e-3, true)
            .expect("fmi2DoStep");
    }
    let vrs: Vec<u32> = read.iter().map(|n| vr(&imp, n)).collect();
    let mut out = vec![f64::NAN; vrs.len()];
    inst.get_real(&vrs, &mut out).unwrap();
    out
}

#[test]
fn naya_rod_and_the_fourbar_integrated_through_the_crate_agree_with_co_simulation() {
    // (model, input step, compared output, issue 17's tolerance, the energy balance)
    let cases = [
        (
            "naya-rod",
            ("valve.command", 0.4546082),
            "cylinder.length",
            0.05e-3,
        ),
        (
            "jaiswal-fourbar",
            ("valve.command", 10.0),
            "crank.angle",
            1e-4,
        ),
    ];
    for (name, input, output, tolerance) in cases {
        let imp: &'static Fmi2Import = Box::leak(Box::new(import(
            &fmus_dir().join("me").join(format!("{name}.fmu")),
        )));
        let read = [output, "energy.balance_error", "energy.actuator_work"];
        let me = rk4(imp, input, &read, 1e-4, 1.0);
        let cs = co_simulation(name, input, &read, 1.0);
        let gap = (me[0] - cs[0]).abs();
        println!(
            "{name}: {output} RK4 0.1 ms {:.9} vs CS 1 ms {:.9}, |Δ| {gap:.2e}; energy balance {:.2e} J of {:.1} J work",
            me[0], cs[0], me[1], me[2]
        );
        assert!(gap < tolerance, "{name}: {gap}");
        assert!(
            me[1].abs() < 1e-3 * me[2].abs().max(1.0),
            "{name}: balance {}",
            me[1]
        );
        assert!(
            (me[2] - cs[2]).abs() < 0.01 * cs[2].abs().max(1e-3),
            "{name}: work"
        );
    }
}

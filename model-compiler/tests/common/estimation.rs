//! What the estimator tests share: reproducible noise, a shipped machine compiled with a
//! test's own `[estimator]`, a perturbed parameter.

use super::Machine;
use fmu_runtime::model::ParamId;
use fmu_runtime::model::estimator::EstimatorSpec;
use model_compiler::description::Description;

/// A reproducible normal sample (xorshift64*, Box–Muller).
pub struct Noise(pub u64);

impl Noise {
    pub fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// The shipped description as a TOML table.
pub fn model_table(file: &str) -> toml::Table {
    let path = super::workspace().join("models").join(file);
    std::fs::read_to_string(path).unwrap().parse().unwrap()
}

/// The shipped description without its own `[estimator]` (a test brings its sensors).
pub fn model_text(file: &str) -> String {
    let mut t = model_table(file);
    t.remove("estimator");
    toml::to_string(&t).unwrap()
}

/// `file` with `estimator` appended, compiled with its estimator.
pub fn estimator_machine(file: &str, estimator: &str) -> (Machine, EstimatorSpec) {
    compiled_estimator(&format!("{}\n{estimator}", model_text(file)))
}

/// A whole description's text compiled with its estimator.
pub fn compiled_estimator(text: &str) -> (Machine, EstimatorSpec) {
    let d = Description::parse(text).unwrap_or_else(|e| panic!("{}", e.message));
    let mut l = model_compiler::compile_description(&d).unwrap_or_else(|e| panic!("{e:?}"));
    let spec = l.estimator.clone().expect("an [estimator]");
    l.model.estimator = Some(spec.clone());
    l.model.validate().unwrap();
    (Machine::from_model(l.model), spec)
}

/// Sets slot `name` to `f(default)`.
pub fn perturb(m: &mut Machine, name: &str, f: impl Fn(f64) -> f64) {
    let (i, slot) = m
        .inst
        .model()
        .params
        .iter()
        .enumerate()
        .find(|(_, p)| p.name == name)
        .unwrap_or_else(|| panic!("no slot {name}"));
    let v = f(slot.default);
    m.inst.set_param(ParamId(i as u32), v);
}

/// The σ of the estimated coordinate of joint `joint` (an estimator FMU's
/// `<joint>.q.sigma`).
pub fn coordinate_sigma(m: &Machine, joint: &str) -> f64 {
    use fmu_runtime::solver::ode::StateKind;
    let mech = &m.inst.model().mechanism;
    let b = mech
        .bodies
        .iter()
        .position(|b| b.joint_name == joint)
        .unwrap_or_else(|| panic!("no joint {joint}"));
    let c = mech.coordinate_indices()[b].expect("a joint with a coordinate");
    let e = m.inst.estimator().expect("an estimator");
    let k = (0..e.len())
        .find(|&k| matches!(m.inst.ode_kind(k), Some(StateKind::Coordinate(i)) if i == c))
        .unwrap_or_else(|| panic!("{joint} is not an independent coordinate"));
    e.sigma(k)
}

/// An estimated error by its slot's name (`lift.load`, `sensor.<name>.bias`): value and σ.
pub fn error_estimate(m: &Machine, slot: &str) -> (f64, f64) {
    let e = m.inst.estimator().expect("an estimator");
    let n_ode = e.len() - e.errors();
    let j = (0..e.errors())
        .find(|&j| m.inst.model().params[e.error_slot(j).index()].name == slot)
        .unwrap_or_else(|| panic!("no estimated {slot}"));
    (m.inst.params()[e.error_slot(j).index()], e.sigma(n_ode + j))
}

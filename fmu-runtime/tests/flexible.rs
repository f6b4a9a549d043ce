//! The floating-frame flexible body against a cloud of particles (issue 22).
//!
//! For lumped masses the FFRF is exact: a flexible body whose mass sits in particles at
//! `x_i + Φ_i η` has precisely the kinetic energy its invariants give. So a tree —
//! a rigid base on a ground revolute, a flexible boom on a revolute of the base, a rigid jib
//! on a revolute at the boom's deformed tip node (moved by Ψ_R η and turned by Exp(Ψ_θ η)) —
//! is rebuilt here as particles whose world positions are computed independently of the
//! runtime (nalgebra's own exponential map). D'Alembert on the particles, with
//! accelerations and Jacobians by finite differences of those positions, is then the
//! reference for the runtime's inverse dynamics, mass matrix and kinetic energy.

#![allow(clippy::disallowed_methods)]

#[path = "support/counting.rs"]
mod counting;
mod support;

use fmu_runtime::mechanics::Kinematics;
use fmu_runtime::mechanics::base::BaseMotion;
use fmu_runtime::mechanics::dynamics::{self, CompositeInertia};
use fmu_runtime::mechanics::spatial::{Vec6, inertia_array};
use fmu_runtime::model::*;
use nalgebra::{Matrix3, Rotation3, Vector3};
use support::*;

type V3 = Vector3<f64>;

/// A deterministic pseudo-random number in [-1, 1) (no dependency on a crate's stream).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
    fn v3(&mut self, scale: f64) -> V3 {
        V3::new(self.next(), self.next(), self.next()) * scale
    }
}

const MODES: usize = 3;
const GRAVITY: [f64; 3] = [0.5, -1.0, -9.81];
const BOOM_PIVOT: [f64; 3] = [0.3, 0.0, 0.5];
const NODE: [f64; 3] = [2.0, 0.05, 0.0];
const JIB_OFFSET: [f64; 3] = [0.1, 0.0, 0.0];

struct Particles {
    base: Vec<(f64, V3)>,
    /// Mass, position, and the translation per mode.
    boom: Vec<(f64, V3, [V3; MODES])>,
    jib: Vec<(f64, V3)>,
    node_translation: [V3; MODES],
    node_rotation: [V3; MODES],
    stiffness: [f64; MODES],
    damping: [f64; MODES],
}

fn particles() -> Particles {
    let mut r = Lcg(7);
    let base = (0..4)
        .map(|_| (20.0 + 10.0 * r.next(), r.v3(0.3)))
        .collect();
    let boom = (0..12)
        .map(|i| {
            let x = 2.0 * i as f64 / 11.0;
            let s = x / 2.0;
            (
                15.0 + 5.0 * r.next(),
                V3::new(x, 0.05 * r.next(), 0.05 * r.next()),
                [r.v3(0.05 * s), r.v3(0.05 * s), r.v3(0.05 * s * s)],
            )
        })
        .collect();
    let jib = (0..4)
        .map(|_| (5.0 + 2.0 * r.next(), V3::new(0.4, 0.0, 0.0) + r.v3(0.2)))
        .collect();
    Particles {
        base,
        boom,
        jib,
        node_translation: [r.v3(0.05), r.v3(0.05), r.v3(0.05)],
        node_rotation: [r.v3(0.05), r.v3(0.05), r.v3(0.05)],
        stiffness: [400.0, 2500.0, 9000.0],
        damping: [0.3, 1.1, 2.0],
    }
}

fn rotation(th: V3) -> Matrix3<f64> {
    Rotation3::from_scaled_axis(th).into_inner()
}

/// Every particle's world position at coordinates `z` = [base, boom, jib, η1, η2, η3].
fn positions(p: &Particles, z: &[f64]) -> Vec<(f64, V3)> {
    let eta = &z[3..];
    let r0 = rotation(V3::z() * z[0]);
    let mut out: Vec<(f64, V3)> = p.base.iter().map(|(m, y)| (*m, r0 * y)).collect();
    let o1 = r0 * V3::from(BOOM_PIVOT);
    let r1 = r0 * rotation(V3::y() * z[1]);
    for (m, x, phi) in &p.boom {
        let u: V3 = (0..MODES).map(|k| phi[k] * eta[k]).sum();
        out.push((*m, o1 + r1 * (x + u)));
    }
    let u: V3 = (0..MODES).map(|k| p.node_translation[k] * eta[k]).sum();
    let th: V3 = (0..MODES).map(|k| p.node_rotation[k] * eta[k]).sum();
    let o_node = o1 + r1 * (V3::from(NODE) + u);
    let r_node = r1 * rotation(th);
    let r3 = r_node * rotation(V3::z() * z[2]);
    let o3 = o_node + r_node * V3::from(JIB_OFFSET);
    out.extend(p.jib.iter().map(|(m, y)| (*m, o3 + r3 * y)));
    out
}

fn rigid(parts: &[(f64, V3)]) -> (f64, [f64; 3], [f64; 6]) {
    let m: f64 = parts.iter().map(|p| p.0).sum();
    let c = parts.iter().map(|(mi, y)| y * *mi).sum::<V3>() / m;
    let mut i = Matrix3::zeros();
    for (mi, y) in parts {
        let d = y - c;
        i += (Matrix3::identity() * d.norm_squared() - d * d.transpose()) * *mi;
    }
    (m, c.into(), inertia_array(&i))
}

/// The invariants of particles (lumped translational masses: Θ rows are `−[x]×`).
fn invariants(boom: &[(f64, V3, [V3; MODES])]) -> ModalInvariants {
    let n = MODES;
    let gram = |a: &V3, b: &V3| a.cross_matrix().transpose() * b.cross_matrix();
    let mut inv = ModalInvariants {
        mass: boom.iter().map(|b| b.0).sum(),
        first_moment: [0.0; 3],
        first_moment_modal: vec![[0.0; 3]; n],
        inertia: [0.0; 6],
        inertia_modal: vec![[0.0; 6]; n],
        inertia_modal2: vec![[0.0; 9]; n * n],
        rotation_coupling: vec![[0.0; 3]; n],
        rotation_coupling_modal: vec![[0.0; 3]; n * n],
        modal_mass: vec![0.0; n * n],
    };
    let (mut s0, mut j0) = (V3::zeros(), Matrix3::zeros());
    let mut c_t = [V3::zeros(); MODES];
    let mut c_r = [V3::zeros(); MODES];
    let mut j1 = [Matrix3::zeros(); MODES];
    for (m, x, phi) in boom {
        s0 += x * *m;
        j0 += gram(x, x) * *m;
        for k in 0..n {
            c_t[k] += phi[k] * *m;
            c_r[k] += x.cross(&phi[k]) * *m;
            j1[k] += (gram(x, &phi[k]) + gram(&phi[k], x)) * *m;
            for l in 0..n {
                let j2 = gram(&phi[k], &phi[l]) * *m;
                for (e, v) in inv.inertia_modal2[k * n + l]
                    .iter_mut()
                    .zip(j2.transpose().iter())
                {
                    *e += v;
                }
                let crk = phi[k].cross(&phi[l]) * *m;
                for d in 0..3 {
                    inv.rotation_coupling_modal[k * n + l][d] += crk[d];
                }
                inv.modal_mass[k * n + l] += phi[k].dot(&phi[l]) * *m;
            }
        }
    }
    inv.first_moment = s0.into();
    inv.inertia = inertia_array(&j0);
    for k in 0..n {
        inv.first_moment_modal[k] = c_t[k].into();
        inv.rotation_coupling[k] = c_r[k].into();
        inv.inertia_modal[k] = inertia_array(&j1[k]);
    }
    inv
}

struct Machine {
    mech: Mechanism,
    masses: Vec<f64>,
}

fn machine(p: &Particles) -> Machine {
    let mut b = Builder::new();
    let (mb, cb, ib) = rigid(&p.base);
    let (mj, cj, ij) = rigid(&p.jib);
    let inv = invariants(&p.boom);
    let base = body(&mut b, "base", None, REV_Z, [0.0; 3], 0.0, mb, cb, ib);
    let boom = body(
        &mut b,
        "boom",
        Some(0),
        JointKind::Revolute {
            axis: [0.0, 1.0, 0.0],
        },
        BOOM_PIVOT,
        0.0,
        inv.mass,
        [0.0; 3],
        [0.0; 6],
    );
    let tip = body(
        &mut b,
        "tip",
        Some(1),
        JointKind::Node {
            flexible: 0,
            node: 0,
        },
        NODE,
        0.0,
        0.0,
        [0.0; 3],
        [0.0; 6],
    );
    let jib = body(&mut b, "jib", Some(2), REV_Z, JIB_OFFSET, 0.0, mj, cj, ij);
    let masses = b.params.iter().map(|s| s.default).collect();
    let flexible = FlexibleBody {
        body: 1,
        invariants: inv,
        stiffness: p.stiffness.to_vec(),
        damping: p.damping.to_vec(),
        nodes: vec![InterfaceNode {
            name: "tip".into(),
            position: NODE,
            translation: p.node_translation.iter().map(|v| (*v).into()).collect(),
            rotation: p.node_rotation.iter().map(|v| (*v).into()).collect(),
        }],
    };
    Machine {
        mech: Mechanism {
            bodies: vec![base, boom, tip, jib],
            cut_joints: vec![],
            markers: vec![],
            forces: vec![],
            base: None,
            rotations: vec![],
            flexible: vec![flexible],
            contacts: Default::default(),
        },
        masses,
    }
}

const Z: [f64; 6] = [0.4, -0.7, 1.1, 0.3, -0.2, 0.1];
const ZD: [f64; 6] = [0.9, -0.6, 1.4, 2.0, -3.0, 4.0];
const ZDD: [f64; 6] = [-1.2, 2.5, 0.7, 30.0, -20.0, 50.0];

fn runtime_kinematics(m: &Machine, zd: &[f64], zdd: &[f64]) -> Kinematics {
    let mut kin = Kinematics::new(&m.mech);
    kin.update(&m.mech, |b| m.masses[b.mass.index()], &Z, zd, zdd);
    kin
}

/// `Σ m_i (a_i − g)·∂x_i/∂z + K η + D η̇`, by finite differences of the particle positions.
fn particle_residual(p: &Particles) -> Vec<f64> {
    let at = |t: f64| -> Vec<f64> {
        (0..6)
            .map(|c| Z[c] + ZD[c] * t + 0.5 * ZDD[c] * t * t)
            .collect()
    };
    let h = 1e-4;
    let (before, now, after) = (
        positions(p, &at(-h)),
        positions(p, &at(0.0)),
        positions(p, &at(h)),
    );
    let g = V3::from(GRAVITY);
    (0..6)
        .map(|c| {
            let e = 1e-6;
            let mut zp = Z.to_vec();
            zp[c] += e;
            let mut zm = Z.to_vec();
            zm[c] -= e;
            let (plus, minus) = (positions(p, &zp), positions(p, &zm));
            let mut r = 0.0;
            for i in 0..now.len() {
                let a = (after[i].1 - now[i].1 * 2.0 + before[i].1) / (h * h);
                let j = (plus[i].1 - minus[i].1) / (2.0 * e);
                r += now[i].0 * (a - g).dot(&j);
            }
            if c >= 3 {
                r += p.stiffness[c - 3] * Z[c] + p.damping[c - 3] * ZD[c];
            }
            r
        })
        .collect()
}

#[test]
fn inverse_dynamics_is_dalembert_on_the_particles() {
    let p = particles();
    let m = machine(&p);
    m.mech.flexible[0].check().unwrap();
    let kin = runtime_kinematics(&m, &ZD, &ZDD);
    let base = BaseMotion::fixed(GRAVITY);
    let applied = vec![Vec6::zeros(); 4];
    let mut scratch = vec![Vec6::zeros(); 4];
    let mut r = vec![0.0; 6];
    dynamics::inverse_dynamics(&m.mech, &kin, &base, &applied, &mut scratch, &mut r);
    let reference = particle_residual(&p);
    for c in 0..6 {
        let err = (r[c] - reference[c]).abs() / reference[c].abs().max(1.0);
        assert!(
            err < 1e-6,
            "coordinate {c}: {} vs particles {}",
            r[c],
            reference[c]
        );
    }
}

#[test]
fn mass_matrix_is_the_particles_jacobian_gram() {
    let p = particles();
    let m = machine(&p);
    let kin = runtime_kinematics(&m, &ZD, &ZDD);
    let mut composite = vec![CompositeInertia::default(); 4];
    let mut mm = vec![0.0; 36];
    dynamics::mass_matrix(&m.mech, &kin, &mut composite, &mut mm);
    let now = positions(&p, &Z);
    let e = 1e-6;
    let jac: Vec<Vec<V3>> = (0..6)
        .map(|c| {
            let (mut zp, mut zm) = (Z.to_vec(), Z.to_vec());
            zp[c] += e;
            zm[c] -= e;
            let (plus, minus) = (positions(&p, &zp), positions(&p, &zm));
            (0..now.len())
                .map(|i| (plus[i].1 - minus[i].1) / (2.0 * e))
                .collect()
        })
        .collect();
    let scale = mm.iter().fold(0.0f64, |a, b| a.max(b.abs()));
    for a in 0..6 {
        for b in 0..6 {
            let reference: f64 = (0..now.len())
                .map(|i| now[i].0 * jac[a][i].dot(&jac[b][i]))
                .sum();
            let err = (mm[a * 6 + b] - reference).abs() / scale;
            assert!(
                err < 1e-8,
                "M[{a},{b}] = {} vs particles {reference}",
                mm[a * 6 + b]
            );
        }
    }
}

#[test]
fn energies_are_the_particles() {
    let p = particles();
    let m = machine(&p);
    let kin = runtime_kinematics(&m, &ZD, &ZDD);
    let base = BaseMotion::fixed(GRAVITY);
    let h = 1e-6;
    let shifted = |t: f64| -> Vec<f64> { (0..6).map(|c| Z[c] + ZD[c] * t).collect() };
    let (minus, plus, now) = (
        positions(&p, &shifted(-h)),
        positions(&p, &shifted(h)),
        positions(&p, &Z),
    );
    let kinetic: f64 = (0..now.len())
        .map(|i| 0.5 * now[i].0 * ((plus[i].1 - minus[i].1) / (2.0 * h)).norm_squared())
        .sum();
    let ke = dynamics::kinetic_energy(&m.mech, &kin, &base);
    assert!(
        (ke - kinetic).abs() < 1e-8 * kinetic,
        "{ke} vs particles {kinetic}"
    );
    let gravity: f64 = now
        .iter()
        .map(|(mi, x)| -mi * V3::from(GRAVITY).dot(x))
        .sum();
    let strain: f64 = (0..MODES)
        .map(|k| 0.5 * p.stiffness[k] * Z[3 + k] * Z[3 + k])
        .sum();
    let pe = dynamics::potential_energy(&m.mech, &kin, &base);
    assert!(
        (pe - gravity - strain).abs() < 1e-9 * (gravity.abs() + strain),
        "{pe} vs {}",
        gravity + strain
    );
}

/// The particle machine, undamped, swinging under gravity in the full solver: the
/// trapezoidal rule on the FFRF body keeps the energy (issue 22: 1e-4 relative over 10 s
/// at 1 ms).
#[test]
fn undamped_flexible_machine_keeps_its_energy() {
    let mut p = particles();
    p.damping = [0.0; MODES];
    let mut inst = instance(&p, Formulation::AugmentedLagrangian);
    let h = 1e-3;
    let mut worst: f64 = 0.0;
    let mut scale: f64 = 0.0;
    for k in 1..=10_000 {
        inst.advance(k as f64 * h).unwrap();
        worst = worst.max(inst.probe(Probe::EnergyBalanceError).abs());
        scale = scale.max(inst.probe(Probe::KineticEnergy));
    }
    let eta: Vec<f64> = (0..MODES)
        .map(|k| inst.probe(Probe::ModalCoordinate(0, k)))
        .collect();
    eprintln!("energy error {worst:e} J of kinetic {scale} J; η {eta:?}");
    assert!(
        eta.iter().any(|e| e.abs() > 1e-4),
        "the boom did not deform: {eta:?}"
    );
    assert!(
        worst < 1e-4 * scale,
        "energy error {worst} J, kinetic up to {scale} J"
    );
}

/// The particle machine as an instance at 1 ms, the boom and the jib started turned out of
/// their rest (0.8 and 0.3 rad).
fn instance(p: &Particles, formulation: Formulation) -> fmu_runtime::Instance {
    let m = machine(p);
    let h = 1e-3;
    let mut b = Builder::new();
    b.params = m
        .masses
        .iter()
        .enumerate()
        .map(|(i, v)| ParamSlot {
            name: format!("p{i}"),
            default: *v,
        })
        .collect();
    let step = b.p("solver.step", h);
    let (boom_q0, jib_q0) = (m.mech.bodies[1].q0, m.mech.bodies[3].q0);
    let circuit = empty_circuit(&mut b);
    let mut model = model(b, h, m.mech, circuit, vec![], step, None);
    // Released turned out: the joints held there (`init.hold`), the modes solved.
    model.init.hold = (0..model.mechanism.joint_coordinates()).collect();
    model.params[boom_q0.index()].default = 0.8;
    model.params[jib_q0.index()].default = 0.3;
    model.solver.formulation = formulation;
    let mut inst = fmu_runtime::Instance::new(std::sync::Arc::new(model));
    inst.initialize(0.0).unwrap();
    inst
}

/// Stepping a flexible body allocates nothing, and a snapshot taken mid-run brings the
/// run back bit for bit (the modal coordinates are joint-space states like any other).
#[test]
fn flexible_steps_allocate_nothing_and_roll_back_bit_for_bit() {
    for formulation in [Formulation::AugmentedLagrangian, Formulation::DoubleStep] {
        let mut inst = instance(&particles(), formulation);
        let h = 1e-3;
        for k in 1..=50 {
            inst.advance(k as f64 * h).unwrap();
        }
        let mut snap = inst.snapshot();
        let allocations = counting::count_during(|| {
            for k in 51..=150 {
                inst.advance(k as f64 * h).unwrap();
                let _ = inst.probe(Probe::ModalCoordinate(0, 1));
                let _ = inst.probe(Probe::EnergyBalanceError);
            }
            inst.snapshot_into(&mut snap);
        });
        assert_eq!(allocations, 0, "{formulation:?}");
        let z150 = inst.state().z.clone();
        for k in 151..=300 {
            inst.advance(k as f64 * h).unwrap();
        }
        let z300 = inst.state().z.clone();
        inst.restore(&snap).unwrap();
        assert_eq!(inst.state().z, z150);
        for k in 151..=300 {
            inst.advance(k as f64 * h).unwrap();
        }
        assert_eq!(inst.state().z, z300, "{formulation:?}: not bit for bit");
    }
}

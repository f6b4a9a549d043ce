//! Generated machine families for the scaling study (issue 7, item 2).
//!
//! Both families lie in the x–y plane with every joint axis along z and gravity along −z
//! (a slewing arm on a table): gravity then loads no joint, so the static equilibrium
//! exists for every N with the same pressures and the step cost reflects the model size,
//! not a load case. Each stage `i` has
//!
//! - a crank/link `link_i` on a revolute joint, actuated by `cylinder_i` from the previous
//!   stage's body (ground for `i = 1`);
//! - its own closed-centre 4/3 valve `valve_i` (spool with a 5 ms lag, command ∈ [−1, 1],
//!   FMI input `valve_i.command`) between the common `supply`/`tank`;
//! - its own two control volumes `cap_i` (hose + cap chamber) and `rod_i` (hose + rod
//!   chamber, precharged so that the equilibrium solve has one unknown per cylinder).
//!
//! [`Family::Chain`]: `link_i` hangs on the tip of `link_{i−1}`: N bodies, N revolute
//! joints, no loop, N DOF.
//!
//! [`Family::Loops`]: every stage is a parallelogram four-bar on the previous stage's
//! coupler: crank `link_i`, rocker `rocker_i` (both pivoted on the previous coupler, the
//! rocker `h` below the crank), coupler `coupler_i` pinned on the crank tip and closed onto
//! the rocker tip by the cut revolute joint `close_i`. A four-bar needs a dyad (coupler +
//! rocker: 2 tree DOF, 2 planar loop constraints) to stay mobile — a single extra binary
//! link closed by a pin would remove one DOF (Grübler) — so each stage adds one loop and no
//! DOF: 3N bodies, 3N tree revolutes, N cut joints, N DOF. The coupler translates, so the
//! next stage sees the same geometry as this one.

//!
//! [`Family::Branches`]: N single-link booms side by side, each pivoted on the ground
//! (a wide tree: N bodies, N joints, no loop, N DOF). The stages do not share a path to the
//! root, so the tangent is block diagonal: where a sparse factorisation and grouped
//! finite-difference columns pay most.

use std::fmt::Write;

/// Which generated family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Serial N-link boom, one cylinder per joint (tree, no loops).
    Chain,
    /// N parallelogram four-bars in series (one loop per stage).
    Loops,
    /// N single-link booms on one base (a wide tree).
    Branches,
}

impl Family {
    pub const ALL: [Family; 3] = [Family::Chain, Family::Loops, Family::Branches];

    pub fn label(self) -> &'static str {
        match self {
            Family::Chain => "chain",
            Family::Loops => "loops",
            Family::Branches => "branches",
        }
    }

    /// Model name of the N-stage member, e.g. `boom-chain-8`.
    pub fn model_name(self, n: usize) -> String {
        format!("boom-{}-{n}", self.label())
    }

    /// Expected mobility (degrees of freedom) of the N-stage member.
    pub fn expected_dof(self, n: usize) -> usize {
        n
    }

    /// Expected number of kinematic loops (cut joints).
    pub fn expected_loops(self, n: usize) -> usize {
        match self {
            Family::Chain | Family::Branches => 0,
            Family::Loops => n,
        }
    }
}

/// The stage counts of the scaling study.
pub const STAGES: [usize; 6] = [1, 2, 4, 8, 16, 32];

// Geometry and data of one stage (SI units).
const LINK_LENGTH: f64 = 0.5;
const LINK_MASS: f64 = 5.0;
const ROCKER_MASS: f64 = 3.0;
const COUPLER_MASS: f64 = 2.0;
/// Rocker pivot below the crank pivot (parallelogram height) and the coupler length.
const PARALLEL_OFFSET: f64 = 0.15;
/// Next stage's pivots are this far ahead of the coupler joints (along world x).
const STAGE_GAP: f64 = 0.05;
/// Distance between the pivots of neighbouring booms of [`Family::Branches`].
const BRANCH_SPACING: f64 = 1.0;
/// Cylinder pins: `CAP_BACK` behind the pivot on the parent, `ROD_AHEAD` along the link,
/// both `PIN_OFFSET` to the side (the moment arm).
const CAP_BACK: f64 = 0.2;
const ROD_AHEAD: f64 = 0.2;
const PIN_OFFSET: f64 = 0.08;
/// Absolute link directions alternate ±ZIGZAG so that the machine stays compact.
const ZIGZAG_DEG: f64 = 25.0;

/// A planar rigid frame: world origin and absolute angle.
#[derive(Clone, Copy, Debug)]
struct Pose {
    origin: [f64; 2],
    angle: f64,
}

impl Pose {
    const GROUND: Pose = Pose {
        origin: [0.0, 0.0],
        angle: 0.0,
    };

    /// World point → body coordinates.
    fn local(&self, p: [f64; 2]) -> [f64; 2] {
        let (s, c) = self.angle.sin_cos();
        let d = [p[0] - self.origin[0], p[1] - self.origin[1]];
        [c * d[0] + s * d[1], -s * d[0] + c * d[1]]
    }
}

fn add(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] + b[0], a[1] + b[1]]
}

/// `r` along the direction `angle`, plus `side` to its left.
fn along(angle: f64, r: f64, side: f64) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [c * r - s * side, s * r + c * side]
}

/// A number as TOML text, rounded to 1e-12 so that round-off (0.04999999999999999) does
/// not show.
fn num(x: f64) -> String {
    let x = (x * 1e12).round() / 1e12;
    let x = if x == 0.0 { 0.0 } else { x };
    format!("{x:?}")
}

fn point(p: [f64; 2]) -> String {
    format!("[{}, {}, 0.0]", num(p[0]), num(p[1]))
}

fn deg(rad: f64) -> String {
    format!("\"{} deg\"", num(rad.to_degrees()))
}

/// Body name of a parent pose (`ground` for the first stage).
struct Parent {
    name: String,
    pose: Pose,
}

/// The TOML description of the N-stage member of `family`.
pub fn description(family: Family, n: usize) -> String {
    assert!(n >= 1, "a family member needs at least one stage");
    let mut s = String::new();
    let name = family.model_name(n);
    let what = match family {
        Family::Chain => format!("{n}-link planar hydraulic boom chain"),
        Family::Loops => format!("{n} parallelogram four-bars in series"),
        Family::Branches => format!("{n} single-link booms side by side on one base"),
    };
    let _ = writeln!(
        s,
        "# Generated by `hydromech bench --scaling` (model-compiler/src/bench/family.rs).\n\
         [model]\nname = \"{name}\"\n\
         description = \"Scaling study: {what}, one cylinder, valve and two volumes per stage\"\n\
         author = \"hydromech\"\nversion = \"1.0\"\nlicense = \"MIT OR Apache-2.0\"\n\
         gravity = [0.0, 0.0, -9.81]\n\n\
         [experiment]\nstart_time = 0.0\nstop_time = 1.0\nstep_size = 0.001\n\n\
         [solver]\nstep = \"1 ms\"\n\n\
         [init]\nstatic_equilibrium = true\n"
    );

    let mut bodies = String::new();
    let mut cuts = String::new();
    let mut cylinders = String::new();
    let mut parent = Parent {
        name: "ground".into(),
        pose: Pose::GROUND,
    };
    // Pivot of the stage's crank (world) and its absolute direction.
    let mut pivot = [0.0, 0.0];
    for i in 1..=n {
        let angle = if i % 2 == 1 { ZIGZAG_DEG } else { -ZIGZAG_DEG }.to_radians();
        let link = format!("link_{i}");
        let link_pose = Pose {
            origin: pivot,
            angle,
        };
        let tip = add(pivot, along(angle, LINK_LENGTH, 0.0));
        let _ = writeln!(
            bodies,
            "[[bodies]]\nname = \"{link}\"\nparent = \"{p}\"\n\
             joint = {{ type = \"revolute\", name = \"joint_{i}\", origin = {o}, axis = [0, 0, 1], initial = {q} }}\n\
             parts = [{{ shape = \"rod\", mass = \"{m} kg\", from = [0, 0, 0], to = [{l}, 0, 0] }}]\n",
            p = parent.name,
            o = point(parent.pose.local(pivot)),
            q = deg(angle - parent.pose.angle),
            m = num(LINK_MASS),
            l = num(LINK_LENGTH),
        );
        // The cylinder: cap on the parent behind the pivot, rod eye on the link.
        let parent_dir = if parent.name == "ground" {
            angle
        } else {
            parent_dir_of(&parent, angle)
        };
        let cap = add(pivot, along(parent_dir, -CAP_BACK, PIN_OFFSET));
        let eye = add(pivot, along(angle, ROD_AHEAD, PIN_OFFSET));
        let _ = writeln!(
            cylinders,
            "[[hydraulics.cylinders]]\nname = \"cylinder_{i}\"\n\
             cap = {{ body = \"{p}\", point = {c} }}\nrod = {{ body = \"{link}\", point = {r} }}\n\
             bore = \"50 mm\"\nrod_diameter = \"28 mm\"\nstroke = \"0.3 m\"\nretracted_length = \"{rl} m\"\n\
             cap_dead_volume = \"5e-6 m3\"\nrod_dead_volume = \"5e-6 m3\"\n\
             cap_volume = \"cap_{i}\"\nrod_volume = \"rod_{i}\"\n\
             friction = {{ model = \"viscous\", coefficient = \"2000 N s/m\" }}\n",
            p = parent.name,
            c = point(parent.pose.local(cap)),
            r = point(link_pose.local(eye)),
            // Mid-stroke at the start whatever the parent's direction.
            rl = num(dist(cap, eye) - 0.15),
        );
        match family {
            Family::Chain => {
                parent = Parent {
                    name: link,
                    pose: link_pose,
                };
                pivot = tip;
            }
            Family::Loops => {
                // Parallelogram: the rocker pivot and the coupler keep the world offset
                // `down` whatever the crank angle.
                let down = [0.0, -PARALLEL_OFFSET];
                let rocker_pivot = add(pivot, down);
                let rocker = format!("rocker_{i}");
                let coupler = format!("coupler_{i}");
                let coupler_angle = -90f64.to_radians();
                let coupler_pose = Pose {
                    origin: tip,
                    angle: coupler_angle,
                };
                let _ = writeln!(
                    bodies,
                    "[[bodies]]\nname = \"{rocker}\"\nparent = \"{p}\"\n\
                     joint = {{ type = \"revolute\", name = \"rocker_joint_{i}\", origin = {o}, axis = [0, 0, 1], initial = {q} }}\n\
                     parts = [{{ shape = \"rod\", mass = \"{m} kg\", from = [0, 0, 0], to = [{l}, 0, 0] }}]\n",
                    p = parent.name,
                    o = point(parent.pose.local(rocker_pivot)),
                    q = deg(angle - parent.pose.angle),
                    m = num(ROCKER_MASS),
                    l = num(LINK_LENGTH),
                );
                let _ = writeln!(
                    bodies,
                    "[[bodies]]\nname = \"{coupler}\"\nparent = \"{link}\"\n\
                     joint = {{ type = \"revolute\", name = \"coupler_joint_{i}\", origin = [{l}, 0, 0], axis = [0, 0, 1], initial = {q} }}\n\
                     parts = [{{ shape = \"rod\", mass = \"{m} kg\", from = [0, 0, 0], to = [{h}, 0, 0] }}]\n",
                    l = num(LINK_LENGTH),
                    q = deg(coupler_angle - angle),
                    m = num(COUPLER_MASS),
                    h = num(PARALLEL_OFFSET),
                );
                let _ = writeln!(
                    cuts,
                    "[[cut_joints]]\nname = \"close_{i}\"\ntype = \"revolute\"\n\
                     body_a = \"{coupler}\"\npoint_a = {pa}\nbody_b = \"{rocker}\"\npoint_b = [{l}, 0.0, 0.0]\n\
                     axis_a = [0, 0, 1]\naxis_b = [0, 0, 1]\n",
                    pa = point(coupler_pose.local(add(tip, down))),
                    l = num(LINK_LENGTH),
                );
                parent = Parent {
                    name: coupler,
                    pose: coupler_pose,
                };
                pivot = add(tip, [STAGE_GAP, 0.0]);
            }
            Family::Branches => pivot = [i as f64 * BRANCH_SPACING, 0.0],
        }
    }
    s.push_str(&bodies);
    s.push_str(&cuts);
    s.push_str(
        "[hydraulics.oil]\ndensity = \"850 kg/m3\"\nbulk_modulus = \"1500 MPa\"\n\n\
         [[hydraulics.pressure_sources]]\nname = \"supply\"\npressure = \"16 MPa\"\n\n\
         [[hydraulics.pressure_sources]]\nname = \"tank\"\npressure = \"0.1 MPa\"\n\n",
    );
    for i in 1..=n {
        let _ = writeln!(
            s,
            "[[hydraulics.volumes]]\nname = \"cap_{i}\"\nvolume = \"2e-5 m3\"\ninitial_guess = \"2 MPa\"\n\n\
             [[hydraulics.volumes]]\nname = \"rod_{i}\"\nvolume = \"2e-5 m3\"\nprecharge = \"3 MPa\"\n\n\
             [[hydraulics.valves]]\nname = \"valve_{i}\"\nP = \"supply\"\nT = \"tank\"\nA = \"cap_{i}\"\nB = \"rod_{i}\"\n\
             spool = {{ range = [-1, 1], time_constant = \"5 ms\", dead_band = 0.0, command = 0.0 }}\n\
             laminar_pressure = \"2 bar\"\n\
             edges.PA = {{ coefficient = [[-1, 0], [0, 0], [1, 3e-8]] }}\n\
             edges.BT = {{ coefficient = [[-1, 0], [0, 0], [1, 3e-8]] }}\n\
             edges.PB = {{ coefficient = [[-1, 3e-8], [0, 0], [1, 0]] }}\n\
             edges.AT = {{ coefficient = [[-1, 3e-8], [0, 0], [1, 0]] }}\n"
        );
    }
    s.push_str(&cylinders);
    for i in 1..=n {
        let _ = writeln!(
            s,
            "[[interface.inputs]]\nname = \"valve_{i}.command\"\ntarget = \"valve_{i}.command\"\nmin = -1\nmax = 1\n"
        );
    }
    for i in 1..=n {
        let _ = writeln!(
            s,
            "[[interface.outputs]]\nname = \"cylinder_{i}.length\"\nquantity = \"cylinder_{i}.length\"\n"
        );
    }
    s
}

/// World direction of the parent body's "forward" axis for the cylinder cap: for the chain
/// the previous link's direction; for the loops the previous crank's direction (the coupler
/// translates with it).
fn parent_dir_of(parent: &Parent, this_angle: f64) -> f64 {
    if parent.name.starts_with("coupler_") {
        // Previous stage's crank had the opposite zigzag sign.
        -this_angle
    } else {
        parent.pose.angle
    }
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Source;

    fn source(f: Family, n: usize) -> Source {
        Source::new(format!("{}.toml", f.model_name(n)), description(f, n))
    }

    #[test]
    fn generated_descriptions_are_accepted_by_check() {
        for f in Family::ALL {
            for n in [1, 2, 8] {
                let src = source(f, n);
                let (_, l) = match crate::check(&src) {
                    Ok(ok) => ok,
                    Err(errors) => {
                        let text: Vec<String> = errors.iter().map(|e| src.render(e)).collect();
                        panic!("{} rejected:\n{}", f.model_name(n), text.join("\n"));
                    }
                };
                let m = &l.model;
                let bodies = match f {
                    Family::Chain | Family::Branches => n,
                    Family::Loops => 3 * n,
                };
                assert_eq!(m.mechanism.bodies.len(), bodies, "{}", f.model_name(n));
                assert_eq!(m.mechanism.cut_joints.len(), f.expected_loops(n));
                assert_eq!(m.circuit.volumes(), 2 * n);
                assert_eq!(m.circuit.cylinders.len(), n);
                assert_eq!(m.circuit.spools.len(), n);
                let inputs = m
                    .variables
                    .iter()
                    .filter(|v| v.causality == fmu_runtime::model::Causality::Input)
                    .count();
                assert_eq!(inputs, n);
            }
        }
    }

    #[test]
    fn every_family_has_one_dof_per_stage_and_close_their_loops() {
        // The compiler's own mobility analysis (rank of Φ_z at the initial configuration).
        for f in Family::ALL {
            for n in [1, 2, 8] {
                let (_, l) = crate::check(&source(f, n)).unwrap();
                let a = &l.analysis;
                let name = f.model_name(n);
                assert_eq!(a.dof, f.expected_dof(n), "{name}: DOF");
                assert_eq!(a.coordinates - a.rank, n, "{name}");
                // Each planar loop closed by a 3D revolute cut: 2 of its 5 equations count.
                assert_eq!(a.rank, 2 * f.expected_loops(n), "{name}: rank");
                assert!(a.closure < 1e-9, "{name}: closure {}", a.closure);
                // The only warning is the expected redundancy of the planar cuts.
                for w in &l.warnings {
                    assert!(
                        f == Family::Loops && w.message.contains("redundant"),
                        "{name}: {}",
                        w.message
                    );
                }
            }
        }
    }

    #[test]
    fn a_small_member_compiles_and_steps() {
        for f in Family::ALL {
            let l = crate::compile(&source(f, 2)).unwrap();
            let mut inst = fmu_runtime::Instance::new(std::sync::Arc::new(l.model));
            inst.initialize(0.0).unwrap();
            for k in 1..=5 {
                inst.advance(k as f64 * 1e-3).unwrap();
            }
        }
    }
}

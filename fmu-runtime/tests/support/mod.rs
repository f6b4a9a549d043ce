//! Hand-built models for solver tests (the shipped models are built from `models/*.toml`
//! by the compiler and tested there).

// Test-side references may use the platform libm: only the runtime must be bit-identical.
#![allow(clippy::disallowed_methods)]
#![allow(dead_code)]

use fmu_runtime::model::*;

pub struct Builder {
    pub params: Vec<ParamSlot>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder { params: Vec::new() }
    }
    pub fn p(&mut self, name: &str, v: f64) -> ParamId {
        self.params.push(ParamSlot {
            name: name.into(),
            default: v,
        });
        ParamId(self.params.len() as u32 - 1)
    }
}

pub fn quat_z(angle: f64) -> [f64; 4] {
    [(angle / 2.0).cos(), 0.0, 0.0, (angle / 2.0).sin()]
}

#[allow(clippy::too_many_arguments)]
pub fn body(
    b: &mut Builder,
    name: &str,
    parent: Option<usize>,
    joint: JointKind,
    at: [f64; 3],
    q0: f64,
    mass: f64,
    com: [f64; 3],
    inertia: [f64; 6],
) -> Body {
    Body {
        name: name.into(),
        parent,
        joint,
        joint_name: format!("{name}_joint"),
        joint_frame: Frame {
            origin: at,
            rotation: [1.0, 0.0, 0.0, 0.0],
        },
        q0: b.p(&format!("{name}.q0"), q0),
        mass: b.p(&format!("{name}.mass"), mass),
        com,
        inertia,
    }
}

pub const REV_Z: JointKind = JointKind::Revolute {
    axis: [0.0, 0.0, 1.0],
};

pub fn empty_circuit(b: &mut Builder) -> Circuit {
    Circuit {
        oil: Oil {
            density: b.p("oil.density", 850.0),
            bulk_modulus: BulkModulus::Constant(b.p("oil.bulk", 1.5e9)),
            air: EntrainedAir {
                fraction: b.p("oil.air_fraction", 1e-3),
                polytropic_index: b.p("oil.air_polytropic_index", 1.0),
                vapour_pressure: b.p("oil.vapour_pressure", 1e3),
            },
        },
        nodes: vec![],
        spools: vec![],
        elements: vec![],
        cylinders: vec![],
        motors: vec![],
        accumulators: vec![],
    }
}

pub fn model(
    b: Builder,
    step: f64,
    mechanism: Mechanism,
    circuit: Circuit,
    variables: Vec<Variable>,
    step_id: ParamId,
    penalty: Option<ParamId>,
) -> CompiledModel {
    CompiledModel {
        format_version: MODEL_FORMAT_VERSION,
        name: "test".into(),
        model_identifier: "test".into(),
        guid: "{test}".into(),
        metadata: Metadata {
            description: String::new(),
            author: String::new(),
            version: String::new(),
            license: String::new(),
            copyright: String::new(),
        },
        default_experiment: DefaultExperiment {
            start_time: 0.0,
            stop_time: 1.0,
            step_size: step,
            tolerance: 1e-6,
        },
        gravity: [0.0, -9.81, 0.0],
        solver: SolverSettings {
            formulation: Formulation::AugmentedLagrangian,
            step: step_id,
            penalty,
            penalty_ratio: 1e3,
            tol_position: 1e-10,
            tol_pressure: 1.0,
            tol_state: 1e-9,
            max_iterations: 25,
            max_step_halvings: 4,
            reuse_tangent: true,
            linear_solver: LinearSolver::Auto,
            tangent: TangentMethod::Assembled,
        },
        init: InitSettings {
            static_equilibrium: true,
            hold: Vec::new(),
        },
        params: b.params,
        mechanism,
        circuit,
        ports: vec![],
        variables,
        estimator: None,
    }
}

/// Seed 002 (Naya et al.) rod with its bridge valve; `kappa` = spool command.
pub fn naya_rod(kappa: f64, step: f64) -> CompiledModel {
    let mut b = Builder::new();
    let step_id = b.p("solver.step", step);
    let (m_rod, m_tip, l) = (200.0, 250.0, 1.0);
    let mass = m_rod + m_tip;
    let com = (m_rod * 0.5 + m_tip * l) / mass;
    let i_pivot = m_rod * l * l / 3.0 + m_tip * l * l;
    let izz = i_pivot - mass * com * com;
    let mut rod = body(
        &mut b,
        "rod",
        None,
        REV_Z,
        [0.0; 3],
        std::f64::consts::PI / 6.0,
        mass,
        [com, 0.0, 0.0],
        [1e-9, izz, izz, 0.0, 0.0, 0.0],
    );
    rod.joint_name = "pivot".into();
    let a = b.p("oil.a", 6.53e-10);
    let bb = b.p("oil.b", -1.19e-18);
    let oil = Oil {
        density: b.p("oil.density", 850.0),
        bulk_modulus: BulkModulus::PressureDependent { a, b: bb },
        air: EntrainedAir {
            fraction: b.p("oil.air_fraction", 1e-3),
            polytropic_index: b.p("oil.air_polytropic_index", 1.0),
            vapour_pressure: b.p("oil.vapour_pressure", 1e3),
        },
    };
    let zero = b.p("zero", 0.0);
    let vol = |name: &str, guess: f64| {
        Node::Volume(ControlVolume {
            name: name.into(),
            hose_volume: zero,
            hose_bulk_modulus: None,
            precharge: None,
            initial_guess: guess,
        })
    };
    let nodes = vec![
        Node::Pressure {
            name: "pump".into(),
            pressure: b.p("pump.p", 7.6e6),
        },
        Node::Pressure {
            name: "tank".into(),
            pressure: b.p("tank.p", 0.1e6),
        },
        vol("chamber_a", 3.3e6),
        vol("chamber_b", 4.4e6),
    ];
    let k = 0.67 * 0.0005 * (2.0f64 / 850.0).sqrt();
    let rising = MeteringEdge {
        table: vec![(0.0, 0.0), (1.0, k)],
        law: EdgeLaw::Orifice,
    };
    let falling = MeteringEdge {
        table: vec![(0.0, k), (1.0, 0.0)],
        law: EdgeLaw::Orifice,
    };
    let spool = Spool {
        name: "valve".into(),
        command: b.p("valve.command", kappa),
        time_constant: zero,
        dead_band: zero,
        dead_band_centre: 0.5,
        min: 0.0,
        max: 1.0,
    };
    let valve = DirectionalValve {
        name: "valve".into(),
        spool: 0,
        port_p: 0,
        port_t: 1,
        port_a: 2,
        port_b: 3,
        edges: [rising.clone(), falling.clone(), falling, rising],
        laminar_pressure: b.p("valve.laminar", 2e5),
        neutral: None,
        load_sense: None,
    };
    let cyl = Cylinder {
        name: "cylinder".into(),
        cap_point: PointRef {
            body: None,
            point: [3f64.sqrt() / 2.0, 0.0, 0.0],
        },
        rod_point: PointRef {
            body: Some(0),
            point: [0.5, 0.0, 0.0],
        },
        cap_area: b.p("cyl.cap_area", 0.0065),
        rod_area: b.p("cyl.rod_area", 0.0065),
        stroke: b.p("cyl.stroke", 0.442),
        retracted_length: b.p("cyl.retracted", 0.5 - 0.221),
        cap_dead_volume: zero,
        rod_dead_volume: zero,
        wall_bulk_modulus: None,
        cap_node: 3,
        rod_node: 2,
        friction: Friction::Viscous {
            coefficient: b.p("cyl.c", 1e5),
        },
        cushion: Cushion {
            length: b.p("cush.l", 0.005),
            stiffness: b.p("cush.k", 1e8),
            damping: b.p("cush.c", 1e4),
        },
    };
    let circuit = Circuit {
        oil,
        nodes,
        spools: vec![spool],
        elements: vec![Element::DirectionalValve(valve)],
        cylinders: vec![cyl],
        motors: vec![],
        accumulators: vec![],
    };
    let mech = Mechanism {
        bodies: vec![rod],
        cut_joints: vec![],
        markers: vec![],
        forces: vec![],
        base: None,
        rotations: vec![],
        flexible: vec![],
        contacts: Default::default(),
    };
    model(b, step, mech, circuit, vec![], step_id, None)
}

/// Seed 001 Publication I four-bar with the pump–hose–throttle–DCV circuit of Table 1.
pub fn jaiswal_fourbar(step: f64) -> CompiledModel {
    use std::f64::consts::PI;
    let mut b = Builder::new();
    let step_id = b.p("solver.step", step);
    let rod = |m: f64, l: f64| [1e-9, m * l * l / 12.0, m * l * l / 12.0, 0.0, 0.0, 0.0];
    let s2 = 2f64.sqrt();
    let mut crank = body(
        &mut b,
        "crank",
        None,
        REV_Z,
        [0.0; 3],
        0.0,
        225.0,
        [4.5, 0.0, 0.0],
        rod(225.0, 9.0),
    );
    crank.joint_name = "O".into();
    let coupler = body(
        &mut b,
        "coupler",
        Some(0),
        REV_Z,
        [3.0, 0.0, 0.0],
        -135f64.to_radians(),
        35.0,
        [s2 / 2.0, 0.0, 0.0],
        rod(35.0, s2),
    );
    let rocker = body(
        &mut b,
        "rocker",
        Some(1),
        REV_Z,
        [s2, 0.0, 0.0],
        -45f64.to_radians(),
        50.0,
        [1.0, 0.0, 0.0],
        rod(50.0, 2.0),
    );
    let cut = CutJoint {
        name: "E".into(),
        kind: CutKind::Revolute {
            axis_a: [0.0, 0.0, 1.0],
            axis_b: [0.0, 0.0, 1.0],
        },
        a: PointRef {
            body: Some(2),
            point: [2.0, 0.0, 0.0],
        },
        b: PointRef {
            body: None,
            point: [0.0, -1.0, 0.0],
        },
    };
    let oil = Oil {
        density: b.p("oil.density", 850.0),
        bulk_modulus: BulkModulus::Constant(b.p("oil.bulk", 1.5e9)),
        air: EntrainedAir {
            fraction: b.p("oil.air_fraction", 1e-3),
            polytropic_index: b.p("oil.air_polytropic_index", 1.0),
            vapour_pressure: b.p("oil.vapour_pressure", 1e3),
        },
    };
    let hose_b = b.p("hose.bulk", 550e6);
    let vol = |b: &mut Builder, name: &str, v: f64, pre: Option<f64>| {
        let precharge = pre.map(|p| b.p(&format!("{name}.precharge"), p));
        Node::Volume(ControlVolume {
            name: name.into(),
            hose_volume: b.p(&format!("{name}.volume"), v),
            hose_bulk_modulus: Some(hose_b),
            precharge,
            initial_guess: 5e6,
        })
    };
    let nodes = vec![
        Node::Pressure {
            name: "pump".into(),
            pressure: b.p("pump.p", 7.6e6),
        },
        Node::Pressure {
            name: "tank".into(),
            pressure: b.p("tank.p", 0.1e6),
        },
        vol(&mut b, "hose", 4.71e-5, None),
        vol(&mut b, "cap_side", 3.14e-5, None),
        vol(&mut b, "rod_side", 7.85e-5, Some(3.5e6)),
    ];
    let cvd = 2.138e-8;
    let pos = MeteringEdge {
        table: vec![(-10.0, 0.0), (0.0, 0.0), (10.0, 10.0 * cvd)],
        law: EdgeLaw::Orifice,
    };
    let neg = MeteringEdge {
        table: vec![(-10.0, 10.0 * cvd), (0.0, 0.0), (10.0, 0.0)],
        law: EdgeLaw::Orifice,
    };
    let zero = b.p("zero", 0.0);
    let spool = Spool {
        name: "valve".into(),
        command: b.p("valve.command", 0.0),
        time_constant: b.p("valve.tau", 4.55e-3),
        dead_band: zero,
        dead_band_centre: 0.0,
        min: -10.0,
        max: 10.0,
    };
    let lam = b.p("laminar", 2e5);
    let valve = DirectionalValve {
        name: "valve".into(),
        spool: 0,
        port_p: 0,
        port_t: 1,
        port_a: 2,
        port_b: 4,
        edges: [pos.clone(), neg.clone(), neg, pos],
        laminar_pressure: lam,
        neutral: None,
        load_sense: None,
    };
    let throttle = Orifice {
        name: "throttle".into(),
        from: 2,
        to: 3,
        coefficient: b.p("throttle.k", 0.8 * 2.83e-5 * (2.0f64 / 850.0).sqrt()),
        laminar_pressure: lam,
    };
    let cyl = Cylinder {
        name: "cylinder".into(),
        cap_point: PointRef {
            body: None,
            point: [0.0, -2.0, 0.0],
        },
        rod_point: PointRef {
            body: Some(2),
            point: [1.0, 0.0, 0.0],
        },
        cap_area: b.p("cyl.cap_area", PI * 0.08f64.powi(2) / 4.0),
        rod_area: b.p(
            "cyl.rod_area",
            PI * (0.08f64.powi(2) - 0.035f64.powi(2)) / 4.0,
        ),
        stroke: b.p("cyl.stroke", 1.1),
        retracted_length: b.p("cyl.retracted", 1.1),
        cap_dead_volume: zero,
        rod_dead_volume: zero,
        wall_bulk_modulus: Some(b.p("cyl.wall", 31500e6)),
        cap_node: 3,
        rod_node: 4,
        friction: Friction::Viscous { coefficient: zero },
        cushion: Cushion {
            length: b.p("cush.l", 0.005),
            stiffness: b.p("cush.k", 1e8),
            damping: b.p("cush.c", 1e4),
        },
    };
    let circuit = Circuit {
        oil,
        nodes,
        spools: vec![spool],
        elements: vec![Element::DirectionalValve(valve), Element::Orifice(throttle)],
        cylinders: vec![cyl],
        motors: vec![],
        accumulators: vec![],
    };
    let mech = Mechanism {
        bodies: vec![crank, coupler, rocker],
        cut_joints: vec![cut],
        markers: vec![],
        forces: vec![],
        base: None,
        rotations: vec![],
        flexible: vec![],
        contacts: Default::default(),
    };
    let penalty = b.p("solver.penalty", 1e11);
    model(b, step, mech, circuit, vec![], step_id, Some(penalty))
}

/// Planar four-bar: crank `a` pivoted at the origin, coupler `b`, rocker `c` pivoted at
/// [d, 0, 0], closed by a revolute cut at the rocker pivot; beams with m L²/12 and the
/// given masses. The coupler and rocker angles follow from the crank angle `theta` in
/// closed form (law of cosines, open branch). Returns the model (no hydraulics) and the
/// relative joint coordinates.
pub fn planar_fourbar(
    theta: f64,
    [a, bl, c, d]: [f64; 4],
    masses: [f64; 3],
) -> (CompiledModel, Vec<f64>) {
    let (px, py) = (a * theta.cos(), a * theta.sin());
    let (dx, dy) = (d - px, -py);
    let e = (dx * dx + dy * dy).sqrt();
    let coupler = dy.atan2(dx) + ((bl * bl + e * e - c * c) / (2.0 * bl * e)).acos();
    let (qx, qy) = (px + bl * coupler.cos(), py + bl * coupler.sin());
    let rocker = qy.atan2(qx - d);
    let z = vec![
        theta,
        coupler - theta,
        rocker + std::f64::consts::PI - coupler,
    ];
    let mut b = Builder::new();
    let step = b.p("solver.step", 1e-3);
    let rod = |m: f64, l: f64| [0.01, m * l * l / 12.0, m * l * l / 12.0, 0.0, 0.0, 0.0];
    let crank = body(
        &mut b,
        "crank",
        None,
        REV_Z,
        [0.0; 3],
        z[0],
        masses[0],
        [a / 2.0, 0.0, 0.0],
        rod(masses[0], a),
    );
    let cpl = body(
        &mut b,
        "coupler",
        Some(0),
        REV_Z,
        [a, 0.0, 0.0],
        z[1],
        masses[1],
        [bl / 2.0, 0.0, 0.0],
        rod(masses[1], bl),
    );
    let rck = body(
        &mut b,
        "rocker",
        Some(1),
        REV_Z,
        [bl, 0.0, 0.0],
        z[2],
        masses[2],
        [c / 2.0, 0.0, 0.0],
        rod(masses[2], c),
    );
    let cut = CutJoint {
        name: "D".into(),
        kind: CutKind::Revolute {
            axis_a: [0.0, 0.0, 1.0],
            axis_b: [0.0, 0.0, 1.0],
        },
        a: PointRef {
            body: Some(2),
            point: [c, 0.0, 0.0],
        },
        b: PointRef {
            body: None,
            point: [d, 0.0, 0.0],
        },
    };
    let mut circuit = empty_circuit(&mut b);
    circuit.nodes.clear();
    let mech = Mechanism {
        bodies: vec![crank, cpl, rck],
        cut_joints: vec![cut],
        markers: vec![],
        forces: vec![],
        base: None,
        rotations: vec![],
        flexible: vec![],
        contacts: Default::default(),
    };
    (model(b, 1e-3, mech, circuit, vec![], step, None), z)
}

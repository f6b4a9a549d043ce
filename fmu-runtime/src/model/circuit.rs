//! The hydraulic circuit: lumped control volumes joined by flow elements, and cylinders
//! that couple chamber volumes to the mechanism.

use super::{ParamId, PointRef};
use serde::{Deserialize, Serialize};

/// Oil bulk-modulus law.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum BulkModulus {
    Constant(ParamId),
    /// β(p) = (1 + a p + b p²)/(a + 2 b p) (seed 002 eq 3; Cardona's a, b).
    PressureDependent {
        a: ParamId,
        b: ParamId,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Oil {
    pub density: ParamId,
    /// Bulk modulus of the liquid without air.
    pub bulk_modulus: BulkModulus,
    /// Undissolved air and vapour pressure: what the oil does at low pressure.
    pub air: EntrainedAir,
}

/// Undissolved (entrained) air in the oil, compressed and expanded polytropically with
/// the pressure above the oil's vapour pressure (see `hydraulics::fluid`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntrainedAir {
    /// Volume of air per volume of liquid at atmospheric pressure [-].
    pub fraction: ParamId,
    /// Polytropic index of the air [-] (1 = isothermal).
    pub polytropic_index: ParamId,
    /// Absolute pressure at which the oil boils [Pa]; no volume falls below it.
    pub vapour_pressure: ParamId,
}

/// A control volume: one pressure, a primary unknown of the Newton loop.
/// Its volume is `hose_volume` plus the cylinder chambers attached to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ControlVolume {
    pub name: String,
    pub hose_volume: ParamId,
    /// Bulk modulus of the hose wall (seed 001 eq 2.35); `None` = rigid.
    pub hose_bulk_modulus: Option<ParamId>,
    /// Pre-charge used by the static-equilibrium solve when the pressures are not
    /// determined by equilibrium alone (seed 001: p3(0) = 3.5 MPa).
    pub precharge: Option<ParamId>,
    /// Starting guess of the equilibrium solve [Pa].
    pub initial_guess: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Node {
    Volume(ControlVolume),
    /// A node held at a given pressure: supply, tank, or a measured pressure input.
    Pressure {
        name: String,
        pressure: ParamId,
    },
}

impl Node {
    pub fn name(&self) -> &str {
        match self {
            Node::Volume(v) => &v.name,
            Node::Pressure { name, .. } => name,
        }
    }
}

/// Spool with first-order lag: `τ u̇ = deadband(command) − u`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spool {
    pub name: String,
    pub command: ParamId,
    /// Time constant τ [s]; 0 makes the spool follow the command instantly.
    pub time_constant: ParamId,
    /// Commands with |command − dead_band_centre| below this are treated as the centre.
    pub dead_band: ParamId,
    pub dead_band_centre: f64,
    pub min: f64,
    pub max: f64,
}

/// How an edge meters flow.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum EdgeLaw {
    /// The table gives the flow coefficient K(u) [m³/(s·√Pa)]: Q = K·√Δp with a laminar
    /// region (sharp-edged orifice).
    Orifice,
    /// The table gives the flow Q(u) [m³/s] of a pressure-compensated edge (e.g. the
    /// Danfoss PVG32 inlet: flow set by the spool, independent of the load): delivered
    /// in full once Δp exceeds `margin` [Pa], faded smoothly to zero as Δp → 0, and never
    /// reversed (the compensator closes).
    Compensated { margin: f64 },
}

/// One metering edge: a table versus spool position, piecewise linear (constant beyond
/// the ends), read according to its `law`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeteringEdge {
    pub table: Vec<(f64, f64)>,
    pub law: EdgeLaw,
}

/// Edge order of [`DirectionalValve::edges`].
pub const EDGE_PA: usize = 0;
pub const EDGE_PB: usize = 1;
pub const EDGE_AT: usize = 2;
pub const EDGE_BT: usize = 3;

/// 4/3 proportional directional valve: ports P, T, A, B and four metering edges.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DirectionalValve {
    pub name: String,
    pub spool: usize,
    pub port_p: usize,
    pub port_t: usize,
    pub port_a: usize,
    pub port_b: usize,
    /// P→A, P→B, A→T, B→T.
    pub edges: [MeteringEdge; 4],
    /// Below this |Δp| the flow is laminar (linear-cubic blend, finite slope at 0) [Pa].
    pub laminar_pressure: ParamId,
    /// Open centre: the P→T edge (the neutral bypass of a 6/3 valve's gallery), open
    /// around the centre and closing as the spool shifts.
    pub neutral: Option<MeteringEdge>,
    /// Load-sensing section: the signal passage from the working port the spool opens to
    /// the LS line (see [`LoadSensePort`]).
    pub load_sense: Option<LoadSensePort>,
}

/// The LS port of a valve section. Once the spool opens P→A (P→B), a signal passage joins
/// port A (B) to `node` through a shuttle, a check that only lets oil into the LS line: the
/// sections of one LS line form the shuttle network, and the line carries the highest
/// load pressure (less the passage's drop at the bleed flow). In neutral the passage is
/// shut and the LS line drains through its bleed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadSensePort {
    pub node: usize,
    /// Flow coefficient K of the signal passage [m³/(s·√Pa)].
    pub coefficient: ParamId,
    /// Edge values (of the P→A, P→B tables) over which the passage opens from shut to
    /// fully open: the gate is `smoothstep(K_PA(u)/gate[0])`, likewise for B.
    pub gate: [f64; 2],
}

/// Variable-displacement pump with a load-sensing regulator and pressure cut-off (see
/// [`crate::hydraulics::pump`]): delivers `ε·D·ω/2π − G·(p_out − p_in)`, the relative
/// displacement ε a first-order state of the Newton loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadSensingPump {
    pub name: String,
    pub inlet: usize,
    pub outlet: usize,
    /// The LS line whose pressure the regulator holds the outlet above.
    pub load_sense: usize,
    /// Index of its displacement among the pumps' states (after the spools in `w`).
    pub state: usize,
    /// Maximum displacement [m³/rev].
    pub displacement: ParamId,
    /// Shaft speed [rad/s].
    pub speed: ParamId,
    /// LS margin (the flow controller's Δp setting) [Pa].
    pub margin: ParamId,
    /// Pressure cut-off (the pressure controller's setting, absolute) [Pa].
    pub cutoff: ParamId,
    /// Droop of the regulator: the pressure error that takes ε from 0 to 1 [Pa].
    pub band: ParamId,
    /// Time constant of the swash plate's first-order lag [s].
    pub time_constant: ParamId,
    /// Internal leakage from outlet to inlet [m³/(s·Pa)].
    pub leakage: ParamId,
}

/// Fixed orifice (throttle): Q = K √Δp with a laminar region.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Orifice {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub coefficient: ParamId,
    pub laminar_pressure: ParamId,
}

/// Pressure-relief valve from `from` to `to`: shut below `cracking_pressure` (no flow at
/// all), then a linear flow gain [m³/(s·Pa)], blended C¹ over the first `smoothing` Pa.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReliefValve {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub cracking_pressure: ParamId,
    pub gain: ParamId,
    pub smoothing: f64,
}

/// Check valve from `from` to `to`: shut (no flow either way) while the pressure drop is
/// below `cracking_pressure`, an orifice `K·√Δp` opened by a smoothstep of the drop between
/// cracking and `full_open_pressure` (no flow ever from `to` to `from`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckValve {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub cracking_pressure: ParamId,
    pub full_open_pressure: ParamId,
    /// Flow coefficient K when fully open [m³/(s·√Pa)].
    pub coefficient: ParamId,
    pub laminar_pressure: ParamId,
    /// Pilot-operated: the pilot node and the pilot ratio φ (pilot piston area over seat
    /// area). The opening signal becomes `Δp + φ·(p_pilot − p_from)`, so a pilot pressure
    /// lifts the poppet and lets the oil flow back from `to` to `from`.
    pub pilot: Option<(usize, ParamId)>,
}

/// Counterbalance (over-centre) valve between a load-holding chamber `load` and the line
/// `valve` to the directional valve. From `load` to `valve` a poppet opens by the opening
/// signal `(p_load − p_valve) + φ·(p_pilot − p_valve)` (spring chamber at the valve port):
/// shut below `setting`, a smoothstep over `opening_range` above it, times the orifice law
/// `K·√Δp`. From `valve` to `load` a built-in check valve passes the lifting flow freely.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CounterbalanceValve {
    pub name: String,
    pub load: usize,
    pub valve: usize,
    pub pilot: usize,
    pub setting: ParamId,
    pub pilot_ratio: ParamId,
    pub opening_range: ParamId,
    /// Flow coefficient K of the poppet fully open and of the check [m³/(s·√Pa)].
    pub coefficient: ParamId,
    pub check_cracking_pressure: ParamId,
    pub check_full_open_pressure: ParamId,
    pub laminar_pressure: ParamId,
}

/// Fixed-displacement pump from `inlet` to `outlet`: Q = D ω / 2π · η_v.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pump {
    pub name: String,
    pub inlet: usize,
    pub outlet: usize,
    /// Displacement [m³/rev].
    pub displacement: ParamId,
    /// Shaft speed [rad/s].
    pub speed: ParamId,
    pub volumetric_efficiency: ParamId,
}

/// Laminar leakage Q = G Δp.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Leakage {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub conductance: ParamId,
}

// A valve is the largest element (its four edge tables); elements live once in the
// compiled model, read in place, so boxing would only add an indirection per flow.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Element {
    DirectionalValve(DirectionalValve),
    Orifice(Orifice),
    ReliefValve(ReliefValve),
    Pump(Pump),
    Leakage(Leakage),
    /// Last, so that the serialized models without one keep their encoding.
    CheckValve(CheckValve),
    CounterbalanceValve(CounterbalanceValve),
    LoadSensingPump(LoadSensingPump),
}

impl Element {
    pub fn name(&self) -> &str {
        match self {
            Element::DirectionalValve(v) => &v.name,
            Element::Orifice(o) => &o.name,
            Element::ReliefValve(r) => &r.name,
            Element::CheckValve(c) => &c.name,
            Element::CounterbalanceValve(c) => &c.name,
            Element::Pump(p) => &p.name,
            Element::LoadSensingPump(p) => &p.name,
            Element::Leakage(l) => &l.name,
        }
    }

    pub fn nodes(&self) -> Vec<usize> {
        match self {
            Element::DirectionalValve(v) => {
                let mut nodes = vec![v.port_p, v.port_t, v.port_a, v.port_b];
                nodes.extend(v.load_sense.as_ref().map(|ls| ls.node));
                nodes
            }
            Element::Orifice(o) => vec![o.from, o.to],
            Element::ReliefValve(r) => vec![r.from, r.to],
            Element::CheckValve(c) => {
                let mut nodes = vec![c.from, c.to];
                nodes.extend(c.pilot.map(|(node, _)| node));
                nodes
            }
            Element::CounterbalanceValve(c) => vec![c.load, c.valve, c.pilot],
            Element::Pump(p) => vec![p.inlet, p.outlet],
            Element::LoadSensingPump(p) => vec![p.inlet, p.outlet, p.load_sense],
            Element::Leakage(l) => vec![l.from, l.to],
        }
    }
}

/// Seal friction of a cylinder (force opposing the extension speed), seed 001 §2.3.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Friction {
    /// F = c·v.
    Viscous { coefficient: ParamId },
    /// Bengisu–Akay with the viscous term added by seed 001 (eq 2.42): a parabola below
    /// the Stribeck velocity, an exponential Stribeck decay above it.
    BengisuAkay {
        coulomb: ParamId,
        stiction: ParamId,
        stribeck_velocity: ParamId,
        /// ξ, slope of the Stribeck decay [s/m].
        shape: ParamId,
        viscous: ParamId,
    },
    /// Brown–McPhee (seed 001 eq 2.44), smooth; recommended for real time.
    BrownMcPhee {
        coulomb: ParamId,
        stiction: ParamId,
        stribeck_velocity: ParamId,
        viscous: ParamId,
    },
    /// LuGre (eqs 2.45–2.47): bristle deflection q is a state of the Newton loop.
    LuGre {
        coulomb: ParamId,
        stiction: ParamId,
        stribeck_velocity: ParamId,
        exponent: ParamId,
        bristle_stiffness: ParamId,
        bristle_damping: ParamId,
        viscous: ParamId,
    },
    /// Modified LuGre (eqs 2.48–2.54, Yanada & Sekikawa): bristle deflection q and
    /// lubricant-film thickness h̄ are states; the film time constant switches between
    /// acceleration, deceleration and dwell, dwell meaning |v| < `dwell_velocity` (the
    /// paper's "v = 0", which floating point never meets).
    ModifiedLuGre {
        coulomb: ParamId,
        stiction: ParamId,
        stribeck_velocity: ParamId,
        exponent: ParamId,
        bristle_stiffness: ParamId,
        bristle_damping: ParamId,
        viscous: ParamId,
        threshold_velocity: ParamId,
        tau_acceleration: ParamId,
        tau_deceleration: ParamId,
        tau_dwell: ParamId,
        dwell_velocity: ParamId,
    },
    /// One of several models, chosen by a parameter (e.g. a fixed FMI parameter
    /// `cylinder.friction.model`): `options[round(selector)]`, clamped. The cylinder
    /// carries as many states as the largest option; unused ones stay at zero.
    Selectable {
        selector: ParamId,
        options: Vec<Friction>,
    },
}

impl Friction {
    /// Number of internal states of the model.
    #[inline]
    pub fn states(&self) -> usize {
        match self {
            Friction::LuGre { .. } => 1,
            Friction::ModifiedLuGre { .. } => 2,
            Friction::Selectable { options, .. } => {
                options.iter().map(Friction::states).max().unwrap_or(0)
            }
            _ => 0,
        }
    }

    /// The model in effect for the parameter values `p`.
    pub fn active<'a>(&'a self, p: &[f64]) -> &'a Friction {
        match self {
            Friction::Selectable { selector, options } if !options.is_empty() => {
                let k = p[selector.index()]
                    .round()
                    .clamp(0.0, (options.len() - 1) as f64) as usize;
                options[k].active(p)
            }
            other => other,
        }
    }

    pub fn params(&self) -> Vec<ParamId> {
        if let Friction::Selectable { selector, options } = self {
            let mut v = vec![*selector];
            for o in options {
                v.extend(o.params());
            }
            return v;
        }
        match *self {
            Friction::Viscous { coefficient } => vec![coefficient],
            Friction::BengisuAkay {
                coulomb,
                stiction,
                stribeck_velocity,
                shape,
                viscous,
            } => {
                vec![coulomb, stiction, stribeck_velocity, shape, viscous]
            }
            Friction::BrownMcPhee {
                coulomb,
                stiction,
                stribeck_velocity,
                viscous,
            } => {
                vec![coulomb, stiction, stribeck_velocity, viscous]
            }
            Friction::LuGre {
                coulomb,
                stiction,
                stribeck_velocity,
                exponent,
                bristle_stiffness,
                bristle_damping,
                viscous,
            } => vec![
                coulomb,
                stiction,
                stribeck_velocity,
                exponent,
                bristle_stiffness,
                bristle_damping,
                viscous,
            ],
            Friction::ModifiedLuGre {
                coulomb,
                stiction,
                stribeck_velocity,
                exponent,
                bristle_stiffness,
                bristle_damping,
                viscous,
                threshold_velocity,
                tau_acceleration,
                tau_deceleration,
                tau_dwell,
                dwell_velocity,
            } => vec![
                coulomb,
                stiction,
                stribeck_velocity,
                exponent,
                bristle_stiffness,
                bristle_damping,
                viscous,
                threshold_velocity,
                tau_acceleration,
                tau_deceleration,
                tau_dwell,
                dwell_velocity,
            ],
            Friction::Selectable { .. } => unreachable!("handled above"),
        }
    }
}

/// End-of-stroke cushion: a stiff spring-damper acting over the last `length` of stroke.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cushion {
    pub length: ParamId,
    pub stiffness: ParamId,
    pub damping: ParamId,
}

/// Double-acting cylinder between two body points. The cap (barrel) end is `cap_point`,
/// the rod eye is `rod_point`; the pin-to-pin length is `retracted_length + x`, with the
/// stroke position x ∈ [0, stroke].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cylinder {
    pub name: String,
    pub cap_point: PointRef,
    pub rod_point: PointRef,
    pub cap_area: ParamId,
    pub rod_area: ParamId,
    pub stroke: ParamId,
    pub retracted_length: ParamId,
    pub cap_dead_volume: ParamId,
    pub rod_dead_volume: ParamId,
    /// Bulk modulus of the cylinder wall (seed 001 eq 2.35); `None` = rigid.
    pub wall_bulk_modulus: Option<ParamId>,
    /// Control volumes the chambers belong to (must be [`Node::Volume`]).
    pub cap_node: usize,
    pub rod_node: usize,
    pub friction: Friction,
    pub cushion: Cushion,
}

/// Hydraulic rotary motor driving the revolute tree joint of `body` through a gear:
/// motor speed ω_m = `gear_ratio`·q̇, flow D·ω_m/2π from port A to port B plus internal
/// leakage G·(p_A − p_B), torque on the joint `gear_ratio`·(Δp·D/2π − c·ω_m). The motor
/// housing sits on the joint's parent, the shaft on the body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RotaryMotor {
    pub name: String,
    pub body: usize,
    pub port_a: usize,
    pub port_b: usize,
    /// Displacement [m³/rev].
    pub displacement: ParamId,
    /// Motor turns per joint turn.
    pub gear_ratio: ParamId,
    /// Internal leakage conductance [m³/(s·Pa)].
    pub leakage: ParamId,
    /// Viscous friction on the motor shaft [N·m·s/rad].
    pub friction: ParamId,
}

/// Gas-charged accumulator on a volume node (see [`crate::hydraulics::accumulator`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Accumulator {
    pub name: String,
    /// The volume node it is connected to.
    pub node: usize,
    /// Gas volume at the precharge (the shell's volume) [m³].
    pub volume: ParamId,
    /// Precharge pressure (absolute) [Pa].
    pub precharge: ParamId,
    /// Polytropic exponent n of `p·V^n = const` (1 isothermal, 1.4 adiabatic nitrogen).
    pub exponent: ParamId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Circuit {
    pub oil: Oil,
    pub nodes: Vec<Node>,
    pub spools: Vec<Spool>,
    pub elements: Vec<Element>,
    pub cylinders: Vec<Cylinder>,
    pub motors: Vec<RotaryMotor>,
    pub accumulators: Vec<Accumulator>,
}

impl Circuit {
    /// Number of variable-displacement pumps (one displacement state each).
    pub fn displacement_states(&self) -> usize {
        self.elements
            .iter()
            .filter(|e| matches!(e, Element::LoadSensingPump(_)))
            .count()
    }

    /// Number of internal friction states of all cylinders.
    pub fn friction_states(&self) -> usize {
        self.cylinders.iter().map(|c| c.friction.states()).sum()
    }

    /// Index of each node's pressure among the pressure unknowns (`None` for a node at a
    /// given pressure).
    pub fn volume_indices(&self) -> Vec<Option<usize>> {
        let mut next = 0;
        self.nodes
            .iter()
            .map(|n| {
                matches!(n, Node::Volume(_)).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    }

    /// Number of pressure unknowns.
    pub fn volumes(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n, Node::Volume(_)))
            .count()
    }

    pub fn collect_params(&self, out: &mut Vec<ParamId>) {
        out.push(self.oil.density);
        match self.oil.bulk_modulus {
            BulkModulus::Constant(b) => out.push(b),
            BulkModulus::PressureDependent { a, b } => out.extend([a, b]),
        }
        let air = &self.oil.air;
        out.extend([air.fraction, air.polytropic_index, air.vapour_pressure]);
        for n in &self.nodes {
            match n {
                Node::Volume(v) => {
                    out.push(v.hose_volume);
                    out.extend(v.hose_bulk_modulus);
                    out.extend(v.precharge);
                }
                Node::Pressure { pressure, .. } => out.push(*pressure),
            }
        }
        for s in &self.spools {
            out.extend([s.command, s.time_constant, s.dead_band]);
        }
        for e in &self.elements {
            match e {
                Element::DirectionalValve(v) => {
                    out.push(v.laminar_pressure);
                    out.extend(v.load_sense.as_ref().map(|ls| ls.coefficient));
                }
                Element::Orifice(o) => out.extend([o.coefficient, o.laminar_pressure]),
                Element::ReliefValve(r) => out.extend([r.cracking_pressure, r.gain]),
                Element::CheckValve(c) => {
                    out.extend([
                        c.cracking_pressure,
                        c.full_open_pressure,
                        c.coefficient,
                        c.laminar_pressure,
                    ]);
                    out.extend(c.pilot.map(|(_, ratio)| ratio));
                }
                Element::CounterbalanceValve(c) => out.extend([
                    c.setting,
                    c.pilot_ratio,
                    c.opening_range,
                    c.coefficient,
                    c.check_cracking_pressure,
                    c.check_full_open_pressure,
                    c.laminar_pressure,
                ]),
                Element::Pump(p) => out.extend([p.displacement, p.speed, p.volumetric_efficiency]),
                Element::LoadSensingPump(p) => out.extend([
                    p.displacement,
                    p.speed,
                    p.margin,
                    p.cutoff,
                    p.band,
                    p.time_constant,
                    p.leakage,
                ]),
                Element::Leakage(l) => out.push(l.conductance),
            }
        }
        for c in &self.cylinders {
            out.extend([
                c.cap_area,
                c.rod_area,
                c.stroke,
                c.retracted_length,
                c.cap_dead_volume,
                c.rod_dead_volume,
            ]);
            out.extend(c.wall_bulk_modulus);
            out.extend(c.friction.params());
            out.extend([c.cushion.length, c.cushion.stiffness, c.cushion.damping]);
        }
        for mo in &self.motors {
            out.extend([mo.displacement, mo.gear_ratio, mo.leakage, mo.friction]);
        }
        for a in &self.accumulators {
            out.extend([a.volume, a.precharge, a.exponent]);
        }
    }
}

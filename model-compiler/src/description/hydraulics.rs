//! `[hydraulics]`: oil, pressure nodes, valves, pumps and cylinders.

use super::{BulkModulusDesc, Located, Name, PointDesc, Quantity, Table};
use serde::Deserialize;
use toml::Spanned;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HydraulicsDesc {
    pub oil: Option<OilDesc>,
    #[serde(default)]
    pub pressure_sources: Vec<SourceDesc>,
    #[serde(default)]
    pub volumes: Vec<VolumeDesc>,
    #[serde(default)]
    pub valves: Vec<ValveDesc>,
    #[serde(default)]
    pub orifices: Vec<OrificeDesc>,
    #[serde(default)]
    pub relief_valves: Vec<ReliefValveDesc>,
    #[serde(default)]
    pub check_valves: Vec<CheckValveDesc>,
    #[serde(default)]
    pub counterbalance_valves: Vec<CounterbalanceValveDesc>,
    #[serde(default)]
    pub pumps: Vec<PumpDesc>,
    #[serde(default)]
    pub load_sensing_pumps: Vec<LoadSensingPumpDesc>,
    #[serde(default)]
    pub leakages: Vec<LeakageDesc>,
    #[serde(default)]
    pub cylinders: Vec<CylinderDesc>,
    #[serde(default)]
    pub motors: Vec<MotorDesc>,
    #[serde(default)]
    pub accumulators: Vec<AccumulatorDesc>,
}

/// Gas-charged accumulator on a volume: `p·V^n = precharge·volume^n` once the pressure is
/// above the precharge.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccumulatorDesc {
    pub name: Name,
    /// The volume it is connected to.
    pub node: Name,
    /// Gas volume at the precharge (the shell's nominal volume).
    pub volume: Quantity,
    /// Gas precharge pressure (absolute).
    pub precharge: Quantity,
    /// Polytropic exponent; default 1.4.
    pub polytropic_exponent: Option<Quantity>,
}

/// Hydraulic rotary motor driving a revolute joint through a gear (e.g. a swing drive):
/// torque = gear_ratio·(Δp·D/2π − friction·ω_m), flow = D·ω_m/2π + leakage·Δp with the
/// motor speed ω_m = gear_ratio·(joint rate).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotorDesc {
    pub name: Name,
    /// The revolute tree joint it drives (housing on the parent, shaft on the body).
    pub joint: Name,
    #[serde(rename = "A")]
    pub a: Name,
    #[serde(rename = "B")]
    pub b: Name,
    /// Per revolution (`"100 cm3/rev"`).
    pub displacement: Quantity,
    /// Motor turns per joint turn; default 1.
    pub gear_ratio: Option<Quantity>,
    /// Internal leakage A→B [m³/(s·Pa)]; default 0.
    pub leakage: Option<Quantity>,
    /// Viscous friction on the motor shaft [N·m·s/rad]; default 0.
    pub friction: Option<Quantity>,
    /// Anti-cavitation: a make-up check valve from this node (the tank) into each line that
    /// is a volume.
    pub make_up: Option<Name>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OilDesc {
    pub density: Quantity,
    /// Bulk modulus of the liquid (no air).
    pub bulk_modulus: Located<BulkModulusDesc>,
    /// Undissolved air per liquid volume at atmospheric pressure; default 0.001.
    pub air_fraction: Option<Quantity>,
    /// Polytropic index of the air; default 1 (isothermal).
    pub air_polytropic_index: Option<Quantity>,
    /// Absolute pressure at which the oil boils; default 1 kPa.
    pub vapour_pressure: Option<Quantity>,
}

/// A node held at a fixed pressure (supply, tank).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceDesc {
    pub name: Name,
    pub pressure: Quantity,
}

/// A control volume (one pressure unknown); cylinder chambers attached to it add theirs.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeDesc {
    pub name: Name,
    /// Hose/pipe volume (0 if the volume is only a cylinder chamber).
    pub volume: Quantity,
    /// Bulk modulus of the hose wall; absent = rigid.
    pub bulk_modulus: Option<Quantity>,
    pub precharge: Option<Quantity>,
    /// Starting guess of the equilibrium solve (default 1 MPa).
    pub initial_guess: Option<Quantity>,
}

/// Spool of a directional valve: command signal, first-order lag, dead band.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpoolDesc {
    /// `[min, max]` of the command and spool position (signal units: plain, V or A).
    pub range: Spanned<[Quantity; 2]>,
    /// Default 0 (the spool follows the command instantly).
    pub time_constant: Option<Quantity>,
    pub dead_band: Option<Quantity>,
    /// Centre of the dead band; default the middle of `range`.
    pub dead_band_centre: Option<Quantity>,
    /// Default command (start value of the command slot); default the dead-band centre.
    pub command: Option<Quantity>,
}

/// One metering edge: `coefficient` K(u) [m³/(s·√Pa)], or `area` A(u) [m²] with a
/// discharge coefficient (K = Cd·A·√(2/ρ)). An absent edge never opens.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeDesc {
    pub coefficient: Option<Table>,
    pub area: Option<Table>,
    pub discharge_coefficient: Option<Quantity>,
    /// Pressure-compensated edge (e.g. a PVG32 inlet): flow [[u, Q], ...] delivered
    /// whatever the load once Δp exceeds `compensator_margin` (default 1 bar, our choice).
    pub flow: Option<Table>,
    pub compensator_margin: Option<Quantity>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgesDesc {
    #[serde(rename = "PA")]
    pub pa: Option<Located<EdgeDesc>>,
    #[serde(rename = "PB")]
    pub pb: Option<Located<EdgeDesc>>,
    #[serde(rename = "AT")]
    pub at: Option<Located<EdgeDesc>>,
    #[serde(rename = "BT")]
    pub bt: Option<Located<EdgeDesc>>,
    /// Open centre: the neutral P→T edge.
    #[serde(rename = "PT")]
    pub pt: Option<Located<EdgeDesc>>,
}

/// 4/3 directional valve.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValveDesc {
    pub name: Name,
    #[serde(rename = "P")]
    pub p: Name,
    #[serde(rename = "T")]
    pub t: Name,
    #[serde(rename = "A")]
    pub a: Name,
    #[serde(rename = "B")]
    pub b: Name,
    pub spool: SpoolDesc,
    /// Default 2 bar.
    pub laminar_pressure: Option<Quantity>,
    pub edges: Option<EdgesDesc>,
    /// Load-sensing section: the LS line its working ports signal to through a shuttle.
    pub load_sense: Option<Name>,
    /// Flow coefficient of the LS signal passage [m³/(s·√Pa)]; default 10 mm² at Cd 0.7.
    pub load_sense_coefficient: Option<Quantity>,
}

/// Fixed orifice: `area` + `discharge_coefficient`, or `coefficient`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrificeDesc {
    pub name: Name,
    pub from: Name,
    pub to: Name,
    pub area: Option<Quantity>,
    pub discharge_coefficient: Option<Quantity>,
    pub coefficient: Option<Quantity>,
    pub laminar_pressure: Option<Quantity>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReliefValveDesc {
    pub name: Name,
    pub from: Name,
    pub to: Name,
    pub cracking_pressure: Quantity,
    /// Flow gain above cracking [m³/(s·Pa)].
    pub gain: Quantity,
    /// Width of the smooth opening [Pa]; default 1 bar.
    pub smoothing: Option<Quantity>,
}

/// Check valve: flow only from `from` to `to`, once the drop exceeds `cracking_pressure`,
/// fully open from `full_open_pressure`; sized like an orifice.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckValveDesc {
    pub name: Name,
    pub from: Name,
    pub to: Name,
    pub cracking_pressure: Quantity,
    pub full_open_pressure: Quantity,
    /// Pilot-operated: the node whose pressure lifts the poppet, and the pilot ratio.
    pub pilot: Option<Name>,
    pub pilot_ratio: Option<Quantity>,
    pub area: Option<Quantity>,
    pub discharge_coefficient: Option<Quantity>,
    pub coefficient: Option<Quantity>,
    pub laminar_pressure: Option<Quantity>,
}

/// Counterbalance (over-centre) valve between a load-holding chamber and its valve line.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterbalanceValveDesc {
    pub name: Name,
    /// The chamber (volume) whose load it holds.
    pub load: Name,
    /// The line to the directional valve.
    pub valve: Name,
    /// The opposite line, whose pressure helps open it.
    pub pilot: Name,
    pub setting: Quantity,
    pub pilot_ratio: Quantity,
    pub opening_range: Option<Quantity>,
    pub area: Option<Quantity>,
    pub discharge_coefficient: Option<Quantity>,
    pub coefficient: Option<Quantity>,
    pub check_cracking_pressure: Option<Quantity>,
    pub check_full_open_pressure: Option<Quantity>,
    pub laminar_pressure: Option<Quantity>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PumpDesc {
    pub name: Name,
    pub inlet: Name,
    pub outlet: Name,
    /// Per revolution (`"28 cm3/rev"`).
    pub displacement: Quantity,
    pub speed: Quantity,
    pub volumetric_efficiency: Option<Quantity>,
}

/// Variable-displacement pump with a load-sensing regulator and pressure cut-off.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadSensingPumpDesc {
    pub name: Name,
    pub inlet: Name,
    pub outlet: Name,
    /// The LS line (the highest load pressure of the sections).
    pub load_sense: Name,
    /// Maximum displacement per revolution (`"45 cm3/rev"`).
    pub displacement: Quantity,
    pub speed: Quantity,
    /// LS margin Δp_LS (the flow controller's setting).
    pub margin: Quantity,
    /// Pressure cut-off (absolute).
    pub cutoff: Quantity,
    /// Regulator droop: pressure error from zero to full displacement; default 1 bar.
    pub regulator_band: Option<Quantity>,
    /// Swash-plate lag; default 40 ms.
    pub time_constant: Option<Quantity>,
    /// Internal leakage conductance; default 1e-12 m³/(s·Pa).
    pub leakage: Option<Quantity>,
}

/// Laminar leakage Q = G Δp.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeakageDesc {
    pub name: Name,
    pub from: Name,
    pub to: Name,
    pub conductance: Quantity,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrictionModel {
    Viscous,
    BengisuAkay,
    BrownMcphee,
    Lugre,
    ModifiedLugre,
    /// The four models of seed 001 Pub II behind one Integer parameter
    /// `<cylinder>.friction.model` (0 Bengisu–Akay, 1 Brown–McPhee, 2 LuGre, 3 modified
    /// LuGre), starting with `default`; takes the parameters of all four.
    Selectable,
}

/// Seal friction (seed 001 §2.3): `{ model = "viscous", coefficient }`,
/// `{ model = "brown-mcphee", coulomb, stiction, stribeck_velocity, viscous }`,
/// `"bengisu-akay"` (+ `shape` ξ), `"lugre"` (+ `exponent`, `bristle_stiffness`,
/// `bristle_damping`), `"modified-lugre"` (+ `threshold_velocity`, `tau_acceleration`,
/// `tau_deceleration`, `tau_dwell`, optional `dwell_velocity`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrictionDesc {
    pub model: Spanned<FrictionModel>,
    /// With `model = "selectable"`: the model in effect unless the parameter is changed.
    pub default: Option<Spanned<FrictionModel>>,
    pub coefficient: Option<Quantity>,
    pub coulomb: Option<Quantity>,
    pub stiction: Option<Quantity>,
    pub stribeck_velocity: Option<Quantity>,
    pub viscous: Option<Quantity>,
    pub shape: Option<Quantity>,
    pub exponent: Option<Quantity>,
    pub bristle_stiffness: Option<Quantity>,
    pub bristle_damping: Option<Quantity>,
    pub threshold_velocity: Option<Quantity>,
    pub tau_acceleration: Option<Quantity>,
    pub tau_deceleration: Option<Quantity>,
    pub tau_dwell: Option<Quantity>,
    pub dwell_velocity: Option<Quantity>,
}

/// End-of-stroke cushion; defaults (our choice) 5 mm, 1e8 N/m, 1e4 N·s/m.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CushionDesc {
    pub length: Option<Quantity>,
    pub stiffness: Option<Quantity>,
    pub damping: Option<Quantity>,
}

/// Double-acting cylinder between two body points.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CylinderDesc {
    pub name: Name,
    /// Barrel end.
    pub cap: PointDesc,
    /// Rod eye.
    pub rod: PointDesc,
    pub bore: Option<Quantity>,
    pub rod_diameter: Option<Quantity>,
    pub cap_area: Option<Quantity>,
    /// Annulus area.
    pub rod_area: Option<Quantity>,
    pub stroke: Quantity,
    /// Pin-to-pin length at zero stroke.
    pub retracted_length: Quantity,
    pub cap_dead_volume: Option<Quantity>,
    pub rod_dead_volume: Option<Quantity>,
    /// Control volume of the cap chamber.
    pub cap_volume: Name,
    /// Control volume of the rod chamber.
    pub rod_volume: Name,
    pub wall_bulk_modulus: Option<Quantity>,
    pub friction: Option<FrictionDesc>,
    pub cushion: Option<CushionDesc>,
    /// Anti-cavitation: a make-up check valve from this node (the tank) into each chamber
    /// that is a volume.
    pub make_up: Option<Name>,
}

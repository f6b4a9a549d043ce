//! `hydromech schema`: the JSON Schema (draft 2020-12) of the description format, so that
//! editors (e.g. Taplo / Even Better TOML, which read JSON Schemas for TOML files) complete
//! keys and validate values.
//!
//! Written from a table that mirrors [`crate::description`] rather than derived: the
//! description types wrap their values in `toml::Spanned` (a foreign type) and custom
//! deserializers, so a derive would need an annotation on nearly every field. The test
//! `every_model_key_is_in_the_schema` walks the shipped models against it, and
//! `every_field_of_the_description_types_is_in_the_schema` keeps it in step with the
//! struct definitions.

use serde_json::{Map, Value, json};

/// The value kinds of the format.
#[derive(Clone, Copy)]
enum K {
    /// A number in SI units or a string with a unit.
    Q,
    /// `[x, y, z]` of quantities.
    V3,
    /// `n` quantities.
    Qs(usize),
    Name,
    Text,
    Bool,
    Int,
    Enum(&'static [&'static str]),
    /// `$ref` to a definition.
    Def(&'static str),
    /// An array of a definition (`[[...]]` tables or an inline array).
    Defs(&'static str),
    /// `[[x, y], ...]` of quantities.
    Table,
    /// An array of a definition or one of these words (`collision`).
    DefsOrWord(&'static str, &'static [&'static str]),
    Names,
    /// A quantity or an array of quantities (`initial`).
    QOrQs,
    /// A quantity or `{ a, b }` (`bulk_modulus` of the oil).
    QOrDef(&'static str),
    /// A quantity, an array of quantities or a definition (`damping` of a flexible body).
    QOrQsOrDef(&'static str),
    /// An array of 3-vectors.
    V3s,
    /// A table of FMI names → quantities (`[report] parameters`).
    QMap,
    /// A table of FMI names → a schedule `[[t, value], ...]` or a definition (`[report] inputs`).
    TableOrDefMap(&'static str),
}

/// One key: name, kind, required, description.
type F = (&'static str, K, bool, &'static str);

#[rustfmt::skip]
const DEFS: &[(&str, &str, &[F])] = &[
    ("model", "Identity and metadata, copied into the FMU's modelDescription.xml.", &[
        ("name", K::Name, true, "FMI modelName; the modelIdentifier is this with '-' replaced by '_'."),
        ("description", K::Text, false, "FMI description."),
        ("author", K::Text, false, "FMI author."),
        ("version", K::Text, false, "FMI version of the model."),
        ("license", K::Text, false, "FMI license."),
        ("copyright", K::Text, false, "FMI copyright."),
        ("gravity", K::V3, false, "Gravity in world axes [m/s²]; default [0, -9.81, 0] (y up)."),
    ]),
    ("experiment", "FMI DefaultExperiment.", &[
        ("start_time", K::Q, false, "Start time [s] (default 0)."),
        ("stop_time", K::Q, true, "Stop time [s]."),
        ("step_size", K::Q, true, "Communication step [s]."),
        ("tolerance", K::Q, false, "Tolerance."),
    ]),
    ("solver", "The fixed-step monolithic integrator.", &[
        ("formulation", K::Enum(&["augmented-lagrangian", "double-step"]), false, "Index-3 formulation."),
        ("reuse_tangent", K::Bool, false, "Keep the Newton tangent across steps (default true)."),
        ("linear_solver", K::Enum(&["auto", "dense", "sparse"]), false, "Linear solver of the Newton tangent (default auto: sparse where it is predicted cheaper)."),
        ("tangent", K::Enum(&["assembled", "finite-difference"]), false, "How the Newton tangent's joint-coordinate columns are formed (default assembled: mass matrix, penalty, actuator and spring stiffness and damping; finite-difference: one residual evaluation per column group)."),
        ("step", K::Q, false, "Internal fixed step (FMI parameter solver.step), e.g. \"1 ms\"."),
        ("penalty", K::Q, false, "Absolute penalty factor α; without it penalty_ratio scales α with the step."),
        ("penalty_ratio", K::Q, false, "Penalty relative to the mass matrix and step."),
        ("max_iterations", K::Int, false, "Newton iteration cap per step."),
        ("tol_position", K::Q, false, "Newton tolerance on positions [m or rad]."),
        ("tol_pressure", K::Q, false, "Newton tolerance on pressures [Pa]."),
        ("tol_state", K::Q, false, "Newton tolerance on other states."),
        ("max_step_halvings", K::Int, false, "How often a failing step may be halved."),
    ]),
    ("init", "How the initial state is found.", &[
        ("static_equilibrium", K::Bool, false, "Start at rest in static equilibrium: pressures solved, and the joint coordinates nothing else holds (a chassis on its springs) settled."),
        ("solve_for", K::Names, false, "Inputs/parameters whose start values the equilibrium solve computes at compile time."),
        ("hold", K::Names, false, "Joints or joint coordinates the static equilibrium keeps at their initial values although nothing holds them (a pendulum released from an angle)."),
    ]),
    ("body", "A rigid body and the joint to its parent.", &[
        ("name", K::Name, true, "Unique name."),
        ("parent", K::Name, true, "Parent body, or \"ground\"."),
        ("joint", K::Def("joint"), true, "The joint to the parent."),
        ("mass", K::Q, false, "Mass [kg] (with com and inertia, instead of parts)."),
        ("com", K::V3, false, "Centre of mass in body axes [m]."),
        ("inertia", K::Qs(6), false, "Inertia about the centre of mass: [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] [kg·m²]."),
        ("parts", K::Defs("part"), false, "Primitive shapes whose mass properties are summed."),
        ("massless", K::Bool, false, "A massless link (no mass properties)."),
        ("visual", K::Defs("visual"), false, "Visual geometry for the documentation (ignored by the solver)."),
        ("collision", K::DefsOrWord("collision_shape", &["visual"]), false, "Shapes that touch the ground ([contact]), or \"visual\" for the visual boxes, cylinders and spheres."),
        ("flexible", K::Def("flexible"), false, "The body deforms (floating frame of reference): its FE model, modes, damping and interface nodes; its mass comes from the FE model."),
    ]),
    ("flexible", "A flexible body: Craig–Bampton modes clamped at its joint (the reference node), interface nodes where things attach.", &[
        ("beam", K::Def("beam"), false, "The built-in beam mesher: a straight beam along the body's x axis."),
        ("fe", K::Def("fe"), false, "Or an FE model from files (relative to the description)."),
        ("modes", K::Int, false, "Modes kept (default 4)."),
        ("damping", K::QOrQsOrDef("rayleigh"), false, "Modal damping: one ratio (default 0.02), a ratio per mode, or Rayleigh { alpha, beta }."),
        ("plane", K::Enum(&["xy", "xz"]), false, "Keep only the modes bending in this plane (a planar machine's beam); default: all."),
        ("nodes", K::Defs("flexible_node"), true, "Interface nodes: every point and child joint on the body attaches to the node at its station (x)."),
    ]),
    ("beam", "A straight beam along the body's x axis from start to start + length (Euler–Bernoulli frame elements, consistent mass).", &[
        ("length", K::Q, true, "Length [m]."),
        ("start", K::Q, false, "x of the first end [m] (default 0); the body origin must lie on the beam."),
        ("elements", K::Int, false, "Number of elements (default 20)."),
        ("section", K::Def("section"), true, "Cross-section."),
        ("young", K::Q, true, "Young's modulus [Pa]."),
        ("poisson", K::Q, true, "Poisson's ratio."),
        ("density", K::Q, true, "Density [kg/m³]."),
    ]),
    ("section", "A beam cross-section: width along y, height along z.", &[
        ("shape", K::Enum(&["rectangle", "box", "tube"]), true, "Section shape."),
        ("width", K::Q, false, "Width along y [m] (rectangle, box)."),
        ("height", K::Q, false, "Height along z [m] (rectangle, box)."),
        ("diameter", K::Q, false, "Outer diameter [m] (tube)."),
        ("wall", K::Q, false, "Wall thickness [m] (box, tube)."),
    ]),
    ("fe", "An FE model from files: Matrix Market mass and stiffness, node coordinates as CSV with units in the header.", &[
        ("mass", K::Text, true, "Mass matrix, Matrix Market coordinate real general|symmetric."),
        ("stiffness", K::Text, true, "Stiffness matrix, Matrix Market."),
        ("coordinates", K::Text, true, "Node coordinates in body axes: CSV x, y, z with the unit of each column in the header (`x [mm]`)."),
        ("dofs_per_node", K::Int, false, "3 (translations) or 6 (translations, rotations; default)."),
        ("reference_radius", K::Q, false, "Ties the mesh nodes within this distance of the body origin to the body's joint (a rigid spider, RBE2) [m]; needed by solid meshes (3 DOFs per node)."),
    ]),
    ("flexible_node", "An interface node of a flexible body.", &[
        ("name", K::Name, true, "Name within the body (its frame is the body `<body>.<name>`)."),
        ("at", K::Q, false, "Station along the beam's x axis [m] (beam)."),
        ("node", K::Int, false, "Node number: 1-based row of the coordinates file (fe)."),
        ("center", K::V3, false, "Centre of a rigid spider in body axes [m] (fe, with radius): e.g. a pin bore's axis point."),
        ("radius", K::Q, false, "Ties the mesh nodes within this distance of `node` or `center` to one 6-DOF node there (a rigid spider, RBE2) [m] (fe)."),
    ]),
    ("rayleigh", "Rayleigh damping α M + β K on the elastic coordinates.", &[
        ("alpha", K::Q, true, "α [1/s]."),
        ("beta", K::Q, true, "β [s]."),
    ]),
    ("joint", "A tree joint; its frame is origin + rotation in the parent's axes.", &[
        ("type", K::Enum(&["revolute", "prismatic", "fixed", "spherical", "universal", "free"]), true, "Joint type (free: x, y, z translations then z-y-x rotations, 6 coordinates)."),
        ("name", K::Name, false, "Name of the joint (default: the body's name)."),
        ("origin", K::V3, false, "Joint frame origin in the parent's axes [m]."),
        ("axis", K::V3, false, "Joint axis (revolute, prismatic)."),
        ("axes", K::V3s, false, "The two axes of a universal joint."),
        ("rotation", K::Def("rotation"), false, "Rotation of the joint frame."),
        ("initial", K::QOrQs, false, "Initial coordinate(s): an angle or length; [yaw, pitch, roll] for spherical, [q1, q2] for universal."),
        ("limits", K::Qs(2), false, "End stops [lower, upper] of a revolute or prismatic joint: beyond them a spring-damper pushes back (never pulls)."),
        ("limit_stiffness", K::Q, false, "Stiffness of the end stops (default 1e7 N·m/rad, 1e8 N/m)."),
        ("limit_damping", K::Q, false, "Damping of the end stops, faded in over the first 1 mm or 1 mrad (default 1e4 N·m·s/rad or N·s/m)."),
    ]),
    ("rotation", "Axis + angle, or a quaternion [w, x, y, z].", &[
        ("axis", K::V3, false, "Rotation axis."),
        ("angle", K::Q, false, "Rotation angle, e.g. \"30 deg\"."),
        ("quaternion", K::Qs(4), false, "Unit quaternion [w, x, y, z] (normalised)."),
    ]),
    ("part", "A primitive whose inertia is computed.", &[
        ("shape", K::Enum(&["rod", "point", "box", "cylinder"]), true, "Primitive shape."),
        ("mass", K::Q, true, "Mass [kg]."),
        ("from", K::V3, false, "Start point (rod, cylinder) [m]."),
        ("to", K::V3, false, "End point (rod, cylinder) [m]."),
        ("at", K::V3, false, "Position of a point mass [m]."),
        ("center", K::V3, false, "Centre (box, cylinder) [m]."),
        ("size", K::V3, false, "Box edge lengths [m]."),
        ("radius", K::Q, false, "Cylinder radius [m]."),
        ("length", K::Q, false, "Cylinder length, with center and axis [m]."),
        ("axis", K::V3, false, "Cylinder axis, with center and length."),
    ]),
    ("visual", "Visual geometry (documentation only).", &[
        ("shape", K::Enum(&["box", "cylinder", "sphere", "mesh"]), true, "Shape."),
        ("center", K::V3, false, "Centre [m]."),
        ("size", K::V3, false, "Box edge lengths [m]."),
        ("from", K::V3, false, "Cylinder start point [m]."),
        ("to", K::V3, false, "Cylinder end point [m]."),
        ("radius", K::Q, false, "Radius [m]."),
        ("file", K::Text, false, "Mesh file."),
        ("scale", K::Q, false, "Mesh scale."),
        ("color", K::Text, false, "Colour \"#rrggbb\"."),
    ]),
    ("collision_shape", "A collision shape in body axes, with its material (default: [contact]'s).", &[
        ("shape", K::Enum(&["sphere", "box", "capsule", "cylinder", "mesh"]), true, "Shape (mesh: the convex hull of an OBJ/STL file's vertices; touches the ground and other bodies; a cylinder touches only the ground)."),
        ("center", K::V3, false, "Centre (sphere, box) [m]."),
        ("size", K::V3, false, "Box edge lengths [m]."),
        ("rotation", K::Def("rotation"), false, "Rotation of the box axes in body axes."),
        ("from", K::V3, false, "Axis start (capsule, cylinder) [m]."),
        ("to", K::V3, false, "Axis end (capsule, cylinder) [m]."),
        ("radius", K::Q, false, "Radius (sphere, capsule, cylinder) [m]."),
        ("file", K::Text, false, "Mesh file (OBJ or STL, relative to the description)."),
        ("scale", K::Q, false, "Mesh scale to metres (default 1; 0.001 for a file in millimetres)."),
        ("stiffness", K::Q, false, "Secant stiffness at 1 mm of penetration [N/m] (default 1e6)."),
        ("exponent", K::Q, false, "Exponent n of F ∝ δⁿ (default 1.5 for spheres and capsules, 1 otherwise)."),
        ("restitution", K::Q, false, "Coefficient of restitution e in (0, 1] (default 0.5)."),
        ("friction", K::QOrDef("contact_friction_pair"), false, "Friction coefficient, or { static, kinetic } (default 0.6, 0.5)."),
        ("stiction_velocity", K::Q, false, "Slip speed below which friction is regularized [m/s] (default 0.1 mm/s)."),
        ("stribeck_velocity", K::Q, false, "Speed over which static friction falls to kinetic [m/s] (default 10 mm/s)."),
        ("friction_model", K::Enum(&["coulomb", "lugre"]), false, "Friction law: regularized Coulomb (default) or LuGre bristles (a deflection state per contact point: true stiction)."),
        ("bristle_stiffness", K::Q, false, "LuGre σ0, per newton of normal force [1/m] (default 1e5: 10 µm presliding at μ = 1)."),
        ("bristle_damping", K::Q, false, "LuGre σ1, per newton of normal force [s/m] (default 2√(σ0/g): critical for a body resting on its weight)."),
    ]),
    ("contact_friction_pair", "Static and kinetic friction coefficients.", &[
        ("static", K::Q, false, "Static friction coefficient."),
        ("kinetic", K::Q, false, "Kinetic friction coefficient (default: static)."),
    ]),
    ("contact", "What the collision shapes touch, and their default material.", &[
        ("ground", K::Def("ground"), false, "The ground (default: a plane through the origin, against gravity)."),
        ("stiffness", K::Q, false, "Secant stiffness at 1 mm of penetration [N/m] (default 1e6)."),
        ("exponent", K::Q, false, "Exponent n of F ∝ δⁿ (default 1.5 for spheres and capsules, 1 otherwise)."),
        ("restitution", K::Q, false, "Coefficient of restitution e in (0, 1] (default 0.5)."),
        ("friction", K::QOrDef("contact_friction_pair"), false, "Friction coefficient, or { static, kinetic } (default 0.6, 0.5)."),
        ("stiction_velocity", K::Q, false, "Slip speed below which friction is regularized [m/s] (default 0.1 mm/s)."),
        ("stribeck_velocity", K::Q, false, "Speed over which static friction falls to kinetic [m/s] (default 10 mm/s)."),
        ("friction_model", K::Enum(&["coulomb", "lugre"]), false, "Friction law: regularized Coulomb (default) or LuGre bristles (a deflection state per contact point: true stiction)."),
        ("bristle_stiffness", K::Q, false, "LuGre σ0, per newton of normal force [1/m] (default 1e5: 10 µm presliding at μ = 1)."),
        ("bristle_damping", K::Q, false, "LuGre σ1, per newton of normal force [s/m] (default 2√(σ0/g): critical for a body resting on its weight)."),
        ("pairs", K::Defs("contact_bodies"), false, "Two bodies whose collision shapes touch each other (even when a joint joins them)."),
        ("groups", K::Defs("contact_bodies"), false, "Bodies whose collision shapes all touch each other, except where a joint joins two."),
    ]),
    ("contact_bodies", "Bodies whose collision shapes touch each other.", &[
        ("bodies", K::Names, true, "Body names (a pair: two)."),
    ]),
    ("ground", "The ground surface.", &[
        ("shape", K::Enum(&["plane", "heightfield"]), true, "Ground shape."),
        ("point", K::V3, false, "A point of the plane [m] (default the origin)."),
        ("normal", K::V3, false, "The plane's normal, out of the ground (default against gravity)."),
        ("file", K::Text, false, "Heightfield: CSV of heights, a row per y, each along x (path relative to the description)."),
        ("spacing", K::Qs(2), false, "Heightfield: sample spacing along x and y [m]."),
        ("origin", K::V3, false, "Heightfield: world position of the first sample; its z is added to every height [m] (default the origin)."),
        ("unit", K::Text, false, "Heightfield: unit of the file's heights (default m)."),
    ]),
    ("marker", "A named point on a body (outputs: position, velocity, orientation).", &[
        ("name", K::Name, true, "Unique name."),
        ("body", K::Name, true, "Body."),
        ("point", K::V3, true, "Position in body axes [m]."),
    ]),
    ("cut_joint", "A joint that closes a kinematic loop.", &[
        ("name", K::Name, true, "Unique name."),
        ("type", K::Enum(&["revolute", "spherical", "prismatic"]), true, "Cut joint type."),
        ("body_a", K::Name, true, "First body."),
        ("point_a", K::V3, true, "Point on body_a [m]."),
        ("body_b", K::Name, true, "Second body (or \"ground\")."),
        ("point_b", K::V3, true, "Point on body_b [m]."),
        ("axis_a", K::V3, false, "Axis on body_a (revolute)."),
        ("axis_b", K::V3, false, "Axis on body_b (revolute, prismatic)."),
    ]),
    ("point", "A point on a body.", &[
        ("body", K::Name, true, "Body (or \"ground\")."),
        ("point", K::V3, true, "Position in body axes [m]."),
    ]),
    ("spring_damper", "A linear spring–damper between two body points.", &[
        ("name", K::Name, true, "Unique name."),
        ("a", K::Def("point"), true, "First end."),
        ("b", K::Def("point"), true, "Second end."),
        ("stiffness", K::Q, true, "Stiffness [N/m]."),
        ("damping", K::Q, false, "Damping [N·s/m]."),
        ("free_length", K::Q, true, "Free length [m]."),
    ]),
    ("rope", "A winch rope from a drum over sheaves to a hook: stretch e = path length − (length + drum_radius·q), tension max(0, EA/(rope out)·e + c·ė) (the damping faded in over the first millimetre); slack, it carries nothing. Outputs <rope>.length, .out, .tension.", &[
        ("name", K::Name, true, "Unique name."),
        ("drum", K::Name, true, "The drum: a body on a revolute joint; its positive angle pays out."),
        ("drum_radius", K::Q, true, "Drum radius [m] (to the rope's centre line)."),
        ("path", K::Defs("point"), true, "Where the rope leaves the drum (a point of the drum's parent), the sheaves, the hook point."),
        ("length", K::Q, true, "Unstretched rope out at drum angle 0 [m]."),
        ("axial_stiffness", K::Q, true, "Axial stiffness EA [N], e.g. \"40 MN\"."),
        ("damping", K::Q, false, "Damping of the stretch [N·s/m] (default 0)."),
    ]),
    ("force_actuator", "A linear actuator between two body points whose force is an input slot <name>.force (positive pushes the points apart); outputs <name>.length and <name>.speed. The mechanical side of a cylinder whose hydraulics run elsewhere.", &[
        ("name", K::Name, true, "Unique name."),
        ("a", K::Def("point"), true, "First end (a cylinder's cap eye)."),
        ("b", K::Def("point"), true, "Second end (the rod eye)."),
        ("force", K::Q, false, "Start value of the force [N] (default 0)."),
    ]),
    ("point_force", "An external force on a body point (components are input slots).", &[
        ("name", K::Name, true, "Unique name."),
        ("body", K::Name, true, "Body."),
        ("point", K::V3, true, "Point of application in body axes [m]."),
        ("force", K::V3, false, "Default force in world axes [N]."),
    ]),
    ("hydraulics", "The hydraulic circuit.", &[
        ("oil", K::Def("oil"), false, "Oil properties."),
        ("pressure_sources", K::Defs("pressure_source"), false, "Nodes at a fixed pressure (supply, tank)."),
        ("volumes", K::Defs("volume"), false, "Hydraulic volumes (hoses, chambers): pressure states."),
        ("valves", K::Defs("valve"), false, "4/3 directional valves."),
        ("orifices", K::Defs("orifice"), false, "Throttles."),
        ("relief_valves", K::Defs("relief_valve"), false, "Pressure relief valves."),
        ("check_valves", K::Defs("check_valve"), false, "Check (non-return) valves."),
        ("counterbalance_valves", K::Defs("counterbalance_valve"), false, "Counterbalance (over-centre) valves holding loads."),
        ("accumulators", K::Defs("accumulator"), false, "Gas-charged accumulators on volumes."),
        ("pumps", K::Defs("pump"), false, "Fixed-displacement pumps."),
        ("load_sensing_pumps", K::Defs("load_sensing_pump"), false, "Variable-displacement pumps with LS regulator and pressure cut-off."),
        ("leakages", K::Defs("leakage"), false, "Laminar leakages."),
        ("cylinders", K::Defs("cylinder"), false, "Hydraulic cylinders between two body points."),
        ("motors", K::Defs("motor"), false, "Hydraulic motors driving a joint."),
    ]),
    ("oil", "Oil properties.", &[
        ("density", K::Q, true, "Density [kg/m³]."),
        ("bulk_modulus", K::QOrDef("bulk_modulus_law"), true, "Bulk modulus of the liquid without air [Pa], or the law { a, b } of β(p) = (1 + a p + b p²)/(a + 2 b p)."),
        ("air_fraction", K::Q, false, "Undissolved air per liquid volume at atmospheric pressure [-] (default 0.001): softens the oil at low pressure and keeps every volume above the vapour pressure."),
        ("air_polytropic_index", K::Q, false, "Polytropic index of the air [-] (default 1, isothermal; up to 1.4 adiabatic)."),
        ("vapour_pressure", K::Q, false, "Absolute pressure at which the oil boils [Pa] (default 1 kPa): no volume falls below it."),
    ]),
    ("bulk_modulus_law", "β(p) = (1 + a p + b p²)/(a + 2 b p).", &[
        ("a", K::Q, true, "a [1/Pa]."),
        ("b", K::Q, true, "b [1/Pa²]."),
    ]),
    ("pressure_source", "A node at a fixed pressure.", &[
        ("name", K::Name, true, "Unique name."),
        ("pressure", K::Q, true, "Pressure [Pa], e.g. \"200 bar\"."),
    ]),
    ("volume", "A hydraulic volume.", &[
        ("name", K::Name, true, "Unique name."),
        ("volume", K::Q, true, "Volume [m³] (0 when a cylinder chamber is the whole volume)."),
        ("bulk_modulus", K::Q, false, "Effective bulk modulus of this volume [Pa]."),
        ("precharge", K::Q, false, "Initial pressure [Pa]."),
        ("initial_guess", K::Q, false, "Initial guess of the equilibrium pressure [Pa]."),
    ]),
    ("spool", "Spool of a directional valve.", &[
        ("range", K::Qs(2), true, "Command range [min, max]."),
        ("time_constant", K::Q, false, "First-order spool lag [s]."),
        ("dead_band", K::Q, false, "Dead band width."),
        ("dead_band_centre", K::Q, false, "Centre of the dead band."),
        ("command", K::Q, false, "Default command (input start value)."),
    ]),
    ("edge", "One metering edge: a coefficient, an area with a discharge coefficient, or a flow table.", &[
        ("coefficient", K::Table, false, "Flow coefficient over spool position [[x, K], ...]."),
        ("area", K::Table, false, "Opening area over spool position [[x, A], ...] [m²]."),
        ("discharge_coefficient", K::Q, false, "Discharge coefficient of the area."),
        ("flow", K::Table, false, "Rated flow over spool position [[x, Q], ...]."),
        ("compensator_margin", K::Q, false, "Pressure-compensator margin [Pa]."),
    ]),
    ("edges", "The four metering edges of a 4/3 valve.", &[
        ("PA", K::Def("edge"), false, "P → A."),
        ("PB", K::Def("edge"), false, "P → B."),
        ("AT", K::Def("edge"), false, "A → T."),
        ("BT", K::Def("edge"), false, "B → T."),
        ("PT", K::Def("edge"), false, "P → T: the neutral edge of an open-centre valve (6/3 bypass gallery), open around the centre."),
    ]),
    ("valve", "A 4/3 directional valve (command = spool position).", &[
        ("name", K::Name, true, "Unique name."),
        ("P", K::Name, true, "Pressure port node."),
        ("T", K::Name, true, "Tank port node."),
        ("A", K::Name, true, "A port node."),
        ("B", K::Name, true, "B port node."),
        ("spool", K::Def("spool"), true, "Spool dynamics."),
        ("laminar_pressure", K::Q, false, "Pressure drop below which the orifice flow is laminar [Pa]."),
        ("edges", K::Def("edges"), false, "Metering edges."),
        ("load_sense", K::Name, false, "Load-sensing section: the LS line its working port signals to (through a shuttle) once the spool opens P→A or P→B."),
        ("load_sense_coefficient", K::Q, false, "Flow coefficient K of the LS signal passage [m³/(s·√Pa)] (default 10 mm² at C_d 0.7)."),
    ]),
    ("orifice", "A throttle between two nodes.", &[
        ("name", K::Name, true, "Unique name."),
        ("from", K::Name, true, "Node."),
        ("to", K::Name, true, "Node."),
        ("area", K::Q, false, "Area [m²]."),
        ("discharge_coefficient", K::Q, false, "Discharge coefficient."),
        ("coefficient", K::Q, false, "Flow coefficient (instead of area)."),
        ("laminar_pressure", K::Q, false, "Laminar transition pressure [Pa]."),
    ]),
    ("relief_valve", "A pressure relief valve.", &[
        ("name", K::Name, true, "Unique name."),
        ("from", K::Name, true, "Protected node."),
        ("to", K::Name, true, "Tank node."),
        ("cracking_pressure", K::Q, true, "Cracking pressure [Pa]."),
        ("gain", K::Q, true, "Flow gain above cracking [m³/(s·Pa)]."),
        ("smoothing", K::Q, false, "Width of the C¹ opening blend above cracking [Pa] (default 1 bar); no flow below cracking."),
    ]),
    ("accumulator", "A gas-charged accumulator on a volume: p·V^n = precharge·volume^n above the precharge.", &[
        ("name", K::Name, true, "Unique name."),
        ("node", K::Name, true, "The volume it is connected to."),
        ("volume", K::Q, true, "Gas volume at the precharge, e.g. \"2 L\"."),
        ("precharge", K::Q, true, "Gas precharge pressure (absolute), e.g. \"50 bar\"."),
        ("polytropic_exponent", K::Q, false, "n of p·V^n (1 isothermal … 1.4 adiabatic; default 1.4)."),
    ]),
    ("check_valve", "A check (non-return) valve: flow only from `from` to `to`, shut below cracking, an orifice opened by a smoothstep up to full opening.", &[
        ("name", K::Name, true, "Unique name."),
        ("from", K::Name, true, "Inlet node."),
        ("to", K::Name, true, "Outlet node."),
        ("cracking_pressure", K::Q, true, "Pressure drop at which it starts to open [Pa], e.g. \"0.5 bar\"."),
        ("full_open_pressure", K::Q, true, "Pressure drop at which it is fully open [Pa]; above cracking."),
        ("pilot", K::Name, false, "Pilot-operated: the node whose pressure opens it (then oil may flow back)."),
        ("pilot_ratio", K::Q, false, "Pilot ratio φ (pilot piston area / seat area): opening signal Δp + φ·(p_pilot − p_from)."),
        ("coefficient", K::Q, false, "Full-open flow coefficient K [m³/(s·√Pa)] (or area + discharge_coefficient)."),
        ("area", K::Q, false, "Full-open flow area [m²]."),
        ("discharge_coefficient", K::Q, false, "Discharge coefficient (with area)."),
        ("laminar_pressure", K::Q, false, "Laminar region of the orifice law [Pa] (default 2 bar)."),
    ]),
    ("counterbalance_valve", "A counterbalance (over-centre) valve: from `load` to `valve` a poppet opened by (p_load − p_valve) + φ·(p_pilot − p_valve) over `setting`; from `valve` to `load` a free-flow check.", &[
        ("name", K::Name, true, "Unique name."),
        ("load", K::Name, true, "The chamber (volume) whose load it holds."),
        ("valve", K::Name, true, "The line to the directional valve."),
        ("pilot", K::Name, true, "The opposite line, whose pressure helps open it."),
        ("setting", K::Q, true, "Opening pressure without pilot [Pa], typically 1.3× the highest load pressure."),
        ("pilot_ratio", K::Q, true, "Pilot ratio φ (e.g. 3, 4.5, 8)."),
        ("opening_range", K::Q, false, "Pressure rise from shut to fully open [Pa] (default 20 bar)."),
        ("coefficient", K::Q, false, "Full-open flow coefficient K [m³/(s·√Pa)] of poppet and check (or area + discharge_coefficient)."),
        ("area", K::Q, false, "Full-open flow area [m²]."),
        ("discharge_coefficient", K::Q, false, "Discharge coefficient (with area)."),
        ("check_cracking_pressure", K::Q, false, "Cracking pressure of the built-in check [Pa] (default 0.5 bar)."),
        ("check_full_open_pressure", K::Q, false, "Drop at which the check is fully open [Pa] (default cracking + 2 bar)."),
        ("laminar_pressure", K::Q, false, "Laminar region of the orifice law [Pa] (default 2 bar)."),
    ]),
    ("pump", "A fixed-displacement pump.", &[
        ("name", K::Name, true, "Unique name."),
        ("inlet", K::Name, true, "Inlet node."),
        ("outlet", K::Name, true, "Outlet node."),
        ("displacement", K::Q, true, "Displacement, e.g. \"28 cm3/rev\"."),
        ("speed", K::Q, true, "Shaft speed, e.g. \"1500 rpm\"."),
        ("volumetric_efficiency", K::Q, false, "Volumetric efficiency."),
    ]),
    ("load_sensing_pump", "A variable-displacement pump with a load-sensing regulator and pressure cut-off: ε* = sat(½ + min(p_LS + margin − p, cutoff − p)/regulator_band), τ ε̇ = ε* − ε, Q = ε·D·ω/2π − leakage·Δp.", &[
        ("name", K::Name, true, "Unique name."),
        ("inlet", K::Name, true, "Inlet node (tank)."),
        ("outlet", K::Name, true, "Outlet node (a volume: the pump line)."),
        ("load_sense", K::Name, true, "The LS line: the node whose pressure the pump stays `margin` above."),
        ("displacement", K::Q, true, "Maximum displacement, e.g. \"45 cm3/rev\"."),
        ("speed", K::Q, true, "Shaft speed, e.g. \"1800 rpm\"."),
        ("margin", K::Q, true, "LS margin Δp_LS (flow controller setting), e.g. \"20 bar\"."),
        ("cutoff", K::Q, true, "Pressure cut-off (absolute), e.g. \"250 bar\"."),
        ("regulator_band", K::Q, false, "Regulator droop: pressure error from zero to full displacement [Pa] (default 1 bar)."),
        ("time_constant", K::Q, false, "Swash-plate lag τ [s] (default 40 ms)."),
        ("leakage", K::Q, false, "Internal leakage conductance [m³/(s·Pa)] (default 1e-12); must be positive."),
    ]),
    ("leakage", "A laminar leakage between two nodes.", &[
        ("name", K::Name, true, "Unique name."),
        ("from", K::Name, true, "Node."),
        ("to", K::Name, true, "Node."),
        ("conductance", K::Q, true, "Conductance [m³/(s·Pa)]."),
    ]),
    ("friction", "Cylinder friction model.", &[
        ("model", K::Enum(&[ "viscous", "bengisu-akay", "brown-mcphee", "lugre", "modified-lugre", "selectable"]), true, "Friction model; selectable = the four models behind an Integer parameter."),
        ("default", K::Enum(&[ "viscous", "bengisu-akay", "brown-mcphee", "lugre", "modified-lugre", "selectable"]), false, "Start model of a selectable friction."),
        ("coefficient", K::Q, false, "Viscous coefficient [N·s/m]."),
        ("coulomb", K::Q, false, "Coulomb force [N]."),
        ("stiction", K::Q, false, "Static force [N]."),
        ("stribeck_velocity", K::Q, false, "Stribeck velocity [m/s]."),
        ("viscous", K::Q, false, "Viscous coefficient [N·s/m]."),
        ("shape", K::Q, false, "Shape factor."),
        ("exponent", K::Q, false, "Stribeck exponent."),
        ("bristle_stiffness", K::Q, false, "LuGre bristle stiffness [N/m]."),
        ("bristle_damping", K::Q, false, "LuGre bristle damping [N·s/m]."),
        ("threshold_velocity", K::Q, false, "Threshold velocity [m/s]."),
        ("tau_acceleration", K::Q, false, "Modified LuGre time constant when accelerating [s]."),
        ("tau_deceleration", K::Q, false, "Modified LuGre time constant when decelerating [s]."),
        ("tau_dwell", K::Q, false, "Modified LuGre dwell time constant [s]."),
        ("dwell_velocity", K::Q, false, "Modified LuGre dwell velocity [m/s]."),
    ]),
    ("cushion", "End-of-stroke cushion.", &[
        ("length", K::Q, false, "Cushion length [m]."),
        ("stiffness", K::Q, false, "Stiffness [N/m]."),
        ("damping", K::Q, false, "Damping [N·s/m]."),
    ]),
    ("cylinder", "A hydraulic cylinder between two body points.", &[
        ("name", K::Name, true, "Unique name."),
        ("cap", K::Def("point"), true, "Cap-end pin."),
        ("rod", K::Def("point"), true, "Rod-end pin."),
        ("bore", K::Q, false, "Bore diameter [m]."),
        ("rod_diameter", K::Q, false, "Rod diameter [m]."),
        ("cap_area", K::Q, false, "Cap-side area [m²] (instead of bore)."),
        ("rod_area", K::Q, false, "Rod-side annulus area [m²] (instead of rod_diameter)."),
        ("stroke", K::Q, true, "Stroke [m]."),
        ("retracted_length", K::Q, true, "Pin-to-pin length fully retracted [m]."),
        ("cap_dead_volume", K::Q, false, "Cap-side dead volume [m³]."),
        ("rod_dead_volume", K::Q, false, "Rod-side dead volume [m³]."),
        ("cap_volume", K::Name, true, "Hydraulic volume of the cap chamber (or a pressure source it is vented to)."),
        ("rod_volume", K::Name, true, "Hydraulic volume of the rod chamber, or a pressure source it is vented to (\"tank\": single-acting or plunger cylinder)."),
        ("wall_bulk_modulus", K::Q, false, "Wall compliance as a bulk modulus [Pa]."),
        ("friction", K::Def("friction"), false, "Friction model."),
        ("cushion", K::Def("cushion"), false, "End cushions."),
        ("make_up", K::Name, false, "Anti-cavitation: a make-up check valve `<cylinder>_make_up_cap|rod` from this node (the tank) into each chamber volume."),
    ]),
    ("motor", "A hydraulic motor driving a revolute joint.", &[
        ("name", K::Name, true, "Unique name."),
        ("joint", K::Name, true, "Driven joint."),
        ("A", K::Name, true, "A port node."),
        ("B", K::Name, true, "B port node."),
        ("displacement", K::Q, true, "Displacement, e.g. \"50 cm3/rev\"."),
        ("gear_ratio", K::Q, false, "Gear ratio motor:joint."),
        ("leakage", K::Q, false, "Leakage conductance [m³/(s·Pa)]."),
        ("friction", K::Q, false, "Viscous friction [N·m·s/rad]."),
        ("make_up", K::Name, false, "Anti-cavitation: a make-up check valve `<motor>_make_up_a|b` from this node (the tank) into each line volume."),
    ]),
    ("interface", "The FMI variables.", &[
        ("inputs", K::Defs("input"), false, "FMI inputs bound to parameter slots."),
        ("parameters", K::Defs("parameter"), false, "FMI parameters bound to parameter slots."),
        ("outputs", K::Defs("output"), false, "FMI outputs bound to computed quantities."),
        ("ports", K::Defs("port"), false, "Joint, hydraulic and shaft ports for co-simulation."),
        ("mount", K::Def("mount"), false, "A carrier's mount: the wrench of a carried machine in (`<name>.force|moment.*`, mount axes), the mount frame's motion out (`<name>.position|orientation|velocity|angular_velocity|acceleration|angular_acceleration.*`, world axes: the inputs of the carried machine's [interface.base]), `<name>.power`, `<name>.work`."),
        ("base", K::Def("base_port"), false, "The base port: a carrier moves the machine's ground frame (inputs `<name>.position|orientation|velocity|angular_velocity|acceleration|angular_acceleration.*`, world axes) and gets the wrench the machine exerts on it (outputs `<name>.force|moment.*` in base axes, `<name>.power`, `<name>.work`)."),
    ]),
    ("port", "A coupling port: an effort/flow pair with one side in and the other out, its power and work as outputs.", &[
        ("name", K::Name, true, "Prefix of the port's FMI variables."),
        ("type", K::Enum(&["joint-force", "joint-motion", "flow", "pressure", "tlm", "shaft"]), true, "joint-force: `<name>.torque|force` in, `<name>.speed` out (a revolute/prismatic tree joint); joint-motion: `<name>.q`, `<name>.qd`, `<name>.qdd` in (followed as q + q̇τ + q̈τ²/2 inside a step), the drive's `<name>.torque|force` out (augmented-Lagrangian formulation); flow: `<name>.flow` into a volume in, `<name>.pressure` out; pressure: a pressure source's `<name>.pressure` in, `<name>.flow` into the machine out; tlm: a line's wave `<name>.wave` and impedance `<name>.impedance` in, `<name>.flow` = (c − p)/Zc and `<name>.pressure` out (a volume); shaft: a fixed pump's `<name>.speed` in, `<name>.torque` out. Every port also has `<name>.power` and `<name>.work`."),
        ("on", K::Name, true, "The joint, volume, pressure source or pump the port is on (one port each)."),
        ("flow", K::Q, false, "Start value of a flow port's inflow (default 0)."),
        ("wave", K::Q, false, "Start value of a TLM port's wave variable c (default 1 bar)."),
        ("impedance", K::Q, false, "Start value of a TLM port's impedance Zc, e.g. \"1e10 Pa s/m3\" (default that)."),
    ]),
    ("mount", "A frame on a carrier body where a carried machine stands (body axes).", &[
        ("body", K::Name, true, "The carrier body."),
        ("origin", K::V3, false, "Frame origin in body coordinates [m]; default the body origin."),
        ("name", K::Name, false, "Prefix of the mount's FMI variables; default \"mount\"."),
    ]),
    ("base_port", "The machine's ground frame as a port to its carrier.", &[
        ("motion", K::Enum(&["carrier"]), true, "Who moves the base: \"carrier\" (its pose, twist and acceleration are inputs)."),
        ("reference", K::V3, false, "Base-frame point about which the moment on the carrier is reported [m]; default the origin."),
        ("name", K::Name, false, "Prefix of the port's FMI variables; default \"base\"."),
    ]),
    ("carries", "Another machine description standing on this carrier's [interface.mount] (its ground frame is the mount frame).", &[
        ("model", K::Name, true, "The carried machine's description file, relative to this one."),
        ("name", K::Name, false, "Its component name in the split (`<file>.<name>.fmu`, model `<model>-<name>`); default \"carried\"."),
    ]),
    ("estimator", "The sensors of an estimator FMU and how far its model is trusted.", &[
        ("acceleration_noise", K::Q, false, "σ_z̈: continuous-time intensity of the acceleration noise of each independent joint coordinate, SI (rad/s² or m/s² times √s); default 1."),
        ("pressure_noise", K::Q, false, "σ_p: continuous-time intensity of the pressure noise per √s (\"1 bar\" = 1e5 Pa/√s); default 1 bar."),
        ("initial_coordinate_sigma", K::Q, false, "Initial standard deviation of the independent coordinates (rad or m); default 0.01."),
        ("initial_rate_sigma", K::Q, false, "Initial standard deviation of their rates (rad/s or m/s); default 0.01."),
        ("initial_pressure_sigma", K::Q, false, "Initial standard deviation of the pressures; default 1 bar."),
        ("load_noise", K::Q, false, "Estimate load errors: the intensity of a random-walk generalized force on each independent joint (N·m/√s or N/√s) that the model carries; default none."),
        ("initial_load_sigma", K::Q, false, "Initial standard deviation of the load errors (N·m or N); default 0."),
        ("innovation_gate", K::Q, false, "Skip a sample whose innovation exceeds this many of its predicted standard deviations (a number, e.g. 10); default 0: every sample is used."),
        ("sensors", K::Defs("sensor"), false, "The measured quantities."),
    ]),
    ("sensor", "One measured quantity: FMU inputs `sensor.<name>` and `sensor.<name>.valid`.", &[
        ("name", K::Name, true, "The sensor's name (letters, digits, '_')."),
        ("measures", K::Name, true, "The quantity, as an interface output's: a joint coordinate (\"lift.q\"), a body's angular rate (\"boom.angular_velocity.z\"), a pressure (\"cap_side.p\"), a cylinder's length or a marker's position (\"tip.position.y\")."),
        ("sigma", K::Q, true, "Noise standard deviation in the quantity's unit (\"0.05 deg\", \"2 bar\")."),
        ("rate", K::Q, false, "Sample rate (\"100 Hz\"); default: a sample at every step whose flag is set."),
        ("bias_noise", K::Q, false, "Estimate the sensor's bias (an offset it reads on top of the model's value): the intensity of its random walk, the quantity's unit per √s; default none."),
        ("initial_bias_sigma", K::Q, false, "Initial standard deviation of the bias (the quantity's unit); default 0."),
    ]),
    ("report", "The standard manoeuvre and plots of `hydromech report` (documentation only).", &[
        ("stop_time", K::Q, false, "End of the run [s]; default [experiment] stop_time."),
        ("step", K::Q, false, "Communication step of the run [s]; default [experiment] step_size."),
        ("view", K::Name, false, "Drawing plane: world axes horizontal then vertical, e.g. \"xy\" (default: the axis along gravity is vertical)."),
        ("inputs", K::TableOrDefMap("report_csv_input"), false, "FMI input name → schedule [[t, value], ...] (piecewise linear, a repeated time is a step) or a CSV column."),
        ("parameters", K::QMap, false, "FMI parameter name → value set before initialization."),
        ("plots", K::Defs("report_plot"), false, "Plots of the run; default: the outputs grouped by unit."),
    ]),
    ("report_csv_input", "An input read from a CSV column.", &[
        ("csv", K::Name, true, "CSV file (header row), relative to the description file."),
        ("time", K::Name, false, "Time column [s]; default the first column."),
        ("column", K::Name, true, "Value column."),
        ("scale", K::Q, false, "Factor applied to the column (default 1)."),
        ("unit", K::Name, false, "Unit of the scaled column; default the input's SI unit."),
    ]),
    ("report_plot", "One plot: signals sharing a y axis, optional reference curves.", &[
        ("title", K::Text, false, "Title; default the signal names."),
        ("signals", K::Names, true, "FMI variables plotted."),
        ("unit", K::Name, false, "Display unit of the y axis (\"deg\", \"bar\", \"mm\", \"L/min\"); default SI."),
        ("references", K::Defs("report_reference"), false, "Reference curves from CSV columns, compared with the signals (RMS, max difference)."),
    ]),
    ("report_reference", "A reference curve from a CSV column.", &[
        ("csv", K::Name, true, "CSV file (header row), relative to the description file."),
        ("time", K::Name, false, "Time column [s]; default the first column."),
        ("column", K::Name, true, "Value column."),
        ("label", K::Text, false, "Legend text; default the column name."),
        ("signal", K::Name, false, "The plotted signal it is compared with; default the plot's only signal."),
        ("scale", K::Q, false, "Factor applied to the column (default 1)."),
        ("unit", K::Name, false, "Unit of the scaled column; default the plot's unit."),
    ]),
    ("input", "An FMI input bound to a parameter slot (e.g. valve.command).", &[
        ("name", K::Name, true, "FMI name (structured, e.g. boom.valve.command)."),
        ("target", K::Name, true, "Parameter slot."),
        ("description", K::Text, false, "FMI description."),
        ("unit", K::Name, false, "FMI unit (coherent SI); default from the target's dimension."),
        ("min", K::Q, false, "Minimum."),
        ("max", K::Q, false, "Maximum."),
    ]),
    ("parameter", "An FMI parameter bound to a parameter slot.", &[
        ("name", K::Name, true, "FMI name."),
        ("target", K::Name, true, "Parameter slot (any numeric field, e.g. boom.mass)."),
        ("description", K::Text, false, "FMI description."),
        ("unit", K::Name, false, "FMI unit."),
        ("variability", K::Enum(&["fixed", "tunable"]), false, "Default fixed."),
        ("min", K::Q, false, "Minimum."),
        ("max", K::Q, false, "Maximum."),
    ]),
    ("output", "An FMI output bound to a computed quantity (cylinder.length, pivot.q, ...).", &[
        ("name", K::Name, true, "FMI name."),
        ("quantity", K::Name, true, "Computed quantity."),
        ("description", K::Text, false, "FMI description."),
    ]),
];

/// The top-level keys.
#[rustfmt::skip]
const ROOT: &[F] = &[
    ("model", K::Def("model"), true, "Identity and metadata."),
    ("experiment", K::Def("experiment"), false, "FMI DefaultExperiment."),
    ("solver", K::Def("solver"), false, "Integrator settings."),
    ("init", K::Def("init"), false, "Initial state."),
    ("bodies", K::Defs("body"), false, "Rigid bodies, each with the joint to its parent (a tree)."),
    ("markers", K::Defs("marker"), false, "Named points on bodies."),
    ("cut_joints", K::Defs("cut_joint"), false, "Joints that close loops."),
    ("spring_dampers", K::Defs("spring_damper"), false, "Spring–dampers."),
    ("point_forces", K::Defs("point_force"), false, "External forces."),
    ("ropes", K::Defs("rope"), false, "Winch ropes from a drum over sheaves to a hook."),
    ("force_actuators", K::Defs("force_actuator"), false, "Linear actuators whose force is an FMI input."),
    ("contact", K::Def("contact"), false, "The ground the collision shapes touch and their default material."),
    ("hydraulics", K::Def("hydraulics"), false, "The hydraulic circuit."),
    ("interface", K::Def("interface"), false, "The FMI interface."),
    ("report", K::Def("report"), false, "Standard manoeuvre and plots of `hydromech report`."),
    ("carries", K::Def("carries"), false, "A machine from another description standing on [interface.mount]: one FMU of both, or with `hydromech build --split base` two FMUs and an SSP archive."),
    ("estimator", K::Def("estimator"), false, "Sensors and plant noise of the error-state Kalman filter of `hydromech build --estimator` (seed 001, ch. 3)."),
];

fn kind(k: K, doc: &str) -> Value {
    let quantity = json!({ "$ref": "#/$defs/quantity" });
    let mut v = match k {
        K::Q => quantity,
        K::V3 => json!({ "$ref": "#/$defs/vec3" }),
        K::Qs(n) => json!({ "type": "array", "items": quantity, "minItems": n, "maxItems": n }),
        K::Name => json!({ "type": "string", "minLength": 1 }),
        K::Text => json!({ "type": "string" }),
        K::Bool => json!({ "type": "boolean" }),
        K::Int => json!({ "type": "integer" }),
        K::Enum(values) => json!({ "enum": values }),
        K::Def(d) => json!({ "$ref": format!("#/$defs/{d}") }),
        K::Defs(d) => json!({ "type": "array", "items": { "$ref": format!("#/$defs/{d}") } }),
        K::Table => json!({ "type": "array", "items": {
            "type": "array", "items": quantity, "minItems": 2, "maxItems": 2 } }),
        K::Names => json!({ "type": "array", "items": { "type": "string" } }),
        K::QOrQs => json!({ "anyOf": [quantity, { "type": "array", "items": quantity }] }),
        K::QOrDef(d) => json!({ "anyOf": [quantity, { "$ref": format!("#/$defs/{d}") }] }),
        K::DefsOrWord(d, words) => json!({ "anyOf": [
            { "type": "array", "items": { "$ref": format!("#/$defs/{d}") } },
            { "enum": words },
        ] }),
        K::QOrQsOrDef(d) => json!({ "anyOf": [
            quantity,
            { "type": "array", "items": quantity },
            { "$ref": format!("#/$defs/{d}") },
        ] }),
        K::V3s => json!({ "type": "array", "items": { "$ref": "#/$defs/vec3" } }),
        K::QMap => json!({ "type": "object", "additionalProperties": quantity }),
        K::TableOrDefMap(d) => json!({ "type": "object", "additionalProperties": { "anyOf": [
            { "type": "array", "items": {
                "type": "array", "items": quantity, "minItems": 2, "maxItems": 2 } },
            { "$ref": format!("#/$defs/{d}") },
        ] } }),
    };
    if let Value::Object(m) = &mut v {
        m.insert("description".into(), doc.into());
    }
    v
}

fn object(doc: &str, fields: &[F]) -> Value {
    let mut properties = Map::new();
    for &(name, k, _, d) in fields {
        properties.insert(name.into(), kind(k, d));
    }
    let required: Vec<&str> = fields.iter().filter(|f| f.2).map(|f| f.0).collect();
    json!({
        "type": "object",
        "description": doc,
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The schema as a JSON value.
pub fn schema() -> Value {
    let mut defs = Map::new();
    defs.insert(
        "quantity".into(),
        json!({
            "description": "A number in SI units, or a string with a unit: \"200 bar\", \"80 mm\", \"40 L/min\", \"30 deg\" (a string without a unit is an error).",
            "anyOf": [
                { "type": "number" },
                { "type": "string", "pattern": "^\\s*[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?\\s*[^\\s\\d.eE+-].*$" }
            ]
        }),
    );
    defs.insert(
        "vec3".into(),
        json!({
            "description": "A 3-vector [x, y, z] of quantities.",
            "type": "array", "items": { "$ref": "#/$defs/quantity" }, "minItems": 3, "maxItems": 3
        }),
    );
    for &(name, doc, fields) in DEFS {
        defs.insert(name.into(), object(doc, fields));
    }
    let mut root = object(
        "A hydromech machine description (TOML): bodies and joints, the hydraulic circuit and the FMI interface.",
        ROOT,
    );
    let m = root.as_object_mut().expect("an object");
    m.insert(
        "$schema".into(),
        "https://json-schema.org/draft/2020-12/schema".into(),
    );
    m.insert(
        "$id".into(),
        "https://hydromech.invalid/schema/description.json".into(),
    );
    m.insert("title".into(), "hydromech machine description".into());
    m.insert("$defs".into(), Value::Object(defs));
    root
}

/// Pretty-printed JSON.
pub fn render() -> String {
    serde_json::to_string_pretty(&schema()).expect("a JSON value serializes")
}

#[cfg(test)]
mod tests {

    /// A string quantity must carry a unit (issue 48): the schema flags `"0.6"` in the
    /// editor as the compiler does.
    #[test]
    fn the_quantity_pattern_requires_a_unit() {
        let schema = schema();
        let pattern = schema["$defs"]["quantity"]["anyOf"][1]["pattern"]
            .as_str()
            .unwrap();
        let re = regex::Regex::new(pattern).unwrap();
        for with_unit in [
            "200 bar",
            "80 mm",
            "1e5 N s/m",
            "-5 deg",
            "30 °",
            "1e-11 m3/(s Pa)",
            ".5 L",
            "12 kg·m²",
        ] {
            assert!(re.is_match(with_unit), "{with_unit}");
        }
        for without in ["0.6", " 0.6 ", "1e5", "-3", "bar"] {
            assert!(!re.is_match(without), "{without}");
        }
    }
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    /// Every key of `value` is a property of `schema` (following `$ref`, `items` and
    /// `anyOf`); returns the unknown key paths.
    fn unknown_keys(
        root: &Value,
        schema: &Value,
        value: &Value,
        path: &str,
        out: &mut Vec<String>,
    ) {
        let schema = match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => &root["$defs"][r.trim_start_matches("#/$defs/")],
            None => schema,
        };
        if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
            let matching = any.iter().find(|s| {
                let s = match s.get("$ref").and_then(Value::as_str) {
                    Some(r) => &root["$defs"][r.trim_start_matches("#/$defs/")],
                    None => s,
                };
                match value {
                    Value::Object(_) => s["type"] == "object",
                    Value::Array(_) => s["type"] == "array",
                    _ => true,
                }
            });
            match matching {
                Some(s) => unknown_keys(root, s, value, path, out),
                None => out.push(format!("{path}: no alternative fits")),
            }
            return;
        }
        match value {
            Value::Object(m) => {
                for (k, v) in m {
                    let open = schema.get("additionalProperties").filter(|a| a.is_object());
                    match schema["properties"].get(k).or(open) {
                        Some(s) => unknown_keys(root, s, v, &format!("{path}.{k}"), out),
                        None => out.push(format!("{path}.{k}")),
                    }
                }
                if let Some(req) = schema["required"].as_array() {
                    for r in req {
                        if !m.contains_key(r.as_str().unwrap()) {
                            out.push(format!("{path}: missing required {r}"));
                        }
                    }
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    unknown_keys(root, &schema["items"], v, &format!("{path}[{i}]"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn the_schema_is_draft_2020_12_json() {
        let text = render();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(v["required"], json!(["model"]));
        assert_eq!(v["$defs"]["body"]["additionalProperties"], false);
        assert!(v["$defs"]["cylinder"]["properties"]["stroke"]["description"].is_string());
    }

    #[test]
    fn every_model_key_is_in_the_schema() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        let schema = schema();
        let mut checked = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let toml: toml::Value = toml::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let json = serde_json::to_value(&toml).unwrap();
            let mut out = Vec::new();
            unknown_keys(&schema, &schema, &json, "", &mut out);
            assert!(
                out.is_empty(),
                "{}: not in the schema: {out:?}",
                path.display()
            );
            checked += 1;
        }
        assert!(checked >= 3, "only {checked} models in {}", dir.display());
        // And a misspelt key is caught.
        let bad = json!({ "model": { "name": "x" }, "bodies": [{ "nmae": "b" }] });
        let mut out = Vec::new();
        unknown_keys(&schema, &schema, &bad, "", &mut out);
        assert!(out.contains(&".bodies[0].nmae".to_string()), "{out:?}");
    }

    /// Each description struct (from its source, with serde renames) has exactly the fields
    /// of its schema definition: the struct `FooBarDesc` is `$defs/foo_bar`, apart from the
    /// few named below; a struct without a definition, or a definition without a struct,
    /// fails too.
    #[test]
    fn every_description_struct_is_its_schema_definition() {
        let sources = [
            include_str!("description/mod.rs"),
            include_str!("description/mechanism.rs"),
            include_str!("description/flexible.rs"),
            include_str!("description/hydraulics.rs"),
            include_str!("description/quantity.rs"),
            include_str!("description/report.rs"),
            include_str!("description/estimator.rs"),
            include_str!("description/contact.rs"),
        ];
        let mut structs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for src in sources {
            let mut rename: Option<String> = None;
            let mut current: Option<String> = None;
            for line in src.lines() {
                let t = line.trim();
                if let Some(rest) = t.strip_prefix("pub struct ")
                    && t.ends_with('{')
                {
                    let name: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
                    current = (!t.contains("Located") && !t.contains("Visitor")).then_some(name);
                    if let Some(n) = &current {
                        structs.entry(n.clone()).or_default();
                    }
                } else if t == "}" {
                    current = None;
                } else if let Some(n) = &current {
                    if let Some(r) = t.strip_prefix("#[serde(rename = \"") {
                        rename = r.split('"').next().map(String::from);
                    } else if let Some(f) = t.strip_prefix("pub ") {
                        let field = f.split(':').next().unwrap().to_string();
                        let field = rename.take().unwrap_or(field);
                        structs.get_mut(n).unwrap().insert(field);
                    }
                }
            }
        }
        // Structs whose definition is not named after them ("" is the root table).
        let named: BTreeMap<&str, &str> = [
            ("Description", ""),
            ("ExperimentSection", "experiment"),
            ("InitSection", "init"),
            ("ModelSection", "model"),
            ("SolverSection", "solver"),
            ("NodeDesc", "flexible_node"),
            ("SourceDesc", "pressure_source"),
            ("CsvInputDesc", "report_csv_input"),
            ("PlotDesc", "report_plot"),
            ("ContactSection", "contact"),
            ("BodiesDesc", "contact_bodies"),
            ("ReferenceDesc", "report_reference"),
        ]
        .into();
        let schema = schema();
        let defs = schema["$defs"].as_object().unwrap();
        let keys = |v: &Value| -> BTreeSet<String> {
            v["properties"]
                .as_object()
                .map_or_else(BTreeSet::new, |p| p.keys().cloned().collect())
        };
        let mut problems = Vec::new();
        let mut covered = BTreeSet::new();
        for (name, fields) in &structs {
            let def = named
                .get(name.as_str())
                .map_or_else(|| snake(name), |d| d.to_string());
            let in_schema = if def.is_empty() {
                keys(&schema)
            } else if let Some(d) = defs.get(&def) {
                keys(d)
            } else {
                problems.push(format!("{name}: no schema definition '{def}'"));
                continue;
            };
            covered.insert(def.clone());
            for f in fields.difference(&in_schema) {
                problems.push(format!("{name}.{f}: not in $defs/{def}"));
            }
            for f in in_schema.difference(fields) {
                problems.push(format!("$defs/{def}.{f}: no field of {name}"));
            }
        }
        for def in defs.keys() {
            if !covered.contains(def) && def != "quantity" && def != "vec3" {
                problems.push(format!("$defs/{def}: no description struct"));
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    /// `FooBarDesc` → `foo_bar`.
    fn snake(name: &str) -> String {
        let name = name.strip_suffix("Desc").unwrap_or(name);
        let mut out = String::new();
        for (i, c) in name.chars().enumerate() {
            if c.is_uppercase() && i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        }
        out
    }
}

//! Rigid bodies in a tree of relative joints, plus cut joints that close loops.

use super::{FlexibleBody, ParamId};
use serde::{Deserialize, Serialize};

/// A rigid transform: `x_parent = rotation · x_child + origin`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    pub origin: [f64; 3],
    /// Unit quaternion `[w, x, y, z]`.
    pub rotation: [f64; 4],
}

impl Frame {
    pub const IDENTITY: Frame = Frame {
        origin: [0.0; 3],
        rotation: [1.0, 0.0, 0.0, 0.0],
    };
}

/// The joint that connects a body to its parent in the kinematic tree.
/// Spherical and universal joints are compositions of revolutes through massless bodies
/// (built by the compiler), so every joint coordinate is a scalar.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum JointKind {
    /// Rotation about `axis` (unit, joint frame) through the joint-frame origin.
    Revolute { axis: [f64; 3] },
    /// Translation along `axis` (unit, joint frame).
    Prismatic { axis: [f64; 3] },
    /// Rigid attachment, no coordinate.
    Fixed,
    /// Interface node `node` of flexible body `flexible` (an index into
    /// [`Mechanism::flexible`]); the parent is that body. A massless frame that follows the
    /// node's deformation, translation and rotation, and carries what is attached there.
    /// No coordinate of its own: its motion is the parent's modal coordinates'.
    Node { flexible: usize, node: usize },
}

impl JointKind {
    pub fn dof(&self) -> usize {
        match self {
            JointKind::Fixed | JointKind::Node { .. } => 0,
            _ => 1,
        }
    }
}

/// A rigid body and the tree joint that moves it.
///
/// The body frame equals the joint frame displaced by the joint motion:
/// `X_body = X_parent · joint_frame · motion(q)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Body {
    pub name: String,
    /// Parent body; `None` is ground. Parents always precede children.
    pub parent: Option<usize>,
    pub joint: JointKind,
    /// Name of the joint (for diagnostics and the FMI interface).
    pub joint_name: String,
    /// Pose of the joint frame in the parent body frame (or in the world for ground).
    pub joint_frame: Frame,
    /// Initial joint coordinate [rad or m].
    pub q0: ParamId,
    pub mass: ParamId,
    /// Centre of mass in body coordinates [m].
    pub com: [f64; 3],
    /// Inertia tensor about the centre of mass in body axes:
    /// `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]` [kg·m²] (tensor components, not products of inertia
    /// with a sign convention: `Ixy` is the (0,1) entry of the tensor).
    pub inertia: [f64; 6],
}

/// A point fixed on a body (`None` = ground), in body coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointRef {
    pub body: Option<usize>,
    pub point: [f64; 3],
}

/// A named point whose motion can be an FMI output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    pub name: String,
    pub point: PointRef,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum CutKind {
    /// Point `a` coincides with point `b` (3 equations).
    Spherical,
    /// Spherical plus the hinge axes `axis_a` (body a) and `axis_b` (body b) stay parallel
    /// (2 more equations).
    Revolute { axis_a: [f64; 3], axis_b: [f64; 3] },
    /// Point `a` stays on the line through `b` along `axis_b` (2 equations) and the
    /// bodies do not rotate relative to each other (3 equations).
    Prismatic { axis_b: [f64; 3] },
}

/// A joint removed from the tree to open a kinematic loop, imposed as constraints Φ(z)=0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CutJoint {
    pub name: String,
    pub kind: CutKind,
    pub a: PointRef,
    pub b: PointRef,
}

impl CutJoint {
    pub fn equations(&self) -> usize {
        match self.kind {
            CutKind::Spherical => 3,
            CutKind::Revolute { .. } | CutKind::Prismatic { .. } => 5,
        }
    }
}

/// Linear spring–damper between two points, acting along the line joining them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpringDamper {
    pub name: String,
    pub a: PointRef,
    pub b: PointRef,
    pub stiffness: ParamId,
    pub damping: ParamId,
    pub free_length: ParamId,
}

/// A force given in world axes at a body point (e.g. an FMI input).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointForce {
    pub name: String,
    pub point: PointRef,
    pub force: [ParamId; 3],
}

/// End stops of the tree joint of `body` (revolute or prismatic): see
/// [`crate::mechanics::end_stop`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointLimit {
    pub body: usize,
    /// Lower and upper limit of the coordinate [rad or m].
    pub lower: ParamId,
    pub upper: ParamId,
    /// Stiffness [N·m/rad or N/m] and damping [N·m·s/rad or N·s/m] beyond a limit.
    pub stiffness: ParamId,
    pub damping: ParamId,
}

/// A winch rope: from a drum on a revolute tree joint over sheaves to a hook (see
/// [`crate::mechanics::rope`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rope {
    pub name: String,
    /// The body that is the drum: its revolute tree joint's angle q pays out `r·q`.
    pub drum: usize,
    pub drum_radius: ParamId,
    /// Where the rope leaves the drum (a point of the drum's parent), the sheaves it runs
    /// over, and the hook point, in order.
    pub path: Vec<PointRef>,
    /// Unstretched rope out at q = 0 [m].
    pub length: ParamId,
    /// Axial stiffness EA [N]: the rope's stiffness is EA over the rope out.
    pub axial_stiffness: ParamId,
    /// Damping of the stretch [N·s/m].
    pub damping: ParamId,
}

/// A linear actuator whose force is a parameter (an FMI input): the mechanical side of a
/// cylinder whose hydraulics run elsewhere, or an electric actuator under an outside
/// controller. It pushes `a` and `b` apart along the line joining them (negative pulls).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForceActuator {
    pub name: String,
    pub a: PointRef,
    pub b: PointRef,
    pub force: ParamId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ForceElement {
    SpringDamper(SpringDamper),
    PointForce(PointForce),
    /// Last ones, so that models without them keep their serialized encoding.
    JointLimit(JointLimit),
    Rope(Rope),
    ForceActuator(ForceActuator),
}

/// The base port of a carrier-driven machine: the tree's ground frame moves as the
/// carrier's inputs say (see [`crate::mechanics::base`]), and the machine reports the
/// wrench it exerts on the carrier. Motion inputs are in world axes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CarrierBase {
    /// World position of the base origin [m].
    pub position: [ParamId; 3],
    /// Base → world rotation, quaternion `[w, x, y, z]` (normalised when read).
    pub orientation: [ParamId; 4],
    /// Velocity of the base origin [m/s] and angular velocity of the base [rad/s].
    pub velocity: [ParamId; 3],
    pub angular_velocity: [ParamId; 3],
    /// Acceleration of the base origin [m/s²] and angular acceleration [rad/s²].
    pub acceleration: [ParamId; 3],
    pub angular_acceleration: [ParamId; 3],
    /// Point of the base frame about which the reaction moment is reported [m].
    pub reference: [f64; 3],
}

impl CarrierBase {
    pub fn params(&self) -> impl Iterator<Item = ParamId> + '_ {
        self.position
            .iter()
            .chain(&self.orientation)
            .chain(&self.velocity)
            .chain(&self.angular_velocity)
            .chain(&self.acceleration)
            .chain(&self.angular_acceleration)
            .copied()
    }
}

/// Three revolutes about z, y and x in a chain (the yaw, pitch and roll bodies of a
/// spherical joint or of a free joint's rotation; the last is the real body): see
/// [`crate::mechanics::zyx`]. The runtime re-charts them near gimbal lock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZyxRotation {
    /// The joint's name.
    pub name: String,
    pub bodies: [usize; 3],
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mechanism {
    pub bodies: Vec<Body>,
    pub cut_joints: Vec<CutJoint>,
    pub markers: Vec<Marker>,
    pub forces: Vec<ForceElement>,
    /// A carrier moves the base frame; `None`: the base is the fixed world.
    pub base: Option<CarrierBase>,
    /// The z-y-x compositions among the bodies.
    #[serde(default)]
    pub rotations: Vec<ZyxRotation>,
    /// Flexible bodies, their modal coordinates after every joint coordinate in z.
    #[serde(default)]
    pub flexible: Vec<FlexibleBody>,
    /// Collision shapes and what they touch.
    #[serde(default)]
    pub contacts: super::Contacts,
}

impl Mechanism {
    /// Number of coordinates z: the joints', then the flexible bodies' modal coordinates.
    pub fn coordinates(&self) -> usize {
        self.joint_coordinates() + self.flexible.iter().map(FlexibleBody::modes).sum::<usize>()
    }

    /// Number of joint coordinates (the first ones in z).
    pub fn joint_coordinates(&self) -> usize {
        self.bodies.iter().map(|b| b.joint.dof()).sum()
    }

    /// The initial coordinates at parameters `p`: every joint's `q0`, the modal coordinates
    /// zero (the undeformed bodies).
    pub fn initial_coordinates(&self, p: &[f64]) -> Vec<f64> {
        let mut z: Vec<f64> = self
            .bodies
            .iter()
            .filter(|b| b.joint.dof() == 1)
            .map(|b| p[b.q0.index()])
            .collect();
        z.resize(self.coordinates(), 0.0);
        z
    }

    /// Index in z of the first modal coordinate of flexible body `f`.
    pub fn modal_start(&self, f: usize) -> usize {
        self.joint_coordinates()
            + self.flexible[..f]
                .iter()
                .map(FlexibleBody::modes)
                .sum::<usize>()
    }

    /// The modal stiffness ω² of every modal coordinate, in z order (floored at 1e-300, so
    /// that it divides).
    pub fn modal_stiffness(&self) -> Vec<f64> {
        (self.flexible.iter())
            .flat_map(|f| f.stiffness.iter().map(|k| k.max(1e-300)))
            .collect()
    }

    /// Index of each body's joint coordinate in z (`None` for a fixed joint).
    pub fn coordinate_indices(&self) -> Vec<Option<usize>> {
        let mut next = 0;
        self.bodies
            .iter()
            .map(|b| {
                (b.joint.dof() == 1).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    }

    /// The ropes among the force elements, in order.
    pub fn ropes(&self) -> impl Iterator<Item = &Rope> {
        self.forces.iter().filter_map(|f| match f {
            ForceElement::Rope(r) => Some(r),
            _ => None,
        })
    }

    /// Bodies `[yaw, pitch, roll]`: each the child of the one before, turning about z, y
    /// and x, the last two on unturned joint frames at their parent's origin.
    pub fn is_zyx_chain(&self, bodies: [usize; 3]) -> bool {
        let axes = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]];
        bodies.iter().enumerate().all(|(k, &i)| {
            self.bodies.get(i).is_some_and(|b| {
                b.joint == (JointKind::Revolute { axis: axes[k] })
                    && (k == 0
                        || (b.parent == Some(bodies[k - 1]) && b.joint_frame == Frame::IDENTITY))
            })
        })
    }

    /// Number of constraint equations Φ.
    pub fn constraint_equations(&self) -> usize {
        self.cut_joints.iter().map(CutJoint::equations).sum()
    }
}

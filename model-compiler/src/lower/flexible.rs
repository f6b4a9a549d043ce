//! Flexible bodies (issue 22): the beam meshed and reduced at compile time, its interface
//! nodes added to the tree as massless bodies right after it, and every point and child
//! joint on the body moved onto the node at its station (rigidly offset from it).

use super::flexible_source::{Fe, Source};
use super::mass::MassProps;
use super::{Ctx, Expect};
use crate::description::{BodyDesc, DampingDesc, FlexibleDesc, SectionShape};
use crate::flexible::beam::{Beam, Section};
use crate::flexible::ffrf::{DEFAULT_DAMPING_RATIO, Damping, FeModel, Reduction};
use crate::units::Dim;
use fmu_runtime::model::{Body, CompiledModel, FlexibleBody, Frame, JointKind};
use std::ops::Range;

/// Modes kept when the description does not say (our choice: two per bending plane).
pub const DEFAULT_MODES: usize = 4;
/// Beam elements when the description does not say (our choice: the cantilever's two
/// lowest bending frequencies within 1e-4 of Euler–Bernoulli).
pub const DEFAULT_ELEMENTS: usize = 20;

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);

/// A lowered flexible body, in the order of `Mechanism::flexible`.
#[derive(Clone, Debug)]
pub struct FlexibleLowered {
    pub name: String,
    /// Where errors about its attachments point (the `nodes` list).
    pub span: Range<usize>,
    pub body: usize,
    /// Each interface node: its name, position [m] (body axes) and body index.
    pub nodes: Vec<(String, [f64; 3], usize)>,
    /// Points attach by their station along x (a beam) or by their position (FE files).
    pub by_station: bool,
    pub reduction: Reduction,
    /// The beam's ends along x [m] (an FE model's extent along x), for drawings.
    pub extent: (f64, f64),
    /// The defaults the description relied on (`check` names them).
    pub defaults: Vec<String>,
    /// The rigid spiders of a solid mesh: whose (the joint's or an interface node's name)
    /// and how many mesh nodes each ties.
    pub spiders: Vec<(Option<String>, usize)>,
}

/// What [`reduce_body`] gives: the reduction, the declared nodes' positions, how points
/// attach, the extent along x, the rigid mass properties (reports; the runtime uses the
/// invariants) and the defaults used.
pub(super) struct ReducedBody {
    pub reduction: Reduction,
    pub nodes: Vec<(String, [f64; 3])>,
    pub by_station: bool,
    pub extent: (f64, f64),
    pub props: MassProps,
    pub defaults: Vec<String>,
    pub spiders: Vec<(Option<String>, usize)>,
}

impl FlexibleLowered {
    /// The body in a few sentences — mass, mesh, extent, modes, interface nodes, the
    /// defaults used — for the FMU's documentation and the model page; `num` writes a number.
    pub fn summary(&self, num: impl Fn(f64) -> String) -> String {
        let nodes = self.node_list();
        let held = match self.spiders.iter().find(|(n, _)| n.is_none()) {
            Some((_, count)) => format!(" Its joint holds a rigid spider of {count} mesh nodes."),
            None => String::new(),
        };
        format!(
            "{} kg, {} along x from {} m to {} m, {} modes (Craig–Bampton, clamped at the body's joint, orthonormalised).{held} Interface nodes: {}.{}",
            num(self.reduction.flexible.invariants.mass),
            if self.by_station {
                "a beam"
            } else {
                "an FE model"
            },
            num(self.extent.0),
            num(self.extent.1),
            self.reduction.flexible.modes(),
            if nodes.is_empty() {
                "none".into()
            } else {
                nodes.join(", ")
            },
            if self.defaults.is_empty() {
                String::new()
            } else {
                format!(" Defaults used: {}.", self.defaults.join(", "))
            }
        )
    }

    /// Each interface node as `name at x = … m` (a beam) or `name at [x, y, z] m`.
    pub fn node_list(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|(n, p, _)| {
                let spider = (self.spiders.iter())
                    .find(|(s, _)| s.as_deref() == Some(n.as_str()))
                    .map_or(String::new(), |(_, count)| {
                        format!(" (a rigid spider of {count} mesh nodes)")
                    });
                if self.by_station {
                    format!("{n} at x = {} m", p[0])
                } else {
                    format!("{n} at [{}, {}, {}] m{spider}", p[0], p[1], p[2])
                }
            })
            .collect()
    }

    /// The runtime's body.
    pub fn runtime_body(&self) -> FlexibleBody {
        let mut fb = self.reduction.flexible.clone();
        fb.body = self.body;
        fb
    }
}

/// Bodies a description adds right after its body: one per interface node.
pub(super) fn node_count(b: &BodyDesc) -> usize {
    b.flexible.as_ref().map_or(0, |f| f.nodes.get_ref().len())
}

/// Meshes or reads and reduces a flexible body; `None` after reporting an error.
pub(super) fn reduce_body(cx: &mut Ctx, b: &BodyDesc, f: &FlexibleDesc) -> Option<ReducedBody> {
    let name = b.name.get_ref();
    let mut defaults = Vec::new();
    if b.mass.is_some() || b.parts.is_some() || b.inertia.is_some() || b.com.is_some() {
        cx.error(
            b.name.span(),
            format!("flexible body '{name}' gives mass properties"),
            "remove mass/com/inertia/parts: a flexible body's mass comes from its FE model",
        );
    }
    let modes = match &f.modes {
        Some(m) if *m.get_ref() < 1 => {
            cx.error(
                m.span(),
                "a flexible body needs at least one mode",
                "give modes = 1 or more",
            );
            return None;
        }
        Some(m) => *m.get_ref() as usize,
        None => {
            defaults.push(format!("{DEFAULT_MODES} modes"));
            DEFAULT_MODES
        }
    };
    let damping = match f.damping.as_ref().map(|d| (d.get_ref(), d.span())) {
        None => {
            defaults.push(format!("damping ratio {DEFAULT_DAMPING_RATIO}"));
            Damping::Ratio(DEFAULT_DAMPING_RATIO)
        }
        Some((DampingDesc::Ratio(z), _)) if *z >= 0.0 => Damping::Ratio(*z),
        Some((DampingDesc::Ratios(z), _)) if z.iter().all(|z| *z >= 0.0) => {
            Damping::Ratios(z.clone())
        }
        Some((DampingDesc::Rayleigh(r), _)) if r.alpha >= 0.0 && r.beta >= 0.0 => {
            Damping::Rayleigh {
                alpha: r.alpha,
                beta: r.beta,
            }
        }
        Some((_, s)) => {
            cx.error(
                s,
                "modal damping must not be negative",
                "give ratios ≥ 0 (0.02 is typical of welded steel booms)",
            );
            return None;
        }
    };
    let source = match (&f.beam, &f.fe) {
        (Some(beam), None) => beam_source(cx, b, f, beam, &mut defaults)?,
        (None, Some(fe)) => super::flexible_files::fe_source(cx, b, f, fe)?,
        (Some(beam), Some(_)) => {
            cx.error(
                beam.span_or(b.name.span()),
                format!("flexible body '{name}' gives both a beam and FE files"),
                "keep one: `beam = { … }` or `fe = { mass = …, stiffness = …, coordinates = … }`",
            );
            return None;
        }
        (None, None) => {
            cx.error(
                f.nodes.span_or(b.name.span()),
                format!("flexible body '{name}' has no FE model"),
                "add `beam = { length = …, section = { shape = \"box\", width = …, height = …, wall = … }, young = …, poisson = …, density = … }` or `fe = { mass = …, stiffness = …, coordinates = … }`",
            );
            return None;
        }
    };
    let span = f.nodes.span_or(b.name.span());
    let reduction = match source
        .fe
        .reduce(source.reference, &source.interface, modes, &damping)
    {
        Ok(r) => r,
        Err(e) => {
            cx.error(
                f.modes.as_ref().map_or(span, |m| m.span()),
                format!("flexible body '{name}': {e}"),
                "keep fewer modes, or refine the mesh",
            );
            return None;
        }
    };
    let nodes = source
        .interface
        .iter()
        .map(|(n, k)| (n.clone(), source.fe.positions()[*k]))
        .collect();
    let props = rigid_props(&reduction);
    Some(ReducedBody {
        reduction,
        nodes,
        by_station: source.by_station,
        extent: source.extent,
        props,
        defaults,
        spiders: source.spiders,
    })
}

/// The reduced body's rigid mass properties about its centre of mass (for reports).
fn rigid_props(reduction: &Reduction) -> MassProps {
    let inv = &reduction.flexible.invariants;
    let m = inv.mass;
    let c = inv.first_moment.map(|s| s / m);
    let j = inv.inertia;
    let c2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    // About the centre of mass: J0 − m (|c|² 1 − c cᵀ).
    MassProps {
        mass: m,
        com: c,
        inertia: [
            j[0] - m * (c2 - c[0] * c[0]),
            j[1] - m * (c2 - c[1] * c[1]),
            j[2] - m * (c2 - c[2] * c[2]),
            j[3] + m * c[0] * c[1],
            j[4] + m * c[0] * c[2],
            j[5] + m * c[1] * c[2],
        ],
    }
}

/// The beam mesher's model: nodes at the declared stations and the body origin.
fn beam_source(
    cx: &mut Ctx,
    b: &BodyDesc,
    f: &FlexibleDesc,
    beam_desc: &crate::description::Located<crate::description::BeamDesc>,
    defaults: &mut Vec<String>,
) -> Option<Source> {
    let name = b.name.get_ref();
    let bd = beam_desc.get_ref();
    let span = beam_desc.span_or(b.name.span());
    let length = cx.value(&bd.length, LENGTH);
    cx.require_positive(&bd.length, length, "length");
    let start = cx.value_or(bd.start.as_ref(), LENGTH, 0.0);
    let elements = match &bd.elements {
        Some(e) if !(1..=2000).contains(e.get_ref()) => {
            cx.error(
                e.span(),
                format!("{} beam elements", e.get_ref()),
                "give 1 to 2000 elements (20 resolve the lowest bending modes to 1e-4)",
            );
            return None;
        }
        Some(e) => *e.get_ref() as usize,
        None => {
            defaults.push(format!("{DEFAULT_ELEMENTS} beam elements"));
            DEFAULT_ELEMENTS
        }
    };
    let section = section(cx, bd)?;
    let young = cx.value(&bd.young, Expect::Dim(Dim::PRESSURE));
    cx.require_positive(&bd.young, young, "young");
    let poisson = cx.value(&bd.poisson, Expect::Dim(Dim::NONE));
    let density = cx.value(&bd.density, Expect::Dim(Dim::DENSITY));
    cx.require_positive(&bd.density, density, "density");
    let end = start + length;
    if start > 1e-9 * length || end < -1e-9 * length {
        cx.error(
            span.clone(),
            format!("the beam runs from x = {start} m to {end} m and misses the body origin, where the body's joint holds it"),
            "set `start` so that the beam passes through x = 0 (the joint)",
        );
        return None;
    }
    let mut stations: Vec<(String, f64)> = Vec::new();
    for n in f.nodes.get_ref() {
        let nd = n.get_ref();
        // Node names live in their body (bodies `<body>.<node>` in the tree).
        if stations.iter().any(|(other, _)| other == nd.name.get_ref()) {
            cx.error(
                nd.name.span(),
                format!("body '{name}' declares node '{}' twice", nd.name.get_ref()),
                "give each interface node its own name",
            );
            return None;
        }
        let Some(at_q) = &nd.at else {
            cx.error(
                nd.name.span(),
                format!("node '{}' of beam '{name}' has no station", nd.name.get_ref()),
                "give `at = \"… m\"`, its x along the beam (`node = …` numbers the nodes of FE files)",
            );
            return None;
        };
        let at = cx.value(at_q, LENGTH);
        if at < start - 1e-9 * length || at > end + 1e-9 * length {
            cx.error(
                at_q.span(),
                format!(
                    "node '{}' at x = {at} m is off the beam ({start} m … {end} m)",
                    nd.name.get_ref()
                ),
                "put the node on the beam, or lengthen the beam",
            );
            return None;
        }
        if let Some((other, _)) = stations
            .iter()
            .find(|(_, s)| (s - at).abs() <= 1e-9 * length)
        {
            cx.error(
                at_q.span(),
                format!(
                    "nodes '{other}' and '{}' share the station x = {at} m",
                    nd.name.get_ref()
                ),
                "give each station one node; everything there attaches to it",
            );
            return None;
        }
        stations.push((nd.name.get_ref().clone(), at));
    }
    // Mesh nodes: a uniform grid, the body origin and every station, grid points closer
    // than a third of an element to a station dropped (no sliver elements).
    let le = length / elements as f64;
    let mut fixed: Vec<f64> = stations
        .iter()
        .map(|s| s.1)
        .chain([0.0, start, end])
        .collect();
    fixed.sort_by(f64::total_cmp);
    fixed.dedup_by(|a, b| (*a - *b).abs() <= 1e-9 * length);
    let mut xs: Vec<f64> = (1..elements)
        .map(|k| start + k as f64 * le)
        .filter(|x| fixed.iter().all(|s| (x - s).abs() > le / 3.0))
        .chain(fixed.iter().copied())
        .collect();
    xs.sort_by(f64::total_cmp);
    let beam = Beam {
        length,
        elements,
        section,
        young,
        poisson,
        density,
    };
    let mesh = match beam.mesh_at(&xs.iter().map(|x| x - start).collect::<Vec<_>>()) {
        Ok(m) => m,
        Err(e) => {
            cx.error(
                span,
                format!("flexible body '{name}': {e}"),
                "fix the beam's data",
            );
            return None;
        }
    };
    let index_of = |x: f64| xs.iter().position(|y| (y - x).abs() <= 1e-9 * length);
    // A plane keeps its in-plane DOFs: x–y holds w, θx, θy; x–z holds v, θx, θz.
    let held = match f.plane.as_ref().map(|p| (p.get_ref().as_str(), p.span())) {
        None => vec![],
        Some(("xy", _)) => vec![2, 3, 4],
        Some(("xz", _)) => vec![1, 3, 5],
        Some((other, span)) => {
            cx.error(
                span,
                format!("plane \"{other}\" is not a plane of the beam"),
                "write plane = \"xy\" or \"xz\" (the beam runs along x)",
            );
            return None;
        }
    };
    let interface = stations
        .iter()
        .map(|(n, x)| Some((n.clone(), index_of(*x)?)))
        .collect::<Option<Vec<_>>>()?;
    Some(Source {
        fe: Fe::Dense(FeModel {
            mass: mesh.mass,
            stiffness: mesh.stiffness,
            positions: xs.iter().map(|x| [*x, 0.0, 0.0]).collect(),
            dofs: crate::flexible::dofs::NodeDofs::uniform(
                xs.len(),
                crate::flexible::beam::NODE_DOFS,
            ),
            held,
        }),
        reference: index_of(0.0)?,
        interface,
        extent: (start, end),
        by_station: true,
        spiders: vec![],
    })
}

fn section(cx: &mut Ctx, bd: &crate::description::BeamDesc) -> Option<Section> {
    let s = bd.section.get_ref();
    let span = bd.section.span_or(bd.length.span());
    let need = |cx: &mut Ctx, q: &Option<crate::description::Quantity>, what: &str| match q {
        Some(q) => {
            let v = cx.value(q, LENGTH);
            cx.require_positive(q, v, what);
            Some(v)
        }
        None => {
            cx.error(
                span.clone(),
                format!(
                    "the {} section needs `{what}`",
                    shape_name(*s.shape.get_ref())
                ),
                format!("add `{what} = \"… mm\"`"),
            );
            None
        }
    };
    let section = match *s.shape.get_ref() {
        SectionShape::Rectangle => Section::Rectangle {
            width: need(cx, &s.width, "width")?,
            height: need(cx, &s.height, "height")?,
        },
        SectionShape::Box => Section::Box {
            width: need(cx, &s.width, "width")?,
            height: need(cx, &s.height, "height")?,
            wall: need(cx, &s.wall, "wall")?,
        },
        SectionShape::Tube => Section::Tube {
            outer_diameter: need(cx, &s.diameter, "diameter")?,
            wall: need(cx, &s.wall, "wall")?,
        },
    };
    if let Err(e) = section.properties() {
        cx.error(
            span,
            e,
            "fix the section's dimensions (the wall must be thinner than half the section)",
        );
        return None;
    }
    Some(section)
}

fn shape_name(s: SectionShape) -> &'static str {
    match s {
        SectionShape::Rectangle => "rectangle",
        SectionShape::Box => "box",
        SectionShape::Tube => "tube",
    }
}

/// Pushes the interface nodes' bodies right after flexible body `body` (index `f` among
/// the flexible bodies).
pub(super) fn push_nodes(
    cx: &mut Ctx,
    name: &str,
    span: &Range<usize>,
    (body, f): (usize, usize),
    declared: &[(String, [f64; 3])],
    out: &mut Vec<Body>,
) -> Vec<(String, [f64; 3], usize)> {
    let mut nodes = Vec::new();
    for (k, (node, x)) in declared.iter().enumerate() {
        let full = format!("{name}.{node}");
        let hidden = format!("'{full}' is an interface node of flexible body '{name}'");
        let mass = cx.slot(
            format!("{full}.mass"),
            0.0,
            Expect::Dim(Dim::MASS),
            format!("Mass of interface node {full} (generated)"),
        );
        let q0 = cx.slot(
            format!("{full}.q0"),
            0.0,
            LENGTH,
            format!("Unused coordinate of interface node {full} (generated)"),
        );
        cx.hidden.insert(mass, hidden.clone());
        cx.hidden.insert(q0, hidden);
        cx.body_info.push(super::BodyInfo {
            span: span.clone(),
            generated: true,
            massless: true,
        });
        nodes.push((node.clone(), *x, out.len()));
        out.push(Body {
            name: full.clone(),
            parent: Some(body),
            joint: JointKind::Node {
                flexible: f,
                node: k,
            },
            joint_name: full,
            joint_frame: Frame {
                origin: *x,
                rotation: Frame::IDENTITY.rotation,
            },
            q0,
            mass,
            com: [0.0; 3],
            inertia: [0.0; 6],
        });
    }
    nodes
}

/// `p − at`, in place: a point's offset from its node.
fn shift(p: &mut [f64; 3], at: &[f64; 3]) {
    for (x, a) in p.iter_mut().zip(at) {
        *x -= a;
    }
}

/// Moves every point and child joint on a flexible body onto its interface node: on a beam
/// the node at its station (x; lateral offsets are rigid brackets), in an FE model the node
/// it coincides with. A point at the body origin stays on the body (the reference node,
/// where the modes vanish).
pub(super) fn attach(cx: &mut Ctx, flexible: &[FlexibleLowered], model: &mut CompiledModel) {
    for f in flexible {
        let size = (f.extent.1 - f.extent.0).abs().max(1e-9);
        let tol = 1e-9 * size;
        let gap = |p: &[f64; 3], n: &[f64; 3]| {
            if f.by_station {
                (p[0] - n[0]).abs()
            } else {
                ((p[0] - n[0]).powi(2) + (p[1] - n[1]).powi(2) + (p[2] - n[2]).powi(2)).sqrt()
            }
        };
        let find = |p: &[f64; 3]| -> Result<Option<(usize, [f64; 3])>, ()> {
            if let Some((_, at, b)) = f.nodes.iter().find(|(_, at, _)| gap(p, at) <= tol) {
                return Ok(Some((*b, *at)));
            }
            if gap(p, &[0.0; 3]) <= tol {
                return Ok(None);
            }
            Err(())
        };
        let mut misplaced = Vec::new();
        let node_bodies: Vec<usize> = f.nodes.iter().map(|n| n.2).collect();
        for (i, b) in model.mechanism.bodies.iter_mut().enumerate() {
            if b.parent != Some(f.body) || node_bodies.contains(&i) {
                continue;
            }
            match find(&b.joint_frame.origin) {
                Ok(Some((node, at))) => {
                    b.parent = Some(node);
                    shift(&mut b.joint_frame.origin, &at);
                }
                Ok(None) => {}
                Err(()) => misplaced.push((
                    format!("the joint of body '{}'", b.name),
                    b.joint_frame.origin,
                )),
            }
        }
        model.points_mut(|what, p| {
            if p.body != Some(f.body) {
                return;
            }
            match find(&p.point) {
                Ok(Some((node, at))) => {
                    p.body = Some(node);
                    shift(&mut p.point, &at);
                }
                Ok(None) => {}
                Err(()) => misplaced.push((what, p.point)),
            }
        });
        for (what, at) in misplaced {
            let listed = f.node_list();
            let (place, fix) = if f.by_station {
                (
                    format!("x = {} m", at[0]),
                    format!(
                        "declare a node there: nodes = [..., {{ name = \"…\", at = \"{} m\" }}]",
                        at[0]
                    ),
                )
            } else {
                (
                    format!("[{}, {}, {}] m", at[0], at[1], at[2]),
                    "put the point on an interface node, or declare the FE node there: nodes = [..., { name = \"…\", node = … }]".to_string(),
                )
            };
            cx.error(
                f.span.clone(),
                format!(
                    "{what} sits on flexible body '{}' at {place}, where it has no interface node (nodes: {})",
                    f.name,
                    if listed.is_empty() { "none".into() } else { listed.join(", ") }
                ),
                fix,
            );
        }
    }
}

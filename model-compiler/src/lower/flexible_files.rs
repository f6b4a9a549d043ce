//! A flexible body's FE model from files (issue 22): Matrix Market mass and stiffness and
//! the node coordinates as CSV with the unit of each column in its header. Every error
//! names the file (and its line) and what to fix.

use super::flexible_source::{Fe, Source};
use super::{Ctx, Expect};
use crate::description::{BodyDesc, FeDesc, FlexibleDesc, Located};
use crate::flexible::dofs::NodeDofs;
use crate::flexible::ffrf::FeModel;
use crate::flexible::matrix_market::{self, Triplets};
use crate::flexible::sparse::Sparse;
use crate::flexible::spider::{Spider, nodes_within, tie};
use crate::units::Dim;
use toml::Spanned;

/// Largest FE model the dense reduction takes (a 3,000-DOF dense eigenproblem is a few
/// seconds here); larger ones take the sparse path.
const DENSE_LIMIT: usize = 3000;

const LENGTH: Expect = Expect::Dim(Dim::LENGTH);

/// Which file a matrix error is about.
enum Culprit {
    Mass,
    Stiffness,
}

/// The mass and stiffness, checked (mass symmetric positive definite, stiffness
/// symmetric): dense up to [`DENSE_LIMIT`] DOFs, sparse above.
fn matrices(
    mass: &Triplets,
    stiffness: &Triplets,
    (mass_file, stiffness_file): (&str, &str),
    positions: Vec<[f64; 3]>,
    node_dofs: usize,
) -> Result<Fe, (Culprit, String)> {
    let asymmetric = |largest: f64, asym: f64| {
        format!(
            "{stiffness_file}: the stiffness matrix is not symmetric (|K − Kᵀ| up to {asym:.3e} against entries up to {largest:.3e})"
        )
    };
    if mass.size <= DENSE_LIMIT {
        let (m, k) = (mass.dense(), stiffness.dense());
        matrix_market::check_mass(&m, mass_file).map_err(|e| (Culprit::Mass, e))?;
        let asym = (&k - k.transpose()).abs().max();
        if asym > 1e-9 * k.abs().max() {
            return Err((Culprit::Stiffness, asymmetric(k.abs().max(), asym)));
        }
        return Ok(Fe::Dense(FeModel {
            mass: m,
            stiffness: k,
            dofs: NodeDofs::uniform(positions.len(), node_dofs),
            positions,
            held: vec![],
        }));
    }
    let stored = |t: &Triplets, culprit| Sparse::from_triplets(t).map_err(|e| (culprit, e));
    let (m, k) = (
        stored(mass, Culprit::Mass)?,
        stored(stiffness, Culprit::Stiffness)?,
    );
    let (asym, largest) = m.asymmetry();
    if asym > 1e-9 * largest {
        return Err((
            Culprit::Mass,
            format!(
                "{mass_file}: the mass matrix is not symmetric (|M − Mᵀ| up to {asym:.3e} against entries up to {largest:.3e})"
            ),
        ));
    }
    if m.cholesky().is_none() {
        return Err((
            Culprit::Mass,
            format!(
                "{mass_file}: the mass matrix is not positive definite (a DOF without mass, or a wrong sign); check the FE export"
            ),
        ));
    }
    let (asym, largest) = k.asymmetry();
    if asym > 1e-9 * largest {
        return Err((Culprit::Stiffness, asymmetric(largest, asym)));
    }
    Ok(Fe::Sparse(FeModel {
        mass: m,
        stiffness: k,
        dofs: NodeDofs::uniform(positions.len(), node_dofs),
        positions,
        held: vec![],
    }))
}

/// Node coordinates: a header `x [unit], y [unit], z [unit]` (m, cm or mm; also `x_mm`),
/// then one node per line. `what` names the file in errors.
pub fn parse_coordinates(text: &str, what: &str) -> Result<Vec<[f64; 3]>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((line, header)) = lines.next() else {
        return Err(format!(
            "{what}: empty; expected a header `x [m], y [m], z [m]` and one node per line"
        ));
    };
    let scale = |field: &str| -> Option<f64> {
        let f = field.trim().to_lowercase();
        let unit = f
            .split(['[', '(', '_'])
            .nth(1)?
            .trim_end_matches([']', ')'])
            .trim()
            .to_string();
        match unit.as_str() {
            "m" => Some(1.0),
            "cm" => Some(1e-2),
            "mm" => Some(1e-3),
            _ => None,
        }
    };
    let fields: Vec<&str> = header.split(',').collect();
    let scales: Option<Vec<f64>> = fields.iter().map(|f| scale(f)).collect();
    let scales = match scales {
        Some(s) if s.len() == 3 => s,
        _ => {
            return Err(format!(
                "{what}:{line}: the header `{header}` does not give three columns with their units; write `x [mm], y [mm], z [mm]` (m, cm or mm)"
            ));
        }
    };
    let mut out = Vec::new();
    for (line, text) in lines {
        let values: Vec<&str> = text.split(',').map(str::trim).collect();
        if values.len() != 3 {
            return Err(format!(
                "{what}:{line}: {} values, expected x, y, z",
                values.len()
            ));
        }
        let mut p = [0.0; 3];
        for (d, v) in values.iter().enumerate() {
            let x: f64 = v
                .parse()
                .map_err(|_| format!("{what}:{line}: `{v}` is not a number"))?;
            if !x.is_finite() {
                return Err(format!("{what}:{line}: `{v}` is not finite"));
            }
            p[d] = x * scales[d];
        }
        out.push(p);
    }
    if out.is_empty() {
        return Err(format!("{what}: no nodes after the header"));
    }
    Ok(out)
}

/// Reads, checks and prepares the FE model of `f.fe`; `None` after reporting an error.
pub(super) fn fe_source(
    cx: &mut Ctx,
    b: &BodyDesc,
    f: &FlexibleDesc,
    fe: &Located<FeDesc>,
) -> Option<Source> {
    let name = b.name.get_ref();
    let d = fe.get_ref();
    let span = fe.span_or(b.name.span());
    let Some(base) = cx.base_dir.clone() else {
        cx.error(
            span,
            "a description given as text cannot name FE files",
            "compile the description from its file, next to the FE files it names",
        );
        return None;
    };
    if let Some(p) = &f.plane {
        cx.error(
            p.span(),
            "`plane` holds a beam's out-of-plane DOFs; an FE model's modes are its own",
            "remove `plane` (reduce the FE model in its plane before exporting it)",
        );
        return None;
    }
    let read = |cx: &mut Ctx, file: &Spanned<String>| -> Option<(String, String)> {
        let path = base.join(file.get_ref());
        match std::fs::read_to_string(&path) {
            Ok(t) => Some((t, file.get_ref().clone())),
            Err(e) => {
                cx.error(
                    file.span(),
                    format!("cannot read {}: {e}", path.display()),
                    "give the path relative to the description",
                );
                None
            }
        }
    };
    let matrix = |cx: &mut Ctx, file: &Spanned<String>| {
        let (text, what) = read(cx, file)?;
        match matrix_market::parse(&text, &what) {
            Ok(t) => Some((t, what)),
            Err(e) => {
                cx.error(
                    file.span(),
                    e,
                    "fix the file (Matrix Market coordinate real general|symmetric)",
                );
                None
            }
        }
    };
    let (mass, mass_file) = matrix(cx, &d.mass)?;
    let (stiffness, stiffness_file) = matrix(cx, &d.stiffness)?;
    let (coordinates_text, coordinates_file) = read(cx, &d.coordinates)?;
    let positions = match parse_coordinates(&coordinates_text, &coordinates_file) {
        Ok(p) => p,
        Err(e) => {
            cx.error(d.coordinates.span(), e, "fix the coordinates file");
            return None;
        }
    };
    let node_dofs = match &d.dofs_per_node {
        None => 6,
        Some(n) if matches!(*n.get_ref(), 3 | 6) => *n.get_ref() as usize,
        Some(n) => {
            cx.error(
                n.span(),
                format!("{} DOFs per node", n.get_ref()),
                "give 3 (translations) or 6 (translations, then rotations)",
            );
            return None;
        }
    };
    let ndof = positions.len() * node_dofs;
    if mass.size != ndof || stiffness.size != ndof {
        cx.error(
            span,
            format!(
                "{} nodes of {node_dofs} DOFs make {ndof} DOFs, but {mass_file} has {} and {stiffness_file} {}",
                positions.len(),
                mass.size,
                stiffness.size
            ),
            "check dofs_per_node and that the three files belong to one model",
        );
        return None;
    }
    let (lo, hi) = positions
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p[0]), hi.max(p[0]))
        });
    let size = positions
        .iter()
        .map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt())
        .fold(0.0, f64::max)
        .max(1e-9);
    // Rigid spiders (RBE2): the reference's, then the interface nodes'.
    let mut spiders: Vec<Spider> = Vec::new();
    let reference = match &d.reference_radius {
        Some(q) => {
            let r = cx.value(q, LENGTH);
            cx.require_positive(q, r, "reference_radius");
            let slaves = nodes_within(&positions, [0.0; 3], r);
            if slaves.is_empty() {
                cx.error(
                    q.span(),
                    format!("no node of {coordinates_file} within {r} m of the body origin"),
                    "raise reference_radius to reach the nodes of the joint's bore",
                );
                return None;
            }
            spiders.push(Spider {
                name: format!("{name}'s joint"),
                center: [0.0; 3],
                slaves,
            });
            Anchor::Spider(0)
        }
        None => {
            let Some(origin) = positions
                .iter()
                .position(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() <= 1e-9 * size)
            else {
                cx.error(
                    d.coordinates.span(),
                    format!("{coordinates_file}: no node at the body origin, where body '{name}''s joint holds it"),
                    "give the coordinates in the body's axes with a node at its joint (x = y = z = 0), or `reference_radius` to hold the nodes around it",
                );
                return None;
            };
            if node_dofs == 3 {
                cx.error(
                    span,
                    "a solid mesh (3 DOFs per node) cannot hold the body's joint at one node: its rotations would be free",
                    "give `reference_radius = \"… mm\"`: the nodes of the joint's bore then hold it as a rigid spider (RBE2)",
                );
                return None;
            }
            Anchor::Node(origin)
        }
    };
    let mut interface: Vec<(String, Anchor)> = Vec::new();
    for n in f.nodes.get_ref() {
        let nd = n.get_ref();
        if let Some(at) = &nd.at {
            cx.error(
                at.span(),
                "`at` places a node on a beam; an FE model's nodes are numbered",
                "write `node = …` (1-based row of the coordinates file), or `center` and `radius` for a spider",
            );
            return None;
        }
        if interface
            .iter()
            .any(|(other, _)| other == nd.name.get_ref())
        {
            cx.error(
                nd.name.span(),
                format!("body '{name}' declares node '{}' twice", nd.name.get_ref()),
                "give each interface node its own name",
            );
            return None;
        }
        let node = match &nd.node {
            Some(k) => {
                let k_value = *k.get_ref();
                if k_value < 1 || k_value as usize > positions.len() {
                    cx.error(
                        k.span(),
                        format!(
                            "node {k_value} is not in the mesh ({} nodes in {coordinates_file})",
                            positions.len()
                        ),
                        "give a 1-based row of the coordinates file",
                    );
                    return None;
                }
                Some(k_value as usize - 1)
            }
            None => None,
        };
        let anchor = match (&nd.radius, node, &nd.center) {
            (None, Some(k), None) => Anchor::Node(k),
            (Some(q), Some(_), None) | (Some(q), None, Some(_)) => {
                let r = cx.value(q, LENGTH);
                cx.require_positive(q, r, "radius");
                let center = match (node, &nd.center) {
                    (Some(k), _) => positions[k],
                    (None, Some(c)) => cx.vec3(c, LENGTH),
                    (None, None) => unreachable!("matched above"),
                };
                let slaves = nodes_within(&positions, center, r);
                if slaves.is_empty() {
                    cx.error(
                        q.span(),
                        format!("no node of {coordinates_file} within {r} m of {center:?} m"),
                        "raise the radius to reach the nodes of the bore",
                    );
                    return None;
                }
                spiders.push(Spider {
                    name: format!("node '{}'", nd.name.get_ref()),
                    center,
                    slaves,
                });
                Anchor::Spider(spiders.len() - 1)
            }
            (None, _, Some(c)) => {
                cx.error(
                    c.span(),
                    format!("node '{}' has a center but no radius", nd.name.get_ref()),
                    "give `radius = \"… mm\"`: the mesh nodes within it are tied to the center",
                );
                return None;
            }
            (_, Some(_), Some(c)) => {
                cx.error(
                    c.span(),
                    format!("node '{}' gives both `node` and `center`", nd.name.get_ref()),
                    "keep one: `node = …` centres the spider on that node, `center = [x, y, z]` anywhere",
                );
                return None;
            }
            (_, None, None) => {
                cx.error(
                    nd.name.span(),
                    format!("interface node '{}' has no node number", nd.name.get_ref()),
                    "write `node = …` (1-based row of the coordinates file), or `center` and `radius` for a spider",
                );
                return None;
            }
        };
        interface.push((nd.name.get_ref().clone(), anchor));
    }
    let files = (mass_file.as_str(), stiffness_file.as_str());
    let fe = match matrices(&mass, &stiffness, files, positions, node_dofs) {
        Ok(fe) => fe,
        Err((Culprit::Mass, e)) => {
            cx.error(
                d.mass.span(),
                e,
                "export the consistent or lumped mass matrix of the whole body",
            );
            return None;
        }
        Err((Culprit::Stiffness, e)) => {
            cx.error(
                d.stiffness.span(),
                e,
                "export the symmetric stiffness of a linear elastic model",
            );
            return None;
        }
    };
    let tied = if spiders.is_empty() {
        let nodes = fe.positions().len();
        (fe, vec![], (0..nodes).map(Some).collect())
    } else {
        let tied = match &fe {
            Fe::Dense(m) => tie(m, &spiders).map(|t| (Fe::Dense(t.model), t.masters, t.renumbered)),
            Fe::Sparse(m) => {
                tie(m, &spiders).map(|t| (Fe::Sparse(t.model), t.masters, t.renumbered))
            }
        };
        match tied {
            Ok(t) => t,
            Err(e) => {
                cx.error(
                    span,
                    e,
                    "give each spider its own nodes, three or more off one line",
                );
                return None;
            }
        }
    };
    let (fe, masters, renumbered) = tied;
    // A node's place after the tie: a spider's master, or the node renumbered (a spider's
    // slave is no longer a node).
    let place = |cx: &mut Ctx, anchor: &Anchor, what: &str| -> Option<usize> {
        let span = span.clone();
        match anchor {
            Anchor::Spider(s) => Some(masters[*s]),
            Anchor::Node(n) => renumbered[*n].or_else(|| {
                cx.error(
                    span,
                    format!(
                        "{what} is node {}, which a spider ties to its center",
                        n + 1
                    ),
                    "attach to the spider's node instead, or shrink the spider's radius",
                );
                None
            }),
        }
    };
    let reference = place(cx, &reference, "the body's joint")?;
    // Whose each spider is, for `check` and the model's page.
    let owner = |s: usize| {
        (interface.iter())
            .find(|(_, a)| matches!(a, Anchor::Spider(k) if *k == s))
            .map(|(n, _)| n.clone())
    };
    let sizes = (spiders.iter().enumerate())
        .map(|(s, spider)| (owner(s), spider.slaves.len()))
        .collect();
    let mut nodes = Vec::with_capacity(interface.len());
    for (name, anchor) in &interface {
        nodes.push((name.clone(), place(cx, anchor, &format!("node '{name}'"))?));
    }
    Some(Source {
        fe,
        reference,
        interface: nodes,
        extent: (lo, hi),
        by_station: false,
        spiders: sizes,
    })
}

/// Where the body's joint or an interface node attaches: an FE node, or a rigid spider's
/// master (index into the spiders).
enum Anchor {
    Node(usize),
    Spider(usize),
}

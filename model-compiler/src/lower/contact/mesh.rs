//! Collision meshes: an OBJ or STL file's vertices, their convex hull (parry3d-f64's
//! quickhull, at compile time only), and the hull's faces, edges and bounding sphere into
//! [`Contacts::hulls`].
//!
//! [`Contacts::hulls`]: fmu_runtime::model::Contacts::hulls

use super::super::Ctx;
use crate::description::Name;
use crate::diagnostic::Diagnostic;
use fmu_runtime::model::{Geometry, Hull, MAX_HULL_VERTICES};
use std::collections::BTreeMap;

/// The hull of mesh `file` (relative to the description), its vertices scaled by `scale`
/// and moved by `center` (body axes), appended to `pool`; errors and the not-convex
/// warning located at the file's name.
pub(super) fn hull(
    cx: &mut Ctx,
    file: &Name,
    scale: f64,
    center: [f64; 3],
    pool: &mut Vec<Hull>,
) -> Option<Geometry> {
    let span = file.span();
    let Some(base) = cx.base_dir.clone() else {
        cx.error(
            span,
            "a description given as text cannot name a mesh file",
            "compile the description from its file, next to the mesh it names",
        );
        return None;
    };
    let path = base.join(file.get_ref());
    let points = match read_points(&path) {
        Ok(p) => p,
        Err(e) => {
            cx.error(
                span,
                e,
                "give an OBJ or STL file (ASCII or binary) relative to the description",
            );
            return None;
        }
    };
    let points: Vec<[f64; 3]> = points
        .iter()
        .map(|p| std::array::from_fn(|k| center[k] + scale * p[k]))
        .collect();
    let shown = path.display();
    if points.len() < 4 {
        cx.error(
            span,
            format!(
                "{shown} has {} vertices: a solid needs at least 4",
                points.len()
            ),
            "give a closed mesh of the part",
        );
        return None;
    }
    let nalgebra_points: Vec<parry3d_f64::math::Point<f64>> = points
        .iter()
        .map(|p| parry3d_f64::math::Point::new(p[0], p[1], p[2]))
        .collect();
    let (vertices, faces) = parry3d_f64::transformation::convex_hull(&nalgebra_points);
    let size = bounds_diagonal(&points);
    if vertices.len() < 4
        || faces.is_empty()
        || hull_volume(&vertices, &faces).partial_cmp(&(1e-12 * size * size * size))
            != Some(std::cmp::Ordering::Greater)
    {
        cx.error(
            span,
            format!("the vertices of {shown} are flat: their hull has no volume"),
            "give a solid part's mesh, or a box of its size",
        );
        return None;
    }
    if vertices.len() > MAX_HULL_VERTICES {
        cx.error(
            span,
            format!(
                "the convex hull of {shown} has {} vertices, more than the {MAX_HULL_VERTICES} a collision hull may have",
                vertices.len()
            ),
            "give a coarser mesh of the part (a contact hull needs its outline, not its detail)",
        );
        return None;
    }
    // A vertex clearly inside the hull: the mesh was not convex (its hollows cannot touch).
    let tolerance = 1e-6 * size;
    let inside = points
        .iter()
        .filter(|p| outside_distance(p, &vertices, &faces) < -tolerance)
        .count();
    if inside > 0 {
        cx.warnings.push(
            Diagnostic::at(
                span,
                format!(
                    "{shown} is not convex: {inside} of its {} vertices lie inside its convex hull, which is what touches",
                    points.len()
                ),
                "hollows (a bucket's inside) do not collide; cover them with primitive shapes if they must",
            )
            .warning(),
        );
    }
    let solid = solid_of(&vertices, &faces, size);
    let geometry = Geometry::Hull {
        hull: pool.len(),
        count: solid.vertices.len(),
        edges: solid.edges.len(),
    };
    pool.push(solid);
    Some(geometry)
}

/// The hull's faces (coplanar triangles as one), the edges between faces and a sphere
/// around it, from its vertices and outward triangles (`size`: its bounds' diagonal).
fn solid_of(v: &[parry3d_f64::math::Point<f64>], triangles: &[[u32; 3]], size: f64) -> Hull {
    let vertices: Vec<[f64; 3]> = v.iter().map(|p| [p.x, p.y, p.z]).collect();
    let mut planes: Vec<[f64; 4]> = Vec::new();
    // Each triangle's face (none: a sliver without a normal, which merges with nothing).
    let mut face_of = Vec::with_capacity(triangles.len());
    for t in triangles {
        let (a, b, c) = (v[t[0] as usize], v[t[1] as usize], v[t[2] as usize]);
        let n = (b - a).cross(&(c - a));
        let norm = n.norm();
        if norm <= 1e-12 * size * size {
            face_of.push(None);
            continue;
        }
        let n = n / norm;
        let d = n.dot(&a.coords);
        let same = planes.iter().position(|p| {
            let turn = (n.x - p[0]).abs() + (n.y - p[1]).abs() + (n.z - p[2]).abs();
            turn < 1e-9 && (d - p[3]).abs() < 1e-9 * size
        });
        face_of.push(Some(same.unwrap_or_else(|| {
            planes.push([n.x, n.y, n.z, d]);
            planes.len() - 1
        })));
    }
    // A face's offset reaches its farthest vertex, so that every vertex is inside.
    for p in &mut planes {
        p[3] = v
            .iter()
            .map(|x| p[0] * x.x + p[1] * x.y + p[2] * x.z)
            .fold(p[3], f64::max);
    }
    let mut sides: BTreeMap<(u32, u32), Vec<Option<usize>>> = BTreeMap::new();
    for (t, face) in triangles.iter().zip(&face_of) {
        for (i, j) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            sides.entry((i.min(j), i.max(j))).or_default().push(*face);
        }
    }
    let edges = sides
        .into_iter()
        .filter(|(_, faces)| faces.len() != 2 || faces[0].is_none() || faces[0] != faces[1])
        .map(|((i, j), _)| [i, j])
        .collect();
    let lo: [f64; 3] =
        std::array::from_fn(|k| vertices.iter().map(|x| x[k]).fold(f64::INFINITY, f64::min));
    let hi: [f64; 3] = std::array::from_fn(|k| {
        vertices
            .iter()
            .map(|x| x[k])
            .fold(f64::NEG_INFINITY, f64::max)
    });
    let center: [f64; 3] = std::array::from_fn(|k| 0.5 * (lo[k] + hi[k]));
    let radius = vertices
        .iter()
        .map(|x| {
            (0..3)
                .map(|k| (x[k] - center[k]) * (x[k] - center[k]))
                .sum::<f64>()
                .sqrt()
        })
        .fold(0.0, f64::max);
    Hull {
        vertices,
        planes,
        edges,
        triangles: triangles.to_vec(),
        center,
        radius,
    }
}

/// The largest signed distance of `p` beyond the hull's face planes (≤ 0: inside).
fn outside_distance(p: &[f64; 3], v: &[parry3d_f64::math::Point<f64>], faces: &[[u32; 3]]) -> f64 {
    let p = parry3d_f64::math::Point::new(p[0], p[1], p[2]);
    faces
        .iter()
        .filter_map(|f| {
            let (a, b, c) = (v[f[0] as usize], v[f[1] as usize], v[f[2] as usize]);
            let n = (b - a).cross(&(c - a));
            let norm = n.norm();
            (norm > 0.0).then(|| n.dot(&(p - a)) / norm)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The hull's volume by the divergence theorem (faces outward).
fn hull_volume(v: &[parry3d_f64::math::Point<f64>], faces: &[[u32; 3]]) -> f64 {
    faces
        .iter()
        .map(|f| {
            let (a, b, c) = (v[f[0] as usize], v[f[1] as usize], v[f[2] as usize]);
            a.coords.dot(&b.coords.cross(&c.coords)) / 6.0
        })
        .sum::<f64>()
        .abs()
}

fn bounds_diagonal(points: &[[f64; 3]]) -> f64 {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt()
}

/// Every vertex of an OBJ (`v x y z`) or STL (binary, or ASCII `vertex x y z`) file.
fn read_points(path: &std::path::Path) -> Result<Vec<[f64; 3]>, String> {
    let shown = path.display();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("obj" | "stl")) {
        return Err(format!(
            "{shown} is neither an OBJ nor an STL file (by its extension)"
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    match ext.as_deref() {
        Some("obj") => text_points(&bytes, path, &["v"]),
        Some("stl") => {
            if let Some(points) = binary_stl(&bytes) {
                return points.map_err(|e| format!("{shown}: {e}"));
            }
            text_points(&bytes, path, &["vertex"])
        }
        _ => Err(format!(
            "{shown} is neither an OBJ nor an STL file (by its extension)"
        )),
    }
}

/// A binary STL's vertices when its size is that of its triangle count (else `None`:
/// ASCII); an error for a vertex that is not a finite number.
fn binary_stl(bytes: &[u8]) -> Option<Result<Vec<[f64; 3]>, String>> {
    let count = u32::from_le_bytes(bytes.get(80..84)?.try_into().ok()?) as usize;
    if bytes.len() != 84 + 50 * count {
        return None;
    }
    let mut out = Vec::with_capacity(3 * count);
    for t in 0..count {
        let triangle = &bytes[84 + 50 * t..84 + 50 * (t + 1)];
        for k in 0..3 {
            let at = 12 + 12 * k;
            let p: [f64; 3] = std::array::from_fn(|i| {
                let b = &triangle[at + 4 * i..at + 4 * i + 4];
                f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            });
            if !p.iter().all(|x| x.is_finite()) {
                return Some(Err(format!(
                    "triangle {} has a vertex that is not a number",
                    t + 1
                )));
            }
            out.push(p);
        }
    }
    Some(Ok(out))
}

/// The points of the lines starting with one of `keys` in a text file.
fn text_points(
    bytes: &[u8],
    path: &std::path::Path,
    keys: &[&str],
) -> Result<Vec<[f64; 3]>, String> {
    let shown = path.display();
    let text = std::str::from_utf8(bytes)
        .map_err(|_| format!("{shown} is not a text mesh file (nor a binary STL)"))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if !words.next().is_some_and(|w| keys.contains(&w)) {
            continue;
        }
        let at = |w: Option<&str>| -> Result<f64, String> {
            let w = w.ok_or_else(|| format!("{shown}:{}: a vertex needs x, y and z", n + 1))?;
            match w.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(format!("{shown}:{}: '{w}' is not a finite number", n + 1)),
            }
        };
        out.push([at(words.next())?, at(words.next())?, at(words.next())?]);
    }
    Ok(out)
}

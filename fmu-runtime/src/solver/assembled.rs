//! The Newton tangent's joint-coordinate columns assembled from the model's structure,
//! instead of one full residual evaluation (kinematics, inverse dynamics, constraints,
//! hydraulics) per column group.
//!
//! With `ż = 2/h z + ż̂` and `z̈ = 4/h² z + z̈̂`, the columns `∂F/∂z` of the residual
//! `F_z = h²/4 (M z̈ − Q + Φ_zᵀ(αΦ + λ))`, `F_w = h²/4 r_w` are taken as
//!
//! ```text
//! ∂F_z/∂z ≈ M + h²/4 αΦ_zᵀΦ_z + h²/4 Σ_lines J (a Jᵀ + b (2/h Jᵀ + J̇ᵀ)) + h²/4 (K + 2/h D)_modal
//! ∂F_w/∂z ≈ h²/4 Σ_ports (∂r_w/∂ℓ Jᵀ + ∂r_w/∂ℓ̇ (2/h Jᵀ + J̇ᵀ))
//! ```
//!
//! seed 002 eq 26 / seed 001 §2.1.3's `M + h/2 C + h²/4 (K + αΦ_zᵀΦ_z)` with C and K
//! from the force elements. A *line* is a cylinder or a spring-damper acting along the
//! distance ℓ between two body points, `J = ∂ℓ/∂z`; along column k, ℓ moves by `J_k` and ℓ̇
//! by `2/h J_k + J̇_k`. A *port* is where the hydraulics meets the mechanism: a cylinder's ℓ
//! and ℓ̇, or a motor's joint rate. Two partial evaluations per group of ports (ℓ moved, then
//! ℓ̇) give every port's force slopes `(a, b)` and the slopes of its chamber pressure rates
//! and friction-state residuals; ports whose first-order rows are disjoint share them.
//!
//! Left out, all of relative size O(h·ω) or O(h² · stiffness/inertia) at the steps these
//! machines run (`tests/tangent.rs` measures them against central differences): the
//! gyroscopic and centrifugal terms `h/2 ∂(M z̈ − Q)/∂ż`, the inertial and gravity
//! stiffness `h²/4 ∂(M z̈ − Q)/∂z`, and the geometric stiffness of actuator, spring, point
//! and constraint forces (`f ∂J/∂z`, `∂Φ_zᵀ/∂z (αΦ + λ)`). They cost Newton a slightly
//! slower contraction, never accuracy: the converged solution is that of the residual.

use super::Layout;
use super::evaluate::{Evaluation, FirstOrderBase};
use crate::contact::ContactPoint;
use crate::contact::bristle::BristlePoint;
use crate::hydraulics::cylinder;
use crate::mechanics::dynamics::mass_matrix;
use crate::mechanics::end_stop;
use crate::mechanics::rope;
use crate::mechanics::spatial::Vec3;
use crate::model::{BRISTLE_STATES, CompiledModel, ForceElement};

/// Where a port acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PortKind {
    /// Cylinder `i`: its pin distance.
    Cylinder(usize),
    /// Motor `i` on joint coordinate `coordinate`.
    Motor { motor: usize, coordinate: usize },
}

#[derive(Clone, Debug)]
struct Port {
    kind: PortKind,
    /// First-order rows (indices into `w`) the port's motion changes: the volumes at its
    /// ports, a cylinder's friction states.
    rows: Vec<usize>,
}

/// The ports of a model in groups that share one partial evaluation (fixed per instance).
#[derive(Clone, Debug, Default)]
pub struct Ports {
    groups: Vec<Vec<Port>>,
}

impl Ports {
    pub fn of(m: &CompiledModel, l: &Layout) -> Ports {
        let volume = m.circuit.volume_indices();
        let rows_at = |nodes: &[usize]| -> Vec<usize> {
            let mut r: Vec<usize> = nodes.iter().filter_map(|&n| volume[n]).collect();
            r.sort_unstable();
            r.dedup();
            r
        };
        let mut ports = Vec::new();
        let mut friction = l.first_friction();
        for (i, c) in m.circuit.cylinders.iter().enumerate() {
            let mut rows = rows_at(&[c.cap_node, c.rod_node]);
            let states = c.friction.states();
            rows.extend(friction..friction + states);
            friction += states;
            ports.push(Port {
                kind: PortKind::Cylinder(i),
                rows,
            });
        }
        let coordinates = m.mechanism.coordinate_indices();
        for (i, mo) in m.circuit.motors.iter().enumerate() {
            if let Some(coordinate) = coordinates[mo.body] {
                ports.push(Port {
                    kind: PortKind::Motor {
                        motor: i,
                        coordinate,
                    },
                    rows: rows_at(&[mo.port_a, mo.port_b]),
                });
            }
        }
        // Greedy grouping: disjoint rows, and no two motors moving the same coordinate.
        let mut groups: Vec<Vec<Port>> = Vec::new();
        for port in ports {
            let fits = |g: &Vec<Port>| {
                g.iter().all(|q| {
                    let shared_coordinate = match (q.kind, port.kind) {
                        (
                            PortKind::Motor { coordinate: a, .. },
                            PortKind::Motor { coordinate: b, .. },
                        ) => a == b,
                        _ => false,
                    };
                    !shared_coordinate && q.rows.iter().all(|r| !port.rows.contains(r))
                })
            };
            match groups.iter_mut().find(|g| fits(g)) {
                Some(g) => g.push(port),
                None => groups.push(vec![port]),
            }
        }
        Ports { groups }
    }

    /// Partial evaluations one assembly costs.
    pub fn evaluations(&self) -> usize {
        self.groups.len()
    }
}

/// Buffers of the assembly, allocated once per instance.
pub struct AssemblyWork {
    composite: Vec<crate::mechanics::dynamics::CompositeInertia>,
    /// Mass matrix, row-major nz × nz.
    mass: Vec<f64>,
    /// The assembled joint-coordinate columns, column-major: column k at `k·n .. (k+1)·n`.
    pub(crate) columns: Vec<f64>,
    /// A spring's `J = ∂ℓ/∂z` and `J̇`.
    line: Vec<f64>,
    line_rate: Vec<f64>,
    /// `∂e/∂ż` and its rate of a rope's stretch, summed over its segments.
    rope: Vec<f64>,
    rope_rate: Vec<f64>,
    /// A contact point's Jacobians (penetration, slip along and across) and rates.
    contact: ContactRows,
    /// The ports' quantities at the linearisation point.
    base: PortBase,
    /// Per port (group order) its force or torque slopes `(∂/∂ℓ, ∂/∂ℓ̇)`, per first-order
    /// row the scaled residual slopes `(∂F_w/∂ℓ, ∂F_w/∂ℓ̇)` of the port that owns it.
    port_slope: Vec<(f64, f64)>,
    row_slope: Vec<(f64, f64)>,
}

impl AssemblyWork {
    pub fn new(m: &CompiledModel, l: &Layout) -> AssemblyWork {
        let n = l.nz + l.nw;
        AssemblyWork {
            composite: vec![Default::default(); m.mechanism.bodies.len()],
            mass: vec![0.0; l.nz * l.nz],
            columns: vec![0.0; n * l.nz],
            line: vec![0.0; l.nz],
            line_rate: vec![0.0; l.nz],
            rope: vec![0.0; l.nz],
            rope_rate: vec![0.0; l.nz],
            contact: ContactRows::new(l.nz),
            base: PortBase {
                line: vec![(0.0, 0.0); m.circuit.cylinders.len()],
                motor_rate: vec![0.0; m.circuit.motors.len()],
            },
            port_slope: vec![(0.0, 0.0); m.circuit.cylinders.len() + m.circuit.motors.len()],
            row_slope: vec![(0.0, 0.0); l.nw],
        }
    }
}

/// Each cylinder's pin distance and rate, each motor's joint rate.
struct PortBase {
    line: Vec<(f64, f64)>,
    motor_rate: Vec<f64>,
}

/// Adds `c · a aᵀ` to the columns (both vectors over the joint coordinates, mostly zero).
fn add_outer(columns: &mut [f64], n: usize, a: &[f64], c: f64) {
    for (k, &ak) in a.iter().enumerate() {
        if ak == 0.0 {
            continue;
        }
        let col = &mut columns[k * n..k * n + a.len()];
        for (x, &ai) in col.iter_mut().zip(a) {
            *x += c * ai * ak;
        }
    }
}

/// A line element (cylinder or spring) whose force `f(ℓ, ℓ̇)` acts along `j = J = ∂ℓ/∂z`:
/// along column k, ℓ moves by `J_k` and ℓ̇ by `2/h J_k + J̇_k` (`j_rate = J̇`), so the
/// generalised force `J f` moves by `J (a J_k + b (2/h J_k + J̇_k))` with `force = (a, b)`
/// its slopes, and each first-order row r by `a_r J_k + b_r (2/h J_k + J̇_k)` with
/// `row_slope[r] = (a_r, b_r)`. `mech` is +1 where the residual holds `+J f` (a spring's
/// tension), −1 where it holds `−J f` (an actuator's push).
struct LineElement<'a> {
    j: &'a [f64],
    j_rate: &'a [f64],
    force: (f64, f64),
    mech: f64,
    rows: &'a [usize],
    row_slope: &'a [(f64, f64)],
}

impl<'a> LineElement<'a> {
    /// A purely mechanical element whose force grows with ℓ (`+J f` in the residual): a
    /// spring, a taut rope, a contact's penetration or slip.
    fn mechanical(j: &'a [f64], j_rate: &'a [f64], force: (f64, f64)) -> LineElement<'a> {
        LineElement {
            j,
            j_rate,
            force,
            mech: 1.0,
            rows: &[],
            row_slope: &[],
        }
    }
}

/// Adds a line element's columns.
fn add_line(columns: &mut [f64], n: usize, two_over_h: f64, e: LineElement<'_>) {
    let nz = e.j.len();
    for (k, (&jk, &jdk)) in e.j.iter().zip(e.j_rate).enumerate() {
        if jk == 0.0 && jdk == 0.0 {
            continue;
        }
        let rate = two_over_h * jk + jdk;
        let col = &mut columns[k * n..(k + 1) * n];
        let t = e.mech * (e.force.0 * jk + e.force.1 * rate);
        if t != 0.0 {
            for (x, &ji) in col[..nz].iter_mut().zip(e.j) {
                *x += t * ji;
            }
        }
        for &r in e.rows {
            let (a, b) = e.row_slope[r];
            col[nz + r] += a * jk + b * rate;
        }
    }
}

/// Everything [`joint_columns`] reads besides the model.
pub(crate) struct AssemblyInput<'a> {
    pub p: &'a [f64],
    /// Joint coordinates at the linearisation point.
    pub z: &'a [f64],
    /// Joint rates and first-order states and rates at the linearisation point.
    pub zd: &'a mut [f64],
    pub w: &'a [f64],
    pub wd: &'a [f64],
    /// The scaled residual `F` there (its first-order rows are compared against).
    pub f: &'a [f64],
    /// Penalty, step, and each joint coordinate's finite-difference increment.
    pub alpha: f64,
    pub h: f64,
    pub increment: &'a dyn Fn(usize) -> f64,
}

/// Which port quantity a partial evaluation moves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Move {
    /// Pin distances (motors: nothing, their torque and flow do not depend on the angle).
    Length,
    /// Pin distance rates and motor joint rates.
    Rate,
}

/// Assembles the joint-coordinate columns into `work.columns` about the point where `eval`
/// holds a full evaluation and `base` its first-order linearisation
/// ([`Evaluation::capture_first_order_base`]). Leaves `eval`'s cylinder kinematics and the
/// joint rates as they were; errors on a non-finite entry.
pub(crate) fn joint_columns(
    m: &CompiledModel,
    l: &Layout,
    ports: &Ports,
    eval: &mut Evaluation,
    base: &FirstOrderBase,
    work: &mut AssemblyWork,
    mut input: AssemblyInput<'_>,
) -> Result<(), String> {
    let (nz, n) = (l.nz, l.nz + l.nw);
    let h = input.h;
    let s = 0.25 * h * h;
    let mech = &m.mechanism;

    // Inertia: ∂(h²/4 M z̈)/∂z = M.
    mass_matrix(mech, &eval.kin, &mut work.composite, &mut work.mass);
    let columns = &mut work.columns;
    columns.fill(0.0);
    for k in 0..nz {
        for i in 0..nz {
            columns[k * n + i] = work.mass[i * nz + k];
        }
    }

    // Modal stiffness and damping of the flexible bodies: h²/4 (K + 2/h D) on the diagonal.
    for (f, body) in mech.flexible.iter().enumerate() {
        let start = mech.modal_start(f);
        for (k, (stiffness, damping)) in body.stiffness.iter().zip(&body.damping).enumerate() {
            let c = start + k;
            columns[c * n + c] += s * (stiffness + 2.0 / h * damping);
        }
    }

    // Penalty: h²/4 αΦ_zᵀΦ_z, row by row of Φ_z.
    for r in 0..l.nc {
        add_outer(
            columns,
            n,
            &eval.phi_z[r * nz..(r + 1) * nz],
            s * input.alpha,
        );
    }

    // Springs and dampers: tension k·stretch + c·rate along the line, +J·tension in F_z.
    for f in &mech.forces {
        if let ForceElement::SpringDamper(sd) = f {
            let p = input.p;
            let (j, j_rate) = (&mut work.line, &mut work.line_rate);
            eval.kin.line_jacobian(mech, &sd.a, &sd.b, j, j_rate);
            let force = (s * p[sd.stiffness.index()], s * p[sd.damping.index()]);
            add_line(
                columns,
                n,
                2.0 / h,
                LineElement::mechanical(j, j_rate, force),
            );
        }
    }

    // Ropes while taut: tension slopes (∂T/∂e, ∂T/∂ė) along the stretch's Jacobian, the
    // segments' line Jacobians less the drum radius on the drum's coordinate.
    for (r, rs) in mech.ropes().zip(&eval.ropes) {
        let (kt, dt) = rope::tension_slopes(rs.stretch, rs.stretch_rate, rs.stiffness, rs.damping);
        if kt == 0.0 && dt == 0.0 {
            continue;
        }
        work.rope.fill(0.0);
        work.rope_rate.fill(0.0);
        for pair in r.path.windows(2) {
            let (j, j_rate) = (&mut work.line, &mut work.line_rate);
            eval.kin.line_jacobian(mech, &pair[0], &pair[1], j, j_rate);
            for i in 0..nz {
                work.rope[i] += j[i];
                work.rope_rate[i] += j_rate[i];
            }
        }
        if let Some(c) = eval.kin.bodies[r.drum].coordinate {
            work.rope[c] -= input.p[r.drum_radius.index()];
        }
        add_line(
            columns,
            n,
            2.0 / h,
            LineElement::mechanical(&work.rope, &work.rope_rate, (s * kt, s * dt)),
        );
    }

    // Contacts carrying force: the normal law along the penetration's Jacobian, friction
    // along and across the slip, and friction's share of the normal force's slopes.
    for (_, point) in eval.contact.active_points() {
        contact_columns(mech, eval, point, &mut work.contact, columns, n, h);
        if let Some(b) = &point.bristle {
            let z = &input.w[l.first_bristle() + b.state..][..BRISTLE_STATES];
            let z = Vec3::new(z[0], z[1], z[2]);
            bristle_columns(
                mech,
                eval,
                (point, b, z),
                &mut work.contact,
                columns,
                n,
                h,
                l,
            );
        }
    }

    // End stops: −∂τ/∂q + (2/h)(−∂τ/∂q̇) on the joint's diagonal while engaged.
    for f in &mech.forces {
        if let ForceElement::JointLimit(jl) = f
            && let Some(c) = eval.kin.bodies[jl.body].coordinate
        {
            let p = input.p;
            let (k, d) = end_stop::stiffness(
                input.z[c],
                input.zd[c],
                p[jl.lower.index()],
                p[jl.upper.index()],
                p[jl.stiffness.index()],
                p[jl.damping.index()],
            );
            columns[c * n + c] += s * (k + 2.0 / h * d);
        }
    }

    // Ports: per group two partial evaluations, every port's length moved, then its rate.
    for (i, cyl) in eval.cylinders.iter().enumerate() {
        work.base.line[i] = (cyl.length, cyl.speed);
    }
    for port in ports.groups.iter().flatten() {
        if let PortKind::Motor { motor, coordinate } = port.kind {
            work.base.motor_rate[motor] = input.zd[coordinate];
        }
    }
    let mut first = 0;
    for group in &ports.groups {
        for motion in [Move::Length, Move::Rate] {
            for port in group {
                move_port(m, port, motion, true, eval, &work.base, &mut input);
            }
            eval.run_first_order(m, l, input.p, input.zd, input.w, input.wd, base);
            for (g, port) in group.iter().enumerate() {
                let eps = port_step(port, motion, &work.base, &input);
                let slope = match port.kind {
                    PortKind::Cylinder(i) => {
                        (eval.cylinders[i].force - base.cylinder_force[i]) / eps
                    }
                    PortKind::Motor { motor, .. } => {
                        (eval.motors[motor].torque - base.motor_torque[motor]) / eps
                    }
                };
                let rows = port
                    .rows
                    .iter()
                    .map(|&r| (s * eval.r_first[r] - input.f[nz + r]) / eps);
                let finite = slope.is_finite();
                let entry = &mut work.port_slope[first + g];
                match motion {
                    Move::Length => entry.0 = slope,
                    Move::Rate => entry.1 = slope,
                }
                for (&r, d) in port.rows.iter().zip(rows) {
                    if !(finite && d.is_finite()) {
                        return Err("non-finite residual while forming the tangent".into());
                    }
                    match motion {
                        Move::Length => work.row_slope[r].0 = d,
                        Move::Rate => work.row_slope[r].1 = d,
                    }
                }
                move_port(m, port, motion, false, eval, &work.base, &mut input);
            }
        }
        for (g, port) in group.iter().enumerate() {
            let (a, b) = work.port_slope[first + g];
            match port.kind {
                PortKind::Cylinder(i) => {
                    let own = i * nz..(i + 1) * nz;
                    let element = LineElement {
                        j: &base.cylinder_jacobian[own.clone()],
                        j_rate: &base.cylinder_jacobian_rate[own],
                        force: (s * a, s * b),
                        mech: -1.0,
                        rows: &port.rows,
                        row_slope: &work.row_slope,
                    };
                    add_line(columns, n, 2.0 / h, element);
                }
                PortKind::Motor { coordinate, .. } => {
                    // q̇ moves by 2/h along its own column only.
                    let col = &mut columns[coordinate * n..(coordinate + 1) * n];
                    col[coordinate] -= s * b * 2.0 / h;
                    for &r in &port.rows {
                        col[nz + r] += work.row_slope[r].1 * 2.0 / h;
                    }
                }
            }
        }
        first += group.len();
    }
    Ok(())
}

/// Jacobian rows of one contact point: penetration, slip along, slip across, with rates;
/// zero outside `support`, the joint coordinates that move the point's bodies (ascending),
/// so that a point costs the square of its support and not the machine's coordinates.
struct ContactRows {
    rows: [Vec<f64>; 6],
    support: Vec<usize>,
}

impl ContactRows {
    fn new(nz: usize) -> ContactRows {
        ContactRows {
            rows: std::array::from_fn(|_| vec![0.0; nz]),
            support: Vec::with_capacity(nz),
        }
    }

    /// Clears the last point's rows and takes the support of `c`.
    fn focus(&mut self, mech: &crate::model::Mechanism, eval: &Evaluation, c: &ContactPoint) {
        for row in &mut self.rows {
            for &k in &self.support {
                row[k] = 0.0;
            }
        }
        self.support.clear();
        let support = &mut self.support;
        eval.kin.path(mech, Some(c.body), |k, _, _| support.push(k));
        if let Some(o) = c.other {
            eval.kin.path(mech, Some(o), |k, _, _| support.push(k));
        }
        self.support.sort_unstable();
        self.support.dedup();
    }
}

/// A mechanical line's `J`, `J̇` and force slopes `(∂f/∂ℓ, ∂f/∂ℓ̇)`.
type Line<'a> = (&'a [f64], &'a [f64], (f64, f64));

/// [`add_line`] for a mechanical line whose `J` and `J̇` are zero outside `support`.
fn add_supported_line(
    columns: &mut [f64],
    n: usize,
    two_over_h: f64,
    (j, j_rate, force): Line<'_>,
    support: &[usize],
) {
    for &k in support {
        let (jk, jdk) = (j[k], j_rate[k]);
        if jk == 0.0 && jdk == 0.0 {
            continue;
        }
        let t = force.0 * jk + force.1 * (two_over_h * jk + jdk);
        if t != 0.0 {
            let col = &mut columns[k * n..(k + 1) * n];
            for &i in support {
                col[i] += t * j[i];
            }
        }
    }
}

/// Adds one active contact point's columns. The residual holds `+s F_n j_δ` (`j_δ =
/// ∂δ/∂z`) and `+s f j_u` (friction `f` against the slip direction u): the normal law's
/// slopes act along `j_δ` like a spring's, friction's `∂f/∂s` along u and `f/s` across
/// it like dampers, and `∂f/∂F_n` couples the slip row to the normal law's slopes.
fn contact_columns(
    mech: &crate::model::Mechanism,
    eval: &Evaluation,
    c: &crate::contact::ContactPoint,
    work: &mut ContactRows,
    columns: &mut [f64],
    n: usize,
    h: f64,
) {
    let s = 0.25 * h * h;
    // The contact normal of two bodies turns with them; the tangent takes it as fixed
    // (a quasi-Newton step: the residual holds the exact force).
    // Along the slip and across it; not slipping at all, any two directions of the plane
    // (below the stiction speed both slopes are F_n μ_s/v_ε: isotropic).
    let stuck = c.direction == Vec3::zeros();
    let (along, across) = if stuck {
        let t = if c.normal.x.abs() < 0.9 {
            Vec3::x()
        } else {
            Vec3::y()
        };
        let t1 = (t - c.normal * c.normal.dot(&t)).normalize();
        (t1, c.normal.cross(&t1))
    } else {
        (c.direction, c.normal.cross(&c.direction))
    };
    work.focus(mech, eval, c);
    let support = &work.support;
    let [jd, jd_rate, ju, ju_rate, jw, jw_rate] = &mut work.rows;
    for (row, rate, d) in [
        (&mut *jd, &mut *jd_rate, -c.normal),
        (&mut *ju, &mut *ju_rate, along),
        (&mut *jw, &mut *jw_rate, across),
    ] {
        relative_jacobian(mech, eval, c, &d, support, row, rate);
    }
    let law = &c.normal_law;
    let friction = &c.friction_law;
    // Along the slip the law's own slope (not below zero: on the Stribeck curve it falls,
    // and a negative stiffness would make the tangent indefinite); Newton's updates are
    // kept from overshooting through stick by `slip_limiter`. Across it the secant f/s,
    // which is the exact rate of the force's turn with the slip.
    let along = friction.slope.max(0.0);
    let (slope_along, slope_across) = if stuck {
        (friction.secant, friction.secant)
    } else {
        (along, friction.secant)
    };
    let elements: [Line<'_>; 3] = [
        (jd, jd_rate, (s * law.slope, s * law.damping)),
        (ju, ju_rate, (0.0, s * slope_along)),
        (jw, jw_rate, (0.0, s * slope_across)),
    ];
    for element in elements {
        add_supported_line(columns, n, 2.0 / h, element, support);
    }
    // ∂(f j_u)/∂z_k through F_n: j_u · ∂f/∂F_n · (a j_δk + b (2/h j_δk + j̇_δk)).
    let coupling = s * friction.per_normal;
    if coupling != 0.0 {
        for &k in support {
            let (jk, jdk) = (jd[k], jd_rate[k]);
            let t = coupling * (law.slope * jk + law.damping * (2.0 / h * jk + jdk));
            if t == 0.0 {
                continue;
            }
            let col = &mut columns[k * n..(k + 1) * n];
            for &i in support {
                col[i] += t * ju[i];
            }
        }
    }
}

/// `∂(d·x)/∂z` of a contact point along world direction `d`, and its rate, into `row` and
/// `rate` (overwritten on `support`, zero elsewhere): of the motion relative to the other
/// body where there is one.
fn relative_jacobian(
    mech: &crate::model::Mechanism,
    eval: &Evaluation,
    c: &ContactPoint,
    d: &Vec3,
    support: &[usize],
    row: &mut [f64],
    rate: &mut [f64],
) {
    let kin = &eval.kin;
    for &k in support {
        row[k] = 0.0;
        rate[k] = 0.0;
    }
    let v = kin.bodies[c.body].velocity_at(&c.point);
    kin.direction_jacobian(mech, c.body, &c.point, &v, d, row, rate);
    if let Some(o) = c.other {
        let vo = kin.bodies[o].velocity_at(&c.point);
        kin.direction_jacobian(mech, o, &c.point, &vo, &-d, row, rate);
    }
}

/// The joint-coordinate columns of an active point's bristle rows `ż − v_t + ρ z` (ρ the
/// relaxation rate) and of the bristle force's slope through ρ. Along column k the slip
/// moves by `P (2/h J_k + J̇_k)`, ρ by `∇ρ·(2/h J_k + J̇_k)`: the rows move by
/// `−P(…) + z ∇ρ·(…)`, and the force `−P(σ0F_n z + σ1F_n (v_t − ρ z))` by
/// `σ1F_n P z ∇ρ·(…)` besides the damper along the slip ([`contact_columns`]). The
/// motion of the normal is left out, as there.
#[allow(clippy::too_many_arguments)]
fn bristle_columns(
    mech: &crate::model::Mechanism,
    eval: &Evaluation,
    (c, b, z): (&ContactPoint, &BristlePoint, Vec3),
    work: &mut ContactRows,
    columns: &mut [f64],
    n: usize,
    h: f64,
    l: &Layout,
) {
    let s = 0.25 * h * h;
    let first = l.nz + l.first_bristle() + b.state;
    let pz = z - c.normal * c.normal.dot(&z);
    work.focus(mech, eval, c);
    let support = &work.support;
    let relative = |d: &Vec3, row: &mut [f64], rate: &mut [f64]| {
        relative_jacobian(mech, eval, c, d, support, row, rate)
    };
    let [row, rate, jr, jr_rate, jf, jf_rate] = &mut work.rows;
    // ∇ρ·(2/h J_k + J̇_k), shared by the three rows and the force.
    relative(&b.relax_slope, jr, jr_rate);
    for (i, axis) in [Vec3::x(), Vec3::y(), Vec3::z()].into_iter().enumerate() {
        let d = axis - c.normal * c.normal.dot(&axis);
        relative(&d, row, rate);
        for &k in support {
            let slip = 2.0 / h * row[k] + rate[k];
            let relax = 2.0 / h * jr[k] + jr_rate[k];
            columns[k * n + first + i] -= s * (slip - z[i] * relax);
        }
    }
    // The force's share: −J_{Pz}ᵀ σ1F_n (∇ρ·…), J_{Pz} along P z (unnormalized).
    if b.damping != 0.0 && pz != Vec3::zeros() {
        relative(&pz, jf, jf_rate);
        for &k in support {
            let t = s * b.damping * (2.0 / h * jr[k] + jr_rate[k]);
            if t == 0.0 {
                continue;
            }
            let col = &mut columns[k * n..(k + 1) * n];
            for &i in support {
                col[i] -= t * jf[i];
            }
        }
    }
}

/// The increment a partial evaluation gives a port's quantity.
fn port_step(port: &Port, motion: Move, base: &PortBase, input: &AssemblyInput<'_>) -> f64 {
    let eps = match port.kind {
        PortKind::Cylinder(i) => 1.5e-8 * base.line[i].0.abs().max(0.01),
        PortKind::Motor { coordinate, .. } => (input.increment)(coordinate),
    };
    match motion {
        Move::Length => eps,
        Move::Rate => 2.0 / input.h * eps,
    }
}

/// Moves a port's quantity by its increment (`moved`) or restores it exactly from the
/// stored base.
fn move_port(
    m: &CompiledModel,
    port: &Port,
    motion: Move,
    moved: bool,
    eval: &mut Evaluation,
    base: &PortBase,
    input: &mut AssemblyInput<'_>,
) {
    let step = if moved {
        port_step(port, motion, base, input)
    } else {
        0.0
    };
    match port.kind {
        PortKind::Cylinder(i) => {
            let (mut length, mut speed) = base.line[i];
            match motion {
                Move::Length => length += step,
                Move::Rate => speed += step,
            }
            eval.cylinders[i] =
                cylinder::kinematics(&m.circuit.cylinders[i], input.p, length, speed);
        }
        PortKind::Motor { motor, coordinate } => {
            if motion == Move::Rate {
                input.zd[coordinate] = base.motor_rate[motor] + step;
            }
        }
    }
}

//! Mass properties: combining parts with the parallel-axis theorem.

/// Mass, centre of mass and inertia tensor about the centre of mass
/// (`[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`, tensor components, body axes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProps {
    pub mass: f64,
    pub com: [f64; 3],
    pub inertia: [f64; 6],
}

impl MassProps {
    pub fn point(mass: f64, at: [f64; 3]) -> MassProps {
        MassProps {
            mass,
            com: at,
            inertia: [0.0; 6],
        }
    }

    /// Slender uniform rod: m L²/12 about its centre perpendicular to its axis, 0 along it.
    pub fn rod(mass: f64, from: [f64; 3], to: [f64; 3]) -> MassProps {
        let d = sub(to, from);
        let l2 = dot(d, d);
        let centre = [
            (from[0] + to[0]) / 2.0,
            (from[1] + to[1]) / 2.0,
            (from[2] + to[2]) / 2.0,
        ];
        // I = m L²/12 (1 − û ûᵀ) = m/12 (L² 1 − d dᵀ)
        let k = mass / 12.0;
        let inertia = [
            k * (l2 - d[0] * d[0]),
            k * (l2 - d[1] * d[1]),
            k * (l2 - d[2] * d[2]),
            -k * d[0] * d[1],
            -k * d[0] * d[2],
            -k * d[1] * d[2],
        ];
        MassProps {
            mass,
            com: centre,
            inertia,
        }
    }

    /// Uniform box with edges `size` along the body axes.
    pub fn cuboid(mass: f64, center: [f64; 3], size: [f64; 3]) -> MassProps {
        let [a, b, c] = size;
        let k = mass / 12.0;
        MassProps {
            mass,
            com: center,
            inertia: [
                k * (b * b + c * c),
                k * (a * a + c * c),
                k * (a * a + b * b),
                0.0,
                0.0,
                0.0,
            ],
        }
    }

    /// Solid uniform cylinder of `radius` and `length` along the unit `axis`:
    /// m r²/2 about the axis, m (3 r² + L²)/12 about any diameter through the centre.
    pub fn cylinder(
        mass: f64,
        center: [f64; 3],
        axis: [f64; 3],
        radius: f64,
        length: f64,
    ) -> MassProps {
        let axial = mass * radius * radius / 2.0;
        let transverse = mass * (3.0 * radius * radius + length * length) / 12.0;
        // I = I_t 1 + (I_a − I_t) u uᵀ
        let k = axial - transverse;
        let u = axis;
        MassProps {
            mass,
            com: center,
            inertia: [
                transverse + k * u[0] * u[0],
                transverse + k * u[1] * u[1],
                transverse + k * u[2] * u[2],
                k * u[0] * u[1],
                k * u[0] * u[2],
                k * u[1] * u[2],
            ],
        }
    }

    /// Sum of parts: total mass, mass-weighted centre, inertia about the common centre.
    pub fn combine(parts: &[MassProps]) -> MassProps {
        let mass: f64 = parts.iter().map(|p| p.mass).sum();
        let mut com = [0.0; 3];
        if mass > 0.0 {
            for p in parts {
                for (c, x) in com.iter_mut().zip(p.com) {
                    *c += p.mass * x / mass;
                }
            }
        }
        let mut inertia = [0.0; 6];
        for p in parts {
            let shift = parallel_axis_shift(p.mass, sub(p.com, com));
            for i in 0..6 {
                inertia[i] += p.inertia[i] + shift[i];
            }
        }
        MassProps { mass, com, inertia }
    }

    /// Inertia tensor about another point `o` (body coordinates).
    pub fn inertia_about(&self, o: [f64; 3]) -> [f64; 6] {
        let shift = parallel_axis_shift(self.mass, sub(self.com, o));
        std::array::from_fn(|i| self.inertia[i] + shift[i])
    }
}

fn parallel_axis_shift(mass: f64, r: [f64; 3]) -> [f64; 6] {
    let r2 = dot(r, r);
    [
        mass * (r2 - r[0] * r[0]),
        mass * (r2 - r[1] * r[1]),
        mass * (r2 - r[2] * r[2]),
        -mass * r[0] * r[1],
        -mass * r[0] * r[2],
        -mass * r[1] * r[2],
    ]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naya_rod_inertia_about_the_pivot() {
        // Seed 002 §3.1: uniform rod 200 kg, L = 1 m, point mass 250 kg at the tip:
        // the paper's lumped M + m/3 = 316.67 kg on the tip, i.e. 316.67 kg·m² about A.
        let p = MassProps::combine(&[
            MassProps::rod(200.0, [0.0; 3], [1.0, 0.0, 0.0]),
            MassProps::point(250.0, [1.0, 0.0, 0.0]),
        ]);
        assert_eq!(p.mass, 450.0);
        assert!((p.com[0] - 350.0 / 450.0).abs() < 1e-15);
        let izz = p.inertia_about([0.0; 3])[2];
        assert!((izz - (250.0 + 200.0 / 3.0)).abs() < 1e-9, "{izz}");
        // Along the rod there is no inertia.
        assert!(p.inertia[0].abs() < 1e-12);
    }

    #[test]
    fn rod_and_box_formulas() {
        let r = MassProps::rod(225.0, [0.0; 3], [9.0, 0.0, 0.0]);
        assert!((r.inertia[2] - 1518.75).abs() < 1e-9);
        assert_eq!(r.com, [4.5, 0.0, 0.0]);
        // A diagonal rod has off-diagonal tensor components.
        let d = MassProps::rod(12.0, [0.0; 3], [1.0, 1.0, 0.0]);
        assert!((d.inertia[3] + 1.0).abs() < 1e-12);
        let b = MassProps::cuboid(12.0, [0.0; 3], [1.0, 2.0, 3.0]);
        assert_eq!(b.inertia[..3], [13.0, 10.0, 5.0]);
    }

    #[test]
    fn solid_cylinder_formulas() {
        // Along z: I_zz = m r²/2, I_xx = I_yy = m (3 r² + L²)/12.
        let c = MassProps::cylinder(12.0, [0.0; 3], [0.0, 0.0, 1.0], 0.5, 2.0);
        assert!((c.inertia[2] - 1.5).abs() < 1e-12);
        assert!((c.inertia[0] - (3.0 * 0.25 + 4.0)).abs() < 1e-12);
        assert_eq!(c.inertia[0], c.inertia[1]);
        assert_eq!(c.inertia[3..], [0.0, 0.0, 0.0]);
        // A tilted axis gives the rotated tensor: about the axis still m r²/2.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let t = MassProps::cylinder(12.0, [0.0; 3], [h, h, 0.0], 0.5, 2.0);
        let i = t.inertia;
        let about_axis = h * h * (i[0] + i[1] + 2.0 * i[3]);
        assert!((about_axis - 1.5).abs() < 1e-12, "{about_axis}");
        // A very thin cylinder is a rod.
        let thin = MassProps::cylinder(3.0, [0.5, 0.0, 0.0], [1.0, 0.0, 0.0], 0.0, 1.0);
        let rod = MassProps::rod(3.0, [0.0; 3], [1.0, 0.0, 0.0]);
        for k in 0..6 {
            assert!((thin.inertia[k] - rod.inertia[k]).abs() < 1e-15);
        }
    }
}

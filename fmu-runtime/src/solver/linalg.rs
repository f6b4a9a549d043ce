//! Dense LU with partial pivoting on caller-owned buffers (row-major), so the step loop
//! never allocates. The systems are small (tens of unknowns) and non-symmetric (the
//! monolithic tangent couples pressures and positions one way only: seed 002 trap T2).

/// Factors `a` (n×n, row-major) in place. Rows, then columns, are equilibrated first
/// (`scale[..n]` rows, `scale[n..2n]` columns, kept for the solve), which keeps pivoting
/// and the singularity test meaningful when rows and unknowns carry different units
/// (forces and flows; radians and pascals). `scale` must hold 2n entries.
pub fn lu_factor(
    a: &mut [f64],
    n: usize,
    piv: &mut [usize],
    scale: &mut [f64],
) -> Result<(), String> {
    // As in `lu_solve`: up to 8 unknowns the size is a constant and the loops unroll (the
    // projection and multiplier blocks of a small loop are factored every step).
    match n {
        0 => Ok(()),
        1 => factor_any(a, 1, piv, scale),
        2 => factor_any(a, 2, piv, scale),
        3 => factor_any(a, 3, piv, scale),
        4 => factor_any(a, 4, piv, scale),
        5 => factor_any(a, 5, piv, scale),
        6 => factor_any(a, 6, piv, scale),
        7 => factor_any(a, 7, piv, scale),
        8 => factor_any(a, 8, piv, scale),
        _ => factor_any(a, n, piv, scale),
    }
}

/// [`lu_factor`] for any size; inlined with `n` a constant for small systems.
#[inline(always)]
fn factor_any(a: &mut [f64], n: usize, piv: &mut [usize], scale: &mut [f64]) -> Result<(), String> {
    let (a, piv) = (&mut a[..n * n], &mut piv[..n]);
    let (row_scale, col_scale) = scale[..2 * n].split_at_mut(n);
    for i in 0..n {
        let m = a[i * n..(i + 1) * n]
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()));
        if !(m.is_finite() && m > 0.0) {
            return Err(format!(
                "tangent matrix row {i} is {}",
                if m == 0.0 { "zero" } else { "not finite" }
            ));
        }
        row_scale[i] = 1.0 / m;
        for v in &mut a[i * n..(i + 1) * n] {
            *v /= m;
        }
    }
    for j in 0..n {
        let m = (0..n).fold(0.0f64, |m, i| m.max(a[i * n + j].abs()));
        if m == 0.0 {
            return Err(format!("tangent matrix column {j} is zero"));
        }
        col_scale[j] = 1.0 / m;
        for i in 0..n {
            a[i * n + j] /= m;
        }
    }
    for k in 0..n {
        let (mut p, mut best) = (k, a[k * n + k].abs());
        for i in k + 1..n {
            let v = a[i * n + k].abs();
            if v > best {
                p = i;
                best = v;
            }
        }
        if best < 1e-14 {
            return Err(format!("tangent matrix is singular at column {k}"));
        }
        piv[k] = p;
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
        }
        let d = a[k * n + k];
        for i in k + 1..n {
            let f = a[i * n + k] / d;
            a[i * n + k] = f;
            if f != 0.0 {
                for j in k + 1..n {
                    a[i * n + j] -= f * a[k * n + j];
                }
            }
        }
    }
    Ok(())
}

/// Solves `A x = b` in place with the factors of [`lu_factor`].
pub fn lu_solve(a: &[f64], n: usize, piv: &[usize], scale: &[f64], b: &mut [f64]) {
    // This runs once per Newton iteration. On the few unknowns of a small machine the set-up
    // of loops whose length is only known at run time costs several times the arithmetic
    // (a 4 × 4 solve took 420 instructions): up to 8 unknowns the size is a constant and
    // the loops unroll.
    match n {
        0 => {}
        1 => solve_sized::<1>(a, piv, scale, b),
        2 => solve_sized::<2>(a, piv, scale, b),
        3 => solve_sized::<3>(a, piv, scale, b),
        4 => solve_sized::<4>(a, piv, scale, b),
        5 => solve_sized::<5>(a, piv, scale, b),
        6 => solve_sized::<6>(a, piv, scale, b),
        7 => solve_sized::<7>(a, piv, scale, b),
        8 => solve_sized::<8>(a, piv, scale, b),
        _ => solve_any(a, n, piv, scale, b),
    }
}

/// [`lu_solve`] for `N` unknowns known at compile time. The divisions by the pivots do not
/// depend on `b`: taken first, they overlap with the forward substitution instead of
/// lengthening the back substitution's chain of dependent operations.
#[inline(always)]
fn solve_sized<const N: usize>(a: &[f64], piv: &[usize], scale: &[f64], b: &mut [f64]) {
    let mut per_pivot = [0.0; N];
    for (i, r) in per_pivot.iter_mut().enumerate() {
        *r = 1.0 / a[i * N + i];
    }
    substitute(a, N, piv, scale, b, |i, s| s * per_pivot[i]);
}

/// [`lu_solve`] for any size.
fn solve_any(a: &[f64], n: usize, piv: &[usize], scale: &[f64], b: &mut [f64]) {
    substitute(a, n, piv, scale, b, |i, s| s / a[i * n + i]);
}

/// Forward and back substitution with the scaled, pivoted factors; `divide(i, s)` is
/// `s / a_ii`. Inlined with `n` a constant into [`solve_sized`].
#[inline(always)]
fn substitute(
    a: &[f64],
    n: usize,
    piv: &[usize],
    scale: &[f64],
    b: &mut [f64],
    divide: impl Fn(usize, f64) -> f64,
) {
    // Slices of exact length let the compiler drop the bounds checks.
    let (a, piv, b) = (&a[..n * n], &piv[..n], &mut b[..n]);
    let (row_scale, col_scale) = (&scale[..n], &scale[n..2 * n]);
    for i in 0..n {
        b[i] *= row_scale[i];
    }
    for k in 0..n {
        b.swap(k, piv[k]);
    }
    for i in 0..n {
        let row = &a[i * n..i * n + n];
        let mut s = b[i];
        for j in 0..i {
            s -= row[j] * b[j];
        }
        b[i] = s;
    }
    for i in (0..n).rev() {
        let row = &a[i * n..i * n + n];
        let mut s = b[i];
        for j in i + 1..n {
            s -= row[j] * b[j];
        }
        b[i] = divide(i, s);
    }
    for j in 0..n {
        b[j] *= col_scale[j];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_badly_scaled_nonsymmetric_system() {
        let n = 3;
        let mut a = vec![1e-9, 2.0, 0.0, 3e6, 0.0, 1e6, 0.0, 1.0, 4.0];
        let x_true = [1.0, -2.0, 0.5];
        let mut b: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| a[i * n + j] * x_true[j]).sum())
            .collect();
        let (mut piv, mut rs) = (vec![0; n], vec![0.0; 2 * n]);
        lu_factor(&mut a, n, &mut piv, &mut rs).unwrap();
        lu_solve(&a, n, &piv, &rs, &mut b);
        for i in 0..n {
            assert!((b[i] - x_true[i]).abs() < 1e-12, "{b:?}");
        }
    }

    #[test]
    fn reports_singular() {
        let mut a = vec![1.0, 2.0, 2.0, 4.0];
        assert!(lu_factor(&mut a, 2, &mut [0; 2], &mut [0.0; 4]).is_err());
    }
}

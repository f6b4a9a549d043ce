//! Reading FE mass and stiffness matrices in Matrix Market coordinate format (what
//! `scipy.io.mmwrite` and many FE codes write; NIST, *The Matrix Market Exchange Formats*,
//! 1996): `%%MatrixMarket matrix coordinate real general|symmetric`, comment lines, the
//! size line `rows cols entries`, then one `i j value` per line, 1-based. A symmetric file
//! lists one triangle. Every error names the line and says what was expected.

/// A sparse square matrix as triplets (0-based, both triangles for a symmetric file).
#[derive(Clone, Debug, PartialEq)]
pub struct Triplets {
    pub size: usize,
    pub entries: Vec<(usize, usize, f64)>,
}

impl Triplets {
    /// Dense form (small models and tests).
    pub fn dense(&self) -> nalgebra::DMatrix<f64> {
        let mut a = nalgebra::DMatrix::zeros(self.size, self.size);
        for &(i, j, v) in &self.entries {
            a[(i, j)] += v;
        }
        a
    }

    /// The non-zero entries of a dense matrix, column by column.
    pub fn from_dense(a: &nalgebra::DMatrix<f64>) -> Triplets {
        let mut entries = Vec::new();
        for j in 0..a.ncols() {
            for i in 0..a.nrows() {
                if a[(i, j)] != 0.0 {
                    entries.push((i, j, a[(i, j)]));
                }
            }
        }
        Triplets {
            size: a.nrows(),
            entries,
        }
    }
}

/// Parses the text of a Matrix Market file; `what` names it in errors ("mass.mtx").
pub fn parse(text: &str, what: &str) -> Result<Triplets, String> {
    let err = |line: usize, msg: String| Err(format!("{what}:{line}: {msg}"));
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let Some((_, header)) = lines.next() else {
        return err(1, "empty file; expected the header %%MatrixMarket matrix coordinate real general|symmetric".into());
    };
    let words: Vec<String> = header.split_whitespace().map(str::to_lowercase).collect();
    let symmetric = match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [
            "%%matrixmarket",
            "matrix",
            "coordinate",
            "real" | "double",
            "general",
        ] => false,
        [
            "%%matrixmarket",
            "matrix",
            "coordinate",
            "real" | "double",
            "symmetric",
        ] => true,
        _ => {
            return err(
                1,
                format!(
                    "header {header:?}: expected %%MatrixMarket matrix coordinate real general (or symmetric); write the file with scipy.io.mmwrite of a sparse matrix"
                ),
            );
        }
    };
    let mut data = lines.filter(|(_, l)| !l.is_empty() && !l.starts_with('%'));
    let Some((at, size_line)) = data.next() else {
        return err(2, "no size line `rows cols entries`".into());
    };
    let numbers: Vec<&str> = size_line.split_whitespace().collect();
    let [rows, cols, count] = numbers[..] else {
        return err(
            at,
            format!("size line {size_line:?}: expected `rows cols entries`"),
        );
    };
    let parse_usize = |s: &str, at: usize, name: &str| {
        s.parse::<usize>()
            .map_err(|_| format!("{what}:{at}: {name} {s:?} is not a non-negative integer"))
    };
    let (rows, cols, count) = (
        parse_usize(rows, at, "rows")?,
        parse_usize(cols, at, "columns")?,
        parse_usize(count, at, "entries")?,
    );
    if rows != cols || rows == 0 {
        return err(
            at,
            format!("a {rows}×{cols} matrix: mass and stiffness are square and not empty"),
        );
    }
    let mut entries = Vec::with_capacity(if symmetric { 2 * count } else { count });
    let mut seen = 0;
    for (at, line) in data {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [i, j, v] = parts[..] else {
            return err(at, format!("entry {line:?}: expected `row column value`"));
        };
        let (i, j) = (parse_usize(i, at, "row")?, parse_usize(j, at, "column")?);
        if !(1..=rows).contains(&i) || !(1..=rows).contains(&j) {
            return err(
                at,
                format!("entry ({i}, {j}) outside the {rows}×{rows} matrix (indices are 1-based)"),
            );
        }
        let v: f64 = v
            .parse()
            .map_err(|_| format!("{what}:{at}: value {v:?} is not a number"))?;
        if !v.is_finite() {
            return err(at, format!("value {v} is not finite"));
        }
        if symmetric && j > i {
            return err(
                at,
                format!(
                    "entry ({i}, {j}) above the diagonal in a symmetric file, which lists the lower triangle only"
                ),
            );
        }
        entries.push((i - 1, j - 1, v));
        if symmetric && i != j {
            entries.push((j - 1, i - 1, v));
        }
        seen += 1;
    }
    if seen != count {
        return err(
            text.lines().count(),
            format!("{seen} entries where the size line announces {count} (truncated file?)"),
        );
    }
    Ok(Triplets {
        size: rows,
        entries,
    })
}

/// Checks a mass matrix: symmetric (to 1e-9 of its largest entry) and positive definite.
pub fn check_mass(m: &nalgebra::DMatrix<f64>, what: &str) -> Result<(), String> {
    let scale = m.amax().max(1e-300);
    let asym = (m - m.transpose()).amax();
    if asym > 1e-9 * scale {
        return Err(format!(
            "{what}: the mass matrix is not symmetric (|M − Mᵀ| up to {asym:.3e} against entries up to {scale:.3e})"
        ));
    }
    if m.clone().cholesky().is_none() {
        return Err(format!(
            "{what}: the mass matrix is not positive definite (a DOF without mass, or a wrong sign); check the FE export"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYM: &str = "%%MatrixMarket matrix coordinate real symmetric\n% from scipy\n3 3 4\n1 1 2.0\n2 1 -1.0\n2 2 2.0\n3 3 1.5\n";

    #[test]
    fn a_symmetric_file_gives_both_triangles() {
        let t = parse(SYM, "k.mtx").unwrap();
        let a = t.dense();
        assert_eq!(a[(0, 1)], -1.0);
        assert_eq!(a[(1, 0)], -1.0);
        assert_eq!(a[(2, 2)], 1.5);
        assert!(check_mass(&a, "k.mtx").is_ok());
    }

    #[test]
    fn malformed_files_are_refused_with_their_line() {
        let cases = [
            (
                "%%MatrixMarket matrix array real general\n2 2\n",
                "k.mtx:1: header",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n",
                "k.mtx:2: a 2×3 matrix",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 x 1\n",
                "k.mtx:4: column \"x\"",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n",
                "k.mtx:3: entry (3, 1) outside",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n",
                "announces 2",
            ),
            (
                "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n",
                "k.mtx:3: entry (1, 2) above the diagonal",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n",
                "k.mtx:3: value NaN is not finite",
            ),
        ];
        for (text, needle) in cases {
            let e = parse(text, "k.mtx").unwrap_err();
            assert!(e.contains(needle), "{e:?} lacks {needle:?}");
        }
    }

    #[test]
    fn a_non_symmetric_or_indefinite_mass_matrix_is_refused() {
        let general =
            "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n1 2 0.5\n2 2 1\n";
        let m = parse(general, "m.mtx").unwrap().dense();
        assert!(
            check_mass(&m, "m.mtx")
                .unwrap_err()
                .contains("not symmetric")
        );
        let indefinite = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n2 2 -1\n";
        let m = parse(indefinite, "m.mtx").unwrap().dense();
        assert!(
            check_mass(&m, "m.mtx")
                .unwrap_err()
                .contains("not positive definite")
        );
    }
}

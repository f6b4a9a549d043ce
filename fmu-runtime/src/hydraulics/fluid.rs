//! Bulk modulus of oil and the effective modulus of a compliant volume.

use crate::model::BulkModulus;

/// Oil bulk modulus at pressure `p` [Pa].
pub fn oil_bulk_modulus(law: &BulkModulus, params: &[f64], p: f64) -> f64 {
    match *law {
        BulkModulus::Constant(b) => params[b.index()],
        BulkModulus::PressureDependent { a, b } => {
            // Seed 002 eq 3: β = (1 + a p + b p²)/(a + 2 b p).
            let (a, b) = (params[a.index()], params[b.index()]);
            (1.0 + a * p + b * p * p) / (a + 2.0 * b * p)
        }
    }
}

/// Effective bulk modulus of a volume made of sub-volumes with compliant walls
/// (seed 001 eq 2.35): `1/β_e = 1/β_oil + Σ (V_k/V)/β_k`. `walls` yields `(V_k, β_k)`.
pub fn effective_bulk_modulus(
    beta_oil: f64,
    volume: f64,
    walls: impl Iterator<Item = (f64, f64)>,
) -> f64 {
    let mut compliance = 1.0 / beta_oil;
    for (v_k, beta_k) in walls {
        compliance += v_k / (volume * beta_k);
    }
    1.0 / compliance
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_001_effective_moduli() {
        // Seed 001 Pub I: hose only 402.4 MPa; piston side ≈1364 MPa (digest §3.1).
        let b1 = effective_bulk_modulus(1500e6, 4.71e-5, [(4.71e-5, 550e6)].into_iter());
        assert!((b1 / 1e6 - 402.4).abs() < 0.1, "{b1}");
        let a2 = std::f64::consts::PI * 0.08f64.powi(2) / 4.0;
        let v_ch = a2 * (2f64.sqrt() - 1.1);
        let v = 3.14e-5 + v_ch;
        let b2 = effective_bulk_modulus(1500e6, v, [(3.14e-5, 550e6), (v_ch, 31500e6)].into_iter());
        assert!((b2 / 1e6 - 1364.0).abs() < 1.0, "{b2}");
    }
}

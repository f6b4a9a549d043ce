//! The oil (density, bulk modulus, vapour pressure) and its entrained air.

use super::passage::{P, PLAIN};
use crate::description::{BulkModulusDesc, HydraulicsDesc, OilDesc};
use crate::lower::{Ctx, Expect};
use crate::units::Dim;
use fmu_runtime::hydraulics::fluid::ATMOSPHERE;
use fmu_runtime::model::{BulkModulus, EntrainedAir, Oil};
use toml::Spanned;

pub(super) fn lower_oil(cx: &mut Ctx, h: &HydraulicsDesc) -> Oil {
    let has_circuit = !(h.pressure_sources.is_empty() && h.volumes.is_empty());
    let (density, bulk) = match &h.oil {
        Some(o) => {
            let rho = cx.value(&o.density, Expect::Dim(Dim::DENSITY));
            cx.require_positive(&o.density, rho, "density");
            (rho, Some((&o.bulk_modulus, o.density.span())))
        }
        None => {
            if has_circuit {
                let span = h
                    .pressure_sources
                    .first()
                    .map(|s| s.name.span())
                    .or_else(|| h.volumes.first().map(|v| v.name.span()))
                    .unwrap_or(0..0);
                cx.error(
                    span,
                    "the hydraulic circuit has no oil properties",
                    "add [hydraulics.oil] with density = \"850 kg/m3\" and bulk_modulus = \"1500 MPa\"",
                );
            }
            (850.0, None)
        }
    };
    cx.density = if density > 0.0 { density } else { 850.0 };
    let density = cx.slot(
        "oil.density".into(),
        density,
        Expect::Dim(Dim::DENSITY),
        "Oil density",
    );
    let bulk_modulus = match bulk {
        None => {
            BulkModulus::Constant(cx.slot("oil.bulk_modulus".into(), 1.5e9, P, "Oil bulk modulus"))
        }
        Some((b, fallback)) => match b.get_ref() {
            BulkModulusDesc::Constant(v) => {
                let q = Spanned::new(b.span_or(fallback.clone()), v.clone());
                let beta = cx.value(&q, P);
                cx.require_positive(&q, beta, "bulk_modulus");
                BulkModulus::Constant(cx.slot(
                    "oil.bulk_modulus".into(),
                    beta,
                    P,
                    "Oil bulk modulus",
                ))
            }
            BulkModulusDesc::Law(law) => {
                let a = cx.value(&law.a, Expect::Dim(Dim::INVERSE_PRESSURE));
                let bb = cx.value(&law.b, Expect::Dim(Dim::INVERSE_PRESSURE_SQUARED));
                cx.require_positive(&law.a, a, "a");
                BulkModulus::PressureDependent {
                    a: cx.slot(
                        "oil.bulk_modulus.a".into(),
                        a,
                        Expect::Dim(Dim::INVERSE_PRESSURE),
                        "Bulk-modulus law coefficient a (β = (1 + a p + b p²)/(a + 2 b p))",
                    ),
                    b: cx.slot(
                        "oil.bulk_modulus.b".into(),
                        bb,
                        Expect::Dim(Dim::INVERSE_PRESSURE_SQUARED),
                        "Bulk-modulus law coefficient b",
                    ),
                }
            }
        },
    };
    let air = lower_air(cx, h.oil.as_ref());
    Oil {
        density,
        bulk_modulus,
        air,
    }
}

/// Pressures are absolute: one below the oil's vapour pressure is a gauge pressure written
/// by mistake (a tank at `0`) or a state oil cannot be in.
pub(super) fn require_above_vapour(
    cx: &mut Ctx,
    q: &crate::description::Quantity,
    p: f64,
    vapour: f64,
    what: &str,
) {
    if p.is_finite() && p < vapour {
        cx.error(
            q.span(),
            format!("{what} is {p} Pa, below the oil's vapour pressure ({vapour} Pa)"),
            "pressures are absolute: a tank open to the air is \"1 bar\" (1.013 bar), not 0",
        );
    }
}

/// Undissolved air per liquid volume at atmospheric pressure when none is given (our
/// choice: 0.1 %, within the 0.1–1 % usually quoted for mobile hydraulics, at the low end
/// so that working pressures above ~30 bar keep 98 % of the liquid's modulus).
pub(super) const DEFAULT_AIR_FRACTION: f64 = 1e-3;
/// Polytropic index of the entrained air when none is given (our choice: isothermal, as
/// Simscape's isothermal-liquid default; small bubbles exchange heat quickly).
pub(super) const DEFAULT_AIR_INDEX: f64 = 1.0;
/// Vapour pressure when none is given (our choice: 1 kPa absolute; mineral oils boil
/// below that at working temperature, so the bound errs on the safe side by < 0.01 bar).
pub(super) const DEFAULT_VAPOUR_PRESSURE: f64 = 1e3;

pub(super) fn lower_air(cx: &mut Ctx, oil: Option<&OilDesc>) -> EntrainedAir {
    let (fraction, index, vapour) = match oil {
        Some(o) => (
            o.air_fraction.as_ref(),
            o.air_polytropic_index.as_ref(),
            o.vapour_pressure.as_ref(),
        ),
        None => (None, None, None),
    };
    let alpha = cx.value_or(fraction, PLAIN, DEFAULT_AIR_FRACTION);
    if let Some(q) = fraction
        && alpha.is_finite()
        && !(alpha > 0.0 && alpha <= 0.2)
    {
        cx.error(
            q.span(),
            format!("air_fraction {alpha} is outside (0, 0.2]"),
            "give the undissolved air per liquid volume at atmospheric pressure, e.g. 0.001 (0.1 %); it must be positive: oil without air has nothing to hold it above vapour pressure",
        );
    }
    let n = cx.value_or(index, PLAIN, DEFAULT_AIR_INDEX);
    if let Some(q) = index
        && n.is_finite()
        && !(1.0..=2.0).contains(&n)
    {
        cx.error(
            q.span(),
            format!("air_polytropic_index {n} is outside 1 (isothermal) … 2"),
            "give 1.0 for isothermal air (the default), 1.4 for adiabatic",
        );
    }
    let pv = cx.value_or(vapour, P, DEFAULT_VAPOUR_PRESSURE);
    if let Some(q) = vapour
        && pv.is_finite()
        && !(0.0..=0.5 * ATMOSPHERE).contains(&pv)
    {
        cx.error(
            q.span(),
            format!("vapour_pressure {pv} Pa is outside 0 … 0.5 atm (absolute)"),
            "give the absolute pressure at which the oil boils, e.g. \"0.01 bar\" (mineral oil)",
        );
    }
    EntrainedAir {
        fraction: cx.slot(
            "oil.air_fraction".into(),
            alpha,
            PLAIN,
            "Undissolved air per liquid volume at atmospheric pressure",
        ),
        polytropic_index: cx.slot(
            "oil.air_polytropic_index".into(),
            n,
            PLAIN,
            "Polytropic index of the entrained air",
        ),
        vapour_pressure: cx.slot(
            "oil.vapour_pressure".into(),
            pv,
            P,
            "Vapour pressure of the oil (absolute)",
        ),
    }
}

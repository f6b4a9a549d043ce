//! Directional-valve metering edges and spool dead band.

use crate::model::MeteringEdge;

/// Flow coefficient of an edge at spool position `u`: piecewise linear, held constant
/// beyond the table ends, never negative.
#[inline]
pub fn edge_coefficient(edge: &MeteringEdge, u: f64) -> f64 {
    let t = &edge.table;
    let k = if u <= t[0].0 {
        t[0].1
    } else if u >= t[t.len() - 1].0 {
        t[t.len() - 1].1
    } else {
        // The segment holding u: on the few points of a typical edge a scan costs less
        // than a search (the count of points at or left of u, less the first).
        let i = if t.len() <= 8 {
            t[1..].iter().take_while(|&&(x, _)| x <= u).count()
        } else {
            t.partition_point(|&(x, _)| x <= u) - 1
        };
        let (x0, y0) = t[i];
        let (x1, y1) = t[i + 1];
        y0 + (y1 - y0) * (u - x0) / (x1 - x0)
    };
    k.max(0.0)
}

/// Spool set-point for a command: inside the dead band the spool stays at the centre;
/// outside, the command is shifted by the band so the map is continuous.
pub fn dead_band(command: f64, centre: f64, band: f64) -> f64 {
    let d = command - centre;
    if d.abs() <= band {
        centre
    } else {
        command - band * d.signum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EdgeLaw;

    #[test]
    fn interpolates_and_clamps() {
        let e = MeteringEdge {
            table: vec![(-10.0, 0.0), (0.0, 0.0), (10.0, 2.0)],
            law: EdgeLaw::Orifice,
        };
        assert_eq!(edge_coefficient(&e, -20.0), 0.0);
        assert_eq!(edge_coefficient(&e, 5.0), 1.0);
        assert_eq!(edge_coefficient(&e, 12.0), 2.0);
        assert_eq!(dead_band(0.5, 0.0, 1.0), 0.0);
        assert_eq!(dead_band(3.0, 0.0, 1.0), 2.0);
        assert_eq!(dead_band(-3.0, 0.0, 1.0), -2.0);
    }
}

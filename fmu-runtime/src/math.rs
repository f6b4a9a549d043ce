//! The solver's transcendental functions, from the pure-Rust `libm` crate (a port of musl's
//! libm) rather than the platform's C library.
//!
//! An FMU must give the same numbers on every platform it ships for: the C libraries do not
//! (glibc picks FMA variants by CPU, win64 takes `exp`/`pow`/`tanh`/`atan2` from msvcrt and
//! `sin`/`cos` from mingwex; states differed by 5e-11 relative between linux64 and win64).
//! With these, linux64, win64 and ARM64 are bit-identical. The rest is deterministic
//! already: `+ − × ÷` and `sqrt` are IEEE-754 correctly rounded, and Rust never contracts
//! `a * b + c` into an FMA. `fmu-runtime/clippy.toml` forbids the `f64` methods these replace.
//!
//! ```
//! use fmu_runtime::math;
//! assert_eq!(math::exp(0.0), 1.0);
//! assert_eq!(math::atan2(1.0, 1.0), std::f64::consts::FRAC_PI_4);
//! ```

/// eˣ.
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// xʸ.
#[inline]
pub fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// Hyperbolic tangent.
#[inline]
pub fn tanh(x: f64) -> f64 {
    libm::tanh(x)
}

/// Four-quadrant arctangent of y/x.
#[inline]
pub fn atan2(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}

/// (sin x, cos x).
#[inline]
pub fn sin_cos(x: f64) -> (f64, f64) {
    libm::sincos(x)
}

//! hydromech model compiler.

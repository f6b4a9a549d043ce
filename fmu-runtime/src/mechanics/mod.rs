//! Semi-recursive kinematics and dynamics in relative joint coordinates.

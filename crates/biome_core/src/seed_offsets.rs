//! Seed offsets of the world's fields (the tutorial's climate uses `seed + 1` and `seed + 2`).

/// Temperature noise.
pub const HEAT: i64 = 1;
/// Moisture noise.
pub const WET: i64 = 2;
/// Region border wobble.
pub const WOBBLE: i64 = 5;
/// Region site scattering.
pub const SITES: i64 = 6;
/// Tree spots.
pub const TREES: i64 = 7;
/// Forest clumping noise.
pub const FORESTS: i64 = 8;
/// River nodes, springs and bends.
pub const RIVERS: i64 = 9;
/// Scatter candidates (each layer adds the stable hash of its name).
pub const SCATTER: i64 = 12;

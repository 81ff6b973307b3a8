//! Benchmarks of `biome_core` and `bevy_biome_world`; the code is in `benches/`:
//!
//! - `cargo bench -p biome_benches --bench noise`: noise, fBm, domain warp, world samples and
//!   chunk builds, against noise-rs and fastnoise-lite in the same run (criterion);
//! - `cargo bench -p biome_benches --bench streaming`: the plugin streaming a world headlessly.

//! Position hashing: well-mixed 64-bit values from a world seed and integer grid coordinates,
//! so every per-cell choice (region sites, tree candidates) is a pure function of position.

/// Mixes 64 bits thoroughly (the `SplitMix64` finaliser).
#[inline]
#[must_use]
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a of `bytes`: a hash every platform and release agrees on, for names that seed and for
/// file checks.
#[must_use]
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A hash of `(seed, x, z)` for one purpose, `salt`: different salts give unrelated values.
#[inline]
#[must_use]
pub(crate) fn hash_cell(seed: i64, x: i64, z: i64, salt: u64) -> u64 {
    let h = mix((seed as u64) ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let h = mix(h ^ (x as u64).wrapping_mul(0xd6e8_feb8_6659_fd93));
    mix(h ^ (z as u64).wrapping_mul(0xa076_1d64_78bd_642f))
}

/// The top 53 bits of `h` as a float in `0.0..1.0`.
#[inline]
#[must_use]
pub(crate) fn unit(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Salts: one per use of [`hash_cell`].
pub(crate) mod salt {
    /// Region site, x offset.
    pub(crate) const SITE_X: u64 = 1;
    /// Region site, z offset.
    pub(crate) const SITE_Z: u64 = 2;
    /// Tree candidate, x offset.
    pub(crate) const TREE_X: u64 = 3;
    /// Tree candidate, z offset.
    pub(crate) const TREE_Z: u64 = 4;
    /// Tree candidate, keep-or-drop draw.
    pub(crate) const TREE_KEEP: u64 = 5;
    /// Tree species draw.
    pub(crate) const TREE_SPECIES: u64 = 6;
    /// Tree size and rotation.
    pub(crate) const TREE_SHAPE: u64 = 7;
    /// River node, x offset.
    pub(crate) const RIVER_X: u64 = 8;
    /// River node, z offset.
    pub(crate) const RIVER_Z: u64 = 9;
    /// River spring draw.
    pub(crate) const RIVER_SPRING: u64 = 10;
    /// River bends.
    pub(crate) const RIVER_MEANDER: u64 = 11;
    /// Scatter candidates: this salt for a cell's first slot, the next ones for the others.
    pub(crate) const SCATTER: u64 = 12;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbouring_cells_and_salts_are_unrelated() {
        let a = hash_cell(1, 0, 0, 1);
        assert_ne!(a, hash_cell(1, 1, 0, 1));
        assert_ne!(a, hash_cell(1, 0, 1, 1));
        assert_ne!(a, hash_cell(2, 0, 0, 1));
        assert_ne!(a, hash_cell(1, 0, 0, 2));
        // Swapping x and z must not collide either.
        assert_ne!(hash_cell(1, 3, 5, 1), hash_cell(1, 5, 3, 1));
    }

    #[test]
    fn unit_floats_cover_the_interval_evenly() {
        let n = 100_000;
        let mean = (0..n).map(|i| unit(hash_cell(9, i, -i, 1))).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.01, "mean {mean}");
        assert!(unit(u64::MAX) < 1.0);
    }
}

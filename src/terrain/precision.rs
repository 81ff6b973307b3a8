//! The warning for anchors far from the origin: the plugin places everything with `f32`
//! transforms, whose positions step by 2^(e - 23) units at 2^e units from the origin (about 8 mm
//! at 100 km, 6 cm at 1,000 km, 1 m at 10,000 km), while the generator computes in `f64` to
//! ±2^47. Past [`FAR_ANCHOR_DISTANCE`] those steps show: a moving camera shakes, vertices snap
//! and physics contacts jitter. With the `big_space` feature and a `BiomeWorldGrid` positions
//! stay exact, and nothing warns.

use bevy::prelude::*;

/// How far from the origin (along x or z, world units) an anchor may go before the plugin warns
/// once: 2^16, where `f32` positions start stepping by 2^-7 units (7.8 mm).
pub const FAR_ANCHOR_DISTANCE: f64 = 65_536.0;

/// Whether an anchor has gone past [`FAR_ANCHOR_DISTANCE`] yet: the plugin warns the first time.
#[derive(Resource, Default, Debug)]
pub(crate) struct FarAnchorWatch {
    warned: bool,
}

impl FarAnchorWatch {
    /// The first of `anchors` (`[x, z]`) beyond [`FAR_ANCHOR_DISTANCE`], the first time one is
    /// there; `None` after that.
    pub(crate) fn first_far(&mut self, anchors: &[[f64; 2]]) -> Option<[f64; 2]> {
        if self.warned {
            return None;
        }
        let far = anchors
            .iter()
            .copied()
            .find(|p| p[0].abs().max(p[1].abs()) > FAR_ANCHOR_DISTANCE)?;
        self.warned = true;
        Some(far)
    }
}

/// Logs [`FarAnchorWatch`]'s warning.
pub(crate) fn warn_far_anchor(watch: &mut FarAnchorWatch, anchors: &[[f64; 2]]) {
    if let Some([x, z]) = watch.first_far(anchors) {
        warn!(
            "an anchor is at ({x:.0}, {z:.0}), more than {FAR_ANCHOR_DISTANCE} units from the \
             origin: f32 transforms step by 8 mm or more there, so the camera may shake, \
             vertices snap and physics contacts jitter (docs/plugin.md, far from the origin)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One warning, for the first anchor past the distance on either axis, and none before.
    #[test]
    fn warns_once_past_the_distance() {
        let mut watch = FarAnchorWatch::default();
        let edge = FAR_ANCHOR_DISTANCE;
        assert_eq!(watch.first_far(&[[edge, -edge], [0.0, 0.0]]), None);
        assert_eq!(
            watch.first_far(&[[10.0, 0.0], [3.0, -edge - 1.0]]),
            Some([3.0, -edge - 1.0])
        );
        assert_eq!(watch.first_far(&[[edge * 4.0, 0.0]]), None);
    }
}

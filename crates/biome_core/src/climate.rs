//! The climate, as in the tutorial's Lab #3: temperature and moisture fields, mountain chill,
//! and a rain shadow that shifts moisture by the ground upwind.

use serde::{Deserialize, Serialize};

use crate::check::{Check, Checked};
use crate::limits;

/// Temperature and moisture, as in the tutorial's Lab #3.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClimateSettings {
    /// Frequency of the climate fields in 1 / world units (climate zones are about
    /// `1 / scale` across).
    pub scale: f64,
    /// Temperature lost per density unit above sea level: snowy peaks.
    pub chill: f64,
    /// Drier lee sides behind mountains and wetter windward slopes; off by default.
    pub rain_shadow: RainShadow,
}

/// A prevailing wind that drops its rain on the slopes it climbs and reaches the far side of
/// mountains dry ([`RainShadow::shift`] says by how much). The upwind ground is read at `steps`
/// points spread over `reach`, so the moisture of a point depends on a fixed stretch of terrain
/// only and stays seamless.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RainShadow {
    /// Moisture per density unit: of height above the ground upwind (wetter), and of upwind
    /// ground above the point (drier); 0 switches the rain shadow off.
    pub strength: f64,
    /// The direction the wind blows toward, in degrees: 0 is +x, 90 is +z.
    pub wind_degrees: f64,
    /// How far upwind the wind remembers mountains, in world units.
    pub reach: f64,
    /// Upwind points read, spread evenly over `reach`.
    pub steps: u32,
}

impl Default for RainShadow {
    fn default() -> Self {
        Self {
            strength: 0.0,
            wind_degrees: 0.0,
            reach: 3000.0,
            steps: 8,
        }
    }
}

impl RainShadow {
    /// The unit vector the wind blows along, `(x, z)`.
    #[must_use]
    pub fn wind(&self) -> [f64; 2] {
        let angle = self.wind_degrees.to_radians();
        [crate::math::cos(angle), crate::math::sin(angle)]
    }

    /// How far back each point read upwind lies, `(x, z)`, nearest first: a point's upwind
    /// ground is read at the point less each of these.
    pub(crate) fn upwind_offsets(&self) -> impl Iterator<Item = [f64; 2]> {
        let [wx, wz] = self.wind();
        let step = self.reach / f64::from(self.steps);
        (1..=self.steps).map(move |k| {
            let back = step * f64::from(k);
            [wx * back, wz * back]
        })
    }

    /// The change to moisture at a point of density `here`, from the densities `upwind` of the
    /// ground at each step upwind, nearest first (sea counts as level ground at 0), with
    /// weights falling linearly with distance (the nearest 1, the farthest `1 / steps`). Air
    /// climbing to the point rains on it: wetter by how far the point stands above the
    /// weighted mean of the ground upwind. Air that crossed higher ground arrives dry: drier by
    /// the largest weighted height of upwind ground above the point, so a range shadows its
    /// lee, less so farther away, and sea beyond it does not lift the shadow.
    #[must_use]
    pub fn shift(&self, here: f64, upwind: impl IntoIterator<Item = f64>) -> f64 {
        let here = here.max(0.0);
        let steps = f64::from(self.steps);
        let (mut total, mut weights, mut shade) = (0.0, 0.0, 0.0f64);
        for (k, ground) in upwind.into_iter().enumerate() {
            let (weight, ground) = (1.0 - k as f64 / steps, ground.max(0.0));
            total += weight * ground;
            weights += weight;
            shade = shade.max(weight * (ground - here));
        }
        if weights == 0.0 {
            return 0.0;
        }
        let climb = (here - total / weights).max(0.0);
        self.strength * (climb - shade)
    }
}

impl Default for ClimateSettings {
    fn default() -> Self {
        Self {
            scale: 0.0006,
            chill: 0.35,
            rain_shadow: RainShadow::default(),
        }
    }
}

impl ClimateSettings {
    pub(crate) fn check(&self, check: &mut Check) -> Checked {
        check.range("scale", self.scale, &limits::CLIMATE_SCALE)?;
        check.range("chill", self.chill, &limits::CHILL)?;
        check.nested("rain_shadow", |check| {
            let shadow = &self.rain_shadow;
            check.range("strength", shadow.strength, &limits::RAIN_SHADOW_STRENGTH)?;
            check.range("wind_degrees", shadow.wind_degrees, &limits::WIND_DEGREES)?;
            check.range("reach", shadow.reach, &limits::RAIN_SHADOW_REACH)?;
            check.whole("steps", shadow.steps, &limits::RAIN_SHADOW_STEPS)
        })
    }
}

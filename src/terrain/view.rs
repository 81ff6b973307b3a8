//! Cameras that see the terrain to its horizon: a far plane past it and a haze that hides its
//! edge, both following [`crate::BiomeWorldStreaming::horizon`].

use bevy::camera::Hdr;
use bevy::ecs::system::NonSendMarker;
use bevy::prelude::*;

use crate::settings::BiomeWorldState;

/// Put on a camera to see the world to its horizon: the plugin sets the camera's far plane just
/// past [`crate::BiomeWorldStreaming::horizon`] and a [`DistanceFog`] that thickens with distance and
/// hides the land just before it, so the world shows no edge; both follow the horizon when it
/// changes. Without it a default camera clips the land at 1,000 units and shows where it ends.
///
/// It makes the camera [`Hdr`]: then the sky (the clear colour) and the haze over the land go
/// through the same tonemapping and meet without a seam, where a camera without it tonemaps the
/// land and not the sky, and the far land stands out as a grey band. A game that needs an LDR
/// target (a render pipeline made for one, an overlay sharing the main texture) removes `Hdr`
/// after spawning and sets the haze's colour to what its tonemapped sky shows.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_biome_world::prelude::*;
/// fn setup(mut commands: Commands) {
///     commands.spawn((Camera3d::default(), BiomeWorldAnchor, HorizonView::default()));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Clone, Debug, PartialEq)]
#[require(DistanceFog, Hdr)]
pub struct HorizonView {
    /// The haze's colour: the sky's (the clear colour) where the land meets it.
    pub fog_color: Color,
    /// Where the haze begins, as a share of the horizon (0 to 1).
    pub fog_start: f32,
}

impl HorizonView {
    /// The far plane's distance, as a share of the horizon: past it, so the last nodes are not
    /// clipped where the view looks along a node's diagonal.
    pub const FAR: f32 = 1.2;
    /// Where the haze hides the land completely, as a share of the horizon.
    pub const FOG_END: f32 = 0.97;

    /// The haze for a world reaching `horizon` units.
    #[must_use]
    pub fn fog(&self, horizon: f32) -> DistanceFog {
        DistanceFog {
            color: self.fog_color,
            falloff: FogFalloff::Linear {
                start: horizon * self.fog_start.clamp(0.0, Self::FOG_END),
                end: horizon * Self::FOG_END,
            },
            ..default()
        }
    }
}

impl Default for HorizonView {
    /// A pale blue haze from 15% of the horizon.
    fn default() -> Self {
        Self {
            fog_color: Color::srgb(0.62, 0.76, 0.90),
            fog_start: 0.15,
        }
    }
}

/// Sets each [`HorizonView`]'s fog and far plane when it is new or changed, or the horizon the
/// world streams to (the last valid [`crate::BiomeWorldStreaming`]: a refused one changes nothing)
/// moved.
pub(super) fn match_views_to_horizon(
    _main: NonSendMarker,
    state: Res<BiomeWorldState>,
    mut views: Query<(Ref<HorizonView>, &mut DistanceFog, Option<&mut Projection>)>,
) {
    let horizon = state.streaming().horizon;
    for (view, mut fog, projection) in &mut views {
        if !state.is_changed() && !view.is_changed() {
            continue;
        }
        *fog = view.fog(horizon);
        if let Some(mut projection) = projection
            && let Projection::Perspective(perspective) = &mut *projection
        {
            perspective.far = horizon * HorizonView::FAR;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BiomeWorldPlugin, BiomeWorldStreaming};

    #[test]
    fn views_follow_the_horizon_the_world_accepted() {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AssetPlugin::default(), BiomeWorldPlugin));
        app.finish();
        app.cleanup();
        let camera = app
            .world_mut()
            .spawn((HorizonView::default(), Projection::default()))
            .id();
        let far = |app: &App| match app.world().get::<Projection>(camera) {
            Some(Projection::Perspective(perspective)) => perspective.far,
            _ => panic!("a perspective camera"),
        };
        app.update();
        let horizon = BiomeWorldStreaming::default().horizon;
        assert_eq!(far(&app), horizon * HorizonView::FAR);
        assert!(app.world().get::<Hdr>(camera).is_some(), "an HDR camera");

        // Refused (below the shortest horizon): the world keeps its horizon, and so do
        // the views.
        app.world_mut()
            .resource_mut::<BiomeWorldStreaming>()
            .horizon = 10.0;
        app.update();
        assert!(app.world().resource::<BiomeWorldState>().error().is_some());
        assert_eq!(far(&app), horizon * HorizonView::FAR);

        app.world_mut()
            .resource_mut::<BiomeWorldStreaming>()
            .horizon = 2000.0;
        app.update();
        assert_eq!(far(&app), 2000.0 * HorizonView::FAR);
        let fog = app.world().get::<DistanceFog>(camera).unwrap();
        let FogFalloff::Linear { end, .. } = fog.falloff else {
            panic!("a linear haze");
        };
        assert_eq!(end, 2000.0 * HorizonView::FOG_END);
    }
}

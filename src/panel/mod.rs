//! The in-game settings panel (feature `panel`): every setting live, "New world", presets, a
//! minimap, stats and the tutorial's lab views, drawn with `bevy_egui`. It hands its edits to
//! [`BiomeWorldSettings`] (debounced) and [`BiomeWorldStreaming`] (at once), computes its
//! pictures off the main thread, and draws region sites as gizmos when asked. Its state is
//! private; games add [`BiomeWorldPanelPlugin`] and order against [`BiomeWorldPanelSystems`].

mod edit;
mod snapshot;
mod state;
mod ui;

use std::collections::HashMap;
use std::path::PathBuf;

use bevy::asset::io::file::FileAssetReader;
use bevy::diagnostic::{DiagnosticPath, DiagnosticsStore};
use bevy::math::DVec3;
use bevy::prelude::*;
use bevy::tasks::AsyncComputeTaskPool;
use bevy::tasks::futures::check_ready;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass};
use biome_core::RegionId;

use crate::BiomeWorldSystems;
use crate::origin::WorldFrame;
use crate::scatter::BiomeScatterSettings;
use crate::settings::{BiomeWorldEdits, BiomeWorldSettings, BiomeWorldState, BiomeWorldStreaming};
use crate::terrain::{BiomeWorldAnchor, BiomeWorldStats};
use edit::PresetLibrary;
use state::{
    CameraMark, PanelDraft, PanelEditsFile, PanelPresets, PanelTextures, PanelView, PanelWindow,
};

/// The settings panel. Add it after [`crate::BiomeWorldPlugin`]; it adds `bevy_egui`'s
/// `EguiPlugin` when the app has none. F1 shows and hides it.
#[derive(Clone, Debug)]
pub struct BiomeWorldPanelPlugin {
    /// Whether the panel starts open.
    pub open: bool,
    /// Where presets are listed, loaded and saved; by default `assets/presets` under Bevy's
    /// asset root (the crate folder under `cargo run`, else the executable's folder).
    pub presets_dir: Option<PathBuf>,
}

impl Default for BiomeWorldPanelPlugin {
    fn default() -> Self {
        Self {
            open: true,
            presets_dir: None,
        }
    }
}

/// The panel's systems.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BiomeWorldPanelSystems {
    /// In `Update`, before [`BiomeWorldSystems::Settings`]: hands edits over, refreshes the
    /// pictures, draws site gizmos.
    Edit,
    /// In `bevy_egui`'s `EguiPrimaryContextPass`: draws the window.
    Window,
}

impl Plugin for BiomeWorldPanelPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        let dir = self
            .presets_dir
            .clone()
            .unwrap_or_else(|| FileAssetReader::get_base_path().join("assets/presets"));
        app.insert_resource(PanelWindow { open: self.open })
            .insert_resource(PanelPresets::new(PresetLibrary::new(dir)))
            .init_resource::<PanelView>()
            .init_resource::<PanelTextures>()
            .init_resource::<PanelEditsFile>()
            .configure_sets(
                Update,
                BiomeWorldPanelSystems::Edit.before(BiomeWorldSystems::Settings),
            )
            .configure_sets(EguiPrimaryContextPass, BiomeWorldPanelSystems::Window)
            .add_systems(
                Update,
                (toggle_panel, apply_panel_edits, refresh_view, draw_sites)
                    .chain()
                    .in_set(BiomeWorldPanelSystems::Edit),
            )
            .add_systems(
                EguiPrimaryContextPass,
                panel_window.in_set(BiomeWorldPanelSystems::Window),
            );
    }

    fn finish(&self, app: &mut App) {
        // The drafts start from the settings the game inserted, whatever the plugin order.
        let settings = app.world().resource::<BiomeWorldSettings>().clone();
        let streaming = app.world().resource::<BiomeWorldStreaming>().clone();
        let scatter = app.world().resource::<BiomeScatterSettings>().clone();
        app.insert_resource(PanelDraft::new(&settings, &streaming, &scatter));
    }
}

fn toggle_panel(keys: Option<Res<ButtonInput<KeyCode>>>, mut window: ResMut<PanelWindow>) {
    if keys.is_some_and(|keys| keys.just_pressed(KeyCode::F1)) {
        window.open = !window.open;
    }
}

/// Hands the panel's drafts to the game: settings once still, streaming and scatter at once.
fn apply_panel_edits(
    time: Res<Time<Real>>,
    mut draft: ResMut<PanelDraft>,
    mut settings: ResMut<BiomeWorldSettings>,
    mut streaming: ResMut<BiomeWorldStreaming>,
    mut scatter: ResMut<BiomeScatterSettings>,
) {
    let now = time.elapsed_secs_f64();
    if let Some(next) = draft.settings.update(&settings, now) {
        *settings = next;
    }
    if let Some(next) = draft.streaming.update(&streaming, now) {
        *streaming = next;
    }
    if let Some(next) = draft.scatter.update(&scatter, now) {
        *scatter = next;
    }
}

/// Keeps the minimap, the node previews and the chart's dots current around the camera.
fn refresh_view(
    time: Res<Time<Real>>,
    state: Res<BiomeWorldState>,
    anchors: Query<&GlobalTransform, With<BiomeWorldAnchor>>,
    frame: Res<WorldFrame>,
    window: Res<PanelWindow>,
    mut view: ResMut<PanelView>,
) {
    let dt = time.delta_secs() * 1000.0;
    view.frame_ms = if view.frame_ms == 0.0 {
        dt
    } else {
        view.frame_ms * 0.95 + dt * 0.05
    };
    let Some(anchor) = anchors.iter().next() else {
        return;
    };
    let position = frame.world_of(anchor.translation());
    let forward = anchor.forward();
    view.camera = Some(CameraMark {
        position,
        heading: (-forward.x).atan2(-forward.z),
    });
    view.here = Some(state.generator().sample(position.x, position.z));

    if let Some(task) = &mut view.task
        && let Some(snapshot) = check_ready(task)
    {
        view.task = None;
        view.snapshot = Some(snapshot);
        view.snapshot_is_new = true;
    }
    if view.task.is_some() || !window.open {
        return;
    }
    // The land around the camera, not the whole horizon: a minimap of 16 km would show no detail.
    let span = 2.0 * f64::from(state.streaming().horizon.min(MINIMAP_REACH));
    let center = [position.x, position.z];
    let stale = view.snapshot.as_ref().is_none_or(|s| {
        let moved = ((s.center[0] - center[0]).powi(2) + (s.center[1] - center[1]).powi(2)).sqrt();
        s.generation != state.generation() || moved > span / 12.0 || (s.span - span).abs() > 1.0
    });
    if stale {
        let generator = state.generator().clone();
        let generation = state.generation();
        view.task = Some(
            AsyncComputeTaskPool::get()
                .spawn(async move { snapshot::compute(&generator, center, span, generation) }),
        );
    }
}

/// How far from the camera the minimap and the site gizmos reach at most, world units.
const MINIMAP_REACH: f32 = 1536.0;

/// Where each region's gizmo stands (world units), and its colour.
type SiteMarks = HashMap<RegionId, (DVec3, Color)>;

/// Region sites near the camera as gizmos: a post from the ground and a ring in the biome's
/// colour. Sites are looked up once per settings generation, within half the view distance (gizmos
/// ignore fog, so farther posts would float over the horizon) and at most 8 cells out.
fn draw_sites(
    state: Res<BiomeWorldState>,
    anchors: Query<&GlobalTransform, With<BiomeWorldAnchor>>,
    frame: Res<WorldFrame>,
    view: Res<PanelView>,
    gizmos: Option<Gizmos>,
    mut cache: Local<(u64, SiteMarks)>,
) {
    const MAX_CELLS: i64 = 8;
    let Some(mut gizmos) = gizmos else {
        return;
    };
    if !view.show_sites {
        return;
    }
    let Some(anchor) = anchors.iter().next() else {
        return;
    };
    if cache.0 != state.generation() {
        *cache = (state.generation(), HashMap::new());
    }
    let generator = &state.generator();
    let grid = generator.regions();
    let p = frame.world_of(anchor.translation());
    let reach = f64::from(state.streaming().horizon.min(MINIMAP_REACH)) / 2.0;
    let home = grid.cell_of(p.x, p.z);
    let cells = ((reach / grid.cell_size()).ceil() as i64).min(MAX_CELLS);
    for dz in -cells..=cells {
        for dx in -cells..=cells {
            let region = RegionId {
                x: home.x + dx,
                z: home.z + dz,
            };
            let [x, z] = grid.site(region);
            if (p.x - x).hypot(p.z - z) > reach {
                continue;
            }
            let &mut (base, color) = cache.1.entry(region).or_insert_with(|| {
                let biome =
                    &generator.settings().biome_table.biomes[generator.region_biome(region)];
                let base = DVec3::new(x, generator.height_at(x, z).max(0.0), z);
                (
                    base,
                    Color::srgb_u8(biome.color.0, biome.color.1, biome.color.2),
                )
            });
            // Gizmos are drawn where the renderer is: relative to a floating origin.
            let base = frame.render_of(base);
            gizmos.line(base, base + Vec3::Y * 40.0, color);
            gizmos.circle(
                Isometry3d::new(
                    base + Vec3::Y * 40.0,
                    Quat::from_rotation_arc(Vec3::Z, Vec3::Y),
                ),
                6.0,
                color,
            );
        }
    }
    // Sites left far behind are dropped so the cache stays small on a long flight.
    if cache.1.len() > 4 * ((2 * MAX_CELLS + 1) * (2 * MAX_CELLS + 1)) as usize {
        cache
            .1
            .retain(|r, _| (r.x - home.x).abs() <= cells && (r.z - home.z).abs() <= cells);
    }
}

#[expect(
    clippy::too_many_arguments,
    reason = "a system: one parameter per resource the window reads or edits"
)]
fn panel_window(
    mut contexts: EguiContexts,
    mut window: ResMut<PanelWindow>,
    mut draft: ResMut<PanelDraft>,
    mut presets: ResMut<PanelPresets>,
    mut view: ResMut<PanelView>,
    mut textures: ResMut<PanelTextures>,
    mut edits: ResMut<BiomeWorldEdits>,
    mut edits_file: ResMut<PanelEditsFile>,
    state: Res<BiomeWorldState>,
    stats: Res<BiomeWorldStats>,
    diagnostics: Res<DiagnosticsStore>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    if view.snapshot_is_new
        && let Some(snapshot) = &view.snapshot
    {
        textures.update(ctx, snapshot);
        view.snapshot_is_new = false;
    }
    if window.open {
        ui::window(
            ctx,
            &mut ui::Panel {
                window: &mut window,
                draft: &mut draft,
                presets: &mut presets,
                view: &mut view,
                textures: &mut textures,
                edits: edits.reborrow(),
                edits_file: &mut edits_file,
            },
            &ui::Shown {
                state: &state,
                stats: &stats,
                build_ms: mean_and_p99(&diagnostics, BiomeWorldStats::BUILD_TIME),
            },
        );
    }
    Ok(())
}

/// Mean and 99th percentile of the measurements kept of `path`.
fn mean_and_p99(store: &DiagnosticsStore, path: &DiagnosticPath) -> Option<(f64, f64)> {
    let mut values: Vec<f64> = store.get(path)?.measurements().map(|m| m.value).collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    Some((
        mean,
        values[((values.len() - 1) as f64 * 0.99).round() as usize],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BiomeWorldPlugin;
    use bevy::time::TimeUpdateStrategy;
    use std::time::Duration;

    /// The edit system in a headless app: a dragged value reaches the settings once, after the
    /// debounce, and the world regenerates once; a streaming value goes at once.
    #[test]
    fn panel_edits_reach_the_world_once_after_the_debounce() {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AssetPlugin::default()))
            .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
                16,
            )))
            .add_plugins(BiomeWorldPlugin)
            .add_systems(
                Update,
                apply_panel_edits.before(BiomeWorldSystems::Settings),
            );
        app.finish();
        app.cleanup();
        let settings = app.world().resource::<BiomeWorldSettings>().clone();
        let streaming = app.world().resource::<BiomeWorldStreaming>().clone();
        let scatter = app.world().resource::<BiomeScatterSettings>().clone();
        app.insert_resource(PanelDraft::new(&settings, &streaming, &scatter));
        app.update();
        for k in 0..30 {
            let mut draft = app.world_mut().resource_mut::<PanelDraft>();
            draft.generator().regions.jitter = 0.3 + f64::from(k) * 0.01;
            draft.streaming.draft.max_tasks = 4 + k as usize;
            draft.scatter.draft.set_radius("grass", 40.0 + k as f32);
            app.update();
            let state = app.world().resource::<BiomeWorldState>();
            assert_eq!(state.generation(), 0, "rebuilt mid-drag at frame {k}");
            assert_eq!(
                state.streaming().max_tasks,
                4 + k as usize,
                "streaming waits"
            );
            let scatter = app.world().resource::<BiomeScatterSettings>();
            assert_eq!(
                scatter.radius("grass"),
                40.0 + k as f32,
                "scatter goes at once"
            );
        }
        for _ in 0..40 {
            app.update();
        }
        assert_eq!(
            app.world()
                .resource::<BiomeWorldSettings>()
                .generator
                .regions
                .jitter,
            0.59
        );
        assert_eq!(app.world().resource::<BiomeWorldState>().generation(), 1);
    }

    #[test]
    fn an_invalid_preset_changes_nothing_and_names_the_field() {
        let dir =
            std::env::temp_dir().join(format!("biome_panel_bad_preset_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("bad.ron"), "(trees: (spacing: 0.0))").unwrap();
        let settings = BiomeWorldSettings::default();
        let mut draft = PanelDraft::new(
            &settings,
            &BiomeWorldStreaming::default(),
            &BiomeScatterSettings::default(),
        );
        let mut presets = PanelPresets::new(PresetLibrary::new(&dir));
        assert_eq!(presets.names, ["bad"]);
        presets.load("bad", &mut draft);
        let notice = presets.notice.clone().unwrap();
        assert!(
            notice.is_error && notice.text.contains("trees.spacing"),
            "{notice:?}"
        );
        assert_eq!(draft.settings.draft, settings);
        assert_eq!(draft.settings.update(&settings, 10.0), None);
        presets.save_name = "good".to_owned();
        draft.generator().seed = 5;
        presets.save(&draft);
        assert_eq!(presets.names, ["bad", "good"]);
        draft.generator().seed = 6;
        presets.load("good", &mut draft);
        assert_eq!(draft.settings.draft.generator.seed, 5);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

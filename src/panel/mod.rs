//! The in-game settings panel (feature `panel`): every setting live, "New world", presets, a
//! minimap, stats and the tutorial's lab views, drawn with `bevy_egui`. It owns the panel's state,
//! applies its edits to [`BiomeWorldSettings`] with a debounce, computes its pictures off the main
//! thread, and draws region sites as gizmos when asked.

pub mod edit;
pub mod snapshot;
mod ui;

use std::collections::HashMap;
use std::path::PathBuf;

use bevy::asset::io::file::FileAssetReader;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass};
use biome_core::Sample;
use biome_core::world::RegionId;

use crate::BiomeWorldSystems;
use crate::streaming::{BiomeWorldAnchor, BiomeWorldStats};
use crate::world::{BiomeWorldSettings, BiomeWorldState};
use edit::{PresetLibrary, SettingsEditor};
use snapshot::Snapshot;

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

impl Plugin for BiomeWorldPanelPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        let dir = self
            .presets_dir
            .clone()
            .unwrap_or_else(|| FileAssetReader::get_base_path().join("assets/presets"));
        let open = self.open;
        app.add_systems(
            Startup,
            move |mut commands: Commands, settings: Res<BiomeWorldSettings>| {
                commands.insert_resource(PanelState::new(
                    &settings,
                    PresetLibrary::new(dir.clone()),
                    open,
                ));
            },
        )
        .add_systems(
            Update,
            (
                toggle_panel,
                apply_panel_edits,
                refresh_snapshot,
                draw_sites,
            )
                .chain()
                .in_set(BiomeWorldSystems::Panel),
        )
        .add_systems(
            EguiPrimaryContextPass,
            panel_ui.in_set(BiomeWorldSystems::Panel),
        );
    }
}

/// Everything the panel remembers between frames.
#[derive(Resource)]
pub struct PanelState {
    /// Whether the window is shown.
    pub open: bool,
    /// The draft settings and their debounce.
    pub editor: SettingsEditor,
    /// The preset folder.
    pub library: PresetLibrary,
    /// Presets found in it.
    pub preset_names: Vec<String>,
    /// The preset last loaded or saved.
    pub selected_preset: Option<String>,
    /// Name typed for "Save preset as…".
    pub save_name: String,
    /// The last message: `(is_error, text)`.
    pub message: Option<(bool, String)>,
    /// Whether region sites are drawn in the world.
    pub show_sites: bool,
    /// Smoothed frame time, milliseconds.
    pub frame_ms: f32,
    /// The sample under the camera.
    pub here: Option<Sample>,
    camera: Option<(Vec3, f32)>,
    snapshot: Option<Snapshot>,
    task: Option<Task<Snapshot>>,
    textures: Option<ui::Textures>,
    textures_stale: bool,
    dragging_threshold: Option<(ui::Axis, usize)>,
}

impl PanelState {
    /// A panel showing `settings`, with presets from `library`.
    #[must_use]
    pub fn new(settings: &BiomeWorldSettings, library: PresetLibrary, open: bool) -> Self {
        Self {
            open,
            editor: SettingsEditor::new(settings),
            preset_names: library.names(),
            library,
            selected_preset: None,
            save_name: String::new(),
            message: None,
            show_sites: false,
            frame_ms: 0.0,
            here: None,
            camera: None,
            snapshot: None,
            task: None,
            textures: None,
            textures_stale: false,
            dragging_threshold: None,
        }
    }

    /// Loads preset `name` into the draft and applies it at once. A preset that cannot be read or
    /// is invalid changes nothing; the message names the field and the reason.
    pub fn load_preset(&mut self, name: &str) {
        match self.library.load(name) {
            Ok(world) => {
                self.editor.draft.world = world;
                self.editor.apply_now();
                self.selected_preset = Some(name.to_owned());
                self.message = Some((false, format!("Loaded preset {name}")));
            }
            Err(error) => self.message = Some((true, error.to_string())),
        }
    }

    /// Saves the draft's world as the preset typed in [`PanelState::save_name`].
    pub fn save_preset(&mut self) {
        let name = self.save_name.trim().to_owned();
        match self.library.save(&name, &self.editor.draft.world) {
            Ok(path) => {
                self.preset_names = self.library.names();
                self.selected_preset = Some(name);
                self.message = Some((false, format!("Saved {}", path.display())));
            }
            Err(error) => self.message = Some((true, error.to_string())),
        }
    }
}

fn toggle_panel(keys: Option<Res<ButtonInput<KeyCode>>>, panel: Option<ResMut<PanelState>>) {
    if let (Some(keys), Some(mut panel)) = (keys, panel)
        && keys.just_pressed(KeyCode::F1)
    {
        panel.open = !panel.open;
    }
}

/// Hands the panel's edits to the game: streaming tunables at once, world changes debounced.
fn apply_panel_edits(
    time: Res<Time<Real>>,
    panel: Option<ResMut<PanelState>>,
    mut settings: ResMut<BiomeWorldSettings>,
) {
    let Some(mut panel) = panel else {
        return;
    };
    if let Some(next) = panel.editor.update(&settings, time.elapsed_secs_f64()) {
        *settings = next;
    }
}

/// Keeps the minimap, the node previews and the chart's dots current around the camera.
fn refresh_snapshot(
    time: Res<Time<Real>>,
    state: Res<BiomeWorldState>,
    anchors: Query<&GlobalTransform, With<BiomeWorldAnchor>>,
    panel: Option<ResMut<PanelState>>,
) {
    let Some(mut panel) = panel else {
        return;
    };
    let dt = time.delta_secs() * 1000.0;
    panel.frame_ms = if panel.frame_ms == 0.0 {
        dt
    } else {
        panel.frame_ms * 0.95 + dt * 0.05
    };
    let Some(anchor) = anchors.iter().next() else {
        return;
    };
    let position = anchor.translation();
    let forward = anchor.forward();
    panel.camera = Some((position, (-forward.x).atan2(-forward.z)));
    panel.here = Some(
        state
            .world
            .sample(f64::from(position.x), f64::from(position.z)),
    );

    if let Some(task) = &mut panel.task
        && let Some(snapshot) = check_ready(task)
    {
        panel.task = None;
        panel.snapshot = Some(snapshot);
        panel.textures_stale = true;
    }
    if panel.task.is_some() || !panel.open {
        return;
    }
    let span = 2.0 * f64::from(state.settings.view_radius) * state.layout().chunk_size();
    let center = [f64::from(position.x), f64::from(position.z)];
    let stale = panel.snapshot.as_ref().is_none_or(|s| {
        let moved = ((s.center[0] - center[0]).powi(2) + (s.center[1] - center[1]).powi(2)).sqrt();
        s.generation != state.generation || moved > span / 12.0 || (s.span - span).abs() > 1.0
    });
    if stale {
        let world = state.world.clone();
        let generation = state.generation;
        panel.task = Some(
            AsyncComputeTaskPool::get()
                .spawn(async move { snapshot::compute(&world, center, span, generation) }),
        );
    }
}

/// Where each region's gizmo stands, and its colour.
type SiteMarks = HashMap<RegionId, (Vec3, Color)>;

/// Region sites near the camera as gizmos: a post from the ground and a ring in the biome's
/// colour. Sites are looked up once per settings generation, within half the view distance (gizmos
/// ignore fog, so farther posts would float over the horizon) and at most 8 cells out.
fn draw_sites(
    state: Res<BiomeWorldState>,
    anchors: Query<&GlobalTransform, With<BiomeWorldAnchor>>,
    panel: Option<Res<PanelState>>,
    gizmos: Option<Gizmos>,
    mut cache: Local<(u64, SiteMarks)>,
) {
    const MAX_CELLS: i64 = 8;
    let (Some(panel), Some(mut gizmos)) = (panel, gizmos) else {
        return;
    };
    if !panel.show_sites {
        return;
    }
    let Some(anchor) = anchors.iter().next() else {
        return;
    };
    if cache.0 != state.generation {
        *cache = (state.generation, HashMap::new());
    }
    let world = &state.world;
    let grid = world.regions();
    let p = anchor.translation();
    let reach = f64::from(state.settings.view_radius) * state.layout().chunk_size() / 2.0;
    let home = grid.cell_of(f64::from(p.x), f64::from(p.z));
    let cells = ((reach / grid.cell_size()).ceil() as i64).min(MAX_CELLS);
    for dz in -cells..=cells {
        for dx in -cells..=cells {
            let region = RegionId {
                x: home.x + dx,
                z: home.z + dz,
            };
            let [x, z] = grid.site(region);
            if (f64::from(p.x) - x).hypot(f64::from(p.z) - z) > reach {
                continue;
            }
            let &mut (base, color) = cache.1.entry(region).or_insert_with(|| {
                let biome = &world.settings().biomes.biomes[world.region_biome(region)];
                let base = Vec3::new(x as f32, world.height_at(x, z).max(0.0) as f32, z as f32);
                (
                    base,
                    Color::srgb_u8(biome.color.0, biome.color.1, biome.color.2),
                )
            });
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

fn panel_ui(
    mut contexts: EguiContexts,
    panel: Option<ResMut<PanelState>>,
    state: Res<BiomeWorldState>,
    stats: Res<BiomeWorldStats>,
) -> Result {
    let Some(mut panel) = panel else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let panel = &mut *panel;
    if panel.textures_stale
        && let Some(snapshot) = &panel.snapshot
    {
        ui::Textures::update(ctx, &mut panel.textures, snapshot);
        panel.textures_stale = false;
    }
    if panel.open {
        ui::window(
            ctx,
            panel,
            &ui::View {
                state: &state,
                stats: &stats,
            },
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BiomeWorldPlugin;
    use bevy::time::TimeUpdateStrategy;
    use std::time::Duration;

    /// The edit system in a headless app: a dragged value reaches the settings once, after the
    /// debounce, and the world regenerates once.
    #[test]
    fn panel_edits_reach_the_world_once_after_the_debounce() {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AssetPlugin::default()))
            .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
                16,
            )))
            .add_plugins(BiomeWorldPlugin::default())
            .add_systems(Update, apply_panel_edits.in_set(BiomeWorldSystems::Panel));
        app.finish();
        app.cleanup();
        let settings = app.world().resource::<BiomeWorldSettings>().clone();
        let dir = std::env::temp_dir().join("biome_panel_test_presets");
        app.insert_resource(PanelState::new(&settings, PresetLibrary::new(dir), true));
        app.update();
        for k in 0..30 {
            app.world_mut()
                .resource_mut::<PanelState>()
                .editor
                .draft
                .world
                .regions
                .jitter = 0.3 + f64::from(k) * 0.01;
            app.update();
            assert_eq!(
                app.world().resource::<BiomeWorldState>().generation,
                0,
                "rebuilt mid-drag at frame {k}"
            );
        }
        for _ in 0..40 {
            app.update();
        }
        assert_eq!(
            app.world()
                .resource::<BiomeWorldSettings>()
                .world
                .regions
                .jitter,
            0.59
        );
        assert_eq!(app.world().resource::<BiomeWorldState>().generation, 1);
    }

    #[test]
    fn an_invalid_preset_changes_nothing_and_names_the_field() {
        let dir =
            std::env::temp_dir().join(format!("biome_panel_bad_preset_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("bad.ron"), "(trees: (spacing: 0.0))").unwrap();
        let settings = BiomeWorldSettings::default();
        let mut panel = PanelState::new(&settings, PresetLibrary::new(&dir), true);
        assert_eq!(panel.preset_names, ["bad"]);
        panel.load_preset("bad");
        let (error, text) = panel.message.clone().unwrap();
        assert!(error && text.contains("trees.spacing"), "{text}");
        assert_eq!(panel.editor.draft, settings);
        assert_eq!(panel.editor.update(&settings, 10.0), None);
        panel.save_name = "good".to_owned();
        panel.editor.draft.world.seed = 5;
        panel.save_preset();
        assert_eq!(panel.preset_names, ["bad", "good"]);
        panel.editor.draft.world.seed = 6;
        panel.load_preset("good");
        assert_eq!(panel.editor.draft.world.seed, 5);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

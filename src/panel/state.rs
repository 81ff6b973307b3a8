//! What the panel remembers between frames, one resource per concern: whether the window is
//! open, the drafts of the settings, the preset folder, what it shows of the world around the
//! camera, and the egui textures of those pictures.

use bevy::math::DVec3;
use bevy::prelude::*;
use bevy::tasks::Task;
use bevy_egui::egui;
use biome_core::{Sample, WorldSettings};

use super::edit::{Debounced, PresetLibrary};
use super::snapshot::{MINIMAP_SIZE, PREVIEW_SIZE, Snapshot};
use crate::scatter::BiomeScatterSettings;
use crate::settings::{BiomeWorldSettings, BiomeWorldStreaming};

/// Seconds a settings draft must be still before the world regenerates.
const SETTINGS_DELAY: f64 = 0.35;

/// Whether the window is shown (F1 toggles it).
#[derive(Resource, Debug)]
pub(super) struct PanelWindow {
    pub(super) open: bool,
}

/// The Edits section's file: where the world's edits are saved and loaded, and what the last
/// save or load said.
#[derive(Resource, Debug)]
pub(super) struct PanelEditsFile {
    pub(super) path: String,
    pub(super) outcome: String,
}

impl Default for PanelEditsFile {
    fn default() -> Self {
        Self {
            path: "edits.biomedit".to_owned(),
            outcome: String::new(),
        }
    }
}

/// The drafts the widgets edit: the settings wait for the debounce, streaming and scatter radii
/// go at once.
#[derive(Resource, Debug)]
pub(super) struct PanelDraft {
    pub(super) settings: Debounced<BiomeWorldSettings>,
    pub(super) streaming: Debounced<BiomeWorldStreaming>,
    pub(super) scatter: Debounced<BiomeScatterSettings>,
}

impl PanelDraft {
    pub(super) fn new(
        settings: &BiomeWorldSettings,
        streaming: &BiomeWorldStreaming,
        scatter: &BiomeScatterSettings,
    ) -> Self {
        Self {
            settings: Debounced::new(settings, SETTINGS_DELAY),
            streaming: Debounced::new(streaming, 0.0),
            scatter: Debounced::new(scatter, 0.0),
        }
    }

    /// The generator settings being edited.
    pub(super) fn generator(&mut self) -> &mut WorldSettings {
        &mut self.settings.draft.generator
    }
}

/// A line of feedback under the preset controls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Notice {
    pub(super) is_error: bool,
    pub(super) text: String,
}

impl Notice {
    pub(super) fn info(text: impl Into<String>) -> Self {
        Self {
            is_error: false,
            text: text.into(),
        }
    }

    pub(super) fn error(text: impl ToString) -> Self {
        Self {
            is_error: true,
            text: text.to_string(),
        }
    }
}

/// The preset folder and the panel's dealings with it.
#[derive(Resource, Debug)]
pub(super) struct PanelPresets {
    pub(super) library: PresetLibrary,
    /// Presets found in the folder.
    pub(super) names: Vec<String>,
    /// The preset last loaded or saved.
    pub(super) selected: Option<String>,
    /// The name typed for "Save preset as…".
    pub(super) save_name: String,
    pub(super) notice: Option<Notice>,
}

impl PanelPresets {
    pub(super) fn new(library: PresetLibrary) -> Self {
        Self {
            names: library.names(),
            library,
            selected: None,
            save_name: String::new(),
            notice: None,
        }
    }

    /// Loads preset `name` into the draft and applies it at once. A preset that cannot be read
    /// or is invalid changes nothing; the notice names the field and the reason.
    pub(super) fn load(&mut self, name: &str, draft: &mut PanelDraft) {
        let functions = draft.generator().functions.clone();
        match self.library.load(name, &functions) {
            Ok(generator) => {
                *draft.generator() = generator;
                draft.settings.apply_now();
                self.selected = Some(name.to_owned());
                self.notice = Some(Notice::info(format!("Loaded preset {name}")));
            }
            Err(error) => self.notice = Some(Notice::error(error)),
        }
    }

    /// Saves the draft's generator settings as the preset typed in
    /// [`PanelPresets::save_name`].
    pub(super) fn save(&mut self, draft: &PanelDraft) {
        let name = self.save_name.trim().to_owned();
        match self.library.save(&name, &draft.settings.draft.generator) {
            Ok(path) => {
                self.names = self.library.names();
                self.selected = Some(name);
                self.notice = Some(Notice::info(format!("Saved {}", path.display())));
            }
            Err(error) => self.notice = Some(Notice::error(error)),
        }
    }
}

/// Where the camera is on the minimap.
#[derive(Clone, Copy, Debug)]
pub(super) struct CameraMark {
    /// In world units.
    pub(super) position: DVec3,
    /// Radians from north, clockwise.
    pub(super) heading: f32,
}

/// What the panel shows of the world around the camera, kept current off the main thread.
#[derive(Resource)]
pub(super) struct PanelView {
    /// Smoothed frame time, milliseconds.
    pub(super) frame_ms: f32,
    /// The sample under the camera.
    pub(super) here: Option<Sample>,
    pub(super) camera: Option<CameraMark>,
    pub(super) snapshot: Option<Snapshot>,
    pub(super) task: Option<Task<Snapshot>>,
    /// Set when a new snapshot arrived and its textures need uploading.
    pub(super) snapshot_is_new: bool,
    /// Whether region sites are drawn in the world.
    pub(super) show_sites: bool,
    /// The multi-noise chart's slice: its horizontal and vertical climate axes.
    pub(super) slice_axes: [usize; 2],
    /// The multi-noise box picked in the chart, highlighted there and opened in the list.
    pub(super) picked_box: Option<usize>,
}

impl Default for PanelView {
    fn default() -> Self {
        Self {
            frame_ms: 0.0,
            here: None,
            camera: None,
            snapshot: None,
            task: None,
            snapshot_is_new: false,
            show_sites: false,
            // Moisture across, temperature up, as the table's chart.
            slice_axes: [1, 0],
            picked_box: None,
        }
    }
}

/// Which biome-chart threshold line is being dragged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Axis {
    Heat,
    Wet,
}

/// A threshold line of the biome chart held by the pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct DraggedLine {
    pub(super) axis: Axis,
    pub(super) index: usize,
}

/// The egui side of the window: the textures of the latest snapshot and the chart line being
/// dragged.
#[derive(Resource, Default)]
pub(super) struct PanelTextures {
    pub(super) minimap: Option<egui::TextureHandle>,
    pub(super) previews: Vec<egui::TextureHandle>,
    /// The volume's nodes' slices, and its mask's nodes' previews.
    pub(super) volume_previews: Vec<egui::TextureHandle>,
    pub(super) mask_previews: Vec<egui::TextureHandle>,
    pub(super) dragging: Option<DraggedLine>,
}

impl PanelTextures {
    /// Uploads the snapshot's pictures, reusing the textures when they exist.
    pub(super) fn update(&mut self, ctx: &egui::Context, snapshot: &Snapshot) {
        let minimap = egui::ColorImage::from_rgba_unmultiplied(
            [MINIMAP_SIZE, MINIMAP_SIZE],
            &snapshot.minimap,
        );
        let options = egui::TextureOptions::NEAREST;
        match &mut self.minimap {
            Some(handle) => handle.set(minimap, options),
            None => self.minimap = Some(ctx.load_texture("biome minimap", minimap, options)),
        }
        let previews = [
            (&mut self.previews, &snapshot.previews, "biome node"),
            (
                &mut self.volume_previews,
                &snapshot.volume_previews,
                "biome volume node",
            ),
            (
                &mut self.mask_previews,
                &snapshot.mask_previews,
                "biome mask node",
            ),
        ];
        for (handles, pictures, name) in previews {
            handles.truncate(pictures.len());
            for (i, pixels) in pictures.iter().enumerate() {
                let image =
                    egui::ColorImage::from_rgba_unmultiplied([PREVIEW_SIZE, PREVIEW_SIZE], pixels);
                match handles.get_mut(i) {
                    Some(handle) => handle.set(image, options),
                    None => handles.push(ctx.load_texture(format!("{name} {i}"), image, options)),
                }
            }
        }
    }
}

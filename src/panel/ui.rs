//! The egui window: one section per tutorial lab, every field of the settings as a slider or box
//! clamped to the range validation accepts, the biome chart, the minimap and the stats.

use std::ops::RangeInclusive;
use std::path::Path;

use bevy::prelude::Mut;

use bevy_egui::egui::{self, Color32, Pos2, Rect, Sense, Stroke, pos2, vec2};
use biome_core::cover::LayerName;
use biome_core::cover::SpeciesWeight;
use biome_core::density::{DensityNode, DensityOp, Field, FieldValue, Shape, Typical};
use biome_core::edits::{BrushOp, EditShape};
use biome_core::generator::BiomeSource;
use biome_core::multi_noise::{
    AXES, AXIS_NAMES, AxisRange, BiomeBox, ClimatePoint, MAX_BOXES, MultiNoise, nearest_by_scan,
};
use biome_core::scatter::{
    ScatterGround, ScatterLayer, ScatterSettings, ScatterSpacing, WaterRule,
};
use biome_core::{Biome, Rgb, TreeSpecies, limits};
use biome_core::{ChunkLayout, MeshStyle, WorldSettings};

use super::edit::{drag_threshold, first_node};
use super::snapshot::{MINIMAP_SIZE, PREVIEW_SIZE};
use super::state::{
    Axis, DraggedLine, Notice, PanelDraft, PanelEditsFile, PanelPresets, PanelTextures, PanelView,
    PanelWindow,
};
use crate::scatter::BiomeScatterSettings;
use crate::settings::{BiomeWorldEdits, BiomeWorldSettings, BiomeWorldState, BiomeWorldStreaming};
use crate::terrain::BiomeWorldStats;

/// The panel's own state, as the window edits it.
pub(super) struct Panel<'a> {
    pub(super) window: &'a mut PanelWindow,
    pub(super) draft: &'a mut PanelDraft,
    pub(super) presets: &'a mut PanelPresets,
    pub(super) view: &'a mut PanelView,
    pub(super) textures: &'a mut PanelTextures,
    /// Written only when a button changes them, so the world rebuilds only then.
    pub(super) edits: Mut<'a, BiomeWorldEdits>,
    pub(super) edits_file: &'a mut PanelEditsFile,
}

/// What the window shows of the game.
pub(super) struct Shown<'a> {
    pub(super) state: &'a BiomeWorldState,
    pub(super) stats: &'a BiomeWorldStats,
    /// Mean and 99th percentile of the latest node build times, milliseconds.
    pub(super) build_ms: Option<(f64, f64)>,
}

// Sliders clamp what the user enters, never a value already there: drawing a panel over a preset
// with a value beyond a slider's handy range must not edit the preset.
const CLAMP_EDITS: egui::SliderClamping = egui::SliderClamping::Edits;

fn slider(ui: &mut egui::Ui, value: &mut f64, range: &RangeInclusive<f64>, label: &str) {
    ui.add(
        egui::Slider::new(value, range.clone())
            .clamping(CLAMP_EDITS)
            .text(label),
    );
}

fn log_slider(ui: &mut egui::Ui, value: &mut f64, range: &RangeInclusive<f64>, label: &str) {
    ui.add(
        egui::Slider::new(value, range.clone())
            .clamping(CLAMP_EDITS)
            .logarithmic(true)
            .text(label),
    );
}

fn slider_u32(ui: &mut egui::Ui, value: &mut u32, range: RangeInclusive<u32>, label: &str) {
    ui.add(
        egui::Slider::new(value, range)
            .clamping(CLAMP_EDITS)
            .text(label),
    );
}

/// A number typed or dragged within `range`, for values without a handy slider range.
fn number(ui: &mut egui::Ui, value: &mut f64, range: RangeInclusive<f64>, label: &str) {
    ui.horizontal(|ui| {
        ui.add(
            egui::DragValue::new(value)
                .speed(0.01)
                .range(range)
                .clamp_existing_to_range(false),
        );
        ui.label(label);
    });
}

/// A frequency shown as the feature size it makes (world units), which reads better.
fn feature_size(ui: &mut egui::Ui, scale: &mut f64, range: &RangeInclusive<f64>, label: &str) {
    let mut size = 1.0 / *scale;
    let sizes = (1.0 / range.end()).max(1.0)..=(1.0 / range.start()).min(1.0e6);
    if ui
        .add(
            egui::Slider::new(&mut size, sizes)
                .clamping(CLAMP_EDITS)
                .logarithmic(true)
                .text(label)
                .suffix(" u"),
        )
        .changed()
    {
        *scale = (1.0 / size).clamp(*range.start(), *range.end());
    }
}

fn color(ui: &mut egui::Ui, rgb: &mut Rgb, label: &str) {
    ui.horizontal(|ui| {
        let mut bytes = [rgb.0, rgb.1, rgb.2];
        ui.color_edit_button_srgb(&mut bytes);
        *rgb = Rgb(bytes[0], bytes[1], bytes[2]);
        ui.label(label);
    });
}

fn rgb32(rgb: Rgb) -> Color32 {
    Color32::from_rgb(rgb.0, rgb.1, rgb.2)
}

/// A size range, its ends kept in order.
fn scale_range(ui: &mut egui::Ui, min: &mut f64, max: &mut f64) {
    let (mut low, mut high) = (*min, *max);
    slider(
        ui,
        &mut low,
        &(*limits::TREE_SCALE.start()..=high),
        "smallest",
    );
    slider(ui, &mut high, &(low..=5.0), "largest");
    (*min, *max) = (low, high);
}

fn shape_picker(ui: &mut egui::Ui, shape: &mut Shape, id: usize) {
    egui::ComboBox::from_id_salt(("shape", id))
        .selected_text(format!("{shape:?}"))
        .show_ui(ui, |ui| {
            for option in Shape::ALL {
                ui.selectable_value(shape, option, format!("{option:?}"));
            }
        });
}

/// Draws the whole window.
pub(super) fn window(ctx: &egui::Context, panel: &mut Panel<'_>, shown: &Shown<'_>) {
    let mut open = panel.window.open;
    egui::Window::new("Biome world")
        .open(&mut open)
        .default_pos([10.0, 10.0])
        .default_width(340.0)
        .default_height(ctx.content_rect().height() - 20.0)
        .vscroll(true)
        .show(ctx, |ui| {
            world_section(ui, panel, shown);
            egui::CollapsingHeader::new("Minimap")
                .default_open(true)
                .show(ui, |ui| minimap(ui, panel));
            egui::CollapsingHeader::new("Stats")
                .default_open(true)
                .show(ui, |ui| stats(ui, panel.view, shown));
            egui::CollapsingHeader::new("Edits").show(ui, |ui| {
                let indexed = shown.state.generator().edits().memory_bytes();
                edits_section(ui, &mut panel.edits, panel.edits_file, indexed);
            });
            egui::CollapsingHeader::new("Noise").show(ui, |ui| {
                let is_fbm = |n: &DensityNode| matches!(n.op, DensityOp::Fbm(_));
                first_node_section(ui, panel.draft.generator(), "Simplex fBm", is_fbm);
            });
            egui::CollapsingHeader::new("Warp").show(ui, |ui| {
                let is_warp = |n: &DensityNode| matches!(n.op, DensityOp::Warp(_));
                first_node_section(ui, panel.draft.generator(), "Warp", is_warp);
            });
            egui::CollapsingHeader::new("Erosion").show(ui, |ui| {
                let is_eroded = |n: &DensityNode| matches!(n.op, DensityOp::Eroded(_));
                first_node_section(ui, panel.draft.generator(), "Eroded fBm", is_eroded);
            });
            egui::CollapsingHeader::new("Climate")
                .default_open(true)
                .show(ui, |ui| climate_section(ui, panel));
            egui::CollapsingHeader::new("Regions").show(ui, |ui| regions_section(ui, panel));
            egui::CollapsingHeader::new("Rivers")
                .show(ui, |ui| rivers_section(ui, panel.draft.generator()));
            egui::CollapsingHeader::new("Density stack").show(ui, |ui| density_section(ui, panel));
            egui::CollapsingHeader::new("Caves and overhangs").show(ui, |ui| {
                volume_section(ui, panel.draft.generator(), panel.textures);
            });
            egui::CollapsingHeader::new("Trees")
                .show(ui, |ui| trees_section(ui, panel.draft.generator()));
            egui::CollapsingHeader::new("Scatter").show(ui, |ui| scatter_section(ui, panel.draft));
            egui::CollapsingHeader::new("Surface")
                .show(ui, |ui| surface_section(ui, panel.draft.generator()));
            egui::CollapsingHeader::new("Streaming")
                .show(ui, |ui| streaming_section(ui, panel.draft));
        });
    panel.window.open = open;
}

/// Entries of the log listed, the latest first.
const EDITS_LISTED: usize = 200;

/// The world's terrain edits (`indexed`: the bytes of the world's index of them): the latest
/// listed (each can be taken out), undo, clear, and the file they are saved to and loaded from.
/// `edits` is written only when a button is pressed.
fn edits_section(
    ui: &mut egui::Ui,
    edits: &mut Mut<'_, BiomeWorldEdits>,
    file: &mut PanelEditsFile,
    indexed: usize,
) {
    let log = edits.log();
    ui.label(format!(
        "{} edits, {:.1} KiB in the world's index",
        log.len(),
        indexed as f64 / 1024.0
    ));
    let mut remove = None;
    egui::ScrollArea::vertical()
        .max_height(180.0)
        .show(ui, |ui| {
            for (sequence, edit) in log.entries().rev().take(EDITS_LISTED) {
                ui.horizontal(|ui| {
                    if ui.small_button("x").on_hover_text("take it out").clicked() {
                        remove = Some(sequence);
                    }
                    ui.label(format!("#{sequence} {}", describe(edit)));
                });
            }
        });
    if log.len() > EDITS_LISTED {
        ui.label(format!("and {} older", log.len() - EDITS_LISTED));
    }
    let (last, count, empty) = (log.last_sequence(), log.len(), log.is_empty());
    let mut clear = false;
    ui.horizontal(|ui| {
        if ui
            .add_enabled(last.is_some(), egui::Button::new("Undo last"))
            .clicked()
        {
            remove = last;
        }
        clear = ui
            .add_enabled(!empty, egui::Button::new("Clear all"))
            .clicked();
    });
    ui.horizontal(|ui| {
        ui.label("File");
        ui.text_edit_singleline(&mut file.path);
    });
    ui.horizontal(|ui| {
        if ui.button("Save").clicked() {
            file.outcome = match edits.save(Path::new(&file.path)) {
                Ok(()) => format!("saved {count} edits"),
                Err(error) => format!("not saved: {error}"),
            };
        }
        if ui.button("Load").clicked() {
            // A damaged file changes nothing: the world keeps its edits.
            file.outcome = match edits.load(Path::new(&file.path)) {
                Ok(()) => format!("loaded {} edits", edits.log().len()),
                Err(error) => format!("not loaded: {error}"),
            };
        }
    });
    if !file.outcome.is_empty() {
        ui.label(&file.outcome);
    }
    if let Some(sequence) = remove {
        edits.remove(sequence);
    }
    if clear {
        edits.replace(biome_core::edits::EditLog::new());
    }
}

/// One line about an edit.
fn describe(edit: &EditShape) -> String {
    let at = |[x, z]: [f64; 2]| format!("({x:.0}, {z:.0})");
    match edit {
        EditShape::Brush {
            center, radius, op, ..
        } => match op {
            BrushOp::Raise(amount) => {
                format!("raise {amount:+.1} m, {radius:.0} m at {}", at(*center))
            }
            BrushOp::Flatten(height) => {
                format!("flatten to {height:.1} m, {radius:.0} m at {}", at(*center))
            }
        },
        EditShape::Pad {
            center,
            half_size,
            height,
            ..
        } => format!(
            "pad {:.0} x {:.0} m at {:.1} m, {}",
            half_size[0] * 2.0,
            half_size[1] * 2.0,
            height,
            at(*center)
        ),
        EditShape::Path { points, width, .. } => {
            let first = points.first().map_or([0.0; 2], |p| [p[0], p[2]]);
            format!(
                "road of {} points, {width:.0} m wide from {}",
                points.len(),
                at(first)
            )
        }
        EditShape::Clearing { center, radius } => {
            format!("clearing {radius:.0} m at {}", at(*center))
        }
    }
}

fn world_section(ui: &mut egui::Ui, panel: &mut Panel<'_>, shown: &Shown<'_>) {
    let (draft, presets) = (&mut *panel.draft, &mut *panel.presets);
    ui.horizontal(|ui| {
        ui.label("Seed");
        ui.add(egui::DragValue::new(&mut draft.generator().seed).range(limits::SEED));
        if ui.button("New world").clicked() {
            let entropy = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            draft.generator().seed = WorldSettings::seed_from_entropy(entropy);
            draft.settings.apply_now();
        }
        if ui.button("Reset to defaults").clicked() {
            *draft.generator() = WorldSettings::default();
            draft.settings.apply_now();
            presets.notice = Some(Notice::info("Settings reset to defaults"));
        }
    });
    ui.horizontal(|ui| {
        ui.label("Preset");
        let mut chosen = None;
        egui::ComboBox::from_id_salt("preset")
            .selected_text(
                presets
                    .selected
                    .clone()
                    .unwrap_or_else(|| "choose…".to_owned()),
            )
            .show_ui(ui, |ui| {
                if presets.names.is_empty() {
                    ui.label(format!("No presets in {}", presets.library.dir.display()));
                }
                for name in &presets.names {
                    if ui
                        .selectable_label(presets.selected.as_ref() == Some(name), name)
                        .clicked()
                    {
                        chosen = Some(name.clone());
                    }
                }
            });
        if ui
            .small_button("⟳")
            .on_hover_text("Look for presets again")
            .clicked()
        {
            presets.names = presets.library.names();
        }
        if let Some(name) = chosen {
            presets.load(&name, draft);
        }
    });
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut presets.save_name)
                .desired_width(150.0)
                .hint_text("preset name"),
        );
        if ui.button("Save preset as…").clicked() {
            presets.save(draft);
        }
    });
    if let Some(notice) = &presets.notice {
        let color = if notice.is_error {
            Color32::from_rgb(255, 110, 100)
        } else {
            Color32::from_rgb(140, 210, 140)
        };
        ui.colored_label(color, &notice.text);
    }
    if let Some(error) = &shown.state.error() {
        ui.colored_label(
            Color32::from_rgb(255, 110, 100),
            format!("Refused: {error}"),
        );
    }
    if draft.settings.is_pending() {
        ui.small("Applying when you pause…");
    }
    ui.horizontal(|ui| {
        ui.label("Height scale");
        ui.add(
            egui::Slider::new(
                &mut draft.generator().terrain.height_scale,
                limits::HEIGHT_SCALE,
            )
            .logarithmic(true)
            .suffix(" u"),
        );
    });
}

fn minimap(ui: &mut egui::Ui, panel: &Panel<'_>) {
    let (Some(texture), Some(snapshot)) = (&panel.textures.minimap, &panel.view.snapshot) else {
        ui.label("Drawing the map…");
        return;
    };
    let side = 220.0;
    let (response, painter) = ui.allocate_painter(vec2(side, side), Sense::hover());
    let rect = response.rect;
    painter.image(
        texture.id(),
        rect,
        Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
        Color32::WHITE,
    );
    if let Some(camera) = panel.view.camera {
        let (position, heading) = (camera.position, camera.heading);
        let scale = f64::from(side) / snapshot.span;
        let offset = vec2(
            ((position.x - snapshot.center[0]) * scale) as f32,
            ((position.z - snapshot.center[1]) * scale) as f32,
        );
        let at = rect.center() + offset;
        let forward = vec2(-heading.sin(), -heading.cos()) * 14.0;
        painter.circle_filled(at, 4.0, Color32::from_rgb(255, 60, 40));
        painter.arrow(
            at,
            forward,
            Stroke::new(2.0, Color32::from_rgb(255, 60, 40)),
        );
    }
    painter.rect_stroke(
        rect,
        0.0,
        Stroke::new(1.0, Color32::from_gray(60)),
        egui::StrokeKind::Inside,
    );
    ui.small(format!(
        "{:.0} × {:.0} units around the camera, {MINIMAP_SIZE} px",
        snapshot.span, snapshot.span
    ));
}

fn stats(ui: &mut egui::Ui, view: &PanelView, shown: &Shown<'_>) {
    let s = shown.stats;
    egui::Grid::new("stats").num_columns(2).show(ui, |ui| {
        ui.label("Terrain nodes");
        ui.label(format!(
            "{} ({} in flight, {} queued)",
            s.loaded,
            s.in_flight,
            s.queued + s.ready
        ));
        ui.end_row();
        ui.label("Per level");
        ui.label(
            s.loaded_per_level
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" · "),
        );
        ui.end_row();
        ui.label("Drawn");
        ui.label(format!(
            "{:.2} M triangles, {:.0} MiB, {} trees",
            s.triangles as f64 / 1e6,
            s.mesh_bytes as f64 / f64::from(1u32 << 20),
            s.trees
        ));
        ui.end_row();
        if let Some((mean, p99)) = shown.build_ms {
            ui.label("Node build");
            ui.label(format!("mean {mean:.2} ms, p99 {p99:.2} ms"));
            ui.end_row();
        }
        ui.label("Frame");
        ui.label(format!("{:.1} ms", view.frame_ms));
        ui.end_row();
        if let Some(here) = &view.here {
            let biomes = &shown.state.generator().settings().biome_table.biomes;
            ui.label("Under the camera");
            ui.label(format!(
                "{} ({:?}), {:.0} u",
                biomes.get(here.biome).map_or("?", |b| b.name.as_str()),
                here.surface,
                here.height
            ));
            ui.end_row();
            ui.label("Region");
            ui.label(format!(
                "({}, {}), blend {:.2}",
                here.region.x, here.region.z, here.blend
            ));
            ui.end_row();
        }
    });
}

/// Labs #1 and #2: the stack's first node of one kind (the continents' fBm, their warp), and
/// the first erosion node.
fn first_node_section(
    ui: &mut egui::Ui,
    settings: &mut WorldSettings,
    kind: &str,
    is_kind: fn(&DensityNode) -> bool,
) {
    let stack = &mut settings.terrain.density;
    let found = first_node(stack, is_kind);
    match found.and_then(|id| Some((id, stack.node_mut(id)?))) {
        Some((id, node)) => {
            ui.small(format!("Density node {id}, the stack's first {kind}"));
            node_fields(ui, id, node);
        }
        None => {
            ui.label(format!("The density stack has no {kind} node."));
        }
    }
}

/// Lab #3: climate, and the biome table as the tutorial's chart with draggable lines.
fn climate_section(ui: &mut egui::Ui, panel: &mut Panel<'_>) {
    let climate = &mut panel.draft.generator().climate;
    feature_size(
        ui,
        &mut climate.scale,
        &limits::CLIMATE_SCALE,
        "climate zone size",
    );
    slider(ui, &mut climate.chill, &limits::CHILL, "mountain chill");
    egui::CollapsingHeader::new("Rain shadow").show(ui, |ui| {
        let shadow = &mut climate.rain_shadow;
        ui.small("Wet windward slopes, dry lee sides; strength 0 is off.");
        slider(ui, &mut shadow.strength, &(0.0..=2.0), "strength");
        slider(
            ui,
            &mut shadow.wind_degrees,
            &limits::WIND_DEGREES,
            "wind toward (°, 0 is +x)",
        );
        log_slider(ui, &mut shadow.reach, &(100.0..=20_000.0), "reach (u)");
        slider_u32(
            ui,
            &mut shadow.steps,
            limits::RAIN_SHADOW_STEPS,
            "upwind steps",
        );
    });
    biome_source_section(ui, panel);
    egui::CollapsingHeader::new("Biomes").show(ui, |ui| {
        for (i, biome) in panel
            .draft
            .generator()
            .biome_table
            .biomes
            .iter_mut()
            .enumerate()
        {
            ui.horizontal(|ui| {
                let mut bytes = [biome.color.0, biome.color.1, biome.color.2];
                ui.color_edit_button_srgb(&mut bytes);
                biome.color = Rgb(bytes[0], bytes[1], bytes[2]);
                ui.add(
                    egui::TextEdit::singleline(&mut biome.name)
                        .desired_width(120.0)
                        .id_salt(("biome", i)),
                );
            });
        }
    });
}

fn biome_chart(ui: &mut egui::Ui, panel: &mut Panel<'_>) {
    let table = &panel.draft.settings.draft.generator.biome_table;
    if table.biomes.len() != table.expected_len() {
        ui.colored_label(
            Color32::from_rgb(255, 110, 100),
            format!(
                "The table needs {} biomes for these thresholds, not {}.",
                table.expected_len(),
                table.biomes.len()
            ),
        );
        return;
    }
    let side = 230.0;
    let (response, painter) = ui.allocate_painter(vec2(side, side), Sense::click_and_drag());
    let rect = response.rect;
    let table = &panel.draft.settings.draft.generator.biome_table;
    // Moisture runs left to right (dry to wet), temperature bottom to top (cold to hot).
    let to_screen = |moisture: f64, temperature: f64| {
        pos2(
            rect.left() + moisture as f32 * rect.width(),
            rect.bottom() - temperature as f32 * rect.height(),
        )
    };
    let rows: Vec<f64> = std::iter::once(0.0)
        .chain(table.heat_limits.iter().copied())
        .chain([1.0])
        .collect();
    let cols: Vec<f64> = std::iter::once(0.0)
        .chain(table.wet_limits.iter().copied())
        .chain([1.0])
        .collect();
    for r in 0..rows.len() - 1 {
        for c in 0..cols.len() - 1 {
            let biome = &table.biomes[r * (cols.len() - 1) + c];
            let cell = Rect::from_two_pos(
                to_screen(cols[c], rows[r]),
                to_screen(cols[c + 1], rows[r + 1]),
            );
            painter.rect_filled(cell, 0.0, rgb32(biome.color).gamma_multiply(0.85));
            painter.text(
                cell.center(),
                egui::Align2::CENTER_CENTER,
                &biome.name,
                egui::FontId::proportional(10.0),
                Color32::from_black_alpha(200),
            );
        }
    }
    if let Some(snapshot) = &panel.view.snapshot {
        for &(temperature, moisture, biome) in &snapshot.dots {
            let at = to_screen(f64::from(moisture), f64::from(temperature));
            let fill = table
                .biomes
                .get(biome)
                .map_or(Color32::WHITE, |b| rgb32(b.color));
            painter.circle(
                at,
                2.5,
                fill,
                Stroke::new(0.7, Color32::from_black_alpha(180)),
            );
        }
    }
    let line = Stroke::new(2.0, Color32::WHITE);
    for &w in &table.wet_limits {
        painter.line_segment([to_screen(w, 0.0), to_screen(w, 1.0)], line);
    }
    for &h in &table.heat_limits {
        painter.line_segment([to_screen(0.0, h), to_screen(1.0, h)], line);
    }
    // Axis hints in the corners: temperature rises upward, moisture to the right.
    let hint = |at: Pos2, align: egui::Align2, text: &str| {
        painter.text(
            at,
            align,
            text,
            egui::FontId::proportional(10.0),
            Color32::BLACK,
        );
    };
    hint(
        rect.left_top() + vec2(2.0, 2.0),
        egui::Align2::LEFT_TOP,
        "hot",
    );
    hint(
        rect.left_bottom() + vec2(2.0, -2.0),
        egui::Align2::LEFT_BOTTOM,
        "cold, dry",
    );
    hint(
        rect.right_bottom() + vec2(-2.0, -2.0),
        egui::Align2::RIGHT_BOTTOM,
        "wet",
    );

    let pointer = response.interact_pointer_pos();
    if response.drag_started()
        && let Some(p) = pointer
    {
        panel.textures.dragging = nearest_line(p, rect, &table.heat_limits, &table.wet_limits);
    }
    if response.dragged()
        && let (Some(p), Some(DraggedLine { axis, index })) = (pointer, panel.textures.dragging)
    {
        let table = &mut panel.draft.generator().biome_table;
        match axis {
            Axis::Wet => drag_threshold(
                &mut table.wet_limits,
                index,
                f64::from((p.x - rect.left()) / rect.width()),
            ),
            Axis::Heat => drag_threshold(
                &mut table.heat_limits,
                index,
                f64::from((rect.bottom() - p.y) / rect.height()),
            ),
        }
    }
    if response.drag_stopped() {
        panel.textures.dragging = None;
    }
}

/// The threshold line within grabbing distance of `p`, if any.
fn nearest_line(p: Pos2, rect: Rect, heat: &[f64], wet: &[f64]) -> Option<DraggedLine> {
    const REACH: f32 = 8.0;
    let wet_hits = wet.iter().enumerate().map(|(i, &w)| {
        (
            (rect.left() + w as f32 * rect.width() - p.x).abs(),
            DraggedLine {
                axis: Axis::Wet,
                index: i,
            },
        )
    });
    let heat_hits = heat.iter().enumerate().map(|(i, &h)| {
        (
            (rect.bottom() - h as f32 * rect.height() - p.y).abs(),
            DraggedLine {
                axis: Axis::Heat,
                index: i,
            },
        )
    });
    wet_hits
        .chain(heat_hits)
        .filter(|(d, _)| *d <= REACH)
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, line)| line)
}

/// The biome source: the table's chart, or the multi-noise source's slice chart, boxes and axes.
fn biome_source_section(ui: &mut egui::Ui, panel: &mut Panel<'_>) {
    let settings = panel.draft.generator();
    let was = matches!(settings.biome_source, BiomeSource::MultiNoise(_));
    let mut multi = was;
    ui.horizontal(|ui| {
        ui.label("Biomes from");
        ui.selectable_value(&mut multi, false, "the table");
        ui.selectable_value(&mut multi, true, "multi-noise boxes");
    });
    if multi != was {
        // A new source starts as the table, box for box, so nothing changes until edited.
        settings.biome_source = if multi {
            BiomeSource::MultiNoise(MultiNoise::from_table(&settings.biome_table))
        } else {
            BiomeSource::Table
        };
        panel.view.picked_box = None;
    }
    if multi {
        ui.small(
            "Each region takes the box its site's climate fits best (the first listed among \
             equals). The chart is a slice through the other axes at the site nearest the \
             camera; dots are the sites around. Click to pick a box.",
        );
        multi_noise_chart(ui, panel);
        multi_noise_boxes(ui, panel);
        multi_noise_axes(ui, panel.draft.generator());
    } else {
        ui.small("Drag the lines; each dot is a spot of land near the camera.");
        biome_chart(ui, panel);
    }
}

/// The range of `axis` the slice chart spans: temperature and moisture 0 to 1, the others -1 to 1.
fn chart_range(axis: usize) -> (f64, f64) {
    if axis < 2 { (0.0, 1.0) } else { (-1.0, 1.0) }
}

/// Cells along each side of the multi-noise slice chart.
const SLICE_CELLS: usize = 48;

fn multi_noise_chart(ui: &mut egui::Ui, panel: &mut Panel<'_>) {
    ui.horizontal(|ui| {
        for (k, label) in [(0, "across"), (1, "up")] {
            let axis = &mut panel.view.slice_axes[k];
            egui::ComboBox::from_id_salt(("slice axis", k))
                .selected_text(AXIS_NAMES[*axis])
                .show_ui(ui, |ui| {
                    for (a, name) in AXIS_NAMES.iter().enumerate() {
                        ui.selectable_value(axis, a, *name);
                    }
                });
            ui.label(label);
        }
    });
    let settings = &panel.draft.settings.draft.generator;
    let BiomeSource::MultiNoise(source) = &settings.biome_source else {
        return;
    };
    let biomes = &settings.biome_table.biomes;
    let [across, up] = panel.view.slice_axes;
    let sites = panel
        .view
        .snapshot
        .as_ref()
        .map_or(&[][..], |s| s.sites.as_slice());
    let slice: ClimatePoint = sites.first().map_or([0.5, 0.5, 0.0, 0.0, 0.0], |s| s.0);
    let side = 230.0;
    let (response, painter) = ui.allocate_painter(vec2(side, side), Sense::click());
    let rect = response.rect;
    let ((x0, x1), (y0, y1)) = (chart_range(across), chart_range(up));
    let to_screen = |x: f64, y: f64| {
        pos2(
            rect.left() + ((x - x0) / (x1 - x0)) as f32 * rect.width(),
            rect.bottom() - ((y - y0) / (y1 - y0)) as f32 * rect.height(),
        )
    };
    let point_at = |x: f64, y: f64| {
        let mut point = slice;
        point[across] = x;
        point[up] = y;
        point
    };
    let color_of = |b: usize| biomes.get(b).map_or(Color32::GRAY, |b| rgb32(b.color));
    let cell = 1.0 / SLICE_CELLS as f64;
    for j in 0..SLICE_CELLS {
        for i in 0..SLICE_CELLS {
            let (u, v) = ((i as f64 + 0.5) * cell, (j as f64 + 0.5) * cell);
            let (x, y) = (x0 + u * (x1 - x0), y0 + v * (y1 - y0));
            // The boxes may be mid-edit (not valid to index): scanned.
            let Some(k) = nearest_by_scan(&source.boxes, &point_at(x, y)) else {
                continue;
            };
            let corner = |di: f64, dj: f64| {
                to_screen(
                    x0 + (i as f64 + di) * cell * (x1 - x0),
                    y0 + (j as f64 + dj) * cell * (y1 - y0),
                )
            };
            painter.rect_filled(
                Rect::from_two_pos(corner(0.0, 0.0), corner(1.0, 1.0)),
                0.0,
                color_of(source.boxes[k].biome).gamma_multiply(0.85),
            );
        }
    }
    if let Some(picked) = panel.view.picked_box.and_then(|k| source.boxes.get(k)) {
        let (a, b) = (picked.ranges[across], picked.ranges[up]);
        let outline = Rect::from_two_pos(
            to_screen(a.min.max(x0), b.min.max(y0)),
            to_screen(a.max.min(x1), b.max.min(y1)),
        );
        painter.rect_stroke(
            outline,
            0.0,
            Stroke::new(2.0, Color32::WHITE),
            egui::StrokeKind::Inside,
        );
    }
    for (point, biome) in sites {
        painter.circle(
            to_screen(point[across], point[up]),
            2.5,
            color_of(*biome),
            Stroke::new(0.7, Color32::from_black_alpha(180)),
        );
    }
    if response.clicked()
        && let Some(p) = response.interact_pointer_pos()
    {
        let x = x0 + f64::from((p.x - rect.left()) / rect.width()) * (x1 - x0);
        let y = y0 + f64::from((rect.bottom() - p.y) / rect.height()) * (y1 - y0);
        panel.view.picked_box = nearest_by_scan(&source.boxes, &point_at(x, y));
    }
}

/// The boxes as numbers: each one's biome, ranges and offset.
fn multi_noise_boxes(ui: &mut egui::Ui, panel: &mut Panel<'_>) {
    let settings = &mut panel.draft.settings.draft.generator;
    let names: Vec<String> = settings
        .biome_table
        .biomes
        .iter()
        .map(|b| b.name.clone())
        .collect();
    let BiomeSource::MultiNoise(source) = &mut settings.biome_source else {
        return;
    };
    let picked = panel.view.picked_box;
    let mut remove = None;
    for (k, b) in source.boxes.iter_mut().enumerate() {
        let name = names.get(b.biome).map_or("?", String::as_str);
        egui::CollapsingHeader::new(format!("box {k}: {name}"))
            .id_salt(("box", k))
            .open((picked == Some(k)).then_some(true))
            .show(ui, |ui| {
                egui::ComboBox::from_id_salt(("box biome", k))
                    .selected_text(name)
                    .show_ui(ui, |ui| {
                        for (i, name) in names.iter().enumerate() {
                            ui.selectable_value(&mut b.biome, i, name);
                        }
                    });
                for (range, axis) in b.ranges.iter_mut().zip(AXIS_NAMES) {
                    ui.horizontal(|ui| {
                        let AxisRange { min, max } = range;
                        let (lowest, highest) = limits::DENSITY.into_inner();
                        ui.add(egui::DragValue::new(min).speed(0.01).range(lowest..=*max));
                        ui.label("to");
                        ui.add(egui::DragValue::new(max).speed(0.01).range(*min..=highest));
                        ui.label(axis);
                    });
                }
                number(
                    ui,
                    &mut b.offset,
                    0.0..=*limits::DENSITY.end(),
                    "offset (rarer when larger)",
                );
                if ui.button("Remove box").clicked() {
                    remove = Some(k);
                }
            });
    }
    if let Some(k) = remove
        && source.boxes.len() > 1
    {
        source.boxes.remove(k);
        panel.view.picked_box = None;
    }
    if source.boxes.len() < MAX_BOXES && ui.button("Add box").clicked() {
        // A copy of the picked box, listed first so it wins where it overlaps.
        let new = picked
            .and_then(|k| source.boxes.get(k).copied())
            .unwrap_or(BiomeBox {
                biome: 0,
                ranges: [AxisRange::ANY; AXES],
                offset: 0.0,
            });
        source.boxes.insert(0, new);
        panel.view.picked_box = Some(0);
    }
}

/// The three extra axes, each a density graph edited as the stack is.
fn multi_noise_axes(ui: &mut egui::Ui, settings: &mut WorldSettings) {
    let BiomeSource::MultiNoise(source) = &mut settings.biome_source else {
        return;
    };
    let axes = [
        (&mut source.continentalness, AXIS_NAMES[2]),
        (&mut source.erosion, AXIS_NAMES[3]),
        (&mut source.weirdness, AXIS_NAMES[4]),
    ];
    for (k, (graph, name)) in axes.into_iter().enumerate() {
        egui::CollapsingHeader::new(format!("{name} field"))
            .id_salt(("axis", k))
            .show(ui, |ui| node_rows(ui, graph, 1000 * (k + 1), &[]));
    }
}

/// Lab #4.
fn regions_section(ui: &mut egui::Ui, panel: &mut Panel<'_>) {
    let r = &mut panel.draft.generator().regions;
    log_slider(ui, &mut r.cell_size, &limits::CELL_SIZE, "cell size (u)");
    slider(ui, &mut r.jitter, &limits::JITTER, "jitter");
    slider(ui, &mut r.wobble, &(0.0..=500.0), "border wobble (u)");
    feature_size(ui, &mut r.wobble_scale, &limits::SCALE, "wobble size");
    slider(ui, &mut r.blend_width, &(0.0..=300.0), "blend width (u)");
    ui.checkbox(&mut panel.view.show_sites, "Show sites");
}

/// Lab #5: one row per node, with its switch, its output around the camera and its fields.
fn density_section(ui: &mut egui::Ui, panel: &mut Panel<'_>) {
    ui.small("Each preview shows that node's output around the camera (white is high).");
    let stack = &mut panel.draft.settings.draft.generator.terrain.density;
    node_rows(ui, stack, 0, &panel.textures.previews);
}

/// The world's volume (`terrain.volume`): its band, and the nodes of its density and its mask
/// with their previews.
fn volume_section(ui: &mut egui::Ui, settings: &mut WorldSettings, textures: &PanelTextures) {
    let Some(volume) = &mut settings.terrain.volume else {
        ui.small(
            "This world has no volume: load the caves preset, or give a preset a \
             terrain.volume, for caves, overhangs and arches.",
        );
        return;
    };
    slider(
        ui,
        &mut volume.below,
        &limits::VOLUME_BAND,
        "reach under ground (u)",
    );
    slider(
        ui,
        &mut volume.above,
        &limits::VOLUME_BAND,
        "reach over ground (u)",
    );
    log_slider(
        ui,
        &mut volume.spacing,
        &limits::VOLUME_SPACING,
        "sampled every (u)",
    );
    ui.small(
        "Volume: each preview is a slice along x through the camera, the band around the \
         ground high (brown rock, blue hollows, the height field's surface green).",
    );
    node_rows(ui, &mut volume.density, 5000, &textures.volume_previews);
    ui.small("Mask: where the volume may change the ground, seen from above (white is 1).");
    node_rows(ui, &mut volume.mask, 6000, &textures.mask_previews);
}

/// One row per node of `graph` (indented by depth) with its switch, its preview when
/// `previews` has one, and its fields; `salt` keeps the widgets of several graphs apart.
fn node_rows(
    ui: &mut egui::Ui,
    graph: &mut DensityNode,
    salt: usize,
    previews: &[egui::TextureHandle],
) {
    let depths: Vec<usize> = graph.walk().iter().map(|entry| entry.depth).collect();
    for (id, depth) in depths.into_iter().enumerate() {
        let Some(node) = graph.node_mut(id) else {
            continue;
        };
        ui.horizontal(|ui| {
            ui.add_space(depth as f32 * 12.0);
            ui.checkbox(&mut node.enabled, "");
            if let Some(texture) = previews.get(id) {
                ui.add(egui::Image::new(egui::load::SizedTexture::new(
                    texture.id(),
                    vec2(PREVIEW_SIZE as f32, PREVIEW_SIZE as f32),
                )));
            }
            egui::CollapsingHeader::new(format!("{id}: {}", op_label(node.op.kind())))
                .id_salt(("node", salt + id))
                .show(ui, |ui| node_fields(ui, salt + id, node));
        });
    }
}

fn node_fields(ui: &mut egui::Ui, id: usize, node: &mut DensityNode) {
    let mut any = false;
    let kind = node.op.kind();
    node.op.fields(&mut |field| {
        any = true;
        field_widget(ui, id, kind, field);
    });
    if !any {
        ui.small("No fields: it combines its inputs.");
    }
}

/// An operation's name in the panel, from its kind in presets.
fn op_label(kind: &'static str) -> &'static str {
    match kind {
        "Fbm" => "Simplex fBm",
        "Eroded" => "Eroded fBm",
        "SmoothClamp" => "Smooth clamp",
        "Custom" => "Game function",
        other => other,
    }
}

/// A field's label in the panel: its name in presets, or plainer words (with `(u)` for world
/// units) where the name alone says too little.
fn field_label(kind: &str, name: &'static str) -> &'static str {
    match (kind, name) {
        (_, "seed_offset") => "seed +",
        (_, "low") => "floor",
        (_, "high") => "ceiling",
        ("Warp", "scale") => "warp size",
        ("Warp", "strength") => "strength (u)",
        ("Eroded", "scale") => "mountain size",
        (_, "scale") => "feature size",
        ("Cell", "radius") => "radius (u)",
        ("Custom", "name") => "function",
        ("Eroded", "depth") => "gully depth",
        ("Eroded", "gully_scale") => "gullies finer by",
        ("Eroded", "gully_octaves") => "gully layers",
        ("Eroded", "flat") => "flat below slope",
        (_, name) => name,
    }
}

/// One field of a density operation, edited with the control its usual values call for.
fn field_widget(ui: &mut egui::Ui, id: usize, kind: &str, field: Field<'_>) {
    let label = field_label(kind, field.name);
    match field.value {
        FieldValue::Number {
            value,
            range,
            typical,
        } => match typical {
            Typical::Any => number(ui, value, range, label),
            Typical::Even(handy) => slider(ui, value, &handy, label),
            Typical::Factor(handy) => log_slider(ui, value, &handy, label),
            Typical::Frequency => feature_size(ui, value, &range, label),
        },
        FieldValue::Whole { value, range } => slider_u32(ui, value, range, label),
        FieldValue::SeedOffset { value, range } => {
            ui.horizontal(|ui| {
                ui.label(label);
                ui.add(egui::DragValue::new(value).range(range));
            });
        }
        FieldValue::Choice { value, choices } => {
            ui.horizontal(|ui| {
                ui.label(label);
                for (k, name) in (0u32..).zip(choices) {
                    ui.selectable_value(value, k, *name);
                }
            });
        }
        FieldValue::Shape(shape) => {
            ui.horizontal(|ui| {
                ui.label(label);
                shape_picker(ui, shape, id);
            });
        }
        // Functions are the game's code: the panel names them.
        FieldValue::Name(name) => {
            ui.horizontal(|ui| {
                ui.label(label);
                ui.monospace(name.as_str());
            });
        }
    }
}

/// Rivers and lakes: springs, courses, channels and valleys.
fn rivers_section(ui: &mut egui::Ui, settings: &mut WorldSettings) {
    let r = &mut settings.rivers;
    ui.checkbox(&mut r.enabled, "Rivers and lakes");
    ui.small(
        "Springs rise on moist land and run downhill to the sea or a lake; their water never \
         rises downstream.",
    );
    log_slider(ui, &mut r.spacing, &(40.0..=1000.0), "node spacing (u)");
    slider(ui, &mut r.springs, &limits::RIVER_SPRINGS, "spring chance");
    slider(
        ui,
        &mut r.spring_height,
        &(0.0..=100.0),
        "springs above sea (u)",
    );
    slider(
        ui,
        &mut r.dry_moisture,
        &limits::DRY_MOISTURE,
        "no springs below moisture",
    );
    slider_u32(
        ui,
        &mut r.max_length,
        limits::RIVER_LENGTH,
        "longest course (nodes)",
    );
    // Width and lake radius stay within what the spacing allows.
    let widest = (r.spacing / 8.0).min(*limits::RIVER_WIDTH.end());
    slider(
        ui,
        &mut r.width,
        &(*limits::RIVER_WIDTH.start()..=widest),
        "width (u)",
    );
    slider(ui, &mut r.depth, &(0.1..=10.0), "depth (u)");
    let largest = (r.spacing / 4.0).min(*limits::LAKE_RADIUS.end());
    slider(
        ui,
        &mut r.lake_radius,
        &(*limits::LAKE_RADIUS.start()..=largest),
        "lake radius (u)",
    );
    let reach = (4.0 * r.spacing).min(300.0);
    slider(ui, &mut r.valley_width, &(1.0..=reach), "valley reach (u)");
    slider(ui, &mut r.valley_slope, &(0.05..=3.0), "valley wall slope");
    slider(ui, &mut r.bank_height, &(0.0..=5.0), "bank height (u)");
    slider(ui, &mut r.meander, &limits::MEANDER, "meander");
}

/// The scatter layers: each one's rules and how far it reaches, a game's layers added or
/// removed, and each biome's spacings.
fn scatter_section(ui: &mut egui::Ui, draft: &mut PanelDraft) {
    ui.checkbox(&mut draft.scatter.draft.enabled, "Spawn scattered objects");
    let streamed = draft.scatter.draft.clone();
    let mut radii: Vec<(String, f32)> = Vec::new();
    let settings = draft.generator();
    let s = &mut settings.scatter;
    ui.checkbox(&mut s.enabled, "The world scatters");
    let mut removed = None;
    for (k, layer) in s.layers.iter_mut().enumerate() {
        let name = layer.name.to_string();
        egui::CollapsingHeader::new(format!("Layer {name}"))
            .id_salt(("scatter layer", layer.name))
            .show(ui, |ui| {
                let mut radius = streamed.radius(&name);
                ui.add(
                    egui::Slider::new(&mut radius, BiomeScatterSettings::RADIUS)
                        .clamping(CLAMP_EDITS)
                        .text("radius (u)"),
                );
                if radius != streamed.radius(&name) {
                    radii.push((name.clone(), radius));
                }
                slider(
                    ui,
                    &mut layer.max_slope_degrees,
                    &limits::MAX_SLOPE,
                    "slope limit (°)",
                );
                let floor = layer.min_height.unwrap_or(0.0);
                for (label, height, start) in [
                    ("lowest ground (u)", &mut layer.min_height, 0.0),
                    (
                        "highest ground (u)",
                        &mut layer.max_height,
                        floor.max(200.0),
                    ),
                ] {
                    ui.horizontal(|ui| {
                        let mut on = height.is_some();
                        ui.checkbox(&mut on, "");
                        match (on, height.as_mut()) {
                            (true, Some(value)) => height_slider(ui, value, label),
                            (true, None) => *height = Some(start),
                            (false, _) => {
                                *height = None;
                                ui.label(format!("{label}: any"));
                            }
                        }
                    });
                }
                ui.horizontal(|ui| {
                    ui.label("stands on");
                    for (ground, label) in [
                        (ScatterGround::Surface, "the surface"),
                        (ScatterGround::CaveFloor, "cave floors"),
                    ] {
                        ui.radio_value(&mut layer.ground, ground, label);
                    }
                });
                // Water and snow are the surface's: they do not rule on cave floors.
                if layer.ground == ScatterGround::Surface {
                    ui.horizontal(|ui| {
                        ui.label("water");
                        for (rule, label) in [
                            (WaterRule::Dry, "away from it"),
                            (WaterRule::Shore, "on shores"),
                            (WaterRule::Land, "any land"),
                        ] {
                            ui.radio_value(&mut layer.water, rule, label);
                        }
                    });
                    ui.checkbox(&mut layer.on_snow, "on snow too");
                }
                scale_range(ui, &mut layer.min_scale, &mut layer.max_scale);
                if ui.button("Remove layer").clicked() {
                    removed = Some(k);
                }
            });
    }
    if let Some(k) = removed {
        let name = s.layers.remove(k).name;
        for biome in &mut settings.biome_table.biomes {
            biome.scatter.retain(|entry| entry.layer != name);
        }
        draft
            .scatter
            .draft
            .radii
            .retain(|entry| entry.layer != name);
    }
    for (name, radius) in radii {
        draft.scatter.draft.set_radius(&name, radius);
    }
    add_layer(ui, &mut draft.generator().scatter);
    let settings = draft.generator();
    ui.small(format!(
        "Each biome's spacing per layer: the least distance between two of its objects \
         (Poisson-disk). A layer's widest spacing may be at most {} times its narrowest.",
        limits::SCATTER_SPREAD
    ));
    let layers: Vec<LayerName> = settings.scatter.layers.iter().map(|l| l.name).collect();
    for (i, biome) in settings.biome_table.biomes.iter_mut().enumerate() {
        egui::CollapsingHeader::new(format!("{} scatter", biome.name))
            .id_salt(("scatter", i))
            .show(ui, |ui| {
                for &layer in &layers {
                    let at = biome.scatter.iter().position(|s| s.layer == layer);
                    let mut on = at.is_some();
                    ui.horizontal(|ui| {
                        ui.checkbox(&mut on, layer.as_str());
                        if let Some(k) = at {
                            log_slider(
                                ui,
                                &mut biome.scatter[k].spacing,
                                &(*limits::SCATTER_SPACING.start()..=100.0),
                                "spacing (u)",
                            );
                        }
                    });
                    match (on, at) {
                        (true, None) => biome.scatter.push(ScatterSpacing {
                            layer,
                            spacing: 8.0,
                        }),
                        (false, Some(k)) => {
                            biome.scatter.remove(k);
                        }
                        _ => {}
                    }
                }
            });
    }
}

/// A height in world units: the slider spans the heights terrain commonly has; typed values go
/// anywhere (validation names the field when one is beyond `limits::SCATTER_HEIGHT`).
fn height_slider(ui: &mut egui::Ui, value: &mut f64, label: &str) {
    ui.add(
        egui::Slider::new(value, -200.0..=2000.0)
            .clamping(egui::SliderClamping::Never)
            .text(label),
    );
}

/// A name field and a button that adds a layer of that name (no biome scatters it until one is
/// ticked below).
fn add_layer(ui: &mut egui::Ui, scatter: &mut ScatterSettings) {
    let id = ui.make_persistent_id("new scatter layer");
    let mut name: String = ui.data_mut(|data| data.get_temp(id).unwrap_or_default());
    ui.horizontal(|ui| {
        ui.text_edit_singleline(&mut name);
        let layer = ScatterLayer::new(&name);
        let fresh = scatter.layer_index(&name).is_none()
            && scatter.layers.len() < limits::MAX_SCATTER_LAYERS;
        let add = ui.add_enabled(layer.is_ok() && fresh, egui::Button::new("Add layer"));
        if add.clicked()
            && let Ok(layer) = layer
        {
            scatter.layers.push(layer);
            name.clear();
        }
    });
    ui.data_mut(|data| data.insert_temp(id, name));
}

fn trees_section(ui: &mut egui::Ui, settings: &mut WorldSettings) {
    let t = &mut settings.trees;
    ui.checkbox(&mut t.enabled, "Grow trees");
    log_slider(ui, &mut t.spacing, &limits::TREE_SPACING, "spacing (u)");
    slider(ui, &mut t.jitter, &limits::TREE_JITTER, "jitter");
    slider(
        ui,
        &mut t.max_slope_degrees,
        &limits::MAX_SLOPE,
        "slope limit (°)",
    );
    slider(ui, &mut t.clumping, &limits::CLUMPING, "clumping");
    scale_range(ui, &mut t.min_scale, &mut t.max_scale);
    ui.separator();
    for (i, biome) in settings.biome_table.biomes.iter_mut().enumerate() {
        biome_trees(ui, i, biome);
    }
}

fn biome_trees(ui: &mut egui::Ui, i: usize, biome: &mut Biome) {
    egui::CollapsingHeader::new(format!("{} trees", biome.name))
        .id_salt(("trees", i))
        .show(ui, |ui| {
            slider(
                ui,
                &mut biome.tree_density,
                &limits::TREE_DENSITY,
                "density",
            );
            let mut remove = None;
            for (k, entry) in biome.trees.iter_mut().enumerate() {
                ui.horizontal(|ui| {
                    ui.label(format!("{:?}", entry.species));
                    ui.add(
                        egui::DragValue::new(&mut entry.weight)
                            .speed(0.1)
                            .range(limits::SPECIES_WEIGHT)
                            .prefix("weight "),
                    );
                    if ui.small_button("✕").clicked() {
                        remove = Some(k);
                    }
                });
            }
            if let Some(k) = remove {
                biome.trees.remove(k);
            }
            egui::ComboBox::from_id_salt(("add species", i))
                .selected_text("add species…")
                .show_ui(ui, |ui| {
                    for species in TreeSpecies::ALL {
                        if !biome.trees.iter().any(|e| e.species == species)
                            && ui.selectable_label(false, format!("{species:?}")).clicked()
                        {
                            biome.trees.push(SpeciesWeight {
                                species,
                                weight: 1.0,
                            });
                        }
                    }
                });
        });
}

fn surface_section(ui: &mut egui::Ui, settings: &mut WorldSettings) {
    let s = &mut settings.surface;
    slider(
        ui,
        &mut s.deep_water,
        &(-1.0..=*limits::DEEP_WATER.end()),
        "deep water below",
    );
    slider(ui, &mut s.beach, &(0.0..=0.2), "beach up to");
    slider(
        ui,
        &mut s.snow_temperature,
        &limits::SNOW_TEMPERATURE,
        "snow below temperature",
    );
    color(ui, &mut s.deep_water_color, "deep water");
    color(ui, &mut s.shallow_water_color, "shallow water");
    color(ui, &mut s.beach_color, "beach");
    color(ui, &mut s.snow_color, "snow");
}

fn streaming_section(ui: &mut egui::Ui, draft: &mut PanelDraft) {
    let streaming = &mut draft.streaming.draft;
    ui.add(
        egui::Slider::new(&mut streaming.horizon, BiomeWorldStreaming::HORIZON)
            .clamping(CLAMP_EDITS)
            .logarithmic(true)
            .text("horizon (u)"),
    );
    ui.add(
        egui::Slider::new(
            &mut streaming.detail_radius,
            BiomeWorldStreaming::DETAIL_RADIUS,
        )
        .clamping(CLAMP_EDITS)
        .logarithmic(true)
        .text("full detail within (u)"),
    );
    ui.add(
        egui::Slider::new(&mut streaming.hysteresis, BiomeWorldStreaming::HYSTERESIS)
            .clamping(CLAMP_EDITS)
            .text("level hysteresis"),
    );
    ui.add(
        egui::Slider::new(
            &mut streaming.fade_seconds,
            BiomeWorldStreaming::FADE_SECONDS,
        )
        .clamping(CLAMP_EDITS)
        .text("level fade (s)"),
    );
    ui.add(
        egui::Slider::new(&mut streaming.max_tasks, BiomeWorldStreaming::MAX_TASKS)
            .text("tasks in flight"),
    );
    ui.add(
        egui::Slider::new(&mut streaming.apply_budget_ms, 0.1..=20.0)
            .clamping(CLAMP_EDITS)
            .logarithmic(true)
            .text("apply budget (ms)"),
    );
    ui.add(
        egui::Slider::new(&mut streaming.frame_budget_ms, 0.1..=20.0)
            .clamping(CLAMP_EDITS)
            .logarithmic(true)
            .text("frame budget, all kinds (ms)"),
    );
    let settings = &mut draft.settings.draft;
    ui.horizontal(|ui| {
        ui.selectable_value(&mut settings.layout.style, MeshStyle::Smooth, "Smooth");
        ui.selectable_value(
            &mut settings.layout.style,
            MeshStyle::FlatTiles,
            "Flat tiles",
        );
    });
    slider_u32(
        ui,
        &mut settings.layout.tiles,
        ChunkLayout::TILES,
        "tiles per chunk side",
    );
    ui.add(
        egui::Slider::new(&mut settings.layout.tile_size, ChunkLayout::TILE_SIZE)
            .clamping(CLAMP_EDITS)
            .logarithmic(true)
            .step_by(ChunkLayout::TILE_STEP)
            .text("tile size (u)"),
    );
    ui.checkbox(&mut settings.water, "Water surface");
    ui.checkbox(&mut settings.trees, "Spawn trees");
    ui.add(
        egui::Slider::new(&mut settings.tree_levels, BiomeWorldSettings::TREE_LEVELS)
            .text("tree entity levels"),
    );
    ui.add(
        egui::Slider::new(
            &mut settings.far_forest_levels,
            BiomeWorldSettings::FAR_FOREST_LEVELS,
        )
        .text("far forest levels"),
    );
    ui.add(
        egui::Slider::new(
            &mut settings.full_mesh_levels,
            BiomeWorldSettings::FULL_MESH_LEVELS,
        )
        .text("full mesh levels"),
    );
}

#[cfg(test)]
mod tests {
    use bevy::prelude::World;

    use super::*;

    fn draw(world: &mut World, file: &mut PanelEditsFile) {
        let ctx = egui::Context::default();
        let mut edits = world.resource_mut::<BiomeWorldEdits>();
        let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
            edits_section(ui, &mut edits, file, 0);
        });
        // No renderer here to take the font atlas.
        output.textures_delta.clear();
    }

    /// The volume's section, drawn frame after frame over the `caves` preset, leaves its
    /// settings as they are (no slider clamps a value), so the world is not rebuilt for it.
    #[test]
    fn the_volume_section_leaves_the_settings_alone() {
        let caves =
            WorldSettings::from_ron(include_str!("../../assets/presets/caves.ron")).unwrap();
        let mut settings = caves.clone();
        let textures = PanelTextures::default();
        for _ in 0..3 {
            let ctx = egui::Context::default();
            let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
                volume_section(ui, &mut settings, &textures);
            });
            output.textures_delta.clear();
        }
        assert_eq!(settings, caves);
    }

    /// Drawn frame after frame without a press, the section leaves the edits unchanged, so the
    /// world is not rebuilt for a panel left open; its lines name each edit.
    #[test]
    fn the_edits_section_writes_the_edits_only_when_asked() {
        let mut world = World::new();
        let mut edits = BiomeWorldEdits::default();
        edits
            .push(EditShape::Brush {
                center: [10.0, -4.0],
                radius: 6.0,
                falloff: 0.5,
                op: BrushOp::Raise(1.5),
            })
            .unwrap();
        world.insert_resource(edits);
        world.clear_trackers();
        let mut file = PanelEditsFile::default();
        for _ in 0..3 {
            draw(&mut world, &mut file);
        }
        assert!(!world.is_resource_changed::<BiomeWorldEdits>());
        assert!(file.outcome.is_empty());
        let log = world.resource::<BiomeWorldEdits>().log();
        let (_, brush) = log.entries().next().unwrap();
        assert_eq!(describe(brush), "raise +1.5 m, 6 m at (10, -4)");
        let pad = EditShape::Pad {
            center: [0.0, 0.0],
            half_size: [5.0, 3.0],
            height: 12.0,
            skirt: 4.0,
        };
        assert_eq!(describe(&pad), "pad 10 x 6 m at 12.0 m, (0, 0)");
    }
}

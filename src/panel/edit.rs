//! The logic behind the panel, apart from egui: a draft of the settings applied with a debounce,
//! presets on disk, and the small edits the widgets make.

use std::path::{Path, PathBuf};

use biome_core::WorldSettings;
use biome_core::density::DensityNode;
use biome_core::world::PresetError;

use crate::world::{BiomeWorldSettings, regenerates};

/// The panel's working copy of the settings.
///
/// Widgets edit [`SettingsEditor::draft`] freely. Streaming tunables reach the game at once; a
/// change that would regenerate the world waits until the draft has been still for
/// [`SettingsEditor::delay`] seconds, so dragging a slider starts one rebuild, not hundreds.
#[derive(Clone, Debug)]
pub struct SettingsEditor {
    /// The settings as the panel shows them.
    pub draft: BiomeWorldSettings,
    /// Seconds the draft must stay unchanged before a regenerating change is applied.
    pub delay: f64,
    /// The draft as of the last update, to see when it changes.
    last_draft: BiomeWorldSettings,
    /// The applied settings as of the last update, to see changes made elsewhere.
    seen: BiomeWorldSettings,
    /// When the draft last changed while differing from the applied settings.
    pending_since: Option<f64>,
    /// Apply the draft at the next update, whatever the delay.
    now: bool,
}

impl SettingsEditor {
    /// The default debounce, in seconds.
    pub const DEFAULT_DELAY: f64 = 0.35;

    /// An editor showing `applied`.
    #[must_use]
    pub fn new(applied: &BiomeWorldSettings) -> Self {
        Self {
            draft: applied.clone(),
            delay: Self::DEFAULT_DELAY,
            last_draft: applied.clone(),
            seen: applied.clone(),
            pending_since: None,
            now: false,
        }
    }

    /// Whether a regenerating change is waiting for its debounce.
    #[must_use]
    pub fn is_pending(&self) -> bool {
        self.pending_since.is_some()
    }

    /// Applies the draft at the next update without waiting: for buttons and presets, which
    /// change the world once.
    pub fn apply_now(&mut self) {
        self.now = true;
    }

    /// Compares the draft with `applied` at time `now` (seconds) and returns the settings the game
    /// should take, if any. Changes made to `applied` elsewhere show up in the draft when no edit
    /// is pending.
    pub fn update(&mut self, applied: &BiomeWorldSettings, now: f64) -> Option<BiomeWorldSettings> {
        if *applied != self.seen {
            self.seen = applied.clone();
            if self.pending_since.is_none() && !self.now {
                self.draft = applied.clone();
                self.last_draft = applied.clone();
                return None;
            }
        }
        if self.draft != self.last_draft {
            self.last_draft = self.draft.clone();
            self.pending_since = Some(now);
        }
        if self.draft == *applied {
            self.pending_since = None;
            self.now = false;
            return None;
        }
        let settled = self
            .pending_since
            .is_none_or(|since| now - since >= self.delay);
        if self.now || settled || !regenerates(applied, &self.draft) {
            self.pending_since = None;
            self.now = false;
            return Some(self.hand_over(self.draft.clone()));
        }
        // The world waits for the debounce; streaming tunables need not.
        let mut streaming = applied.clone();
        streaming.view_radius = self.draft.view_radius;
        streaming.despawn_hysteresis = self.draft.despawn_hysteresis;
        streaming.max_tasks = self.draft.max_tasks;
        streaming.apply_budget_ms = self.draft.apply_budget_ms;
        (streaming != *applied).then(|| self.hand_over(streaming))
    }

    /// Remembers `settings` as applied by the panel itself, so the next update does not take it
    /// for a change made elsewhere (which would reset the draft and lose an edit).
    fn hand_over(&mut self, settings: BiomeWorldSettings) -> BiomeWorldSettings {
        self.seen = settings.clone();
        settings
    }
}

/// Why a preset could not be loaded or saved.
#[derive(Debug, thiserror::Error)]
pub enum PresetFileError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a valid preset; an invalid value names its field.
    #[error("{}: {source}", file_name(path))]
    Preset {
        /// The file.
        path: PathBuf,
        /// Why it was refused.
        source: Box<PresetError>,
    },
    /// The name is not usable as a file name.
    #[error("\"{name}\" is not a preset name: use letters, digits, '-' and '_'")]
    BadName {
        /// The name given.
        name: String,
    },
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The presets in one folder: `NAME.ron` files in the [`WorldSettings`] RON format.
#[derive(Clone, Debug)]
pub struct PresetLibrary {
    /// The folder, usually `assets/presets`.
    pub dir: PathBuf,
}

impl PresetLibrary {
    /// The library in `dir`.
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// Preset names (file stems), sorted; empty if the folder cannot be read.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "ron"))
            .filter_map(|path| path.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .collect();
        names.sort();
        names
    }

    fn path(&self, name: &str) -> Result<PathBuf, PresetFileError> {
        let usable = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if usable {
            Ok(self.dir.join(format!("{name}.ron")))
        } else {
            Err(PresetFileError::BadName {
                name: name.to_owned(),
            })
        }
    }

    /// Reads and validates preset `name`.
    ///
    /// # Errors
    /// A bad name, an unreadable file, or a preset that does not parse or validate (naming the
    /// field and the reason).
    pub fn load(&self, name: &str) -> Result<WorldSettings, PresetFileError> {
        let path = self.path(name)?;
        load_file(&path)
    }

    /// Writes `settings` as preset `name`, replacing any preset of that name. Only valid
    /// settings are written, so every saved preset loads again.
    ///
    /// # Errors
    /// A bad name, settings that fail validation, or a file that cannot be written.
    pub fn save(&self, name: &str, settings: &WorldSettings) -> Result<PathBuf, PresetFileError> {
        let path = self.path(name)?;
        let text = settings.to_ron().map_err(|e| PresetFileError::Preset {
            path: path.clone(),
            source: Box::new(PresetError::Invalid(e)),
        })?;
        std::fs::create_dir_all(&self.dir).map_err(|source| PresetFileError::Io {
            path: self.dir.clone(),
            source,
        })?;
        std::fs::write(&path, text).map_err(|source| PresetFileError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }
}

/// Reads and validates a preset file ([`WorldSettings::from_ron_file`]: files over
/// [`biome_core::world::limits::MAX_PRESET_BYTES`] are refused before they are read whole).
///
/// # Errors
/// An unreadable or oversized file, or a preset that does not parse or validate.
pub fn load_file(path: &Path) -> Result<WorldSettings, PresetFileError> {
    WorldSettings::from_ron_file(path).map_err(|e| PresetFileError::Preset {
        path: path.to_owned(),
        source: Box::new(e),
    })
}

/// The smallest gap kept between neighbouring biome-table thresholds while dragging.
pub const THRESHOLD_GAP: f64 = 0.01;

/// Moves threshold `index` of `limits` to `value`, kept inside `0..=1` and at least
/// [`THRESHOLD_GAP`] from its neighbours, so the table stays valid. An `index` out of range (the
/// table changed mid-drag) does nothing.
pub fn drag_threshold(limits: &mut [f64], index: usize, value: f64) {
    if index >= limits.len() {
        return;
    }
    let low = if index == 0 {
        0.0
    } else {
        limits[index - 1] + THRESHOLD_GAP
    };
    let high = if index + 1 == limits.len() {
        1.0
    } else {
        limits[index + 1] - THRESHOLD_GAP
    };
    if value.is_finite() && low <= high {
        limits[index] = value.clamp(low, high);
    }
}

/// A fresh world seed from some entropy: positive, below 2^31, so it reads well and every port of
/// the tutorial takes it.
#[must_use]
pub fn fresh_seed(entropy: u64) -> i64 {
    let mut z = entropy.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) % (1 << 31)) as i64
}

/// The pre-order id of the first node of the stack that `is_kind` accepts: the node the panel's
/// Noise and Warp sections edit.
#[must_use]
pub fn first_node(stack: &DensityNode, is_kind: impl Fn(&DensityNode) -> bool) -> Option<usize> {
    stack.walk().iter().position(|entry| is_kind(entry.node))
}

#[cfg(test)]
mod tests {
    use super::*;
    use biome_core::density::DensityOp;

    fn applied() -> BiomeWorldSettings {
        BiomeWorldSettings::default()
    }

    #[test]
    fn regenerating_edits_wait_until_the_draft_is_still() {
        let mut settings = applied();
        let mut editor = SettingsEditor::new(&settings);
        // A slider dragged over a second: the seed changes every frame.
        let mut t = 0.0;
        for k in 0..60 {
            editor.draft.world.seed = 100 + k;
            assert_eq!(editor.update(&settings, t), None, "applied mid-drag at {t}");
            t += 1.0 / 60.0;
        }
        assert!(editor.is_pending());
        // Still for less than the delay: nothing yet.
        assert_eq!(
            editor.update(&settings, t + SettingsEditor::DEFAULT_DELAY * 0.5),
            None
        );
        let applied_now = editor
            .update(&settings, t + SettingsEditor::DEFAULT_DELAY)
            .expect("applied once still");
        assert_eq!(applied_now.world.seed, 159);
        settings = applied_now;
        assert_eq!(editor.update(&settings, t + 1.0), None);
        assert!(!editor.is_pending());
    }

    #[test]
    fn streaming_tunables_apply_at_once_even_while_the_world_waits() {
        let settings = applied();
        let mut editor = SettingsEditor::new(&settings);
        editor.draft.world.regions.jitter = 0.5;
        editor.draft.view_radius = 5;
        let now = editor
            .update(&settings, 0.0)
            .expect("the radius applies at once");
        assert_eq!(now.view_radius, 5);
        assert_eq!(now.world, settings.world, "the world waits");
        let later = editor.update(&now, 1.0).expect("then the world");
        assert_eq!(later.world.regions.jitter, 0.5);
    }

    #[test]
    fn buttons_apply_without_waiting() {
        let settings = applied();
        let mut editor = SettingsEditor::new(&settings);
        editor.draft.world.seed = 9;
        editor.apply_now();
        assert_eq!(editor.update(&settings, 0.0).map(|s| s.world.seed), Some(9));
    }

    #[test]
    fn changes_made_elsewhere_reach_the_draft() {
        let mut settings = applied();
        let mut editor = SettingsEditor::new(&settings);
        settings.world.seed = 31;
        assert_eq!(editor.update(&settings, 0.0), None);
        assert_eq!(editor.draft.world.seed, 31);
    }

    #[test]
    fn presets_round_trip_and_bad_ones_name_their_field() {
        let dir = std::env::temp_dir().join(format!("biome_presets_{}", std::process::id()));
        let library = PresetLibrary::new(&dir);
        let mut world = WorldSettings {
            seed: 4242,
            ..WorldSettings::default()
        };
        world.regions.blend_width = 12.5;
        library.save("my_world", &world).unwrap();
        assert_eq!(library.names(), ["my_world"]);
        assert_eq!(library.load("my_world").unwrap(), world);

        std::fs::write(dir.join("broken.ron"), "(regions: (cell_size: -3.0))").unwrap();
        let error = library.load("broken").unwrap_err();
        let PresetFileError::Preset { source, .. } = &error else {
            panic!("expected a preset error, got {error}");
        };
        let PresetError::Invalid(invalid) = &**source else {
            panic!("expected an invalid field, got {source}");
        };
        assert_eq!(invalid.field, "regions.cell_size");
        assert!(error.to_string().contains("regions.cell_size"), "{error}");
        std::fs::write(dir.join("garbled.ron"), "(seed: 1,,,").unwrap();
        let garbled = library.load("garbled");
        assert!(
            matches!(&garbled, Err(PresetFileError::Preset { source, .. }) if matches!(**source, PresetError::Parse(_))),
            "{garbled:?}"
        );
        assert!(matches!(
            library.save("../escape", &world),
            Err(PresetFileError::BadName { .. })
        ));
        assert!(matches!(
            library.load("missing"),
            Err(PresetFileError::Preset { source, .. }) if matches!(*source, PresetError::Io { .. })
        ));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn edits_made_while_an_apply_is_in_flight_are_kept() {
        let mut settings = applied();
        let mut editor = SettingsEditor::new(&settings);
        editor.draft.view_radius = 5;
        settings = editor
            .update(&settings, 0.0)
            .expect("streaming applies at once");
        // The slider moves on before the game has taken the first value in.
        editor.draft.view_radius = 6;
        settings = editor
            .update(&settings, 0.016)
            .expect("and the next value too");
        assert_eq!(settings.view_radius, 6);
        assert_eq!(editor.update(&settings, 0.032), None);
        assert_eq!(editor.draft.view_radius, 6);
    }

    #[test]
    fn dragged_thresholds_stay_in_order() {
        let mut limits = vec![0.4, 0.6];
        drag_threshold(&mut limits, 0, 0.9);
        assert_eq!(limits, [0.6 - THRESHOLD_GAP, 0.6]);
        drag_threshold(&mut limits, 1, -1.0);
        assert_eq!(limits[1], limits[0] + THRESHOLD_GAP);
        drag_threshold(&mut limits, 0, f64::NAN);
        assert_eq!(limits[0], 0.6 - THRESHOLD_GAP);
        drag_threshold(&mut limits, 5, 0.5);
        assert_eq!(limits.len(), 2);
        let mut world = WorldSettings::default();
        world.biomes.heat_limits = limits;
        world.validate().unwrap();
    }

    #[test]
    fn fresh_seeds_are_positive_and_vary() {
        let seeds: Vec<i64> = (0..100).map(fresh_seed).collect();
        assert!(seeds.iter().all(|&s| (0..1 << 31).contains(&s)));
        let unique: std::collections::HashSet<_> = seeds.iter().collect();
        assert_eq!(unique.len(), 100);
    }

    #[test]
    fn noise_and_warp_sections_find_their_nodes() {
        let stack = WorldSettings::default().terrain.density;
        let fbm = first_node(&stack, |n| matches!(n.op, DensityOp::Fbm(_))).unwrap();
        let warp = first_node(&stack, |n| matches!(n.op, DensityOp::Warp(_))).unwrap();
        assert_eq!(warp + 1, fbm, "the warp's input is the continent fBm");
        assert_eq!(
            first_node(&DensityNode::constant(0.0), |n| matches!(
                n.op,
                DensityOp::Warp(_)
            )),
            None
        );
    }

    #[test]
    fn oversized_presets_are_refused_before_reading_and_invalid_ones_are_never_saved() {
        let dir = std::env::temp_dir().join(format!("biome_presets_cap_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let library = PresetLibrary::new(&dir);
        let mut text = WorldSettings::default().to_ron().unwrap();
        text.push_str(&" ".repeat(biome_core::world::limits::MAX_PRESET_BYTES));
        std::fs::write(dir.join("huge.ron"), &text).unwrap();
        let error = library.load("huge").unwrap_err();
        assert!(
            matches!(&error, PresetFileError::Preset { source, .. } if matches!(**source, PresetError::TooLarge { .. })),
            "{error}"
        );
        assert!(
            error.to_string().contains("at most 1048576 bytes"),
            "{error}"
        );

        let mut invalid = WorldSettings::default();
        invalid.trees.spacing = 0.0;
        let error = library.save("invalid", &invalid).unwrap_err();
        assert!(error.to_string().contains("trees.spacing"), "{error}");
        assert!(!dir.join("invalid.ron").exists());
        // The I/O cause stays reachable through the chain of `source()`s.
        let missing = library.load("missing").unwrap_err();
        let preset = std::error::Error::source(&missing).expect("the preset error");
        let io = preset.source().expect("the I/O error");
        assert!(io.downcast_ref::<std::io::Error>().is_some(), "{io}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

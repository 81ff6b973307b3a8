//! The logic behind the panel, apart from egui: drafts of the settings handed over with a
//! debounce, presets on disk, and the small edits the widgets make.

use std::path::{Path, PathBuf};

use biome_core::PresetError;
use biome_core::WorldSettings;
use biome_core::density::{DensityFunctions, DensityNode};

/// The panel's working copy of one settings resource.
///
/// Widgets edit [`Debounced::draft`] freely; the draft reaches the game once it has been still
/// for the editor's delay, so dragging a slider over settings that regenerate the world starts
/// one rebuild, not hundreds (a delay of 0 hands every change over at once).
#[derive(Clone, Debug)]
pub(super) struct Debounced<T> {
    /// The settings as the panel shows them.
    pub(super) draft: T,
    /// Seconds the draft must stay unchanged before it is handed over.
    delay: f64,
    /// The draft as of the last update, to see when it changes.
    last_draft: T,
    /// The applied settings as of the last update, to see changes made elsewhere.
    seen: T,
    /// When the draft last changed while differing from the applied settings.
    pending_since: Option<f64>,
    /// Hand the draft over at the next update, whatever the delay.
    now: bool,
}

impl<T: Clone + PartialEq> Debounced<T> {
    /// An editor showing `applied`, handing changes over after `delay` seconds of stillness.
    pub(super) fn new(applied: &T, delay: f64) -> Self {
        Self {
            draft: applied.clone(),
            delay,
            last_draft: applied.clone(),
            seen: applied.clone(),
            pending_since: None,
            now: false,
        }
    }

    /// Whether a change is waiting for its debounce.
    pub(super) fn is_pending(&self) -> bool {
        self.pending_since.is_some()
    }

    /// Hands the draft over at the next update without waiting: for buttons and presets, which
    /// change the settings once.
    pub(super) fn apply_now(&mut self) {
        self.now = true;
    }

    /// Compares the draft with `applied` at time `now` (seconds) and returns the settings the
    /// game should take, if any. Changes made to `applied` elsewhere show up in the draft when
    /// no edit is pending.
    pub(super) fn update(&mut self, applied: &T, now: f64) -> Option<T> {
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
        if !(self.now || settled) {
            return None;
        }
        self.pending_since = None;
        self.now = false;
        // Remembered as applied by the panel itself, so the next update does not take it for a
        // change made elsewhere (which would reset the draft and lose an edit).
        self.seen = self.draft.clone();
        Some(self.draft.clone())
    }
}

/// Why a preset could not be loaded or saved.
#[derive(Debug, thiserror::Error)]
pub(super) enum PresetFileError {
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
pub(super) struct PresetLibrary {
    /// The folder, usually `assets/presets`.
    pub(super) dir: PathBuf,
}

impl PresetLibrary {
    /// The library in `dir`.
    #[must_use]
    pub(super) fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// Preset names (file stems), sorted; empty if the folder cannot be read.
    #[must_use]
    pub(super) fn names(&self) -> Vec<String> {
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

    /// Reads and validates preset `name`, whose `Custom` nodes may name `functions`.
    ///
    /// # Errors
    /// A bad name, an unreadable file, or a preset that does not parse or validate (naming the
    /// field and the reason).
    pub(super) fn load(
        &self,
        name: &str,
        functions: &DensityFunctions,
    ) -> Result<WorldSettings, PresetFileError> {
        let path = self.path(name)?;
        load_file(&path, functions)
    }

    /// Writes `settings` as preset `name`, replacing any preset of that name. Only valid
    /// settings are written, so every saved preset loads again.
    ///
    /// # Errors
    /// A bad name, settings that fail validation, or a file that cannot be written.
    pub(super) fn save(
        &self,
        name: &str,
        settings: &WorldSettings,
    ) -> Result<PathBuf, PresetFileError> {
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

/// Reads and validates a preset file ([`WorldSettings::from_ron_file_with`]: files over
/// [`biome_core::limits::MAX_PRESET_BYTES`] are refused before they are read whole).
///
/// # Errors
/// An unreadable or oversized file, or a preset that does not parse or validate.
pub(super) fn load_file(
    path: &Path,
    functions: &DensityFunctions,
) -> Result<WorldSettings, PresetFileError> {
    WorldSettings::from_ron_file_with(path, functions).map_err(|e| PresetFileError::Preset {
        path: path.to_owned(),
        source: Box::new(e),
    })
}

/// The smallest gap kept between neighbouring biome-table thresholds while dragging.
pub(super) const THRESHOLD_GAP: f64 = 0.01;

/// Moves threshold `index` of `limits` to `value`, kept inside `0..=1` and at least
/// [`THRESHOLD_GAP`] from its neighbours, so the table stays valid. An `index` out of range (the
/// table changed mid-drag) does nothing.
pub(super) fn drag_threshold(limits: &mut [f64], index: usize, value: f64) {
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

/// The pre-order id of the first node of the stack that `is_kind` accepts: the node the panel's
/// Noise and Warp sections edit.
#[must_use]
pub(super) fn first_node(
    stack: &DensityNode,
    is_kind: impl Fn(&DensityNode) -> bool,
) -> Option<usize> {
    stack.walk().iter().position(|entry| is_kind(entry.node))
}

#[cfg(test)]
mod tests {
    use super::*;
    use biome_core::density::DensityOp;

    use crate::settings::{BiomeWorldSettings, BiomeWorldStreaming};

    const DELAY: f64 = 0.35;

    #[test]
    fn edits_wait_until_the_draft_is_still() {
        let mut settings = BiomeWorldSettings::default();
        let mut editor = Debounced::new(&settings, DELAY);
        // A slider dragged over a second: the seed changes every frame.
        let mut t = 0.0;
        for k in 0..60 {
            editor.draft.generator.seed = 100 + k;
            assert_eq!(editor.update(&settings, t), None, "applied mid-drag at {t}");
            t += 1.0 / 60.0;
        }
        assert!(editor.is_pending());
        // Still for less than the delay: nothing yet.
        assert_eq!(editor.update(&settings, t + DELAY * 0.5), None);
        let applied_now = editor
            .update(&settings, t + DELAY)
            .expect("applied once still");
        assert_eq!(applied_now.generator.seed, 159);
        settings = applied_now;
        assert_eq!(editor.update(&settings, t + 1.0), None);
        assert!(!editor.is_pending());
    }

    #[test]
    fn without_a_delay_every_change_goes_at_once() {
        let streaming = BiomeWorldStreaming::default();
        let mut editor = Debounced::new(&streaming, 0.0);
        editor.draft.max_tasks = 5;
        let now = editor.update(&streaming, 0.0).expect("at once");
        assert_eq!(now.max_tasks, 5);
    }

    #[test]
    fn buttons_apply_without_waiting() {
        let settings = BiomeWorldSettings::default();
        let mut editor = Debounced::new(&settings, DELAY);
        editor.draft.generator.seed = 9;
        editor.apply_now();
        assert_eq!(
            editor.update(&settings, 0.0).map(|s| s.generator.seed),
            Some(9)
        );
    }

    #[test]
    fn changes_made_elsewhere_reach_the_draft() {
        let mut settings = BiomeWorldSettings::default();
        let mut editor = Debounced::new(&settings, DELAY);
        settings.generator.seed = 31;
        assert_eq!(editor.update(&settings, 0.0), None);
        assert_eq!(editor.draft.generator.seed, 31);
    }

    #[test]
    fn edits_made_while_an_apply_is_in_flight_are_kept() {
        let mut streaming = BiomeWorldStreaming::default();
        let mut editor = Debounced::new(&streaming, 0.0);
        editor.draft.max_tasks = 5;
        streaming = editor.update(&streaming, 0.0).expect("applies at once");
        // The slider moves on before the game has taken the first value in.
        editor.draft.max_tasks = 6;
        streaming = editor
            .update(&streaming, 0.016)
            .expect("and the next value too");
        assert_eq!(streaming.max_tasks, 6);
        assert_eq!(editor.update(&streaming, 0.032), None);
        assert_eq!(editor.draft.max_tasks, 6);
    }

    #[test]
    fn presets_round_trip_and_bad_ones_name_their_field() {
        let dir = std::env::temp_dir().join(format!("biome_presets_{}", std::process::id()));
        let library = PresetLibrary::new(&dir);
        let mut settings = WorldSettings {
            seed: 4242,
            ..WorldSettings::default()
        };
        settings.regions.blend_width = 12.5;
        library.save("my_world", &settings).unwrap();
        assert_eq!(library.names(), ["my_world"]);
        assert_eq!(
            library
                .load("my_world", &DensityFunctions::default())
                .unwrap(),
            settings
        );

        std::fs::write(dir.join("broken.ron"), "(regions: (cell_size: -3.0))").unwrap();
        let error = library
            .load("broken", &DensityFunctions::default())
            .unwrap_err();
        let PresetFileError::Preset { source, .. } = &error else {
            panic!("expected a preset error, got {error}");
        };
        let PresetError::Invalid(invalid) = &**source else {
            panic!("expected an invalid field, got {source}");
        };
        assert_eq!(invalid.field, "regions.cell_size");
        assert!(error.to_string().contains("regions.cell_size"), "{error}");
        std::fs::write(dir.join("garbled.ron"), "(seed: 1,,,").unwrap();
        let garbled = library.load("garbled", &DensityFunctions::default());
        assert!(
            matches!(&garbled, Err(PresetFileError::Preset { source, .. }) if matches!(**source, PresetError::Parse(_))),
            "{garbled:?}"
        );
        assert!(matches!(
            library.save("../escape", &settings),
            Err(PresetFileError::BadName { .. })
        ));
        assert!(matches!(
            library.load("missing", &DensityFunctions::default()),
            Err(PresetFileError::Preset { source, .. }) if matches!(*source, PresetError::Io { .. })
        ));
        std::fs::remove_dir_all(dir).unwrap();
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
        let mut settings = WorldSettings::default();
        settings.biome_table.heat_limits = limits;
        settings.validate().unwrap();
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
        text.push_str(&" ".repeat(biome_core::limits::MAX_PRESET_BYTES));
        std::fs::write(dir.join("huge.ron"), &text).unwrap();
        let error = library
            .load("huge", &DensityFunctions::default())
            .unwrap_err();
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
        let missing = library
            .load("missing", &DensityFunctions::default())
            .unwrap_err();
        let preset = std::error::Error::source(&missing).expect("the preset error");
        let io = preset.source().expect("the I/O error");
        assert!(io.downcast_ref::<std::io::Error>().is_some(), "{io}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

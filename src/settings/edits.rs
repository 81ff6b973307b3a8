//! [`BiomeWorldEdits`]: the terrain edits a game, its players or a host make, laid over the
//! generated ground.

use std::path::Path;

use bevy::prelude::*;
use biome_core::edits::{EditFileError, EditLog, EditLogError, EditShape, Recorded};

/// The world's terrain edits: brushes, pads, roads and clearings over the generated ground
/// ([`biome_core::edits`]), under sequence numbers. Change it at any time: the nodes, colliders,
/// trees and scattered objects within reach of what changed are rebuilt, and nothing else;
/// what is on screen stays until its replacement is ready.
///
/// The same seed, settings and log give the same world on every machine, whatever order the
/// entries arrived in: a host [`BiomeWorldEdits::push`]es its edits and sends the entries
/// ([`EditLog::after`] the last one a peer has); a peer [`BiomeWorldEdits::record`]s them.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(Resource, Default, Clone, Debug)]
pub struct BiomeWorldEdits {
    #[reflect(ignore, clone)]
    log: EditLog,
}

impl BiomeWorldEdits {
    /// The edits under their numbers.
    #[must_use]
    pub fn log(&self) -> &EditLog {
        &self.log
    }

    /// Adds `edit` after the others; returns its number.
    ///
    /// # Errors
    /// A value out of range, by field, or a full log; nothing changes.
    pub fn push(&mut self, edit: EditShape) -> Result<u64, EditLogError> {
        self.log.push(edit)
    }

    /// Takes `edit` under `sequence`, as it came from a host or a file, in any order.
    ///
    /// # Errors
    /// Another edit under that number, a value out of range or a full log; nothing changes.
    pub fn record(&mut self, sequence: u64, edit: EditShape) -> Result<Recorded, EditLogError> {
        self.log.record(sequence, edit)
    }

    /// Takes out the edit under `sequence` (an undo).
    pub fn remove(&mut self, sequence: u64) -> Option<EditShape> {
        self.log.remove(sequence)
    }

    /// Puts `log` in place of the edits.
    pub fn replace(&mut self, log: EditLog) {
        self.log = log;
    }

    /// Writes the edits to `path` ([`EditLog::save`]: the file before stays whole until the
    /// new one is).
    ///
    /// # Errors
    /// The file could not be written.
    pub fn save(&self, path: &Path) -> Result<(), EditFileError> {
        self.log.save(path)
    }

    /// Reads the edits in `path` in place of these. A file that cannot be read, or is damaged,
    /// changes nothing.
    ///
    /// # Errors
    /// [`EditFileError`]: why the file was refused.
    pub fn load(&mut self, path: &Path) -> Result<(), EditFileError> {
        self.log = EditLog::load(path)?;
        Ok(())
    }
}

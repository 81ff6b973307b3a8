//! [`BiomeWorldEdits`]: the terrain edits a game, its players or a host make, laid over the
//! generated ground.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// Which content the log holds: a number no other content of any log in the process has.
    #[reflect(ignore)]
    stamp: u64,
    /// The content the world last took, if the log has only gained edits numbered after its
    /// own since: then the world lays only those over what it has.
    #[reflect(ignore)]
    taken: Option<u64>,
}

/// The next content number ([`BiomeWorldEdits::stamp`]); 0 is an empty log never changed.
static NEXT_STAMP: AtomicU64 = AtomicU64::new(1);

/// What a change did to the log.
enum Change {
    /// Entries numbered after the last one came: the content taken before is still there.
    Appended,
    /// Anything else: the world compares the whole log.
    Rewritten,
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
        let sequence = self.log.push(edit)?;
        self.changed(Change::Appended);
        Ok(sequence)
    }

    /// Takes `edit` under `sequence`, as it came from a host or a file, in any order.
    ///
    /// # Errors
    /// Another edit under that number, a value out of range or a full log; nothing changes.
    pub fn record(&mut self, sequence: u64, edit: EditShape) -> Result<Recorded, EditLogError> {
        let last = self.log.last_sequence();
        let recorded = self.log.record(sequence, edit)?;
        if recorded == Recorded::New {
            self.changed(if last.is_none_or(|last| sequence > last) {
                Change::Appended
            } else {
                Change::Rewritten
            });
        }
        Ok(recorded)
    }

    /// Takes out the edit under `sequence` (an undo).
    pub fn remove(&mut self, sequence: u64) -> Option<EditShape> {
        let removed = self.log.remove(sequence)?;
        self.changed(Change::Rewritten);
        Some(removed)
    }

    /// Puts `log` in place of the edits.
    pub fn replace(&mut self, log: EditLog) {
        self.log = log;
        self.changed(Change::Rewritten);
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
        self.replace(EditLog::load(path)?);
        Ok(())
    }

    /// Numbers the new content; a change other than an append forgets what was taken.
    fn changed(&mut self, change: Change) {
        self.stamp = NEXT_STAMP.fetch_add(1, Ordering::Relaxed);
        if matches!(change, Change::Rewritten) {
            self.taken = None;
        }
    }

    /// The content the world holds, and whether this log is it plus edits numbered after its
    /// last: [`crate::BiomeWorldState`] takes only those then.
    pub(crate) fn grew_from(&self, held: u64) -> bool {
        self.taken == Some(held)
    }

    /// Which content the log holds now.
    pub(crate) fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Marks the content as taken by the world.
    pub(crate) fn mark_taken(&mut self) {
        self.taken = Some(self.stamp);
    }
}

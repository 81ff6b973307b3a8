//! The edit log: every edit of a world under its sequence number, the form in which edits are
//! saved, loaded and sent between peers. The edits apply in sequence order whatever order they
//! arrive in, so two peers holding the same entries hold the same world; an entry that comes
//! twice is taken once, and a different edit under a taken number is refused.

use std::collections::BTreeMap;

use super::{EditSet, EditShape, index_cells};
use crate::check::{Check, SettingsError};
use crate::limits;

/// What [`EditLog::record`] did with an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// It is new to the log.
    New,
    /// The log held this very edit under this number already: nothing changed.
    Duplicate,
}

/// Why an entry was refused; the log is unchanged.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EditLogError {
    /// The log holds another edit under this number.
    #[error("edit {sequence} is already in the log as a different edit")]
    Conflict {
        /// The entry's number.
        sequence: u64,
    },
    /// A value of the edit is out of range.
    #[error("edit {sequence} is refused: {source}")]
    Invalid {
        /// The entry's number.
        sequence: u64,
        /// The field and why.
        #[source]
        source: SettingsError,
    },
    /// The log is at [`limits::MAX_EDITS`] edits, or their index at
    /// [`limits::MAX_EDIT_CELLS`] cells.
    #[error("edit {sequence} would pass the log's limit: {reason}")]
    Full {
        /// The entry's number.
        sequence: u64,
        /// Which limit.
        reason: String,
    },
}

/// Edits under their sequence numbers. Build the world's [`EditSet`] from it with
/// [`EditLog::edit_set`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EditLog {
    entries: BTreeMap<u64, EditShape>,
    /// Index cells the entries take ([`limits::MAX_EDIT_CELLS`]).
    cells: u64,
}

impl EditLog {
    /// An empty log.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `edit` under the number after the last one (1 for the first): what a host does
    /// with its own edits. Returns the number.
    ///
    /// # Errors
    /// [`EditLogError::Invalid`] or [`EditLogError::Full`]; the log is unchanged.
    pub fn push(&mut self, edit: EditShape) -> Result<u64, EditLogError> {
        let sequence = self
            .last_sequence()
            .map_or(1, |last| last.saturating_add(1));
        self.record(sequence, edit)?;
        Ok(sequence)
    }

    /// Records `edit` under `sequence`, as it arrives from a host or a file: in any order, the
    /// same entry any number of times.
    ///
    /// # Errors
    /// [`EditLogError::Conflict`] for another edit under a taken number,
    /// [`EditLogError::Invalid`] for a value out of range, [`EditLogError::Full`] past the
    /// limits; the log is unchanged.
    pub fn record(&mut self, sequence: u64, edit: EditShape) -> Result<Recorded, EditLogError> {
        if let Some(held) = self.entries.get(&sequence) {
            return if *held == edit {
                Ok(Recorded::Duplicate)
            } else {
                Err(EditLogError::Conflict { sequence })
            };
        }
        edit.check(&Check::new())
            .map_err(|source| EditLogError::Invalid { sequence, source })?;
        if self.entries.len() >= limits::MAX_EDITS {
            return Err(EditLogError::Full {
                sequence,
                reason: format!("at most {} edits", limits::MAX_EDITS),
            });
        }
        let cells = self.cells + index_cells(&edit);
        if cells > limits::MAX_EDIT_CELLS {
            return Err(EditLogError::Full {
                sequence,
                reason: format!(
                    "the edits would cover {cells} index cells, over the {} limit",
                    limits::MAX_EDIT_CELLS
                ),
            });
        }
        self.cells = cells;
        self.entries.insert(sequence, edit);
        Ok(Recorded::New)
    }

    /// The edit under `sequence`.
    #[must_use]
    pub fn get(&self, sequence: u64) -> Option<&EditShape> {
        self.entries.get(&sequence)
    }

    /// How many edits the log holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the log holds no edit.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The highest number taken.
    #[must_use]
    pub fn last_sequence(&self) -> Option<u64> {
        self.entries.keys().next_back().copied()
    }

    /// Every entry in sequence order.
    #[must_use]
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = (u64, &EditShape)> {
        self.entries.iter().map(|(&k, edit)| (k, edit))
    }

    /// The entries numbered after `sequence`, in order: what a peer that has everything up to
    /// `sequence` is missing.
    #[must_use]
    pub fn after(&self, sequence: u64) -> impl DoubleEndedIterator<Item = (u64, &EditShape)> {
        self.entries
            .range(sequence.saturating_add(1)..)
            .map(|(&k, edit)| (k, edit))
    }

    /// Takes out the edit under `sequence` (an undo); `None` if there is none.
    pub fn remove(&mut self, sequence: u64) -> Option<EditShape> {
        let edit = self.entries.remove(&sequence)?;
        self.cells -= index_cells(&edit);
        Some(edit)
    }

    /// The edits in sequence order, indexed: what [`crate::WorldGenerator::with_edits`] takes.
    #[must_use]
    pub fn edit_set(&self) -> EditSet {
        // Every entry was checked, and the totals kept within the limits, as it came in.
        EditSet::indexed(self.entries.values().cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edits::BrushOp;

    fn brush(x: f64) -> EditShape {
        EditShape::Brush {
            center: [x, 0.0],
            radius: 10.0,
            falloff: 0.5,
            op: BrushOp::Raise(2.0),
        }
    }

    #[test]
    fn entries_apply_in_number_order_whatever_order_they_come_in() {
        let mut sent = EditLog::new();
        for k in 0..5 {
            assert_eq!(
                sent.push(brush(f64::from(k))),
                Ok(u64::try_from(k + 1).unwrap())
            );
        }
        let mut got = EditLog::new();
        for (sequence, edit) in sent.entries().rev() {
            assert_eq!(got.record(sequence, edit.clone()), Ok(Recorded::New));
        }
        assert_eq!(got.record(3, brush(2.0)), Ok(Recorded::Duplicate));
        assert_eq!(
            got.record(3, brush(9.0)),
            Err(EditLogError::Conflict { sequence: 3 })
        );
        assert_eq!(got, sent);
        assert_eq!(got.edit_set(), sent.edit_set());
        assert_eq!(got.after(3).map(|(k, _)| k).collect::<Vec<_>>(), [4, 5]);
        assert_eq!(got.remove(2), Some(brush(1.0)));
        assert_eq!(got.edit_set().len(), 4);
        let refused = got.record(9, brush(f64::NAN)).unwrap_err();
        let EditLogError::Invalid {
            sequence: 9,
            source,
        } = &refused
        else {
            panic!("{refused:?}");
        };
        assert_eq!(source.field, "center[0]");
        assert_eq!(got.len(), 4);
    }
}

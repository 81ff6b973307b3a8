//! The edit log on disk: a small versioned binary format, read back bit for bit.
//!
//! ```text
//! magic    8 bytes   "BIOMEDIT"
//! version  u32       1
//! count    u64       entries that follow
//! entry    u64 sequence, u8 shape, then the shape's numbers (f64), every one little-endian:
//!            0 raise brush   x z radius falloff amount
//!            1 flatten brush x z radius falloff height
//!            2 pad           x z half_x half_z height skirt
//!            3 path          u32 n, n × (x height z), width skirt
//!            4 clearing      x z radius
//!            5 surfaced path as 3, then its surface colour: u8 red, green, blue (sRGB)
//! check    u64       FNV-1a of every byte before it
//! ```
//!
//! Later versions of the format will still read version 1. A file is read whole, at most
//! [`limits::MAX_EDIT_FILE_BYTES`], and taken only if every byte checks out and every entry is
//! valid; saving writes a file beside the old one and renames it over it once complete.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::{BrushOp, EditLog, EditLogError, EditShape};
use crate::biomes::Rgb;
use crate::hash::fnv1a;
use crate::limits;

const MAGIC: &[u8; 8] = b"BIOMEDIT";
/// The format version this release writes (and the newest it reads).
const VERSION: u32 = 1;

/// Why an edit file could not be read or written. A failed load changes nothing; a failed
/// save leaves the previous file as it was.
#[derive(Debug, thiserror::Error)]
pub enum EditFileError {
    /// The file could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// `"read"` or `"write"`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The bytes do not start with the format's magic.
    #[error("not an edit file (it does not start with \"BIOMEDIT\")")]
    NotAnEditFile,
    /// Written by a newer release.
    #[error("edit file version {found}; this release reads up to version {VERSION}")]
    Version {
        /// The file's version.
        found: u32,
    },
    /// Longer than [`limits::MAX_EDIT_FILE_BYTES`].
    #[error("an edit file is at most {limit} bytes; this one has at least {bytes}")]
    TooLarge {
        /// Its length, or the length read before giving up.
        bytes: u64,
        /// [`limits::MAX_EDIT_FILE_BYTES`].
        limit: u64,
    },
    /// It ends before its last entry or its check.
    #[error("the edit file is cut short at byte {at}")]
    Truncated {
        /// Where it ran out.
        at: usize,
    },
    /// Its check does not match its bytes.
    #[error("the edit file is corrupt (its check does not match)")]
    Corrupt,
    /// An entry names a shape the format does not have.
    #[error("unknown edit shape {shape} at byte {at}")]
    UnknownShape {
        /// The shape's number.
        shape: u8,
        /// Where.
        at: usize,
    },
    /// Bytes follow the check.
    #[error("{extra} bytes follow the end of the edit file")]
    Trailing {
        /// How many.
        extra: usize,
    },
    /// An entry the log refuses (out of range, a number taken twice, past the limits).
    #[error("the edit file holds a refused entry: {0}")]
    Entry(#[source] EditLogError),
}

impl EditLog {
    /// The log in the file format.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.len() * 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.len() as u64).to_le_bytes());
        let numbers = |out: &mut Vec<u8>, values: &[f64]| {
            for v in values {
                out.extend_from_slice(&v.to_le_bytes());
            }
        };
        for (sequence, edit) in self.entries() {
            out.extend_from_slice(&sequence.to_le_bytes());
            match edit {
                EditShape::Brush {
                    center,
                    radius,
                    falloff,
                    op,
                } => {
                    let (shape, value) = match *op {
                        BrushOp::Raise(amount) => (0, amount),
                        BrushOp::Flatten(height) => (1, height),
                    };
                    out.push(shape);
                    numbers(&mut out, &[center[0], center[1], *radius, *falloff, value]);
                }
                EditShape::Pad {
                    center,
                    half_size,
                    height,
                    skirt,
                } => {
                    out.push(2);
                    numbers(
                        &mut out,
                        &[
                            center[0],
                            center[1],
                            half_size[0],
                            half_size[1],
                            *height,
                            *skirt,
                        ],
                    );
                }
                EditShape::Path {
                    points,
                    width,
                    skirt,
                    surface,
                } => {
                    out.push(if surface.is_some() { 5 } else { 3 });
                    // At most `limits::MAX_PATH_POINTS`: the log checked it.
                    out.extend_from_slice(&(points.len() as u32).to_le_bytes());
                    for p in points {
                        numbers(&mut out, p);
                    }
                    numbers(&mut out, &[*width, *skirt]);
                    if let Some(Rgb(r, g, b)) = surface {
                        out.extend_from_slice(&[*r, *g, *b]);
                    }
                }
                EditShape::Clearing { center, radius } => {
                    out.push(4);
                    numbers(&mut out, &[center[0], center[1], *radius]);
                }
            }
        }
        let check = fnv1a(&out);
        out.extend_from_slice(&check.to_le_bytes());
        out
    }

    /// The log `bytes` hold ([`EditLog::to_bytes`]).
    ///
    /// # Errors
    /// Every way the bytes can be wrong, as [`EditFileError`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, EditFileError> {
        let limit = limits::MAX_EDIT_FILE_BYTES;
        if bytes.len() as u64 > limit {
            return Err(EditFileError::TooLarge {
                bytes: bytes.len() as u64,
                limit,
            });
        }
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(EditFileError::NotAnEditFile);
        }
        let mut reader = Reader { bytes, at: 8 };
        let version = reader.u32()?;
        if version > VERSION {
            return Err(EditFileError::Version { found: version });
        }
        let count = reader.u64()?;
        // Read whole and checked before any entry is taken, so a damaged file says so.
        let mut entries = Vec::new();
        for _ in 0..count {
            let sequence = reader.u64()?;
            let at = reader.at;
            let shape = reader.u8()?;
            let edit = match shape {
                0 | 1 => {
                    let [x, z, radius, falloff, value] = reader.numbers()?;
                    EditShape::Brush {
                        center: [x, z],
                        radius,
                        falloff,
                        op: if shape == 0 {
                            BrushOp::Raise(value)
                        } else {
                            BrushOp::Flatten(value)
                        },
                    }
                }
                2 => {
                    let [x, z, half_x, half_z, height, skirt] = reader.numbers()?;
                    EditShape::Pad {
                        center: [x, z],
                        half_size: [half_x, half_z],
                        height,
                        skirt,
                    }
                }
                3 | 5 => {
                    let n = reader.u32()? as usize;
                    // Each point takes 24 bytes: a count past the bytes left is a cut file,
                    // found before anything is allocated for it.
                    if n.saturating_mul(24) > bytes.len() - reader.at {
                        return Err(EditFileError::Truncated { at: bytes.len() });
                    }
                    let points = (0..n)
                        .map(|_| reader.numbers())
                        .collect::<Result<Vec<[f64; 3]>, _>>()?;
                    let [width, skirt] = reader.numbers()?;
                    let surface = if shape == 5 {
                        Some(Rgb(reader.u8()?, reader.u8()?, reader.u8()?))
                    } else {
                        None
                    };
                    EditShape::Path {
                        points,
                        width,
                        skirt,
                        surface,
                    }
                }
                4 => {
                    let [x, z, radius] = reader.numbers()?;
                    EditShape::Clearing {
                        center: [x, z],
                        radius,
                    }
                }
                shape => return Err(EditFileError::UnknownShape { shape, at }),
            };
            entries.push((sequence, edit));
        }
        let body = reader.at;
        let check = reader.u64()?;
        if check != fnv1a(&bytes[..body]) {
            return Err(EditFileError::Corrupt);
        }
        if reader.at != bytes.len() {
            return Err(EditFileError::Trailing {
                extra: bytes.len() - reader.at,
            });
        }
        let mut log = EditLog::new();
        for (sequence, edit) in entries {
            log.record(sequence, edit).map_err(EditFileError::Entry)?;
        }
        Ok(log)
    }

    /// Writes the log to `path`: to a file beside it first, renamed over `path` once it is
    /// complete and flushed, so a failed save never leaves `path` half written.
    ///
    /// # Errors
    /// [`EditFileError::Io`]; `path` is then as it was.
    pub fn save(&self, path: &Path) -> Result<(), EditFileError> {
        let io = |source| EditFileError::Io {
            action: "write",
            path: path.to_owned(),
            source,
        };
        let mut partial = path.as_os_str().to_owned();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        let written = std::fs::File::create(&partial).and_then(|mut file| {
            file.write_all(&self.to_bytes())?;
            file.sync_all()
        });
        if let Err(error) = written.and_then(|()| std::fs::rename(&partial, path)) {
            // Best effort: the partial file is of no use.
            let _ = std::fs::remove_file(&partial);
            return Err(io(error));
        }
        Ok(())
    }

    /// Reads the log in `path`, at most [`limits::MAX_EDIT_FILE_BYTES`] of it.
    ///
    /// # Errors
    /// [`EditFileError::Io`] if it cannot be read, and [`EditLog::from_bytes`]'s.
    pub fn load(path: &Path) -> Result<Self, EditFileError> {
        let io = |source| EditFileError::Io {
            action: "read",
            path: path.to_owned(),
            source,
        };
        let limit = limits::MAX_EDIT_FILE_BYTES;
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(limit + 1).read_to_end(&mut bytes))
            .map_err(io)?;
        Self::from_bytes(&bytes)
    }
}

/// Little-endian numbers off the front of a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], EditFileError> {
        let end = self.at + N;
        let taken = self
            .bytes
            .get(self.at..end)
            .ok_or(EditFileError::Truncated {
                at: self.bytes.len(),
            })?;
        self.at = end;
        Ok(taken.try_into().expect("N bytes"))
    }

    fn u8(&mut self) -> Result<u8, EditFileError> {
        Ok(self.take::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, EditFileError> {
        self.take().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, EditFileError> {
        self.take().map(u64::from_le_bytes)
    }

    fn numbers<const N: usize>(&mut self) -> Result<[f64; N], EditFileError> {
        let mut out = [0.0; N];
        for v in &mut out {
            *v = f64::from_le_bytes(self.take()?);
        }
        Ok(out)
    }
}

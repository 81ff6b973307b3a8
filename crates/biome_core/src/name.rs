//! Short names that presets write and code looks things up by: density functions
//! ([`crate::density::FunctionName`]) and scatter layers ([`crate::cover::LayerName`]). Fixed
//! size and `Copy`, so settings holding them stay cheap to clone and compare.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// 1 to [`ShortName::MAX_LEN`] ASCII letters, digits and underscores.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShortName {
    bytes: [u8; ShortName::MAX_LEN],
    len: u8,
}

impl ShortName {
    /// The longest name.
    pub const MAX_LEN: usize = 24;

    /// The empty name, which validation refuses: a template's placeholder.
    pub(crate) const EMPTY: Self = Self {
        bytes: [0; Self::MAX_LEN],
        len: 0,
    };

    /// `name`, if it is a valid name.
    ///
    /// # Errors
    /// Why it is not, for an empty or too long name or one with other characters.
    pub fn new(name: &str) -> Result<Self, String> {
        if name.is_empty() || name.len() > Self::MAX_LEN {
            return Err(format!(
                "must be 1 to {} characters (got {:?})",
                Self::MAX_LEN,
                name
            ));
        }
        if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(format!(
                "must be ASCII letters, digits and underscores (got {name:?})"
            ));
        }
        let mut bytes = [0; Self::MAX_LEN];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Ok(Self {
            bytes,
            len: name.len() as u8,
        })
    }

    /// The name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // Names edited through reflection may hold anything: what is not a name reads empty,
        // which validation refuses.
        self.bytes
            .get(..usize::from(self.len))
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
            .unwrap_or_default()
    }

    /// Whether it is a valid name (one edited through reflection may not be).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        Self::new(self.as_str()).is_ok_and(|name| name == *self)
    }

    /// A hash of the name that every platform and release agrees on (FNV-1a), for seeding.
    #[must_use]
    pub(crate) fn stable_hash(&self) -> u64 {
        crate::hash::fnv1a(self.as_str().as_bytes())
    }
}

impl fmt::Debug for ShortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for ShortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ShortName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ShortName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::new(&name).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_hash_the_same_everywhere() {
        assert!(ShortName::new("loot_chest_2").is_ok());
        assert!(ShortName::new("").is_err());
        assert!(ShortName::new("loot chest").is_err());
        assert!(ShortName::new(&"x".repeat(ShortName::MAX_LEN + 1)).is_err());
        assert!(!ShortName::EMPTY.is_valid());
        // Seeds derive from it: locked, so a layer's objects stay where they were.
        let rock = ShortName::new("rock").unwrap();
        assert_eq!(rock.stable_hash(), 0xa37e_161f_f0e7_9754);
    }
}

//! The vocabulary every settings check speaks, here and in the plugin: [`Check`] walks the
//! settings by field path and stops at the first value out of range with a [`SettingsError`]
//! that names the field (`regions.cell_size`, `terrain.density.a.input.octaves`) and says what it
//! must be.

use std::fmt::Display;
use std::ops::RangeInclusive;

/// A setting outside the range it must lie in: which field, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[error("{field}: {reason}")]
pub struct SettingsError {
    /// The field's path, like `regions.cell_size` or `terrain.density.a.input.octaves`.
    pub field: String,
    /// What the field must be, and what it was.
    pub reason: String,
}

/// What a check gives: nothing, or the first value out of range.
pub type Checked = Result<(), SettingsError>;

/// Why `value` is not a finite number in `range` (`unit` after the bounds), if it is not.
#[must_use]
pub fn number_problem<T>(value: T, range: &RangeInclusive<T>, unit: &str) -> Option<String>
where
    T: Copy + PartialOrd + Display + Into<f64>,
{
    (!(value.into().is_finite() && range.contains(&value))).then(|| {
        format!(
            "must be a number from {} to {}{unit} (got {value})",
            range.start(),
            range.end()
        )
    })
}

/// Why `value` is not a whole number in `range` (`unit` after the bounds), if it is not.
#[must_use]
pub fn whole_problem<T: PartialOrd + Display>(
    value: T,
    range: &RangeInclusive<T>,
    unit: &str,
) -> Option<String> {
    (!range.contains(&value)).then(|| {
        format!(
            "must be a whole number from {} to {}{unit} (got {value})",
            range.start(),
            range.end()
        )
    })
}

/// Walks settings by field path; each check reports the first value out of range.
///
/// ```
/// use biome_core::check::Check;
///
/// let mut check = Check::at("scatter");
/// let error = check
///     .nested("radii[2]", |check| check.range_in("", 5000.0f32, &(0.0..=1024.0), " world units"))
///     .unwrap_err();
/// assert_eq!(error.field, "scatter.radii[2]");
/// assert_eq!(error.reason, "must be a number from 0 to 1024 world units (got 5000)");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Check {
    path: Vec<String>,
}

impl Check {
    /// A walk from the settings' root.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A walk whose fields lie under `path` (empty for the root).
    #[must_use]
    pub fn at(path: &str) -> Self {
        Self {
            path: (!path.is_empty())
                .then(|| path.to_owned())
                .into_iter()
                .collect(),
        }
    }

    /// The full path of field `name` here (`name` empty: the path here).
    #[must_use]
    pub fn field(&self, name: &str) -> String {
        let mut path = self.path.join(".");
        if !name.is_empty() {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(name);
        }
        path
    }

    /// Refuses field `name` for `reason`.
    ///
    /// # Errors
    /// Always: the error naming the field.
    pub fn fail(&self, name: &str, reason: String) -> Checked {
        Err(SettingsError {
            field: self.field(name),
            reason,
        })
    }

    /// Checks that field `name` is a finite number in `range`.
    ///
    /// # Errors
    /// The field, if it is not.
    pub fn range<T>(&self, name: &str, value: T, range: &RangeInclusive<T>) -> Checked
    where
        T: Copy + PartialOrd + Display + Into<f64>,
    {
        self.range_in(name, value, range, "")
    }

    /// [`Check::range`] with a unit named after the bounds in the reason (`" world units"`).
    ///
    /// # Errors
    /// The field, if it is out of range.
    pub fn range_in<T>(
        &self,
        name: &str,
        value: T,
        range: &RangeInclusive<T>,
        unit: &str,
    ) -> Checked
    where
        T: Copy + PartialOrd + Display + Into<f64>,
    {
        number_problem(value, range, unit).map_or(Ok(()), |reason| self.fail(name, reason))
    }

    /// Checks that field `name` is a whole number in `range`.
    ///
    /// # Errors
    /// The field, if it is not.
    pub fn whole<T: PartialOrd + Display>(
        &self,
        name: &str,
        value: T,
        range: &RangeInclusive<T>,
    ) -> Checked {
        whole_problem(value, range, "").map_or(Ok(()), |reason| self.fail(name, reason))
    }

    /// Runs `inner` one level down, under field `name`.
    ///
    /// # Errors
    /// `inner`'s.
    pub fn nested(&mut self, name: &str, inner: impl FnOnce(&mut Self) -> Checked) -> Checked {
        self.path.push(name.to_owned());
        let result = inner(self);
        self.path.pop();
        result
    }
}

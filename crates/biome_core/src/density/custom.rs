//! Density operations written in code: a game implements [`DensityFunction`], registers it by
//! name in the settings' [`DensityFunctions`], and uses it in the stack as a [`Custom`] node,
//! which presets write as `Custom(input: .., name: "craters")`. Validation takes the function's
//! declared bound like any operation's, and evaluation holds it to that bound, so a stack with
//! user code stays within the world's limits.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::Bounds;
use super::field::{Evaluate, Inputs, NoiseTables};
use super::ops::{Field, FieldValue, Operation};
use crate::check::SettingsError;
use crate::name::ShortName;
use crate::scratch::Scratch;

/// A density operation written in code: a pure function of the position, the world seed and its
/// input's value there. Being pure is what keeps the world seamless: every chunk, level and
/// thread asks it about the same point and gets the same answer.
///
/// ```
/// use biome_core::density::{Bounds, DensityFunction};
///
/// /// Terraces: the input rounded down to steps of `step`.
/// #[derive(Debug)]
/// struct Terraces {
///     step: f64,
/// }
///
/// impl DensityFunction for Terraces {
///     fn value(&self, _x: f64, _z: f64, input: f64, _seed: i64) -> f64 {
///         (input / self.step).floor() * self.step
///     }
///
///     fn bound(&self, input: Bounds) -> Bounds {
///         Bounds::new(input.low - self.step, input.high)
///     }
/// }
/// ```
pub trait DensityFunction: Send + Sync + fmt::Debug + 'static {
    /// The value at `(x, z)` in world `seed`, where the node's input is `input`.
    fn value(&self, x: f64, z: f64, input: f64, seed: i64) -> f64;

    /// The values at every `(xs[k], zs[k])`, where the input is `inputs[k]`: the same bits as
    /// [`DensityFunction::value`] (the default asks it point by point; override it with a
    /// faster path).
    fn values(&self, xs: &[f64], zs: &[f64], inputs: &[f64], seed: i64, out: &mut [f64]) {
        for (k, slot) in out.iter_mut().enumerate() {
            *slot = self.value(xs[k], zs[k], inputs[k], seed);
        }
    }

    /// Every value it can give when its input lies in `input`. Validation uses it (the stack must
    /// stay within [`crate::limits::DENSITY`]), and evaluation clamps to it: a value outside, or
    /// NaN, reads as the nearest end (NaN as the low end).
    fn bound(&self, input: Bounds) -> Bounds;
}

/// The name a [`DensityFunction`] is registered under, as presets write it.
pub type FunctionName = ShortName;

/// The density functions a world's stack may use, by name: part of
/// [`crate::WorldSettings::functions`] (code, so presets name functions but never carry them).
/// Cloning shares the functions.
#[derive(Clone, Default)]
pub struct DensityFunctions {
    functions: BTreeMap<FunctionName, Arc<dyn DensityFunction>>,
}

impl DensityFunctions {
    /// No functions.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// These functions and `function` under `name` (replacing one of that name).
    ///
    /// # Errors
    /// For a name that [`FunctionName::new`] refuses, naming the field `functions`.
    pub fn with(
        mut self,
        name: &str,
        function: impl DensityFunction,
    ) -> Result<Self, SettingsError> {
        let name = FunctionName::new(name).map_err(|reason| SettingsError {
            field: "functions".to_owned(),
            reason,
        })?;
        self.functions.insert(name, Arc::new(function));
        Ok(self)
    }

    /// The function registered under `name`.
    #[must_use]
    pub fn get(&self, name: &FunctionName) -> Option<&Arc<dyn DensityFunction>> {
        self.functions.get(name)
    }

    /// The registered names, in order.
    pub fn names(&self) -> impl Iterator<Item = &FunctionName> {
        self.functions.keys()
    }
}

impl fmt::Debug for DensityFunctions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.functions.keys()).finish()
    }
}

/// Two sets are the same when they hold the same functions (the same objects) by the same names.
impl PartialEq for DensityFunctions {
    fn eq(&self, other: &Self) -> bool {
        self.functions.len() == other.functions.len()
            && self
                .functions
                .iter()
                .zip(&other.functions)
                .all(|((a, f), (b, g))| a == b && Arc::ptr_eq(f, g))
    }
}

/// The node of a [`DensityFunction`]: the function registered under `name`, applied to its
/// input. A source that needs no input ignores it (give it a `Constant`).
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Custom {
    /// The function's name in [`DensityFunctions`].
    pub name: FunctionName,
}

impl Custom {
    /// The node of the function registered under `name`.
    ///
    /// # Errors
    /// Why `name` is not a function name ([`FunctionName::new`]).
    pub fn new(name: &str) -> Result<Self, String> {
        FunctionName::new(name).map(|name| Self { name })
    }

    /// The function it names, or why there is none.
    pub(crate) fn function<'a>(
        &self,
        functions: &'a DensityFunctions,
    ) -> Result<&'a Arc<dyn DensityFunction>, String> {
        functions.get(&self.name).ok_or_else(|| {
            let known: Vec<&str> = functions.names().map(FunctionName::as_str).collect();
            format!(
                "no density function {:?} is registered in the settings' functions (registered: {})",
                self.name.as_str(),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )
        })
    }
}

impl Operation for Custom {
    const INPUTS: &'static [&'static str] = &["input"];

    fn template() -> Self {
        Self {
            name: ShortName::EMPTY,
        }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        visit(Field {
            name: "name",
            required: true,
            value: FieldValue::Name(&mut self.name),
        });
    }

    fn bound(&self, inputs: &[Bounds], functions: &DensityFunctions) -> Bounds {
        // Validation has found the function: an unknown one is refused before bounds.
        self.function(functions)
            .map_or(Bounds::new(f64::NEG_INFINITY, f64::INFINITY), |function| {
                function.bound(inputs[0])
            })
    }

    fn compile(&self, noise: &mut NoiseTables) -> Arc<dyn Evaluate> {
        let function = self
            .function(noise.functions())
            .expect("validated: the function is registered")
            .clone();
        let input = noise.input_bound();
        Arc::new(CustomKernel {
            bound: function.bound(input),
            function,
            seed: noise.seed(),
        })
    }
}

/// A compiled [`Custom`] node.
#[derive(Debug)]
struct CustomKernel {
    function: Arc<dyn DensityFunction>,
    seed: i64,
    /// What it may give, for the bound its input had when validated.
    bound: Bounds,
}

impl CustomKernel {
    fn hold(&self, value: f64) -> f64 {
        if value.is_nan() {
            self.bound.low
        } else {
            value.clamp(self.bound.low, self.bound.high)
        }
    }
}

impl Evaluate for CustomKernel {
    fn value(&self, x: f64, z: f64, inputs: &Inputs<'_>) -> f64 {
        let input = inputs.value(0, x, z);
        self.hold(self.function.value(x, z, input, self.seed))
    }

    fn values(&self, xs: &[f64], zs: &[f64], inputs: &Inputs<'_>, out: &mut [f64]) {
        let mut input = Scratch::zeroed(xs.len());
        inputs.values(0, xs, zs, &mut input);
        self.function.values(xs, zs, &input, self.seed, out);
        out.iter_mut().for_each(|v| *v = self.hold(*v));
    }
}

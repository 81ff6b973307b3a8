//! The command line the world examples share: `[--seed N] [--preset NAME|FILE.ron]
//! [--horizon METRES] [--at X,Z] [--screenshot PATH] [--panel open|closed]`, and the settings it
//! makes.
//! Used with `#[path = "support/world_args.rs"] mod world_args;`.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_biome_world::prelude::*;

/// Where to start: over the land nearest this world `(x, z)` (`--at`, the origin unless given).
#[derive(Resource, Clone, Copy, Default)]
pub(crate) struct StartNear(pub(crate) Vec2);

/// What the command line asked for.
pub(crate) struct WorldArgs {
    pub(crate) settings: BiomeWorldSettings,
    pub(crate) streaming: BiomeWorldStreaming,
    pub(crate) start: StartNear,
    pub(crate) screenshot: Option<PathBuf>,
    pub(crate) panel_open: bool,
    /// The example's own options (`extra` in [`parse`]) that were given: `(flag, value)`, the
    /// value empty for a switch.
    own: Vec<(String, String)>,
}

impl WorldArgs {
    /// The example's own option `flag` if it was given: its value, empty for a switch.
    pub(crate) fn own(&self, flag: &str) -> Option<&str> {
        self.own
            .iter()
            .find(|(given, _)| given == flag)
            .map(|(_, value)| value.as_str())
    }
}

/// Parses the command line of example `name`, which also takes its own options `extra`: flags
/// (`"--splatting"`), or options with a value named after a space (`"--altitude METRES"`); an
/// error is the message to print.
pub(crate) fn parse(name: &str, extra: &[&str]) -> Result<WorldArgs, String> {
    let own: String = extra.iter().map(|flag| format!(" [{flag}]")).collect();
    let usage = format!(
        "usage: {name} [--seed N] [--preset NAME|FILE.ron] [--horizon METRES] [--at X,Z] \
         [--screenshot PATH] [--panel open|closed]{own}"
    );
    let mut args = WorldArgs {
        settings: BiomeWorldSettings::default(),
        streaming: BiomeWorldStreaming::default(),
        start: StartNear::default(),
        screenshot: None,
        panel_open: true,
        own: Vec::new(),
    };
    let takes_value = |flag: &str| {
        extra
            .iter()
            .any(|own| own.split_once(' ').is_some_and(|(name, _)| name == flag))
    };
    let mut seed = None;
    let mut words = std::env::args().skip(1);
    while let Some(flag) = words.next() {
        let mut value = || words.next().ok_or(format!("{flag} needs a value\n{usage}"));
        match flag.as_str() {
            "--seed" => seed = Some(value()?.parse().map_err(|e| format!("--seed: {e}"))?),
            "--preset" => args.settings.generator = load_preset(&value()?)?,
            "--horizon" => {
                args.streaming.horizon = value()?.parse().map_err(|e| format!("--horizon: {e}"))?;
                args.streaming
                    .validate_with(&args.settings)
                    .map_err(|e| format!("--horizon: {e}"))?;
            }
            "--at" => args.start = parse_point(&value()?)?,
            "--screenshot" => args.screenshot = Some(PathBuf::from(value()?)),
            "--panel" => {
                args.panel_open = match value()?.as_str() {
                    "open" => true,
                    "closed" => false,
                    other => return Err(format!("--panel takes open or closed, not {other}")),
                }
            }
            "--help" | "-h" => return Err(usage),
            own if extra.contains(&own) => args.own.push((own.to_owned(), String::new())),
            own if takes_value(own) => args.own.push((own.to_owned(), value()?)),
            other => return Err(format!("unknown option {other}\n{usage}")),
        }
    }
    // After the preset, whichever came first.
    if let Some(seed) = seed {
        args.settings.generator.seed = seed;
    }
    Ok(args)
}

/// A preset by name from `assets/presets/`, or a path to a RON file.
fn load_preset(name: &str) -> Result<WorldSettings, String> {
    let path = if name.ends_with(".ron") {
        PathBuf::from(name)
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("assets/presets")
            .join(format!("{name}.ron"))
    };
    WorldSettings::from_ron_file(&path).map_err(|e| format!("preset {}: {e}", path.display()))
}

/// `X,Z` in world units.
fn parse_point(text: &str) -> Result<StartNear, String> {
    let parse = |v: &str| {
        v.trim()
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or(format!("--at takes X,Z in world units, not {text}"))
    };
    match text.split_once(',') {
        Some((x, z)) => Ok(StartNear(Vec2::new(parse(x)?, parse(z)?))),
        None => Err(format!("--at takes X,Z in world units, not {text}")),
    }
}

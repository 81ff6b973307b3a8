//! Property tests over random settings, graphs, layouts and one-field mutations: whatever is
//! accepted builds finite chunks in bounded time, whatever is refused names the field, presets
//! round-trip, and chunks stay seamless and deterministic. Case counts keep the whole file to a
//! few seconds so CI stays fast.
#![expect(
    clippy::disallowed_methods,
    reason = "tests measure the world with the platform's functions; they make none of its values"
)]

mod counting;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use biome_core::cover::{ScatterLayer, ScatterSpacing, WaterRule};
use biome_core::density::{
    Abs, Add, Bounds, Cell, Clamp, Constant, Custom, DensityField, DensityFunction,
    DensityFunctions, DensityNode, DensityOp, Eroded, Fbm, Fbm3, FieldValue, Ground, Max, Min, Mix,
    Multiply, PointHeight, Shape, SmoothClamp, Tunnels, VolumePoints, Warp,
};
use biome_core::limits;
use biome_core::{ChunkCoord, ChunkData, ChunkLayout, MeshStyle, NodeCoord, Stitch};
use biome_core::{WorldGenerator, WorldSettings};
use proptest::prelude::*;

use counting::peak_of;

/// Uniform in `ln(low)..ln(high)`: frequencies and sizes spread over their decades.
fn log_range(low: f64, high: f64) -> impl Strategy<Value = f64> {
    (low.ln()..=high.ln()).prop_map(f64::exp)
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Normal),
        Just(Shape::Ridged),
        Just(Shape::Billow)
    ]
}

fn source() -> impl Strategy<Value = DensityNode> {
    prop_oneof![
        (-100.0..=100.0f64).prop_map(|value| DensityNode::new(Constant { value }, [])),
        (
            -1000i64..=1000,
            log_range(1e-5, 0.5),
            1u32..=8,
            0.05..=1.0f64,
            1.0..=4.0f64,
            shape()
        )
            .prop_map(
                |(seed_offset, scale, octaves, persistence, lacunarity, shape)| {
                    DensityNode::new(
                        Fbm {
                            seed_offset,
                            scale,
                            octaves,
                            persistence,
                            lacunarity,
                            shape,
                        },
                        [],
                    )
                }
            ),
        log_range(0.01, 10_000.0).prop_map(|radius| DensityNode::new(Cell { radius }, [])),
        (
            (-1000i64..=1000, log_range(1e-5, 0.5), 1u32..=8),
            (
                0.0..=1.0f64,
                1.0..=64.0f64,
                1u32..=8,
                log_range(0.001, 100.0)
            ),
        )
            .prop_map(
                |((seed_offset, scale, octaves), (depth, gully_scale, gully_octaves, flat))| {
                    DensityNode::new(
                        Eroded {
                            seed_offset,
                            scale,
                            octaves,
                            persistence: 0.5,
                            lacunarity: 2.0,
                            depth,
                            gully_scale,
                            gully_octaves,
                            flat,
                        },
                        [],
                    )
                }
            ),
    ]
}

fn sorted(a: f64, b: f64) -> (f64, f64) {
    (a.min(b), a.max(b))
}

/// Ripples over the input: a well-behaved function written in code.
#[derive(Debug)]
struct Ripples;

impl DensityFunction for Ripples {
    fn value(&self, x: f64, z: f64, input: f64, seed: i64) -> f64 {
        input + 0.5 * libm::sin(x * 0.013 + (seed % 97) as f64) * libm::cos(z * 0.011)
    }

    fn bound(&self, input: Bounds) -> Bounds {
        Bounds::new(input.low - 0.5, input.high + 0.5)
    }
}

/// A function that declares its input's bound and gives anything, NaN and infinities included:
/// evaluation must hold it to what it declared.
#[derive(Debug)]
struct Liar;

impl DensityFunction for Liar {
    fn value(&self, x: f64, z: f64, input: f64, _seed: i64) -> f64 {
        match (x.to_bits() ^ z.to_bits()) % 5 {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => -1e300,
            3 => input * 1e6,
            _ => input,
        }
    }

    fn bound(&self, input: Bounds) -> Bounds {
        input
    }
}

/// The functions the graph strategy's `Custom` nodes name.
fn functions() -> DensityFunctions {
    DensityFunctions::new()
        .with("ripples", Ripples)
        .and_then(|f| f.with("liar", Liar))
        .expect("valid names")
}

/// The sources of volumes: those of height stacks and the ones that read the height.
fn volume_source() -> impl Strategy<Value = DensityNode> {
    prop_oneof![
        source(),
        Just(DensityNode::new(Ground {}, [])),
        (
            (-1000i64..=1000, log_range(1e-5, 0.5), 1u32..=6),
            (log_range(0.01, 100.0), shape())
        )
            .prop_map(|((seed_offset, scale, octaves), (vertical, shape))| {
                let fbm = Fbm3 {
                    seed_offset,
                    scale,
                    octaves,
                    persistence: 0.5,
                    lacunarity: 2.0,
                    vertical,
                    shape,
                };
                DensityNode::new(fbm, [])
            }),
        (
            -1000i64..=1000,
            log_range(1e-5, 0.5),
            log_range(0.01, 100.0),
            0.0..=1.0f64
        )
            .prop_map(|(seed_offset, scale, vertical, radius)| {
                let tunnels = Tunnels {
                    seed_offset,
                    scale,
                    vertical,
                    radius,
                };
                DensityNode::new(tunnels, [])
            }),
    ]
}

/// Random density graphs of up to about 40 nodes, every operation of height stacks
/// represented, some switched off.
fn graph() -> impl Strategy<Value = DensityNode> {
    graph_over(source().boxed())
}

/// Random volumes: [`graph`] over [`volume_source`].
fn volume_graph() -> impl Strategy<Value = DensityNode> {
    graph_over(volume_source().boxed())
}

/// Random graphs of up to about 40 nodes over `source`, every operation represented, some
/// switched off.
fn graph_over(source: BoxedStrategy<DensityNode>) -> impl Strategy<Value = DensityNode> {
    let node = source.prop_recursive(6, 40, 2, |inner| {
        let value = || -100.0..=100.0f64;
        prop_oneof![
            (
                inner.clone(),
                -1000i64..=1000,
                0u32..=2,
                0.0..=2000.0f64,
                log_range(1e-5, 0.5),
                1u32..=6
            )
                .prop_map(|(input, seed_offset, levels, strength, scale, octaves)| {
                    let warp = Warp {
                        seed_offset,
                        levels,
                        strength,
                        scale,
                        octaves,
                    };
                    DensityNode::new(warp, [input])
                }),
            (inner.clone(), value(), value()).prop_map(|(input, a, b)| {
                let (low, high) = sorted(a, b);
                DensityNode::new(Clamp { low, high }, [input])
            }),
            (inner.clone(), value(), value(), 0.0..=10.0f64).prop_map(
                |(input, a, b, smoothness)| {
                    let (low, high) = sorted(a, b);
                    let clamp = SmoothClamp {
                        low,
                        high,
                        smoothness,
                    };
                    DensityNode::new(clamp, [input])
                }
            ),
            inner
                .clone()
                .prop_map(|input| DensityNode::new(Abs {}, [input])),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| DensityNode::new(Add {}, [a, b])),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| DensityNode::new(Multiply {}, [a, b])),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| DensityNode::new(Min {}, [a, b])),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| DensityNode::new(Max {}, [a, b])),
            (inner.clone(), inner.clone(), 0.0..=1.0f64)
                .prop_map(|(a, b, amount)| DensityNode::new(Mix { amount }, [a, b])),
            (inner, prop_oneof![Just("ripples"), Just("liar")]).prop_map(|(input, name)| {
                DensityNode::new(Custom::new(name).expect("a name"), [input])
            }),
        ]
    });
    (node, any::<u64>()).prop_map(|(mut node, switches)| {
        // About one node in eight switched off, chosen by the bits of `switches`.
        let count = node.node_count();
        for id in 0..count {
            if (switches >> (id % 64)) & 7 == 0 {
                node.node_mut(id).expect("in range").enabled = false;
            }
        }
        node
    })
}

/// Random settings within every field's range (which may still be refused as a whole, say for
/// heights beyond their bound).
fn settings() -> impl Strategy<Value = WorldSettings> {
    (
        graph(),
        (-(1i64 << 53)..=(1i64 << 53), log_range(0.01, 10_000.0)),
        (log_range(1e-5, 0.1), 0.0..=4.0f64),
        (
            log_range(8.0, 5000.0),
            0.0..=1.0f64,
            0.0..=500.0f64,
            log_range(1e-4, 0.1),
        ),
        (0.0..=300.0f64, -2.0..=-0.001f64, 0.0..=0.5f64, 0.0..=1.0f64),
        (
            any::<bool>(),
            log_range(1.0, 100.0),
            0.0..=0.95f64,
            0.0..=90.0f64,
            0.05..=5.0f64,
            0.0..=1.0f64,
        ),
        (
            0..3usize,
            -200.0..=200.0f64,
            0.0..=400.0f64,
            log_range(limits::SCATTER_SPACING.start().to_owned(), 100.0),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(density, seeds, climate, regions, surface, trees, layer)| {
                let mut s = WorldSettings {
                    functions: functions(),
                    ..WorldSettings::default()
                };
                s.terrain.density = density;
                (s.seed, s.terrain.height_scale) = seeds;
                (s.climate.scale, s.climate.chill) = climate;
                (
                    s.regions.cell_size,
                    s.regions.jitter,
                    s.regions.wobble,
                    s.regions.wobble_scale,
                ) = regions;
                let (blend, deep, beach, snow) = surface;
                s.regions.blend_width = blend;
                (
                    s.surface.deep_water,
                    s.surface.beach,
                    s.surface.snow_temperature,
                ) = (deep, beach, snow);
                let (enabled, spacing, jitter, slope, scale, clumping) = trees;
                s.trees.enabled = enabled;
                s.trees.spacing = spacing;
                s.trees.jitter = jitter;
                s.trees.max_slope_degrees = slope;
                (s.trees.min_scale, s.trees.max_scale) = (scale, scale * 1.5);
                s.trees.clumping = clumping;
                // A game's layer among the built-in ones, with rules drawn.
                let (water, low, span, spacing, on_snow) = layer;
                let extra = ScatterLayer {
                    water: [WaterRule::Dry, WaterRule::Shore, WaterRule::Land][water],
                    min_height: Some(low),
                    max_height: Some(low + span),
                    on_snow,
                    ..ScatterLayer::new("extra").expect("a layer name")
                };
                s.scatter.layers.insert(1, extra);
                for biome in &mut s.biome_table.biomes {
                    biome.scatter.push(ScatterSpacing::new("extra", spacing));
                }
                s
            },
        )
}

/// [`settings`] with the extensions on: rivers (every field within its range and the limits
/// between them), a rain shadow of up to 32 steps, and regions as small as validation allows.
fn settings_with_extensions() -> impl Strategy<Value = WorldSettings> {
    (
        settings(),
        (
            log_range(16.0, 4096.0),
            0.0..=1.0f64,
            log_range(1.0, 10_000.0),
            0.0..=1.0f64,
            1u32..=64,
        ),
        (
            0.0..=1.0f64,
            log_range(0.05, 100.0),
            0.0..=1.0f64,
            0.0..=1.0f64,
            log_range(0.05, 10.0),
            0.0..=50.0f64,
            0.0..=0.45f64,
        ),
        (
            0.0..=4.0f64,
            -360.0..=360.0f64,
            log_range(1.0, 100_000.0),
            1u32..=32,
        ),
        prop_oneof![Just(None), log_range(8.0, 64.0).prop_map(Some)],
    )
        .prop_map(
            |(mut s, (spacing, springs, spring_height, dry, length), shape, shadow, cells)| {
                let r = &mut s.rivers;
                r.enabled = true;
                (
                    r.spacing,
                    r.springs,
                    r.spring_height,
                    r.dry_moisture,
                    r.max_length,
                ) = (spacing, springs, spring_height, dry, length);
                let (width, depth, lake, valley, slope, bank, meander) = shape;
                let within = |t: f64, low: f64, high: f64| low + t * (high - low);
                r.width = within(width, 0.5, (spacing / 8.0).min(200.0));
                r.depth = depth;
                r.lake_radius = within(lake, 1.0, (spacing / 4.0).min(1000.0));
                r.valley_width = within(valley, 1.0, (4.0 * spacing).min(2000.0));
                (r.valley_slope, r.bank_height, r.meander) = (slope, bank, meander);
                let shade = &mut s.climate.rain_shadow;
                (shade.strength, shade.wind_degrees, shade.reach, shade.steps) = shadow;
                if let Some(cell_size) = cells {
                    s.regions.cell_size = cell_size;
                }
                s
            },
        )
}

/// Small random layouts with exact tile sizes (multiples of 1/64 from 1/16 to 32).
fn layout() -> impl Strategy<Value = ChunkLayout> {
    (1u32..=24, 4u32..=2048, any::<bool>()).prop_map(|(tiles, steps, flat)| ChunkLayout {
        tiles,
        tile_size: f64::from(steps) / 64.0,
        style: if flat {
            MeshStyle::FlatTiles
        } else {
            MeshStyle::Smooth
        },
    })
}

/// Chunk coordinates near the origin, far out, and at the ends of the grid.
fn coord() -> impl Strategy<Value = ChunkCoord> {
    prop_oneof![
        (-50i64..=50, -50i64..=50).prop_map(|(x, z)| ChunkCoord::new(x, z)),
        // Within the reach of the widest chunks (2^31 of them a side), so of every layout.
        (any::<i32>(), any::<i32>()).prop_map(|(x, z)| ChunkCoord::new(x.into(), z.into())),
        Just(ChunkCoord::new(i32::MAX.into(), i32::MIN.into())),
    ]
}

fn assert_finite(chunk: &ChunkData, height_bound: f64) {
    let finite = |v: &[f32]| v.iter().all(|c| c.is_finite());
    assert!(chunk.positions.iter().all(|p| finite(p)));
    assert!(chunk.normals.iter().all(|n| finite(n)));
    assert!(chunk.colors.iter().all(|c| finite(c)));
    assert!(chunk.trees.iter().all(|t| finite(&t.position)));
    assert!(f64::from(chunk.min_height.abs()) <= height_bound * (1.0 + 1e-6) + 1e-6);
    assert!(f64::from(chunk.max_height.abs()) <= height_bound * (1.0 + 1e-6) + 1e-6);
}

/// `settings` with trees at least as far apart as chunks of `layout` need
/// ([`ChunkLayout::validate_with`]).
fn with_tree_spacing_for(mut settings: WorldSettings, layout: &ChunkLayout) -> WorldSettings {
    let least = (layout.chunk_size() / (limits::MAX_TREE_SPOTS.sqrt() - 2.0)).ceil();
    settings.trees.spacing = settings.trees.spacing.max(least);
    settings
}

/// Builds a chunk and checks it is finite, within the height bound validation states, and quick.
fn build_checked(settings: &WorldSettings, layout: &ChunkLayout, coord: ChunkCoord) {
    let bound = settings
        .terrain
        .density
        .validate_with(&settings.functions)
        .unwrap()
        .magnitude();
    let world = WorldGenerator::new(settings.clone()).expect("validated");
    let started = Instant::now();
    let chunk = world.build_chunk(coord, layout).expect("validated layout");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        chunk.positions.len(),
        match layout.style {
            MeshStyle::Smooth => ((layout.tiles + 1) * (layout.tiles + 1)) as usize,
            MeshStyle::FlatTiles => (4 * layout.tiles * layout.tiles) as usize,
        }
    );
    assert!(chunk.trees.len() as f64 <= limits::MAX_TREE_SPOTS);
    assert_finite(&chunk, bound * settings.terrain.height_scale);
    let origin = coord.origin(layout);
    for kind in 0..settings.scatter.layers.len() {
        let corner = [origin[0] + 24.0, origin[1] + 24.0];
        for object in world.scatter_in_rect(kind, origin, corner, layout).unwrap() {
            assert!(object.position.iter().all(|v| v.is_finite()), "{object:?}");
            assert!(
                object.scale.is_finite() && object.yaw.is_finite(),
                "{object:?}"
            );
        }
    }
}

/// The most time a node build or a 48 m scatter may take under any valid settings (optimised
/// test builds, one core).
const BUILD_TIME: Duration = Duration::from_secs(1);
/// The most memory one may hold at once: a node's grids and caches, and the river tiles it reads.
const BUILD_BYTES: usize = 64 << 20;

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The rule behind issue 22: every valid setting with the extensions on builds a node of
    /// any level, stitched or not, and scatters every kind over a 48 m square, each within
    /// [`BUILD_TIME`] and [`BUILD_BYTES`].
    #[test]
    fn valid_settings_with_the_extensions_build_every_level_within_bounds(
        settings in settings_with_extensions(),
        level in 0u8..=NodeCoord::MAX_LEVEL,
        x in -40i64..40,
        z in -40i64..40,
        stitched in any::<bool>(),
    ) {
        prop_assume!(settings.validate().is_ok());
        let layout = ChunkLayout::default();
        let settings = with_tree_spacing_for(settings, &layout);
        layout.validate_with(&settings).unwrap();
        let world = WorldGenerator::new(settings).expect("validated");
        let stitch = Stitch {
            sides: [stitched, false, stitched, false],
            corners: [false; 4],
        };
        let started = Instant::now();
        let (node, bytes) = peak_of(|| {
            world.build_node(NodeCoord::new(level, x, z), &layout, stitch, &AtomicBool::new(false))
        });
        let took = started.elapsed();
        prop_assert!(node.is_ok(), "{node:?}");
        prop_assert!(took < BUILD_TIME, "level {level}: {took:?}");
        prop_assert!(bytes < BUILD_BYTES, "level {level}: {bytes} bytes");
        let origin = [x as f64 * 128.0, z as f64 * 128.0];
        for kind in 0..world.settings().scatter.layers.len() {
            let started = Instant::now();
            let corner = [origin[0] + 48.0, origin[1] + 48.0];
            let (objects, bytes) =
                peak_of(|| world.scatter_in_rect(kind, origin, corner, &layout));
            let took = started.elapsed();
            prop_assert!(objects.is_ok(), "{objects:?}");
            prop_assert!(took < BUILD_TIME, "{kind:?}: {took:?}");
            prop_assert!(bytes < BUILD_BYTES, "{kind:?}: {bytes} bytes");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Every valid setting builds a finite chunk, heights within the stated bound, in bounded
    /// time and size.
    #[test]
    fn valid_settings_build_finite_chunks(
        settings in settings(),
        layout in layout(),
        coord in coord(),
    ) {
        prop_assume!(settings.validate().is_ok());
        let settings = with_tree_spacing_for(settings, &layout);
        layout.validate_with(&settings).unwrap();
        build_checked(&settings, &layout, coord);
    }

    /// Every valid setting survives the preset format unchanged.
    #[test]
    fn presets_round_trip(settings in settings()) {
        prop_assume!(settings.validate().is_ok());
        let text = settings.to_ron().unwrap();
        prop_assert_eq!(
            WorldSettings::from_ron_with(&text, &settings.functions).unwrap(),
            settings
        );
    }
}

/// Every number in the settings, by path, with a way to set it: the world's own fields and every
/// field of every density node.
fn numeric_fields(settings: &WorldSettings) -> Vec<String> {
    let mut paths: Vec<String> = [
        "seed",
        "terrain.height_scale",
        "climate.scale",
        "climate.chill",
        "climate.rain_shadow.strength",
        "climate.rain_shadow.wind_degrees",
        "climate.rain_shadow.reach",
        "climate.rain_shadow.steps",
        "regions.cell_size",
        "regions.jitter",
        "regions.wobble",
        "regions.wobble_scale",
        "regions.blend_width",
        "surface.deep_water",
        "surface.beach",
        "surface.snow_temperature",
        "trees.spacing",
        "trees.jitter",
        "trees.max_slope_degrees",
        "trees.min_scale",
        "trees.max_scale",
        "trees.clumping",
        "rivers.spacing",
        "rivers.springs",
        "rivers.spring_height",
        "rivers.dry_moisture",
        "rivers.max_length",
        "rivers.width",
        "rivers.depth",
        "rivers.lake_radius",
        "rivers.valley_width",
        "rivers.valley_slope",
        "rivers.bank_height",
        "rivers.meander",
    ]
    .map(str::to_owned)
    .into();
    for (axis, limits) in [
        ("heat_limits", &settings.biome_table.heat_limits),
        ("wet_limits", &settings.biome_table.wet_limits),
    ] {
        paths.extend((0..limits.len()).map(|i| format!("biome_table.{axis}[{i}]")));
    }
    for k in 0..settings.scatter.layers.len() {
        for field in ["max_slope_degrees", "min_scale", "max_scale"] {
            paths.push(format!("scatter.layers[{k}].{field}"));
        }
    }
    for (i, biome) in settings.biome_table.biomes.iter().enumerate() {
        paths.push(format!("biome_table.biomes[{i}].tree_density"));
        paths.extend(
            (0..biome.trees.len()).map(|k| format!("biome_table.biomes[{i}].trees[{k}].weight")),
        );
        paths.extend(
            (0..biome.scatter.len())
                .map(|k| format!("biome_table.biomes[{i}].scatter[{k}].spacing")),
        );
    }
    for entry in settings.terrain.density.walk() {
        let mut op = entry.node.op;
        op.fields(&mut |field| {
            if !matches!(field.value, FieldValue::Shape(_) | FieldValue::Name(_)) {
                let node = if entry.path.is_empty() {
                    String::new()
                } else {
                    format!("{}.", entry.path)
                };
                paths.push(format!("terrain.density.{node}{}", field.name));
            }
        });
    }
    paths
}

/// Sets the field at `path` to `value`, converted as its type converts (saturating for whole
/// numbers).
fn set_field(settings: &mut WorldSettings, path: &str, value: f64) {
    if let Some(rest) = path.strip_prefix("terrain.density.") {
        let (node_path, name) = rest.rsplit_once('.').unwrap_or(("", rest));
        let id = settings
            .terrain
            .density
            .walk()
            .iter()
            .position(|e| e.path == node_path)
            .expect("a node path from numeric_fields");
        let node = settings.terrain.density.node_mut(id).unwrap();
        node.op.fields(&mut |field| {
            if field.name == name {
                match field.value {
                    FieldValue::Number { value: v, .. } => *v = value,
                    FieldValue::Whole { value: v, .. } | FieldValue::Choice { value: v, .. } => {
                        *v = value as u32;
                    }
                    FieldValue::SeedOffset { value: v, .. } => *v = value as i64,
                    FieldValue::Shape(_) | FieldValue::Name(_) => {}
                }
            }
        });
        return;
    }
    let index = |text: &str| -> usize {
        text.trim_end_matches(']')
            .rsplit('[')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let s = settings;
    match path {
        "seed" => s.seed = value as i64,
        "terrain.height_scale" => s.terrain.height_scale = value,
        "climate.scale" => s.climate.scale = value,
        "climate.chill" => s.climate.chill = value,
        "climate.rain_shadow.strength" => s.climate.rain_shadow.strength = value,
        "climate.rain_shadow.wind_degrees" => s.climate.rain_shadow.wind_degrees = value,
        "climate.rain_shadow.reach" => s.climate.rain_shadow.reach = value,
        "climate.rain_shadow.steps" => s.climate.rain_shadow.steps = value as u32,
        "regions.cell_size" => s.regions.cell_size = value,
        "regions.jitter" => s.regions.jitter = value,
        "regions.wobble" => s.regions.wobble = value,
        "regions.wobble_scale" => s.regions.wobble_scale = value,
        "regions.blend_width" => s.regions.blend_width = value,
        "surface.deep_water" => s.surface.deep_water = value,
        "surface.beach" => s.surface.beach = value,
        "surface.snow_temperature" => s.surface.snow_temperature = value,
        "trees.spacing" => s.trees.spacing = value,
        "trees.jitter" => s.trees.jitter = value,
        "trees.max_slope_degrees" => s.trees.max_slope_degrees = value,
        "trees.min_scale" => s.trees.min_scale = value,
        "trees.max_scale" => s.trees.max_scale = value,
        "trees.clumping" => s.trees.clumping = value,
        "rivers.spacing" => s.rivers.spacing = value,
        "rivers.springs" => s.rivers.springs = value,
        "rivers.spring_height" => s.rivers.spring_height = value,
        "rivers.dry_moisture" => s.rivers.dry_moisture = value,
        "rivers.max_length" => s.rivers.max_length = value as u32,
        "rivers.width" => s.rivers.width = value,
        "rivers.depth" => s.rivers.depth = value,
        "rivers.lake_radius" => s.rivers.lake_radius = value,
        "rivers.valley_width" => s.rivers.valley_width = value,
        "rivers.valley_slope" => s.rivers.valley_slope = value,
        "rivers.bank_height" => s.rivers.bank_height = value,
        "rivers.meander" => s.rivers.meander = value,
        _ if path.starts_with("scatter.layers[") => {
            let (layer, field) = path.split_once("].").unwrap();
            let layer = &mut s.scatter.layers[index(&format!("{layer}]"))];
            match field {
                "max_slope_degrees" => layer.max_slope_degrees = value,
                "min_scale" => layer.min_scale = value,
                "max_scale" => layer.max_scale = value,
                _ => panic!("no setter for {path}"),
            }
        }
        _ if path.starts_with("biome_table.heat_limits") => {
            s.biome_table.heat_limits[index(path)] = value;
        }
        _ if path.starts_with("biome_table.wet_limits") => {
            s.biome_table.wet_limits[index(path)] = value;
        }
        _ if path.ends_with(".tree_density") => {
            let i = index(path.trim_end_matches(".tree_density"));
            s.biome_table.biomes[i].tree_density = value;
        }
        _ if path.ends_with(".spacing") => {
            let (biome, entry) = path
                .trim_end_matches(".spacing")
                .split_once(".scatter")
                .unwrap();
            s.biome_table.biomes[index(biome)].scatter[index(entry)].spacing = value;
        }
        _ if path.ends_with(".weight") => {
            let (biome, entry) = path
                .trim_end_matches(".weight")
                .split_once(".trees")
                .unwrap();
            s.biome_table.biomes[index(biome)].trees[index(entry)].weight = value;
        }
        _ => panic!("no setter for {path}"),
    }
}

/// The list of fields covers every number the settings serialize (colours, which any byte
/// fills validly, aside), so a new field cannot escape the mutation test.
#[test]
fn the_mutation_table_covers_every_number() {
    fn count(value: &serde_json::Value, key: &str) -> usize {
        if key.contains("color") {
            return 0;
        }
        match value {
            serde_json::Value::Number(_) => 1,
            serde_json::Value::Array(items) => items.iter().map(|v| count(v, key)).sum(),
            serde_json::Value::Object(map) => map.iter().map(|(k, v)| count(v, k)).sum(),
            _ => 0,
        }
    }
    let settings = WorldSettings::default();
    let json = serde_json::to_value(&settings).unwrap();
    assert_eq!(numeric_fields(&settings).len(), count(&json, ""));
}

/// Values a hostile user might type: non-finite, signed zeros, extremes, just past the usual
/// ranges, and ordinary ones.
fn hostile() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(1e300),
        Just(-1e300),
        Just(1e-300),
        Just(f64::MAX),
        Just(f64::MIN_POSITIVE),
        Just(9.3e18),
        Just(-9.3e18),
        Just(4.3e9),
        Just(-1.0),
        Just(1.0),
        Just(16.0),
        Just(17.0),
        Just(100.0),
        Just(1e4),
        -2.0..=2.0f64,
        -1e7..=1e7f64,
    ]
}

/// Paths whose errors may name a partner: the other end of a pair that must stay in order.
fn partners(path: &str) -> Vec<String> {
    let swap = |a: &str, b: &str| {
        if let Some(base) = path.strip_suffix(a) {
            vec![format!("{base}{b}")]
        } else if let Some(base) = path.strip_suffix(b) {
            vec![format!("{base}{a}")]
        } else {
            Vec::new()
        }
    };
    let mut out = swap("low", "high");
    out.extend(swap("min_scale", "max_scale"));
    // River widths, lakes and valleys are bounded by the node spacing.
    let river = ["rivers.width", "rivers.lake_radius", "rivers.valley_width"];
    if path == "rivers.spacing" {
        out.extend(river.map(str::to_owned));
    } else if river.contains(&path) {
        out.push("rivers.spacing".to_owned());
    }
    for axis in ["heat_limits", "wet_limits"] {
        if let Some(rest) = path.strip_prefix(&format!("biome_table.{axis}[")) {
            let i: usize = rest.trim_end_matches(']').parse().unwrap();
            out.push(format!("biome_table.{axis}[{}]", i + 1));
            if i > 0 {
                out.push(format!("biome_table.{axis}[{}]", i - 1));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1300, ..ProptestConfig::default() })]

    /// One field of the defaults (with rivers on) set to a hostile value is either refused,
    /// naming that field (or its partner in an ordered pair, or the node whose values it pushes
    /// out of range, or the height scale those values then overflow), or accepted and builds a
    /// finite chunk and finite scatter.
    #[test]
    fn one_field_mutations_are_refused_by_name_or_safe(
        pick in any::<prop::sample::Index>(),
        value in hostile(),
        coord in (-40i64..40, -40i64..40),
    ) {
        let mut settings = WorldSettings::default();
        settings.rivers.enabled = true;
        let fields = numeric_fields(&settings);
        let path = pick.get(&fields).clone();
        set_field(&mut settings, &path, value);
        match settings.validate() {
            Err(error) => {
                let ancestor = path.starts_with("terrain.density")
                    && (path.starts_with(&format!("{}.", error.field))
                        || error.field == "terrain.height_scale");
                // A kind's spacings bound each other: the widest is named.
                let spread = path.contains(".scatter[") && error.field.contains(".scatter[");
                prop_assert!(
                    error.field == path
                        || ancestor
                        || spread
                        || partners(&path).contains(&error.field),
                    "{path} = {value} was refused as {error}"
                );
            }
            Ok(()) => {
                let layout = ChunkLayout { tiles: 8, ..ChunkLayout::default() };
                prop_assume!(layout.validate_with(&settings).is_ok());
                build_checked(&settings, &layout, ChunkCoord::new(coord.0, coord.1));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any tile size: refused by name unless it is a multiple of 1/64 in range; accepted ones
    /// give neighbours identical edges, origins inside their own chunks, and the same bytes on
    /// another thread.
    #[test]
    fn layouts_are_exact_or_refused_and_seamless(
        tiles in 1u32..=20,
        size in prop_oneof![0.001..=400.0f64, (1u32..=16384).prop_map(|k| f64::from(k) / 64.0)],
        coord in coord(),
        seed in -1000i64..1000,
    ) {
        let layout = ChunkLayout { tiles, tile_size: size, style: MeshStyle::Smooth };
        let settings = WorldSettings { seed, ..WorldSettings::default() };
        let exact = (size * 64.0).fract() == 0.0 && ChunkLayout::TILE_SIZE.contains(&size);
        let settings = if exact { with_tree_spacing_for(settings, &layout) } else { settings };
        match layout.validate_with(&settings) {
            Err(error) => prop_assert!(!exact && error.field == "layout.tile_size", "{error}"),
            Ok(()) => {
                prop_assert!(exact);
                let origin = coord.origin(&layout);
                prop_assert_eq!(ChunkCoord::containing(origin[0], origin[1], &layout), coord);
                prop_assume!(coord.x < layout.chunk_reach() && coord.z < layout.chunk_reach());
                let world = WorldGenerator::new(settings).unwrap();
                let here = world.build_chunk(coord, &layout).unwrap();
                let east = world.build_chunk(ChunkCoord::new(coord.x + 1, coord.z), &layout).unwrap();
                let south = world.build_chunk(ChunkCoord::new(coord.x, coord.z + 1), &layout).unwrap();
                let verts = tiles as usize + 1;
                for t in 0..verts {
                    let (a, b) = (t * verts + verts - 1, t * verts);
                    prop_assert_eq!(here.world_position(a), east.world_position(b));
                    prop_assert_eq!(here.normals[a], east.normals[b]);
                    prop_assert_eq!(here.colors[a], east.colors[b]);
                    let (a, b) = ((verts - 1) * verts + t, t);
                    prop_assert_eq!(here.world_position(a), south.world_position(b));
                    prop_assert_eq!(here.normals[a], south.normals[b]);
                    prop_assert_eq!(here.colors[a], south.colors[b]);
                }
                let elsewhere = std::thread::scope(|scope| {
                    scope.spawn(|| world.build_chunk(coord, &layout).unwrap()).join().unwrap()
                });
                prop_assert_eq!(elsewhere, here);
            }
        }
    }
}

/// The operations the graph strategy draws from are all there is: a new operation must join it.
#[test]
fn the_graph_strategy_knows_every_operation() {
    assert_eq!(
        DensityOp::KINDS,
        [
            "Constant",
            "Fbm",
            "Eroded",
            "Cell",
            "Warp",
            "Clamp",
            "SmoothClamp",
            "Abs",
            "Add",
            "Multiply",
            "Mix",
            "Custom",
            "Min",
            "Max",
            "Ground",
            "Fbm3",
            "Tunnels"
        ]
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    /// A random volume is refused naming one of its nodes, or accepted; an accepted one gives,
    /// anywhere and at any height, values within its validated bound (to rounding), the same
    /// bits one point
    /// at a time as in a batch. A height stack refuses a graph with a node that reads the
    /// height.
    #[test]
    fn volumes_are_bounded_or_refused_by_node(
        root in volume_graph(),
        seed in -1000i64..1000,
        at in prop::collection::vec((-1.0e7..1.0e7f64, -1.0e4..1.0e4f64, -1.0e7..1.0e7f64, -500.0..500.0f64), 1..24),
    ) {
        let functions = functions();
        let entries = root.walk();
        // A node's path, or one of its fields (a name past the path, with no further step).
        let names_node = |field: &str, path: &str| {
            let rest = if path.is_empty() { Some(field) } else { field.strip_prefix(path).and_then(|r| r.strip_prefix('.')) };
            field == path || rest.is_some_and(|r| !r.contains('.'))
        };
        let readers: Vec<&str> = entries.iter().filter(|e| e.node.op.reads_height()).map(|e| e.path.as_str()).collect();
        if !readers.is_empty() {
            let error = root.validate_with(&functions).expect_err("a height stack refuses them");
            // The first node found wrong, in pre-order, reads the height or comes before one.
            prop_assert!(entries.iter().any(|e| names_node(&error.field, &e.path)), "{error}");
            let first_reader = entries.iter().position(|e| e.node.op.reads_height()).unwrap();
            let named = entries.iter().position(|e| names_node(&error.field, &e.path)).unwrap();
            prop_assert!(named <= first_reader, "{error} is past the first reader {}", readers[0]);
        }
        match DensityField::volume(&root, seed, &functions) {
            Err(error) => {
                prop_assert!(
                    entries.iter().any(|entry| names_node(&error.field, &entry.path)),
                    "{error} names no node"
                );
            }
            Ok(field) => {
                let bound = root.validate_volume_with(&functions).expect("accepted");
                let sites: Vec<[f64; 2]> = vec![[0.0, 0.0], [300.0, -200.0]];
                let xs: Vec<f64> = at.iter().map(|p| p.0).collect();
                let ys: Vec<f64> = at.iter().map(|p| p.1).collect();
                let zs: Vec<f64> = at.iter().map(|p| p.2).collect();
                let grounds: Vec<f64> = at.iter().map(|p| p.3).collect();
                let mut batch = vec![f64::NAN; at.len()];
                let points = VolumePoints { xs: &xs, ys: &ys, zs: &zs, grounds: &grounds };
                field.volume_values(points, &sites, &mut batch);
                for (k, &(x, y, z, ground)) in at.iter().enumerate() {
                    let one = field.volume_value(x, z, PointHeight { y, ground }, &sites);
                    prop_assert_eq!(one.to_bits(), batch[k].to_bits());
                    // Bounds are interval arithmetic without directed rounding: an ulp out.
                    let slack = 1e-12 * bound.magnitude().max(1.0);
                    let within = Bounds::new(bound.low - slack, bound.high + slack);
                    prop_assert!(within.contains(one), "{one} outside {bound:?}");
                }
            }
        }
    }
}

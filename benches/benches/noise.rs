//! Throughput of `biome_core` against noise-rs and fastnoise-lite on the same workloads, in one run.
//!
//! `cargo bench -p biome_benches --bench noise`
//!
//! Every workload samples a 64 × 64 grid of points (3D noise a 16 × 16 × 16 block); criterion
//! reports time per point (elements).
//! Peers are configured for the same work: 4 octaves, persistence 0.5, lacunarity 2, their 2D
//! Simplex (noise-rs `Fbm<Simplex>`, fastnoise-lite `OpenSimplex2` with `FBm`, in its default
//! `f32` build).

use std::hint::black_box;
use std::time::Duration;

use biome_core::batch::{Backend, FbmParams, fbm_points_on};
use biome_core::density::{
    Add, DensityField, DensityFunctions, DensityNode, Eroded, Fbm as DensityFbm, Fbm3, Ground, Min,
    Multiply, Shape, Tunnels, VolumePoints,
};
use biome_core::edits::{BrushOp, EditLog, EditSet, EditShape};
use biome_core::multi_noise::{AxisRange, BiomeBox, BiomeBoxIndex, ClimatePoint};
use biome_core::noise3::Simplex3;
use biome_core::rays::GroundRay;
use biome_core::scatter::{ScatterGround, ScatterLayer, ScatterSpacing};
use biome_core::surface_nets::{OwnedEdges, SampledVolume, mesh_volume};
use biome_core::tutorial::{SeededRandom, Simplex, domain_warp, fbm};
use biome_core::{ChunkCoord, ChunkLayout};
use biome_core::{WorldGenerator, WorldSettings};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use fastnoise_lite::{FastNoiseLite, FractalType, NoiseType};
use noise::{Fbm, MultiFractal, NoiseFn};

const SIDE: usize = 64;
const STEP: f64 = 0.037;

fn grid() -> (Vec<f64>, Vec<f64>) {
    let mut xs = Vec::with_capacity(SIDE * SIDE);
    let mut ys = Vec::with_capacity(SIDE * SIDE);
    for j in 0..SIDE {
        for i in 0..SIDE {
            xs.push(13.5 + i as f64 * STEP);
            ys.push(-7.25 + j as f64 * STEP);
        }
    }
    (xs, ys)
}

fn noise_and_fbm(c: &mut Criterion) {
    let (xs, ys) = grid();
    let n = xs.len();
    let ours = Simplex::new(42);
    let mut out = vec![0.0; n];
    let noise_rs_simplex = noise::Simplex::new(42);
    let noise_rs_fbm = Fbm::<noise::Simplex>::new(42)
        .set_octaves(4)
        .set_persistence(0.5)
        .set_lacunarity(2.0);
    let fast_noise = || {
        let mut noise = FastNoiseLite::with_seed(42);
        noise.set_noise_type(Some(NoiseType::OpenSimplex2));
        noise.set_frequency(Some(1.0));
        noise
    };
    let fast_simplex = fast_noise();
    let mut fast_fbm = fast_noise();
    fast_fbm.set_fractal_type(Some(FractalType::FBm));
    fast_fbm.set_fractal_octaves(Some(4));
    fast_fbm.set_fractal_gain(Some(0.5));
    fast_fbm.set_fractal_lacunarity(Some(2.0));

    let mut group = c.benchmark_group("noise");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("biome_core scalar", |b| {
        b.iter(|| {
            xs.iter()
                .zip(&ys)
                .map(|(&x, &y)| ours.noise(black_box(x), y))
                .sum::<f64>()
        });
    });
    group.bench_function("biome_core scalar with gradient", |b| {
        b.iter(|| {
            xs.iter()
                .zip(&ys)
                .map(|(&x, &y)| {
                    let sample = ours.noise_with_gradient(black_box(x), y);
                    sample.value + sample.gradient[0] + sample.gradient[1]
                })
                .sum::<f64>()
        });
    });
    group.bench_function("biome_core batch", |b| {
        b.iter(|| {
            ours.noise_points(black_box(&xs), &ys, &mut out);
            out[n - 1]
        });
    });
    group.bench_function("noise-rs Simplex", |b| {
        b.iter(|| {
            xs.iter()
                .zip(&ys)
                .map(|(&x, &y)| noise_rs_simplex.get([black_box(x), y]))
                .sum::<f64>()
        });
    });
    group.bench_function("fastnoise-lite OpenSimplex2", |b| {
        b.iter(|| {
            xs.iter()
                .zip(&ys)
                .map(|(&x, &y)| fast_simplex.get_noise_2d(black_box(x as f32), y as f32))
                .sum::<f32>()
        });
    });
    group.finish();

    let mut group = c.benchmark_group("fbm4");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("biome_core scalar", |b| {
        b.iter(|| {
            xs.iter()
                .zip(&ys)
                .map(|(&x, &y)| fbm(&ours, black_box(x), y, 4, 0.5, 2.0))
                .sum::<f64>()
        });
    });
    for backend in Backend::available() {
        group.bench_function(format!("biome_core batch {}", backend.name()), |b| {
            b.iter(|| {
                fbm_points_on(
                    backend,
                    &ours,
                    black_box(&xs),
                    &ys,
                    FbmParams::default(),
                    &mut out,
                );
                out[n - 1]
            });
        });
    }
    group.bench_function("noise-rs Fbm<Simplex>", |b| {
        b.iter(|| {
            xs.iter()
                .zip(&ys)
                .map(|(&x, &y)| noise_rs_fbm.get([black_box(x), y]))
                .sum::<f64>()
        });
    });
    group.bench_function("fastnoise-lite FBm OpenSimplex2", |b| {
        b.iter(|| {
            xs.iter()
                .zip(&ys)
                .map(|(&x, &y)| fast_fbm.get_noise_2d(black_box(x as f32), y as f32))
                .sum::<f32>()
        });
    });
    group.finish();

    // 3D noise (`biome_core::noise3`) on a 16³ block of the same spacing, beside the peers'
    // own 3D fBm.
    let side: u32 = 16;
    let mut xyz: [Vec<f64>; 3] = Default::default();
    for k in 0..side * side * side {
        let at = [k % side, k / side % side, k / (side * side)];
        for axis in 0..3 {
            xyz[axis].push(13.5 + f64::from(at[axis]) * STEP);
        }
    }
    let [x3, y3, z3] = &xyz;
    let ours3 = Simplex3::new(42);
    let points3 = || x3.iter().zip(y3).zip(z3).map(|((&x, &y), &z)| [x, y, z]);
    let mut group = c.benchmark_group("noise3");
    group.throughput(Throughput::Elements(x3.len() as u64));
    group.bench_function("biome_core noise, scalar", |b| {
        b.iter(|| {
            points3()
                .map(|[x, y, z]| ours3.noise(black_box(x), y, z))
                .sum::<f64>()
        });
    });
    group.bench_function("biome_core noise, batch", |b| {
        b.iter(|| {
            ours3.noise_points(black_box(x3), y3, z3, &mut out);
            out[n - 1]
        });
    });
    group.bench_function("biome_core fbm4, scalar", |b| {
        b.iter(|| {
            points3()
                .map(|[x, y, z]| ours3.fbm(black_box(x), y, z, FbmParams::default()))
                .sum::<f64>()
        });
    });
    group.bench_function("biome_core fbm4, batch", |b| {
        b.iter(|| {
            ours3.fbm_points(black_box(x3), y3, z3, FbmParams::default(), &mut out);
            out[n - 1]
        });
    });
    group.bench_function("noise-rs Fbm<Simplex> 3D", |b| {
        b.iter(|| {
            points3()
                .map(|[x, y, z]| noise_rs_fbm.get([black_box(x), y, z]))
                .sum::<f64>()
        });
    });
    group.bench_function("fastnoise-lite FBm OpenSimplex2 3D", |b| {
        b.iter(|| {
            points3()
                .map(|[x, y, z]| fast_fbm.get_noise_3d(black_box(x as f32), y as f32, z as f32))
                .sum::<f32>()
        });
    });
    group.finish();

    // The erosion node as the eroded preset sets it (3 octaves of fBm, 5 layers of gullies),
    // against a plain fBm node of 3 octaves: one point at a time and in batches.
    let sites: Vec<[f64; 2]> = Vec::new();
    let eroded = DensityField::new(
        &DensityNode::new(
            Eroded {
                seed_offset: 0,
                scale: 1.0,
                octaves: 3,
                persistence: 0.5,
                lacunarity: 2.0,
                depth: 0.15,
                gully_scale: 4.0,
                gully_octaves: 5,
                flat: 0.5,
            },
            [],
        ),
        42,
    )
    .expect("valid");
    let plain = DensityField::new(
        &DensityNode::new(
            DensityFbm {
                seed_offset: 0,
                scale: 1.0,
                octaves: 3,
                persistence: 0.5,
                lacunarity: 2.0,
                shape: Shape::Normal,
            },
            [],
        ),
        42,
    )
    .expect("valid");
    let mut group = c.benchmark_group("density");
    group.throughput(Throughput::Elements(n as u64));
    for (name, field) in [("Eroded", &eroded), ("Fbm", &plain)] {
        group.bench_function(format!("{name} node, scalar"), |b| {
            b.iter(|| {
                xs.iter()
                    .zip(&ys)
                    .map(|(&x, &y)| field.value(black_box(x), y, &sites))
                    .sum::<f64>()
            });
        });
        group.bench_function(format!("{name} node, batch"), |b| {
            b.iter(|| {
                field.values(black_box(&xs), &ys, &sites, &mut out);
                out[n - 1]
            });
        });
    }
    group.finish();

    // The multi-noise lookup over 50 biome boxes laid out as multi-noise tables are: five
    // temperature bands by five moisture bands by inland and coast (continentalness), erosion
    // and weirdness open, every fifth box a rarer variant with an offset that also wants high
    // weirdness; points spread over the whole space. Against the scan it is held to.
    let band = |k: usize, of: usize| {
        let width = 2.0 / of as f64;
        AxisRange::new(-1.0 + width * k as f64, -1.0 + width * (k + 1) as f64)
    };
    let boxes: Vec<BiomeBox> = (0..50)
        .map(|biome| {
            let mut ranges = [AxisRange::new(-1.0, 1.0); 5];
            ranges[0] = band(biome % 5, 5);
            ranges[1] = band(biome / 5 % 5, 5);
            ranges[2] = band(biome / 25, 2);
            let rare = biome % 5 == 4;
            if rare {
                ranges[4] = AxisRange::new(0.5, 1.0);
            }
            BiomeBox {
                biome,
                ranges,
                offset: if rare { 0.1 } else { 0.0 },
            }
        })
        .collect();
    let mut random = SeededRandom::new(11);
    let index = BiomeBoxIndex::new(boxes).expect("valid boxes");
    let points: Vec<ClimatePoint> = (0..n)
        .map(|_| std::array::from_fn(|_| random.next_float() * 2.0 - 1.0))
        .collect();
    let mut group = c.benchmark_group("multi_noise");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("nearest of 50 boxes, index", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|p| index.nearest(black_box(p)))
                .sum::<usize>()
        });
    });
    group.bench_function("nearest of 50 boxes, scan", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|p| index.nearest_by_scan(black_box(p)))
                .sum::<usize>()
        });
    });
    group.finish();

    let mut group = c.benchmark_group("domain_warp");
    group.throughput(Throughput::Elements(n as u64));
    for levels in [1, 2] {
        group.bench_function(format!("biome_core scalar, levels {levels}"), |b| {
            b.iter(|| {
                xs.iter()
                    .zip(&ys)
                    .map(|(&x, &y)| domain_warp(&ours, black_box(x), y, 4.0, 1.0, levels))
                    .sum::<f64>()
            });
        });
        group.bench_function(format!("biome_core batch, levels {levels}"), |b| {
            b.iter(|| {
                ours.domain_warp_points(black_box(&xs), &ys, 4.0, 1.0, levels, &mut out);
                out[n - 1]
            });
        });
    }
    group.finish();
}

fn world(c: &mut Criterion) {
    let world = WorldGenerator::new(WorldSettings::default()).expect("defaults are valid");
    let (xs, zs) = grid();
    let (xs, zs): (Vec<f64>, Vec<f64>) = (
        xs.iter().map(|x| x * 60.0).collect(),
        zs.iter().map(|z| z * 60.0).collect(),
    );
    let mut group = c.benchmark_group("world");
    group.throughput(Throughput::Elements(xs.len() as u64));
    group.bench_function("WorldGenerator::sample", |b| {
        b.iter(|| {
            xs.iter()
                .zip(&zs)
                .map(|(&x, &z)| world.sample(black_box(x), z).height)
                .sum::<f64>()
        });
    });
    group.bench_function("WorldGenerator::sample_points", |b| {
        b.iter(|| world.sample_points(black_box(&xs), &zs).len());
    });
    group.finish();

    // A ray skimming 1 km of hills that it never meets: every tile under it is walked.
    let mut group = c.benchmark_group("rays");
    group.throughput(Throughput::Elements(1));
    let layout = ChunkLayout::default();
    let ray = GroundRay {
        origin: [300.0, 2_000.0, -450.0],
        direction: [0.8, 0.0, 0.6],
    };
    group.bench_function("cast_ray over 1 km, no hit", |b| {
        b.iter(|| world.cast_ray(black_box(ray), 1_000.0, &layout));
    });
    // The same over the `caves` preset with its volume everywhere (each tile asks whether the
    // volume's band reaches the ray), then the queries that rebuild the volume's surface
    // around a point: the top at a point, a floor under one, a ray down into it; and the
    // volume's value at a point (a lattice cell's eight corners and four grounds).
    let mut caves = WorldSettings::from_ron(include_str!("../../assets/presets/caves.ron"))
        .expect("the caves preset is valid");
    if let Some(volume) = caves.terrain.volume.as_mut() {
        volume.mask = DensityNode::constant(1.0);
    }
    let caves = WorldGenerator::new(caves).expect("the caves preset is valid");
    group.bench_function("cast_ray over 1 km, no hit, volume everywhere", |b| {
        b.iter(|| caves.cast_ray(black_box(ray), 1_000.0, &layout));
    });
    let mut k = 0_u32;
    let mut next_point = || {
        k = k.wrapping_add(1);
        // Spread over a few km, so no two queries share a tile.
        let (x, z) = (f64::from(k % 613) * 7.3, f64::from(k / 613 % 409) * 11.9);
        (x, z)
    };
    group.bench_function("ground_top, volume everywhere", |b| {
        b.iter(|| {
            let (x, z) = next_point();
            caves.ground_top(black_box(x), z, &layout)
        });
    });
    // 3 units under the ground, worked out before timing.
    let under: Vec<[f64; 3]> = (0..1024)
        .map(|_| {
            let (x, z) = next_point();
            [x, caves.height_at(x, z) - 3.0, z]
        })
        .collect();
    let mut n = 0;
    group.bench_function("solid_at near the ground, volume everywhere", |b| {
        b.iter(|| {
            n = (n + 1) % under.len();
            let [x, y, z] = under[n];
            caves.solid_at(black_box(x), y, z)
        });
    });
    group.bench_function("cast_ray 60 units down, volume everywhere", |b| {
        b.iter(|| {
            let (x, z) = next_point();
            let down = GroundRay {
                origin: [x, caves.height_at(x, z) + 30.0, z],
                direction: [0.3, -1.0, 0.2],
            };
            caves.cast_ray(black_box(down), 60.0, &layout)
        });
    });
    group.finish();

    let mut group = c.benchmark_group("chunk");
    group.throughput(Throughput::Elements(1));
    let mut k = 0;
    chunk_row(
        &mut group,
        "build_chunk 64x64 with colours, normals, trees",
        &world,
        &layout,
        &mut k,
    );
    // The same chunks in the `eroded` preset's world (the default world with erosion for its
    // terrain), against the row above.
    let eroded = WorldSettings::from_ron(include_str!("../../assets/presets/eroded.ron"))
        .expect("the eroded preset is valid");
    let eroded = WorldGenerator::new(eroded).expect("the eroded preset is valid");
    chunk_row(
        &mut group,
        "build_chunk 64x64, eroded preset",
        &eroded,
        &layout,
        &mut k,
    );
    // The same chunks with rivers and lakes carved in (the `rivers` preset: the default world
    // with rivers on), their river tiles computed on the first pass and kept after.
    let rivers = preset(include_str!("../../assets/presets/rivers.ron"));
    chunk_row(
        &mut group,
        "build_chunk 64x64, rivers preset",
        &rivers,
        &layout,
        &mut k,
    );
    // And with the multi-noise biome source picking the region biomes.
    let multi_noise = preset(include_str!("../../assets/presets/multi_noise.ron"));
    chunk_row(
        &mut group,
        "build_chunk 64x64, multi_noise preset",
        &multi_noise,
        &layout,
        &mut k,
    );
    // With the `caves` preset's volume: the same chunks (volume chunks where its patches lie,
    // the rest height fields), then every chunk a volume chunk (its mask 1 everywhere), the
    // cost of a chunk inside a patch.
    let caves = WorldSettings::from_ron(include_str!("../../assets/presets/caves.ron"))
        .expect("the caves preset is valid");
    let mut everywhere = caves.clone();
    if let Some(volume) = everywhere.terrain.volume.as_mut() {
        volume.mask = DensityNode::constant(1.0);
    }
    for (name, settings) in [
        ("caves preset", caves),
        ("caves preset, volume everywhere", everywhere),
    ] {
        let world = WorldGenerator::new(settings).expect("the caves preset is valid");
        chunk_row(
            &mut group,
            &format!("build_chunk 64x64, {name}"),
            &world,
            &layout,
            &mut k,
        );
    }
    group.finish();

    // What a chunk costs the first time its river tile is needed: a new world each time (its
    // tile cache empty), one chunk built. A tile is 16 river nodes (2.56 km) a side and serves
    // every chunk and level of detail in it.
    let mut group = c.benchmark_group("rivers");
    group.throughput(Throughput::Elements(1));
    let settings = rivers.settings().clone();
    let mut far = 0;
    group.bench_function("first chunk of a river tile (network from nothing)", |b| {
        b.iter(|| {
            far += 1;
            let world = WorldGenerator::new(settings.clone()).expect("the rivers preset is valid");
            world
                .build_chunk(ChunkCoord::new(far * 40, -far * 20), black_box(&layout))
                .expect("the default layout is valid")
        });
    });
    group.finish();

    // Scatter on one chunk's rectangle, per layer, in the default world.
    let mut group = c.benchmark_group("scatter");
    group.throughput(Throughput::Elements(1));
    let names: Vec<String> = (world.settings().scatter.layers.iter())
        .map(|layer| layer.name.to_string())
        .collect();
    for (kind, name) in names.iter().enumerate() {
        let row = format!("{name} on a 128 m chunk");
        scatter_row(&mut group, &row, &world, kind, &layout, &mut k);
    }
    // A layer on cave floors, 8 units apart in every biome: over the `caves` preset (patches of
    // caves), and with its volume everywhere (every spot probed, most finding a floor).
    let caves = WorldSettings::from_ron(include_str!("../../assets/presets/caves.ron"))
        .expect("the caves preset is valid");
    let mut everywhere = caves.clone();
    if let Some(volume) = everywhere.terrain.volume.as_mut() {
        volume.mask = DensityNode::constant(1.0);
    }
    for (name, mut settings) in [
        ("caves preset", caves),
        ("caves preset, volume everywhere", everywhere),
    ] {
        settings.scatter.layers.push(ScatterLayer {
            ground: ScatterGround::CaveFloor,
            ..ScatterLayer::new("ore").expect("a layer name")
        });
        for biome in &mut settings.biome_table.biomes {
            biome.scatter.push(ScatterSpacing::new("ore", 8.0));
        }
        let ore = settings.scatter.layer_index("ore").expect("just added");
        let world = WorldGenerator::new(settings).expect("the caves preset is valid");
        let row = format!("cave floor layer 8 apart on a 128 m chunk, {name}");
        scatter_row(&mut group, &row, &world, ore, &layout, &mut k);
    }
    group.finish();
}

/// 10,000 edits of every shape within the square kilometre the chunk rows cycle over: brushes
/// of 3 to 20 units, pads, roads of two to four points, clearings.
fn many_edits() -> Vec<EditShape> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut within = move |low: f64, high: f64| low + (high - low) * unit();
    (0..10_000)
        .map(|k| {
            let center = [within(-512.0, 512.0), within(-512.0, 512.0)];
            match k % 10 {
                0..=2 => EditShape::Brush {
                    center,
                    radius: within(3.0, 20.0),
                    falloff: 0.5,
                    op: BrushOp::Raise(within(-8.0, 8.0)),
                },
                3..=5 => EditShape::Brush {
                    center,
                    radius: within(3.0, 20.0),
                    falloff: 0.5,
                    op: BrushOp::Flatten(within(0.0, 30.0)),
                },
                6 | 7 => EditShape::Pad {
                    center,
                    half_size: [within(3.0, 12.0), within(3.0, 12.0)],
                    height: within(0.0, 30.0),
                    skirt: within(2.0, 8.0),
                },
                8 => EditShape::Path {
                    points: (0..2 + k % 3)
                        .map(|p| {
                            let t = f64::from(p) * 20.0;
                            [center[0] + t, within(0.0, 20.0), center[1] + t * 0.5]
                        })
                        .collect(),
                    width: 5.0,
                    skirt: 4.0,
                    surface: None,
                },
                _ => EditShape::Clearing {
                    center,
                    radius: within(3.0, 15.0),
                },
            }
        })
        .collect()
}

/// A chunk's build with 10,000 edits within the square kilometre its rows cycle over (8 × 8
/// chunks of 128 units), against the same chunks without; and what the edits' set takes.
/// A volume of caves under the default world's surface, sampled over one chunk's columns (64 × 64
/// tiles of 2 units, with the apron surface nets needs) in a 48-unit band, then meshed.
fn volume(c: &mut Criterion) {
    let world = WorldGenerator::new(WorldSettings::default()).expect("defaults are valid");
    let fbm3 = |seed_offset, scale, vertical, shape| {
        DensityNode::new(
            Fbm3 {
                seed_offset,
                scale,
                octaves: 3,
                persistence: 0.5,
                lacunarity: 2.0,
                vertical,
                shape,
            },
            [],
        )
    };
    let overhangs = DensityNode::new(
        Multiply {},
        [
            fbm3(1, 0.03, 1.0, Shape::Normal),
            DensityNode::constant(12.0),
        ],
    );
    let surface = DensityNode::new(Add {}, [DensityNode::new(Ground {}, []), overhangs]);
    let tunnels = Tunnels {
        seed_offset: 3,
        scale: 0.02,
        vertical: 2.0,
        radius: 0.08,
    };
    let walls = DensityNode::new(
        Multiply {},
        [DensityNode::new(tunnels, []), DensityNode::constant(40.0)],
    );
    let root = DensityNode::new(Min {}, [surface, walls]);
    let field = DensityField::volume(&root, 42, &DensityFunctions::default()).expect("valid");
    let (side, layers, step) = (66_usize, 24_usize, 2.0);
    let origin = [120_i64, 0, -340];
    let mut columns = Vec::with_capacity(side * side);
    for k in 0..side {
        for i in 0..side {
            let x = (origin[0] + i as i64) as f64 * step;
            let z = (origin[2] + k as i64) as f64 * step;
            columns.push((x, z, world.sample(x, z).height));
        }
    }
    let low = columns.iter().map(|c| c.2).fold(f64::INFINITY, f64::min) - 24.0;
    let origin = [origin[0], (low / step).floor() as i64, origin[2]];
    let count = side * side * layers;
    let (mut xs, mut ys, mut zs, mut grounds) = (
        Vec::with_capacity(count),
        Vec::with_capacity(count),
        Vec::with_capacity(count),
        Vec::with_capacity(count),
    );
    for j in 0..layers {
        for &(x, z, ground) in &columns {
            xs.push(x);
            ys.push((origin[1] + j as i64) as f64 * step);
            zs.push(z);
            grounds.push(ground);
        }
    }
    let points = VolumePoints {
        xs: &xs,
        ys: &ys,
        zs: &zs,
        grounds: &grounds,
    };
    let sites: Vec<[f64; 2]> = Vec::new();
    let mut values = vec![0.0; count];
    let mut group = c.benchmark_group("volume");
    group.throughput(Throughput::Elements(1));
    group.bench_function("caves volume, 66x66x24 samples", |b| {
        b.iter(|| {
            field.volume_values(black_box(points), &sites, &mut values);
            values[count - 1]
        });
    });
    let sampled = SampledVolume {
        origin,
        step,
        size: [side, layers, side],
        values: &values,
    };
    let owned = OwnedEdges {
        from: [1; 3],
        to: [side - 1, layers - 1, side - 1],
    };
    let triangles = mesh_volume(&sampled, owned).expect("valid").indices.len() / 3;
    println!("volume: {triangles} triangles in the meshed block");
    group.bench_function("surface nets of those samples", |b| {
        b.iter(|| mesh_volume(black_box(&sampled), owned).map(|m| m.indices.len()));
    });
    group.finish();
}

fn edits(c: &mut Criterion) {
    let plain = WorldGenerator::new(WorldSettings::default()).expect("defaults are valid");
    let set = EditSet::new(many_edits()).expect("the edits are valid");
    let bytes_per_edit = set.memory_bytes() as f64 / 10_000.0;
    eprintln!(
        "10,000 edits within 1 km²: {} bytes in their set, {bytes_per_edit:.0} an edit",
        set.memory_bytes(),
    );
    let edited = plain.clone().with_edits(std::sync::Arc::new(set));
    let layout = ChunkLayout::default();
    let mut group = c.benchmark_group("edits");
    group.throughput(Throughput::Elements(1));
    for (name, world) in [("no edits", &plain), ("10,000 edits within 1 km²", &edited)] {
        let mut k = 0;
        chunk_row(
            &mut group,
            &format!("build_chunk 64x64, {name}"),
            world,
            &layout,
            &mut k,
        );
    }
    // What a change of the log costs the plugin's main thread at this size: a new edit
    // extends the generator's set (the index shared); any other change indexes it anew.
    let mut log = EditLog::new();
    for edit in many_edits() {
        log.push(edit).expect("the edits are valid");
    }
    let indexed = log.edit_set();
    let brush = EditShape::Brush {
        center: [10.0, 10.0],
        radius: 6.0,
        falloff: 0.5,
        op: BrushOp::Raise(1.0),
    };
    group.bench_function("EditSet::extended by one edit, 10,000 edits", |b| {
        b.iter(|| black_box(&indexed).extended(vec![brush.clone()]));
    });
    group.bench_function("EditLog::edit_set, 10,000 edits", |b| {
        b.iter(|| black_box(&log).edit_set());
    });
    group.finish();
    // Criterion measures one world after the other, and this machine's speed drifts between
    // them: the ratio is also taken with the two interleaved, a round of the 64 chunks each.
    let round = |world: &WorldGenerator| {
        let start = std::time::Instant::now();
        for k in 0..64 {
            black_box(
                world
                    .build_chunk(ChunkCoord::new(k % 8 - 4, k / 8 - 4), &layout)
                    .expect("the default layout is valid"),
            );
        }
        start.elapsed().as_secs_f64() / 64.0
    };
    let mut ratios: Vec<f64> = (0..40)
        .map(|_| {
            let none = round(&plain);
            round(&edited) / none
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    eprintln!(
        "RESULT {{\"config\": \"edits, build_chunk 64x64\", \"ratio_median\": {:.2}, \
         \"ratio_p90\": {:.2}, \"bytes_per_edit\": {:.0}}}",
        ratios[ratios.len() / 2],
        ratios[ratios.len() * 9 / 10],
        bytes_per_edit
    );
}

/// A row of `group` building 64 chunks around `world`'s origin in turn, a different one each
/// time so caches do not flatter the figure; `turn` carries on from row to row.
fn chunk_row(
    group: &mut BenchmarkGroup<'_, WallTime>,
    row: &str,
    world: &WorldGenerator,
    layout: &ChunkLayout,
    turn: &mut i32,
) {
    group.bench_function(row, |b| {
        b.iter(|| {
            *turn = (*turn + 1) % 64;
            world
                .build_chunk(
                    ChunkCoord::new(i64::from(*turn % 8 - 4), i64::from(*turn / 8 - 4)),
                    black_box(layout),
                )
                .expect("the default layout is valid")
        });
    });
}

/// A row of `group` scattering `layer` over 64 chunks around `world`'s origin in turn, as
/// [`chunk_row`] builds them.
fn scatter_row(
    group: &mut BenchmarkGroup<'_, WallTime>,
    row: &str,
    world: &WorldGenerator,
    layer: usize,
    layout: &ChunkLayout,
    turn: &mut i32,
) {
    let size = layout.chunk_size();
    group.bench_function(row, |b| {
        b.iter(|| {
            *turn = (*turn + 1) % 64;
            let min = [
                f64::from(*turn % 8 - 4) * size,
                f64::from(*turn / 8 - 4) * size,
            ];
            world
                .scatter_in_rect(layer, min, [min[0] + size, min[1] + size], layout)
                .expect("a chunk is within the limit")
                .len()
        });
    });
}

fn preset(text: &str) -> WorldGenerator {
    let settings = WorldSettings::from_ron(text).expect("the shipped presets are valid");
    WorldGenerator::new(settings).expect("the shipped presets are valid")
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = noise_and_fbm, world, volume, edits
}
criterion_main!(benches);

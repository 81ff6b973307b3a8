//! The multi-noise biome source as a world setting: a source made from the biome table picks
//! what the table picks (chunk bytes included), the shipped preset places every region by the
//! box a brute-force scan finds for its site, and bad sources are refused by field path.

use std::collections::HashSet;

use biome_core::generator::BiomeSource;
use biome_core::multi_noise::{AxisRange, BiomeBox, BiomeBoxIndex, MultiNoise};
use biome_core::tutorial::{SeededRandom, pick_biome};
use biome_core::{BiomeTable, RegionId, WorldGenerator, WorldSettings};
use biome_core::{ChunkCoord, ChunkLayout};

fn multi_noise_preset() -> WorldSettings {
    WorldSettings::from_ron(include_str!("../../../assets/presets/multi_noise.ron"))
        .expect("the multi_noise preset is valid")
}

#[test]
fn a_source_made_from_the_table_picks_what_the_table_picks() {
    let mut random = SeededRandom::new(8);
    let tables = [
        BiomeTable::default(),
        BiomeTable {
            heat_limits: vec![0.1, 0.35, 0.5],
            wet_limits: vec![0.7],
            ..BiomeTable::default()
        },
        // Thresholds at the ends: a row no temperature falls in, and a column only 1 does.
        BiomeTable {
            heat_limits: vec![0.0, 0.5],
            wet_limits: vec![0.2, 1.0],
            ..BiomeTable::default()
        },
    ];
    for table in tables {
        let source = MultiNoise::from_table(&table);
        assert_eq!(source.boxes.len(), table.expected_len());
        let index = BiomeBoxIndex::new(source.boxes.clone()).unwrap();
        // Random values, the thresholds themselves and the values just below them, the ends.
        let mut values: Vec<f64> = (0..200).map(|_| random.next_float()).collect();
        for &limit in table.heat_limits.iter().chain(&table.wet_limits) {
            values.extend([limit, limit.next_down(), limit.next_up()]);
        }
        values.extend([0.0, 1.0]);
        // The climate gives values from 0 to 1.
        values.retain(|v| (0.0..=1.0).contains(v));
        for &t in &values {
            for &m in &values {
                let extra = [0, 1, 2].map(|_| (random.next_float() - 0.5) * 3.0);
                let point = [t, m, extra[0], extra[1], extra[2]];
                let found = index.boxes()[index.nearest(&point)].biome;
                assert_eq!(
                    found,
                    pick_biome(t, m, &table.heat_limits, &table.wet_limits),
                    "{point:?}"
                );
            }
        }
    }

    // A whole world with the table as a multi-noise source builds the default world's bytes.
    let table_world = WorldGenerator::new(WorldSettings::default()).unwrap();
    let source_world = WorldGenerator::new(WorldSettings {
        biome_source: BiomeSource::MultiNoise(MultiNoise::default()),
        ..WorldSettings::default()
    })
    .unwrap();
    let layout = ChunkLayout::default();
    for coord in [
        ChunkCoord::new(0, 0),
        ChunkCoord::new(7, -3),
        ChunkCoord::new(-20, 31),
    ] {
        assert_eq!(
            table_world.build_chunk(coord, &layout).unwrap(),
            source_world.build_chunk(coord, &layout).unwrap(),
            "chunk {coord:?}"
        );
    }
}

#[test]
fn the_preset_places_every_region_by_the_box_its_site_fits_best() {
    let settings = multi_noise_preset();
    let BiomeSource::MultiNoise(source) = &settings.biome_source else {
        panic!("the multi_noise preset uses the multi-noise source");
    };
    let scan = BiomeBoxIndex::new(source.boxes.clone()).unwrap();
    let world = WorldGenerator::new(settings.clone()).unwrap();
    let mut seen = HashSet::new();
    // 60 × 60 regions: about 19 km a side with the default cell size.
    for x in -30..30 {
        for z in -30..30 {
            let region = RegionId { x, z };
            let [sx, sz] = world.regions().site(region);
            let point = world.climate_point(sx, sz).expect("a multi-noise world");
            let expected = scan.boxes()[scan.nearest_by_scan(&point)].biome;
            let biome = world.region_biome(region);
            assert_eq!(biome, expected, "region {region:?} at {point:?}");
            seen.insert(biome);
        }
    }
    // The preset shows its extra biomes, not only the table's.
    let extra = seen.iter().filter(|&&b| b >= 9).count();
    assert!(
        seen.len() >= 12 && extra >= 4,
        "biomes seen: {seen:?} of {}",
        settings.biome_table.biomes.len()
    );
    // The table source has no climate point.
    assert!(WorldGenerator::default().climate_point(0.0, 0.0).is_none());
}

#[test]
fn bad_sources_are_refused_by_field_path() {
    let refused = |change: fn(&mut MultiNoise, &mut BiomeTable)| {
        let mut settings = multi_noise_preset();
        let BiomeSource::MultiNoise(source) = &mut settings.biome_source else {
            unreachable!()
        };
        change(source, &mut settings.biome_table);
        settings.validate().unwrap_err()
    };
    assert_eq!(
        refused(|s, _| s.boxes[2].biome = 14).field,
        "biome_source.boxes[2].biome"
    );
    assert_eq!(
        refused(|s, _| s.boxes[1].ranges[3] = AxisRange::new(0.5, -0.5)).field,
        "biome_source.boxes[1].erosion"
    );
    assert_eq!(
        refused(|s, _| s.boxes[0].offset = -1.0).field,
        "biome_source.boxes[0].offset"
    );
    assert_eq!(refused(|s, _| s.boxes.clear()).field, "biome_source.boxes");
    assert_eq!(
        refused(|s, _| s.weirdness = biome_core::DensityNode::constant(1e9)).field,
        "biome_source.weirdness.value"
    );
    assert_eq!(refused(|_, t| t.biomes.clear()).field, "biome_table.biomes");
    // A multi-noise source takes any number of biomes; the table needs its rows × columns.
    let mut settings = multi_noise_preset();
    assert_eq!(settings.biome_table.biomes.len(), 14);
    settings.validate().unwrap();
    settings.biome_source = BiomeSource::Table;
    assert_eq!(settings.validate().unwrap_err().field, "biome_table.biomes");
}

#[test]
fn boxes_read_by_axis_name_and_round_trip() {
    let settings = WorldSettings::from_ron(
        "(biome_source: MultiNoise((boxes: [(biome: 3, erosion: (-0.5, 0.25), offset: 0.5)])))",
    )
    .unwrap();
    let BiomeSource::MultiNoise(source) = &settings.biome_source else {
        panic!("a multi-noise source");
    };
    assert_eq!(
        source.boxes,
        [BiomeBox {
            biome: 3,
            ranges: [
                AxisRange::ANY,
                AxisRange::ANY,
                AxisRange::ANY,
                AxisRange::new(-0.5, 0.25),
                AxisRange::ANY
            ],
            offset: 0.5,
        }]
    );
    // The axes left out are the default source's.
    assert_eq!(source.erosion, MultiNoise::default().erosion);
    let preset = multi_noise_preset();
    assert_eq!(
        WorldSettings::from_ron(&preset.to_ron().unwrap()).unwrap(),
        preset
    );
}

//! Every validation error names its field; settings and presets survive a RON round trip.

use biome_core::density::{DensityNode, DensityOp};
use biome_core::{PresetError, WorldSettings};

#[track_caller]
fn rejects(field: &str, change: impl FnOnce(&mut WorldSettings)) {
    let mut settings = WorldSettings::default();
    change(&mut settings);
    let error = settings.validate().expect_err("the change must be refused");
    assert_eq!(error.field, field, "wrong field named: {error}");
    assert!(error.to_string().starts_with(field), "{error}");
}

fn warp(settings: &mut WorldSettings) -> &mut DensityNode {
    let id = settings
        .terrain
        .density
        .walk()
        .iter()
        .position(|e| matches!(e.node.op, DensityOp::Warp(_)))
        .expect("the default stack has a warp");
    settings.terrain.density.node_mut(id).unwrap()
}

fn op(settings: &mut WorldSettings, id: usize) -> Option<&mut DensityOp> {
    settings
        .terrain
        .density
        .node_mut(id)
        .map(|node| &mut node.op)
}

#[test]
fn defaults_and_tutorial_stack_are_valid() {
    WorldSettings::default().validate().unwrap();
    let mut settings = WorldSettings::default();
    settings.terrain.density = DensityNode::tutorial_example();
    settings.validate().unwrap();
}

#[test]
fn every_bad_value_names_its_field() {
    rejects("seed", |s| s.seed = 1 << 60);
    rejects("terrain.height_scale", |s| s.terrain.height_scale = 0.0);
    rejects("terrain.height_scale", |s| {
        s.terrain.height_scale = f64::NAN;
    });
    rejects("climate.scale", |s| s.climate.scale = -1.0);
    rejects("climate.chill", |s| s.climate.chill = f64::INFINITY);
    rejects("biome_table.heat_limits[1]", |s| {
        s.biome_table.heat_limits = vec![0.6, 0.4];
    });
    rejects("biome_table.wet_limits[0]", |s| {
        s.biome_table.wet_limits[0] = 1.5;
    });
    rejects("biome_table.biomes", |s| {
        s.biome_table.biomes.pop();
    });
    rejects("biome_table.biomes", |s| {
        s.biome_table.heat_limits.push(0.8);
    });
    rejects("biome_table.biomes[2].tree_density", |s| {
        s.biome_table.biomes[2].tree_density = 2.0;
    });
    rejects("biome_table.biomes[0].name", |s| {
        s.biome_table.biomes[0].name = " ".to_owned();
    });
    rejects("biome_table.biomes[1].trees[0].weight", |s| {
        s.biome_table.biomes[1].trees[0].weight = -1.0;
    });
    rejects("regions.cell_size", |s| s.regions.cell_size = 0.0);
    rejects("regions.jitter", |s| s.regions.jitter = 1.5);
    rejects("regions.wobble", |s| s.regions.wobble = -3.0);
    rejects("regions.wobble_scale", |s| {
        s.regions.wobble_scale = f64::NAN;
    });
    rejects("regions.blend_width", |s| {
        s.regions.blend_width = f64::NEG_INFINITY;
    });
    rejects("surface.deep_water", |s| s.surface.deep_water = 0.1);
    rejects("surface.beach", |s| s.surface.beach = -0.1);
    rejects("surface.snow_temperature", |s| {
        s.surface.snow_temperature = 1.1;
    });
    rejects("trees.spacing", |s| s.trees.spacing = 0.0);
    rejects("trees.jitter", |s| s.trees.jitter = 1.0);
    rejects("trees.max_slope_degrees", |s| {
        s.trees.max_slope_degrees = 91.0;
    });
    rejects("trees.min_scale", |s| s.trees.min_scale = 2.0);
    rejects("trees.clumping", |s| s.trees.clumping = f64::NAN);
}

#[test]
fn density_errors_name_the_node_path() {
    let mut settings = WorldSettings::default();
    settings.terrain.density = DensityNode::tutorial_example();
    let check = |settings: &WorldSettings, field: &str| {
        assert_eq!(settings.validate().unwrap_err().field, field);
    };
    let mut bad = settings.clone();
    if let Some(DensityOp::Fbm(fbm)) = op(&mut bad, 3) {
        fbm.octaves = 0;
    }
    check(&bad, "terrain.density.a.input.input.octaves");
    let mut bad = settings.clone();
    if let Some(DensityOp::Fbm(fbm)) = op(&mut bad, 3) {
        fbm.octaves = 17;
    }
    check(&bad, "terrain.density.a.input.input.octaves");
    let mut bad = settings.clone();
    if let Some(DensityOp::Fbm(fbm)) = op(&mut bad, 3) {
        fbm.scale = f64::NAN;
    }
    check(&bad, "terrain.density.a.input.input.scale");
    let mut bad = settings.clone();
    if let Some(DensityOp::Clamp(clamp)) = op(&mut bad, 1) {
        clamp.low = 0.9;
    }
    check(&bad, "terrain.density.a.low");
    let mut bad = settings.clone();
    if let Some(DensityOp::Cell(cell)) = op(&mut bad, 4) {
        cell.radius = 0.0;
    }
    check(&bad, "terrain.density.b.radius");
    let mut bad = settings.clone();
    if let Some(DensityOp::Mix(mix)) = op(&mut bad, 0) {
        mix.amount = 1.5;
    }
    check(&bad, "terrain.density.amount");
    let mut bad = WorldSettings::default();
    if let DensityOp::Warp(warp) = &mut warp(&mut bad).op {
        warp.levels = 3;
    }
    assert!(bad.validate().unwrap_err().field.ends_with(".levels"));
}

#[test]
fn settings_round_trip_through_ron() {
    let mut settings = WorldSettings {
        seed: -123_456_789_012,
        ..WorldSettings::default()
    };
    settings.terrain.density.node_mut(1).unwrap().enabled = false;
    let text = settings.to_ron().unwrap();
    assert_eq!(WorldSettings::from_ron(&text).unwrap(), settings);
}

#[test]
fn partial_presets_take_defaults_and_typos_are_refused() {
    let settings = WorldSettings::from_ron("(seed: 9, regions: (cell_size: 500.0))").unwrap();
    assert_eq!(settings.seed, 9);
    assert_eq!(settings.regions.cell_size, 500.0);
    assert_eq!(settings.climate, WorldSettings::default().climate);
    assert!(matches!(
        WorldSettings::from_ron("(sead: 9)"),
        Err(PresetError::Parse(_))
    ));
    match WorldSettings::from_ron("(regions: (jitter: 3.0))") {
        Err(PresetError::Invalid(error)) => assert_eq!(error.field, "regions.jitter"),
        other => panic!("expected an invalid jitter, got {other:?}"),
    }
}

#[test]
fn shipped_presets_load_validate_and_round_trip() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/presets");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("assets/presets exists") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("ron") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let settings =
            WorldSettings::from_ron(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            WorldSettings::from_ron(&settings.to_ron().unwrap()).unwrap(),
            settings,
            "{}",
            path.display()
        );
        count += 1;
    }
    assert!(
        count >= 3,
        "expected the shipped presets in {}",
        dir.display()
    );
}

#[test]
fn default_preset_file_is_the_default_settings() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/presets/default.ron");
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(
        WorldSettings::from_ron(&text).unwrap(),
        WorldSettings::default()
    );
}

//! Density operations written in code ([`DensityFunction`]): registered in the settings, used in
//! the stack as `Custom` nodes, validated by their declared bound and held to it, seamless across
//! chunks, the same bits one point at a time and in batches, and named (never carried) by
//! presets.

use biome_core::density::{
    Add, Bounds, Custom, DensityField, DensityFunction, DensityFunctions, DensityNode, Shape,
};
use biome_core::{ChunkCoord, ChunkLayout, MeshStyle, WorldGenerator, WorldSettings, limits};

/// Terraces: the input rounded down to steps, with rims that wobble around each step.
#[derive(Debug)]
struct Terraces {
    step: f64,
}

impl DensityFunction for Terraces {
    fn value(&self, x: f64, z: f64, input: f64, seed: i64) -> f64 {
        let wobble = 0.1 * self.step * (libm::sin(x * 0.05 + seed as f64) * libm::cos(z * 0.05));
        ((input + wobble) / self.step).floor() * self.step
    }

    fn bound(&self, input: Bounds) -> Bounds {
        let wobble = 0.1 * self.step;
        Bounds::new(input.low - wobble - self.step, input.high + wobble)
    }
}

/// A function that breaks its word: it declares -1 to 1 and gives 50, -50 and NaN.
#[derive(Debug)]
struct Liar;

impl DensityFunction for Liar {
    fn value(&self, x: f64, _z: f64, _input: f64, _seed: i64) -> f64 {
        match (x.abs() as i64) % 3 {
            0 => 50.0,
            1 => -50.0,
            _ => f64::NAN,
        }
    }

    fn bound(&self, _input: Bounds) -> Bounds {
        Bounds::new(-1.0, 1.0)
    }
}

fn functions() -> DensityFunctions {
    DensityFunctions::new()
        .with("terraces", Terraces { step: 0.08 })
        .unwrap()
        .with("liar", Liar)
        .unwrap()
}

fn custom(name: &str, input: DensityNode) -> DensityNode {
    DensityNode::new(Custom::new(name).unwrap(), [input])
}

/// The default world with its hills terraced.
fn terraced() -> WorldSettings {
    let mut settings = WorldSettings {
        functions: functions(),
        ..WorldSettings::default()
    };
    let hills = std::mem::replace(&mut settings.terrain.density, DensityNode::constant(0.0));
    settings.terrain.density = custom("terraces", hills);
    settings
}

#[test]
fn a_registered_function_shapes_the_world_seamlessly() {
    let settings = terraced();
    let world = WorldGenerator::new(settings.clone()).unwrap();
    let plain = WorldGenerator::new(WorldSettings::default()).unwrap();
    let layout = ChunkLayout {
        tiles: 32,
        tile_size: 2.0,
        style: MeshStyle::Smooth,
    };
    let verts = layout.tiles as usize + 1;
    let mut differs = 0;
    for cz in -2..2 {
        for cx in -2..2 {
            let here = world.build_chunk(ChunkCoord::new(cx, cz), &layout).unwrap();
            let east = world
                .build_chunk(ChunkCoord::new(cx + 1, cz), &layout)
                .unwrap();
            let south = world
                .build_chunk(ChunkCoord::new(cx, cz + 1), &layout)
                .unwrap();
            for t in 0..verts {
                let (far_x, near_x) = (t * verts + verts - 1, t * verts);
                assert_eq!(here.world_position(far_x), east.world_position(near_x));
                assert_eq!(here.normals[far_x], east.normals[near_x]);
                let (far_z, near_z) = ((verts - 1) * verts + t, t);
                assert_eq!(here.world_position(far_z), south.world_position(near_z));
                assert_eq!(here.normals[far_z], south.normals[near_z]);
            }
            let before = plain.build_chunk(ChunkCoord::new(cx, cz), &layout).unwrap();
            differs += (0..here.positions.len())
                .filter(|&k| here.positions[k] != before.positions[k])
                .count();
        }
    }
    assert!(differs > 1000, "the terraces changed {differs} vertices");
}

#[test]
fn batches_give_the_bits_of_one_point_at_a_time() {
    let stack = DensityNode::new(
        Add {},
        [
            custom("terraces", DensityNode::fbm(0, 0.01, 4, Shape::Normal)),
            DensityNode::fbm(3, 0.002, 2, Shape::Ridged),
        ],
    );
    let field = DensityField::with_functions(&stack, 9, &functions()).unwrap();
    let sites: Vec<[f64; 2]> = vec![[0.0, 0.0]];
    let xs: Vec<f64> = (0..300).map(|k| f64::from(k) * 7.3 - 900.0).collect();
    let zs: Vec<f64> = (0..300).map(|k| f64::from(k) * -3.1 + 40.0).collect();
    let mut out = vec![0.0; xs.len()];
    field.values(&xs, &zs, &sites, &mut out);
    for k in 0..xs.len() {
        assert_eq!(
            out[k].to_bits(),
            field.value(xs[k], zs[k], &sites).to_bits()
        );
    }
}

#[test]
fn a_function_is_held_to_the_bound_it_declares() {
    let stack = custom("liar", DensityNode::constant(0.0));
    let functions = functions();
    assert_eq!(
        stack.validate_with(&functions).unwrap(),
        Bounds::new(-1.0, 1.0)
    );
    let field = DensityField::with_functions(&stack, 1, &functions).unwrap();
    let sites: Vec<[f64; 2]> = vec![[0.0, 0.0]];
    let xs: Vec<f64> = (0..30).map(f64::from).collect();
    let zs = vec![0.0; xs.len()];
    let mut out = vec![0.0; xs.len()];
    field.values(&xs, &zs, &sites, &mut out);
    for (k, &x) in xs.iter().enumerate() {
        let one = field.value(x, 0.0, &sites);
        assert_eq!(one.to_bits(), out[k].to_bits());
        assert!((-1.0..=1.0).contains(&one), "{one} at {x}");
    }
    // NaN reads as the low end, the rest as the nearest end.
    assert_eq!(
        out[..3],
        [1.0, -1.0, -1.0],
        "50, -50 and NaN held to the bound"
    );
    // In a world: every height finite and within the limits.
    let mut settings = terraced();
    settings.terrain.density = custom("liar", DensityNode::constant(0.0));
    let world = WorldGenerator::new(settings).unwrap();
    let chunk = world
        .build_chunk(ChunkCoord::new(0, 0), &ChunkLayout::default())
        .unwrap();
    assert!(
        chunk
            .positions
            .iter()
            .all(|p| p[1].is_finite() && limits::HEIGHT.contains(&f64::from(p[1])))
    );
}

#[test]
fn validation_names_unknown_functions_and_bounds_out_of_range() {
    // Not registered: the node's name field, with what is registered.
    let mut settings = terraced();
    settings.functions = DensityFunctions::new();
    let error = settings.validate().unwrap_err();
    assert_eq!(error.field, "terrain.density.name");
    assert!(error.reason.contains("\"terraces\""), "{}", error.reason);
    assert!(error.reason.contains("none"), "{}", error.reason);
    assert!(WorldGenerator::new(settings).is_err());

    // A bound past the density limit, or upside down: refused at that node.
    let huge = DensityFunctions::new()
        .with("terraces", Terraces { step: 1e9 })
        .unwrap();
    let mut settings = terraced();
    settings.functions = huge;
    let error = settings.validate().unwrap_err();
    assert_eq!(error.field, "terrain.density");
    assert!(error.reason.contains("Custom"), "{}", error.reason);

    #[derive(Debug)]
    struct Backwards;
    impl DensityFunction for Backwards {
        fn value(&self, _: f64, _: f64, _: f64, _: i64) -> f64 {
            0.0
        }
        fn bound(&self, _: Bounds) -> Bounds {
            Bounds::new(1.0, -1.0)
        }
    }
    let stack = DensityNode::new(
        Add {},
        [
            DensityNode::constant(0.5),
            custom("backwards", DensityNode::constant(0.0)),
        ],
    );
    let error = stack
        .validate_with(
            &DensityFunctions::new()
                .with("backwards", Backwards)
                .unwrap(),
        )
        .unwrap_err();
    assert_eq!(error.field, "b");

    // Names: letters, digits and underscores, at most 24.
    for bad in ["", "two words", "päth", &"x".repeat(25)] {
        let error = DensityFunctions::new().with(bad, Liar).unwrap_err();
        assert_eq!(error.field, "functions");
        assert!(Custom::new(bad).is_err());
    }
    assert!(Custom::new(&"x".repeat(24)).is_ok());

    // Switched off, a node needs no function: it passes its input through.
    let mut settings = terraced();
    settings.functions = DensityFunctions::new();
    settings.terrain.density.enabled = false;
    settings.validate().unwrap();
}

#[test]
fn presets_name_functions_and_load_with_them() {
    let settings = terraced();
    let text = settings.to_ron().unwrap();
    assert!(text.contains("Custom("), "{text}");
    assert!(text.contains("name: \"terraces\""), "{text}");
    // Without the functions the preset does not load, and says why.
    let error = WorldSettings::from_ron(&text).unwrap_err().to_string();
    assert!(error.contains("terraces"), "{error}");
    // With them it loads to the same settings.
    let loaded = WorldSettings::from_ron_with(&text, &settings.functions).unwrap();
    assert_eq!(loaded, settings);
    // A name that is not a name is a parse error.
    let bad = text.replace("\"terraces\"", "\"no spaces\"");
    assert!(WorldSettings::from_ron_with(&bad, &settings.functions).is_err());
    // Settings differ when their functions do: the same names, other objects.
    let mut other = settings.clone();
    other.functions = functions();
    assert_ne!(other, settings);
}

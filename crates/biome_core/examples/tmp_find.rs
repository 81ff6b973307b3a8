//! tmp
use biome_core::{ChunkLayout, WorldGenerator, WorldSettings};
fn main() {
    let caves = WorldSettings::from_ron(include_str!("../../../assets/presets/caves.ron")).unwrap();
    let w = WorldGenerator::new(caves).unwrap();
    let layout = ChunkLayout::default();
    let mut found = 0;
    'outer: for j in 0..400 {
        for i in 0..400 {
            let (x, z) = (-1100.0 + 2.0 * i as f64, -950.0 + 2.0 * j as f64);
            let top = w.ground_top(x, z, &layout).height;
            let depth = |k: i32| top - 0.5 * k as f64;
            let solid = |y: f64| w.solid_at(x, y, z) > 0.0;
            let Some(roof) = (2..80).find(|&k| !solid(depth(k)) && solid(depth(k - 1))) else {
                continue;
            };
            if roof < 12 {
                continue;
            }
            let Some(floor) = w.ground_below(x, depth(roof), z, &layout) else {
                continue;
            };
            if depth(roof) - floor.height >= 3.0 && floor.normal[1] > 0.97 {
                println!(
                    "cave {x} {z} rock {} room {} floor {}",
                    0.5 * roof as f64,
                    depth(roof) - floor.height,
                    floor.height
                );
                found += 1;
                if found > 12 {
                    break 'outer;
                }
            }
        }
    }
}

//! Exports a rectangle of a world for external tools, without a window: a 16-bit heightmap (PNG
//! and little-endian RAW), a biome map (PNG in the biomes' colours and RAW indices) and a JSON
//! legend that maps both back to world units and biome names.
//!
//! ```text
//! cargo run -p biome_core --release --example export -- --seed 42 --size 2048 --scale 2 --out export
//! ```
//!
//! Options: `--seed N`, `--preset FILE.ron`, `--center X,Z` (default 0,0), `--size PIXELS` or
//! `--size WIDTH,HEIGHT`, `--scale UNITS_PER_PIXEL` (default 1), `--out FOLDER` (default
//! `export`). Rows are sampled on every core; a progress bar counts them.

use std::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use biome_core::{WorldGenerator, WorldSettings};

struct Options {
    seed: Option<i64>,
    preset: Option<PathBuf>,
    center: [f64; 2],
    size: [usize; 2],
    scale: f64,
    out: PathBuf,
}

fn pair<T: std::str::FromStr>(text: &str, flag: &str) -> Result<[T; 2], String>
where
    T::Err: std::fmt::Display,
{
    let parse = |s: &str| s.trim().parse::<T>().map_err(|e| format!("{flag}: {e}"));
    match text.split_once(',') {
        Some((a, b)) => Ok([parse(a)?, parse(b)?]),
        None => Err(format!("{flag} takes two values, like 10,20")),
    }
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        seed: None,
        preset: None,
        center: [0.0, 0.0],
        size: [1024, 1024],
        scale: 1.0,
        out: PathBuf::from("export"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--seed" => options.seed = Some(value()?.parse().map_err(|e| format!("--seed: {e}"))?),
            "--preset" => options.preset = Some(PathBuf::from(value()?)),
            "--center" => options.center = pair(&value()?, "--center")?,
            "--size" => {
                let text = value()?;
                options.size = if text.contains(',') {
                    pair(&text, "--size")?
                } else {
                    let side = text.parse().map_err(|e| format!("--size: {e}"))?;
                    [side, side]
                };
            }
            "--scale" => options.scale = value()?.parse().map_err(|e| format!("--scale: {e}"))?,
            "--out" => options.out = PathBuf::from(value()?),
            other => return Err(format!("unknown option {other}")),
        }
    }
    let [w, h] = options.size;
    if !(1..=16_384).contains(&w) || !(1..=16_384).contains(&h) {
        return Err("--size: each side must be from 1 to 16384 pixels".to_owned());
    }
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return Err("--scale must be a positive number".to_owned());
    }
    Ok(options)
}

/// What the sampling gives per pixel, row by row from the smallest z.
struct Maps {
    heights: Vec<f64>,
    biomes: Vec<u8>,
}

/// Samples every pixel centre, one row at a time on every core, drawing a progress bar.
fn sample(generator: &WorldGenerator, options: &Options) -> Maps {
    let [width, height] = options.size;
    let start = [
        options.center[0] - width as f64 * options.scale / 2.0,
        options.center[1] - height as f64 * options.scale / 2.0,
    ];
    let mut heights = vec![0.0; width * height];
    let mut biomes = vec![0u8; width * height];
    let done = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    // One band of rows per core.
    let band = height.div_ceil(threads);
    let xs: Vec<f64> = (0..width)
        .map(|i| start[0] + (i as f64 + 0.5) * options.scale)
        .collect();
    std::thread::scope(|scope| {
        let bands = heights
            .chunks_mut(band * width)
            .zip(biomes.chunks_mut(band * width));
        for (k, (band_heights, band_biomes)) in bands.enumerate() {
            let (done, xs) = (&done, &xs);
            scope.spawn(move || {
                let rows = band_heights
                    .chunks_mut(width)
                    .zip(band_biomes.chunks_mut(width));
                for (r, (row_heights, row_biomes)) in rows.enumerate() {
                    let z = start[1] + ((k * band + r) as f64 + 0.5) * options.scale;
                    let samples = generator.sample_points(xs, &vec![z; width]);
                    for ((h, b), s) in row_heights
                        .iter_mut()
                        .zip(row_biomes.iter_mut())
                        .zip(&samples)
                    {
                        *h = s.height;
                        *b = s.biome as u8;
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        let mut shown = usize::MAX;
        loop {
            let rows_done = done.load(Ordering::Relaxed);
            if rows_done != shown {
                shown = rows_done;
                let filled = rows_done * 40 / height;
                eprint!(
                    "\r[{}{}] {rows_done}/{height} rows",
                    "#".repeat(filled),
                    " ".repeat(40 - filled)
                );
                let _ = std::io::stderr().flush();
            }
            if rows_done == height {
                eprintln!();
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    });
    Maps { heights, biomes }
}

fn write_png(
    path: &Path,
    [width, height]: [usize; 2],
    color: png::ColorType,
    depth: png::BitDepth,
    data: &[u8],
) -> Result<(), Box<dyn Error>> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, width as u32, height as u32);
    encoder.set_color(color);
    encoder.set_depth(depth);
    encoder.write_header()?.write_image_data(data)?;
    Ok(())
}

fn run(options: &Options) -> Result<(), Box<dyn Error>> {
    let mut settings = match &options.preset {
        Some(path) => WorldSettings::from_ron_file(path)?,
        None => WorldSettings::default(),
    };
    if let Some(seed) = options.seed {
        settings.seed = seed;
    }
    let generator = WorldGenerator::new(settings)?;
    let maps = sample(&generator, options);
    std::fs::create_dir_all(&options.out)?;

    // Heights span the area's own range, so its 16 bits hold all the detail there is.
    let (low, high) = maps
        .heights
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &h| {
            (lo.min(h), hi.max(h))
        });
    let span = (high - low).max(f64::MIN_POSITIVE);
    let levels: Vec<u16> = maps
        .heights
        .iter()
        .map(|h| ((h - low) / span * 65535.0).round() as u16)
        .collect();
    let big_endian: Vec<u8> = levels.iter().flat_map(|v| v.to_be_bytes()).collect();
    write_png(
        &options.out.join("heightmap.png"),
        options.size,
        png::ColorType::Grayscale,
        png::BitDepth::Sixteen,
        &big_endian,
    )?;
    let little_endian: Vec<u8> = levels.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(options.out.join("heightmap.r16"), little_endian)?;

    let table = &generator.settings().biome_table.biomes;
    let colours: Vec<u8> = maps
        .biomes
        .iter()
        .flat_map(|&b| {
            let c = table[usize::from(b)].color;
            [c.0, c.1, c.2]
        })
        .collect();
    write_png(
        &options.out.join("biomes.png"),
        options.size,
        png::ColorType::Rgb,
        png::BitDepth::Eight,
        &colours,
    )?;
    std::fs::write(options.out.join("biomes.r8"), &maps.biomes)?;

    let [width, height] = options.size;
    let legend = serde_json::json!({
        "seed": generator.settings().seed,
        "pixels": { "width": width, "height": height, "order": "rows from the smallest z, each from the smallest x" },
        "world": {
            "min_x": options.center[0] - width as f64 * options.scale / 2.0,
            "min_z": options.center[1] - height as f64 * options.scale / 2.0,
            "units_per_pixel": options.scale,
            "samples": "pixel centres",
        },
        "height": {
            "files": ["heightmap.png (16-bit grey, big-endian as PNG has it)", "heightmap.r16 (16-bit little-endian)"],
            "min": low,
            "max": high,
            "to_world_units": "min + value / 65535 * (max - min)",
            "sea_level": 0.0,
        },
        "biomes": {
            "files": ["biomes.png (the biome's colour)", "biomes.r8 (the biome's index, one byte)"],
            "legend": table.iter().enumerate().map(|(index, b)| serde_json::json!({
                "index": index,
                "name": b.name,
                "color": format!("#{:02x}{:02x}{:02x}", b.color.0, b.color.1, b.color.2),
            })).collect::<Vec<_>>(),
        },
    });
    std::fs::write(
        options.out.join("legend.json"),
        serde_json::to_string_pretty(&legend)?,
    )?;
    println!(
        "wrote {width} × {height} pixels ({:.0} × {:.0} world units) to {}",
        width as f64 * options.scale,
        height as f64 * options.scale,
        options.out.display()
    );
    Ok(())
}

fn main() -> ExitCode {
    let options = match parse() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("export failed: {error}");
            ExitCode::FAILURE
        }
    }
}

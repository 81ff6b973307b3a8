//! Draws a seed's world the way the tutorial's labs do, so a seed can be picked from pictures:
//! the biome map with region borders and trees, height, relief, temperature, moisture, the
//! rain shadow, rivers and the multi-noise source's climate axes where the world has them,
//! surfaces, and every density node's output in greyscale (white is high), side by side with
//! labels.
//!
//! ```text
//! cargo run -p biome_core --release --example preview -- --seed 42 --size 1024 --out world.png
//! ```
//!
//! Options: `--seed N`, `--size PIXELS` (per panel), `--out PATH`, `--preset FILE.ron`,
//! `--scale UNITS_PER_PIXEL` (default 4), `--center X,Z` (default 0,0), `--columns N` (default 4),
//! `--write-preset FILE.ron` (also save the settings used, to start a preset from),
//! `--only WORD,WORD` (draw only the panels whose label holds one of the words, like `relief`),
//! `--volume FILE.ron` (a volume, 3D density as `docs/world.md` writes it: adds a vertical slice
//! through it along x at the centre's z, and a top view of the relief marking where it opens
//! deep below the ground, cave mouths, and where it holds rock above it, overhangs and arches).

use std::error::Error;
use std::process::ExitCode;

use biome_core::density::{
    Constant, DensityField, DensityNode, DensityOp, Fbm, Shape, VolumePoints, Warp,
};
use biome_core::{Rgb, Surface, WorldGenerator, WorldSettings};

struct Options {
    seed: Option<i64>,
    size: usize,
    out: String,
    preset: Option<String>,
    scale: f64,
    center: [f64; 2],
    columns: usize,
    write_preset: Option<String>,
    only: Vec<String>,
    volume: Option<String>,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        seed: None,
        size: 512,
        out: "world.png".to_owned(),
        preset: None,
        scale: 4.0,
        center: [0.0, 0.0],
        columns: 4,
        write_preset: None,
        only: Vec::new(),
        volume: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--seed" => options.seed = Some(value()?.parse().map_err(|e| format!("--seed: {e}"))?),
            "--size" => options.size = value()?.parse().map_err(|e| format!("--size: {e}"))?,
            "--out" => options.out = value()?,
            "--preset" => options.preset = Some(value()?),
            "--write-preset" => options.write_preset = Some(value()?),
            "--volume" => options.volume = Some(value()?),
            "--only" => {
                options.only = value()?
                    .split(',')
                    .map(|w| w.trim().to_lowercase())
                    .collect();
            }
            "--scale" => options.scale = value()?.parse().map_err(|e| format!("--scale: {e}"))?,
            "--columns" => {
                options.columns = value()?.parse().map_err(|e| format!("--columns: {e}"))?;
            }
            "--center" => {
                let text = value()?;
                let (x, z) = text.split_once(',').ok_or("--center takes X,Z")?;
                options.center = [
                    x.trim().parse().map_err(|e| format!("--center: {e}"))?,
                    z.trim().parse().map_err(|e| format!("--center: {e}"))?,
                ];
            }
            "--help" | "-h" => {
                return Err("usage: preview [--seed N] [--size PIXELS] [--out PATH] [--preset FILE.ron] \
                            [--scale UNITS_PER_PIXEL] [--center X,Z] [--columns N] [--write-preset FILE.ron] [--only WORD,WORD] \
                            [--volume FILE.ron]"
                    .to_owned());
            }
            other => return Err(format!("unknown option {other} (try --help)")),
        }
    }
    if !(16..=8192).contains(&options.size) {
        return Err("--size must be from 16 to 8192".to_owned());
    }
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return Err("--scale must be a positive number".to_owned());
    }
    options.columns = options.columns.max(1);
    Ok(options)
}

/// An RGB picture.
#[derive(Clone)]
struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<[u8; 3]>,
}

impl Canvas {
    fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            pixels: vec![[24, 24, 28]; width * height],
        }
    }

    fn blit(&mut self, panel: &Canvas, left: usize, top: usize) {
        for y in 0..panel.height {
            let row = (top + y) * self.width + left;
            self.pixels[row..row + panel.width]
                .copy_from_slice(&panel.pixels[y * panel.width..(y + 1) * panel.width]);
        }
    }

    fn blend(&mut self, x: usize, y: usize, color: [u8; 3], alpha: f64) {
        if x < self.width && y < self.height {
            let p = &mut self.pixels[y * self.width + x];
            for c in 0..3 {
                p[c] =
                    (f64::from(p[c]) * (1.0 - alpha) + f64::from(color[c]) * alpha).round() as u8;
            }
        }
    }

    /// A label in the top-left corner on a dark strip.
    fn label(&mut self, text: &str) {
        let scale = (self.width / 256).clamp(1, 4);
        let strip = (GLYPH_HEIGHT + 4) * scale;
        let width = ((text.chars().count() * (GLYPH_WIDTH + 1) + 3) * scale).min(self.width);
        for y in 0..strip.min(self.height) {
            for x in 0..width {
                self.blend(x, y, [0, 0, 0], 0.6);
            }
        }
        for (i, c) in text.chars().enumerate() {
            let rows = glyph(c);
            for (gy, row) in rows.iter().enumerate() {
                for (gx, bit) in row.bytes().enumerate() {
                    if bit == b'#' {
                        for sy in 0..scale {
                            for sx in 0..scale {
                                let x = (2 + i * (GLYPH_WIDTH + 1) + gx) * scale + sx;
                                let y = (2 + gy) * scale + sy;
                                self.blend(x, y, [255, 255, 255], 1.0);
                            }
                        }
                    }
                }
            }
        }
    }

    fn write_png(&self, path: &str) -> Result<(), Box<dyn Error>> {
        let file = std::io::BufWriter::new(std::fs::File::create(path)?);
        let mut encoder = png::Encoder::new(file, self.width as u32, self.height as u32);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.pixels.concat())?;
        Ok(())
    }
}

fn grey(value: f64, low: f64, high: f64) -> [u8; 3] {
    let v = ((value - low) / (high - low)).clamp(0.0, 1.0);
    let g = (v * 255.0).round() as u8;
    [g, g, g]
}

fn ramp(value: f64, from: [u8; 3], to: [u8; 3]) -> [u8; 3] {
    let t = value.clamp(0.0, 1.0);
    [0, 1, 2]
        .map(|c| (f64::from(from[c]) + (f64::from(to[c]) - f64::from(from[c])) * t).round() as u8)
}

fn node_label(id: usize, node: &DensityNode) -> String {
    let detail = match node.op {
        DensityOp::Fbm(Fbm { shape, octaves, .. }) => {
            let shape = match shape {
                Shape::Normal => "",
                Shape::Ridged => " ridged",
                Shape::Billow => " billow",
            };
            format!(" {octaves} oct{shape}")
        }
        DensityOp::Warp(Warp { levels, .. }) => format!(" x{levels}"),
        DensityOp::Constant(Constant { value }) => format!(" {value}"),
        _ => String::new(),
    };
    let off = if node.enabled { "" } else { " (off)" };
    format!("node {id}: {}{detail}{off}", node.op.kind())
}

/// A volume's vertical slice along x at the centre's z, and the relief marking where the
/// volume opens deep below the ground (cave mouths, red) or holds rock above it (overhangs,
/// yellow).
fn volume_panels(
    field: &DensityField,
    world: &WorldGenerator,
    xs: &[f64],
    zs: &[f64],
    grounds: &[f64],
    relief: &Canvas,
    options: &Options,
) -> Vec<(String, Canvas)> {
    let n = options.size;
    let sites = world.regions();
    // The slice: the middle row's columns, from 64 units under its lowest ground to 32 over its
    // highest, stretched to the panel's height.
    let row = n / 2;
    let z = zs[row * n];
    // The middle row's samples stand at exactly these columns.
    let column_grounds = &grounds[row * n..(row + 1) * n];
    let low = column_grounds.iter().copied().fold(f64::INFINITY, f64::min) - 64.0;
    let high = column_grounds
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
        + 32.0;
    let y_of = |py: usize| high - (py as f64 + 0.5) / n as f64 * (high - low);
    let mut points = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for py in 0..n {
        for px in 0..n {
            points.0.push(xs[px]);
            points.1.push(y_of(py));
            points.2.push(z);
            points.3.push(column_grounds[px]);
        }
    }
    let mut values = vec![0.0; n * n];
    let volume_points = VolumePoints {
        xs: &points.0,
        ys: &points.1,
        zs: &points.2,
        grounds: &points.3,
    };
    field.volume_values(volume_points, sites, &mut values);
    let mut slice = Canvas::new(n, n);
    for (k, &v) in values.iter().enumerate() {
        let (px, y) = (k % n, points.1[k]);
        let below = y < column_grounds[px];
        slice.pixels[k] = match (v > 0.0, below) {
            (true, true) => ramp(
                (column_grounds[px] - y) / 64.0,
                [150, 120, 90],
                [70, 60, 55],
            ),
            (true, false) => [220, 180, 60],
            (false, true) => [150, 30, 30],
            (false, false) => [150, 190, 225],
        };
    }
    // The height field's surface as a line, so overhangs and cave mouths read against it.
    for (px, &ground) in column_grounds.iter().enumerate() {
        let py = ((high - ground) / (high - low) * n as f64) as usize;
        slice.blend(px, py, [30, 110, 40], 1.0);
    }
    // The top view: the volume under and over the ground at every pixel.
    let mut top = relief.clone();
    let probe = |offset: f64| {
        let ys: Vec<f64> = grounds.iter().map(|g| g + offset).collect();
        let mut out = vec![0.0; grounds.len()];
        let at = VolumePoints {
            xs,
            ys: &ys,
            zs,
            grounds,
        };
        field.volume_values(at, sites, &mut out);
        out
    };
    // An opening is hollow 2 and 6 units down: a cave mouth, not the surface dipping a little.
    let (under, deeper, over) = (probe(-2.0), probe(-6.0), probe(2.0));
    let (mut mouths, mut overhangs) = (0, 0);
    for k in 0..grounds.len() {
        if under[k] <= 0.0 && deeper[k] <= 0.0 {
            top.pixels[k] = [220, 40, 40];
            mouths += 1;
        } else if over[k] > 0.0 {
            top.pixels[k] = [240, 200, 50];
            overhangs += 1;
        }
    }
    let share = |count: usize| 100.0 * count as f64 / grounds.len() as f64;
    vec![
        (
            format!("volume slice z={z:.0}, y {low:.0} to {high:.0}"),
            slice,
        ),
        (
            format!(
                "volume: openings {:.1}%, overhangs {:.1}%",
                share(mouths),
                share(overhangs)
            ),
            top,
        ),
    ]
}

fn run(options: &Options) -> Result<(), Box<dyn Error>> {
    let mut settings = match &options.preset {
        Some(path) => WorldSettings::from_ron_file(path)?,
        None => WorldSettings::default(),
    };
    if let Some(seed) = options.seed {
        settings.seed = seed;
    }
    if let Some(path) = &options.write_preset {
        std::fs::write(path, settings.to_ron()?)?;
    }
    let world = WorldGenerator::new(settings)?;
    let n = options.size;
    let half = n as f64 / 2.0;
    let coordinate = |p: usize, center: f64| center + (p as f64 + 0.5 - half) * options.scale;
    let mut xs = Vec::with_capacity(n * n);
    let mut zs = Vec::with_capacity(n * n);
    for py in 0..n {
        for px in 0..n {
            xs.push(coordinate(px, options.center[0]));
            zs.push(coordinate(py, options.center[1]));
        }
    }
    let started = std::time::Instant::now();
    let samples = world.sample_points(&xs, &zs);
    let mut panels: Vec<(String, Canvas)> = Vec::new();

    // Biome map: colours lit from the north-west, borders darkened, trees as dots.
    let mut map = Canvas::new(n, n);
    for py in 0..n {
        for px in 0..n {
            let k = py * n + px;
            let s = &samples[k];
            let Rgb(r, g, b) = Rgb::from_linear([s.color[0], s.color[1], s.color[2]]);
            let mut rgb = [r, g, b];
            let east = &samples[py * n + (px + 1).min(n - 1)];
            let south = &samples[(py + 1).min(n - 1) * n + px];
            if !s.surface.is_water() {
                let slope = (s.height - east.height) + (s.height - south.height);
                let light = (1.0 + slope / options.scale * 0.35).clamp(0.6, 1.3);
                rgb = rgb.map(|c| (f64::from(c) * light).min(255.0) as u8);
            }
            map.pixels[k] = rgb;
            if east.region != s.region || south.region != s.region {
                map.blend(px, py, [20, 20, 20], 0.35);
            }
        }
    }
    let min = [xs[0] - options.scale / 2.0, zs[0] - options.scale / 2.0];
    let max = [
        min[0] + n as f64 * options.scale,
        min[1] + n as f64 * options.scale,
    ];
    let trees = world.trees_in_rect(min, max);
    for tree in &trees {
        let px = ((tree.position[0] - min[0]) / options.scale) as usize;
        let py = ((tree.position[2] - min[1]) / options.scale) as usize;
        map.blend(px, py, [16, 48, 20], 0.75);
    }
    panels.push((
        format!(
            "seed {} biomes, {} trees",
            world.settings().seed,
            trees.len()
        ),
        map,
    ));

    let (low, high) = samples
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
            (lo.min(s.height), hi.max(s.height))
        });
    let mut height = Canvas::new(n, n);
    for (k, s) in samples.iter().enumerate() {
        height.pixels[k] = if s.surface.is_water() {
            ramp(
                (s.height - low) / (0.0 - low).max(1e-9),
                [10, 20, 60],
                [60, 110, 170],
            )
        } else {
            grey(s.height, 0.0, high.max(1e-9))
        };
    }
    panels.push((format!("height {low:.0} to {high:.0} m"), height));

    // Relief: the height lit from the north-west at a low sun, so gullies and ridges show.
    let mut relief = Canvas::new(n, n);
    for py in 0..n {
        for px in 0..n {
            let h = |x: usize, y: usize| samples[y.min(n - 1) * n + x.min(n - 1)].height;
            let (dx, dz) = (
                (h(px + 1, py) - h(px.saturating_sub(1), py)) / (2.0 * options.scale),
                (h(px, py + 1) - h(px, py.saturating_sub(1))) / (2.0 * options.scale),
            );
            let normal_length = (dx * dx + dz * dz + 1.0).sqrt();
            // A light from (-1, 1.2, -1): brighter on slopes that face north-west.
            let light = ((dx + dz) + 1.2) / (normal_length * (1.0f64 + 1.0 + 1.44).sqrt());
            relief.pixels[py * n + px] = grey(light, -0.6, 1.0);
        }
    }
    let relief_copy = relief.clone();
    panels.push(("relief".to_owned(), relief));

    let mut temperature = Canvas::new(n, n);
    let mut moisture = Canvas::new(n, n);
    let mut surface = Canvas::new(n, n);
    for (k, s) in samples.iter().enumerate() {
        temperature.pixels[k] = ramp(s.climate.temperature, [40, 70, 200], [220, 60, 30]);
        moisture.pixels[k] = ramp(s.climate.moisture, [170, 130, 70], [30, 90, 200]);
        surface.pixels[k] = match s.surface {
            Surface::DeepWater => [28, 52, 92],
            Surface::ShallowWater => [62, 110, 138],
            Surface::River => [70, 150, 200],
            Surface::Beach => [226, 212, 160],
            Surface::Land => [90, 140, 70],
            Surface::Snow => [240, 244, 248],
        };
    }
    panels.push(("temperature".to_owned(), temperature));
    panels.push(("moisture".to_owned(), moisture));
    if world.settings().climate.rain_shadow.strength > 0.0 {
        // Drier in the lee (brown), wetter on windward slopes (blue), unchanged in grey.
        let mut shadow = Canvas::new(n, n);
        for (k, (&x, &z)) in xs.iter().zip(&zs).enumerate() {
            let shift = world.rain_shadow(x, z);
            shadow.pixels[k] = if shift < 0.0 {
                ramp(-shift * 2.0, [128, 128, 128], [170, 110, 40])
            } else {
                ramp(shift * 2.0, [128, 128, 128], [30, 90, 200])
            };
        }
        let degrees = world.settings().climate.rain_shadow.wind_degrees;
        panels.push((format!("rain shadow, wind toward {degrees} deg"), shadow));
    }
    if world.settings().rivers.enabled {
        // The relief with rivers and lakes in blue and their banks in sand.
        let mut rivers = relief_copy.clone();
        for (k, s) in samples.iter().enumerate() {
            if s.surface == Surface::River {
                rivers.pixels[k] = [40, 110, 200];
            } else if s.density >= 0.0 && s.river.bank > 0.0 {
                rivers.blend(k % n, k / n, [214, 196, 140], s.river.bank * 0.8);
            } else if s.surface.is_water() {
                rivers.pixels[k] = [20, 40, 80];
            }
        }
        // Every course's centre line, so rivers narrower than a pixel show too: courses whose
        // springs lie within a course's reach of the picture.
        let settings = &world.settings().rivers;
        let reach = settings.spacing * f64::from(settings.max_length);
        let (min, max) = (
            [xs[0] - options.scale / 2.0, zs[0] - options.scale / 2.0],
            [
                xs[0] + (n as f64 - 0.5) * options.scale,
                zs[0] + (n as f64 - 0.5) * options.scale,
            ],
        );
        let courses = world.river_courses(
            [min[0] - reach, min[1] - reach],
            [max[0] + reach, max[1] + reach],
        );
        let to_pixel = |p: [f64; 2]| {
            [
                (p[0] - min[0]) / options.scale,
                (p[1] - min[1]) / options.scale,
            ]
        };
        for course in &courses {
            for pair in course.points.windows(2) {
                let (a, b) = (to_pixel(pair[0]), to_pixel(pair[1]));
                let steps = (b[0] - a[0]).abs().max((b[1] - a[1]).abs()).ceil().max(1.0) as usize;
                for s in 0..=steps {
                    let t = s as f64 / steps as f64;
                    let (x, y) = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t);
                    if x >= 0.0 && y >= 0.0 {
                        rivers.blend(x as usize, y as usize, [40, 110, 200], 0.9);
                    }
                }
            }
        }
        panels.push(("rivers and lakes".to_owned(), rivers));
    }
    if world.climate_point(0.0, 0.0).is_some() {
        // The multi-noise source's extra axes, at every pixel as a region site there would read them.
        let points: Vec<[f64; 5]> = xs
            .iter()
            .zip(&zs)
            .map(|(&x, &z)| world.climate_point(x, z).expect("a multi-noise world"))
            .collect();
        for (axis, name) in [(2, "continentalness"), (3, "erosion"), (4, "weirdness")] {
            let mut panel = Canvas::new(n, n);
            for (k, point) in points.iter().enumerate() {
                panel.pixels[k] = ramp((point[axis] + 1.0) / 2.0, [60, 40, 110], [240, 200, 80]);
            }
            panels.push((format!("{name} -1 to 1"), panel));
        }
    }
    panels.push(("water beach land snow".to_owned(), surface));

    let stack = &world.settings().terrain.density;
    let mut values = vec![0.0; n * n];
    for (id, entry) in stack.walk().iter().enumerate() {
        world
            .density()
            .values_of(id, &xs, &zs, world.regions(), &mut values);
        let mut panel = Canvas::new(n, n);
        for (k, &v) in values.iter().enumerate() {
            panel.pixels[k] = grey(v, -1.0, 1.0);
        }
        panels.push((node_label(id, entry.node), panel));
    }

    if let Some(path) = &options.volume {
        let node: DensityNode = ron::from_str(&std::fs::read_to_string(path)?)?;
        let settings = world.settings();
        let field = DensityField::volume(&node, settings.seed, &settings.functions)?;
        let grounds: Vec<f64> = samples.iter().map(|s| s.height).collect();
        panels.extend(volume_panels(
            &field,
            &world,
            &xs,
            &zs,
            &grounds,
            &relief_copy,
            options,
        ));
    }

    if !options.only.is_empty() {
        panels.retain(|(label, _)| {
            let label = label.to_lowercase();
            options
                .only
                .iter()
                .any(|word| label.contains(word.as_str()))
        });
        if panels.is_empty() {
            return Err(format!("no panel's label holds any of {:?}", options.only).into());
        }
    }
    let columns = options.columns.min(panels.len());
    let rows = panels.len().div_ceil(columns);
    let gap = 4;
    let mut sheet = Canvas::new(columns * (n + gap) - gap, rows * (n + gap) - gap);
    for (i, (label, mut panel)) in panels.into_iter().enumerate() {
        panel.label(&label);
        sheet.blit(&panel, (i % columns) * (n + gap), (i / columns) * (n + gap));
    }
    sheet.write_png(&options.out)?;
    println!(
        "wrote {} ({}x{} px, {:.0} x {:.0} world units per panel, {:.2} s)",
        options.out,
        sheet.width,
        sheet.height,
        n as f64 * options.scale,
        n as f64 * options.scale,
        started.elapsed().as_secs_f64()
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
            eprintln!("preview failed: {error}");
            ExitCode::FAILURE
        }
    }
}

const GLYPH_WIDTH: usize = 5;
const GLYPH_HEIGHT: usize = 7;

/// A 5 × 7 bitmap for the labels; letters are drawn in capitals.
fn glyph(c: char) -> [&'static str; GLYPH_HEIGHT] {
    match c.to_ascii_uppercase() {
        'A' => [
            ".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#",
        ],
        'B' => [
            "####.", "#...#", "#...#", "####.", "#...#", "#...#", "####.",
        ],
        'C' => [
            ".###.", "#...#", "#....", "#....", "#....", "#...#", ".###.",
        ],
        'D' => [
            "####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####.",
        ],
        'E' => [
            "#####", "#....", "#....", "####.", "#....", "#....", "#####",
        ],
        'F' => [
            "#####", "#....", "#....", "####.", "#....", "#....", "#....",
        ],
        'G' => [
            ".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####",
        ],
        'H' => [
            "#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#",
        ],
        'I' => [
            ".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.",
        ],
        'J' => [
            "..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##..",
        ],
        'K' => [
            "#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#",
        ],
        'L' => [
            "#....", "#....", "#....", "#....", "#....", "#....", "#####",
        ],
        'M' => [
            "#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#",
        ],
        'N' => [
            "#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#",
        ],
        'O' => [
            ".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.",
        ],
        'P' => [
            "####.", "#...#", "#...#", "####.", "#....", "#....", "#....",
        ],
        'Q' => [
            ".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#",
        ],
        'R' => [
            "####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#",
        ],
        'S' => [
            ".####", "#....", "#....", ".###.", "....#", "....#", "####.",
        ],
        'T' => [
            "#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..",
        ],
        'U' => [
            "#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.",
        ],
        'V' => [
            "#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#..",
        ],
        'W' => [
            "#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#.",
        ],
        'X' => [
            "#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#",
        ],
        'Y' => [
            "#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#..",
        ],
        'Z' => [
            "#####", "....#", "...#.", "..#..", ".#...", "#....", "#####",
        ],
        '0' => [
            ".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###.",
        ],
        '1' => [
            "..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###.",
        ],
        '2' => [
            ".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####",
        ],
        '3' => [
            "#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###.",
        ],
        '4' => [
            "...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#.",
        ],
        '5' => [
            "#####", "#....", "####.", "....#", "....#", "#...#", ".###.",
        ],
        '6' => [
            "..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###.",
        ],
        '7' => [
            "#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#...",
        ],
        '8' => [
            ".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###.",
        ],
        '9' => [
            ".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##..",
        ],
        ':' => [
            ".....", "..#..", "..#..", ".....", "..#..", "..#..", ".....",
        ],
        '.' => [
            ".....", ".....", ".....", ".....", ".....", ".##..", ".##..",
        ],
        ',' => [
            ".....", ".....", ".....", ".....", ".##..", "..#..", ".#...",
        ],
        '-' => [
            ".....", ".....", ".....", "#####", ".....", ".....", ".....",
        ],
        '(' => [
            "...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#.",
        ],
        ')' => [
            ".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#...",
        ],
        '%' => [
            "##..#", "##..#", "...#.", "..#..", ".#...", "#..##", "#..##",
        ],
        '=' => [
            ".....", ".....", "#####", ".....", "#####", ".....", ".....",
        ],
        _ => ["....."; GLYPH_HEIGHT],
    }
}

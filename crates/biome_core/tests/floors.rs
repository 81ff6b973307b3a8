//! The core's modules stack in floors (the crate docs list them): each module may use only the
//! modules before it in [`FLOORS`], so every one can be read and tested from the bottom up. This
//! reads the sources and holds every `crate::` path in code to that order.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The modules in floor order: base, noise, fields, terrain, rivers, the generator, consumers.
const FLOORS: [&str; 26] = [
    // Base.
    "limits",
    "check",
    "hash",
    "name",
    "scratch",
    "math",
    "seed_offsets",
    "coords",
    // Noise.
    "tutorial",
    "batch",
    "noise3",
    // Fields.
    "density",
    "regions",
    "climate",
    "cover",
    "biomes",
    "multi_noise",
    "edits",
    // Terrain, rivers, the generator.
    "terrain",
    "rivers",
    "generator",
    // Consumers.
    "trees",
    "scatter",
    "surface_nets",
    "chunk",
    "rays",
];

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the sources are readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The top-level module a source file belongs to (`None` for `lib.rs`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).expect("under src");
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib").then(|| name.to_owned())
}

/// Every module named by a `crate::` path in the code of `text` (comments left out).
fn uses(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

#[test]
fn every_module_uses_only_the_floors_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let floor = |name: &str| FLOORS.iter().position(|&m| m == name);
    let mut checked = 0;
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        let here = floor(&module)
            .unwrap_or_else(|| panic!("module `{module}` is in no floor: add it to FLOORS"));
        let text = std::fs::read_to_string(file).expect("a readable source");
        for used in uses(&text) {
            let there = floor(&used)
                .unwrap_or_else(|| panic!("{}: `crate::{used}` is in no floor", file.display()));
            assert!(
                there <= here,
                "{}: `{module}` uses `crate::{used}`, a floor above it",
                file.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} uses found");
}

#[test]
fn the_crate_declares_the_floors_in_order() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("lib.rs");
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|line| {
            let line = line.trim_start_matches("pub ");
            line.strip_prefix("mod ")?.strip_suffix(';')
        })
        .collect();
    let mut floors = FLOORS.to_vec();
    floors.sort_unstable();
    let mut names = declared.clone();
    names.sort_unstable();
    assert_eq!(names, floors, "lib.rs declares other modules than FLOORS");
    // Within a floor lib.rs may list modules alphabetically; across floors, in order.
    let floor_of = |name: &str| match FLOORS.iter().position(|m| *m == name) {
        Some(0..=7) => 0,
        Some(8..=10) => 1,
        Some(11..=17) => 2,
        Some(18) => 3,
        Some(19) => 4,
        Some(20) => 5,
        Some(_) => 6,
        None => usize::MAX,
    };
    let floors_in_lib: Vec<usize> = declared.iter().map(|name| floor_of(name)).collect();
    assert!(
        floors_in_lib.is_sorted(),
        "lib.rs declares the floors out of order: {declared:?}"
    );
}

//! The world far from the origin under `big_space`'s floating origin (feature `big_space`):
//! headless apps with `BigSpaceMinimalPlugins` in place of `TransformPlugin`, the world in a
//! `BiomeWorldGrid`, the anchor the floating origin. 2^20, 2^30 and 2^40 units out (about 10^6,
//! 10^9 and 10^12), where an `f32` position steps by an eighth of a unit, 128 units and 131,072
//! units, the terrain must be what it is at the origin: the same nodes around the anchor, drawn
//! at the same place relative to the camera, with seams that meet.

#[expect(dead_code, reason = "this file steps apps and draws no random numbers")]
mod common;

use std::collections::{BTreeMap, HashSet};

use bevy::ecs::system::RunSystemOnce;
use bevy::math::DVec3;
use bevy::mesh::VertexAttributeValues;
use bevy::prelude::*;
use bevy_biome_world::big_space::plugin::BigSpaceMinimalPlugins;
use bevy_biome_world::big_space::prelude::{BigSpaceRootBundle, CellCoord, FloatingOrigin, Grid};

use bevy_biome_world::biome_core::{ChunkLayout, MeshStyle, NodeCoord};
use bevy_biome_world::prelude::*;
use bevy_biome_world::{BiomeWorldGrid, ChunkFade, ChunkReplaced};

/// 2^20, 2^30 and 2^40 units: multiples of every node's size, so the quadtree lies over the
/// anchor there as it does at the origin; and of the grid's cell, so the camera's cell offset is
/// the same.
const FAR: [f64; 3] = [
    (1u64 << 20) as f64,
    (1u64 << 30) as f64,
    (1u64 << 40) as f64,
];

/// A power-of-two cell, as `BiomeWorldGrid`'s docs advise.
const CELL: f32 = 2048.0;

/// Where the camera starts, relative to the far (or near) point.
const EYE: DVec3 = DVec3::new(10.0, 50.0, 10.0);

struct FarApp {
    app: App,
    camera: Entity,
}

impl FarApp {
    /// Terrain alone, small chunks and levels of detail to a 1 km horizon, streamed around a
    /// floating-origin camera at `offset + EYE`.
    fn at(offset: f64) -> Self {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            AssetPlugin::default(),
            BigSpaceMinimalPlugins,
        ))
        .insert_resource(BiomeWorldSettings {
            layout: ChunkLayout {
                tiles: 16,
                tile_size: 4.0,
                style: MeshStyle::Smooth,
            },
            ..default()
        })
        .insert_resource(BiomeWorldStreaming {
            horizon: 1024.0,
            detail_radius: 64.0,
            hysteresis: 0.25,
            ..default()
        })
        .insert_resource(BiomeScatterSettings {
            enabled: false,
            ..default()
        })
        .add_plugins(BiomeWorldPlugin);
        app.finish();
        app.cleanup();
        let grid = Grid::new(CELL, 0.0);
        let (cell, offset) = grid.translation_to_grid(DVec3::new(offset, 0.0, offset) + EYE);
        let world = app.world_mut();
        let root = world
            .spawn((BigSpaceRootBundle { grid, ..default() }, BiomeWorldGrid))
            .id();
        let camera = world
            .spawn((
                BiomeWorldAnchor,
                FloatingOrigin,
                cell,
                Transform::from_translation(offset),
                ChildOf(root),
            ))
            .id();
        Self { app, camera }
    }

    fn run_until_idle(&mut self) {
        common::step_until_idle(
            self,
            "idle terrain far out",
            |f| f.app.update(),
            |f| {
                let stats = f.app.world().resource::<BiomeWorldStats>();
                stats.is_idle() && stats.loaded > 0
            },
        );
    }

    /// Moves the camera as a game does, by a delta on its transform (`big_space` moves it to
    /// another cell when it leaves its own).
    fn fly(&mut self, by: Vec3, frames: u32) {
        for _ in 0..frames {
            self.app
                .world_mut()
                .get_mut::<Transform>(self.camera)
                .unwrap()
                .translation += by;
            self.app.update();
        }
    }

    /// The shown terrain, by node: where it is drawn relative to the camera's cell (its
    /// `GlobalTransform`) and its mesh's border vertices as drawn.
    fn shown(&mut self) -> BTreeMap<(u8, i64, i64), Drawn> {
        let world = self.app.world_mut();
        let nodes: Vec<(BiomeChunk, GlobalTransform, Handle<Mesh>)> = world
            .query_filtered::<(&BiomeChunk, &GlobalTransform, &Mesh3d, &Visibility), (
                Without<ChunkFade>,
                Without<ChunkReplaced>,
            )>()
            .iter(world)
            .filter(|(.., visibility)| **visibility != Visibility::Hidden)
            .map(|(chunk, global, mesh, _)| (*chunk, *global, mesh.0.clone()))
            .collect();
        let meshes = world.resource::<Assets<Mesh>>();
        nodes
            .into_iter()
            .map(|(chunk, global, mesh)| {
                let mesh = meshes.get(&mesh).expect("mesh kept");
                let key = (chunk.node.level, chunk.node.x, chunk.node.z);
                (key, Drawn::new(chunk.node, &chunk.layout, global, mesh))
            })
            .collect()
    }

    /// For every vertex of the shown level-0 nodes: the drawn height, and what
    /// `BiomeWorld::ground_height_at` says at its world position (in `f64`).
    fn ground_against_meshes(&mut self) -> Vec<(f32, f32)> {
        let world = self.app.world_mut();
        let chunks: Vec<(BiomeChunk, Handle<Mesh>)> = world
            .query_filtered::<(&BiomeChunk, &Mesh3d, &Visibility), Without<ChunkReplaced>>()
            .iter(world)
            .filter(|(chunk, _, visibility)| {
                chunk.node.level == 0 && **visibility != Visibility::Hidden
            })
            .map(|(chunk, mesh, _)| (*chunk, mesh.0.clone()))
            .collect();
        let mut points = Vec::new();
        for (chunk, mesh) in chunks {
            let meshes = self.app.world().resource::<Assets<Mesh>>();
            let Some(VertexAttributeValues::Float32x3(positions)) = meshes
                .get(&mesh)
                .expect("mesh kept")
                .attribute(Mesh::ATTRIBUTE_POSITION)
            else {
                panic!("terrain meshes have positions");
            };
            let origin = chunk.node.origin(&chunk.layout);
            for p in positions.iter().step_by(37) {
                let at = bevy::math::DVec2::new(
                    origin[0] + f64::from(p[0]),
                    origin[1] + f64::from(p[2]),
                );
                points.push((p[1], at));
            }
        }
        points
            .into_iter()
            .map(|(drawn, at)| {
                let asked = self
                    .app
                    .world_mut()
                    .run_system_once(move |world: BiomeWorld| world.ground_height_at(at))
                    .expect("runs");
                (drawn, asked)
            })
            .collect()
    }

    fn camera_cell(&self) -> CellCoord {
        *self.app.world().get::<CellCoord>(self.camera).unwrap()
    }
}

/// A node as drawn: its place relative to the floating origin, and its border vertices after
/// the transform chain, as the GPU gets them (`f32`).
struct Drawn {
    node: NodeCoord,
    size: f32,
    at: Vec3,
    border: Vec<Vec3>,
}

impl Drawn {
    fn new(node: NodeCoord, layout: &ChunkLayout, global: GlobalTransform, mesh: &Mesh) -> Self {
        let size = node.size(layout) as f32;
        let Some(VertexAttributeValues::Float32x3(positions)) =
            mesh.attribute(Mesh::ATTRIBUTE_POSITION)
        else {
            panic!("terrain meshes have positions");
        };
        let border = positions
            .iter()
            .filter(|p| p[0] == 0.0 || p[0] == size || p[2] == 0.0 || p[2] == size)
            .map(|&p| global.transform_point(Vec3::from_array(p)))
            .collect();
        Self {
            node,
            size,
            at: global.translation(),
            border,
        }
    }

    /// Whether `p` (drawn) lies on this node's square's boundary, within `tolerance` across it.
    fn borders(&self, p: Vec3, tolerance: f32) -> bool {
        let (min, max) = (self.at, self.at + Vec3::new(self.size, 0.0, self.size));
        let inside = |v: f32, lo: f32, hi: f32| v >= lo - tolerance && v <= hi + tolerance;
        let near = |v: f32, edge: f32| (v - edge).abs() <= tolerance;
        inside(p.x, min.x, max.x)
            && inside(p.z, min.z, max.z)
            && (near(p.x, min.x) || near(p.x, max.x) || near(p.z, min.z) || near(p.z, max.z))
    }
}

/// Where the border vertices of two shown nodes that touch lie on each other's border, they
/// lie on the other's drawn polyline within 1 mm; returns how many vertices were checked.
fn check_seams(shown: &BTreeMap<(u8, i64, i64), Drawn>) -> usize {
    let nodes: Vec<&Drawn> = shown.values().collect();
    let mut checked = 0;
    for a in &nodes {
        for b in &nodes {
            if a.node == b.node {
                continue;
            }
            for &p in &a.border {
                if !b.borders(p, 1e-3) {
                    continue;
                }
                let nearest = b
                    .border
                    .iter()
                    .map(|q| segment_gap(p, q, &b.border))
                    .fold(f32::INFINITY, f32::min);
                assert!(
                    nearest <= 1e-3,
                    "a {nearest} m crack: {:?}'s vertex {p} off {:?}'s edge",
                    a.node,
                    b.node
                );
                checked += 1;
            }
        }
    }
    checked
}

/// The distance from `p` to the nearest segment from `q` to another border vertex along the
/// same side (x or z equal): the edge polyline is made of such segments.
fn segment_gap(p: Vec3, q: &Vec3, border: &[Vec3]) -> f32 {
    border
        .iter()
        .filter(|r| (r.x == q.x || r.z == q.z) && *r != q)
        .map(|r| {
            let (d, t) = (*r - *q, (p - *q).dot(*r - *q) / (*r - *q).length_squared());
            (*q + d * t.clamp(0.0, 1.0) - p).length()
        })
        .fold((p - *q).length(), f32::min)
}

/// 10^6, 10^9 and 10^12 units out, the same nodes are shown around the anchor as at the
/// origin, each drawn at the same place relative to the camera to the bit, their seams meet
/// within 1 mm, and `ground_height_at` answers each chunk's drawn vertex heights: with plain `f32` transforms at 2^30, nodes would be placed to the nearest 128
/// units.
#[test]
fn far_out_the_terrain_is_drawn_as_exactly_as_at_the_origin() {
    let mut near = FarApp::at(0.0);
    near.run_until_idle();
    let near_shown = near.shown();
    assert!(near_shown.len() > 20, "{} nodes", near_shown.len());
    assert!(check_seams(&near_shown) > 500);
    for offset in FAR {
        let mut far = FarApp::at(offset);
        far.run_until_idle();
        let far_shown = far.shown();
        let shift = |level: u8| (offset / (64.0 * f64::from(1u32 << level))) as i64;
        let moved: HashSet<_> = near_shown
            .keys()
            .map(|&(level, x, z)| (level, x + shift(level), z + shift(level)))
            .collect();
        let far_keys: HashSet<_> = far_shown.keys().copied().collect();
        assert_eq!(
            moved, far_keys,
            "{offset}: the same nodes around the anchor"
        );
        let cell = (offset / f64::from(CELL)) as i64;
        assert_eq!(far.camera_cell(), CellCoord::new(cell, 0, cell));
        for (&(level, x, z), drawn) in &near_shown {
            let there = &far_shown[&(level, x + shift(level), z + shift(level))];
            assert_eq!(
                drawn.at, there.at,
                "{offset}: {:?} drawn where it is at the origin",
                drawn.node
            );
        }
        let checked = check_seams(&far_shown);
        assert!(checked > 500, "{offset}: {checked} seam vertices checked");
        // The query answers the drawn ground there, vertex for vertex.
        let ground = far.ground_against_meshes();
        assert!(ground.len() > 100, "{offset}: {} vertices", ground.len());
        for (drawn, asked) in ground {
            assert_eq!(drawn, asked, "{offset}: ground_height_at against the mesh");
        }
    }
}

/// A flight across grid cells 10^9 and 10^12 units out: `big_space` moves the camera to new cells, and the
/// terrain follows it as at the origin.
#[test]
fn far_out_the_terrain_follows_a_camera_across_cells() {
    let velocity = Vec3::new(40.0, 0.0, 25.0);
    let mut shown = Vec::new();
    for offset in [0.0, FAR[1], FAR[2]] {
        let mut app = FarApp::at(offset);
        app.run_until_idle();
        let start = app.camera_cell();
        app.fly(velocity, 120);
        app.run_until_idle();
        let crossed = app.camera_cell().x - start.x;
        assert_eq!(
            crossed, 2,
            "4,810 units east of 10 cross two 2,048-unit cells"
        );
        let shift = |level: u8| (offset / (64.0 * f64::from(1u32 << level))) as i64;
        let nodes: HashSet<_> = app
            .shown()
            .into_iter()
            .map(|((level, x, z), drawn)| ((level, x - shift(level), z - shift(level)), drawn.at))
            .map(|(key, at)| (key, at.to_array().map(f32::to_bits)))
            .collect();
        shown.push(nodes);
    }
    for far in &shown[1..] {
        let differ = shown[0].symmetric_difference(far).count();
        assert_eq!(
            differ,
            0,
            "{} nodes shown at the origin, {} far out: {differ} differ in node or place",
            shown[0].len(),
            far.len()
        );
    }
}

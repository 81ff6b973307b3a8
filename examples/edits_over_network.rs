//! A host and a client world, headless in one process, joined by a TCP socket over loopback:
//! the host makes terrain edits and sends every entry of its `EditLog` the client has not had,
//! one RON line each; the client records them as they come, in whatever frame they arrive. Once
//! both are idle, every terrain node the client shows is compared with the host's, bit for bit.
//!
//! ```text
//! cargo run --example edits_over_network
//! ```
//!
//! A game sends the same entries over its own transport: `EditShape` is `serde`, and
//! `BiomeWorldEdits::record` takes entries in any order, duplicates included.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;

use bevy::mesh::VertexAttributeValues;
use bevy::prelude::*;
use bevy_biome_world::prelude::*;

/// The edits the host makes, one every few frames: a camp's pad, a road to it, a dug pond.
fn host_edits() -> Vec<EditShape> {
    vec![
        EditShape::Pad {
            center: [60.0, 40.0],
            half_size: [12.0, 9.0],
            height: 18.0,
            skirt: 10.0,
        },
        EditShape::Path {
            points: vec![[-80.0, 10.0, -20.0], [20.0, 14.0, 30.0], [60.0, 18.0, 40.0]],
            width: 5.0,
            skirt: 6.0,
            surface: Some(Rgb(128, 104, 78)),
        },
        EditShape::Brush {
            center: [-30.0, 90.0],
            radius: 16.0,
            falloff: 0.6,
            op: BrushOp::Raise(-6.0),
        },
    ]
}

/// A headless world streaming around an anchor at the origin.
fn world() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin))
        .insert_resource(BiomeWorldStreaming {
            horizon: 1536.0,
            ..default()
        })
        .insert_resource(BiomeScatterSettings {
            enabled: false,
            ..default()
        })
        .add_plugins(BiomeWorldPlugin);
    app.finish();
    app.cleanup();
    app.world_mut()
        .spawn((BiomeWorldAnchor, Transform::from_xyz(0.0, 60.0, 0.0)));
    app
}

/// Every shown terrain node's mesh positions.
fn shown_nodes(app: &mut App) -> HashMap<NodeCoord, Vec<[f32; 3]>> {
    let world = app.world_mut();
    let nodes: Vec<(NodeCoord, Handle<Mesh>)> = world
        .query::<(&BiomeChunk, &Mesh3d, &Visibility)>()
        .iter(world)
        .filter(|(_, _, visibility)| **visibility != Visibility::Hidden)
        .map(|(chunk, mesh, _)| (chunk.node, mesh.0.clone()))
        .collect();
    let meshes = world.resource::<Assets<Mesh>>();
    nodes
        .into_iter()
        .filter_map(|(node, handle)| {
            match meshes.get(&handle)?.attribute(Mesh::ATTRIBUTE_POSITION) {
                Some(VertexAttributeValues::Float32x3(positions)) => {
                    Some((node, positions.clone()))
                }
                _ => None,
            }
        })
        .collect()
}

fn idle(app: &App) -> bool {
    let stats = app.world().resource::<BiomeWorldStats>();
    stats.is_idle() && stats.loaded > 0
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("edits_over_network: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs both worlds until they agree; an error says what failed (`tests/edits_network.rs` runs
/// it too).
pub(crate) fn run() -> Result<(), Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let mut to_client = TcpStream::connect(listener.local_addr()?)?;
    let (from_host, _) = listener.accept()?;
    from_host.set_nonblocking(true)?;
    let mut from_host = BufReader::new(from_host);
    let (mut host, mut client) = (world(), world());
    let edits = host_edits();
    let (mut sent, mut received, mut line) = (0u64, 0usize, String::new());
    // Frames both worlds have been idle with every edit in: a few, so no rebuild is pending.
    let mut settled = 0;
    for frame in 0..6000u32 {
        // The host edits every 20 frames and sends what it has not sent.
        let made = (frame / 20) as usize;
        if frame % 20 == 0 && made < edits.len() {
            host.world_mut()
                .resource_mut::<BiomeWorldEdits>()
                .push(edits[made].clone())?;
        }
        let log = host.world().resource::<BiomeWorldEdits>().log();
        for (sequence, edit) in log.after(sent) {
            writeln!(to_client, "{}", ron::to_string(&(sequence, edit))?)?;
            sent = sequence;
        }
        // The client takes what has arrived, without waiting for more.
        loop {
            line.clear();
            match from_host.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {
                    let (sequence, edit): (u64, EditShape) = ron::from_str(line.trim_end())?;
                    client
                        .world_mut()
                        .resource_mut::<BiomeWorldEdits>()
                        .record(sequence, edit)?;
                    received += 1;
                }
                Err(error) if error.kind() == ErrorKind::WouldBlock => break,
                Err(error) => return Err(error.into()),
            }
        }
        host.update();
        client.update();
        settled = if received == edits.len() && idle(&host) && idle(&client) {
            settled + 1
        } else {
            0
        };
        if settled == 10 {
            let (host_nodes, client_nodes) = (shown_nodes(&mut host), shown_nodes(&mut client));
            if host_nodes != client_nodes {
                return Err("the client's terrain differs from the host's".into());
            }
            println!(
                "{received} edits sent over {}; after {frame} frames host and client show the \
                 same {} terrain nodes, bit for bit",
                listener.local_addr()?,
                host_nodes.len()
            );
            return Ok(());
        }
    }
    Err("the worlds did not settle within 6000 frames".into())
}

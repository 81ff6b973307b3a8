// Terrain: the standard PBR shader with the ground's surface classes worked out per pixel.
//
// Vertices carry the land colour (biomes blended across region borders), in `uv.x` the
// temperature and in `uv.y` the share an edit's own surface (a road) covers, already in the land
// colour. Water floor, sand and snow are laid over the rest here from the interpolated world
// height and temperature with the core's own formulas, so shore and snow lines are smooth
// whatever the tile size. `fade` below 1 dithers the node in while it replaces another.
//
// With splat layers (`TerrainSplatting`), vertices also carry each layer's weight: layers 0 to
// 3 in the tangent, 4 and 5 in the second UVs, 6 in the colour's alpha, 7 what they leave. The
// vertex stage passes them through as they are (the standard one would normalise the tangent).

#import bevy_pbr::{
    pbr_fragment::pbr_input_from_standard_material,
    pbr_functions::alpha_discard,
}

#ifdef PREPASS_PIPELINE
#import bevy_pbr::{
    prepass_io::{Vertex, VertexOutput, FragmentOutput},
    pbr_deferred_functions::deferred_output,
}
#else
#import bevy_pbr::{
    forward_io::{Vertex, VertexOutput, FragmentOutput},
    pbr_functions::{apply_pbr_lighting, main_pass_post_lighting_processing},
}
#endif
#import bevy_pbr::{mesh_functions, view_transformations::position_world_to_clip}

struct TerrainSurface {
    deep_water_color: vec4<f32>,
    shallow_water_color: vec4<f32>,
    beach_color: vec4<f32>,
    snow_color: vec4<f32>,
    // World height of `surface.deep_water` and of `surface.beach`.
    deep_water_height: f32,
    beach_height: f32,
    snow_temperature: f32,
    snow_band: f32,
    // 1 when the vertex colour is final (flat tiles), 0 to lay the surface classes over it.
    vertex_colors_final: u32,
    fade: f32,
    _padding: vec2<f32>,
    // The world position drawn at the rendering origin (a floating origin's cell), x and z
    // modulo 16,384 units.
    render_origin: vec4<f32>,
    splat: Splat,
}

struct Splat {
    // Repeats per world unit of layers 0 to 3 and 4 to 7.
    repeats: array<vec4<f32>, 2>,
    // 1 where a layer shades the ground's colour, 0 where it gives its own.
    ground_tints: array<vec4<f32>, 2>,
    // 0 without splatting.
    layers: u32,
    steep_layer: i32,
    snow_layer: i32,
    beach_layer: i32,
    // `1 - cos` of the slopes where the steep layer starts and where it covers the ground.
    steep_from: f32,
    steep_to: f32,
    _padding: vec2<f32>,
}

@group(#{MATERIAL_BIND_GROUP}) @binding(100)
var<uniform> terrain: TerrainSurface;
@group(#{MATERIAL_BIND_GROUP}) @binding(101)
var splat_layers: texture_2d_array<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(102)
var splat_sampler: sampler;

// The standard mesh vertex stage without skins or morphs, passing the tangent through.
@vertex
fn vertex(vertex: Vertex) -> VertexOutput {
    var out: VertexOutput;
    let world_from_local = mesh_functions::get_world_from_local(vertex.instance_index);
#ifdef VERTEX_NORMALS
    out.world_normal = mesh_functions::mesh_normal_local_to_world(vertex.normal, vertex.instance_index);
#endif
#ifdef VERTEX_POSITIONS
    out.world_position = mesh_functions::mesh_position_local_to_world(world_from_local, vec4<f32>(vertex.position, 1.0));
    out.position = position_world_to_clip(out.world_position.xyz);
#endif
#ifdef VERTEX_UVS_A
    out.uv = vertex.uv;
#endif
#ifdef VERTEX_UVS_B
    out.uv_b = vertex.uv_b;
#endif
#ifdef VERTEX_TANGENTS
    out.world_tangent = vertex.tangent;
#endif
#ifdef VERTEX_COLORS
    out.color = vertex.color;
#endif
#ifdef VERTEX_OUTPUT_INSTANCE_INDEX
    out.instance_index = vertex.instance_index;
#endif
#ifdef VISIBILITY_RANGE_DITHER
    out.visibility_range_dither = mesh_functions::get_visibility_range_dither_level(
        vertex.instance_index, world_from_local[3]);
#endif
    return out;
}

// Ordered 4 x 4 dither threshold of a pixel, in (0, 1).
fn dither(pixel: vec2<f32>) -> f32 {
    let p = vec2<u32>(pixel) % 4u;
    let bayer = array<u32, 16>(0u, 8u, 2u, 10u, 12u, 4u, 14u, 6u, 3u, 11u, 1u, 9u, 15u, 7u, 13u, 5u);
    return (f32(bayer[p.y * 4u + p.x]) + 0.5) / 16.0;
}

// The land with snow and sand laid over it (their colours given), or the sea floor.
fn ground(
    land: vec3<f32>,
    snow_rgb: vec3<f32>,
    beach_rgb: vec3<f32>,
    height: f32,
    temperature: f32,
) -> vec3<f32> {
    if height < 0.0 {
        let depth = clamp(height / terrain.deep_water_height, 0.0, 1.0);
        return mix(terrain.shallow_water_color.rgb, terrain.deep_water_color.rgb, depth);
    }
    let snow = smoothstep(
        terrain.snow_temperature + terrain.snow_band,
        terrain.snow_temperature - terrain.snow_band,
        temperature,
    );
    let covered = mix(land, snow_rgb, snow);
    let sand = 1.0 - smoothstep(terrain.beach_height * 0.5, terrain.beach_height * 1.5, height);
    return mix(covered, beach_rgb, sand);
}

// Where a texture is sampled: its coordinates and their screen derivatives, so layers can be
// sampled in branches with the mip level the whole quad agrees on.
struct Projection {
    uv: vec2<f32>,
    dx: vec2<f32>,
    dy: vec2<f32>,
}

fn project(at: vec2<f32>) -> Projection {
    return Projection(at, dpdx(at), dpdy(at));
}

fn repeat_of(layer: i32) -> f32 {
    return terrain.splat.repeats[layer / 4][layer % 4];
}

// Layer `layer` over the colour `under`: its own colour, or `under` shaded by it.
fn layer_color(layer: i32, p: Projection, under: vec3<f32>) -> vec3<f32> {
    let r = repeat_of(layer);
    let texel = textureSampleGrad(splat_layers, splat_sampler, p.uv * r, layer, p.dx * r, p.dy * r).rgb;
    let tint = terrain.splat.ground_tints[layer / 4][layer % 4];
    return mix(texel, under * texel * 2.0, tint);
}

// Layer `layer` projected along the three axes, blended by how the surface faces each.
fn triplanar(
    layer: i32,
    px: Projection,
    py: Projection,
    pz: Projection,
    normal: vec3<f32>,
    under: vec3<f32>,
) -> vec3<f32> {
    var facing = pow(abs(normal), vec3<f32>(4.0));
    facing = facing / (facing.x + facing.y + facing.z);
    return layer_color(layer, px, under) * facing.x
        + layer_color(layer, py, under) * facing.y
        + layer_color(layer, pz, under) * facing.z;
}

@fragment
fn fragment(
    in: VertexOutput,
    @builtin(front_facing) is_front: bool,
) -> FragmentOutput {
    if terrain.fade < 1.0 && dither(in.position.xy) > terrain.fade {
        discard;
    }
    let world = in.world_position.xyz + terrain.render_origin.xyz;
    // In uniform control flow: every branch below samples with these.
    let px = project(world.zy);
    let py = project(world.xz);
    let pz = project(world.xy);
    var pbr_input = pbr_input_from_standard_material(in, is_front);
#ifdef VERTEX_UVS_A
    if terrain.vertex_colors_final == 0u {
        let land = pbr_input.material.base_color.rgb;
        var ground_rgb = land;
        var snow_rgb = terrain.snow_color.rgb;
        var beach_rgb = terrain.beach_color.rgb;
#ifdef VERTEX_TANGENTS
#ifdef VERTEX_UVS_B
        if terrain.splat.layers > 0u {
#ifdef VERTEX_COLORS
            let w6 = in.color.a;
#else
            let w6 = 0.0;
#endif
            var w = array<f32, 8>(
                in.world_tangent.x, in.world_tangent.y, in.world_tangent.z, in.world_tangent.w,
                in.uv_b.x, in.uv_b.y, w6,
                max(0.0, 1.0 - dot(in.world_tangent, vec4<f32>(1.0)) - in.uv_b.x - in.uv_b.y - w6),
            );
            var splatted = vec3<f32>(0.0);
            for (var layer = 0; layer < i32(terrain.splat.layers); layer += 1) {
                if w[layer] > 0.002 {
                    splatted += w[layer] * layer_color(layer, py, land);
                }
            }
            let normal = normalize(in.world_normal);
            if terrain.splat.steep_layer >= 0 {
                let steep = smoothstep(terrain.splat.steep_from, terrain.splat.steep_to, 1.0 - normal.y);
                if steep > 0.0 {
                    let rock = triplanar(terrain.splat.steep_layer, px, py, pz, normal, land);
                    splatted = mix(splatted, rock, steep);
                }
            }
            ground_rgb = splatted;
            if terrain.splat.snow_layer >= 0 {
                snow_rgb = layer_color(terrain.splat.snow_layer, py, snow_rgb);
            }
            if terrain.splat.beach_layer >= 0 {
                beach_rgb = layer_color(terrain.splat.beach_layer, py, beach_rgb);
            }
        }
#endif
#endif
        let rgb = mix(ground(ground_rgb, snow_rgb, beach_rgb, world.y, in.uv.x), land, in.uv.y);
        pbr_input.material.base_color = vec4<f32>(rgb, 1.0);
    }
#endif
    pbr_input.material.base_color = alpha_discard(pbr_input.material, pbr_input.material.base_color);

#ifdef PREPASS_PIPELINE
    let out = deferred_output(in, pbr_input);
#else
    var out: FragmentOutput;
    out.color = apply_pbr_lighting(pbr_input);
    out.color = main_pass_post_lighting_processing(pbr_input, out.color);
#endif
    return out;
}

// Terrain: the standard PBR shader with the ground's surface classes worked out per pixel.
//
// Vertices carry the land colour (biomes blended across region borders), in `uv.x` the
// temperature and in `uv.y` the share an edit's own surface (a road) covers, already in the land
// colour. Water floor, sand and snow are laid over the rest here from the interpolated world
// height and temperature with the core's own formulas, so shore and snow lines are smooth
// whatever the tile size. `fade` below 1 dithers the node in while it replaces another.

#import bevy_pbr::{
    pbr_fragment::pbr_input_from_standard_material,
    pbr_functions::alpha_discard,
}

#ifdef PREPASS_PIPELINE
#import bevy_pbr::{
    prepass_io::{VertexOutput, FragmentOutput},
    pbr_deferred_functions::deferred_output,
}
#else
#import bevy_pbr::{
    forward_io::{VertexOutput, FragmentOutput},
    pbr_functions::{apply_pbr_lighting, main_pass_post_lighting_processing},
}
#endif

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
}

@group(#{MATERIAL_BIND_GROUP}) @binding(100)
var<uniform> terrain: TerrainSurface;

// Ordered 4 x 4 dither threshold of a pixel, in (0, 1).
fn dither(pixel: vec2<f32>) -> f32 {
    let p = vec2<u32>(pixel) % 4u;
    let bayer = array<u32, 16>(0u, 8u, 2u, 10u, 12u, 4u, 14u, 6u, 3u, 11u, 1u, 9u, 15u, 7u, 13u, 5u);
    return (f32(bayer[p.y * 4u + p.x]) + 0.5) / 16.0;
}

fn ground(land: vec3<f32>, height: f32, temperature: f32) -> vec3<f32> {
    if height < 0.0 {
        let depth = clamp(height / terrain.deep_water_height, 0.0, 1.0);
        return mix(terrain.shallow_water_color.rgb, terrain.deep_water_color.rgb, depth);
    }
    let snow = smoothstep(
        terrain.snow_temperature + terrain.snow_band,
        terrain.snow_temperature - terrain.snow_band,
        temperature,
    );
    let covered = mix(land, terrain.snow_color.rgb, snow);
    let sand = 1.0 - smoothstep(terrain.beach_height * 0.5, terrain.beach_height * 1.5, height);
    return mix(covered, terrain.beach_color.rgb, sand);
}

@fragment
fn fragment(
    in: VertexOutput,
    @builtin(front_facing) is_front: bool,
) -> FragmentOutput {
    if terrain.fade < 1.0 && dither(in.position.xy) > terrain.fade {
        discard;
    }
    var pbr_input = pbr_input_from_standard_material(in, is_front);
#ifdef VERTEX_UVS_A
    if terrain.vertex_colors_final == 0u {
        let land = pbr_input.material.base_color.rgb;
        let rgb = mix(ground(land, in.world_position.y, in.uv.x), land, in.uv.y);
        pbr_input.material.base_color = vec4<f32>(rgb, pbr_input.material.base_color.a);
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

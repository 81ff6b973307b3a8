// The `own_material` example's terrain material: the standard PBR shader over the terrain's
// vertex colours, with the sea tinted by depth and a topographic contour line every
// `contours.spacing` world units of height (every fifth one bolder).

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

struct Contours {
    line_color: vec4<f32>,
    water_color: vec4<f32>,
    spacing: f32,
    width: f32,
    _padding: vec2<f32>,
}

@group(#{MATERIAL_BIND_GROUP}) @binding(100)
var<uniform> contours: Contours;

@fragment
fn fragment(
    in: VertexOutput,
    @builtin(front_facing) is_front: bool,
) -> FragmentOutput {
    var pbr_input = pbr_input_from_standard_material(in, is_front);
    let height = in.world_position.y;
    var rgb = pbr_input.material.base_color.rgb;
    if height < 0.0 {
        rgb = mix(rgb, contours.water_color.rgb, clamp(-height / 40.0 + 0.4, 0.0, 1.0));
    }
    // Distance to the nearest contour in screen pixels, from the height's screen-space slope.
    let level = height / contours.spacing;
    let pixels = abs(fract(level + 0.5) - 0.5) / max(fwidth(level), 1e-4);
    let major = abs(round(level)) % 5.0 == 0.0;
    let width = select(contours.width, contours.width * 2.0, major);
    let line = 1.0 - smoothstep(width * 0.5, width * 0.5 + 1.0, pixels);
    rgb = mix(rgb, contours.line_color.rgb, line * contours.line_color.a);
    pbr_input.material.base_color = vec4<f32>(rgb, pbr_input.material.base_color.a);
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

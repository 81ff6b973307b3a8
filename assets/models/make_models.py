"""Writes the `custom_assets` example's glTF models: `pine.glb` (a tree with a trunk and two
materials) and `boulder.glb` (a rock), low-poly, standing on y = 0 with +Y up, metres.

Run from this folder with any Python 3: `python3 make_models.py`. Standard library only.
"""

import json
import math
import struct


def ring(radius, y, sides, phase=0.0):
    return [
        (radius * math.cos(phase + k * math.tau / sides), y, radius * math.sin(phase + k * math.tau / sides))
        for k in range(sides)
    ]


def flat(triangles):
    """Flat-shaded vertices and normals of a list of (a, b, c) triangles, counter-clockwise."""
    positions, normals = [], []
    for a, b, c in triangles:
        u = [b[i] - a[i] for i in range(3)]
        v = [c[i] - a[i] for i in range(3)]
        n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        length = math.sqrt(sum(x * x for x in n)) or 1.0
        n = tuple(x / length for x in n)
        for p in (a, b, c):
            positions.append(p)
            normals.append(n)
    return positions, normals


def frustum(bottom_radius, top_radius, y0, y1, sides, phase=0.0):
    """The side and top of a truncated cone (a top radius of 0 is a cone)."""
    low, high = ring(bottom_radius, y0, sides, phase), ring(top_radius, y1, sides, phase)
    apex = (0.0, y1, 0.0)
    triangles = []
    for k in range(sides):
        a, b = low[k], low[(k + 1) % sides]
        c, d = high[k], high[(k + 1) % sides]
        if top_radius > 0:
            triangles += [(a, c, b), (b, c, d), (c, apex, d)]
        else:
            triangles.append((a, apex, b))
    return triangles


def rock(seed_phase):
    """A squashed icosahedron with its vertices pushed in and out."""
    t = (1 + math.sqrt(5)) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t),
         (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
             (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
             (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    points = []
    for k, (x, y, z) in enumerate(v):
        length = math.sqrt(x * x + y * y + z * z)
        bump = 1.0 + 0.18 * math.sin(seed_phase + k * 2.39)
        # 1.2 m across, 0.7 m tall, sunk 0.1 m so it sits on slopes.
        points.append((0.6 * bump * x / length, 0.35 * bump * y / length + 0.25, 0.5 * bump * z / length))
    # Faces wound so their normals point out of the solid.
    return [(points[a], points[b], points[c]) for a, b, c in faces]


def write_glb(path, primitives):
    """One mesh of `primitives`: (triangles, base colour, roughness)."""
    binary = bytearray()
    accessors, views, materials, gltf_primitives = [], [], [], []
    for triangles, color, roughness in primitives:
        positions, normals = flat(triangles)
        for data, kind in ((positions, "POSITION"), (normals, "NORMAL")):
            offset = len(binary)
            for p in data:
                binary += struct.pack("<3f", *p)
            views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(binary) - offset, "target": 34962})
            accessor = {"bufferView": len(views) - 1, "componentType": 5126, "count": len(data), "type": "VEC3"}
            if kind == "POSITION":
                accessor["min"] = [min(p[i] for p in data) for i in range(3)]
                accessor["max"] = [max(p[i] for p in data) for i in range(3)]
            accessors.append(accessor)
        materials.append({"pbrMetallicRoughness": {"baseColorFactor": list(color) + [1.0],
                                                   "metallicFactor": 0.0, "roughnessFactor": roughness}})
        gltf_primitives.append({"attributes": {"POSITION": len(accessors) - 2, "NORMAL": len(accessors) - 1},
                                "material": len(materials) - 1})
    document = {
        "asset": {"version": "2.0", "generator": "bevy_biome_world assets/models/make_models.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": gltf_primitives}],
        "materials": materials,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(binary)}],
    }
    text = json.dumps(document, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    binary += b"\0" * (-len(binary) % 4)
    with open(path, "wb") as out:
        out.write(struct.pack("<3I", 0x46546C67, 2, 12 + 8 + len(text) + 8 + len(binary)))
        out.write(struct.pack("<2I", len(text), 0x4E4F534A) + text)
        out.write(struct.pack("<2I", len(binary), 0x004E4942) + binary)


# Linear base colours.
BARK = (0.16, 0.07, 0.03)
NEEDLES = (0.02, 0.11, 0.05)
NEEDLE_TIPS = (0.05, 0.18, 0.06)
STONE = (0.28, 0.22, 0.16)

write_glb("pine.glb", [
    (frustum(0.35, 0.2, 0.0, 3.0, 6), BARK, 0.9),
    (frustum(2.4, 0.0, 1.6, 5.2, 8) + frustum(1.8, 0.0, 4.0, 7.4, 8, 0.4), NEEDLES, 0.95),
    (frustum(1.2, 0.0, 6.2, 9.6, 8, 0.8), NEEDLE_TIPS, 0.95),
])
write_glb("boulder.glb", [(rock(0.7), STONE, 0.8)])

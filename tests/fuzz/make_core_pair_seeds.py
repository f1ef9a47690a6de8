#!/usr/bin/python3
"""Writes the seed corpus of core_pair_fuzzer (seeds/core_pair/*.bin).

The byte format is the fuzzer's decoding (core_pair_fuzzer.cc): a dimension
byte (even 2D, odd 3D), a scale byte (S = 10^(b % 9 - 3)), a base byte (world
offset 0, 1e2, 1e4, 1e5), shape A, shape B, pose A, pose B, the two
displacements, then one ray per shape. Numbers in [-1, 1] are big-endian
int16 of value * 32767; shape coordinates are scaled by S, offsets and
displacements by 4 S. Run once and commit the output; rerunning rewrites the
same bytes.
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds",
                   "core_pair")


def u(*values):
    out = b""
    for v in values:
        assert -1.0 <= v <= 1.0, v
        out += struct.pack(">h", int(round(v * 32767)))
    return out


def b(*values):
    return bytes(values)


def header(dim, scale_exponent, base_index):
    return b(0 if dim == 2 else 1, scale_exponent + 3, base_index)


# 2D shapes (kind byte, then numbers).
def circle(r):
    return b(0) + u(r)


def box2(hx, hy):
    return b(1) + u(hx, hy)


def polygon(points):
    return b(2, len(points) - 3) + u(*[c for p in points for c in p])


def capsule2(a, bb, r):
    return b(3) + u(*a, *bb, r)


def segment2(a, bb):
    return b(4) + u(*a, *bb)


def pose2(x, y, angle_unit):
    return u(x, y, angle_unit)


# 3D shapes.
def sphere(r):
    return b(0) + u(r)


def box3(hx, hy, hz):
    return b(1) + u(hx, hy, hz)


def capsule3(a, bb, r):
    return b(2) + u(*a, *bb, r)


def triangle3(a, bb, c):
    return b(3) + u(*a, *bb, *c)


def hull(points):
    return b(4, len(points) - 4) + u(*[c for p in points for c in p])


def mesh(vertices, indices):
    assert len(indices) % 3 == 0
    return (b(5, len(vertices) - 3) + u(*[c for v in vertices for c in v]) +
            b(len(indices) // 3 - 1) + b(*indices))


def pose3(x, y, z, q):
    return u(x, y, z, *q)


def ray(direction, origin, fraction_unit):
    return u(*direction, *origin, fraction_unit)


CUBE = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
TETRA = [(0, 0, 0), (0.8, 0, 0), (0, 0.8, 0), (0, 0, 0.8)]
IDENTITY = (0, 0, 0, 1)
TILTED = (0.2, 0.1, 0.3, 0.9)

SEEDS = {
    "box_box_overlap_2d": header(2, 0, 0) + box2(0.5, 0.25) + box2(0.3, 0.3) +
    pose2(0, 0, 0) + pose2(0.1, 0.05, 0.2) + u(0, 0, 0.2, 0) +
    ray((1, 0), (-0.5, 0), 0.5) + ray((0, -1), (0.1, 0.5), 0.5),
    "circle_polygon_sweep_2d": header(2, 0, 0) + circle(0.3) +
    polygon([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]) +
    pose2(-0.5, 0, 0) + pose2(0.5, 0, 0.3) + u(0.5, 0, 0, 0) +
    ray((1, 0.2), (-0.9, 0), 0) + ray((-1, 0), (0.9, 0.1), 1),
    "capsule_segment_far_2d": header(2, 0, 3) +
    capsule2((-0.5, 0), (0.5, 0), 0.2) + segment2((-0.3, -0.3), (0.3, 0.3)) +
    pose2(0, 0, 0) + pose2(0.05, 0.1, -0.5) + u(0, 0.1, -0.1, 0) +
    ray((0, 1), (0, -0.5), 0.3) + ray((1, 1), (-0.3, -0.3), 0.3),
    "polygons_tiny_2d": header(2, -3, 2) +
    polygon([(1, 0), (0.5, 0.86), (-0.5, 0.86), (-1, 0), (-0.5, -0.86),
             (0.5, -0.86)]) + polygon([(0, 0.9), (-0.8, -0.5), (0.8, -0.5)]) +
    pose2(0, 0, 0.1) + pose2(0.4, 0.1, 0.7) + u(0, 0, -0.5, 0) +
    ray((-1, 0), (0.9, 0), 0.5) + ray((0, 1), (0.4, -0.5), 0.5),
    "circles_touching_2d": header(2, 1, 1) + circle(0.5) + circle(0.5) +
    pose2(0, 0, 0) + pose2(0.25, 0, 0) + u(0, 0, 0, 0.3) +
    ray((1, 0), (-1, 0), 0.2) + ray((1, 0), (0.25, 0), 0.2),
    "box_box_rotated_3d": header(3, 0, 0) + box3(0.5, 0.3, 0.2) +
    box3(0.4, 0.4, 0.4) + pose3(0, 0, 0, IDENTITY) + pose3(0.15, 0.1, 0, TILTED) +
    u(0, 0, 0, 0, 0.2, 0) + ray((1, 0, 0), (-0.5, 0, 0), 0.5) +
    ray((0, 0, -1), (0.15, 0.1, 0.5), 0.5),
    "sphere_hull_sweep_3d": header(3, 0, 0) + sphere(0.3) + hull(CUBE) +
    pose3(-0.5, 0, 0, IDENTITY) + pose3(0.5, 0, 0, TILTED) +
    u(0.6, 0, 0, 0, 0, 0) + ray((1, 0, 0), (-0.9, 0, 0), 0) +
    ray((-1, 0.1, 0), (0.9, 0, 0), 1),
    "capsule_triangle_3d": header(3, 0, 1) +
    capsule3((-0.5, 0, 0), (0.5, 0, 0), 0.2) +
    triangle3((-0.5, -0.5, 0), (0.5, -0.5, 0), (0, 0.5, 0)) +
    pose3(0, 0, 0.02, IDENTITY) + pose3(0, 0, 0, IDENTITY) +
    u(0, 0, -0.1, 0, 0, 0) + ray((0, 0, -1), (0, 0, 0.5), 0.5) +
    ray((0, 0, -1), (0, 0, 0.5), 0.5),
    "hull_hull_large_3d": header(3, 5, 3) + hull(CUBE) + hull(TETRA) +
    pose3(0, 0, 0, TILTED) + pose3(0.1, 0.05, 0.05, IDENTITY) +
    u(0, 0, 0, -0.2, 0, 0) + ray((0, 1, 0), (0, -0.5, 0), 0.4) +
    ray((1, 0, 0), (-0.5, 0.02, 0.02), 0.4),
    "mesh_box_sweep_3d": header(3, 0, 0) +
    mesh([(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)], [0, 1, 2, 0, 2, 3]) +
    box3(0.2, 0.2, 0.2) + pose3(0, 0, 0, IDENTITY) + pose3(0, 0, 0.2, TILTED) +
    u(0, 0, 0, 0, 0, -0.2) + ray((0, 0, -1), (0.1, 0.1, 0.5), 0.3) +
    ray((1, 0, 0), (-0.5, 0, 0.2), 0.3),
    "mesh_mesh_3d": header(3, 0, 0) +
    mesh([(-1, -1, 0), (1, -1, 0), (0, 1, 0)], [0, 1, 2]) +
    mesh([(-1, 0, -1), (1, 0, -1), (0, 0, 1)], [0, 1, 2]) +
    pose3(0, 0, 0, IDENTITY) + pose3(0, 0, 0, IDENTITY) + u(0, 0, 0, 0, 0, 0),
}

os.makedirs(OUT, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(OUT, name + ".bin"), "wb") as f:
        f.write(data)

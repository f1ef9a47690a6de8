#!/usr/bin/python3
"""Writes the seed corpus of level_build_fuzzer (seeds/level_build/*.bin).

The byte format is the fuzzer's decoding (level_build_fuzzer.cc): a mode byte
(0 grid rings, 1 stars, 2 combs), then the mode's counts and coordinates, one
byte each, then six rays (origin x, origin y, angle as fractions of 255).
Each seed is a fixed byte pattern, so rerunning rewrites the same bytes.
"""
import os
import random

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds",
                   "level_build")


def pattern(seed, length):
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(length))


SEEDS = {
    # A unit-scale square (grid points 0..4) with no hole or chain: valid.
    "grid_square": bytes([0, 4, 1, 1, 8, 8, 12, 8, 12, 12, 8, 12, 0, 0]),
    # Random grid rings: mostly refused (crossings, repeats, collinear runs).
    "grid_random": b"\x00" + pattern(1, 200),
    # Stars with holes and chains, near the origin and far from it.
    "stars_near": b"\x01\x00" + pattern(2, 600),
    "stars_far": b"\x01\x01" + pattern(3, 600),
    # A dense star outline (63 points) with two holes.
    "star_dense": b"\x01\x00\x00\x3c" + pattern(4, 400),
    # Combs of bars with square holes in their base row.
    "comb_holes": b"\x02\x00\x27" + pattern(5, 200),
    "comb_far": b"\x02\x02\x20" + pattern(6, 200),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(OUT, name + ".bin"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

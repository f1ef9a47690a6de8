// Seeded test meshes: a height-field terrain and a triangle soup.
#ifndef SATOR_TESTS_CORE_COLLIDE3D_MESH_TEST_UTIL_H_
#define SATOR_TESTS_CORE_COLLIDE3D_MESH_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/collide3d/cast_test_util.h"
#include "sator/core/collide3d/triangle_mesh.h"

namespace sator::testing_util {

struct MeshInput {
  std::vector<Vec3> vertices;
  std::vector<std::uint32_t> indices;
};

// An n x n grid of quads over [-size, size]^2 in x-z with random heights in
// [-bump, bump]: 2 n^2 triangles.
inline MeshInput Terrain(int n, float size, float bump, unsigned seed) {
  Rng rng(seed);
  MeshInput m;
  for (int j = 0; j <= n; ++j) {
    for (int i = 0; i <= n; ++i) {
      m.vertices.push_back({-size + 2 * size * static_cast<float>(i) / n,
                            rng.Uniform(-bump, bump),
                            -size + 2 * size * static_cast<float>(j) / n});
    }
  }
  const auto at = [n](int i, int j) {
    return static_cast<std::uint32_t>(j * (n + 1) + i);
  };
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      m.indices.insert(m.indices.end(), {at(i, j), at(i, j + 1), at(i + 1, j)});
      m.indices.insert(m.indices.end(),
                       {at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)});
    }
  }
  return m;
}

// `count` random triangles with vertices in a cube of half size `half`,
// each with edges up to `size` long (non-degenerate by rejection).
inline MeshInput Soup(int count, float half, float size, unsigned seed) {
  Rng rng(seed);
  MeshInput m;
  while (static_cast<int>(m.indices.size()) < 3 * count) {
    const Vec3 a = rng.InBox(half);
    const Vec3 b = a + rng.InBox(size);
    const Vec3 c = a + rng.InBox(size);
    if (Length(Cross(b - a, c - a)) < 1e-2f * size * size) continue;
    const auto base = static_cast<std::uint32_t>(m.vertices.size());
    m.vertices.insert(m.vertices.end(), {a, b, c});
    m.indices.insert(m.indices.end(), {base, base + 1, base + 2});
  }
  return m;
}

}  // namespace sator::testing_util

#endif  // SATOR_TESTS_CORE_COLLIDE3D_MESH_TEST_UTIL_H_

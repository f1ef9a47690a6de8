// White-box tests of the hull-hull SAT (core/src/collide3d/hull_sat.cc):
// its pruned search against the exhaustive SAT on seeded random hull pairs.
//
// The reference is written here from the definition and runs in double: the
// separation along an axis is min_B(n.x) - max_A(n.x) over all vertices, and
// the axes are every face normal of A and of B and every cross product of an
// edge of A with an edge of B (no Gauss-map pruning, no bounds). For
// overlapping pairs the SAT depth is minus the largest separation over all
// of them; for separated pairs HullHullAxis reports the largest separation
// over the face axes only (documented in hull_sat.h).
#include "collide3d/hull_sat.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "collide3d/convex_polytope.h"
#include "collide3d/double_vec3.h"
#include "collide3d/sat_polytope.h"
#include "collide3d/typed3d.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/overlap3d.h"
#include "support/test_scale.h"
#include "test_shapes3d.h"

namespace sator {
namespace {

struct D3 {
  double x = 0;
  double y = 0;
  double z = 0;
};
D3 ToD3(Vec3 v) { return {v.x, v.y, v.z}; }
D3 Sub(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
double DotD(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
D3 CrossD(D3 a, D3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// A hull's vertices (B's placed in A's frame, in double from the float
// pose), face normals and edge directions.
struct RefHull {
  std::vector<D3> vertices;
  std::vector<D3> normals;
  std::vector<D3> edges;
};

// Rotation by a unit quaternion in double: v + 2w (u x v) + 2 u x (u x v).
D3 RotateD(Quat q, D3 v) {
  const D3 u{q.x, q.y, q.z};
  const D3 c = CrossD(u, v);
  const D3 t{2 * c.x, 2 * c.y, 2 * c.z};
  const D3 c2 = CrossD(u, t);
  return {v.x + q.w * t.x + c2.x, v.y + q.w * t.y + c2.y,
          v.z + q.w * t.z + c2.z};
}

RefHull Place(const ConvexHull& h, const Pose3& pose) {
  RefHull out;
  for (const Vec3& v : h.vertices) {
    const D3 r = RotateD(pose.rotation, ToD3(v));
    out.vertices.push_back(
        {r.x + pose.position.x, r.y + pose.position.y, r.z + pose.position.z});
  }
  for (const ConvexHull::Face& f : h.faces) {
    out.normals.push_back(RotateD(pose.rotation, ToD3(f.normal)));
  }
  for (const ConvexHull::Edge& e : h.edges) {
    out.edges.push_back(Sub(out.vertices[e.b], out.vertices[e.a]));
  }
  return out;
}

// min_B(n.x) - max_A(n.x) for a unit n.
double Separation(const RefHull& a, const RefHull& b, D3 n) {
  double max_a = -1e300;
  double min_b = 1e300;
  for (const D3& v : a.vertices) max_a = std::max(max_a, DotD(n, v));
  for (const D3& v : b.vertices) min_b = std::min(min_b, DotD(n, v));
  return min_b - max_a;
}

struct Reference {
  double faces = -1e300;  // Largest separation over the face axes.
  double all = -1e300;    // Over every axis (the exact SAT).
};

Reference ExhaustiveSat(const RefHull& a, const RefHull& b) {
  Reference r;
  for (const D3& n : a.normals)
    r.faces = std::max(r.faces, Separation(a, b, n));
  for (const D3& n : b.normals) {
    r.faces = std::max(r.faces, Separation(a, b, {-n.x, -n.y, -n.z}));
  }
  r.all = r.faces;
  for (const D3& ea : a.edges) {
    for (const D3& eb : b.edges) {
      const D3 c = CrossD(ea, eb);
      const double len = std::sqrt(DotD(c, c));
      if (!(len > 1e-9 * std::sqrt(DotD(ea, ea) * DotD(eb, eb)))) continue;
      const D3 n{c.x / len, c.y / len, c.z / len};
      r.all = std::max(
          {r.all, Separation(a, b, n), Separation(a, b, {-n.x, -n.y, -n.z})});
    }
  }
  return r;
}

// Hulls of 16 points on ellipsoids (the benchmark's kind: every point is a
// vertex) and the test factory's random clouds of 6 to 25 points.
std::vector<std::shared_ptr<const ConvexHull>> HullPool(unsigned seed) {
  testing::ShapeFactory factory(seed);
  std::vector<std::shared_ptr<const ConvexHull>> pool;
  for (int i = 0; i < 24; ++i) {
    pool.push_back(std::get<std::shared_ptr<const ConvexHull>>(
        factory.Make(ShapeKind3::kHull)));
  }
  while (pool.size() < 48) {
    const Vec3 r{factory.U(0.4f, 1.0f), factory.U(0.4f, 1.0f),
                 factory.U(0.4f, 1.0f)};
    std::vector<Vec3> pts;
    for (int i = 0; i < 16; ++i) {
      const Vec3 d = factory.RandomUnit();
      pts.push_back({r.x * d.x, r.y * d.y, r.z * d.z});
    }
    auto hull = MakeConvexHull(pts);
    if (hull.ok()) pool.push_back(*hull);
  }
  return pool;
}

float Extent(const ConvexHull& h) {
  float m = 0.0f;
  for (const Vec3& v : h.vertices) m = std::max(m, Length(v));
  return m;
}

// Checks the pruned SAT (HullHullAxis) against the exhaustive SAT on `pairs`
// random pairs of `pool`, B within `spread` of A: the same separation within
// float round-off of the problem's size, and a normal along which the
// measured separation is that value (the axis is equivalent even where two
// axes tie). Counts the overlapping pairs and those an edge axis decides.
struct ExhaustiveAgreement {
  int overlapping = 0;
  int edge_axes = 0;
};
ExhaustiveAgreement CheckAgainstExhaustiveSat(
    const std::vector<std::shared_ptr<const ConvexHull>>& pool,
    testing::ShapeFactory& factory, int pairs, float spread) {
  ExhaustiveAgreement counts;
  for (int k = 0; k < pairs; ++k) {
    const ConvexHull& a = *pool[factory.rng()() % pool.size()];
    const ConvexHull& b = *pool[factory.rng()() % pool.size()];
    const Pose3 b_in_a{factory.RandomVector(0.0f, spread),
                       factory.RandomRotation()};
    internal::HullInA b_data;
    const internal::SatAxis axis =
        internal::HullHullAxis(a, b, b_in_a, /*early_out=*/false, &b_data);
    const RefHull ra = Place(a, Pose3{});
    const RefHull rb = Place(b, b_in_a);
    const Reference ref = ExhaustiveSat(ra, rb);
    const double tol = 2e-6 * (Extent(a) + Extent(b) + Length(b_in_a.position));
    SCOPED_TRACE(::testing::Message() << "pair " << k);
    if (ref.all <= 0.0) {
      ++counts.overlapping;
      if (axis.kind == internal::AxisKind::kEdges) ++counts.edge_axes;
      EXPECT_NEAR(axis.separation, ref.all, tol);
    } else if (ref.faces > 0.0) {
      EXPECT_NEAR(axis.separation, ref.faces, tol);
    } else {
      // Only an edge axis separates: found in the edge search.
      EXPECT_GT(axis.separation, -tol);
      EXPECT_LE(axis.separation, ref.all + tol);
    }
    EXPECT_NEAR(Separation(ra, rb, ToD3(axis.normal)), axis.separation, tol);
    EXPECT_NEAR(Length(axis.normal), 1.0f, 1e-5f);
  }
  return counts;
}

// The pruned SAT gives the exhaustive SAT's answer on 8,000 random pairs
// (about half overlapping).
TEST(HullSatTest, MatchesExhaustiveSat) {
  const auto pool = HullPool(41);
  testing::ShapeFactory factory(42);
  const ExhaustiveAgreement counts =
      CheckAgainstExhaustiveSat(pool, factory, 8000, 2.5f);
  // The sample exercises both outcomes and edge-edge minima.
  EXPECT_GT(counts.overlapping, 2400);
  EXPECT_GT(counts.edge_axes, 400);
}

// Hulls of 40 to 64 points on ellipsoids (114 to 186 edges: the edge gather
// then spans two or three 64-bit words per face) give the exhaustive SAT's
// answer too.
TEST(HullSatTest, LargeHullsMatchExhaustiveSat) {
  testing::ShapeFactory factory(44);
  std::vector<std::shared_ptr<const ConvexHull>> pool;
  size_t most_edges = 0;
  while (pool.size() < 12) {
    const Vec3 r{factory.U(0.4f, 1.0f), factory.U(0.4f, 1.0f),
                 factory.U(0.4f, 1.0f)};
    const int n = 40 + static_cast<int>(factory.rng()() % 25);
    std::vector<Vec3> pts;
    for (int i = 0; i < n; ++i) {
      const Vec3 d = factory.RandomUnit();
      pts.push_back({r.x * d.x, r.y * d.y, r.z * d.z});
    }
    auto hull = MakeConvexHull(pts);
    if (!hull.ok()) continue;
    most_edges = std::max(most_edges, (*hull)->edges.size());
    pool.push_back(*hull);
  }
  ASSERT_GT(most_edges, 128u);
  constexpr int kPairs = sator::testing::ScaledCount(1500);
  const ExhaustiveAgreement counts =
      CheckAgainstExhaustiveSat(pool, factory, kPairs, 2.0f);
  EXPECT_GT(counts.overlapping, kPairs / 3);
  EXPECT_GT(counts.edge_axes, kPairs / 15);
}

// The same agreement with the generic SAT of sat_polytope.cc (the path the
// other polytope pairs take, which tests every edge pair's arcs) on
// overlapping pairs, and the early-out boolean agrees with the sign of the
// separation away from touching.
TEST(HullSatTest, MatchesGenericSatAndEarlyOut) {
  const auto pool = HullPool(43);
  testing::ShapeFactory factory(44);
  for (int k = 0; k < 20000; ++k) {
    const auto& a = pool[factory.rng()() % pool.size()];
    const auto& b = pool[factory.rng()() % pool.size()];
    const Pose3 b_in_a{factory.RandomVector(0.0f, 2.5f),
                       factory.RandomRotation()};
    internal::HullInA b_data;
    const internal::SatAxis axis =
        internal::HullHullAxis(*a, *b, b_in_a, /*early_out=*/false, &b_data);
    internal::PolyData generic_b;
    internal::MakePolyData(ConvexShape3{b}, b_in_a, &generic_b);
    const internal::SatAxis generic = internal::SatQuery(
        internal::HullRef(*a), generic_b.Ref(), /*early_out=*/false);
    const float tol =
        2e-6f * (Extent(*a) + Extent(*b) + Length(b_in_a.position));
    SCOPED_TRACE(::testing::Message() << "pair " << k);
    if (generic.separation <= 0.0f) {
      EXPECT_NEAR(axis.separation, generic.separation, tol);
    }
    if (std::fabs(axis.separation) > tol) {
      internal::HullInA unused;
      const bool apart =
          internal::HullHullAxis(*a, *b, b_in_a, /*early_out=*/true, &unused)
              .separation > 0.0f;
      EXPECT_EQ(apart, axis.separation > 0.0f);
      EXPECT_EQ(OverlapHullHull(*a, *b, b_in_a), axis.separation <= 0.0f);
    }
  }
}

// The factories fill the vertex -> edge rows (each vertex lists exactly the
// edges that touch it, each edge twice in all), and a hull built by hand
// without them gets the same answers: the SAT then builds the rows itself.
TEST(HullSatTest, VertexEdgeRowsFromFactoryOrBuiltPerCall) {
  const auto pool = HullPool(45);
  for (const auto& hull : pool) {
    const int vertices = static_cast<int>(hull->vertices.size());
    ASSERT_EQ(hull->vertex_edge_first.size(),
              static_cast<size_t>(vertices) + 1);
    ASSERT_EQ(hull->vertex_edges.size(), 2 * hull->edges.size());
    for (int v = 0; v < vertices; ++v) {
      std::vector<int> listed;
      for (int k = hull->vertex_edge_first[v];
           k < hull->vertex_edge_first[v + 1]; ++k) {
        listed.push_back(hull->vertex_edges[k]);
      }
      std::vector<int> touching;
      for (size_t j = 0; j < hull->edges.size(); ++j) {
        if (hull->edges[j].a == v || hull->edges[j].b == v) {
          touching.push_back(static_cast<int>(j));
        }
      }
      std::sort(listed.begin(), listed.end());
      EXPECT_EQ(listed, touching) << "vertex " << v;
    }
  }
  testing::ShapeFactory factory(46);
  for (int k = 0; k < 4000; ++k) {
    const auto& a = pool[factory.rng()() % pool.size()];
    const auto& b = pool[factory.rng()() % pool.size()];
    ConvexHull bare = *b;
    bare.vertex_edge_first.clear();
    bare.vertex_edges.clear();
    const Pose3 b_in_a{factory.RandomVector(0.0f, 2.5f),
                       factory.RandomRotation()};
    internal::HullInA with_rows;
    internal::HullInA without_rows;
    const internal::SatAxis x =
        internal::HullHullAxis(*a, *b, b_in_a, false, &with_rows);
    const internal::SatAxis y =
        internal::HullHullAxis(*a, bare, b_in_a, false, &without_rows);
    SCOPED_TRACE(::testing::Message() << "pair " << k);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.separation, y.separation);
    EXPECT_EQ(x.normal.x, y.normal.x);
    EXPECT_EQ(x.normal.y, y.normal.y);
    EXPECT_EQ(x.normal.z, y.normal.z);
  }
}

// Both factories fill the structure-of-arrays layout of the vertices and
// face planes (each array padded to a multiple of 4 with copies of its first
// entry), an inscribed ball after them (centre and radius: inside every
// face plane by at least the radius) and each edge's pole and arc plane, and
// hulls built by hand without it get
// the same answers: the SAT then builds it per call.
void ExpectSoaLayout(const ConvexHull& h) {
  const int v = static_cast<int>(h.vertices.size());
  const int f = static_cast<int>(h.faces.size());
  const int vp = (v + 3) / 4 * 4;
  const int fp = (f + 3) / 4 * 4;
  const int e = static_cast<int>(h.edges.size());
  const int words = (e + 63) / 64;
  ASSERT_EQ(h.soa.size(),
            static_cast<size_t>(3 * vp + 4 * fp + 8 + 8 * e + 2 * words * fp));
  // Per face: its edges as bit sets, 64 edges per word; the padding faces
  // have none.
  const float* face_edges = h.soa.data() + 3 * vp + 4 * fp + 8 + 8 * e;
  for (int g = f; g < fp; ++g) {
    for (int w = 0; w < words; ++w) {
      std::uint64_t word;
      std::memcpy(&word, face_edges + 2 * (words * g + w), sizeof(word));
      EXPECT_EQ(word, 0u) << "padding face " << g;
    }
  }
  for (int g = 0; g < f; ++g) {
    for (int i = 0; i < e; ++i) {
      std::uint64_t word;
      std::memcpy(&word, face_edges + 2 * (words * g + i / 64), sizeof(word));
      const bool listed = ((word >> (i % 64)) & 1) != 0;
      const bool borders =
          h.edges[i].face_left == g || h.edges[i].face_right == g;
      EXPECT_EQ(listed, borders) << "face " << g << " edge " << i;
    }
    // No bits past the last edge.
    std::uint64_t last;
    std::memcpy(&last, face_edges + 2 * (words * g + words - 1), sizeof(last));
    if (e % 64 != 0) {
      EXPECT_EQ(last >> (e % 64), 0u) << "face " << g;
    }
  }
  // Per edge: pole, knife flag, arc plane (n2 x n1 unless a knife edge).
  for (int i = 0; i < e; ++i) {
    const float* edge = h.soa.data() + 3 * vp + 4 * fp + 8 + 8 * i;
    const Vec3 n1 = h.faces[h.edges[i].face_left].normal;
    const Vec3 n2 = h.faces[h.edges[i].face_right].normal;
    const Vec3 plane = Cross(n2, n1);
    EXPECT_TRUE(edge[3] == 0.0f || edge[3] == 1.0f);
    if (edge[3] == 0.0f) {
      EXPECT_EQ(edge[4], plane.x);
      EXPECT_EQ(edge[5], plane.y);
      EXPECT_EQ(edge[6], plane.z);
    }
  }
  const float* ball = h.soa.data() + 3 * vp + 4 * fp;
  EXPECT_GT(ball[3], 0.0f);
  for (const ConvexHull::Face& face : h.faces) {
    const double inside = static_cast<double>(face.offset) -
                          (static_cast<double>(face.normal.x) * ball[0] +
                           static_cast<double>(face.normal.y) * ball[1] +
                           static_cast<double>(face.normal.z) * ball[2]);
    EXPECT_GE(inside, static_cast<double>(ball[3]));
  }
  for (int i = 0; i < vp; ++i) {
    const Vec3 p = h.vertices[i < v ? i : 0];
    EXPECT_EQ(h.soa[i], p.x);
    EXPECT_EQ(h.soa[vp + i], p.y);
    EXPECT_EQ(h.soa[2 * vp + i], p.z);
  }
  const float* planes = h.soa.data() + 3 * vp;
  for (int i = 0; i < fp; ++i) {
    const ConvexHull::Face& face = h.faces[i < f ? i : 0];
    EXPECT_EQ(planes[i], face.normal.x);
    EXPECT_EQ(planes[fp + i], face.normal.y);
    EXPECT_EQ(planes[2 * fp + i], face.normal.z);
    EXPECT_EQ(planes[3 * fp + i], face.offset);
  }
}

TEST(HullSatTest, SoaLayoutFromFactoriesOrBuiltPerCall) {
  auto pool = HullPool(48);
  // A cube from its faces (6 faces: two of padding) and a hull with a
  // vertex count that is not a multiple of 4.
  const std::vector<Vec3> cube = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1},
                                  {-1, 1, -1},  {-1, -1, 1}, {1, -1, 1},
                                  {1, 1, 1},    {-1, 1, 1}};
  const std::vector<std::vector<int>> cube_faces = {{0, 3, 2, 1}, {4, 5, 6, 7},
                                                    {0, 1, 5, 4}, {2, 3, 7, 6},
                                                    {1, 2, 6, 5}, {0, 4, 7, 3}};
  auto from_faces = MakeConvexHullFromFaces(cube, cube_faces);
  ASSERT_TRUE(from_faces.ok()) << from_faces.status();
  pool.push_back(*from_faces);
  auto pyramid = MakeConvexHull(
      std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}});
  ASSERT_TRUE(pyramid.ok()) << pyramid.status();
  pool.push_back(*pyramid);
  for (const auto& hull : pool) {
    SCOPED_TRACE(::testing::Message() << hull->vertices.size() << " vertices");
    ExpectSoaLayout(*hull);
  }
  testing::ShapeFactory factory(49);
  for (int k = 0; k < 4000; ++k) {
    const auto& a = pool[factory.rng()() % pool.size()];
    const auto& b = pool[factory.rng()() % pool.size()];
    ConvexHull bare_a = *a;
    ConvexHull bare_b = *b;
    bare_a.soa.clear();
    bare_b.soa.clear();
    const Pose3 b_in_a{factory.RandomVector(0.0f, 2.5f),
                       factory.RandomRotation()};
    SCOPED_TRACE(::testing::Message() << "pair " << k);
    // Without early out both layouts give the best axis, bit for bit. With
    // it, a separated pair returns the first separating axis its bounds
    // reach, and a hull without `soa` bounds at its vertex mean rather than
    // its inscribed ball: the same verdict, a separation that is positive
    // and at most the best; an overlapping pair still gets the best axis.
    internal::HullInA scratch;
    const internal::SatAxis x =
        internal::HullHullAxis(*a, *b, b_in_a, false, &scratch);
    const internal::SatAxis y =
        internal::HullHullAxis(bare_a, bare_b, b_in_a, false, &scratch);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.separation, y.separation);
    EXPECT_EQ(x.normal.x, y.normal.x);
    EXPECT_EQ(x.normal.y, y.normal.y);
    EXPECT_EQ(x.normal.z, y.normal.z);
    EXPECT_EQ(x.index_a, y.index_a);
    EXPECT_EQ(x.index_b, y.index_b);
    for (const bool bare : {false, true}) {
      const internal::SatAxis early =
          bare ? internal::HullHullAxis(bare_a, bare_b, b_in_a, true, &scratch)
               : internal::HullHullAxis(*a, *b, b_in_a, true, &scratch);
      SCOPED_TRACE(::testing::Message() << "early out, bare " << bare);
      if (x.separation > 0.0f) {
        EXPECT_GT(early.separation, 0.0f);
        EXPECT_LE(early.separation, x.separation);
      } else {
        EXPECT_EQ(early.separation, x.separation);
        EXPECT_EQ(early.index_a, x.index_a);
        EXPECT_EQ(early.index_b, x.index_b);
      }
    }
  }
}

// The precomputed ball must lie in the hull of the vertices, also for a hull
// given by its faces whose vertices lie off their face planes by up to about
// twice the merge tolerance (which MakeConvexHullFromFaces accepts): thin
// prisms far from the origin, their top corners moved by up to 2.5 merge
// tolerances. Checked against every plane through three vertices that has
// all vertices on one side (the facets of the exact hull), in double. A ball
// from the face planes less the tolerance alone (before the flatness term)
// poked out of some of the prisms this draws (about 6% are accepted).
TEST(HullSatTest, InscribedBallLiesInHullOfVerticesOfFacesOffTheirPlanes) {
  using internal::D3;
  using internal::ToD3;
  std::mt19937 rng(1207);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const double base = 1e4;
  const double merge_tolerance = 4e-6 * (3 * (base + 1.0));
  int accepted = 0;
  for (int k = 0; k < 4000; ++k) {
    std::vector<Vec3> v;
    for (const double z : {0.0, 0.02}) {
      for (const auto& [x, y] : {std::pair{-1.0, -1.0}, std::pair{1.0, -1.0},
                                 std::pair{1.0, 1.0}, std::pair{-1.0, 1.0}}) {
        const double dz = z > 0.0 ? 2.5 * merge_tolerance * unit(rng) : 0.0;
        v.push_back({static_cast<float>(base + x), static_cast<float>(base + y),
                     static_cast<float>(base + z + dz)});
      }
    }
    const std::vector<std::vector<int>> faces = {{0, 3, 2, 1}, {4, 5, 6, 7},
                                                 {0, 1, 5, 4}, {2, 3, 7, 6},
                                                 {1, 2, 6, 5}, {0, 4, 7, 3}};
    auto hull = MakeConvexHullFromFaces(v, faces);
    if (!hull.ok()) continue;
    ++accepted;
    const ConvexHull& h = **hull;
    const int vp = (static_cast<int>(h.vertices.size()) + 3) / 4 * 4;
    const int fp = (static_cast<int>(h.faces.size()) + 3) / 4 * 4;
    const float* ball = h.soa.data() + 3 * vp + 4 * fp;
    const D3 c{ball[0], ball[1], ball[2]};
    const int n = static_cast<int>(h.vertices.size());
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        for (int l = j + 1; l < n; ++l) {
          const D3 p = ToD3(h.vertices[i]);
          D3 normal = Cross(ToD3(h.vertices[j]) - p, ToD3(h.vertices[l]) - p);
          const double length = std::sqrt(Dot(normal, normal));
          if (length < 1e-9) continue;
          normal = (1.0 / length) * normal;
          double lo = 1e300, hi = -1e300;
          for (int m = 0; m < n; ++m) {
            const double t = Dot(normal, ToD3(h.vertices[m]) - p);
            lo = std::min(lo, t);
            hi = std::max(hi, t);
          }
          if (lo < -1e-9 && hi > 1e-9) continue;  // Not a supporting plane.
          const double outward = hi > 1e-9 ? -1.0 : 1.0;
          const double depth = -outward * Dot(normal, c - p);
          SCOPED_TRACE(::testing::Message() << "prism " << k);
          EXPECT_GE(depth, static_cast<double>(ball[3]));
        }
      }
    }
  }
  EXPECT_GT(accepted, 100);
}

// The overlap of the posed hulls along unit n (B pushed along +n), in
// double.
double OverlapAlong(const ConvexHull& a, const Pose3& pa, const ConvexHull& b,
                    const Pose3& pb, Vec3 n) {
  return -Separation(Place(a, pa), Place(b, pb), ToD3(n));
}

void ExpectSymmetricDepth(const std::shared_ptr<const ConvexHull>& a,
                          const Pose3& pa,
                          const std::shared_ptr<const ConvexHull>& b,
                          const Pose3& pb, double tol) {
  const ContactResult<3> ab = Contact(ConvexShape3{a}, pa, ConvexShape3{b}, pb);
  const ContactResult<3> ba = Contact(ConvexShape3{b}, pb, ConvexShape3{a}, pa);
  ASSERT_TRUE(ab.overlapping);
  ASSERT_TRUE(ba.overlapping);
  EXPECT_NEAR(ab.depth, ba.depth, tol);
  // Each depth is the overlap along its own normal.
  EXPECT_NEAR(OverlapAlong(*a, pa, *b, pb, ab.normal), ab.depth, tol);
  EXPECT_NEAR(OverlapAlong(*b, pb, *a, pa, ba.normal), ba.depth, tol);
}

// Seed regression_hull_hull_short_edge_3d.bin: B
// has a 3-unit edge on a 1e5 hull, inside a quad merged within the hull
// tolerance, so the edge is 2.8 degrees off perpendicular to the quad's
// normal. An edge pair axis formed from that edge's direction lies on
// neither arc, and reading Contact(B, A)'s depth off the edges along it
// would give 16% of the size too shallow (41310 against 45976 the other way
// round). With the arc's
// pole (EdgePole) both orders agree with each other and with the overlap
// along their normals.
TEST(HullSatTest, ShortEdgeOfMergedFaceGivesSymmetricDepth) {
  const auto a = *MakeConvexHull({{-50001.5273f, -50001.5273f, -50001.5273f},
                                  {50001.5273f, -50001.5273f, -50001.5273f},
                                  {50001.5273f, -50001.5273f, 50001.5273f},
                                  {-50001.5273f, -50001.5273f, 50001.5273f},
                                  {-50001.5273f, 50001.5273f, -49821.4648f},
                                  {50001.5273f, 50001.5273f, 50001.5273f},
                                  {-49998.4727f, 50001.5273f, 50001.5273f}});
  const auto b = *MakeConvexHull({{50001.5273f, 3125.09546f, 0},
                                  {-62501.9062f, 411.999878f, -35938.5977f},
                                  {10000.916f, 29999.6934f, 90002.1406f},
                                  {0, 0, 80001.2266f},
                                  {-80004.2734f, -3.05185103f, 0},
                                  {0, -6253.24268f, -3.05185103f},
                                  {0, -6253.24268f, 0},
                                  {0, 0, -19998.7793f}});
  const Pose3 pa{{-100006.109f, 100000, 260002.453f},
                 Normalize(Quat{-0.00859048031f, -0.121137127f, -0.00874185469f,
                                -0.992560029f})};
  const Pose3 pb{{-54509.1094f, 107995.852f, 260002.453f}, Quat{}};
  // The fuzzer's slack: 1e-4 of the problem's size.
  ExpectSymmetricDepth(a, pa, b, pb, 60.0);
}

// The same on random hulls of size 1e5 far from the origin whose points
// come in close pairs (edges of 1e-5 to 1e-4 of the size), so that merged
// faces with short, tilted edges are common: both orders agree within 1e-5
// of the size and each depth is the overlap along its normal.
TEST(HullSatTest, ShortEdgesFarFromOriginGiveSymmetricDepth) {
  testing::ShapeFactory factory(45);
  constexpr float kScale = 1e5f;
  auto hull = [&] { return testing::ShortEdgeHull(factory, kScale); };
  int checked = 0;
  for (int k = 0; k < 3000; ++k) {
    const auto a = hull();
    const auto b = hull();
    const Vec3 base{1e5f, 1e5f, 1e5f};
    const Pose3 pa{base, factory.RandomRotation()};
    const Pose3 pb{base + factory.RandomVector(0.0f, 1.5f * kScale),
                   factory.RandomRotation()};
    if (!Contact(ConvexShape3{a}, pa, ConvexShape3{b}, pb).overlapping ||
        !Contact(ConvexShape3{b}, pb, ConvexShape3{a}, pa).overlapping) {
      continue;
    }
    SCOPED_TRACE(::testing::Message() << "pair " << k);
    ExpectSymmetricDepth(a, pa, b, pb, 1e-5 * 4 * kScale);
    ++checked;
  }
  EXPECT_GT(checked, 1000);
}

// ---- Knife edges: slivers whose faces meet nearly antiparallel ----------
//
// Seed regression_hull_hull_knife_edge_3d.bin: B is a tetrahedron 80,000 across
// and about 3 thick, so two of its faces meet at an edge 1.4e-5 rad from
// antiparallel. That edge's arc plane n2 x n1 is 1.4e-5 long and 1% off in
// direction, the pole built from the normals as well: a separation read off
// that edge pair along an axis where the edges do not support would beat
// the true best edge axis (-49,897), and the check of the winner at the end
// would fall back to the best face (depth 50,001.5 against 49,897.4 the
// other way round). Knife edges use the edge's direction for both
// (EdgePole, ArcPlane) and are measured by projection.
TEST(HullSatTest, KnifeEdgeOfSliverTetrahedronGivesSymmetricDepth) {
  constexpr float kH = 50001.5273f;
  const auto a = *MakeConvexHull({{-kH, -kH, -kH},
                                  {-kH, -kH, kH},
                                  {-kH, kH, -kH},
                                  {-kH, kH, kH},
                                  {kH, -kH, -kH},
                                  {kH, -kH, kH},
                                  {kH, kH, -kH},
                                  {kH, kH, kH}});
  const auto b = *MakeConvexHull({{7031.46436f, 0, 0},
                                  {311.288788f, 79689.9297f, 3.05185103f},
                                  {0, 311.288788f, 79689.9297f},
                                  {0, 0, 80001.2266f}});
  const Pose3 pa{{100000, 99987.7891f, 99987.7891f}, Quat{}};
  const Pose3 pb{{99987.7891f, 99987.7891f, 99987.7891f},
                 Normalize(Quat{-0.00015260186f, 0, 0, 1})};
  // The fuzzer's slack: 1e-4 of the problem's size.
  ExpectSymmetricDepth(a, pa, b, pb, 60.0);
}

// Seeded slivers: tetrahedra and wedges whose points lie within 1e-6 to
// 1e-3 of their size of a plane (knife edges between nearly antiparallel
// faces), against the benchmark's hulls and against each other, at random
// poses, both orders. The hull SAT must give the exhaustive SAT's
// separation (in double), as MatchesExhaustiveSat, and the two orders the
// same depth.
TEST(HullSatTest, SliversWithKnifeEdgesMatchExhaustiveSat) {
  const auto pool = HullPool(47);
  testing::ShapeFactory factory(48);
  auto sliver = [&] {
    for (;;) {
      const float size = std::pow(10.0f, factory.U(-1.0f, 4.0f));
      const float thickness = size * std::pow(10.0f, factory.U(-6.0f, -3.0f));
      const int n = 4 + static_cast<int>(factory.rng()() % 3);
      std::vector<Vec3> pts;
      for (int i = 0; i < n; ++i) {
        pts.push_back({factory.U(-size, size), factory.U(-size, size),
                       factory.U(-thickness, thickness)});
      }
      auto h = MakeConvexHull(pts);
      if (h.ok()) return *h;
    }
  };
  int overlapping = 0;
  int failures = 0;
  for (int k = 0; k < 6000; ++k) {
    const std::shared_ptr<const ConvexHull> s = sliver();
    std::shared_ptr<const ConvexHull> other =
        k % 3 == 0 ? sliver() : pool[factory.rng()() % pool.size()];
    float other_size = Extent(*other);
    const float s_size = Extent(*s);
    // Scale the pool hull to the sliver's size so that they meet.
    if (k % 3 != 0) {
      std::vector<Vec3> scaled;
      for (const Vec3& v : other->vertices) {
        scaled.push_back((s_size / other_size) * v);
      }
      other = *MakeConvexHull(scaled);
      other_size = Extent(*other);
    }
    const Pose3 b_in_a{s_size * factory.RandomVector(0.0f, 1.2f),
                       factory.RandomRotation()};
    for (int order = 0; order < 2; ++order) {
      const ConvexHull& a = order == 0 ? *s : *other;
      const ConvexHull& b = order == 0 ? *other : *s;
      internal::HullInA b_data;
      const internal::SatAxis axis =
          internal::HullHullAxis(a, b, b_in_a, /*early_out=*/false, &b_data);
      const RefHull ra = Place(a, Pose3{});
      const RefHull rb = Place(b, b_in_a);
      const Reference ref = ExhaustiveSat(ra, rb);
      const double tol = 2e-6 * (s_size + other_size + Length(b_in_a.position));
      if (ref.all > 0.0) continue;
      ++overlapping;
      const double along = Separation(ra, rb, ToD3(axis.normal));
      const bool ok = std::fabs(axis.separation - ref.all) <= tol &&
                      std::fabs(along - axis.separation) <= tol;
      if (!ok) {
        ++failures;
        ADD_FAILURE() << "pair " << k << " order " << order << ": separation "
                      << axis.separation << " along its normal " << along
                      << ", exhaustive " << ref.all << " (tol " << tol << ")";
      }
      if (failures > 20) return;
    }
  }
  EXPECT_GT(overlapping, 3000);
}

// ---- Stacked shapes: faces against faces, with a little rotation jitter ---
//
// Hulls stacked face to face (a few 1e-6 rad of jitter), overlapping by
// 1e-3: an edge pair at an angle of about 1e-5 passes the parallel test, its
// float cross product points a few percent off, and a separation read off
// the two edges would exceed the true one and call them apart
// (kEdgeReadSine, sat_polytope.h). These tests place random hulls and
// prisms (long parallel edges) face to face and check both SAT paths
// against the double-precision exhaustive SAT.

// An n-gon prism of circumradius r and half height h, turned by `phase`.
std::shared_ptr<const ConvexHull> Prism(int n, float r, float h, float phase) {
  std::vector<Vec3> pts;
  for (int i = 0; i < n; ++i) {
    const float angle = phase + 6.2831853f * static_cast<float>(i) / n;
    pts.push_back({r * std::cos(angle), r * std::sin(angle), -h});
    pts.push_back({r * std::cos(angle), r * std::sin(angle), h});
  }
  return *MakeConvexHull(pts);
}

Vec3 FaceCentre(const ConvexHull& h, int f) {
  const ConvexHull::Face& face = h.faces[static_cast<size_t>(f)];
  Vec3 sum{};
  for (int k = 0; k < face.vertex_count; ++k) {
    sum = sum + h.vertices[h.face_vertex_indices[face.first_index + k]];
  }
  return (1.0f / static_cast<float>(face.vertex_count)) * sum;
}

// The shortest rotation taking unit u to unit v (u != -v).
Quat Between(Vec3 u, Vec3 v) {
  const Vec3 c = Cross(u, v);
  return Normalize(Quat{c.x, c.y, c.z, 1.0f + Dot(u, v)});
}

// B placed so that its face fb lies against A's face fa, turned about the
// face normal by `yaw`, tilted by up to `jitter` radians, pushed into A by
// `depth` along A's face normal and moved sideways by `lateral`.
Pose3 Stack(const ConvexHull& a, int fa, const ConvexHull& b, int fb, float yaw,
            Vec3 tilt_axis, float jitter, float depth, Vec3 lateral) {
  const Vec3 na = a.faces[static_cast<size_t>(fa)].normal;
  const Vec3 nb = b.faces[static_cast<size_t>(fb)].normal;
  // Half a turn about an axis across the normal where nb is already na.
  const Vec3 across = std::fabs(na.x) < 0.6f ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
  Quat q =
      Dot(nb, na) > 0.999999f
          ? Quat::FromAxisAngle(NormalizeOrZero(Cross(na, across)), 3.1415927f)
          : Between(nb, -na);
  q = Mul(Quat::FromAxisAngle(na, yaw), q);
  q = Normalize(Mul(Quat::FromAxisAngle(tilt_axis, jitter), q));
  const Vec3 lateral_in_plane = lateral - Dot(lateral, na) * na;
  const Vec3 target = FaceCentre(a, fa) - depth * na + lateral_in_plane;
  return {target - Rotate(q, FaceCentre(b, fb)), q};
}

TEST(HullSatTest, StackedHullsNeverReportMoreSeparationThanExists) {
  testing::ShapeFactory factory(46);
  std::vector<std::shared_ptr<const ConvexHull>> pool = HullPool(47);
  pool.resize(16);
  for (int n = 3; n <= 8; ++n) {
    for (int copy = 0; copy < 2; ++copy) {
      // One draw a statement: the order of a call's arguments is unspecified.
      const float radius = factory.U(0.5f, 1.0f);
      const float height = factory.U(0.15f, 0.8f);
      const float twist = factory.U(0.0f, 1.0f);
      pool.push_back(Prism(n, radius, height, twist));
    }
  }
  int overlapping = 0;
  int separated = 0;
  for (int k = 0; k < 20000; ++k) {
    const auto& a_ptr = pool[factory.rng()() % pool.size()];
    const auto& b_ptr = pool[factory.rng()() % pool.size()];
    const ConvexHull& a = *a_ptr;
    const ConvexHull& b = *b_ptr;
    const int fa = static_cast<int>(factory.rng()() % a.faces.size());
    const int fb = static_cast<int>(factory.rng()() % b.faces.size());
    const float yaw = (k % 2 == 0)
                          ? 1.5707964f * static_cast<float>(factory.rng()() % 4)
                          : factory.U(-3.1415927f, 3.1415927f);
    // Tilts from 1e-7 to 1e-3 radians, log-uniform.
    const float jitter = std::pow(10.0f, factory.U(-7.0f, -3.0f));
    const float size = Extent(a) + Extent(b);
    const Vec3 tilt_axis = factory.RandomUnit();
    const float lift = factory.U(-0.02f, 0.05f) * size;
    const Vec3 slide = size * factory.RandomVector(0.0f, 0.3f);
    const Pose3 b_in_a =
        Stack(a, fa, b, fb, yaw, tilt_axis, jitter, lift, slide);
    const RefHull ra = Place(a, Pose3{});
    const RefHull rb = Place(b, b_in_a);
    const Reference ref = ExhaustiveSat(ra, rb);
    const double whole = size + Length(b_in_a.position);
    const double tol = 2e-6 * whole;
    SCOPED_TRACE(::testing::Message() << "pair " << k);
    internal::HullInA b_data;
    const internal::SatAxis axis =
        internal::HullHullAxis(a, b, b_in_a, /*early_out=*/false, &b_data);
    internal::PolyData generic_b;
    internal::MakePolyData(ConvexShape3{b_ptr}, b_in_a, &generic_b);
    const internal::SatAxis generic = internal::SatQuery(
        internal::HullRef(a), generic_b.Ref(), /*early_out=*/false);
    for (const internal::SatAxis& found : {axis, generic}) {
      // Never more separation than the exact SAT finds: overlapping shapes
      // are never reported apart.
      EXPECT_LE(found.separation, ref.all + tol);
      // Each separation is the one measured along its own normal.
      EXPECT_NEAR(Separation(ra, rb, ToD3(found.normal)), found.separation, tol)
          << "axis kind " << static_cast<int>(found.kind);
    }
    if (ref.all <= 0.0) {
      ++overlapping;
      // Not deeper than the least depth beyond round-off and the edge pairs
      // within kParallelSine of parallel, which are skipped (the face axes
      // bound them to that fraction of the size).
      EXPECT_GE(axis.separation, ref.all - tol - 1e-5 * whole);
      EXPECT_GE(generic.separation, ref.all - tol - 1e-5 * whole);
    } else {
      ++separated;
    }
    EXPECT_EQ(OverlapHullHull(a, b, b_in_a), axis.separation <= 0.0f);
  }
  EXPECT_GT(overlapping, 10000);
  EXPECT_GT(separated, 2000);
}

// Two such cases by hand. A pentagonal prism against itself, stacked with
// 4e-6 rad of tilt: a point lies 5e-4 inside both and the least depth is
// 1e-3 (a separation read off the edges would say 0.005 apart).
TEST(HullSatTest, StackedPrismsWithTinyTiltOverlap) {
  const auto prism = Prism(5, 1.0f, 0.3f, 0.1f);
  const ConvexShape3 shape{prism};
  const Pose3 pose_a{};
  const Pose3 pose_b{
      {1.39656091f, -0.815117478f, 0.0f},
      Quat{-4.01202487e-06f, 4.49831987e-06f, 0.309016973f, 0.95105654f}};
  const ContactResult<3> c = Contact(shape, pose_a, shape, pose_b);
  EXPECT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, OverlapAlong(*prism, pose_a, *prism, pose_b, c.normal),
              1e-5);
  EXPECT_GT(c.depth, 5e-4f);
  EXPECT_LT(c.depth, 1.2e-3f);
  EXPECT_TRUE(Overlap(shape, pose_a, shape, pose_b));
}

// A box against a triangular prism lying on one of its faces (the generic
// SAT of sat_polytope.cc): overlapping by 1e-3, reported 0.012 apart.
TEST(HullSatTest, BoxAgainstPrismWithTinyTiltOverlaps) {
  const Box3 box{{0.707106888f, 0.70710665f, 0.5f}};
  const auto prism = Prism(3, 0.8f, 0.7f, 0.0f);
  const Pose3 pose_a{};
  const Pose3 pose_b{
      {-1.10610676f, -0.101079382f, 0.00589692593f},
      Quat{-0.866025388f, -0.49999997f, -3.01798127e-06f, 5.2272967e-06f}};
  const ContactResult<3> c =
      Contact(ConvexShape3{box}, pose_a, ConvexShape3{prism}, pose_b);
  EXPECT_TRUE(c.overlapping);
  EXPECT_GT(c.depth, 5e-4f);
  EXPECT_LT(c.depth, 1.2e-3f);
  EXPECT_TRUE(Overlap(ConvexShape3{box}, pose_a, ConvexShape3{prism}, pose_b));
}

}  // namespace
}  // namespace sator

// Convex shapes against a triangle mesh: analytic cases on a flat floor,
// and every query against a brute-force loop over all triangles with the
// convex pair functions; the Shape3 dispatch and its refusals.
#include "sator/core/collide3d/mesh_queries.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <variant>

#include "core/collide3d/mesh_test_util.h"
#include "core/collide3d/same_bits3d.h"
#include "core/collide3d/shape_gen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/core/collide3d/aabb3d.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/overlap3d.h"
#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/collide3d/sweep3d.h"

namespace sator {
namespace {

using testing::SameBits;
using testing::SameFloat;
using testing::SameVec;

using testing_util::MeshInput;
using testing_util::Rng;

std::shared_ptr<const TriangleMesh> Build(const MeshInput& m) {
  auto mesh = MakeTriangleMesh(m.vertices, m.indices);
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  return *mesh;
}

void ExpectVec(Vec3 actual, Vec3 expected, float tol) {
  EXPECT_NEAR(actual.x, expected.x, tol);
  EXPECT_NEAR(actual.y, expected.y, tol);
  EXPECT_NEAR(actual.z, expected.z, tol);
}

TEST(MeshQueries, SphereOnFlatFloor) {
  // A flat 10 x 10 floor at y = 0 (bump 0), 200 triangles.
  const auto floor = Build(testing_util::Terrain(10, 5.0f, 0.0f, 1));
  const Pose3 id{};
  // Sphere of radius 1 centred 0.5 above the floor: depth 0.5, pushed up
  // (the normal points from the sphere to the mesh: down).
  const Pose3 low{{0.3f, 0.5f, 0.2f}, {}};
  EXPECT_TRUE(Overlap(Sphere{1}, low, *floor, id));
  const ContactResult<3> c = Contact(Sphere{1}, low, *floor, id);
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.5f, 1e-5f);
  ExpectVec(c.normal, {0, -1, 0}, 1e-5f);
  EXPECT_GE(ContactAll(Sphere{1}, low, *floor, id).size(), 2u);
  EXPECT_FALSE(Overlap(Sphere{1}, Pose3{{0.3f, 2, 0.2f}, {}}, *floor, id));
  // Falling from y = 3 by 4: touches at y = 1, t = 0.5, at (0.3, 0, 0.2).
  const SweepResult<3> s =
      Sweep(Sphere{1}, Pose3{{0.3f, 3, 0.2f}, {}}, {0, -4, 0}, *floor, id, {});
  ASSERT_EQ(s.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(s.fraction, 0.5f, 1e-5f);
  ExpectVec(s.normal, {0, -1, 0}, 1e-5f);
  ExpectVec(s.point, {0.3f, 0, 0.2f}, 1e-4f);
  // The floor rising by 2 while the sphere falls by 2: the same meeting.
  const SweepResult<3> both = Sweep(Sphere{1}, Pose3{{0.3f, 3, 0.2f}, {}},
                                    {0, -2, 0}, *floor, id, {0, 2, 0});
  ASSERT_EQ(both.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(both.fraction, 0.5f, 1e-5f);
  ExpectVec(both.point, {0.3f, 1, 0.2f}, 1e-4f);
  const SweepResult<3> in = Sweep(Sphere{1}, low, {0, -4, 0}, *floor, id, {});
  EXPECT_EQ(in.outcome, SweepOutcome::kStartedOverlapping);
  EXPECT_NEAR(in.initial.depth, 0.5f, 1e-5f);
}

TEST(MeshQueries, BoxThroughPosedFloor) {
  // The floor turned upside down (180 degrees about x) and lifted to y = 1:
  // still the plane y = 1. A unit box at y = 4 falling by 4 meets it when
  // 3 - 4 t = 1: t = 0.5.
  const auto floor = Build(testing_util::Terrain(8, 4.0f, 0.0f, 2));
  const Pose3 pose{{0, 1, 0}, Quat::FromAxisAngle({1, 0, 0}, 3.14159265f)};
  const SweepResult<3> s = Sweep(Box3{{1, 1, 1}}, Pose3{{0.5f, 4, 0.5f}, {}},
                                 {0, -4, 0}, *floor, pose, {});
  ASSERT_EQ(s.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(s.fraction, 0.5f, 1e-5f);
  ExpectVec(s.normal, {0, -1, 0}, 1e-5f);
  EXPECT_NEAR(s.point.y, 1.0f, 1e-4f);
}

// Brute force: the same pair functions over every triangle, in the mesh's
// frame as the mesh queries work (so round-off is the same and results can
// be compared exactly: this checks the BVH culling, not the pair tests).
struct Brute {
  bool overlap = false;
  float depth = 0.0f;
  bool any_contact = false;
  bool started = false;
  bool hit = false;
  float fraction = 1.0f;
  // The hit's normal and point in the mesh's frame, from the triangle with
  // the least id among those hit at the least fraction (the mesh sweep's
  // tie rule).
  Vec3 normal{};
  Vec3 point{};
};

Brute BruteForce(const ConvexShape3& a, const Pose3& pa_world, Vec3 da_world,
                 const TriangleMesh& mesh, const Pose3& pm_world) {
  const Pose3 pa = MulT(pm_world, pa_world);
  const Vec3 da = InvRotate(pm_world.rotation, da_world);
  const Pose3 pm{};
  Brute out;
  for (std::uint32_t id = 0; id < mesh.triangle_count(); ++id) {
    const ConvexShape3 tri = mesh.triangle(id);
    if (Overlap(a, pa, tri, pm)) out.overlap = true;
    const ContactResult<3> c = Contact(a, pa, tri, pm);
    if (c.overlapping && (!out.any_contact || c.depth > out.depth)) {
      out.depth = c.depth;
      out.any_contact = true;
    }
    const SweepResult<3> s = Sweep(a, pa, da, tri, pm, {});
    if (s.outcome == SweepOutcome::kStartedOverlapping) out.started = true;
    if (s.outcome == SweepOutcome::kHit &&
        (!out.hit || s.fraction < out.fraction)) {
      out.hit = true;
      out.fraction = s.fraction;
      out.normal = s.normal;
      out.point = s.point;
    }
  }
  return out;
}

// The mesh sweep gives the brute force's fraction, normal and point to the
// bit (the typed box and sphere paths are the generic pair sweep's
// arithmetic; a flat floor makes many triangles tie, and axis-aligned boxes
// falling on it tie on whole faces).
TEST(MeshQueries, MatchBruteForceForEveryKind) {
  const auto terrain = Build(testing_util::Terrain(12, 6.0f, 1.5f, 3));
  const auto soup = Build(testing_util::Soup(300, 5.0f, 2.0f, 4));
  const auto flat = Build(testing_util::Terrain(8, 5.0f, 0.0f, 2));
  Rng rng(5);
  int hits = 0;
  int overlaps = 0;
  int started = 0;
  for (int i = 0; i < 3000; ++i) {
    const int kind = i % 5;
    const int which = (i / 5) % 3;
    const TriangleMesh& mesh =
        which == 0 ? *terrain : (which == 1 ? *soup : *flat);
    const ConvexShape3 a = testing_util::RandomShape(kind, rng);
    Pose3 pm = rng.Pose(1.0f);
    const Vec3 offset = rng.InBox(5.0f);
    const Quat rotation = rng.Rotation();
    Pose3 pa{pm.position + offset, rotation};
    Vec3 da = rng.InBox(4.0f);
    if (which == 2 && i % 2 == 0) {
      // Straight down onto the floor, the mesh and the shape unrotated.
      const float height = rng.Uniform(0.5f, 4.0f);
      const float drop = rng.Uniform(0.5f, 6.0f);
      pm = Pose3{};
      pa = Pose3{{offset.x, height, offset.z}, Quat{}};
      da = {0.0f, -drop, 0.0f};
    }
    SCOPED_TRACE(::testing::Message()
                 << testing_util::KindName(kind) << " " << i);
    const Brute b = BruteForce(a, pa, da, mesh, pm);
    EXPECT_EQ(Overlap(a, pa, mesh, pm), b.overlap);
    const ContactResult<3> c = Contact(a, pa, mesh, pm);
    ASSERT_EQ(c.overlapping, b.any_contact);
    if (c.overlapping) {
      ++overlaps;
      EXPECT_EQ(c.depth, b.depth);
    }
    const SweepResult<3> s = Sweep(a, pa, da, mesh, pm, {});
    if (b.started) {
      ++started;
      ASSERT_EQ(s.outcome, SweepOutcome::kStartedOverlapping);
      EXPECT_EQ(s.fraction, 0.0f);
      EXPECT_EQ(s.initial.overlapping, c.overlapping);
      EXPECT_EQ(s.initial.depth, c.depth);
      continue;
    }
    ASSERT_EQ(s.outcome == SweepOutcome::kHit, b.hit);
    if (b.hit) {
      ++hits;
      EXPECT_EQ(s.fraction, b.fraction);
      const Vec3 normal = Rotate(pm.rotation, b.normal);
      const Vec3 point = Transform(pm, b.point);
      EXPECT_TRUE(normal.x == s.normal.x && normal.y == s.normal.y &&
                  normal.z == s.normal.z)
          << s.normal.x << " " << s.normal.y << " " << s.normal.z << " vs "
          << normal.x << " " << normal.y << " " << normal.z;
      EXPECT_TRUE(point.x == s.point.x && point.y == s.point.y &&
                  point.z == s.point.z)
          << s.point.x << " " << s.point.y << " " << s.point.z << " vs "
          << point.x << " " << point.y << " " << point.z;
    }
  }
  EXPECT_GT(hits, 400);
  EXPECT_GT(overlaps, 200);
  EXPECT_GT(started, 100);
}

// Far from the origin (a terrain whose vertices lie near (1e4, 0, -1e4),
// the mesh unposed or posed), where round-off is 1e3 times larger: the mesh
// sweep still gives the brute force's answer to the bit.
TEST(MeshQueries, SweepFarFromOriginMatchesBruteForce) {
  MeshInput m = testing_util::Terrain(12, 6.0f, 1.5f, 7);
  const Vec3 far{1e4f, 0.0f, -1e4f};
  for (Vec3& v : m.vertices) v = v + far;
  const auto terrain = Build(m);
  Rng rng(8);
  int hits = 0;
  for (int i = 0; i < 1500; ++i) {
    const int kind = i % 5;
    const ConvexShape3 a = testing_util::RandomShape(kind, rng);
    const Pose3 pm = (i % 2 == 0) ? Pose3{} : rng.Pose(1.0f);
    const Vec3 offset = rng.InBox(6.0f);
    const Quat rotation = rng.Rotation();
    const Pose3 pa = Mul(pm, Pose3{far + offset, rotation});
    const Vec3 da = rng.InBox(6.0f);
    SCOPED_TRACE(::testing::Message()
                 << testing_util::KindName(kind) << " " << i);
    const Brute b = BruteForce(a, pa, da, *terrain, pm);
    const SweepResult<3> s = Sweep(a, pa, da, *terrain, pm, {});
    if (b.started) {
      ASSERT_EQ(s.outcome, SweepOutcome::kStartedOverlapping);
      continue;
    }
    ASSERT_EQ(s.outcome == SweepOutcome::kHit, b.hit);
    if (!b.hit) continue;
    ++hits;
    EXPECT_EQ(s.fraction, b.fraction);
    const Vec3 normal = Rotate(pm.rotation, b.normal);
    const Vec3 point = Transform(pm, b.point);
    EXPECT_TRUE(normal.x == s.normal.x && normal.y == s.normal.y &&
                normal.z == s.normal.z);
    EXPECT_TRUE(point.x == s.point.x && point.y == s.point.y &&
                point.z == s.point.z);
  }
  EXPECT_GT(hits, 200);
}

bool SameSweep(const SweepResult<3>& x, const SweepResult<3>& y) {
  return x.outcome == y.outcome && SameFloat(x.fraction, y.fraction) &&
         SameVec(x.normal, y.normal) && SameVec(x.point, y.point) &&
         SameBits(x.initial, y.initial);
}

// The mesh queries' contract taken literally: each query against every
// triangle as a separate shape (in the mesh's frame, as the mesh queries
// work, the triangle unposed), combined by the documented rules and mapped
// to the world: Overlap if any; Contact the deepest, of equal depths the
// least id; Sweep the least fraction, of equal fractions the least id, and
// started overlapping (with the Contact) if any triangle starts so.
struct BruteAll {
  bool overlap = false;
  ContactResult<3> contact;
  SweepResult<3> sweep;
};

BruteAll BruteForceAll(const ConvexShape3& a, const Pose3& pose_a, Vec3 da,
                       const TriangleMesh& mesh, const Pose3& pose_mesh) {
  const Pose3 a_in_mesh = MulT(pose_mesh, pose_a);
  const Vec3 d = InvRotate(pose_mesh.rotation, da);
  BruteAll out;
  bool started = false;
  for (std::uint32_t id = 0; id < mesh.triangle_count(); ++id) {
    const ConvexShape3 tri = mesh.triangle(id);
    out.overlap = out.overlap || Overlap(a, a_in_mesh, tri, Pose3{});
    const ContactResult<3> c = Contact(a, a_in_mesh, tri, Pose3{});
    if (c.overlapping &&
        (!out.contact.overlapping || c.depth > out.contact.depth)) {
      out.contact = c;
    }
    const SweepResult<3> s = Sweep(a, a_in_mesh, d, tri, Pose3{}, Vec3{});
    started = started || s.outcome == SweepOutcome::kStartedOverlapping;
    if (s.outcome == SweepOutcome::kHit &&
        (out.sweep.outcome != SweepOutcome::kHit ||
         s.fraction < out.sweep.fraction)) {
      out.sweep = s;
    }
  }
  if (out.contact.overlapping) out.contact = ToWorld(out.contact, pose_mesh);
  if (started) {
    out.sweep = SweepResult<3>{};
    out.sweep.outcome = SweepOutcome::kStartedOverlapping;
    out.sweep.fraction = 0.0f;
    out.sweep.initial = out.contact;
  } else if (out.sweep.outcome == SweepOutcome::kHit) {
    out.sweep.normal = Rotate(pose_mesh.rotation, out.sweep.normal);
    out.sweep.point = Transform(pose_mesh, out.sweep.point);
  }
  return out;
}

// A corner of a room: a floor (y = 0) and two walls (x = 2, z = -2) of 4 x 4
// and 4 x 2 cells, two triangles each, every vertex moved by `offset`.
MeshInput RoomCorner(Vec3 offset) {
  MeshInput m;
  const auto quad = [&m](Vec3 p, Vec3 u, Vec3 v) {
    const auto base = static_cast<std::uint32_t>(m.vertices.size());
    m.vertices.insert(m.vertices.end(), {p, p + u, p + v, p + u + v});
    m.indices.insert(m.indices.end(),
                     {base, base + 1, base + 2, base + 2, base + 1, base + 3});
  };
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      quad({-2.0f + static_cast<float>(i), 0.0f, -2.0f + static_cast<float>(j)},
           {1, 0, 0}, {0, 0, 1});
    }
  }
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 2; ++j) {
      quad({2.0f, static_cast<float>(j), -2.0f + static_cast<float>(i)},
           {0, 1, 0}, {0, 0, 1});
      quad({-2.0f + static_cast<float>(i), static_cast<float>(j), -2.0f},
           {1, 0, 0}, {0, 1, 0});
    }
  }
  for (Vec3& v : m.vertices) v = v + offset;
  return m;
}

// `x` moved by `steps` floats (ulps) up or down.
float Ulps(float x, int steps) {
  const float to = steps < 0 ? -std::numeric_limits<float>::infinity()
                             : std::numeric_limits<float>::infinity();
  for (int k = 0; k < std::abs(steps); ++k) x = std::nextafter(x, to);
  return x;
}

// Shapes resting on the floor or against a wall of a mesh far from the
// origin (vertices near 1e3, 3e3 and 1e4, the mesh unposed or rotated; or
// the mesh near the origin posed there), exactly touching or a few ulps of
// the coordinates in or out: every query equals the brute force over every
// triangle, every field to the bit. Before the prefilter's absolute slack,
// the mesh queries culled triangles the pair tests found touching: moving
// the shape into the mesh's frame and the triangle into the shape's rounds
// by a few ulps of the coordinates, far more than 1e-5 of a small shape.
// Also measured: how far apart the mesh frame's boxes of a shape and a
// triangle the pair tests find touching can be, in FLT_EPSILON x M (the
// frame margin of swept_box.h is 64 of them).
TEST(MeshQueries, RestingFarFromOriginMatchesBruteForce) {
  Rng rng(71);
  int overlaps = 0;
  int hits = 0;
  int started = 0;
  int failures = 0;
  float worst_gap = 0.0f;
  for (const float far : {1e3f, 3e3f, 1e4f}) {
    const Vec3 offset{far, 0.37f * far, -far};
    const auto far_mesh = Build(RoomCorner(offset));
    const auto near_mesh = Build(RoomCorner({}));
    for (int i = 0; i < 900; ++i) {
      const int placement = i % 3;
      const int kind = (i / 3) % 3;  // Sphere, box, capsule.
      // 0: the mesh unposed, far; 1: far and rotated; 2: near, posed far.
      const TriangleMesh& mesh = placement == 2 ? *near_mesh : *far_mesh;
      Pose3 pose_mesh;
      if (placement == 1) pose_mesh = rng.Pose(2.0f);
      if (placement == 2) pose_mesh = Pose3{offset, rng.Rotation()};
      const Vec3 base = placement == 2 ? Vec3{} : offset;
      ConvexShape3 a = Sphere{rng.Uniform(0.05f, 0.6f)};
      if (kind == 1) {
        a = Box3{{rng.Uniform(0.05f, 0.6f), rng.Uniform(0.05f, 0.6f),
                  rng.Uniform(0.05f, 0.6f)}};
      } else if (kind == 2) {
        const Vec3 h = rng.UnitVector() * rng.Uniform(0.0f, 0.5f);
        a = Capsule3{-1.0f * h, h, rng.Uniform(0.05f, 0.4f)};
      }
      Quat rotation;
      if (i % 2 == 0) rotation = rng.Rotation();
      // The surface: the floor (axis 1, the shape above) or a wall (axis 0
      // at x = 2 or axis 2 at z = -2, the shape inside the room).
      const int surface = rng.Int(0, 2);
      const int axis = surface == 0 ? 1 : (surface == 1 ? 0 : 2);
      const float side = surface == 1 ? -1.0f : 1.0f;  // Inward normal.
      const float plane =
          base[axis] + (surface == 0 ? 0.0f : (surface == 1 ? 2.0f : -2.0f));
      // The shape's extent towards the surface, as the floats give it.
      float extent = 0.0f;
      if (const auto* box = std::get_if<Box3>(&a)) {
        Vec3 dir{};
        dir[axis] = 1.0f;
        const Vec3 local = InvRotate(rotation, dir);
        extent = std::fabs(local.x) * box->half_extents.x +
                 std::fabs(local.y) * box->half_extents.y +
                 std::fabs(local.z) * box->half_extents.z;
      } else if (const auto* sphere = std::get_if<Sphere>(&a)) {
        extent = sphere->radius;
      } else {
        const auto& capsule = std::get<Capsule3>(a);
        extent = capsule.radius + std::fabs(Rotate(rotation, capsule.b)[axis]);
      }
      Vec3 position =
          base + Vec3{rng.Uniform(-1.5f, 1.5f), rng.Uniform(0.3f, 1.5f),
                      rng.Uniform(-1.5f, 1.5f)};
      position[axis] = Ulps(plane + side * extent, rng.Int(-3, 3));
      const Pose3 local{position, rotation};
      const Pose3 pose_a = Mul(pose_mesh, local);
      // Towards the surface and along it, away from it, or from 0.25 back
      // to the surface at t = 1.
      Vec3 toward{};
      toward[axis] = -side;
      Vec3 d_local = 0.1f * toward + rng.InBox(0.05f);
      Pose3 start = pose_a;
      if (i % 4 == 1) d_local = -0.1f * toward + rng.InBox(0.05f);
      if (i % 4 == 2) {
        start = Mul(pose_mesh, Pose3{position - 0.25f * toward, rotation});
        d_local = 0.25f * toward;
      }
      const Vec3 da = Rotate(pose_mesh.rotation, d_local);
      SCOPED_TRACE(::testing::Message()
                   << "far " << far << " case " << i << " placement "
                   << placement << " kind " << kind << " surface " << surface);
      const BruteAll b = BruteForceAll(a, pose_a, da, mesh, pose_mesh);
      {
        // How far apart, in the mesh's frame, are the boxes of the shape and
        // of a triangle the pair tests find touching? In FLT_EPSILON x M,
        // M as mesh_queries.cc takes it (the frame margin is 64).
        const Pose3 a_in_mesh = MulT(pose_mesh, pose_a);
        const Aabb3 box = ComputeAabb(a, a_in_mesh);
        const Aabb3 root = mesh.local_bounds();
        float m = 0.0f;
        for (const Vec3& p :
             {box.min, box.max, a_in_mesh.position, root.min, root.max}) {
          m = std::max({m, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
        }
        for (std::uint32_t id = 0; id < mesh.triangle_count(); ++id) {
          const Triangle3 t = mesh.triangle(id);
          if (!Overlap(a, a_in_mesh, ConvexShape3{t}, Pose3{}) &&
              !Contact(a, a_in_mesh, ConvexShape3{t}, Pose3{}).overlapping) {
            continue;
          }
          const Vec3 lo = Min(t.a, Min(t.b, t.c));
          const Vec3 hi = Max(t.a, Max(t.b, t.c));
          float gap = 0.0f;
          for (int k = 0; k < 3; ++k) {
            gap = std::max({gap, lo[k] - box.max[k], box.min[k] - hi[k]});
          }
          worst_gap = std::max(worst_gap, gap / (FLT_EPSILON * m));
        }
      }
      const bool overlap = Overlap(a, pose_a, mesh, pose_mesh);
      const ContactResult<3> c = Contact(a, pose_a, mesh, pose_mesh);
      const BruteAll bs = BruteForceAll(a, start, da, mesh, pose_mesh);
      const SweepResult<3> s = Sweep(a, start, da, mesh, pose_mesh, {});
      overlaps += b.overlap;
      hits += bs.sweep.outcome == SweepOutcome::kHit;
      started += bs.sweep.outcome == SweepOutcome::kStartedOverlapping;
      const bool ok = overlap == b.overlap && SameBits(c, b.contact) &&
                      SameSweep(s, bs.sweep);
      if (!ok && ++failures <= 10) {
        ADD_FAILURE() << "differ:" << (overlap != b.overlap ? " overlap" : "")
                      << (SameBits(c, b.contact) ? "" : " contact")
                      << (SameSweep(s, bs.sweep) ? "" : " sweep")
                      << "; overlap " << overlap << " vs " << b.overlap
                      << "; contact " << c.overlapping << " depth " << c.depth
                      << " vs " << b.contact.overlapping << " depth "
                      << b.contact.depth << "; sweep "
                      << static_cast<int>(s.outcome) << " " << s.fraction
                      << " vs " << static_cast<int>(bs.sweep.outcome) << " "
                      << bs.sweep.fraction;
      }
    }
  }
  std::printf(
      "resting: 2700 queries, %d overlapping, %d hits, %d started, "
      "%d failures; the boxes of touching pairs up to %.2f FLT_EPSILON x M "
      "apart\n",
      overlaps, hits, started, failures, worst_gap);
  EXPECT_EQ(failures, 0);
  // The frame margin's headroom (2.46 when written).
  EXPECT_LT(worst_gap, 64.0f);
  EXPECT_GT(overlaps, 700);
  EXPECT_GT(hits, 300);
}

// Boxes falling onto a flat floor so fast (1e28 to 1e35 per unit time)
// from so close (0 to 4 ulps above it) that the hit's fraction is a
// subnormal float, on several triangles at once (a face landing across
// cells): the least id's hit, as the brute force. The box sweep was given
// the best fraction so far as its limit and dropped a tie whose exact
// quotient lay above it by less than half a subnormal step.
TEST(MeshQueries, TiesAtSubnormalFractionsGoToTheLeastId) {
  const auto flat = Build(testing_util::Terrain(8, 5.0f, 0.0f, 2));
  Rng rng(72);
  int hits = 0;
  int failures = 0;
  for (int i = 0; i < 2000; ++i) {
    const Vec3 h{rng.Uniform(0.3f, 2.0f), rng.Uniform(0.1f, 1.0f),
                 rng.Uniform(0.3f, 2.0f)};
    float y = h.y;
    const int steps = rng.Int(1, 4);
    for (int k = 0; k < steps; ++k) y = std::nextafter(y, 2.0f);
    const Pose3 pose_a{{rng.Uniform(-3.0f, 3.0f), y, rng.Uniform(-3.0f, 3.0f)},
                       Quat{}};
    const float speed = std::pow(10.0f, rng.Uniform(28.0f, 35.0f));
    const Vec3 da{0.0f, -speed, 0.0f};
    const ConvexShape3 a = Box3{h};
    const BruteAll b = BruteForceAll(a, pose_a, da, *flat, Pose3{});
    const SweepResult<3> s = Sweep(a, pose_a, da, *flat, Pose3{}, {});
    hits += b.sweep.outcome == SweepOutcome::kHit;
    if (!SameSweep(s, b.sweep) && ++failures <= 5) {
      ADD_FAILURE() << "case " << i << ": outcome "
                    << static_cast<int>(s.outcome) << " fraction " << s.fraction
                    << " point (" << s.point.x << ", " << s.point.z << ") vs "
                    << static_cast<int>(b.sweep.outcome) << " "
                    << b.sweep.fraction << " (" << b.sweep.point.x << ", "
                    << b.sweep.point.z << ")";
    }
  }
  std::printf("subnormal ties: 2000 sweeps, %d hits, %d failures\n", hits,
              failures);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(hits, 1500);
}

TEST(Shape3Queries, DispatchFlipsAndRefuses) {
  const auto floor = Build(testing_util::Terrain(4, 2.0f, 0.0f, 6));
  const Shape3 mesh = floor;
  const Shape3 ball = Sphere{1};
  const Pose3 id{};
  const Pose3 low{{0, 0.5f, 0}, {}};
  // Mesh as B, then as A: the same depth, the normal negated.
  const auto ab = Contact(ball, low, mesh, id);
  const auto ba = Contact(mesh, id, ball, low);
  ASSERT_TRUE(ab.ok() && ba.ok());
  EXPECT_NEAR(ab->depth, 0.5f, 1e-5f);
  EXPECT_NEAR(ba->depth, 0.5f, 1e-5f);
  ExpectVec(ba->normal, -ab->normal, 1e-6f);
  const auto sw = Sweep(mesh, id, {}, ball, Pose3{{0, 3, 0}, {}}, {0, -4, 0});
  ASSERT_TRUE(sw.ok());
  ASSERT_EQ(sw->outcome, SweepOutcome::kHit);
  EXPECT_NEAR(sw->fraction, 0.5f, 1e-5f);
  ExpectVec(sw->normal, {0, 1, 0}, 1e-5f);
  EXPECT_TRUE(*Overlap(mesh, id, ball, low));
  // Convex pairs pass through.
  EXPECT_TRUE(*Overlap(ball, id, Shape3{Box3{{1, 1, 1}}}, low));
  // Refusals.
  const auto mm = Overlap(mesh, id, mesh, id);
  EXPECT_EQ(mm.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(Contact(mesh, id, mesh, id).status().code(),
            absl::StatusCode::kUnimplemented);
  const Shape3 null_hull = std::shared_ptr<const ConvexHull>();
  const auto nh = Sweep(null_hull, id, {}, ball, id, {});
  EXPECT_EQ(nh.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(nh.status().message(), ::testing::HasSubstr("null convex hull"));
  const Shape3 null_mesh = std::shared_ptr<const TriangleMesh>();
  EXPECT_EQ(RayCast(null_mesh, id, Ray<3>{{}, {0, 1, 0}, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Ray through the dispatch: down onto the floor from y = 2.
  const auto ray = RayCast(mesh, id, Ray<3>{{0.1f, 2, 0.1f}, {0, -1, 0}, 5});
  ASSERT_TRUE(ray.ok());
  EXPECT_NEAR(ray->distance, 2.0f, 1e-5f);
}

TEST(Shape3Queries, RefusesInvalidInputNamingIt) {
  const Shape3 ball = Sphere{1};
  const Pose3 id{};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    absl::Status status;
    const char* message;
  };
  const Case cases[] = {
      {Overlap(Shape3{Sphere{-1}}, id, ball, id).status(), "shape A"},
      {Contact(ball, id, Shape3{Box3{{1, 0, 1}}}, id).status(), "shape B"},
      {Overlap(ball, Pose3{{nan, 0, 0}, {}}, ball, id).status(), "pose A"},
      // A rotation of length 2 is far from unit: refused, not normalised.
      {Contact(ball, id, ball, Pose3{{}, {0, 0, 0, 2}}).status(), "pose B"},
      {Sweep(ball, id, {inf, 0, 0}, ball, id, {}).status(), "displacement A"},
      {Sweep(ball, id, {}, ball, id, {0, nan, 0}).status(), "displacement B"},
      {RayCast(ball, id, Ray<3>{{}, {0, 2, 0}, 1}).status(), "unit vector"},
      {RayCast(ball, id, Ray<3>{{}, {0, 1, 0}, -1}).status(), "max_distance"},
      {RayCast(ball, id, Ray<3>{{nan, 0, 0}, {0, 1, 0}, 1}).status(), "origin"},
      {ComputeAabb(Shape3{Capsule3{{}, {1, 0, 0}, 0}}, id).status(), "shape A"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.status.code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_THAT(c.status.message(), ::testing::HasSubstr(c.message));
  }
  // A rotation slightly off unit length is renormalised and accepted.
  const auto ok = Overlap(ball, Pose3{{}, {0, 0, 0, 1.0005f}}, ball, id);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(*ok);
}

TEST(Shape3Queries, MeshAabbContainsEveryVertex) {
  const auto soup = Build(testing_util::Soup(200, 3.0f, 1.0f, 7));
  Rng rng(8);
  for (int i = 0; i < 100; ++i) {
    const Pose3 pose = rng.Pose(10.0f);
    const auto box = ComputeAabb(Shape3{soup}, pose);
    ASSERT_TRUE(box.ok());
    for (const Vec3& v : soup->vertices()) {
      const Vec3 w = Transform(pose, v);
      ASSERT_TRUE(Contains(Inflate(*box, 1e-4f), w));
    }
  }
  const auto sphere_box = ComputeAabb(Shape3{Sphere{2}}, Pose3{{1, 2, 3}, {}});
  ASSERT_TRUE(sphere_box.ok());
  ExpectVec(sphere_box->min, {-1, 0, 1}, 1e-6f);
}

}  // namespace
}  // namespace sator

// Review findings on the 2D core: each test is a concrete input whose answer
// was wrong beyond the documented tolerance (docs/core/geometry2d.md), with
// the expected value derived from the geometry in double precision here.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "test_shapes2d.h"

namespace sator {
namespace {

using test2d::SignedDistance;

ConvexPolygon BoxPolygon(Vec2 h) {
  return *MakeConvexPolygon(
      std::vector<Vec2>{{-h.x, -h.y}, {h.x, -h.y}, {h.x, h.y}, {-h.x, h.y}});
}

// The corners of a box at a pose, in double.
struct D2 {
  double x, y;
};
std::vector<D2> Corners(Vec2 h, const Pose2& pose) {
  std::vector<D2> out;
  const double c = pose.rotation.c, s = pose.rotation.s;
  for (const D2 q :
       {D2{-h.x, -h.y}, D2{h.x, -h.y}, D2{h.x, h.y}, D2{-h.x, h.y}}) {
    out.push_back({c * q.x - s * q.y + pose.position.x,
                   s * q.x + c * q.y + pose.position.y});
  }
  return out;
}

double PointSegment(D2 p, D2 a, D2 b) {
  const double ex = b.x - a.x, ey = b.y - a.y;
  double t = ((p.x - a.x) * ex + (p.y - a.y) * ey) / (ex * ex + ey * ey);
  t = std::clamp(t, 0.0, 1.0);
  return std::hypot(p.x - (a.x + t * ex), p.y - (a.y + t * ey));
}

// Largest separation of q's corners along p's outward edge normals
// (counter-clockwise corners): > 0 proves the boxes disjoint.
double MaxSeparation(const std::vector<D2>& p, const std::vector<D2>& q) {
  double best = -1e300;
  for (size_t i = 0; i < p.size(); ++i) {
    const D2 a = p[i], b = p[(i + 1) % p.size()];
    const double ex = b.x - a.x, ey = b.y - a.y, l = std::hypot(ex, ey);
    const double nx = ey / l, ny = -ex / l;
    double lowest = 1e300;
    for (const D2 w : q) {
      lowest = std::min(lowest, nx * (w.x - a.x) + ny * (w.y - a.y));
    }
    best = std::max(best, lowest);
  }
  return best;
}

// Exact distance between two disjoint convex polygons: attained at a
// vertex of one and an edge of the other.
double Distance(const std::vector<D2>& p, const std::vector<D2>& q) {
  double best = 1e300;
  for (int pass = 0; pass < 2; ++pass) {
    const auto& u = pass == 0 ? p : q;
    const auto& v = pass == 0 ? q : p;
    for (const D2 w : u) {
      for (size_t i = 0; i < v.size(); ++i) {
        best = std::min(best, PointSegment(w, v[i], v[(i + 1) % v.size()]));
      }
    }
  }
  return best;
}

// Finding 1. The reference face is A's unless B's axis separates more by
// kFaceBias x tolerance, and Contact decided `overlapping` from the axis that
// bias picked. With B's axis separating by 1.05 x tolerance and A's by a
// little less than the tolerance, the boxes are apart (exact distance 1.05
// x tolerance, vertex of A against B's face), Overlap says so, and Contact
// said overlapping (depth -0.97 x tolerance, A's axis).
TEST(Review2d, ContactAgreesWithOverlapWhenTheFaceBiasPicksTheShallowerAxis) {
  const double theta = 5e-6;
  const Rot2 rot{static_cast<float>(std::cos(theta)),
                 static_cast<float>(std::sin(theta))};
  const Vec2 h{1.0f, 1.0f};
  const double c = rot.c, s = rot.s, dy = 1.0;
  const double tol_guess = 1e-5 * (4.0 + std::hypot(2.0, dy));
  // B's u axis separates A's corner (1, 1) by 1.05 x tolerance.
  const double dx = (1.0 + c + s + 1.05 * tol_guess - s * dy) / c;
  const Pose2 pose_a{{0.0f, 0.0f}, {1.0f, 0.0f}};
  const Pose2 pose_b{{static_cast<float>(dx), static_cast<float>(dy)}, rot};
  const double tol =
      TouchingTolerance(4.0f + Length(pose_b.position - pose_a.position));
  const std::vector<D2> ca = Corners(h, pose_a), cb = Corners(h, pose_b);
  ASSERT_GT(std::max(MaxSeparation(ca, cb), MaxSeparation(cb, ca)), 0.0);
  const double distance = Distance(ca, cb);
  ASSERT_GT(distance, 1.02 * tol) << "the boxes are apart by more than tol";

  const Shape2 box = Box2{h};
  const Shape2 polygon = BoxPolygon(h);
  for (const auto& [name, a, b] :
       {std::tuple{"box-box", box, box},
        std::tuple{"polygon-polygon", polygon, polygon},
        std::tuple{"box-polygon", box, polygon},
        std::tuple{"polygon-box", polygon, box}}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(Overlap(a, pose_a, b, pose_b));
    const ContactResult<2> contact = Contact(a, pose_a, b, pose_b);
    EXPECT_FALSE(contact.overlapping)
        << "depth " << contact.depth << ", exact distance " << distance
        << ", tolerance " << tol;
    // Separated: -depth is the gap along the best axis, a lower bound on
    // the distance, and within the round-off of the exact one here (the
    // closest features are a vertex and a face).
    EXPECT_NEAR(-contact.depth, distance, 0.01 * tol);
  }
}

// Finding 2. Two unit boxes, B turned by -0.3 rad, touching within the
// tolerance (exact distance 6.08e-5, tolerance 6.28e-5; Overlap agrees):
// B's corner nearest A lies just below A's right face, outside its slab,
// and B's left face (the incident face) leaves A's face at 0.3 rad, so the
// part of it clipped to A's slab is 6.4e-5 from A's face, just past
// -tolerance. No clipped point was kept: ContactBoxBox returned overlapping
// with point_count 0 (also as the `initial` of a box-box Sweep), and the
// general SAT path (any pair with a ConvexPolygon) fell back to the
// incident polygon's vertex 0, here B's far corner (3.50, 0.32), 2.5 units
// outside A.
TEST(Review2d, ContactPointsOfATouchWithinTheToleranceLieOnBothShapes) {
  const Vec2 h{1.0f, 1.0f};
  const Pose2 pose_a{{0.0f, 0.0f}, {1.0f, 0.0f}};
  const Pose2 pose_b{{2.25091457f, -0.340202302f},
                     {0.955336511f, -0.295520216f}};
  const double tol =
      TouchingTolerance(4.0f + Length(pose_b.position - pose_a.position));
  const std::vector<D2> ca = Corners(h, pose_a), cb = Corners(h, pose_b);
  ASSERT_GT(std::max(MaxSeparation(ca, cb), MaxSeparation(cb, ca)), 0.0);
  ASSERT_LT(Distance(ca, cb), 0.98 * tol) << "touching within tolerance";
  const Shape2 box = Box2{h};
  const Shape2 poly_a = BoxPolygon(h);
  // Vertex 0 of B's polygon is its corner farthest from A.
  const Shape2 poly_b = *MakeConvexPolygon(
      std::vector<Vec2>{{h.x, h.y}, {-h.x, h.y}, {-h.x, -h.y}, {h.x, -h.y}});
  auto check = [&](const ContactResult<2>& c, const Shape2& a,
                   const Shape2& b) {
    ASSERT_TRUE(c.overlapping) << "touching within the tolerance";
    EXPECT_GE(c.point_count, 1) << "an overlapping result has a point";
    for (int i = 0; i < c.point_count; ++i) {
      const Vec2 p = c.points[static_cast<size_t>(i)];
      const double limit = std::max(0.0f, c.depth) / 2 + 2 * tol;
      EXPECT_LE(SignedDistance(a, InvTransform(pose_a, p)), limit)
          << "point " << p.x << ", " << p.y << " is off A";
      EXPECT_LE(SignedDistance(b, InvTransform(pose_b, p)), limit)
          << "point " << p.x << ", " << p.y << " is off B";
    }
  };
  for (const auto& [name, a, b] :
       {std::tuple{"box-box", box, box},
        std::tuple{"polygon-polygon", poly_a, poly_b},
        std::tuple{"box-polygon", box, poly_b},
        std::tuple{"polygon-box", poly_a, box}}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(Overlap(a, pose_a, b, pose_b));
    check(Contact(a, pose_a, b, pose_b), a, b);
    const SweepResult<2> sweep = Sweep(a, pose_a, {}, b, pose_b, {});
    ASSERT_EQ(sweep.outcome, SweepOutcome::kStartedOverlapping);
    check(sweep.initial, a, b);
  }
}

// Finding 3 (fixed by tightening ValidatePose). The queries use (c, s) as
// if it were unit: MulT applies the transpose as the inverse, so B's offset
// in A's frame is scaled by |(c, s)| where the inverse would divide by it.
// ValidatePose used to accept a squared length within 2e-4 of 1, an error
// of up to 2e-4 of the offset, twenty times the relative touching
// tolerance: with A = (1.000099, 0), the 2000 x 2 box A and the unit box B
// at (1001, 0), which touch face to face, were reported 0.099 apart
// (tolerance 0.02). ValidatePose now refuses such a rotation, and the
// largest error it still accepts (squared length 1 + 2e-6, so |(c, s)| - 1
// up to 1e-6) stays a tenth of the relative touching tolerance: the same
// pair still touches, and the ray still hits A at 100 within the tolerance.
TEST(Review2d, RotationAcceptedByValidatePoseKeepsTheTolerance) {
  const Shape2 a = Box2{{1000.0f, 1.0f}};
  const Shape2 b = Box2{{1.0f, 1.0f}};
  const Pose2 pose_b{{1001.0f, 0.0f}, {1.0f, 0.0f}};
  const Pose2 sloppy{{0.0f, 0.0f}, {1.000099f, 0.0f}};
  const absl::Status refused = ValidatePose(sloppy);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("unit length"), std::string::npos);
  // Within the new limit, on either side of 1.
  for (const float c : {1.00000095f, 0.99999905f}) {
    const Pose2 pose_a{{0.0f, 0.0f}, {c, 0.0f}};
    SCOPED_TRACE(::testing::Message() << "c " << c);
    ASSERT_TRUE(ValidatePose(pose_a).ok());
    EXPECT_TRUE(Overlap(a, pose_a, b, pose_b));
    EXPECT_TRUE(Overlap(b, pose_b, a, pose_a));
    EXPECT_TRUE(Contact(a, pose_a, b, pose_b).overlapping);
    const RayResult<2> ray =
        RayCast(a, pose_a, Ray<2>{{1100.0f, 0.0f}, {-1.0f, 0.0f}, 1000.0f});
    ASSERT_TRUE(ray.hit);
    const double tol = TouchingTolerance(1001.0f + 1100.0f);
    EXPECT_NEAR(ray.distance, 100.0, tol);
  }
  // Every rotation Rot2::FromAngle makes is accepted.
  for (int i = -20000; i <= 20000; ++i) {
    const float angle = 1.5e-4f * static_cast<float>(i);
    ASSERT_TRUE(ValidatePose(Pose2::FromAngle({0.0f, 0.0f}, angle)).ok())
        << angle;
  }
}

// Finding 4 (not fixed: it needs a decision on what a sweep's "touch" is).
// Docs and query_types.h: kMiss means the shapes never touch for t in [0, 1],
// and shapes touch when their separation is at most the tolerance (as a
// sweep's start does). A shape sliding past A at a gap of 1e-5 (tolerance
// 6e-5 at t = 0.5, 9.4e-5 at t = 0) touches on the way: Overlap and Contact
// at t = 0.5 say so, and geometry2d_property_test's own check is that "a
// miss overlaps nowhere on 8 samples of the path". Sweep said kMiss: the
// SAT over time and the round casts enter at separation 0, not at the
// tolerance, and an axis that separates by 0 < s0 <= tol and never closes
// rules the pair out ("never").
TEST(Review2d, DISABLED_SweepThatTouchesWithinTheToleranceOnTheWayIsNotAMiss) {
  const Pose2 pose_a{{0.0f, 0.0f}, {1.0f, 0.0f}};
  const Pose2 start{{-5.0f, 2.00001f}, {1.0f, 0.0f}};
  const Vec2 motion{10.0f, 0.0f};
  const Pose2 middle{{0.0f, 2.00001f}, {1.0f, 0.0f}};
  const Shape2 box = Box2{{1.0f, 1.0f}};
  const Shape2 square = BoxPolygon({1.0f, 1.0f});
  const Shape2 circle = Circle{1.0f};
  for (const auto& [name, shape] :
       {std::pair{"box", box}, std::pair{"polygon", square},
        std::pair{"circle", circle}}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(Overlap(shape, pose_a, shape, middle));
    ASSERT_TRUE(Contact(shape, pose_a, shape, middle).overlapping);
    const SweepResult<2> sweep = Sweep(shape, pose_a, {}, shape, start, motion);
    EXPECT_EQ(sweep.outcome, SweepOutcome::kHit);
    EXPECT_LE(sweep.fraction, 0.5f);
  }
}

// Finding 5 (not fixed: the polytope verdict would need the exact distance
// when the best SAT gap is in (0, tol]). The verdict for boxes and polygons
// is the SAT's: touching when every edge normal separates by at most the
// tolerance. Apart shapes whose closest features are two vertices are
// separated along the edge normals by only distance x cos(half the exterior
// angle), so a sharp corner is called touching up to tolerance /
// corner_factor away. Two valid 10-degree spikes tip to tip, 5.0 x tolerance
// apart (exact distance 2.17e-4, tolerance 4.35e-5): Overlap, Contact
// (depth -1.9e-5) and a still Sweep (kStartedOverlapping) all said touching,
// and a ray starting 5 x tolerance past a tip said started_inside.
// A 1-degree spike would be called touching at 115 x tolerance.
TEST(Review2d, DISABLED_SharpCornersApartByMoreThanTheToleranceDoNotTouch) {
  const float w = 2.0f * std::tan(5.0f * 3.14159265f / 180.0f);
  const Shape2 spike =
      *MakeConvexPolygon(std::vector<Vec2>{{-1, -w}, {1, 0}, {-1, w}});
  const float extent = std::get<ConvexPolygon>(spike).extent();
  const Pose2 pose_a{{0.0f, 0.0f}, {1.0f, 0.0f}};
  // B: the same spike turned by a half turn, its tip at (1 + gap, 0).
  const float gap = 5.0f * TouchingTolerance(2.0f * extent + 2.0f);
  const Pose2 pose_b{{2.0f + gap, 0.0f}, {-1.0f, 0.0f}};
  const double tol = TouchingTolerance(2.0f * extent + pose_b.position.x);
  const double distance =
      static_cast<double>(pose_b.position.x) - 2.0;  // Tip to tip.
  ASSERT_GT(distance, 4.9 * tol);
  EXPECT_FALSE(Overlap(spike, pose_a, spike, pose_b));
  const ContactResult<2> contact = Contact(spike, pose_a, spike, pose_b);
  EXPECT_FALSE(contact.overlapping) << "depth " << contact.depth;
  EXPECT_NE(Sweep(spike, pose_a, {}, spike, pose_b, {}).outcome,
            SweepOutcome::kStartedOverlapping);
  // The polygon ray's inside test is the same half-plane test: a ray from 5
  // x its tolerance past the tip, pointing away, said started_inside.
  const float ray_tol = TouchingTolerance(extent + 1.0f);
  const RayResult<2> ray =
      RayCast(spike, pose_a,
              Ray<2>{{1.0f + 5.0f * ray_tol, 0.0f}, {1.0f, 0.0f}, 10.0f});
  EXPECT_FALSE(ray.hit);
  EXPECT_FALSE(ray.started_inside);
}

}  // namespace
}  // namespace sator

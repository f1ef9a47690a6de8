// Properties of overlap and MTV on 100k seeded random pairs for each of the
// 15 pair kinds, measured with an independent support-function model of the
// shapes (test_shapes3d.h):
//  - exactness along the normal: the overlap along `normal`, computed from
//    the shapes' definitions, equals `depth`;
//  - minimality: no other direction (random ones, and the reversed pair's
//    normal) has less overlap;
//  - moving B by normal * depth * (1 + e) separates the shapes and by
//    (1 - e) does not (for separated pairs: moving B back by (1 - e) of the
//    gap does not make them touch; for round pairs, which report the exact
//    distance, (1 + e) of the gap does);
//  - Overlap(A, B) and Overlap(B, A) agree with Contact;
//  - symmetry: Contact(B, A) has the same depth and the opposite normal
//    (or, when two axes tie, another normal with the same overlap);
//  - contact points: 1 to 4 when overlapping, inside the overlap slab.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "sator/core/collide3d/contact3d.h"
#include "sator/core/collide3d/overlap3d.h"
#include "test_shapes3d.h"

namespace sator {
namespace {

using testing::KindName;
using testing::PenetrationAlong;
using testing::ShapeFactory;
using testing::SupportValue;

constexpr int kCasesPerPair = 100000;
// Absolute tolerance on lengths: shapes are 0.1 to 1.5 units in size and
// posed within 1.5 units of the origin, so float round-off is ~1e-6; 2e-4
// leaves room for the documented near-parallel and core-contact tolerances.
constexpr float kTol = 2e-4f;
constexpr float kRel = 1e-3f;  // The e of (1 + e) and (1 - e).

bool IsRoundKind(ShapeKind3 k) {
  return k == ShapeKind3::kSphere || k == ShapeKind3::kCapsule;
}

struct Failures {
  int count = 0;
  void Add(const std::string& what, int i) {
    ++count;
    if (count <= 5) ADD_FAILURE() << what << " (case " << i << ")";
  }
};

class PropertyTest
    : public ::testing::TestWithParam<std::pair<ShapeKind3, ShapeKind3>> {};

TEST_P(PropertyTest, OverlapAndMtv) {
  const auto [ka, kb] = GetParam();
  ShapeFactory f(1234u + 17u * static_cast<unsigned>(ka) +
                 101u * static_cast<unsigned>(kb));
  const bool round = IsRoundKind(ka) || IsRoundKind(kb);
  // Triangles are thin: bring them closer so that enough pairs overlap.
  const float spread = 1.5f - 0.5f * (ka == ShapeKind3::kTriangle) -
                       0.5f * (kb == ShapeKind3::kTriangle);
  Failures fail;
  int overlapping = 0;
  int ties = 0;
  for (int i = 0; i < kCasesPerPair; ++i) {
    const ConvexShape3 a = f.Make(ka);
    const ConvexShape3 b = f.Make(kb);
    const Pose3 pa = f.RandomPose(spread);
    const Pose3 pb = f.RandomPose(spread);
    const ContactResult<3> c = Contact(a, pa, b, pb);
    const Vec3 n = c.normal;
    if (!IsFinite(n) || std::fabs(Length(n) - 1.0f) > 1e-4f ||
        !std::isfinite(c.depth)) {
      fail.Add("normal not unit or depth not finite", i);
      continue;
    }
    const float tol = kTol + kRel * std::fabs(c.depth);
    // Exact along the normal.
    const float along = PenetrationAlong(a, pa, b, pb, n);
    if (std::fabs(along - c.depth) > tol) {
      fail.Add("depth " + std::to_string(c.depth) +
                   " but overlap along normal " + std::to_string(along),
               i);
    }
    // Overlap agrees with Contact away from touching.
    const bool ov = Overlap(a, pa, b, pb);
    if (std::fabs(c.depth) > tol &&
        (ov != c.overlapping || Overlap(b, pb, a, pa) != c.overlapping)) {
      fail.Add(
          "Overlap disagrees with Contact, depth " + std::to_string(c.depth),
          i);
    }
    // Symmetry.
    const ContactResult<3> r = Contact(b, pb, a, pa);
    if (std::fabs(r.depth - c.depth) > tol) {
      fail.Add("asymmetric depth " + std::to_string(c.depth) + " vs " +
                   std::to_string(r.depth),
               i);
    }
    if (LengthSquared(r.normal + n) > 1e-6f) {
      ++ties;
      if (std::fabs(PenetrationAlong(a, pa, b, pb, -r.normal) - c.depth) >
          tol) {
        fail.Add("reversed pair's normal is not an equally good axis", i);
      }
    }
    if (c.overlapping) {
      ++overlapping;
      // Minimal: no random direction has less overlap.
      for (int k = 0; k < 8; ++k) {
        const Vec3 u = f.RandomUnit();
        if (PenetrationAlong(a, pa, b, pb, u) < c.depth - tol) {
          fail.Add("a random direction has less overlap than the MTV", i);
          break;
        }
      }
      // Moving B by the MTV.
      Pose3 out = pb;
      out.position += (c.depth * (1 + kRel) + kTol) * n;
      if (Overlap(a, pa, b, out))
        fail.Add("MTV * (1 + e) does not separate", i);
      if (c.depth * (1 - kRel) - kTol > 0.0f) {
        Pose3 in = pb;
        in.position += (c.depth * (1 - kRel) - kTol) * n;
        if (!Overlap(a, pa, b, in)) fail.Add("MTV * (1 - e) separates", i);
      }
      // Contact points.
      if (c.point_count < 1 || c.point_count > 4) {
        fail.Add("point count " + std::to_string(c.point_count), i);
      }
      const float a_max = SupportValue(a, pa, n);
      for (int k = 0; k < c.point_count; ++k) {
        const float h = Dot(n, c.points[k]);
        if (!IsFinite(c.points[k]) || h > a_max + tol ||
            h < a_max - c.depth - tol) {
          fail.Add("contact point outside the overlap slab", i);
        }
      }
    } else {
      const float gap = -c.depth;
      if (gap * (1 - kRel) - kTol > 0.0f) {
        Pose3 in = pb;
        in.position -= (gap * (1 - kRel) - kTol) * n;
        if (Overlap(a, pa, b, in)) {
          fail.Add("moving back by (1 - e) of the gap overlaps", i);
        }
      }
      if (round) {
        Pose3 in = pb;
        in.position -= (gap * (1 + kRel) + kTol) * n;
        if (!Overlap(a, pa, b, in)) {
          fail.Add(
              "round pair: moving back by (1 + e) of the distance does "
              "not touch",
              i);
        }
      }
    }
  }
  EXPECT_EQ(fail.count, 0);
  // Both branches are exercised (about half the pairs overlap).
  EXPECT_GT(overlapping, kCasesPerPair / 10);
  EXPECT_LT(overlapping, kCasesPerPair * 9 / 10);
  std::printf("%s-%s: %d of %d overlapping, %d symmetric ties\n", KindName(ka),
              KindName(kb), overlapping, kCasesPerPair, ties);
  ::testing::Test::RecordProperty("overlapping", overlapping);
  ::testing::Test::RecordProperty("ties", ties);
}

std::vector<std::pair<ShapeKind3, ShapeKind3>> AllPairs() {
  std::vector<std::pair<ShapeKind3, ShapeKind3>> pairs;
  for (int i = 0; i < 5; ++i) {
    for (int j = i; j < 5; ++j) {
      pairs.push_back({static_cast<ShapeKind3>(i), static_cast<ShapeKind3>(j)});
    }
  }
  return pairs;
}

std::string PairName(
    const ::testing::TestParamInfo<std::pair<ShapeKind3, ShapeKind3>>& p) {
  return std::string(KindName(p.param.first)) + "_" + KindName(p.param.second);
}

// gtest's name-generator plumbing shadows a parameter under -Wshadow.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
INSTANTIATE_TEST_SUITE_P(AllPairKinds, PropertyTest,
                         ::testing::ValuesIn(AllPairs()), PairName);
#pragma GCC diagnostic pop

}  // namespace
}  // namespace sator

// Level geometry (concave polygons with holes, chains): validation, the
// convex decomposition, and every query against references in double that
// work from the outline edges directly (never from the pieces).
#include "sator/core/collide2d/level2d.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "sator/core/collide2d/queries2d.h"
#include "sator/core/field_status.h"
#include "sator/core/limits.h"
#include "support/level_reference.h"

namespace sator {
namespace {

using testing::Cross;
using testing::D2;
using testing::Dot;
using testing::InsideSolid;
using testing::Len;
using testing::PointSegmentDistance;
using testing::RayReference;
using testing::ReferenceRay;
using testing::RingArea;
using testing::ToD;

// A star-shaped ring about `centre`: n points at sorted angles, radii in
// [lo, hi] (simple by construction).
std::vector<Vec2> StarRing(std::mt19937& rng, Vec2 centre, int n, float lo,
                           float hi) {
  std::uniform_real_distribution<float> radius(lo, hi);
  std::uniform_real_distribution<float> jitter(0.1f, 0.9f);
  std::vector<Vec2> ring;
  const float step = 2.0f * std::numbers::pi_v<float> / static_cast<float>(n);
  for (int i = 0; i < n; ++i) {
    const float angle = step * (static_cast<float>(i) + jitter(rng));
    const float r = radius(rng);
    ring.push_back(
        {centre.x + r * std::cos(angle), centre.y + r * std::sin(angle)});
  }
  return ring;
}

// Polygons on a grid of cells 10 apart (some with a hole), and chains below
// them, in both sidedness and either winding.
LevelDesc2 RandomLevel(std::mt19937& rng) {
  LevelDesc2 desc;
  std::uniform_int_distribution<int> count(5, 24);
  for (int cell = 0; cell < 4; ++cell) {
    const Vec2 centre{10.0f * static_cast<float>(cell), 0.0f};
    LevelPolygon2 polygon;
    polygon.outline = StarRing(rng, centre, count(rng), 1.5f, 4.5f);
    if (cell % 2 == 1)
      std::reverse(polygon.outline.begin(), polygon.outline.end());
    if (cell == 2)
      polygon.holes.push_back({StarRing(rng, centre, 6, 0.4f, 1.2f)});
    if (cell == 3) {
      // Three holes side by side, bridged one after another.
      for (float dx : {-0.95f, 0.0f, 0.95f}) {
        polygon.holes.push_back(
            {StarRing(rng, {centre.x + dx, centre.y}, 5, 0.15f, 0.4f)});
      }
    }
    desc.polygons.push_back(std::move(polygon));
  }
  std::uniform_real_distribution<float> height(-9.0f, -7.0f);
  for (int c = 0; c < 2; ++c) {
    LevelChain2 chain;
    for (int i = 0; i < 30; ++i) {
      chain.points.push_back({-5.0f + 1.5f * static_cast<float>(i),
                              height(rng) - 4.0f * static_cast<float>(c)});
    }
    chain.one_sided = c == 1;
    if (chain.one_sided) std::reverse(chain.points.begin(), chain.points.end());
    desc.chains.push_back(std::move(chain));
  }
  return desc;
}

std::shared_ptr<const Level2> Build(LevelDesc2 desc) {
  absl::StatusOr<std::shared_ptr<const Level2>> level =
      MakeLevel2(std::move(desc));
  EXPECT_TRUE(level.ok()) << level.status();
  return level.ok() ? *level : nullptr;
}

// ---- Validation -------------------------------------------------------------

TEST(LevelBuildTest, BadInputIsRefusedNamingTheVertex) {
  const std::vector<Vec2> square{{0, 0}, {4, 0}, {4, 4}, {0, 4}};
  struct Case {
    const char* what;
    LevelDesc2 desc;
    absl::StatusCode code;
    std::string field;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto polygon = [](std::vector<Vec2> outline,
                    std::vector<std::vector<Vec2>> holes = {}) {
    LevelPolygon2 out;
    out.outline = std::move(outline);
    for (auto& h : holes) out.holes.push_back({std::move(h)});
    return out;
  };
  auto level = [](std::vector<LevelPolygon2> polygons,
                  std::vector<LevelChain2> chains = {}) {
    LevelDesc2 desc;
    desc.polygons = std::move(polygons);
    desc.chains = std::move(chains);
    return desc;
  };
  auto chain = [](std::vector<Vec2> points, bool closed = false) {
    LevelChain2 out;
    out.points = std::move(points);
    out.closed = closed;
    return out;
  };
  const absl::StatusCode invalid = absl::StatusCode::kInvalidArgument;
  std::vector<Case> cases;
  cases.push_back({"empty", {}, invalid, ""});
  cases.push_back({"two points", level({polygon({{0, 0}, {1, 0}})}), invalid,
                   "polygons[0].outline"});
  cases.push_back({"nan", level({polygon({{0, 0}, {1, nan}, {1, 1}})}), invalid,
                   "polygons[0].outline[1]"});
  cases.push_back({"far", level({polygon({{0, 0}, {2e6f, 0}, {1, 1}})}),
                   invalid, "polygons[0].outline[1]"});
  cases.push_back({"repeated",
                   level({polygon({{0, 0}, {1, 0}, {1, 0}, {1, 1}})}), invalid,
                   "polygons[0].outline[2]"});
  cases.push_back({"collinear",
                   level({polygon({{0, 0}, {1, 0}, {2, 0}, {1, 1}})}), invalid,
                   "polygons[0].outline[1]"});
  cases.push_back({"bow tie",
                   level({polygon({{0, 0}, {2, 2}, {2, 0}, {0, 2}})}), invalid,
                   "polygons[0].outline[0]"});
  cases.push_back({"hole outside",
                   level({polygon(square, {{{5, 5}, {6, 5}, {6, 6}}})}),
                   invalid, "polygons[0].holes[0]"});
  cases.push_back({"hole crossing",
                   level({polygon(square, {{{1, 1}, {5, 1}, {1, 2}}})}),
                   invalid, "polygons[0].outline[1]"});
  cases.push_back(
      {"hole in hole",
       level({polygon(square,
                      {{{0.5f, 0.5f}, {3.5f, 0.5f}, {3.5f, 3.5f}, {0.5f, 3.5f}},
                       {{1, 1}, {2, 1}, {2, 2}}})}),
       invalid, "polygons[0].holes[1]"});
  cases.push_back({"nested polygon",
                   level({polygon(square), polygon({{1, 1}, {2, 1}, {2, 2}})}),
                   invalid, "polygons[1]"});
  cases.push_back({"chain back on itself",
                   level({}, {chain({{0, 0}, {1, 0}, {0.5f, 0}})}), invalid,
                   "chains[0].points[1]"});
  cases.push_back({"chain inside a polygon",
                   level({polygon(square)}, {chain({{1, 1}, {2, 2}})}), invalid,
                   "chains[0]"});
  cases.push_back({"chain crossing a polygon",
                   level({polygon(square)}, {chain({{-1, 2}, {2, 2}})}),
                   invalid, "polygons[0].outline[3]"});
  cases.push_back({"short closed chain",
                   level({}, {chain({{0, 0}, {1, 0}}, true)}), invalid,
                   "chains[0].points"});
  std::vector<Vec2> many;
  for (int i = 0; i <= kMaxLevelPolygonVertices; ++i) many.push_back({0, 0});
  cases.push_back({"too many vertices", level({polygon(many)}),
                   absl::StatusCode::kResourceExhausted, "polygons[0]"});
  for (Case& c : cases) {
    absl::StatusOr<std::shared_ptr<const Level2>> built =
        MakeLevel2(std::move(c.desc));
    ASSERT_FALSE(built.ok()) << c.what;
    EXPECT_EQ(built.status().code(), c.code)
        << c.what << ": " << built.status();
    if (!c.field.empty()) {
      EXPECT_EQ(FieldPathOf(built.status()).value_or(""), c.field)
          << c.what << ": " << built.status();
    }
  }
}

// ---- Decomposition
// ------------------------------------------------------------

TEST(LevelBuildTest, PiecesTileEachPolygonExactly) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> coordinate(-6.0, 36.0);
  for (int trial = 0; trial < 30; ++trial) {
    const LevelDesc2 desc = RandomLevel(rng);
    const std::shared_ptr<const Level2> level = Build(desc);
    ASSERT_NE(level, nullptr);
    std::vector<double> area(desc.polygons.size(), 0.0);
    for (const LevelPiece2& piece : level->pieces()) {
      const ConvexPolygon& p = piece.convex();
      EXPECT_LE(p.count(), kMaxPolygonVertices);
      std::vector<Vec2> ring;
      for (int k = 0; k < p.count(); ++k)
        ring.push_back(p.vertex(k) + piece.offset);
      area[piece.polygon] += RingArea(ring);
    }
    for (std::size_t i = 0; i < desc.polygons.size(); ++i) {
      double expected = RingArea(desc.polygons[i].outline);
      for (const LevelRing2& hole : desc.polygons[i].holes) {
        expected -= RingArea(hole.points);
      }
      EXPECT_NEAR(area[i], expected, 1e-4 * expected) << "polygon " << i;
    }
    // Every point inside the solid lies in exactly one piece, and no
    // point outside lies in any (points near an edge are skipped).
    for (int k = 0; k < 400; ++k) {
      const D2 p{coordinate(rng), coordinate(rng) - 15.0};
      bool near_edge = false;
      for (const LevelEdge2& e : level->edges()) {
        near_edge =
            near_edge || PointSegmentDistance(p, ToD(e.a), ToD(e.b)) < 1e-3;
      }
      if (near_edge) continue;
      int containing = 0;
      for (const LevelPiece2& piece : level->pieces()) {
        const ConvexPolygon& poly = piece.convex();
        bool in = true;
        for (int j = 0; j < poly.count() && in; ++j) {
          in = Dot(ToD(poly.normal(j)),
                   p - ToD(poly.vertex(j) + piece.offset)) <= 0.0;
        }
        containing += in ? 1 : 0;
      }
      EXPECT_EQ(containing, InsideSolid(desc, p) ? 1 : 0) << p.x << ", " << p.y;
    }
  }
}

TEST(LevelBuildTest, AConcaveOutlineNeedsFewPieces) {
  // A comb with 8 teeth: at least 8 convex pieces, and Hertel-Mehlhorn
  // gives at most four times the fewest.
  std::vector<Vec2> comb{{0, 0}, {16, 0}};
  for (int i = 7; i >= 0; --i) {
    const float x = 2.0f * static_cast<float>(i);
    comb.push_back({x + 2.0f, 4.0f});
    comb.push_back({x + 1.0f, 4.0f});
    comb.push_back({x + 1.0f, 1.0f});
    comb.push_back({x, 1.0f});
  }
  LevelDesc2 desc;
  desc.polygons.push_back({comb, {}});
  const std::shared_ptr<const Level2> level = Build(desc);
  ASSERT_NE(level, nullptr);
  EXPECT_GE(level->pieces().size(), 8u);
  EXPECT_LE(level->pieces().size(), 32u);
}

// ---- Rays
// ---------------------------------------------------------------------

TEST(LevelQueryTest, RayMatchesBruteForceOverTheEdges) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> coordinate(-8.0f, 38.0f);
  std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
  int hits = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const std::shared_ptr<const Level2> level = Build(RandomLevel(rng));
    ASSERT_NE(level, nullptr);
    const Shape2 shape = level;
    const Pose2 pose = Pose2::FromAngle({3.0f, -2.0f}, 0.4f);
    for (int k = 0; k < 500; ++k) {
      const Vec2 origin_local{coordinate(rng), coordinate(rng) - 20.0f};
      const float a = angle(rng);
      const Vec2 dir_local{std::cos(a), std::sin(a)};
      const Ray<2> ray{Transform(pose, origin_local),
                       Rotate(pose.rotation, dir_local), 30.0f};
      const RayResult<2> got = RayCast(shape, pose, ray);
      // The reference in the level's frame, from the float ray mapped back.
      const RayReference want =
          ReferenceRay(*level, ToD(InvTransform(pose, ray.origin)),
                       ToD(InvRotate(pose.rotation, ray.direction)), 30.0);
      if (want.inside) {
        EXPECT_TRUE(got.hit && got.started_inside) << k;
        continue;
      }
      ASSERT_EQ(got.hit, want.hit) << trial << " " << k << " " << want.distance;
      if (!want.hit) continue;
      ++hits;
      EXPECT_NEAR(got.distance, want.distance, 1e-3) << k;
      if (want.runner_up - want.distance > 1e-3) {
        EXPECT_EQ(got.feature, want.edge) << k;
        const LevelEdge2& e =
            level->edges()[static_cast<std::size_t>(want.edge)];
        const Vec2 n =
            Rotate(pose.rotation, NormalizeOrZero(RightPerp(e.b - e.a)));
        EXPECT_NEAR(std::fabs(sator::Dot(got.normal, n)), 1.0f, 1e-5f);
        EXPECT_LT(sator::Dot(got.normal, ray.direction), 0.0f);
      }
    }
  }
  EXPECT_GT(hits, 1000);
}

// ---- Overlap
// ------------------------------------------------------------------

TEST(LevelQueryTest, CircleOverlapMatchesDistanceToTheEdges) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> coordinate(-8.0f, 38.0f);
  std::uniform_real_distribution<float> radius(0.05f, 2.0f);
  int overlaps = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const std::shared_ptr<const Level2> level = Build(RandomLevel(rng));
    ASSERT_NE(level, nullptr);
    for (int k = 0; k < 500; ++k) {
      const D2 c{coordinate(rng), coordinate(rng) - 20.0f};
      const double r = radius(rng);
      // One-sided chains collide only with shapes whose centre is in front.
      double distance = std::numeric_limits<double>::infinity();
      for (const LevelEdge2& e : level->edges()) {
        const D2 ab = ToD(e.b) - ToD(e.a);
        if (e.one_sided && !e.solid &&
            Dot(c - ToD(e.a), D2{ab.y, -ab.x}) < 0.0) {
          continue;
        }
        distance =
            std::min(distance, PointSegmentDistance(c, ToD(e.a), ToD(e.b)));
      }
      if (std::fabs(distance - r) < 1e-3) continue;
      const bool want = distance < r || InsideSolid(level->desc(), c);
      const Pose2 at{{static_cast<float>(c.x), static_cast<float>(c.y)},
                     Rot2{}};
      const bool got =
          Overlap(Circle{static_cast<float>(r)}, at, Shape2(level), Pose2{});
      EXPECT_EQ(got, want) << c.x << ", " << c.y << " r " << r;
      overlaps += want ? 1 : 0;
      // Contact agrees with Overlap.
      EXPECT_EQ(
          Contact(Circle{static_cast<float>(r)}, at, Shape2(level), Pose2{})
              .overlapping,
          want);
    }
  }
  EXPECT_GT(overlaps, 500);
}

// ---- Contacts
// -----------------------------------------------------------------

// An L-shaped floor: the ground from x = 0 to 10 with its top at y = 0,
// and a wall from x = 8 to 10 rising to y = 5.
LevelDesc2 LFloor() {
  LevelDesc2 desc;
  desc.polygons.push_back(
      {{{0, -2}, {10, -2}, {10, 5}, {8, 5}, {8, 0}, {0, 0}}, {}});
  return desc;
}

TEST(LevelQueryTest, ABoxAcrossThePiecesOfAFloorIsPushedUp) {
  const std::shared_ptr<const Level2> level = Build(LFloor());
  ASSERT_NE(level, nullptr);
  ASSERT_GE(level->pieces().size(), 2u);
  // Along the whole top of the ground, wherever the pieces are cut.
  for (float x = 0.6f; x < 7.4f; x += 0.25f) {
    const ContactResult<2> c = Contact(
        Box2{{0.5f, 0.5f}}, Pose2{{x, 0.4f}, Rot2{}}, Shape2(level), Pose2{});
    ASSERT_TRUE(c.overlapping) << x;
    EXPECT_NEAR(c.normal.x, 0.0f, 1e-6f) << x;
    EXPECT_NEAR(c.normal.y, -1.0f, 1e-6f) << x;  // From the box into the floor.
    EXPECT_NEAR(c.depth, 0.1f, 1e-5f) << x;
    for (const LevelContact2& each : ContactAll(
             Box2{{0.5f, 0.5f}}, Pose2{{x, 0.4f}, Rot2{}}, *level, Pose2{})) {
      EXPECT_NEAR(each.contact.normal.y, -1.0f, 1e-6f) << x;
    }
  }
}

TEST(LevelQueryTest, ABoxSlidingAlongAStraightChainNeverCatches) {
  // A flat chain of 40 short edges (slightly uneven in length): every
  // contact of a box pressed into it points straight down.
  LevelChain2 chain;
  for (int i = 0; i <= 40; ++i) {
    chain.points.push_back(
        {0.5f * static_cast<float>(i) + 0.01f * static_cast<float>(i % 3),
         0.0f});
  }
  LevelDesc2 desc;
  desc.chains.push_back(chain);
  const std::shared_ptr<const Level2> level = Build(desc);
  ASSERT_NE(level, nullptr);
  for (float x = 1.0f; x < 19.0f; x += 0.037f) {
    const std::vector<LevelContact2> contacts = ContactAll(
        Box2{{0.3f, 0.3f}}, Pose2{{x, 0.28f}, Rot2{}}, *level, Pose2{});
    ASSERT_FALSE(contacts.empty()) << x;
    for (const LevelContact2& c : contacts) {
      EXPECT_NEAR(c.contact.normal.x, 0.0f, 1e-5f) << x;
      EXPECT_NEAR(c.contact.normal.y, -1.0f, 1e-5f) << x;
      EXPECT_NEAR(c.contact.depth, 0.02f, 1e-5f) << x;
    }
  }
}

TEST(LevelQueryTest, ACircleAtAConvexCornerIsPushedAlongTheDiagonal) {
  const std::shared_ptr<const Level2> level = Build(LFloor());
  ASSERT_NE(level, nullptr);
  // The wall's top-left corner is (8, 5): a circle up and left of it.
  const Vec2 centre{8.0f - 0.3f, 5.0f + 0.4f};
  const ContactResult<2> c =
      Contact(Circle{1.0f}, Pose2{centre, Rot2{}}, Shape2(level), Pose2{});
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 0.5f, 1e-5f);
  EXPECT_NEAR(c.normal.x, 0.6f, 1e-5f);
  EXPECT_NEAR(c.normal.y, -0.8f, 1e-5f);
}

TEST(LevelQueryTest, AShapeInsideASolidIsPushedAcrossTheNearestEdge) {
  const std::vector<Vec2> block{{0, 0}, {20, 0}, {20, 10}, {0, 10}};
  LevelDesc2 desc;
  desc.polygons.push_back({block, {}});
  const std::shared_ptr<const Level2> level = Build(desc);
  ASSERT_NE(level, nullptr);
  const ContactResult<2> c = Contact(Circle{1.0f}, Pose2{{5.0f, 7.5f}, Rot2{}},
                                     Shape2(level), Pose2{});
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 3.5f, 1e-5f);  // Out through the top: 2.5 + radius.
  EXPECT_NEAR(c.normal.y, -1.0f, 1e-6f);
}

TEST(LevelQueryTest, AShapeBuriedInAConcaveSolidIsPushedOutNearby) {
  // Inside the L's ground, under the open part: out through the top or
  // the bottom (both 1.3 away), never towards the wall.
  const std::shared_ptr<const Level2> level = Build(LFloor());
  ASSERT_NE(level, nullptr);
  const ContactResult<2> c = Contact(Circle{0.3f}, Pose2{{2.0f, -1.0f}, Rot2{}},
                                     Shape2(level), Pose2{});
  ASSERT_TRUE(c.overlapping);
  EXPECT_NEAR(c.depth, 1.3f, 1e-5f);
  EXPECT_NEAR(std::fabs(c.normal.y), 1.0f, 1e-6f);
}

TEST(LevelQueryTest, ACircleOnTheFloorTouchesUnderItsCentre) {
  const std::shared_ptr<const Level2> level = Build(LFloor());
  ASSERT_NE(level, nullptr);
  const ContactResult<2> c = Contact(Circle{0.5f}, Pose2{{3.0f, 0.4f}, Rot2{}},
                                     Shape2(level), Pose2{});
  ASSERT_TRUE(c.overlapping);
  ASSERT_EQ(c.point_count, 1);
  EXPECT_NEAR(c.points[0].x, 3.0f, 1e-5f);
  EXPECT_NEAR(c.points[0].y, -0.05f, 1e-5f);  // Midway: surface -0.1, floor 0.
}

// A segment lying along a straight chain, its near end 6e-5 past the joint
// at (1, 0) (about twice the touching tolerance, inside the query box's
// margin): it touches the edge it lies on, not the one that ends at the
// joint, though no axis across the chain separates them.
TEST(LevelQueryTest, ASegmentAlongAChainTouchesOnlyTheEdgeItLiesOn) {
  LevelDesc2 desc;
  desc.chains.push_back({{{0, 0}, {1, 0}, {2, 0}}, false, false});
  const std::shared_ptr<const Level2> level = Build(desc);
  ASSERT_NE(level, nullptr);
  const Shape2 segment = Segment2{{-0.25f, 0.0f}, {0.25f, 0.0f}};
  const std::vector<LevelContact2> contacts = ContactAll(
      segment, Pose2{{1.25f + 6e-5f, 0.0f}, Rot2{}}, *level, Pose2{});
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].edge, 1u);
}

TEST(LevelBuildTest, HolesBridgedToTheSameCornerTileTheSquare) {
  LevelDesc2 desc;
  desc.polygons.push_back({{{0, 0}, {10, 0}, {10, 10}, {0, 10}},
                           {{{{6, 5}, {8, 5}, {8, 7}, {6, 7}}},
                            {{{6, 2}, {8, 2}, {8, 4}, {6, 4}}}}});
  const std::shared_ptr<const Level2> level = Build(desc);
  ASSERT_NE(level, nullptr);
  double area = 0.0;
  for (const LevelPiece2& piece : level->pieces()) {
    std::vector<Vec2> ring;
    for (int k = 0; k < piece.convex().count(); ++k) {
      ring.push_back(piece.convex().vertex(k) + piece.offset);
    }
    area += RingArea(ring);
  }
  EXPECT_NEAR(area, 100.0 - 8.0, 1e-3);
}

TEST(LevelQueryTest, AOneSidedChainIgnoresShapesBehindIt) {
  // Left to right: its right side (below) collides, so it faces down.
  LevelDesc2 desc;
  desc.chains.push_back({{{0, 0}, {4, 0}, {8, 0}}, false, true});
  const std::shared_ptr<const Level2> level = Build(desc);
  ASSERT_NE(level, nullptr);
  const Shape2 shape = level;
  EXPECT_FALSE(Contact(Circle{0.5f}, Pose2{{2, 0.3f}, Rot2{}}, shape, Pose2{})
                   .overlapping);
  const ContactResult<2> below =
      Contact(Circle{0.5f}, Pose2{{2, -0.3f}, Rot2{}}, shape, Pose2{});
  ASSERT_TRUE(below.overlapping);
  EXPECT_NEAR(below.normal.y, 1.0f, 1e-6f);
  EXPECT_NEAR(below.depth, 0.2f, 1e-5f);
  // Rays: only from below.
  EXPECT_FALSE(RayCast(shape, Pose2{}, Ray<2>{{2, 1}, {0, -1}, 5}).hit);
  EXPECT_TRUE(RayCast(shape, Pose2{}, Ray<2>{{2, -1}, {0, 1}, 5}).hit);
}

// The separation of a circle from an edge side along u, in double.
double CircleSeparation(D2 c, double r, D2 a, D2 b, D2 u) {
  return Dot(c, u) - r - std::max(Dot(a, u), Dot(b, u));
}

TEST(LevelQueryTest, EdgeContactsStayInTheConeAndMatchASampledDepth) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> coordinate(-8.0f, 38.0f);
  std::uniform_real_distribution<float> radius(0.1f, 1.5f);
  int checked = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const std::shared_ptr<const Level2> level = Build(RandomLevel(rng));
    ASSERT_NE(level, nullptr);
    for (int k = 0; k < 300; ++k) {
      const D2 c{coordinate(rng), coordinate(rng) - 20.0f};
      const double r = radius(rng);
      const Pose2 at{{static_cast<float>(c.x), static_cast<float>(c.y)},
                     Rot2{}};
      for (const LevelContact2& each :
           ContactAll(Circle{static_cast<float>(r)}, at, *level, Pose2{})) {
        const LevelEdge2& e = level->edges()[each.edge];
        if (PointSegmentDistance(c, ToD(e.a), ToD(e.b)) > r)
          continue;  // Inside fallback.
        // The cone of each side the edge collides on, in double: the
        // contact's axis lies in one of them, with that side's best depth.
        const D2 u{-each.contact.normal.x, -each.contact.normal.y};
        auto side_matches = [&](bool front) {
          const D2 a = front ? ToD(e.a) : ToD(e.b);
          const D2 b = front ? ToD(e.b) : ToD(e.a);
          const bool has_prev = front ? e.has_prev : e.has_next;
          const bool has_next = front ? e.has_next : e.has_prev;
          const D2 prev = front ? ToD(e.prev) : ToD(e.next);
          const D2 next = front ? ToD(e.next) : ToD(e.prev);
          const D2 t = (1.0 / Len(b - a)) * (b - a);
          const D2 n{t.y, -t.x};
          auto angle_of = [&](D2 v) {
            return std::atan2(Cross(n, v), Dot(n, v));
          };
          double cw = -std::numbers::pi / 2;
          double ccw = std::numbers::pi / 2;
          if (has_prev) {
            const D2 e0 = a - prev;
            cw = Cross(e0, b - a) > 0
                     ? angle_of((1.0 / Len(e0)) * D2{e0.y, -e0.x})
                     : 0.0;
          }
          if (has_next) {
            const D2 e2 = next - b;
            ccw = Cross(b - a, e2) > 0
                      ? angle_of((1.0 / Len(e2)) * D2{e2.y, -e2.x})
                      : 0.0;
          }
          const double got_angle = angle_of(u);
          if (got_angle < cw - 1e-4 || got_angle > ccw + 1e-4) return false;
          // The best separation over 4000 sampled axes of the cone and the
          // edge's normal (where the separation has its kink, between the
          // two ends' sinusoids).
          double best = CircleSeparation(c, r, a, b, n);
          for (int s = 0; s <= 4000; ++s) {
            const double phi = cw + (ccw - cw) * s / 4000.0;
            const D2 v = std::cos(phi) * n + std::sin(phi) * t;
            best = std::max(best, CircleSeparation(c, r, a, b, v));
          }
          return std::fabs(-each.contact.depth - best) < 2e-4;
        };
        EXPECT_TRUE(side_matches(true) || (!e.one_sided && side_matches(false)))
            << "edge " << each.edge << " depth " << each.contact.depth;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 200);
}

// ---- Sweeps
// -------------------------------------------------------------------

TEST(LevelQueryTest, CircleSweepMatchesSteppedReference) {
  std::mt19937 rng(19);
  std::uniform_real_distribution<float> coordinate(-8.0f, 38.0f);
  std::uniform_real_distribution<float> radius(0.1f, 1.0f);
  std::uniform_real_distribution<float> motion(-12.0f, 12.0f);
  int hits = 0;
  for (int trial = 0; trial < 6; ++trial) {
    LevelDesc2 desc = RandomLevel(rng);
    desc.chains.pop_back();  // Two-sided chains only: no pass-through.
    const std::shared_ptr<const Level2> level = Build(desc);
    ASSERT_NE(level, nullptr);
    auto overlaps = [&](D2 c, double r) {
      for (const LevelEdge2& e : level->edges()) {
        if (PointSegmentDistance(c, ToD(e.a), ToD(e.b)) <= r) return true;
      }
      return InsideSolid(level->desc(), c);
    };
    for (int k = 0; k < 200; ++k) {
      const D2 c{coordinate(rng), coordinate(rng) - 20.0f};
      const double r = radius(rng);
      const D2 m{motion(rng), motion(rng)};
      if (overlaps(c, r + 1e-3)) continue;
      // The first time of contact, by steps of 1/2000 then bisection.
      double lo = 0.0;
      double hi = -1.0;
      for (int s = 1; s <= 2000; ++s) {
        const double f = s / 2000.0;
        if (overlaps(c + f * m, r)) {
          hi = f;
          break;
        }
        lo = f;
      }
      const Pose2 at{{static_cast<float>(c.x), static_cast<float>(c.y)},
                     Rot2{}};
      const SweepResult<2> got =
          Sweep(Circle{static_cast<float>(r)}, at,
                {static_cast<float>(m.x), static_cast<float>(m.y)},
                Shape2(level), Pose2{}, Vec2{});
      if (hi < 0.0) {
        // Grazes within a step are not decided by the reference.
        if (got.outcome == SweepOutcome::kHit) {
          EXPECT_TRUE(overlaps(c + got.fraction * m, r + 1e-3)) << k;
        }
        continue;
      }
      for (int i = 0; i < 40; ++i) {
        const double mid = 0.5 * (lo + hi);
        (overlaps(c + mid * m, r) ? hi : lo) = mid;
      }
      ASSERT_EQ(got.outcome, SweepOutcome::kHit) << trial << " " << k;
      EXPECT_NEAR(got.fraction * Len(m), hi * Len(m), 2e-3) << k;
      // The normal points against the motion, from the circle to the level.
      EXPECT_GT(sator::Dot(got.normal, Vec2{static_cast<float>(m.x),
                                            static_cast<float>(m.y)}),
                -1e-3f)
          << k;
      ++hits;
    }
  }
  EXPECT_GT(hits, 100);
}

TEST(LevelQueryTest, TheLevelMayBeEitherShapeOfAPair) {
  const std::shared_ptr<const Level2> level = Build(LFloor());
  ASSERT_NE(level, nullptr);
  const Shape2 box = Box2{{0.5f, 0.5f}};
  const Pose2 box_pose{{4.0f, 0.4f}, Rot2{}};
  const Pose2 level_pose = Pose2::FromAngle({1.0f, 2.0f}, 0.3f);
  const Pose2 placed = Mul(level_pose, box_pose);
  const ContactResult<2> ab = Contact(box, placed, Shape2(level), level_pose);
  const ContactResult<2> ba = Contact(Shape2(level), level_pose, box, placed);
  ASSERT_TRUE(ab.overlapping && ba.overlapping);
  EXPECT_NEAR(ab.depth, ba.depth, 1e-6f);
  EXPECT_NEAR(ab.normal.x, -ba.normal.x, 1e-6f);
  EXPECT_NEAR(ab.normal.y, -ba.normal.y, 1e-6f);
  EXPECT_TRUE(Overlap(Shape2(level), level_pose, box, placed));
  const Vec2 down = Rotate(level_pose.rotation, Vec2{0.0f, -1.0f});
  const Pose2 above = Mul(level_pose, Pose2{{4.0f, 2.0f}, Rot2{}});
  const SweepResult<2> sab =
      Sweep(box, above, 2.0f * down, Shape2(level), level_pose, {});
  const SweepResult<2> sba =
      Sweep(Shape2(level), level_pose, {}, box, above, 2.0f * down);
  ASSERT_EQ(sab.outcome, SweepOutcome::kHit);
  ASSERT_EQ(sba.outcome, SweepOutcome::kHit);
  EXPECT_NEAR(sab.fraction, 0.75f, 1e-5f);
  EXPECT_NEAR(sba.fraction, sab.fraction, 1e-6f);
  EXPECT_NEAR(sab.normal.x, -sba.normal.x, 1e-5f);
  EXPECT_NEAR(sab.normal.y, -sba.normal.y, 1e-5f);
}

}  // namespace
}  // namespace sator

// A level of one-sided loops against Box2D 2.4.1's chain shapes built from
// the same points: the nearest ray hit (Box2D's chain rays are two-sided,
// so only its hits on an edge's front count) and the deepest edge contact
// of a circle away from the vertices (b2CollideEdgeAndCircle).
#include <box2d/box2d.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "sator/core/collide2d/level2d.h"
#include "sator/core/collide2d/queries2d.h"

namespace sator {
namespace {

std::vector<std::vector<Vec2>> Loops(std::mt19937& rng) {
  std::uniform_real_distribution<float> radius(3.0f, 5.0f);
  std::vector<std::vector<Vec2>> loops;
  for (int cell = 0; cell < 4; ++cell) {
    std::vector<Vec2> loop;
    const int n = 12 + 8 * cell;
    for (int i = 0; i < n; ++i) {
      const float angle = 2.0f * std::numbers::pi_v<float> *
                          static_cast<float>(i) / static_cast<float>(n);
      const float r = radius(rng);
      loop.push_back({15.0f * static_cast<float>(cell) + r * std::cos(angle),
                      r * std::sin(angle)});
    }
    loops.push_back(std::move(loop));
  }
  return loops;
}

// The loops as a level of one-sided chains and as Box2D chain loops.
struct BothLevels {
  std::shared_ptr<const Level2> level;
  std::vector<b2ChainShape> chains;
};
BothLevels Build(const std::vector<std::vector<Vec2>>& loops) {
  BothLevels both;
  LevelDesc2 desc;
  both.chains.resize(loops.size());
  for (std::size_t i = 0; i < loops.size(); ++i) {
    desc.chains.push_back({loops[i], true, true});
    std::vector<b2Vec2> points;
    for (Vec2 v : loops[i]) points.emplace_back(v.x, v.y);
    both.chains[i].CreateLoop(points.data(), static_cast<int32>(points.size()));
  }
  absl::StatusOr<std::shared_ptr<const Level2>> level = MakeLevel2(desc);
  EXPECT_TRUE(level.ok()) << level.status();
  if (level.ok()) both.level = *level;
  return both;
}

TEST(LevelBox2dTest, RaysAgainstOneSidedLoopsMatchBox2dChains) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> x(-8.0f, 53.0f);
  std::uniform_real_distribution<float> y(-8.0f, 8.0f);
  std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
  int hits = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const BothLevels both = Build(Loops(rng));
    ASSERT_NE(both.level, nullptr);
    const std::shared_ptr<const Level2>& level = both.level;
    const std::vector<b2ChainShape>& chains = both.chains;
    b2Transform identity;
    identity.SetIdentity();
    for (int k = 0; k < 400; ++k) {
      const Vec2 origin{x(rng), y(rng)};
      const float a = angle(rng);
      const Ray<2> ray{origin, {std::cos(a), std::sin(a)}, 20.0f};
      b2RayCastInput input;
      input.p1.Set(origin.x, origin.y);
      input.p2.Set(origin.x + 20.0f * ray.direction.x,
                   origin.y + 20.0f * ray.direction.y);
      input.maxFraction = 1.0f;
      float best = 2.0f;
      b2Vec2 normal(0.0f, 0.0f);
      for (const b2ChainShape& chain : chains) {
        for (int32 child = 0; child < chain.GetChildCount(); ++child) {
          b2RayCastOutput output;
          // Box2D 2.4's chain rays are two-sided: keep its front hits.
          b2EdgeShape edge;
          chain.GetChildEdge(&edge, child);
          const b2Vec2 e = edge.m_vertex2 - edge.m_vertex1;
          const bool front =
              e.y * ray.direction.x - e.x * ray.direction.y < 0.0f;
          if (front && chain.RayCast(&output, input, identity, child) &&
              output.fraction < best) {
            best = output.fraction;
            normal = output.normal;
          }
        }
      }
      const RayResult<2> got = RayCast(Shape2(level), Pose2{}, ray);
      ASSERT_EQ(got.hit, best <= 1.0f) << k;
      if (!got.hit) continue;
      ++hits;
      EXPECT_NEAR(got.distance, 20.0f * best, 1e-4f) << k;
      EXPECT_NEAR(got.normal.x, normal.x, 1e-4f) << k;
      EXPECT_NEAR(got.normal.y, normal.y, 1e-4f) << k;
    }
  }
  EXPECT_GT(hits, 300);
}

TEST(LevelBox2dTest, CircleEdgeContactsMatchBox2dChains) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> x(-6.0f, 51.0f);
  std::uniform_real_distribution<float> y(-6.0f, 6.0f);
  std::uniform_real_distribution<float> radius(0.2f, 1.0f);
  int compared = 0;
  const std::vector<std::vector<Vec2>> loops = Loops(rng);
  const BothLevels both = Build(loops);
  ASSERT_NE(both.level, nullptr);
  const std::shared_ptr<const Level2>& level = both.level;
  const std::vector<b2ChainShape>& chains = both.chains;
  b2Transform identity;
  identity.SetIdentity();
  for (int k = 0; k < 2000; ++k) {
    const Vec2 centre{x(rng), y(rng)};
    const float r = radius(rng);
    // Away from every vertex, where both sides' answers are face contacts
    // (at a vertex the two differ by design: Box2D drops a circle past a
    // concave end, the level keeps the edge's normal).
    bool near_vertex = false;
    for (const std::vector<Vec2>& loop : loops) {
      for (Vec2 v : loop)
        near_vertex = near_vertex || Length(v - centre) < r + 1e-3f;
    }
    if (near_vertex) continue;
    b2CircleShape circle;
    circle.m_radius = r;
    b2Transform at;
    at.Set(b2Vec2(centre.x, centre.y), 0.0f);
    // Box2D's deepest edge contact over every child edge.
    float deepest = 0.0f;
    bool any = false;
    for (const b2ChainShape& chain : chains) {
      for (int32 child = 0; child < chain.GetChildCount(); ++child) {
        b2EdgeShape edge;
        chain.GetChildEdge(&edge, child);
        b2Manifold manifold;
        b2CollideEdgeAndCircle(&manifold, &edge, identity, &circle, at);
        if (manifold.pointCount == 0) continue;
        b2WorldManifold world;
        world.Initialize(&manifold, identity, 0.0f, at, r);
        const float depth = -world.separations[0];
        if (depth > 1e-4f) {
          any = true;
          deepest = std::max(deepest, depth);
        }
      }
    }
    const ContactResult<2> got =
        Contact(Circle{r}, Pose2{centre, Rot2{}}, Shape2(level), Pose2{});
    if (!any || !(got.depth > 1e-4f)) continue;
    ++compared;
    EXPECT_NEAR(got.depth, deepest, 1e-4f) << k;
  }
  EXPECT_GT(compared, 50);
}

}  // namespace
}  // namespace sator

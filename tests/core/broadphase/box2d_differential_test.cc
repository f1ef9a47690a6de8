// Differential test against Box2D 2.4's b2DynamicTree: both trees fatten
// boxes the same way (margin b2_aabbExtension, displacement stretched by
// b2_aabbMultiplier, re-insert when the box leaves its fat box or the fat box
// is more than 4 margins too large), so on the same operations they must
// make the same re-insert decisions, hold bitwise-equal fat boxes, and
// answer AABB queries and closest-hit ray casts identically.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "box2d/b2_dynamic_tree.h"
#include "broadphase_test_util.h"
#include "gtest/gtest.h"
#include "sator/core/broadphase/dynamic_tree.h"

namespace sator::broadphase {
namespace {

using ::sator::broadphase::testing::RandomBox;
using ::sator::broadphase::testing::RandomVec;

b2AABB ToB2(const Aabb2& box) {
  b2AABB out;
  out.lowerBound.Set(box.min.x, box.min.y);
  out.upperBound.Set(box.max.x, box.max.y);
  return out;
}

struct Body {
  Aabb2 box;
  std::uint32_t proxy;
  std::int32_t b2proxy;
};

struct B2Collector {
  std::vector<std::int32_t> proxies;
  bool QueryCallback(std::int32_t proxy) {
    proxies.push_back(proxy);
    return true;
  }
};

struct B2Closest {
  const std::map<std::int32_t, Aabb2>* tight;
  const Segment<2>* segment;
  float best = 2.0f;
  float RayCastCallback(const b2RayCastInput& input, std::int32_t proxy) {
    float entry = 0.0f;
    if (!segment->Hits(tight->at(proxy), Vec2{}, input.maxFraction, &entry)) {
      return -1.0f;
    }
    best = std::min(best, entry);
    return entry;
  }
};

TEST(Box2dDifferentialTest, SameDecisionsAndAnswers) {
  constexpr float kWorld = 200.0f;
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(seed);
    auto tree =
        *DynamicTree2::Create({.margin = b2_aabbExtension,
                               .displacement_multiplier = b2_aabbMultiplier});
    b2DynamicTree b2tree;
    std::vector<Body> bodies;
    std::uniform_int_distribution<int> percent(0, 99);
    for (int op = 0; op < 3000; ++op) {
      const int roll = percent(rng);
      if (bodies.size() < 50 || roll < 20) {
        const Aabb2 box = RandomBox<2>(rng, kWorld, 0.1f, 2.0f);
        bodies.push_back({box, *tree.CreateProxy(box),
                          b2tree.CreateProxy(ToB2(box), nullptr)});
      } else if (roll < 30) {
        const std::size_t k = std::uniform_int_distribution<std::size_t>(
            0, bodies.size() - 1)(rng);
        ASSERT_TRUE(tree.DestroyProxy(bodies[k].proxy).ok());
        b2tree.DestroyProxy(bodies[k].b2proxy);
        bodies.erase(bodies.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        const std::size_t k = std::uniform_int_distribution<std::size_t>(
            0, bodies.size() - 1)(rng);
        const Vec2 d = RandomVec<2>(rng, roll < 95 ? -0.3f : -10.0f,
                                    roll < 95 ? 0.3f : 10.0f);
        Body& body = bodies[k];
        body.box = {body.box.min + d, body.box.max + d};
        const bool ours = *tree.MoveProxy(body.proxy, body.box, d);
        const bool theirs =
            b2tree.MoveProxy(body.b2proxy, ToB2(body.box), b2Vec2(d.x, d.y));
        ASSERT_EQ(ours, theirs) << "seed " << seed << " op " << op;
      }
      if (op % 100 != 99) continue;
      ASSERT_TRUE(tree.Validate().ok());
      std::map<std::int32_t, std::uint32_t> to_ours;
      std::map<std::int32_t, Aabb2> tight;
      for (const Body& body : bodies) {
        const Aabb2& fat = tree.FatAabb(body.proxy);
        const b2AABB& b2fat = b2tree.GetFatAABB(body.b2proxy);
        ASSERT_EQ(fat.min.x, b2fat.lowerBound.x);
        ASSERT_EQ(fat.min.y, b2fat.lowerBound.y);
        ASSERT_EQ(fat.max.x, b2fat.upperBound.x);
        ASSERT_EQ(fat.max.y, b2fat.upperBound.y);
        to_ours[body.b2proxy] = body.proxy;
        tight[body.b2proxy] = body.box;
      }
      std::map<std::uint32_t, Aabb2> tight_ours;
      for (const Body& body : bodies) tight_ours[body.proxy] = body.box;
      for (int q = 0; q < 20; ++q) {
        const Aabb2 query = RandomBox<2>(rng, kWorld, 0.0f, 20.0f);
        std::vector<std::uint32_t> ours;
        tree.Query(query, [&](std::uint32_t proxy) {
          ours.push_back(proxy);
          return true;
        });
        B2Collector collector;
        b2tree.Query(&collector, ToB2(query));
        std::vector<std::uint32_t> theirs;
        for (const std::int32_t p : collector.proxies) {
          theirs.push_back(to_ours.at(p));
        }
        std::sort(ours.begin(), ours.end());
        std::sort(theirs.begin(), theirs.end());
        ASSERT_EQ(ours, theirs);

        // Closest hit of a ray against the tight boxes.
        const Vec2 origin = RandomVec<2>(rng, 0.0f, kWorld);
        Vec2 translation = RandomVec<2>(rng, -60.0f, 60.0f);
        if (LengthSquared(translation) < 1.0f) translation = {1.0f, 0.0f};
        const Segment<2> segment(origin, translation);
        float best = 2.0f;
        tree.RayCast({origin, translation, 1.0f},
                     [&](std::uint32_t proxy, const RayCastInput<2>& in) {
                       float entry = 0.0f;
                       if (!segment.Hits(tight_ours.at(proxy), Vec2{},
                                         in.max_fraction, &entry)) {
                         return -1.0f;
                       }
                       best = std::min(best, entry);
                       return entry;
                     });
        B2Closest closest{&tight, &segment};
        b2RayCastInput input;
        input.p1.Set(origin.x, origin.y);
        input.p2.Set(origin.x + translation.x, origin.y + translation.y);
        input.maxFraction = 1.0f;
        b2tree.RayCast(&closest, input);
        ASSERT_EQ(best, closest.best) << "seed " << seed << " op " << op;
      }
    }
  }
}

}  // namespace
}  // namespace sator::broadphase

#include "sator/core/broadphase/casts.h"

#include <cmath>

#include "broadphase_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/core/broadphase/traversal_stack.h"

namespace sator::broadphase {
namespace {

using ::testing::HasSubstr;

// Segment from (0, 0) along (10, 0).
TEST(SegmentTest, SlabsByHand2d) {
  const Segment<2> segment({0.0f, 0.0f}, {10.0f, 0.0f});
  float entry = -1.0f;
  // [2,4] x [-1,1]: enters at x = 2, fraction 0.2.
  EXPECT_TRUE(segment.Hits({{2.0f, -1.0f}, {4.0f, 1.0f}}, {}, 1.0f, &entry));
  EXPECT_EQ(entry, 0.2f);
  // Beyond the clipped length (0.1 reaches x = 1).
  EXPECT_FALSE(segment.Hits({{2.0f, -1.0f}, {4.0f, 1.0f}}, {}, 0.1f, &entry));
  // Above the line.
  EXPECT_FALSE(segment.Hits({{2.0f, 0.5f}, {4.0f, 1.0f}}, {}, 1.0f, &entry));
  // Touching along the top face (closed intervals): y = 0 is the box's max.
  EXPECT_TRUE(segment.Hits({{2.0f, -1.0f}, {4.0f, 0.0f}}, {}, 1.0f, &entry));
  EXPECT_EQ(entry, 0.2f);
  // Origin inside: entry 0.
  EXPECT_TRUE(segment.Hits({{-1.0f, -1.0f}, {1.0f, 1.0f}}, {}, 1.0f, &entry));
  EXPECT_EQ(entry, 0.0f);
  // Behind the origin.
  EXPECT_FALSE(segment.Hits({{-4.0f, -1.0f}, {-2.0f, 1.0f}}, {}, 1.0f, &entry));
  // Grown by (1, 1): [2,4] x [1.5,2] becomes [1,5] x [0.5,3], still above.
  EXPECT_FALSE(
      segment.Hits({{2.0f, 1.5f}, {4.0f, 2.0f}}, {1.0f, 1.0f}, 1.0f, &entry));
  // Grown by (1, 2): [1,5] x [-0.5,4] is entered at x = 1, fraction 0.1.
  EXPECT_TRUE(
      segment.Hits({{2.0f, 1.5f}, {4.0f, 2.0f}}, {1.0f, 2.0f}, 1.0f, &entry));
  EXPECT_EQ(entry, 0.1f);
}

TEST(SegmentTest, NegativeAndDiagonal) {
  // From (10, 0) along (-10, 0): [2,4] is entered at x = 4, fraction 0.6.
  const Segment<2> back({10.0f, 0.0f}, {-10.0f, 0.0f});
  float entry = -1.0f;
  EXPECT_TRUE(back.Hits({{2.0f, -1.0f}, {4.0f, 1.0f}}, {}, 1.0f, &entry));
  EXPECT_EQ(entry, 0.6f);
  // 3D diagonal from the origin along (4, 4, 4): the unit cube at [1,2]^3 is
  // entered at fraction 1/4.
  const Segment<3> diagonal({0.0f, 0.0f, 0.0f}, {4.0f, 4.0f, 4.0f});
  EXPECT_TRUE(diagonal.Hits({{1.0f, 1.0f, 1.0f}, {2.0f, 2.0f, 2.0f}}, {}, 1.0f,
                            &entry));
  EXPECT_EQ(entry, 0.25f);
  // Shifted off the diagonal on z: [1,2] x [1,2] x [3,4] needs t in
  // [0.75, 1] on z but t in [0.25, 0.5] on x: a miss.
  EXPECT_FALSE(diagonal.Hits({{1.0f, 1.0f, 3.0f}, {2.0f, 2.0f, 4.0f}}, {}, 1.0f,
                             &entry));
}

// Components far below kParallelEpsilon must not divide by (nearly) zero:
// the test binary traps floating-point exceptions.
TEST(SegmentTest, TinyComponentsAreParallelAndConservative) {
  const Segment<2> segment({0.0f, 1.0f}, {10.0f, 1e-30f});
  float entry = -1.0f;
  // y stays 1 (to float precision): a box with max y = 1 is touched.
  EXPECT_TRUE(segment.Hits({{5.0f, 0.0f}, {6.0f, 1.0f}}, {}, 1.0f, &entry));
  EXPECT_EQ(entry, 0.5f);
  EXPECT_FALSE(segment.Hits({{5.0f, 1.5f}, {6.0f, 2.0f}}, {}, 1.0f, &entry));
  const Segment<3> zero({0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f});
  EXPECT_TRUE(
      zero.Hits({{-1.0f, -1.0f, -1.0f}, {1.0f, 1.0f, 1.0f}}, {}, 1.0f, &entry));
  EXPECT_EQ(entry, 0.0f);
  EXPECT_FALSE(
      zero.Hits({{1.0f, 1.0f, 1.0f}, {2.0f, 2.0f, 2.0f}}, {}, 1.0f, &entry));
}

// A zero component (either sign) is parallel in the conservative test: the
// segment lies in that slab exactly when its origin does, the box's faces
// included. A box's max face under +0 and its min face under -0 are the
// cases a clamped reciprocal alone gets wrong (its slab ends at t = 0).
TEST(RaySlabsTest, ConservativeTestTakesAZeroComponentAsParallel) {
  const Aabb<3> box{{0.0f, 0.0f, 0.0f}, {1.0f, 1.0f, 1.0f}};
  for (const float zero : {0.0f, -0.0f}) {
    for (const float x : {0.0f, 0.5f, 1.0f}) {
      const auto slabs =
          RaySlabs<3>::Clamped({x, 3.0f, 0.5f}, {zero, -1.0f, zero});
      float entry = -1.0f;
      EXPECT_TRUE(slabs.HitsConservative(box, 10.0f, &entry)) << x;
      EXPECT_EQ(entry, 2.0f) << x;
      EXPECT_FALSE(slabs.HitsConservative(box, 1.5f, &entry)) << x;
    }
    for (const float x : {-1e-7f, 1.0000001f}) {
      const auto slabs =
          RaySlabs<3>::Clamped({x, 3.0f, 0.5f}, {zero, -1.0f, zero});
      float entry = -1.0f;
      EXPECT_FALSE(slabs.HitsConservative(box, 10.0f, &entry)) << x;
    }
  }
}

TEST(CastInputTest, FactoriesRefuseBadInput) {
  const auto nan_origin =
      MakeRayCastInput<2>({std::nanf(""), 0.0f}, {1.0f, 0.0f});
  EXPECT_EQ(nan_origin.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(nan_origin.status().message(),
              HasSubstr("ray origin: component 0 is not finite"));
  EXPECT_THAT(MakeRayCastInput<3>({0.0f, 0.0f, 0.0f}, {0.0f, INFINITY, 0.0f})
                  .status()
                  .message(),
              HasSubstr("ray translation: component 1"));
  EXPECT_THAT(
      MakeRayCastInput<2>({0.0f, 0.0f}, {1.0f, 0.0f}, 1.5f).status().message(),
      HasSubstr("max_fraction"));
  EXPECT_THAT(
      MakeRayCastInput<2>({0.0f, 0.0f}, {1.0f, 0.0f}, -0.5f).status().message(),
      HasSubstr("max_fraction"));
  EXPECT_THAT(
      MakeRayCastInput<2>({2e15f, 0.0f}, {1.0f, 0.0f}).status().message(),
      HasSubstr("limit"));
  EXPECT_TRUE(MakeRayCastInput<2>({0.0f, 0.0f}, {1.0f, 0.0f}, 0.5f).ok());

  const auto inverted = MakeBoxCastInput<3>(
      {{0.0f, 2.0f, 0.0f}, {1.0f, 1.0f, 1.0f}}, {1.0f, 0.0f, 0.0f});
  EXPECT_EQ(inverted.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(inverted.status().message(),
              HasSubstr("cast box: min[1] (2) is greater than max[1] (1)"));
  EXPECT_THAT(
      MakeBoxCastInput<2>({{0.0f, 0.0f}, {1.0f, 1.0f}}, {std::nanf(""), 0.0f})
          .status()
          .message(),
      HasSubstr("cast translation"));
}

// Deeper than the inline buffer: the stack spills to the heap and keeps its
// contents and order.
TEST(TraversalStackTest, SpillsToTheHeapInOrder) {
  TraversalStack<int, 4> stack;
  for (int i = 0; i < 1000; ++i) stack.Push(i);
  for (int i = 999; i >= 500; --i) ASSERT_EQ(stack.Pop(), i);
  for (int i = 0; i < 10; ++i) stack.Push(-i);
  for (int i = 9; i >= 0; --i) ASSERT_EQ(stack.Pop(), -i);
  for (int i = 499; i >= 0; --i) ASSERT_EQ(stack.Pop(), i);
  EXPECT_TRUE(stack.Empty());
}

}  // namespace
}  // namespace sator::broadphase

// The core's vector type (core/src/simd/float4.h): Min and Max equal
// std::min and std::max lane by lane, the first operand for ties, signed
// zeros and NaN; the permutations, sign operations, reductions and masks
// give the lanes their names say. Linked into the 2D core's test binary, and
// compiled with SATOR_PORTABLE_SIMD in the portable preset, so that it runs
// on the plain C++ side too.
#include "simd/float4.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cfenv>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace sator::simd {
namespace {

// The same float, bit for bit (tells -0 from +0 and keeps NaN payloads).
::testing::AssertionResult SameBits(float actual, float expected) {
  if (std::bit_cast<std::uint32_t>(actual) ==
      std::bit_cast<std::uint32_t>(expected)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << actual << " (0x" << std::hex << std::bit_cast<std::uint32_t>(actual)
         << ") is not " << expected << " (0x"
         << std::bit_cast<std::uint32_t>(expected) << ")";
}

TEST(Float4Test, MinAndMaxAreStdMinAndMaxLaneByLane) {
  // A quiet NaN trips FE_INVALID in a compare: the tests trap it, so this
  // test holds the exceptions while it runs.
  std::fenv_t environment;
  ASSERT_EQ(std::feholdexcept(&environment), 0);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float values[] = {-2.0f,
                          -0.0f,
                          0.0f,
                          1.5f,
                          1.5f,
                          nan,
                          std::numeric_limits<float>::infinity()};
  for (const float a0 : values) {
    for (const float b0 : values) {
      const Float4 a(a0, b0, -a0, 3.0f);
      const Float4 b(b0, a0, 3.0f, -b0);
      const Float4 low = Min(a, b);
      const Float4 high = Max(a, b);
      for (int lane = 0; lane < 4; ++lane) {
        EXPECT_TRUE(SameBits(low[lane], std::min(a[lane], b[lane])))
            << "Min lane " << lane << " of " << a[lane] << ", " << b[lane];
        EXPECT_TRUE(SameBits(high[lane], std::max(a[lane], b[lane])))
            << "Max lane " << lane << " of " << a[lane] << ", " << b[lane];
      }
    }
  }
  std::feclearexcept(FE_ALL_EXCEPT);
  ASSERT_EQ(std::fesetenv(&environment), 0);
}

// The lanes of a Float4, for comparing with an expected list.
std::array<float, 4> Lanes(Float4 v) { return {v[0], v[1], v[2], v[3]}; }
std::array<std::int32_t, 4> Lanes(Mask4 m) { return {m[0], m[1], m[2], m[3]}; }

TEST(Float4Test, PermutationsMoveTheNamedLanes) {
  const Float4 a(1.0f, 2.0f, 3.0f, 4.0f);
  const Float4 b(5.0f, 6.0f, 7.0f, 8.0f);
  EXPECT_EQ(Lanes(Permute<1, 2, 0, 3>(a)),
            (std::array<float, 4>{2.0f, 3.0f, 1.0f, 4.0f}));
  EXPECT_EQ(Lanes(Permute<3, 3, 0, 0>(a)),
            (std::array<float, 4>{4.0f, 4.0f, 1.0f, 1.0f}));
  EXPECT_EQ(Lanes(Shuffle<0, 4, 1, 5>(a, b)),
            (std::array<float, 4>{1.0f, 5.0f, 2.0f, 6.0f}));
  EXPECT_EQ(Lanes(Shuffle<2, 3, 6, 7>(a, b)),
            (std::array<float, 4>{3.0f, 4.0f, 7.0f, 8.0f}));
  EXPECT_EQ(Lanes(Broadcast<2>(a)),
            (std::array<float, 4>{3.0f, 3.0f, 3.0f, 3.0f}));
  Float4 r0(1.0f, 2.0f, 3.0f, 4.0f);
  Float4 r1(5.0f, 6.0f, 7.0f, 8.0f);
  Float4 r2(9.0f, 10.0f, 11.0f, 12.0f);
  Float4 r3(13.0f, 14.0f, 15.0f, 16.0f);
  Transpose(r0, r1, r2, r3);
  EXPECT_EQ(Lanes(r0), (std::array<float, 4>{1.0f, 5.0f, 9.0f, 13.0f}));
  EXPECT_EQ(Lanes(r1), (std::array<float, 4>{2.0f, 6.0f, 10.0f, 14.0f}));
  EXPECT_EQ(Lanes(r2), (std::array<float, 4>{3.0f, 7.0f, 11.0f, 15.0f}));
  EXPECT_EQ(Lanes(r3), (std::array<float, 4>{4.0f, 8.0f, 12.0f, 16.0f}));
  const Mask4 m = Float4(1.0f, 0.0f, 1.0f, 0.0f) == Float4::Splat(1.0f);
  EXPECT_EQ(Lanes(Permute<0, 0, 1, 1>(m)),
            (std::array<std::int32_t, 4>{-1, -1, 0, 0}));
}

TEST(Float4Test, SignOperationsTouchOnlyTheSignBit) {
  const Float4 a(-2.5f, 0.0f, -0.0f, 7.0f);
  const Float4 negated = -a;
  const Float4 absolute = Abs(a);
  const Float4 flipped = FlipSign(a, Float4(-1.0f, -0.0f, 1.0f, 0.0f));
  const float expect_negated[4] = {2.5f, -0.0f, 0.0f, -7.0f};
  const float expect_absolute[4] = {2.5f, 0.0f, 0.0f, 7.0f};
  const float expect_flipped[4] = {2.5f, -0.0f, -0.0f, 7.0f};
  for (int lane = 0; lane < 4; ++lane) {
    EXPECT_TRUE(SameBits(negated[lane], expect_negated[lane])) << lane;
    EXPECT_TRUE(SameBits(absolute[lane], expect_absolute[lane])) << lane;
    EXPECT_TRUE(SameBits(flipped[lane], expect_flipped[lane])) << lane;
  }
}

TEST(Float4Test, ReductionsAndConversions) {
  // (a0 + a2) + (a1 + a3): the large terms cancel first, so both ones stay.
  EXPECT_EQ(SumLanes(Float4(1e8f, 1.0f, -1e8f, 1.0f)), 2.0f);
  EXPECT_EQ(MaxLane(Float4(-3.0f, 5.0f, 2.0f, 4.0f)), 5.0f);
  EXPECT_EQ(MinLane(Float4(-3.0f, 5.0f, -7.0f, 4.0f)), -7.0f);
  std::int32_t truncated[4];
  StoreTruncated(Float4(1.9f, -1.9f, 0.5f, -0.5f), truncated);
  EXPECT_EQ((std::array<std::int32_t, 4>{truncated[0], truncated[1],
                                         truncated[2], truncated[3]}),
            (std::array<std::int32_t, 4>{1, -1, 0, 0}));
}

TEST(Float4Test, MasksCombineLoadAndStoreTheirLanes) {
  const Mask4 less = Float4(1.0f, 5.0f, 2.0f, 9.0f) < Float4::Splat(3.0f);
  EXPECT_EQ(Lanes(less), (std::array<std::int32_t, 4>{-1, 0, -1, 0}));
  EXPECT_EQ(Lanes(~less), (std::array<std::int32_t, 4>{0, -1, 0, -1}));
  EXPECT_EQ(LaneBits(less), 0b0101);
  EXPECT_EQ(LaneBits(Mask4::Zero()), 0);
  const std::int32_t bits[4] = {7, -8, 0, 1 << 30};
  const Mask4 loaded = Mask4::LoadBits(bits);
  EXPECT_EQ(Lanes(loaded), (std::array<std::int32_t, 4>{7, -8, 0, 1 << 30}));
  EXPECT_EQ(Lanes(loaded & less), (std::array<std::int32_t, 4>{7, 0, 0, 0}));
  std::int32_t stored[4];
  Store(less | Mask4::Zero(), stored);
  EXPECT_EQ(
      (std::array<std::int32_t, 4>{stored[0], stored[1], stored[2], stored[3]}),
      (std::array<std::int32_t, 4>{-1, 0, -1, 0}));
}

}  // namespace
}  // namespace sator::simd

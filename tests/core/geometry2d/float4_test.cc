// The core's vector type (core/src/simd/float4.h): Min and Max equal
// std::min and std::max lane by lane, the first operand for ties, signed
// zeros and NaN. Linked into the 2D core's test binary so that the portable
// preset runs it on the plain C++ side too.
#include "simd/float4.h"

#include <algorithm>
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

}  // namespace
}  // namespace sator::simd

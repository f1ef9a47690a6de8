// GoogleTest main with floating-point exceptions on: a test whose code makes a
// NaN (invalid operation), divides by zero or overflows dies with SIGFPE.
#include <cfenv>

#include "gtest/gtest.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
  feenableexcept(FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW);
#endif
  return RUN_ALL_TESTS();
}

// How many random cases a randomized test draws. Under a sanitizer (ASan,
// UBSan's ASan build, TSan) the code runs 5-20x slower, and the sanitizer
// finds memory and thread faults on far fewer inputs than the numeric
// properties need, so those builds draw a tenth (at least one case); the
// Release suite draws the full count and holds the numeric claims.
#ifndef SATOR_TESTS_SUPPORT_TEST_SCALE_H_
#define SATOR_TESTS_SUPPORT_TEST_SCALE_H_

namespace sator::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif
#else
inline constexpr bool kUnderSanitizer = false;
#endif

// `full` in a plain build, full / 10 (at least 1) under a sanitizer.
constexpr int ScaledCount(int full) {
  if (!kUnderSanitizer) return full;
  return full / 10 > 0 ? full / 10 : 1;
}

}  // namespace sator::testing

#endif  // SATOR_TESTS_SUPPORT_TEST_SCALE_H_

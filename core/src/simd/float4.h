// Private: four floats operated on together, the vector type of the core.
//
// Algorithms are written against Float4 and Mask4 (lane-wise arithmetic,
// compares, selects, min and max, permutations, and a few reductions) and name
// no instruction set; this header is the only place that does. Two
// implementations with the same interface and the same results, lane for
// lane:
//  - native (the default): GCC/Clang vector extensions, which compile to SSE
//    on x86-64 and NEON on AArch64, with SSE2's movemask for the lane bits;
//  - portable (SATOR_PORTABLE_SIMD defined, the `portable` CMake preset):
//    arrays of four and loops, standard C++ only.
// Every operation rounds as the scalar float operation does (IEEE single,
// no fused multiply-add), so a query's answer does not depend on which one
// is built. Min and Max are std::min and std::max lane by lane (the first
// operand for ties and NaN).
#ifndef SATOR_CORE_SRC_SIMD_FLOAT4_H_
#define SATOR_CORE_SRC_SIMD_FLOAT4_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#if !defined(SATOR_PORTABLE_SIMD) && defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sator::simd {

namespace internal {
// Each index in [0, kCount).
template <int kCount, int... kIndices>
constexpr bool LaneIndices() {
  return ((kIndices >= 0 && kIndices < kCount) && ...);
}
}  // namespace internal

#if defined(SATOR_PORTABLE_SIMD)

// The lanes of a compare: all bits set where it holds, else zero.
struct Mask4 {
  std::int32_t lane[4];
  // No lane set.
  static Mask4 Zero() { return {{0, 0, 0, 0}}; }
  // Four 32-bit lanes of any bits from p (any alignment).
  static Mask4 LoadBits(const void* p) {
    Mask4 m;
    std::memcpy(m.lane, p, sizeof(m.lane));
    return m;
  }
  std::int32_t operator[](int i) const { return lane[i]; }
};

struct Float4 {
  float lane[4];

  Float4() = default;
  Float4(float x, float y, float z, float w) : lane{x, y, z, w} {}
  static Float4 Splat(float x) { return {x, x, x, x}; }
  // Four floats from p (any alignment).
  static Float4 Load(const float* p) { return {p[0], p[1], p[2], p[3]}; }
  void Store(float* p) const { std::memcpy(p, lane, sizeof(lane)); }
  float operator[](int i) const { return lane[i]; }
};

namespace internal {
template <typename Op>
inline Float4 Map(Float4 a, Float4 b, Op op) {
  return {op(a.lane[0], b.lane[0]), op(a.lane[1], b.lane[1]),
          op(a.lane[2], b.lane[2]), op(a.lane[3], b.lane[3])};
}
template <typename Op>
inline Mask4 Compare(Float4 a, Float4 b, Op op) {
  Mask4 m;
  for (int i = 0; i < 4; ++i) m.lane[i] = op(a.lane[i], b.lane[i]) ? -1 : 0;
  return m;
}
}  // namespace internal

inline Float4 operator+(Float4 a, Float4 b) {
  return internal::Map(a, b, [](float x, float y) { return x + y; });
}
inline Float4 operator-(Float4 a, Float4 b) {
  return internal::Map(a, b, [](float x, float y) { return x - y; });
}
inline Float4 operator*(Float4 a, Float4 b) {
  return internal::Map(a, b, [](float x, float y) { return x * y; });
}
inline Float4 operator/(Float4 a, Float4 b) {
  return internal::Map(a, b, [](float x, float y) { return x / y; });
}
inline Mask4 operator<(Float4 a, Float4 b) {
  return internal::Compare(a, b, [](float x, float y) { return x < y; });
}
inline Mask4 operator<=(Float4 a, Float4 b) {
  return internal::Compare(a, b, [](float x, float y) { return x <= y; });
}
inline Mask4 operator==(Float4 a, Float4 b) {
  return internal::Compare(a, b, [](float x, float y) { return x == y; });
}
inline Mask4 operator&(Mask4 a, Mask4 b) {
  return {{a.lane[0] & b.lane[0], a.lane[1] & b.lane[1], a.lane[2] & b.lane[2],
           a.lane[3] & b.lane[3]}};
}
inline Mask4 operator|(Mask4 a, Mask4 b) {
  return {{a.lane[0] | b.lane[0], a.lane[1] | b.lane[1], a.lane[2] | b.lane[2],
           a.lane[3] | b.lane[3]}};
}
inline Mask4 operator~(Mask4 a) {
  return {{~a.lane[0], ~a.lane[1], ~a.lane[2], ~a.lane[3]}};
}
// Lane by lane: mask ? if_true : if_false.
inline Float4 Select(Mask4 mask, Float4 if_true, Float4 if_false) {
  Float4 out;
  for (int i = 0; i < 4; ++i) {
    out.lane[i] = mask.lane[i] != 0 ? if_true.lane[i] : if_false.lane[i];
  }
  return out;
}

// Lanes of a (indices 0 to 3), chosen at compile time.
template <int I0, int I1, int I2, int I3>
inline Float4 Permute(Float4 a) {
  static_assert(internal::LaneIndices<4, I0, I1, I2, I3>());
  return {a.lane[I0], a.lane[I1], a.lane[I2], a.lane[I3]};
}
template <int I0, int I1, int I2, int I3>
inline Mask4 Permute(Mask4 a) {
  static_assert(internal::LaneIndices<4, I0, I1, I2, I3>());
  return {{a.lane[I0], a.lane[I1], a.lane[I2], a.lane[I3]}};
}
// Lanes of a (indices 0 to 3) and b (4 to 7), chosen at compile time.
template <int I0, int I1, int I2, int I3>
inline Float4 Shuffle(Float4 a, Float4 b) {
  static_assert(internal::LaneIndices<8, I0, I1, I2, I3>());
  const float ab[8] = {a.lane[0], a.lane[1], a.lane[2], a.lane[3],
                       b.lane[0], b.lane[1], b.lane[2], b.lane[3]};
  return {ab[I0], ab[I1], ab[I2], ab[I3]};
}
inline Float4 operator-(Float4 a) {
  return {-a.lane[0], -a.lane[1], -a.lane[2], -a.lane[3]};
}
// The sign bit cleared.
inline Float4 Abs(Float4 a) {
  return {std::fabs(a.lane[0]), std::fabs(a.lane[1]), std::fabs(a.lane[2]),
          std::fabs(a.lane[3])};
}
// a with its sign flipped in the lanes where s has its sign bit set.
inline Float4 FlipSign(Float4 a, Float4 s) {
  Float4 out;
  for (int i = 0; i < 4; ++i) {
    out.lane[i] = std::signbit(s.lane[i]) ? -a.lane[i] : a.lane[i];
  }
  return out;
}
// Each lane truncated toward zero (lanes must fit an int32).
inline void StoreTruncated(Float4 a, std::int32_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::int32_t>(a.lane[i]);
}
// The lanes as 0 or -1.
inline void Store(Mask4 m, std::int32_t* p) {
  std::memcpy(p, m.lane, sizeof(m.lane));
}

#else

namespace internal {
using NativeFloat4 = float __attribute__((vector_size(16)));
using NativeInt4 = std::int32_t __attribute__((vector_size(16)));
}  // namespace internal

// The lanes of a compare: all bits set where it holds, else zero.
struct Mask4 {
  internal::NativeInt4 native;
  // No lane set.
  static Mask4 Zero() { return {internal::NativeInt4{0, 0, 0, 0}}; }
  // Four 32-bit lanes of any bits from p (any alignment).
  static Mask4 LoadBits(const void* p) {
    Mask4 m;
    std::memcpy(&m.native, p, sizeof(m.native));
    return m;
  }
  std::int32_t operator[](int i) const { return native[i]; }
};

struct Float4 {
  internal::NativeFloat4 native;

  Float4() = default;
  explicit Float4(internal::NativeFloat4 v) : native(v) {}
  Float4(float x, float y, float z, float w) : native{x, y, z, w} {}
  static Float4 Splat(float x) { return {x, x, x, x}; }
  // Four floats from p (any alignment).
  static Float4 Load(const float* p) {
    Float4 v;
    std::memcpy(&v.native, p, sizeof(v.native));
    return v;
  }
  void Store(float* p) const { std::memcpy(p, &native, sizeof(native)); }
  float operator[](int i) const { return native[i]; }
};

inline Float4 operator+(Float4 a, Float4 b) {
  return Float4(a.native + b.native);
}
inline Float4 operator-(Float4 a, Float4 b) {
  return Float4(a.native - b.native);
}
inline Float4 operator*(Float4 a, Float4 b) {
  return Float4(a.native * b.native);
}
inline Float4 operator/(Float4 a, Float4 b) {
  return Float4(a.native / b.native);
}
inline Mask4 operator<(Float4 a, Float4 b) { return {a.native < b.native}; }
inline Mask4 operator<=(Float4 a, Float4 b) { return {a.native <= b.native}; }
inline Mask4 operator==(Float4 a, Float4 b) { return {a.native == b.native}; }
inline Mask4 operator&(Mask4 a, Mask4 b) { return {a.native & b.native}; }
inline Mask4 operator|(Mask4 a, Mask4 b) { return {a.native | b.native}; }
inline Mask4 operator~(Mask4 a) { return {~a.native}; }
// Lane by lane: mask ? if_true : if_false (on the bits: exact for any float).
inline Float4 Select(Mask4 mask, Float4 if_true, Float4 if_false) {
  internal::NativeInt4 t;
  internal::NativeInt4 f;
  std::memcpy(&t, &if_true.native, sizeof(t));
  std::memcpy(&f, &if_false.native, sizeof(f));
  const internal::NativeInt4 bits = (mask.native & t) | (~mask.native & f);
  Float4 out;
  std::memcpy(&out.native, &bits, sizeof(bits));
  return out;
}

// Lanes of a (indices 0 to 3), chosen at compile time.
template <int I0, int I1, int I2, int I3>
inline Float4 Permute(Float4 a) {
  static_assert(internal::LaneIndices<4, I0, I1, I2, I3>());
  return Float4(__builtin_shufflevector(a.native, a.native, I0, I1, I2, I3));
}
template <int I0, int I1, int I2, int I3>
inline Mask4 Permute(Mask4 a) {
  static_assert(internal::LaneIndices<4, I0, I1, I2, I3>());
  return {__builtin_shufflevector(a.native, a.native, I0, I1, I2, I3)};
}
// Lanes of a (indices 0 to 3) and b (4 to 7), chosen at compile time.
template <int I0, int I1, int I2, int I3>
inline Float4 Shuffle(Float4 a, Float4 b) {
  static_assert(internal::LaneIndices<8, I0, I1, I2, I3>());
  return Float4(__builtin_shufflevector(a.native, b.native, I0, I1, I2, I3));
}
inline Float4 operator-(Float4 a) { return Float4(-a.native); }
// The sign bit cleared.
inline Float4 Abs(Float4 a) {
  internal::NativeInt4 bits;
  std::memcpy(&bits, &a.native, sizeof(bits));
  bits &= 0x7fffffff;
  Float4 out;
  std::memcpy(&out.native, &bits, sizeof(bits));
  return out;
}
// a with its sign flipped in the lanes where s has its sign bit set.
inline Float4 FlipSign(Float4 a, Float4 s) {
  internal::NativeInt4 a_bits;
  internal::NativeInt4 s_bits;
  std::memcpy(&a_bits, &a.native, sizeof(a_bits));
  std::memcpy(&s_bits, &s.native, sizeof(s_bits));
  a_bits ^= s_bits & static_cast<std::int32_t>(0x80000000u);
  Float4 out;
  std::memcpy(&out.native, &a_bits, sizeof(a_bits));
  return out;
}
// Each lane truncated toward zero (lanes must fit an int32).
inline void StoreTruncated(Float4 a, std::int32_t* p) {
  const internal::NativeInt4 v =
      __builtin_convertvector(a.native, internal::NativeInt4);
  std::memcpy(p, &v, sizeof(v));
}
// The lanes as 0 or -1.
inline void Store(Mask4 m, std::int32_t* p) {
  std::memcpy(p, &m.native, sizeof(m.native));
}

#endif

// ---- Either implementation
// ---------------------------------------------------
inline Float4 operator*(float s, Float4 a) { return Float4::Splat(s) * a; }
inline Float4 operator*(Float4 a, float s) { return a * Float4::Splat(s); }
inline Mask4 operator>(Float4 a, Float4 b) { return b < a; }
inline Mask4 operator>=(Float4 a, Float4 b) { return b <= a; }

// std::min and std::max lane by lane. SSE's minps(x, y) is x < y ? x : y
// and maxps(x, y) is x > y ? x : y, so with the operands swapped they keep
// the first operand for ties and NaN, as std::min and std::max do.
#if !defined(SATOR_PORTABLE_SIMD) && defined(__SSE2__)
inline Float4 Min(Float4 a, Float4 b) {
  return Float4(_mm_min_ps(b.native, a.native));
}
inline Float4 Max(Float4 a, Float4 b) {
  return Float4(_mm_max_ps(b.native, a.native));
}
#else
inline Float4 Min(Float4 a, Float4 b) { return Select(b < a, b, a); }
inline Float4 Max(Float4 a, Float4 b) { return Select(a < b, b, a); }
#endif

// Bit i set when lane i of the mask is.
inline int LaneBits(Mask4 mask) {
#if !defined(SATOR_PORTABLE_SIMD) && defined(__SSE2__)
  __m128i bits;
  std::memcpy(&bits, &mask.native, sizeof(bits));
  return _mm_movemask_ps(_mm_castsi128_ps(bits));
#else
  return (mask[0] & 1) | (mask[1] & 2) | (mask[2] & 4) | (mask[3] & 8);
#endif
}
inline bool AnyLane(Mask4 mask) { return LaneBits(mask) != 0; }

// The least lane, as std::min over lanes 0 and 1, 2 and 3, then the two.
inline float MinLane(Float4 a) {
  return std::min(std::min(a[0], a[1]), std::min(a[2], a[3]));
}

// The greatest lane, as std::max over lanes 0 and 1, 2 and 3, then the two.
inline float MaxLane(Float4 a) {
  return std::max(std::max(a[0], a[1]), std::max(a[2], a[3]));
}

// The sum of the lanes, as (a0 + a2) + (a1 + a3).
inline float SumLanes(Float4 a) { return (a[0] + a[2]) + (a[1] + a[3]); }

// Lane L in all four lanes.
template <int L>
inline Float4 Broadcast(Float4 a) {
  return Permute<L, L, L, L>(a);
}

// The 4 x 4 matrix with rows a, b, c, d transposed in place.
inline void Transpose(Float4& a, Float4& b, Float4& c, Float4& d) {
  const Float4 ab_lo = Shuffle<0, 4, 1, 5>(a, b);  // a0 b0 a1 b1
  const Float4 ab_hi = Shuffle<2, 6, 3, 7>(a, b);  // a2 b2 a3 b3
  const Float4 cd_lo = Shuffle<0, 4, 1, 5>(c, d);  // c0 d0 c1 d1
  const Float4 cd_hi = Shuffle<2, 6, 3, 7>(c, d);  // c2 d2 c3 d3
  a = Shuffle<0, 1, 4, 5>(ab_lo, cd_lo);
  b = Shuffle<2, 3, 6, 7>(ab_lo, cd_lo);
  c = Shuffle<0, 1, 4, 5>(ab_hi, cd_hi);
  d = Shuffle<2, 3, 6, 7>(ab_hi, cd_hi);
}

}  // namespace sator::simd

#endif  // SATOR_CORE_SRC_SIMD_FLOAT4_H_

// Random scenes for the scene tests, and a brute-force reference that
// replays the history body by body (no broad phase, no shared code with the
// scene beyond the pair queries of the cores and InterpolatePose, which has
// analytic tests of its own).
#ifndef SATOR_TESTS_CORE_SCENE_SCENE_TEST_UTIL_H_
#define SATOR_TESTS_CORE_SCENE_SCENE_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "collide3d/shape3d_unchecked.h"
#include "sator/core/collide2d/queries2d.h"
#include "sator/core/collide3d/convex_hull.h"
#include "sator/core/collide3d/shape3d_queries.h"
#include "sator/core/collide3d/shape3d_validation.h"
#include "sator/core/collide3d/triangle_mesh.h"
#include "sator/core/scene/pose_interpolation.h"
#include "sator/core/scene/scene.h"

namespace sator::scene::testing_util {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  float Uniform(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(engine_);
  }
  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(engine_);
  }
  bool Chance(float p) { return Uniform(0.0f, 1.0f) < p; }
  std::uint64_t Bits() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

// ---- Per-dimension helpers -----------------------------------------------

template <int D>
struct Dim;

template <>
struct Dim<2> {
  static Vec2 RandomPoint(Rng& rng, float half) {
    return {rng.Uniform(-half, half), rng.Uniform(-half, half)};
  }
  static Vec2 RandomUnit(Rng& rng) {
    const float a = rng.Uniform(-3.14159f, 3.14159f);
    return {std::cos(a), std::sin(a)};
  }
  static Pose2 RandomPose(Rng& rng, float half) {
    return Pose2::FromAngle(RandomPoint(rng, half),
                            rng.Uniform(-3.14159f, 3.14159f));
  }
  // A small move: the next tick's pose.
  static Pose2 Nudge(Rng& rng, const Pose2& pose, float step) {
    Pose2 out = pose;
    out.position = pose.position + RandomPoint(rng, step);
    out.rotation =
        Mul(pose.rotation, Rot2::FromAngle(rng.Uniform(-0.3f, 0.3f)));
    const float l = std::sqrt(out.rotation.c * out.rotation.c +
                              out.rotation.s * out.rotation.s);
    out.rotation = {out.rotation.c / l, out.rotation.s / l};
    return out;
  }
  static Pose2 Normalized(const Pose2& pose) { return pose; }
  static ShapePtr<2> RandomShape(Rng& rng, bool /*is_static*/) {
    switch (rng.Int(0, 4)) {
      case 0:
        return std::make_shared<const Shape2>(Circle{rng.Uniform(0.2f, 1.5f)});
      case 1:
        return std::make_shared<const Shape2>(
            Box2{{rng.Uniform(0.2f, 1.5f), rng.Uniform(0.2f, 1.5f)}});
      case 2: {
        while (true) {
          std::vector<Vec2> points;
          const int n = rng.Int(3, 7);
          for (int i = 0; i < n; ++i) {
            const float a = 6.2831853f *
                            (static_cast<float>(i) + rng.Uniform(0.1f, 0.9f)) /
                            static_cast<float>(n);
            const float r = rng.Uniform(0.5f, 1.5f);
            points.push_back({r * std::cos(a), r * std::sin(a)});
          }
          absl::StatusOr<ConvexPolygon> polygon = MakeConvexPolygon(points);
          if (polygon.ok()) return std::make_shared<const Shape2>(*polygon);
        }
      }
      case 3: {
        const Vec2 h = RandomUnit(rng) * rng.Uniform(0.2f, 1.2f);
        return std::make_shared<const Shape2>(
            Capsule2{-h, h, rng.Uniform(0.1f, 0.8f)});
      }
      default: {
        const Vec2 h = RandomUnit(rng) * rng.Uniform(0.3f, 1.5f);
        return std::make_shared<const Shape2>(Segment2{-h, h});
      }
    }
  }
  static ShapePtr<2> RandomQueryShape(Rng& rng) {
    return RandomShape(rng, false);
  }
  // The pair queries, straight from the core.
  static bool Overlap(const Shape2& a, const Pose2& pa, const Shape2& b,
                      const Pose2& pb) {
    return sator::Overlap(a, pa, b, pb);
  }
  static ContactResult<2> Contact(const Shape2& a, const Pose2& pa,
                                  const Shape2& b, const Pose2& pb) {
    return sator::Contact(a, pa, b, pb);
  }
  static SweepResult<2> Sweep(const Shape2& a, const Pose2& pa, Vec2 d,
                              const Shape2& b, const Pose2& pb) {
    return sator::Sweep(a, pa, d, b, pb, Vec2{});
  }
  static RayResult<2> RayCast(const Shape2& s, const Pose2& p,
                              const Ray<2>& ray) {
    return sator::RayCast(s, p, ray);
  }
};

inline Quat RandomQuat(Rng& rng) {
  const Vec3 axis{rng.Uniform(-1, 1), rng.Uniform(-1, 1), rng.Uniform(-1, 1)};
  if (LengthSquared(axis) < 1e-4f) return {};
  return Quat::FromAxisAngle(axis, rng.Uniform(-3.14159f, 3.14159f));
}

inline const std::vector<std::shared_ptr<const ConvexHull>>& Hulls() {
  static const auto* hulls = [] {
    auto* out = new std::vector<std::shared_ptr<const ConvexHull>>();
    Rng rng(77);
    while (out->size() < 8) {
      std::vector<Vec3> points;
      for (int i = 0; i < 12; ++i) {
        points.push_back(
            {rng.Uniform(-1, 1), rng.Uniform(-1, 1), rng.Uniform(-1, 1)});
      }
      auto hull = MakeConvexHull(points);
      if (hull.ok()) out->push_back(*hull);
    }
    return out;
  }();
  return *hulls;
}

// A small bumpy terrain patch: a static mesh.
inline std::shared_ptr<const TriangleMesh> Terrain() {
  static const auto* mesh = [] {
    std::vector<Vec3> vertices;
    std::vector<std::uint32_t> indices;
    constexpr int kN = 4;
    Rng rng(99);
    for (int i = 0; i <= kN; ++i) {
      for (int j = 0; j <= kN; ++j) {
        vertices.push_back({static_cast<float>(i) - 2.0f,
                            rng.Uniform(-0.3f, 0.3f),
                            static_cast<float>(j) - 2.0f});
      }
    }
    for (int i = 0; i < kN; ++i) {
      for (int j = 0; j < kN; ++j) {
        const std::uint32_t a = static_cast<std::uint32_t>(i * (kN + 1) + j);
        const std::uint32_t b = a + 1;
        const std::uint32_t c = a + kN + 1;
        const std::uint32_t d = c + 1;
        indices.insert(indices.end(), {a, b, c, b, d, c});
      }
    }
    return new std::shared_ptr<const TriangleMesh>(
        MakeTriangleMesh(vertices, indices).value());
  }();
  return *mesh;
}

template <>
struct Dim<3> {
  static Vec3 RandomPoint(Rng& rng, float half) {
    return {rng.Uniform(-half, half), rng.Uniform(-half, half),
            rng.Uniform(-half, half)};
  }
  static Vec3 RandomUnit(Rng& rng) {
    while (true) {
      const Vec3 v = RandomPoint(rng, 1.0f);
      const float l = Length(v);
      if (l > 0.1f && l <= 1.0f) return v * (1.0f / l);
    }
  }
  static Pose3 RandomPose(Rng& rng, float half) {
    return Normalized({RandomPoint(rng, half), RandomQuat(rng)});
  }
  static Pose3 Nudge(Rng& rng, const Pose3& pose, float step) {
    Pose3 out = pose;
    out.position = pose.position + RandomPoint(rng, step);
    out.rotation =
        Mul(pose.rotation,
            Quat::FromAxisAngle(RandomUnit(rng), rng.Uniform(-0.3f, 0.3f)));
    return Normalized(out);
  }
  // The scene stores the pose NormalizePose gives; the reference must too.
  static Pose3 Normalized(const Pose3& pose) {
    return NormalizePose(pose).value();
  }
  static ShapePtr<3> RandomShape(Rng& rng, bool is_static) {
    const int kind = rng.Int(0, is_static ? 5 : 4);
    switch (kind) {
      case 0:
        return std::make_shared<const Shape3>(Sphere{rng.Uniform(0.2f, 1.5f)});
      case 1:
        return std::make_shared<const Shape3>(
            Box3{{rng.Uniform(0.2f, 1.5f), rng.Uniform(0.2f, 1.5f),
                  rng.Uniform(0.2f, 1.5f)}});
      case 2: {
        const Vec3 h = RandomUnit(rng) * rng.Uniform(0.2f, 1.2f);
        return std::make_shared<const Shape3>(
            Capsule3{-h, h, rng.Uniform(0.1f, 0.8f)});
      }
      case 3:
        return std::make_shared<const Shape3>(
            Triangle3{{-1, 0, -1}, {1, 0, -1}, {0, 0, 1.2f}});
      case 4:
        return std::make_shared<const Shape3>(
            Hulls()[static_cast<std::size_t>(rng.Int(0, 7))]);
      default:
        return std::make_shared<const Shape3>(Terrain());
    }
  }
  static ShapePtr<3> RandomQueryShape(Rng& rng) {
    return RandomShape(rng, false);
  }
  // The scene runs the pair queries at its stored bodies without their
  // checks (each shape validated once), on the poses as it holds them.
  static bool Overlap(const Shape3& a, const Pose3& pa, const Shape3& b,
                      const Pose3& pb) {
    return sator::internal::OverlapUnchecked(a, pa, b, pb);
  }
  static ContactResult<3> Contact(const Shape3& a, const Pose3& pa,
                                  const Shape3& b, const Pose3& pb) {
    return sator::internal::ContactUnchecked(a, pa, b, pb);
  }
  static SweepResult<3> Sweep(const Shape3& a, const Pose3& pa, Vec3 d,
                              const Shape3& b, const Pose3& pb) {
    return sator::internal::SweepUnchecked(a, pa, d, b, pb, Vec3{});
  }
  static RayResult<3> RayCast(const Shape3& s, const Pose3& p,
                              const Ray<3>& ray) {
    return sator::internal::RayCastUnchecked(s, p, ray);
  }
};

// ---- Query cases ----------------------------------------------------------

enum class QueryKind { kOverlap, kContacts, kSweep, kRay, kPoint };

// One scene query of any kind, as the randomized tests draw them.
template <int D>
struct QueryCase {
  QueryKind kind = QueryKind::kOverlap;
  ShapePtr<D> shape;
  Pose<D> pose{};
  Vec<D> vector{};  // Displacement, or the ray's unit direction.
  float max_distance = 0.0f;
  QueryOptions options;
};

template <int D>
absl::StatusOr<QueryResult<D>> RunOnScene(const SceneSnapshot<D>& snapshot,
                                          const QueryCase<D>& q) {
  switch (q.kind) {
    case QueryKind::kOverlap:
      return snapshot.Overlap(*q.shape, q.pose, q.options);
    case QueryKind::kContacts:
      return snapshot.Contacts(*q.shape, q.pose, q.options);
    case QueryKind::kSweep:
      return snapshot.Sweep(*q.shape, q.pose, q.vector, q.options);
    case QueryKind::kRay:
      return snapshot.RayCast(q.pose.position, q.vector, q.max_distance,
                              q.options);
    case QueryKind::kPoint:
      return snapshot.PointQuery(q.pose.position, q.options);
  }
  return absl::InternalError("unreachable");
}

// ---- The reference model -------------------------------------------------

template <int D>
struct ModelBody {
  BodyDesc<D> desc;
  std::uint64_t serial = 0;  // New for every creation, kept by upserts.
};

// The scene's bodies tick by tick, as the test applied them.
template <int D>
class Model {
 public:
  explicit Model(int history) : history_(history) { states_[0] = {}; }

  using State = std::map<std::uint64_t, ModelBody<D>>;

  std::int64_t tick() const { return states_.rbegin()->first; }
  std::int64_t oldest() const { return states_.begin()->first; }
  const State& current() const { return states_.rbegin()->second; }
  const State& at(std::int64_t tick) const { return states_.at(tick); }

  void Upsert(const BodyDesc<D>& desc) {
    State& state = states_.rbegin()->second;
    auto it = state.find(desc.id);
    BodyDesc<D> copy = desc;
    copy.pose = Dim<D>::Normalized(desc.pose);
    if (it == state.end()) {
      state[desc.id] = {copy, next_serial_++};
    } else {
      it->second.desc = copy;
    }
  }
  void Remove(std::uint64_t id) { states_.rbegin()->second.erase(id); }
  void SetPose(std::int64_t tick, std::uint64_t id, const Pose<D>& pose) {
    Advance(tick);
    states_.rbegin()->second.at(id).desc.pose = Dim<D>::Normalized(pose);
  }
  void Advance(std::int64_t tick) {
    while (this->tick() < tick) {
      const State copy = current();
      states_[this->tick() + 1] = copy;
    }
    while (static_cast<int>(states_.size()) > history_) {
      states_.erase(states_.begin());
    }
  }

  // The bodies at tick + fraction, with their (interpolated) poses.
  std::vector<ModelBody<D>> BodiesAt(std::int64_t tick, float fraction,
                                     float teleport) const {
    std::vector<ModelBody<D>> out;
    for (const auto& [id, body] : at(tick)) {
      ModelBody<D> b = body;
      if (fraction > 0.0f) {
        const State& next = at(tick + 1);
        auto it = next.find(id);
        if (it != next.end() && it->second.serial == body.serial &&
            !IsTeleport(body.desc.pose, it->second.desc.pose, teleport)) {
          b.desc.pose =
              InterpolatePose(body.desc.pose, it->second.desc.pose, fraction);
        }
      }
      out.push_back(b);
    }
    return out;
  }

 private:
  int history_;
  std::map<std::int64_t, State> states_;
  std::uint64_t next_serial_ = 1;
};

inline bool Passes(const QueryFilter& filter, std::uint64_t id,
                   std::uint64_t layer, std::uint64_t mask, MotionType motion) {
  if ((layer & filter.mask) == 0) return false;
  if (filter.two_way && (filter.layer & mask) == 0) return false;
  if (filter.motion == MotionSelection::kStaticOnly &&
      motion != MotionType::kStatic) {
    return false;
  }
  if (filter.motion == MotionSelection::kDynamicOnly &&
      motion != MotionType::kDynamic) {
    return false;
  }
  // A linear scan, independent of ExcludedIds::Contains.
  const absl::Span<const std::uint64_t> excluded = filter.excluded_ids.sorted();
  return std::find(excluded.begin(), excluded.end(), id) == excluded.end();
}

template <int D>
struct KeyedHit {
  float key;
  QueryHit<D> hit;
};

// Sorts by (key, id) and applies the mode, as documented in scene_types.h.
// kAny returns every hit (the caller checks membership).
template <int D>
std::vector<QueryHit<D>> Finish(std::vector<KeyedHit<D>> hits,
                                const QueryOptions& options) {
  std::sort(hits.begin(), hits.end(),
            [](const KeyedHit<D>& a, const KeyedHit<D>& b) {
              if (a.key != b.key) return a.key < b.key;
              return a.hit.body_id < b.hit.body_id;
            });
  std::size_t limit = static_cast<std::size_t>(options.max_hits);
  if (options.mode == ResultMode::kClosest) limit = 1;
  if (options.mode == ResultMode::kAny) limit = hits.size();
  if (hits.size() > limit) hits.resize(limit);
  std::vector<QueryHit<D>> out;
  for (const auto& h : hits) out.push_back(h.hit);
  return out;
}

}  // namespace sator::scene::testing_util

#endif  // SATOR_TESTS_CORE_SCENE_SCENE_TEST_UTIL_H_

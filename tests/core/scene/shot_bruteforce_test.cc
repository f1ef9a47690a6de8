// ValidateShots against a brute-force reference in double precision: the
// test keeps its own history of every group pose, local pose and teleport
// flag it sent, places every part at its interpolated pose (nlerp, composed,
// cut at teleports) and intersects the shot with every primitive
// analytically (spheres, capsules, static boxes). Shots near a decision
// boundary (a grazing ray, two hits at nearly the same distance, an origin
// at the policy's distance, a view time at the clamp limit) are skipped as
// ambiguous and counted; the test requires that few are.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "sator/core/scene/scene.h"
#include "sator/core/scene/shot_validation.h"

namespace sator::scene {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kScale = 8;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr int kScale = 8;
#else
constexpr int kScale = 1;
#endif
#else
constexpr int kScale = 1;
#endif

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 2e-3;  // Ambiguity margin, in length units.

struct V {
  double x = 0, y = 0, z = 0;
};
V operator+(V a, V b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
V operator-(V a, V b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V operator*(V a, double s) { return {a.x * s, a.y * s, a.z * s}; }
double Dot(V a, V b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V Cross(V a, V b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
double Len(V a) { return std::sqrt(Dot(a, a)); }
V FromF(Vec3 v) { return {v.x, v.y, v.z}; }

struct Q {
  double x = 0, y = 0, z = 0, w = 1;
};
Q FromF(Quat q) { return {q.x, q.y, q.z, q.w}; }
Q Mul(Q a, Q b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
          a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
V Rot(Q q, V v) {
  const V u{q.x, q.y, q.z};
  const V t = Cross(u, v) * 2.0;
  return v + t * q.w + Cross(u, t);
}
V InvRot(Q q, V v) { return Rot({-q.x, -q.y, -q.z, q.w}, v); }
Q Nlerp(Q a, Q b, double t) {
  if (a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0) {
    b = {-b.x, -b.y, -b.z, -b.w};
  }
  Q q{a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z),
      a.w + t * (b.w - a.w)};
  const double l = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  return {q.x / l, q.y / l, q.z / l, q.w / l};
}
struct P {
  V p;
  Q q;
};
P FromF(const Pose3& pose) {
  return {FromF(pose.position), FromF(pose.rotation)};
}
P Compose(const P& a, const P& b) {
  return {a.p + Rot(a.q, b.p), Mul(a.q, b.q)};
}
P Lerp(const P& a, const P& b, double t) {
  return {a.p + (b.p - a.p) * t, Nlerp(a.q, b.q, t)};
}

// Distance from point p to segment [a, b].
double PointSeg(V p, V a, V b) {
  const V d = b - a;
  const double dd = Dot(d, d);
  const double s = dd > 0 ? std::clamp(Dot(p - a, d) / dd, 0.0, 1.0) : 0.0;
  return Len(p - (a + d * s));
}
// Distance between segments [p0, p1] and [q0, q1] (by dense sampling
// refined with golden-section search on the convex distance function).
double SegSeg(V p0, V p1, V q0, V q1) {
  auto f = [&](double s) { return PointSeg(p0 + (p1 - p0) * s, q0, q1); };
  double lo = 0, hi = 1;
  for (int i = 0; i < 200; ++i) {
    const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (f(m1) < f(m2)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  return std::min({f(0.5 * (lo + hi)), f(0), f(1)});
}

// First parameter t in [0, range] where the point o + d t is within r of
// segment [a, b] (a sphere when a == b); kInf when never. `grazing` is set
// when the ray's closest approach is within kEps of r.
double RayCapsule(V o, V d, double range, V a, V b, double r, bool* grazing) {
  const double gap = SegSeg(o, o + d * range, a, b) - r;
  if (std::fabs(gap) < kEps) *grazing = true;
  if (gap > 0) return kInf;
  if (PointSeg(o, a, b) <= r) return 0.0;
  // Bisection on the first entry: find t with distance == r, the distance
  // along the ray being convex, so the entry is below the minimiser.
  auto f = [&](double t) { return PointSeg(o + d * t, a, b) - r; };
  double lo = 0, hi = range;
  // Minimiser by ternary search.
  for (int i = 0; i < 200; ++i) {
    const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (f(m1) < f(m2)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  double in = 0.5 * (lo + hi), out = 0.0;
  for (int i = 0; i < 200; ++i) {
    const double m = 0.5 * (in + out);
    if (f(m) <= 0) {
      in = m;
    } else {
      out = m;
    }
  }
  return in;
}

// Ray against an oriented box; kInf when it misses.
double RayBox(V o, V d, double range, const P& pose, V half, bool* grazing) {
  const V lo = InvRot(pose.q, o - pose.p);
  const V ld = InvRot(pose.q, d);
  auto slab = [&](V h, double* t0, double* t1) {
    *t0 = 0;
    *t1 = range;
    const double os[3] = {lo.x, lo.y, lo.z};
    const double ds[3] = {ld.x, ld.y, ld.z};
    const double hs[3] = {h.x, h.y, h.z};
    for (int i = 0; i < 3; ++i) {
      if (std::fabs(ds[i]) < 1e-12) {
        if (std::fabs(os[i]) > hs[i]) return false;
        continue;
      }
      double a = (-hs[i] - os[i]) / ds[i], b = (hs[i] - os[i]) / ds[i];
      if (a > b) std::swap(a, b);
      *t0 = std::max(*t0, a);
      *t1 = std::min(*t1, b);
    }
    return *t0 <= *t1;
  };
  double t0 = 0, t1 = 0;
  const bool hit = slab(half, &t0, &t1);
  double g0 = 0, g1 = 0;
  const bool grown = slab(half + V{kEps, kEps, kEps}, &g0, &g1);
  if (grown != hit || (hit && t1 - t0 < kEps)) *grazing = true;
  if (hit) {
    const V inner = half - V{kEps, kEps, kEps};
    double s0 = 0, s1 = 0;
    if (!slab(inner, &s0, &s1)) *grazing = true;
  }
  return hit ? t0 : kInf;
}

struct PartSpec {
  std::uint64_t body_id = 0;
  std::int32_t part = 0;
  bool capsule = false;
  double radius = 0;
  double half = 0;  // Capsule half length along local y.
};

struct GroupSpec {
  std::uint64_t id = 0;
  std::uint64_t layer = 0;
  std::vector<PartSpec> parts;
  // By tick: group pose, local pose of each part, teleported.
  std::vector<Pose3> pose;
  std::vector<std::vector<Pose3>> local;
  std::vector<bool> teleported;
};

struct WallSpec {
  P pose;
  V half;
};

struct Placed {
  const GroupSpec* group;
  const PartSpec* spec;
  P pose;
  bool teleported;
};

class World {
 public:
  static constexpr int kTicks = 48;
  static constexpr int kHistory = 32;
  static constexpr double kTeleport = 10.0;

  explicit World(std::uint64_t seed) : rng_(seed) {
    SceneOptions options;
    options.history_ticks = kHistory;
    options.tick_rate = 64.0;
    scene_ = Scene3::Create(options).value();
    std::vector<BodyDesc<3>> bodies;
    std::uint64_t next_id = 1;
    for (int g = 0; g < 10; ++g) {
      GroupSpec group;
      group.id = 100 + static_cast<std::uint64_t>(g);
      group.layer = 1u << (g % 2);
      const int parts = 2 + g % 3;
      for (int k = 0; k < parts; ++k) {
        PartSpec part;
        part.body_id = next_id++;
        part.part = k;
        part.capsule = Uniform(0, 1) < 0.5;
        part.radius = Uniform(0.15, 0.45);
        part.half = part.capsule ? Uniform(0.2, 0.5) : 0.0;
        BodyDesc<3> body;
        body.id = part.body_id;
        body.group_id = group.id;
        body.part = k;
        body.layer = group.layer;
        const auto r = static_cast<float>(part.radius);
        const auto h = static_cast<float>(part.half);
        body.shape = part.capsule ? std::make_shared<const Shape3>(
                                        Capsule3{{0, -h, 0}, {0, h, 0}, r})
                                  : std::make_shared<const Shape3>(Sphere{r});
        body.pose = LocalPose(k, 0);
        bodies.push_back(body);
        group.parts.push_back(part);
      }
      groups_.push_back(group);
    }
    for (int w = 0; w < 4; ++w) {
      BodyDesc<3> wall;
      wall.id = 1000 + static_cast<std::uint64_t>(w);
      wall.motion = MotionType::kStatic;
      wall.layer = 1u << 5;
      const Vec3 half{static_cast<float>(Uniform(0.1, 0.4)),
                      static_cast<float>(Uniform(1, 3)),
                      static_cast<float>(Uniform(1, 3))};
      wall.shape = std::make_shared<const Shape3>(Box3{half});
      wall.pose.position = RandomPoint(8.0f);
      wall.pose.rotation = Quat::FromAxisAngle(
          {0, 1, 0}, static_cast<float>(Uniform(-3.1, 3.1)));
      bodies.push_back(wall);
      walls_.push_back({FromF(wall.pose), FromF(half)});
    }
    EXPECT_TRUE(scene_->UpsertBodies(bodies).ok());
    // Ticks 0..kTicks-1: group random walks with turns, animated parts,
    // teleports (flagged, or jumps beyond the teleport distance).
    std::vector<Pose3> group_pose(groups_.size());
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      group_pose[g].position = RandomPoint(8.0f);
    }
    for (int tick = 0; tick < kTicks; ++tick) {
      std::vector<PoseUpdate<3>> updates;
      std::vector<GroupPoseUpdate<3>> group_updates;
      for (std::size_t g = 0; g < groups_.size(); ++g) {
        GroupSpec& group = groups_[g];
        bool teleported = false;
        Pose3& pose = group_pose[g];
        const double roll = Uniform(0, 1);
        if (tick > 0 && roll < 0.04) {
          pose.position = RandomPoint(8.0f);  // Flagged respawn.
          teleported = true;
        } else if (tick > 0 && roll < 0.07) {
          // Unflagged jump, beyond the teleport distance.
          pose.position = pose.position + Vec3{25.0f, 0.0f, 0.0f};
          if (pose.position.x > 30.0f) pose.position.x -= 50.0f;
        } else if (tick > 0) {
          pose.position = pose.position + RandomPoint(0.4f);
        }
        pose.rotation = Normalize(
            Mul(pose.rotation,
                Quat::FromAxisAngle(RandomUnit(),
                                    static_cast<float>(Uniform(-0.4, 0.4)))));
        group_updates.push_back({group.id, pose, teleported});
        group.pose.push_back(pose);
        group.teleported.push_back(teleported);
        std::vector<Pose3> locals;
        for (std::size_t k = 0; k < group.parts.size(); ++k) {
          const Pose3 local = LocalPose(static_cast<int>(k), tick);
          locals.push_back(local);
          updates.push_back({group.parts[k].body_id, local, false});
        }
        group.local.push_back(locals);
      }
      EXPECT_TRUE(scene_->UpdatePoses(tick, updates, group_updates).ok());
    }
    // What the scene normalised: record the poses it holds, so the
    // reference composes the same inputs (CheckPose renormalises).
  }

  // Part k's local pose at `tick`: stacked along y, swaying.
  Pose3 LocalPose(int k, int tick) {
    Pose3 pose;
    pose.position = {static_cast<float>(0.3 * std::sin(0.3 * tick + k)),
                     static_cast<float>(0.6 * k),
                     static_cast<float>(0.2 * std::cos(0.2 * tick))};
    pose.rotation = Normalize(Quat::FromAxisAngle(
        {1, 0, 0}, static_cast<float>(0.25 * std::sin(0.1 * tick + k))));
    return pose;
  }

  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  Vec3 RandomPoint(float half) {
    return {static_cast<float>(Uniform(-half, half)),
            static_cast<float>(Uniform(-half, half)),
            static_cast<float>(Uniform(-half, half))};
  }
  Vec3 RandomUnit() {
    Vec3 v;
    do {
      v = RandomPoint(1.0f);
    } while (Length(v) < 0.1f);
    return NormalizeOrZero(v);
  }

  // Every part of `group` at time tick + t (the reference's own replay).
  std::vector<Placed> PartsAt(const GroupSpec& group, int frame,
                              double t) const {
    std::vector<Placed> out;
    for (std::size_t k = 0; k < group.parts.size(); ++k) {
      const P g0 = FromF(group.pose[frame]);
      const P l0 = FromF(group.local[frame][k]);
      P world = Compose(g0, l0);
      bool cut = false;
      if (t > 0) {
        const P g1 = FromF(group.pose[frame + 1]);
        const P l1 = FromF(group.local[frame + 1][k]);
        const P w1 = Compose(g1, l1);
        if (group.teleported[frame + 1] || Len(g1.p - g0.p) > kTeleport ||
            Len(w1.p - world.p) > kTeleport) {
          cut = true;
        } else {
          world = Compose(Lerp(g0, g1, t), Lerp(l0, l1, t));
        }
      }
      out.push_back({&group, &group.parts[k], world, cut});
    }
    return out;
  }

  Scene3& scene() { return *scene_; }
  const std::vector<GroupSpec>& groups() const { return groups_; }
  const std::vector<WallSpec>& walls() const { return walls_; }
  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
  std::unique_ptr<Scene3> scene_;
  std::vector<GroupSpec> groups_;
  std::vector<WallSpec> walls_;
};

// A part's core segment in world space.
void Core(const Placed& placed, V* a, V* b) {
  const V axis = Rot(placed.pose.q, V{0, placed.spec->half, 0});
  *a = placed.pose.p - axis;
  *b = placed.pose.p + axis;
}

struct Expected {
  ShotOutcome outcome = ShotOutcome::kMiss;
  ShotReason reason = ShotReason::kNothingHit;
  std::uint64_t hit_body = 0;
  double hit_distance = 0;
  std::optional<double> gap;
  std::int64_t tick = 0;
  double fraction = 0;
  bool ambiguous = false;
};

TEST(ShotBruteForceTest, VerdictsMatchADoublePrecisionReplay) {
  int compared = 0;
  int ambiguous = 0;
  int by_reason[kShotReasonCount] = {};
  const int shots_per_world = 1000 / kScale;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    World world(seed);
    const SceneSnapshot<3> snapshot = world.scene().Snapshot();
    const std::int64_t current = snapshot.tick();
    const std::int64_t oldest = snapshot.oldest_tick();
    ASSERT_EQ(current, World::kTicks - 1);
    for (int i = 0; i < shots_per_world; ++i) {
      const auto& groups = world.groups();
      const GroupSpec& shooter =
          groups[static_cast<std::size_t>(world.Uniform(0, 1) * groups.size()) %
                 groups.size()];
      const GroupSpec& aim =
          groups[static_cast<std::size_t>(world.Uniform(0, 1) * groups.size()) %
                 groups.size()];
      HitPolicy policy;
      policy.max_rewind_ms = static_cast<float>(world.Uniform(50, 400));
      policy.on_too_old = world.Uniform(0, 1) < 0.5 ? RewindLimit::kClamp
                                                    : RewindLimit::kReject;
      policy.max_origin_distance = 1.0f;
      policy.static_blocks = world.Uniform(0, 1) < 0.7;
      Shot<3> shot;
      shot.shooter_group = world.Uniform(0, 1) < 0.03 ? 5 : shooter.id;
      const double delay_ms = world.Uniform(-20, 600);
      shot.view_time = ViewDelay{delay_ms};
      // Expected view time (reference): in double.
      const double rate = 64.0;
      double t = static_cast<double>(current) - delay_ms * rate / 1000.0;
      const double limit = std::max(
          static_cast<double>(oldest),
          current - static_cast<double>(policy.max_rewind_ms) * rate / 1000.0);
      Expected e;
      bool clamped = false;
      // The shooter's and aim's reference positions at an approximate time
      // (for aiming only).
      const double aim_t = std::clamp(t, static_cast<double>(oldest),
                                      static_cast<double>(current));
      const int aim_frame = static_cast<int>(std::floor(aim_t));
      const auto shooter_parts =
          world.PartsAt(shooter, std::min(aim_frame, World::kTicks - 1), 0.0);
      shot.origin = Vec3{static_cast<float>(shooter_parts[0].pose.p.x),
                         static_cast<float>(shooter_parts[0].pose.p.y),
                         static_cast<float>(shooter_parts[0].pose.p.z)} +
                    world.RandomPoint(world.Uniform(0, 1) < 0.1 ? 4.0f : 0.2f);
      const auto aim_parts =
          world.PartsAt(aim, std::min(aim_frame, World::kTicks - 1), 0.0);
      const Placed& aim_part =
          aim_parts[static_cast<std::size_t>(world.Uniform(0, 1) *
                                             aim_parts.size()) %
                    aim_parts.size()];
      const Vec3 aim_point{static_cast<float>(aim_part.pose.p.x),
                           static_cast<float>(aim_part.pose.p.y),
                           static_cast<float>(aim_part.pose.p.z)};
      shot.direction = aim_point + world.RandomPoint(0.6f) - shot.origin;
      if (Length(shot.direction) < 1e-3f) shot.direction = {1, 0, 0};
      shot.range = static_cast<float>(world.Uniform(3, 40));
      if (world.Uniform(0, 1) < 0.6) {
        shot.target = ClaimedTarget{world.Uniform(0, 1) < 0.03 ? 7 : aim.id,
                                    std::nullopt};
      }
      const bool thick = world.Uniform(0, 1) < 0.25;
      double thick_r = 0;
      if (thick) {
        thick_r = world.Uniform(0.05, 0.3);
        shot.shape =
            std::make_shared<const Shape3>(Sphere{static_cast<float>(thick_r)});
        thick_r = static_cast<float>(thick_r);
        policy.static_blocks = false;  // The reference has no swept boxes.
      }
      shot.layer = shooter.layer;
      if (world.Uniform(0, 1) < 0.3) shot.mask = ~shooter.layer;

      const auto verdicts = ValidateShots<3>(snapshot, {shot}, policy);
      ASSERT_TRUE(verdicts.ok()) << verdicts.status();
      const ShotVerdict<3>& v = (*verdicts)[0];

      // ---- The reference.
      const std::int64_t tick_floor = static_cast<std::int64_t>(std::floor(t));
      if (tick_floor > current || (t > current)) {
        e.outcome = ShotOutcome::kRejected;
        e.reason = ShotReason::kInFuture;
      } else if (t < limit) {
        if (std::fabs(t - limit) < 1e-6) e.ambiguous = true;
        if (policy.on_too_old == RewindLimit::kReject) {
          e.outcome = ShotOutcome::kRejected;
          e.reason = ShotReason::kTooOld;
        } else {
          clamped = true;
          t = limit;
        }
      }
      if (std::fabs(t - current) < 1e-6) e.ambiguous = true;
      if (e.outcome != ShotOutcome::kRejected) {
        const int frame = static_cast<int>(std::floor(t + 1e-12));
        double frac = t - frame;
        if (frac < 1e-6 || frac > 1 - 1e-6) {
          // Float rounding of the fraction decides between two ticks.
          if (frac > 1e-9 && frac < 1 - 1e-9) e.ambiguous = true;
        }
        const int idx = frame - static_cast<int>(oldest) +
                        static_cast<int>(oldest);  // Ticks are frame numbers.
        e.tick = frame;
        e.fraction = frac;
        const V o = FromF(shot.origin);
        const V d = FromF(shot.direction) * (1.0 / Len(FromF(shot.direction)));
        const double range = shot.range;
        const GroupSpec* shooter_spec = nullptr;
        for (const auto& g : groups) {
          if (g.id == shot.shooter_group) shooter_spec = &g;
        }
        std::vector<Placed> everyone;
        for (const auto& g : groups) {
          for (const Placed& p : world.PartsAt(g, idx, frac)) {
            everyone.push_back(p);
          }
        }
        auto parts_of = [&](std::uint64_t id) {
          std::vector<Placed> out;
          for (const Placed& p : everyone) {
            if (p.group->id == id) out.push_back(p);
          }
          return out;
        };
        const GroupSpec* target_spec = nullptr;
        if (shot.target.has_value()) {
          for (const auto& g : groups) {
            if (g.id == shot.target->group_id) target_spec = &g;
          }
        }
        if (shooter_spec == nullptr) {
          e.outcome = ShotOutcome::kRejected;
          e.reason = ShotReason::kUnknownShooter;
        } else {
          double nearest = kInf;
          for (const Placed& p : parts_of(shooter_spec->id)) {
            V a, b;
            Core(p, &a, &b);
            nearest = std::min(nearest, PointSeg(o, a, b) - p.spec->radius);
          }
          if (std::fabs(nearest - 1.0) < kEps) e.ambiguous = true;
          if (nearest > 1.0) {
            e.outcome = ShotOutcome::kRejected;
            e.reason = ShotReason::kOriginTooFar;
          } else if (shot.target.has_value() && target_spec == nullptr) {
            e.outcome = ShotOutcome::kRejected;
            e.reason = ShotReason::kUnknownTarget;
          } else {
            // First hit.
            struct Cand {
              double t;
              std::uint64_t body;
              std::uint64_t group;
            };
            std::vector<Cand> cands;
            bool graze = false;
            for (const Placed& p : everyone) {
              if (p.group->id == shooter_spec->id) continue;
              if ((p.group->layer & shot.mask) == 0) continue;
              V a, b;
              Core(p, &a, &b);
              const double hit = RayCapsule(o, d, range, a, b,
                                            p.spec->radius + thick_r, &graze);
              if (hit < kInf)
                cands.push_back({hit, p.spec->body_id, p.group->id});
            }
            if (policy.static_blocks) {
              for (std::size_t w = 0; w < world.walls().size(); ++w) {
                const double hit = RayBox(o, d, range, world.walls()[w].pose,
                                          world.walls()[w].half, &graze);
                if (hit < kInf) cands.push_back({hit, 1000 + w, 0});
              }
            }
            if (graze) e.ambiguous = true;
            std::sort(cands.begin(), cands.end(),
                      [](const Cand& a, const Cand& b) { return a.t < b.t; });
            if (cands.size() >= 2 && cands[1].t - cands[0].t < kEps) {
              e.ambiguous = true;
            }
            if (!cands.empty() && range - cands[0].t < kEps) e.ambiguous = true;
            const bool hit_group = !cands.empty() && cands[0].group != 0;
            const bool hit_claimed = hit_group && shot.target.has_value() &&
                                     cands[0].group == shot.target->group_id;
            if (!cands.empty()) {
              e.hit_body = cands[0].body;
              e.hit_distance = cands[0].t;
            }
            std::vector<Placed> target_parts;
            if (target_spec != nullptr)
              target_parts = parts_of(target_spec->id);
            if (shot.target.has_value() && !hit_claimed) {
              double gap = kInf;
              for (const Placed& p : target_parts) {
                V a, b;
                Core(p, &a, &b);
                gap = std::min(gap, SegSeg(o, o + d * range, a, b) -
                                        p.spec->radius - thick_r);
              }
              e.gap = std::max(0.0, gap);
            }
            if (hit_group) {
              e.outcome = ShotOutcome::kHit;
              e.reason =
                  shot.target.has_value() && !hit_claimed
                      ? ShotReason::kOtherTargetHit
                      : (clamped ? ShotReason::kClamped : ShotReason::kHit);
            } else if (!cands.empty()) {
              e.outcome = ShotOutcome::kMiss;
              e.reason = ShotReason::kBlockedByWorld;
            } else if (!shot.target.has_value()) {
              e.reason = ShotReason::kNothingHit;
            } else if (std::any_of(
                           target_parts.begin(), target_parts.end(),
                           [](const Placed& p) { return p.teleported; })) {
              e.reason = ShotReason::kTargetTeleported;
            } else {
              bool beyond = false;
              for (const Placed& p : target_parts) {
                V a, b;
                Core(p, &a, &b);
                bool g2 = false;
                if (RayCapsule(o, d, 1e4, a, b, p.spec->radius + thick_r, &g2) <
                    kInf) {
                  beyond = true;
                }
                if (g2) e.ambiguous = true;
              }
              e.reason =
                  beyond ? ShotReason::kOutOfRange : ShotReason::kTargetMissed;
            }
          }
        }
      }
      if (e.ambiguous) {
        ++ambiguous;
        continue;
      }
      ++compared;
      ++by_reason[static_cast<int>(e.reason)];
      SCOPED_TRACE(::testing::Message()
                   << "seed " << seed << " shot " << i << " expected "
                   << ShotReasonName(e.reason) << " got "
                   << ShotReasonName(v.reason));
      ASSERT_EQ(v.reason, e.reason);
      ASSERT_EQ(v.outcome, e.outcome);
      if (e.outcome == ShotOutcome::kRejected) continue;
      ASSERT_EQ(v.tick, e.tick);
      ASSERT_NEAR(v.fraction, e.fraction, 1e-5);
      ASSERT_EQ(v.clamped, clamped);
      if (e.hit_body != 0) {
        ASSERT_TRUE(v.hit.has_value());
        ASSERT_EQ(v.hit->body_id, e.hit_body);
        ASSERT_NEAR(v.hit->distance, e.hit_distance,
                    2e-3 * (1 + e.hit_distance));
      } else {
        ASSERT_FALSE(v.hit.has_value());
      }
      ASSERT_EQ(v.target_miss_distance.has_value(), e.gap.has_value());
      if (e.gap.has_value()) {
        ASSERT_NEAR(*v.target_miss_distance, *e.gap, 3e-3);
      }
    }
  }
  const int total = compared + ambiguous;
  EXPECT_GE(total, 4000 / kScale);
  EXPECT_LT(ambiguous, total / 10) << ambiguous << " of " << total;
  // Every reason the random shots can produce came up at least once.
  for (const ShotReason reason :
       {ShotReason::kHit, ShotReason::kClamped, ShotReason::kOtherTargetHit,
        ShotReason::kNothingHit, ShotReason::kBlockedByWorld,
        ShotReason::kTargetMissed, ShotReason::kTooOld, ShotReason::kInFuture,
        ShotReason::kOriginTooFar}) {
    EXPECT_GT(by_reason[static_cast<int>(reason)], 0) << ShotReasonName(reason);
  }
  std::printf(
      "compared %d, ambiguous %d; hit %d clamped %d other %d none %d "
      "blocked %d missed %d range %d teleported %d old %d future %d "
      "shooter %d origin %d target %d\n",
      compared, ambiguous, by_reason[0], by_reason[1], by_reason[2],
      by_reason[3], by_reason[4], by_reason[5], by_reason[6], by_reason[7],
      by_reason[8], by_reason[9], by_reason[10], by_reason[11], by_reason[12]);
}

}  // namespace
}  // namespace sator::scene

// Every scene query against a brute-force scan of every body, on random
// scenes with random histories (upserts, removals, pose updates, skipped and
// amended ticks, teleports), filters, result modes and rewinds.
//
// The reference replays the history from its own model (scene_test_util.h)
// and calls the cores' pair queries body by body, so it checks the broad
// phase (window boxes, padding, traversal, clipping), the history (ring,
// slots, incarnations), interpolation rules, filters and collectors. Results
// must be identical (same bodies, same order, same numbers): both sides run
// the same pair query on the same poses.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "core/scene/scene_test_util.h"
#include "gtest/gtest.h"
#include "sator/core/scene/scene.h"

namespace sator::scene {
namespace {

using testing_util::Dim;
using testing_util::KeyedHit;
using testing_util::Model;
using testing_util::ModelBody;
using testing_util::Rng;
using testing_util::RunOnScene;

// Bodies in [-kWorld, kWorld]^D: dense enough that most queries hit.
template <int D>
constexpr float kWorld = D == 2 ? 6.0f : 3.0f;

using Kind = testing_util::QueryKind;
template <int D>
using Query = testing_util::QueryCase<D>;

template <int D>
std::string Describe(const Query<D>& q) {
  return "kind " + std::to_string(static_cast<int>(q.kind)) + " mode " +
         std::to_string(static_cast<int>(q.options.mode)) + " rewind " +
         (q.options.rewind ? std::to_string(q.options.rewind->tick) + "+" +
                                 std::to_string(q.options.rewind->fraction)
                           : std::string("none"));
}

template <int D>
std::vector<KeyedHit<D>> Reference(const Model<D>& model, const Query<D>& q,
                                   float teleport) {
  std::int64_t tick = model.tick();
  float fraction = 0.0f;
  if (q.options.rewind) {
    tick = q.options.rewind->tick;
    fraction = q.options.rewind->fraction;
  }
  const Pose<D> pose = Dim<D>::Normalized(q.pose);
  std::vector<KeyedHit<D>> hits;
  for (const ModelBody<D>& body : model.BodiesAt(tick, fraction, teleport)) {
    const BodyDesc<D>& b = body.desc;
    if (!testing_util::Passes(q.options.filter, b.id, b.layer, b.mask,
                              b.motion)) {
      continue;
    }
    QueryHit<D> hit;
    hit.body_id = b.id;
    hit.user_data = b.user_data;
    switch (q.kind) {
      case Kind::kOverlap:
        if (Dim<D>::Overlap(*q.shape, pose, *b.shape, b.pose)) {
          hits.push_back({0.0f, hit});
        }
        break;
      case Kind::kContacts: {
        const ContactResult<D> c =
            Dim<D>::Contact(*q.shape, pose, *b.shape, b.pose);
        if (!c.overlapping) break;
        hit.normal = -c.normal;
        hit.depth = c.depth;
        hit.flags = kHitNormal | kHitDepth;
        if (c.point_count > 0) {
          Vec<D> sum{};
          for (int i = 0; i < c.point_count; ++i) {
            sum += c.points[static_cast<std::size_t>(i)];
          }
          hit.point = sum * (1.0f / static_cast<float>(c.point_count));
          hit.flags |= kHitPoint;
        }
        hits.push_back({-c.depth, hit});
        break;
      }
      case Kind::kSweep: {
        const SweepResult<D> s =
            Dim<D>::Sweep(*q.shape, pose, q.vector, *b.shape, b.pose);
        if (s.outcome == SweepOutcome::kMiss) break;
        if (s.outcome == SweepOutcome::kHit) {
          hit.fraction = s.fraction;
          hit.normal = -s.normal;
          hit.point = s.point;
          hit.flags = kHitFraction | kHitNormal | kHitPoint;
        } else {
          hit.fraction = 0.0f;
          hit.normal = -s.initial.normal;
          hit.depth = s.initial.depth;
          hit.flags = kHitFraction | kHitNormal | kHitDepth | kHitStartedInside;
        }
        hits.push_back({hit.fraction, hit});
        break;
      }
      case Kind::kRay: {
        // The scene normalises the direction it is given.
        const Ray<D> ray{pose.position, NormalizeOrZero(q.vector, 1e-12f),
                         q.max_distance};
        const RayResult<D> r = Dim<D>::RayCast(*b.shape, b.pose, ray);
        if (!r.hit) break;
        hit.distance = r.distance;
        hit.fraction = r.distance / q.max_distance;
        hit.point = r.point;
        hit.flags = kHitDistance | kHitFraction | kHitPoint;
        if (r.started_inside) {
          hit.flags |= kHitStartedInside;
        } else {
          hit.normal = r.normal;
          hit.flags |= kHitNormal;
        }
        if (r.feature >= 0) {
          hit.feature = r.feature;
          hit.flags |= kHitFeature;
        }
        hits.push_back({hit.fraction, hit});
        break;
      }
      case Kind::kPoint: {
        // As documented: inside when a ray of length 1e-6 * (1 + max|p|)
        // along +x starts inside.
        Vec<D> x{};
        x[0] = 1.0f;
        float scale = 0.0f;
        for (int i = 0; i < D; ++i) {
          scale = std::max(scale, std::fabs(pose.position[i]));
        }
        const Ray<D> ray{pose.position, x, 1e-6f * (1.0f + scale)};
        const RayResult<D> r = Dim<D>::RayCast(*b.shape, b.pose, ray);
        if (r.hit && r.started_inside) {
          hit.point = pose.position;
          hit.flags = kHitPoint | kHitStartedInside;
          hits.push_back({0.0f, hit});
        }
        break;
      }
    }
  }
  return hits;
}

template <int D>
bool SameHit(const QueryHit<D>& a, const QueryHit<D>& b) {
  return a.body_id == b.body_id && a.user_data == b.user_data &&
         a.point == b.point && a.normal == b.normal &&
         a.distance == b.distance && a.fraction == b.fraction &&
         a.depth == b.depth && a.feature == b.feature && a.flags == b.flags;
}

template <int D>
QueryFilter RandomFilter(Rng& rng, const Model<D>& model) {
  QueryFilter filter;
  if (rng.Chance(0.5f)) {
    filter.layer = rng.Bits() & 0xF;
    filter.mask = rng.Bits() & 0xF;
  }
  filter.two_way = rng.Chance(0.5f);
  if (rng.Chance(0.3f) && !model.current().empty()) {
    const int skip = rng.Int(0, static_cast<int>(model.current().size()) - 1);
    auto it = model.current().begin();
    std::advance(it, skip);
    // 12345 is not a body: harmless.
    filter.excluded_ids = {it->first, 12345};
  }
  filter.motion = static_cast<MotionSelection>(rng.Int(0, 2));
  return filter;
}

template <int D>
Query<D> RandomQuery(Rng& rng, const Model<D>& model) {
  Query<D> q;
  q.kind = static_cast<Kind>(rng.Int(0, 4));
  q.shape = Dim<D>::RandomQueryShape(rng);
  q.pose = Dim<D>::RandomPose(rng, kWorld<D> + 2.0f);
  if (q.kind == Kind::kSweep) {
    q.vector = Dim<D>::RandomUnit(rng) * rng.Uniform(0.0f, 12.0f);
  } else {
    q.vector = Dim<D>::RandomUnit(rng);
  }
  if (q.kind == Kind::kRay && rng.Chance(0.2f)) {
    // Parallel to a slab: a zero component (the trees' parallel-axis path;
    // the others take the ray traversals, wide nodes in the static tree).
    q.vector[rng.Int(0, D - 1)] = 0.0f;
    if (q.vector == Vec<D>{}) q.vector[0] = 1.0f;
  }
  q.max_distance = rng.Uniform(0.5f, 25.0f);
  q.options.filter = RandomFilter(rng, model);
  q.options.mode = static_cast<ResultMode>(rng.Int(0, 3));
  q.options.max_hits = rng.Int(1, 6);
  if (rng.Chance(0.6f)) {
    Rewind rewind;
    rewind.tick = rng.Int(static_cast<int>(model.oldest()),
                          static_cast<int>(model.tick()));
    if (rewind.tick < model.tick() && rng.Chance(0.7f)) {
      rewind.fraction = rng.Chance(0.2f) ? 0.5f : rng.Uniform(0.0f, 0.999f);
    }
    q.options.rewind = rewind;
  }
  return q;
}

template <int D>
BodyDesc<D> RandomBody(Rng& rng, std::uint64_t id, float static_share = 0.3f,
                       float world = kWorld<D>) {
  BodyDesc<D> body;
  body.id = id;
  body.motion =
      rng.Chance(static_share) ? MotionType::kStatic : MotionType::kDynamic;
  body.shape = Dim<D>::RandomShape(rng, body.motion == MotionType::kStatic);
  body.pose = Dim<D>::RandomPose(rng, world);
  body.layer = (rng.Bits() & 0xF) | 0;
  body.mask = rng.Bits() & 0xF;
  if (rng.Chance(0.5f)) {
    body.layer = 1;
    body.mask = ~std::uint64_t{0};
  }
  body.user_data = rng.Bits();
  return body;
}

struct Counts {
  int queries = 0;
  int hits = 0;
  int nonempty = 0;  // Queries the reference says hit something.
  int rewound = 0;
};

// One query on the scene against the reference: the same hits (kAny: one
// of the reference's).
template <int D>
void CheckQuery(const SceneSnapshot<D>& snapshot, const Model<D>& model,
                const Query<D>& q, float teleport, Counts* counts) {
  absl::StatusOr<QueryResult<D>> got = RunOnScene(snapshot, q);
  ASSERT_TRUE(got.ok()) << got.status();
  const std::vector<KeyedHit<D>> all = Reference(model, q, teleport);
  const std::vector<QueryHit<D>> want = testing_util::Finish<D>(all, q.options);
  EXPECT_EQ(got->tick,
            q.options.rewind ? q.options.rewind->tick : model.tick());
  ++counts->queries;
  counts->rewound += q.options.rewind.has_value() ? 1 : 0;
  counts->hits += static_cast<int>(got->hits.size());
  counts->nonempty += want.empty() ? 0 : 1;
  if (q.options.mode == ResultMode::kAny) {
    ASSERT_EQ(got->hits.size(), want.empty() ? 0u : 1u);
    if (!got->hits.empty()) {
      bool found = false;
      for (const auto& w : want) found = found || SameHit(w, got->hits[0]);
      EXPECT_TRUE(found) << "body " << got->hits[0].body_id;
    }
    return;
  }
  ASSERT_EQ(got->hits.size(), want.size())
      << (want.empty()
              ? std::string()
              : "first wanted: body " + std::to_string(want[0].body_id) +
                    " depth " + std::to_string(want[0].depth) + " fraction " +
                    std::to_string(want[0].fraction) + " flags " +
                    std::to_string(want[0].flags));
  for (std::size_t h = 0; h < want.size(); ++h) {
    EXPECT_TRUE(SameHit(got->hits[h], want[h]))
        << "hit " << h << ": body " << got->hits[h].body_id << " vs "
        << want[h].body_id;
  }
  if (q.kind == Kind::kContacts) {
    // The combined vector: its own definition, from the reference hits.
    Vec<D> v{};
    for (const auto& w : want) {
      const float remaining = w.depth - Dot(v, w.normal);
      if (remaining > 0.0f) v += w.normal * remaining;
    }
    EXPECT_TRUE(v == got->depenetration);
  }
}

// A random scene of min_bodies to max_bodies initial bodies, a random
// history of updates, upserts and removals, then queries_per_scene random
// queries checked against the reference.
template <int D>
void RunScene(std::uint64_t seed, int queries_per_scene, Counts* counts,
              int min_bodies = 5, int max_bodies = 40) {
  Rng rng(seed);
  SceneOptions options;
  options.history_ticks = rng.Int(2, 8);
  options.teleport_distance = rng.Chance(0.5f) ? 3.0f : 1e30f;
  const float teleport = options.teleport_distance;
  auto scene = Scene<D>::Create(options).value();
  Model<D> model(options.history_ticks);
  std::uint64_t next_id = 1;

  // Initial bodies.
  {
    std::vector<BodyDesc<D>> bodies;
    const int n = rng.Int(min_bodies, max_bodies);
    for (int i = 0; i < n; ++i) bodies.push_back(RandomBody<D>(rng, next_id++));
    ASSERT_TRUE(scene->UpsertBodies(bodies).ok());
    for (const auto& b : bodies) model.Upsert(b);
  }
  const int steps = rng.Int(1, 12);
  for (int step = 0; step < steps; ++step) {
    const int what = rng.Int(0, 9);
    if (what <= 5) {
      // Pose updates of some dynamic bodies at the same, next or a later tick.
      const int r = rng.Int(0, 9);
      const std::int64_t tick =
          model.tick() + (r < 2 ? 0 : (r < 8 ? 1 : rng.Int(2, 4)));
      std::vector<PoseUpdate<D>> updates;
      for (const auto& [id, body] : model.current()) {
        if (body.desc.motion != MotionType::kDynamic || rng.Chance(0.3f)) {
          continue;
        }
        Pose<D> pose = rng.Chance(0.1f)
                           ? Dim<D>::RandomPose(rng, kWorld<D>)  // Teleport.
                           : Dim<D>::Nudge(rng, body.desc.pose, 0.8f);
        updates.push_back({id, pose});
      }
      ASSERT_TRUE(scene->UpdatePoses(tick, updates).ok());
      model.Advance(tick);
      for (const auto& u : updates) model.SetPose(tick, u.id, u.pose);
    } else if (what <= 7) {
      // Upsert: new bodies and replacements.
      std::vector<BodyDesc<D>> bodies;
      bodies.push_back(RandomBody<D>(rng, next_id++));
      if (!model.current().empty() && rng.Chance(0.7f)) {
        auto it = model.current().begin();
        std::advance(it,
                     rng.Int(0, static_cast<int>(model.current().size()) - 1));
        BodyDesc<D> again = RandomBody<D>(rng, it->first);
        if (rng.Chance(0.5f)) {
          again.pose = Dim<D>::Nudge(rng, it->second.desc.pose, 0.5f);
        }
        bodies.push_back(again);
      }
      ASSERT_TRUE(scene->UpsertBodies(bodies).ok());
      for (const auto& b : bodies) model.Upsert(b);
    } else if (!model.current().empty()) {
      auto it = model.current().begin();
      std::advance(it,
                   rng.Int(0, static_cast<int>(model.current().size()) - 1));
      const std::uint64_t id = it->first;
      ASSERT_TRUE(scene->RemoveBodies({&id, 1}).ok());
      model.Remove(id);
    }
  }

  const SceneSnapshot<D> snapshot = scene->Snapshot();
  ASSERT_EQ(snapshot.tick(), model.tick());
  ASSERT_EQ(snapshot.oldest_tick(), model.oldest());
  ASSERT_EQ(snapshot.body_count(), model.current().size());
  for (int i = 0; i < queries_per_scene; ++i) {
    const Query<D> q = RandomQuery<D>(rng, model);
    SCOPED_TRACE(::testing::Message()
                 << "seed " << seed << " query " << i << " " << Describe(q));
    CheckQuery<D>(snapshot, model, q, teleport, counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Rays only, on larger scenes that are mostly static (the static tree keeps
// the 8-wide ray nodes, whose lanes hold most proxies' boxes; the dynamic
// tree takes the binary ray traversal): closest, any and all hits; rays from
// inside bodies, parallel to one or more axes, with components below the
// trees' parallel threshold, tiny and huge lengths; filters, excluded ids
// and rewinds. The same reference as above.
template <int D>
Query<D> RandomRay(Rng& rng, const Model<D>& model, float world) {
  Query<D> q;
  q.kind = Kind::kRay;
  q.pose = Dim<D>::RandomPose(rng, world + 2.0f);
  const int from = rng.Int(0, 9);
  if (from < 3 && !model.current().empty()) {
    // From inside (or on the edge of) a body: its centre, nudged.
    auto it = model.current().begin();
    std::advance(it, rng.Int(0, static_cast<int>(model.current().size()) - 1));
    q.pose.position = it->second.desc.pose.position;
    if (from == 0) q.pose.position += Dim<D>::RandomUnit(rng) * 0.3f;
  }
  q.vector = Dim<D>::RandomUnit(rng);
  const int direction = rng.Int(0, 9);
  if (direction < 2) {
    // Parallel to one slab.
    q.vector[rng.Int(0, D - 1)] = 0.0f;
  } else if (direction < 4) {
    // Along one axis.
    const int axis = rng.Int(0, D - 1);
    q.vector = Vec<D>{};
    q.vector[axis] = rng.Chance(0.5f) ? 1.0f : -1.0f;
  } else if (direction < 5) {
    // A component too small to divide by (below 1e-18 after normalising).
    q.vector[rng.Int(0, D - 1)] = rng.Chance(0.5f) ? 1e-20f : -1e-25f;
  }
  if (q.vector == Vec<D>{}) q.vector[0] = 1.0f;
  const int length = rng.Int(0, 9);
  if (length == 0) {
    q.max_distance = rng.Uniform(1e-6f, 1e-3f);  // Almost zero.
  } else if (length == 1) {
    q.max_distance = rng.Chance(0.5f) ? 1e6f : 1e15f;  // Huge.
  } else {
    q.max_distance = rng.Uniform(0.5f, 3.0f * world);
  }
  q.options.filter =
      rng.Chance(0.5f) ? QueryFilter{} : RandomFilter(rng, model);
  q.options.mode = static_cast<ResultMode>(rng.Int(0, 3));
  q.options.max_hits = rng.Int(1, 24);
  if (rng.Chance(0.3f)) {
    Rewind rewind;
    rewind.tick = rng.Int(static_cast<int>(model.oldest()),
                          static_cast<int>(model.tick()));
    if (rewind.tick < model.tick() && rng.Chance(0.7f)) {
      rewind.fraction = rng.Uniform(0.0f, 0.999f);
    }
    q.options.rewind = rewind;
  }
  return q;
}

template <int D>
void RunRayScene(std::uint64_t seed, int queries, Counts* counts) {
  Rng rng(seed);
  SceneOptions options;
  options.history_ticks = rng.Int(2, 4);
  const float teleport = options.teleport_distance;
  auto scene = Scene<D>::Create(options).value();
  Model<D> model(options.history_ticks);
  const int n = rng.Int(50, 600);
  // About as dense as RunScene's scenes of 20 bodies.
  const float world =
      kWorld<D> * std::pow(static_cast<float>(n) / 20.0f, 1.0f / D);
  std::vector<BodyDesc<D>> bodies;
  for (int i = 0; i < n; ++i) {
    bodies.push_back(
        RandomBody<D>(rng, static_cast<std::uint64_t>(i) + 1, 0.8f, world));
  }
  ASSERT_TRUE(scene->UpsertBodies(bodies).ok());
  for (const auto& b : bodies) model.Upsert(b);
  for (int tick = 1; tick <= 3; ++tick) {
    std::vector<PoseUpdate<D>> updates;
    for (const auto& [id, body] : model.current()) {
      if (body.desc.motion != MotionType::kDynamic) continue;
      updates.push_back({id, Dim<D>::Nudge(rng, body.desc.pose, 0.5f)});
    }
    ASSERT_TRUE(scene->UpdatePoses(tick, updates).ok());
    model.Advance(tick);
    for (const auto& u : updates) model.SetPose(tick, u.id, u.pose);
  }
  const SceneSnapshot<D> snapshot = scene->Snapshot();
  for (int i = 0; i < queries; ++i) {
    const Query<D> q = RandomRay<D>(rng, model, world);
    SCOPED_TRACE(::testing::Message()
                 << "seed " << seed << " ray " << i << " " << Describe(q)
                 << " distance " << q.max_distance);
    CheckQuery<D>(snapshot, model, q, teleport, counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <int D>
void RunRayScenes(std::uint64_t first_seed) {
  Counts counts;
  for (std::uint64_t seed = first_seed; seed < first_seed + 120; ++seed) {
    RunRayScene<D>(seed, 120, &counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf("%d rays, %d with hits, %d rewound, %d hits\n", counts.queries,
              counts.nonempty, counts.rewound, counts.hits);
  EXPECT_GT(counts.nonempty, counts.queries / 4);
  EXPECT_GT(counts.hits, counts.queries / 2);
}

TEST(SceneBruteForceTest, RandomRays2D) { RunRayScenes<2>(500000); }
TEST(SceneBruteForceTest, RandomRays3D) { RunRayScenes<3>(600000); }

TEST(SceneBruteForceTest, RandomScenes2D) {
  Counts counts;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    RunScene<2>(seed, 60, &counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // The property is not vacuous: many queries hit, many rewind.
  EXPECT_GT(counts.nonempty, counts.queries / 8);
  std::printf("%d queries, %d with hits, %d rewound, %d hits\n", counts.queries,
              counts.nonempty, counts.rewound, counts.hits);
  EXPECT_GT(counts.rewound, counts.queries / 2);
  RecordProperty("queries", counts.queries);
}

TEST(SceneBruteForceTest, RandomScenes3D) {
  Counts counts;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    RunScene<3>(seed + 100000, 60, &counts);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(counts.nonempty, counts.queries / 8);
  std::printf("%d queries, %d with hits, %d rewound, %d hits\n", counts.queries,
              counts.nonempty, counts.rewound, counts.hits);
  EXPECT_GT(counts.rewound, counts.queries / 2);
  RecordProperty("queries", counts.queries);
}

// Scenes large enough that both trees have many levels of internal nodes
// (the dynamic tree's leaves hold up to 16 proxies, so the small scenes
// above give it one to three leaves).
TEST(SceneBruteForceTest, LargerScenes) {
  Counts counts;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RunScene<2>(seed + 200000, 60, &counts, 150, 400);
    if (::testing::Test::HasFatalFailure()) return;
    RunScene<3>(seed + 300000, 60, &counts, 150, 400);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(counts.nonempty, counts.queries / 8);
  EXPECT_GT(counts.rewound, counts.queries / 2);
  std::printf("%d queries, %d with hits, %d rewound, %d hits\n", counts.queries,
              counts.nonempty, counts.rewound, counts.hits);
}

}  // namespace
}  // namespace sator::scene

// Readers query while a writer applies pose batches: every query sees one
// whole tick (never half a batch), and a parallel batch of queries gives the
// results of the same batch run in order. Runs under ThreadSanitizer
// (`make test-tsan`, label tsan); bounded in ticks, never in time.
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "sator/core/scene/query_batch.h"
#include "sator/core/scene/scene.h"

namespace sator::scene {
namespace {

constexpr int kBodies = 64;
constexpr int kTicks = 150;
constexpr float kSpacing = 3.0f;

// At tick t every body i is a unit circle centred on (3 i, t). A batch that
// half applied would leave some bodies on the row of the previous tick.
std::vector<PoseUpdate<2>> Row(std::int64_t tick) {
  std::vector<PoseUpdate<2>> updates(kBodies);
  for (int i = 0; i < kBodies; ++i) {
    updates[static_cast<std::size_t>(i)] = {
        static_cast<std::uint64_t>(i),
        {{kSpacing * static_cast<float>(i), static_cast<float>(tick)}, {}}};
  }
  return updates;
}

TEST(SceneConcurrencyTest, ReadersSeeWholeTicks) {
  SceneOptions options;
  options.history_ticks = 8;
  auto scene = Scene2::Create(options).value();
  auto circle = std::make_shared<const Shape2>(Circle{1.0f});
  std::vector<BodyDesc<2>> bodies(kBodies);
  for (int i = 0; i < kBodies; ++i) {
    auto& body = bodies[static_cast<std::size_t>(i)];
    body.id = static_cast<std::uint64_t>(i);
    body.shape = circle;
    body.pose = {{kSpacing * static_cast<float>(i), 0.0f}, {}};
  }
  ASSERT_TRUE(scene->UpsertBodies(bodies).ok());

  std::atomic<bool> writer_done{false};
  std::atomic<int> checks{0};
  std::atomic<int> failures{0};
  auto reader = [&]() {
    int local = 0;
    while (!writer_done.load(std::memory_order_acquire) || local < 20) {
      const SceneSnapshot<2> snapshot = scene->Snapshot();
      const std::int64_t tick = snapshot.tick();
      // A ray along the row of the snapshot's tick meets all bodies...
      const auto row = snapshot.RayCast({-5.0f, static_cast<float>(tick)},
                                        {1, 0}, 1000.0f, [] {
                                          QueryOptions o;
                                          o.max_hits = kBodies;
                                          return o;
                                        }());
      // ...and one 1.5 below it meets none (it would pass 0.5 from the
      // centres of bodies left on the previous row by a half batch).
      const auto above = snapshot.RayCast(
          {-5.0f, static_cast<float>(tick) - 1.5f}, {1, 0}, 1000.0f, {});
      if (!row.ok() || !above.ok() || row->tick != tick ||
          row->hits.size() != static_cast<std::size_t>(kBodies) ||
          !above->hits.empty()) {
        failures.fetch_add(1);
      }
      // A rewound query one tick back sees the previous row, whole.
      if (tick > snapshot.oldest_tick()) {
        QueryOptions back;
        back.max_hits = kBodies;
        back.rewind = Rewind{tick - 1, 0.0f};
        const auto previous = snapshot.RayCast(
            {-5.0f, static_cast<float>(tick - 1)}, {1, 0}, 1000.0f, back);
        if (!previous.ok() ||
            previous->hits.size() != static_cast<std::size_t>(kBodies)) {
          failures.fetch_add(1);
        }
      }
      ++local;
    }
    checks.fetch_add(local);
  };
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) readers.emplace_back(reader);
  for (std::int64_t tick = 1; tick <= kTicks; ++tick) {
    ASSERT_TRUE(scene->UpdatePoses(tick, Row(tick)).ok());
  }
  writer_done.store(true, std::memory_order_release);
  for (auto& thread : readers) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GE(checks.load(), 60);
  EXPECT_EQ(scene->Snapshot().tick(), kTicks);
}

// Mixed queries on a random-ish 3D scene: 1, 2 and 4 threads give exactly
// the sequential results.
TEST(SceneConcurrencyTest, ParallelBatchEqualsSequential) {
  auto scene = Scene3::Create({}).value();
  std::vector<BodyDesc<3>> bodies;
  auto box = std::make_shared<const Shape3>(Box3{{0.5f, 0.4f, 0.3f}});
  auto ball = std::make_shared<const Shape3>(Sphere{0.6f});
  std::uint64_t state = 12345;
  auto next = [&]() {  // A small LCG: deterministic coordinates in [-10, 10].
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(state >> 40) / static_cast<float>(1 << 24) *
               20.0f -
           10.0f;
  };
  for (std::uint64_t id = 0; id < 400; ++id) {
    BodyDesc<3> body;
    body.id = id;
    body.shape = id % 2 == 0 ? box : ball;
    body.pose = {{next(), next(), next()},
                 Quat::FromAxisAngle({next(), next(), 1.0f}, next())};
    bodies.push_back(body);
  }
  ASSERT_TRUE(scene->UpsertBodies(bodies).ok());
  std::vector<SceneQuery<3>> queries;
  for (int i = 0; i < 300; ++i) {
    QueryOptions options;
    options.mode = static_cast<ResultMode>(i % 4);
    const Pose3 pose{{next(), next(), next()}, {}};
    switch (i % 5) {
      case 0:
        queries.push_back(OverlapRequest<3>{ball, pose, options});
        break;
      case 1:
        queries.push_back(ContactsRequest<3>{box, pose, options});
        break;
      case 2:
        queries.push_back(
            SweepRequest<3>{ball, pose, {next(), next(), next()}, options});
        break;
      case 3:
        queries.push_back(RayRequest<3>{
            pose.position, {next(), next(), next()}, 30.0f, options});
        break;
      default:
        queries.push_back(PointRequest<3>{pose.position, options});
        break;
    }
  }
  const SceneSnapshot<3> snapshot = scene->Snapshot();
  std::vector<absl::StatusOr<QueryResult<3>>> sequential;
  for (const auto& q : queries) sequential.push_back(snapshot.Run(q));
  int hits = 0;
  for (const int helpers : {0, 1, 3}) {
    BatchWorkers workers(helpers);
    const std::vector<absl::StatusOr<QueryResult<3>>> results =
        RunQueryBatch<3>(snapshot, queries, &workers);
    ASSERT_EQ(results.size(), queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto& a = results[i];
      const auto& b = sequential[i];
      ASSERT_EQ(a.ok(), b.ok());
      if (!a.ok()) continue;
      ASSERT_EQ(a->hits.size(), b->hits.size()) << "query " << i;
      hits += static_cast<int>(a->hits.size());
      for (std::size_t h = 0; h < a->hits.size(); ++h) {
        EXPECT_EQ(a->hits[h].body_id, b->hits[h].body_id);
        EXPECT_EQ(a->hits[h].point, b->hits[h].point);
        EXPECT_EQ(a->hits[h].normal, b->hits[h].normal);
        EXPECT_EQ(a->hits[h].distance, b->hits[h].distance);
        EXPECT_EQ(a->hits[h].fraction, b->hits[h].fraction);
        EXPECT_EQ(a->hits[h].depth, b->hits[h].depth);
      }
      EXPECT_EQ(a->stats.node_visits, b->stats.node_visits);
      EXPECT_EQ(a->depenetration, b->depenetration);
    }
  }
  EXPECT_GT(hits, 100);  // The batch is not trivially empty.
}

}  // namespace
}  // namespace sator::scene

// SceneQueries::RaycastBatch, the packed form: answers worked out by hand,
// the packed answers against the reference path (a QueryBatch of raycast
// queries) on seeded random scenes and rays in 2D and 3D, every refusal with
// its field path and code, interruption, and the one QueryRecord a batch
// reports.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"
#include "server/scene_queries.h"
#include "support/batch_threads.h"

namespace sator::server {
namespace {

using ::testing::HasSubstr;

SceneLimits Limits() {
  SceneLimits limits;
  limits.max_hits = 100;
  return limits;
}

// A request for `dimension`-D rays with one distance for all.
sator::v1::RaycastBatchRequest Request(const std::string& scene, int dimension,
                                       const std::vector<float>& origins,
                                       const std::vector<float>& directions,
                                       std::vector<float> distances) {
  sator::v1::RaycastBatchRequest request;
  request.set_scene_id(scene);
  request.set_dimension(dimension == 2 ? sator::v1::DIMENSION_2D
                                       : sator::v1::DIMENSION_3D);
  request.mutable_origins()->Add(origins.begin(), origins.end());
  request.mutable_directions()->Add(directions.begin(), directions.end());
  request.mutable_max_distances()->Add(distances.begin(), distances.end());
  return request;
}

class RayBatchTest : public ::testing::Test {
 protected:
  RayBatchTest() : registry_(Limits()), queries_(registry_, {}) {}

  // "space": a sphere of radius 1 at (0, 0, 5) (body 1, user data 10).
  void SetUp() override {
    HostedSceneSettings settings;
    settings.dimension = 3;
    settings.history_ticks = 4;
    absl::StatusOr<std::shared_ptr<HostedScene>> space =
        registry_.Create("space", settings);
    ASSERT_TRUE(space.ok()) << space.status();
    scene::BodyDesc<3> sphere;
    sphere.id = 1;
    sphere.user_data = 10;
    sphere.shape = std::make_shared<const scene::SceneShape<3>>(Sphere{1.0f});
    sphere.pose.position = {0, 0, 5};
    sphere.motion = scene::MotionType::kDynamic;
    ASSERT_TRUE((*space)->scene3()->UpsertBodies({sphere}).ok());
  }

  // A scene of `bodies` random boxes and spheres (2D: boxes and circles)
  // in a 100 m square or cube, some on layer 2, some dynamic.
  template <int D>
  void MakeRandomScene(const std::string& id, int bodies, std::uint64_t seed) {
    HostedSceneSettings settings;
    settings.dimension = D;
    absl::StatusOr<std::shared_ptr<HostedScene>> made =
        registry_.Create(id, settings);
    ASSERT_TRUE(made.ok()) << made.status();
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<float> coord(0.0f, 100.0f);
    std::uniform_real_distribution<float> size(0.2f, 3.0f);
    std::vector<scene::BodyDesc<D>> descs;
    for (int i = 0; i < bodies; ++i) {
      scene::BodyDesc<D> body;
      body.id = static_cast<std::uint64_t>(i) + 1;
      body.user_data = body.id * 7;
      body.layer = i % 5 == 0 ? 2 : 1;
      body.motion =
          i % 3 == 0 ? scene::MotionType::kDynamic : scene::MotionType::kStatic;
      for (int k = 0; k < D; ++k) body.pose.position[k] = coord(random);
      if constexpr (D == 2) {
        body.shape = i % 2 == 0 ? std::make_shared<const scene::SceneShape<2>>(
                                      Box2{{size(random), size(random)}})
                                : std::make_shared<const scene::SceneShape<2>>(
                                      Circle{size(random)});
      } else {
        body.shape = i % 2 == 0
                         ? std::make_shared<const scene::SceneShape<3>>(
                               Box3{{size(random), size(random), size(random)}})
                         : std::make_shared<const scene::SceneShape<3>>(
                               Sphere{size(random)});
      }
      descs.push_back(std::move(body));
    }
    if constexpr (D == 2) {
      ASSERT_TRUE((*made)->scene2()->UpsertBodies(descs).ok());
    } else {
      ASSERT_TRUE((*made)->scene3()->UpsertBodies(descs).ok());
    }
  }

  SceneRegistry registry_;
  SceneQueries queries_;
};

TEST_F(RayBatchTest, AnswersWorkedOutByHand) {
  // Ray 0 straight up the sphere's axis: hits its bottom at z = 4. Ray 1
  // from (0.6, 0, 0) upwards: distance 5 - sqrt(1 - 0.36) = 4.2. Ray 2
  // misses to the side; ray 3 starts inside the sphere (distance 0).
  const sator::v1::RaycastBatchRequest request =
      Request("space", 3, {0, 0, 0, 0.6f, 0, 0, 3, 0, 0, 0, 0, 5},
              {0, 0, 2, 0, 0, 1, 0, 0, 1, 1, 0, 0}, {100});
  sator::v1::RaycastBatchResponse response;
  ASSERT_TRUE(queries_.RaycastBatch(request, 10, nullptr, &response).ok());
  ASSERT_EQ(response.hit_counts_size(), 4);
  EXPECT_EQ(response.hit_counts(0), 1u);
  EXPECT_EQ(response.hit_counts(1), 1u);
  EXPECT_EQ(response.hit_counts(2), 0u);
  EXPECT_EQ(response.hit_counts(3), 1u);
  ASSERT_EQ(response.body_ids_size(), 3);
  ASSERT_EQ(response.points_size(), 9);
  ASSERT_EQ(response.normals_size(), 9);
  EXPECT_EQ(response.tick(), 0);
  EXPECT_EQ(response.body_ids(0), 1u);
  EXPECT_EQ(response.user_data(0), 10u);
  EXPECT_NEAR(response.distances(0), 4.0f, 1e-5f);
  EXPECT_NEAR(response.points(2), 4.0f, 1e-5f);
  EXPECT_NEAR(response.normals(2), -1.0f, 1e-5f);
  EXPECT_FALSE(response.started_inside(0));
  EXPECT_NEAR(response.distances(1), 5.0f - std::sqrt(1.0f - 0.36f), 1e-4f);
  EXPECT_EQ(response.distances(2), 0.0f);
  EXPECT_TRUE(response.started_inside(2));
}

TEST_F(RayBatchTest, EmptyBatchAnswersTheTick) {
  sator::v1::RaycastBatchResponse response;
  ASSERT_TRUE(
      queries_
          .RaycastBatch(Request("space", 3, {}, {}, {}), 10, nullptr, &response)
          .ok());
  EXPECT_EQ(response.hit_counts_size(), 0);
  EXPECT_EQ(response.tick(), 0);
}

// The fast path against the reference: every ray of a RaycastBatch answers
// exactly (bit for bit) what the same ray gives as a raycast Query in a
// QueryBatch, in every result mode, with filters, on random scenes.
template <int D>
void ExpectSameAsQueryBatch(SceneQueries& queries, const std::string& scene,
                            std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> coord(-10.0f, 110.0f);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_real_distribution<float> reach(1.0f, 150.0f);
  constexpr int kRays = 700;
  const sator::v1::ResultMode modes[] = {
      sator::v1::RESULT_MODE_CLOSEST, sator::v1::RESULT_MODE_ANY,
      sator::v1::RESULT_MODE_ALL, sator::v1::RESULT_MODE_CLOSEST_PER_BODY};
  for (const sator::v1::ResultMode mode : modes) {
    SCOPED_TRACE(sator::v1::ResultMode_Name(mode));
    sator::v1::QueryOptions options;
    options.set_mode(mode);
    options.set_max_hits(5);
    if (mode == sator::v1::RESULT_MODE_ALL) {
      options.mutable_filter()->set_mask(2);  // Layer-2 bodies only.
      options.mutable_filter()->add_exclude_body_ids(6);
    }
    if (mode == sator::v1::RESULT_MODE_CLOSEST_PER_BODY) {
      options.mutable_filter()->set_motion(
          sator::v1::MOTION_FILTER_STATIC_ONLY);
    }
    sator::v1::RaycastBatchRequest packed;
    packed.set_scene_id(scene);
    packed.set_dimension(D == 2 ? sator::v1::DIMENSION_2D
                                : sator::v1::DIMENSION_3D);
    *packed.mutable_options() = options;
    sator::v1::QueryBatchRequest reference;
    reference.set_scene_id(scene);
    for (int i = 0; i < kRays; ++i) {
      sator::v1::Query* query = reference.add_queries();
      *query->mutable_options() = options;
      sator::v1::RaycastQuery* ray = query->mutable_raycast();
      const float o[3] = {coord(random), coord(random), coord(random)};
      float d[3] = {unit(random), unit(random), unit(random)};
      if (d[0] == 0.0f) d[0] = 0.5f;
      const float distance = reach(random);
      ray->mutable_origin()->set_x(o[0]);
      ray->mutable_origin()->set_y(o[1]);
      ray->mutable_direction()->set_x(d[0]);
      ray->mutable_direction()->set_y(d[1]);
      if (D == 3) {
        ray->mutable_origin()->set_z(o[2]);
        ray->mutable_direction()->set_z(d[2]);
      }
      ray->set_max_distance(distance);
      for (int k = 0; k < D; ++k) {
        packed.add_origins(o[k]);
        packed.add_directions(d[k]);
      }
      packed.add_max_distances(distance);
    }
    sator::v1::RaycastBatchResponse fast;
    ASSERT_TRUE(queries.RaycastBatch(packed, kRays, nullptr, &fast).ok());
    sator::v1::QueryBatchResponse slow;
    ASSERT_TRUE(queries.QueryBatch(reference, kRays, nullptr, &slow).ok());
    ASSERT_EQ(fast.hit_counts_size(), kRays);
    int next = 0;
    int total = 0;
    for (int i = 0; i < kRays; ++i) {
      SCOPED_TRACE(i);
      ASSERT_EQ(slow.entries(i).status().code(), 0);
      const sator::v1::QueryResult& expected = slow.entries(i).result();
      EXPECT_EQ(fast.tick(), expected.tick());
      ASSERT_EQ(static_cast<int>(fast.hit_counts(i)), expected.hits_size());
      for (const sator::v1::Hit& hit : expected.hits()) {
        EXPECT_EQ(fast.body_ids(next), hit.body_id());
        EXPECT_EQ(fast.user_data(next), hit.user_data());
        EXPECT_EQ(fast.distances(next), hit.distance());
        EXPECT_EQ(fast.features(next), hit.feature());
        EXPECT_EQ(fast.started_inside(next), hit.started_inside());
        const float point[3] = {hit.point().x(), hit.point().y(),
                                hit.point().z()};
        const float normal[3] = {hit.normal().x(), hit.normal().y(),
                                 hit.normal().z()};
        for (int k = 0; k < D; ++k) {
          EXPECT_EQ(fast.points(D * next + k), point[k]);
          EXPECT_EQ(fast.normals(D * next + k), normal[k]);
        }
        ++next;
      }
      total += expected.hits_size();
    }
    EXPECT_EQ(fast.body_ids_size(), total);
    // The comparison means something only if rays hit.
    EXPECT_GT(total, kRays / 20);
  }
}

TEST_F(RayBatchTest, MatchesQueryBatchOnRandomScenes3D) {
  MakeRandomScene<3>("random3", 3000, 11);
  ExpectSameAsQueryBatch<3>(queries_, "random3", 12);
  ExpectSameAsQueryBatch<3>(queries_, "random3", 13);
}

TEST_F(RayBatchTest, MatchesQueryBatchOnRandomScenes2D) {
  MakeRandomScene<2>("random2", 800, 21);
  ExpectSameAsQueryBatch<2>(queries_, "random2", 22);
  ExpectSameAsQueryBatch<2>(queries_, "random2", 23);
}

// On several threads the answer is the same, byte for byte, and an error
// names the lowest-numbered bad ray, as on one thread.
TEST_F(RayBatchTest, ParallelAnswersLikeSequential) {
  MakeRandomScene<3>("random3", 3000, 31);
  std::mt19937_64 random(32);
  std::uniform_real_distribution<float> coord(-10.0f, 110.0f);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  constexpr int kRays = 1000;
  sator::v1::RaycastBatchRequest request;
  request.set_scene_id("random3");
  request.set_dimension(sator::v1::DIMENSION_3D);
  request.mutable_options()->set_mode(sator::v1::RESULT_MODE_ALL);
  for (int i = 0; i < 3 * kRays; ++i) {
    request.add_origins(coord(random));
    request.add_directions(unit(random) + 0.01f);
  }
  request.add_max_distances(60.0f);
  const auto answer = [&](SceneQueries::BatchParallelism parallelism,
                          const sator::v1::RaycastBatchRequest& rays,
                          absl::Status* status) {
    queries_.set_batch_parallelism(parallelism);
    google::protobuf::Arena arena;
    auto* response =
        google::protobuf::Arena::CreateMessage<sator::v1::RaycastBatchResponse>(
            &arena);
    *status = queries_.RaycastBatch(rays, kRays, nullptr, response);
    return response->SerializeAsString();
  };
  absl::Status one_status;
  absl::Status two_status;
  const std::string one = answer(BatchThreads(1, 1), request, &one_status);
  const std::string two = answer(BatchThreads(2, 1), request, &two_status);
  const std::string three = answer(BatchThreads(3, 100), request, &two_status);
  ASSERT_TRUE(one_status.ok()) << one_status;
  ASSERT_TRUE(two_status.ok()) << two_status;
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, three);
  sator::v1::RaycastBatchResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(one));
  EXPECT_EQ(parsed.hit_counts_size(), kRays);
  EXPECT_GT(parsed.body_ids_size(), kRays / 10);

  // Rays 700 and 300 have zero directions: both report ray 300.
  sator::v1::RaycastBatchRequest bad = request;
  for (const int ray : {700, 300}) {
    for (int k = 0; k < 3; ++k) bad.set_directions(3 * ray + k, 0.0f);
  }
  (void)answer(BatchThreads(1, 1), bad, &one_status);
  (void)answer(BatchThreads(2, 1), bad, &two_status);
  EXPECT_EQ(one_status.message(), "directions[900..902]: zero length");
  EXPECT_EQ(two_status, one_status);

  // Stopped from the second chunk on, whichever thread asks.
  queries_.set_batch_parallelism(BatchThreads(2, 1));
  std::atomic<int> asked{0};
  sator::v1::RaycastBatchResponse stopped;
  EXPECT_EQ(queries_
                .RaycastBatch(
                    request, kRays,
                    [&]() -> absl::Status {
                      return asked.fetch_add(1) >= 1
                                 ? absl::CancelledError("cancelled")
                                 : absl::OkStatus();
                    },
                    &stopped)
                .code(),
            absl::StatusCode::kCancelled);
}

// An answer that grows past the largest message gRPC would send is refused
// while it is built (RESOURCE_EXHAUSTED naming options.max_hits), on one
// thread or several, for the packed batch and for QueryBatch; below the
// limit the same batch is answered.
TEST_F(RayBatchTest, AnswerLargerThanTheMessageLimitIsRefused) {
  MakeRandomScene<3>("random3", 3000, 41);
  std::mt19937_64 random(42);
  std::uniform_real_distribution<float> coord(-10.0f, 110.0f);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  constexpr int kRays = 400;
  sator::v1::RaycastBatchRequest packed;
  packed.set_scene_id("random3");
  packed.set_dimension(sator::v1::DIMENSION_3D);
  packed.mutable_options()->set_mode(sator::v1::RESULT_MODE_ALL);
  sator::v1::QueryBatchRequest batch;
  batch.set_scene_id("random3");
  for (int i = 0; i < kRays; ++i) {
    sator::v1::Query* query = batch.add_queries();
    query->mutable_options()->set_mode(sator::v1::RESULT_MODE_ALL);
    sator::v1::RaycastQuery* ray = query->mutable_raycast();
    const float o[3] = {coord(random), coord(random), coord(random)};
    const float d[3] = {unit(random) + 0.01f, unit(random), unit(random)};
    packed.add_origins(o[0]);
    packed.add_origins(o[1]);
    packed.add_origins(o[2]);
    packed.add_directions(d[0]);
    packed.add_directions(d[1]);
    packed.add_directions(d[2]);
    ray->mutable_origin()->set_x(o[0]);
    ray->mutable_origin()->set_y(o[1]);
    ray->mutable_origin()->set_z(o[2]);
    ray->mutable_direction()->set_x(d[0]);
    ray->mutable_direction()->set_y(d[1]);
    ray->mutable_direction()->set_z(d[2]);
    ray->set_max_distance(60.0f);
  }
  packed.add_max_distances(60.0f);
  for (const int threads : {1, 2}) {
    queries_.set_batch_parallelism(BatchThreads(threads, 1));
    // Unlimited: both answer, with many hits.
    queries_.set_max_response_bytes(std::int64_t{1} << 40);
    sator::v1::RaycastBatchResponse packed_answer;
    ASSERT_TRUE(
        queries_.RaycastBatch(packed, kRays, nullptr, &packed_answer).ok());
    sator::v1::QueryBatchResponse batch_answer;
    ASSERT_TRUE(queries_.QueryBatch(batch, kRays, nullptr, &batch_answer).ok());
    ASSERT_GT(packed_answer.body_ids_size(), 200);
    const auto packed_bytes =
        static_cast<std::int64_t>(packed_answer.ByteSizeLong());
    const auto batch_bytes =
        static_cast<std::int64_t>(batch_answer.ByteSizeLong());
    // A limit at half of each answer's size: refused, naming the option.
    queries_.set_max_response_bytes(packed_bytes / 2);
    sator::v1::RaycastBatchResponse refused;
    const absl::Status packed_status =
        queries_.RaycastBatch(packed, kRays, nullptr, &refused);
    EXPECT_EQ(packed_status.code(), absl::StatusCode::kResourceExhausted)
        << packed_status;
    EXPECT_THAT(packed_status.message(), HasSubstr("options.max_hits"));
    queries_.set_max_response_bytes(batch_bytes / 2);
    sator::v1::QueryBatchResponse refused_batch;
    const absl::Status batch_status =
        queries_.QueryBatch(batch, kRays, nullptr, &refused_batch);
    EXPECT_EQ(batch_status.code(), absl::StatusCode::kResourceExhausted)
        << batch_status;
    EXPECT_THAT(batch_status.message(), HasSubstr("--max_message_bytes"));
    // At the exact size: answered (the packed bound never overestimates).
    queries_.set_max_response_bytes(packed_bytes);
    sator::v1::RaycastBatchResponse fits;
    EXPECT_TRUE(queries_.RaycastBatch(packed, kRays, nullptr, &fits).ok());
    queries_.set_max_response_bytes(batch_bytes);
    sator::v1::QueryBatchResponse fits_batch;
    EXPECT_TRUE(queries_.QueryBatch(batch, kRays, nullptr, &fits_batch).ok());
  }
}

// An empty batch still checks its options: a rewind outside the history
// fails as it would with rays, and a rewind inside it reports its tick.
TEST_F(RayBatchTest, EmptyBatchChecksItsRewind) {
  sator::v1::RaycastBatchRequest request = Request("space", 3, {}, {}, {});
  request.mutable_options()->mutable_rewind()->set_tick(9);
  sator::v1::RaycastBatchResponse response;
  const absl::Status status =
      queries_.RaycastBatch(request, 10, nullptr, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange) << status;
  EXPECT_THAT(status.message(), HasSubstr("options.rewind"));
  request.mutable_options()->mutable_rewind()->set_tick(0);
  sator::v1::RaycastBatchResponse at_zero;
  ASSERT_TRUE(queries_.RaycastBatch(request, 10, nullptr, &at_zero).ok());
  EXPECT_EQ(at_zero.tick(), 0);
  EXPECT_EQ(at_zero.hit_counts_size(), 0);
}

TEST_F(RayBatchTest, PerRayDistancesAndSharedOptions) {
  // Two rays up the axis: the first too short to reach z = 4.
  sator::v1::RaycastBatchRequest request =
      Request("space", 3, {0, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 1}, {3.9f, 5});
  sator::v1::RaycastBatchResponse response;
  ASSERT_TRUE(queries_.RaycastBatch(request, 10, nullptr, &response).ok());
  ASSERT_EQ(response.hit_counts_size(), 2);
  EXPECT_EQ(response.hit_counts(0), 0u);
  EXPECT_EQ(response.hit_counts(1), 1u);
  // The options apply to every ray: excluding body 1 empties both.
  request.mutable_options()->mutable_filter()->add_exclude_body_ids(1);
  response.Clear();
  ASSERT_TRUE(queries_.RaycastBatch(request, 10, nullptr, &response).ok());
  EXPECT_EQ(response.hit_counts(0), 0u);
  EXPECT_EQ(response.hit_counts(1), 0u);
  EXPECT_EQ(response.body_ids_size(), 0);
}

struct Refusal {
  std::string name;
  sator::v1::RaycastBatchRequest request;
  absl::StatusCode code;
  std::string message;
};

TEST_F(RayBatchTest, RefusalsNameTheField) {
  const float nan = std::nanf("");
  std::vector<Refusal> refusals = {
      {"no dimension",
       [] {
         sator::v1::RaycastBatchRequest r =
             Request("space", 3, {0, 0, 0}, {0, 0, 1}, {1});
         r.clear_dimension();
         return r;
       }(),
       absl::StatusCode::kInvalidArgument, "dimension: must be DIMENSION_2D"},
      {"2D rays to a 3D scene", Request("space", 2, {0, 0}, {0, 1}, {1}),
       absl::StatusCode::kInvalidArgument,
       "dimension: the rays are 2D but scene space is 3D"},
      {"ragged origins", Request("space", 3, {0, 0, 0, 1}, {0, 0, 1}, {1}),
       absl::StatusCode::kInvalidArgument,
       "origins: 4 floats is not a whole number of 3D points"},
      {"directions short", Request("space", 3, {0, 0, 0}, {0, 0}, {1}),
       absl::StatusCode::kInvalidArgument,
       "directions: 2 floats for 1 rays; need 3"},
      {"distances neither one nor per ray",
       Request("space", 3, {0, 0, 0, 0, 0, 0, 0, 0, 0},
               {0, 0, 1, 0, 0, 1, 0, 0, 1}, {1, 1}),
       absl::StatusCode::kInvalidArgument,
       "max_distances: 2 values for 3 rays"},
      {"no distance", Request("space", 3, {0, 0, 0}, {0, 0, 1}, {}),
       absl::StatusCode::kInvalidArgument,
       "max_distances: 0 values for 1 rays"},
      {"NaN origin",
       Request("space", 3, {0, 0, 0, 0, nan, 0}, {0, 0, 1, 0, 0, 1}, {1}),
       absl::StatusCode::kInvalidArgument, "origins[4]: not finite"},
      {"far origin", Request("space", 3, {2e6f, 0, 0}, {0, 0, 1}, {1}),
       absl::StatusCode::kInvalidArgument, "origins[0]: out of range"},
      {"zero direction",
       Request("space", 3, {0, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}, {1}),
       absl::StatusCode::kInvalidArgument, "directions[3..5]: zero length"},
      {"direction too short for the scene (denormal)",
       Request("space", 3, {0, 0, 0}, {7e-45f, 0, 0}, {1}),
       absl::StatusCode::kInvalidArgument,
       "directions[0..2]: length below 1e-12"},
      {"infinite direction",
       Request("space", 3, {0, 0, 0}, {0, INFINITY, 1}, {1}),
       absl::StatusCode::kInvalidArgument, "directions[1]: not finite"},
      {"negative distance",
       Request("space", 3, {0, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 1}, {1, -1}),
       absl::StatusCode::kInvalidArgument,
       "max_distances[1]: must be in (0, 1e+07], got -1"},
      {"NaN shared distance", Request("space", 3, {0, 0, 0}, {0, 0, 1}, {nan}),
       absl::StatusCode::kInvalidArgument, "max_distances[0]: not finite"},
      {"unknown scene", Request("nowhere", 3, {0, 0, 0}, {0, 0, 1}, {1}),
       absl::StatusCode::kNotFound, "nowhere"},
      {"rewind too old",
       [] {
         sator::v1::RaycastBatchRequest r =
             Request("space", 3, {0, 0, 0}, {0, 0, 1}, {1});
         r.mutable_options()->mutable_rewind()->set_tick(9);
         return r;
       }(),
       absl::StatusCode::kOutOfRange, "options.rewind"},
      {"max_hits over the limit",
       [] {
         sator::v1::RaycastBatchRequest r =
             Request("space", 3, {0, 0, 0}, {0, 0, 1}, {1});
         r.mutable_options()->set_max_hits(101);
         return r;
       }(),
       absl::StatusCode::kResourceExhausted, "options.max_hits"},
      {"too many excluded ids",
       [] {
         sator::v1::RaycastBatchRequest r =
             Request("space", 3, {0, 0, 0}, {0, 0, 1}, {1});
         for (int id = 0; id <= kMaxExcludedBodyIds; ++id) {
           r.mutable_options()->mutable_filter()->add_exclude_body_ids(
               static_cast<std::uint64_t>(id));
         }
         return r;
       }(),
       absl::StatusCode::kResourceExhausted,
       "options.filter.exclude_body_ids: at most 4096 ids"},
      {"too many rays",
       Request("space", 3, std::vector<float>(33, 0.0f),
               std::vector<float>(33, 1.0f), {1}),
       absl::StatusCode::kResourceExhausted,
       "origins: at most 10 rays per batch (--max_batch_queries), got 11"},
  };
  for (const Refusal& refusal : refusals) {
    SCOPED_TRACE(refusal.name);
    google::protobuf::Arena arena;
    auto* response =
        google::protobuf::Arena::CreateMessage<sator::v1::RaycastBatchResponse>(
            &arena);
    const absl::Status status =
        queries_.RaycastBatch(refusal.request, 10, nullptr, response);
    EXPECT_EQ(status.code(), refusal.code) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(refusal.message));
  }
}

TEST_F(RayBatchTest, InterruptAskedEveryChunk) {
  const int rays = 5 * SceneQueries::kRayChunk;
  sator::v1::RaycastBatchRequest request =
      Request("space", 3, std::vector<float>(3 * rays, 0.0f), {}, {100});
  for (int i = 0; i < rays; ++i) {
    request.add_directions(0);
    request.add_directions(0);
    request.add_directions(1);
  }
  int asked = 0;
  sator::v1::RaycastBatchResponse response;
  const absl::Status stopped = queries_.RaycastBatch(
      request, rays,
      [&asked]() -> absl::Status {
        return ++asked > 2 ? absl::CancelledError("cancelled")
                           : absl::OkStatus();
      },
      &response);
  EXPECT_EQ(stopped.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(response.hit_counts_size(), 2 * SceneQueries::kRayChunk);

  asked = 0;
  response.Clear();
  ASSERT_TRUE(queries_
                  .RaycastBatch(
                      request, rays,
                      [&asked]() -> absl::Status {
                        ++asked;
                        return absl::OkStatus();
                      },
                      &response)
                  .ok());
  EXPECT_EQ(asked, 5);
  EXPECT_EQ(response.hit_counts_size(), rays);
}

TEST_F(RayBatchTest, ObserverHearsOfTheBatchOnce) {
  std::vector<QueryRecord> records;
  std::vector<std::vector<std::uint32_t>> hits;
  std::vector<std::vector<std::uint32_t>> visits;
  queries_.set_observer([&](absl::Span<const QueryRecord> reported) {
    for (const QueryRecord& record : reported) {
      records.push_back(record);
      hits.emplace_back(record.hits_per_query.begin(),
                        record.hits_per_query.end());
      visits.emplace_back(record.node_visits_per_query.begin(),
                          record.node_visits_per_query.end());
    }
  });
  sator::v1::RaycastBatchRequest request =
      Request("space", 3, {0, 0, 0, 3, 0, 0, 0.5f, 0, 0},
              {0, 0, 1, 0, 0, 1, 0, 0, 1}, {100});
  request.mutable_options()->set_mode(sator::v1::RESULT_MODE_ANY);
  sator::v1::RaycastBatchResponse response;
  ASSERT_TRUE(queries_.RaycastBatch(request, 10, nullptr, &response).ok());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].count, 3);
  EXPECT_EQ(records[0].kind, scene::QueryKind::kRaycast);
  EXPECT_EQ(records[0].mode, scene::ResultMode::kAny);
  EXPECT_EQ(records[0].dimension, 3);
  EXPECT_EQ(records[0].code, absl::StatusCode::kOk);
  EXPECT_EQ(records[0].hits, 2);
  EXPECT_FALSE(records[0].rewound);
  EXPECT_EQ(hits[0], (std::vector<std::uint32_t>{1, 0, 1}));
  ASSERT_EQ(visits[0].size(), 3u);
  std::int64_t total = 0;
  for (const std::uint32_t v : visits[0]) total += v;
  EXPECT_EQ(total, records[0].node_visits);
  EXPECT_GT(total, 0);
  // A refused batch is not reported.
  request.set_scene_id("nowhere");
  EXPECT_FALSE(queries_.RaycastBatch(request, 10, nullptr, &response).ok());
  EXPECT_EQ(records.size(), 1u);
}

}  // namespace
}  // namespace sator::server

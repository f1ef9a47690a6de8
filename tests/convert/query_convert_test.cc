// sator::convert's query conversion: defaults, a table of bad inputs with the
// code and field path each must give, and the one-Hit-schema mapping of each
// kind's result.
#include "proto/convert/query_convert.h"

#include <functional>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sator/core/field_status.h"
#include "support/text_proto.h"

namespace sator::convert {
namespace {

using scene::QueryKind;
using scene::QueryKindName;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

template <typename Message>
Message Parse(const std::string& text) {
  return ::sator::testing::ParseTextProto<Message>(text);
}

TEST(QueryConvert, OptionDefaults) {
  absl::StatusOr<scene::QueryOptions> options =
      ToQueryOptions(sator::v1::QueryOptions(), 4096);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->filter.layer, ~std::uint64_t{0});
  EXPECT_EQ(options->filter.mask, ~std::uint64_t{0});
  EXPECT_TRUE(options->filter.excluded_ids.empty());
  EXPECT_EQ(options->filter.motion, scene::MotionSelection::kAll);
  EXPECT_EQ(options->mode, scene::ResultMode::kClosest);
  EXPECT_EQ(options->max_hits, kDefaultMaxHits);
  EXPECT_FALSE(options->rewind.has_value());

  // A server limit below the default caps the default.
  absl::StatusOr<scene::QueryOptions> capped =
      ToQueryOptions(sator::v1::QueryOptions(), 10);
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(capped->max_hits, 10);
}

// The exclusions are sorted once, at conversion; every copy of the options
// (a batch's queries share them) shares that sorted set instead of copying
// or sorting it again.
TEST(QueryConvert, ExcludedIdsAreSortedOnceAndShared) {
  absl::StatusOr<scene::QueryOptions> options =
      ToQueryOptions(Parse<sator::v1::QueryOptions>(
                         R"pb(
                           filter { exclude_body_ids: [ 9, 4, 9, 1 ] }
                         )pb"),
                     4096);
  ASSERT_TRUE(options.ok()) << options.status();
  const scene::ExcludedIds& ids = options->filter.excluded_ids;
  EXPECT_THAT(ids.sorted(), ElementsAre(1, 4, 9));
  EXPECT_TRUE(ids.Contains(4));
  EXPECT_FALSE(ids.Contains(5));
  const scene::QueryOptions copy = *options;
  EXPECT_EQ(copy.filter.excluded_ids.sorted().data(), ids.sorted().data());
}

TEST(QueryConvert, ExcludedIdsAreBounded) {
  sator::v1::QueryOptions message;
  for (int id = 0; id < kMaxExcludedBodyIds; ++id) {
    message.mutable_filter()->add_exclude_body_ids(
        static_cast<std::uint64_t>(id));
  }
  absl::StatusOr<scene::QueryOptions> at_limit = ToQueryOptions(message, 4096);
  ASSERT_TRUE(at_limit.ok()) << at_limit.status();
  EXPECT_EQ(at_limit->filter.excluded_ids.size(),
            static_cast<std::size_t>(kMaxExcludedBodyIds));
  message.mutable_filter()->add_exclude_body_ids(1u << 20);
  absl::StatusOr<scene::QueryOptions> over = ToQueryOptions(message, 4096);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(over.status().message()),
              StartsWith("filter.exclude_body_ids: at most 4096 ids"));
  EXPECT_THAT(std::string(over.status().message()), HasSubstr("got 4097"));
}

TEST(QueryConvert, OptionsAreCarriedOver) {
  absl::StatusOr<scene::QueryOptions> options =
      ToQueryOptions(Parse<sator::v1::QueryOptions>(R"pb(
                       filter {
                         layer: 0
                         mask: 6
                         exclude_body_ids: [ 4, 9 ]
                         motion: MOTION_FILTER_DYNAMIC_ONLY
                       }
                       mode: RESULT_MODE_ALL
                       max_hits: 7
                       rewind { tick: 12 fraction: 0.25 }
                     )pb"),
                     4096);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->filter.layer, 0u);  // An explicit 0 stays 0.
  EXPECT_EQ(options->filter.mask, 6u);
  EXPECT_THAT(options->filter.excluded_ids.sorted(), ElementsAre(4, 9));
  EXPECT_EQ(options->filter.motion, scene::MotionSelection::kDynamicOnly);
  EXPECT_EQ(options->mode, scene::ResultMode::kAllUpToN);
  EXPECT_EQ(options->max_hits, 7);
  ASSERT_TRUE(options->rewind.has_value());
  EXPECT_EQ(options->rewind->tick, 12);
  EXPECT_EQ(options->rewind->fraction, 0.25f);

  for (const auto& [mode, expected] :
       {std::pair{sator::v1::RESULT_MODE_ANY, scene::ResultMode::kAny},
        std::pair{sator::v1::RESULT_MODE_CLOSEST, scene::ResultMode::kClosest},
        std::pair{sator::v1::RESULT_MODE_CLOSEST_PER_BODY,
                  scene::ResultMode::kClosestPerBody}}) {
    sator::v1::QueryOptions message;
    message.set_mode(mode);
    EXPECT_EQ(ToQueryOptions(message, 4096)->mode, expected);
  }
}

struct BadQuery {
  const char* name;
  int dimension;
  const char* text;  // A sator.v1.Query in text format.
  absl::StatusCode code;
  const char* message_prefix;
  // Sets the non-finite values, which the text parser itself would trap on
  // under the test's floating-point exceptions.
  std::function<void(sator::v1::Query*)> poison = nullptr;
};

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(QueryConvert, BadQueriesNameTheirField) {
  const std::vector<BadQuery> cases = {
      {"no kind", 2, "", absl::StatusCode::kInvalidArgument,
       "kind: no query kind is set"},
      {"zero direction", 2, "raycast { direction {} max_distance: 10 }",
       absl::StatusCode::kInvalidArgument, "raycast.direction: zero length"},
      {"direction too short for the scene", 3,
       "raycast { direction { x: 1e-20 } max_distance: 10 }",
       absl::StatusCode::kInvalidArgument,
       "raycast.direction: length below 1e-12"},
      {"zero max distance", 2, "raycast { direction { x: 1 } max_distance: 0 }",
       absl::StatusCode::kInvalidArgument, "raycast.max_distance: must be in"},
      {"infinite max distance", 3, "raycast { direction { x: 1 } }",
       absl::StatusCode::kInvalidArgument, "raycast.max_distance: not finite",
       [](sator::v1::Query* q) {
         q->mutable_raycast()->set_max_distance(kInf);
       }},
      {"ray too long", 3, "raycast { direction { x: 1 } max_distance: 2e7 }",
       absl::StatusCode::kInvalidArgument, "raycast.max_distance: must be in"},
      {"z in 2D", 2,
       "raycast { origin { z: 1 } direction { x: 1 } max_distance: 1 }",
       absl::StatusCode::kInvalidArgument, "raycast.origin.z: must be 0 in 2D"},
      {"NaN origin", 3, "raycast { direction { x: 1 } max_distance: 1 }",
       absl::StatusCode::kInvalidArgument, "raycast.origin.y: not finite",
       [](sator::v1::Query* q) {
         q->mutable_raycast()->mutable_origin()->set_y(kNaN);
       }},
      {"mesh query shape", 3,
       "overlap { shape { mesh { vertices {} vertices { x: 1 } "
       "vertices { y: 1 } indices: [0, 1, 2] } } }",
       absl::StatusCode::kInvalidArgument,
       "overlap.shape.mesh: a mesh cannot be a query shape"},
      {"3D shape in 2D", 2, "contacts { shape { sphere { radius: 1 } } }",
       absl::StatusCode::kInvalidArgument, "contacts.shape"},
      {"negative radius", 2, "contacts { shape { circle { radius: -1 } } }",
       absl::StatusCode::kInvalidArgument, "contacts.shape.circle.radius"},
      {"no shape", 3, "sweep { displacement { x: 1 } }",
       absl::StatusCode::kInvalidArgument, "sweep.shape.kind"},
      {"NaN displacement", 2, "sweep { shape { circle { radius: 1 } } }",
       absl::StatusCode::kInvalidArgument, "sweep.displacement.x: not finite",
       [](sator::v1::Query* q) {
         q->mutable_sweep()->mutable_displacement()->set_x(kNaN);
       }},
      {"quaternion in 2D", 2,
       "overlap { shape { circle { radius: 1 } } pose { orientation { w: 1 } "
       "} }",
       absl::StatusCode::kInvalidArgument, "overlap.pose.orientation"},
      {"point out of range", 3, "point { point { x: 2e6 } }",
       absl::StatusCode::kInvalidArgument, "point.point.x: out of range"},
      // 3D shapes beyond the core's kMaxShapeCoordinate3 (1e5), below the
      // wire's kMaxRequestCoordinate (1e6).
      {"sphere radius beyond the 3D limit", 3,
       "contacts { shape { sphere { radius: 2e5 } } }",
       absl::StatusCode::kInvalidArgument,
       "contacts.shape.sphere: sphere radius 200000 is beyond 100000 in "
       "magnitude (kMaxShapeCoordinate3)"},
      {"box half extent beyond the 3D limit", 3,
       "overlap { shape { box3d { half_extents { x: 1 y: 1 z: 5e5 } } } }",
       absl::StatusCode::kInvalidArgument,
       "overlap.shape.box3d: box half extent z 500000 is beyond 100000"},
      {"hull point beyond the 3D limit", 3,
       "overlap { shape { hull { points {} points { x: 1 } points { y: 1 } "
       "points { z: 1 } points { x: -3e5 } } } }",
       absl::StatusCode::kInvalidArgument,
       "overlap.shape.hull: point 4 coordinate x -300000 is beyond 100000"},
      {"unknown mode", 2, "options { mode: 9 } point {}",
       absl::StatusCode::kInvalidArgument, "options.mode: unknown value 9"},
      {"unknown motion filter", 2, "options { filter { motion: 5 } } point {}",
       absl::StatusCode::kInvalidArgument,
       "options.filter.motion: unknown value 5"},
      {"too many hits", 2, "options { max_hits: 5000 } point {}",
       absl::StatusCode::kResourceExhausted, "options.max_hits: at most 4096"},
      {"fraction 1", 2, "options { rewind { fraction: 1 } } point {}",
       absl::StatusCode::kInvalidArgument,
       "options.rewind.fraction: must be in [0, 1)"},
      {"negative fraction", 3, "options { rewind { fraction: -0.5 } } point {}",
       absl::StatusCode::kInvalidArgument,
       "options.rewind.fraction: must be in [0, 1)"},
      {"NaN fraction", 3, "options { rewind {} } point {}",
       absl::StatusCode::kInvalidArgument,
       "options.rewind.fraction: not finite",
       [](sator::v1::Query* q) {
         q->mutable_options()->mutable_rewind()->set_fraction(kNaN);
       }},
      {"negative tick", 2, "options { rewind { tick: -3 } } point {}",
       absl::StatusCode::kInvalidArgument, "options.rewind.tick: must be >= 0"},
  };
  for (const BadQuery& bad : cases) {
    auto query = Parse<sator::v1::Query>(bad.text);
    if (bad.poison) bad.poison(&query);
    const absl::Status status = bad.dimension == 2
                                    ? ToSceneQuery<2>(query, {}, 4096).status()
                                    : ToSceneQuery<3>(query, {}, 4096).status();
    EXPECT_EQ(status.code(), bad.code) << bad.name << ": " << status;
    EXPECT_THAT(std::string(status.message()), StartsWith(bad.message_prefix))
        << bad.name;
  }
}

TEST(QueryConvert, EachKindBecomesItsRecord) {
  absl::StatusOr<scene::SceneQuery<2>> ray = ToSceneQuery<2>(
      Parse<sator::v1::Query>(
          "raycast { origin { x: 1 y: 2 } direction { x: 0 y: 3 } "
          "max_distance: 7 }"),
      {}, 4096);
  ASSERT_TRUE(ray.ok()) << ray.status();
  const auto& request = std::get<scene::RayRequest<2>>(*ray);
  EXPECT_EQ(request.origin, (Vec2{1, 2}));
  EXPECT_EQ(request.direction, (Vec2{0, 3}));
  EXPECT_EQ(request.max_distance, 7.0f);

  absl::StatusOr<scene::SceneQuery<3>> sweep = ToSceneQuery<3>(
      Parse<sator::v1::Query>(
          "sweep { shape { sphere { radius: 0.5 } } pose { position { z: 1 } "
          "} displacement { x: 4 } }"),
      {}, 4096);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  const auto& swept = std::get<scene::SweepRequest<3>>(*sweep);
  EXPECT_EQ(swept.displacement, (Vec3{4, 0, 0}));
  EXPECT_EQ(swept.pose.position, (Vec3{0, 0, 1}));
  ASSERT_NE(swept.shape, nullptr);
  EXPECT_EQ(std::get<Sphere>(*swept.shape).radius, 0.5f);

  EXPECT_TRUE(std::holds_alternative<scene::OverlapRequest<2>>(*ToSceneQuery<2>(
      Parse<sator::v1::Query>("overlap { shape { circle { radius: 1 } } }"), {},
      4096)));
  EXPECT_TRUE(std::holds_alternative<scene::ContactsRequest<3>>(
      *ToSceneQuery<3>(Parse<sator::v1::Query>(
                           "contacts { shape { box3d { half_extents { x: 1 y: "
                           "1 z: 1 } } } }"),
                       {}, 4096)));
  EXPECT_TRUE(std::holds_alternative<scene::PointRequest<2>>(*ToSceneQuery<2>(
      Parse<sator::v1::Query>("point { point { x: 1 } }"), {}, 4096)));
}

TEST(QueryConvert, ContactsCarryTheirMinDepth) {
  absl::StatusOr<scene::SceneQuery<3>> contacts = ToSceneQuery<3>(
      Parse<sator::v1::Query>("contacts { shape { sphere { radius: 0.5 } } "
                              "min_depth: 0.001 }"),
      {}, 4096);
  ASSERT_TRUE(contacts.ok()) << contacts.status();
  EXPECT_EQ(std::get<scene::ContactsRequest<3>>(*contacts).min_depth, 0.001f);
  // Unset: every contact.
  absl::StatusOr<scene::SceneQuery<2>> unset = ToSceneQuery<2>(
      Parse<sator::v1::Query>("contacts { shape { circle { radius: 1 } } }"),
      {}, 4096);
  ASSERT_TRUE(unset.ok()) << unset.status();
  EXPECT_EQ(std::get<scene::ContactsRequest<2>>(*unset).min_depth, 0.0f);

  const absl::Status negative =
      ToSceneQuery<2>(
          Parse<sator::v1::Query>("contacts { shape { circle { radius: 1 } } "
                                  "min_depth: -0.5 }"),
          {}, 4096)
          .status();
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(negative.message(), "contacts.min_depth: must be >= 0, got -0.5");
  const absl::Status infinite =
      ToSceneQuery<2>(
          Parse<sator::v1::Query>("contacts { shape { circle { radius: 1 } } "
                                  "min_depth: inf }"),
          {}, 4096)
          .status();
  EXPECT_EQ(infinite.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(infinite.message(), "contacts.min_depth: not finite");
}

TEST(QueryConvert, SceneErrorsMoveToTheRequestsPaths) {
  const absl::Status tick = SceneQueryError(
      FieldError(absl::StatusCode::kOutOfRange, "rewind.tick", "3 is older"),
      "query", "options");
  EXPECT_EQ(tick.code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(tick.message(), "options.rewind.tick: 3 is older");
  EXPECT_EQ(FieldPathOf(tick), "options.rewind.tick");
  EXPECT_EQ(FieldPathOf(SceneQueryError(FieldError("max_hits", "too many"),
                                        "raycast", "options")),
            "options.max_hits");
  const absl::Status shape =
      SceneQueryError(FieldError("shape", "bad"), "query", "options");
  EXPECT_EQ(shape.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(shape.message(), "query.shape: bad");
  EXPECT_EQ(FieldPathOf(shape), "query.shape");
  // The path decides, not the message.
  EXPECT_EQ(FieldPathOf(SceneQueryError(
                PrefixField("shape", absl::InvalidArgumentError("max_hits")),
                "query", "options")),
            "query.shape");
  EXPECT_TRUE(SceneQueryError(absl::OkStatus(), "query", "options").ok());
}

scene::QueryHit<2> Hit(std::uint32_t flags) {
  scene::QueryHit<2> hit;
  hit.body_id = 7;
  hit.user_data = 70;
  hit.point = {1, 2};
  hit.normal = {0, -1};
  hit.distance = 3.0f;
  hit.fraction = 0.25f;
  hit.depth = 0.5f;
  hit.feature = 2;
  hit.flags = flags;
  return hit;
}

TEST(QueryConvert, ResultsUseOneHitSchema) {
  scene::QueryResult<2> result;
  result.tick = 41;
  result.stats.node_visits = 12;
  result.stats.leaf_visits = 3;
  result.depenetration = {0, -0.5f};
  result.hits = {Hit(scene::kHitPoint | scene::kHitNormal | scene::kHitDepth)};

  sator::v1::QueryResult contacts;
  FromQueryResult<2>(result, QueryKind::kContacts, &contacts);
  ASSERT_EQ(contacts.hits_size(), 1);
  EXPECT_EQ(contacts.tick(), 41);
  EXPECT_EQ(contacts.stats().node_visits(), 12u);
  EXPECT_EQ(contacts.stats().leaf_visits(), 3u);
  EXPECT_EQ(contacts.depenetration().y(), -0.5f);
  const sator::v1::Hit& hit = contacts.hits(0);
  EXPECT_EQ(hit.body_id(), 7u);
  EXPECT_EQ(hit.user_data(), 70u);
  EXPECT_EQ(hit.distance(), 0.5f);  // Depth.
  EXPECT_EQ(hit.normal().y(), -1.0f);
  EXPECT_EQ(hit.point().x(), 1.0f);
  EXPECT_EQ(hit.feature(), -1);  // No feature flag.
  EXPECT_FALSE(hit.started_inside());

  sator::v1::QueryResult sweep;
  FromQueryResult<2>(result, QueryKind::kSweep, &sweep);
  EXPECT_EQ(sweep.hits(0).distance(), 0.25f);  // Fraction.
  EXPECT_FALSE(sweep.has_depenetration());
  result.hits = {
      Hit(scene::kHitStartedInside | scene::kHitDepth | scene::kHitNormal)};
  sweep.Clear();
  FromQueryResult<2>(result, QueryKind::kSweep, &sweep);
  EXPECT_TRUE(sweep.hits(0).started_inside());
  EXPECT_EQ(sweep.hits(0).distance(), 0.5f);  // The initial MTV's depth.
  EXPECT_FALSE(sweep.hits(0).has_point());

  result.hits = {Hit(scene::kHitDistance | scene::kHitFeature)};
  sator::v1::QueryResult ray;
  FromQueryResult<2>(result, QueryKind::kRaycast, &ray);
  EXPECT_EQ(ray.hits(0).distance(), 3.0f);
  EXPECT_EQ(ray.hits(0).feature(), 2);

  sator::v1::QueryResult overlap;
  FromQueryResult<2>(result, QueryKind::kOverlap, &overlap);
  EXPECT_EQ(overlap.hits(0).distance(), 0.0f);
  EXPECT_FALSE(overlap.hits(0).has_normal());
}

TEST(QueryConvert, Names) {
  // The names of v1::Query's oneof fields, in its order.
  EXPECT_EQ(QueryKindName(QueryKind::kOverlap), "overlap");
  EXPECT_EQ(QueryKindName(QueryKind::kContacts), "contacts");
  EXPECT_EQ(QueryKindName(QueryKind::kSweep), "sweep");
  EXPECT_EQ(QueryKindName(QueryKind::kRaycast), "raycast");
  EXPECT_EQ(QueryKindName(QueryKind::kPoint), "point");
  const auto* oneof = sator::v1::Query::descriptor()->FindOneofByName("kind");
  ASSERT_NE(oneof, nullptr);
  ASSERT_EQ(oneof->field_count(), scene::kQueryKinds);
  for (int k = 0; k < scene::kQueryKinds; ++k) {
    EXPECT_EQ(oneof->field(k)->name(),
              QueryKindName(static_cast<QueryKind>(k)));
  }
  EXPECT_EQ(ResultModeName(scene::ResultMode::kAllUpToN), "all");
  EXPECT_EQ(ResultModeName(scene::ResultMode::kClosestPerBody),
            "closest_per_body");
}

}  // namespace
}  // namespace sator::convert

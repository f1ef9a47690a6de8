// sator-bench: load generator for satord, over the client library.
//
// It builds a 3D scene (by default 100k static boxes in a 1000 m cube), then
// runs one load shape (closed loop at a fixed concurrency, or open loop at a
// fixed rate) in one mode:
//   unary    one scene query per RPC (--queries: raycast, overlap, sweep,
//            contacts or a comma-separated mix, taken in turn);
//   batch    a QueryBatch of --batch_size raycasts per RPC;
//   raybatch a RaycastBatch (the packed form) of --batch_size raycasts per
//            RPC, the same rays as batch;
//   session  pose updates of --poses_per_update dynamic bodies per message
//            over one Session per worker (each worker owns a scene), with
//            --pipeline updates in flight before it waits;
//   game     game rooms at 60 Hz (game_mode.h): each room a scene of a
//            level mesh and 64 players of 3 hitboxes with its own Session;
//            each tick the 64 group poses, 64 character contacts, 64 sweeps
//            and 20 rewound shots, in open loop. --rooms=N runs N rooms;
//            --rooms=max finds the most rooms whose p99 tick stays within
//            --tick_budget. It then runs the same ticks on the core in
//            process and reports the CPU per tick of both (satord's with
//            --satord_pid). It has no Ping run: the core is its floor.
// In the same run it repeats the load shape with the Ping RPC carrying a
// payload as large as the mode's request, so the service's cost can be read
// as a ratio to the transport's floor. With --satord_pid it also reports
// satord's CPU over the measured window, and raybatch and batch answer the
// same rays on a core scene in process (--core_rays), for the service's rays
// per server CPU second as a share of the core's (scripts/bench-service).
// Prints a table, or with --json one JSON object per run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "sator/client/client.h"
#include "sator/client/session.h"
#include "sator/v1/query_service.pb.h"
#include "tools/sator-bench/core_rays.h"
#include "tools/sator-bench/game_mode.h"
#include "tools/sator-bench/load_loop.h"
#include "tools/sator-bench/process_cpu.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "satord's gRPC address.");
ABSL_FLAG(std::string, mode, "unary",
          "unary, batch, raybatch, session or game.");
ABSL_FLAG(std::string, loop, "closed",
          "closed (fixed concurrency) or open "
          "(fixed rate).");
ABSL_FLAG(int, concurrency, 1, "Workers (closed: callers in flight).");
ABSL_FLAG(double, rate, 1000.0, "Open loop: RPCs per second in all.");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(5), "Measured time.");
ABSL_FLAG(absl::Duration, warmup, absl::Seconds(1), "Unmeasured warm-up.");
ABSL_FLAG(std::string, queries, "raycast",
          "unary: raycast, overlap, sweep, contacts, or a comma-separated "
          "mix.");
ABSL_FLAG(int, bodies, 100000, "Static boxes in the scene.");
ABSL_FLAG(double, world_size, 1000.0, "Edge of the cube the boxes fill, m.");
ABSL_FLAG(int, batch_size, 1000,
          "batch, raybatch: raycasts per QueryBatch or RaycastBatch.");
ABSL_FLAG(int, poses_per_update, 1000,
          "session: dynamic bodies per pose update.");
ABSL_FLAG(int, pipeline, 8, "session: updates in flight per worker.");
ABSL_FLAG(std::string, scene, "sator-bench", "Scene id (prefix).");
ABSL_FLAG(bool, keep_scene, false,
          "Reuse the scene if it exists, else build it; never delete it.");
ABSL_FLAG(bool, ping, true, "Also run the same load with Ping.");
ABSL_FLAG(int, rounds, 1,
          "Split the measured time into this many rounds, each running the "
          "mode then Ping for duration/rounds, so both see the same machine "
          "load (the warm-up runs once, before the first round).");
ABSL_FLAG(bool, json, false, "Print one JSON object per run.");
ABSL_FLAG(std::uint64_t, seed, 1, "Random seed for the scene and queries.");
ABSL_FLAG(std::string, rooms, "1",
          "game: rooms to run, or max to find the most within "
          "--tick_budget.");
ABSL_FLAG(int, max_rooms, 256, "game, --rooms=max: the search's bound.");
ABSL_FLAG(absl::Duration, tick_budget, absl::Milliseconds(4),
          "game: the p99 tick latency a room count must stay within.");
ABSL_FLAG(absl::Duration, step_duration, absl::Seconds(3),
          "game, --rooms=max: measured time of each search step (the count "
          "found then runs for --duration).");
ABSL_FLAG(absl::Duration, step_warmup, absl::Seconds(1),
          "game, --rooms=max: warm-up of each search step.");
ABSL_FLAG(std::string, game_transport, "session",
          "game: session (every message on the room's Session) or batch "
          "(poses and shots on the Session, the queries as a QueryBatch).");
ABSL_FLAG(int, core_rays, 1000000,
          "raybatch, batch with --satord_pid: distinct rays of the run's "
          "streams also answered in process, before and after the load, on "
          "the scene --bodies and --seed describe, for the service's share "
          "of the core's rays per CPU second (0: none).");
ABSL_FLAG(int, satord_pid, 0,
          "satord's process id, for its CPU time over the measured window "
          "(game: per tick) from /proc/<pid>/stat; 0: not reported.");
ABSL_FLAG(std::int64_t, core_ticks, 600,
          "game: ticks run on the core in process, for its CPU per tick "
          "(twice: back to back, then paced as the served rooms are).");

namespace {

using sator::Client;
using sator::bench::LoadOptions;
using sator::bench::LoadResult;
using sator::bench::RunLoad;
namespace sc = sator::client;

struct Run {
  std::string mode;
  LoadResult result;
  // Work items per RPC (queries per batch, poses per update), for rates.
  double items_per_op = 1.0;
  // The same rays answered in process (raybatch and batch, --core_rays):
  // the mean rate of a run before the load and one after, and how far the
  // two differ over that mean.
  std::optional<sator::bench::CoreRayRate> core;
  double core_spread = 0.0;
};

// Adds one round's result to the run's.
void Accumulate(const LoadResult& part, LoadResult* total) {
  if (part.cpu_seconds.has_value()) {
    total->cpu_seconds = total->cpu_seconds.value_or(0.0) + *part.cpu_seconds;
  }
  total->latency.Merge(part.latency);
  total->errors += part.errors;
  if (total->first_error.empty()) total->first_error = part.first_error;
  total->seconds += part.seconds;
  total->ops_per_second =
      total->seconds > 0.0
          ? static_cast<double>(total->latency.count()) / total->seconds
          : 0.0;
}

double Us(std::int64_t nanoseconds) {
  return static_cast<double>(nanoseconds) / 1000.0;
}

// Pseudo-random but reproducible queries that start inside the world and
// mostly hit something.
class QueryMaker {
 public:
  explicit QueryMaker(std::uint64_t seed, double world)
      : random_(seed), world_(static_cast<float>(world)) {}

  sc::RaycastQuery Ray() {
    sc::RaycastQuery ray;
    ray.origin = sator::Vec3{Coord(), Coord(), Coord()};
    ray.direction = sator::Vec3{Unit(), Unit(), Unit() + 0.01f};
    ray.max_distance = 100.0f;
    return ray;
  }
  sator::Pose3 Pose() { return {{Coord(), Coord(), Coord()}, {}}; }

 private:
  float Coord() {
    return std::uniform_real_distribution<float>(0.0f, world_)(random_);
  }
  float Unit() {
    return std::uniform_real_distribution<float>(-1.0f, 1.0f)(random_);
  }
  std::mt19937_64 random_;
  float world_;
};

// The scene's static boxes, drawn from `seed` (the same for satord's scene
// and the in-process reference).
std::vector<sator::bench::SceneBox> MakeSceneBoxes(int bodies, double world,
                                                   std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> coord(0.0f, static_cast<float>(world));
  std::uniform_real_distribution<float> half(0.25f, 2.0f);
  std::vector<sator::bench::SceneBox> boxes;
  boxes.reserve(static_cast<std::size_t>(std::max(bodies, 0)));
  for (int id = 0; id < bodies; ++id) {
    sator::bench::SceneBox box;
    // Braced lists evaluate left to right.
    box.half_extents = sator::Vec3{half(random), half(random), half(random)};
    box.position = sator::Vec3{coord(random), coord(random), coord(random)};
    boxes.push_back(box);
  }
  return boxes;
}

constexpr int kUploadChunk = 10000;

absl::Status BuildScene(Client& client, const std::string& scene_id,
                        const std::vector<sator::bench::SceneBox>& boxes) {
  sc::SceneSettings settings;
  settings.dimension = sc::Dimension::k3D;
  absl::StatusOr<sc::SceneInfo> created =
      client.CreateScene(scene_id, settings);
  if (!created.ok()) return created.status();
  const int bodies = static_cast<int>(boxes.size());
  for (int first = 0; first < bodies; first += kUploadChunk) {
    std::vector<sc::Body> chunk;
    for (int id = first; id < std::min(bodies, first + kUploadChunk); ++id) {
      const sator::bench::SceneBox& box = boxes[static_cast<std::size_t>(id)];
      sc::Body body;
      body.id = static_cast<std::uint64_t>(id) + 1;
      body.shape = sator::Shape3{sator::Box3{box.half_extents}};
      body.pose = sator::Pose3{box.position, {}};
      body.motion = sc::MotionType::kStatic;
      chunk.push_back(std::move(body));
    }
    sator::CallOptions call;
    call.deadline = absl::Seconds(60);
    absl::StatusOr<sc::UpsertBodiesResult> upserted =
        client.UpsertBodies(scene_id, chunk, call);
    if (!upserted.ok()) return upserted.status();
  }
  return absl::OkStatus();
}

// The serialized size of the request a mode sends, so that Ping can carry
// the same number of bytes.
std::size_t RequestBytes(const std::string& mode, int batch_size,
                         int poses_per_update) {
  sator::v1::RaycastQuery ray;
  for (auto* v : {ray.mutable_origin(), ray.mutable_direction()}) {
    v->set_x(123.456f);
    v->set_y(234.567f);
    v->set_z(345.678f);
  }
  ray.set_max_distance(100.0f);
  if (mode == "batch") {
    sator::v1::QueryBatchRequest request;
    request.set_scene_id(absl::GetFlag(FLAGS_scene));
    for (int i = 0; i < batch_size; ++i) {
      *request.add_queries()->mutable_raycast() = ray;
    }
    return request.ByteSizeLong();
  }
  if (mode == "raybatch") {
    sator::v1::RaycastBatchRequest request;
    request.set_scene_id(absl::GetFlag(FLAGS_scene));
    request.set_dimension(sator::v1::DIMENSION_3D);
    for (int i = 0; i < batch_size; ++i) {
      for (float v : {123.456f, 234.567f, 345.678f}) {
        request.add_origins(v);
        request.add_directions(v);
      }
    }
    request.add_max_distances(100.0f);
    return request.ByteSizeLong();
  }
  if (mode == "session") {
    sator::v1::SessionRequest request;
    request.set_sequence(1000000);
    auto* poses = request.mutable_poses();
    poses->set_tick(1000000);
    for (int i = 0; i < poses_per_update; ++i) {
      poses->mutable_poses()->add_body_ids(100000 + i);
      for (int k = 0; k < 3; ++k) poses->mutable_poses()->add_positions(1.5f);
      for (int k = 0; k < 4; ++k) poses->mutable_poses()->add_rotations(0.5f);
    }
    return request.ByteSizeLong();
  }
  sator::v1::RaycastRequest request;
  request.set_scene_id(absl::GetFlag(FLAGS_scene));
  *request.mutable_query() = ray;
  return request.ByteSizeLong();
}

// What the run cost satord and how that compares with the core in process:
// satord's cores busy, work items per second of satord's CPU, the in-process
// rays per CPU second and the share of it satord reaches per core.
std::vector<std::pair<std::string, double>> ServerFigures(const Run& run) {
  std::vector<std::pair<std::string, double>> figures;
  const double items =
      static_cast<double>(run.result.latency.count()) * run.items_per_op;
  const std::optional<double>& cpu = run.result.cpu_seconds;
  double per_server_core = 0.0;
  if (cpu.has_value() && *cpu > 0.0 && run.result.seconds > 0.0) {
    per_server_core = items / *cpu;
    figures.emplace_back("satord_cpu_cores", *cpu / run.result.seconds);
    figures.emplace_back("items_per_satord_cpu_second", per_server_core);
  }
  if (run.core.has_value()) {
    figures.emplace_back("core_rays", static_cast<double>(run.core->rays));
    figures.emplace_back("core_rays_per_cpu_second",
                         run.core->rays_per_cpu_second);
    figures.emplace_back("core_spread", run.core_spread);
    if (per_server_core > 0.0 && run.core->rays_per_cpu_second > 0.0) {
      figures.emplace_back("share_of_core",
                           per_server_core / run.core->rays_per_cpu_second);
    }
  }
  return figures;
}

void Print(const Run& run, const Run* ping, const LoadOptions& load) {
  const sator::bench::LatencyHistogram& h = run.result.latency;
  if (absl::GetFlag(FLAGS_json)) {
    std::string line = absl::StrCat(
        "{\"mode\":\"", run.mode, "\",\"loop\":\"",
        load.open_loop ? "open" : "closed",
        "\",\"concurrency\":", load.concurrency,
        ",\"rate\":", load.open_loop ? load.rate : 0.0,
        ",\"seconds\":", run.result.seconds, ",\"ops\":", h.count(),
        ",\"errors\":", run.result.errors,
        ",\"qps\":", run.result.ops_per_second,
        ",\"items_per_second\":", run.result.ops_per_second * run.items_per_op,
        ",\"p50_us\":", Us(h.ValueAtQuantile(0.5)),
        ",\"p90_us\":", Us(h.ValueAtQuantile(0.9)),
        ",\"p99_us\":", Us(h.ValueAtQuantile(0.99)),
        ",\"p999_us\":", Us(h.ValueAtQuantile(0.999)),
        ",\"max_us\":", Us(h.max()));
    for (const auto& [name, value] : ServerFigures(run)) {
      absl::StrAppend(&line, ",\"", name, "\":", value);
    }
    if (ping != nullptr) {
      const auto& p = ping->result.latency;
      const std::optional<double>& ping_cpu = ping->result.cpu_seconds;
      if (ping_cpu.has_value() && *ping_cpu > 0.0) {
        absl::StrAppend(&line, ",\"ping_per_satord_cpu_second\":",
                        static_cast<double>(p.count()) / *ping_cpu);
      }
      absl::StrAppend(&line, ",\"ping_qps\":", ping->result.ops_per_second,
                      ",\"ping_p50_us\":", Us(p.ValueAtQuantile(0.5)),
                      ",\"ping_p99_us\":", Us(p.ValueAtQuantile(0.99)),
                      ",\"ping_p999_us\":", Us(p.ValueAtQuantile(0.999)),
                      ",\"p50_ratio_to_ping\":",
                      p.ValueAtQuantile(0.5) > 0
                          ? static_cast<double>(h.ValueAtQuantile(0.5)) /
                                static_cast<double>(p.ValueAtQuantile(0.5))
                          : 0.0);
    }
    absl::StrAppend(&line, "}");
    std::printf("%s\n", line.c_str());
    return;
  }
  auto row = [](const Run& r) {
    const auto& l = r.result.latency;
    std::printf(
        "%-10s %9.0f ops/s %12.0f items/s  p50 %8.1f  p90 %8.1f  p99 %8.1f  "
        "p99.9 %8.1f us  errors %lld\n",
        r.mode.c_str(), r.result.ops_per_second,
        r.result.ops_per_second * r.items_per_op, Us(l.ValueAtQuantile(0.5)),
        Us(l.ValueAtQuantile(0.9)), Us(l.ValueAtQuantile(0.99)),
        Us(l.ValueAtQuantile(0.999)), static_cast<long long>(r.result.errors));
    if (!r.result.first_error.empty()) {
      std::printf("           first error: %s\n", r.result.first_error.c_str());
    }
  };
  row(run);
  for (const auto& [name, value] : ServerFigures(run)) {
    std::printf("           %s %.4g\n", name.c_str(), value);
  }
  if (ping != nullptr) {
    row(*ping);
    const double ratio = static_cast<double>(h.ValueAtQuantile(0.5)) /
                         static_cast<double>(std::max<std::int64_t>(
                             1, ping->result.latency.ValueAtQuantile(0.5)));
    std::printf("p50 ratio to Ping: %.3f\n", ratio);
  }
}

// The game mode's options from the flags; nullopt (after saying why) for a
// bad value.
std::optional<sator::bench::GameOptions> GameOptionsFromFlags() {
  sator::bench::GameOptions game;
  const std::string rooms = absl::GetFlag(FLAGS_rooms);
  if (rooms == "max") {
    game.rooms = 0;
  } else if (!absl::SimpleAtoi(rooms, &game.rooms) || game.rooms < 1) {
    std::fprintf(stderr, "sator-bench: --rooms must be a count >= 1 or max\n");
    return std::nullopt;
  }
  const std::string transport = absl::GetFlag(FLAGS_game_transport);
  if (transport == "session") {
    game.transport = sator::bench::GameTransport::kSession;
  } else if (transport == "batch") {
    game.transport = sator::bench::GameTransport::kBatch;
  } else {
    std::fprintf(stderr,
                 "sator-bench: --game_transport must be session or batch\n");
    return std::nullopt;
  }
  game.scene_prefix = absl::GetFlag(FLAGS_scene);
  game.seed = absl::GetFlag(FLAGS_seed);
  game.max_rooms = absl::GetFlag(FLAGS_max_rooms);
  game.duration = absl::GetFlag(FLAGS_duration);
  game.warmup = absl::GetFlag(FLAGS_warmup);
  game.step_duration = absl::GetFlag(FLAGS_step_duration);
  game.step_warmup = absl::GetFlag(FLAGS_step_warmup);
  game.tick_budget = absl::GetFlag(FLAGS_tick_budget);
  game.satord_pid = absl::GetFlag(FLAGS_satord_pid);
  game.core_ticks = std::max<std::int64_t>(1, absl::GetFlag(FLAGS_core_ticks));
  game.json = absl::GetFlag(FLAGS_json);
  return game;
}

// The tool itself; main() turns an escaping exception into an error exit.
int RunTool(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Load generator for satord. Usage: sator-bench --target=HOST:PORT "
      "[--mode=unary|batch|raybatch|session|game] [--loop=closed|open] "
      "[--json]");
  absl::ParseCommandLine(argc, argv);
  const std::string mode = absl::GetFlag(FLAGS_mode);
  const std::string loop = absl::GetFlag(FLAGS_loop);
  if (mode != "unary" && mode != "batch" && mode != "raybatch" &&
      mode != "session" && mode != "game") {
    std::fprintf(stderr,
                 "sator-bench: --mode must be unary, batch, raybatch, session "
                 "or game\n");
    return 2;
  }
  std::optional<sator::bench::GameOptions> game;
  if (mode == "game") {
    game = GameOptionsFromFlags();
    if (!game.has_value()) return 2;
  }
  if (loop != "closed" && loop != "open") {
    std::fprintf(stderr, "sator-bench: --loop must be closed or open\n");
    return 2;
  }
  LoadOptions load;
  load.open_loop = loop == "open";
  load.concurrency = std::max(1, absl::GetFlag(FLAGS_concurrency));
  load.cpu_pid = absl::GetFlag(FLAGS_satord_pid);
  if (load.cpu_pid != 0 &&
      !sator::bench::ProcessCpuSeconds(load.cpu_pid).has_value()) {
    std::fprintf(stderr,
                 "sator-bench: --satord_pid=%d: no such process to read "
                 "(/proc/%d/stat); satord must run on this machine\n",
                 load.cpu_pid, load.cpu_pid);
    return 2;
  }
  load.rate = absl::GetFlag(FLAGS_rate);
  load.duration = absl::GetFlag(FLAGS_duration);
  load.warmup = absl::GetFlag(FLAGS_warmup);

  sator::ClientOptions options;
  options.target = absl::GetFlag(FLAGS_target);
  options.async_threads = std::max(2, load.concurrency);
  // Measure, do not retry: an error must show as an error.
  options.retry.max_attempts = 1;
  absl::StatusOr<Client> made = Client::Make(options);
  if (!made.ok()) {
    std::fprintf(stderr, "sator-bench: %s\n", made.status().ToString().c_str());
    return 1;
  }
  Client& client = *made;
  if (game.has_value()) return sator::bench::RunGameMode(client, *game);
  const std::string scene = absl::GetFlag(FLAGS_scene);
  const std::uint64_t seed = absl::GetFlag(FLAGS_seed);
  const double world = absl::GetFlag(FLAGS_world_size);

  const bool keep_scene = absl::GetFlag(FLAGS_keep_scene);
  if (mode != "session" &&
      (!keep_scene || absl::IsNotFound(client.GetScene(scene).status()))) {
    if (!keep_scene) (void)client.DeleteScene(scene);
    const absl::Time started = absl::Now();
    if (absl::Status built = BuildScene(
            client, scene,
            MakeSceneBoxes(absl::GetFlag(FLAGS_bodies), world, seed));
        !built.ok()) {
      std::fprintf(stderr, "sator-bench: building the scene: %s\n",
                   built.ToString().c_str());
      return 1;
    }
    if (!absl::GetFlag(FLAGS_json)) {
      std::printf("scene %s: %d boxes uploaded in %.2f s\n", scene.c_str(),
                  absl::GetFlag(FLAGS_bodies),
                  absl::ToDoubleSeconds(absl::Now() - started));
    }
  }

  std::vector<QueryMaker> makers;
  makers.reserve(load.concurrency);
  for (int w = 0; w < load.concurrency; ++w) {
    makers.emplace_back(seed * 7919 + static_cast<std::uint64_t>(w), world);
  }

  Run run;
  run.mode = mode;
  // The mode's operation, and what to undo after the run.
  sator::bench::Operation operation;
  std::function<void()> cleanup;
  // What the operations use; alive until the last round ends.
  std::vector<std::string> kinds;
  std::vector<std::uint64_t> turn(static_cast<std::size_t>(load.concurrency));
  const sator::Shape3 probe = sator::Sphere{1.0f};
  std::vector<std::unique_ptr<sc::Session>> sessions;
  std::vector<std::int64_t> ticks(static_cast<std::size_t>(load.concurrency),
                                  1);
  if (mode == "unary") {
    kinds =
        absl::StrSplit(absl::GetFlag(FLAGS_queries), ',', absl::SkipEmpty());
    for (const std::string& kind : kinds) {
      if (kind != "raycast" && kind != "overlap" && kind != "sweep" &&
          kind != "contacts") {
        std::fprintf(stderr, "sator-bench: unknown query kind %s\n",
                     kind.c_str());
        return 2;
      }
    }
    operation = [&](int worker) -> absl::Status {
      QueryMaker& maker = makers[static_cast<std::size_t>(worker)];
      const std::string& kind =
          kinds[turn[static_cast<std::size_t>(worker)]++ % kinds.size()];
      absl::StatusOr<sc::QueryResult> result;
      if (kind == "raycast") {
        result = client.Raycast(scene, maker.Ray());
      } else if (kind == "overlap") {
        result = client.Overlap(scene, {probe, maker.Pose()});
      } else if (kind == "contacts") {
        result = client.Contacts(scene, {probe, maker.Pose()});
      } else {
        result = client.Sweep(
            scene, {probe, maker.Pose(), sator::Vec3{10.0f, 0.0f, 0.0f}});
      }
      return result.status();
    };
  } else if (mode == "batch") {
    const int batch_size = std::max(1, absl::GetFlag(FLAGS_batch_size));
    run.items_per_op = batch_size;
    operation = [&, batch_size](int worker) -> absl::Status {
      QueryMaker& maker = makers[static_cast<std::size_t>(worker)];
      std::vector<sc::Query> queries(static_cast<std::size_t>(batch_size));
      for (sc::Query& query : queries) query.kind = maker.Ray();
      absl::StatusOr<std::vector<sc::BatchEntry>> entries =
          client.QueryBatch(scene, queries);
      if (!entries.ok()) return entries.status();
      for (const sc::BatchEntry& entry : *entries) {
        if (!entry.ok()) return entry.status();
      }
      return absl::OkStatus();
    };
  } else if (mode == "raybatch") {
    const int batch_size = std::max(1, absl::GetFlag(FLAGS_batch_size));
    run.items_per_op = batch_size;
    operation = [&, batch_size](int worker) -> absl::Status {
      QueryMaker& maker = makers[static_cast<std::size_t>(worker)];
      std::vector<sc::RaycastQuery> rays(static_cast<std::size_t>(batch_size));
      for (sc::RaycastQuery& ray : rays) ray = maker.Ray();
      absl::StatusOr<sc::RaycastBatchResult> result =
          client.RaycastBatch(scene, rays);
      if (!result.ok()) return result.status();
      if (result->ray_count() != rays.size()) {
        return absl::InternalError("RaycastBatch: answers missing");
      }
      return absl::OkStatus();
    };
  } else {
    // One scene and one session per worker: pose updates need monotonic
    // ticks, which one writer per scene gives.
    const int poses = std::max(1, absl::GetFlag(FLAGS_poses_per_update));
    const int pipeline = std::max(1, absl::GetFlag(FLAGS_pipeline));
    run.items_per_op = static_cast<double>(poses) * pipeline;
    for (int w = 0; w < load.concurrency; ++w) {
      const std::string id = absl::StrCat(scene, "-s", w);
      (void)client.DeleteScene(id);
      sc::SceneSettings settings;
      settings.dimension = sc::Dimension::k3D;
      if (auto created = client.CreateScene(id, settings); !created.ok()) {
        std::fprintf(stderr, "sator-bench: %s\n",
                     created.status().ToString().c_str());
        return 1;
      }
      std::vector<sc::Body> bodies;
      for (int i = 0; i < poses; ++i) {
        sc::Body body;
        body.id = static_cast<std::uint64_t>(i) + 1;
        body.shape = sator::Shape3{sator::Sphere{0.5f}};
        body.pose = makers[static_cast<std::size_t>(w)].Pose();
        body.motion = sc::MotionType::kDynamic;
        bodies.push_back(std::move(body));
      }
      if (auto upserted = client.UpsertBodies(id, bodies); !upserted.ok()) {
        std::fprintf(stderr, "sator-bench: %s\n",
                     upserted.status().ToString().c_str());
        return 1;
      }
      absl::StatusOr<std::unique_ptr<sc::Session>> session =
          client.OpenSession(id);
      if (!session.ok()) {
        std::fprintf(stderr, "sator-bench: %s\n",
                     session.status().ToString().c_str());
        return 1;
      }
      sessions.push_back(*std::move(session));
    }
    operation = [&, poses, pipeline](int worker) -> absl::Status {
      const auto index = static_cast<std::size_t>(worker);
      QueryMaker& maker = makers[index];
      std::vector<std::future<absl::StatusOr<std::int64_t>>> replies;
      for (int k = 0; k < pipeline; ++k) {
        sc::PoseBatch batch;
        for (int i = 0; i < poses; ++i) {
          batch.Add(static_cast<std::uint64_t>(i) + 1, maker.Pose());
        }
        replies.push_back(
            sessions[index]->SubmitPoses(ticks[index]++, std::move(batch)));
      }
      absl::Status status;
      for (auto& reply : replies) {
        absl::StatusOr<std::int64_t> tick = reply.get();
        if (!tick.ok() && status.ok()) status = tick.status();
      }
      return status;
    };
    cleanup = [&] {
      for (auto& session : sessions) (void)session->Close();
      for (int w = 0; w < load.concurrency; ++w) {
        (void)client.DeleteScene(absl::StrCat(scene, "-s", w));
      }
    };
  }

  std::unique_ptr<Run> ping;
  const std::string payload(RequestBytes(mode, absl::GetFlag(FLAGS_batch_size),
                                         absl::GetFlag(FLAGS_poses_per_update)),
                            'x');
  const sator::bench::Operation ping_operation = [&](int) -> absl::Status {
    return client.Ping(payload).status();
  };
  if (absl::GetFlag(FLAGS_ping)) {
    ping = std::make_unique<Run>();
    ping->mode = "ping";
  }
  // The in-process reference (raybatch, batch): the workers' ray streams
  // again, batch by batch in turn, on a core scene built as satord's was;
  // run once before the load and once after it.
  std::unique_ptr<sator::scene::Scene3> core_scene;
  std::vector<sator::bench::CoreRay> core_ray_list;
  sator::bench::CoreRayRate core_before;
  const int core_rays = absl::GetFlag(FLAGS_core_rays);
  if ((mode == "raybatch" || mode == "batch") && core_rays > 0 &&
      load.cpu_pid > 0) {
    std::vector<QueryMaker> streams;
    streams.reserve(static_cast<std::size_t>(load.concurrency));
    for (int w = 0; w < load.concurrency; ++w) {
      streams.emplace_back(seed * 7919 + static_cast<std::uint64_t>(w), world);
    }
    const int batch_size = std::max(1, absl::GetFlag(FLAGS_batch_size));
    core_ray_list.reserve(static_cast<std::size_t>(core_rays));
    for (int i = 0; i < core_rays; ++i) {
      QueryMaker& stream = streams[static_cast<std::size_t>((i / batch_size) %
                                                            load.concurrency)];
      const sc::RaycastQuery ray = stream.Ray();
      core_ray_list.push_back({std::get<sator::Vec3>(ray.origin),
                               std::get<sator::Vec3>(ray.direction),
                               ray.max_distance});
    }
    absl::StatusOr<std::unique_ptr<sator::scene::Scene3>> built =
        sator::bench::BuildCoreScene(
            MakeSceneBoxes(absl::GetFlag(FLAGS_bodies), world, seed),
            kUploadChunk);
    absl::StatusOr<sator::bench::CoreRayRate> before =
        built.ok() ? sator::bench::RunCoreRays(**built, core_ray_list)
                   : absl::StatusOr<sator::bench::CoreRayRate>(built.status());
    if (!before.ok()) {
      std::fprintf(stderr, "sator-bench: the in-process rays: %s\n",
                   before.status().ToString().c_str());
      return 1;
    }
    core_scene = *std::move(built);
    core_before = *before;
  }
  // Rounds alternate the mode and Ping, so that a change in the machine's
  // load during the run hits both alike.
  const int rounds = std::max(1, absl::GetFlag(FLAGS_rounds));
  LoadOptions slice = load;
  slice.duration = load.duration / rounds;
  for (int round = 0; round < rounds; ++round) {
    slice.warmup = round == 0 ? load.warmup : absl::ZeroDuration();
    Accumulate(RunLoad(slice, operation), &run.result);
    if (ping != nullptr) {
      Accumulate(RunLoad(slice, ping_operation), &ping->result);
    }
  }
  if (cleanup) cleanup();
  if (core_scene != nullptr) {
    absl::StatusOr<sator::bench::CoreRayRate> after =
        sator::bench::RunCoreRays(*core_scene, core_ray_list);
    if (!after.ok()) {
      std::fprintf(stderr, "sator-bench: the in-process rays: %s\n",
                   after.status().ToString().c_str());
      return 1;
    }
    // The mean of the runs before and after the load.
    run.core = *after;
    run.core->rays_per_cpu_second =
        0.5 * (core_before.rays_per_cpu_second + after->rays_per_cpu_second);
    if (run.core->rays_per_cpu_second > 0.0) {
      run.core_spread = std::fabs(core_before.rays_per_cpu_second -
                                  after->rays_per_cpu_second) /
                        run.core->rays_per_cpu_second;
    }
  }
  Print(run, ping.get(), load);
  if (mode != "session" && !absl::GetFlag(FLAGS_keep_scene)) {
    (void)client.DeleteScene(scene);
  }
  return run.result.errors == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // std::thread, the containers and absl can throw (std::system_error,
  // std::bad_alloc); report it and exit non-zero instead of std::terminate.
  try {
    return RunTool(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", "sator-bench", error.what());
  } catch (...) {
    std::fprintf(stderr, "%s: unknown exception\n", "sator-bench");
  }
  return 2;
}

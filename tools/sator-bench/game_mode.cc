#include "tools/sator-bench/game_mode.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/sator-bench/game_core_room.h"
#include "tools/sator-bench/game_room.h"
#include "tools/sator-bench/game_step.h"

namespace sator::bench {
namespace {

double Us(std::int64_t nanoseconds) {
  return static_cast<double>(nanoseconds) / 1000.0;
}

const char* TransportName(GameTransport transport) {
  return transport == GameTransport::kSession ? "session" : "batch";
}

bool UnderBudget(const GameStepResult& step, absl::Duration budget) {
  return step.errors == 0 && !step.overran && step.latency.count() > 0 &&
         step.latency.ValueAtQuantile(0.99) <= absl::ToInt64Nanoseconds(budget);
}

std::optional<double> ServerUsPerTick(const GameStepResult& step) {
  if (!step.server_cpu_seconds.has_value() || step.ticks_sent == 0) {
    return std::nullopt;
  }
  return *step.server_cpu_seconds * 1e6 / static_cast<double>(step.ticks_sent);
}

// A part's mean CPU per tick of the in-process run, in microseconds.
double PerTickUs(std::int64_t nanoseconds, const CoreTiming& core) {
  return core.ticks > 0 ? Us(nanoseconds) / static_cast<double>(core.ticks)
                        : 0.0;
}

// The served rooms, made as a run first needs them and kept for later runs
// (a room's ticks go on from where its last run left them).
class RoomPool {
 public:
  RoomPool(Client& client, const GameOptions& options)
      : client_(client), options_(options) {}
  ~RoomPool() {
    for (auto& room : rooms_) room->Close();
  }
  RoomPool(const RoomPool&) = delete;
  RoomPool& operator=(const RoomPool&) = delete;

  absl::Status Ensure(int count) {
    while (static_cast<int>(rooms_.size()) < count) {
      const int r = static_cast<int>(rooms_.size());
      absl::StatusOr<std::unique_ptr<ServedRoom>> room = ServedRoom::Create(
          client_, absl::StrCat(options_.scene_prefix, "-game", r),
          RoomSeed(options_.seed, r), options_.transport);
      if (!room.ok()) {
        return absl::Status(
            room.status().code(),
            absl::StrCat("creating room ", r, ": ", room.status().message()));
      }
      rooms_.push_back(*std::move(room));
    }
    return absl::OkStatus();
  }
  const std::vector<std::unique_ptr<ServedRoom>>& rooms() const {
    return rooms_;
  }

 private:
  Client& client_;
  const GameOptions& options_;
  std::vector<std::unique_ptr<ServedRoom>> rooms_;
};

void PrintStep(const GameStepResult& step, const char* phase,
               const GameOptions& options) {
  const LatencyHistogram& h = step.latency;
  const double ticks_per_second =
      step.seconds > 0.0 ? static_cast<double>(h.count()) / step.seconds : 0.0;
  const std::optional<double> server = ServerUsPerTick(step);
  const double bench_cores = step.wall_seconds > 0.0
                                 ? step.bench_cpu_seconds / step.wall_seconds
                                 : 0.0;
  const bool under = UnderBudget(step, options.tick_budget);
  if (options.json) {
    std::string line = absl::StrCat(
        "{\"mode\":\"game\",\"phase\":\"", phase,
        "\",\"loop\":\"open\",\"transport\":\"",
        TransportName(options.transport), "\",\"rooms\":", step.rooms,
        ",\"players_per_room\":", kPlayersPerRoom,
        ",\"rate\":", kGameTickRate * step.rooms, ",\"seconds\":", step.seconds,
        ",\"ops\":", h.count(), ",\"errors\":", step.errors,
        ",\"qps\":", ticks_per_second, ",\"items_per_second\":",
        ticks_per_second * (kQueriesPerTick + kShotsPerTick),
        ",\"p50_us\":", Us(h.ValueAtQuantile(0.5)),
        ",\"p90_us\":", Us(h.ValueAtQuantile(0.9)),
        ",\"p99_us\":", Us(h.ValueAtQuantile(0.99)),
        ",\"p999_us\":", Us(h.ValueAtQuantile(0.999)),
        ",\"max_us\":", Us(h.max()),
        ",\"tick_budget_us\":", absl::ToDoubleMicroseconds(options.tick_budget),
        ",\"under_budget\":", under ? "true" : "false",
        ",\"overran\":", step.overran ? "true" : "false",
        ",\"ticks_sent\":", step.ticks_sent,
        ",\"bench_cpu_cores\":", bench_cores);
    if (server.has_value()) {
      absl::StrAppend(&line, ",\"server_cpu_us_per_tick\":", *server,
                      ",\"server_cpu_cores\":",
                      *step.server_cpu_seconds / step.wall_seconds);
    }
    if (!step.first_error.empty()) {
      // Status text may hold quotes; keep the JSON valid.
      std::string error = step.first_error;
      std::replace(error.begin(), error.end(), '"', '\'');
      std::replace(error.begin(), error.end(), '\\', '/');
      absl::StrAppend(&line, ",\"first_error\":\"", error, "\"");
    }
    absl::StrAppend(&line, "}");
    std::printf("%s\n", line.c_str());
  } else {
    std::printf(
        "%-7s rooms %4d  %7.0f ticks/s  p50 %8.1f  p99 %8.1f  max %8.1f us  "
        "%s  errors %lld",
        phase, step.rooms, ticks_per_second, Us(h.ValueAtQuantile(0.5)),
        Us(h.ValueAtQuantile(0.99)), Us(h.max()),
        under ? "within budget" : "OVER budget",
        static_cast<long long>(step.errors));
    if (server.has_value()) {
      std::printf("  satord %.1f us CPU/tick", *server);
    }
    std::printf("  load generator %.0f%% of a core%s\n", 100.0 * bench_cores,
                step.overran ? "  (fell behind; ticks dropped)" : "");
    if (!step.first_error.empty()) {
      std::printf("        first error: %s\n", step.first_error.c_str());
    }
  }
  std::fflush(stdout);
}

// `core` is the paced in-process run (the one compared), `hot` the one
// back to back.
void PrintSummary(const GameStepResult& step, bool searched, int max_rooms,
                  const CoreTiming& core, const CoreTiming& hot,
                  const GameOptions& options) {
  const LatencyHistogram& h = step.latency;
  const double core_us = core.cpu.count() > 0 ? core.cpu.mean() / 1000.0 : 0.0;
  const double hot_us = hot.cpu.count() > 0 ? hot.cpu.mean() / 1000.0 : 0.0;
  const std::optional<double> server = ServerUsPerTick(step);
  const double hits_per_tick = core.ticks > 0
                                   ? static_cast<double>(core.shot_hits) /
                                         static_cast<double>(core.ticks)
                                   : 0.0;
  if (options.json) {
    std::string line = absl::StrCat(
        "{\"mode\":\"game\",\"phase\":\"summary\",\"loop\":\"open\","
        "\"transport\":\"",
        TransportName(options.transport), "\",\"rooms\":", step.rooms,
        ",\"searched\":", searched ? "true" : "false");
    if (searched) absl::StrAppend(&line, ",\"max_rooms\":", max_rooms);
    absl::StrAppend(
        &line, ",\"players_per_room\":", kPlayersPerRoom,
        ",\"queries_per_tick\":", kQueriesPerTick,
        ",\"shots_per_tick\":", kShotsPerTick,
        ",\"tick_budget_us\":", absl::ToDoubleMicroseconds(options.tick_budget),
        ",\"under_budget\":",
        UnderBudget(step, options.tick_budget) ? "true" : "false",
        ",\"errors\":", step.errors + core.errors + hot.errors,
        ",\"ops\":", h.count(), ",\"p50_us\":", Us(h.ValueAtQuantile(0.5)),
        ",\"p99_us\":", Us(h.ValueAtQuantile(0.99)),
        ",\"max_us\":", Us(h.max()), ",\"core_rooms\":", core.rooms,
        ",\"core_ticks\":", core.ticks, ",\"core_cpu_us_per_tick\":", core_us,
        ",\"core_cpu_p50_us\":", Us(core.cpu.ValueAtQuantile(0.5)),
        ",\"core_cpu_p99_us\":", Us(core.cpu.ValueAtQuantile(0.99)),
        ",\"core_poses_us_per_tick\":", PerTickUs(core.parts.poses, core),
        ",\"core_contacts_us_per_tick\":", PerTickUs(core.parts.contacts, core),
        ",\"core_sweeps_us_per_tick\":", PerTickUs(core.parts.sweeps, core),
        ",\"core_shots_us_per_tick\":", PerTickUs(core.parts.shots, core),
        ",\"core_shot_hits_per_tick\":", hits_per_tick,
        ",\"core_hot_cpu_us_per_tick\":", hot_us);
    if (server.has_value()) {
      absl::StrAppend(&line, ",\"server_cpu_us_per_tick\":", *server);
      if (core_us > 0.0) {
        absl::StrAppend(&line,
                        ",\"server_to_core_cpu_ratio\":", *server / core_us);
      }
      if (hot_us > 0.0) {
        absl::StrAppend(&line,
                        ",\"server_to_hot_core_cpu_ratio\":", *server / hot_us);
      }
    }
    absl::StrAppend(&line, "}");
    std::printf("%s\n", line.c_str());
    return;
  }
  std::printf(
      "game rooms of %d players x %d hitboxes at 60 Hz; a tick: "
      "%d group poses, %d contacts, %d sweeps and %d shots (%s)\n",
      kPlayersPerRoom, kPartsPerPlayer, kPlayersPerRoom, kPlayersPerRoom,
      kPlayersPerRoom, kShotsPerTick,
      options.transport == GameTransport::kSession
          ? "all on the Session stream"
          : "poses and shots on the Session, queries as a QueryBatch");
  if (searched) {
    std::printf("most rooms with p99 tick <= %.1f ms: %d\n",
                absl::ToDoubleMilliseconds(options.tick_budget), max_rooms);
  }
  std::printf("at %d rooms: tick p50 %.1f us, p99 %.1f us, max %.1f us\n",
              step.rooms, Us(h.ValueAtQuantile(0.5)),
              Us(h.ValueAtQuantile(0.99)), Us(h.max()));
  std::printf(
      "in-process core, paced as served: %.1f us CPU per tick (p50 %.1f, "
      "p99 %.1f; %lld ticks over %d rooms; %.1f of %d shots hit)\n",
      core_us, Us(core.cpu.ValueAtQuantile(0.5)),
      Us(core.cpu.ValueAtQuantile(0.99)), static_cast<long long>(core.ticks),
      core.rooms, hits_per_tick, kShotsPerTick);
  std::printf(
      "  of which: poses %.1f, %d contacts %.1f, %d sweeps %.1f, %d shots "
      "%.1f us\n",
      PerTickUs(core.parts.poses, core), kPlayersPerRoom,
      PerTickUs(core.parts.contacts, core), kPlayersPerRoom,
      PerTickUs(core.parts.sweeps, core), kShotsPerTick,
      PerTickUs(core.parts.shots, core));
  std::printf("in-process core, back to back: %.1f us CPU per tick\n", hot_us);
  if (server.has_value() && core_us > 0.0 && hot_us > 0.0) {
    std::printf(
        "satord: %.1f us CPU per tick, %.2fx the paced core's (%.2fx the "
        "back-to-back core's)\n",
        *server, *server / core_us, *server / hot_us);
  } else {
    std::printf("satord's CPU per tick: pass --satord_pid\n");
  }
  for (const CoreTiming* run : {&core, &hot}) {
    if (run->errors > 0) {
      std::printf("in-process errors: %lld, first: %s\n",
                  static_cast<long long>(run->errors),
                  run->first_error.c_str());
    }
  }
}

}  // namespace

int RunGameMode(Client& client, const GameOptions& options) {
  RoomPool pool(client, options);
  auto run = [&](int rooms, absl::Duration warmup, absl::Duration duration,
                 const char* phase) -> std::optional<GameStepResult> {
    if (absl::Status made = pool.Ensure(rooms); !made.ok()) {
      std::fprintf(stderr, "sator-bench: %s\n", made.ToString().c_str());
      return std::nullopt;
    }
    GameStepResult step =
        RunGameStep(pool.rooms(), rooms, warmup, duration, options.satord_pid);
    PrintStep(step, phase, options);
    return step;
  };

  std::optional<GameStepResult> reported;
  int max_rooms = 0;
  const bool search = options.rooms <= 0;
  if (!search) {
    reported = run(options.rooms, options.warmup, options.duration, "fixed");
    if (!reported.has_value()) return 1;
  } else {
    // Doubling up to the first failure, then bisection: `good` passed,
    // `bad` failed (0: none yet). A step that fails is run once more and
    // fails only if both runs do, so one stall of a shared machine does
    // not end the search.
    auto passes = [&](int n) -> std::optional<bool> {
      for (int attempt = 0; attempt < 2; ++attempt) {
        std::optional<GameStepResult> step =
            run(n, options.step_warmup, options.step_duration,
                attempt == 0 ? "search" : "retry");
        if (!step.has_value()) return std::nullopt;
        if (UnderBudget(*step, options.tick_budget)) return true;
      }
      return false;
    };
    int good = 0;
    int bad = 0;
    const int limit = std::max(1, options.max_rooms);
    for (int n = 1;; n = std::min(2 * n, limit)) {
      const std::optional<bool> passed = passes(n);
      if (!passed.has_value()) return 1;
      if (!*passed) {
        bad = n;
        break;
      }
      good = n;
      if (n == limit) break;
    }
    while (bad > 0 && bad - good > 1) {
      const int mid = good + (bad - good) / 2;
      const std::optional<bool> passed = passes(mid);
      if (!passed.has_value()) return 1;
      if (*passed) {
        good = mid;
      } else {
        bad = mid;
      }
    }
    max_rooms = good;
    reported =
        run(std::max(1, good), options.warmup, options.duration, "confirm");
    if (!reported.has_value()) return 1;
  }

  const CoreTiming hot = RunCoreTicks(reported->rooms, options.core_ticks,
                                      options.seed, /*paced=*/false);
  const CoreTiming paced = RunCoreTicks(reported->rooms, options.core_ticks,
                                        options.seed, /*paced=*/true);
  PrintSummary(*reported, search, max_rooms, paced, hot, options);
  return reported->errors == 0 && hot.errors == 0 && paced.errors == 0 ? 0 : 1;
}

}  // namespace sator::bench

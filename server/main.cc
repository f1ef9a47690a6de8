// satord: the Sator collision-query server.
//
// Starts the gRPC services and the metrics endpoint, then waits for SIGTERM or
// SIGINT, on which it reports NOT_SERVING, drains in-flight calls within
// --drain_deadline and exits 0. Exits 1 if it cannot start (for example, a
// port in use).
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

// AddressSanitizer builds (GCC defines __SANITIZE_ADDRESS__; Clang answers
// __has_feature).
#if defined(__SANITIZE_ADDRESS__)
#define SATOR_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SATOR_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(SATOR_ADDRESS_SANITIZER)
#include <sanitizer/lsan_interface.h>
#endif

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "server/logging.h"
#include "server/overload/memory_trimmer.h"
#include "server/scenes/scene_ops.h"
#include "server/server.h"
#include "server/version.h"

ABSL_FLAG(std::string, grpc_address, "127.0.0.1:50051",
          "host:port to serve gRPC on; port 0 picks a free port.");
ABSL_FLAG(std::string, health_address, "",
          "host:port of an extra plaintext port that serves grpc.health.v1 "
          "only, for Kubernetes probes when --tls_cert_file is set; empty: "
          "none.");
ABSL_FLAG(std::string, metrics_address, "127.0.0.1:9464",
          "host:port to serve Prometheus /metrics on; empty disables it.");
ABSL_FLAG(std::string, log_level, "info",
          "Least severe log level written: debug, info, warning or error.");
ABSL_FLAG(absl::Duration, drain_deadline, absl::Seconds(10),
          "On SIGTERM, how long in-flight calls may run before they are "
          "cancelled.");
ABSL_FLAG(int, max_message_bytes, 4 << 20,
          "The largest gRPC message accepted or sent, in bytes.");
ABSL_FLAG(bool, reflection, true, "Serve gRPC server reflection.");
ABSL_FLAG(uint32_t, max_hull_points, 1024,
          "Most input points of one convex hull shape.");
ABSL_FLAG(uint32_t, max_mesh_triangles, 1u << 20,
          "Most triangles of one triangle mesh shape.");
ABSL_FLAG(uint32_t, max_mesh_vertices, 1u << 21,
          "Most vertices of one triangle mesh shape.");
ABSL_FLAG(uint32_t, max_level_edges, 1u << 20,
          "Most edges of one 2D level shape (polygon outlines, holes and "
          "chains together).");
ABSL_FLAG(int, max_scenes, 1000, "Most scenes hosted at once.");
ABSL_FLAG(int, max_bodies_per_scene, 1'000'000,
          "Most bodies in one scene (a scene may ask for fewer).");
ABSL_FLAG(int, max_history_ticks, 1024,
          "Most ticks of history a scene may keep.");
ABSL_FLAG(int, default_history_ticks, 64,
          "Ticks of history for a scene that does not say.");
ABSL_FLAG(int, max_hits, 4096, "Most hits one query may ask for.");
ABSL_FLAG(int, max_batch_queries, 10000,
          "Most queries in one QueryBatch, rays in one RaycastBatch, shots in "
          "one ValidateShots.");
ABSL_FLAG(int, max_sessions, 1000, "Most Session streams open at once.");
ABSL_FLAG(int, max_shot_verdict_watches, 256,
          "Most WatchShotVerdicts streams open at once.");
ABSL_FLAG(int, max_proximity_watches, 256,
          "Most WatchProximity streams open at once.");
ABSL_FLAG(int, max_zones_per_scene, 4096, "Most zones one scene may have.");
ABSL_FLAG(int, max_observers_per_scene, 65536,
          "Most observers (areas of interest) one scene may have.");
ABSL_FLAG(int, proximity_history, 1024,
          "Evaluations with events kept per scene, for WatchProximity "
          "subscribers that start from a tick or fall behind.");
ABSL_FLAG(int, proximity_watch_buffer, 256,
          "Evaluations a WatchProximity subscriber may fall behind before it "
          "gets a resync (at most --proximity_history).");
ABSL_FLAG(int, batch_threads, 1,
          "Threads one QueryBatch or RaycastBatch of at least "
          "--batch_parallel_min queries runs on (1 to 64; 1: sequential).");
ABSL_FLAG(int, batch_parallel_min, 256,
          "Queries a batch needs to run on --batch_threads threads.");
ABSL_FLAG(int, max_inflight_requests, 0,
          "Most unary calls in flight at once; beyond, calls are refused at "
          "once with RESOURCE_EXHAUSTED and a retry-after-ms hint. 0: 32 per "
          "hardware thread, in [64, 4096].");
ABSL_FLAG(absl::Duration, overload_retry_after, absl::Milliseconds(50),
          "The smallest pushback hint (grpc-retry-pushback-ms and "
          "retry-after-ms) sent with a shed call or session, at any load "
          "limit; it grows while most calls are shed.");
ABSL_FLAG(absl::Duration, max_queue_wait, sator::server::kDefaultMaxQueueWait,
          "Longest a unary call may wait, its request received, for a "
          "handler thread; a call that waited longer is refused with "
          "RESOURCE_EXHAUSTED and pushback. 0: no limit.");
ABSL_FLAG(std::int64_t, max_admitted_bytes,
          sator::server::kDefaultMaxAdmittedBytes,
          "Most bytes the parsed requests of the unary calls admitted may "
          "hold at once (each measured on its arena as it is admitted; "
          "responses are not counted); a call beyond is refused with "
          "RESOURCE_EXHAUSTED and pushback. 0: no limit.");
ABSL_FLAG(std::int64_t, grpc_memory_quota_bytes,
          sator::server::kDefaultGrpcMemoryQuotaBytes,
          "Memory gRPC's transport may use (a grpc::ResourceQuota): under "
          "pressure it offers clients smaller flow-control windows. 0: no "
          "quota.");
ABSL_FLAG(std::int64_t, max_scene_memory_bytes, -1,
          "Memory the hosted scenes may hold (bodies, trees, tick history, "
          "hulls and meshes); "
          "a CreateScene, UpsertBodies or ImportScene past it is refused "
          "with RESOURCE_EXHAUSTED. -1: half the container's cgroup memory "
          "limit, else half the physical memory; 0: no budget.");
ABSL_FLAG(int, max_concurrent_streams, 1024,
          "Most streams (calls) one HTTP/2 connection may have open at once "
          "(clients queue beyond it).");
ABSL_FLAG(uint32_t, max_batch_bodies, 100000,
          "Most bodies, ids or poses in one UpsertBodies, RemoveBodies, "
          "UpdatePoses or ImportScene request.");
ABSL_FLAG(std::string, tls_cert_file, "",
          "PEM certificate chain to serve gRPC over TLS (with "
          "--tls_key_file); empty serves plaintext.");
ABSL_FLAG(std::string, tls_key_file, "",
          "PEM private key of --tls_cert_file (unencrypted).");
ABSL_FLAG(std::string, tls_client_ca_file, "",
          "PEM CA certificates; if set, every client must present a "
          "certificate one of them signed (mutual TLS).");
ABSL_FLAG(std::string, auth_token_file, "",
          "Bearer tokens with roles, one '<role> <token> [<name>]' per line "
          "(roles: read, write, admin); if set, every sator.v1 call needs "
          "'authorization: Bearer <token>' metadata. See docs/OPERATIONS.md.");
ABSL_FLAG(std::string, data_dir, "",
          "Directory where scenes persist (write-ahead log and snapshots; "
          "see docs/OPERATIONS.md). Empty keeps them in memory only.");
ABSL_FLAG(bool, allow_recovery_loss, false,
          "With --data_dir: start even when recovery cannot apply some valid "
          "scenes or log records (they are then lost at the next snapshot). "
          "Off: satord refuses to start and leaves the data as it is.");
ABSL_FLAG(absl::Duration, snapshot_interval, absl::Seconds(30),
          "With --data_dir, time between snapshots of every scene (poses "
          "included); 0 writes one only on SIGTERM.");
ABSL_FLAG(absl::Duration, slow_query_threshold, absl::ZeroDuration(),
          "Log every scene query slower than this as one JSON line at "
          "warning level (event slow_query); 0 turns the log off.");
ABSL_FLAG(std::int64_t, shot_audit_size, 4096,
          "Shot verdicts kept per scene for ListShotVerdicts and "
          "WatchShotVerdicts (the oldest is overwritten, counted in "
          "sator_shot_audit_overwritten_total); 0 keeps none.");
ABSL_FLAG(int, shot_audit_files, 0,
          "With --data_dir: also append every scene's shot verdicts to JSON "
          "Lines files under <data_dir>/shot_audit/scene-<id>/, keeping this "
          "many files per scene (the oldest removed); 0 writes none.");
ABSL_FLAG(std::int64_t, shot_audit_file_bytes, std::int64_t{64} << 20,
          "With --shot_audit_files: a file is closed and the next begun "
          "before it would pass this size (at least 4096).");
ABSL_FLAG(std::int64_t, shot_audit_watch_buffer, 1024,
          "Verdicts a WatchShotVerdicts subscriber may fall behind before it "
          "skips ahead with a gap event (counted in "
          "sator_shot_audit_dropped_total); at most --shot_audit_size.");
ABSL_FLAG(bool, debug_pages, false,
          "Serve the read-only scene viewer (/debug/scenes) on the metrics "
          "address and record the last queries it draws.");
ABSL_FLAG(std::string, port_file, "",
          "If set, once serving, write the bound ports to this file as "
          "{\"grpc_port\":N,\"metrics_port\":M,\"health_port\":H} (for "
          "tests and tools that start satord on port 0).");

namespace {

using sator::server::Log;
using sator::server::LogLevel;

bool WritePortFile(const std::string& path, int grpc_port, int metrics_port,
                   int health_port) {
  // Write then rename, so a reader never sees half a file.
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << "{\"grpc_port\":" << grpc_port
        << ",\"metrics_port\":" << metrics_port
        << ",\"health_port\":" << health_port << "}\n";
    if (!out.good()) return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread allocates: large buffers mapped on their own, so that
  // satord's memory falls back after a flood (memory_trimmer.h).
  sator::server::ConfigureMalloc();
  // Block the stop signals before gRPC starts any thread, so every thread
  // inherits the mask and only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  absl::FlagsUsageConfig usage_config;
  usage_config.version_string = [] {
    return absl::StrCat("satord ", sator::server::kVersion, " (",
                        sator::server::kRevision, ")\n");
  };
  absl::SetFlagsUsageConfig(usage_config);
  absl::SetProgramUsageMessage(
      "Sator collision-query server. Usage: satord [--flags]");
  absl::ParseCommandLine(argc, argv);

  absl::StatusOr<LogLevel> level =
      sator::server::ParseLogLevel(absl::GetFlag(FLAGS_log_level));
  if (!level.ok()) {
    std::fprintf(stderr, "satord: --log_level: %s\n",
                 std::string(level.status().message()).c_str());
    return 1;
  }
  sator::server::SetMinLogLevel(*level);

  sator::server::ServerOptions options;
  options.grpc_address = absl::GetFlag(FLAGS_grpc_address);
  options.metrics_address = absl::GetFlag(FLAGS_metrics_address);
  options.health_address = absl::GetFlag(FLAGS_health_address);
  options.drain_deadline = absl::GetFlag(FLAGS_drain_deadline);
  options.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  options.enable_reflection = absl::GetFlag(FLAGS_reflection);
  options.slow_query_threshold = absl::GetFlag(FLAGS_slow_query_threshold);
  options.debug_pages = absl::GetFlag(FLAGS_debug_pages);
  options.shape_limits.max_hull_points = absl::GetFlag(FLAGS_max_hull_points);
  options.shape_limits.max_mesh_triangles =
      absl::GetFlag(FLAGS_max_mesh_triangles);
  options.shape_limits.max_level_edges = absl::GetFlag(FLAGS_max_level_edges);
  options.shape_limits.max_mesh_vertices =
      absl::GetFlag(FLAGS_max_mesh_vertices);
  options.scene_limits.max_scenes = absl::GetFlag(FLAGS_max_scenes);
  options.scene_limits.max_bodies_per_scene =
      absl::GetFlag(FLAGS_max_bodies_per_scene);
  options.scene_limits.max_history_ticks =
      absl::GetFlag(FLAGS_max_history_ticks);
  options.scene_limits.default_history_ticks =
      absl::GetFlag(FLAGS_default_history_ticks);
  options.scene_limits.max_hits = absl::GetFlag(FLAGS_max_hits);
  options.query_limits.max_batch_queries =
      absl::GetFlag(FLAGS_max_batch_queries);
  options.query_limits.max_sessions = absl::GetFlag(FLAGS_max_sessions);
  options.query_limits.max_shot_verdict_watches =
      absl::GetFlag(FLAGS_max_shot_verdict_watches);
  if (options.query_limits.max_batch_queries < 1 ||
      options.query_limits.max_sessions < 1 ||
      options.query_limits.max_shot_verdict_watches < 1) {
    std::fprintf(stderr,
                 "satord: --max_batch_queries, --max_sessions and "
                 "--max_shot_verdict_watches must be positive\n");
    return 1;
  }
  options.batch_threads = absl::GetFlag(FLAGS_batch_threads);
  options.batch_parallel_min = absl::GetFlag(FLAGS_batch_parallel_min);
  if (options.batch_threads < 1 || options.batch_threads > 64 ||
      options.batch_parallel_min < 1) {
    std::fprintf(stderr,
                 "satord: --batch_threads must be in [1, 64] and "
                 "--batch_parallel_min positive\n");
    return 1;
  }
  options.max_batch_bodies = absl::GetFlag(FLAGS_max_batch_bodies);
  if (const int inflight = absl::GetFlag(FLAGS_max_inflight_requests);
      inflight != 0) {
    options.max_inflight_requests = inflight;
  }
  options.overload_retry_after = absl::GetFlag(FLAGS_overload_retry_after);
  options.max_concurrent_streams = absl::GetFlag(FLAGS_max_concurrent_streams);
  options.max_queue_wait = absl::GetFlag(FLAGS_max_queue_wait);
  options.max_admitted_bytes = absl::GetFlag(FLAGS_max_admitted_bytes);
  options.grpc_memory_quota_bytes =
      absl::GetFlag(FLAGS_grpc_memory_quota_bytes);
  options.max_scene_memory_bytes = absl::GetFlag(FLAGS_max_scene_memory_bytes);
  if (options.max_scene_memory_bytes < 0) {
    options.max_scene_memory_bytes = sator::server::DefaultSceneMemoryBytes();
  }
  if (options.max_inflight_requests < 1 || options.max_concurrent_streams < 1 ||
      options.overload_retry_after < absl::Milliseconds(1) ||
      options.max_queue_wait < absl::ZeroDuration() ||
      options.max_admitted_bytes < 0 || options.grpc_memory_quota_bytes < 0) {
    std::fprintf(stderr,
                 "satord: --max_inflight_requests must be >= 0 (0: the "
                 "default), --max_concurrent_streams positive, "
                 "--overload_retry_after at least 1ms, and --max_queue_wait, "
                 "--max_admitted_bytes and --grpc_memory_quota_bytes not "
                 "negative\n");
    return 1;
  }
  options.security.tls_cert_file = absl::GetFlag(FLAGS_tls_cert_file);
  options.security.tls_key_file = absl::GetFlag(FLAGS_tls_key_file);
  options.security.tls_client_ca_file = absl::GetFlag(FLAGS_tls_client_ca_file);
  options.security.auth_token_file = absl::GetFlag(FLAGS_auth_token_file);
  options.data_dir = absl::GetFlag(FLAGS_data_dir);
  options.snapshot_interval = absl::GetFlag(FLAGS_snapshot_interval);
  options.allow_recovery_loss = absl::GetFlag(FLAGS_allow_recovery_loss);
  if (absl::Status limits =
          sator::server::ValidateSceneLimits(options.scene_limits);
      !limits.ok()) {
    std::fprintf(stderr, "satord: %s\n", std::string(limits.message()).c_str());
    return 1;
  }
  options.max_proximity_watches = absl::GetFlag(FLAGS_max_proximity_watches);
  options.proximity.max_zones = absl::GetFlag(FLAGS_max_zones_per_scene);
  options.proximity.max_observers =
      absl::GetFlag(FLAGS_max_observers_per_scene);
  const int proximity_history = absl::GetFlag(FLAGS_proximity_history);
  const int proximity_watch_buffer =
      absl::GetFlag(FLAGS_proximity_watch_buffer);
  if (options.max_proximity_watches < 1 || proximity_history < 1 ||
      proximity_watch_buffer < 1) {
    std::fprintf(stderr,
                 "satord: --max_proximity_watches, --proximity_history and "
                 "--proximity_watch_buffer must be positive\n");
    return 1;
  }
  options.proximity.history = static_cast<std::size_t>(proximity_history);
  options.proximity.watch_buffer =
      static_cast<std::uint64_t>(proximity_watch_buffer);
  if (absl::Status limits =
          sator::server::ValidateProximityLimits(options.proximity);
      !limits.ok()) {
    std::fprintf(stderr, "satord: %s\n", std::string(limits.message()).c_str());
    return 1;
  }
  const std::int64_t shot_audit_size = absl::GetFlag(FLAGS_shot_audit_size);
  const std::int64_t shot_audit_watch_buffer =
      absl::GetFlag(FLAGS_shot_audit_watch_buffer);
  if (shot_audit_size < 0 || shot_audit_size > (1 << 24)) {
    std::fprintf(stderr,
                 "satord: --shot_audit_size must be in [0, 16777216]\n");
    return 1;
  }
  if (shot_audit_watch_buffer < 1) {
    std::fprintf(stderr, "satord: --shot_audit_watch_buffer must be >= 1\n");
    return 1;
  }
  options.shot_audit_files = absl::GetFlag(FLAGS_shot_audit_files);
  options.shot_audit_file_bytes = absl::GetFlag(FLAGS_shot_audit_file_bytes);
  if (options.shot_audit_files < 0 || options.shot_audit_file_bytes < 4096) {
    std::fprintf(stderr,
                 "satord: --shot_audit_files must be >= 0 and "
                 "--shot_audit_file_bytes >= 4096\n");
    return 1;
  }
  options.shot_audit.ring_size = static_cast<std::size_t>(shot_audit_size);
  options.shot_audit.watch_buffer =
      static_cast<std::uint64_t>(shot_audit_watch_buffer);
  if (options.slow_query_threshold < absl::ZeroDuration()) {
    std::fprintf(stderr, "satord: --slow_query_threshold must be >= 0\n");
    return 1;
  }
  if (options.max_message_bytes <= 0) {
    std::fprintf(stderr, "satord: --max_message_bytes must be positive\n");
    return 1;
  }

  absl::StatusOr<std::unique_ptr<sator::server::Server>> server =
      sator::server::Server::Start(options);
  if (!server.ok()) {
    Log(LogLevel::kError, "start_failed",
        {{"error", server.status().message()}});
    return 1;
  }
  Log(LogLevel::kInfo, "listening",
      {{"version", sator::server::kVersion},
       {"grpc_address", options.grpc_address},
       {"grpc_port", static_cast<std::int64_t>((*server)->grpc_port())},
       {"metrics_address", options.metrics_address},
       {"metrics_port", static_cast<std::int64_t>((*server)->metrics_port())},
       {"data_dir", options.data_dir},
       {"health_port", static_cast<std::int64_t>((*server)->health_port())}});

  const std::string port_file = absl::GetFlag(FLAGS_port_file);
  if (!port_file.empty() &&
      !WritePortFile(port_file, (*server)->grpc_port(),
                     (*server)->metrics_port(), (*server)->health_port())) {
    Log(LogLevel::kError, "port_file_failed", {{"path", port_file}});
    return 1;
  }

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  Log(LogLevel::kInfo, "signal",
      {{"signal", signal_number == SIGTERM ? "SIGTERM" : "SIGINT"}});
  // A second signal during the drain (an impatient Ctrl-C) stops at once.
  std::thread([stop_signals] {
    int second = 0;
    sigwait(&stop_signals, &second);
    Log(LogLevel::kWarning, "drain_interrupted",
        {{"signal", second == SIGTERM ? "SIGTERM" : "SIGINT"}});
    std::_Exit(1);
  }).detach();
  // After a drain that finished, satord exits without stopping gRPC: the
  // port stays open, and sator.liveness SERVING, until the kernel closes it
  // at exit, so a liveness probe never meets a live satord that refuses it
  // (docs/DESIGN.md, "Liveness until exit"). Every call is done and the
  // final snapshot written; log lines are single write(2) calls, so nothing
  // is buffered. A drain that ran out its deadline stops gRPC first, to
  // cancel the calls still running before the final snapshot.
  if ((*server)->Drain()) {
    (*server)->LogStoppedWithoutShutdown();
#if defined(SATOR_ADDRESS_SANITIZER)
    // _Exit skips LeakSanitizer's check at exit; run it here (the server
    // and everything it holds is still reachable, so only real leaks show).
    __lsan_do_leak_check();
#endif
    std::_Exit(0);
  }
  (*server)->Shutdown();
  return 0;
}

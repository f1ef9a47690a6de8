// satord's server: the gRPC services, health, reflection and metrics, and the
// orderly shutdown that Kubernetes expects.
#ifndef SATOR_SERVER_SERVER_H_
#define SATOR_SERVER_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/convert/geometry_convert.h"
#include "server/audit/shot_audit.h"
#include "server/auth/server_credentials.h"
#include "server/metrics/query_metrics.h"
#include "server/overload/overload_limiter.h"
#include "server/proximity/proximity_hosts.h"
#include "server/query_service.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

struct ServerOptions {
  // host:port for gRPC; port 0 picks a free port (see Server::grpc_port).
  std::string grpc_address = "127.0.0.1:50051";
  // host:port of a plaintext port serving grpc.health.v1 only, for the
  // Kubernetes probes (which speak neither TLS nor tokens). It is a gRPC
  // server of its own, with its own transport memory quota, so a flood that
  // fills the main port's quota does not fail the probes; empty: none.
  std::string health_address;
  // host:port for /metrics; empty disables the endpoint.
  std::string metrics_address = "127.0.0.1:9464";
  // How long Shutdown waits for in-flight RPCs before cancelling them.
  absl::Duration drain_deadline = absl::Seconds(10);
  // The largest request or response message, in bytes.
  int max_message_bytes = 4 << 20;
  bool enable_reflection = true;
  // Record grpc_server_* metrics (off only to measure their cost).
  bool enable_grpc_metrics = true;
  // Log scene queries slower than this at warning level; 0 turns it off.
  absl::Duration slow_query_threshold = absl::ZeroDuration();
  // The per-scene audit ring of shot verdicts and its subscribers' lag.
  ShotAuditOptions shot_audit;
  // Zones and observers per scene, the evaluations kept for WatchProximity
  // subscribers, and how many streams may be open.
  ProximityLimits proximity;
  int max_proximity_watches = 256;
  // Serve the scene viewer (/debug/scenes) on the metrics port and record
  // the recent queries it draws.
  bool debug_pages = false;
  convert::ShapeLimits shape_limits;
  SceneLimits scene_limits;
  QueryServiceLimits query_limits;
  // Threads one QueryBatch or RaycastBatch of at least `batch_parallel_min`
  // queries runs on (1: the handler's thread alone; docs/DESIGN.md says why
  // that is the default).
  int batch_threads = 1;
  int batch_parallel_min = 256;
  // Bodies, ids or poses in one batch (RESOURCE_EXHAUSTED beyond).
  std::uint32_t max_batch_bodies = 100'000;
  // Load shedding (server/overload/overload_limiter.h): unary calls in
  // flight at once, the retry hint sent with a refusal, and the streams one
  // HTTP/2 connection may open at once.
  int max_inflight_requests = DefaultMaxInflightRequests();
  absl::Duration overload_retry_after = absl::Milliseconds(50);
  int max_concurrent_streams = 1024;
  // Admission: the longest a unary call may wait for a handler, and the
  // bytes the admitted unary calls may hold (0: no limit).
  absl::Duration max_queue_wait = kDefaultMaxQueueWait;
  std::int64_t max_admitted_bytes = kDefaultMaxAdmittedBytes;
  // The scene memory budget (--max_scene_memory_bytes; 0: none).
  std::int64_t max_scene_memory_bytes = 0;
  // The memory gRPC's transport may use (grpc::ResourceQuota; 0: gRPC's
  // default, no limit).
  std::int64_t grpc_memory_quota_bytes = kDefaultGrpcMemoryQuotaBytes;
  // TLS, mutual TLS and bearer tokens (server/auth/); all off by default.
  auth::SecurityOptions security;
  // Where scenes persist (write-ahead log and snapshots); empty keeps them in
  // memory only. Start restores the scenes found there before serving.
  std::string data_dir;
  // With a data_dir: the audit trail also in JSON Lines files under
  // <data_dir>/shot_audit (ShotAuditFiles), this many files kept per scene
  // (0: no files), each rotated before it passes shot_audit_file_bytes.
  int shot_audit_files = 0;
  std::int64_t shot_audit_file_bytes = std::int64_t{64} << 20;
  // Time between periodic snapshots with a data_dir; zero or less: only the
  // one written on Shutdown.
  absl::Duration snapshot_interval = absl::Seconds(30);
  // When recovery finds valid scenes or log records it cannot apply (for
  // example after --max_scenes was lowered), Start refuses to serve, since
  // the next snapshot would drop them for good. True starts anyway, giving
  // them up.
  bool allow_recovery_loss = false;
};

class Server {
 public:
  // Restores the scenes of options.data_dir (if set), then binds both ports
  // and starts serving, so readiness means recovered. A port already in use
  // is an UNAVAILABLE error naming the address; a bad TLS or token file is an
  // error naming the flag and file (see auth::MakeListeningCredentials); a
  // data directory that cannot be used (I/O error, held by another process,
  // unknown format version) is the error recovery returned.
  static absl::StatusOr<std::unique_ptr<Server>> Start(
      const ServerOptions& options);

  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int grpc_port() const;
  // The --health_address port; 0 if there is none.
  int health_port() const;
  int metrics_port() const;

  // The hosted scenes (for in-process tools and tests).
  SceneRegistry& scenes();

  // The sator_* query, pose and session metrics (and slow-query log) that
  // the query paths report to.
  QueryMetrics& query_metrics();

  // The first half of Shutdown, with gRPC still serving: reports
  // NOT_SERVING on every readiness name (sator.liveness stays SERVING),
  // refuses new calls with UNAVAILABLE and lets the calls in flight finish
  // until the drain deadline. If they all did, it writes the final snapshot
  // (with a data_dir) and returns true: nothing is left to do but exit, and a
  // process that exits now has answered liveness with SERVING throughout.
  // False if calls were still running at the deadline (Shutdown cancels
  // them, then writes the snapshot). Idempotent.
  bool Drain();

  // Drain, then stops gRPC (cancelling the calls that outlived the drain
  // deadline, closing every connection), logs "stopped" and, with a data_dir,
  // writes the final snapshot if Drain did not. Idempotent.
  void Shutdown();

  // Logs the "stopped" event Shutdown would, for a process that exits after
  // a successful Drain without stopping gRPC (server/main.cc).
  void LogStoppedWithoutShutdown() const;

  // Blocks until the server has shut down.
  void Wait();

 private:
  class Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  void WriteFinalSnapshot();

  std::unique_ptr<Impl> impl_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_SERVER_H_

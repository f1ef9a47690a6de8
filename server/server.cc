#include "server/server.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpc/grpc.h"
#include "grpc/health/v1/health.pb.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/resource_quota.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"
#include "sator/v1/body_service.grpc.pb.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "sator/v1/scene_service.grpc.pb.h"
#include "server/auth/auth_metrics.h"
#include "server/auth/reflection_switch.h"
#include "server/body_service.h"
#include "server/debug/recent_queries.h"
#include "server/debug/scene_pages.h"
#include "server/durability/scene_persistence.h"
#include "server/logging.h"
#include "server/metrics/durability_metrics.h"
#include "server/metrics/grpc_metrics.h"
#include "server/metrics/registry.h"
#include "server/overload/memory_trimmer.h"
#include "server/overload/queued_call.h"
#include "server/proximity/proximity_ops.h"
#include "server/proximity_service.h"
#include "server/query_service.h"
#include "server/scene_service.h"
#include "server/scenes/scene_ops.h"

namespace sator::server {
namespace {

// Health service names. Readiness names go NOT_SERVING when shutdown begins;
// the liveness name stays SERVING until the process exits, so a draining pod
// is taken out of rotation without being restarted.
constexpr char kLivenessService[] = "sator.liveness";
constexpr char kReadinessService[] = "sator.readiness";

// The memory gRPC's transport may use on the --health_address port: a
// quota of its own, so that a flood that fills the main port's quota (and
// makes gRPC refuse its new connections) leaves the probes' port answering.
constexpr std::size_t kHealthMemoryQuotaBytes = std::size_t{16} << 20;

std::vector<std::string> ReadinessServiceNames() {
  return {"",
          kReadinessService,
          std::string(sator::v1::QueryService::service_full_name()),
          std::string(sator::v1::SceneService::service_full_name()),
          std::string(sator::v1::BodyService::service_full_name()),
          std::string(sator::v1::ProximityService::service_full_name())};
}

// FAILED_PRECONDITION describing what recovery of `data_dir` could not give
// back (records missing from the log, scenes or records that could not be
// applied), with what to do about it; OK when it gave back everything.
absl::Status CheckRecoveryComplete(const std::string& data_dir,
                                   const durability::RecoveryReport& report) {
  const std::size_t unapplied = report.scenes_failed + report.records_failed;
  if (report.records_lost == 0 && unapplied == 0) return absl::OkStatus();
  std::vector<std::string> found;
  if (report.records_lost > 0) {
    std::string gaps;
    constexpr std::size_t kGapsNamed = 3;
    for (std::size_t i = 0; i < report.gaps.size() && i < kGapsNamed; ++i) {
      const durability::LogGap& gap = report.gaps[i];
      absl::StrAppend(&gaps, i == 0 ? "" : ", ", "LSN ", gap.first_lsn,
                      gap.records() > 1 ? absl::StrCat(" to ", gap.last_lsn)
                                        : std::string(),
                      " (", gap.reason, ", ", gap.file, ")");
    }
    if (report.gaps.size() > kGapsNamed) absl::StrAppend(&gaps, ", ...");
    std::string missing = absl::StrCat(
        report.records_lost,
        report.records_lost == 1 ? " acknowledged log record is missing, in "
                                 : " acknowledged log records are missing, in ",
        report.gaps.size(),
        report.gaps.size() == 1 ? " gap: " : " gaps: ", gaps,
        " (the log says where: wal_gap)");
    if (report.snapshots_rejected > 0) {
      absl::StrAppend(
          &missing, "; ", report.snapshots_rejected,
          report.snapshots_rejected == 1 ? " snapshot is" : " snapshots are",
          " damaged (snapshot_rejected)",
          report.snapshot_found
              ? ""
              : ", none is readable, and the log does not reach back to the "
                "first record");
    }
    found.push_back(std::move(missing));
  }
  if (unapplied > 0) {
    found.push_back(absl::StrCat(
        report.scenes_failed, " snapshot scenes and ", report.records_failed,
        " log records could not be applied (the log says why: "
        "snapshot_scene_failed, wal_replay_failed)"));
  }
  // Records that fail after a gap usually fail because of it: the advice
  // about limit flags is only for a log that is whole.
  const std::string advice =
      report.records_lost > 0
          ? "Restore the data directory from a copy"
          : "Fix the cause, for example restore the limit flags they were "
            "written under";
  return absl::FailedPreconditionError(absl::StrCat(
      "recovery of ", data_dir, " is incomplete: ", absl::StrJoin(found, "; "),
      ". ", advice, ", or start with --allow_recovery_loss to give them up"));
}

// The scene queries' modes as the metrics' labels.
QueryModeLabel MetricsMode(scene::ResultMode mode) {
  switch (mode) {
    case scene::ResultMode::kAny:
      return QueryModeLabel::kAny;
    case scene::ResultMode::kClosest:
      return QueryModeLabel::kClosest;
    case scene::ResultMode::kAllUpToN:
      return QueryModeLabel::kAll;
    case scene::ResultMode::kClosestPerBody:
    // No wire value selects it (sator.v1.ResultMode); counted per body.
    case scene::ResultMode::kClosestPerGroup:
      break;
  }
  return QueryModeLabel::kClosestPerBody;
}

// sator_scene_memory_bytes and sator_max_scene_memory_bytes, at scrape time.
class SceneMemoryMetrics final : public prometheus::Collectable {
 public:
  SceneMemoryMetrics(const SceneRegistry* registry, std::int64_t budget)
      : registry_(registry), budget_(budget) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    std::vector<prometheus::MetricFamily> families(2);
    families[0].name = "sator_scene_memory_bytes";
    families[0].help =
        "Memory the hosted scenes hold by the core's count (bodies, trees, "
        "tick history, hulls and meshes), as checked against "
        "--max_scene_memory_bytes.";
    families[0].type = prometheus::MetricType::Gauge;
    families[0].metric.emplace_back();
    families[0].metric.back().gauge.value =
        static_cast<double>(registry_->memory_bytes());
    families[1].name = "sator_max_scene_memory_bytes";
    families[1].help = "The --max_scene_memory_bytes budget (0: none).";
    families[1].type = prometheus::MetricType::Gauge;
    families[1].metric.emplace_back();
    families[1].metric.back().gauge.value = static_cast<double>(budget_);
    return families;
  }

 private:
  const SceneRegistry* registry_;
  const std::int64_t budget_;
};

}  // namespace

class Server::Impl {
 public:
  explicit Impl(const ServerOptions& server_options)
      : options(server_options),
        scenes(server_options.scene_limits),
        query_metrics(std::make_shared<QueryMetrics>(
            &scenes, server_options.slow_query_threshold)),
        shot_audit(std::make_shared<ShotAudit>(server_options.shot_audit)),
        proximity_hosts(
            std::make_shared<ProximityHosts>(server_options.proximity)),
        query_service(drain_gate, scenes, server_options.shape_limits,
                      server_options.query_limits,
                      SceneOps(server_options, *this)),
        scene_service(drain_gate, scenes, SceneOps(server_options, *this)),
        body_service(drain_gate, scenes, SceneOps(server_options, *this)),
        proximity_service(drain_gate, scenes,
                          ProximityOps(server_options, *this), *proximity_hosts,
                          server_options.max_proximity_watches) {
    drain_gate.set_overload_limiter(overload_limiter.get());
    query_service.set_overload_limiter(overload_limiter.get());
    query_service.set_proximity(proximity_hosts.get());
    proximity_service.set_overload_limiter(overload_limiter.get());
  }

  // The scene operations' options; for replay, only the limits and the
  // zones and observers that travel with a scene.
  static SceneOpsOptions SceneOps(const ServerOptions& server_options,
                                  Impl& owner, bool replay = false) {
    SceneOpsOptions ops;
    ops.shape_limits = server_options.shape_limits;
    ops.max_batch_bodies = server_options.max_batch_bodies;
    ops.export_companion = [hosts = owner.proximity_hosts](
                               const HostedScene& scene,
                               sator::v1::SceneSnapshot* out) {
      ExportProximity(*hosts, scene, out);
    };
    ops.import_companion =
        [hosts = owner.proximity_hosts, limits = server_options.shape_limits](
            HostedScene& scene, const sator::v1::SceneSnapshot& snapshot) {
          return ImportProximity(*hosts, limits, scene, snapshot);
        };
    if (!replay) {
      Impl* impl = &owner;
      // Not for replay: what was acknowledged is restored whatever the budget.
      ops.max_scene_memory_bytes = server_options.max_scene_memory_bytes;
      // `persistence` is set before gRPC starts and kept until it stops.
      ops.on_mutation = [impl](const std::string& scene_id,
                               const google::protobuf::Message& request,
                               absl::FunctionRef<absl::Status()> apply) {
        const bool deleting = request.GetDescriptor() ==
                              sator::v1::DeleteSceneRequest::descriptor();
        // The scene being deleted (its write lock is held), to forget its
        // proximity host and not a newer scene's of the same id.
        std::shared_ptr<HostedScene> deleted;
        if (deleting) {
          if (absl::StatusOr<std::shared_ptr<HostedScene>> found =
                  impl->scenes.Find(scene_id);
              found.ok()) {
            deleted = *std::move(found);
          }
        }
        absl::Status applied =
            impl->persistence == nullptr
                ? apply()
                : impl->persistence->OnMutation(scene_id, request, apply);
        // A scene created again under the same id starts a trail of its own.
        if (applied.ok() && deleting) {
          impl->shot_audit->Forget(scene_id);
          if (deleted != nullptr) impl->proximity_hosts->Forget(*deleted);
        }
        return applied;
      };
      ops.on_poses_applied = [impl](std::int64_t count) {
        impl->query_metrics->AddPoseUpdates(count);
      };
      ops.on_scene_written = [impl](const HostedScene& scene) {
        impl->proximity_hosts->OnSceneWritten(scene);
      };
    }
    return ops;
  }

  static ProximityOpsOptions ProximityOps(const ServerOptions& server_options,
                                          Impl& owner) {
    return ProximityOpsOptions{
        .shape_limits = server_options.shape_limits,
        .on_mutation = SceneOps(server_options, owner).on_mutation};
  }

  // Sets `service`'s status on both servers' health services.
  void SetHealth(const std::string& service, bool serving) {
    for (grpc::Server* server : {grpc_server.get(), health_server.get()}) {
      if (server == nullptr) continue;
      if (grpc::HealthCheckServiceInterface* health =
              server->GetHealthCheckService()) {
        health->SetServingStatus(service, serving);
      }
    }
  }

  ServerOptions options;
  SceneRegistry scenes;
  // Declared before `metrics`, whose HTTP handlers use them.
  std::unique_ptr<RecentQueries> recent_queries;
  std::shared_ptr<QueryMetrics> query_metrics;
  // Every scene's shot verdicts (--shot_audit_size); outlives the services.
  std::shared_ptr<ShotAudit> shot_audit;
  // Every scene's zones and observers; outlives the services.
  std::shared_ptr<ProximityHosts> proximity_hosts;
  std::unique_ptr<ScenePersistence> persistence;
  std::unique_ptr<Metrics> metrics;
  std::unique_ptr<GrpcServerMetrics> grpc_metrics;
  // Outlives the drain gate and the services, which hold it.
  std::shared_ptr<OverloadLimiter> overload_limiter =
      std::make_shared<OverloadLimiter>(AdmissionLimits{
          .max_inflight_requests = options.max_inflight_requests,
          .max_queue_wait = options.max_queue_wait,
          .max_admitted_bytes = options.max_admitted_bytes,
          .retry_after = options.overload_retry_after});
  // Returns a flood's memory to the system once it is over.
  std::unique_ptr<MemoryTrimmer> memory_trimmer;
  // What the listening credentials need while gRPC serves (declared before
  // grpc_server, so it outlives it).
  std::shared_ptr<void> credentials_keep_alive;
  DrainGate drain_gate;
  // The helpers of large batches (--batch_threads - 1 threads), started
  // once; destroyed after the services that use them.
  scene::BatchWorkers batch_workers{options.batch_threads - 1};
  QueryService query_service;
  SceneService scene_service;
  BodyService body_service;
  ProximityService proximity_service;
  std::unique_ptr<grpc::Server> grpc_server;
  // Answers UNIMPLEMENTED for every method but health on the health
  // server; gRPC builds no server without a service of its own to poll.
  grpc::CallbackGenericService health_fallback;
  // --health_address: a server of its own (grpc.health.v1 only), stopped
  // after grpc_server, so that liveness answers until the process exits.
  std::unique_ptr<grpc::Server> health_server;
  int grpc_port = 0;
  int health_port = 0;
  std::once_flag drain_once;
  std::once_flag shutdown_once;
  // Set by Drain: every admitted call finished within the drain deadline.
  bool drained = false;
  // Set by Drain: how many admitted calls were still running at the deadline.
  std::int64_t cancelled_calls = 0;
  // The final snapshot has been written (or tried).
  bool final_snapshot_done = false;
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { Shutdown(); }

absl::StatusOr<std::unique_ptr<Server>> Server::Start(
    const ServerOptions& options) {
  auto impl = std::make_unique<Impl>(options);

  absl::StatusOr<auth::ListeningCredentials> credentials =
      auth::MakeListeningCredentials(options.security);
  if (!credentials.ok()) return credentials.status();
  impl->credentials_keep_alive = credentials->keep_alive;
  if (credentials->tokens > 0 && !credentials->tls) {
    Log(LogLevel::kWarning, "auth_without_tls",
        {{"message",
          "bearer tokens are checked but travel in clear text: serve TLS "
          "(--tls_cert_file, --tls_key_file) or terminate TLS in front"}});
  }

  absl::StatusOr<std::unique_ptr<Metrics>> metrics =
      Metrics::Start(options.metrics_address);
  if (!metrics.ok()) return metrics.status();
  impl->metrics = *std::move(metrics);
  if (credentials->denials != nullptr) {
    impl->metrics->AddCollectable(credentials->denials);
  }
  impl->metrics->AddCollectable(impl->query_metrics);
  impl->metrics->AddCollectable(impl->overload_limiter);
  impl->metrics->AddCollectable(impl->shot_audit);
  impl->metrics->AddCollectable(impl->proximity_hosts);
  impl->metrics->AddCollectable(std::make_shared<SceneMemoryMetrics>(
      &impl->scenes, options.max_scene_memory_bytes));
  impl->memory_trimmer = std::make_unique<MemoryTrimmer>(
      [limiter = impl->overload_limiter] { return limiter->admitted_bytes(); });
  if (options.debug_pages) {
    impl->recent_queries = std::make_unique<RecentQueries>();
    AddScenePages(*impl->metrics, impl->scenes, impl->recent_queries.get(),
                  impl->shot_audit.get());
  }

  if (absl::Status limits = ValidateProximityLimits(options.proximity);
      !limits.ok()) {
    return limits;
  }
  if (options.shot_audit_files > 0 && options.data_dir.empty()) {
    return absl::InvalidArgumentError(
        "--shot_audit_files: needs --data_dir (the files go under "
        "<data_dir>/shot_audit)");
  }
  if (!options.data_dir.empty()) {
    PersistenceOptions persistence_options;
    persistence_options.data_dir = options.data_dir;
    persistence_options.snapshot_interval = options.snapshot_interval;
    durability::RecoveryReport report;
    absl::StatusOr<std::unique_ptr<ScenePersistence>> persistence =
        ScenePersistence::Open(persistence_options, impl->scenes,
                               Impl::SceneOps(options, *impl, /*replay=*/true),
                               *impl->proximity_hosts, &report);
    if (!persistence.ok()) return persistence.status();
    if (absl::Status complete = CheckRecoveryComplete(options.data_dir, report);
        !complete.ok()) {
      if (!options.allow_recovery_loss) {
        // Serving now would write a snapshot without what is missing:
        // refuse instead, and leave the data directory as it is.
        return complete;
      }
      Log(LogLevel::kWarning, "recovery_loss_allowed",
          {{"error", complete.message()}});
      // The loss is given up for good: a snapshot now holds what was
      // recovered, so the next start begins after the gaps instead of
      // refusing again.
      if (report.records_lost > 0) {
        if (absl::Status written = (*persistence)->SnapshotNow();
            !written.ok()) {
          Log(LogLevel::kError, "snapshot_failed",
              {{"error", written.message()}});
        }
      }
    }
    impl->persistence = *std::move(persistence);
    if (options.shot_audit_files > 0) {
      ShotAuditFileOptions file_options;
      file_options.directory = absl::StrCat(options.data_dir, "/shot_audit");
      file_options.max_files = options.shot_audit_files;
      file_options.max_file_bytes = options.shot_audit_file_bytes;
      if (absl::Status enabled = impl->shot_audit->EnableFiles(file_options);
          !enabled.ok()) {
        return enabled;
      }
    }
    impl->metrics->AddCollectable(std::make_shared<DurabilityMetrics>(
        &impl->persistence->store(), report));
  }

  grpc::EnableDefaultHealthCheckService(true);
  if (options.enable_reflection) {
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  }
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, which would let a second satord bind
  // the same port silently; a port in use must be an error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  if (!options.enable_reflection) builder.SetOption(auth::WithoutReflection());
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS,
                             options.max_concurrent_streams);
  // Stamps each call when gRPC hands it over (--max_queue_wait).
  builder.SetContextAllocator(std::make_unique<QueuedCallAllocator>());
  if (options.grpc_memory_quota_bytes > 0) {
    // The transport's memory (docs/DESIGN.md, "Admission"): under pressure
    // gRPC shrinks the HTTP/2 flow-control windows it offers (clients then
    // hold their bytes) and, at the limit, refuses new connections.
    grpc::ResourceQuota quota("satord");
    quota.Resize(static_cast<std::size_t>(options.grpc_memory_quota_bytes));
    builder.SetResourceQuota(quota);
  }
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  builder.AddListeningPort(options.grpc_address, credentials->credentials,
                           &impl->grpc_port);
  builder.RegisterService(&impl->query_service);
  // Every scene query and session reports to the sator_* series.
  impl->query_service.scene_queries().set_observer(
      [metrics =
           impl->query_metrics.get()](absl::Span<const QueryRecord> records) {
        // A chunk of a batch is at most SceneQueries::kBatchChunk records.
        absl::InlinedVector<QueryObservation, SceneQueries::kBatchChunk>
            answered;
        for (const QueryRecord& record : records) {
          if (record.code != absl::StatusCode::kOk) continue;
          answered.push_back(
              {.scene_id = record.scene_id,
               .kind = record.kind,
               .mode = MetricsMode(record.mode),
               .duration = record.duration,
               .hits = record.hits,
               .node_visits = record.node_visits,
               .rewound = record.rewound,
               .rewind_ticks = record.rewind_ticks,
               .tick = record.tick,
               .count = record.count,
               .hits_per_query = record.hits_per_query,
               .node_visits_per_query = record.node_visits_per_query});
        }
        metrics->OnQueries(answered);
      });
  impl->query_service.scene_queries().set_shot_observer(
      [metrics = impl->query_metrics.get(),
       audit = impl->shot_audit.get()](const ShotRecord& record) {
        metrics->OnShot(record.outcome, record.reason, record.rewind_ticks);
        if (record.shot != nullptr && record.verdict != nullptr) {
          audit->Record(record.scene_id, *record.shot, *record.verdict,
                        record.current_tick, record.dimension);
        }
      });
  impl->query_service.set_shot_audit(impl->shot_audit.get());
  impl->query_service.scene_queries().set_failure_observer(
      [metrics = impl->query_metrics.get()](FailureVia via, FailureKind kind,
                                            absl::StatusCode code) {
        metrics->OnFailure(via, kind, code);
      });
  impl->query_service.scene_queries().set_batch_parallelism(
      {.workers = &impl->batch_workers,
       .min_queries = options.batch_parallel_min});
  impl->query_service.scene_queries().set_max_response_bytes(
      options.max_message_bytes);
  // With --debug_pages, the viewer's ring of recent queries.
  impl->query_service.scene_queries().set_recent_queries(
      impl->recent_queries.get());
  impl->query_service.set_session_message_observer(
      [metrics = impl->query_metrics.get()](SessionMessageKind kind,
                                            double seconds) {
        metrics->RecordSessionMessage(kind, seconds);
      });
  impl->query_service.set_session_listener(
      [metrics = impl->query_metrics.get()](bool opened) {
        if (opened) {
          metrics->SessionOpened();
        } else {
          metrics->SessionClosed();
        }
      });
  builder.RegisterService(&impl->scene_service);
  builder.RegisterService(&impl->body_service);
  builder.RegisterService(&impl->proximity_service);
  if (options.enable_grpc_metrics) {
    std::vector<const google::protobuf::ServiceDescriptor*> services = {
        sator::v1::PingRequest::descriptor()->file()->FindServiceByName(
            "QueryService"),
        sator::v1::CreateSceneRequest::descriptor()->file()->FindServiceByName(
            "SceneService"),
        sator::v1::UpsertBodiesRequest::descriptor()->file()->FindServiceByName(
            "BodyService"),
        sator::v1::AddZoneRequest::descriptor()->file()->FindServiceByName(
            "ProximityService"),
        grpc::health::v1::HealthCheckRequest::descriptor()
            ->file()
            ->FindServiceByName("Health")};
    // The reflection service's generated code lives in grpc++_reflection,
    // which registers it in the same descriptor pool.
    if (const google::protobuf::ServiceDescriptor* reflection =
            google::protobuf::DescriptorPool::generated_pool()
                ->FindServiceByName("grpc.reflection.v1alpha.ServerReflection");
        options.enable_reflection && reflection != nullptr) {
      services.push_back(reflection);
    }
    impl->grpc_metrics = std::make_unique<GrpcServerMetrics>(
        impl->metrics->registry(), services);
    std::vector<
        std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
        interceptors;
    interceptors.push_back(impl->grpc_metrics->MakeInterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(interceptors));
  }
  impl->grpc_server = builder.BuildAndStart();
  if (impl->grpc_server == nullptr || impl->grpc_port == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen for gRPC on ", options.grpc_address,
                     " (address in use or not valid)"));
  }

  if (!options.health_address.empty()) {
    // Plaintext, grpc.health.v1 only (the default health service gRPC adds
    // to every server built with it enabled), with its own transport memory.
    grpc::ServerBuilder health_builder;
    health_builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    health_builder.SetOption(auth::WithoutReflection());
    grpc::ResourceQuota quota("satord-health");
    quota.Resize(kHealthMemoryQuotaBytes);
    health_builder.SetResourceQuota(quota);
    health_builder.SetMaxReceiveMessageSize(4096);
    health_builder.RegisterCallbackGenericService(&impl->health_fallback);
    health_builder.AddListeningPort(options.health_address,
                                    auth::MakeHealthOnlyCredentials(),
                                    &impl->health_port);
    impl->health_server = health_builder.BuildAndStart();
    if (impl->health_server == nullptr || impl->health_port == 0) {
      return absl::UnavailableError(absl::StrCat(
          "cannot listen for health checks on ", options.health_address,
          " (address in use or not valid)"));
    }
  }

  impl->SetHealth(kLivenessService, true);
  for (const std::string& name : ReadinessServiceNames()) {
    impl->SetHealth(name, true);
  }
  Log(LogLevel::kInfo, "security",
      {{"tls", credentials->tls},
       {"mutual_tls", credentials->mutual_tls},
       {"tokens", static_cast<std::int64_t>(credentials->tokens)},
       {"reflection", options.enable_reflection}});
  if (impl->persistence != nullptr) {
    impl->persistence->StartPeriodicSnapshots();
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::grpc_port() const { return impl_->grpc_port; }

int Server::health_port() const { return impl_->health_port; }

int Server::metrics_port() const { return impl_->metrics->port(); }

SceneRegistry& Server::scenes() { return impl_->scenes; }

QueryMetrics& Server::query_metrics() { return *impl_->query_metrics; }

void Server::WriteFinalSnapshot() {
  if (impl_->persistence == nullptr || impl_->final_snapshot_done) return;
  impl_->final_snapshot_done = true;
  impl_->persistence->StopPeriodicSnapshots();
  if (absl::Status written = impl_->persistence->SnapshotNow(); !written.ok()) {
    Log(LogLevel::kError, "final_snapshot_failed",
        {{"error", written.message()}});
  }
}

bool Server::Drain() {
  std::call_once(impl_->drain_once, [this] {
    for (const std::string& name : ReadinessServiceNames()) {
      impl_->SetHealth(name, false);
    }
    const absl::Time deadline = absl::Now() + impl_->options.drain_deadline;
    Log(LogLevel::kInfo, "draining",
        {{"in_flight", impl_->drain_gate.in_flight()},
         {"drain_deadline_ms",
          absl::ToInt64Milliseconds(impl_->options.drain_deadline)}});
    // See drain_gate.h: the gate refuses new calls (UNAVAILABLE) while gRPC
    // keeps serving, health included; wait for the admitted calls only.
    impl_->drain_gate.Close();
    impl_->drained = impl_->drain_gate.WaitUntilEmpty(deadline);
    impl_->cancelled_calls = impl_->drain_gate.in_flight();
    // With every admitted call done and the gate closed, nothing can change
    // a scene any more: the final snapshot holds every acknowledged write
    // and the latest poses, and is written while gRPC still answers health.
    // Calls still running past the deadline must be cancelled first (see
    // Shutdown).
    if (impl_->drained) {
      WriteFinalSnapshot();
      impl_->shot_audit->StopFiles();
    }
  });
  return impl_->drained;
}

void Server::Shutdown() {
  Drain();
  std::call_once(impl_->shutdown_once, [this] {
    // Stops gRPC at once (which also closes idle client connections and
    // cancels the calls that outlived the drain deadline).
    impl_->grpc_server->Shutdown(absl::ToChronoTime(absl::Now()));
    impl_->grpc_server->Wait();
    Log(impl_->drained ? LogLevel::kInfo : LogLevel::kWarning, "stopped",
        {{"drained", impl_->drained},
         {"cancelled_calls", impl_->cancelled_calls}});
    // No call runs any more: this snapshot holds every acknowledged write
    // and the latest poses, and the audit files every verdict.
    WriteFinalSnapshot();
    impl_->shot_audit->StopFiles();
    // Last: liveness answers on the probes' port until now.
    if (impl_->health_server != nullptr) {
      impl_->health_server->Shutdown(absl::ToChronoTime(absl::Now()));
      impl_->health_server->Wait();
    }
  });
}

void Server::LogStoppedWithoutShutdown() const {
  Log(LogLevel::kInfo, "stopped",
      {{"drained", impl_->drained},
       {"cancelled_calls", impl_->cancelled_calls}});
}

void Server::Wait() { impl_->grpc_server->Wait(); }

}  // namespace sator::server

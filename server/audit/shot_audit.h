// The audit trail of every scene: one ShotAuditRing per scene, made on its
// first verdict (satord's --shot_audit_size records each; 0 turns the
// trail off), listed with filters and paging, optionally written to JSON
// Lines files (ShotAuditFiles), and counted in
// sator_shot_audit_overwritten_total, sator_shot_audit_dropped_total and
// the sator_shot_audit_file_* series.
#ifndef SATOR_SERVER_AUDIT_SHOT_AUDIT_H_
#define SATOR_SERVER_AUDIT_SHOT_AUDIT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/client_metric.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"
#include "sator/v1/shot.pb.h"
#include "sator/v1/shot_audit.pb.h"
#include "server/audit/shot_audit_files.h"
#include "server/audit/shot_audit_ring.h"

namespace sator::server {

struct ShotAuditOptions {
  // Records kept per scene; 0: no audit trail.
  std::size_t ring_size = 4096;
  // Records a subscriber may lag behind the newest before it is skipped
  // ahead (with a gap event); at most ring_size.
  std::uint64_t watch_buffer = 1024;
};

class ShotAudit final : public prometheus::Collectable {
 public:
  explicit ShotAudit(ShotAuditOptions options) : options_(options) {}
  ~ShotAudit() override;

  // Writes every scene's verdicts to files from now on (with the trail on;
  // else a no-op) and starts their writer. Before the first verdict.
  absl::Status EnableFiles(ShotAuditFileOptions options);
  // Writes the verdicts recorded so far to the files and stops their
  // writer (the drain, once no query runs).
  void StopFiles();

  bool enabled() const { return options_.ring_size > 0; }
  std::uint64_t watch_buffer() const;

  // Records one verdict of `scene_id` (copies `shot` and `verdict`). Never
  // waits for a reader; no scene lock may be held.
  void Record(absl::string_view scene_id, const sator::v1::Shot& shot,
              const sator::v1::ShotVerdict& verdict, std::int64_t current_tick,
              int dimension);

  // The scene's ring, made if it has none yet (null when the trail is off).
  std::shared_ptr<ShotAuditRing> Ring(absl::string_view scene_id);

  // The scene's ring when it has one (no verdict yet, or the trail off:
  // null).
  std::shared_ptr<ShotAuditRing> FindRing(absl::string_view scene_id) const;

  // Drops the scene's ring (the scene was deleted). Its open watches keep
  // the ring and receive nothing more until they end.
  void Forget(absl::string_view scene_id);

  // One page of ListShotVerdicts for a scene known to exist.
  // INVALID_ARGUMENT naming "page_size", "page_token" or "filter....".
  absl::Status List(const sator::v1::ListShotVerdictsRequest& request,
                    sator::v1::ListShotVerdictsResponse* response);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const ShotAuditOptions options_;
  // Set once by EnableFiles, before any verdict.
  std::unique_ptr<ShotAuditFiles> files_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<ShotAuditRing>> rings_
      ABSL_GUARDED_BY(mu_);
};

// Whether `record` passes `filter` (checked with ValidateShotVerdictFilter).
bool MatchesShotVerdictFilter(const sator::v1::ShotVerdictFilter& filter,
                              const sator::v1::ShotVerdictRecord& record);
// INVALID_ARGUMENT naming the field ("outcome", "reason", "max_tick").
absl::Status ValidateShotVerdictFilter(
    const sator::v1::ShotVerdictFilter& filter);

}  // namespace sator::server

#endif  // SATOR_SERVER_AUDIT_SHOT_AUDIT_H_

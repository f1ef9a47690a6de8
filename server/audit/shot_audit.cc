// See shot_audit.h.
#include "server/audit/shot_audit.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "sator/core/field_status.h"

namespace sator::server {
namespace {

constexpr int kDefaultPageSize = 100;
constexpr int kMaxPageSize = 1000;
// Records copied out of the ring per lock while a page is filtered.
constexpr std::size_t kListChunk = 256;

}  // namespace

ShotAudit::~ShotAudit() { StopFiles(); }

absl::Status ShotAudit::EnableFiles(ShotAuditFileOptions options) {
  if (!enabled()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<ShotAuditFiles>> files =
      ShotAuditFiles::Open(std::move(options));
  if (!files.ok()) return files.status();
  files_ = *std::move(files);
  files_->Start();
  return absl::OkStatus();
}

void ShotAudit::StopFiles() {
  if (files_ != nullptr) files_->Stop();
}

std::uint64_t ShotAudit::watch_buffer() const {
  return std::min<std::uint64_t>(options_.watch_buffer, options_.ring_size);
}

std::shared_ptr<ShotAuditRing> ShotAudit::Ring(absl::string_view scene_id) {
  if (!enabled()) return nullptr;
  {
    absl::ReaderMutexLock lock(&mu_);
    if (auto it = rings_.find(scene_id); it != rings_.end()) return it->second;
  }
  absl::MutexLock lock(&mu_);
  std::shared_ptr<ShotAuditRing>& ring = rings_[scene_id];
  if (ring == nullptr) {
    ring = std::make_shared<ShotAuditRing>(options_.ring_size);
    if (files_ != nullptr) files_->Follow(std::string(scene_id), ring);
  }
  return ring;
}

std::shared_ptr<ShotAuditRing> ShotAudit::FindRing(
    absl::string_view scene_id) const {
  absl::ReaderMutexLock lock(&mu_);
  const auto it = rings_.find(scene_id);
  return it == rings_.end() ? nullptr : it->second;
}

void ShotAudit::Forget(absl::string_view scene_id) {
  std::shared_ptr<ShotAuditRing> dropped;  // Freed after unlocking.
  absl::MutexLock lock(&mu_);
  if (auto it = rings_.find(scene_id); it != rings_.end()) {
    dropped = std::move(it->second);
    rings_.erase(it);
    if (files_ != nullptr) files_->Forget(std::string(scene_id));
  }
}

void ShotAudit::Record(absl::string_view scene_id, const sator::v1::Shot& shot,
                       const sator::v1::ShotVerdict& verdict,
                       std::int64_t current_tick, int dimension) {
  if (!enabled()) return;
  auto record = std::make_unique<sator::v1::ShotVerdictRecord>();
  record->set_scene_id(std::string(scene_id));
  *record->mutable_shot() = shot;
  *record->mutable_verdict() = verdict;
  record->set_current_tick(current_tick);
  record->set_recorded_unix_micros(absl::ToUnixMicros(absl::Now()));
  record->set_dimension(dimension == 2 ? sator::v1::DIMENSION_2D
                                       : sator::v1::DIMENSION_3D);
  Ring(scene_id)->Append(std::move(record));
}

absl::Status ValidateShotVerdictFilter(
    const sator::v1::ShotVerdictFilter& filter) {
  if (!sator::v1::ShotOutcome_IsValid(filter.outcome())) {
    return FieldError("outcome",
                      absl::StrCat("unknown value ", filter.outcome()));
  }
  if (!sator::v1::ShotReason_IsValid(filter.reason())) {
    return FieldError("reason",
                      absl::StrCat("unknown value ", filter.reason()));
  }
  if (filter.has_min_tick() && filter.has_max_tick() &&
      filter.min_tick() > filter.max_tick()) {
    return FieldError("max_tick",
                      absl::StrCat("below min_tick (", filter.max_tick(), " < ",
                                   filter.min_tick(), ")"));
  }
  return absl::OkStatus();
}

bool MatchesShotVerdictFilter(const sator::v1::ShotVerdictFilter& filter,
                              const sator::v1::ShotVerdictRecord& record) {
  const sator::v1::ShotVerdict& verdict = record.verdict();
  if (filter.has_shooter_group_id() &&
      record.shot().shooter_group_id() != filter.shooter_group_id()) {
    return false;
  }
  if (filter.has_target_group_id()) {
    const bool claimed =
        record.shot().has_target() &&
        record.shot().target().group_id() == filter.target_group_id();
    const bool hit = verdict.has_hit() &&
                     verdict.hit().group_id() == filter.target_group_id();
    if (!claimed && !hit) return false;
  }
  if (filter.outcome() != sator::v1::SHOT_OUTCOME_UNSPECIFIED &&
      verdict.outcome() != filter.outcome()) {
    return false;
  }
  if (filter.reason() != sator::v1::SHOT_REASON_UNSPECIFIED &&
      verdict.reason() != filter.reason()) {
    return false;
  }
  if (filter.has_min_tick() && verdict.tick() < filter.min_tick()) return false;
  if (filter.has_max_tick() && verdict.tick() > filter.max_tick()) return false;
  return true;
}

absl::Status ShotAudit::List(const sator::v1::ListShotVerdictsRequest& request,
                             sator::v1::ListShotVerdictsResponse* response) {
  if (request.page_size() < 0 || request.page_size() > kMaxPageSize) {
    return FieldError("page_size",
                      absl::StrCat("must be in [0, ", kMaxPageSize, "], got ",
                                   request.page_size()));
  }
  std::uint64_t from = 1;
  if (!request.page_token().empty() &&
      (!absl::SimpleAtoi(request.page_token(), &from) || from == 0)) {
    return FieldError("page_token",
                      "not a token of ListShotVerdicts (a sequence number)");
  }
  if (absl::Status valid = ValidateShotVerdictFilter(request.filter());
      !valid.ok()) {
    return PrefixField("filter", valid);
  }
  const std::size_t page_size =
      request.page_size() == 0 ? kDefaultPageSize : request.page_size();
  std::shared_ptr<ShotAuditRing> ring = Ring(request.scene_id());
  if (ring == nullptr) {
    response->set_resume_sequence(1);
    return absl::OkStatus();
  }
  const std::uint64_t next = ring->next_sequence();
  if (from > next) {
    return FieldError(
        "page_token",
        absl::StrCat("sequence ", from, " was never recorded (the next is ",
                     next, ")"));
  }
  const std::uint64_t oldest = ring->oldest_sequence();
  response->set_oldest_sequence(oldest);
  response->set_overwritten(ring->overwritten());
  if (oldest > from) response->set_skipped(oldest - from);
  std::uint64_t cursor = std::max(from, oldest);
  // Stops at the newest record seen when the call began, so a page ends
  // even while verdicts keep coming.
  while (cursor < next &&
         static_cast<std::size_t>(response->records_size()) < page_size) {
    const std::vector<ShotAuditRing::Record> chunk = ring->ReadFrom(
        cursor, std::min<std::uint64_t>(kListChunk, next - cursor));
    if (chunk.empty()) break;
    // Records may have been overwritten since `cursor` was taken.
    if (chunk.front()->sequence() > cursor) {
      response->set_skipped(response->skipped() + chunk.front()->sequence() -
                            cursor);
    }
    for (const ShotAuditRing::Record& record : chunk) {
      cursor = record->sequence() + 1;
      if (MatchesShotVerdictFilter(request.filter(), *record)) {
        *response->add_records() = *record;
        if (static_cast<std::size_t>(response->records_size()) >= page_size) {
          break;
        }
      }
    }
  }
  response->set_resume_sequence(cursor);
  if (cursor < next) response->set_next_page_token(absl::StrCat(cursor));
  return absl::OkStatus();
}

std::vector<prometheus::MetricFamily> ShotAudit::Collect() const {
  std::uint64_t overwritten = 0;
  std::uint64_t dropped = 0;
  {
    absl::ReaderMutexLock lock(&mu_);
    for (const auto& [scene_id, ring] : rings_) {
      overwritten += ring->overwritten();
      dropped += ring->subscriber_dropped();
    }
  }
  std::vector<prometheus::MetricFamily> families(files_ != nullptr ? 5 : 2);
  families[0].name = "sator_shot_audit_overwritten_total";
  families[0].help =
      "Shot verdicts overwritten in the per-scene audit rings "
      "(--shot_audit_size) by newer ones.";
  families[0].type = prometheus::MetricType::Counter;
  families[0].metric.emplace_back();
  families[0].metric.back().counter.value = static_cast<double>(overwritten);
  families[1].name = "sator_shot_audit_dropped_total";
  families[1].help =
      "Shot verdicts WatchShotVerdicts subscribers missed (reported to them "
      "as gaps): overwritten before they could start from them, or more than "
      "--shot_audit_watch_buffer behind.";
  families[1].type = prometheus::MetricType::Counter;
  families[1].metric.emplace_back();
  families[1].metric.back().counter.value = static_cast<double>(dropped);
  if (files_ == nullptr) return families;
  const auto counter = [](prometheus::MetricFamily& family, const char* name,
                          const char* help, std::uint64_t value) {
    family.name = name;
    family.help = help;
    family.type = prometheus::MetricType::Counter;
    family.metric.emplace_back();
    family.metric.back().counter.value = static_cast<double>(value);
  };
  counter(families[2], "sator_shot_audit_file_lines_total",
          "Lines (verdicts and gaps) written to the audit files "
          "(--shot_audit_files).",
          files_->lines_written());
  counter(families[3], "sator_shot_audit_file_dropped_total",
          "Shot verdicts the audit files missed: overwritten in the ring "
          "before the writer reached them (each run of them is a gap line).",
          files_->dropped());
  counter(families[4], "sator_shot_audit_file_errors_total",
          "Failed writes, opens and removals of audit files.",
          files_->write_errors());
  return families;
}

}  // namespace sator::server

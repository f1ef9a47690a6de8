// The labels of sator_errors_total{via,kind} and
// sator_session_message_seconds{kind} (query_metrics.h), apart so that the
// query and session code can name them without the metrics.
#ifndef SATOR_SERVER_METRICS_FAILURE_LABELS_H_
#define SATOR_SERVER_METRICS_FAILURE_LABELS_H_

#include <cstdint>

namespace sator::server {

// Where a failure was answered (the `via` label): a whole unary call, one
// entry of a QueryBatch, or one message of a Session stream.
enum class FailureVia : std::uint8_t {
  kUnary = 0,
  kBatchEntry,
  kSessionMessage,
};
inline constexpr int kFailureVias = 3;

// What failed (the `kind` label): a query kind, a whole QueryBatch,
// RaycastBatch or ValidateShots call (or a Session's shots message), a
// Session's pose update or open, or a batch entry or Session message that
// named no kind.
enum class FailureKind : std::uint8_t {
  kOverlap = 0,
  kContacts,
  kSweep,
  kRaycast,
  kPoint,
  kQueryBatch,
  kRaycastBatch,
  kPoses,
  kOpen,
  kUnset,
  kShots,
  kWatchProximity,
};
inline constexpr int kFailureKinds = 12;

// The kind of a Session message (the `kind` label of
// sator_session_message_seconds).
enum class SessionMessageKind : std::uint8_t {
  kOpen = 0,
  kPoses,
  kQuery,
  kUnset,
  kShots,
  kWatchProximity,
  kBatch,
};
inline constexpr int kSessionMessageKinds = 7;

}  // namespace sator::server

#endif  // SATOR_SERVER_METRICS_FAILURE_LABELS_H_

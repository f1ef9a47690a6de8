// sator.v1.RaycastBatchRequest / RaycastBatchResponse (query_service.proto)
// to and from the core's rays and results.
//
// The packed form carries rays and hits as flat arrays of floats and
// integers instead of one message per query: protobuf then parses a
// 1000-ray request as three memcpy-like runs of packed floats instead of
// 1000 nested messages, and writes the answers the same way. The rays are
// read in place from the request's arrays and validated one by one as the
// batch runs (no copy, no second pass); errors name the array element,
// e.g. "directions[12..14]: zero length".
#ifndef SATOR_PROTO_CONVERT_RAY_BATCH_CONVERT_H_
#define SATOR_PROTO_CONVERT_RAY_BATCH_CONVERT_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sator/core/scene/scene_types.h"
#include "sator/core/vec.h"
#include "sator/v1/query_service.pb.h"

namespace sator::convert {

// The dimension a RaycastBatchRequest states (2 or 3), or INVALID_ARGUMENT
// "dimension: ..." when it is unspecified or unknown.
absl::StatusOr<int> RayBatchDimension(
    const sator::v1::RaycastBatchRequest& request);

// One ray of a batch.
template <int D>
struct PackedRay {
  Vec<D> origin{};
  Vec<D> direction{};
  float max_distance = 0.0f;
};

// A read-only view of the rays of a RaycastBatchRequest whose dimension is
// D. The request must outlive the view.
template <int D>
class PackedRays {
 public:
  // Checks the arrays' lengths against each other: origins a whole number
  // of D-float points, directions as many floats, max_distances one per ray
  // or exactly one. INVALID_ARGUMENT naming the array otherwise.
  static absl::StatusOr<PackedRays> Make(
      const sator::v1::RaycastBatchRequest& request);

  int size() const { return count_; }

  // Ray i, validated as a unary RaycastQuery is: every coordinate finite
  // and within kMaxRequestCoordinate, a direction that is not zero, a distance
  // in (0, kMaxRayDistance]. INVALID_ARGUMENT naming the element(s):
  // "origins[4]: not finite", "directions[3..5]: zero length",
  // "max_distances[1]: must be in (0, 1e+07], got -1".
  absl::Status Get(int i, PackedRay<D>* ray) const;

 private:
  PackedRays(const sator::v1::RaycastBatchRequest& request, int count)
      : request_(&request), count_(count) {}

  const sator::v1::RaycastBatchRequest* request_;
  int count_;
};

// Appends one ray's answer: its hit count to hit_counts and each hit to the
// parallel hit arrays (point and normal are D floats each, zeros where the
// core did not fill them; feature -1 where it has none).
template <int D>
void AppendRayHits(const scene::QueryResult<D>& result,
                   sator::v1::RaycastBatchResponse* out);

}  // namespace sator::convert

#endif  // SATOR_PROTO_CONVERT_RAY_BATCH_CONVERT_H_

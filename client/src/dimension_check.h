// Checks, before anything is sent, that the parts of one body or query are
// of one dimension: a Shape3 with a Pose2, or a 2D ray origin with a 3D
// direction, is refused with INVALID_ARGUMENT naming the field under the
// given path, e.g. "query.direction: a 3D vector with a 2D origin". An unset
// pose takes the shape's dimension and is never refused.
#ifndef SATOR_CLIENT_SRC_DIMENSION_CHECK_H_
#define SATOR_CLIENT_SRC_DIMENSION_CHECK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "sator/client/types.h"

namespace sator::client_internal {

// 2 or 3.
int DimensionOf(const AnyShape& shape);
int DimensionOf(const AnyPose& pose);

absl::Status CheckBody(const Body& body, absl::string_view path);
// "bodies[i]" for each body, under `path` ("" or "snapshot.").
absl::Status CheckBodies(const std::vector<Body>& bodies,
                         absl::string_view path);
absl::Status CheckQuery(const OverlapQuery& query, absl::string_view path);
absl::Status CheckQuery(const ContactsQuery& query, absl::string_view path);
absl::Status CheckQuery(const SweepQuery& query, absl::string_view path);
absl::Status CheckQuery(const RaycastQuery& query, absl::string_view path);
// A Query of any kind: `path` names the Query ("queries[3]"), and the kind's
// field follows ("queries[3].raycast.direction").
absl::Status CheckQuery(const Query& query, absl::string_view path);
absl::Status CheckQueries(const std::vector<Query>& queries);
absl::Status CheckPairQuery(const PairQueryRequest& request);

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_DIMENSION_CHECK_H_

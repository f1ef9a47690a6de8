// PairQuery: overlap, contact (MTV), sweep or raycast between two given
// shapes, with no scene. Validates the whole request, runs the core query,
// fills the response. No gRPC here: the server's PairQuery and
// `satorctl pair --local` both call it.
#ifndef SATOR_PROTO_CONVERT_PAIR_QUERY_H_
#define SATOR_PROTO_CONVERT_PAIR_QUERY_H_

#include "absl/status/status.h"
#include "proto/convert/geometry_convert.h"
#include "sator/v1/query_service.pb.h"

namespace sator::convert {

absl::Status RunPairQuery(const sator::v1::PairQueryRequest& request,
                          const ShapeLimits& limits,
                          sator::v1::PairQueryResponse* response);

}  // namespace sator::convert

#endif  // SATOR_PROTO_CONVERT_PAIR_QUERY_H_

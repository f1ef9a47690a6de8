// PairQuery: overlap, contact (MTV), sweep or raycast between two given
// shapes, with no scene. Validates the whole request, runs the core query,
// fills the response. No gRPC here, so it is tested directly.
#ifndef SATOR_SERVER_PAIR_QUERY_H_
#define SATOR_SERVER_PAIR_QUERY_H_

#include "absl/status/status.h"
#include "proto/convert/geometry_convert.h"
#include "sator/v1/query_service.pb.h"

namespace sator::server {

absl::Status RunPairQuery(const sator::v1::PairQueryRequest& request,
                          const convert::ShapeLimits& limits,
                          sator::v1::PairQueryResponse* response);

}  // namespace sator::server

#endif  // SATOR_SERVER_PAIR_QUERY_H_

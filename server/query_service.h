// sator.v1.QueryService: the query RPCs, served with gRPC's callback API.
#ifndef SATOR_SERVER_QUERY_SERVICE_H_
#define SATOR_SERVER_QUERY_SERVICE_H_

#include "proto/convert/geometry_convert.h"
#include "sator/v1/query_service.grpc.pb.h"
#include "server/drain_gate.h"

namespace sator::server {

class QueryService final : public sator::v1::QueryService::CallbackService {
 public:
  QueryService(DrainGate& drain_gate, const convert::ShapeLimits& shape_limits)
      : drain_gate_(drain_gate), shape_limits_(shape_limits) {}

  // Echoes the payload; does no other work. The latency floor.
  grpc::ServerUnaryReactor* Ping(grpc::CallbackServerContext* context,
                                 const sator::v1::PingRequest* request,
                                 sator::v1::PingResponse* response) override;

  // Overlap, contact, sweep or raycast between two given shapes.
  grpc::ServerUnaryReactor* PairQuery(
      grpc::CallbackServerContext* context,
      const sator::v1::PairQueryRequest* request,
      sator::v1::PairQueryResponse* response) override;

 private:
  DrainGate& drain_gate_;
  const convert::ShapeLimits shape_limits_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_QUERY_SERVICE_H_

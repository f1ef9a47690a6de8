// sator.v1.QueryService: the query RPCs, served with gRPC's callback API.
#ifndef SATOR_SERVER_QUERY_SERVICE_H_
#define SATOR_SERVER_QUERY_SERVICE_H_

#include "sator/v1/query_service.grpc.pb.h"
#include "server/drain_gate.h"

namespace sator::server {

class QueryService final : public sator::v1::QueryService::CallbackService {
 public:
  explicit QueryService(DrainGate& drain_gate) : drain_gate_(drain_gate) {}

  // Echoes the payload; does no other work. The latency floor.
  grpc::ServerUnaryReactor* Ping(grpc::CallbackServerContext* context,
                                 const sator::v1::PingRequest* request,
                                 sator::v1::PingResponse* response) override;

 private:
  DrainGate& drain_gate_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_QUERY_SERVICE_H_

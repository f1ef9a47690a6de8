#include "server/query_service.h"

#include <utility>

#include "server/pair_query.h"
#include "server/status_mapping.h"
#include "server/version.h"

namespace sator::server {

grpc::ServerUnaryReactor* QueryService::Ping(
    grpc::CallbackServerContext* context, const sator::v1::PingRequest* request,
    sator::v1::PingResponse* response) {
  DrainGate::Pass pass = drain_gate_.Enter();
  if (!pass.admitted()) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(ToGrpcStatus(DrainGate::DrainingStatus()));
    return reactor;
  }
  response->set_payload(request->payload());
  response->set_server_version(kVersion);
  return FinishGated(std::move(pass), grpc::Status::OK);
}

grpc::ServerUnaryReactor* QueryService::PairQuery(
    grpc::CallbackServerContext* context,
    const sator::v1::PairQueryRequest* request,
    sator::v1::PairQueryResponse* response) {
  DrainGate::Pass pass = drain_gate_.Enter();
  if (!pass.admitted()) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(ToGrpcStatus(DrainGate::DrainingStatus()));
    return reactor;
  }
  return FinishGated(std::move(pass), ToGrpcStatus(RunPairQuery(
                                          *request, shape_limits_, response)));
}

}  // namespace sator::server

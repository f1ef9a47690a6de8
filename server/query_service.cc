#include "server/query_service.h"

#include "server/pair_query.h"
#include "server/status_mapping.h"
#include "server/version.h"

namespace sator::server {

grpc::ServerUnaryReactor* QueryService::Ping(
    grpc::CallbackServerContext* context, const sator::v1::PingRequest* request,
    sator::v1::PingResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const DrainGate::Pass pass = drain_gate_.Enter();
  if (!pass.admitted()) {
    reactor->Finish(ToGrpcStatus(DrainGate::DrainingStatus()));
    return reactor;
  }
  response->set_payload(request->payload());
  response->set_server_version(kVersion);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* QueryService::PairQuery(
    grpc::CallbackServerContext* context,
    const sator::v1::PairQueryRequest* request,
    sator::v1::PairQueryResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const DrainGate::Pass pass = drain_gate_.Enter();
  if (!pass.admitted()) {
    reactor->Finish(ToGrpcStatus(DrainGate::DrainingStatus()));
    return reactor;
  }
  reactor->Finish(
      ToGrpcStatus(RunPairQuery(*request, shape_limits_, response)));
  return reactor;
}

}  // namespace sator::server

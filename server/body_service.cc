// sator.v1.BodyService handlers: each one call into scene_ops.
#include "server/body_service.h"

#include "server/scene_service.h"

namespace sator::server {

grpc::ServerUnaryReactor* BodyService::UpsertBodies(
    grpc::CallbackServerContext* context,
    const sator::v1::UpsertBodiesRequest* request,
    sator::v1::UpsertBodiesResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::UpsertBodies(registry_, options_, *request);
  });
}

grpc::ServerUnaryReactor* BodyService::RemoveBodies(
    grpc::CallbackServerContext* context,
    const sator::v1::RemoveBodiesRequest* request,
    sator::v1::RemoveBodiesResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::RemoveBodies(registry_, options_, *request);
  });
}

grpc::ServerUnaryReactor* BodyService::UpdatePoses(
    grpc::CallbackServerContext* context,
    const sator::v1::UpdatePosesRequest* request,
    sator::v1::UpdatePosesResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::UpdatePoses(registry_, options_, *request);
  });
}

}  // namespace sator::server

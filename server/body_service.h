// sator.v1.BodyService over gRPC's callback API (the same call shape as
// SceneService: DrainGate, deadline check, scene_ops, one status mapping).
#ifndef SATOR_SERVER_BODY_SERVICE_H_
#define SATOR_SERVER_BODY_SERVICE_H_

#include <utility>

#include "sator/v1/body_service.grpc.pb.h"
#include "server/drain_gate.h"
#include "server/scenes/scene_ops.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

class BodyService final : public sator::v1::BodyService::CallbackService {
 public:
  BodyService(DrainGate& drain_gate, SceneRegistry& registry,
              SceneOpsOptions options)
      : drain_gate_(drain_gate),
        registry_(registry),
        options_(std::move(options)) {}

  grpc::ServerUnaryReactor* UpsertBodies(
      grpc::CallbackServerContext* context,
      const sator::v1::UpsertBodiesRequest* request,
      sator::v1::UpsertBodiesResponse* response) override;
  grpc::ServerUnaryReactor* RemoveBodies(
      grpc::CallbackServerContext* context,
      const sator::v1::RemoveBodiesRequest* request,
      sator::v1::RemoveBodiesResponse* response) override;
  grpc::ServerUnaryReactor* UpdatePoses(
      grpc::CallbackServerContext* context,
      const sator::v1::UpdatePosesRequest* request,
      sator::v1::UpdatePosesResponse* response) override;

 private:
  DrainGate& drain_gate_;
  SceneRegistry& registry_;
  const SceneOpsOptions options_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_BODY_SERVICE_H_

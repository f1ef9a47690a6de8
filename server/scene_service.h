// sator.v1.SceneService over gRPC's callback API: each handler admits the
// call through the DrainGate, refuses a call whose deadline has already
// passed (DEADLINE_EXCEEDED, before any work), runs the matching operation
// of server/scenes/scene_ops.h and finishes with its status (FinishGated,
// which maps it to gRPC's).
#ifndef SATOR_SERVER_SCENE_SERVICE_H_
#define SATOR_SERVER_SCENE_SERVICE_H_

#include <chrono>
#include <utility>

#include "absl/status/statusor.h"
#include "sator/v1/scene_service.grpc.pb.h"
#include "server/drain_gate.h"
#include "server/scenes/scene_ops.h"
#include "server/scenes/scene_registry.h"

namespace sator::server {

// The shape of every unary scene and body handler (shared with
// body_service.cc): gate, deadline, operation, one status mapping.
template <typename Response, typename Operation>
grpc::ServerUnaryReactor* RunGatedUnary(
    DrainGate& drain_gate, grpc::CallbackServerContext* context,
    const google::protobuf::Message& request, Response* response,
    Operation&& operation) {
  DrainGate::Pass pass = drain_gate.Enter(*context, request);
  if (!pass.admitted()) return FinishRefused(context, pass);
  if (context->deadline() <= std::chrono::system_clock::now()) {
    return FinishGated(
        context, std::move(pass),
        absl::DeadlineExceededError(
            "the call's deadline passed before the server started it"));
  }
  absl::StatusOr<Response> result = operation();
  if (!result.ok()) {
    return FinishGated(context, std::move(pass), result.status());
  }
  *response = *std::move(result);
  return FinishGated(context, std::move(pass), absl::OkStatus());
}

class SceneService final : public sator::v1::SceneService::CallbackService {
 public:
  SceneService(DrainGate& drain_gate, SceneRegistry& registry,
               SceneOpsOptions options)
      : drain_gate_(drain_gate),
        registry_(registry),
        options_(std::move(options)) {}

  grpc::ServerUnaryReactor* CreateScene(
      grpc::CallbackServerContext* context,
      const sator::v1::CreateSceneRequest* request,
      sator::v1::SceneInfo* response) override;
  grpc::ServerUnaryReactor* DeleteScene(
      grpc::CallbackServerContext* context,
      const sator::v1::DeleteSceneRequest* request,
      sator::v1::DeleteSceneResponse* response) override;
  grpc::ServerUnaryReactor* ListScenes(
      grpc::CallbackServerContext* context,
      const sator::v1::ListScenesRequest* request,
      sator::v1::ListScenesResponse* response) override;
  grpc::ServerUnaryReactor* GetScene(grpc::CallbackServerContext* context,
                                     const sator::v1::GetSceneRequest* request,
                                     sator::v1::SceneInfo* response) override;
  grpc::ServerUnaryReactor* ExportScene(
      grpc::CallbackServerContext* context,
      const sator::v1::ExportSceneRequest* request,
      sator::v1::SceneSnapshot* response) override;
  grpc::ServerUnaryReactor* ImportScene(
      grpc::CallbackServerContext* context,
      const sator::v1::ImportSceneRequest* request,
      sator::v1::SceneInfo* response) override;

 private:
  DrainGate& drain_gate_;
  SceneRegistry& registry_;
  const SceneOpsOptions options_;
};

}  // namespace sator::server

#endif  // SATOR_SERVER_SCENE_SERVICE_H_

// sator.v1.SceneService handlers: each one call into scene_ops.
#include "server/scene_service.h"

namespace sator::server {

grpc::ServerUnaryReactor* SceneService::CreateScene(
    grpc::CallbackServerContext* context,
    const sator::v1::CreateSceneRequest* request,
    sator::v1::SceneInfo* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::CreateScene(registry_, options_, *request);
  });
}

grpc::ServerUnaryReactor* SceneService::DeleteScene(
    grpc::CallbackServerContext* context,
    const sator::v1::DeleteSceneRequest* request,
    sator::v1::DeleteSceneResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::DeleteScene(registry_, options_, *request);
  });
}

grpc::ServerUnaryReactor* SceneService::ListScenes(
    grpc::CallbackServerContext* context,
    const sator::v1::ListScenesRequest* request,
    sator::v1::ListScenesResponse* response) {
  return RunGatedUnary(drain_gate_, context, *request, response,
                       [&] { return server::ListScenes(registry_, *request); });
}

grpc::ServerUnaryReactor* SceneService::GetScene(
    grpc::CallbackServerContext* context,
    const sator::v1::GetSceneRequest* request, sator::v1::SceneInfo* response) {
  return RunGatedUnary(drain_gate_, context, *request, response,
                       [&] { return server::GetScene(registry_, *request); });
}

grpc::ServerUnaryReactor* SceneService::ExportScene(
    grpc::CallbackServerContext* context,
    const sator::v1::ExportSceneRequest* request,
    sator::v1::SceneSnapshot* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::ExportScene(registry_, options_, *request);
  });
}

grpc::ServerUnaryReactor* SceneService::ImportScene(
    grpc::CallbackServerContext* context,
    const sator::v1::ImportSceneRequest* request,
    sator::v1::SceneInfo* response) {
  return RunGatedUnary(drain_gate_, context, *request, response, [&] {
    return server::ImportScene(registry_, options_, *request);
  });
}

}  // namespace sator::server

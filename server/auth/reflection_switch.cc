// Removes gRPC's reflection plugin from a ServerBuilder (see
// reflection_switch.h).
#include "server/auth/reflection_switch.h"

#include <algorithm>
#include <vector>

#include "grpcpp/impl/server_builder_plugin.h"

namespace sator::server::auth {
namespace {

// The name grpc::reflection::ProtoServerReflectionPlugin::name() returns.
constexpr char kReflectionPluginName[] = "proto_server_reflection";

class WithoutReflectionOption final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>*
                         plugins) override {
    plugins->erase(
        std::remove_if(plugins->begin(), plugins->end(),
                       [](const std::unique_ptr<grpc::ServerBuilderPlugin>& p) {
                         return p->name() == kReflectionPluginName;
                       }),
        plugins->end());
  }
};

}  // namespace

std::unique_ptr<grpc::ServerBuilderOption> WithoutReflection() {
  return std::make_unique<WithoutReflectionOption>();
}

}  // namespace sator::server::auth

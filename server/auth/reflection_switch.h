// Turning server reflection off for real. Linking grpc++_reflection registers
// its ServerBuilder plugin from a static initializer, so every server in the
// process serves reflection whether or not it asked; this option takes the
// plugin out of one ServerBuilder again (--reflection=false).
#ifndef SATOR_SERVER_AUTH_REFLECTION_SWITCH_H_
#define SATOR_SERVER_AUTH_REFLECTION_SWITCH_H_

#include <memory>

#include "grpcpp/impl/server_builder_option.h"

namespace sator::server::auth {

// For ServerBuilder::SetOption: removes the reflection plugin.
std::unique_ptr<grpc::ServerBuilderOption> WithoutReflection();

}  // namespace sator::server::auth

#endif  // SATOR_SERVER_AUTH_REFLECTION_SWITCH_H_

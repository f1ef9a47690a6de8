// Builds sator::Client objects: validates the options, makes the connection
// and, for tests, takes an injected retry environment (clock, sleep, random).
#ifndef SATOR_CLIENT_SRC_CLIENT_FACTORY_H_
#define SATOR_CLIENT_SRC_CLIENT_FACTORY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "retry_loop.h"
#include "sator/client/client.h"

namespace sator::client_internal {

class ClientFactory {
 public:
  // A client over `connection`; one that fails every call with the reason
  // when `connection` is an error or null or an option is bad.
  static Client Make(absl::StatusOr<std::shared_ptr<Connection>> connection,
                     const ClientOptions& options,
                     RetryEnvironment environment);
  // A client that uses `state` without owning it.
  static Client Borrow(ClientState* state);
};

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_CLIENT_FACTORY_H_

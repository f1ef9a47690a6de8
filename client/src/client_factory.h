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
  static absl::StatusOr<std::unique_ptr<Client>> Create(
      std::shared_ptr<client::Connection> connection,
      const ClientOptions& options, RetryEnvironment environment);
};

}  // namespace sator::client_internal

#endif  // SATOR_CLIENT_SRC_CLIENT_FACTORY_H_

// The mocks' special members, out of line: see mock_connection.h.
#include "sator/client/mocks/mock_connection.h"

namespace sator {

MockConnection::MockConnection() = default;
MockConnection::~MockConnection() = default;

MockSessionStream::MockSessionStream() = default;
MockSessionStream::~MockSessionStream() = default;

}  // namespace sator

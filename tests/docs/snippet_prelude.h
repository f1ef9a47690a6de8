// What every C++ snippet of the docs sees (tests/docs/extract_snippets.py):
// the client library's public headers, gMock for the mock's snippet, and the
// helpers a snippet calls without defining them.
#ifndef SATOR_TESTS_DOCS_SNIPPET_PRELUDE_H_
#define SATOR_TESTS_DOCS_SNIPPET_PRELUDE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "sator/client/client.h"
#include "sator/client/connection.h"
#include "sator/client/session.h"
#include "sator/client/sharding.h"
#include "sator/client/sharding_connection.h"
#include "sator/client/types.h"

namespace sator_doc_snippets {

using ::testing::_;
using ::testing::Return;

// The docs' stand-in for reading a mounted Secret's file.
std::string ReadSecret(const std::string& path);

}  // namespace sator_doc_snippets

#endif  // SATOR_TESTS_DOCS_SNIPPET_PRELUDE_H_
